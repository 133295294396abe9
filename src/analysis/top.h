/* SPDX-License-Identifier: Apache-2.0 */
/* top.h: the biggest objects or classes by retained size (analysis layer), prefix top_. What
 * `leakray top` shows, as data: the rows picked from a dominator tree (exact, dominators.h, in
 * the strong or VisualVM model; or DevTools', devtools.h) in rank order, retained size
 * descending, ties by object id (classes: by name), so every rendering (report/top.h) is
 * deterministic. Objects are kept as node indexes, 4 bytes per row, and read back into a
 * top_row on demand (top_row_get), so `--top 0` on millions of objects costs no more than
 * the selection; class rows (at most one per class) are kept whole. Allocation sites come
 * from the format layer, which lies above this one: the caller passes a top_site_fn. */
#ifndef LR_ANALYSIS_TOP_H
#define LR_ANALYSIS_TOP_H

#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "graph/graph.h"

/* The retained-size conventions rows are ranked by. */
enum top_model {
    TOP_MODEL_STRONG,   /* exact dominators over strong references */
    TOP_MODEL_VISUALVM, /* VisualVM's conventions (dom_opts_visualvm) */
    TOP_MODEL_DEVTOOLS  /* Chrome DevTools' (V8/Node/ArkTS snapshots) */
};

#define TOP_NO_CLASS_NAME "<no class>"           /* object rows of classless nodes */
#define TOP_UNNAMED_CLASS_NAME "<unnamed class>" /* class rows of classes without a name */

/* An allocation site the dump recorded for an object (Ruby's trace_object_allocations). */
typedef struct top_site {
    str_ix file;   /* source file */
    uint32_t line; /* line in it */
    str_ix method; /* method whose call allocated; "" when the dump has none */
} top_site;

/* Fills *out with node n's allocation site and returns 1, or returns 0 when it has none. */
typedef int (*top_site_fn)(const graph *g, node_ix n, top_site *out);

/* What the user asked for. */
typedef struct top_opts {
    int by_class;         /* nonzero: rank classes, else objects */
    uint64_t limit;       /* rows kept (0 = all) */
    const uint8_t *keep;  /* per class: kept by the class filter; NULL keeps every class */
    int keep_none;        /* with keep: classless objects are kept */
    int detached;         /* DevTools only: detached DOM nodes (or their classes) only */
    top_site_fn site_of;  /* allocation sites, or NULL */
} top_opts;

/* One row as the renderers read it (top_row_get fills it). */
typedef struct top_row {
    node_ix node;          /* object rows: the object; GRAPH_NONE for class rows */
    const char *name;      /* class rows: the class name; object rows: the object's class
                            * name (TOP_NO_CLASS_NAME when none) */
    const char *describes; /* object rows of class objects: the class described, else NULL */
    const char *key;       /* DevTools class rows: the class's public key, else NULL */
    uint64_t count;        /* class rows: reachable instances (DevTools: with a size) */
    uint64_t shallow;      /* bytes: the object's, or summed over the class's instances */
    uint64_t retained;     /* bytes retained (classes: without double counting) */
    uint64_t native;       /* object rows, exact models: registry bytes (Android), 0 none */
    int32_t distance;      /* DevTools rows: distance from the root */
    int has_site;          /* object rows: site is set */
    top_site site;         /* the object's allocation site */
} top_row;

/* A class row of the exact models. */
typedef struct top_class {
    class_ix cls;      /* class index */
    const char *name;  /* class name (graph string table, or TOP_UNNAMED_CLASS_NAME) */
    uint32_t count;    /* reachable instances */
    uint64_t shallow;  /* summed shallow bytes of those instances */
    uint64_t retained; /* retained bytes without double counting */
} top_class;

/* Class objects as (node, class) pairs sorted by node, to name the class a node describes. */
typedef struct top_cnode {
    node_ix node;  /* the class object */
    class_ix cls;  /* the class it describes */
} top_cnode;

typedef struct top_result {
    const graph *g;            /* the graph rows point into (outlives the result) */
    enum top_model model;      /* the conventions ranked by */
    int by_class;              /* rows are classes */
    uint32_t n;                /* rows */
    uint32_t reachable_objects; /* objects the tree reaches */
    uint64_t reachable_bytes;  /* bytes the tree reaches (100 % of the % column) */
    uint64_t heap_total;       /* DevTools: reachable plus native extras (the caller adds
                                * them: v8_extra_native_bytes); exact models: reachable */
    /* private to top.c; read rows through top_row_get */
    uint32_t *sel;             /* object rows: node indexes; DevTools class rows: indexes
                                * into dt->classes */
    top_class *classes;        /* class rows of the exact models */
    top_cnode *cnodes;         /* exact object rows: class objects sorted by node */
    uint32_t n_cnodes;
    const uint64_t *retained;  /* per node (the tree's; not owned), or NULL: ... */
    const uint32_t *retained32; /* ... these (a tree built with DOM_RETAINED32; not owned) */
    const int32_t *distance;   /* DevTools: per node (not owned) */
    const devtools_result *dt; /* DevTools: the Summary rows (not owned) */
    top_site_fn site_of;       /* allocation sites, or NULL */
} top_result;

/* The exact tree `top` ranks by: VisualVM's conventions when vvm, else strong references
 * less the GC's list links (dom_gc_link); artifact leaves out the Android dumper's own
 * Bitmap.dumpData reference (the default model of an Android dump, as analysis/retained.c).
 * Returns LR_OK (free: dom_free) or fills err. */
lr_status top_tree_build(const graph *g, int vvm, int artifact, dom_tree *t, lr_error *err);

/* The rows of an exact tree t in model TOP_MODEL_STRONG or TOP_MODEL_VISUALVM: objects are the
 * k best reachable kept nodes, O(N log k); classes are the classes with reachable kept
 * instances, O(N + C log C). t must outlive the result. Returns LR_OK (free: top_free) or
 * LR_ERR_NOMEM. */
lr_status top_build(const graph *g, const dom_tree *t, enum top_model model, const top_opts *o,
                    top_result *out, lr_error *err);

/* The rows of DevTools' numbers r: objects are the k best nodes other than the synthetic ones;
 * classes are DevTools' Summary rows (not shadowed) by retained size. r must outlive the
 * result. Returns LR_OK (free: top_free) or LR_ERR_NOMEM. */
lr_status top_dt_build(const graph *g, const devtools_result *r, const top_opts *o,
                       top_result *out, lr_error *err);

/* Row i (< r->n) into *row. O(log classes) for exact object rows, O(1) otherwise. */
void top_row_get(const top_result *r, uint32_t i, top_row *row);

void top_free(top_result *r);

/* The k first nodes of a tree in rank order: retained descending, then object id ascending;
 * returns how many. Nodes outside the tree (idom[x] == GRAPH_NONE) are left out, and with a
 * synthetic root (V8-like snapshots, root != GRAPH_NONE) so are it and every synthetic node,
 * as DevTools ranks them. keep (NULL: all) filters by class, keep_none decides classless
 * nodes. The rows of `top` and the library's lr_top_objects. O(N log k). */
uint32_t top_select(const graph *g, const node_ix *idom, const uint64_t *retained,
                    node_ix root, const uint8_t *keep, int keep_none, node_ix *out, uint32_t k);

#endif
