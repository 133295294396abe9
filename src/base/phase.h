/* SPDX-License-Identifier: Apache-2.0 */
/* phase.h: named phases of one run (base layer), prefix phase_. Readers and analyses mark
 * where they are (phase_enter("pass2"), phase_enter("dominators")), so that a resource limit
 * can say what needed the memory (base/mem) and --timing can say where the time went: each
 * phase's wall and CPU time (process CPU, so a phase that keeps both cores busy shows CPU
 * near twice its wall). Names are static strings; a name entered again adds to its totals.
 * The totals are process-wide and kept by the main thread. A worker thread that runs a whole
 * analysis beside it (analyze's suspects) calls phase_worker() first: its phase_enter calls
 * then only name what it is doing, for phase_current in that thread (a resource limit's
 * message), and its CPU time lands in the main thread's phases, which then show CPU up to
 * twice their wall. */
#ifndef LR_BASE_PHASE_H
#define LR_BASE_PHASE_H

#include <stdio.h>

/* Ends the current phase (adding its time to its totals) and starts `name` (static). */
void phase_enter(const char *name);

/* The current phase's name in this thread, "start" before the first phase_enter. */
const char *phase_current(void);

/* Marks the calling thread as a worker (see above) whose current phase starts as `name`. */
void phase_worker(const char *name);

typedef struct phase_stat {
    const char *name;
    double wall_ms; /* wall-clock milliseconds, summed over entries */
    double cpu_ms;  /* process CPU milliseconds (all threads), summed */
} phase_stat;

/* Closes the current phase and copies up to cap totals, in first-entered order, into out.
 * Returns how many there are. The current phase continues (its clock restarts). */
unsigned phase_stats(phase_stat *out, unsigned cap);

/* Prints "phase  wall  cpu" lines for every phase on out (for --timing). */
void phase_print(FILE *out);

#endif
