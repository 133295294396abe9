/* SPDX-License-Identifier: Apache-2.0 */
/* top.c: the biggest objects or classes by retained size (analysis layer), prefix top_. Objects:
 * a bounded min-heap of k node indexes keyed by (retained, -id) over every candidate node, then
 * heap sort, O(N log k) time and 4 bytes per row (with indexed unique ids, sizes first and
 * ties taken in id order, select_k_sizes). Classes of an exact tree: an instance counts
 * only when no dominator ancestor has its class (dom_class_retained), so no byte is counted
 * twice; DevTools' classes are its Summary rows. Ties are broken by id (objects) or by name
 * then index (classes), so the order never depends on load order. Prints nothing. */
#include "analysis/top.h"

#include "analysis/suspects.h"
#include "base/err.h"
#include "base/search.h"

#include <stdlib.h>
#include <string.h>

/* ---- top-N selection: a min-heap of k node indexes keyed by (retained, -id) ---- */

/* Which nodes are candidates. */
enum { SEL_EXACT, SEL_DEVTOOLS };

typedef struct sel_ctx {
    const graph *g;
    const uint64_t *ret;   /* per node, or NULL: ... */
    const uint32_t *ret32; /* ... these (a tree with DOM_RETAINED32) */
    const node_ix *idom;   /* in the tree when != GRAPH_NONE; NULL: every node */
    node_ix root;          /* SEL_DEVTOOLS: the synthetic root */
    const uint8_t *keep;   /* per class, or NULL */
    int keep_none;         /* classless nodes kept (with keep) */
    int detached;          /* SEL_DEVTOOLS: detached DOM nodes only */
    int mode;              /* SEL_EXACT or SEL_DEVTOOLS */
} sel_ctx;

/* Retained bytes of x, whichever array holds them. */
static inline uint64_t sel_ret(const sel_ctx *s, node_ix x)
{
    return s->ret ? s->ret[x] : s->ret32[x];
}

/* Whether a ranks before b: larger retained first, then smaller id. */
static int before(const sel_ctx *s, node_ix a, node_ix b)
{
    uint64_t ra = sel_ret(s, a), rb = sel_ret(s, b);
    if (ra != rb)
        return ra > rb;
    /* Node order is id order there: no id is read back from the dump (on a large HPROF
     * dump, ties among small objects would read most of its records again). */
    if (s->g->ids_strict)
        return a < b;
    return graph_node_id(s->g, a) < graph_node_id(s->g, b);
}

static void sift_down(const sel_ctx *s, node_ix *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(s, h[m], h[l]))
            m = l;
        if (r < n && before(s, h[m], h[r]))
            m = r;
        if (m == i)
            return;
        node_ix t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static int candidate(const sel_ctx *s, node_ix x)
{
    const graph *g = s->g;
    if (s->idom && s->idom[x] == GRAPH_NONE)
        return 0;
    if (s->mode == SEL_DEVTOOLS && (g->node_kind[x] == GRAPH_KIND_SYNTHETIC || x == s->root))
        return 0;
    if (s->keep) {
        /* a class object by the class it is (printed `class NAME`): a webapp's statics, the
         * memory of a class loader leak, were in no --package's list */
        class_ix c = graph_node_class(g, x);
        if (g->node_kind[x] == GRAPH_KIND_CLASS && graph_class_of_node(g, x) < g->n_classes)
            c = graph_class_of_node(g, x);
        if (!(c < g->n_classes ? s->keep[c] : s->keep_none))
            return 0;
    }
    return !s->detached || graph_node_dom(g, x) == GRAPH_DOM_DETACHED;
}

/* Sorts out[0..n) in rank order (a heap whose root ranks last, then heap sort). */
static void rank_sort(const sel_ctx *s, node_ix *out, uint32_t n)
{
    for (uint32_t i = n / 2; i-- > 0;)
        sift_down(s, out, n, i);
    for (uint32_t m = n; m > 1; m--) {
        node_ix tmp = out[0];
        out[0] = out[m - 1];
        out[m - 1] = tmp;
        sift_down(s, out, m - 1, 0);
    }
}

/* Candidates select_k_sizes keeps beside its heap of k sizes: SEL_KEEP_MUL * k + SEL_KEEP_ADD
 * nodes. When the list is full, those now below the heap's root are dropped; when that frees
 * less than half of it (a million nodes tied at the threshold), the list is given up and a
 * second pass over the nodes collects the rows instead. */
#define SEL_KEEP_MUL 4
#define SEL_KEEP_ADD 4096

/* select_k for a graph whose ids are unique and indexed (ids_strict, or the rank index),
 * without reading ids back from the input: the k-th largest retained size t is found (a
 * min-heap of sizes) while every candidate at or above the heap's root so far is listed (the
 * root only grows, so the list holds every candidate >= t); every listed node above t is a
 * row, and the rest are the candidates at t met first in id order (node order when that is
 * id order, else walking the index's positions). A node below the full heap's root is
 * passed on its size alone, so the one pass reads 4 or 8 bytes of most nodes and nothing
 * else. Comparing candidates tied with the heap's root by id, as select_k does, reads the id
 * of each tied node from the dump: on a heap with a million equal arrays, much of it again.
 * Same rows in the same order as select_k (unique ids: a total order). O(N log k) time,
 * 8k + 4 (SEL_KEEP_MUL k + SEL_KEEP_ADD) bytes; UINT32_MAX when out of memory. */
static uint32_t select_k_sizes(const sel_ctx *s, node_ix *out, uint32_t k)
{
    const graph *g = s->g;
    uint64_t *h = malloc((size_t)k * sizeof *h);
    uint64_t cap = (uint64_t)SEL_KEEP_MUL * k + SEL_KEEP_ADD;
    if (cap > g->n_nodes)
        cap = g->n_nodes ? g->n_nodes : 1;
    node_ix *list = malloc((size_t)cap * sizeof *list);
    if (!h || !list) {
        free(h);
        free(list);
        return UINT32_MAX;
    }
    uint32_t n = 0, n_list = 0;
    int listing = 1;
    const uint64_t *r64 = s->ret;
    const uint32_t *r32 = s->ret32;
    const node_ix nn = g->n_nodes;
    uint64_t low = 0; /* the heap's root once it holds k sizes: nodes below it are passed */
    for (node_ix x = 0; x < nn; x++) {
        if (!r64) {
            /* most nodes lie below low: a tight scan of the 32-bit sizes alone */
            while (x < nn && r32[x] < low)
                x++;
            if (x == nn)
                break;
        }
        uint64_t v = r64 ? r64[x] : r32[x];
        if (v < low || !candidate(s, x))
            continue;
        if (listing && n_list == cap) {
            uint32_t m = 0;
            for (uint32_t i = 0; i < n_list; i++)
                if (sel_ret(s, list[i]) >= h[0])
                    list[m++] = list[i];
            n_list = m;
            listing = n_list <= cap / 2;
        }
        if (listing)
            list[n_list++] = x;
        uint32_t i;
        if (n < k) {
            for (i = n++; i > 0 && h[(i - 1) / 2] > v; i = (i - 1) / 2)
                h[i] = h[(i - 1) / 2];
        } else if (v > h[0]) {
            for (i = 0;;) {
                uint32_t l = 2 * i + 1, r = l + 1, m = i;
                uint64_t mv = v;
                if (l < n && h[l] < mv)
                    m = l, mv = h[l];
                if (r < n && h[r] < mv)
                    m = r;
                if (m == i)
                    break;
                h[i] = h[m];
                i = m;
            }
        } else {
            continue;
        }
        h[i] = v;
        if (n == k)
            low = h[0];
    }
    /* Fewer than k candidates: every one is a row. */
    int all = n < k;
    uint64_t t = all ? 0 : h[0];
    free(h);
    uint32_t rows = 0;
    if (listing) {
        for (uint32_t i = 0; i < n_list; i++)
            if (all || sel_ret(s, list[i]) > t)
                out[rows++] = list[i];
    } else {
        for (node_ix x = 0; x < g->n_nodes; x++)
            if ((all || sel_ret(s, x) > t) && candidate(s, x))
                out[rows++] = x;
    }
    const int by_node = g->ids_sorted || (!g->id_sorted && !g->id_seg);
    uint32_t n_tied = 0;
    for (uint32_t i = 0; listing && !all && i < n_list; i++)
        n_tied += sel_ret(s, list[i]) == t;
    if (listing && (by_node || n_tied == k - rows)) {
        /* the list is in node order, which is id order when by_node; else every listed node
         * at t is a row, and rank_sort orders them (no walk over the index's positions) */
        for (uint32_t i = 0; !all && rows < k && i < n_list; i++)
            if (sel_ret(s, list[i]) == t)
                out[rows++] = list[i];
    } else {
        for (uint32_t p = 0; !all && rows < k && p < g->n_nodes; p++) {
            node_ix x = by_node ? p : graph_rank_node(g, p);
            if (sel_ret(s, x) == t && candidate(s, x))
                out[rows++] = x;
        }
    }
    free(list);
    rank_sort(s, out, rows);
    return rows;
}

/* Fills out with the k first candidates in rank order; returns how many. O(N log k). */
static uint32_t select_k(const sel_ctx *s, node_ix *out, uint32_t k)
{
    const graph *g = s->g;
    uint32_t n = 0;
    if (k == 0)
        return 0;
    if ((g->ids_strict || g->id_blk) && (n = select_k_sizes(s, out, k)) != UINT32_MAX)
        return n;
    n = 0;
    /* The heap root is the worst of the kept nodes (the one ranked last). */
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (!candidate(s, x))
            continue;
        if (n < k) {
            out[n++] = x;
            for (uint32_t i = n - 1; i > 0;) {
                uint32_t p = (i - 1) / 2;
                if (!before(s, out[p], out[i]))
                    break;
                node_ix tmp = out[p];
                out[p] = out[i];
                out[i] = tmp;
                i = p;
            }
        } else if (before(s, x, out[0])) {
            out[0] = x;
            sift_down(s, out, n, 0);
        }
    }
    /* Heap sort in place: repeatedly move the worst to the end. */
    for (uint32_t m = n; m > 1; m--) {
        node_ix tmp = out[0];
        out[0] = out[m - 1];
        out[m - 1] = tmp;
        sift_down(s, out, m - 1, 0);
    }
    return n;
}

uint32_t top_select(const graph *g, const node_ix *idom, const uint64_t *retained,
                    node_ix root, const uint8_t *keep, int keep_none, node_ix *out, uint32_t k)
{
    sel_ctx s = {g, retained, NULL, idom, root, keep, keep_none, 0,
                 root == GRAPH_NONE ? SEL_EXACT : SEL_DEVTOOLS};
    return select_k(&s, out, k);
}

/* ---- the exact models ---- */

lr_status top_tree_build(const graph *g, int vvm, int artifact, dom_tree *t, lr_error *err)
{
    dom_opts dopts = {0};
    edge_ix skip = GRAPH_NONE;
    if (vvm) {
        dom_opts_visualvm(&dopts);
    } else {
        /* as analysis/retained.c: Bitmap.dumpData is the dumper's copy, no reference; the
         * GC's list of cleared references owns nothing in either model (dom_gc_link) */
        if (artifact)
            skip = susp_artifact_edge(g);
        dopts.reach = susp_filter_strong;
        dopts.reach_ctx = &skip;
    }
    /* as analyze: 4 bytes per node for the retained sizes when they all fit (a heap where one
     * does not takes a second pass of the sums into t->retained) */
    dopts.flags |= DOM_RETAINED32;
    /* skip is read only while the tree is built */
    return dom_build_ex(g, &dopts, t, err);
}

static int cmp_class(const void *pa, const void *pb)
{
    const top_class *a = pa, *b = pb;
    if (a->retained != b->retained)
        return a->retained > b->retained ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->cls < b->cls ? -1 : a->cls > b->cls;
}

/* The class rows (classes with reachable kept instances), sorted; *n_out of them. */
static lr_status build_classes(const graph *g, const dom_tree *t, const uint8_t *keep,
                               top_class **out, uint32_t *n_out, lr_error *err)
{
    uint32_t nc = g->n_classes;
    uint64_t *ret = err_calloc(nc ? nc : 1, sizeof *ret);
    uint32_t *cnt = err_calloc(nc ? nc : 1, sizeof *cnt);
    top_class *rows = err_calloc(nc ? nc : 1, sizeof *rows);
    lr_status st = LR_OK;
    if (!ret || !cnt || !rows) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "top: out of memory for %u classes", nc);
        goto done;
    }
    if ((st = dom_class_retained(g, t, ret, cnt, err)) != LR_OK)
        goto done;
    for (class_ix c = 0; c < nc; c++)
        rows[c].cls = c;
    for (node_ix x = 0; x < g->n_nodes; x++)
        if (t->idom[x] != GRAPH_NONE && graph_node_class(g, x) < nc)
            rows[graph_node_class(g, x)].shallow += graph_node_size(g, x);
    uint32_t k = 0;
    for (class_ix c = 0; c < nc; c++) {
        if (!cnt[c] || (keep && !keep[c]))
            continue;
        rows[k] = rows[c];
        rows[k].count = cnt[c];
        rows[k].retained = ret[c];
        rows[k].name = graph_str(g, g->classes[c].name);
        if (!rows[k].name[0])
            rows[k].name = TOP_UNNAMED_CLASS_NAME;
        k++;
    }
    qsort(rows, k, sizeof *rows, cmp_class);
    *out = rows;
    *n_out = k;
    rows = NULL;
done:
    free(ret);
    free(cnt);
    free(rows);
    return st;
}

static int cmp_cnode(const void *pa, const void *pb)
{
    const top_cnode *a = pa, *b = pb;
    return a->node < b->node ? -1 : a->node > b->node;
}

lr_status top_build(const graph *g, const dom_tree *t, enum top_model model, const top_opts *o,
                    top_result *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    out->g = g;
    out->model = model;
    out->by_class = o->by_class;
    out->reachable_objects = t->n_reachable;
    out->reachable_bytes = t->total_reachable;
    out->heap_total = t->total_reachable;
    out->retained = t->retained;
    out->retained32 = t->retained32;
    out->site_of = o->site_of;
    lr_status st = LR_OK;
    if (o->by_class) {
        if ((st = build_classes(g, t, o->keep, &out->classes, &out->n, err)) != LR_OK)
            goto fail;
        if (o->limit && o->limit < out->n)
            out->n = (uint32_t)o->limit;
    } else {
        uint32_t k = o->limit && o->limit < t->n_reachable ? (uint32_t)o->limit : t->n_reachable;
        out->sel = err_mallocarray(k ? k : 1, sizeof *out->sel);
        if (!out->sel) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "top: out of memory for %u rows", k);
            goto fail;
        }
        sel_ctx s = {g, t->retained, t->retained32, t->idom, GRAPH_NONE, o->keep,
                     o->keep_none, 0, SEL_EXACT};
        out->n = select_k(&s, out->sel, k);
    }
    /* a class object is shown as "class NAME", as show and path name it */
    out->cnodes = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *out->cnodes);
    if (!out->cnodes) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "top: out of memory for %u classes", g->n_classes);
        goto fail;
    }
    for (class_ix c = 0; c < g->n_classes; c++)
        if (g->classes[c].node < g->n_nodes)
            out->cnodes[out->n_cnodes++] = (top_cnode){g->classes[c].node, c};
    qsort(out->cnodes, out->n_cnodes, sizeof *out->cnodes, cmp_cnode);
    return LR_OK;
fail:
    top_free(out);
    return st;
}

/* ---- DevTools ---- */

/* qsort has no context argument: the one sort of a thread. */
static _Thread_local const devtools_result *dt_sort_r;
static _Thread_local const graph *dt_sort_g;

static int cmp_dt_class(const void *pa, const void *pb)
{
    const devtools_class *a = &dt_sort_r->classes[*(const uint32_t *)pa];
    const devtools_class *b = &dt_sort_r->classes[*(const uint32_t *)pb];
    if (a->retained != b->retained)
        return a->retained > b->retained ? -1 : 1;
    const graph *g = dt_sort_g;
    int c = strcmp(graph_str(g, g->classes[a->cls].name), graph_str(g, g->classes[b->cls].name));
    if (c)
        return c;
    c = strcmp(graph_str(g, a->key), graph_str(g, b->key));
    return c ? c : (a->cls < b->cls ? -1 : a->cls > b->cls);
}

lr_status top_dt_build(const graph *g, const devtools_result *r, const top_opts *o,
                       top_result *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    out->g = g;
    out->model = TOP_MODEL_DEVTOOLS;
    out->by_class = o->by_class;
    out->reachable_objects = g->n_nodes - r->n_unreachable;
    out->reachable_bytes = r->total;
    out->heap_total = r->total;
    out->retained = r->retained;
    out->distance = r->distance;
    out->dt = r;
    uint64_t top = o->limit;
    uint32_t cap = o->by_class ? r->n_classes
                               : (top && top < g->n_nodes ? (uint32_t)top : g->n_nodes);
    out->sel = err_mallocarray(cap ? cap : 1, sizeof *out->sel);
    if (!out->sel)
        return LR_FAIL(err, LR_ERR_NOMEM, "top: out of memory for %u rows", cap);
    if (!o->by_class) {
        sel_ctx s = {g, r->retained, NULL, NULL, r->root, o->keep, o->keep_none, o->detached,
                     SEL_DEVTOOLS};
        out->n = select_k(&s, out->sel, cap);
        return LR_OK;
    }
    uint8_t *cls_det = NULL;
    if (o->detached) {
        /* Detached DOM nodes are all renamed "Detached ...": a class is detached as a whole. */
        if (!(cls_det = err_calloc(g->n_classes ? g->n_classes : 1, 1))) {
            top_free(out);
            return LR_FAIL(err, LR_ERR_NOMEM, "top: out of memory");
        }
        for (node_ix x = 0; x < g->n_nodes; x++)
            if (graph_node_dom(g, x) == GRAPH_DOM_DETACHED && graph_node_class(g, x) < g->n_classes)
                cls_det[graph_node_class(g, x)] = 1;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_classes; i++)
        if (!r->classes[i].shadowed && (!cls_det || cls_det[r->classes[i].cls]) &&
            (!o->keep || o->keep[r->classes[i].cls]))
            out->sel[n++] = i;
    free(cls_det);
    dt_sort_r = r;
    dt_sort_g = g;
    qsort(out->sel, n, sizeof *out->sel, cmp_dt_class);
    if (top && top < n)
        n = (uint32_t)top;
    out->n = n;
    return LR_OK;
}

/* ---- rows ---- */

/* Name of the class that class object x describes, or NULL when x is no class object. */
static const char *describes(const top_result *r, node_ix x)
{
    const top_cnode *cn = r->cnodes;
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, r->n_cnodes, cn[search_mid].node < x, lo);
    const graph *g = r->g;
    return lo < r->n_cnodes && cn[lo].node == x ? graph_str(g, g->classes[cn[lo].cls].name)
                                                 : NULL;
}

void top_row_get(const top_result *r, uint32_t i, top_row *row)
{
    const graph *g = r->g;
    memset(row, 0, sizeof *row);
    row->node = GRAPH_NONE;
    if (r->by_class && r->dt) {
        const devtools_class *c = &r->dt->classes[r->sel[i]];
        row->name = graph_str(g, g->classes[c->cls].name);
        row->key = graph_str(g, c->key);
        row->count = c->count;
        row->shallow = c->self;
        row->retained = c->retained;
        row->distance = c->distance;
        return;
    }
    if (r->by_class) {
        const top_class *c = &r->classes[i];
        row->name = c->name;
        row->count = c->count;
        row->shallow = c->shallow;
        row->retained = c->retained;
        return;
    }
    node_ix x = r->sel[i];
    const char *s = graph_class_name(g, x);
    row->node = x;
    row->name = s && s[0] ? s : TOP_NO_CLASS_NAME;
    row->shallow = graph_node_size(g, x);
    row->retained = r->retained ? r->retained[x] : r->retained32[x];
    if (r->dt) {
        row->distance = r->distance[x];
        return;
    }
    row->describes = describes(r, x);
    row->native = g->node_native ? g->node_native[x] : 0;
    if (r->site_of)
        row->has_site = r->site_of(g, x, &row->site);
}

void top_free(top_result *r)
{
    if (!r)
        return;
    free(r->sel);
    free(r->classes);
    free(r->cnodes);
    memset(r, 0, sizeof *r);
}
