/* SPDX-License-Identifier: Apache-2.0 */
/* mergepaths.h: merged shortest paths from GC roots to many objects (analysis layer), prefix
 * mpath_. MAT's "merge shortest paths to GC roots": given each object's shortest path (one
 * parent step per node, from paths.c's forest or DevTools' retaining paths), the union of
 * the paths of a set of objects is a tree whose tops are GC roots; each tree node counts the
 * objects whose path runs through it (or ends at it) and sums the retained sizes of the
 * topmost of them (an object under another on the path is taken as inside it). The
 * paths are the caller's, so weak/soft/phantom exclusion is the path finder's (as `path`).
 * Cost: O(sum of the new part of each path) + O(T log T) for T tree nodes; one uint32 per
 * graph node of scratch while building. Edge names are read for the children a caller shows,
 * in edge order, so a reader that derives them from the dump's records (HPROF) walks each
 * object's slots once, however many of its references the tree holds. */
#ifndef LR_ANALYSIS_MERGEPATHS_H
#define LR_ANALYSIS_MERGEPATHS_H

#include "graph/graph.h"

#define MPATH_NONE UINT32_MAX /* no tree node */

/* One step of x's path: 1 with *parent and *edge (graph edge parent -> x), 0 when x is where
 * its path starts (a GC root), -1 when no path reaches x. */
typedef int (*mpath_step_fn)(void *ctx, node_ix x, node_ix *parent, edge_ix *edge);

typedef struct mpath_node {
    node_ix node;          /* the heap object */
    uint32_t parent;       /* tree index of the next object towards the root, MPATH_NONE for
                            * a top (where paths start) */
    edge_ix edge;          /* graph edge from the parent's object to this one, GRAPH_NONE at
                            * a top */
    uint32_t edge_name;    /* that edge's name (graph_edge_name's value: a str_ix, or an
                            * index when GRAPH_EDGE_NAME_IS_INDEX); set by
                            * mpath_name_children, 0 before */
    uint32_t count;        /* objects of the set whose path runs through or ends here */
    uint64_t retained;     /* summed retained bytes (the caller's values) of the topmost of
                            * those objects: one below another on a path counts inside it */
    uint32_t first_child;  /* children: by retained, then count, descending, then node */
    uint32_t next_sibling; /* next child of the same parent (or next top), MPATH_NONE last */
    uint8_t is_target;     /* this object is one of the set */
} mpath_node;

typedef struct mpath_tree {
    mpath_node *nodes;     /* n entries */
    uint32_t n;            /* tree nodes */
    uint32_t first_top;    /* first top (same order as children), MPATH_NONE if none */
    uint32_t n_reached;    /* objects of the set with a path */
    uint32_t n_unreached;  /* objects of the set no path reaches (not in the tree) */
    uint64_t unreached_retained; /* their summed retained bytes */
} mpath_tree;

/* Builds the merged tree of the paths of targets[0..n) (distinct nodes); retained[i] is the
 * retained size of targets[i] (NULL: all 0). step gives each node's path. Returns LR_OK and
 * fills *t (free: mpath_free), LR_ERR_NOMEM, or LR_ERR_INTERNAL if step loops. */
/* Whether a's retained bytes hold b's (a dominates b). */
typedef int (*mpath_dominates_fn)(void *ctx, node_ix a, node_ix b);
/* dominates (may be NULL: a target's size holds everything below it) decides which targets
 * below a target count again in its line. */
lr_status mpath_build(const graph *g, const node_ix *targets, const uint64_t *retained,
                      uint32_t n, mpath_step_fn step, mpath_dominates_fn dominates, void *ctx,
                      mpath_tree *t, lr_error *err);

/* Sets edge_name on the first `limit` children (0 = all) of tree node ix, in their order;
 * MPATH_NONE (the tops) has none to set. Returns LR_OK or LR_ERR_NOMEM. */
lr_status mpath_name_children(const graph *g, mpath_tree *t, uint32_t ix, uint64_t limit,
                              lr_error *err);

/* Frees what mpath_build allocated and zeroes *t. Accepts a zeroed tree. */
void mpath_free(mpath_tree *t);

#endif
