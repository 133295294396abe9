/* SPDX-License-Identifier: Apache-2.0 */
/* merged.h: `leakray path --class CLASS --merged` as text and JSON (report layer), prefix
 * rep_merged_. Pure functions of a merged_result (analysis/merged.h): a title with the
 * instances reached and not, then the tree from the GC roots down, one line per node with the
 * instances whose path runs through it and their summed retained bytes, the reference that
 * leads to it, the object, its root kind (tops) and a star on the instances themselves; the
 * branches --limit leaves out are summed on a "... more" line, so nothing is left out
 * silently. The JSON writes keys (docs/json.md "path --merged") into an object the caller
 * opened; the CLI adds the document's envelope and the timing lines. */
#ifndef LR_REPORT_MERGED_H
#define LR_REPORT_MERGED_H

#include "analysis/merged.h"
#include "base/jsonw.h"

#include <stdio.h>

void rep_merged_text(FILE *out, const merged_result *r);
/* "class", "subclasses", "model", "instances", "reachable", "unreachable",
 * "unreachable_retained", "tree_nodes", "tree", then the tops' "more_*" keys when cut. */
void rep_merged_json(jsonw *w, const merged_result *r);

#endif
