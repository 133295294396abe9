/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_clusters.h: the cluster setup shared by `leakray clusters` and `leakray leaks` (cli),
 * prefix clu_: loading user cluster rules, then the shipped ones the loaded snapshot's
 * runtime takes (rules/v8.rules or rules/arkts.rules). Both verbs print the same cluster
 * rows through report/clusters.h. */
#ifndef LR_CLI_CMD_CLUSTERS_H
#define LR_CLI_CMD_CLUSTERS_H

#include "analysis/cluster.h"
#include "cli.h"

/* Initialises rs and loads the user rule files, before any snapshot so that a typo stops
 * the command at once. Returns 0 or the exit code after printing the error (rs freed). */
int clu_load_rules(const cli_common *co, const cli_strlist *files, crules_set *rs);
/* Appends the shipped cluster rules g's runtime takes (crules_shipped_file), after the user's
 * so that their lines win. Returns 0 or the exit code after printing the error (rs kept:
 * the caller frees it). */
int clu_load_shipped(const cli_common *co, const graph *g, crules_set *rs);

#endif
