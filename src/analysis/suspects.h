/* SPDX-License-Identifier: Apache-2.0 */
/* suspects.h: leak suspects as Eclipse MAT's Leak Suspects report finds them (analysis
 * layer), prefix susp_. Input: one dominator tree as any retained-size model gives it (the
 * tree `leakray top` shows for the dump, so one node has one retained size in every verb).
 * Output: the objects, classes, groups of instances and threads that each hold more than a
 * share of the heap, each followed down its biggest dominated child while that child keeps
 * more than an accumulation share of its parent (MAT's FindLeaksQuery: threshold 10 %, big
 * drop ratio 70 %). Synthetic nodes (V8's root, "(GC roots)", sub-roots) are never suspects:
 * their children are. Objects held only by Java-frame roots of one thread, and reached from
 * no other root, are attributed to that thread ("thread main keeps local variables ..."), as
 * MAT's thread overview does, with `threads`' figure (threads_with_locals: the thread
 * object's retained size once its locals are its references; one more tree, only when a
 * quick bound cannot keep it under the share), and what that figure counts is no other
 * suspect. Dump artifacts
 * (Android's Bitmap.dumpData buffers, written by `am dumpheap -b`) are left out. Cost: O(N)
 * over the tree per level the suspects descend (at most 8 passes, then one more with an
 * index per node), plus O(roots log roots); one byte per node of scratch beside the tree.
 * Paths to the suspects are the caller's (paths.h/devtools.h). */
#ifndef LR_ANALYSIS_SUSPECTS_H
#define LR_ANALYSIS_SUSPECTS_H

#include "graph/graph.h"

#define SUSP_SHARE_DEFAULT 0.10      /* MAT's threshold_percent */
#define SUSP_ACCUMULATION_DEFAULT 0.70 /* MAT's big_drop_ratio */
#define SUSP_PATH_ENDS 25 /* path objects shown at each end; the middle of a longer path is
                           * summarised in one line (a million-node chain stays readable) */

/* A dominator tree, whichever model built it. */
typedef struct susp_tree {
    uint32_t n;               /* = g->n_nodes */
    const node_ix *idom;      /* immediate dominator; GRAPH_NONE if unreachable */
    node_ix top;              /* idom value of the tree's top-level nodes (DOM_SUPER_ROOT, or
                               * the synthetic root of a DevTools tree) */
    const uint64_t *retained; /* retained bytes per node, or NULL: */
    uint64_t total;           /* bytes the shares are of (the root's retained size) */
    const uint32_t *retained32; /* ... then these (every size fits 32 bits) */
    const uint64_t *held;     /* a bit per node the roots other than Java frames reach over
                               * the model's references (dom_opts.held), or NULL: then
                               * susp_find walks the graph for it when it needs it */
    uint32_t split_min;       /* n from which the long passes over the nodes run in two
                               * halves on two threads (0: never): a caller whose other
                               * core is idle sets it, the answer is the same either way */
    int classes_apart;        /* class objects pass nothing up (VisualVM's sums): what a
                               * class keeps counts under no top-level node, so class
                               * objects anywhere in the tree are candidates of their own */
    /* The next node up a node's retaining path as the caller shows paths (GRAPH_NONE at its
     * start), or NULL: a group of instances is then shown by its biggest member, else by
     * the member where most of its bytes are held. */
    node_ix (*parent)(void *ctx, node_ix x);
    void *parent_ctx;
} susp_tree;

enum susp_kind {
    SUSP_OBJECT = 0,        /* one object */
    SUSP_CLASS = 1,         /* one class object (its statics) */
    SUSP_INSTANCES = 2,     /* several top-level instances of one class, together */
    SUSP_THREAD_LOCALS = 3, /* what one thread's local variables hold */
    SUSP_CLASSES = 4,       /* class objects of one name, each from its own loader, together:
                             * a class loader leak repeated (node: the biggest) */
};

typedef struct susp_item {
    uint8_t kind;          /* enum susp_kind */
    node_ix node;          /* the suspect (INSTANCES: the member the group is shown by,
                            * susp_tree.parent; THREAD_LOCALS: the biggest local) */
    class_ix cls;          /* INSTANCES: their class, else GRAPH_NONE */
    uint32_t count;        /* INSTANCES: instances; THREAD_LOCALS: top-level locals */
    uint64_t retained;     /* bytes the suspect holds (INSTANCES: the sum; THREAD_LOCALS:
                            * threads_with_locals' figure, else the locals' sum when the
                            * thread has no object) */
    node_ix thread;        /* THREAD_LOCALS: the thread object (GRAPH_NONE if absent) */
    uint32_t thread_serial; /* THREAD_LOCALS: HPROF thread serial */
    int32_t frame;         /* THREAD_LOCALS: frame of the biggest local, -1 unknown */
    node_ix accumulation;  /* accumulation point below node (node itself when none) */
    char text[512];        /* MAT-style sentence ("thread main keeps local variables ...") */
    /* The path from a GC root to the accumulation point, filled by the caller (susp_free
     * frees it): path_n nodes root object first, path_n - 1 edges, each node's retained
     * size in the same tree; path_root indexes g->roots (g->n_roots: the synthetic root). */
    uint32_t path_n;
    node_ix *path;
    edge_ix *path_edges;
    uint64_t *path_retained;
    uint32_t path_root;
    char root_name[160];   /* synthetic root: the sub-roots the path leaves out, "(GC roots) /
                            * (Global handles)"; "" otherwise */
    uint8_t beside;        /* a global object seen through, a suspect for what it holds
                            * outside the suspects below it: retained counts only that (the
                            * suspects' bytes add up to no more than the heap), and it is its
                            * own accumulation point (that memory is spread, or a child would
                            * be a suspect) */
} susp_item;

typedef struct susp_result {
    susp_item *v;          /* largest first */
    uint32_t n;
    uint64_t total;        /* = the tree's total */
    node_ix artifact;      /* Bitmap.dumpData object left out, GRAPH_NONE if none */
    double share;          /* the threshold used (0..1) */
    double accum;          /* the accumulation ratio used (0..1) */
    const char *model;     /* retained-size model of the tree (static string), set by caller */
    /* Objects no reference the tree follows reaches that a java.lang.ref.Finalizer's
     * referent keeps (with what they reach in turn): the JVM frees none of them before its
     * finalize() has run. Counted when they could pass the share (their bytes against the
     * tree's total and theirs); pending_class: the class most of the referents are of. */
    uint64_t pending_objects, pending_bytes;
    class_ix pending_class;
    uint64_t pending_class_n;
} susp_result;

/* Finds the suspects of g in t. share and accum are 0..1 (SUSP_*_DEFAULT). Returns LR_OK and
 * fills *out (free: susp_free), or LR_ERR_NOMEM. */
lr_status susp_find(const graph *g, const susp_tree *t, double share, double accum,
                    susp_result *out, lr_error *err);
void susp_free(susp_result *r);

/* The static reference android.graphics.Bitmap.dumpData (an artifact of `am dumpheap -b`:
 * the dumper's copies of every bitmap's pixels), GRAPH_NONE when the dump has none. Retained
 * sizes leave it out (retained.h), so those buffers never make a suspect. */
edge_ix susp_artifact_edge(const graph *g);
/* dom_edge_filter: strong references except the edge *(const edge_ix *)ctx (ctx NULL: no
 * edge) and the GC's list links (dom_gc_link). */
int susp_filter_strong(const graph *g, edge_ix e, void *ctx);

/* Lowercase kind name for JSON: "object", "class", "instances", "thread_locals". */
const char *susp_kind_name(unsigned kind);

#endif
