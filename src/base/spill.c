/* SPDX-License-Identifier: Apache-2.0 */
/* spill.c: large blocks backed by unnamed files past the memory limit (base layer), prefix
 * spill_. See spill.h. The blocks are few and large, so a fixed table under a mutex is the
 * registry; free() asks it about every pointer, which costs one atomic load while nothing is
 * spilled and one alignment test for anything glibc handed out (its blocks are never
 * page-aligned at the user pointer, except from the aligned allocators). Nothing here calls
 * malloc: it runs inside the allocator wrappers. */
#define _GNU_SOURCE /* O_TMPFILE */
#include "base/spill.h"
#include "base/mfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Live spilled blocks at once: the big arrays of a load and an analysis are a few dozen. */
#define SPILL_MAX_BLOCKS 1024u
#define SPILL_PAGE 4096u

typedef struct spill_block {
    uintptr_t p;
    size_t len;
} spill_block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static spill_block blocks[SPILL_MAX_BLOCKS];
static unsigned n_live;
static const char *dir_opt;
static uint64_t in_use_b, peak_b, n_spilled;
static int failed;
static const char *failed_dir;
static uint64_t failed_asked;
static int failed_errno;

void spill_set_dir(const char *dir) { dir_opt = dir && *dir ? dir : NULL; }
const char *spill_dir(void) { return dir_opt; }

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

void *spill_alloc(size_t n, int *room_err)
{
    const char *dir = dir_opt;
    *room_err = 0;
    if (!dir || n < SPILL_MIN_BYTES || n > SIZE_MAX - SPILL_PAGE)
        return NULL;
    size_t len = (n + SPILL_PAGE - 1) & ~(size_t)(SPILL_PAGE - 1);
    pthread_mutex_lock(&lock);
    int room = n_live < SPILL_MAX_BLOCKS;
    pthread_mutex_unlock(&lock);
    if (!room)
        return NULL;
    /* A file-size limit (ulimit -f) would answer fallocate with SIGXFSZ, which kills: take
     * it as the full folder it amounts to. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (uint64_t)len > (uint64_t)rl.rlim_cur) {
        *room_err = EFBIG;
        return NULL;
    }
    int fd = mfile_open_unnamed(dir, "spill");
    if (fd < 0) {
        *room_err = is_room(errno) ? errno : 0;
        return NULL;
    }
    /* Reserve every block now: a write into a hole of a full disk would be a SIGBUS. */
    int e = posix_fallocate(fd, 0, (off_t)len);
    if (e) {
        close(fd);
        *room_err = is_room(e) ? e : 0;
        return NULL;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the file */
    if (p == MAP_FAILED)
        return NULL;
    pthread_mutex_lock(&lock);
    unsigned i = 0;
    while (i < SPILL_MAX_BLOCKS && blocks[i].p)
        i++;
    if (i == SPILL_MAX_BLOCKS) {
        pthread_mutex_unlock(&lock);
        munmap(p, len);
        return NULL;
    }
    blocks[i] = (spill_block){(uintptr_t)p, len};
    __atomic_add_fetch(&n_live, 1, __ATOMIC_RELAXED);
    in_use_b += len;
    if (in_use_b > peak_b)
        peak_b = in_use_b;
    n_spilled++;
    pthread_mutex_unlock(&lock);
    return p;
}

/* Index of p's block, or -1. Called with the lock held. */
static int find(uintptr_t p)
{
    for (unsigned i = 0; i < SPILL_MAX_BLOCKS; i++)
        if (blocks[i].p == p)
            return (int)i;
    return -1;
}

int spill_owns(const void *p, size_t *len)
{
    if (!__atomic_load_n(&n_live, __ATOMIC_RELAXED) || ((uintptr_t)p & (SPILL_PAGE - 1)))
        return 0;
    pthread_mutex_lock(&lock);
    int i = find((uintptr_t)p);
    if (i >= 0 && len)
        *len = blocks[i].len;
    pthread_mutex_unlock(&lock);
    return i >= 0;
}

void spill_free(void *p)
{
    pthread_mutex_lock(&lock);
    int i = find((uintptr_t)p);
    size_t len = 0;
    if (i >= 0) {
        len = blocks[i].len;
        blocks[i] = (spill_block){0, 0};
        __atomic_sub_fetch(&n_live, 1, __ATOMIC_RELAXED);
        in_use_b -= len;
    }
    pthread_mutex_unlock(&lock);
    if (len)
        munmap(p, len);
}

void spill_shrink(void *p, size_t n)
{
    size_t keep = (n + SPILL_PAGE - 1) & ~(size_t)(SPILL_PAGE - 1);
    if (!keep)
        keep = SPILL_PAGE; /* the block keeps its address: free() must still find it */
    pthread_mutex_lock(&lock);
    int i = find((uintptr_t)p);
    size_t cut = i >= 0 && keep < blocks[i].len ? blocks[i].len - keep : 0;
    if (cut) {
        /* MADV_REMOVE frees the file's blocks too (a hole); munmap alone would not */
        madvise((char *)p + keep, cut, MADV_REMOVE);
        munmap((char *)p + keep, cut);
        blocks[i].len = keep;
        in_use_b -= cut;
    }
    pthread_mutex_unlock(&lock);
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
