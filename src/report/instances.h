/* SPDX-License-Identifier: Apache-2.0 */
/* instances.h: `leakray instances` as text and JSON (report layer), prefix rep_inst_. Pure
 * functions of an inst_result (analysis/instances.h): the count line (every match, with the
 * class, subclasses and --where as asked, and the summed shallow bytes), then one row per
 * instance shown (id, shallow, retained when sorted by it, class), and a line saying how many
 * rows --limit left out. The JSON writes keys (docs/json.md "instances") into an object the
 * caller opened; the CLI adds the document's envelope and the timing lines. */
#ifndef LR_REPORT_INSTANCES_H
#define LR_REPORT_INSTANCES_H

#include "analysis/instances.h"
#include "base/jsonw.h"

#include <stdio.h>

void rep_inst_text(FILE *out, const inst_result *r);
/* "class", "subclasses", "where" (when given), "sort", "count", "shallow", "retained" (sorted
 * by it), "shown", "truncated", "instances". */
void rep_inst_json(jsonw *w, const inst_result *r);

#endif
