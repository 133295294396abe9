/* SPDX-License-Identifier: Apache-2.0 */
/* cycles.h: retain cycles among objects (analysis layer), prefix cycles_. Works on the
 * "object edges" of the graph: strong field, element, property, context, native and xref
 * edges between nodes that are not class objects, code or synthetic nodes (class objects and
 * their loaders form one giant cycle in every JVM heap, so statics are not cycle edges; a
 * cycle reachable from a static field is flagged "held by singleton" instead).
 * 1. Scope: the nodes reachable over object edges from the start nodes (or every node).
 * 2. Strongly connected components by Tarjan's algorithm, iterative (explicit stack), O(N+E).
 * 3. With a scope: elementary cycles up to max_length inside each component, each found once
 *    (rooted at its smallest node index), under a step budget and a cycle cap; the result
 *    says when either bound cut the enumeration short (FBRetainCycleDetector's bounded DFS).
 * Each cycle gets a signature: "Class.field -> Class.field ..." rotated to its smallest
 * rotation (element indices written "[]"), so the same shape found N times is one entry with
 * count N. Retained size of a group = bytes dominated by any of its members (dominators.h).
 * Groups rank reachable first, then those a start object is part of, then by retained size. */
#ifndef LR_ANALYSIS_CYCLES_H
#define LR_ANALYSIS_CYCLES_H

#include "analysis/dominators.h"
#include "graph/graph.h"

#define CYCLES_DEFAULT_MAX_LENGTH 10      /* FBRetainCycleDetector's default */
#define CYCLES_MAX_LENGTH 4096            /* the longest max_length taken (a ring of 4,096) */
#define CYCLES_DEFAULT_MAX_CYCLES 100000  /* elementary cycles enumerated at most */
#define CYCLES_DEFAULT_MAX_STEPS 50000000 /* DFS edge visits at most */
#define CYCLES_MAX_SCCS 100               /* components listed (largest first) */

typedef struct cycles_opts {
    const node_ix *from;   /* start nodes of the scope; NULL/0 = whole graph, SCCs only */
    uint32_t n_from;
    uint32_t max_length;   /* longest cycle enumerated (members) */
    uint64_t max_cycles;   /* cap on elementary cycles enumerated per band of lengths (up to
                            * 2, 4 and the longest: cycles_find's passes) */
    uint64_t max_steps;    /* cap on DFS edge visits of the last pass (the short ones: a
                            * quarter each) */
} cycles_opts;

/* One canonical cycle shape (all instances with the same signature). */
typedef struct cycles_cycle {
    char *signature;       /* canonical "A.f -> B.g" text (owned by the result) */
    uint32_t length;       /* members per instance */
    uint32_t count;        /* instances found */
    uint32_t first;        /* example instance: nodes[first..first+length), edges likewise;
                            * edges[first+i] leads from nodes[first+i] to the next member */
    uint64_t retained;     /* bytes retained by the members of all instances together */
    uint32_t n_members;    /* distinct nodes over all instances */
    int singleton;         /* some member is reachable from a static field */
    int has_start;         /* some member is a start object (cycles_opts.from): such
                            * groups rank before the others the scope holds */
    int unreachable;       /* no GC root reaches its instances (in a traced heap, over strong
                            * or soft references: trace_reach; grouped apart from reachable
                            * instances of the same signature): garbage where the collector
                            * traces (cycles_gc_frees), retained 0; else the leak itself */
} cycles_cycle;

/* One strongly connected component with more than one node (or a self-loop). */
typedef struct cycles_scc {
    uint32_t size;         /* nodes */
    node_ix example;       /* its smallest node index */
    class_ix top_class;    /* the most common class among its nodes */
    uint32_t top_count;    /* nodes of that class */
} cycles_scc;

typedef struct cycles_result {
    uint32_t n_scope;      /* nodes in scope */
    uint32_t n_sccs;       /* non-trivial components in scope */
    uint64_t scc_nodes;    /* nodes in them */
    cycles_scc *sccs;      /* up to CYCLES_MAX_SCCS, largest first */
    uint32_t n_listed_sccs;
    cycles_cycle *cycles;  /* scoped runs: canonical cycles, largest retained first */
    uint32_t n_cycles;
    node_ix *nodes;        /* example members, see cycles_cycle.first */
    edge_ix *edges;
    uint64_t n_found;      /* elementary cycles enumerated */
    int truncated;         /* 1 when max_cycles stopped the enumeration, 2 max_steps */
} cycles_result;

/* Finds components (and, with a scope, canonical cycles). dom may be NULL (retained = 0,
 * every cycle taken as reachable).
 * Returns LR_OK and fills *r (free: cycles_free), or LR_ERR_NOMEM. */
lr_status cycles_find(const graph *g, const dom_tree *dom, const cycles_opts *o,
                      cycles_result *r, lr_error *err);

/* Whether the runtime that wrote g frees a cycle no GC root reaches: a tracing collector's
 * heap (HPROF, V8 and ArkTS, Dart, Ruby) holds such cycles only until its next collection, so
 * they are garbage, not leaks; a generic graph (an ARC or reference-counted heap a scanner
 * exports) and native blocks keep them for good. */
int cycles_gc_frees(const graph *g);

/* Frees what cycles_find allocated and zeroes *r. Accepts a zeroed result. */
void cycles_free(cycles_result *r);

/* Whether edge e, out of node from, is an object edge that cycles follow (exposed for
 * tests). */
int cycles_edge_ok(const graph *g, node_ix from, edge_ix e);

#endif
