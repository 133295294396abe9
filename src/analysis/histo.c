/* SPDX-License-Identifier: Apache-2.0 */
/* histo.c: the class histogram and DevTools' Summary selection (analysis layer), prefix
 * histo_. One pass over the nodes sums into a row per class plus two rows for nodes without a
 * class; the DevTools rows come summed from devtools_build and are only selected and sorted
 * here. qsort has no context argument, so each sort's key lives in a file-scope variable for
 * the duration of the call (the CLI is single-threaded; nothing else sorts histograms). */
#include "analysis/histo.h"

#include "base/err.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local enum histo_sort sort_key;
static _Thread_local const graph *sort_g;
static _Thread_local const devtools_result *sort_dt;

static int cmp_name(const histo_row *a, const histo_row *b)
{
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->cls < b->cls ? -1 : a->cls > b->cls;
}

static int cmp_rows(const void *pa, const void *pb)
{
    const histo_row *a = pa, *b = pb;
    uint64_t ka = 0, kb = 0;
    switch (sort_key) {
    case HISTO_BY_SHALLOW: ka = a->shallow; kb = b->shallow; break;
    case HISTO_BY_COUNT: ka = a->count; kb = b->count; break;
    case HISTO_BY_RETAINED: ka = a->retained; kb = b->retained; break;
    case HISTO_BY_NAME: return cmp_name(a, b);
    }
    if (ka != kb)
        return ka > kb ? -1 : 1; /* descending */
    return cmp_name(a, b);
}

void histo_rank(histo_row *all, uint32_t nc, enum histo_sort sort, histo_keep_fn keep,
                void *keep_arg, histo_result *out)
{
    memset(&out->total, 0, sizeof out->total);
    uint32_t k = 0;
    for (uint32_t c = 0; c <= nc + 1; c++) {
        if (!all[c].count)
            continue;
        all[c].cls = c < nc ? c : GRAPH_NONE;
        if (c >= nc)
            all[c].name = c == nc ? HISTO_CLASS_OBJECTS_NAME : HISTO_NO_CLASS_NAME;
        if (!all[c].name || !all[c].name[0])
            all[c].name = "<unnamed class>";
        if (keep && !keep(all[c].name, keep_arg))
            continue;
        out->total.count += all[c].count;
        out->total.shallow += all[c].shallow;
        out->total.retained += all[c].retained;
        all[k++] = all[c];
    }
    sort_key = sort;
    qsort(all, k, sizeof *all, cmp_rows);
    out->rows = all;
    out->n_rows = k;
}

/* histo_build's rows; retained sums per node (retained) or per class (class_ret), or none;
 * class_objects is the class objects' row's when either is given. */
static lr_status build_rows(const graph *g, const uint64_t *retained, const uint64_t *class_ret,
                            uint64_t class_objects, int heap, enum histo_sort sort,
                            histo_keep_fn keep, void *keep_arg, histo_result *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    out->has_retained = retained || class_ret;
    /* Row n_classes collects class objects the reader left without a class (HPROF: jmap
     * files them under java.lang.Class, VisualVM leaves them out; a row of their own keeps
     * every real class row equal to VisualVM's), row n_classes + 1 any other classless
     * node (or an out-of-range class index). */
    histo_row *all = err_calloc((size_t)g->n_classes + 2, sizeof *all);
    if (!all)
        return LR_FAIL(err, LR_ERR_NOMEM, "histo: out of memory for %u classes", g->n_classes);
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        if (heap >= 0 && (!g->node_heap || g->node_heap[n] != heap))
            continue;
        class_ix c = graph_node_class(g, n);
        if (c >= g->n_classes)
            c = g->node_kind[n] == GRAPH_KIND_CLASS ? g->n_classes : g->n_classes + 1;
        histo_row *r = &all[c];
        r->count++;
        r->shallow += graph_node_size(g, n);
        if (retained)
            r->retained += retained[n];
    }
    for (uint32_t c = 0; c < g->n_classes; c++) {
        all[c].name = graph_str(g, g->classes[c].name);
        if (class_ret)
            all[c].retained = class_ret[c];
    }
    if (class_ret || (retained && class_objects))
        all[g->n_classes].retained = class_objects;
    histo_rank(all, g->n_classes, sort, keep, keep_arg, out);
    return LR_OK;
}

lr_status histo_build(const graph *g, const uint64_t *retained, int heap, enum histo_sort sort,
                      histo_keep_fn keep, void *keep_arg, histo_result *out, lr_error *err)
{
    return build_rows(g, retained, NULL, 0, heap, sort, keep, keep_arg, out, err);
}

lr_status histo_tree_build(const graph *g, dom_tree *t, lr_error *err)
{
    dom_opts dopts = {0};
    if (g->size_model == GRAPH_SIZES_VISUALVM)
        dom_opts_visualvm(&dopts);
    /* as analyze and top: 4 bytes per node for the retained sizes when they all fit (a heap
     * where one does not takes a second pass of the sums into t->retained) */
    dopts.flags |= DOM_RETAINED32;
    return dom_build_ex(g, &dopts, t, err);
}

/* Retained bytes of the class objects (in heap, or all with heap < 0), by the per-class rule:
 * a class object counts unless a class object dominates it. Their row has no class for
 * dom_class_retained, and read 0 under its own shallow size (the classes' statics retain
 * most of an Android heap). Each ancestor's answer is kept (state[]: 1 a class object at or
 * above, 2 none), so the walks up the tree take O(N) in all. UINT64_MAX: out of memory. */
uint64_t histo_class_objects_retained(const graph *g, const dom_tree *t, int heap)
{
    uint32_t n = g->n_nodes;
    uint8_t *state = err_calloc(n ? n : 1, 1);
    node_ix *path = err_mallocarray(n ? n : 1, sizeof *path);
    uint64_t sum = UINT64_MAX;
    if (!state || !path)
        goto out;
    sum = 0;
    for (node_ix x = 0; x < n; x++)
        if (g->node_kind[x] == GRAPH_KIND_CLASS && graph_node_class(g, x) >= g->n_classes)
            state[x] = 1;
    for (node_ix x = 0; x < n; x++) {
        if (state[x] != 1 || g->node_kind[x] != GRAPH_KIND_CLASS || t->idom[x] == GRAPH_NONE ||
            (heap >= 0 && (!g->node_heap || g->node_heap[x] != heap)))
            continue;
        uint32_t k = 0;
        node_ix y = t->idom[x];
        while (y < n && !state[y]) {
            path[k++] = y;
            y = t->idom[y];
        }
        uint8_t v = y < n ? state[y] : 2;
        while (k)
            state[path[--k]] = v;
        if (v == 2)
            sum += dom_retained(t, x);
    }
out:
    free(state);
    free(path);
    return sum;
}

lr_status histo_build_retained(const graph *g, int heap, enum histo_sort sort,
                               histo_keep_fn keep, void *keep_arg, histo_result *out,
                               lr_error *err)
{
    memset(out, 0, sizeof *out);
    /* Without a heap filter every instance counts, so the sums per class are the column: no
     * per-node array of 8 bytes beside the tree. A heap filter needs them per node. */
    size_t n_sums = heap >= 0 ? (g->n_nodes ? g->n_nodes : 1) : (g->n_classes ? g->n_classes : 1);
    uint64_t *sums = err_mallocarray(n_sums, sizeof *sums);
    uint32_t *count = heap >= 0 ? NULL : err_mallocarray(n_sums, sizeof *count);
    if (!sums || (heap < 0 && !count)) {
        free(sums);
        free(count);
        return LR_FAIL(err, LR_ERR_NOMEM, "histo: out of memory for %u nodes", g->n_nodes);
    }
    dom_tree t;
    lr_status st = histo_tree_build(g, &t, err);
    uint64_t heap_bytes = 0, class_objects = 0;
    if (st == LR_OK) {
        st = heap >= 0 ? dom_class_top(g, &t, sums, err)
                       : dom_class_retained(g, &t, sums, count, err);
        heap_bytes = t.total_reachable;
        if (st == LR_OK &&
            (class_objects = histo_class_objects_retained(g, &t, heap)) == UINT64_MAX)
            st = LR_FAIL(err, LR_ERR_NOMEM, "histo: out of memory for %u nodes", g->n_nodes);
        dom_free(&t);
    }
    free(count);
    if (st == LR_OK)
        st = build_rows(g, heap >= 0 ? sums : NULL, heap >= 0 ? NULL : sums, class_objects,
                        heap, sort, keep, keep_arg, out, err);
    free(sums);
    out->heap_bytes = heap_bytes;
    return st;
}

void histo_free(histo_result *h)
{
    free(h->rows);
    h->rows = NULL;
    h->n_rows = 0;
}

static int cmp_dt(const void *pa, const void *pb)
{
    const devtools_class *a = &sort_dt->classes[*(const uint32_t *)pa];
    const devtools_class *b = &sort_dt->classes[*(const uint32_t *)pb];
    uint64_t ka = 0, kb = 0;
    switch (sort_key) {
    case HISTO_BY_SHALLOW: ka = a->self; kb = b->self; break;
    case HISTO_BY_COUNT: ka = a->count; kb = b->count; break;
    case HISTO_BY_RETAINED: ka = a->retained; kb = b->retained; break;
    case HISTO_BY_NAME: break;
    }
    if (ka != kb)
        return ka > kb ? -1 : 1;
    const graph *g = sort_g;
    int c = strcmp(graph_str(g, g->classes[a->cls].name), graph_str(g, g->classes[b->cls].name));
    if (c)
        return c;
    c = strcmp(graph_str(g, a->key), graph_str(g, b->key));
    if (c)
        return c;
    return a->cls < b->cls ? -1 : a->cls > b->cls;
}

/* DevTools renames every detached DOM node "Detached ...", so a class is detached or not as
 * a whole; the result says which (NULL when the graph has no DOM state). */
static uint8_t *detached_classes(const graph *g)
{
    if (!g->node_dom)
        return NULL;
    uint8_t *d = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    for (node_ix v = 0; d && v < g->n_nodes; v++)
        if (graph_node_dom(g, v) == GRAPH_DOM_DETACHED && graph_node_class(g, v) < g->n_classes)
            d[graph_node_class(g, v)] = 1;
    return d;
}

lr_status histo_dt_select(const graph *g, const devtools_result *dt, enum histo_sort sort,
                          int detached_only, histo_keep_fn keep, void *keep_arg,
                          histo_dt_result *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    out->dt = dt;
    out->detached_only = detached_only;
    out->ix = err_mallocarray(dt->n_classes ? dt->n_classes : 1, sizeof *out->ix);
    if (!out->ix)
        return LR_FAIL(err, LR_ERR_NOMEM, "histo: out of memory for %u classes", dt->n_classes);
    uint8_t *cls_det = detached_classes(g);
    out->has_dom = cls_det != NULL;
    for (uint32_t i = 0; i < dt->n_classes; i++) {
        const devtools_class *c = &dt->classes[i];
        if (c->shadowed || (keep && !keep(graph_str(g, g->classes[c->cls].name), keep_arg)))
            continue;
        int det = cls_det && cls_det[c->cls];
        if (det) {
            out->detached_count += c->count;
            out->detached_self += c->self;
        }
        if (detached_only && !det)
            continue;
        out->ix[out->n++] = i;
        out->count += c->count;
        out->self += c->self;
        out->retained += c->retained;
    }
    free(cls_det);
    sort_key = sort;
    sort_g = g;
    sort_dt = dt;
    qsort(out->ix, out->n, sizeof *out->ix, cmp_dt);
    return LR_OK;
}

void histo_dt_free(histo_dt_result *h)
{
    free(h->ix);
    h->ix = NULL;
    h->n = 0;
}
