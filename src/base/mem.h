/* SPDX-License-Identifier: Apache-2.0 */
/* mem.h: accounting of the bytes the process allocates, against a limit (base layer), prefix
 * mem_. The program's allocator wrappers (cli/cli_malloc.c wraps malloc, calloc, realloc,
 * the aligned allocators and free) ask mem_charge before each allocation and tell mem_release
 * after each free, so every allocation of every layer, and of zlib or SQLite, is counted
 * without changing their call sites. Past the limit the allocation fails (NULL, as when
 * memory runs out) and the refusal is recorded with the phase (base/phase) and the size
 * asked for, so the error printed at exit can say what needed how much, instead of the
 * process meeting the OOM killer. A library user's process has no wrappers: nothing is
 * counted and mem_active() is 0. Counters are atomic (allocations happen on worker threads).
 * mem_populate pre-faults an array its caller is about to write across its length. */
#ifndef LR_BASE_MEM_H
#define LR_BASE_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Sets the limit in bytes (0: none). */
void mem_set_limit(uint64_t bytes);
uint64_t mem_limit(void);

/* The default limit: 90 % of the memory available now (MemAvailable of /proc/meminfo), or of
 * what the process's cgroup still allows when that is less. 0 when neither is known. */
uint64_t mem_default_limit(void);
/* The memory available now, as mem_default_limit counts it (whole, not 90 %); 0 when not
 * known. Page cache the process adds (spilled blocks) must fit in it to stay in memory. */
uint64_t mem_available_now(void);

/* Dirty page cache past which the kernel starts writing it back while the process runs
 * (vm.dirty_background_bytes, else vm.dirty_background_ratio of the memory available now);
 * 0 when not known. Spilled blocks within it are not written to the disk during a run. */
uint64_t mem_dirty_background(void);

/* Wrappers only. mem_charge: may `add` more bytes be allocated while `drop` bytes are freed
 * (realloc)? 1 yes; 0 no, and the refusal is recorded. mem_account adds the bytes actually
 * taken (signed), mem_active marks the wrappers present. */
int mem_charge(uint64_t add, uint64_t drop);
/* Would `add` more bytes (`drop` freed) leave at least `reserve` bytes of the limit unused?
 * Asks only: nothing is recorded. 1 when there is no limit. */
int mem_fits(uint64_t add, uint64_t drop, uint64_t reserve);
void mem_account(int64_t delta);
void mem_set_active(void);
int mem_active(void);

/* Whether the process lets leakray tune glibc's malloc (mallopt: process-wide). Only a
 * program that is leakray (the CLI) says so; a program the library is linked into keeps its
 * own settings. Off by default. */
void mem_set_tuning(int on);
int mem_tuning(void);

/* Bytes allocated now, and the most at any time. */
uint64_t mem_in_use(void);
uint64_t mem_peak(void);

/* The first refusal: 1 and its details (phase name, bytes asked for, bytes in use then), or
 * 0 when none happened. */
int mem_refused(const char **phase, uint64_t *asked, uint64_t *in_use);

/* The caller is about to write all of [p, p + n): a calloc'd per-object array summed or filled
 * across its length. Faults its pages in with one call (MADV_POPULATE_WRITE, Linux 5.14)
 * instead of one page fault per 4 KiB page, or two when the first access is a read (the
 * shared zero page is mapped, then copied on the write, with a TLB flush on every CPU the
 * process runs on). On the 1 GB dump the three 89 MB arrays read before written (the two
 * trees' retained sums, the suspects' biggest children) cost 117 k faults, ~0.2 s of system
 * time. Never for an array that may stay sparse: its untouched pages would become memory.
 * Contents are unchanged; whole pages around the range are populated (they are mapped: they
 * hold the range's first and last bytes). Advisory: a kernel without it, a NULL p or n 0 do
 * nothing; errors are ignored. Thread-safe. */
void mem_populate(void *p, size_t n);

#endif
