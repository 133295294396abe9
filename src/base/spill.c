/* SPDX-License-Identifier: Apache-2.0 */
/* spill.c: large blocks backed by unnamed files past the memory limit (base layer), prefix
 * spill_. See spill.h. The blocks are few and large, so a fixed table under a mutex is the
 * registry; free() asks it about every pointer, which costs one atomic load while nothing is
 * spilled and one alignment test for anything glibc handed out (its blocks are never
 * page-aligned at the user pointer, except from the aligned allocators; a block moved in
 * place keeps glibc's 16-byte offset, tested only while such a block lives). Cold marks are a
 * second small table under a lock of their own, held through a move. Nothing here calls
 * malloc: it runs inside the allocator wrappers. */
#define _GNU_SOURCE /* O_TMPFILE, mremap */
#include "base/spill.h"
#include "base/mem.h"
#include "base/mfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Live spilled blocks at once: the big arrays of a load and an analysis are a few dozen. */
#define SPILL_MAX_BLOCKS 1024u
#define SPILL_PAGE 4096u

typedef struct spill_block {
    uintptr_t p; /* the mapping */
    size_t len;
    int fd1; /* its file's descriptor plus one, kept for growing it in place; 0: closed */
    uintptr_t u; /* the caller's pointer: p, or inside p's first page for a moved block */
} spill_block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static spill_block blocks[SPILL_MAX_BLOCKS];
/* Freed blocks kept for the next spill their size serves, mapped as they were; their bytes
 * in kept_b. */
#define SPILL_KEPT 8u
static spill_block kept[SPILL_KEPT];
static uint64_t kept_b;
/* Descriptors held open (fd1), at most max_fds: a quarter of RLIMIT_NOFILE, up to 256. */
static unsigned n_fds, max_fds;
static unsigned n_live;
/* Live blocks moved in place (spill_move), whose caller's pointer is not page-aligned. */
static unsigned n_moved;
static const char *dir_opt;
static uint64_t in_use_b, peak_b, n_spilled, n_moved_all;
/* Spilled bytes (in use and kept) up to which a new block's file is written with zeros when
 * it is made (spill_set_prefill). */
static uint64_t prefill_b;
/* Spilled bytes (in use and kept, the new block counted) past which spill_cool moves
 * marked blocks out (spill_set_cool_after). */
static uint64_t cool_after_b;
static int failed;
static const char *failed_dir;
static uint64_t failed_asked;
static int failed_errno;
static int create_errno;       /* the first spill file that could not be made (not for room) */
static const char *create_dir; /* in which folder */

/* Unmaps a block that left the tables and closes its file. */
static void drop_block(spill_block b)
{
    munmap((void *)b.p, b.len);
    if (b.fd1) {
        close(b.fd1 - 1);
        __atomic_sub_fetch(&n_fds, 1, __ATOMIC_RELAXED);
    }
}

void spill_set_dir(const char *dir)
{
    dir_opt = dir && *dir ? dir : NULL;
    /* kept blocks belong to the folder before */
    pthread_mutex_lock(&lock);
    spill_block gone[SPILL_KEPT];
    memcpy(gone, kept, sizeof gone);
    memset(kept, 0, sizeof kept);
    kept_b = 0;
    pthread_mutex_unlock(&lock);
    for (unsigned i = 0; i < SPILL_KEPT; i++)
        if (gone[i].p)
            drop_block(gone[i]);
}
const char *spill_dir(void) { return dir_opt; }

void spill_set_prefill(uint64_t bytes) { __atomic_store_n(&prefill_b, bytes, __ATOMIC_RELAXED); }
void spill_set_cool_after(uint64_t bytes)
{
    __atomic_store_n(&cool_after_b, bytes, __ATOMIC_RELAXED);
}

/* Never written, so every page of it is the kernel's one zero page: a source for zero_fill
 * that stays in the cache, and costs the program nothing. */
static char zeros[1u << 20];

/* Whether a block of len more bytes is written with zeros when made: while the spilled
 * bytes stay within what spill_set_prefill allows. */
static int prefills(size_t len)
{
    pthread_mutex_lock(&lock);
    uint64_t after = in_use_b + kept_b + len;
    pthread_mutex_unlock(&lock);
    return after <= __atomic_load_n(&prefill_b, __ATOMIC_RELAXED);
}

/* Writes zeros over bytes [from, to) of a block's file, so that its pages are in the page
 * cache before the mapping touches them. A page first touched through the mapping of a
 * reserved (unwritten) extent is read: the kernel allocates its folio, zeroes it, and maps it
 * one fault at a time, and that zeroing ran at a seventh of the speed of an anonymous page's
 * (the 1 GB dump under half its size: 0.78 s of CPU for 972 MB); a write copies the zero
 * page in large steps and leaves the pages up to date, so the first touch only maps them
 * (a third fewer faults on that run). Stops at the first error: the pages it did not write
 * are faulted in as before. */
static void zero_fill(int fd, size_t from, size_t to)
{
    while (from < to) {
        size_t c = to - from < sizeof zeros ? to - from : sizeof zeros;
        ssize_t w = pwrite(fd, zeros, c, (off_t)from);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        from += (size_t)w;
    }
}

uint64_t spill_room(void)
{
    struct statvfs v;
    if (!dir_opt || statvfs(dir_opt, &v) != 0)
        return 0;
    return (uint64_t)v.f_bavail * (v.f_frsize ? v.f_frsize : v.f_bsize);
}

static int is_room(int e) { return e == ENOSPC || e == EDQUOT || e == EFBIG; }

void spill_note_failure(size_t n, int e)
{
    if (!is_room(e))
        return; /* other errors (no such folder, too many files) read as out of memory */
    pthread_mutex_lock(&lock);
    if (!failed) {
        failed = 1;
        failed_dir = dir_opt;
        failed_asked = n;
        failed_errno = e;
    }
    pthread_mutex_unlock(&lock);
}

/* Records p (len bytes) as a live block. Called with the lock held; 0 when the table is
 * full. */
static int enter(uintptr_t p, size_t len, int fd1)
{
    unsigned i = 0;
    while (i < SPILL_MAX_BLOCKS && blocks[i].p)
        i++;
    if (i == SPILL_MAX_BLOCKS)
        return 0;
    blocks[i] = (spill_block){p, len, fd1, p};
    __atomic_add_fetch(&n_live, 1, __ATOMIC_RELAXED);
    in_use_b += len;
    if (in_use_b > peak_b)
        peak_b = in_use_b;
    return 1;
}

/* A kept block for len bytes: the smallest that holds them, its tail beyond twice len given
 * back. Its pages were faulted in and written in its last use, so the next one costs no page
 * fault and no kernel zeroing (on the 1 GB dump under half its size, about a fifth of the
 * bytes spilled came back this way). zero: cleared first (calloc). NULL when none fits. */
static void *take_kept(size_t len, int zero)
{
    pthread_mutex_lock(&lock);
    int best = -1;
    for (unsigned i = 0; i < SPILL_KEPT; i++)
        if (kept[i].p && kept[i].len >= len && (best < 0 || kept[i].len < kept[best].len))
            best = (int)i;
    spill_block b = best >= 0 ? kept[best] : (spill_block){0, 0, 0, 0};
    if (best >= 0) {
        kept[best] = (spill_block){0, 0, 0, 0};
        kept_b -= b.len;
        if (!enter(b.p, b.len, b.fd1)) { /* no slot: back where it was */
            kept[best] = b;
            kept_b += b.len;
            b.p = 0;
        }
    }
    pthread_mutex_unlock(&lock);
    if (!b.p)
        return NULL;
    if (b.len / 2 > len)
        spill_shrink((void *)b.p, len);
    if (zero)
        memset((void *)b.p, 0, len);
    return (void *)b.p;
}

/* Unmaps kept blocks until the spilled and kept bytes with `more` added stay within the most
 * ever spilled at once (a new block past it gives back all of them): keeping never makes
 * the spill's page cache outgrow what the run needed before. */
static void trim_kept(size_t more)
{
    spill_block gone[SPILL_KEPT];
    unsigned n_gone = 0;
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < SPILL_KEPT && kept_b; i++) {
        if (in_use_b + kept_b + more <= peak_b)
            break;
        if (kept[i].p) {
            gone[n_gone++] = kept[i];
            kept_b -= kept[i].len;
            kept[i] = (spill_block){0, 0, 0, 0};
        }
    }
    pthread_mutex_unlock(&lock);
    for (unsigned i = 0; i < n_gone; i++)
        drop_block(gone[i]);
}

/* Whether a file of len bytes stays within the file-size limit (ulimit -f), which would
 * answer fallocate with SIGXFSZ, a kill: past it the folder counts as full. */
static int fsize_allows(size_t len)
{
    struct rlimit rl;
    return !(getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
             (uint64_t)len > (uint64_t)rl.rlim_cur);
}

void *spill_alloc(size_t n, int zero, int *room_err)
{
    const char *dir = dir_opt;
    *room_err = 0;
    if (!dir || n < SPILL_MIN_BYTES || n > SIZE_MAX - SPILL_PAGE)
        return NULL;
    size_t len = (n + SPILL_PAGE - 1) & ~(size_t)(SPILL_PAGE - 1);
    void *k = __atomic_load_n(&kept_b, __ATOMIC_RELAXED) ? take_kept(len, zero) : NULL;
    if (k)
        return k;
    trim_kept(len);
    pthread_mutex_lock(&lock);
    int room = n_live < SPILL_MAX_BLOCKS;
    pthread_mutex_unlock(&lock);
    if (!room)
        return NULL;
    if (!fsize_allows(len)) {
        *room_err = EFBIG;
        return NULL;
    }
    int fd = mfile_open_unnamed(dir, "spill");
    if (fd < 0) {
        int e = errno;
        *room_err = is_room(e) ? e : 0;
        if (!is_room(e)) { /* no such folder, read-only, no permission: said with the limit */
            pthread_mutex_lock(&lock);
            if (!create_errno) {
                create_errno = e;
                create_dir = dir;
            }
            pthread_mutex_unlock(&lock);
        }
        return NULL;
    }
    /* Reserve every block now: a write into a hole of a full disk would be a SIGBUS. */
    int e = posix_fallocate(fd, 0, (off_t)len);
    if (e) {
        close(fd);
        *room_err = is_room(e) ? e : 0;
        return NULL;
    }
    if (prefills(len))
        zero_fill(fd, 0, len);
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    /* the mapping keeps the file; its descriptor stays open, while few are, so that a
     * realloc grows the block in place (spill_grow) */
    if (!__atomic_load_n(&max_fds, __ATOMIC_RELAXED)) {
        struct rlimit nf;
        rlim_t q = getrlimit(RLIMIT_NOFILE, &nf) == 0 ? nf.rlim_cur / 4 : 16;
        __atomic_store_n(&max_fds, q > 256 ? 256u : q ? (unsigned)q : 1u, __ATOMIC_RELAXED);
    }
    int fd1 = 0;
    if (__atomic_add_fetch(&n_fds, 1, __ATOMIC_RELAXED) <= max_fds) {
        fd1 = fd + 1;
    } else {
        __atomic_sub_fetch(&n_fds, 1, __ATOMIC_RELAXED);
        close(fd);
    }
    pthread_mutex_lock(&lock);
    int in = enter((uintptr_t)p, len, fd1);
    if (in)
        n_spilled++;
    pthread_mutex_unlock(&lock);
    if (!in) {
        drop_block((spill_block){(uintptr_t)p, len, fd1, (uintptr_t)p});
        return NULL;
    }
    return p;
}

/* Index of the block whose caller's pointer is u, or -1. Called with the lock held. */
static int find(uintptr_t u)
{
    for (unsigned i = 0; i < SPILL_MAX_BLOCKS; i++)
        if (blocks[i].u == u)
            return (int)i;
    return -1;
}

int spill_owns(const void *p, size_t *len)
{
    uintptr_t in_page = (uintptr_t)p & (SPILL_PAGE - 1);
    if (!__atomic_load_n(&n_live, __ATOMIC_RELAXED) ||
        (in_page && (in_page >= SPILL_PAGE / 2 || !__atomic_load_n(&n_moved, __ATOMIC_RELAXED))))
        return 0;
    pthread_mutex_lock(&lock);
    int i = find((uintptr_t)p);
    if (i >= 0 && len)
        *len = blocks[i].len - (blocks[i].u - blocks[i].p);
    pthread_mutex_unlock(&lock);
    return i >= 0;
}

void spill_free(void *p)
{
    pthread_mutex_lock(&lock);
    int i = find((uintptr_t)p);
    size_t len = 0;
    int fd1 = 0;
    uintptr_t base = 0;
    if (i >= 0) {
        len = blocks[i].len;
        fd1 = blocks[i].fd1;
        base = blocks[i].p;
        if (blocks[i].u != base)
            __atomic_sub_fetch(&n_moved, 1, __ATOMIC_RELAXED);
        blocks[i] = (spill_block){0, 0, 0, 0};
        __atomic_sub_fetch(&n_live, 1, __ATOMIC_RELAXED);
        in_use_b -= len;
        /* kept while the spilled and kept bytes stay within the most spilled at once (a
         * moved block serves a new one from its first byte) */
        for (unsigned k = 0; len && k < SPILL_KEPT; k++)
            if (!kept[k].p && in_use_b + kept_b + len <= peak_b) {
                kept[k] = (spill_block){base, len, fd1, base};
                kept_b += len;
                len = 0;
            }
    }
    pthread_mutex_unlock(&lock);
    if (len)
        drop_block((spill_block){base, len, fd1, base});
}

void spill_shrink(void *p, size_t n)
{
    pthread_mutex_lock(&lock);
    int i = find((uintptr_t)p);
    size_t off = i >= 0 ? blocks[i].u - blocks[i].p : 0;
    size_t keep = (off + n + SPILL_PAGE - 1) & ~(size_t)(SPILL_PAGE - 1);
    if (!keep)
        keep = SPILL_PAGE; /* the block keeps its address: free() must still find it */
    size_t cut = i >= 0 && keep < blocks[i].len ? blocks[i].len - keep : 0;
    if (cut) {
        char *base = (char *)blocks[i].p;
        /* MADV_REMOVE frees the file's blocks too (a hole); munmap alone would not */
        madvise(base + keep, cut, MADV_REMOVE);
        munmap(base + keep, cut);
        blocks[i].len = keep;
        in_use_b -= cut;
    }
    pthread_mutex_unlock(&lock);
}

void *spill_grow(void *p, size_t n)
{
    if (n > SIZE_MAX - SPILL_PAGE)
        return NULL;
    size_t len = (n + SPILL_PAGE - 1) & ~(size_t)(SPILL_PAGE - 1);
    if (!fsize_allows(len))
        return NULL;
    /* the caller owns p: it is neither freed nor resized meanwhile, so its file can be made
     * longer without the lock, which free() of any page-aligned block waits on */
    pthread_mutex_lock(&lock);
    int i = find((uintptr_t)p);
    int fd1 = i >= 0 && len > blocks[i].len ? blocks[i].fd1 : 0;
    size_t had = fd1 ? blocks[i].len : 0;
    pthread_mutex_unlock(&lock);
    if (!fd1 || posix_fallocate(fd1 - 1, 0, (off_t)len) != 0)
        return NULL;
    if (prefills(len - had))
        zero_fill(fd1 - 1, had, len);
    pthread_mutex_lock(&lock);
    i = find((uintptr_t)p);
    void *q = NULL;
    if (i >= 0) {
        q = mremap(p, blocks[i].len, len, MREMAP_MAYMOVE);
        if (q == MAP_FAILED) {
            q = NULL;
        } else {
            in_use_b += len - blocks[i].len;
            if (in_use_b > peak_b)
                peak_b = in_use_b;
            blocks[i].p = blocks[i].u = (uintptr_t)q;
            blocks[i].len = len;
        }
    }
    pthread_mutex_unlock(&lock);
    return q;
}

/* ---- Cold blocks, moved out in place ---- */

/* Blocks marked by spill_cold while still ordinary memory: caller's pointers, 0 when free.
 * cold_lock guards them and is held through spill_cool's moves, so that a free of a marked
 * block (spill_uncold first) waits for a move of it to end. Taken before `lock`, never
 * inside it. */
#define SPILL_COLD 64u
static pthread_mutex_t cold_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t cold[SPILL_COLD];
/* Per mark: moved by any thread's allocation (0), or only by those of cold_by[i] (1). */
static unsigned char cold_mine[SPILL_COLD];
static pthread_t cold_by[SPILL_COLD];
static unsigned n_cold;
static spill_span_fn span_fn; /* the wrappers' (spill_set_span); NULL: nothing is marked */

void spill_set_span(spill_span_fn span) { __atomic_store_n(&span_fn, span, __ATOMIC_RELEASE); }

/* Marks p, movable by any thread's allocation or (mine) only by this thread's. */
static void mark(const void *p, int mine)
{
    spill_span_fn span = __atomic_load_n(&span_fn, __ATOMIC_ACQUIRE);
    void *base;
    size_t len;
    /* only a block that can move is marked: its free or realloc then always forgets it */
    if (!p || !dir_opt || !span || spill_owns(p, NULL) || !span((void *)p, &base, &len))
        return;
    pthread_mutex_lock(&cold_lock);
    int at = -1;
    for (unsigned i = 0; i < SPILL_COLD && at != -2; i++)
        if (cold[i] == (uintptr_t)p)
            at = -2;
        else if (!cold[i] && at == -1)
            at = (int)i;
    if (at >= 0) {
        cold[at] = (uintptr_t)p;
        cold_mine[at] = (unsigned char)mine;
        cold_by[at] = pthread_self();
        __atomic_add_fetch(&n_cold, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&cold_lock);
}

void spill_cold(const void *p) { mark(p, 0); }
void spill_cold_mine(const void *p) { mark(p, 1); }

/* Drops p's mark; called with cold_lock held. */
static void unmark(uintptr_t p)
{
    for (unsigned i = 0; i < SPILL_COLD; i++)
        if (cold[i] == p) {
            cold[i] = 0;
            __atomic_sub_fetch(&n_cold, 1, __ATOMIC_RELAXED);
        }
}

void spill_uncold(const void *p)
{
    if (!__atomic_load_n(&n_cold, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&cold_lock);
    unmark((uintptr_t)p);
    pthread_mutex_unlock(&cold_lock);
}

/* Writes [p, p + len) into fd from its start; 0 when every byte went. */
static int copy_out(int fd, const char *p, size_t len)
{
    size_t at = 0;
    while (at < len) {
        size_t c = len - at < (1u << 30) ? len - at : (1u << 30);
        ssize_t w = pwrite(fd, p + at, c, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        at += (size_t)w;
    }
    return 0;
}

int spill_move(void *u, void *base, size_t len)
{
    const char *dir = dir_opt;
    uintptr_t b = (uintptr_t)base;
    if (!dir || (b & (SPILL_PAGE - 1)) || (len & (SPILL_PAGE - 1)) || !len ||
        (uintptr_t)u < b || (uintptr_t)u - b >= SPILL_PAGE / 2 || !fsize_allows(len))
        return 0;
    pthread_mutex_lock(&lock);
    int room = n_live < SPILL_MAX_BLOCKS && find((uintptr_t)u) < 0;
    pthread_mutex_unlock(&lock);
    if (!room)
        return 0;
    int fd = mfile_open_unnamed(dir, "spill");
    if (fd < 0)
        return 0;
    /* The file is reserved and written whole before the mapping moves: the copy is the
     * block's bytes as they are, and its owner only reads it (spill_cold), so readers
     * meanwhile see the same bytes through either mapping. mremap swaps the pages in one
     * step, or leaves the old ones where they were. */
    void *q = MAP_FAILED;
    if (posix_fallocate(fd, 0, (off_t)len) == 0 && copy_out(fd, base, len) == 0)
        q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the file; a moved block is never grown in place */
    if (q == MAP_FAILED)
        return 0;
    pthread_mutex_lock(&lock);
    int in = n_live < SPILL_MAX_BLOCKS; /* a slot, checked again under the lock */
    if (in && mremap(q, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, base) != base)
        in = 0;
    if (in) {
        enter(b, len, 0);
        blocks[find(b)].u = (uintptr_t)u;
        __atomic_add_fetch(&n_moved, 1, __ATOMIC_RELAXED);
        n_spilled++;
        n_moved_all++;
    }
    pthread_mutex_unlock(&lock);
    if (!in)
        munmap(q, len);
    return in;
}

int spill_cool(size_t n, uint64_t drop, uint64_t reserve)
{
    spill_span_fn span = __atomic_load_n(&span_fn, __ATOMIC_ACQUIRE);
    if (!span || !__atomic_load_n(&n_cold, __ATOMIC_RELAXED))
        return 0;
    /* within the allowance the spilled pages stay in the page cache, unwritten, whatever
     * writes them; a moved block would only trade huge pages for small ones */
    pthread_mutex_lock(&lock);
    uint64_t after = in_use_b + kept_b + n;
    pthread_mutex_unlock(&lock);
    if (after <= __atomic_load_n(&cool_after_b, __ATOMIC_RELAXED))
        return 0;
    pthread_mutex_lock(&cold_lock);
    void *base[SPILL_COLD];
    size_t len[SPILL_COLD], counted[SPILL_COLD];
    uint64_t all = 0;
    for (unsigned i = 0; i < SPILL_COLD; i++) {
        int here = cold[i] && (!cold_mine[i] || pthread_equal(cold_by[i], pthread_self()));
        counted[i] = here ? span((void *)cold[i], &base[i], &len[i]) : 0;
        if (counted[i] && counted[i] < SPILL_MIN_BYTES)
            counted[i] = 0;
        all += counted[i];
    }
    /* nothing moves unless the marked blocks together make room */
    int fits = all && mem_fits(n, drop + all, reserve);
    while (fits && !mem_fits(n, drop, reserve)) {
        /* the smallest block that makes the room alone, else the largest: no more bytes
         * move than the new block needs, in as few moves as may be */
        unsigned j = SPILL_COLD, big = SPILL_COLD;
        for (unsigned i = 0; i < SPILL_COLD; i++) {
            if (!counted[i])
                continue;
            if (big == SPILL_COLD || counted[i] > counted[big])
                big = i;
            if (mem_fits(n, drop + counted[i], reserve) &&
                (j == SPILL_COLD || counted[i] < counted[j]))
                j = i;
        }
        if (j == SPILL_COLD)
            j = big;
        if (j == SPILL_COLD) {
            fits = 0;
            break;
        }
        uintptr_t u = cold[j];
        unmark(u);
        if (spill_move((void *)u, base[j], len[j]))
            mem_account(-(int64_t)counted[j]);
        counted[j] = 0;
    }
    pthread_mutex_unlock(&cold_lock);
    return fits;
}

static uint64_t locked_read(const uint64_t *v)
{
    pthread_mutex_lock(&lock);
    uint64_t x = *v;
    pthread_mutex_unlock(&lock);
    return x;
}

uint64_t spill_in_use(void) { return locked_read(&in_use_b); }
uint64_t spill_peak(void) { return locked_read(&peak_b); }
uint64_t spill_blocks(void) { return locked_read(&n_spilled); }
uint64_t spill_moved_blocks(void) { return locked_read(&n_moved_all); }

int spill_create_failed(const char **dir, int *errnum)
{
    pthread_mutex_lock(&lock);
    int e = create_errno;
    if (e) {
        *dir = create_dir;
        *errnum = e;
    }
    pthread_mutex_unlock(&lock);
    return e != 0;
}

int spill_failed(const char **dir, uint64_t *asked, int *errnum)
{
    pthread_mutex_lock(&lock);
    int f = failed;
    if (f) {
        if (dir)
            *dir = failed_dir;
        if (asked)
            *asked = failed_asked;
        if (errnum)
            *errnum = failed_errno;
    }
    pthread_mutex_unlock(&lock);
    return f;
}
