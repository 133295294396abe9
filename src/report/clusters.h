/* SPDX-License-Identifier: Apache-2.0 */
/* clusters.h: clusters as text and JSON (report layer), prefix rep_clusters_. Pure functions
 * of a bound cluster_ctx and its cluster_result (analysis/cluster.h); layouts in docs/json.md
 * "clusters". JSON functions write keys into an object the caller opened. `top` limits the
 * clusters shown (0 = all). */
#ifndef LR_REPORT_CLUSTERS_H
#define LR_REPORT_CLUSTERS_H

#include "analysis/cluster.h"
#include "base/jsonw.h"

#include <stdio.h>

/* `leakray clusters`: the summary line, the anchor directories, then the rows. */
void rep_clusters_text(FILE *out, const char *path, const cluster_ctx *c,
                       const cluster_result *r, uint64_t top, int detached);
/* "file", "sort", totals, "anchors", "clusters". */
void rep_clusters_json(jsonw *w, const char *path, const char *sort, const cluster_ctx *c,
                       const cluster_result *r, uint64_t top);
/* The rows alone (also `leakray leaks`): each cluster with its chain, then how many more.
 * similar (NULL: none) gives per cluster the leaked objects whose memlab trace ends in one of
 * its members (`leaks` under memlab's rules). */
void rep_clusters_rows_text(FILE *out, const cluster_ctx *c, const cluster_result *r,
                            uint64_t top, const uint64_t *similar);
/* The array "clusters"; with similar, each row's "similar_leaks". */
void rep_clusters_rows_json(jsonw *w, const cluster_ctx *c, const cluster_result *r,
                            uint64_t top, const uint64_t *similar);

#endif
