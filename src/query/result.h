/* SPDX-License-Identifier: Apache-2.0 */
/* result.h: a statement's answer as plain data (query layer), prefix query_. What `leakray
 * sql` shows of one SQL statement: its column names and rows of typed cells (integer, real,
 * text, blob, NULL), either kept whole (query_collect: every row copied, so the table can be
 * aligned and a row cap reported before anything is shown) or one row at a time
 * (query_next: the cells point into SQLite's memory until the next step, nothing is kept,
 * so memory does not grow with the result). The types hold no SQLite handle: the report
 * layer renders them (src/report/table.c) and includes this header alone of the query layer
 * (scripts/check-layers.sh). Kept rows cost 24 bytes a cell plus their text, which lives in
 * 64 KiB blocks owned by the result. Not thread-safe; one result per statement. */
#ifndef LR_QUERY_RESULT_H
#define LR_QUERY_RESULT_H

#include <stddef.h>
#include <stdint.h>

struct sqlite3_stmt;

enum query_cell_type {
    QUERY_CELL_NULL = 0, /* SQL NULL (and a zero-length blob, which SQLite gives no bytes) */
    QUERY_CELL_INT,      /* 64-bit integer in i */
    QUERY_CELL_REAL,     /* double in d */
    QUERY_CELL_TEXT,     /* UTF-8 as SQLite holds it, s[len] == 0; may hold NUL bytes */
    QUERY_CELL_BLOB,     /* len bytes at s */
};

/* One value. s is owned by the result for kept rows, by SQLite for a streamed row. */
typedef struct query_cell {
    uint32_t type; /* enum query_cell_type */
    union {
        int64_t i; /* QUERY_CELL_INT */
        double d;  /* QUERY_CELL_REAL */
        size_t len; /* QUERY_CELL_TEXT, _BLOB: bytes at s */
    } v;
    const char *s; /* QUERY_CELL_TEXT, _BLOB: the bytes; NULL otherwise */
} query_cell;

typedef struct query_block query_block; /* text storage of kept rows (result.c) */

typedef struct query_result {
    uint32_t n_cols;    /* columns; 0 for a statement that returns none (INSERT, CREATE) */
    const char **names; /* n_cols column names, SQLite's until the statement is finalized */
    query_cell *cells;  /* kept rows, row-major n_rows x n_cols (query_collect), else NULL */
    uint64_t n_rows;    /* rows kept, or streamed so far by query_next */
    uint64_t cap;       /* rows cells has room for */
    query_block *text;  /* blocks holding the kept cells' bytes */
} query_result;

/* How stepping a statement ended. */
enum query_step {
    QUERY_STEP_DONE = 0, /* no more rows (query_collect: all are kept) */
    QUERY_STEP_ROW,      /* query_next: one row in row[] */
    QUERY_STEP_FAILED,   /* SQLite failed: its result code in *rc, its message by sqlite3_errmsg
                          * and query_last_error (query.h) for leakray's own lazy values */
    QUERY_STEP_CAP,      /* query_collect: more than max_rows rows; none kept */
    QUERY_STEP_NOMEM,    /* query_collect: out of memory; none kept, *rc says for which rows */
};

/* Starts r for prepared statement st: its column names, no rows. Returns 0, or -1 when out
 * of memory (r is then empty and freeable). */
int query_result_init(query_result *r, struct sqlite3_stmt *st);
/* Steps st once. QUERY_STEP_ROW: row (r->n_cols cells, the caller's array) holds the next
 * row, valid until the next step, and r->n_rows counts it; QUERY_STEP_DONE; or
 * QUERY_STEP_FAILED with SQLite's code in *rc. Keeps nothing: O(1) memory per row. */
int query_next(query_result *r, struct sqlite3_stmt *st, query_cell *row, int *rc);
/* Steps st to its end and keeps every row in r (copies). QUERY_STEP_CAP as soon as a row past
 * max_rows comes (max_rows >= 1); QUERY_STEP_NOMEM with *rc = 0 when the row array could
 * not grow past r->n_rows rows, 1 when row r->n_rows + 1 could not be copied;
 * QUERY_STEP_FAILED with SQLite's code in *rc. On every outcome but QUERY_STEP_DONE the rows
 * are freed (r->n_rows still says how many had come). Memory: 24 bytes a cell plus the
 * text, up to max_rows rows. */
int query_collect(query_result *r, struct sqlite3_stmt *st, uint64_t max_rows, int *rc);
/* Frees the kept rows and names (the names' strings stay SQLite's). Accepts an empty r. */
void query_result_free(query_result *r);

#endif
