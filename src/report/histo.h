/* SPDX-License-Identifier: Apache-2.0 */
/* histo.h: renderings of the class histogram (report layer), prefix rep_histo_. The table
 * `leakray histo` prints (one layout for HPROF and V8), its CSV and its JSON keys
 * (docs/json.md "histo"), each a pure function of an analysis/histo.h result. The JSON
 * functions write keys into an object the caller opened (the CLI adds the document's
 * schema_version, warnings and timing around them). `top` limits the rows shown (0 = all);
 * totals always cover every row. */
#ifndef LR_REPORT_HISTO_H
#define LR_REPORT_HISTO_H

#include "analysis/histo.h"
#include "base/jsonw.h"

#include <stdio.h>

void rep_histo_text(FILE *out, const histo_result *h, uint64_t top);
void rep_histo_csv(FILE *out, const histo_result *h, uint64_t top);
/* "sort", "heap" (null when heap is NULL), "classes", "total". */
void rep_histo_json(jsonw *w, const histo_result *h, uint64_t top, const char *heap,
                    const char *sort);

/* DevTools' Summary (V8): the same table with retained and distance columns when retained,
 * then the heap total and the detached-DOM line. */
void rep_histo_dt_text(FILE *out, const graph *g, const histo_dt_result *h, uint64_t top,
                       int retained);
void rep_histo_dt_csv(FILE *out, const graph *g, const histo_dt_result *h, uint64_t top,
                      int retained);
/* "sort", "heap": null, "model": "devtools", "classes", "total". */
void rep_histo_dt_json(jsonw *w, const graph *g, const histo_dt_result *h, uint64_t top,
                       int retained, const char *sort);

#endif
