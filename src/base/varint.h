/* SPDX-License-Identifier: Apache-2.0 */
/* varint.h: LEB128 unsigned integers in byte streams (base layer), prefix varint_. The
 * analyses keep long lists of numbers that are mostly small (differences between nearby node
 * numbers, distances to a source) as 7-bit groups, low first, the high bit set on every group
 * but the last: 1 to 5 bytes a 32-bit value, 10 at most a 64-bit one. Streams are made and
 * read by leakray itself, so the readers do not check their bounds. */
#ifndef LR_BASE_VARINT_H
#define LR_BASE_VARINT_H

#include <stdint.h>

/* Writes x at p; returns the byte after it. */
static inline uint8_t *varint_put(uint8_t *p, uint64_t x)
{
    while (x >= 0x80) {
        *p++ = (uint8_t)(x | 0x80);
        x >>= 7;
    }
    *p++ = (uint8_t)x;
    return p;
}

/* Reads the value at *pp and moves *pp past it. */
static inline uint64_t varint_get(const uint8_t **pp)
{
    const uint8_t *p = *pp;
    uint64_t x = *p & 0x7f;
    for (unsigned sh = 7; *p++ & 0x80; sh += 7)
        x |= (uint64_t)(*p & 0x7f) << sh;
    *pp = p;
    return x;
}

/* Bytes varint_put writes for a 32-bit x. */
static inline unsigned varint_len32(uint32_t x)
{
    return x < (1u << 7) ? 1 : x < (1u << 14) ? 2 : x < (1u << 21) ? 3 : x < (1u << 28) ? 4 : 5;
}

#endif
