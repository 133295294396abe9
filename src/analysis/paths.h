/* SPDX-License-Identifier: Apache-2.0 */
/* paths.h: shortest strong reference paths from GC roots to many targets in one traversal
 * (analysis layer), prefix paths_. Breadth-first from all roots with two queues: normal edges
 * first, "visit last" edges (library-leak matches, Java locals, unusual root kinds) only when
 * the normal queue is empty, with promotion when a node first seen through a visit-last edge
 * is reached normally. Ignored references and weak/soft/phantom/finalizer referents are never
 * followed. Targets are leaves. Ties are broken by root order then edge order, property
 * edges in name order where graph.ties_by_name says edge order means nothing. Semantics
 * follow Shark's PathFinder (docs/design.md). */
#ifndef LR_ANALYSIS_PATHS_H
#define LR_ANALYSIS_PATHS_H

#include "graph/graph.h"

/* How the traversal treats an edge (decided by the caller, typically from rules). */
enum paths_edge_class { PATHS_FOLLOW = 0, PATHS_VISIT_LAST = 1, PATHS_IGNORE = 2 };

/* A node's out-edges as an edge source lists them (paths_source). */
typedef struct paths_list {
    uint32_t n;           /* entries, tried in this order */
    const node_ix *to;    /* target */
    const uint8_t *kind;  /* GRAPH_EDGE_MAKE(kind, strength) */
    const edge_ix *real;  /* the graph edge an entry stands for, GRAPH_NONE for a virtual one */
} paths_list;

/* Where a traversal takes each node's out-edges from instead of the graph's CSR, one node at
 * a time (virtual.h's view of collections, for instance). */
typedef struct paths_source {
    /* Fills *out with node x's out-edges; the arrays stay valid until the next call. Returns
     * 0, or -1 when out of memory. */
    int (*edges)(void *ctx, node_ix x, paths_list *out);
    void *ctx;
} paths_source;

/* Callbacks deciding edge/root priority. A NULL policy or callback means Shark's defaults:
 * paths_default_root and paths_default_edge below. Weak/soft/phantom/finalizer edges are
 * never followed whatever the policy says (the callback is not even asked). */
typedef struct paths_policy {
    /* Classification of edge e out of node `from`. With a source, e is the entry's position
     * in from's list, asked while that list is the source's latest. */
    enum paths_edge_class (*edge)(const graph *g, node_ix from, edge_ix e, void *ctx);
    /* Classification of root entry r (index into g->roots). */
    enum paths_edge_class (*root)(const graph *g, uint32_t r, void *ctx);
    void *ctx;
    /* NULL: the graph's own edges. */
    const paths_source *source;
    /* Nonzero (HPROF): an object also refers to its class object, as the JVM keeps it (the
     * record names the class by id; no edge holds it), at visit-last priority, so a class
     * and its loader kept only through an instance have a path (code PATHS_CLASS_HOP).
     * Only classes a loader defined (paths_class_has_loader), as the dominators' hops.
     * Shark follows no such reference. */
    int class_hops;
    /* Nonzero: a target is traversed like any object. Zero (leak traces): a target ends
     * every path through it, as an object another leaking object holds is retained by that
     * one. A suspect's accumulation point may lie on the only path to another suspect's. */
    int through_targets;
} paths_policy;

/* Whether class object y names a loader (an internal <classloader> edge): the classes an
 * instance keeps alive (class_hops, and the dominators' hops); the boot loader's never. */
int paths_class_has_loader(const graph *g, node_ix y);

/* Shark's root priority: Java-frame roots left after dropping those carried as local edges
 * of their thread, unknown, interned string, finalizing, debugger, reference cleanup, VM
 * internal and unreachable roots are PATHS_VISIT_LAST; every other kind PATHS_FOLLOW. */
enum paths_edge_class paths_default_root(const graph *g, uint32_t r, void *ctx);
/* Java locals (GRAPH_EDGE_LOCAL) and the DevTools console's handles (paths_console_link) are
 * PATHS_VISIT_LAST, everything else PATHS_FOLLOW. */
enum paths_edge_class paths_default_edge(const graph *g, node_ix from, edge_ix e, void *ctx);

/* Whether e is a handle the DevTools console keeps (V8, Chromium: "(Global handles)" ->
 * "18 / DevTools console"), on what a page logged or a test harness holds an element handle
 * on. It keeps the object alive, but the program did not take it: the path searches visit it
 * last, so an object the program holds too gets the program's path (memlab leaves these
 * handles out of its traces), and one only the console holds still gets this one. */
int paths_console_link(const graph *g, node_ix from, edge_ix e);

/* Result: a shortest-path forest, 5 bytes per node. For a reached node: the code of the edge
 * that reached it: a graph edge index, PATHS_VIRTUAL | position for a source's virtual entry
 * (its position in the parent's list), PATHS_FROM_ROOT for roots. A graph edge names its
 * parent (the node whose CSR range holds it, found in O(1) through a block index of the
 * edges, 1/16 byte per edge), so parents are stored only where the code cannot say: virtual
 * entries (and a source's real entry out of another node's range), PATHS_F_UP set, in a
 * list that holds their edge codes too (edge[] is not written for them), sorted by node (a
 * search that stopped early sorts at once only those of the nodes it took out of a queue,
 * `hot`, and the list at the first lookup of another: until then lookups are not
 * thread-safe), or in an array of N parents (codes in edge[]) once such nodes pass N/8.
 * Depths and root entries are not stored: paths_depth and paths_root_of walk up the parent
 * chain (the root entry of each rooted node is kept, O(roots)). Read it through the functions
 * below. */
#define PATHS_FROM_ROOT (UINT32_MAX - 1)
#define PATHS_CLASS_HOP (UINT32_MAX - 2) /* reached as its parent's class (class_hops) */
#define PATHS_VIRTUAL 0x80000000u
#define PATHS_F_STATE 0x03u    /* traversal state; nonzero once reached */
#define PATHS_F_TARGET 0x04u   /* a target (a leaf) */
#define PATHS_F_VIA_LAST 0x08u /* the path uses a visit-last edge or root */
#define PATHS_F_UP 0x10u       /* the parent is stored (up or parent), not named by edge */
typedef struct paths_result {
    uint32_t n;            /* = g->n_nodes */
    uint32_t *edge;        /* edge code (above) where reached; in up instead for its nodes */
    uint8_t *flags;        /* PATHS_F_* */
    const graph *g;        /* the graph searched: edge -> parent (must outlive the result) */
    uint32_t *eblock;      /* node holding edge b * PATHS_EBLOCK, for b < n_eblock */
    uint32_t n_eblock;
    struct paths_up *up;   /* stored parents of PATHS_F_UP nodes, by node, n_up of them */
    uint32_t n_up;
    uint32_t cap_up;
    struct paths_up *hot;  /* the last entries of the nodes taken out of a queue, by node */
    uint32_t n_hot;
    int up_cold;           /* up is in enqueue order yet: the first lookup of a node not in
                            * hot sorts it, so until then lookups are not thread-safe */
    node_ix *parent;       /* instead of up once it would pass N/8 entries; else NULL */
    uint32_t n_rooted;     /* entries of rooted */
    struct paths_rooted *rooted; /* node -> root entry its path starts from, by node */
    node_ix *order;        /* reached targets in the order the traversal takes them out of its
                            * queues (Shark records leaking objects so), n_order of them;
                            * those still queued when the search stops early follow in queue
                            * order, normal queue first */
    uint32_t n_order;
} paths_result;
#define PATHS_EBLOCK 64 /* edges per entry of the edge block index */

/* One traversal. Roots start in Shark's order: entries naming no node are dropped, as are
 * Java-frame roots that their thread object carries as local edges; then thread objects first, then
 * Shark's root class name descending (ThreadBlock, StickyClass, NativeStack, MonitorUsed,
 * JniMonitor, JniLocal, JniGlobal, ...), then the rooted object's class name, then dump order; the
 * synthetic root (V8) takes part as a normal root. Within a node, edges are tried in CSR order
 * (or the source's list order). targets (may be NULL/0 = compute the whole forest) are treated
 * as leaves: their out-edges are not followed, so objects reachable only through a target stay
 * unreached (callers report them with their target via dominators). O(N+E). */
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
/* paths_find_targets for a caller whose other core is idle: on a graph of split_min nodes or
 * more (0: never) the edge block index a path's walk up reads, which needs the graph only,
 * is built on a thread of its own beside the traversal. The result is the same. */
lr_status paths_find_targets_split(const graph *g, const paths_policy *pol,
                                   const node_ix *targets, uint32_t n_targets,
                                   uint32_t split_min, paths_result *r, int *all_found,
                                   lr_error *err);
void paths_free(paths_result *r);

/* Whether n has a path. */
int paths_reached(const paths_result *r, node_ix n);
/* Whether n's path uses a visit-last edge or root (0 when unreached). */
int paths_via_last(const paths_result *r, node_ix n);
/* Parent node of n on its path; GRAPH_NONE for roots and unreached nodes. O(1) for a node
 * reached through a graph edge (a search among the few nodes of one edge block), O(log) for
 * one with a stored parent. */
node_ix paths_parent(const paths_result *r, node_ix n);
/* Code of the edge into n (see paths_result); PATHS_FROM_ROOT for roots, GRAPH_NONE when
 * unreached. */
uint32_t paths_edge(const paths_result *r, node_ix n);
/* Edges from the root to n (0 for roots), UINT32_MAX when unreached. O(depth). */
uint32_t paths_depth(const paths_result *r, node_ix n);
/* Root entry n's path starts from (index into g->roots; g->n_roots = the synthetic root),
 * GRAPH_NONE when unreached. O(depth + log roots). */
uint32_t paths_root_of(const paths_result *r, node_ix n);

/* Path of node n as root-first list of nodes and edge codes (edge i leads from nodes[i] to
 * nodes[i+1]). Returns the number of nodes (0 if unreached); fills up to cap entries. */
uint32_t paths_get(const paths_result *r, node_ix n, node_ix *nodes, edge_ix *edges,
                   uint32_t cap);

/* Every node's parent (GRAPH_NONE for roots and unreached nodes) into out (r->n entries),
 * in one pass over the edges: O(N + E), for callers that visit the whole forest. */
void paths_parents(const paths_result *r, node_ix *out);

#endif
