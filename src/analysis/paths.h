/* SPDX-License-Identifier: Apache-2.0 */
/* paths.h: shortest strong reference paths from GC roots to many targets in one traversal
 * (analysis layer), prefix paths_. Breadth-first from all roots with two queues: normal edges
 * first, "visit last" edges (library-leak matches, Java locals, unusual root kinds) only when
 * the normal queue is empty, with promotion when a node first seen through a visit-last edge
 * is reached normally. Ignored references and weak/soft/phantom/finalizer referents are never
 * followed. Targets are leaves. Ties are broken by root order then edge order. Semantics
 * follow Shark's PathFinder (docs/design.md). */
#ifndef LR_ANALYSIS_PATHS_H
#define LR_ANALYSIS_PATHS_H

#include "graph/graph.h"

/* How the traversal treats an edge (decided by the caller, typically from rules). */
enum paths_edge_class { PATHS_FOLLOW = 0, PATHS_VISIT_LAST = 1, PATHS_IGNORE = 2 };

/* Callbacks deciding edge/root priority. A NULL policy or callback means Shark's defaults:
 * paths_default_root and paths_default_edge below. Weak/soft/phantom/finalizer edges are
 * never followed whatever the policy says (the callback is not even asked). */
typedef struct paths_policy {
    /* Classification of edge e out of node `from`. */
    enum paths_edge_class (*edge)(const graph *g, node_ix from, edge_ix e, void *ctx);
    /* Classification of root entry r (index into g->roots). */
    enum paths_edge_class (*root)(const graph *g, uint32_t r, void *ctx);
    void *ctx;
} paths_policy;

/* Shark's root priority: Java-frame roots left after dropping those carried as local edges
 * of their thread, unknown, interned string, finalizing, debugger, reference cleanup, VM
 * internal and unreachable roots are PATHS_VISIT_LAST; every other kind PATHS_FOLLOW. */
enum paths_edge_class paths_default_root(const graph *g, uint32_t r, void *ctx);
/* Java locals (GRAPH_EDGE_LOCAL) are PATHS_VISIT_LAST, everything else PATHS_FOLLOW. */
enum paths_edge_class paths_default_edge(const graph *g, node_ix from, edge_ix e, void *ctx);

/* Result: a shortest-path forest. parent_edge[n] is the edge that first reached n,
 * PATHS_FROM_ROOT for roots, GRAPH_NONE if unreached. */
#define PATHS_FROM_ROOT (UINT32_MAX - 1)
typedef struct paths_result {
    uint32_t n;            /* = g->n_nodes */
    edge_ix *parent_edge;  /* see above */
    node_ix *parent;       /* NULL: parent nodes come from parent_edge (paths_parent) */
    uint32_t *root_of;     /* index into g->roots of the root entry the path starts from
                            * (g->n_roots = the synthetic root), GRAPH_NONE if unreached */
    uint8_t *via_last;     /* nonzero if n's path uses a visit-last edge or root */
    uint32_t *depth;       /* edges from the root (0 for roots), UINT32_MAX unreached */
    const edge_ix *csr;    /* first_edge of the graph walked (n+1 entries), borrowed: the
                            * source of parent_edge[x]; valid as long as that graph */
} paths_result;

/* One traversal. Roots start in Shark's order: entries naming no node are dropped, as are
 * Java-frame roots that their thread object carries as local edges; then thread objects first, then
 * Shark's root class name descending (ThreadBlock, StickyClass, NativeStack, MonitorUsed,
 * JniMonitor, JniLocal, JniGlobal, ...), then the rooted object's class name, then dump order; the
 * synthetic root (V8) takes part as a normal root. Within a node, edges are tried in CSR order.
 * targets (may be NULL/0 = compute the whole forest) are treated as leaves: their out-edges are not
 * followed, so objects reachable only through a target stay unreached (callers report them with
 * their target via dominators). O(N+E). */
lr_status paths_find(const graph *g, const paths_policy *pol, const node_ix *targets,
                     uint32_t n_targets, paths_result *r, lr_error *err);
/* paths_find that stops as soon as every target's path is final (each target reached at
 * normal priority, or in the visit-last phase): the paths of the targets are the same, but
 * nodes not reached by then stay unreached even when reachable. When some target is never
 * reached the traversal runs to the end and the result equals paths_find's. *all_found
 * tells which case happened. */
lr_status paths_find_targets(const graph *g, const paths_policy *pol, const node_ix *targets,
                             uint32_t n_targets, paths_result *r, int *all_found,
                             lr_error *err);
void paths_free(paths_result *r);
/* Parent node of n on its path: the source of parent_edge[n]; GRAPH_NONE for roots and
 * unreached nodes. O(log N). */
node_ix paths_parent(const paths_result *r, node_ix n);

/* Path of node n as root-first list of nodes and edges (edge i leads from nodes[i] to
 * nodes[i+1]). Returns the number of nodes (0 if unreached); fills up to cap entries. */
uint32_t paths_get(const paths_result *r, node_ix n, node_ix *nodes, edge_ix *edges,
                   uint32_t cap);

#endif
