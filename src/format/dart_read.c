/* SPDX-License-Identifier: Apache-2.0 */
/* dart_read.c: Dart VM heap snapshots ("dartheap", written by NativeRuntime
 * .writeHeapSnapshotToFile, Dart_WriteHeapSnapshot or the VM service's HeapSnapshot chunks
 * concatenated) into the graph (format layer), prefix dart_. One pass over the mapped bytes:
 * header, classes (1-origin, with their fields: a field's index names that reference slot),
 * objects (1-origin: class, shallow size, a tagged data payload, references by object id),
 * external sizes, and the optional identity-hash section, kept per object: it is how Flutter's
 * leak_tracker names the objects it reports (format/leaktracker.c). Both layouts load: the
 * current one (three extra classes "Root", "Read-Only Pages", "Isolate" before the VM's,
 * identity hashes at the end) and the older one (root written with class 0, no hashes).
 * Integers are LEB128; every length and count is checked against the bytes left before it sizes
 * anything. Object 1 is the root; references to 0 are unboxed or omitted slots and make no
 * edge. The classes DevTools treats as weak (_WeakProperty, _WeakReferenceImpl, FinalizerEntry)
 * hold their references weakly. Format and its spec mismatches: docs/formats/dart.md. */
#include "format/dart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char DART_FORMAT[] = "dart"; /* g->format: compared by address */
#define DART_MAGIC "dartheap"
#define DART_LABEL_MAX 128 /* the writer truncates string data to 128 units; so do labels */

typedef struct dcur {
    const uint8_t *base, *p, *end;
    const char *name;
    lr_error *err;
} dcur;

static lr_status past_end(dcur *c, const char *what)
{
    return LR_TRUNC(c->err, c->name, (uint64_t)(c->p - c->base), "%s past end of file", what);
}

static lr_status uleb(dcur *c, uint64_t *out, const char *what)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (c->p >= c->end)
            return past_end(c, what);
        uint8_t b = *c->p++;
        if (shift >= 64 || (shift == 63 && (b & 0x7e)))
            return LR_CORRUPT(c->err, c->name, (uint64_t)(c->p - c->base - 1),
                              "%s: LEB128 longer than 64 bits", what);
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    *out = v;
    return LR_OK;
}

/* Skips one LEB128 number of up to 10 bytes, signed or not (object data: a Mint's sleb may
 * set bits a uleb reader would call an overflow, and its value is not kept). */
static lr_status skip_leb(dcur *c, const char *what)
{
    for (int i = 0; i < 10; i++) {
        if (c->p >= c->end)
            return past_end(c, what);
        if (!(*c->p++ & 0x80))
            return LR_OK;
    }
    return LR_CORRUPT(c->err, c->name, (uint64_t)(c->p - c->base), "%s: LEB128 over 10 bytes",
                      what);
}

/* A count that sizes an array: each element takes at least min_bytes of what is left. */
static lr_status count(dcur *c, uint64_t *out, unsigned min_bytes, const char *what)
{
    uint64_t off = (uint64_t)(c->p - c->base);
    LR_TRY(uleb(c, out, what));
    if (*out > (uint64_t)(c->end - c->p) / (min_bytes ? min_bytes : 1) || *out >= UINT32_MAX)
        return LR_CORRUPT(c->err, c->name, off, "%s %llu exceeds the bytes left", what,
                          (unsigned long long)*out);
    return LR_OK;
}

static lr_status skip(dcur *c, uint64_t n, const char *what)
{
    if (n > (uint64_t)(c->end - c->p))
        return past_end(c, what);
    c->p += n;
    return LR_OK;
}

/* A Utf8String: uleb length and bytes, returned in place. */
static lr_status str(dcur *c, const uint8_t **s, size_t *len, const char *what)
{
    uint64_t n;
    LR_TRY(uleb(c, &n, what));
    if (n > (uint64_t)(c->end - c->p))
        return past_end(c, what);
    *s = c->p;
    *len = (size_t)n;
    c->p += n;
    return LR_OK;
}

int dart_sniff(const uint8_t *p, uint64_t n)
{
    return n >= 8 && memcmp(p, DART_MAGIC, 8) == 0;
}

/* Node kinds by class name: the VM's own classes the analyses care about. */
static uint8_t kind_of(const char *name)
{
    static const struct {
        const char *name;
        uint8_t kind;
    } K[] = {
        {"Root", GRAPH_KIND_SYNTHETIC},   {"Read-Only Pages", GRAPH_KIND_SYNTHETIC},
        {"Isolate", GRAPH_KIND_SYNTHETIC}, {"_List", GRAPH_KIND_OBJ_ARRAY},
        {"_ImmutableList", GRAPH_KIND_OBJ_ARRAY}, {"Array", GRAPH_KIND_OBJ_ARRAY},
        {"_GrowableList", GRAPH_KIND_INSTANCE}, {"_OneByteString", GRAPH_KIND_STRING},
        {"_TwoByteString", GRAPH_KIND_STRING}, {"_Closure", GRAPH_KIND_CLOSURE},
        {"Closure", GRAPH_KIND_CLOSURE},   {"Context", GRAPH_KIND_CODE},
        {"Code", GRAPH_KIND_CODE},         {"Function", GRAPH_KIND_CODE},
        {"ObjectPool", GRAPH_KIND_CODE},   {"Instructions", GRAPH_KIND_CODE},
        {"PcDescriptors", GRAPH_KIND_CODE}, {"CodeSourceMap", GRAPH_KIND_CODE},
        {"CompressedStackMaps", GRAPH_KIND_CODE}, {"ICData", GRAPH_KIND_CODE},
        {"Field", GRAPH_KIND_CODE},        {"Script", GRAPH_KIND_CODE},
        {"Library", GRAPH_KIND_CODE},      {"Class", GRAPH_KIND_CLASS},
        {"_Uint8List", GRAPH_KIND_PRIM_ARRAY}, {"_Int32List", GRAPH_KIND_PRIM_ARRAY},
        {"_Float64List", GRAPH_KIND_PRIM_ARRAY}, {"_Smi", GRAPH_KIND_OTHER},
        {"_Mint", GRAPH_KIND_OTHER},       {"_Double", GRAPH_KIND_OTHER},
        {"Null", GRAPH_KIND_OTHER},        {"bool", GRAPH_KIND_OTHER},
    };
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++)
        if (strcmp(K[i].name, name) == 0)
            return K[i].kind;
    return GRAPH_KIND_INSTANCE;
}

/* Classes whose references do not keep their targets alive (DevTools' weak classes). */
static int weak_class(const char *name)
{
    return strcmp(name, "_WeakProperty") == 0 || strcmp(name, "_WeakReferenceImpl") == 0 ||
           strcmp(name, "FinalizerEntry") == 0 || strcmp(name, "WeakReference") == 0;
}

/* Per class: its fields as (index -> name) in a sorted run of the shared array. */
typedef struct dfield {
    uint64_t index;
    str_ix name;
} dfield;

typedef struct dclass {
    uint32_t first, n; /* run in fields */
    uint8_t kind;
    uint8_t weak;
} dclass;

static int cmp_field(const void *a, const void *b)
{
    const dfield *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

static str_ix field_name(const dfield *f, const dclass *k, uint64_t slot)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (f[k->first + mid].index < slot)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->n && f[k->first + lo].index == slot ? f[k->first + lo].name : GRAPH_NONE;
}

/* What the graph keeps of a snapshot beyond the generic arrays (g->fmt_state). */
typedef struct dart_state {
    uint32_t *hash; /* identity hash per node, 0 = none; NULL when the snapshot has none */
} dart_state;

static void state_free(void *p)
{
    dart_state *s = p;
    if (s)
        free(s->hash);
    free(s);
}

uint32_t dart_identity_hash(const graph *g, node_ix n)
{
    const dart_state *s = g && g->format == DART_FORMAT ? g->fmt_state : NULL;
    return s && s->hash && n < g->n_nodes ? s->hash[n] : 0;
}

int dart_has_identity_hashes(const graph *g)
{
    const dart_state *s = g && g->format == DART_FORMAT ? g->fmt_state : NULL;
    return s && s->hash;
}

typedef struct dctx {
    dcur c;
    graph *g;
    dclass *cls;
    dfield *fields;
    uint64_t n_fields;
    str_ix *label; /* per object: NameData or string prefix, GRAPH_NONE if none */
} dctx;

static lr_status read_classes(dctx *x, uint64_t n_cls)
{
    graph *g = x->g;
    dcur *c = &x->c;
    /* Class 0 is the sentinel (the old layout writes the root with it). */
    g->classes = err_calloc(n_cls + 1, sizeof *g->classes);
    x->cls = err_calloc(n_cls + 1, sizeof *x->cls);
    if (!g->classes || !x->cls)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
    g->n_classes = (uint32_t)n_cls + 1;
    LR_TRY(graph_intern(g, "Root", 4, &g->classes[0].name, c->err));
    g->classes[0].super = g->classes[0].node = GRAPH_NONE;
    x->cls[0].kind = GRAPH_KIND_SYNTHETIC;
    uint64_t cap = 0;
    for (uint64_t i = 1; i <= n_cls; i++) {
        uint64_t flags, nf;
        const uint8_t *s;
        size_t len;
        LR_TRY(uleb(c, &flags, "class flags"));
        LR_TRY(str(c, &s, &len, "class name"));
        graph_class *k = &g->classes[i];
        *k = (graph_class){.super = GRAPH_NONE, .node = GRAPH_NONE, .id = i};
        LR_TRY(graph_intern(g, (const char *)s, len, &k->name, c->err));
        for (int j = 0; j < 3; j++) /* library name, library uri, reserved */
            LR_TRY(str(c, &s, &len, "class library"));
        LR_TRY(count(c, &nf, 3, "field count"));
        const char *cname = graph_str(g, k->name);
        x->cls[i] = (dclass){.first = (uint32_t)x->n_fields, .n = 0, .kind = kind_of(cname),
                             .weak = (uint8_t)weak_class(cname)};
        if (x->n_fields + nf > cap) {
            uint64_t nc = cap ? cap * 2 : 256;
            while (nc < x->n_fields + nf)
                nc *= 2;
            if (nc >= UINT32_MAX)
                return LR_FAIL(c->err, LR_ERR_LIMIT, "%s: too many fields", c->name);
            dfield *nv = err_reallocarray(x->fields, nc, sizeof *nv);
            if (!nv)
                return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
            x->fields = nv;
            cap = nc;
        }
        for (uint64_t f = 0; f < nf; f++) {
            uint64_t ff, ix;
            LR_TRY(uleb(c, &ff, "field flags"));
            LR_TRY(uleb(c, &ix, "field index"));
            LR_TRY(str(c, &s, &len, "field name"));
            dfield *d = &x->fields[x->n_fields++];
            d->index = ix;
            LR_TRY(graph_intern(g, (const char *)s, len, &d->name, c->err));
            LR_TRY(str(c, &s, &len, "field reserved"));
        }
        x->cls[i].n = (uint32_t)nf;
        if (nf) /* fields is still NULL while no class had any */
            qsort(x->fields + x->cls[i].first, nf, sizeof *x->fields, cmp_field);
    }
    return LR_OK;
}

/* Skips an object's data payload; strings and names become its label. */
static lr_status read_data(dctx *x, uint32_t n)
{
    dcur *c = &x->c;
    uint64_t tag, len, tlen;
    const uint8_t *s;
    size_t sl;
    char buf[DART_LABEL_MAX * 3 + 1];
    LR_TRY(uleb(c, &tag, "data tag"));
    switch (tag) {
    case 0: /* no data */
    case 1: /* null */
        return LR_OK;
    case 2: /* bool */
    case 3: /* int: uleb for Smi, sleb for Mint; both end at a byte below 0x80 */
    case 7: /* length */
        return skip_leb(c, "object data");
    case 4: /* double */
        return skip(c, 8, "double data");
    case 5: /* Latin-1 string: length, truncated length, bytes */
    case 6: /* UTF-16 string */
        LR_TRY(uleb(c, &len, "string length"));
        LR_TRY(uleb(c, &tlen, "string truncated length"));
        (void)len; /* the full length; only the (truncated) units are in the file */
        if (tlen > (uint64_t)(c->end - c->p) / (tag == 6 ? 2 : 1))
            return past_end(c, "string data");
        s = c->p;
        c->p += tlen * (tag == 6 ? 2 : 1);
        sl = 0;
        int exact = tlen == len && tlen <= DART_LABEL_MAX;
        for (uint64_t i = 0; i < tlen && i < DART_LABEL_MAX; i++) {
            unsigned u = tag == 5 ? s[i] : (unsigned)(s[2 * i] | s[2 * i + 1] << 8);
            /* Labels are for display: keep ASCII, mark the rest. */
            buf[sl++] = u >= 0x20 && u < 0x7f ? (char)u : '?';
            exact &= u >= 0x20 && u < 0x7f;
        }
        LR_TRY(graph_intern(x->g, buf, sl, &x->label[n], c->err));
        /* A whole value in printable ASCII is the string's text, not only its label: what
         * `dupes` compares (a cut or marked one could equal another that differs). */
        if (exact && x->g->node_value)
            x->g->node_value[n] = x->label[n];
        return LR_OK;
    case 8: /* name */
        LR_TRY(str(c, &s, &sl, "name data"));
        if (sl > DART_LABEL_MAX)
            sl = DART_LABEL_MAX;
        return graph_intern(x->g, (const char *)s, sl, &x->label[n], c->err);
    default:
        return LR_CORRUPT(c->err, c->name, (uint64_t)(c->p - c->base - 1),
                          "unknown object data tag %llu", (unsigned long long)tag);
    }
}

static lr_status dart_load_x(dctx *x)
{
    graph *g = x->g;
    dcur *c = &x->c;
    uint64_t flags, shallow, capacity, external, n_cls, n_refs, n_objs;
    const uint8_t *s;
    size_t sl;
    if (c->end - c->p < 8 || memcmp(c->p, DART_MAGIC, 8) != 0)
        return LR_CORRUPT(c->err, c->name, 0, "not a Dart heap snapshot (magic)");
    c->p += 8;
    LR_TRY(uleb(c, &flags, "flags"));
    LR_TRY(str(c, &s, &sl, "isolate name"));
    snprintf(g->version, sizeof g->version, "dartheap, isolate %.*s",
             (int)(sl < 24 ? sl : 24), (const char *)s);
    LR_TRY(uleb(c, &shallow, "heap size"));
    LR_TRY(uleb(c, &capacity, "heap capacity"));
    LR_TRY(uleb(c, &external, "external size"));
    LR_TRY(count(c, &n_cls, 6, "class count"));
    LR_TRY(read_classes(x, n_cls));
    LR_TRY(uleb(c, &n_refs, "reference count"));
    LR_TRY(count(c, &n_objs, 4, "object count"));
    if (n_refs > (uint64_t)(c->end - c->p))
        return LR_CORRUPT(c->err, c->name, (uint64_t)(c->p - c->base),
                          "reference count %llu exceeds the bytes left",
                          (unsigned long long)n_refs);
    LR_TRY(graph_alloc_nodes(g, n_objs, GRAPH_WANT_NATIVE | GRAPH_WANT_NAME, c->err));
    LR_TRY(graph_alloc_edges(g, n_refs, c->err));
    x->label = g->node_name;
    g->node_value = err_mallocarray(n_objs ? n_objs : 1, sizeof *g->node_value);
    if (!g->node_value)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
    for (uint32_t i = 0; i < n_objs; i++)
        g->node_value[i] = GRAPH_NONE;
    uint32_t e = 0;
    g->first_edge[0] = 0;
    for (uint32_t n = 0; n < n_objs; n++) {
        uint64_t cid, size, nr;
        LR_TRY(uleb(c, &cid, "class id"));
        if (cid > n_cls)
            return LR_CORRUPT(c->err, c->name, (uint64_t)(c->p - c->base),
                              "object %u: class id %llu of %llu", n + 1,
                              (unsigned long long)cid, (unsigned long long)n_cls);
        LR_TRY(uleb(c, &size, "shallow size"));
        g->node_id[n] = (uint64_t)n + 1;
        g->node_class[n] = (class_ix)cid;
        g->node_kind[n] = n == 0 ? GRAPH_KIND_SYNTHETIC : x->cls[cid].kind;
        g->node_type[n] = 0;
        g->node_size[n] = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
        if (size > UINT32_MAX)
            diag_count(&g->diag, DIAG_SIZE_SATURATED);
        g->node_off[n] = UINT64_MAX;
        g->node_len[n] = 0;
        g->node_name[n] = GRAPH_NONE;
        LR_TRY(read_data(x, n));
        LR_TRY(count(c, &nr, 1, "object reference count"));
        if (nr > n_refs - e)
            return LR_CORRUPT(c->err, c->name, (uint64_t)(c->p - c->base),
                              "object %u has more references than the header's %llu", n + 1,
                              (unsigned long long)n_refs);
        const dclass *k = &x->cls[cid];
        uint8_t kind_field = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, k->weak ? GRAPH_WEAK : 0);
        uint8_t kind_elem = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, k->weak ? GRAPH_WEAK : 0);
        for (uint64_t r = 0; r < nr; r++) {
            uint64_t to;
            LR_TRY(uleb(c, &to, "reference"));
            if (to == 0)
                continue; /* unboxed or omitted slot */
            if (to > n_objs) {
                diag_count(&g->diag, DIAG_DANGLING_REFERENCE);
                continue;
            }
            str_ix fname = k->n ? field_name(x->fields, k, r) : GRAPH_NONE;
            g->edge_to[e] = (node_ix)(to - 1);
            g->edge_name[e] = fname != GRAPH_NONE ? fname : (uint32_t)r;
            g->edge_kind[e] = fname != GRAPH_NONE ? kind_field : kind_elem;
            e++;
        }
        g->first_edge[n + 1] = e;
    }
    g->n_edges = e;
    uint64_t n_ext;
    LR_TRY(count(c, &n_ext, 3, "external property count"));
    for (uint64_t i = 0; i < n_ext; i++) {
        uint64_t obj, size;
        LR_TRY(uleb(c, &obj, "external object"));
        LR_TRY(uleb(c, &size, "external size"));
        LR_TRY(str(c, &s, &sl, "external name"));
        if (obj == 0 || obj > n_objs) {
            diag_count(&g->diag, DIAG_DANGLING_REFERENCE);
            continue;
        }
        uint64_t t = (uint64_t)g->node_native[obj - 1] + size;
        g->node_native[obj - 1] = t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
    }
    /* Identity hashes (current layout) follow, one per object; an older VM wrote none. The
     * VM's hashes are 32-bit (0: never asked for one). */
    if (c->p < c->end) {
        dart_state *ds = err_calloc(1, sizeof *ds);
        if (ds)
            ds->hash = err_mallocarray(n_objs ? n_objs : 1, sizeof *ds->hash);
        if (!ds || !ds->hash) {
            state_free(ds);
            return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
        }
        g->fmt_state = ds;
        g->fmt_free = state_free;
        for (uint64_t i = 0; i < n_objs; i++) {
            uint64_t h;
            uint64_t off = (uint64_t)(c->p - c->base);
            LR_TRY(uleb(c, &h, "identity hash"));
            if (h > UINT32_MAX)
                return LR_CORRUPT(c->err, c->name, off, "identity hash over 32 bits");
            ds->hash[i] = (uint32_t)h;
        }
    }
    if (c->p != c->end)
        return LR_CORRUPT(c->err, c->name, (uint64_t)(c->p - c->base),
                          "%llu bytes after the snapshot", (unsigned long long)(c->end - c->p));
    if (n_objs) {
        g->roots = err_calloc(1, sizeof *g->roots);
        if (!g->roots)
            return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
        g->roots[0] = (graph_root){.node = 0, .kind = GRAPH_ROOT_SYNTHETIC, .frame = -1};
        g->n_roots = 1;
    }
    LR_TRY(graph_build_index(g, c->err));
    return graph_index_class_nodes(g, c->err);
}

static lr_status dart_load(graph *g, const mfile *m, const fmt_opts *o, lr_error *err)
{
    (void)o;
    dctx x = {.c = {.base = m->data, .p = m->data, .end = m->data + m->len,
                    .name = g->path ? g->path : "<input>", .err = err},
              .g = g};
    g->format = DART_FORMAT;
    g->data = m->data;
    g->data_len = m->len;
    g->size_model = GRAPH_SIZES_RECORD;
    g->synthetic_root = GRAPH_NONE;
    g->type_names[0] = "object";
    g->n_types = 1;
    lr_status s = dart_load_x(&x);
    free(x.cls);
    free(x.fields);
    return s;
}

const fmt_reader fmt_dart_reader = {DART_FORMAT, dart_sniff, dart_load};
