/* SPDX-License-Identifier: Apache-2.0 */
/* mergepaths.c: merged shortest paths from GC roots (analysis layer), prefix mpath_. Walks
 * each target's path up with the caller's step function until it meets a node already in
 * the tree (so shared prefixes are walked once), then sums counts and retained sizes
 * children-first in reverse breadth-first order, and orders each node's children by one sort
 * of the whole tree. No recursion: paths can be millions of nodes long. mergepaths.h. */
#include "analysis/mergepaths.h"

#include <stdlib.h>
#include <string.h>

static lr_status mpath_push(mpath_tree *t, uint32_t *cap, node_ix x, lr_error *err)
{
    if (t->n == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 256;
        mpath_node *v = err_reallocarray(t->nodes, ncap, sizeof *v);
        if (!v)
            return LR_FAIL(err, LR_ERR_NOMEM, "merged paths: out of memory for %u nodes", ncap);
        t->nodes = v;
        *cap = ncap;
    }
    mpath_node *m = &t->nodes[t->n++];
    memset(m, 0, sizeof *m);
    m->node = x;
    m->parent = MPATH_NONE;
    m->edge = GRAPH_NONE;
    m->first_child = m->next_sibling = MPATH_NONE;
    return LR_OK;
}

/* Sort context (qsort has none; one sort a thread). */
static _Thread_local const mpath_node *mpath_v;

static int mpath_cmp(const void *pa, const void *pb)
{
    const mpath_node *a = &mpath_v[*(const uint32_t *)pa], *b = &mpath_v[*(const uint32_t *)pb];
    if (a->parent != b->parent)
        return a->parent < b->parent ? -1 : 1; /* MPATH_NONE (tops) last */
    if (a->retained != b->retained)
        return a->retained > b->retained ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    /* node index, not id: ids may be read back from the dump, too slow for every tie */
    return a->node < b->node ? -1 : a->node > b->node;
}

static int mpath_cmp_edge(const void *pa, const void *pb)
{
    edge_ix a = mpath_v[*(const uint32_t *)pa].edge, b = mpath_v[*(const uint32_t *)pb].edge;
    return a < b ? -1 : a > b;
}

lr_status mpath_name_children(const graph *g, mpath_tree *t, uint32_t ix, uint64_t limit,
                              lr_error *err)
{
    if (ix == MPATH_NONE) /* the tops: where paths start, no edge into them */
        return LR_OK;
    uint32_t k = 0;
    for (uint32_t c = t->nodes[ix].first_child; c != MPATH_NONE && (!limit || k < limit);
         c = t->nodes[c].next_sibling)
        k++;
    if (k == 0)
        return LR_OK;
    uint32_t *v = err_mallocarray(k, sizeof *v);
    if (!v)
        return LR_FAIL(err, LR_ERR_NOMEM, "merged paths: out of memory for %u names", k);
    k = 0;
    for (uint32_t c = t->nodes[ix].first_child; c != MPATH_NONE && (!limit || k < limit);
         c = t->nodes[c].next_sibling)
        v[k++] = c;
    /* By edge index, the parent's edges ascending: the order in which HPROF's derived names
     * resume their walk of the parent's slots instead of starting it again (in child order,
     * an array of N referenced elements cost O(N^2) slot reads). */
    mpath_v = t->nodes;
    qsort(v, k, sizeof *v, mpath_cmp_edge);
    node_ix from = t->nodes[ix].node;
    for (uint32_t j = 0; j < k; j++) /* a class hop (paths.h) is no edge: it has no name */
        t->nodes[v[j]].edge_name = t->nodes[v[j]].edge < g->n_edges
                                       ? graph_edge_name_from(g, from, t->nodes[v[j]].edge)
                                       : GRAPH_NONE;
    free(v);
    return LR_OK;
}

lr_status mpath_build(const graph *g, const node_ix *targets, const uint64_t *retained,
                      uint32_t n, mpath_step_fn step, mpath_dominates_fn dominates, void *ctx,
                      mpath_tree *t, lr_error *err)
{
    memset(t, 0, sizeof *t);
    t->first_top = MPATH_NONE;
    uint32_t *tix = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *tix);
    uint32_t *order = NULL;
    uint32_t cap = 0;
    lr_status st = LR_OK;
    if (!tix) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "merged paths: out of memory for %u nodes", g->n_nodes);
        goto fail;
    }
    memset(tix, 0xff, (size_t)g->n_nodes * sizeof *tix); /* MPATH_NONE */

    /* ---- union of the paths ---- */
    for (uint32_t i = 0; i < n; i++) {
        node_ix x = targets[i];
        node_ix p;
        edge_ix e;
        uint64_t ret = retained ? retained[i] : 0;
        if (tix[x] == MPATH_NONE && step(ctx, x, &p, &e) < 0) {
            t->n_unreached++;
            t->unreached_retained += ret;
            continue;
        }
        uint32_t walk_start = t->n, prev = MPATH_NONE;
        node_ix y = x;
        while (tix[y] == MPATH_NONE) {
            if ((st = mpath_push(t, &cap, y, err)) != LR_OK)
                goto fail;
            uint32_t me = t->n - 1;
            tix[y] = me;
            if (prev != MPATH_NONE)
                t->nodes[prev].parent = me;
            prev = me;
            int r = step(ctx, y, &p, &e);
            if (r <= 0)
                break; /* a top (r < 0 cannot happen past the target: its parent is reached) */
            t->nodes[me].edge = e;
            y = p;
        }
        if (tix[y] != prev) {
            /* met an existing node: link the new part under it, unless it is our own walk */
            if (tix[y] >= walk_start) {
                st = LR_FAIL(err, LR_ERR_INTERNAL, "merged paths: the path of node %u loops", x);
                goto fail;
            }
            if (prev != MPATH_NONE)
                t->nodes[prev].parent = tix[y];
        }
        mpath_node *m = &t->nodes[tix[x]];
        m->is_target = 1;
        m->count++;
        m->retained += ret;
        t->n_reached++;
    }

    /* ---- sums, children first: reverse breadth-first order from the tops ---- */
    order = err_mallocarray(t->n ? t->n : 1, sizeof *order);
    if (!order) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "merged paths: out of memory for %u nodes", t->n);
        goto fail;
    }
    /* Children lists in any order for now: the sums decide the final order below. */
    for (uint32_t i = 0; i < t->n; i++) {
        mpath_node *m = &t->nodes[i];
        uint32_t *head = m->parent == MPATH_NONE ? &t->first_top
                                                 : &t->nodes[m->parent].first_child;
        m->next_sibling = *head;
        *head = i;
    }
    /* Breadth-first order into `order`, then sums in reverse. */
    uint32_t k = 0;
    for (uint32_t c = t->first_top; c != MPATH_NONE; c = t->nodes[c].next_sibling)
        order[k++] = c;
    for (uint32_t h = 0; h < k; h++)
        for (uint32_t c = t->nodes[order[h]].first_child; c != MPATH_NONE;
             c = t->nodes[c].next_sibling)
            order[k++] = c;
    if (k != t->n) {
        st = LR_FAIL(err, LR_ERR_INTERNAL, "merged paths: %u of %u nodes linked", k, t->n);
        goto fail;
    }
    /* A target's own retained size holds the targets below it that it dominates (a chain
     * of list nodes: adding them again would count the same bytes once per level); those it
     * does not dominate (the nodes of a chain that locals hold too) add their own. Without
     * a dominance test, the target's size stands for its subtree. Counts add up
     * everywhere. */
    uint64_t *sub = err_calloc(t->n ? t->n : 1, sizeof *sub);
    if (!sub) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "merged paths: out of memory for %u nodes", t->n);
        goto fail;
    }
    for (uint32_t h = k; h-- > 0;) {
        uint32_t i = order[h];
        mpath_node *m = &t->nodes[i];
        if (!m->is_target)
            m->retained = sub[i];
        else
            m->retained += sub[i];
        if (m->parent != MPATH_NONE) {
            mpath_node *pm = &t->nodes[m->parent];
            pm->count += m->count;
            if (!pm->is_target || (dominates && !dominates(ctx, pm->node, m->node)))
                sub[m->parent] += m->retained;
        }
    }
    free(sub);
    /* ---- final child order: by the summed sizes ---- */
    for (uint32_t i = 0; i < t->n; i++) {
        order[i] = i;
        t->nodes[i].first_child = t->nodes[i].next_sibling = MPATH_NONE;
    }
    t->first_top = MPATH_NONE;
    mpath_v = t->nodes;
    qsort(order, t->n, sizeof *order, mpath_cmp);
    for (uint32_t i = t->n; i-- > 0;) {
        mpath_node *m = &t->nodes[order[i]];
        uint32_t *head = m->parent == MPATH_NONE ? &t->first_top
                                                 : &t->nodes[m->parent].first_child;
        m->next_sibling = *head;
        *head = order[i];
    }
    free(order);
    free(tix);
    return LR_OK;
fail:
    free(order);
    free(tix);
    mpath_free(t);
    return st;
}

void mpath_free(mpath_tree *t)
{
    free(t->nodes);
    memset(t, 0, sizeof *t);
}
