/* SPDX-License-Identifier: Apache-2.0 */
/* hmap.h: the hash table of every layer (base layer), prefix hmap_. An hmap does not hold
 * keys: it maps a key's 32-bit hash to the numbers of the caller's entries (0..2^32-2), and
 * the caller keeps its keys in its own arrays, as it already must to use them. A lookup walks
 * the entries whose stored hash equals the key's and lets the caller compare:
 *
 *     hmap_it it;
 *     for (uint32_t e = hmap_first(&m, h, &it); e != HMAP_NONE; e = hmap_next(&m, &it))
 *         if (strcmp(names[e], key) == 0)
 *             return e;
 *     ... absent: append the key to names[] as entry n, then hmap_add(&m, h, n)
 *
 * Layout: open addressing with linear probing over a power-of-two number of slots, each slot
 * two uint32 (entry + 1, 0 = empty; the full hash, compared before the caller's keys are
 * touched), so 16 bytes per entry at the table's maximum load of one half. Entries are never
 * removed. Probe sequences depend only on the hashes, so iteration never looks at slot order
 * and results do not depend on the table's capacity. */
#ifndef LR_BASE_HMAP_H
#define LR_BASE_HMAP_H

#include <stdint.h>

#define HMAP_NONE UINT32_MAX
#define HMAP_MAX_RESERVE (1u << 30) /* the most entries hmap_reserve accepts */

typedef struct hmap {
    uint32_t *slot; /* entry + 1, 0 = empty */
    uint32_t *hv;   /* hash of the slot's entry */
    uint32_t cap;   /* slots, a power of two, or 0 before the first add */
    uint32_t n;     /* entries */
} hmap;

typedef struct hmap_it {
    uint32_t pos, h;
} hmap_it;

/* Makes room for n entries in total, so that many adds never rehash. Returns 0 when out of
 * memory or n is beyond HMAP_MAX_RESERVE (the table then is unchanged). A zeroed hmap is
 * empty and valid. */
int hmap_reserve(hmap *m, uint64_t n);

/* A value drawn once per process (getrandom, else the clock and pid), for the tables whose
 * keys come from a dump: their hash starts from it, so keys chosen to collide in a known
 * hash (a multicollision of FNV-1a, ids found by inverting hash_mix64) collide in none.
 * Never 0; thread-safe. Tables keep their entries in insertion order, so no output
 * depends on it. */
uint64_t hmap_seed(void);

/* Adds entry e under hash h (the caller has checked it is absent if keys are unique). Grows
 * at half load. Returns 0 when out of memory (nothing added). */
int hmap_add(hmap *m, uint32_t h, uint32_t e);

/* Frees the slots; the hmap is empty again. */
void hmap_free(hmap *m);

/* The next entry at or after it->pos whose hash equals it->h, or HMAP_NONE. */
static inline uint32_t hmap_next(const hmap *m, hmap_it *it)
{
    if (!m->cap)
        return HMAP_NONE;
    uint32_t mask = m->cap - 1;
    for (uint32_t i = it->pos;; i = (i + 1) & mask) {
        uint32_t s = m->slot[i];
        if (!s) {
            it->pos = i;
            return HMAP_NONE;
        }
        if (m->hv[i] == it->h) {
            it->pos = (i + 1) & mask;
            return s - 1;
        }
    }
}

/* The first entry stored under hash h, or HMAP_NONE; hmap_next continues the walk. */
static inline uint32_t hmap_first(const hmap *m, uint32_t h, hmap_it *it)
{
    it->h = h;
    it->pos = m->cap ? h & (m->cap - 1) : 0;
    return hmap_next(m, it);
}

/* Asks the cache for the slots a lookup or add of hash h starts at, so that a caller that
 * knows its next keys ahead (a reader interning a list of strings) overlaps their misses.
 * Always inlined: gcc takes a function holding only prefetches for one without effects and
 * deletes the calls. */
static inline __attribute__((always_inline)) void hmap_prefetch(const hmap *m, uint32_t h)
{
    if (m->cap) {
        uint32_t i = h & (m->cap - 1);
        __builtin_prefetch(&m->slot[i], 1);
        __builtin_prefetch(&m->hv[i], 1);
    }
}

#endif
