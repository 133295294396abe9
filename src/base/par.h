/* SPDX-License-Identifier: Apache-2.0 */
/* par.h: one piece of work in two halves on two cores (base layer), prefix par_. The load and
 * the analyses split their long passes over nodes, records or segments in two; each half
 * owns its output slots, so the halves need no lock, and a machine that refuses a thread
 * still gets the whole answer, one half after the other, in the same order. */
#ifndef LR_BASE_PAR_H
#define LR_BASE_PAR_H

/* Runs fn(a) on the calling thread and, when `both` is nonzero, fn(b) beside it on a thread
 * of its own (or after fn(a) if no thread can be made); returns when both are done. */
void par_two(void *(*fn)(void *), void *a, void *b, int both);

/* Whether this process may run on two CPUs or more (its affinity mask: a taskset or a
 * container's cpuset narrows it; on one CPU two halves would only take turns, for the cost
 * of their merge). Unknown counts as yes. */
int par_two_cpus(void);

#endif
