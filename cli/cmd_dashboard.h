/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_dashboard.h: `leakray report --db URL -o OUT.html`, the leak store's dashboard (cli),
 * prefix dashboard_. cmd_report.c hands over when dashboard_wanted says so. */
#ifndef LR_CLI_CMD_DASHBOARD_H
#define LR_CLI_CMD_DASHBOARD_H

/* Whether `leakray report ARGS` asks for the store's dashboard: --db is given, or no dump is
 * named and $LEAKRAY_DB is set. */
int dashboard_wanted(int argc, char **argv);

/* The verb: argv as `leakray report` got it. Returns the exit code. */
int cmd_dashboard(int argc, char **argv);

#endif
