/* SPDX-License-Identifier: Apache-2.0 */
/* merged.h: the merged shortest paths of a class's instances (analysis layer), prefix
 * merged_. What `leakray path --class CLASS --merged` shows, as data: the instances
 * (instances.h's selection), each one's retained size, the tree of their paths merged
 * (mergepaths.h), the GC root entry each top of the tree is, and the names of the references
 * to every child a listing cut at `limit` branches per node shows. The paths, the sizes and
 * the per-class node lists are the caller's (src/query/ computes them once and lies above
 * this layer): it passes them as a merged_src. */
#ifndef LR_ANALYSIS_MERGED_H
#define LR_ANALYSIS_MERGED_H

#include "analysis/instances.h"
#include "analysis/mergepaths.h"
#include "analysis/top.h"

/* Where the paths and sizes come from. */
typedef struct merged_src {
    void *ctx;                  /* passed to each function */
    inst_retained_fn retained;  /* retained bytes of an instance */
    mpath_step_fn step;         /* one step of an object's shortest path */
    /* the root entry (index into g->roots) of a node where a path starts; >= g->n_roots for
     * the synthetic root of V8 graphs or an unknown one */
    uint32_t (*root)(void *ctx, node_ix x);
    mpath_dominates_fn dominates; /* whether a's retained bytes hold b's (NULL: unknown) */
} merged_src;

typedef struct merged_result {
    const graph *g;            /* the graph the tree points into (outlives the result) */
    const char *cls;           /* the class as given */
    int subclasses;            /* instances of subclasses too */
    enum top_model model;      /* whose paths and retained sizes (strong, VisualVM, DevTools) */
    uint64_t limit;            /* branches shown under each node (0 = all) */
    uint32_t n_instances;      /* instances merged */
    mpath_tree tree;           /* their paths; edge names set on every child shown */
    uint32_t *top_root;        /* per top, in the tree's order: its root entry */
} merged_result;

/* Builds the merged paths of the instances sel selected (sel->n of them; the paths and sizes
 * src reads must be ready). Returns LR_OK (free: merged_free), LR_ERR_NOMEM, or
 * LR_ERR_INTERNAL if the paths loop. */
lr_status merged_build(const inst_result *sel, enum top_model model, uint64_t limit,
                       const merged_src *src, merged_result *r, lr_error *err);

void merged_free(merged_result *r);

/* A listing's walk over the tree: depth first, the first `limit` children of each node (and
 * the first `limit` tops), no recursion and no allocation (a node's place among its siblings
 * is counted again when the walk climbs back to it, at most `limit` steps). */
enum merged_event {
    MERGED_END,   /* nothing left */
    MERGED_OPEN,  /* a node shown: its children follow, then the CLOSE of their list */
    MERGED_CLOSE  /* the end of a list of children (or of the tops, the last event) */
};

typedef struct merged_walk {
    uint32_t node;  /* OPEN: the tree node shown; CLOSE: the first one the limit left out
                     * (its later siblings were left out too), MPATH_NONE when none */
    uint32_t depth; /* OPEN: the node's depth (tops: 0); CLOSE: the depth of the list's nodes */
    uint32_t top_pos; /* OPEN of a top (depth 0): its place among the tops (top_root's index) */
    int top;        /* CLOSE: the list of the tops */
    /* private to merged.c */
    uint32_t parent_, next_, depth_;
    uint64_t pos_;
    uint32_t tops_;
    int done_;
} merged_walk;

void merged_walk_start(const merged_result *r, merged_walk *w);
/* The next event (enum merged_event), its details in *w. */
int merged_walk_next(const merged_result *r, merged_walk *w);

#endif
