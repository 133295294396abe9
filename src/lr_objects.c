/* SPDX-License-Identifier: Apache-2.0 */
/* lr_objects.c: the public object model and the heap-level analyses (top of the library),
 * prefix lr_. Thin accessors over struct graph (graph/graph.h) with range checks, so a
 * program never sees an internal struct: objects, classes, roots, references, referrers,
 * fields; then the dominator tree kept with the heap, the top objects, the class histogram
 * and single-target paths. Every accessor is O(1) unless its header comment says otherwise. */
#include "lr_internal.h"
#include "base/utf8.h"

#include "analysis/paths.h"
#include "analysis/top.h"
#include "format/v8.h"

#include <stdlib.h>
#include <string.h>

static int ok_obj(const lr_heap *h, lr_object o) { return h && o < h->g.n_nodes; }
static int ok_cls(const lr_heap *h, lr_class c) { return h && c < h->g.n_classes; }

uint32_t lr_object_count(const lr_heap *h) { return h ? h->g.n_nodes : 0; }
uint32_t lr_class_count(const lr_heap *h) { return h ? h->g.n_classes : 0; }
uint32_t lr_root_count(const lr_heap *h) { return h ? h->g.n_roots : 0; }
uint64_t lr_reference_count(const lr_heap *h) { return h ? h->g.n_edges : 0; }

uint64_t lr_object_id(const lr_heap *h, lr_object o)
{
    return ok_obj(h, o) && graph_has_ids(&h->g) ? graph_node_id(&h->g, o) : 0;
}

lr_object lr_object_find(const lr_heap *h, uint64_t id)
{
    if (!h || !graph_has_ids(&h->g))
        return LR_NONE;
    node_ix n = graph_find_id(&h->g, id);
    return n == GRAPH_NONE ? LR_NONE : n;
}

lr_kind lr_object_kind(const lr_heap *h, lr_object o)
{
    return ok_obj(h, o) ? (lr_kind)h->g.node_kind[o] : LR_KIND_OTHER;
}

const char *lr_kind_name(lr_kind k) { return graph_node_kind_name((unsigned)k); }

lr_class lr_object_class(const lr_heap *h, lr_object o)
{
    if (!ok_obj(h, o) || !graph_has_node_classes(&h->g))
        return LR_NONE;
    class_ix c = graph_node_class(&h->g, o);
    return c < h->g.n_classes ? c : LR_NONE;
}

const char *lr_object_class_name(const lr_heap *h, lr_object o)
{
    return ok_obj(h, o) ? graph_class_name(&h->g, o) : "";
}

lr_class lr_object_describes(const lr_heap *h, lr_object o)
{
    if (!ok_obj(h, o) || h->g.node_kind[o] != GRAPH_KIND_CLASS)
        return LR_NONE;
    class_ix c = graph_class_of_node(&h->g, o);
    return c < h->g.n_classes ? c : LR_NONE;
}

uint64_t lr_object_shallow(const lr_heap *h, lr_object o)
{
    if (!ok_obj(h, o))
        return 0;
    return (uint64_t)graph_node_size(&h->g, o) + (h->g.node_native ? h->g.node_native[o] : 0);
}

long lr_object_string(const lr_heap *h, lr_object o, char *buf, size_t cap)
{
    char one[1]; /* buf NULL or cap 0 asks the length alone */
    if (!ok_obj(h, o))
        return -1;
    if (!buf || !cap)
        return graph_string_value(&h->g, o, one, sizeof one);
    return graph_string_value(&h->g, o, buf, cap);
}

/* Fills *out for edge e from `from`. */
static void fill_ref(const graph *g, node_ix from, edge_ix e, lr_ref *out)
{
    out->from = from;
    out->to = g->edge_to[e];
    out->kind = graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[e]));
    out->strength = graph_strength_name(GRAPH_EDGE_STRENGTH(g->edge_kind[e]));
    char whole[4096];
    utf8_fit(out->name, sizeof out->name, graph_edge_name_text(g, e, whole, sizeof whole));
}

uint32_t lr_object_ref_count(const lr_heap *h, lr_object o)
{
    if (!ok_obj(h, o) || !h->g.first_edge)
        return 0;
    return h->g.first_edge[o + 1] - h->g.first_edge[o];
}

lr_status lr_object_ref(const lr_heap *h, lr_object o, uint32_t i, lr_ref *out, lr_error *err)
{
    if (!out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_object_ref: out is required");
    if (i >= lr_object_ref_count(h, o))
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "lr_object_ref: no reference %u of object %u",
                       i, o);
    fill_ref(&h->g, o, h->g.first_edge[o] + i, out);
    return LR_OK;
}

lr_status lr_object_referrer_count(lr_heap *h, lr_object o, uint32_t *count, lr_error *err)
{
    if (count)
        *count = 0;
    if (!count)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_object_referrer_count: count is required");
    if (!ok_obj(h, o))
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "lr_object_referrer_count: no object %u", o);
    if (!h->g.first_edge)
        return LR_OK;
    LR_TRY(graph_build_reverse(&h->g, err));
    *count = h->g.rev_first[o + 1] - h->g.rev_first[o];
    return LR_OK;
}

lr_status lr_object_referrer(lr_heap *h, lr_object o, uint32_t i, lr_ref *out, lr_error *err)
{
    uint32_t n;
    LR_TRY(lr_object_referrer_count(h, o, &n, err));
    if (!out || i >= n)
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "lr_object_referrer: no referrer %u of object %u",
                       i, o);
    edge_ix e = h->g.rev_edge[h->g.rev_first[o] + i];
    fill_ref(&h->g, graph_edge_from(&h->g, e), e, out);
    return LR_OK;
}

typedef struct field_ctx {
    const graph *g;
    lr_field_fn fn;
    void *ctx;
    uint32_t n;
} field_ctx;

static int field_cb(void *vctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    field_ctx *c = vctx;
    lr_field lf = {graph_str(c->g, f->name), graph_ftype_name(f->type),
                   decl < c->g->n_classes ? graph_str(c->g, c->g->classes[decl].name) : "",
                   v->type == GRAPH_FT_OBJECT && v->ref != GRAPH_NONE ? v->ref : LR_NONE,
                   v->raw};
    c->n++;
    return c->fn ? c->fn(c->ctx, &lf) : 0;
}

uint32_t lr_object_fields(const lr_heap *h, lr_object o, lr_field_fn fn, void *ctx)
{
    if (!ok_obj(h, o) || h->g.node_kind[o] != GRAPH_KIND_INSTANCE)
        return 0;
    field_ctx c = {&h->g, fn, ctx, 0};
    graph_fields_each(&h->g, o, field_cb, &c);
    return c.n;
}

const char *lr_class_name(const lr_heap *h, lr_class c)
{
    return ok_cls(h, c) ? graph_str(&h->g, h->g.classes[c].name) : "";
}

lr_class lr_class_super(const lr_heap *h, lr_class c)
{
    if (!ok_cls(h, c))
        return LR_NONE;
    class_ix s = h->g.classes[c].super;
    return s < h->g.n_classes ? s : LR_NONE;
}

lr_object lr_class_object(const lr_heap *h, lr_class c)
{
    if (!ok_cls(h, c))
        return LR_NONE;
    node_ix n = h->g.classes[c].node;
    return n < h->g.n_nodes ? n : LR_NONE;
}

lr_class lr_class_find(const lr_heap *h, const char *name)
{
    if (!h || !name)
        return LR_NONE;
    class_ix c = graph_find_class(&h->g, name);
    return c < h->g.n_classes ? c : LR_NONE;
}

lr_status lr_root_get(const lr_heap *h, uint32_t i, lr_root *out, lr_error *err)
{
    if (!h || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_root_get: heap and out are required");
    if (i >= h->g.n_roots)
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "lr_root_get: no root %u", i);
    const graph_root *r = &h->g.roots[i];
    out->object = r->node < h->g.n_nodes ? r->node : LR_NONE;
    out->kind = graph_root_kind_name(r->kind);
    out->thread = r->thread;
    out->frame = r->frame;
    return LR_OK;
}

/* ---- dominators ---- */

lr_status lr_dominators(lr_heap *h, lr_error *err)
{
    if (!h)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_dominators: no heap");
    if (h->has_dom)
        return LR_OK;
    lr_status st;
    if (h->g.synthetic_root != GRAPH_NONE) {
        /* V8/ArkTS: DevTools' tree, from the DevTools pass lr_path_to kept if it ran */
        st = h->has_dt ? cluster_dom_copy(&h->g, &h->dt, &h->dom, err)
                       : cluster_dom_build(&h->g, &h->dom, err);
    } else {
        dom_opts o = {0};
        if (h->g.size_model == GRAPH_SIZES_VISUALVM)
            dom_opts_visualvm(&o);
        st = dom_build_ex(&h->g, &o, &h->dom, err);
    }
    h->has_dom = st == LR_OK;
    return st;
}

uint64_t lr_object_retained(const lr_heap *h, lr_object o)
{
    return ok_obj(h, o) && h->has_dom ? h->dom.retained[o] : 0;
}

lr_object lr_object_dominator(const lr_heap *h, lr_object o)
{
    if (!ok_obj(h, o) || !h->has_dom)
        return LR_NONE;
    node_ix d = h->dom.idom[o];
    return d < h->g.n_nodes && d != o ? d : LR_NONE;
}

uint64_t lr_reachable_bytes(const lr_heap *h)
{
    return h && h->has_dom ? h->dom.total_reachable : 0;
}
uint32_t lr_reachable_count(const lr_heap *h) { return h && h->has_dom ? h->dom.n_reachable : 0; }

lr_status lr_top_objects(lr_heap *h, uint32_t n, lr_object *out, uint32_t *found, lr_error *err)
{
    if (found)
        *found = 0;
    if (!found || (n && !out))
        return LR_FAIL(err, LR_ERR_USAGE, "lr_top_objects: out and found are required");
    LR_TRY(lr_dominators(h, err));
    /* the rows `leakray top` prints: ties by id, V8's synthetic nodes left out */
    *found = top_select(&h->g, h->dom.idom, h->dom.retained, h->g.synthetic_root, NULL, 0, out,
                        n);
    return LR_OK;
}

/* ---- histogram ---- */

struct lr_histogram {
    uint32_t n;
    lr_histogram_row *rows;
};

/* One key descending (retained, or shallow without retained sizes), then the name, as
 * `histo` sorts. */
static int row_cmp_name(const lr_histogram_row *x, const lr_histogram_row *y)
{
    int c = strcmp(x->name, y->name);
    return c ? c : (x->cls > y->cls) - (x->cls < y->cls);
}

static int row_cmp_retained(const void *a, const void *b)
{
    const lr_histogram_row *x = a, *y = b;
    if (x->retained != y->retained)
        return x->retained < y->retained ? 1 : -1;
    return row_cmp_name(x, y);
}

static int row_cmp_shallow(const void *a, const void *b)
{
    const lr_histogram_row *x = a, *y = b;
    if (x->shallow != y->shallow)
        return x->shallow < y->shallow ? 1 : -1;
    return row_cmp_name(x, y);
}

/* A V8 heap's histogram is DevTools' Summary, as `histo` prints it: instances of nonzero
 * size, retained sizes in DevTools' tree, no row for the snapshot's synthetic nodes. */
static lr_status histogram_devtools(lr_heap *h, int with_retained, lr_histogram **out,
                                    lr_error *err)
{
    const graph *g = &h->g;
    if (!h->has_dt) {
        LR_TRY(devtools_build_paths(g, v8_class_keys(g), &h->dt, err));
        h->has_dt = 1;
    }
    const devtools_result *r = &h->dt;
    lr_histogram *hi = calloc(1, sizeof *hi);
    lr_histogram_row *rows = calloc(r->n_classes ? r->n_classes : 1, sizeof *rows);
    if (!hi || !rows) {
        free(hi), free(rows);
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (histogram)", g->path);
    }
    for (uint32_t i = 0; i < r->n_classes; i++) {
        const devtools_class *c = &r->classes[i];
        if (c->shadowed || !c->count || c->cls >= g->n_classes)
            continue;
        rows[hi->n++] = (lr_histogram_row){c->cls, graph_str(g, g->classes[c->cls].name),
                                           c->count, c->self, with_retained ? c->retained : 0};
    }
    qsort(rows, hi->n, sizeof *rows, with_retained ? row_cmp_retained : row_cmp_shallow);
    hi->rows = rows;
    *out = hi;
    return LR_OK;
}

lr_status lr_histogram_build(lr_heap *h, int with_retained, lr_histogram **out, lr_error *err)
{
    if (out)
        *out = NULL;
    if (!h || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_histogram_build: heap and out are required");
    if (h->g.synthetic_root != GRAPH_NONE && v8_class_keys(&h->g))
        return histogram_devtools(h, with_retained, out, err);
    if (with_retained)
        LR_TRY(lr_dominators(h, err));
    const graph *g = &h->g;
    uint32_t nc = g->n_classes;
    lr_histogram *hi = calloc(1, sizeof *hi);
    lr_histogram_row *rows = calloc(nc ? nc : 1, sizeof *rows);
    uint64_t *ret = with_retained ? calloc(nc ? nc : 1, sizeof *ret) : NULL;
    uint32_t *cnt = with_retained ? calloc(nc ? nc : 1, sizeof *cnt) : NULL;
    lr_status st = LR_OK;
    if (!hi || !rows || (with_retained && (!ret || !cnt))) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (histogram)", g->path);
        goto fail;
    }
    if (with_retained && (st = dom_class_retained(g, &h->dom, ret, cnt, err)) != LR_OK)
        goto fail;
    for (node_ix x = 0; x < g->n_nodes; x++) {
        class_ix c = graph_node_class(g, x);
        if (c >= nc)
            continue;
        rows[c].count++;
        rows[c].shallow += graph_node_size(g, x); /* as histo and SQL: native bytes apart */
    }
    for (uint32_t c = 0; c < nc; c++) {
        if (!rows[c].count)
            continue;
        lr_histogram_row r = {c, graph_str(g, g->classes[c].name), rows[c].count,
                              rows[c].shallow, ret ? ret[c] : 0};
        rows[hi->n++] = r;
    }
    qsort(rows, hi->n, sizeof *rows, with_retained ? row_cmp_retained : row_cmp_shallow);
    hi->rows = rows;
    free(ret), free(cnt);
    *out = hi;
    return LR_OK;
fail:
    free(hi), free(rows), free(ret), free(cnt);
    return st;
}

uint32_t lr_histogram_count(const lr_histogram *hi) { return hi ? hi->n : 0; }

const lr_histogram_row *lr_histogram_get(const lr_histogram *hi, uint32_t i)
{
    return hi && i < hi->n ? &hi->rows[i] : NULL;
}

void lr_histogram_free(lr_histogram *hi)
{
    if (!hi)
        return;
    free(hi->rows);
    free(hi);
}

/* ---- paths ---- */

/* A V8 heap's path, as `leakray path` prints it: the retaining path DevTools leads to when
 * its Retainers view is sorted by distance, one hop per unit of distance, no weak edge. One
 * DevTools pass per heap serves every later call. */
/* Object n as a user knows it: "@id" for V8 ids, "0x..." for addresses. */
static const char *id_text(const graph *g, node_ix n, char buf[32])
{
    unsigned long long id = (unsigned long long)graph_node_id(g, n);
    snprintf(buf, 32, g->id_size == 0 && !g->hex_ids ? "@%llu" : "0x%llx", id);
    return buf;
}

static lr_status path_devtools(lr_heap *h, lr_object target, lr_object *objs, uint32_t cap,
                               uint32_t *len, lr_error *err)
{
    const graph *g = &h->g;
    if (!h->has_dt) {
        LR_TRY(devtools_build_paths(g, v8_class_keys(g), &h->dt, err));
        h->has_dt = 1;
    }
    const devtools_result *r = &h->dt;
    uint32_t n = devtools_path(g, r, target, NULL, 0);
    if (r->distance[target] == DEVTOOLS_NO_DISTANCE || (n == 0 && target != r->root)) {
        char idb[32];
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "%s: object %s is reachable from no GC root",
                       g->path, id_text(g, target, idb));
    }
    edge_ix *edges = malloc((size_t)(n ? n : 1) * sizeof *edges);
    if (!edges)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (path)", g->path);
    devtools_path(g, r, target, edges, n);
    for (uint32_t i = 0; i < n && i < cap; i++)
        objs[i] = graph_edge_from(g, edges[i]);
    if (n < cap)
        objs[n] = target;
    *len = n + 1;
    free(edges);
    return LR_OK;
}

lr_status lr_path_to(lr_heap *h, lr_object target, lr_object *objs, uint32_t cap,
                     uint32_t *len, lr_error *err)
{
    if (len)
        *len = 0;
    if (!ok_obj(h, target) || !len || (cap && !objs))
        return LR_FAIL(err, LR_ERR_USAGE, "lr_path_to: a valid target and len are required");
    if (h->g.synthetic_root != GRAPH_NONE && v8_class_keys(&h->g))
        return path_devtools(h, target, objs, cap, len, err);
    paths_result r;
    /* `leakray path`'s view: the shipped rules' priorities (a class's internals, the GC's
     * lists and what the rules ignore come last), plus the JVM's hold of a class through its
     * instances (HPROF names the class by id, no reference holds it): a class and its loader
     * kept only through an instance have a path. The rules are loaded once per heap. */
    if (!h->has_path_rs) {
        rules_init(&h->path_rs);
        lr_status rs = rules_load_defaults(&h->path_rs, &h->g, err);
        if (rs == LR_OK)
            rs = rules_bind(&h->path_rs, &h->g, err);
        if (rs != LR_OK) {
            rules_fini(&h->path_rs);
            return rs;
        }
        h->has_path_rs = 1;
    }
    paths_policy pol = trace_path_policy(&h->path_rs);
    pol.class_hops = 1;
    LR_TRY(paths_find(&h->g, &pol, &target, 1, &r, err));
    lr_status st = LR_OK;
    if (!paths_reached(&r, target)) {
        char idb[32];
        st = LR_FAIL(err, LR_ERR_NOT_FOUND, "%s: object %s is reachable from no GC root",
                     h->g.path, id_text(&h->g, target, idb));
    } else {
        uint32_t n = paths_get(&r, target, NULL, NULL, 0);
        node_ix *nodes = malloc((size_t)(n ? n : 1) * sizeof *nodes);
        edge_ix *edges = malloc((size_t)(n ? n : 1) * sizeof *edges);
        if (!nodes || !edges) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (path)", h->g.path);
        } else {
            paths_get(&r, target, nodes, edges, n);
            for (uint32_t i = 0; i < n && i < cap; i++)
                objs[i] = nodes[i];
            *len = n;
        }
        free(nodes), free(edges);
    }
    paths_free(&r);
    return st;
}
