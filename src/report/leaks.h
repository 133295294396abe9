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
#include "report/clusters.h"

#include <stdio.h>

/* New objects in the final V8-format snapshot that no path from a root reaches, per class:
 * V8 and JavaScriptCore (Bun) write live objects only, so references the writer left out
 * hold them (Bun leaves out a Map's entries). Not clustered (a cluster needs a chain from a
 * root), so listed apart. */
#define REP_LEAKS_UNRETAINED_MAX 10 /* classes listed, most objects first */
typedef struct rep_leaks_unretained {
    const char *name;   /* class name (the graph's string) */
    uint64_t count;     /* objects */
    uint64_t shallow;   /* their shallow bytes */
} rep_leaks_unretained;

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
    uint64_t reported_shallow; /* memlab mode: their shallow bytes */
    uint64_t n_unretained;    /* all-objects mode: new, alive, no path from a root */
    uint64_t unretained_shallow; /* their shallow bytes */
    const rep_leaks_unretained *unretained; /* the biggest classes of them, most objects first */
    uint32_t n_unretained_classes;          /* entries in unretained */
    const rep_cluster_site *sites; /* per cluster, where its objects were made; NULL: unknown */
} rep_leaks;

void rep_leaks_text(FILE *out, const rep_leaks *v);
void rep_leaks_json(jsonw *w, const rep_leaks *v);
/* "inputs": {related, forced, class and id counts} of a checked pair. */
void rep_leaks_inputs_json(jsonw *w, const kin_stats *ks, int related, int force);

#endif
