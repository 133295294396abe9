/* SPDX-License-Identifier: Apache-2.0 */
/* v8_read.c: V8 / Node / Chrome / ArkTS `.heapsnapshot` reader (format layer), prefix v8_:
 * the records into the graph; the tokenizer is v8_json.c, the DevTools passes v8_prepare.c.
 * Input: the mapped JSON. A hand-written scanner walks the top-level object once; the
 * snapshot header is parsed into a small struct, the `strings` array is interned as it is
 * met, and `nodes` / `edges` / `locations` are located (memchr for their closing bracket) and
 * then parsed straight into exactly-sized graph arrays, so no JSON tree and no raw copy of the
 * integer arrays ever exists. Every count from the header is checked against the bytes of its
 * array before anything is allocated. After loading, the DevTools preparation passes run:
 * detached-DOM renaming (propagateDOMState), shallow-size re-attribution
 * (calculateShallowSizes), class names with interface inference (calculateObjectNames,
 * inferInterfaceDefinitions, applyInterfaceDefinitions) and class keys with locations.
 * Two threads: while this one interns the strings and parses the nodes, a helper parses the
 * edges and then the locations (names stay raw string indexes until remap_names, anomalies
 * are counted in the context until the join); later the helper re-attributes sizes while
 * this thread names classes (which reads no size). No id index is built (graph_find_id
 * scans), ids are 32-bit while they fit, node_off is left NULL (no payloads), and the intern
 * table is dropped at the end: 16 bytes per node and 4 per string less to hold.
 * Budget: graph arrays plus a few temporary uint32 per node; nothing per object is malloc'd.
 * Spec: docs/formats/v8.md; the DevTools behaviour copied is HeapSnapshot.ts as shipped in
 * heap-snapshot-toolkit 1.1.3. */
#define _GNU_SOURCE /* qsort_r */
#include "format/v8_internal.h"
#include "base/hash.h"
#include "base/mem.h"
#include "base/phase.h"
#include "base/search.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- reader state kept with the graph ---- */

static void state_free(void *p)
{
    v8_state *s = p;
    if (!s)
        return;
    free(s->class_keys);
    free(s->iface_names);
    free(s->iface_off);
    free(s->iface_props);
    free(s->trace_node);
    free(s->trace_funcs);
    free(s->ecks32);
    free(s->ecks64);
    free(s->smap);
    free(s->smap_exc);
    free(s->id_base);
    free(s->id_mask);
    free(s->id_exc_first);
    free(s->id_exc);
    free(s);
}

static const char *V8_FORMAT = "v8";

const str_ix *v8_class_keys(const graph *g)
{
    if (!g || g->format != V8_FORMAT || !g->fmt_state)
        return NULL;
    return ((const v8_state *)g->fmt_state)->class_keys;
}

uint64_t v8_extra_native_bytes(const graph *g)
{
    if (!g || g->format != V8_FORMAT || !g->fmt_state)
        return 0;
    return ((const v8_state *)g->fmt_state)->extra_native_bytes;
}

/* ---- strings section ---- */

static lr_status intern_bytes(ctx *x, const uint8_t *s, size_t len, str_ix *out)
{
    return graph_intern(x->g, (const char *)s, len, out, x->c.err);
}

/* One string found by the look-ahead of parse_strings: its opening quote (NULL when the
 * look-ahead stopped there), its raw content and whether that needs no decoding. */
typedef struct str_ahead {
    const uint8_t *q;
    const uint8_t *s, *e;
    int plain;
} str_ahead;

#define STR_AHEAD 16u /* strings scanned ahead of the one interned */

/* Scans the string at la's position into *a and prefetches its intern slot; moves la past
 * the comma after it. 0 when the look-ahead stops (a->q NULL if no string was taken). */
static int strings_ahead(cur *la, str_ahead *a, const hmap *index)
{
    a->q = NULL;
    skip_ws(la);
    if (la->p >= la->end || *la->p != '"')
        return 0;
    const uint8_t *q = la->p;
    if (v8j_scan_string(la, &a->s, &a->e, &a->plain) != LR_OK)
        return 0;
    a->q = q;
    if (a->plain) /* graph_intern's hash: escaped strings are rare enough to go unhinted */
        hmap_prefetch(index, hash_fnv32(a->s, (size_t)(a->e - a->s)));
    skip_ws(la);
    if (la->p < la->end && *la->p == ',') {
        la->p++;
        return 1;
    }
    return 0; /* the end of the array (or an error the loop will find): the last one taken */
}

static lr_status parse_strings(ctx *x)
{
    cur *c = &x->c;
    if (x->have_strings)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "second \"strings\" array");
    x->have_strings = 1;
    LR_TRY(v8j_expect(c, '[', "strings"));
    /* Each string takes at least 3 bytes ("" and a comma), which bounds the table. */
    uint64_t limit = (uint64_t)(c->end - c->p) / 3 + 1;
    /* The pool will hold about the bytes that follow (V8 writes strings last); reserving them
     * up front saves the copies of repeated doubling. Untouched pages cost nothing. */
    graph_strtab *t = &x->g->strings;
    uint64_t want = (uint64_t)(c->end - c->p) + 4096;
    if (want > t->cap_chars && want < ((uint64_t)1 << 34)) {
        char *nc = realloc(t->chars, (size_t)want);
        if (nc) {
            t->chars = nc;
            t->cap_chars = (size_t)want;
            graph_hint_huge(nc, (size_t)want);
        }
    }
    /* Every string has two unescaped quotes: half the quotes bound the count, so the intern
     * table is sized once instead of doubling (and rehashing) about twenty times. The
     * reservation stays within 2 table bytes per input byte (escaped quotes inflate the
     * count); beyond it the table doubles as usual. */
    uint64_t quotes = 0;
    for (const uint8_t *q = c->p; q < c->end; q++)
        quotes += *q == '"';
    uint64_t guess = quotes / 2, most = (uint64_t)(c->end - c->p) / 8;
    if (guess > most)
        guess = most;
    if (guess < UINT32_MAX / 4) {
        LR_TRY(graph_reserve_strings(x->g, (uint32_t)guess, c->err));
        /* Fresh (only "" is in): the table is probed all over, a dense array. */
        graph_hint_huge(t->index.slot, (size_t)t->index.cap * sizeof *t->index.slot);
        graph_hint_huge(t->index.hv, (size_t)t->index.cap * sizeof *t->index.hv);
    }
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return LR_OK;
    }
    /* The look-ahead: strings scanned STR_AHEAD ahead of the one interned, with the intern
     * table's slot of each prefetched, so the two cache misses of each insertion overlap
     * instead of following one another. It reports nothing: at anything unexpected it
     * stops, and the loop below finds the error in order. */
    str_ahead ring[STR_AHEAD];
    unsigned head = 0, tail = 0;
    cur la = *c;
    lr_error la_err = {0};
    la.err = &la_err;
    int la_on = 1;
    for (;;) {
        while (la_on && tail - head < STR_AHEAD) {
            str_ahead *a = &ring[tail % STR_AHEAD];
            la_on = strings_ahead(&la, a, &t->index);
            tail += a->q != NULL;
        }
        skip_ws(c);
        if (c->p >= c->end)
            return v8j_trunc_at(c, "strings");
        if (*c->p != '"')
            return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "expected a string in strings");
        const uint8_t *s, *e;
        int plain;
        if (head != tail && ring[head % STR_AHEAD].q == c->p) {
            const str_ahead *a = &ring[head++ % STR_AHEAD];
            s = a->s;
            e = a->e;
            plain = a->plain;
            c->p = e + 1;
        } else {
            head = tail = 0; /* out of step (cannot happen): scan here */
            la_on = 0;
            LR_TRY(v8j_scan_string(c, &s, &e, &plain));
        }
        str_ix ix;
        if (plain) {
            LR_TRY(intern_bytes(x, s, (size_t)(e - s), &ix));
        } else {
            size_t len;
            LR_TRY(v8j_scratch_fit(&x->sc, 2 * (size_t)(e - s) + 2, c->err));
            LR_TRY(v8j_decode_string(c, s, e, x->sc.buf, &len));
            LR_TRY(intern_bytes(x, x->sc.buf, len, &ix));
        }
        if (x->n_smap == x->cap_smap) {
            uint64_t cap = x->cap_smap ? (uint64_t)x->cap_smap * 2 : 4096;
            if (cap > limit)
                cap = limit;
            if (cap > UINT32_MAX - 1)
                cap = UINT32_MAX - 1;
            if (cap <= x->n_smap)
                return LR_FAIL(c->err, LR_ERR_LIMIT, "%s: too many strings", c->name);
            str_ix *m = err_reallocarray(x->smap, cap, sizeof *m);
            if (!m)
                return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for strings", c->name);
            x->smap = m;
            x->cap_smap = (uint32_t)cap;
        }
        x->smap[x->n_smap++] = ix;
        skip_ws(c);
        if (c->p >= c->end)
            return v8j_trunc_at(c, "strings");
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        return v8j_expect(c, ']', "strings");
    }
}

/* ---- numeric arrays ---- */

/* Records where a numeric array lies; its content is parsed later. */
static lr_status locate_array(ctx *x, span *sp, const char *what)
{
    cur *c = &x->c;
    if (sp->open)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "second \"%s\" array", what);
    skip_ws(c);
    if (c->p >= c->end)
        return v8j_trunc_at(c, what);
    if (*c->p != '[')
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "\"%s\" is not an array", what);
    const uint8_t *close = memchr(c->p, ']', (size_t)(c->end - c->p));
    if (!close)
        return LR_TRUNC(c->err, c->name, off_of(c, c->end), "input ends inside \"%s\"", what);
    sp->open = c->p;
    sp->close = close;
    c->p = close + 1;
    return LR_OK;
}

/* Streaming reader of one numeric array. The closing ']' bounds every loop, so the hot path
 * needs no end-of-input checks. */
typedef struct numrd {
    const uint8_t *p;     /* next byte */
    const uint8_t *close; /* the array's ']' */
    int first;            /* no number read yet */
} numrd;

static void numrd_init(numrd *r, const span *sp)
{
    r->p = sp->open + 1;
    r->close = sp->close;
    r->first = 1;
}

/* Next number: 1 with *v, 0 at the end of the array, -1 on a syntax error (r->p at it). */
static inline int numrd_next(numrd *r, uint64_t *v)
{
    const uint8_t *p = r->p;
    if (*p == ',' && (unsigned)p[1] - '0' <= 9 && !r->first) {
        p++; /* the usual separator, a bare comma: a quarter of the parse time saved */
        goto digits;
    }
    while (is_ws(*p))
        p++;
    if (!r->first) {
        if (*p == ',') {
            p++;
            while (is_ws(*p))
                p++;
        } else if (p == r->close) {
            r->p = p;
            return 0;
        } else {
            r->p = p;
            return -1;
        }
    } else if (p == r->close) {
        r->p = p;
        return 0;
    }
digits:;
    unsigned d = (unsigned)*p - '0';
    if (d > 9) {
        r->p = p;
        return -1;
    }
    uint64_t n = d;
    const uint8_t *s = p++;
    while ((d = (unsigned)*p - '0') <= 9) {
        n = n * 10 + d;
        p++;
    }
    if (p - s > 19) {
        r->p = s;
        return -1;
    }
    r->first = 0;
    r->p = p;
    *v = n;
    return 1;
}

static lr_status num_error(cur *c, const numrd *r, int rc, const char *what)
{
    if (rc == 0)
        return LR_CORRUPT(c->err, c->name, off_of(c, r->p), "\"%s\" array ends early", what);
    return LR_CORRUPT(c->err, c->name, off_of(c, r->p), "bad number in \"%s\"", what);
}

/* Fails unless the reader is at the end of its array. */
static lr_status numrd_end(cur *c, numrd *r, const char *what)
{
    uint64_t v;
    int rc = numrd_next(r, &v);
    if (rc == 0)
        return LR_OK;
    if (rc > 0)
        return LR_CORRUPT(c->err, c->name, off_of(c, r->p),
                          "\"%s\" holds more values than the header's count", what);
    return num_error(c, r, rc, what);
}

/* Upper bound of the numbers an array can hold: each needs a digit and a separator. */
static uint64_t span_capacity(const span *sp) { return (uint64_t)(sp->close - sp->open) / 2 + 1; }

static inline uint32_t raw_ix(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

static inline str_ix st_map_str(const v8_state *st, uint64_t s);

static inline str_ix map_str(ctx *x, uint64_t s)
{
    if (!x->smap && s < x->n_smap) /* handed to the state (keep_edge_names) */
        return st_map_str(x->st, s);
    if (s < x->n_smap)
        return x->smap[s];
    diag_count(&x->g->diag, DIAG_MISSING_STRING);
    return x->empty_str;
}

/* ---- meta -> roles and kinds ---- */

static uint8_t node_kind_of(const char *t)
{
    static const struct {
        const char *name;
        uint8_t kind;
    } K[] = {
        {"hidden", GRAPH_KIND_OTHER},       {"array", GRAPH_KIND_OBJ_ARRAY},
        {"string", GRAPH_KIND_STRING},      {"object", GRAPH_KIND_INSTANCE},
        {"code", GRAPH_KIND_CODE},          {"closure", GRAPH_KIND_CLOSURE},
        {"regexp", GRAPH_KIND_INSTANCE},    {"number", GRAPH_KIND_OTHER},
        {"native", GRAPH_KIND_NATIVE},      {"synthetic", GRAPH_KIND_SYNTHETIC},
        {"concatenated string", GRAPH_KIND_STRING}, {"sliced string", GRAPH_KIND_STRING},
        {"slicedstring", GRAPH_KIND_STRING}, {"symbol", GRAPH_KIND_OTHER},
        {"bigint", GRAPH_KIND_OTHER},       {"object shape", GRAPH_KIND_CODE},
        {"wasm object", GRAPH_KIND_INSTANCE}, {"class", GRAPH_KIND_CODE},
        {"framework", GRAPH_KIND_INSTANCE}, {"handle", GRAPH_KIND_SYNTHETIC},
    };
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++)
        if (strcmp(K[i].name, t) == 0)
            return K[i].kind;
    return GRAPH_KIND_OTHER;
}

static lr_status setup_meta(ctx *x)
{
    header *h = &x->h;
    cur *c = &x->c;
    graph *g = x->g;
    if (!h->has_meta || !h->has_node_fields || !h->has_edge_fields)
        return LR_CORRUPT(c->err, c->name, 0, "snapshot.meta lacks node_fields or edge_fields");
    if (h->node_fields.total > V8_MAX_FIELDS || h->edge_fields.total > V8_MAX_FIELDS)
        return LR_CORRUPT(c->err, c->name, 0, "snapshot.meta declares over %d fields",
                          V8_MAX_FIELDS);
    if (!h->has_node_count || !h->has_edge_count)
        return LR_CORRUPT(c->err, c->name, 0, "snapshot lacks node_count or edge_count");
    x->meta_done = 1;
    x->nf = h->node_fields.total;
    x->ef = h->edge_fields.total;
    x->fo_type = v8j_nl_find(&h->node_fields, "type");
    x->fo_name = v8j_nl_find(&h->node_fields, "name");
    x->fo_id = v8j_nl_find(&h->node_fields, "id");
    x->fo_size = v8j_nl_find(&h->node_fields, "self_size");
    x->fo_ec = v8j_nl_find(&h->node_fields, "edge_count");
    x->fo_det = v8j_nl_find(&h->node_fields, "detachedness");
    x->fo_native = v8j_nl_find(&h->node_fields, "native_size");
    x->fo_trace = v8j_nl_find(&h->node_fields, "trace_node_id");
    if (x->fo_type < 0 || x->fo_name < 0 || x->fo_id < 0 || x->fo_size < 0 || x->fo_ec < 0)
        return LR_CORRUPT(c->err, c->name, 0,
                          "node_fields lacks one of type, name, id, self_size, edge_count");
    x->eo_type = v8j_nl_find(&h->edge_fields, "type");
    x->eo_name = v8j_nl_find(&h->edge_fields, "name_or_index");
    x->eo_to = v8j_nl_find(&h->edge_fields, "to_node");
    if (x->eo_type < 0 || x->eo_name < 0 || x->eo_to < 0)
        return LR_CORRUPT(c->err, c->name, 0,
                          "edge_fields lacks one of type, name_or_index, to_node");
    /* The type names are the entry of node_types / edge_types at the `type` field's place;
     * a list elsewhere would name every type wrongly. */
    if (h->node_types_pos && h->node_types_pos != (uint32_t)x->fo_type + 1)
        return LR_CORRUPT(c->err, c->name, 0, "snapshot.meta.node_types has its type list at "
                          "entry %u, node_fields has `type` at %d", h->node_types_pos - 1,
                          x->fo_type);
    if (h->edge_types_pos && h->edge_types_pos != (uint32_t)x->eo_type + 1)
        return LR_CORRUPT(c->err, c->name, 0, "snapshot.meta.edge_types has its type list at "
                          "entry %u, edge_fields has `type` at %d", h->edge_types_pos - 1,
                          x->eo_type);

    /* Node types: declared order, first occurrence of a name decides its DevTools role. */
    const namelist *nt = &h->node_types;
    for (uint32_t i = 0; i < nt->n; i++) {
        memcpy(x->st->type_names[i], nt->names[i], V8_NAME_MAX);
        g->type_names[i] = x->st->type_names[i];
    }
    strcpy(x->st->type_names[V8_UNKNOWN_TYPE], "(unknown)");
    g->type_names[V8_UNKNOWN_TYPE] = x->st->type_names[V8_UNKNOWN_TYPE];
    g->n_types = V8_UNKNOWN_TYPE + 1;
    for (uint32_t i = nt->n; i < V8_UNKNOWN_TYPE; i++)
        g->type_names[i] = x->st->type_names[V8_UNKNOWN_TYPE];
    x->r.hidden = v8j_nl_find(nt, "hidden");
    x->r.array = v8j_nl_find(nt, "array");
    x->r.string = v8j_nl_find(nt, "string");
    x->r.object = v8j_nl_find(nt, "object");
    x->r.code = v8j_nl_find(nt, "code");
    x->r.closure = v8j_nl_find(nt, "closure");
    x->r.regexp = v8j_nl_find(nt, "regexp");
    x->r.native = v8j_nl_find(nt, "native");
    x->r.synthetic = v8j_nl_find(nt, "synthetic");
    x->r.cons = v8j_nl_find(nt, "concatenated string");
    x->r.sliced = v8j_nl_find(nt, "sliced string");

    /* Edge types: kinds by name; a repeated name and unknown names are plain `field` edges,
     * which DevTools treats like any other non-special edge. */
    const namelist *et = &h->edge_types;
    x->n_edge_types = et->n;
    for (uint32_t i = 0; i < et->n; i++) {
        const char *t = et->names[i];
        uint8_t k = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
        if (v8j_nl_find(et, t) != (int)i)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
        else if (strcmp(t, "context") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_CONTEXT, GRAPH_STRONG);
        else if (strcmp(t, "element") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
        else if (strcmp(t, "property") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_PROPERTY, GRAPH_STRONG);
        else if (strcmp(t, "internal") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_INTERNAL, GRAPH_STRONG);
        else if (strcmp(t, "hidden") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_HIDDEN, GRAPH_STRONG);
        else if (strcmp(t, "shortcut") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_SHORTCUT, GRAPH_STRONG);
        else if (strcmp(t, "weak") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_WEAK, GRAPH_WEAK);
        else if (strcmp(t, "native") == 0 || strcmp(t, "native_string") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_NATIVE, GRAPH_STRONG);
        else if (strcmp(t, "xref") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_XREF, GRAPH_STRONG);
        x->edge_kind_of[i] = k;
    }
    return LR_OK;
}

/* ---- nodes ---- */

/* Runs on the helper thread while the main thread interns strings: it touches only node and
 * edge arrays, and its own cursor and error; names stay raw string indexes until
 * remap_names. */
/* The header's counts against the bytes of their arrays, before anything is allocated. */
static lr_status check_counts(ctx *x, cur *c)
{
    uint64_t n = x->h.node_count;
    if (n == 0)
        return LR_CORRUPT(c->err, c->name, off_of(c, x->nodes.open), "snapshot has no nodes");
    if (n >= UINT32_MAX || n * x->nf > span_capacity(&x->nodes))
        return LR_CORRUPT(c->err, c->name, off_of(c, x->nodes.open),
                          "node_count %llu exceeds what the nodes array can hold",
                          (unsigned long long)n);
    if (x->h.edge_count >= UINT32_MAX || x->h.edge_count * x->ef > span_capacity(&x->edges))
        return LR_CORRUPT(c->err, c->name, off_of(c, x->edges.open),
                          "edge_count %llu exceeds what the edges array can hold",
                          (unsigned long long)x->h.edge_count);
    return graph_check_size(x->g, n, x->h.edge_count, NULL, c->err);
}

/* sat32 for parse_nodes: counted in x and added to g->diag once the helper is joined. */
static inline uint32_t nsat32(ctx *x, uint64_t v)
{
    if (v > UINT32_MAX) {
        x->n_size_saturated++;
        return UINT32_MAX;
    }
    return (uint32_t)v;
}

static lr_status widen_ids(ctx *x, cur *c, uint32_t n);

/* Node n's id from the blocks of v8_state (see there). */
static inline uint64_t compact_id(const v8_state *st, uint32_t n)
{
    uint32_t b = n >> 6, j = n & 63;
    uint64_t m = st->id_mask[b] & (j == 63 ? ~0ull : (2ull << j) - 1);
    if (!m)
        return st->id_base[b] + (uint64_t)V8_ID_STEP * j;
    unsigned hb = 63u - (unsigned)__builtin_clzll(m);
    uint32_t k = st->id_exc_first[b] + (uint32_t)__builtin_popcountll(m) - 1;
    return st->id_exc[k] + (uint64_t)V8_ID_STEP * (j - hb);
}

/* The first n ids (kept in blocks so far) into an array, 32-bit when they fit: too many do
 * not follow the pattern for the blocks to be smaller. */
static lr_status ids_widen(ctx *x, cur *c, uint32_t n)
{
    graph *g = x->g;
    v8_state *st = x->st;
    uint64_t most = 0;
    for (uint32_t i = 0; i < n; i++)
        if (compact_id(st, i) > most)
            most = compact_id(st, i);
    if (most <= UINT32_MAX) {
        g->node_id32 = err_mallocarray(g->n_nodes, sizeof *g->node_id32);
        if (g->node_id32)
            for (uint32_t i = 0; i < n; i++)
                g->node_id32[i] = (uint32_t)compact_id(st, i);
    } else {
        g->node_id = err_mallocarray(g->n_nodes, sizeof *g->node_id);
        if (g->node_id)
            for (uint32_t i = 0; i < n; i++)
                g->node_id[i] = compact_id(st, i);
    }
    if (!g->node_id32 && !g->node_id)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %u node ids", c->name,
                       g->n_nodes);
    free(st->id_base);
    free(st->id_mask);
    free(st->id_exc_first);
    free(st->id_exc);
    st->id_base = st->id_mask = st->id_exc = NULL;
    st->id_exc_first = NULL;
    st->n_id_exc = st->cap_id_exc = 0;
    return LR_OK;
}

/* Records node i's id, which does not follow its predecessor's, in the blocks; moves the ids
 * to an array when such ids pass an eighth of the nodes. */
static lr_status id_exception(ctx *x, cur *c, uint32_t i, uint64_t id)
{
    v8_state *st = x->st;
    if (st->n_id_exc >= x->g->n_nodes / 8 + 1024) {
        LR_TRY(ids_widen(x, c, i));
        if (x->g->node_id32 && id <= UINT32_MAX) {
            x->g->node_id32[i] = (uint32_t)id;
            return LR_OK;
        }
        if (x->g->node_id32)
            LR_TRY(widen_ids(x, c, i));
        x->g->node_id[i] = id;
        return LR_OK;
    }
    if (st->n_id_exc == st->cap_id_exc) {
        uint32_t nc = st->cap_id_exc ? st->cap_id_exc * 2 : 1024;
        uint64_t *e2 = err_reallocarray(st->id_exc, nc, sizeof *e2);
        if (!e2)
            return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for node ids", c->name);
        st->id_exc = e2;
        st->cap_id_exc = nc;
    }
    st->id_mask[i >> 6] |= 1ull << (i & 63);
    st->id_exc[st->n_id_exc++] = id;
    return LR_OK;
}

/* Moves the first n ids from node_id32 to a 64-bit node_id: an id past 32 bits was met. */
static lr_status widen_ids(ctx *x, cur *c, uint32_t n)
{
    graph *g = x->g;
    g->node_id = err_mallocarray(g->n_nodes, sizeof *g->node_id);
    if (!g->node_id)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %u node ids", c->name,
                       g->n_nodes);
    for (uint32_t i = 0; i < n; i++)
        g->node_id[i] = g->node_id32[i];
    free(g->node_id32);
    g->node_id32 = NULL;
    return LR_OK;
}

/* The loop of parse_nodes, inlined once per common field count (the inner loop unrolls). */
static inline __attribute__((always_inline)) lr_status nodes_loop(ctx *x, cur *c,
                                                                  const uint8_t *kind_of,
                                                                  uint32_t nf)
{
    graph *g = x->g;
    uint64_t n = x->h.node_count;
    uint32_t n_types = x->h.node_types.n;
    numrd r;
    numrd_init(&r, &x->nodes);
    uint64_t f[V8_MAX_FIELDS];
    uint64_t esum = 0, unknown = 0;
    /* Locals, not x->...: the byte stores below may alias anything, which would reload every
     * field of x at each node. */
    const int fo_type = x->fo_type, fo_name = x->fo_name, fo_id = x->fo_id, fo_size = x->fo_size;
    const int fo_ec = x->fo_ec, fo_det = x->fo_det, fo_native = x->fo_native;
    const int fo_trace = x->fo_trace;
    uint8_t *const detached = x->detached, *const node_type = g->node_type;
    uint8_t *const node_kind = g->node_kind;
    uint32_t *const trace_node = x->st->trace_node, *const node_native = g->node_native;
    str_ix *const node_name = g->node_name;
    uint32_t *id32 = g->node_id32;
    uint64_t *id64 = g->node_id;
    v8_state *const st = x->st;
    uint64_t prev_id = 0;
    uint32_t *const node_size = g->node_size;
    class_ix *const node_class = g->node_class;
    edge_ix *const first_edge = g->first_edge;
    const uint64_t edge_count = x->h.edge_count;
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        for (uint32_t j = 0; j < nf; j++) {
            int rc = numrd_next(&r, &f[j]);
            if (rc <= 0)
                return num_error(c, &r, rc, "nodes");
        }
        uint64_t t = f[fo_type];
        uint8_t ty;
        if (t < n_types) {
            ty = (uint8_t)t;
        } else {
            ty = V8_UNKNOWN_TYPE;
            unknown++;
        }
        node_type[i] = ty;
        node_kind[i] = kind_of[ty];
        node_name[i] = raw_ix(f[fo_name]);
        uint64_t id = f[fo_id];
        if (st->id_base) {
            if ((i & 63) == 0) {
                st->id_base[i >> 6] = id;
                st->id_mask[i >> 6] = 0;
                st->id_exc_first[i >> 6] = st->n_id_exc;
            } else if (id != prev_id + V8_ID_STEP) {
                LR_TRY(id_exception(x, c, i, id));
                id32 = g->node_id32;
                id64 = g->node_id;
            }
            prev_id = id;
        } else if (id64) {
            id64[i] = id;
        } else if (id <= UINT32_MAX) {
            id32[i] = (uint32_t)id;
        } else {
            LR_TRY(widen_ids(x, c, i));
            id64 = g->node_id;
            id64[i] = id;
        }
        node_size[i] = nsat32(x, f[fo_size]);
        node_class[i] = GRAPH_NONE;
        if (fo_native >= 0 && f[fo_native])
            node_native[i] = nsat32(x, f[fo_native]);
        if (detached && (f[fo_det] & 3u))
            detached[i] = (uint8_t)(f[fo_det] & 3u);
        if (trace_node && f[fo_trace])
            trace_node[i] = raw_ix(f[fo_trace]);
        first_edge[i] = (edge_ix)esum;
        esum += f[fo_ec];
        if (esum > edge_count) {
            x->n_unknown_type += unknown;
            return LR_CORRUPT(c->err, c->name, off_of(c, r.p),
                              "node edge counts exceed edge_count %llu at node %u",
                              (unsigned long long)x->h.edge_count, i);
        }
    }
    x->n_unknown_type += unknown;
    if (esum != x->h.edge_count)
        return LR_CORRUPT(c->err, c->name, off_of(c, r.p),
                          "node edge counts sum to %llu, header edge_count is %llu",
                          (unsigned long long)esum, (unsigned long long)x->h.edge_count);
    g->first_edge[n] = (edge_ix)esum;
    return numrd_end(c, &r, "nodes");
}

static lr_status parse_nodes(ctx *x, cur *c)
{
    graph *g = x->g;
    uint64_t n = x->h.node_count;
    LR_TRY(check_counts(x, c));
    unsigned want = GRAPH_WANT_NAME | (x->fo_native >= 0 ? GRAPH_WANT_NATIVE : 0);
    LR_TRY(graph_alloc_nodes(g, n, want, c->err));
    /* V8 nodes have no payload (graph_node_off answers UINT64_MAX when node_off is NULL),
     * and their ids are small: 32 bits each until one is not (widen_ids). Together that is
     * 12 bytes less per node. */
    free(g->node_off);
    g->node_off = NULL;
    free(g->node_id);
    g->node_id = NULL;
    size_t nb = (size_t)n / 64 + 1;
    x->st->id_base = err_mallocarray(nb, sizeof *x->st->id_base);
    x->st->id_mask = err_mallocarray(nb, sizeof *x->st->id_mask);
    x->st->id_exc_first = err_mallocarray(nb, sizeof *x->st->id_exc_first);
    if (!x->st->id_base || !x->st->id_mask || !x->st->id_exc_first)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %llu nodes", c->name,
                       (unsigned long long)n);
    /* The arrays written for every node; the sparse ones below stay on small pages. */
    graph_hint_huge(g->node_class, (size_t)n * sizeof *g->node_class);
    graph_hint_huge(g->node_size, (size_t)n * sizeof *g->node_size);
    graph_hint_huge(g->node_name, (size_t)n * sizeof *g->node_name);
    graph_hint_huge(g->node_kind, (size_t)n);
    graph_hint_huge(g->node_type, (size_t)n);
    /* V8 nodes have no payload, so node_len stays all zero: a fresh calloc'd array whose
     * pages are never written costs no memory. The same holds for the optional per-node
     * arrays below, which are written only where a value is nonzero. */
    free(g->node_len);
    g->node_len = err_calloc((size_t)n, sizeof *g->node_len);
    if (!g->node_len)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %llu nodes", c->name,
                       (unsigned long long)n);
    g->first_edge = err_mallocarray((size_t)n + 1, sizeof *g->first_edge);
    graph_hint_huge(g->first_edge, (size_t)n * sizeof *g->first_edge);
    if (!g->first_edge)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %llu nodes", c->name,
                       (unsigned long long)n);
    if (x->fo_trace >= 0) {
        x->st->trace_node = err_calloc((size_t)n, sizeof *x->st->trace_node);
        if (!x->st->trace_node)
            return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
    }
    if (x->fo_det >= 0) {
        x->detached = err_calloc((size_t)n, 1);
        if (!x->detached)
            return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
    }
    uint32_t n_types = x->h.node_types.n;
    uint8_t kind_of[V8_MAX_TYPES + 1];
    for (uint32_t t = 0; t < n_types; t++)
        kind_of[t] = node_kind_of(x->h.node_types.names[t]);
    kind_of[V8_UNKNOWN_TYPE] = GRAPH_KIND_OTHER;

    if (x->nf == 7)
        return nodes_loop(x, c, kind_of, 7);
    if (x->nf == 6)
        return nodes_loop(x, c, kind_of, 6);
    return nodes_loop(x, c, kind_of, x->nf);
}

/* ---- edges ---- */

/* The loop of parse_edges_raw, inlined once per common field layout: with the counts known
 * at compile time, the division of to_node by the node field count becomes a multiply. */
static inline __attribute__((always_inline)) lr_status edges_loop(ctx *x, cur *c, uint32_t nf,
                                                                  uint32_t ef)
{
    graph *g = x->g;
    uint32_t m = (uint32_t)x->h.edge_count;
    numrd r;
    numrd_init(&r, &x->edges);
    uint64_t f[V8_MAX_FIELDS];
    uint32_t n_et = x->n_edge_types;
    uint64_t node_span = x->h.node_count * nf;
    uint64_t bad = 0, unknown = 0, max_sname = 0;
    const uint8_t *const open = x->edges.open;
    uint32_t *const ck32 = x->st->ecks32;
    uint64_t *const ck64 = x->st->ecks64;
    for (uint32_t k = 0; k < m; k++) {
        const uint8_t *rec = r.p;
        for (uint32_t j = 0; j < ef; j++) {
            int rc = numrd_next(&r, &f[j]);
            if (rc <= 0)
                return num_error(c, &r, rc, "edges");
        }
        uint64_t to = f[x->eo_to];
        if (to >= node_span || to % nf != 0) {
            bad++;
            g->edge_to[k] = GRAPH_NONE;
            continue;
        }
        uint64_t t = f[x->eo_type];
        uint8_t kind;
        if (t < n_et) {
            kind = x->edge_kind_of[t];
        } else {
            kind = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
            unknown++;
        }
        g->edge_kind[k] = kind;
        g->edge_to[k] = (node_ix)(to / nf);
        if (!GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(kind)) && f[x->eo_name] > max_sname)
            max_sname = f[x->eo_name];
        uint64_t ge = k - bad; /* this edge's index once the bad ones are dropped */
        if (ge % V8_ECK_STRIDE == 0) {
            if (ck32)
                ck32[ge / V8_ECK_STRIDE] = (uint32_t)(rec - open);
            else
                ck64[ge / V8_ECK_STRIDE] = (uint64_t)(rec - open);
        }
    }
    x->e_bad = bad;
    x->e_unknown = unknown;
    x->e_max_sname = max_sname;
    return numrd_end(c, &r, "edges");
}

/* Parses every edge into slot k, its position in the file: only the header is needed, so
 * this runs beside parse_nodes. Edges whose target is no node are marked (edge_to
 * GRAPH_NONE) for finish_edges, and the anomalies are counted in x, not in g->diag, which the
 * other thread writes. */
static lr_status parse_edges_raw(ctx *x, cur *c)
{
    graph *g = x->g;
    uint32_t m = (uint32_t)x->h.edge_count; /* check_counts bounded it */
    g->edge_to = err_mallocarray(m ? m : 1, sizeof *g->edge_to);
    g->edge_kind = err_mallocarray(m ? m : 1, 1);
    if (!g->edge_to || !g->edge_kind)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %u edges", c->name, m);
    graph_hint_huge(g->edge_to, (size_t)m * sizeof *g->edge_to);
    graph_hint_huge(g->edge_kind, (size_t)m);
    /* No names: v8_edge_name reads them back from the records, found from a checkpoint every
     * V8_ECK_STRIDE edges (offsets in 32 bits while the array is under 4 GiB). */
    size_t nck = (size_t)m / V8_ECK_STRIDE + 1;
    if ((uint64_t)(x->edges.close - x->edges.open) <= UINT32_MAX)
        x->st->ecks32 = err_mallocarray(nck, sizeof *x->st->ecks32);
    else
        x->st->ecks64 = err_mallocarray(nck, sizeof *x->st->ecks64);
    if (!x->st->ecks32 && !x->st->ecks64)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %u edges", c->name, m);
    /* V8 writes 7 node fields (6 before detachedness, 5 in old versions) and 3 edge fields. */
    if (x->ef == 3) {
        if (x->nf == 7)
            return edges_loop(x, c, 7, 3);
        if (x->nf == 6)
            return edges_loop(x, c, 6, 3);
        if (x->nf == 5)
            return edges_loop(x, c, 5, 3);
    }
    return edges_loop(x, c, x->nf, x->ef);
}

/* After both parses: counts the anomalies and, when edges were dropped, closes the gaps
 * (first_edge holds the file's offsets until then). */
static void finish_edges(ctx *x)
{
    graph *g = x->g;
    uint32_t n = g->n_nodes;
    diag_add(&g->diag, DIAG_BAD_EDGE_TARGET, x->e_bad);
    diag_add(&g->diag, DIAG_UNKNOWN_EDGE_TYPE, x->e_unknown);
    uint32_t m = (uint32_t)x->h.edge_count;
    g->n_edges = m;
    if (!x->e_bad)
        return;
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t beg = g->first_edge[i], end = g->first_edge[i + 1];
        g->first_edge[i] = w;
        for (uint32_t k = beg; k < end; k++) {
            if (g->edge_to[k] == GRAPH_NONE)
                continue;
            g->edge_to[w] = g->edge_to[k];
            g->edge_kind[w] = g->edge_kind[k];
            w++;
        }
    }
    g->first_edge[n] = w;
    g->n_edges = w;
}

/* ---- edge names, read back from the input ---- */

/* Graph string of snapshot string s (edge names after loading), "" past the table. */
static inline str_ix st_map_str(const v8_state *st, uint64_t s)
{
    if (s >= st->n_smap)
        return st->empty_str;
    if (st->smap)
        return st->smap[s];
    if (st->n_smap_exc && s <= st->smap_exc[2 * (st->n_smap_exc - 1)]) {
        uint32_t lo;
        SEARCH_LOWER_BOUND(uint32_t, 0, st->n_smap_exc, st->smap_exc[2 * search_mid] < s, lo);
        if (lo < st->n_smap_exc && st->smap_exc[2 * lo] == s)
            return st->smap_exc[2 * lo + 1];
    }
    return (str_ix)s;
}

/* Where the last read-back stopped, per thread: callers mostly ask for a node's edges in
 * order, and then each name costs one record's parse instead of a walk from a checkpoint. */
typedef struct v8_cursor {
    uint64_t serial;     /* v8_state.serial of the graph it belongs to */
    edge_ix next;        /* the graph edge whose record starts at p */
    const uint8_t *p;
} v8_cursor;
static _Thread_local v8_cursor v8_cur;

static uint32_t v8_edge_name(const graph *g, node_ix from, edge_ix e)
{
    (void)from;
    const v8_state *st = g->fmt_state;
    if (e >= g->n_edges)
        return GRAPH_NONE;
    edge_ix at = e - e % V8_ECK_STRIDE;
    numrd r;
    r.close = st->e_close;
    if (v8_cur.serial == st->serial && v8_cur.next <= e && v8_cur.next >= at) {
        at = v8_cur.next;
        r.p = v8_cur.p;
    } else {
        size_t ck = e / V8_ECK_STRIDE;
        r.p = st->e_open + (st->ecks32 ? st->ecks32[ck] : st->ecks64[ck]);
    }
    r.first = r.p == st->e_open + 1;
    uint64_t f[V8_MAX_FIELDS];
    uint32_t ef = st->e_ef;
    for (;;) {
        for (uint32_t j = 0; j < ef; j++)
            if (numrd_next(&r, &f[j]) <= 0)
                return GRAPH_NONE; /* cannot happen: the load parsed these bytes */
        uint64_t to = f[st->e_to];
        if (to >= st->e_span || to % st->e_nf != 0)
            continue; /* made no edge */
        if (at++ == e)
            break;
    }
    v8_cur = (v8_cursor){st->serial, e + 1, r.p};
    uint64_t v = f[st->e_name];
    if (GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(g->edge_kind[e])))
        return raw_ix(v);
    return st_map_str(st, v);
}

static uint64_t v8_node_id(const graph *g, node_ix n)
{
    const v8_state *st = g->fmt_state;
    return g->node_id ? g->node_id[n] : g->node_id32 ? g->node_id32[n] : compact_id(st, n);
}

static uint32_t v8_node_len(const graph *g, node_ix n)
{
    (void)g;
    (void)n;
    return 0;
}

static uint32_t v8_node_size(const graph *g, node_ix n) { return g->node_size[n]; }

static uint64_t v8_node_off(const graph *g, node_ix n)
{
    (void)g;
    (void)n;
    return UINT64_MAX; /* V8 nodes have no payload */
}

static const graph_derive V8_DERIVE = {v8_node_id, v8_node_len, v8_node_size, v8_node_off,
                                       v8_edge_name};

/* Edges whose string name is past the string table. */
static uint64_t count_missing_edge_names(ctx *x)
{
    graph *g = x->g;
    numrd r;
    numrd_init(&r, &x->edges);
    uint64_t f[V8_MAX_FIELDS], missing = 0, span = x->h.node_count * x->nf;
    for (edge_ix e = 0; e < g->n_edges;) {
        for (uint32_t j = 0; j < x->ef; j++)
            if (numrd_next(&r, &f[j]) <= 0)
                return missing;
        uint64_t to = f[x->eo_to];
        if (to >= span || to % x->nf != 0)
            continue;
        if (!GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(g->edge_kind[e])) &&
            f[x->eo_name] >= x->n_smap)
            missing++;
        e++;
    }
    return missing;
}

/* Hands the string map and the edges' place to the graph's state, so edge names can be read
 * back: the map shrinks to its exceptions when it is the identity but for a few (V8 writes
 * each string once, so only "" and the strings before it move). */
static lr_status keep_edge_names(ctx *x)
{
    static uint64_t serials;
    graph *g = x->g;
    v8_state *st = x->st;
    st->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
    st->e_open = x->edges.open;
    st->e_close = x->edges.close;
    st->e_nf = x->nf;
    st->e_ef = x->ef;
    st->e_to = (uint32_t)x->eo_to;
    st->e_name = (uint32_t)x->eo_name;
    st->e_span = x->h.node_count * x->nf;
    st->empty_str = x->empty_str;
    st->n_smap = x->n_smap;
    uint32_t n_exc = 0;
    for (uint32_t i = 0; i < x->n_smap && n_exc <= 4096; i++)
        n_exc += x->smap[i] != i;
    if (n_exc <= 4096) {
        st->smap_exc = err_mallocarray(2 * (size_t)n_exc + 1, sizeof *st->smap_exc);
        if (!st->smap_exc)
            return LR_FAIL(x->c.err, LR_ERR_NOMEM, "%s: out of memory", x->c.name);
        for (uint32_t i = 0, k = 0; i < x->n_smap; i++)
            if (x->smap[i] != i) {
                st->smap_exc[k++] = i;
                st->smap_exc[k++] = x->smap[i];
            }
        st->n_smap_exc = n_exc;
        free(x->smap); /* 4 bytes per string less during the naming passes */
        x->smap = NULL;
    } else {
        st->smap = x->smap;
        x->smap = NULL;
    }
    /* An edge naming a string past the table reads as "": counted here, in one more pass
     * over the records, only when the parse saw such an index (corrupt input). */
    if (x->e_max_sname >= x->n_smap)
        diag_add(&g->diag, DIAG_MISSING_STRING, count_missing_edge_names(x));
    g->derive = &V8_DERIVE;
    return LR_OK;
}

/* Turns the raw string indexes of node names into graph strings. */
static void remap_names(ctx *x)
{
    graph *g = x->g;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        g->node_name[i] = map_str(x, g->node_name[i]);
}

/* ---- locations ---- */

static int loc_cmp(const void *a, const void *b)
{
    const loc *p = a, *q = b;
    if (p->node != q->node)
        return p->node < q->node ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* Stable LSD radix sort of the locations by node, two 16-bit digits: entries are appended in
 * seq order, so equal nodes keep it and the result is in loc_cmp order, without qsort's
 * comparisons (Node snapshots list hundreds of thousands of locations out of node order). */
static lr_status sort_locs(ctx *x)
{
    uint32_t n = x->n_locs;
    loc *tmp = err_mallocarray(n, sizeof *tmp);
    graph_hint_huge(tmp, (size_t)n * sizeof *tmp);
    uint32_t *count = err_calloc(1u << 16, sizeof *count);
    if (!tmp || !count) {
        free(tmp);
        free(count);
        qsort(x->locs, n, sizeof *x->locs, loc_cmp); /* no scratch: sort in place */
        return LR_OK;
    }
    loc *src = x->locs, *dst = tmp;
    for (unsigned shift = 0; shift < 32; shift += 16) {
        memset(count, 0, (1u << 16) * sizeof *count);
        for (uint32_t i = 0; i < n; i++)
            count[(src[i].node >> shift) & 0xffffu]++;
        uint32_t sum = 0;
        for (uint32_t d = 0; d < (1u << 16); d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            dst[count[(src[i].node >> shift) & 0xffffu]++] = src[i];
        loc *t = src;
        src = dst;
        dst = t;
    }
    free(tmp); /* after an even number of passes the result is back in x->locs */
    free(count);
    return LR_OK;
}

/* The body of parse_locations, inlined once per common node field count: the division by it
 * becomes a multiply. */
static inline __attribute__((always_inline)) lr_status locs_loop(ctx *x, cur *c, uint32_t nf)
{
    const namelist *lf = &x->h.location_fields;
    int lo_obj = v8j_nl_find(lf, "object_index"), lo_script = v8j_nl_find(lf, "script_id");
    int lo_line = v8j_nl_find(lf, "line"), lo_col = v8j_nl_find(lf, "column");
    uint32_t k = lf->total;
    if (!x->locations.open || !x->h.has_location_fields || k == 0 || k > V8_MAX_FIELDS)
        return LR_OK;
    uint64_t cap = span_capacity(&x->locations) / k + 1;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    numrd r;
    numrd_init(&r, &x->locations);
    uint64_t f[V8_MAX_FIELDS];
    /* node_count, not g->n_nodes: this may run on the helper while the nodes are parsed */
    uint64_t node_span = x->h.node_count * nf;
    uint32_t capn = 0;
    for (uint32_t seq = 0;; seq++) {
        int rc = numrd_next(&r, &f[0]);
        if (rc == 0)
            break;
        if (rc < 0)
            return num_error(c, &r, rc, "locations");
        for (uint32_t j = 1; j < k; j++) {
            rc = numrd_next(&r, &f[j]);
            if (rc <= 0)
                return num_error(c, &r, rc, "locations");
        }
        if (lo_obj < 0)
            continue;
        uint64_t ni = f[lo_obj];
        if (ni >= node_span || ni % nf != 0)
            continue; /* DevTools keys locations by node index; this one matches no node */
        if (x->n_locs == capn) {
            uint64_t nc = capn ? (uint64_t)capn * 2 : 1024;
            if (nc > cap)
                nc = cap;
            loc *l = err_reallocarray(x->locs, nc, sizeof *l);
            if (!l)
                return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for locations", c->name);
            x->locs = l;
            capn = (uint32_t)nc;
        }
        loc *l = &x->locs[x->n_locs++];
        l->node = (uint32_t)(ni / nf);
        l->seq = seq;
        l->script = lo_script >= 0 ? (uint32_t)f[lo_script] : 0;
        l->line = lo_line >= 0 ? (uint32_t)f[lo_line] : 0;
        l->col = lo_col >= 0 ? (uint32_t)f[lo_col] : 0;
    }
    /* Sort by (node, seq) only when the writer did not list them in node order. */
    for (uint32_t i = 1; i < x->n_locs; i++) {
        if (x->locs[i].node < x->locs[i - 1].node)
            return sort_locs(x);
    }
    return LR_OK;
}

static lr_status parse_locations(ctx *x, cur *c)
{
    if (x->nf == 7)
        return locs_loop(x, c, 7);
    if (x->nf == 6)
        return locs_loop(x, c, 6);
    return locs_loop(x, c, x->nf);
}

const loc *v8_loc_next(const ctx *x, uint32_t n, uint32_t *at)
{
    while (*at < x->n_locs && x->locs[*at].node < n)
        (*at)++;
    const loc *l = NULL;
    while (*at < x->n_locs && x->locs[*at].node == n)
        l = &x->locs[(*at)++];
    return l;
}

/* ---- the helper thread ---- */

/* Edges, then locations: together they take about as long as the strings and nodes that
 * this thread parses meanwhile. */
static void *helper_edges(void *p)
{
    ctx *x = p;
    x->th_status = parse_edges_raw(x, &x->thc);
    if (x->th_status == LR_OK && !__atomic_exchange_n(&x->locs_claim, 1, __ATOMIC_ACQ_REL)) {
        x->th_status = parse_locations(x, &x->thc);
        x->locs_done = 1;
    }
    return NULL;
}

/* The size re-attribution (node_size only). No id index is built: the verbs look up an id
 * or two (graph_find_id scans), which costs less than sorting 4 bytes per node and keeping
 * them. */
static void *helper_sizes(void *p)
{
    ctx *x = p;
    x->th_status = v8p_reattribute_sizes(x, &x->thc);
    return NULL;
}

static lr_status start_helper(ctx *x, void *(*fn)(void *))
{
    x->thc = x->c;
    x->thc.err = &x->th_err;
    memset(&x->th_err, 0, sizeof x->th_err);
    x->th_status = LR_OK;
    if (pthread_create(&x->th, NULL, fn, x) != 0) {
        fn(x); /* no thread to be had: do the work here */
        return LR_OK;
    }
    x->th_running = 1;
    return LR_OK;
}

/* Waits for the helper; its failure becomes ours (its input comes earlier in the file). */
static lr_status join_helper(ctx *x)
{
    if (x->th_running) {
        pthread_join(x->th, NULL);
        x->th_running = 0;
    }
    if (x->th_status != LR_OK) {
        if (x->c.err->code == LR_OK || x->th_err.offset < x->c.err->offset)
            *x->c.err = x->th_err;
        lr_status s = x->th_status;
        x->th_status = LR_OK;
        return s;
    }
    return LR_OK;
}

/* ---- allocation traces ---- */

/* Records where trace_tree (nested arrays of numbers) lies: only digits, ',', brackets and
 * whitespace are accepted, and the nesting depth is only counted, so no recursion and no
 * depth limit are needed here. */
static lr_status locate_tree(ctx *x)
{
    cur *c = &x->c;
    if (x->trace_tree.open)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "second \"trace_tree\"");
    skip_ws(c);
    if (c->p >= c->end || *c->p != '[')
        return c->p >= c->end ? v8j_trunc_at(c, "trace_tree")
                              : LR_CORRUPT(c->err, c->name, off_of(c, c->p),
                                           "\"trace_tree\" is not an array");
    const uint8_t *p = c->p;
    uint64_t depth = 0;
    for (; p < c->end; p++) {
        uint8_t ch = *p;
        if (ch == '[') {
            depth++;
        } else if (ch == ']') {
            if (--depth == 0)
                break;
        } else if (!(ch >= '0' && ch <= '9') && ch != ',' && !is_ws(ch)) {
            return LR_CORRUPT(c->err, c->name, off_of(c, p), "unexpected byte 0x%02x in "
                              "\"trace_tree\"", ch);
        }
    }
    if (p >= c->end)
        return LR_TRUNC(c->err, c->name, off_of(c, c->end), "input ends inside \"trace_tree\"");
    x->trace_tree.open = c->p;
    x->trace_tree.close = p;
    c->p = p + 1;
    return LR_OK;
}

static int nl_find_or(const namelist *l, int present, const char *s, int dflt)
{
    return present ? v8j_nl_find(l, s) : dflt;
}

/* Decodes trace_function_infos (names through the string map, which only lives during the
 * load) and keeps trace_tree's place for v8_alloc_stack. Traces are optional: a snapshot
 * whose trace sections are missing, empty or unusable loads without them. */
static lr_status parse_traces(ctx *x)
{
    v8_state *st = x->st;
    cur *c = &x->c;
    int any = 0;
    for (uint32_t i = 0; st->trace_node && i < x->g->n_nodes && !any; i++)
        any = st->trace_node[i] != 0;
    const header *h = &x->h;
    uint32_t nf = h->has_trace_fi_fields ? h->trace_fi_fields.total : 6;
    int fo_name = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "name", 1);
    int fo_script = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "script_name", 2);
    int fo_sid = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "script_id", 3);
    int fo_line = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "line", 4);
    int fo_col = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "column", 5);
    uint32_t tf = h->has_trace_node_fields ? h->trace_node_fields.total : 5;
    int tn_id = nl_find_or(&h->trace_node_fields, h->has_trace_node_fields, "id", 0);
    int tn_fn = nl_find_or(&h->trace_node_fields, h->has_trace_node_fields,
                           "function_info_index", 1);
    int tn_ch = nl_find_or(&h->trace_node_fields, h->has_trace_node_fields, "children", 4);
    if (!any || !x->trace_fi.open || !x->trace_tree.open || nf == 0 || nf > V8_MAX_FIELDS ||
        fo_name < 0 || tf == 0 || tf > V8_MAX_FIELDS || tn_id < 0 || tn_fn < 0 || tn_ch < 0) {
        free(st->trace_node);
        st->trace_node = NULL;
        return LR_OK;
    }
    uint64_t cap = span_capacity(&x->trace_fi) / nf + 1;
    if (cap > UINT32_MAX / 2)
        cap = UINT32_MAX / 2;
    st->trace_funcs = err_mallocarray((size_t)cap, sizeof *st->trace_funcs);
    if (!st->trace_funcs)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for trace_function_infos",
                       c->name);
    numrd r;
    numrd_init(&r, &x->trace_fi);
    uint64_t f[V8_MAX_FIELDS];
    for (;;) {
        int rc = numrd_next(&r, &f[0]);
        if (rc == 0)
            break;
        for (uint32_t j = 1; rc > 0 && j < nf; j++)
            rc = numrd_next(&r, &f[j]);
        if (rc <= 0 || st->n_trace_funcs >= cap) {
            /* Unusable (negative numbers, a cut entry): the snapshot loads without traces. */
            free(st->trace_node);
            free(st->trace_funcs);
            st->trace_node = NULL;
            st->trace_funcs = NULL;
            st->n_trace_funcs = 0;
            return LR_OK;
        }
        v8_frame *fr = &st->trace_funcs[st->n_trace_funcs++];
        fr->name = map_str(x, f[fo_name]);
        fr->script = fo_script >= 0 ? map_str(x, f[fo_script]) : x->empty_str;
        fr->script_id = fo_sid >= 0 ? raw_ix(f[fo_sid]) : 0;
        fr->line = fo_line >= 0 ? raw_ix(f[fo_line]) : 0;
        fr->column = fo_col >= 0 ? raw_ix(f[fo_col]) : 0;
    }
    st->tree_open = x->trace_tree.open;
    st->tree_close = x->trace_tree.close;
    st->tn_fields = tf;
    st->tn_id = (uint32_t)tn_id;
    st->tn_func = (uint32_t)tn_fn;
    st->tn_children = (uint32_t)tn_ch;
    return LR_OK;
}

int v8_has_traces(const graph *g)
{
    if (!g || g->format != V8_FORMAT || !g->fmt_state)
        return 0;
    const v8_state *st = g->fmt_state;
    return st->trace_node && st->trace_funcs;
}

uint32_t v8_trace_node(const graph *g, node_ix v)
{
    if (!g || g->format != V8_FORMAT || !g->fmt_state || v >= g->n_nodes)
        return 0;
    const v8_state *st = g->fmt_state;
    return st->trace_node && st->trace_funcs ? st->trace_node[v] : 0;
}

/* One open array of trace_tree while v8_alloc_stack scans it. */
typedef struct tlevel {
    uint64_t pos;  /* values read in this array */
    uint64_t id;   /* id of the trace node being read */
    uint64_t func; /* its function_info_index */
} tlevel;

lr_status v8_alloc_stack(const graph *g, node_ix v, v8_frame *out, uint32_t cap, uint32_t *n,
                         lr_error *err)
{
    *n = 0;
    uint32_t want = v8_trace_node(g, v);
    if (!want)
        return LR_OK;
    const v8_state *st = g->fmt_state;
    const char *name = g->path ? g->path : "<input>";
    const uint8_t *p = st->tree_open, *end = st->tree_close + 1;
    uint32_t tf = st->tn_fields;
    tlevel *lv = NULL;
    uint64_t depth = 0, lcap = 0;
    lr_status s = LR_OK;
    int found = 0;
    while (p < end && !found) {
        uint8_t ch = *p;
        if (is_ws(ch) || ch == ',') {
            p++;
        } else if (ch == '[') {
            if (depth > 0 && lv[depth - 1].pos % tf != st->tn_children) {
                s = LR_CORRUPT(err, name, (uint64_t)(p - g->data),
                               "nested array outside \"children\" in \"trace_tree\"");
                break;
            }
            if (depth == lcap) {
                uint64_t nc = lcap ? lcap * 2 : 64;
                tlevel *t = err_reallocarray(lv, (size_t)nc, sizeof *t);
                if (!t) {
                    s = LR_FAIL(err, LR_ERR_NOMEM, "out of memory decoding \"trace_tree\"");
                    break;
                }
                lv = t;
                lcap = nc;
            }
            lv[depth++] = (tlevel){0, 0, 0};
            p++;
        } else if (ch == ']') {
            depth--;
            if (depth > 0)
                lv[depth - 1].pos++; /* the children array was that node's value */
            p++;
            if (depth == 0)
                break;
        } else { /* a digit: locate_tree admitted nothing else */
            uint64_t val = 0;
            while (p < end && *p >= '0' && *p <= '9') {
                val = val > UINT64_MAX / 10 - 10 ? UINT64_MAX : val * 10 + (uint64_t)(*p - '0');
                p++;
            }
            if (depth == 0) {
                s = LR_CORRUPT(err, name, (uint64_t)(p - g->data), "number outside "
                               "\"trace_tree\"");
                break;
            }
            tlevel *l = &lv[depth - 1];
            uint64_t field = l->pos % tf;
            if (field == st->tn_id)
                l->id = val;
            else if (field == st->tn_func)
                l->func = val;
            l->pos++;
            /* Both the id and the function are known once the later of the two is read. */
            uint64_t last = st->tn_id > st->tn_func ? st->tn_id : st->tn_func;
            if (field == last && l->id == want)
                found = 1;
        }
    }
    if (found) {
        /* Innermost first; level 0 is the tree's root, "(root)", which DevTools omits. */
        uint32_t k = 0;
        for (uint64_t d = depth; d > 1; d--) {
            if (k < cap) {
                uint64_t fi = lv[d - 1].func;
                if (fi < st->n_trace_funcs)
                    out[k] = st->trace_funcs[fi];
                else
                    out[k] = (v8_frame){GRAPH_NONE, GRAPH_NONE, 0, 0, 0};
            }
            k++;
        }
        *n = k;
    }
    free(lv);
    return s;
}

/* ---- top level ---- */

static lr_status top_member(cur *c, scratch *sc, const char *key, void *vx)
{
    ctx *x = vx;
    (void)sc;
    if (strcmp(key, "snapshot") == 0) {
        if (x->have_header)
            return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "second \"snapshot\" header");
        x->have_header = 1;
        return v8j_parse_object(c, &x->sc, v8j_snapshot_member, &x->h);
    }
    if (strcmp(key, "nodes") == 0)
        return locate_array(x, &x->nodes, "nodes");
    if (strcmp(key, "edges") == 0)
        return locate_array(x, &x->edges, "edges");
    if (strcmp(key, "locations") == 0)
        return locate_array(x, &x->locations, "locations");
    if (strcmp(key, "trace_function_infos") == 0)
        return locate_array(x, &x->trace_fi, "trace_function_infos");
    if (strcmp(key, "trace_tree") == 0)
        return locate_tree(x);
    if (strcmp(key, "strings") == 0) {
        /* V8 writes strings last: the integer arrays are located by now, so a second core
         * parses the edges (the biggest array) while this one interns the strings and then
         * parses the nodes; the locations go to the first one done (a third thread for them
         * gains nothing on two cores). */
        if (x->have_header && x->nodes.open && x->edges.open && !x->meta_done) {
            LR_TRY(setup_meta(x));
            LR_TRY(check_counts(x, c));
            LR_TRY(start_helper(x, helper_edges));
            LR_TRY(parse_strings(x));
            LR_TRY(parse_nodes(x, c));
            /* The locations (located by now in V8's order) go to whichever thread is done
             * first. */
            if (x->locations.open && !__atomic_exchange_n(&x->locs_claim, 1, __ATOMIC_ACQ_REL)) {
                LR_TRY(parse_locations(x, c));
                x->locs_done = 1;
            }
            return LR_OK;
        }
        return parse_strings(x);
    }
    return v8j_skip_value(c);
}

/* ---- load ---- */

static void describe(ctx *x)
{
    graph *g = x->g;
    int ark = x->fo_native >= 0 || v8j_nl_find(&x->h.node_types, "framework") >= 0 ||
              v8j_nl_find(&x->h.node_types, "slicedstring") >= 0;
    snprintf(g->version, sizeof g->version, "%s heap snapshot, %u node fields",
             ark ? "ArkTS" : "V8", x->nf);
}

static lr_status load(ctx *x)
{
    graph *g = x->g;
    cur *c = &x->c;
    str_ix empty;
    LR_TRY(graph_intern(g, "", 0, &empty, c->err));
    x->empty_str = empty;
    lr_status s = v8j_parse_object(c, &x->sc, top_member, x);
    lr_status hs = join_helper(x);
    LR_TRY(hs ? hs : s);
    /* Bytes after the snapshot are left alone (DevTools reads past them too), but a second
     * snapshot (a profiler stream saved twice into one file) would be dropped unseen. */
    const uint8_t *rest = c->p;
    while (rest < c->end && is_ws(*rest))
        rest++;
    if (rest < c->end && v8_sniff(rest, (uint64_t)(c->end - rest)))
        return LR_CORRUPT(c->err, c->name, off_of(c, rest),
                          "a second snapshot starts here: the file holds snapshots written one "
                          "after another; split it at this offset and read each on its own");
    if (!x->have_header)
        return LR_CORRUPT(c->err, c->name, 0, "no \"snapshot\" header");
    if (!x->nodes.open || !x->edges.open || !x->have_strings)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p),
                          "missing \"nodes\", \"edges\" or \"strings\"");
    if (!x->meta_done) {
        LR_TRY(setup_meta(x));
        LR_TRY(parse_nodes(x, c));
        LR_TRY(parse_edges_raw(x, c));
    }
    diag_add(&g->diag, DIAG_UNKNOWN_NODE_TYPE, x->n_unknown_type);
    diag_add(&g->diag, DIAG_SIZE_SATURATED, x->n_size_saturated);
    finish_edges(x);
    remap_names(x);
    if (!x->locs_done)
        LR_TRY(parse_locations(x, c));
    LR_TRY(parse_traces(x));
    LR_TRY(keep_edge_names(x)); /* the last use of the string map while loading */
    uint64_t root = 0;
    if (x->h.has_root_index) {
        if (x->h.root_index % x->nf || x->h.root_index / x->nf >= g->n_nodes)
            return LR_CORRUPT(c->err, c->name, 0, "root_index %llu is not a node",
                              (unsigned long long)x->h.root_index);
        root = x->h.root_index / x->nf;
    }
    g->synthetic_root = (node_ix)root;
    g->roots = err_calloc(1, sizeof *g->roots);
    if (!g->roots)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
    g->roots[0] = (graph_root){.node = (node_ix)root, .kind = GRAPH_ROOT_SYNTHETIC,
                               .thread = 0, .frame = -1};
    g->n_roots = 1;
    /* The size re-attribution is computed beside the naming passes. */
    if (x->detached)
        LR_TRY(v8p_propagate_dom_state(x));
    LR_TRY(v8p_keep_dom_state(x));
    LR_TRY(v8p_reattribute_prepare(x));
    LR_TRY(start_helper(x, helper_sizes));
    s = v8p_assign_classes(x);
    hs = join_helper(x);
    diag_add(&g->diag, DIAG_SIZE_SATURATED, x->own_saturated);
    LR_TRY(s ? s : hs);
    LR_TRY(v8p_closure_locations(x));
    LR_TRY(graph_index_class_nodes(g, c->err));
    /* Loading interned every name; what interns later (rules, interface names of another
     * snapshot) is rare enough to rebuild the table then. */
    graph_drop_intern_table(g);
    describe(x);
    return LR_OK;
}

static lr_status v8_load(graph *g, const mfile *m, const fmt_opts *o, lr_error *err)
{
    phase_enter("v8 parse");
    (void)o; /* edges are always read: DevTools class names need them */
#ifdef __GLIBC__
    /* The load and the analyses after it allocate and free arrays of N entries one after
     * another. glibc's adaptive mmap threshold would move them into the heap after the first
     * free, where freed space stays resident; a fixed threshold hands each back when freed,
     * so the peak is the live arrays, not their history. Process-wide: only where the
     * process is leakray's own (mem_tuning), never behind a host program's back. */
    if (mem_tuning())
        mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    ctx *x = err_calloc(1, sizeof *x);
    v8_state *st = err_calloc(1, sizeof *st);
    if (!x || !st) {
        free(x);
        free(st);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory");
    }
    g->fmt_state = st;
    g->fmt_free = state_free;
    g->format = V8_FORMAT;
    g->data = m->data;
    g->data_len = m->len;
    g->size_model = GRAPH_SIZES_DEVTOOLS;
    g->synthetic_root = GRAPH_NONE;
    /* a dictionary object's properties come in the order of a per-process hash seed */
    g->ties_by_name = 1;
    x->g = g;
    x->st = st;
    x->c.base = x->c.p = m->data;
    x->c.end = m->data + m->len;
    if (m->len >= 3 && !memcmp(m->data, "\xef\xbb\xbf", 3))
        x->c.p += 3; /* a byte-order mark, as an editor saves JSON; offsets still count it */
    x->c.name = g->path ? g->path : "<input>";
    x->c.err = err;
    lr_status s = load(x);
    lr_status hs = join_helper(x); /* an early failure may leave the helper running */
    if (s == LR_OK)
        s = hs;
    st->extra_native_bytes = x->h.extra_native_bytes;
    free(x->own);
    free(x->own_work);
    free(x->smap);
    free(x->detached);
    free(x->locs);
    free(x->sc.buf);
    free(x);
    return s;
}

/* A JSON object whose first key is one a snapshot has: DevTools and V8 write "snapshot"
 * first, but the reader takes the keys in any order (a snapshot re-serialised by another
 * tool may start with "strings"), and no other format leakray reads opens with these. */
int v8_sniff(const uint8_t *p, uint64_t n)
{
    static const char *const KEYS[] = {"snapshot", "nodes", "edges", "strings", "locations",
                                       "trace_function_infos", "trace_tree", "samples"};
    uint64_t i = n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3) ? 3 : 0; /* a byte-order mark */
    while (i < n && is_ws(p[i]))
        i++;
    if (i >= n || p[i] != '{')
        return 0;
    i++;
    while (i < n && is_ws(p[i]))
        i++;
    for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++) {
        size_t len = strlen(KEYS[k]);
        if (n - i < len + 2 || p[i] != '"' || memcmp(p + i + 1, KEYS[k], len) != 0 ||
            p[i + 1 + len] != '"')
            continue;
        uint64_t j = i + len + 2;
        while (j < n && is_ws(p[j]))
            j++;
        return j < n && p[j] == ':';
    }
    return 0;
}

const fmt_reader fmt_v8_reader = {"v8", v8_sniff, v8_load};
