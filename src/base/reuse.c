/* SPDX-License-Identifier: Apache-2.0 */
/* reuse.c: the table of large freed blocks kept for reuse (base layer), prefix reuse_. A
 * fixed array of REUSE_SLOTS entries in the order they were kept (oldest first), under one
 * mutex: it is touched only by allocations and frees of a megabyte or more, a few hundred per
 * run. Allocates nothing, since it runs inside malloc and free. */
#include "base/reuse.h"

#include <pthread.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *blocks[REUSE_SLOTS]; /* kept blocks, oldest first */
static size_t lens[REUSE_SLOTS];  /* their sizes in bytes */
static size_t n_kept;             /* entries in use */
static size_t kept_bytes;         /* sum of lens; read without the lock by reuse_bytes */

/* Removes entry i, keeping the others in age order. Lock held. */
static void drop_at(size_t i)
{
    __atomic_store_n(&kept_bytes, kept_bytes - lens[i], __ATOMIC_RELAXED);
    memmove(blocks + i, blocks + i + 1, (n_kept - i - 1) * sizeof *blocks);
    memmove(lens + i, lens + i + 1, (n_kept - i - 1) * sizeof *lens);
    n_kept--;
}

int reuse_put(void *p, size_t len, void **gone, size_t *n_gone)
{
    *n_gone = 0;
    if (len < REUSE_MIN_BYTES || len > REUSE_MAX_BYTES)
        return 0;
    pthread_mutex_lock(&lock);
    while (n_kept == REUSE_SLOTS || kept_bytes + len > REUSE_MAX_BYTES) {
        gone[(*n_gone)++] = blocks[0];
        drop_at(0);
    }
    blocks[n_kept] = p;
    lens[n_kept++] = len;
    __atomic_store_n(&kept_bytes, kept_bytes + len, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
    return 1;
}

void *reuse_take(size_t n, int grow, size_t *len)
{
    pthread_mutex_lock(&lock);
    size_t best = n_kept, big = n_kept;
    for (size_t i = 0; i < n_kept; i++) {
        if (lens[i] >= n && (best == n_kept || lens[i] < lens[best]))
            best = i;
        if (big == n_kept || lens[i] > lens[big])
            big = i;
    }
    if (best == n_kept && grow)
        best = big;
    void *p = NULL;
    if (best < n_kept) {
        p = blocks[best];
        *len = lens[best];
        drop_at(best);
    }
    pthread_mutex_unlock(&lock);
    return p;
}

size_t reuse_drain(void **out)
{
    pthread_mutex_lock(&lock);
    size_t n = n_kept;
    memcpy(out, blocks, n * sizeof *blocks);
    n_kept = 0;
    __atomic_store_n(&kept_bytes, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
    return n;
}

size_t reuse_bytes(void) { return __atomic_load_n(&kept_bytes, __ATOMIC_RELAXED); }
