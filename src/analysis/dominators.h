/* SPDX-License-Identifier: Apache-2.0 */
/* dominators.h: exact dominator tree and retained sizes (analysis layer), prefix dom_.
 * Iterative Lengauer-Tarjan (or semi-NCA) from a virtual super-root whose children are the
 * GC roots (HPROF) or the synthetic root (V8), over strong edges only: weak/soft/phantom/
 * finalizer edges are skipped (caller may pass a filter). On HPROF an object also refers to
 * its class object and a class to its loader, as the JVM keeps them (no stored edge: see
 * DOM_NO_CLASS_HOPS). Unreachable nodes get no dominator and retained size 0.
 * Retained = shallow + native, summed over the dominator subtree. */
#ifndef LR_ANALYSIS_DOMINATORS_H
#define LR_ANALYSIS_DOMINATORS_H

#include "graph/graph.h"

#define DOM_SUPER_ROOT (UINT32_MAX - 1) /* idom of nodes directly under the super-root */

/* Which edges count for dominators: nonzero to follow edge e. NULL = all strong edges
 * but the GC's list links (dom_gc_link). */
typedef int (*dom_edge_filter)(const graph *g, edge_ix e, void *ctx);
/* Whether root entry r (index into g->roots) is a child of the super-root: nonzero = yes. */
typedef int (*dom_root_filter)(const graph *g, uint32_t r, void *ctx);

typedef struct dom_tree {
    uint32_t n;          /* = g->n_nodes */
    node_ix *idom;       /* immediate dominator; DOM_SUPER_ROOT; GRAPH_NONE if unreachable */
    uint64_t *retained;  /* retained bytes per node (0 if unreachable) */
    uint64_t total_reachable; /* sum of shallow (+native) over reachable nodes */
    uint32_t n_reachable;     /* reachable nodes */
    uint32_t *retained32;     /* DOM_RETAINED32: the retained bytes in 32 bits, retained
                               * NULL (when every size fits; else this is NULL) */
} dom_tree;

/* Retained bytes of x, whichever array holds them. */
static inline uint64_t dom_retained(const dom_tree *t, node_ix x)
{
    return t->retained ? t->retained[x] : t->retained32[x];
}

/* Computes the dominator tree and retained sizes. O((N+E) log N) worst case, iterative.
 * Returns LR_OK and fills *t (free: dom_free), LR_ERR_NOMEM, or LR_ERR_LIMIT (2^31 - 17
 * nodes or more). */
lr_status dom_build(const graph *g, dom_edge_filter filter, void *ctx, dom_tree *t,
                    lr_error *err);
/* Options of dom_build_ex. */
enum {
    DOM_CLASS_OBJECTS_FREE = 1, /* class objects weigh 0 bytes in retained sums */
    DOM_UNREACHED_AS_ROOTS = 2, /* with link: objects outside the reach set still refer
                                 * (as children of the super-root, weighing 0) */
    DOM_VISUALVM_SUMS = 4,      /* with link: VisualVM's retained sums (docs/design.md):
                                 * "tree objects" (every referenced object has one referrer
                                 * and is a tree object) carry their tree sum, the native
                                 * bytes each owns in (VisualVM knows none); class objects
                                 * weigh nothing unless tree objects and pass nothing up */
    DOM_RETAINED32 = 8,         /* retained sizes in t->retained32 (4 bytes per node, not
                                 * 8) when they all fit 32 bits; a heap where one does not
                                 * costs a second pass of the sums, into t->retained */
    DOM_NO_CLASS_HOPS = 16,     /* HPROF: an object does not keep its class object
                                 * (Shark's references); by default it does, as in the JVM */
    DOM_LOADER_HOPS = 32,       /* HPROF: a class keeps its loader even when the filters
                                 * do not follow its <classloader> edge (VisualVM's view,
                                 * dom_opts_visualvm; the rules' views keep their own) */
};
/* The reach filter's answers as data, for a filter whose answer for most edges follows from
 * the edge's kind byte (graph edge_kind: kind and strength) and a few facts of its source:
 * the build reads them here and calls the filter only for the edges the table leaves to it
 * (the rules' filter: a field's name matters only for the few classes a rule names). */
enum dom_rt {
    DOM_RT_DROP = 0,        /* not followed */
    DOM_RT_FOLLOW = 1,      /* followed */
    DOM_RT_ASK = 2,         /* the filter answers */
    DOM_RT_BY_CLASS = 3,    /* followed, unless the source's class (graph_node_class) has
                             * DOM_RT_ASK_INSTANCE in cls: then the filter answers */
    DOM_RT_BY_CLASS_OBJ = 4, /* followed, unless the source is the class object of a class
                              * with DOM_RT_ASK_CLASS_OBJ in cls (graph_class_of_node), or any
                              * class has it and the source is no class object: then the
                              * filter answers */
    DOM_RT_NOT_CLASS = 5,   /* followed, unless the source is a class object: dropped */
};
#define DOM_RT_ASK_INSTANCE 1u  /* cls bit: the filter answers DOM_RT_BY_CLASS edges */
#define DOM_RT_ASK_CLASS_OBJ 2u /* cls bit: the filter answers DOM_RT_BY_CLASS_OBJ edges */
typedef struct dom_reach_table {
    uint8_t kind[256]; /* per edge kind byte: enum dom_rt */
    uint8_t *cls;      /* per class (g->n_classes): DOM_RT_ASK_* bits; NULL = none set */
    int any_class_obj; /* some class has DOM_RT_ASK_CLASS_OBJ */
} dom_reach_table;

/* The table's answer for edge e out of node x: 0 (dropped), 1 (followed), or -1 when the
 * filter answers. The build reads the same answers. */
int dom_reach_table_answer(const graph *g, const dom_reach_table *t, node_ix x, edge_ix e);

typedef struct dom_opts {
    dom_edge_filter reach; /* edges that make an object reachable; NULL = strong edges */
    void *reach_ctx;       /* passed to reach */
    dom_edge_filter link;  /* if set: dominance runs over these edges between the objects
                            * `reach` found (e.g. weak referents count as referrers of
                            * strongly reachable objects); NULL = the reach edges */
    void *link_ctx;        /* passed to link */
    unsigned flags;        /* DOM_* flags above */
    dom_root_filter root;  /* root entries that count; NULL = all (the synthetic root always
                            * does). A frame root the paths drop because its thread carries
                            * the local as an edge must be dropped here too, or the frame
                            * dominates what the paths reach through the thread. */
    void *root_ctx;        /* passed to root */
    /* Extra references the graph does not hold, e.g. thread -> object for the Java locals
     * a path search reads as references of their thread (Shark's view), whose frame roots
     * `root` then drops. Sorted by source; followed like strong edges. Only without link. */
    uint32_t n_extra;
    const node_ix *extra_from; /* source of each extra reference, non-decreasing */
    const node_ix *extra_to;   /* its target */
    /* Own weight of node x in retained sums; NULL = shallow + native size. */
    uint64_t (*weight)(const graph *g, node_ix x, void *ctx);
    void *weight_ctx;          /* passed to weight */
    /* With link: if set (a zeroed bit per node), the reach pass walks from the root entries
     * other than Java frames first and sets here every node they reach, before the frames'
     * (what a thread's locals hold alone is outside this set; suspects.c's thread locals). */
    uint64_t *held;
    /* With reach: its answers for most edges as data (dom_reach_table), which must equal
     * reach's; reach is called for the rest. NULL = reach answers every edge. */
    const dom_reach_table *reach_table;
} dom_opts;

/* dom_build with separate reachability and dominance edges (see dom_opts). Same cost plus
 * one more pass over the edges and one byte per node when link is set; the VisualVM sums
 * add a pass or two over the edges and 8 bytes per object whose one referrer is not its
 * immediate dominator (a GC root held by one object) at the end. */
lr_status dom_build_ex(const graph *g, const dom_opts *o, dom_tree *t, lr_error *err);

/* Fills o with VisualVM 2.1.5's conventions for HotSpot dumps (docs/design.md, "Dominators
 * and retained sizes"): reachability over strong fields, elements and statics; dominance
 * over those plus weak/soft/phantom/finalizer referents, with unreached referrers taking
 * dominance away; VisualVM's tree-object sums. */
void dom_opts_visualvm(dom_opts *o);
/* The reach filter dom_opts_visualvm sets (ctx unused): for other walks over the same
 * references, such as the leak suspects' search for what non-frame roots hold. */
int dom_visualvm_reach(const graph *g, edge_ix e, void *ctx);

/* Whether e is a link of the GC's list of references it has cleared, which owns nothing:
 * HotSpot's Reference.discovered from a reference to a reference, ART's Reference.pendingNext
 * likewise (a self-loop once the daemon has enqueued it), and the heads of the lists: ART's
 * static java.lang.ref.ReferenceQueue.unenqueued, and HotSpot's static
 * java.lang.ref.Reference.pending up to JDK 8 (JDK 9+ keeps the head in the VM). JDK 5 and
 * 6 link their pending list through Reference.next, which their queues also use: there next
 * is a GC link unless the source's queue is ReferenceQueue.ENQUEUED (then it is the queue's
 * chain, which the queue does own). A dump written right after a GC catches the
 * list set, and each reference on it then looked held by the one before it rather than by
 * its owner (a map's stale entry, a thread's ThreadLocal). Every model skips it (VisualVM
 * 2.1.5 follows it, docs/design.md). */
int dom_gc_link(const graph *g, edge_ix e);

/* VisualVM's sums list the objects whose one referrer is not their immediate dominator
 * while fewer than n / dom_refs_list_div (a listed object costs 8 bytes, a node of the
 * array that replaces the list past that share 4). Tests raise it to take the array. */
#define DOM_REFS_LIST_DIV 2
extern uint32_t dom_refs_list_div;

/* VisualVM's sums take a tree object's sum from the dominator tree's sums: its tree
 * children are its dominator children whose one referrer it is, plus the few objects whose
 * one referrer is not their idom (GC roots, classes their instances also keep), whose
 * subtrees alone are summed by reading their edges. Tests set this nonzero to sum every tree
 * object by reading its edges, the reference the other way must equal. */
extern int dom_tree_sums_by_edges;

/* A build of this many nodes or more splits its passes over the nodes and edges that
 * split (the edge filters' when they are VisualVM's or the default, the node passes, the
 * own sizes) in two halves on two cores, when it runs on the process's main thread and no
 * other build runs (analyze builds two trees at once, one on each core, the suspects' on a
 * thread of its own). Below it a thread costs more than it saves.
 * Tests lower it to take the halves on small graphs. */
#define DOM_SPLIT_MIN 200000
extern uint32_t dom_split_min;
/* Builds whose 32-bit retained sizes overflowed, so that the close ran again in 64 bits (a
 * heap whose shallow total the reader knows to pass 32 bits goes to 64 at once; tests). */
extern unsigned dom_narrow_reruns;

/* What one dom_build_ex on g typically holds at its peak, in bytes (its scratch and
 * results; long reference chains may need more): for callers deciding whether two builds
 * may run at once. */
uint64_t dom_scratch_bytes(const graph *g);

/* Frees what dom_build allocated and zeroes *t. Accepts a zeroed tree. */
void dom_free(dom_tree *t);

/* Per-class retained size without double counting: an instance counts only if no
 * dominator ancestor has the same class (DevTools' class retained size). retained and count
 * are caller arrays of g->n_classes entries; count[c] = reachable instances of class c.
 * O(N) time, three uint32 arrays of N scratch. Returns LR_OK or LR_ERR_NOMEM/LR_ERR_LIMIT. */
lr_status dom_class_retained(const graph *g, const dom_tree *t, uint64_t *retained,
                             uint32_t *count, lr_error *err);

/* Per-node form of the same rule: per_node[x] = t->retained[x] when no dominator ancestor
 * of x has x's class, else 0 (caller array of t->n entries). Summing per_node by class gives
 * dom_class_retained's sums. Returns LR_OK or LR_ERR_NOMEM/LR_ERR_LIMIT. */
lr_status dom_class_top(const graph *g, const dom_tree *t, uint64_t *per_node, lr_error *err);

#endif
