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
/* Where a cluster's objects were allocated, as the dump records it (Ruby's file and line
 * under trace_object_allocations): the REP_CLUSTER_SITES sites of most members, most first;
 * count 0 ends the list. */
#define REP_CLUSTER_SITES 3
typedef struct rep_cluster_site {
    str_ix file, method; /* graph strings; method "" when the dump names none */
    uint32_t line;
    uint64_t count;      /* members allocated there */
} rep_cluster_site;

/* The rows alone (also `leakray leaks`): each cluster with its chain, then how many more.
 * similar (NULL: none) gives per cluster the leaked objects whose memlab trace ends in one of
 * its members (`leaks` under memlab's rules); sites (NULL: none) REP_CLUSTER_SITES entries per
 * cluster. */
void rep_clusters_rows_text(FILE *out, const cluster_ctx *c, const cluster_result *r,
                            uint64_t top, const uint64_t *similar,
                            const rep_cluster_site *sites);
/* The array "clusters"; with similar, each row's "similar_leaks"; with sites, its
 * "allocated_at" ([{"site", "count"}]). */
void rep_clusters_rows_json(jsonw *w, const cluster_ctx *c, const cluster_result *r,
                            uint64_t top, const uint64_t *similar,
                            const rep_cluster_site *sites);

#endif
