/* SPDX-License-Identifier: Apache-2.0 */
/* devtools.h: the numbers Chrome DevTools shows for a V8/ArkTS heap snapshot (analysis layer),
 * prefix devtools_. Retained sizes come from DevTools' own dominator tree, which differs from
 * a textbook one (src/analysis/dominators.c) in which edges count ("essential" edges: no weak
 * edges, no shortcuts except at the root, no self edges, no WeakMap table->value edges, no
 * edges from non-page-owned into page-owned nodes) and in how unreachable nodes are hung under
 * the root. Distances are DevTools' two-pass BFS; per-class aggregates count nodes with a
 * nonzero shallow size and add a retained size only when no dominator above has the same
 * class. The graph must come from the V8 reader (format/v8.h), which already applied DevTools'
 * naming and shallow-size re-attribution. Reference: HeapSnapshot.ts as shipped in
 * heap-snapshot-toolkit 1.1.3; tests compare every class byte for byte (docs/formats/v8.md). */
#ifndef LR_ANALYSIS_DEVTOOLS_H
#define LR_ANALYSIS_DEVTOOLS_H

#include "graph/graph.h"

#define DEVTOOLS_NO_DISTANCE (-5)            /* distance of nodes no BFS reached */
#define DEVTOOLS_SYSTEM_DISTANCE 100000000   /* base distance of nodes reached only via the root */

/* One row of DevTools' Summary view. */
typedef struct devtools_class {
    class_ix cls;      /* the graph class (= DevTools' internal class key) */
    str_ix key;        /* DevTools' public key ("," + name, or "script,line,col,name") */
    uint32_t count;    /* instances with a nonzero shallow size */
    int32_t distance;  /* smallest distance among them */
    uint64_t self;     /* sum of their shallow sizes */
    uint64_t retained; /* sum of retained sizes of instances with no same-class dominator */
    int shadowed;      /* nonzero: a later class has the same public key, and DevTools' Summary
                        * (a map keyed by it) shows only that later one */
} devtools_class;

/* Everything DevTools computes per node and per class. All arrays have n entries. */
typedef struct devtools_result {
    uint32_t n;                /* = g->n_nodes */
    node_ix root;              /* g->synthetic_root */
    node_ix *idom;             /* immediate dominator; the root's is itself */
    uint64_t *retained;        /* retained size in bytes */
    int32_t *distance;         /* BFS distance, DEVTOOLS_NO_DISTANCE if unreachable */
    uint32_t n_unreachable;    /* nodes the essential-edge DFS from the root missed */
    uint64_t *unreached;       /* bit per node: one of those (hung under the root after it);
                                * NULL when none was missed */
    uint64_t total;            /* retained size of the root */
    uint32_t n_classes;        /* rows, in order of their first instance */
    devtools_class *classes;   /* per class with at least one instance of nonzero size */
    edge_ix *parent_edge;      /* the edge the distance BFS first reached each node through
                                * (weak edges never), GRAPH_NONE for the root and unreached
                                * nodes: following it back gives DevTools' distance-based
                                * retaining path, one hop per unit of distance but where a
                                * WeakMap value's key (or table) is nearer than the half that
                                * set its distance: the nearer half, as the Retainers view
                                * sorted by distance leads */
} devtools_result;

/* Computes DevTools' dominators, retained sizes, distances and per-class aggregates for g.
 * class_keys (NULL allowed, then the key is "," + class name) gives each class's public key,
 * e.g. v8_class_keys(g). O((N+E) log N) time. Memory at once: three uint32 arrays of N and
 * the DFS path's edge cursors in the DFS; then five, plus about 1.2 bytes per essential
 * retainer (LEB128 deltas); then 20 bytes per node (idom, retained, and either the
 * dominated-nodes listing or the distances); 20 bytes per node kept in the result. Returns
 * LR_OK and fills *r (free: devtools_free), LR_ERR_USAGE if g has no synthetic root,
 * LR_ERR_LIMIT for 2^31 or more nodes or more than 4 GiB of retainer lists, or LR_ERR_NOMEM.
 * g is not modified.
 * Members of a clique no root reaches are dominated by the root, as in DevTools. */
/* The retaining path of node v by r->parent_edge: fills up to cap edges root-first and returns
 * how many edges the path has (0 for the root or an unreached node). O(path * log N). */
uint32_t devtools_path(const graph *g, const devtools_result *r, node_ix v, edge_ix *edges,
                       uint32_t cap);

/* Whether an edge name is V8's for a WeakMap entry, "N / part of key (K @k) -> value (V @v)
 * pair in WeakMap (table @t)" (the key's edge and the table's to the value carry it), with
 * the table's id in *table. */
int devtools_weakmap_edge(const char *name, uint64_t *table);
/* Whether edge e (out of from, or GRAPH_NONE: looked up) is a WeakMap table's half of an
 * ephemeron pair: the table's reference to an entry's value, which lives while its key does.
 * DevTools leaves this half out of its dominators; so do the strong model and the traces'. */
int devtools_table_half(const graph *g, node_ix from, edge_ix e);

lr_status devtools_build(const graph *g, const str_ix *class_keys, devtools_result *r,
                         lr_error *err);

/* devtools_build, and parent_edge picks the same of equally short ways in every dump of a
 * program (graph.ties_by_name: V8 lists a dictionary's properties, `global`'s among them, in
 * a hash's order seeded anew in each process): for devtools_path. The distances and every
 * other number are devtools_build's; the traversal reads more edge names (about 15 % more
 * time on a 272 MB Node snapshot). */
lr_status devtools_build_paths(const graph *g, const str_ix *class_keys, devtools_result *r,
                               lr_error *err);

/* Frees what devtools_build allocated. Accepts a zeroed result. */
void devtools_free(devtools_result *r);

#endif
