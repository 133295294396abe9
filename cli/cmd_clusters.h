/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_clusters.h: the cluster setup shared by `leakray clusters` and `leakray leaks` (cli),
 * prefix clu_: loading the shipped cluster rules plus user files. Both verbs print the same
 * cluster rows through report/clusters.h. */
#ifndef LR_CLI_CMD_CLUSTERS_H
#define LR_CLI_CMD_CLUSTERS_H

#include "analysis/cluster.h"
#include "cli.h"

/* Loads user rule files (given first, so their lines win) then the shipped arkts.rules.
 * Returns 0 or the exit code after printing the error. */
int clu_load_rules(const cli_common *co, const cli_strlist *files, crules_set *rs);

#endif
