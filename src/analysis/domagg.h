/* SPDX-License-Identifier: Apache-2.0 */
/* domagg.h: bounded views of the dominator tree for people (analysis layer), prefix domagg_.
 * A heap of millions of objects has a dominator tree of millions of nodes; a page or a table
 * shows a few thousand. domagg_objects keeps the biggest subtrees (best-first by retained
 * size, at most `k` children per node, the rest folded into one "other" node carrying their
 * sum), domagg_classes does the same with siblings grouped by class (MAT's "group by class"
 * of the dominator tree), and domagg_top picks the biggest objects. Inputs are plain arrays
 * (idom + retained) so the exact tree (dominators.h) and DevTools' (devtools.h) both fit.
 * Every result is bounded by the caller's budget, whatever the heap holds. */
#ifndef LR_ANALYSIS_DOMAGG_H
#define LR_ANALYSIS_DOMAGG_H

#include "graph/graph.h"

#define DOMAGG_NO_PARENT UINT32_MAX /* parent of the view's root */

/* The dominator tree the views read. */
typedef struct domagg_input {
    const node_ix *idom;       /* n_nodes entries: immediate dominator, `top_mark` for the
                                * tree's first level, GRAPH_NONE (or itself) if outside it */
    const uint64_t *retained;  /* n_nodes entries: retained bytes */
    node_ix top_mark;          /* idom value of first-level nodes (DOM_SUPER_ROOT, or V8's
                                * synthetic root) */
    uint64_t total;            /* bytes of the whole tree (100 %) */
} domagg_input;

/* Children lists of the dominator tree (CSR): children of x are kids[first[x]..first[x+1]),
 * the first level is slot n_nodes. */
typedef struct domagg_kids {
    uint32_t n;       /* = n_nodes */
    uint32_t *first;  /* n + 2 entries */
    node_ix *kids;    /* one per node in the tree */
} domagg_kids;

/* One node of a bounded view. */
typedef struct domagg_node {
    uint32_t parent;   /* index into the view's nodes; DOMAGG_NO_PARENT for the root */
    node_ix node;      /* the object (objects view), a sample member (classes view), or
                        * GRAPH_NONE for the root and "other" nodes */
    class_ix cls;      /* the class (classes view), GRAPH_NONE otherwise */
    uint32_t count;    /* objects it stands for */
    uint64_t retained; /* bytes retained by them together */
    uint8_t other;     /* nonzero: the folded remainder of its siblings */
    uint8_t expanded;  /* nonzero: its children are in the view */
} domagg_node;

typedef struct domagg_view {
    domagg_node *v;    /* v[0] is the root (the whole tree); parents precede children */
    uint32_t n;        /* nodes */
    uint64_t total;    /* = input total */
} domagg_view;

/* Bounds of a view. */
typedef struct domagg_opts {
    uint32_t max_nodes;    /* nodes in the view (>= 2) */
    uint32_t k;            /* children kept per node; the rest become one "other" */
    uint32_t max_depth;    /* levels below the root */
    double min_share;      /* children below this share of the total are folded */
} domagg_opts;

/* Builds the children lists. O(N), 4 bytes per node plus 4 per tree node. Returns LR_OK or
 * LR_ERR_NOMEM (free: domagg_kids_free). */
lr_status domagg_kids_build(const graph *g, const domagg_input *in, domagg_kids *k,
                            lr_error *err);
void domagg_kids_free(domagg_kids *k);

/* The objects view: best-first expansion of the biggest retained subtrees. O(N log k) worst
 * case, memory O(max_nodes). Returns LR_OK or LR_ERR_NOMEM (free: domagg_view_free). */
lr_status domagg_objects(const graph *g, const domagg_input *in, const domagg_kids *k,
                         const domagg_opts *o, domagg_view *out, lr_error *err);

/* The classes view: the children of a group are all dominator children of its members,
 * grouped by class. Each object is in at most one group, so O(N) time and 4 bytes per node
 * of member lists at most. Returns LR_OK or LR_ERR_NOMEM. */
lr_status domagg_classes(const graph *g, const domagg_input *in, const domagg_kids *k,
                         const domagg_opts *o, domagg_view *out, lr_error *err);

void domagg_view_free(domagg_view *v);

/* The n biggest objects by retained size (ties: smaller node index first), descending, into
 * out (caller array of n). Returns how many were found (objects with retained > 0). O(N log n). */
uint32_t domagg_top(const graph *g, const uint64_t *retained, uint32_t n, node_ix *out);

#endif
