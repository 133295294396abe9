/* SPDX-License-Identifier: Apache-2.0 */
/* trace_groups.c: exact group sizes (analysis layer), prefix trace_. What a group's leaking
 * objects retain together, never double counted: what they reach minus what stays alive
 * without them, in the view the dominator tree was built with (trace_together). Cost: one
 * traversal from the group plus one scan of the edges per group, O(N+E); with what every
 * group of one analysis shares built once (trace_tog_base_build, one traversal from the
 * roots), a group costs what its objects reach (trace_together_base). trace_finish sizes
 * this way only the groups the dominator tree cannot answer, up to a fixed number. */
#include "analysis/trace_internal.h"
#include "base/err.h"
#include "base/search.h"

#include <stdlib.h>
#include <string.h>

#define TOG_AHEAD 32 /* references between a target bit's fetch and its test */

static inline int bit_get(const uint8_t *m, node_ix x)
{
    return m[x / 8] >> (x % 8) & 1;
}

static inline void bit_set(uint8_t *m, node_ix x)
{
    m[x / 8] |= (uint8_t)(1u << (x % 8));
}

/* Bytes and objects the reachable nodes marked in `stop` (S) retain together: what the roots
 * no longer reach once S is gone. Only nodes S reaches (R, S included) can be lost, and a
 * reachable node outside R never is (a path to it through S would put it in R). So: R by a
 * traversal from S; then the nodes of R \ S kept alive are those rooted, or referenced
 * from a reachable node outside R, and what they reach inside R \ S; the rest of R is
 * retained. The outside references are found by one scan of the edges that only tests a
 * bit per target (the rules are asked only about references into R \ S), which costs far
 * less than a traversal from the roots. Same answer as
 * "total reachable minus a traversal from the roots that never enters S". inr and live are
 * bitmaps of N bits; queue has N entries (it holds R, then the live part of R \ S). */
/* The reachability and weights the dominator tree was built with (NULL: strong references
 * the rules follow, every root, shallow + native sizes), so group totals agree with it. */
static int tog_follow(const graph *g, const rules_set *rs, const dom_opts *o, node_ix x,
                      edge_ix e)
{
    if (o && o->reach) {
        /* the reach filter's answers as data where it has them: the filter itself finds
         * the edge's source by a search, edge after edge out of CSR order here */
        int a = o->reach_table ? dom_reach_table_answer(g, o->reach_table, x, e) : -1;
        return a >= 0 ? a : o->reach(g, e, o->reach_ctx);
    }
    return GRAPH_EDGE_STRENGTH(g->edge_kind[e]) == GRAPH_STRONG && follow(rs, x, e);
}

static uint64_t tog_weight(const graph *g, const dom_opts *o, node_ix x)
{
    if (o && o->weight)
        return o->weight(g, x, o->weight_ctx);
    return graph_node_size(g, x) + (g->node_native ? g->node_native[x] : 0);
}

/* Extra references out of x (dom_opts.extra_*, sorted by source): [*lo, *hi). */
static void tog_extras(const dom_opts *o, node_ix x, uint32_t *lo, uint32_t *hi)
{
    uint32_t a;
    SEARCH_LOWER_BOUND(uint32_t, 0, o ? o->n_extra : 0, o->extra_from[search_mid] < x, a);
    *lo = a;
    while (o && a < o->n_extra && o->extra_from[a] == x)
        a++;
    *hi = a;
}

/* Targets of x's references in the tree's view: graph edges it follows, extras, its class. Calls
 * visit(y) for each; a macro-free loop through a small callback keeps the three walks of
 * together() identical. */
typedef struct tog_ctx {
    const graph *g;
    const rules_set *rs;
    const dom_opts *o;
    int hops;        /* an object refers to its class object, as in the tree (dominators.h) */
    uint8_t *loaded; /* per class: TOG_UNKNOWN, TOG_LOADER, TOG_BOOT; NULL: asked each time */
    node_ix *hop;    /* per class: its answer below once known, else TOG_HOP_UNKNOWN; NULL:
                      * worked out each time (the scan asks once per node of the heap) */
} tog_ctx;

#define TOG_HOP_UNKNOWN (GRAPH_NONE - 1) /* no node index: graphs hold fewer nodes */

enum { TOG_UNKNOWN, TOG_LOADER, TOG_BOOT };

/* x's class object when the tree's view has that reference, else GRAPH_NONE. As in the tree,
 * the boot loader's classes (no loader) are never a hop's target: they are never unloaded, so
 * no object keeps them, and a group holding their instances does not retain their statics.
 * (The tree also skips classes that are roots; a rooted class is live here anyway, so the
 * hop into it changes no sum.) */
static node_ix class_hop(tog_ctx *c, class_ix k)
{
    const graph *g = c->g;
    node_ix y = g->classes[k].node;
    if (y >= g->n_nodes || g->node_kind[y] != GRAPH_KIND_CLASS)
        return GRAPH_NONE;
    uint8_t l = c->loaded ? c->loaded[k] : TOG_UNKNOWN;
    if (l == TOG_UNKNOWN) {
        l = paths_class_has_loader(g, y) ? TOG_LOADER : TOG_BOOT;
        if (c->loaded)
            c->loaded[k] = l;
    }
    return l == TOG_LOADER ? y : GRAPH_NONE;
}

static inline node_ix tog_class(tog_ctx *c, node_ix x)
{
    const graph *g = c->g;
    class_ix k = c->hops ? graph_node_class(g, x) : GRAPH_NONE;
    if (k >= g->n_classes)
        return GRAPH_NONE;
    if (!c->hop)
        return class_hop(c, k);
    if (c->hop[k] == TOG_HOP_UNKNOWN)
        c->hop[k] = class_hop(c, k);
    return c->hop[k];
}

/* Class object x's hop to its loader, as the tree takes it (DOM_LOADER_HOPS: a class keeps
 * its loader when the view does not follow the <classloader> edge itself), else GRAPH_NONE. */
static node_ix tog_loader(const tog_ctx *c, node_ix x)
{
    const graph *g = c->g;
    if (!c->hops || !c->o || !(c->o->flags & DOM_LOADER_HOPS) ||
        g->node_kind[x] != GRAPH_KIND_CLASS || graph_node_class(g, x) != GRAPH_NONE)
        return GRAPH_NONE;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_INTERNAL ||
            g->edge_to[e] >= g->n_nodes ||
            strcmp(graph_str(g, graph_edge_name_from(g, x, e)), "<classloader>"))
            continue;
        return tog_follow(g, c->rs, c->o, x, e) ? GRAPH_NONE : g->edge_to[e];
    }
    return GRAPH_NONE;
}

static uint32_t tog_next(tog_ctx *c, node_ix x, uint32_t *cur, node_ix *y)
{
    const graph *g = c->g;
    edge_ix e0 = g->first_edge[x], e1 = g->first_edge[x + 1];
    for (; e0 + *cur < e1; (*cur)++) {
        edge_ix e = e0 + *cur;
        if (g->edge_to[e] < g->n_nodes && tog_follow(g, c->rs, c->o, x, e)) {
            *y = g->edge_to[e];
            (*cur)++;
            return 1;
        }
    }
    uint32_t lo, hi;
    tog_extras(c->o, x, &lo, &hi);
    uint32_t k = *cur - (e1 - e0);
    if (lo + k < hi) {
        *y = c->o->extra_to[lo + k];
        (*cur)++;
        return *y < g->n_nodes;
    }
    if (lo + k == hi) { /* then its class */
        (*cur)++;
        if ((*y = tog_class(c, x)) != GRAPH_NONE)
            return 1;
        k++;
    }
    if (lo + k == hi + 1) { /* then, a class object, its loader */
        *cur = (e1 - e0) + (hi - lo) + 2;
        return (*y = tog_loader(c, x)) != GRAPH_NONE;
    }
    return 0;
}

static void tog_ctx_init(tog_ctx *tc, const graph *g, const rules_set *rs, const dom_opts *o)
{
    *tc = (tog_ctx){g, rs, o,
                    !(o && (o->flags & DOM_NO_CLASS_HOPS)) && g->format &&
                        !strcmp(g->format, "hprof"),
                    NULL, NULL};
    /* a byte and an answer per class, filled as classes are met; without them each hop
     * reads its class's edges again (same answer, slower) */
    if (tc->hops) {
        tc->loaded = err_calloc(g->n_classes ? g->n_classes : 1, 1);
        tc->hop = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *tc->hop);
        for (class_ix k = 0; tc->hop && k < g->n_classes; k++)
            tc->hop[k] = TOG_HOP_UNKNOWN;
    }
}

static void tog_ctx_free(tog_ctx *tc)
{
    free(tc->loaded);
    free(tc->hop);
}

/* Whether root entry r (g->n_roots: the synthetic root) counts in the tree's view. */
static int tog_root_counts(const graph *g, const dom_opts *o, uint32_t r)
{
    return !(o && o->root && r < g->n_roots && !o->root(g, r, o->root_ctx));
}

static inline int tog_reached(const dom_tree *dt, node_ix x)
{
    return x < dt->n && dt->idom[x] != GRAPH_NONE;
}

/* What the seeds queue[0 .. qt) keep alive inside R \ S (inr set, stop clear): marked in
 * live and queued after them. Returns the queue's new length. */
static uint32_t tog_spread(tog_ctx *tc, const uint8_t *stop, const uint8_t *inr, uint8_t *live,
                           uint32_t *queue, uint32_t qt)
{
    for (uint32_t qh = 0; qh < qt; qh++) {
        node_ix x = queue[qh], y;
        for (uint32_t cur = 0; tog_next(tc, x, &cur, &y);) {
            if (!bit_get(inr, y) || bit_get(stop, y) || bit_get(live, y))
                continue;
            bit_set(live, y);
            queue[qt++] = y;
        }
    }
    return qt;
}

void trace_tog_base_free(trace_tog_base *b)
{
    free(b->live0);
    free(b->held0);
    free(b->behind);
    memset(b, 0, sizeof *b);
}

/* Every group's leaking objects together (A = all): live0, what the roots reach without
 * entering A, is alive whichever group's objects are taken away (taking fewer away only adds
 * ways in). So a group S loses only nodes it reaches without passing a live0 node: on a path
 * from S whose last live0 node is w, what follows w is reached from w, alive, unless it
 * passes S again, and then it is reached from S that way too. And every reachable node
 * outside live0 that S does not reach so is alive for S: a way in from a root passes S last
 * before a live0 node, or not at all. */
lr_status trace_tog_base_build(const graph *g, const rules_set *rs, const dom_opts *o,
                               const dom_tree *dt, const uint8_t *all, uint32_t *queue,
                               trace_tog_base *b, lr_error *err)
{
    memset(b, 0, sizeof *b);
    uint32_t n = g->n_nodes, qt = 0;
    b->live0 = err_calloc(n / 8 + 1, 1);
    b->held0 = err_calloc(n / 8 + 1, 1);
    if (!b->live0 || !b->held0) {
        trace_tog_base_free(b);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory sizing leak groups");
    }
    tog_ctx tc;
    tog_ctx_init(&tc, g, rs, o);
    for (uint32_t r = 0; r <= g->n_roots; r++) {
        node_ix x = r < g->n_roots ? g->roots[r].node : g->synthetic_root;
        if (x >= n || !tog_reached(dt, x) || !tog_root_counts(g, o, r))
            continue;
        if (bit_get(all, x)) {
            bit_set(b->held0, x);
        } else if (!bit_get(b->live0, x)) {
            bit_set(b->live0, x);
            queue[qt++] = x;
        }
    }
    for (uint32_t qh = 0; qh < qt; qh++) {
        node_ix x = queue[qh], y;
        for (uint32_t cur = 0; tog_next(&tc, x, &cur, &y);) {
            if (bit_get(all, y)) {
                bit_set(b->held0, y);
            } else if (!bit_get(b->live0, y)) {
                bit_set(b->live0, y);
                queue[qt++] = y;
            }
        }
    }
    tog_ctx_free(&tc);
    uint32_t nb = 0;
    for (node_ix x = 0; x < n; x++)
        nb += tog_reached(dt, x) && !bit_get(b->live0, x);
    b->behind = err_mallocarray(nb ? nb : 1, sizeof *b->behind);
    if (!b->behind) {
        trace_tog_base_free(b);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory sizing leak groups");
    }
    for (node_ix x = 0; x < n; x++)
        if (tog_reached(dt, x) && !bit_get(b->live0, x))
            b->behind[b->n_behind++] = x;
    return LR_OK;
}

void trace_together_base(const graph *g, const rules_set *rs, const dom_opts *o,
                         const dom_tree *dt, const trace_tog_base *b, const uint8_t *stop,
                         uint8_t *inr, uint8_t *live, uint32_t *queue, uint64_t *bytes,
                         uint64_t *count)
{
    if (!b->live0) {
        trace_together(g, rs, o, dt, stop, inr, live, queue, bytes, count);
        return;
    }
    tog_ctx tc;
    tog_ctx_init(&tc, g, rs, o);
    uint32_t n = g->n_nodes, qt = 0;
    /* R: what S reaches short of live0 (S included); inr and live are cleared after, over
     * what was set, so a group costs what it reaches */
    for (uint32_t i = 0; i < b->n_behind; i++) {
        node_ix x = b->behind[i];
        if (bit_get(stop, x) && !bit_get(inr, x)) {
            bit_set(inr, x);
            queue[qt++] = x;
        }
    }
    for (uint32_t qh = 0; qh < qt; qh++) {
        node_ix x = queue[qh], y;
        for (uint32_t cur = 0; tog_next(&tc, x, &cur, &y);) {
            if (bit_get(inr, y) || bit_get(b->live0, y))
                continue;
            bit_set(inr, y);
            queue[qt++] = y;
        }
    }
    uint32_t nr = qt;
    uint64_t rb = 0;
    for (uint32_t i = 0; i < nr; i++)
        rb += tog_weight(g, o, queue[i]);
    /* Live seeds in R \ S: the leaking objects of other groups a live0 node or a root holds,
     * and what the reachable nodes behind the leaking objects but outside R refer to. R is
     * behind them all (no live0 node in it), so the behind list stands for it from here and
     * the queue starts over. */
    qt = 0;
    for (uint32_t i = 0; i < b->n_behind; i++) {
        node_ix x = b->behind[i];
        if (bit_get(inr, x) && bit_get(b->held0, x) && !bit_get(stop, x) &&
            !bit_get(live, x)) {
            bit_set(live, x);
            queue[qt++] = x;
        }
    }
    for (uint32_t i = 0; i < b->n_behind; i++) {
        node_ix x = b->behind[i], y;
        if (bit_get(inr, x))
            continue;
        for (uint32_t cur = 0; tog_next(&tc, x, &cur, &y);) {
            if (y >= n || !bit_get(inr, y) || bit_get(stop, y) || bit_get(live, y))
                continue;
            bit_set(live, y);
            queue[qt++] = y;
        }
    }
    qt = tog_spread(&tc, stop, inr, live, queue, qt);
    uint64_t lb = 0;
    for (uint32_t i = 0; i < qt; i++)
        lb += tog_weight(g, o, queue[i]);
    *bytes = rb - lb;
    *count = (uint64_t)nr - qt;
    for (uint32_t i = 0; i < b->n_behind; i++) { /* R and its live part are behind */
        inr[b->behind[i] / 8] = 0;
        live[b->behind[i] / 8] = 0;
    }
    tog_ctx_free(&tc);
}

void trace_together(const graph *g, const rules_set *rs, const dom_opts *o, const dom_tree *dt,
                     const uint8_t *stop, uint8_t *inr, uint8_t *live, uint32_t *queue,
                     uint64_t *bytes, uint64_t *count)
{
    tog_ctx tc;
    tog_ctx_init(&tc, g, rs, o);
    uint32_t n = g->n_nodes, qt = 0;
    memset(inr, 0, n / 8 + 1);
    memset(live, 0, n / 8 + 1);
    /* R: everything S reaches (S itself included), over the followed edges */
    for (node_ix x = 0; x < n; x++)
        if (bit_get(stop, x) && x < dt->n && dt->idom[x] != GRAPH_NONE) {
            bit_set(inr, x);
            queue[qt++] = x;
        }
    for (uint32_t qh = 0; qh < qt; qh++) {
        node_ix x = queue[qh], y;
        for (uint32_t cur = 0; tog_next(&tc, x, &cur, &y);) {
            if (bit_get(inr, y))
                continue;
            bit_set(inr, y);
            queue[qt++] = y;
        }
    }
    uint64_t rb = 0, rc = qt;
    for (uint32_t i = 0; i < qt; i++)
        rb += tog_weight(g, o, queue[i]);
    /* seeds: rooted nodes of R \ S, and targets of references from reachable nodes
     * outside R; then what they keep alive inside R \ S. The queue starts over: R is
     * still marked in inr. */
    qt = 0;
    for (uint32_t r = 0; r <= g->n_roots; r++) {
        node_ix x = r < g->n_roots ? g->roots[r].node : g->synthetic_root;
        if (x >= n || !bit_get(inr, x) || bit_get(stop, x) || bit_get(live, x))
            continue;
        if (o && o->root && r < g->n_roots && !o->root(g, r, o->root_ctx))
            continue;
        bit_set(live, x);
        queue[qt++] = x;
    }
    /* The scan reads every reference of the heap: the target's bits come first, so the
     * rules (tog_follow) are asked only about the few references into R \ S. Targets are
     * anywhere in the bitmap: the bit of the reference TOG_AHEAD places on is fetched now
     * (edges of consecutive nodes are consecutive), so its miss is not waited for. */
    for (node_ix x = 0; x < n; x++) {
        if (bit_get(inr, x) || x >= dt->n || dt->idom[x] == GRAPH_NONE)
            continue;
        node_ix k = tog_class(&tc, x);
        if (k != GRAPH_NONE && bit_get(inr, k) && !bit_get(stop, k) && !bit_get(live, k)) {
            bit_set(live, k);
            queue[qt++] = k;
        }
        k = tog_loader(&tc, x);
        if (k != GRAPH_NONE && bit_get(inr, k) && !bit_get(stop, k) && !bit_get(live, k)) {
            bit_set(live, k);
            queue[qt++] = k;
        }
        for (edge_ix e = g->first_edge[x], end = g->first_edge[x + 1]; e < end; e++) {
            if (g->n_edges - e > TOG_AHEAD) {
                node_ix z = g->edge_to[e + TOG_AHEAD];
                if (z < n)
                    __builtin_prefetch(&inr[z / 8]);
            }
            node_ix y = g->edge_to[e];
            if (y >= n || !bit_get(inr, y) || bit_get(stop, y) || bit_get(live, y) ||
                !tog_follow(g, rs, o, x, e))
                continue;
            bit_set(live, y);
            queue[qt++] = y;
        }
    }
    for (uint32_t i = 0; o && i < o->n_extra; i++) {
        node_ix x = o->extra_from[i], y = o->extra_to[i];
        if (x >= n || y >= n || bit_get(inr, x) || x >= dt->n || dt->idom[x] == GRAPH_NONE ||
            !bit_get(inr, y) || bit_get(stop, y) || bit_get(live, y))
            continue;
        bit_set(live, y);
        queue[qt++] = y;
    }
    qt = tog_spread(&tc, stop, inr, live, queue, qt);
    for (uint32_t i = 0; i < qt; i++)
        rb -= tog_weight(g, o, queue[i]);
    rc -= qt;
    *bytes = rb;
    *count = rc;
    tog_ctx_free(&tc);
}
