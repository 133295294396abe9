/* SPDX-License-Identifier: Apache-2.0 */
/* retained.h: the default retained-size model of a dump and the leak suspects found in it
 * (analysis layer), prefix ret_. One dominator tree per dump, the same in `top`, `show`,
 * `threads`' totals, analyze's LARGEST RETAINERS and the library's lr_analyze, so one node
 * has one retained size everywhere: DevTools' tree for V8/Node/ArkTS snapshots, VisualVM's
 * conventions for HotSpot dumps, strong references otherwise (docs/design.md). Android's
 * Bitmap.dumpData (buffers the dumper adds) is no reference in the strong model. */
#ifndef LR_ANALYSIS_RETAINED_H
#define LR_ANALYSIS_RETAINED_H

#include "analysis/suspects.h"
#include "graph/graph.h"

#include <pthread.h>

typedef struct ret_model {
    const char *model;  /* "devtools", "visualvm" or "strong" */
    uint32_t n;         /* = g->n_nodes */
    node_ix *idom;      /* immediate dominator, GRAPH_NONE unreachable, top = `top` below */
    node_ix top;        /* idom of top-level nodes: DOM_SUPER_ROOT or the synthetic root */
    uint64_t *retained; /* retained bytes per node */
    uint64_t total;     /* bytes retained by the roots together */
    void *impl;         /* the dom_tree or devtools_result owning the arrays */
    edge_ix artifact;   /* edge left out (Bitmap.dumpData), GRAPH_NONE if none */
} ret_model;

/* Builds the tree. v8_keys is the snapshot's class keys (v8_class_keys; NULL for other
 * formats: the format layer lies above this one, so the caller asks it). Returns LR_OK
 * (free: ret_free) or fills err. */
lr_status ret_build(const graph *g, const str_ix *v8_keys, ret_model *r, lr_error *err);
void ret_free(ret_model *r);

/* The LARGEST RETAINERS: leak suspects (suspects.h) in the model ret_build picks, each with
 * its path from a GC root: DevTools' retaining path on V8-like snapshots, the `path` verb's
 * shortest path otherwise (Java locals and odd roots last). share and accum are 0..1. The
 * tree is freed before this returns, so it never adds to the memory of a later tree. Fills
 * *out (free: susp_free) or err. */
lr_status ret_suspects(const graph *g, const str_ix *v8_keys, double share, double accum,
                       susp_result *out, lr_error *err);
/* ret_suspects, and when keep is not NULL the tree is not freed but handed to *keep whole
 * (idom and 64-bit retained sizes, as ret_build gives them; free: ret_free) for a caller
 * that needs the same tree next (the HTML report's treemap and tables): building it again
 * costs as much as the first time. On failure *keep is zeroed. */
lr_status ret_suspects_keep(const graph *g, const str_ix *v8_keys, double share, double accum,
                            susp_result *out, ret_model *keep, lr_error *err);

/* ret_suspects beside other work: on a graph of split_min nodes or more (RET_SPLIT_MIN
 * below which a thread costs more than it saves) it runs on a second thread from
 * ret_suspects_start until ret_suspects_join (the graph must not change meanwhile; other
 * analyses may read it), on smaller ones at once on the caller's thread. The suspects' tree
 * is independent of the other tree analyze builds, so the two cores build one each, at the
 * cost of both trees' scratch at once: when the memory limit (base/mem) leaves no room for
 * a second one (dom_scratch_bytes) and what it cannot hold would not stay in memory as
 * spilled page cache (ret_job_room), or the process may run on one CPU only (its affinity
 * mask: the threads would take turns), the job runs at once too. */
#define RET_SPLIT_MIN 200000
/* The split_min lr_analyze passes: RET_SPLIT_MIN (tests lower it to run the library's job
 * threaded on small fixtures). */
extern uint32_t ret_split_min;
/* After its tree is built, ret_suspects' passes over the nodes (susp_tree.split_min) and
 * the fill of a suspect's path sizes run in two halves, and its path search's edge index is
 * built beside the search (paths_find_targets_split), from this many nodes (or hops) on,
 * when the process may run on two CPUs: the other core is idle by then. Tests lower it to
 * split on small fixtures; the answer is the same. */
#define RET_PAR_MIN 1000000
extern uint32_t ret_par_min;
typedef struct ret_job {
    const graph *g;
    const str_ix *v8_keys;
    double share, accum;
    susp_result *out;
    ret_model *keep; /* ret_suspects_keep's, or NULL */
    lr_error err;
    lr_status st;
    int threaded;
    pthread_t th;
} ret_job;

/* Whether both trees' scratch may be alive at once: under memory limit lim (0: none) with
 * use bytes allocated and need bytes (dom_scratch_bytes) per tree; past the limit only when
 * the spilled rest, twice over, fits both in disk (spill_room: 0 when spilling is off) and
 * in avail (mem_available_now) beside the dump's data_len bytes. 1 yes, 0 no. */
int ret_job_room(uint64_t lim, uint64_t use, uint64_t need, uint64_t disk, uint64_t avail,
                 uint64_t data_len);
/* Starts the job; *out is filled by ret_suspects_join. */
void ret_suspects_start(ret_job *j, const graph *g, const str_ix *v8_keys, double share,
                        double accum, uint32_t split_min, susp_result *out);
/* The same with ret_suspects_keep's keep (NULL: ret_suspects_start). */
void ret_suspects_start_keep(ret_job *j, const graph *g, const str_ix *v8_keys, double share,
                             double accum, uint32_t split_min, susp_result *out,
                             ret_model *keep);
/* Waits for the job: ret_suspects' status, its error copied into err. */
lr_status ret_suspects_join(ret_job *j, lr_error *err);

#endif
