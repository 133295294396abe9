/* SPDX-License-Identifier: Apache-2.0 */
/* gtext_read.c: the generic JSON-lines object graph into the graph (format layer), prefix
 * gtext_. Records may come in any order (a scanner writes objects as it meets them), so the
 * reader makes two passes over the mapped file: pass 1 counts classes, nodes, edges and roots
 * and validates every line; pass 2 fills exactly sized arrays, keeping ids until the id index
 * exists. Then class ids, edge ends and roots are resolved, and edges are laid out as CSR by
 * source in file order. A reference to an id with no node is dropped and counted, like a
 * dangling HPROF reference. Names accepted for kinds are leakray's own (what the writer emits)
 * plus the plain words other tools use ("global", "stack", "unowned"). docs/formats/jsonl.md. */
#include "format/gtext.h"

#include "format/jscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GTEXT_FORMAT "graph"

int gtext_sniff(const uint8_t *p, uint64_t n)
{
    size_t bom = jscan_bom(p, n);
    p += bom, n -= bom;
    uint64_t k = n < 1024 ? n : 1024;
    while (k && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++, k--;
    if (!k || *p != '{')
        return 0;
    const uint8_t *e = jscan_line_end(p, p + k);
    static const char key[] = "\"leakray_graph\"";
    for (const uint8_t *q = p; q + sizeof key - 1 <= e; q++)
        if (memcmp(q, key, sizeof key - 1) == 0)
            return 1;
    return 0;
}

enum rec { REC_HEADER, REC_CLASS, REC_NODE, REC_EDGE, REC_ROOT };

typedef struct gctx {
    graph *g;
    const uint8_t *data, *end;
    const char *name;
    lr_error *err;
    int pass;
    gtext_pending p;    /* counts (pass 1), then the records' ids to resolve (pass 2) */
    uint64_t n_label;
    uint64_t i_class, i_node, i_edge, i_root; /* fill positions */
    char *sbuf;
    size_t scap;
    int saw_hex;        /* an id was written "0x...": show ids that way */
} gctx;

static lr_status corrupt(gctx *x, const jscan *c, const uint8_t *at, const char *what)
{
    return LR_CORRUPT(x->err, x->name, jscan_off(c, at), "%s", what);
}

/* An id: a number or a string ("0x1f", "123"). */
static lr_status get_id(gctx *x, const jscan *c, const jscan_val *v, uint64_t *out)
{
    if (!jscan_u64(v, out))
        return corrupt(x, c, v->s, "id must be an unsigned number or a \"0x...\" string");
    if (v->type == JSCAN_STR && v->e - v->s > 2 && v->s[1] == 'x')
        x->saw_hex = 1;
    return LR_OK;
}

static int str_is(const jscan_val *v, const char *s)
{
    return v->type == JSCAN_STR && (size_t)(v->e - v->s) == strlen(s) &&
           memcmp(v->s, s, strlen(s)) == 0;
}

static int lookup(const jscan_val *v, const char *(*namer)(unsigned), unsigned n, unsigned *out)
{
    for (unsigned k = 0; k < n; k++)
        if (str_is(v, namer(k))) {
            *out = k;
            return 1;
        }
    return 0;
}

static lr_status node_kind_of(gctx *x, const jscan *c, const jscan_val *v, uint8_t *out)
{
    unsigned k;
    if (lookup(v, graph_node_kind_name, GRAPH_KIND_COUNT, &k)) {
        *out = (uint8_t)k;
        return LR_OK;
    }
    if (str_is(v, "array")) {
        *out = GRAPH_KIND_OBJ_ARRAY;
        return LR_OK;
    }
    return corrupt(x, c, v->s, "unknown node kind");
}

static lr_status edge_kind_of(gctx *x, const jscan *c, const jscan_val *v, unsigned *out)
{
    if (lookup(v, graph_edge_kind_name, GRAPH_EDGE_KIND_COUNT, out))
        return LR_OK;
    if (str_is(v, "reference") || str_is(v, "ivar")) {
        *out = GRAPH_EDGE_FIELD;
        return LR_OK;
    }
    return corrupt(x, c, v->s, "unknown edge kind");
}

static lr_status strength_of(gctx *x, const jscan *c, const jscan_val *v, unsigned *out)
{
    static const char *const names[] = {"strong", "weak", "soft", "phantom", "finalizer"};
    for (unsigned k = 0; k < 5; k++)
        if (str_is(v, names[k])) {
            *out = k;
            return LR_OK;
        }
    /* Swift/Objective-C: unowned and weak references do not keep their target alive. */
    if (str_is(v, "unowned")) {
        *out = GRAPH_WEAK;
        return LR_OK;
    }
    return corrupt(x, c, v->s, "unknown strength (strong, weak, soft, phantom, unowned)");
}

static lr_status root_kind_of(gctx *x, const jscan *c, const jscan_val *v, uint8_t *out)
{
    unsigned k;
    if (lookup(v, graph_root_kind_name, GRAPH_ROOT_KIND_COUNT, &k)) {
        *out = (uint8_t)k;
        return LR_OK;
    }
    static const struct {
        const char *name;
        uint8_t kind;
    } alias[] = {{"global", GRAPH_ROOT_JNI_GLOBAL}, {"static", GRAPH_ROOT_STICKY_CLASS},
                 {"stack", GRAPH_ROOT_NATIVE_STACK}, {"local", GRAPH_ROOT_JAVA_FRAME},
                 {"thread", GRAPH_ROOT_THREAD_OBJECT}, {"vm", GRAPH_ROOT_VM_INTERNAL}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (str_is(v, alias[i].name)) {
            *out = alias[i].kind;
            return LR_OK;
        }
    return corrupt(x, c, v->s, "unknown root kind");
}

static lr_status intern_val(gctx *x, const jscan *c, const jscan_val *v, str_ix *out)
{
    size_t len;
    const char *s = jscan_str(c, v, &x->sbuf, &x->scap, &len, x->err);
    if (!s)
        return x->err->code;
    return graph_intern(x->g, s, len, out, x->err);
}

static lr_status header(gctx *x, jscan *c, const jscan_val *first)
{
    enum { H_MODEL, H_VERSION, H_TIME, H_HEX, H_N };
    static const char *const keys[H_N] = {"size_model", "version", "timestamp_ms", "hex_ids"};
    jscan_val v[H_N];
    uint32_t seen;
    uint64_t ver;
    if (!jscan_u64(first, &ver) || ver != GTEXT_VERSION)
        return corrupt(x, c, first->s, "unsupported leakray_graph version (this build reads 1)");
    LR_TRY(jscan_fields(c, keys, H_N, v, &seen, x->err));
    if (x->pass == 1)
        return LR_OK;
    graph *g = x->g;
    /* DevTools' model needs a V8 snapshot's own tables: read it as recorded. */
    if (JSCAN_HAS(seen, H_MODEL)) {
        /* "devtools" (a converted V8 snapshot) is read as recorded: DevTools' model needs
         * the snapshot's own tables */
        if (!str_is(&v[H_MODEL], "visualvm") && !str_is(&v[H_MODEL], "shark") &&
            !str_is(&v[H_MODEL], "record") && !str_is(&v[H_MODEL], "devtools"))
            return corrupt(x, c, v[H_MODEL].s,
                           "unknown size_model (record, visualvm, shark, devtools)");
        g->size_model = str_is(&v[H_MODEL], "visualvm") ? GRAPH_SIZES_VISUALVM
                        : str_is(&v[H_MODEL], "shark")  ? GRAPH_SIZES_SHARK
                                                        : GRAPH_SIZES_RECORD;
    }
    if (JSCAN_HAS(seen, H_VERSION) && v[H_VERSION].type == JSCAN_STR) {
        size_t len;
        const char *t = jscan_str(c, &v[H_VERSION], &x->sbuf, &x->scap, &len, x->err);
        if (!t)
            return x->err->code;
        snprintf(g->version, sizeof g->version, "%s", t);
    }
    uint64_t t;
    if (JSCAN_HAS(seen, H_TIME) && jscan_u64(&v[H_TIME], &t))
        g->timestamp_ms = t;
    if (JSCAN_HAS(seen, H_HEX))
        g->hex_ids = v[H_HEX].type == JSCAN_TRUE;
    return LR_OK;
}

/* An id member that may be null or absent: *has = 0 then. */
static lr_status opt_id(gctx *x, const jscan *c, uint32_t seen, unsigned i, const jscan_val *v,
                        uint64_t *out, int *has)
{
    *has = JSCAN_HAS(seen, i) && v[i].type != JSCAN_NULL;
    return *has ? get_id(x, c, &v[i], out) : LR_OK;
}

static lr_status class_rec(gctx *x, jscan *c, const jscan_val *first)
{
    enum { C_NAME, C_SUPER, C_NODE, C_N };
    static const char *const keys[C_N] = {"name", "super", "node"};
    jscan_val v[C_N];
    uint32_t seen;
    uint64_t id, sup = 0, node = 0;
    int has_sup, has_node;
    LR_TRY(get_id(x, c, first, &id));
    LR_TRY(jscan_fields(c, keys, C_N, v, &seen, x->err));
    if (!JSCAN_HAS(seen, C_NAME))
        return corrupt(x, c, first->s, "class without \"name\"");
    if (v[C_NAME].type != JSCAN_STR)
        return corrupt(x, c, v[C_NAME].s, "class name must be a string");
    LR_TRY(opt_id(x, c, seen, C_SUPER, v, &sup, &has_sup));
    LR_TRY(opt_id(x, c, seen, C_NODE, v, &node, &has_node));
    uint64_t i = x->i_class++;
    if (x->pass == 1)
        return LR_OK;
    x->p.class_id[i] = id;
    x->p.class_off[i] = jscan_off(c, first->s);
    x->p.class_super[i] = sup;
    x->p.class_has_super[i] = (uint8_t)has_sup;
    x->p.class_node[i] = node;
    x->p.class_has_node[i] = (uint8_t)has_node;
    x->g->classes[i] = (graph_class){.name = GRAPH_NONE, .super = GRAPH_NONE,
                                     .node = GRAPH_NONE};
    return intern_val(x, c, &v[C_NAME], &x->g->classes[i].name);
}

/* A node's size or native bytes (saturated at 4 GiB - 1, counted). */
static lr_status size_val(gctx *x, const jscan *c, const jscan_val *v, uint32_t *out)
{
    uint64_t u;
    if (!jscan_u64(v, &u) || v->type != JSCAN_NUM)
        return corrupt(x, c, v->s, "size must be an unsigned number");
    if (u > UINT32_MAX) {
        if (x->pass == 2)
            diag_count(&x->g->diag, DIAG_SIZE_SATURATED);
        u = UINT32_MAX;
    }
    *out = (uint32_t)u;
    return LR_OK;
}

static lr_status node_rec(gctx *x, jscan *c, const jscan_val *first)
{
    enum { N_CLASS, N_SIZE, N_NATIVE, N_KIND, N_LABEL, N_N };
    static const char *const keys[N_N] = {"class", "size", "native", "kind", "label"};
    jscan_val v[N_N];
    uint32_t seen, size = 0, native = 0;
    uint64_t id, cls = 0;
    int has_cls;
    uint8_t kind = GRAPH_KIND_INSTANCE;
    graph *g = x->g;
    LR_TRY(get_id(x, c, first, &id));
    LR_TRY(jscan_fields(c, keys, N_N, v, &seen, x->err));
    LR_TRY(opt_id(x, c, seen, N_CLASS, v, &cls, &has_cls));
    if (JSCAN_HAS(seen, N_SIZE))
        LR_TRY(size_val(x, c, &v[N_SIZE], &size));
    if (JSCAN_HAS(seen, N_NATIVE))
        LR_TRY(size_val(x, c, &v[N_NATIVE], &native));
    if (JSCAN_HAS(seen, N_KIND))
        LR_TRY(node_kind_of(x, c, &v[N_KIND], &kind));
    if (JSCAN_HAS(seen, N_LABEL) && v[N_LABEL].type != JSCAN_STR &&
        v[N_LABEL].type != JSCAN_NULL)
        return corrupt(x, c, v[N_LABEL].s, "\"label\" must be a string");
    int label = JSCAN_HAS(seen, N_LABEL) && v[N_LABEL].type == JSCAN_STR;
    uint64_t i = x->i_node++;
    if (x->pass == 1) {
        x->n_label += (uint64_t)label;
        return LR_OK;
    }
    g->node_id[i] = id;
    g->node_class[i] = GRAPH_NONE;
    g->node_size[i] = size;
    g->node_native[i] = native;
    g->node_kind[i] = kind;
    g->node_type[i] = 0;
    g->node_off[i] = UINT64_MAX;
    g->node_len[i] = 0;
    x->p.node_class_id[i] = cls;
    x->p.node_has_class[i] = (uint8_t)has_cls;
    if (g->node_name)
        g->node_name[i] = GRAPH_NONE;
    return label ? intern_val(x, c, &v[N_LABEL], &g->node_name[i]) : LR_OK;
}

static lr_status edge_rec(gctx *x, jscan *c, const jscan_val *first)
{
    enum { E_NAME, E_KIND, E_STRENGTH, E_N };
    static const char *const keys[E_N] = {"name", "kind", "strength"};
    jscan_val v[E_N];
    uint32_t seen;
    if (first->type != JSCAN_ARR)
        return corrupt(x, c, first->s, "\"edge\" must be [from, to]");
    jscan a;
    jscan_arr(&a, c, first);
    uint64_t ends[2];
    for (int k = 0; k < 3; k++) {
        jscan_val e;
        int done;
        LR_TRY(jscan_elem(&a, &e, &done, x->err));
        if (done != (k == 2))
            return corrupt(x, c, first->s, "\"edge\" must be [from, to]");
        if (k < 2)
            LR_TRY(get_id(x, c, &e, &ends[k]));
    }
    unsigned kind = GRAPH_EDGE_FIELD, strength = GRAPH_STRONG;
    LR_TRY(jscan_fields(c, keys, E_N, v, &seen, x->err));
    jscan_val name = JSCAN_HAS(seen, E_NAME) ? v[E_NAME] : (jscan_val){.type = JSCAN_NULL};
    if (JSCAN_HAS(seen, E_KIND))
        LR_TRY(edge_kind_of(x, c, &v[E_KIND], &kind));
    if (JSCAN_HAS(seen, E_STRENGTH))
        LR_TRY(strength_of(x, c, &v[E_STRENGTH], &strength));
    else if (kind == GRAPH_EDGE_WEAK)
        strength = GRAPH_WEAK; /* a weak edge holds nothing unless its strength says so */
    if (name.type == JSCAN_NUM && kind == GRAPH_EDGE_FIELD)
        kind = GRAPH_EDGE_ELEMENT; /* a numbered reference is an element unless told */
    uint32_t nm = 0;
    if (GRAPH_EDGE_NAME_IS_INDEX(kind)) {
        uint64_t ix = 0;
        if (name.type != JSCAN_NULL && (!jscan_u64(&name, &ix) || ix > UINT32_MAX))
            return corrupt(x, c, name.s, kind == GRAPH_EDGE_HIDDEN
                                             ? "a hidden edge's name must be its index"
                                             : "an element edge's name must be its index");
        nm = (uint32_t)ix;
    } else if (x->pass == 2) {
        str_ix s = GRAPH_NONE;
        if (name.type == JSCAN_STR) {
            LR_TRY(intern_val(x, c, &name, &s));
        } else if (name.type == JSCAN_NUM) {
            LR_TRY(graph_intern(x->g, (const char *)name.s, (size_t)(name.e - name.s), &s,
                                x->err));
        } else {
            LR_TRY(graph_intern(x->g, "", 0, &s, x->err));
        }
        nm = s;
    }
    if (x->pass == 2) {
        uint64_t i = x->i_edge;
        x->p.edge_from[i] = ends[0];
        x->p.edge_to_id[i] = ends[1];
        x->p.edge_nm[i] = nm;
        x->p.edge_k[i] = GRAPH_EDGE_MAKE(kind, strength);
    }
    x->i_edge++;
    return LR_OK;
}

static lr_status root_rec(gctx *x, jscan *c, const jscan_val *first)
{
    static const char *const keys[1] = {"kind"};
    jscan_val v[1];
    uint32_t seen;
    uint64_t id;
    uint8_t kind = GRAPH_ROOT_UNKNOWN;
    LR_TRY(get_id(x, c, first, &id));
    LR_TRY(jscan_fields(c, keys, 1, v, &seen, x->err));
    if (JSCAN_HAS(seen, 0))
        LR_TRY(root_kind_of(x, c, &v[0], &kind));
    if (x->pass == 2) {
        x->p.root_id[x->i_root] = id;
        x->p.root_k[x->i_root] = kind;
    }
    x->i_root++;
    return LR_OK;
}

/* One line: the first member names the record. */
static lr_status line(gctx *x, const uint8_t *p, const uint8_t *e, int first_line)
{
    jscan c;
    LR_TRY(jscan_obj(&c, x->data, x->name, p, e, x->err));
    const uint8_t *k;
    size_t kl;
    jscan_val v;
    int done;
    LR_TRY(jscan_member(&c, &k, &kl, &v, &done, x->err));
    if (done)
        return corrupt(x, &c, p, "empty record");
    if (first_line != jscan_key_is(k, kl, "leakray_graph"))
        return corrupt(x, &c, p, first_line ? "first line must be the leakray_graph header"
                                            : "a second header");
    if (first_line)
        return header(x, &c, &v);
    if (jscan_key_is(k, kl, "node"))
        return node_rec(x, &c, &v);
    if (jscan_key_is(k, kl, "edge"))
        return edge_rec(x, &c, &v);
    if (jscan_key_is(k, kl, "class"))
        return class_rec(x, &c, &v);
    if (jscan_key_is(k, kl, "root"))
        return root_rec(x, &c, &v);
    return corrupt(x, &c, k, "unknown record (node, edge, class or root first)");
}

static lr_status pass(gctx *x, int which)
{
    x->pass = which;
    x->i_class = x->i_node = x->i_edge = x->i_root = 0;
    int first = 1;
    for (const uint8_t *p = x->data + jscan_bom(x->data, (uint64_t)(x->end - x->data));
         p < x->end;) {
        const uint8_t *e = jscan_line_end(p, x->end);
        const uint8_t *q = p;
        while (q < e && (*q == ' ' || *q == '\r' || *q == '\t'))
            q++;
        if (q < e) {
            LR_TRY(line(x, q, e, first));
            first = 0;
            if (which == 2 && (x->i_node > x->p.n_node || x->i_edge > x->p.n_edge ||
                               x->i_class > x->p.n_class || x->i_root > x->p.n_root))
                return LR_CORRUPT(x->err, x->name, (uint64_t)(q - x->data),
                                  "input changed while read");
        }
        p = e < x->end ? e + 1 : e;
    }
    if (first)
        return LR_CORRUPT(x->err, x->name, 0, "empty file: no leakray_graph header");
    if (which == 1) {
        x->p.n_class = x->i_class, x->p.n_node = x->i_node;
        x->p.n_edge = x->i_edge, x->p.n_root = x->i_root;
    }
    return LR_OK;
}

typedef struct idpair {
    uint64_t id;
    uint32_t ix;
} idpair;

static int cmp_idpair(const void *a, const void *b)
{
    const idpair *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static uint32_t find_class(const idpair *v, uint64_t n, uint64_t id)
{
    idpair key = {id, 0};
    const idpair *hit = bsearch(&key, v, n, sizeof *v, cmp_idpair);
    return hit ? hit->ix : GRAPH_NONE;
}

/* The strength of a Java reference class's `referent`, from the first java.lang.ref class on
 * its super chain, as the HPROF reader sets it (hprof_set_ref_strengths): a graph written from
 * a HotSpot dump reads back with the same classes marked, which the analyses ask (the GC's
 * pending-list link, dom_gc_link). The chain is bounded: supers come from the file. */
static void ref_strengths(graph *g)
{
    static const struct {
        const char *name;
        uint8_t strength;
    } refs[] = {{"java.lang.ref.WeakReference", GRAPH_WEAK},
                {"java.lang.ref.SoftReference", GRAPH_SOFT},
                {"java.lang.ref.PhantomReference", GRAPH_PHANTOM},
                {"jdk.internal.ref.Cleaner", GRAPH_PHANTOM},
                {"sun.misc.Cleaner", GRAPH_PHANTOM},
                {"java.lang.ref.Finalizer", GRAPH_FINALIZER},
                {"java.lang.ref.FinalizerReference", GRAPH_FINALIZER}};
    for (class_ix c = 0; c < g->n_classes; c++) {
        class_ix k = c;
        for (uint32_t depth = 0; k < g->n_classes && depth < 256; depth++) {
            str_ix nm = g->classes[k].name;
            const char *n = nm == GRAPH_NONE ? "" : graph_str(g, nm);
            uint8_t st = GRAPH_STRONG;
            for (size_t i = 0; i < sizeof refs / sizeof refs[0] && st == GRAPH_STRONG; i++)
                if (!strcmp(n, refs[i].name))
                    st = refs[i].strength;
            if (st != GRAPH_STRONG) {
                g->classes[c].ref_strength = st;
                break;
            }
            k = g->classes[k].super;
        }
    }
}

lr_status gtext_resolve(graph *g, gtext_pending *p, const char *name, lr_error *err)
{
    LR_TRY(graph_build_index(g, err));
    graph_count_duplicate_ids(g); /* edges and roots naming a repeated id go to its first node */
    idpair *cls = err_mallocarray(p->n_class ? p->n_class : 1, sizeof *cls);
    uint32_t *from = err_mallocarray(p->n_edge ? p->n_edge : 1, sizeof *from);
    if (!cls || !from) {
        free(cls);
        free(from);
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
    }
    for (uint64_t i = 0; i < p->n_class; i++)
        cls[i] = (idpair){p->class_id[i], (uint32_t)i};
    qsort(cls, p->n_class, sizeof *cls, cmp_idpair);
    lr_status st = LR_OK;
    for (uint64_t i = 1; st == LR_OK && i < p->n_class; i++)
        if (cls[i].id == cls[i - 1].id) {
            /* the second definition in the file (the sort keeps equal ids in no order) */
            uint32_t later = cls[i].ix > cls[i - 1].ix ? cls[i].ix : cls[i - 1].ix;
            if (p->class_off)
                st = LR_CORRUPT(err, name, p->class_off[later], "class id %llu defined twice",
                                (unsigned long long)cls[i].id);
            else /* a built graph has no input: no offset to name */
                st = LR_FAIL(err, LR_ERR_FORMAT, "%s: class id %llu defined twice", name,
                             (unsigned long long)cls[i].id);
        }
    for (uint64_t i = 0; st == LR_OK && i < p->n_class; i++) {
        graph_class *k = &g->classes[i];
        if (p->class_has_super[i])
            k->super = find_class(cls, p->n_class, p->class_super[i]);
        if (p->class_has_node[i]) {
            k->node = graph_find_id(g, p->class_node[i]);
            k->id = p->class_node[i];
        }
    }
    if (st == LR_OK)
        ref_strengths(g);
    for (uint64_t n = 0; st == LR_OK && n < p->n_node; n++) {
        if (!p->node_has_class[n])
            continue;
        g->node_class[n] = find_class(cls, p->n_class, p->node_class_id[n]);
        if (graph_node_class(g, n) == GRAPH_NONE)
            diag_count(&g->diag, DIAG_UNKNOWN_CLASS);
    }
    /* Edges: CSR by source, file order within a source (a counting sort). */
    uint64_t kept = 0;
    for (uint64_t i = 0; st == LR_OK && i < p->n_edge; i++) {
        node_ix f = graph_find_id(g, p->edge_from[i]), t = graph_find_id(g, p->edge_to_id[i]);
        if (f == GRAPH_NONE || t == GRAPH_NONE) {
            diag_count(&g->diag, DIAG_DANGLING_REFERENCE);
            from[i] = GRAPH_NONE;
            continue;
        }
        from[i] = f;
        p->edge_to_id[i] = t;
        g->first_edge[f + 1]++;
        kept++;
    }
    if (st == LR_OK)
        st = graph_alloc_edges(g, kept, err);
    if (st == LR_OK) {
        for (uint32_t n = 0; n < g->n_nodes; n++)
            g->first_edge[n + 1] += g->first_edge[n];
        edge_ix *pos = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *pos);
        if (!pos)
            st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
        for (uint32_t n = 0; pos && n < g->n_nodes; n++)
            pos[n] = g->first_edge[n];
        for (uint64_t i = 0; pos && i < p->n_edge; i++) {
            if (from[i] == GRAPH_NONE)
                continue;
            edge_ix e = pos[from[i]]++;
            g->edge_to[e] = (node_ix)p->edge_to_id[i];
            g->edge_name[e] = p->edge_nm[i];
            g->edge_kind[e] = p->edge_k[i];
        }
        free(pos);
    }
    uint32_t r = 0;
    for (uint64_t i = 0; st == LR_OK && i < p->n_root; i++) {
        node_ix t = graph_find_id(g, p->root_id[i]);
        if (t == GRAPH_NONE) {
            diag_count(&g->diag, DIAG_DANGLING_ROOT);
            continue;
        }
        g->roots[r++] = (graph_root){.node = t, .kind = p->root_k[i], .frame = -1};
    }
    g->n_roots = r;
    free(cls);
    free(from);
    if (st == LR_OK)
        st = graph_index_class_nodes(g, err);
    return st;
}

static lr_status gtext_load(graph *g, const mfile *m, const fmt_opts *o, lr_error *err)
{
    (void)o;
    gctx x = {.g = g, .data = m->data, .end = m->data + m->len,
              .name = g->path ? g->path : "<input>", .err = err};
    g->format = GTEXT_FORMAT;
    g->data = m->data;
    g->data_len = m->len;
    g->size_model = GRAPH_SIZES_RECORD;
    g->synthetic_root = GRAPH_NONE;
    g->type_names[0] = "object";
    g->n_types = 1;
    lr_status s = pass(&x, 1);
    if (s == LR_OK && (x.p.n_node >= UINT32_MAX || x.p.n_edge >= UINT32_MAX ||
                       x.p.n_class >= UINT32_MAX || x.p.n_root >= UINT32_MAX))
        s = LR_FAIL(err, LR_ERR_LIMIT, "%s: more than 2^32 records of one kind (the graph's "
                                       "indices are 32-bit)", x.name);
    if (s == LR_OK)
        s = graph_alloc_nodes(g, x.p.n_node,
                              GRAPH_WANT_NATIVE | (x.n_label ? GRAPH_WANT_NAME : 0), err);
#define ALLOC(p, n) ((p) = err_mallocarray((n) ? (n) : 1, sizeof *(p)))
    if (s == LR_OK) {
        g->first_edge = err_calloc((size_t)x.p.n_node + 1, sizeof *g->first_edge);
        g->classes = err_calloc(x.p.n_class ? x.p.n_class : 1, sizeof *g->classes);
        g->roots = err_calloc(x.p.n_root ? x.p.n_root : 1, sizeof *g->roots);
        ALLOC(x.p.class_id, x.p.n_class);
        ALLOC(x.p.class_off, x.p.n_class);
        ALLOC(x.p.class_super, x.p.n_class);
        ALLOC(x.p.class_node, x.p.n_class);
        ALLOC(x.p.class_has_super, x.p.n_class);
        ALLOC(x.p.class_has_node, x.p.n_class);
        ALLOC(x.p.node_class_id, x.p.n_node);
        ALLOC(x.p.node_has_class, x.p.n_node);
        ALLOC(x.p.edge_from, x.p.n_edge);
        ALLOC(x.p.edge_to_id, x.p.n_edge);
        ALLOC(x.p.edge_nm, x.p.n_edge);
        ALLOC(x.p.edge_k, x.p.n_edge);
        ALLOC(x.p.root_id, x.p.n_root);
        ALLOC(x.p.root_k, x.p.n_root);
        const gtext_pending *p = &x.p;
        if (!g->first_edge || !g->classes || !g->roots || !p->class_id || !p->class_off ||
            !p->class_super ||
            !p->class_node || !p->class_has_super || !p->class_has_node || !p->node_class_id ||
            !p->node_has_class || !p->edge_from || !p->edge_to_id || !p->edge_nm || !p->edge_k ||
            !p->root_id || !p->root_k)
            s = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", x.name);
    }
#undef ALLOC
    if (s == LR_OK) {
        g->n_classes = (uint32_t)x.p.n_class;
        s = pass(&x, 2);
    }
    if (s == LR_OK)
        s = gtext_resolve(g, &x.p, x.name, err);
    if (x.saw_hex)
        g->hex_ids = 1;
    gtext_pending_free(&x.p);
    free(x.sbuf);
    return s;
}

void gtext_pending_free(gtext_pending *p)
{
    free(p->class_id);
    free(p->class_off);
    free(p->class_super);
    free(p->class_node);
    free(p->class_has_super);
    free(p->class_has_node);
    free(p->node_class_id);
    free(p->node_has_class);
    free(p->edge_from);
    free(p->edge_to_id);
    free(p->edge_nm);
    free(p->edge_k);
    free(p->root_id);
    free(p->root_k);
    memset(p, 0, sizeof *p);
}

const fmt_reader fmt_gtext_reader = {GTEXT_FORMAT, gtext_sniff, gtext_load};
