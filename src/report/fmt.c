/* SPDX-License-Identifier: Apache-2.0 */
/* fmt.c: the text formatters every rendering shares (report layer), prefix rep_fmt_; what
 * each prints is in fmt.h. Counts are grouped by base/numfmt.c, which the analysis layer's
 * own sentences use too. Sizes use the report's one base-1000 unit function
 * (rep_human_bytes), so a size reads the same in a table, a sentence and a leak trace. */
#include "report/fmt.h"

#include "base/numfmt.h"
#include "base/utf8.h"

#include "analysis/devtools.h"
#include "report/text.h"

#include <inttypes.h>
#include <string.h>

const char *rep_fmt_count(char *buf, uint64_t n) { return numfmt_group(buf, n); }

const char *rep_fmt_human(char *buf, uint64_t bytes)
{
    char t[32];
    snprintf(buf, REP_FMT_MAX, "%s", rep_human_bytes(t, bytes));
    return buf;
}

const char *rep_fmt_bytes(char *buf, uint64_t bytes)
{
    char c[REP_FMT_MAX], h[REP_FMT_MAX];
    if (bytes < 1000)
        snprintf(buf, REP_FMT_MAX, "%" PRIu64 " bytes", bytes);
    else
        snprintf(buf, REP_FMT_MAX, "%.27s bytes (%.24s)", rep_fmt_count(c, bytes),
                 rep_fmt_human(h, bytes));
    return buf;
}

const char *rep_fmt_pct(char *buf, uint64_t part, uint64_t whole)
{
    if (!whole)
        snprintf(buf, REP_FMT_MAX, "-");
    else
        snprintf(buf, REP_FMT_MAX, "%.1f%%", (double)part * 100.0 / (double)whole);
    return buf;
}

const char *rep_fmt_distance(char *buf, int32_t distance)
{
    if (distance >= 0 && distance < DEVTOOLS_SYSTEM_DISTANCE)
        snprintf(buf, REP_FMT_MAX, "%" PRId32, distance);
    else
        snprintf(buf, REP_FMT_MAX, "\xe2\x88\x92"); /* U+2212, as DevTools */
    return buf;
}

const char *rep_fmt_id(char *buf, const graph *g, uint64_t id)
{
    if (g && g->id_size == 0 && !g->hex_ids)
        snprintf(buf, REP_FMT_MAX, "@%" PRIu64, id);
    else
        snprintf(buf, REP_FMT_MAX, "0x%" PRIx64, id);
    return buf;
}

enum rep_runtime rep_fmt_runtime(const graph *g)
{
    if (!g || !g->format)
        return REP_RT_OTHER;
    if (strcmp(g->format, "hprof") == 0)
        return REP_RT_JAVA;
    return strcmp(g->format, "v8") == 0 ? REP_RT_JS : REP_RT_OTHER;
}

const char *rep_fmt_synthetic_name(const graph *g, node_ix x)
{
    if (!g->node_name || x >= g->n_nodes || g->node_kind[x] != GRAPH_KIND_SYNTHETIC)
        return NULL;
    if (x == g->synthetic_root)
        return "(root)";
    const char *nm = graph_str(g, g->node_name[x]);
    return nm && *nm ? nm : NULL;
}

void rep_fmt_name(FILE *out, const char *s)
{
    if (s)
        rep_fmt_text(out, s, strlen(s), SIZE_MAX);
}

/* The one escaping rule of rep_fmt_text and rep_fmt_text_buf: the character of p (len bytes)
 * at i as shown, written to piece (REP_FMT_CHAR_MAX bytes, not terminated), its length in
 * *piece_len. Returns the bytes of p it stands for, or 0 when a character cut at n (the shown
 * limit, n <= len) is left out. */
static size_t text_char(const unsigned char *p, size_t i, size_t n, size_t len, char *piece,
                        size_t *piece_len)
{
    unsigned char c = p[i];
    switch (c) {
    case '\n': memcpy(piece, "\\n", 2); *piece_len = 2; return 1;
    case '\t': memcpy(piece, "\\t", 2); *piece_len = 2; return 1;
    case '\r': memcpy(piece, "\\r", 2); *piece_len = 2; return 1;
    default: break;
    }
    /* the whole string decides validity: a character cut by max_bytes is left out, not
     * escaped */
    size_t k = utf8_seq_len(p + i, len - i);
    if (k > 1 && i + k > n)
        return 0;
    /* C0, DEL and C1 (U+0080-U+009F, which some terminals take as CSI and OSC) would
     * let a hostile dump drive the terminal: shown as the bytes they are */
    int control = c < 0x20 || c == 0x7f || (k == 2 && c == 0xc2 && p[i + 1] < 0xa0);
    /* and the line and paragraph separators (U+2028, U+2029) and the bidirectional
     * overrides and isolates (U+202A-U+202E, U+2066-U+2069), which reorder what a terminal
     * shows around them */
    if (k == 3 && c == 0xe2)
        control |= (p[i + 1] == 0x80 && p[i + 2] >= 0xa8 && p[i + 2] <= 0xae) ||
                   (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9);
    if (k == 0 || control) {
        size_t m = k ? k : 1;
        for (size_t j = 0; j < m; j++)
            snprintf(piece + 4 * j, 5, "\\x%02x", p[i + j]);
        *piece_len = 4 * m;
        return m;
    }
    memcpy(piece, p + i, k);
    *piece_len = k;
    return k;
}

void rep_fmt_text(FILE *out, const char *s, size_t len, size_t max_bytes)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = len < max_bytes ? len : max_bytes;
    char piece[REP_FMT_CHAR_MAX + 1];
    size_t i = 0, k, used;
    while (i < n && (used = text_char(p, i, n, len, piece, &k)) != 0) {
        fwrite(piece, 1, k, out);
        i += used;
    }
    if (len > n)
        fputs("...", out);
}

size_t rep_fmt_text_buf(char *buf, size_t cap, const char *s, size_t len, size_t max_bytes)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = len < max_bytes ? len : max_bytes;
    char piece[REP_FMT_CHAR_MAX + 1];
    size_t o = 0, i = 0, k, used;
    if (!cap)
        return 0;
    /* room for the piece, a "..." and the NUL: a buffer too small cuts the text short */
    while (i < n && (used = text_char(p, i, n, len, piece, &k)) != 0 && o + k + 4 <= cap) {
        memcpy(buf + o, piece, k);
        o += k;
        i += used;
    }
    if (len > n && o + 4 <= cap) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return o;
}

const char *rep_fmt_term(char *buf, size_t cap, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), i = 0, k, used;
    char piece[REP_FMT_CHAR_MAX + 1];
    while (i < len && (used = text_char(p, i, len, len, piece, &k)) == k &&
           memcmp(piece, p + i, k) == 0)
        i += used;
    if (i == len)
        return s;
    rep_fmt_text_buf(buf, cap, s, len, SIZE_MAX);
    return buf;
}

void rep_fmt_csv(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void rep_fmt_timing(FILE *out, int no_timing, const char *what, double ms)
{
    if (no_timing)
        return;
    if (ms < 1000)
        fprintf(out, "%s: %.1f ms\n", what, ms);
    else
        fprintf(out, "%s: %.2f s\n", what, ms / 1000);
}

size_t rep_fmt_utf8_prefix(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    /* back to the first byte of the sequence s[max] belongs to */
    while (n > 0 && ((unsigned char)s[n] & 0xC0u) == 0x80u)
        n--;
    return n;
}
