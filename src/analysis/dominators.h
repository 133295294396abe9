/* SPDX-License-Identifier: Apache-2.0 */
/* dominators.h: exact dominator tree and retained sizes (analysis layer), prefix dom_.
 * Iterative Lengauer-Tarjan (or semi-NCA) from a virtual super-root whose children are the
 * GC roots (HPROF) or the synthetic root (V8), over strong edges only: weak/soft/phantom/
 * finalizer edges are skipped (caller may pass a filter). Unreachable nodes get no dominator
 * and retained size 0. Retained = shallow + native, summed over the dominator subtree. */
#ifndef LR_ANALYSIS_DOMINATORS_H
#define LR_ANALYSIS_DOMINATORS_H

#include "graph/graph.h"

#define DOM_SUPER_ROOT (UINT32_MAX - 1) /* idom of nodes directly under the super-root */

/* Which edges count for dominators: nonzero to follow edge e. NULL = all strong edges. */
typedef int (*dom_edge_filter)(const graph *g, edge_ix e, void *ctx);

typedef struct dom_tree {
    uint32_t n;          /* = g->n_nodes */
    node_ix *idom;       /* immediate dominator; DOM_SUPER_ROOT; GRAPH_NONE if unreachable */
    uint64_t *retained;  /* retained bytes per node (0 if unreachable) */
    uint64_t total_reachable; /* sum of shallow (+native) over reachable nodes */
    uint32_t n_reachable;     /* reachable nodes */
} dom_tree;

/* Computes the dominator tree and retained sizes. O((N+E) log N) worst case, iterative.
 * Returns LR_OK and fills *t (free: dom_free), or LR_ERR_NOMEM. */
lr_status dom_build(const graph *g, dom_edge_filter filter, void *ctx, dom_tree *t,
                    lr_error *err);
/* Frees what dom_build allocated and zeroes *t. Accepts a zeroed tree. */
void dom_free(dom_tree *t);

/* Per-class retained size without double counting: an instance counts only if no
 * dominator ancestor has the same class (DevTools' class retained size). retained and count
 * are caller arrays of g->n_classes entries; count[c] = reachable instances of class c.
 * O(N) time, three uint32 arrays of N scratch. Returns LR_OK or LR_ERR_NOMEM/LR_ERR_LIMIT. */
lr_status dom_class_retained(const graph *g, const dom_tree *t, uint64_t *retained,
                             uint32_t *count, lr_error *err);

#endif
