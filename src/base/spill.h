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
 * (the trees' scratch arrays come and go in step). Arrays their owner only reads from some
 * point on (the loaded graph's) may be marked cold: once the spill passes the kernel's
 * background write-back threshold, such an array moves to a file in place to make room in
 * memory before a new block would spill, so what the kernel writes back again and again is
 * not scratch written at random but arrays written once. A library user's process has no
 * wrappers and never spills. */
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

/* Spilled bytes (in use and kept, the new block counted) up to which no marked block moves
 * (spill_cold): the kernel writes nothing back below its background threshold
 * (mem_dirty_background), so spilled scratch costs no disk there. Default 0: always. */
void spill_set_cool_after(uint64_t bytes);

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

/* What the wrappers know of a block u from malloc: its counted bytes when it can move to a
 * file in place (glibc mapped it alone), with the mapping that holds it; else 0. */
typedef size_t (*spill_span_fn)(void *u, void **base, size_t *len);
/* Wrappers only: set once, at start; without it nothing is marked or moved. */
void spill_set_span(spill_span_fn span);
/* Marks p, a block from malloc, as one its owner reads and no longer writes (a loaded
 * graph's per-object and per-edge arrays). When a new large block would spill later, the
 * wrappers first move such blocks into unnamed files in place (same address, same bytes;
 * spill_move) until the new block fits in memory: a spilled block read only is written to
 * the disk once, where scratch written at random, spilled, is written back again and again
 * as the kernel cleans its pages. A move copies the bytes and then swaps the pages, so the
 * owner may still write the block from the thread that allocates (a move happens inside an
 * allocation), never from another one while others allocate. No-op while spilling is off,
 * without the wrappers, or for a block that cannot move; a freed or reallocated block is
 * forgotten. */
void spill_cold(const void *p);
/* spill_cold for a block the calling thread still writes (in order, say): only this
 * thread's allocations move it, so no write is under way meanwhile. */
void spill_cold_mine(const void *p);
/* Wrappers only: forgets p's mark (free, realloc); cheap while nothing is marked. */
void spill_uncold(const void *p);
/* Wrappers only: moves the mapping [base, base + len), page-aligned, holding the block whose
 * pointer is u (in its first half page), to an unnamed file in place, and lists it as a
 * spilled block (spill_owns(u), spill_free(u)). 1 done; 0 not (no room, no folder), the
 * block left as it was. */
int spill_move(void *u, void *base, size_t len);
/* Wrappers only: moves marked blocks (the smallest that makes the room alone, else the
 * largest, and again) until n more bytes (drop freed) leave `reserve` of the limit unused
 * (mem_fits), uncounting each moved block: 1 when they do; nothing moves when all the marked
 * blocks together would not make the room, or while the spilled bytes with n stay within
 * spill_set_cool_after's threshold. */
int spill_cool(size_t n, uint64_t drop, uint64_t reserve);

/* Bytes in spilled blocks now, the most at any time, and how many blocks were spilled. */
uint64_t spill_in_use(void);
uint64_t spill_peak(void);
uint64_t spill_blocks(void);
/* Of those, the blocks moved in place (spill_move). */
uint64_t spill_moved_blocks(void);

/* The first failure to spill for want of room: 1 with the folder and the bytes asked for. */
int spill_failed(const char **dir, uint64_t *asked, int *errnum);
/* The first spill file that could not be made for another reason than room (a missing or
 * read-only folder: $TMPDIR unset to a usable one): 1 with the folder and errno. */
int spill_create_failed(const char **dir, int *errnum);

#endif
