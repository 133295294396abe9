/* SPDX-License-Identifier: Apache-2.0 */
/* sql_query.c: libFuzzer target for the SQL virtual tables (src/query/). The input bytes are
 * SQL text run against the small hand-built graph of tests/unit/mapping_graph.h (two classes,
 * an instance, an object array, a static; one GC root): every statement is prepared, stepped
 * for at most FUZZ_MAX_ROWS rows with every column read, and interrupted after a bounded
 * number of VM steps, so recursive queries end. Any text must run or fail with an SQLite
 * error, never crash, hang or leak. */
#include "graph/graph.h"
#include "query/query.h"
#include "../unit/mapping_graph.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_ROWS 2000
#define FUZZ_MAX_STEPS 2000000

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
                    .max_steps = FUZZ_MAX_STEPS};
    query_db *q = NULL;
    if (query_open(&g, &o, &q, &err) != LR_OK)
        __builtin_trap();
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
        for (int rows = 0; st && rows < FUZZ_MAX_ROWS && sqlite3_step(st) == SQLITE_ROW;
             rows++)
            for (int j = 0; j < sqlite3_column_count(st); j++)
                (void)sqlite3_column_text(st, j);
        sqlite3_finalize(st);
    }
    query_close(q);
    graph_fini(&g);
    free(sql);
    return 0;
}
