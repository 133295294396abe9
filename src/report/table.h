/* SPDX-License-Identifier: Apache-2.0 */
/* table.h: SQL statements' results as text, CSV and JSON (report layer), prefix rep_table_.
 * What `leakray sql` prints for each statement of a run: an aligned table with a row count
 * (on a terminal), tab-separated values, RFC 4180 CSV, or one object per statement in the
 * JSON document's "results" array (docs/json.md "sql") -- pure functions of a query_result
 * (query/result.h, the one query header this layer reads). A kept result is written whole
 * (rep_table_result); a streamed one as it comes (rep_table_begin, rep_table_row per row,
 * rep_table_end), so nothing of it is held here either. A rep_table carries what spans the
 * statements of one run: the output mode, the blank line between two results, the JSON
 * "results" array. Errors are the caller's, except their place in the JSON document. */
#ifndef LR_REPORT_TABLE_H
#define LR_REPORT_TABLE_H

#include "base/jsonw.h"
#include "query/result.h"

#include <stdio.h>

enum rep_table_mode {
    REP_TABLE_ALIGNED = 0, /* columns padded to their widest cell, numbers right-aligned */
    REP_TABLE_TSV,         /* tab-separated, cells escaped as in the aligned table */
    REP_TABLE_CSV,         /* RFC 4180: quoted when needed, NULL empty, blobs in hex */
    REP_TABLE_JSON,        /* typed values, blobs as hex strings */
};

typedef struct rep_table {
    enum rep_table_mode mode; /* how every result of the run is written */
    FILE *out;                /* text modes' destination */
    jsonw *w;                 /* REP_TABLE_JSON: the caller's open document */
    int no_timing;            /* JSON: no "time_ms" (byte-stable output) */
    uint64_t shown;           /* text results written so far (a blank line between two) */
    int results_open;         /* JSON: the "results" array is open */
} rep_table;

/* JSON: opens the "results" array in the caller's document (once; later calls do nothing). */
void rep_table_json_open(rep_table *t);
/* One kept result: header, rows (the aligned table adds a rule under the header and
 * "(N rows)"), or the JSON object with "columns", "rows", "row_count" and, unless
 * no_timing, "time_ms" (ms: the statement's wall time). r->n_cols must be >= 1. */
void rep_table_result(rep_table *t, const query_result *r, double ms);
/* A streamed result: the header (text) or "columns" and the open "rows" array (JSON); each
 * row; then the end: JSON closes the rows and, when done (the statement ended without
 * error), writes "row_count" (r->n_rows) and "time_ms". The aligned mode cannot stream
 * (widths need every row): callers switch to REP_TABLE_TSV. */
void rep_table_begin(rep_table *t, const query_result *r);
void rep_table_row(rep_table *t, const query_result *r, const query_cell *row);
void rep_table_end(rep_table *t, const query_result *r, int done, double ms);
/* JSON: closes "results" and writes "error" with code (a status key), exit and message, so
 * the results before a failed statement stay in the document. */
void rep_table_json_error(rep_table *t, const char *code, int exit_code, const char *msg);
/* JSON: closes "results" (opening it first when no statement returned columns). */
void rep_table_json_close(rep_table *t);

#endif
