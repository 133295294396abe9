/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_clusters.h: cluster rendering shared by `leakray clusters` and `leakray leaks` (cli),
 * prefix clu_. Both print the same cluster rows (rank, count, shallow, retained, title,
 * nesting, representative chain) from a cluster_result; the text and JSON layouts are
 * documented in docs/json.md under "clusters". Also the common setup: loading the shipped
 * cluster rules plus user files, and the dominator tree clustering uses. */
#ifndef LR_CLI_CMD_CLUSTERS_H
#define LR_CLI_CMD_CLUSTERS_H

#include "analysis/cluster.h"
#include "cli.h"

/* Loads user rule files (given first, so their lines win) then the shipped arkts.rules.
 * Returns 0 or the exit code after printing the error. */
int clu_load_rules(const cli_common *co, const cli_strlist *files, crules_set *rs);
/* Text rows: at most `top` clusters (0 = all), each with its chain. */
void clu_print_text(FILE *out, const cluster_ctx *c, const cluster_result *r, uint64_t top);
/* JSON array value "clusters" (the caller has opened the top object). */
void clu_print_json(jsonw *w, const cluster_ctx *c, const cluster_result *r, uint64_t top);

#endif
