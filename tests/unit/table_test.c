/* SPDX-License-Identifier: Apache-2.0 */
/* table_test.c: unit tests of a SQL statement's rows as data (src/query/result.c) and their
 * renderings (src/report/table.c), over SQLite's own in-memory database so the values are
 * exactly what a statement gives. Kept rows must survive later rows (text blocks never move,
 * values longer than a block included), the row cap must keep nothing, streamed rows must be
 * counted, and the four layouts must hold their promises: aligned columns with numbers to
 * the right, TSV cells escaped, CSV quoted per RFC 4180, JSON typed with blobs in hex. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "query/result.h"
#include "report/table.h"

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    return st;
}

static sqlite3 *open_db(void)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    return db;
}

/* Collects sql's rows into *r (the statement is finalized by the caller through *st). */
static int collect(sqlite3 *db, const char *sql, uint64_t max, query_result *r,
                   sqlite3_stmt **st)
{
    *st = prepare(db, sql);
    assert_int_equal(query_result_init(r, *st), 0);
    int rc = 0;
    return query_collect(r, *st, max, &rc);
}

/* Renders r in mode into a string the caller frees. */
static char *render(const query_result *r, enum rep_table_mode mode)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    jsonw w;
    jsonw_init(&w, f, 0);
    rep_table t = {.mode = mode, .out = f, .w = &w, .no_timing = 1};
    if (mode == REP_TABLE_JSON)
        jsonw_obj_begin(&w);
    rep_table_result(&t, r, 0);
    if (mode == REP_TABLE_JSON) {
        rep_table_json_close(&t);
        jsonw_obj_end(&w);
        jsonw_finish(&w);
    }
    fclose(f);
    return buf;
}

static void kept_rows_survive_later_rows(void **state)
{
    (void)state;
    sqlite3 *db = open_db();
    sqlite3_stmt *st;
    query_result r;
    /* 2,000 rows, every 100th value 100 KiB long (past a 64 KiB text block) */
    assert_int_equal(collect(db,
                             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                             "WHERE i < 2000) SELECT i, CASE WHEN i % 100 = 0 THEN "
                             "printf('%.*c', 102400, 'a' ) ELSE 'v' || i END FROM n",
                             100000, &r, &st),
                     QUERY_STEP_DONE);
    assert_int_equal(r.n_rows, 2000);
    assert_int_equal(r.n_cols, 2);
    for (uint64_t i = 0; i < r.n_rows; i++) {
        const query_cell *c = &r.cells[i * 2];
        assert_int_equal(c[0].type, QUERY_CELL_INT);
        assert_int_equal(c[0].v.i, (int64_t)i + 1);
        assert_int_equal(c[1].type, QUERY_CELL_TEXT);
        if ((i + 1) % 100 == 0) {
            assert_int_equal(c[1].v.len, 102400);
            assert_int_equal(c[1].s[0], 'a');
            assert_int_equal(c[1].s[102399], 'a');
            assert_int_equal(c[1].s[102400], 0);
        } else {
            char want[32];
            snprintf(want, sizeof want, "v%llu", (unsigned long long)i + 1);
            assert_string_equal(c[1].s, want);
        }
    }
    query_result_free(&r);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void cap_keeps_nothing(void **state)
{
    (void)state;
    sqlite3 *db = open_db();
    sqlite3_stmt *st;
    query_result r;
    const char *five = "VALUES (1), (2), (3), (4), (5)";
    assert_int_equal(collect(db, five, 4, &r, &st), QUERY_STEP_CAP);
    assert_null(r.cells);
    query_result_free(&r);
    sqlite3_finalize(st);
    assert_int_equal(collect(db, five, 5, &r, &st), QUERY_STEP_DONE);
    assert_int_equal(r.n_rows, 5);
    query_result_free(&r);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void values_typed(void **state)
{
    (void)state;
    sqlite3 *db = open_db();
    sqlite3_stmt *st;
    query_result r;
    assert_int_equal(collect(db, "SELECT NULL, 2.5, x'', x'00ff', 'a' || char(0) || 'b'",
                             10, &r, &st),
                     QUERY_STEP_DONE);
    assert_int_equal(r.cells[0].type, QUERY_CELL_NULL);
    assert_int_equal(r.cells[1].type, QUERY_CELL_REAL);
    assert_true(r.cells[1].v.d == 2.5);
    assert_int_equal(r.cells[2].type, QUERY_CELL_NULL); /* SQLite gives no bytes */
    assert_int_equal(r.cells[3].type, QUERY_CELL_BLOB);
    assert_int_equal(r.cells[3].v.len, 2);
    assert_memory_equal(r.cells[3].s, "\x00\xff", 2);
    assert_int_equal(r.cells[4].type, QUERY_CELL_TEXT);
    assert_int_equal(r.cells[4].v.len, 3);
    assert_memory_equal(r.cells[4].s, "a\0b", 3);
    query_result_free(&r);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void streamed_rows_counted(void **state)
{
    (void)state;
    sqlite3 *db = open_db();
    sqlite3_stmt *st = prepare(db, "WITH v(x) AS (VALUES (1), (2), (3)) SELECT x, CASE WHEN "
                                   "x = 3 THEN abs(-9223372036854775807 - 1) END FROM v");
    query_result r;
    assert_int_equal(query_result_init(&r, st), 0);
    query_cell row[2];
    int rc = 0, how;
    while ((how = query_next(&r, st, row, &rc)) == QUERY_STEP_ROW)
        assert_int_equal(row[0].v.i, (int64_t)r.n_rows);
    assert_int_equal(how, QUERY_STEP_FAILED); /* integer overflow on the third row */
    assert_int_not_equal(rc, SQLITE_OK);
    assert_int_equal(r.n_rows, 2);
    assert_null(r.cells);
    query_result_free(&r);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void layouts(void **state)
{
    (void)state;
    sqlite3 *db = open_db();
    sqlite3_stmt *st;
    query_result r;
    assert_int_equal(collect(db,
                             "VALUES (1, 'a,b \"c\"', x'0aff', NULL), "
                             "(12345, 'tab' || char(9) || 'nl' || char(10) || 'esc' || "
                             "char(27), NULL, 0.5)",
                             10, &r, &st),
                     QUERY_STEP_DONE);
    char *s = render(&r, REP_TABLE_ALIGNED);
    /* numbers right, text (NULL included) left, escapes counted at their printed width */
    assert_string_equal(s, "column1  column2           column3  column4\n"
                           "-------  ----------------  -------  -------\n"
                           "      1  a,b \"c\"           0aff     NULL\n"
                           "  12345  tab\\tnl\\nesc\\x1b  NULL         0.5\n"
                           "(2 rows)\n");
    free(s);
    s = render(&r, REP_TABLE_TSV);
    assert_string_equal(s, "column1\tcolumn2\tcolumn3\tcolumn4\n"
                           "1\ta,b \"c\"\t0aff\tNULL\n"
                           "12345\ttab\\tnl\\nesc\\x1b\tNULL\t0.5\n");
    free(s);
    s = render(&r, REP_TABLE_CSV);
    assert_string_equal(s, "column1,column2,column3,column4\n"
                           "1,\"a,b \"\"c\"\"\",0aff,\n"
                           "12345,\"tab\tnl\nesc\x1b\",,0.5\n");
    free(s);
    s = render(&r, REP_TABLE_JSON);
    assert_string_equal(s, "{\"results\":[{\"columns\":[\"column1\",\"column2\",\"column3\","
                           "\"column4\"],\"rows\":[[1,\"a,b \\\"c\\\"\",\"0aff\",null],"
                           "[12345,\"tab\\tnl\\nesc\\u001b\",null,0.5]],\"row_count\":2}]}\n");
    free(s);
    query_result_free(&r);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kept_rows_survive_later_rows),
        cmocka_unit_test(cap_keeps_nothing),
        cmocka_unit_test(values_typed),
        cmocka_unit_test(streamed_rows_counted),
        cmocka_unit_test(layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
