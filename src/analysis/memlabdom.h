/* SPDX-License-Identifier: Apache-2.0 */
/* memlabdom.h: memlab's own dominator tree and retained sizes of a V8-style snapshot
 * (analysis layer), prefix mldom_. memlab 2.0.5 (TraceFinder.computeDominatorsAndRetainedSizes)
 * runs Lengauer-Tarjan like DevTools but over other edges, so its dominators differ from
 * DevTools' (src/analysis/devtools.c) on real Node heaps: its "page-owned" nodes are those
 * reachable from the root over anything but shortcut edges and the "(Document DOM trees)"
 * element (DevTools: from the root's shortcut targets and that element), an edge from a node
 * not page-owned into a page-owned one does not count, nor weak edges, self edges and
 * shortcuts (but the root's); WeakMap table->value edges do count. Nodes the root's DFS
 * misses are taken, in node order, first those whose every referrer is weak or a shortcut
 * (a DFS from each), then the rest one by one under the root, and a node with no counted
 * referrer is semidominated by the root. memlab's analyses (`analyze string` among them) read
 * dominators and retained sizes from this tree. Retained sizes sum graph_node_size. */
#ifndef LR_ANALYSIS_MEMLABDOM_H
#define LR_ANALYSIS_MEMLABDOM_H

#include "graph/graph.h"

typedef struct mldom_tree {
    uint32_t n;         /* = g->n_nodes */
    node_ix root;       /* g->synthetic_root */
    node_ix *idom;      /* immediate dominator; the root's is itself */
    uint64_t *retained; /* retained bytes */
} mldom_tree;

/* Builds memlab's tree. O((N + E) log N) time; memory at once about 40 bytes per node plus
 * 4 per counted edge. Returns LR_OK and fills *t (free: mldom_free), LR_ERR_USAGE when g has
 * no synthetic root, or LR_ERR_NOMEM. */
lr_status mldom_build(const graph *g, mldom_tree *t, lr_error *err);

/* Frees what mldom_build allocated and zeroes *t. Accepts a zeroed tree. */
void mldom_free(mldom_tree *t);

#endif
