/* SPDX-License-Identifier: Apache-2.0 */
/* query.h: SQL over a loaded heap graph (query layer), prefix query_. query_open gives an
 * in-memory SQLite database whose tables are virtual: objects, classes, edges, roots, strings,
 * fields and stacks (V8 allocation stacks) read the graph row by row when a statement asks,
 * so the heap is never copied into SQLite (docs/sql.md lists every column). Values a column
 * needs beyond the graph are computed once, on the first row that asks for them: the
 * dominator tree (retained, dominator, reachable), shortest-path depths (distance), per-class
 * sums, the per-class node index and reverse edges. Equality on objects.id, objects.class,
 * classes.id, classes.name, edges.src, edges.dst, strings.id, fields.id and stacks.id are
 * lookups through indexes, never scans; objects ordered by class are streamed in that order
 * so GROUP BY class needs no sort. The database refuses ATTACH (and so VACUUM INTO): a query
 * cannot write files. Not thread-safe: one query_db per thread; the graph must outlive it. */
#ifndef LR_QUERY_QUERY_H
#define LR_QUERY_QUERY_H

#include "graph/graph.h"

#include <stdint.h>

struct sqlite3;

/* Whose conventions retained sizes, dominators and distances follow (as `top --model`). */
enum query_model {
    QUERY_MODEL_STRONG = 0,   /* exact dominators over strong references (dom_build_ex) */
    QUERY_MODEL_VISUALVM = 1, /* VisualVM's conventions for HotSpot dumps (dom_opts_visualvm) */
    QUERY_MODEL_DEVTOOLS = 2, /* Chrome DevTools' numbers for V8/ArkTS (devtools_build) */
};

/* One allocation-stack frame (V8 snapshots taken while allocations were tracked). */
typedef struct query_frame {
    str_ix name;        /* function name */
    str_ix script;      /* script name or URL, GRAPH_NONE if unknown */
    uint32_t script_id; /* V8 script id */
    uint32_t line;      /* 1-based, 0 unknown */
    uint32_t column;    /* 1-based, 0 unknown */
} query_frame;

/* Allocation stacks, from the format reader (v8_alloc_stack): has(g, v) says whether node v
 * has one; get writes up to cap frames of v's stack, innermost first, and its depth into *n,
 * returning 0 or -1 on failure. The query layer cannot include the format layer, so the
 * caller passes these. */
typedef struct query_stacks {
    int (*has)(const graph *g, node_ix v);
    int (*get)(const graph *g, node_ix v, query_frame *out, uint32_t cap, uint32_t *n);
} query_stacks;

typedef struct query_opts {
    int model;                /* enum query_model */
    const str_ix *class_keys; /* V8: DevTools' public class keys (v8_class_keys), or NULL;
                               * also gives classes and objects their `location` */
    const query_stacks *stacks; /* V8 allocation stacks for the stacks table, or NULL */
    uint64_t max_steps;       /* interrupt a statement after about this many SQLite VM
                               * steps (0 = never); fuzzing bounds runaway queries with it */
    uint64_t max_length;      /* longest string or blob a statement may make, in bytes (0 =
                               * SQLite's own limit, 10^9): one step such as printf('%.*c')
                               * or zeroblob() makes its whole value at once, which
                               * max_steps cannot interrupt; fuzzing bounds them with it */
    uint64_t max_ms;          /* interrupt the statements this many milliseconds after
                               * query_sqlite (0 = never): an aggregate over a runaway join
                               * or recursion returns no row a row cap could stop */
} query_opts;

typedef struct query_db query_db;

/* Opens the database over g (which must outlive it; reverse edges are built into g on the
 * first referrer lookup). Returns LR_OK and *out (free: query_close), LR_ERR_NOMEM, or
 * LR_ERR_INTERNAL when SQLite refuses to start. Cost: O(1); indexes come later, on demand. */
lr_status query_open(graph *g, const query_opts *o, query_db **out, lr_error *err);

/* The SQLite handle for sqlite3_prepare_v2 and friends; owned by q. */
struct sqlite3 *query_sqlite(query_db *q);

/* Closes the database and frees every index and analysis it computed. Accepts NULL. */
void query_close(query_db *q);

/* The first failure of a lazily computed value during the last statement (out of memory
 * while building dominators, say), or LR_OK. SQLite only sees "out of memory"; this keeps
 * leakray's own code and message. */
const lr_error *query_last_error(const query_db *q);

/* ---- the same values for verbs that list objects without SQL (instances, path) ---- */

/* Computes the model's dominator tree once. Returns LR_OK or the analysis' error. */
lr_status query_need_retained(query_db *q, lr_error *err);
/* Retained bytes of x under the model (0 when unreachable); query_need_retained first. */
uint64_t query_retained(const query_db *q, node_ix x);
/* Whether a dominates b under the model (a == b counts): b's retained bytes are inside a's.
 * Walks b's dominator chain, at most `steps` of it (past that: 0). query_need_retained
 * first. */
int query_dominates(const query_db *q, node_ix a, node_ix b, uint32_t steps);

/* Nodes whose class is c, ascending, through the per-class index (built once, 4 bytes per
 * node). c = g->n_classes names the nodes without a class. Returns LR_OK and *nodes (owned
 * by q) / *n, or LR_ERR_NOMEM. */
lr_status query_class_nodes(query_db *q, class_ix c, const node_ix **nodes, uint32_t *n,
                            lr_error *err);

/* The shortest paths `path` prints (Shark's BFS; DevTools' retaining path for DEVTOOLS),
 * computed once for every node. Returns LR_OK or the analysis' error. */
lr_status query_need_paths(query_db *q, lr_error *err);
/* query_need_paths and query_need_retained together: when both are still to be built (not
 * DEVTOOLS, where one analysis gives both), the path forest is built on a second thread
 * while this one builds the dominator tree. Same results; the scratch of both is live at
 * once. Returns LR_OK or the first analysis' error. */
lr_status query_need_paths_retained(query_db *q, lr_error *err);
/* One step of x's path towards its GC root: 1 with *parent and *edge (the graph edge from
 * parent to x), 0 when x starts a path (a GC root), -1 when no path reaches x. Needs
 * query_need_paths. O(1) (DEVTOOLS: O(log N)). */
int query_path_step(const query_db *q, node_ix x, node_ix *parent, edge_ix *edge);
/* The root entry (index into g->roots) of a node where a path starts; g->n_roots for the
 * synthetic root of V8 graphs, GRAPH_NONE if unknown. */
uint32_t query_path_root(const query_db *q, node_ix x);

#endif
