/* SPDX-License-Identifier: Apache-2.0 */
/* leaks.h: the three-snapshot leak search as text and JSON (report layer), prefix rep_leaks_.
 * What `leakray leaks` found -- objects new in the target and alive in the final snapshot,
 * how many the filters dropped, the leaked total and its clusters -- in one structure the
 * caller fills; also the "inputs" object both comparisons (leaks, diff) write about how
 * related their snapshots are (docs/json.md). JSON functions write keys into an object the
 * caller opened. */
#ifndef LR_REPORT_LEAKS_H
#define LR_REPORT_LEAKS_H

#include "analysis/cluster.h"
#include "analysis/kinship.h"
#include "base/jsonw.h"

#include <stdio.h>

typedef struct rep_leaks {
    const char *baseline, *target, *final; /* paths as given */
    uint64_t n_new;           /* objects new in the target */
    uint64_t n_alive;         /* of them, present in the final snapshot */
    const cluster_ctx *c;     /* the final snapshot's clustering */
    const cluster_result *r;  /* the leaked objects' clusters */
    uint64_t top;             /* clusters listed (0 = all) */
    const kin_stats *ks;      /* baseline/target kinship */
    int related;              /* every pair passed the process check */
    int force;                /* --force was given */
    int memlab;               /* memlab's leak filter and trace clustering were applied */
    uint64_t n_leaked;        /* memlab mode: objects its leak filter reports */
    const uint64_t *similar;  /* memlab mode: per cluster, leaked objects on its traces */
    uint64_t n_reported;      /* memlab mode: the sum of similar (objects in the clusters) */
} rep_leaks;

void rep_leaks_text(FILE *out, const rep_leaks *v);
void rep_leaks_json(jsonw *w, const rep_leaks *v);
/* "inputs": {related, forced, class and id counts} of a checked pair. */
void rep_leaks_inputs_json(jsonw *w, const kin_stats *ks, int related, int force);

#endif
