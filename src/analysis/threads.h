/* SPDX-License-Identifier: Apache-2.0 */
/* threads.h: the threads of a dump and what they retain (analysis layer), prefix threads_.
 * Every thread of g->threads (THREAD_OBJECT roots and STACK_TRACE records): its name, state
 * and daemon flag where the dump has them, and MAT's Thread Overview retained size -- what
 * its object retains once its locals count as its references (frames of a thread with a
 * thread object are not roots of their own; threads_with_locals, shared with suspects.c).
 * Frames and locals stay in the graph (g->frames, JAVA_FRAME roots); the renderings
 * (report/threads.h) read them there, with each local's retained size from the caller's
 * per-node sizes. */
#ifndef LR_ANALYSIS_THREADS_H
#define LR_ANALYSIS_THREADS_H

#include "graph/graph.h"

#define THREADS_NAME_MAX 256
#define THREADS_NONE UINT32_MAX /* no thread (threads_with_locals' under) */

typedef struct threads_row {
    node_ix node;           /* the thread object, or GRAPH_NONE */
    char name[THREADS_NAME_MAX]; /* Thread.name, or what rules_thread_name makes of it */
    const char *state;      /* Thread.State from threadStatus, NULL if the dump has none */
    int daemon;             /* 1 daemon, 0 not, -1 unknown */
    uint64_t with_locals;   /* retained with its locals (MAT) */
} threads_row;

typedef struct threads_result {
    const graph *g;             /* not owned */
    threads_row *rows;          /* g->n_threads rows, in g->threads order */
    const uint64_t *retained;   /* per-node retained sizes (the caller's; not owned) */
    uint32_t n_retained;        /* entries of retained */
} threads_result;

/* MAT's Thread Overview figure, the one `threads` and the leak suspects of `analyze` both
 * print: with[t] (g->n_threads entries, in g->threads order) = what thread t's object
 * retains in a dominator tree over strong references (less the GC's pending-list link,
 * dom_gc_link) whose Java-frame roots of threads that have an object are references of
 * that object instead (dom_opts.extra_*), so a thread keeps what it alone reaches, through
 * its fields or its locals. 0 for a thread without an object or an unreachable one. One
 * dominator tree (dom_scratch_bytes); reads no other model. under, if not NULL (g->n_nodes
 * entries), receives for each node the index in g->threads of the thread whose object is
 * its nearest strict dominator among thread objects, THREADS_NONE if none: what a thread's
 * figure counts is what has it up that chain (the leak suspects leave those objects to a
 * thread they print). Returns LR_OK, LR_ERR_NOMEM or LR_ERR_LIMIT. */
lr_status threads_with_locals(const graph *g, uint64_t *with, uint32_t *under, lr_error *err);

/* A node threads_within may take as reached without the thread (the walk goes no further
 * there): nonzero = yes. */
typedef int (*threads_stop_fn)(void *ctx, node_ix x);

/* 1 when threads_with_locals' figure for thread t (index in g->threads) is at most limit,
 * found without a tree: a walk from the thread's object that stops at roots, over at
 * most THREADS_BOUND_NODES or N / THREADS_BOUND_DIV nodes, whichever is more (a bitset of
 * N, zeroed pages, and a stack of that many nodes): a small share of a tree's cost. 0 when it
 * may be more, the walk is too long, or out of memory: then only the tree tells. With stop
 * NULL the answer is sure; a stop function's nodes are taken on its word (the leak suspects
 * pass the top-level objects other roots also reach, suspects.c). The walker holds what every
 * thread's walk reads (the roots and locals, sorted; the bitset), made once by
 * threads_walker_new (NULL: out of memory, or no edges): a dump with thousands of threads
 * sorted them again for each. */
#define THREADS_BOUND_NODES 65536u
#define THREADS_BOUND_DIV 16u
typedef struct threads_walker threads_walker;
threads_walker *threads_walker_new(const graph *g);
void threads_walker_free(threads_walker *w);
int threads_within(threads_walker *w, uint32_t t, uint64_t limit, threads_stop_fn stop,
                   void *ctx);

/* Fills r for every thread of g; retained (n entries) gives each local's and each thread
 * object's own retained size; with_locals comes from threads_with_locals. Returns LR_OK
 * (free: threads_free), LR_ERR_NOMEM. */
lr_status threads_build(const graph *g, const uint64_t *retained, uint32_t n,
                        threads_result *r, lr_error *err);
void threads_free(threads_result *r);

#endif
