/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw.h: a small streaming JSON writer (base layer), prefix jsonw_. Values go straight to
 * a FILE in the order they are written, so output is byte-for-byte deterministic: nothing is
 * sorted, hashed or buffered. The writer tracks nesting to place commas, newlines and
 * two-space indentation itself; callers only say begin/end, key and value. Strings are
 * escaped per RFC 8259, and invalid UTF-8 bytes become U+FFFD so the output always parses
 * even when a dump holds garbage names. Numbers: 64-bit integers are written exactly;
 * doubles that are NaN or infinite (which JSON cannot hold) are written as strings.
 * Misuse (a key outside an object, unbalanced ends, nesting deeper than JSONW_MAX_DEPTH)
 * is a programming error caught by LR_ASSERT in debug builds. Not thread-safe. */
#ifndef LR_BASE_JSONW_H
#define LR_BASE_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Deepest nesting: the merged-paths tree nests two levels per reference and stops at
 * REP_MERGED_JSON_DEPTH (report/merged.c); every other report stays under 16. */
#define JSONW_MAX_DEPTH 512

typedef struct jsonw {
    FILE *out;                        /* destination; not owned */
    int pretty;                       /* nonzero: newlines + 2-space indent */
    int depth;                        /* open containers */
    int after_key;                    /* a key was written; the value follows on its line */
    uint8_t n_items[JSONW_MAX_DEPTH]; /* per level: 0 = empty so far, 1 = has items */
    uint8_t is_obj[JSONW_MAX_DEPTH];  /* per level: 1 = object, 0 = array */
    size_t max_str;                   /* 0, or jsonw_str cuts a longer string there (at a
                                       * character's start) and ends it with "…" */
} jsonw;

/* Starts a document on out. pretty selects the indented layout (what the CLI prints). */
void jsonw_init(jsonw *w, FILE *out, int pretty);
/* Ends the document with a newline. Every container must be closed. */
void jsonw_finish(jsonw *w);

void jsonw_obj_begin(jsonw *w);
void jsonw_obj_end(jsonw *w);
void jsonw_arr_begin(jsonw *w);
void jsonw_arr_end(jsonw *w);

/* Object member name; the next call writes its value. */
void jsonw_key(jsonw *w, const char *k);

/* Values. jsonw_str accepts NULL (writes null). jsonw_strn writes len bytes (may hold NUL). */
void jsonw_str(jsonw *w, const char *s); /* max_str applies */
void jsonw_strn(jsonw *w, const char *s, size_t len);
void jsonw_int(jsonw *w, int64_t v);
void jsonw_uint(jsonw *w, uint64_t v);
void jsonw_double(jsonw *w, double v); /* shortest round-trip form ("%.17g" trimmed) */
void jsonw_bool(jsonw *w, int v);
void jsonw_null(jsonw *w);

/* key + value shorthands for the common case. */
void jsonw_kv_str(jsonw *w, const char *k, const char *v);
void jsonw_kv_int(jsonw *w, const char *k, int64_t v);
void jsonw_kv_uint(jsonw *w, const char *k, uint64_t v);
void jsonw_kv_bool(jsonw *w, const char *k, int v);
void jsonw_kv_null(jsonw *w, const char *k);
void jsonw_kv_obj_begin(jsonw *w, const char *k);
void jsonw_kv_arr_begin(jsonw *w, const char *k);

#endif
