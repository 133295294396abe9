/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw.c: streaming JSON writer (base layer), prefix jsonw_. Separators are decided when
 * the next item starts, from the per-level item flag, so callers never track commas. Every
 * byte that does not start a valid UTF-8 sequence (base/utf8.h) is replaced by U+FFFD, one
 * replacement per byte. */
#include "base/jsonw.h"

#include "base/err.h"
#include "base/utf8.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void jsonw_init(jsonw *w, FILE *out, int pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
}

void jsonw_finish(jsonw *w)
{
    LR_ASSERT(w->depth == 0);
    fputc('\n', w->out);
}

static void indent(jsonw *w)
{
    if (!w->pretty)
        return;
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->out);
}

/* Writes the separator owed before a new item (value, or key in an object). */
static void item_start(jsonw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0)
        return;
    LR_ASSERT(!w->is_obj[w->depth - 1] || !"value in an object needs a key");
    if (w->n_items[w->depth - 1])
        fputc(',', w->out);
    w->n_items[w->depth - 1] = 1;
    indent(w);
}

static void open_(jsonw *w, int is_obj)
{
    item_start(w);
    LR_ASSERT(w->depth < JSONW_MAX_DEPTH);
    if (w->depth >= JSONW_MAX_DEPTH)
        return;
    fputc(is_obj ? '{' : '[', w->out);
    w->is_obj[w->depth] = (uint8_t)is_obj;
    w->n_items[w->depth] = 0;
    w->depth++;
}

static void close_(jsonw *w, int is_obj)
{
    LR_ASSERT(w->depth > 0 && w->is_obj[w->depth - 1] == is_obj && !w->after_key);
    if (w->depth <= 0)
        return;
    w->depth--;
    if (w->n_items[w->depth])
        indent(w);
    fputc(is_obj ? '}' : ']', w->out);
}

void jsonw_obj_begin(jsonw *w) { open_(w, 1); }
void jsonw_obj_end(jsonw *w) { close_(w, 1); }
void jsonw_arr_begin(jsonw *w) { open_(w, 0); }
void jsonw_arr_end(jsonw *w) { close_(w, 0); }

static void write_string(FILE *out, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    size_t i = 0;
    while (i < len) {
        unsigned char c = p[i];
        switch (c) {
        case '"': fputs("\\\"", out); i++; continue;
        case '\\': fputs("\\\\", out); i++; continue;
        case '\n': fputs("\\n", out); i++; continue;
        case '\r': fputs("\\r", out); i++; continue;
        case '\t': fputs("\\t", out); i++; continue;
        case '\b': fputs("\\b", out); i++; continue;
        case '\f': fputs("\\f", out); i++; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7f) {
            fprintf(out, "\\u%04x", c);
            i++;
            continue;
        }
        size_t k = utf8_seq_len(p + i, len - i);
        if (k == 0) {
            fputs("\\ufffd", out);
            i++;
            continue;
        }
        fwrite(p + i, 1, k, out);
        i += k;
    }
    fputc('"', out);
}

void jsonw_key(jsonw *w, const char *k)
{
    LR_ASSERT(w->depth > 0 && w->is_obj[w->depth - 1] && !w->after_key);
    if (w->depth > 0) {
        if (w->n_items[w->depth - 1])
            fputc(',', w->out);
        w->n_items[w->depth - 1] = 1;
    }
    indent(w);
    write_string(w->out, k, strlen(k));
    fputs(w->pretty ? ": " : ":", w->out);
    w->after_key = 1;
}

void jsonw_strn(jsonw *w, const char *s, size_t len)
{
    item_start(w);
    write_string(w->out, s, len);
}

void jsonw_str(jsonw *w, const char *s)
{
    if (!s) {
        jsonw_null(w);
        return;
    }
    size_t n = strlen(s);
    if (!w->max_str || n <= w->max_str) {
        jsonw_strn(w, s, n);
        return;
    }
    size_t k = w->max_str;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--; /* not inside a character */
    char *t = malloc(k + 4);
    if (!t) {
        jsonw_strn(w, s, k);
        return;
    }
    memcpy(t, s, k);
    memcpy(t + k, "\xe2\x80\xa6", 3); /* U+2026 */
    jsonw_strn(w, t, k + 3);
    free(t);
}

void jsonw_int(jsonw *w, int64_t v)
{
    item_start(w);
    fprintf(w->out, "%lld", (long long)v);
}

void jsonw_uint(jsonw *w, uint64_t v)
{
    item_start(w);
    fprintf(w->out, "%llu", (unsigned long long)v);
}

void jsonw_double(jsonw *w, double v)
{
    if (isnan(v)) {
        jsonw_str(w, "NaN");
        return;
    }
    if (isinf(v)) {
        jsonw_str(w, v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    /* The shortest of %.15g..%.17g that reads back to the same double. */
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    item_start(w);
    fputs(buf, w->out);
}

void jsonw_bool(jsonw *w, int v)
{
    item_start(w);
    fputs(v ? "true" : "false", w->out);
}

void jsonw_null(jsonw *w)
{
    item_start(w);
    fputs("null", w->out);
}

void jsonw_kv_str(jsonw *w, const char *k, const char *v)
{
    jsonw_key(w, k);
    jsonw_str(w, v);
}

void jsonw_kv_int(jsonw *w, const char *k, int64_t v)
{
    jsonw_key(w, k);
    jsonw_int(w, v);
}

void jsonw_kv_uint(jsonw *w, const char *k, uint64_t v)
{
    jsonw_key(w, k);
    jsonw_uint(w, v);
}

void jsonw_kv_bool(jsonw *w, const char *k, int v)
{
    jsonw_key(w, k);
    jsonw_bool(w, v);
}

void jsonw_kv_null(jsonw *w, const char *k)
{
    jsonw_key(w, k);
    jsonw_null(w);
}

void jsonw_kv_obj_begin(jsonw *w, const char *k)
{
    jsonw_key(w, k);
    jsonw_obj_begin(w);
}

void jsonw_kv_arr_begin(jsonw *w, const char *k)
{
    jsonw_key(w, k);
    jsonw_arr_begin(w);
}
