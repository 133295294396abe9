/* SPDX-License-Identifier: Apache-2.0 */
/* table.c: SQL results as an aligned table, TSV, CSV and JSON (report layer), prefix
 * rep_table_. Reads query_result cells (query/result.h) and writes them in one of four
 * layouts. Text and TSV cells show at most REP_TABLE_CELL_SHOW bytes of a value (then
 * "..."), escaped as every verb escapes names from a dump (rep_fmt_text: C0, DEL, C1 and
 * invalid UTF-8 as \xNN), blobs in hex, so one cell stays on one line and a hostile string
 * cannot drive the terminal; CSV carries every byte (RFC 4180, as histo and top --csv) and
 * JSON every character (jsonw: U+FFFD for invalid UTF-8, so the document stays valid).
 * The aligned table measures every kept row twice (widths, then output): O(rows x cols) and
 * no copy. Layouts and JSON keys only ever grow (docs/sql.md, docs/json.md "sql"). */
#include "report/table.h"

#include "report/fmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define REP_TABLE_CELL_SHOW 200                       /* bytes of a value shown in a cell */
#define REP_TABLE_CELL_BUF (4 * REP_TABLE_CELL_SHOW + 16) /* its escaped form, worst case */

/* ---- one value ---- */

/* Text of a number or NULL into buf ("" for NULL in CSV, "NULL" otherwise); NULL for text
 * and blobs. */
static const char *scalar(const query_cell *c, int csv, char *buf, size_t cap)
{
    switch (c->type) {
    case QUERY_CELL_INT:
        snprintf(buf, cap, "%" PRId64, c->v.i);
        return buf;
    case QUERY_CELL_REAL:
        snprintf(buf, cap, "%.15g", c->v.d);
        return buf;
    case QUERY_CELL_NULL:
        return csv ? "" : "NULL";
    default:
        return NULL;
    }
}

/* Display columns of escaped text: one per character (escapes are ASCII). */
static size_t columns(const char *s, size_t n)
{
    size_t cols = 0;
    for (size_t i = 0; i < n; i++)
        cols += ((unsigned char)s[i] & 0xc0) != 0x80;
    return cols;
}

/* Text from a dump or a statement into buf (REP_TABLE_CELL_BUF bytes) as every verb shows
 * names on a terminal (rep_fmt_text: C0, DEL, C1 and invalid UTF-8 as \xNN, a character
 * cut at the limit left out), at most REP_TABLE_CELL_SHOW bytes then "...". Printable ASCII,
 * the common case, is copied as it is. Returns the display width. */
static size_t escape_text(const char *s, size_t len, char *buf, size_t cap)
{
    size_t n = len < REP_TABLE_CELL_SHOW ? len : REP_TABLE_CELL_SHOW;
    size_t ascii = 0;
    while (ascii < n && s[ascii] >= 0x20 && s[ascii] < 0x7f)
        ascii++;
    if (ascii == n) {
        memcpy(buf, s, n);
        memcpy(buf + n, len > n ? "..." : "", len > n ? 4 : 1);
        return n + (len > n ? 3 : 0);
    }
    /* whole: cap is REP_TABLE_CELL_BUF, 4 bytes per byte shown at worst, "..." and the NUL */
    return columns(buf, rep_fmt_text_buf(buf, cap, s, len, n));
}

/* A text or blob cell for the table and TSV into buf (REP_TABLE_CELL_BUF bytes): blobs in
 * hex, text as escape_text. Returns the display width. */
static size_t escape(const query_cell *c, char *buf, size_t cap)
{
    if (c->type != QUERY_CELL_BLOB)
        return escape_text(c->s, c->v.len, buf, cap);
    size_t k = 0, n = c->v.len < REP_TABLE_CELL_SHOW ? c->v.len : REP_TABLE_CELL_SHOW;
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%02x", (unsigned char)c->s[i]);
    if (c->v.len > n)
        k += (size_t)snprintf(buf + k, cap - k, "...");
    buf[k] = 0;
    return k;
}

/* Any cell as the table and TSV show it, into buf; returns its display width. */
static size_t render(const query_cell *c, char *buf, size_t cap)
{
    const char *s = scalar(c, 0, buf, cap);
    if (!s)
        return escape(c, buf, cap);
    if (s != buf)
        snprintf(buf, cap, "%s", s);
    return strlen(buf);
}

static void csv_cell(FILE *out, const query_cell *c)
{
    char buf[64];
    const char *s = scalar(c, 1, buf, sizeof buf);
    if (s) {
        fputs(s, out);
        return;
    }
    if (c->type == QUERY_CELL_BLOB) {
        for (size_t i = 0; i < c->v.len; i++)
            fprintf(out, "%02x", (unsigned char)c->s[i]);
        return;
    }
    int quote = 0;
    for (size_t i = 0; i < c->v.len && !quote; i++)
        quote = c->s[i] == ',' || c->s[i] == '"' || c->s[i] == '\n' || c->s[i] == '\r';
    if (!quote) {
        fwrite(c->s, 1, c->v.len, out);
        return;
    }
    fputc('"', out);
    for (size_t i = 0; i < c->v.len; i++) {
        if (c->s[i] == '"')
            fputc('"', out);
        fputc(c->s[i], out);
    }
    fputc('"', out);
}

static void json_cell(jsonw *w, const query_cell *c)
{
    switch (c->type) {
    case QUERY_CELL_INT:
        jsonw_int(w, c->v.i);
        break;
    case QUERY_CELL_REAL:
        jsonw_double(w, c->v.d);
        break;
    case QUERY_CELL_NULL:
        jsonw_null(w);
        break;
    case QUERY_CELL_BLOB: {
        char *hex = malloc(c->v.len * 2 + 1);
        if (!hex) { /* a document that still parses beats a half-written value */
            jsonw_null(w);
            break;
        }
        for (size_t i = 0; i < c->v.len; i++)
            snprintf(hex + 2 * i, 3, "%02x", (unsigned char)c->s[i]);
        jsonw_strn(w, hex, c->v.len * 2);
        free(hex);
        break;
    }
    default:
        jsonw_strn(w, c->s, c->v.len);
    }
}

/* ---- JSON ---- */

void rep_table_json_open(rep_table *t)
{
    if (t->results_open)
        return;
    jsonw_kv_arr_begin(t->w, "results");
    t->results_open = 1;
}

/* "time_ms": the statement's wall time, to the microsecond. */
static void json_time(rep_table *t, double ms)
{
    if (t->no_timing)
        return;
    jsonw_key(t->w, "time_ms");
    jsonw_double(t->w, (double)(int64_t)(ms * 1000 + 0.5) / 1000);
}

static void json_head(rep_table *t, const query_result *r)
{
    rep_table_json_open(t);
    jsonw_obj_begin(t->w);
    jsonw_kv_arr_begin(t->w, "columns");
    for (uint32_t j = 0; j < r->n_cols; j++)
        jsonw_str(t->w, r->names[j]);
    jsonw_arr_end(t->w);
    jsonw_kv_arr_begin(t->w, "rows");
}

static void json_row(jsonw *w, const query_result *r, const query_cell *row)
{
    jsonw_arr_begin(w);
    for (uint32_t j = 0; j < r->n_cols; j++)
        json_cell(w, &row[j]);
    jsonw_arr_end(w);
}

void rep_table_json_error(rep_table *t, const char *code, int exit_code, const char *msg)
{
    jsonw_arr_end(t->w);
    t->results_open = 0;
    jsonw_kv_obj_begin(t->w, "error");
    jsonw_kv_str(t->w, "code", code);
    jsonw_kv_int(t->w, "exit", exit_code);
    jsonw_kv_str(t->w, "message", msg);
    jsonw_obj_end(t->w);
}

void rep_table_json_close(rep_table *t)
{
    rep_table_json_open(t);
    jsonw_arr_end(t->w);
    t->results_open = 0;
}

/* ---- text ---- */

/* The header line (no padding) of the TSV and CSV layouts, after the blank line between two
 * results. */
static void text_head(rep_table *t, const query_result *r)
{
    if (t->shown++ && t->mode != REP_TABLE_CSV)
        fputc('\n', t->out);
    for (uint32_t j = 0; j < r->n_cols; j++) {
        if (j)
            fputc(t->mode == REP_TABLE_CSV ? ',' : '\t', t->out);
        if (t->mode == REP_TABLE_CSV) {
            query_cell h = {.type = QUERY_CELL_TEXT, .s = r->names[j]};
            h.v.len = strlen(h.s);
            csv_cell(t->out, &h);
        } else {
            fputs(r->names[j], t->out);
        }
    }
    fputc('\n', t->out);
}

static void text_row(rep_table *t, const query_result *r, const query_cell *row)
{
    char buf[REP_TABLE_CELL_BUF];
    for (uint32_t j = 0; j < r->n_cols; j++) {
        if (j)
            fputc(t->mode == REP_TABLE_CSV ? ',' : '\t', t->out);
        if (t->mode == REP_TABLE_CSV) {
            csv_cell(t->out, &row[j]);
        } else {
            render(&row[j], buf, sizeof buf);
            fputs(buf, t->out);
        }
    }
    fputc('\n', t->out);
}

/* The aligned table: widths from every row, a rule under the header, "(N rows)". Without
 * memory for the widths, the TSV layout plus the row count. */
static void aligned(rep_table *t, const query_result *r)
{
    FILE *out = t->out;
    char buf[REP_TABLE_CELL_BUF];
    uint32_t ncol = r->n_cols;
    size_t *width = calloc(ncol, sizeof *width);
    if (t->shown++)
        fputc('\n', out);
    for (uint32_t j = 0; width && j < ncol; j++) {
        width[j] = strlen(r->names[j]);
        for (uint64_t i = 0; i < r->n_rows; i++) {
            size_t w = render(&r->cells[i * ncol + j], buf, sizeof buf);
            if (w > width[j])
                width[j] = w;
        }
    }
    for (uint32_t j = 0; j < ncol; j++) {
        if (j)
            fputs(width ? "  " : "\t", out);
        fprintf(out, "%-*s", width && j + 1 < ncol ? (int)width[j] : 0, r->names[j]);
    }
    fputc('\n', out);
    for (uint32_t j = 0; width && j < ncol; j++)
        for (size_t k = 0; k < width[j] + (j ? 2 : 0); k++)
            fputc(k < 2 && j ? ' ' : '-', out);
    if (width)
        fputc('\n', out);
    for (uint64_t i = 0; i < r->n_rows; i++) {
        for (uint32_t j = 0; j < ncol; j++) {
            const query_cell *c = &r->cells[i * ncol + j];
            size_t w = render(c, buf, sizeof buf);
            if (j)
                fputs(width ? "  " : "\t", out);
            /* numbers right-aligned, text left-aligned, as people read tables */
            int num = c->type == QUERY_CELL_INT || c->type == QUERY_CELL_REAL;
            for (size_t k = w; width && num && k < width[j]; k++)
                fputc(' ', out);
            fputs(buf, out);
            for (size_t k = w; width && !num && j + 1 < ncol && k < width[j]; k++)
                fputc(' ', out);
        }
        fputc('\n', out);
    }
    fprintf(out, "(%s row%s)\n", REP_FMT_COUNT(r->n_rows), r->n_rows == 1 ? "" : "s");
    free(width);
}

/* ---- whole or streamed ---- */

void rep_table_result(rep_table *t, const query_result *r, double ms)
{
    if (t->mode == REP_TABLE_JSON) {
        json_head(t, r);
        for (uint64_t i = 0; i < r->n_rows; i++)
            json_row(t->w, r, &r->cells[i * r->n_cols]);
        jsonw_arr_end(t->w);
        jsonw_kv_uint(t->w, "row_count", r->n_rows);
        json_time(t, ms);
        jsonw_obj_end(t->w);
        return;
    }
    if (t->mode == REP_TABLE_ALIGNED) {
        aligned(t, r);
        return;
    }
    text_head(t, r);
    for (uint64_t i = 0; i < r->n_rows; i++)
        text_row(t, r, &r->cells[i * r->n_cols]);
}

void rep_table_begin(rep_table *t, const query_result *r)
{
    if (t->mode == REP_TABLE_JSON)
        json_head(t, r);
    else
        text_head(t, r);
}

void rep_table_row(rep_table *t, const query_result *r, const query_cell *row)
{
    if (t->mode == REP_TABLE_JSON)
        json_row(t->w, r, row);
    else
        text_row(t, r, row);
}

void rep_table_end(rep_table *t, const query_result *r, int done, double ms)
{
    if (t->mode != REP_TABLE_JSON)
        return;
    jsonw_arr_end(t->w);
    if (done) {
        jsonw_kv_uint(t->w, "row_count", r->n_rows);
        json_time(t, ms);
    }
    jsonw_obj_end(t->w);
}
