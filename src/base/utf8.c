/* SPDX-License-Identifier: Apache-2.0 */
/* utf8.c: the UTF-8 validator (base layer), prefix utf8_. See utf8.h. */
#include "base/utf8.h"

#include <string.h>

size_t utf8_seq_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

char *utf8_fit(char *buf, size_t cap, const char *s)
{
    size_t len = strlen(s);
    if (len < cap) {
        memcpy(buf, s, len + 1);
        return buf;
    }
    size_t end = cap - 4; /* room for U+2026 and the NUL */
    /* the character the cut would split starts at or before end: cut before it */
    while (end > 0 && ((unsigned char)s[end] & 0xC0) == 0x80)
        end--;
    memcpy(buf, s, end);
    memcpy(buf + end, "\xe2\x80\xa6", 4);
    return buf;
}
