/* SPDX-License-Identifier: Apache-2.0 */
/* jscan.c: JSON-lines scanner (format layer), prefix jscan_. See jscan.h. Values are found
 * by a structural skip that knows strings (and their escapes) and brackets, nothing more, so
 * a line costs one pass over its bytes; numbers and literals are validated only as far as the
 * readers use them. Nesting is bounded (JSCAN_MAX_DEPTH) so a hostile line cannot recurse or
 * spin: every loop advances p towards end. */
#include "format/jscan.h"

#include <stdlib.h>
#include <string.h>

static int is_blank(uint8_t ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static void skip_blanks(jscan *c)
{
    while (c->p < c->end && is_blank(*c->p))
        c->p++;
}

static lr_status bad(const jscan *c, const uint8_t *at, const char *what, lr_error *err)
{
    return LR_CORRUPT(err, c->name, jscan_off(c, at), "%s", what);
}

const uint8_t *jscan_line_end(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

/* Skips a string whose opening quote is at c->p; leaves p after the closing quote. */
static lr_status skip_string(jscan *c, jscan_val *v, lr_error *err)
{
    const uint8_t *q = c->p + 1;
    v->escaped = 0;
    for (;;) {
        const uint8_t *hit = q;
        while (hit < c->end && *hit != '"' && *hit != '\\')
            hit++;
        if (hit >= c->end)
            return bad(c, c->p, "unterminated string", err);
        if (*hit == '"') {
            v->type = JSCAN_STR;
            v->s = c->p + 1;
            v->e = hit;
            c->p = hit + 1;
            return LR_OK;
        }
        v->escaped = 1;
        if (hit + 1 >= c->end)
            return bad(c, hit, "unterminated escape", err);
        q = hit + 2;
    }
}

/* Skips any value at c->p into v. */
static lr_status skip_value(jscan *c, jscan_val *v, lr_error *err)
{
    skip_blanks(c);
    if (c->p >= c->end)
        return bad(c, c->p, "value expected", err);
    uint8_t ch = *c->p;
    if (ch == '"')
        return skip_string(c, v, err);
    if (ch == '[' || ch == '{') {
        /* Brackets are matched by depth only; strings inside are skipped whole so a bracket
         * in a string never counts. */
        uint8_t stack[JSCAN_MAX_DEPTH];
        int depth = 0;
        const uint8_t *start = c->p;
        while (c->p < c->end) {
            uint8_t k = *c->p;
            if (k == '"') {
                jscan_val sv;
                LR_TRY(skip_string(c, &sv, err));
                continue;
            }
            if (k == '[' || k == '{') {
                if (depth == JSCAN_MAX_DEPTH)
                    return bad(c, c->p, "nesting too deep", err);
                stack[depth++] = k == '[' ? ']' : '}';
            } else if (k == ']' || k == '}') {
                if (depth == 0 || stack[depth - 1] != k)
                    return bad(c, c->p, "mismatched bracket", err);
                if (--depth == 0) {
                    c->p++;
                    v->type = ch == '[' ? JSCAN_ARR : JSCAN_OBJ;
                    v->s = start;
                    v->e = c->p;
                    v->escaped = 0;
                    return LR_OK;
                }
            }
            c->p++;
        }
        return bad(c, start, ch == '[' ? "unterminated array" : "unterminated object", err);
    }
    const uint8_t *start = c->p;
    while (c->p < c->end && !is_blank(*c->p) && *c->p != ',' && *c->p != '}' && *c->p != ']')
        c->p++;
    size_t n = (size_t)(c->p - start);
    v->s = start;
    v->e = c->p;
    v->escaped = 0;
    if (n == 4 && memcmp(start, "true", 4) == 0)
        v->type = JSCAN_TRUE;
    else if (n == 5 && memcmp(start, "false", 5) == 0)
        v->type = JSCAN_FALSE;
    else if (n == 4 && memcmp(start, "null", 4) == 0)
        v->type = JSCAN_NULL;
    else if (n && (ch == '-' || (ch >= '0' && ch <= '9')))
        v->type = JSCAN_NUM;
    else
        return bad(c, start, "value expected", err);
    return LR_OK;
}

lr_status jscan_obj(jscan *c, const uint8_t *base, const char *name, const uint8_t *p,
                    const uint8_t *end, lr_error *err)
{
    c->base = base;
    c->name = name;
    c->p = p;
    c->end = end;
    c->first = 1;
    skip_blanks(c);
    if (c->p >= c->end || *c->p != '{')
        return bad(c, c->p, "'{' expected (one JSON object per line)", err);
    c->p++;
    return LR_OK;
}

lr_status jscan_member(jscan *c, const uint8_t **key, size_t *klen, jscan_val *v, int *done,
                       lr_error *err)
{
    *done = 0;
    skip_blanks(c);
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        *done = 1;
        /* the object ends its span (a line, a value): more there would be read by no one */
        skip_blanks(c);
        if (c->p < c->end)
            return bad(c, c->p, "bytes after the object's closing brace (one JSON object per "
                       "line)", err);
        return LR_OK;
    }
    if (!c->first) {
        if (c->p >= c->end || *c->p != ',')
            return bad(c, c->p, "',' or '}' expected", err);
        c->p++;
        skip_blanks(c);
    }
    c->first = 0;
    if (c->p >= c->end || *c->p != '"')
        return bad(c, c->p, "member name expected", err);
    jscan_val k;
    LR_TRY(skip_string(c, &k, err));
    *key = k.s;
    *klen = (size_t)(k.e - k.s);
    skip_blanks(c);
    if (c->p >= c->end || *c->p != ':')
        return bad(c, c->p, "':' expected", err);
    c->p++;
    return skip_value(c, v, err);
}

lr_status jscan_fields(jscan *c, const char *const *keys, unsigned n, jscan_val *vals,
                       uint32_t *seen, lr_error *err)
{
    size_t len[JSCAN_MAX_KEYS];
    if (n > JSCAN_MAX_KEYS)
        n = JSCAN_MAX_KEYS;
    for (unsigned i = 0; i < n; i++)
        len[i] = strlen(keys[i]);
    *seen = 0;
    for (;;) {
        const uint8_t *k;
        size_t kl;
        jscan_val v;
        int done;
        LR_TRY(jscan_member(c, &k, &kl, &v, &done, err));
        if (done)
            return LR_OK;
        for (unsigned i = 0; i < n; i++)
            if (len[i] == kl && memcmp(keys[i], k, kl) == 0) {
                vals[i] = v;
                *seen |= 1u << i;
                break;
            }
    }
}

void jscan_arr(jscan *c, const jscan *parent, const jscan_val *arr)
{
    c->base = parent->base;
    c->name = parent->name;
    c->p = arr->s + 1;
    c->end = arr->e - 1;
    c->first = 1;
}

lr_status jscan_elem(jscan *c, jscan_val *v, int *done, lr_error *err)
{
    *done = 0;
    skip_blanks(c);
    if (c->p >= c->end) {
        *done = 1;
        return LR_OK;
    }
    if (!c->first) {
        if (*c->p != ',')
            return bad(c, c->p, "',' or ']' expected", err);
        c->p++;
    }
    c->first = 0;
    return skip_value(c, v, err);
}

int jscan_key_is(const uint8_t *key, size_t klen, const char *k)
{
    return strlen(k) == klen && memcmp(key, k, klen) == 0;
}

int jscan_u64(const jscan_val *v, uint64_t *out)
{
    const uint8_t *p = v->s, *e = v->e;
    if (v->type != JSCAN_NUM && v->type != JSCAN_STR)
        return 0;
    if (p == e)
        return 0;
    uint64_t x = 0;
    if (v->type == JSCAN_STR && e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        if (e - p > 16)
            return 0;
        for (; p < e; p++) {
            unsigned d = *p >= '0' && *p <= '9'   ? (unsigned)(*p - '0')
                         : *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10)
                         : *p >= 'A' && *p <= 'F' ? (unsigned)(*p - 'A' + 10)
                                                  : 16u;
            if (d > 15)
                return 0;
            x = x << 4 | d;
        }
        *out = x;
        return 1;
    }
    for (; p < e; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    *out = x;
    return 1;
}

static int hex4(const uint8_t *p, unsigned *out)
{
    unsigned x = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t ch = p[i];
        unsigned d = ch >= '0' && ch <= '9'   ? (unsigned)(ch - '0')
                     : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
                     : ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10)
                                              : 16u;
        if (d > 15)
            return 0;
        x = x << 4 | d;
    }
    *out = x;
    return 1;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

const char *jscan_str(const jscan *c, const jscan_val *v, char **buf, size_t *cap,
                      size_t *len, lr_error *err)
{
    size_t n = (size_t)(v->e - v->s);
    if (n + 1 > JSCAN_MAX_STRING) {
        LR_FAIL(err, LR_ERR_LIMIT, "%s: offset 0x%llx: string of %zu bytes", c->name,
                (unsigned long long)jscan_off(c, v->s), n);
        return NULL;
    }
    /* Decoding never grows a string: \uXXXX (6 bytes) becomes at most 3, a surrogate pair
     * (12) at most 4. */
    if (n + 1 > *cap) {
        char *nb = realloc(*buf, n + 1);
        if (!nb) {
            LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", c->name);
            return NULL;
        }
        *buf = nb;
        *cap = n + 1;
    }
    char *o = *buf;
    size_t k = 0;
    for (const uint8_t *p = v->s; p < v->e; p++) {
        if (*p != '\\') {
            o[k++] = (char)*p;
            continue;
        }
        p++;
        switch (*p) {
        case '"': o[k++] = '"'; break;
        case '\\': o[k++] = '\\'; break;
        case '/': o[k++] = '/'; break;
        case 'b': o[k++] = '\b'; break;
        case 'f': o[k++] = '\f'; break;
        case 'n': o[k++] = '\n'; break;
        case 'r': o[k++] = '\r'; break;
        case 't': o[k++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (v->e - p < 5 || !hex4(p + 1, &cp)) {
                bad(c, p - 1, "bad \\u escape", err);
                return NULL;
            }
            p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && v->e - p >= 7 && p[1] == '\\' && p[2] == 'u' &&
                hex4(p + 3, &lo) && lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            } else if (cp >= 0xd800 && cp < 0xe000) {
                cp = 0xfffd; /* a lone surrogate has no UTF-8 form */
            }
            k += put_utf8(o + k, cp);
            break;
        }
        default:
            bad(c, p - 1, "bad escape", err);
            return NULL;
        }
    }
    o[k] = 0;
    *len = k;
    return o;
}
