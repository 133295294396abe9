/* SPDX-License-Identifier: Apache-2.0 */
/* utf8.h: the UTF-8 validator (base layer), prefix utf8_. Strings from dumps are untrusted
 * bytes; the JSON writer and the terminal text writer both need to know where a valid
 * character ends, by RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF. */
#ifndef LR_BASE_UTF8_H
#define LR_BASE_UTF8_H

#include <stddef.h>

/* Length (1-4) of the valid UTF-8 sequence at p, which has n >= 1 bytes left, or 0 when p[0]
 * starts none (a stray continuation byte, an invalid lead, a cut or malformed sequence). */
size_t utf8_seq_len(const unsigned char *p, size_t n);

/* Copies the text s into buf (cap >= 4 bytes) whole when it fits, else cut on a character
 * boundary and ended with U+2026 (an ellipsis: the reader sees the name goes on), never
 * splitting a character. Returns buf. */
char *utf8_fit(char *buf, size_t cap, const char *s);

#endif
