/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_scan.c: the HPROF reader's first look at a file (format layer), prefix hprof_. Checks
 * the header, walks every top-level record once (each length checked against the bytes left)
 * grouping heap records into dumps, and indexes the STRING, LOAD_CLASS, STACK_FRAME and
 * STACK_TRACE records by offset into the mapped input, nothing copied; then the names built
 * from them: class names in Java form, control characters replaced before anything reaches a
 * terminal. Cost: one pass over the record headers, plus a sort of the string table when the
 * file is not already in id order. Shared with the rest of the reader through
 * hprof_internal.h; the record layout is in docs/formats/hprof.md. */
#include "format/hprof_internal.h"
#include "base/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- header ---- */

const char *const hprof_versions[4] = {"JAVA PROFILE 1.0", "JAVA PROFILE 1.0.1",
                                       "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3"};

/* Returns the header length (version + NUL + u4 + u8), or 0 if not a supported header. */
static uint64_t header_len(const uint8_t *p, uint64_t n, int *version)
{
    for (unsigned v = 0; v < 4; v++) {
        size_t l = strlen(hprof_versions[v]);
        if (n >= l + 1 && memcmp(p, hprof_versions[v], l) == 0 && p[l] == 0) {
            if (version)
                *version = (int)v;
            return l + 1 + 4 + 8;
        }
    }
    return 0;
}

int hprof_sniff(const uint8_t *p, uint64_t n) { return header_len(p, n, NULL) != 0; }

lr_status hprof_parse_header(const uint8_t *d, uint64_t n, const char *name, unsigned *ids,
                             uint64_t *start, int *version, uint64_t *ts, lr_error *err)
{
    if (n == 0)
        return LR_TRUNC(err, name, 0, "empty file");
    uint64_t hl = header_len(d, n, version);
    if (hl == 0) {
        if (n < 20 && memcmp(d, "JAVA PROFILE 1.0", n < 16 ? n : 16) == 0)
            return LR_TRUNC(err, name, n, "file ends inside the HPROF header");
        return LR_CORRUPT(err, name, 0, "not an HPROF file (unknown version string)");
    }
    if (hl > n)
        return LR_TRUNC(err, name, n, "file ends inside the HPROF header");
    uint64_t o = hl - 12;
    uint32_t s = be32(d + o);
    if (s != 4 && s != 8)
        return LR_CORRUPT(err, name, o, "unsupported identifier size %u (want 4 or 8)", s);
    *ids = s;
    if (ts)
        *ts = (uint64_t)be32(d + o + 4) << 32 | be32(d + o + 8);
    *start = hl;
    return LR_OK;
}

/* ---- top-level scan ---- */

/* Walks top-level records; if r is non-NULL also indexes strings, classes and stacks. */
lr_status hprof_scan_top(const uint8_t *d, uint64_t n, uint64_t pos, unsigned ids,
                         const char *name, rd *r, hprof_dump *out, uint32_t cap,
                         uint32_t *n_dumps, lr_error *err)
{
    uint32_t nd = 0;
    int open = 0; /* a segmented dump is open */
    while (pos < n) {
        if (n - pos < 9)
            return LR_TRUNC(err, name, pos, "file ends inside a record header");
        unsigned tag = d[pos];
        uint32_t len = be32(d + pos + 5);
        uint64_t body = pos + 9;
        if (len > n - body)
            return LR_TRUNC(err, name, pos, "record tag 0x%02x length %u past end of file",
                            tag, len);
        if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT) {
            if (tag == TAG_HEAP_DUMP || !open) {
                if (nd < cap && out) {
                    out[nd].offset = pos;
                    out[nd].length = 0;
                    out[nd].n_records = 0;
                }
                nd++;
                if (r) {
                    PUSH(r, r->dumps, r->n_dumps, r->cap_dumps);
                    r->dumps[r->n_dumps].offset = pos;
                    r->dumps[r->n_dumps].length = 0;
                    r->dumps[r->n_dumps].n_records = 0;
                    r->n_dumps++;
                }
            }
            open = tag == TAG_HEAP_DUMP_SEGMENT;
            if (nd - 1 < cap && out) {
                out[nd - 1].length = body + len - out[nd - 1].offset;
                out[nd - 1].n_records++;
            }
            if (r) {
                hprof_dump *dd = &r->dumps[r->n_dumps - 1];
                dd->length = body + len - dd->offset;
                dd->n_records++;
            }
        } else if (tag == TAG_HEAP_DUMP_END) {
            open = 0;
        } else if (r) {
            switch (tag) {
            case TAG_STRING:
                if (len < ids)
                    return LR_CORRUPT(err, name, pos, "STRING record length %u < id size", len);
                PUSH(r, r->strs, r->n_strs, r->cap_strs);
                r->strs[r->n_strs++] = (str_ent){rd_id(d + body, ids), body + ids, len - ids};
                break;
            case TAG_LOAD_CLASS:
                if (len < 8 + 2 * ids)
                    return LR_CORRUPT(err, name, pos, "LOAD_CLASS record length %u too short",
                                      len);
                PUSH(r, r->lcs, r->n_lcs, r->cap_lcs);
                r->lcs[r->n_lcs++] = (lc_ent){rd_id(d + body + 4, ids),
                                              rd_id(d + body + 8 + ids, ids), be32(d + body)};
                break;
            case TAG_STACK_FRAME:
                if (len < 4 * ids + 8)
                    return LR_CORRUPT(err, name, pos, "STACK_FRAME record length %u too short",
                                      len);
                PUSH(r, r->frames, r->n_frames, r->cap_frames);
                r->frames[r->n_frames++] = (frame_ent){rd_id(d + body, ids), body};
                break;
            case TAG_STACK_TRACE: {
                if (len < 12)
                    return LR_CORRUPT(err, name, pos, "STACK_TRACE record length %u too short",
                                      len);
                uint32_t nf = be32(d + body + 8);
                if ((uint64_t)nf * ids > len - 12)
                    return LR_CORRUPT(err, name, pos, "STACK_TRACE with %u frames in %u bytes",
                                      nf, len);
                PUSH(r, r->traces, r->n_traces, r->cap_traces);
                r->traces[r->n_traces++] = (trace_ent){be32(d + body), body};
                break;
            }
            case TAG_UNLOAD_CLASS:
            case TAG_ALLOC_SITES:
            case TAG_HEAP_SUMMARY:
            case TAG_START_THREAD:
            case TAG_END_THREAD:
            case TAG_CPU_SAMPLES:
            case TAG_CONTROL_SETTINGS:
                break;
            default:
                diag_count(&r->g->diag, DIAG_UNKNOWN_RECORD);
                break;
            }
        }
        pos = body + len;
    }
    /* A file cut at a record boundary parses; what gives it away is a segmented dump that
     * never got its HEAP_DUMP_END, or no heap dump at all (a header and strings only). */
    if (r && (open || nd == 0))
        diag_count(&r->g->diag, DIAG_TRUNCATED);
    *n_dumps = nd;
    return LR_OK;
}

lr_status hprof_list_dumps(const mfile *m, const char *name, hprof_dump *out, uint32_t cap,
                           uint32_t *n_dumps, lr_error *err)
{
    unsigned ids;
    uint64_t start;
    int version;
    *n_dumps = 0;
    if (!name)
        name = "<memory>";
    LR_TRY(hprof_parse_header(m->data, m->len, name, &ids, &start, &version, NULL, err));
    return hprof_scan_top(m->data, m->len, start, ids, name, NULL, out, cap, n_dumps, err);
}

/* ---- strings and names ---- */

static int cmp_str(const void *a, const void *b)
{
    uint64_t x = ((const str_ent *)a)->id, y = ((const str_ent *)b)->id;
    return x < y ? -1 : x > y;
}
static int cmp_lc(const void *a, const void *b)
{
    uint64_t x = ((const lc_ent *)a)->class_id, y = ((const lc_ent *)b)->class_id;
    return x < y ? -1 : x > y;
}
const str_ent *hprof_find_str(const rd *r, uint64_t id)
{
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, r->n_strs, r->strs[search_mid].id < id, lo);
    return lo < r->n_strs && r->strs[lo].id == id ? &r->strs[lo] : NULL;
}

const lc_ent *hprof_find_lc(const rd *r, uint64_t class_id)
{
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, r->n_lcs, r->lcs[search_mid].class_id < class_id, lo);
    return lo < r->n_lcs && r->lcs[lo].class_id == class_id ? &r->lcs[lo] : NULL;
}

static lr_status scratch(rd *r, size_t need)
{
    if (need <= r->cap_scratch)
        return LR_OK;
    char *p = realloc(r->scratch, need);
    if (!p)
        return hprof_nomem(r);
    r->scratch = p;
    r->cap_scratch = need;
    return LR_OK;
}

static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Whether the 6 bytes at p are a surrogate pair as modified UTF-8 writes a character past
 * U+FFFF: ED A0-AF xx (high surrogate), ED B0-BF xx (low surrogate). */
static int surrogate_pair(const unsigned char *p, size_t left)
{
    return left >= 6 && p[0] == 0xED && (p[1] & 0xF0) == 0xA0 && (p[2] & 0xC0) == 0x80 &&
           p[3] == 0xED && (p[4] & 0xF0) == 0xB0 && (p[5] & 0xC0) == 0x80;
}

/* Interns n name bytes as UTF-8 with ASCII control characters replaced by '?'. STRING
 * records hold names of classes, fields, methods and files in the JVM's modified UTF-8: NUL
 * as C0 80 (so never a control character: every name ends up on a terminal, and a dump must
 * not be able to send escape sequences there), and a character past U+FFFF (a class named
 * with a mathematical letter or an emoji) as a surrogate pair, 6 bytes that no UTF-8 reader
 * accepts; they become the character's 4 UTF-8 bytes. */
static lr_status intern_name(rd *r, const char *p, size_t n, str_ix *out)
{
    size_t i = 0;
    while (i < n && !is_control((unsigned char)p[i]) && (unsigned char)p[i] != 0xED)
        i++;
    if (i == n)
        return graph_intern(r->g, p, n, out, r->err);
    if (p != r->scratch) {
        LR_TRY(scratch(r, n ? n : 1));
        memcpy(r->scratch, p, n);
    }
    unsigned char *b = (unsigned char *)r->scratch;
    size_t o = i; /* output never outgrows the input: 6 bytes become 4 */
    while (i < n) {
        if (surrogate_pair(b + i, n - i)) {
            uint32_t hi = (uint32_t)(b[i + 1] & 0x0F) << 6 | (b[i + 2] & 0x3F);
            uint32_t lo = (uint32_t)(b[i + 4] & 0x0F) << 6 | (b[i + 5] & 0x3F);
            uint32_t cp = 0x10000 + (hi << 10) + lo;
            b[o++] = (unsigned char)(0xF0 | cp >> 18);
            b[o++] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
            b[o++] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
            b[o++] = (unsigned char)(0x80 | (cp & 0x3F));
            i += 6;
            continue;
        }
        b[o++] = is_control(b[i]) ? '?' : b[i];
        i++;
    }
    return graph_intern(r->g, r->scratch, o, out, r->err);
}

/* Interns the string with HPROF id `id`; a missing one becomes "<missing string 0x..>". */
lr_status hprof_intern_id(rd *r, uint64_t id, str_ix *out)
{
    const str_ent *s = hprof_find_str(r, id);
    if (!s) {
        char buf[48];
        int l = snprintf(buf, sizeof buf, "<missing string 0x%llx>", (unsigned long long)id);
        diag_count(&r->g->diag, DIAG_MISSING_STRING);
        return graph_intern(r->g, buf, (size_t)l, out, r->err);
    }
    return intern_name(r, (const char *)r->d + s->off, s->len, out);
}

/* Converts a JVM class name ("java/lang/String", "[I", "[[Ljava/lang/Object;") to Java form
 * ("java.lang.String", "int[]", "java.lang.Object[][]") into r->scratch; returns the length. */
static lr_status java_name(rd *r, const char *s, size_t len, size_t *out_len)
{
    LR_TRY(scratch(r, len + 16 + 2 * len));
    char *o = r->scratch;
    size_t dims = 0;
    while (dims < len && s[dims] == '[')
        dims++;
    const char *e = s + dims;
    size_t el = len - dims;
    size_t k = 0;
    if (dims > 0 && el == 1) {
        static const char CODES[] = "ZCFDBSIJ";
        static const char *const NAMES[] = {"boolean", "char", "float", "double",
                                            "byte",    "short", "int",  "long"};
        const char *c = strchr(CODES, e[0]);
        const char *nm = c && e[0] ? NAMES[c - CODES] : NULL;
        if (nm) {
            k = strlen(nm);
            memcpy(o, nm, k);
        } else {
            memcpy(o, e, el);
            k = el;
        }
    } else {
        if (dims > 0 && el >= 2 && e[0] == 'L' && e[el - 1] == ';') {
            e++;
            el -= 2;
        }
        for (size_t i = 0; i < el; i++)
            o[k++] = e[i] == '/' ? '.' : e[i];
    }
    for (size_t i = 0; i < dims; i++) {
        o[k++] = '[';
        o[k++] = ']';
    }
    *out_len = k;
    return LR_OK;
}

lr_status hprof_intern_class_name(rd *r, uint64_t name_id, str_ix *out)
{
    const str_ent *s = hprof_find_str(r, name_id);
    if (!s)
        return hprof_intern_id(r, name_id, out);
    size_t l;
    LR_TRY(java_name(r, (const char *)r->d + s->off, s->len, &l));
    return intern_name(r, r->scratch, l, out);
}

/* ---- sorting the tables ---- */

static int sorted_by(const void *base, uint32_t n, size_t sz,
                     int (*cmp)(const void *, const void *))
{
    const char *b = base;
    for (uint32_t i = 1; i < n; i++)
        if (cmp(b + (i - 1) * sz, b + i * sz) > 0)
            return 0;
    return 1;
}

/* LSD radix sort of the strings by id, skipping the bytes every id shares (ids are
 * addresses): a comparison sort of tens of thousands of strings costs more than the rest of
 * a histogram's setup. Falls back to qsort without memory for the copy. */
static void sort_strs_by_id(rd *r)
{
    uint32_t n = r->n_strs;
    str_ent *a = r->strs, *tmp = n > 1 ? err_mallocarray(n, sizeof *tmp) : NULL;
    if (!tmp) {
        if (n > 1)
            qsort(r->strs, n, sizeof *r->strs, cmp_str);
        return;
    }
    uint64_t all_or = 0, all_and = UINT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        all_or |= a[i].id;
        all_and &= a[i].id;
    }
    str_ent *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if (((all_or ^ all_and) >> shift & 0xff) == 0)
            continue; /* every id has the same byte here */
        uint32_t cnt[257] = {0};
        for (uint32_t i = 0; i < n; i++)
            cnt[(src[i].id >> shift & 0xff) + 1]++;
        for (unsigned b = 0; b < 256; b++)
            cnt[b + 1] += cnt[b];
        for (uint32_t i = 0; i < n; i++)
            dst[cnt[src[i].id >> shift & 0xff]++] = src[i];
        str_ent *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof *a);
    free(tmp);
}

/* The finds below bisect: sort unless the file already has them in id order (HotSpot
 * writes strings in id order; a sorted array stays as it is, duplicates included). */
void hprof_sort_tables(rd *r, int radix)
{
    if (!sorted_by(r->strs, r->n_strs, sizeof *r->strs, cmp_str)) {
        if (radix)
            sort_strs_by_id(r);
        else
            qsort(r->strs, r->n_strs, sizeof *r->strs, cmp_str);
    }
    if (!sorted_by(r->lcs, r->n_lcs, sizeof *r->lcs, cmp_lc))
        qsort(r->lcs, r->n_lcs, sizeof *r->lcs, cmp_lc);
}
