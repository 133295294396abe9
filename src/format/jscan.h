/* SPDX-License-Identifier: Apache-2.0 */
/* jscan.h: a JSON-lines scanner for the readers of line-oriented object graphs (format layer),
 * prefix jscan_. One JSON object per line, read in place from the mapped input: a member's
 * value comes back as a span of the input (strings without their quotes), nested arrays and
 * objects are skipped structurally and can be walked afterwards with their own scanner. No
 * tree, no allocation except the caller's scratch for unescaping. Every byte is checked
 * against the end of its line; errors name the file and the byte offset. Used by the generic
 * graph reader (gtext_read.c) and the Ruby heap-dump reader (ruby_read.c). */
#ifndef LR_FORMAT_JSCAN_H
#define LR_FORMAT_JSCAN_H

#include "graph/graph.h"

#include <stddef.h>
#include <stdint.h>

/* Nesting a line may hold: Ruby's "flags" objects and arrays of ids need two. */
#define JSCAN_MAX_DEPTH 64

typedef enum jscan_type {
    JSCAN_STR,
    JSCAN_NUM,
    JSCAN_ARR,
    JSCAN_OBJ,
    JSCAN_TRUE,
    JSCAN_FALSE,
    JSCAN_NULL
} jscan_type;

/* A value: for strings the bytes between the quotes (escapes not decoded), for numbers and
 * literals their text, for arrays and objects everything from the bracket to its match. */
typedef struct jscan_val {
    jscan_type type;
    const uint8_t *s;  /* first byte */
    const uint8_t *e;  /* one past the last byte */
    int escaped;       /* strings: holds a backslash escape */
} jscan_val;

/* A cursor over one line (or a nested array/object span). */
typedef struct jscan {
    const uint8_t *p;     /* next byte */
    const uint8_t *end;   /* end of the span */
    const uint8_t *base;  /* start of the input, for offsets */
    const char *name;     /* input name for messages */
    int first;            /* no member/element read yet */
} jscan;

/* Starts reading an object that begins at p (after blanks) and ends before end. */
lr_status jscan_obj(jscan *c, const uint8_t *base, const char *name, const uint8_t *p,
                    const uint8_t *end, lr_error *err);
/* The next member: *done = 1 after the closing brace, which must end the span (blanks
 * aside). key/klen point into the input (the key's escapes are not decoded: keys the readers
 * look for have none). */
lr_status jscan_member(jscan *c, const uint8_t **key, size_t *klen, jscan_val *v, int *done,
                       lr_error *err);
/* The rest of an object's members into slots by key, for readers that take a record's members
 * in any order: keys[i] (at most 32) names slot i, vals[i] receives the value of the last
 * member with that key and bit i of *seen is set; other members are skipped. Returns LR_OK
 * after the closing brace. */
#define JSCAN_MAX_KEYS 32
lr_status jscan_fields(jscan *c, const char *const *keys, unsigned n, jscan_val *vals,
                       uint32_t *seen, lr_error *err);
/* Whether slot i was seen by jscan_fields. */
#define JSCAN_HAS(seen, i) (((seen) >> (i)) & 1u)

/* Opens an array value for jscan_elem. */
void jscan_arr(jscan *c, const jscan *parent, const jscan_val *arr);
/* The next element of an array opened with jscan_arr: *done = 1 after the closing bracket. */
lr_status jscan_elem(jscan *c, jscan_val *v, int *done, lr_error *err);

/* Whether key[0..klen) is the NUL-terminated k. */
int jscan_key_is(const uint8_t *key, size_t klen, const char *k);
/* An unsigned integer: a JSON number without sign, fraction or exponent, or a string holding
 * "0x..." (hex) or decimal digits (Ruby writes addresses as strings). 1 ok, 0 not one. */
int jscan_u64(const jscan_val *v, uint64_t *out);
/* The string's text, escapes decoded to UTF-8 into buf (grown as needed, capped at
 * JSCAN_MAX_STRING). Returns the bytes and *len; NULL with err set on a bad escape. */
#define JSCAN_MAX_STRING (64u << 20)
const char *jscan_str(const jscan *c, const jscan_val *v, char **buf, size_t *cap,
                      size_t *len, lr_error *err);
/* Offset of p in the input. */
static inline uint64_t jscan_off(const jscan *c, const uint8_t *p)
{
    return (uint64_t)(p - c->base);
}

/* The length of a UTF-8 byte-order mark at p (3), or 0: a Windows editor or tool puts one
 * before the first line of a text file. */
static inline size_t jscan_bom(const uint8_t *p, uint64_t n)
{
    return n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF ? 3 : 0;
}

/* The line starting at p: its end (the newline or the input's end). */
const uint8_t *jscan_line_end(const uint8_t *p, const uint8_t *end);

#endif
