/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_report.h: writing a rendered report to a file or stdout, shared by `leakray report`
 * (and its --db dashboard) and `leakray analyze --html` (cli), prefix report_. */
#ifndef LR_CLI_CMD_REPORT_H
#define LR_CLI_CMD_REPORT_H

#include "cli.h"

/* Writes len bytes of buf to path: "-" to stdout (a failed write is reported
 * with exit 4 when main flushes it), any other path atomically (a temporary file beside it,
 * renamed on success). Returns 0, or the exit code after printing the error. */
int report_write(const cli_common *co, const char *path, const char *buf, size_t len);

/* Renders an in fmt into path (report_write), showing dump_path as the dump's path. Sets
 * *bytes to the size written. Returns 0, or the exit code after printing the error. */
int report_write_file(const cli_common *co, lr_analysis *an, lr_render_format fmt,
                      const char *path, const char *dump_path, uint64_t *bytes);

#endif
