/* SPDX-License-Identifier: Apache-2.0 */
/* hmap.c: growth of the one hash table (base layer), prefix hmap_. See hmap.h. A rehash
 * re-inserts from the stored hashes, so no caller key is read again; capacity doubles, which
 * keeps the total rehash work linear in the entries added. */
#include "base/hmap.h"

#include "base/err.h"

#include "base/hash.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define HMAP_MIN_CAP 16u
#define HMAP_MAX_CAP (1u << 31)

static int hmap_rehash(hmap *m, uint32_t cap)
{
    uint32_t *slot = err_calloc(cap, sizeof *slot);
    uint32_t *hv = err_mallocarray(cap, sizeof *hv);
    if (!slot || !hv) {
        free(slot);
        free(hv);
        return 0;
    }
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->slot[i])
            continue;
        uint32_t j = m->hv[i] & (cap - 1);
        while (slot[j])
            j = (j + 1) & (cap - 1);
        slot[j] = m->slot[i];
        hv[j] = m->hv[i];
    }
    free(m->slot);
    free(m->hv);
    m->slot = slot;
    m->hv = hv;
    m->cap = cap;
    return 1;
}

int hmap_reserve(hmap *m, uint64_t n)
{
    if (n > HMAP_MAX_RESERVE)
        return 0;
    uint64_t cap = HMAP_MIN_CAP;
    while (cap < 2 * n)
        cap *= 2;
    return cap <= m->cap || hmap_rehash(m, (uint32_t)cap);
}

int hmap_add(hmap *m, uint32_t h, uint32_t e)
{
    if (e == HMAP_NONE)
        return 0;
    if (2 * ((uint64_t)m->n + 1) > m->cap) {
        if (m->cap >= HMAP_MAX_CAP || !hmap_rehash(m, m->cap ? 2 * m->cap : HMAP_MIN_CAP))
            return 0;
    }
    uint32_t mask = m->cap - 1, i = h & mask;
    while (m->slot[i])
        i = (i + 1) & mask;
    m->slot[i] = e + 1;
    m->hv[i] = h;
    m->n++;
    return 1;
}

void hmap_free(hmap *m)
{
    free(m->slot);
    free(m->hv);
    m->slot = m->hv = NULL;
    m->cap = m->n = 0;
}

static uint64_t seed;
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;

static void seed_init(void)
{
    uint64_t s = 0;
    if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        s = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)getpid() << 16;
    }
    seed = hash_mix64(s) | 1;
}

uint64_t hmap_seed(void)
{
    pthread_once(&seed_once, seed_init);
    return seed;
}
