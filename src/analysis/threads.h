/* SPDX-License-Identifier: Apache-2.0 */
/* threads.h: the threads of a dump and what they retain (analysis layer), prefix threads_.
 * Every thread of g->threads (THREAD_OBJECT roots and STACK_TRACE records): its name, state
 * and daemon flag where the dump has them, and MAT's Thread Overview retained size -- what
 * its object retains once its locals count as its references (frames of a thread with a
 * thread object are not roots of their own), plus what only its locals reach. Frames and
 * locals stay in the graph (g->frames, JAVA_FRAME roots); the renderings (report/threads.h)
 * read them there, with each local's retained size from the caller's per-node sizes. */
#ifndef LR_ANALYSIS_THREADS_H
#define LR_ANALYSIS_THREADS_H

#include "graph/graph.h"

#define THREADS_NAME_MAX 256

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

/* Fills r for every thread of g; retained (n entries) gives each local's and each thread
 * object's own retained size. One dominator tree whose frame roots are references of their
 * thread, one pass over what it leaves unreachable. Returns LR_OK (free: threads_free),
 * LR_ERR_NOMEM. */
lr_status threads_build(const graph *g, const uint64_t *retained, uint32_t n,
                        threads_result *r, lr_error *err);
void threads_free(threads_result *r);

#endif
