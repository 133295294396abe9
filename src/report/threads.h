/* SPDX-License-Identifier: Apache-2.0 */
/* threads.h: `leakray threads` as text and JSON (report layer), prefix rep_threads_. Pure
 * functions of a threads_result (analysis/threads.h) and the frames and roots of its graph;
 * the JSON writes keys ("file", "threads"; docs/json.md) into an object the caller opened. */
#ifndef LR_REPORT_THREADS_H
#define LR_REPORT_THREADS_H

#include "analysis/threads.h"
#include "base/jsonw.h"

#include <stdio.h>

/* top: 0 lists every thread in dump order; N the N that retain most (with their locals),
 * most first, then (text) a line counting the rest */
void rep_threads_text(FILE *out, const threads_result *r, uint32_t top);
void rep_threads_json(jsonw *w, const threads_result *r, const char *path, uint32_t top);

#endif
