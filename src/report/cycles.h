/* SPDX-License-Identifier: Apache-2.0 */
/* cycles.h: `leakray cycles` as text and JSON (report layer), prefix rep_cycles_. Pure
 * functions of a cycles_result (analysis/cycles.h) and the scope it was found in; the JSON
 * writes keys (docs/json.md "cycles") into an object the caller opened. */
#ifndef LR_REPORT_CYCLES_H
#define LR_REPORT_CYCLES_H

#include "analysis/cycles.h"
#include "base/jsonw.h"

#include <stdio.h>

typedef struct rep_cycles {
    const graph *g;
    const cycles_result *r;   /* what was found */
    const cycles_result *old; /* the baseline's cycles (signatures left out), or NULL */
    const char *baseline;     /* the baseline's path as given, or NULL */
    node_ix from;             /* --from scope object, or GRAPH_NONE */
    const char *cls;          /* --class scope, or NULL */
    uint32_t n_starts;        /* scope start objects */
    int scoped;               /* a scope was given (cycles enumerated) */
    uint32_t max_len;         /* longest cycle enumerated */
    uint64_t top;             /* cycles / components listed */
} rep_cycles;

void rep_cycles_text(FILE *out, const rep_cycles *v);
void rep_cycles_json(jsonw *w, const rep_cycles *v);

#endif
