/* SPDX-License-Identifier: Apache-2.0 */
/* result.c: reading a statement's rows into query_result (query layer), prefix query_. The
 * one place SQLite's column values become typed cells: query_next hands a row over in place,
 * query_collect copies every row (cells in one array grown by doubling up to the cap, text
 * and blob bytes appended to 64 KiB blocks that never move, so a cell's pointer stays valid
 * while later rows come). A zero-length blob reads as NULL, as SQLite gives it no bytes.
 * The rendering is the report layer's (src/report/table.c); see result.h for the contract. */
#include "query/result.h"

#include "base/err.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define QUERY_BLOCK_BYTES (64u << 10) /* text block size; a longer value gets its own */

struct query_block {
    query_block *next; /* older block */
    size_t used;       /* bytes taken of data */
    size_t size;       /* bytes in data */
    char data[];       /* the cells' bytes, each NUL-terminated */
};

int query_result_init(query_result *r, sqlite3_stmt *st)
{
    memset(r, 0, sizeof *r);
    int n = sqlite3_column_count(st);
    if (n <= 0)
        return 0;
    r->names = err_mallocarray((size_t)n, sizeof *r->names);
    if (!r->names)
        return -1;
    for (int j = 0; j < n; j++)
        r->names[j] = sqlite3_column_name(st, j);
    r->n_cols = (uint32_t)n;
    return 0;
}

/* Column j of st's current row into c, the bytes left where SQLite keeps them. */
static void read_cell(sqlite3_stmt *st, int j, query_cell *c)
{
    memset(c, 0, sizeof *c);
    switch (sqlite3_column_type(st, j)) {
    case SQLITE_INTEGER:
        c->type = QUERY_CELL_INT;
        c->v.i = sqlite3_column_int64(st, j);
        return;
    case SQLITE_FLOAT:
        c->type = QUERY_CELL_REAL;
        c->v.d = sqlite3_column_double(st, j);
        return;
    case SQLITE_NULL:
        return;
    case SQLITE_BLOB:
        c->s = sqlite3_column_blob(st, j);
        c->type = QUERY_CELL_BLOB;
        break;
    default:
        c->s = (const char *)sqlite3_column_text(st, j);
        c->type = QUERY_CELL_TEXT;
    }
    c->v.len = (size_t)sqlite3_column_bytes(st, j);
    if (!c->s) /* a zero-length blob, or text SQLite could not convert */
        memset(c, 0, sizeof *c);
}

int query_next(query_result *r, sqlite3_stmt *st, query_cell *row, int *rc)
{
    *rc = sqlite3_step(st);
    if (*rc == SQLITE_DONE)
        return QUERY_STEP_DONE;
    if (*rc != SQLITE_ROW)
        return QUERY_STEP_FAILED;
    for (uint32_t j = 0; j < r->n_cols; j++)
        read_cell(st, (int)j, &row[j]);
    r->n_rows++;
    return QUERY_STEP_ROW;
}

/* Copies len bytes plus a NUL into r's text blocks; NULL when out of memory. */
static const char *keep_bytes(query_result *r, const char *s, size_t len)
{
    query_block *b = r->text;
    if (!b || b->size - b->used < len + 1) {
        size_t size = len + 1 > QUERY_BLOCK_BYTES ? len + 1 : QUERY_BLOCK_BYTES;
        b = malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->used = 0;
        b->size = size;
        /* A value bigger than a block gets its own behind the current one, which keeps its
         * free room for the next short values. */
        if (len + 1 > QUERY_BLOCK_BYTES && r->text) {
            b->next = r->text->next;
            r->text->next = b;
        } else {
            b->next = r->text;
            r->text = b;
        }
    }
    char *d = b->data + b->used;
    memcpy(d, s, len);
    d[len] = 0;
    b->used += len + 1;
    return d;
}

static void free_rows(query_result *r)
{
    for (query_block *b = r->text, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    r->text = NULL;
    free(r->cells);
    r->cells = NULL;
    r->cap = 0;
}

int query_collect(query_result *r, sqlite3_stmt *st, uint64_t max_rows, int *rc)
{
    uint64_t ncol = r->n_cols;
    while ((*rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->n_rows == max_rows) {
            free_rows(r);
            return QUERY_STEP_CAP;
        }
        if (r->n_rows == r->cap) {
            uint64_t ncap = r->cap ? r->cap * 2 : 64;
            if (ncap > max_rows)
                ncap = max_rows;
            query_cell *v = err_reallocarray(r->cells, ncap * ncol, sizeof *v);
            if (!v) {
                free_rows(r);
                *rc = 0;
                return QUERY_STEP_NOMEM;
            }
            r->cells = v;
            r->cap = ncap;
        }
        query_cell *row = r->cells + r->n_rows * ncol;
        for (uint32_t j = 0; j < r->n_cols; j++) {
            read_cell(st, (int)j, &row[j]);
            if (row[j].s && !(row[j].s = keep_bytes(r, row[j].s, row[j].v.len))) {
                free_rows(r);
                *rc = 1;
                return QUERY_STEP_NOMEM;
            }
        }
        r->n_rows++;
    }
    if (*rc == SQLITE_DONE)
        return QUERY_STEP_DONE;
    free_rows(r);
    return QUERY_STEP_FAILED;
}

void query_result_free(query_result *r)
{
    free_rows(r);
    free(r->names);
    r->names = NULL;
    r->n_cols = 0;
}
