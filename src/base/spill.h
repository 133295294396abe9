/* SPDX-License-Identifier: Apache-2.0 */
/* spill.h: large blocks past the memory limit, backed by unnamed files (base layer), prefix
 * spill_. The program's allocator wrappers (cli/cli_malloc.c) hand out ordinary anonymous
 * memory while the process is under --max-memory; a large block (the per-object and per-edge
 * arrays of a big dump) that would take it past the limit is instead a shared mapping of an
 * unlinked file in the temporary folder. Its pages are page cache: the kernel writes them back
 * and reclaims them under pressure instead of swapping or killing the process, and they are
 * not the process's own memory (RssAnon + RssShmem). The file has no name from the start
 * (O_TMPFILE, else unlinked at once), so nothing is left behind by an exit, an error, a crash
 * or a signal. Its blocks are reserved when the block is made (posix_fallocate): a full disk
 * is a refusal then ("no room in DIR", exit 5), never a SIGBUS on a later write. A freed
 * block is kept, mapped, for the next spill it can hold, while the spilled and kept bytes stay
 * within the most ever spilled at once: a new block costs a page fault and the kernel's
 * zeroing of each page it touches, in a page cache page, which a kept one has paid already
 * (the trees' scratch arrays come and go in step). A library user's process has no wrappers
 * and never spills. */
#ifndef LR_BASE_SPILL_H
#define LR_BASE_SPILL_H

#include <stddef.h>
#include <stdint.h>

/* Smallest block that may spill: smaller ones are not worth a file and a mapping each. */
#define SPILL_MIN_BYTES (256u << 10)

/* Sets the folder spill files go to (NULL: spilling off). Call before allocating. */
void spill_set_dir(const char *dir);
const char *spill_dir(void);
/* Spilled bytes (in use and kept, the new block counted) up to which a new block's file, or
 * a grown block's new part, is written with zeros when it is made, rather than left to the
 * faults of its first touch (cheaper while the spilled blocks stay in the page cache;
 * forcing pages of arrays written sparsely costs more once they do not). Default 0: never. */
void spill_set_prefill(uint64_t bytes);

/* Bytes free for spilled blocks in the folder now (statvfs: blocks available to this user,
 * within RLIMIT_FSIZE per block not counted); 0 when spilling is off or the folder cannot be
 * asked. */
uint64_t spill_room(void);

/* Wrappers only. A page-aligned block of n bytes backed by an unnamed file, zero-filled
 * when `zero` is set (calloc), or NULL (off, too many blocks, no room) with *room_err set to
 * ENOSPC, EDQUOT or EFBIG when the folder had no room, else 0. A block freed before may serve
 * again, its pages still mapped (it then holds its last bytes unless zero is set). */
void *spill_alloc(size_t n, int zero, int *room_err);
/* Records that n bytes could be had neither under the limit nor in the folder (errnum from
 * spill_alloc); the first such failure is what spill_failed reports. */
void spill_note_failure(size_t n, int errnum);
/* Nonzero when p is a live spilled block; *len gets its size. Cheap for other pointers. */
int spill_owns(const void *p, size_t *len);
/* Unmaps a spilled block (spill_owns(p) must hold); its file goes with it. */
void spill_free(void *p);
/* A spilled block p grown to n bytes in place (its file made longer, the mapping moved if
 * need be), its bytes kept: the new address, or NULL (its file no longer open, no room, n
 * not larger) with p unchanged. Costs no copy, and the pages written before stay mapped. */
void *spill_grow(void *p, size_t n);
/* Gives back the pages of a spilled block past its first n bytes (n no more than its size),
 * the file's blocks under them included: realloc to a smaller size. */
void spill_shrink(void *p, size_t n);

/* Bytes in spilled blocks now, the most at any time, and how many blocks were spilled. */
uint64_t spill_in_use(void);
uint64_t spill_peak(void);
uint64_t spill_blocks(void);

/* The first failure to spill for want of room: 1 with the folder and the bytes asked for. */
int spill_failed(const char **dir, uint64_t *asked, int *errnum);

#endif
