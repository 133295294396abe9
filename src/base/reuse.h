/* SPDX-License-Identifier: Apache-2.0 */
/* reuse.h: large freed blocks kept for the next large allocation (base layer), prefix reuse_.
 * The program's allocator wrappers (cli/cli_malloc.c) offer each freed block of at least
 * REUSE_MIN_BYTES that the C library mapped on its own; a kept block's pages stay in the
 * process, so the next large allocation gets them back with no page fault, no zeroing by the
 * kernel and no fresh page from the host, where unmapping and mapping anew costs one fault per
 * 4 KiB page (1.3-5 us each in a VM: most of analyze's system time). The table only decides:
 * which block to give for n bytes (the smallest at least as large, else the largest when the
 * caller may grow it), which to give back to the C library when a new one needs room (the
 * oldest), and how many bytes it holds (at most REUSE_MAX_BYTES in REUSE_SLOTS blocks). The
 * wrappers empty it before taking fresh memory, so a block is kept from its free to the next
 * large allocation only. The caller owns the memory; the table never allocates or frees.
 * Thread-safe (one mutex). */
#ifndef LR_BASE_REUSE_H
#define LR_BASE_REUSE_H

#include <stddef.h>

/* Smallest block worth keeping: glibc maps blocks of this size and more on their own (the
 * CLI fixes its mmap threshold here), and a smaller one goes back to its heap anyway. */
#define REUSE_MIN_BYTES ((size_t)1 << 20)
/* Most blocks kept at once. One: the block freed last is most often the size of the next
 * allocation (a phase's array freed, the next phase's array of the same count allocated),
 * and every block kept past its reuse is memory the process would not hold otherwise (on
 * the 1 GB dump, 2 and 4 slots cut a few more page faults but raised analyze's own memory
 * by 25 and 34 MB, one slot by none measurable; 2 interleaved pairs). */
#define REUSE_SLOTS 1
/* Largest block kept: the bound on the memory kept for reuse (a 1 GB dump of 22 M objects
 * has per-object arrays of 89 MB). */
#define REUSE_MAX_BYTES ((size_t)128 << 20)

/* Offers block p of len bytes, being freed. 1: kept, the caller must not free it; 0: not
 * kept (too small, larger than REUSE_MAX_BYTES). Blocks leaving to make room (the oldest
 * first) are written to gone[0..*n_gone), at most REUSE_SLOTS: the caller frees them. */
int reuse_put(void *p, size_t len, void **gone, size_t *n_gone);

/* Takes a kept block for an allocation of n bytes out of the table: the smallest of at least
 * n bytes, else, when grow is nonzero, the largest (the caller resizes it). NULL when none;
 * *len gets the block's size. */
void *reuse_take(size_t n, int grow, size_t *len);

/* Takes every kept block out (to free them when memory runs short): writes them to
 * out[0..return), at most REUSE_SLOTS. */
size_t reuse_drain(void **out);

/* Bytes kept now. Lock-free read; exact once the callers are quiet. */
size_t reuse_bytes(void);

#endif
