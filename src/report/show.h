/* SPDX-License-Identifier: Apache-2.0 */
/* show.h: `leakray show` as text and JSON (report layer), prefix rep_show_. Pure functions of
 * a show_result (analysis/show.h) and the names, ids and strings of its graph: the object's
 * header lines, its retained size and dominator, class layout and statics, fields, array
 * elements, edges and referrers, each list as cut by the result. Strings and names from the
 * dump are escaped for the terminal. The JSON writes the key "object" (docs/json.md "show")
 * into an object the caller opened; the CLI adds the envelope and the timing line. */
#ifndef LR_REPORT_SHOW_H
#define LR_REPORT_SHOW_H

#include "analysis/show.h"
#include "base/jsonw.h"

#include <stdio.h>

void rep_show_text(FILE *out, const show_result *r);
void rep_show_json(jsonw *w, const show_result *r);

#endif
