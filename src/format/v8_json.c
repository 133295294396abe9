/* SPDX-License-Identifier: Apache-2.0 */
/* v8_json.c: the JSON tokenizer of the V8 snapshot reader and its header parser (format
 * layer), prefix v8j_. Works on a cursor over the mapped input: whitespace, strings (found
 * with their bounds first, decoded only when they hold escapes), unsigned integers, values
 * skipped without building them (iteratively, nesting capped), objects walked member by
 * member through a callback, and the `snapshot` object's meta and counts into a header.
 * Every read is bounded by the cursor's end; an error names the byte offset where the input
 * went wrong. No JSON tree is ever built. See v8_internal.h. */
#include "format/v8_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- cursor and errors ---- */


lr_status v8j_trunc_at(cur *c, const char *what)
{
    return LR_TRUNC(c->err, c->name, off_of(c, c->p), "input ends inside %s", what);
}

lr_status v8j_expect(cur *c, uint8_t ch, const char *what)
{
    skip_ws(c);
    if (c->p >= c->end)
        return v8j_trunc_at(c, what);
    if (*c->p != ch)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "expected '%c' in %s, found 0x%02x",
                          ch, what, *c->p);
    c->p++;
    return LR_OK;
}

/* ---- strings ---- */

#define ONES8 0x0101010101010101ull
#define HIGH8 0x8080808080808080ull

/* Finds the end of the string whose opening quote is at c->p. On return *s / *e bound the
 * raw content, c->p is past the closing quote, and *plain is 1 when the content has no
 * backslash and no byte below 0x20 (it can be used as is). Escapes are validated later. */
lr_status v8j_scan_string(cur *c, const uint8_t **s, const uint8_t **e, int *plain)
{
    const uint8_t *p = c->p + 1, *end = c->end;
    int pl = 1;
    *s = p;
    for (;;) {
        /* Eight bytes at a time while they are all ordinary (no quote, backslash or control
         * byte); the byte loop below finds which one stopped the word. */
        while (end - p >= 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            uint64_t q = v ^ 0x2222222222222222ull, b = v ^ 0x5c5c5c5c5c5c5c5cull;
            uint64_t ctl = v - 0x2020202020202020ull;
            uint64_t hit = ((q - ONES8) & ~q) | ((b - ONES8) & ~b) | (ctl & ~v);
            if (hit & HIGH8)
                break;
            p += 8;
        }
        while (p < end && *p != '"' && *p != '\\' && *p >= 0x20)
            p++;
        if (p >= end) {
            c->p = end;
            return LR_TRUNC(c->err, c->name, off_of(c, *s - 1), "unterminated string");
        }
        if (*p == '"')
            break;
        pl = 0;
        if (*p == '\\') {
            if (p + 1 >= end) {
                c->p = end;
                return LR_TRUNC(c->err, c->name, off_of(c, *s - 1), "unterminated string");
            }
            p += 2;
        } else {
            p++;
        }
    }
    *e = p;
    *plain = pl;
    c->p = p + 1;
    return LR_OK;
}

static int hex4(const uint8_t *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t h = p[i];
        v <<= 4;
        if (h >= '0' && h <= '9')
            v |= (uint32_t)(h - '0');
        else if (h >= 'a' && h <= 'f')
            v |= (uint32_t)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
            v |= (uint32_t)(h - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* Appends code point cp as UTF-8. U+0000 becomes the two bytes C0 80 so that strings stay
 * NUL-terminated; lone surrogates arrive here already replaced by U+FFFD. */
static size_t put_cp(uint8_t *o, uint32_t cp)
{
    if (cp == 0) {
        o[0] = 0xc0;
        o[1] = 0x80;
        return 2;
    }
    if (cp < 0x80) {
        o[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (uint8_t)(0xc0 | (cp >> 6));
        o[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (uint8_t)(0xe0 | (cp >> 12));
        o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (uint8_t)(0xf0 | (cp >> 18));
    o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decodes raw string content [s, e) into out (capacity >= 2 * (e - s) + 2: escapes only
 * shrink, a raw NUL byte doubles). Returns LR_OK and *len, or LR_ERR_FORMAT at the bad
 * escape. */
lr_status v8j_decode_string(cur *c, const uint8_t *s, const uint8_t *e, uint8_t *out,
                               size_t *len)
{
    size_t n = 0;
    const uint8_t *p = s;
    while (p < e) {
        uint8_t ch = *p;
        if (ch != '\\') {
            if (ch == 0)
                n += put_cp(out + n, 0);
            else
                out[n++] = ch;
            p++;
            continue;
        }
        if (p + 1 >= e)
            return LR_CORRUPT(c->err, c->name, off_of(c, p), "bad escape at end of string");
        uint8_t x = p[1];
        uint32_t cp;
        switch (x) {
        case '"': out[n++] = '"'; p += 2; continue;
        case '\\': out[n++] = '\\'; p += 2; continue;
        case '/': out[n++] = '/'; p += 2; continue;
        case 'b': out[n++] = '\b'; p += 2; continue;
        case 'f': out[n++] = '\f'; p += 2; continue;
        case 'n': out[n++] = '\n'; p += 2; continue;
        case 'r': out[n++] = '\r'; p += 2; continue;
        case 't': out[n++] = '\t'; p += 2; continue;
        case 'u':
            if (e - p < 6 || !hex4(p + 2, &cp))
                return LR_CORRUPT(c->err, c->name, off_of(c, p), "bad \\u escape in string");
            p += 6;
            if (cp >= 0xd800 && cp < 0xdc00) {
                uint32_t lo;
                if (e - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, &lo) &&
                    lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p += 6;
                } else {
                    cp = 0xfffd;
                }
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                cp = 0xfffd;
            }
            n += put_cp(out + n, cp);
            continue;
        default:
            return LR_CORRUPT(c->err, c->name, off_of(c, p), "bad escape '\\%c' in string",
                              x >= 0x20 && x < 0x7f ? x : '?');
        }
    }
    *len = n;
    return LR_OK;
}


lr_status v8j_scratch_fit(scratch *sc, size_t need, lr_error *err)
{
    if (need <= sc->cap)
        return LR_OK;
    size_t cap = sc->cap ? sc->cap : 256;
    while (cap < need)
        cap *= 2;
    uint8_t *b = realloc(sc->buf, cap);
    if (!b)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory decoding a string");
    sc->buf = b;
    sc->cap = cap;
    return LR_OK;
}

/* Reads a string value into the scratch buffer (decoded, NUL-terminated). */
lr_status v8j_read_string(cur *c, scratch *sc, const uint8_t **out, size_t *len)
{
    skip_ws(c);
    if (c->p >= c->end)
        return v8j_trunc_at(c, "a string");
    if (*c->p != '"')
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "expected a string");
    const uint8_t *s, *e;
    int plain;
    LR_TRY(v8j_scan_string(c, &s, &e, &plain));
    LR_TRY(v8j_scratch_fit(sc, 2 * (size_t)(e - s) + 2, c->err));
    if (plain) {
        memcpy(sc->buf, s, (size_t)(e - s));
        *len = (size_t)(e - s);
    } else {
        LR_TRY(v8j_decode_string(c, s, e, sc->buf, len));
    }
    sc->buf[*len] = 0;
    *out = sc->buf;
    return LR_OK;
}

/* ---- numbers and skipping ---- */

/* Parses an unsigned integer (JSON number without sign, fraction or exponent). */
lr_status v8j_read_uint(cur *c, uint64_t *out, const char *what)
{
    skip_ws(c);
    if (c->p >= c->end)
        return v8j_trunc_at(c, what);
    const uint8_t *p = c->p;
    if (*p < '0' || *p > '9')
        return LR_CORRUPT(c->err, c->name, off_of(c, p), "expected an unsigned integer in %s",
                          what);
    uint64_t v = 0;
    int nd = 0;
    while (p < c->end && *p >= '0' && *p <= '9') {
        if (++nd > 19)
            return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "integer too large in %s", what);
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
    }
    c->p = p;
    *out = v;
    return LR_OK;
}

/* Skips one JSON value of any kind without building it. Iterative; nesting is capped. */
lr_status v8j_skip_value(cur *c)
{
    int depth = 0;
    for (;;) {
        skip_ws(c);
        if (c->p >= c->end)
            return v8j_trunc_at(c, "a value");
        uint8_t ch = *c->p;
        if (ch == '"') {
            const uint8_t *s, *e;
            int plain;
            LR_TRY(v8j_scan_string(c, &s, &e, &plain));
        } else if (ch == '[' || ch == '{') {
            if (++depth > V8_MAX_DEPTH)
                return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "values nested too deeply");
            c->p++;
            continue;
        } else if (ch == ']' || ch == '}') {
            if (depth == 0)
                return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "unexpected '%c'", ch);
            depth--;
            c->p++;
        } else if (ch == ',' || ch == ':') {
            if (depth == 0)
                return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "unexpected '%c'", ch);
            c->p++;
            continue;
        } else {
            const uint8_t *s = c->p;
            while (c->p < c->end && !is_ws(*c->p) && *c->p != ',' && *c->p != ']' &&
                   *c->p != '}' && *c->p != ':')
                c->p++;
            if (c->p == s)
                return LR_CORRUPT(c->err, c->name, off_of(c, s), "unexpected byte 0x%02x", *s);
        }
        if (depth == 0)
            return LR_OK;
    }
}

/* ---- the header (snapshot object) ---- */


int v8j_nl_find(const namelist *l, const char *s)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->names[i], s) == 0)
            return (int)i;
    return -1;
}

/* Parses a JSON array of strings into l (names longer than V8_NAME_MAX - 1 are cut, which only
 * makes them unknown). */
static lr_status v8j_parse_namelist(cur *c, scratch *sc, namelist *l, uint32_t keep)
{
    LR_TRY(v8j_expect(c, '[', "a name list"));
    l->n = l->total = 0;
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return LR_OK;
    }
    for (;;) {
        const uint8_t *s;
        size_t len;
        LR_TRY(v8j_read_string(c, sc, &s, &len));
        if (l->n < keep) {
            size_t k = len < V8_NAME_MAX - 1 ? len : V8_NAME_MAX - 1;
            memcpy(l->names[l->n], s, k);
            l->names[l->n][k] = 0;
            l->n++;
        }
        l->total++;
        skip_ws(c);
        if (c->p >= c->end)
            return v8j_trunc_at(c, "a name list");
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        return v8j_expect(c, ']', "a name list");
    }
}

/* node_types / edge_types: one entry per field of node_fields / edge_fields, in their order:
 * the `type` field's entry is the list of its values, the others name a value kind
 * ("string", "number"). The list kept is the one at `want` (the `type` field's position,
 * when the fields came first), else the first list; *pos is its position + 1 (0: no list),
 * or that of a list found elsewhere, so that the reader can check it against the fields. */
static lr_status v8j_parse_typelist(cur *c, scratch *sc, namelist *l, uint32_t keep, int want,
                                    uint32_t *pos)
{
    LR_TRY(v8j_expect(c, '[', "a type list"));
    *pos = 0;
    for (uint32_t i = 0;; i++) {
        skip_ws(c);
        if (c->p >= c->end)
            return v8j_trunc_at(c, "a type list");
        if (*c->p == ']') {
            c->p++;
            return LR_OK;
        }
        if (i > 0)
            LR_TRY(v8j_expect(c, ',', "a type list"));
        skip_ws(c);
        int list = c->p < c->end && *c->p == '[';
        if (list && (want < 0 ? !*pos : (uint32_t)want == i)) {
            LR_TRY(v8j_parse_namelist(c, sc, l, keep));
            *pos = i + 1;
        } else {
            if (list && !*pos)
                *pos = i + 1; /* a list away from `want`: reported by the reader */
            LR_TRY(v8j_skip_value(c));
        }
    }
}

lr_status v8j_parse_object(cur *c, scratch *sc, member_fn fn, void *ctx)
{
    LR_TRY(v8j_expect(c, '{', "an object"));
    skip_ws(c);
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return LR_OK;
    }
    for (;;) {
        const uint8_t *k;
        size_t klen;
        LR_TRY(v8j_read_string(c, sc, &k, &klen));
        char key[V8_NAME_MAX];
        size_t kk = klen < V8_NAME_MAX - 1 ? klen : V8_NAME_MAX - 1;
        memcpy(key, k, kk);
        key[kk] = 0;
        if (klen != kk)
            key[0] = 0; /* long keys are never ones we know */
        LR_TRY(v8j_expect(c, ':', "an object"));
        skip_ws(c);
        LR_TRY(fn(c, sc, key, ctx));
        skip_ws(c);
        if (c->p >= c->end)
            return v8j_trunc_at(c, "an object");
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        return v8j_expect(c, '}', "an object");
    }
}

static lr_status v8j_meta_member(cur *c, scratch *sc, const char *key, void *ctx)
{
    header *h = ctx;
    if (strcmp(key, "node_fields") == 0) {
        h->has_node_fields = 1;
        return v8j_parse_namelist(c, sc, &h->node_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "edge_fields") == 0) {
        h->has_edge_fields = 1;
        return v8j_parse_namelist(c, sc, &h->edge_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "location_fields") == 0) {
        h->has_location_fields = 1;
        return v8j_parse_namelist(c, sc, &h->location_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "trace_function_info_fields") == 0) {
        h->has_trace_fi_fields = 1;
        return v8j_parse_namelist(c, sc, &h->trace_fi_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "trace_node_fields") == 0) {
        h->has_trace_node_fields = 1;
        return v8j_parse_namelist(c, sc, &h->trace_node_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "node_types") == 0)
        return v8j_parse_typelist(c, sc, &h->node_types, V8_MAX_TYPES,
                                  h->has_node_fields ? v8j_nl_find(&h->node_fields, "type") : -1,
                                  &h->node_types_pos);
    if (strcmp(key, "edge_types") == 0)
        return v8j_parse_typelist(c, sc, &h->edge_types, V8_MAX_EDGE_TYPES,
                                  h->has_edge_fields ? v8j_nl_find(&h->edge_fields, "type") : -1,
                                  &h->edge_types_pos);
    return v8j_skip_value(c);
}

lr_status v8j_snapshot_member(cur *c, scratch *sc, const char *key, void *ctx)
{
    header *h = ctx;
    if (strcmp(key, "meta") == 0) {
        h->has_meta = 1;
        return v8j_parse_object(c, sc, v8j_meta_member, h);
    }
    if (strcmp(key, "node_count") == 0) {
        h->has_node_count = 1;
        return v8j_read_uint(c, &h->node_count, "node_count");
    }
    if (strcmp(key, "edge_count") == 0) {
        h->has_edge_count = 1;
        return v8j_read_uint(c, &h->edge_count, "edge_count");
    }
    if (strcmp(key, "root_index") == 0) {
        h->has_root_index = 1;
        return v8j_read_uint(c, &h->root_index, "root_index");
    }
    if (strcmp(key, "extra_native_bytes") == 0 && c->p < c->end && *c->p >= '0' && *c->p <= '9')
        return v8j_read_uint(c, &h->extra_native_bytes, "extra_native_bytes");
    return v8j_skip_value(c);
}
