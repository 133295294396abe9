/* SPDX-License-Identifier: Apache-2.0 */
/* watch_dir.h: the folder the JVM agent writes its dumps to (watch layer), prefix watch_. */
#ifndef LR_WATCH_DIR_H
#define LR_WATCH_DIR_H

#define WATCH_DUMP_PREFIX "leakray-" /* names the agent gives its dumps */
/* What `watch analyze` writes into NAME.json.part at its start, then its process id: the
 * dump is being analysed while that process lives (watch_analysis_mark). */
#define WATCH_ANALYSIS_MARK "leakray-analysis "

#include <stddef.h>

/* The whole mark for this process: WATCH_ANALYSIS_MARK, its id and its process namespace
 * (a process id means nothing in another container sharing the folder), and a newline. */
void watch_analysis_mark(char *out, size_t cap);

/* Keeps the newest max dumps named leakray-*.hprof in dir (by when they were written),
 * deleting older ones with their reports, and the partial dumps of JVMs that died writing
 * them (max bounds the folder). Returns how many were deleted. The agent prunes after each
 * dump it writes, `leakray watch analyze` after each report: a dump whose analysis failed
 * (the analyser crashed, was killed, or is not there) counts too. keep (a path, or NULL)
 * names the dump just written or analysed: it counts as the newest and is never deleted. A
 * dump being analysed (its NAME.json.part younger than a day, and the process its mark names
 * alive) is not deleted either and counts as kept; the reports of dumps that are gone are
 * deleted. */
unsigned watch_prune_dumps(const char *dir, unsigned max, const char *keep);

#endif
