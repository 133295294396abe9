/* SPDX-License-Identifier: Apache-2.0 */
/* top.h: `leakray top` as text, CSV and JSON (report layer), prefix rep_top_. Pure functions
 * of a top_result (analysis/top.h): the header line with the reachable objects and bytes, then
 * one row per object or class (id, retained, shallow, % of the reachable bytes, class; DevTools
 * adds the distance, exact models the Android native bytes and the allocation site). The JSON
 * writes keys (docs/json.md "top") into an object the caller opened; the CLI adds the
 * document's envelope and the timing lines. */
#ifndef LR_REPORT_TOP_H
#define LR_REPORT_TOP_H

#include "analysis/top.h"
#include "base/jsonw.h"

#include <stdio.h>

void rep_top_text(FILE *out, const top_result *r);
void rep_top_csv(FILE *out, const top_result *r);
/* "by", "model", "reachable_objects", "reachable_bytes", DevTools' "heap_total", then
 * "objects" or "classes". */
void rep_top_json(jsonw *w, const top_result *r);

#endif
