/* SPDX-License-Identifier: Apache-2.0 */
/* hash.h: the hash functions of every layer (base layer), prefix hash_. FNV-1a for names and
 * short strings (32-bit for tables, 64-bit where the value is kept as a fingerprint), and a
 * 64-bit finalizer for integer keys such as object ids, whose low bits alone are poorly
 * spread (heap addresses are aligned). None is meant to resist a chosen-collision attack:
 * every table that uses them compares keys in full, so a collision costs a probe, never a
 * wrong answer, and the tables' load stays at most one half; the tables a dump fills with
 * keys it chooses (interned names, HPROF class ids) start their hash from hmap_seed. Values
 * are part of no file format, but some outputs are ordered by them (documented where so);
 * change none. */
#ifndef LR_BASE_HASH_H
#define LR_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV32_INIT 2166136261u
#define HASH_FNV64_INIT 0xcbf29ce484222325ull

static inline uint32_t hash_fnv32_step(uint32_t h, uint8_t b) { return (h ^ b) * 16777619u; }

static inline uint64_t hash_fnv64_step(uint64_t h, uint8_t b)
{
    return (h ^ b) * 0x100000001b3ull;
}

/* FNV-1a over n bytes. */
static inline uint32_t hash_fnv32(const void *p, size_t n)
{
    const uint8_t *s = p;
    uint32_t h = HASH_FNV32_INIT;
    for (size_t i = 0; i < n; i++)
        h = hash_fnv32_step(h, s[i]);
    return h;
}

/* FNV-1a over a NUL-terminated string (the NUL excluded). */
static inline uint32_t hash_fnv32_str(const char *s)
{
    uint32_t h = HASH_FNV32_INIT;
    while (*s)
        h = hash_fnv32_step(h, (uint8_t)*s++);
    return h;
}

static inline uint64_t hash_fnv64(const void *p, size_t n)
{
    const uint8_t *s = p;
    uint64_t h = HASH_FNV64_INIT;
    for (size_t i = 0; i < n; i++)
        h = hash_fnv64_step(h, s[i]);
    return h;
}

static inline uint64_t hash_fnv64_str(const char *s)
{
    uint64_t h = HASH_FNV64_INIT;
    while (*s)
        h = hash_fnv64_step(h, (uint8_t)*s++);
    return h;
}

/* One FNV-1a step over a whole 64-bit word (native backtrace fingerprints fold each frame's
 * offset in this way; stored signatures depend on it). */
static inline uint64_t hash_fnv64_word(uint64_t h, uint64_t w)
{
    return (h ^ w) * 0x100000001b3ull;
}

/* Content hash of n bytes, 8 bytes per step, for grouping equal buffers (equality is always
 * decided by comparing the bytes). The order of duplicate groups follows it. */
static inline uint64_t hash_bytes64(const void *p, uint64_t n)
{
    const uint8_t *b = p;
    uint64_t h = 0x243F6A8885A308D3ull ^ n;
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        __builtin_memcpy(&w, b + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < n; i++)
        h = hash_fnv64_step(h, b[i]);
    return h ^ (h >> 29);
}

/* n 32-bit words (tuple keys): each word xored in, then multiplied and folded. */
static inline uint32_t hash_words(const uint32_t *k, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        h ^= k[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
    }
    return (uint32_t)h;
}

/* MurmurHash3's 64-bit finalizer: every input bit affects every output bit. */
static inline uint64_t hash_mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

#endif
