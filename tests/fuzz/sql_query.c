/* SPDX-License-Identifier: Apache-2.0 */
/* sql_query.c: libFuzzer target for the SQL virtual tables (src/query/). The input bytes are
 * SQL text run against the small hand-built graph of tests/unit/mapping_graph.h (two classes,
 * an instance, an object array, a static; one GC root): every statement is prepared, its rows
 * read as `leakray sql` reads them (src/query/result.c: kept up to FUZZ_MAX_ROWS, or streamed
 * for at most that many) and rendered in one of the four layouts (src/report/table.c, the
 * input's length picks which) to /dev/null, and interrupted after a bounded number of VM
 * steps, so recursive queries end; no value may pass FUZZ_MAX_LENGTH bytes, so one step that
 * makes a huge string fails at once (a %c with a huge precision, which SQLite counts out one
 * character at a time, through src/query/query_printf.c). Any text must run or fail
 * with an SQLite error, never crash, hang or leak. */
#include "graph/graph.h"
#include "query/query.h"
#include "query/result.h"
#include "report/table.h"
#include "../unit/mapping_graph.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_ROWS 2000
#define FUZZ_MAX_STEPS 2000000
#define FUZZ_MAX_LENGTH (1u << 20)

static void fuzz_graph(graph *g)
{
    build(g);
    g->roots = calloc(1, sizeof *g->roots);
    if (!g->roots)
        abort();
    g->n_roots = 1;
    g->roots[0] = (graph_root){.node = 0, .kind = GRAPH_ROOT_STICKY_CLASS, .frame = -1};
    g->synthetic_root = GRAPH_NONE;
    lr_error err;
    memset(&err, 0, sizeof err);
    if (graph_build_index(g, &err) != LR_OK)
        abort();
}

/* One statement's rows into t, kept or streamed (as `sql --max-rows 0`). */
static void fuzz_rows(rep_table *t, sqlite3_stmt *st, int keep)
{
    query_result r;
    int rc;
    if (query_result_init(&r, st) != 0)
        return;
    if (keep) {
        if (query_collect(&r, st, FUZZ_MAX_ROWS, &rc) == QUERY_STEP_DONE)
            rep_table_result(t, &r, 0);
    } else {
        query_cell *row = calloc(r.n_cols, sizeof *row);
        if (row) {
            int how = QUERY_STEP_DONE;
            rep_table_begin(t, &r);
            while (r.n_rows < FUZZ_MAX_ROWS &&
                   (how = query_next(&r, st, row, &rc)) == QUERY_STEP_ROW)
                rep_table_row(t, &r, row);
            rep_table_end(t, &r, how == QUERY_STEP_DONE, 0);
            free(row);
        }
    }
    query_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *sql = malloc(size + 1);
    if (!sql)
        return 0;
    memcpy(sql, data, size);
    sql[size] = 0;
    graph g;
    graph_init(&g);
    fuzz_graph(&g);
    lr_error err;
    memset(&err, 0, sizeof err);
    query_opts o = {.model = size % 2 ? QUERY_MODEL_STRONG : QUERY_MODEL_VISUALVM,
                    .max_steps = FUZZ_MAX_STEPS, .max_length = FUZZ_MAX_LENGTH};
    query_db *q = NULL;
    if (query_open(&g, &o, &q, &err) != LR_OK)
        __builtin_trap();
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        __builtin_trap();
    int keep = (size / 4) % 2;
    jsonw w;
    jsonw_init(&w, sink, 1);
    jsonw_obj_begin(&w);
    rep_table t = {.mode = (enum rep_table_mode)(size % 4), .out = sink, .w = &w,
                   .no_timing = 1};
    if (!keep && t.mode == REP_TABLE_ALIGNED) /* as the CLI: widths need every row */
        t.mode = REP_TABLE_TSV;
    const char *p = sql;
    while (p && *p) {
        sqlite3 *db = query_sqlite(q);
        sqlite3_stmt *st = NULL;
        const char *tail = NULL;
        if (sqlite3_prepare_v2(db, p, -1, &st, &tail) != SQLITE_OK || !tail || tail == p) {
            sqlite3_finalize(st);
            break;
        }
        p = tail;
        if (st && sqlite3_column_count(st) > 0)
            fuzz_rows(&t, st, keep);
        else
            for (int rows = 0; st && rows < FUZZ_MAX_ROWS && sqlite3_step(st) == SQLITE_ROW;
                 rows++)
                ;
        sqlite3_finalize(st);
    }
    if (t.mode == REP_TABLE_JSON)
        rep_table_json_close(&t);
    jsonw_obj_end(&w);
    jsonw_finish(&w);
    query_close(q);
    graph_fini(&g);
    free(sql);
    return 0;
}
