/* SPDX-License-Identifier: Apache-2.0 */
/* diff.h: `leakray diff` as text and JSON (report layer), prefix rep_diff_. Pure functions of
 * a diff_result (analysis/diff.h), its growth gates and the two inputs' kinship; the JSON
 * writes keys (docs/json.md "diff") into an object the caller opened. */
#ifndef LR_REPORT_DIFF_H
#define LR_REPORT_DIFF_H

#include "analysis/diff.h"
#include "analysis/kinship.h"
#include "base/jsonw.h"

#include <stdio.h>

typedef struct rep_diff {
    const char *a, *b;         /* paths as given (a is the base) */
    const diff_result *r;
    int by_id;                 /* objects matched by id (else per class) */
    uint32_t n;                /* rows shown (the total covers all) */
    const diff_gate *gates;    /* evaluated growth gates */
    uint32_t n_gates;
    const kin_stats *ks;       /* the pair's kinship */
    int related, force;        /* the process check passed; --force was given */
} rep_diff;

void rep_diff_text(FILE *out, const rep_diff *v);
void rep_diff_json(jsonw *w, const rep_diff *v);

#endif
