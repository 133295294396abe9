/* SPDX-License-Identifier: Apache-2.0 */
/* native.h: a native leak scan as text and JSON (report layer), prefix rep_native_. What
 * `leakray native run|check|report` print for one scan of the malloc monitor: the process and
 * its capture, the live heap, each leak group (direct or indirect, its first bytes, the
 * allocation backtrace) and each thread leak, then the totals -- a pure function of the
 * nscan_report format/nscan.c parsed and symbolised. The scan's analysis ran in the
 * monitored process's forked child, so the parsed report is itself the result: it is the one
 * format structure this layer reads (scripts/check-layers.sh allows format/nscan.h only).
 * JSON functions write keys into an object the caller opened (docs/json.md "native"). */
#ifndef LR_REPORT_NATIVE_H
#define LR_REPORT_NATIVE_H

#include "base/jsonw.h"
#include "format/nscan.h"

#include <stdio.h>

/* The text report, LeakSanitizer-like: header lines, one paragraph per group and thread
 * leak, "SUMMARY:" and, unless no_timing, the pause and the child's scan time. exit_code is
 * the program's exit status under `native run`, -1 otherwise (no line). */
void rep_native_text(FILE *out, const nscan_report *r, int exit_code, int no_timing);
/* "direct", "indirect", "groups", "threads", "pid", "exe", "reason", "capture", "heap",
 * "allocator" (reports from version 3), "backtrace", "exit_code" (exit_code >= 0 only) and,
 * unless no_timing, "timing". */
void rep_native_json(jsonw *w, const nscan_report *r, int exit_code, int no_timing);

/* `native check --signal`: the signal sent, as "sent signal N to PID" or "pid", "signal". */
void rep_native_signal_text(FILE *out, long pid, int signo);
void rep_native_signal_json(jsonw *w, long pid, int signo);

#endif
