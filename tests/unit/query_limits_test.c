/* SPDX-License-Identifier: Apache-2.0 */
/* query_limits_test.c: unit tests of the bounds query_open puts on a statement
 * (src/query/query.c), over the small hand-built graph of mapping_graph.h. max_length must
 * stop a value past it in the one step that makes it (printf with a huge precision once ran
 * for over 30 s under the sanitizers, building a 1 GB string in a single VM step that
 * max_steps cannot interrupt: now printf gives NULL, zeroblob fails with SQLITE_TOOBIG),
 * leave shorter values alone, and change nothing when unset; max_steps must interrupt a query
 * that never ends. printf and format (src/query/query_printf.c) must answer a %c longer than
 * the limit at once (SQLite 3.40 counted a 2^31 precision out character by character, 6-9 s
 * for a NULL) and give SQLite's own results otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "graph/graph.h"
#include "query/query.h"

#include "mapping_graph.h"

typedef struct fixture {
    graph g;
    query_db *q;
} fixture;

static fixture *open_fixture(uint64_t max_steps, uint64_t max_length)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    graph_init(&f->g);
    build(&f->g);
    f->g.roots = calloc(1, sizeof *f->g.roots);
    assert_non_null(f->g.roots);
    f->g.n_roots = 1;
    f->g.roots[0] = (graph_root){.node = 0, .kind = GRAPH_ROOT_STICKY_CLASS, .frame = -1};
    f->g.synthetic_root = GRAPH_NONE;
    lr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(graph_build_index(&f->g, &err), LR_OK);
    query_opts o = {.model = QUERY_MODEL_STRONG, .max_steps = max_steps,
                    .max_length = max_length};
    assert_int_equal(query_open(&f->g, &o, &f->q, &err), LR_OK);
    return f;
}

static void close_fixture(fixture *f)
{
    query_close(f->q);
    graph_fini(&f->g);
    free(f);
}

/* Steps sql's one statement once: the step's result code; *value gets the first column as an
 * integer when it returns a row. */
static int step_once(fixture *f, const char *sql, sqlite3_int64 *value)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(query_sqlite(f->q), sql, -1, &st, NULL), SQLITE_OK);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && value)
        *value = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc;
}

static void test_max_length_bounds_one_step(void **state)
{
    (void)state;
    fixture *f = open_fixture(2000000, 4096);
    sqlite3_int64 v = 0;
    /* below the limit (a string's NUL counts): made whole */
    assert_int_equal(step_once(f, "SELECT length(printf('%.4095c', 'y'))", &v), SQLITE_ROW);
    assert_int_equal(v, 4095);
    /* past it: printf gives up at once (NULL), zeroblob fails the step */
    assert_int_equal(step_once(f, "SELECT printf('%.4097c', 'y') IS NULL", &v), SQLITE_ROW);
    assert_int_equal(v, 1);
    assert_int_equal(step_once(f, "SELECT zeroblob(4097)", NULL), SQLITE_TOOBIG);
    /* the fuzzing input: a precision SQLite reads as about 10^9 */
    assert_int_equal(
        step_once(f, "SELECT printf('%.366666666666666666666666666666666600c', 'y') IS NULL",
                  &v),
        SQLITE_ROW);
    assert_int_equal(v, 1);
    /* the heap's tables still answer under it */
    assert_int_equal(step_once(f, "SELECT count(*) FROM objects", &v), SQLITE_ROW);
    assert_int_equal(v, 4);
    close_fixture(f);
}

static void test_max_length_unset_keeps_sqlite_limit(void **state)
{
    (void)state;
    fixture *f = open_fixture(0, 0);
    sqlite3_int64 v = 0;
    assert_int_equal(step_once(f, "SELECT length(printf('%.100000c', 'y'))", &v), SQLITE_ROW);
    assert_int_equal(v, 100000);
    sqlite3 *plain = NULL;
    assert_int_equal(sqlite3_open(":memory:", &plain), SQLITE_OK);
    assert_int_equal(sqlite3_limit(query_sqlite(f->q), SQLITE_LIMIT_LENGTH, -1),
                     sqlite3_limit(plain, SQLITE_LIMIT_LENGTH, -1));
    sqlite3_close(plain);
    close_fixture(f);
}

static void test_max_steps_interrupts(void **state)
{
    (void)state;
    fixture *f = open_fixture(100000, 0);
    assert_int_equal(step_once(f,
                               "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                               "SELECT count(*) FROM c",
                               NULL),
                     SQLITE_INTERRUPT);
    close_fixture(f);
}


/* The first column of sql's one row in db as text, copied into buf ("(null)" for NULL). */
static void text_in(sqlite3 *db, const char *sql, char *buf, size_t cap)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const unsigned char *t = sqlite3_column_text(st, 0);
    snprintf(buf, cap, "%s", t ? (const char *)t : "(null)");
    sqlite3_finalize(st);
}

/* Asserts that sql's one value over the heap reads want. */
static void expect(fixture *f, const char *sql, const char *want)
{
    char buf[256];
    text_in(query_sqlite(f->q), sql, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void test_printf_long_char_at_once(void **state)
{
    (void)state;
    /* the CLI's default: SQLite's own limit; and a small one */
    uint64_t limits[] = {0, 1u << 20};
    for (int k = 0; k < 2; k++) {
        fixture *f = open_fixture(2000000, limits[k]);
        double t0 = now_s();
        expect(f, "SELECT printf('%.2147483647c', 'y')", "(null)");
        expect(f, "SELECT format('%!.2000000000c', 'y')", "(null)");
        expect(f, "SELECT printf('%d %.*c', 7, 2147483000, 'y')", "(null)");
        expect(f, "SELECT printf('%.*c', -2147483000, 'y')", "(null)");
        /* digits past 32 bits wrap as SQLite reads them: about 7 * 10^8, past the small
         * limit (under SQLite's own 10^9 it is a string of that length) */
        if (limits[k]) {
            expect(f, "SELECT printf('%.366666666666666666666666666666666600c', 'y')",
                   "(null)");
        }
        /* each took seconds before; all of them together now well under one */
        assert_true(now_s() - t0 < 1.0);
        close_fixture(f);
    }
}

static void test_printf_keeps_sqlite_results(void **state)
{
    (void)state;
    fixture *f = open_fixture(2000000, 4096);
    expect(f, "SELECT printf('%5.2f|%-4s|%c|%.3c|%%|%x', 3.14159, 'ab', 'xyz', 'q', 255)",
           " 3.14|ab  |x|qqq|%|ff");
    expect(f, "SELECT format('%*d|%-*d|%.*s', 5, 42, 3, 7, 2, 'abcdef')", "   42|7  |ab");
    expect(f, "SELECT printf('%q %Q %w', 'it''s', NULL, 'a\"b')", "it''s NULL a\"\"b");
    expect(f, "SELECT printf('%,d %!.3f %.300000000s', 1234567, 2.5, 'abc')",
           "1,234,567 2.5 abc");
    /* the same answers as a plain connection's printf, the formats' corners included: %n
     * and %% take no argument, an unknown conversion ends the output, a negative `*` counts
     * by its magnitude */
    static const char *const same[] = {
        "printf('%n%.*c|%d', 3, 'a', 9)",
        "printf('%5%%.*c', 2, 'b')",
        "printf('%y %.2147483647c', 'a')",
        "printf('%T%.2147483647c', 'a')",
        "printf('%.*c|%-*d|', -3, 'c', -4, 5)",
        "printf('%lld %ld %5.1e %G %o %X %p %r %z', 1, 2, 12345.678, 0.5, 8, 255, 16, 3, 'z')",
        "printf('%s %s', 'only')",
        "printf('%')",
        "format('%.3q|%10.2Q|', 'abcd', 'x''y')",
    };
    sqlite3 *plain = NULL;
    assert_int_equal(sqlite3_open(":memory:", &plain), SQLITE_OK);
    sqlite3_limit(plain, SQLITE_LIMIT_LENGTH, 4096);
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        char sql[256], want[256];
        snprintf(sql, sizeof sql, "SELECT quote(%s)", same[i]);
        text_in(plain, sql, want, sizeof want);
        expect(f, sql, want);
    }
    sqlite3_close(plain);
    expect(f, "SELECT printf(NULL)", "(null)");
    expect(f, "SELECT printf('%s-%d', 'a', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, "
               "16, 17, 18, 19)", "a-1");
    /* the length limit still holds below the shortcut: NULL, as SQLite answers */
    expect(f, "SELECT printf('%.4097c', 'y') IS NULL", "1");
    expect(f, "SELECT length(printf('%.4095c', 'y'))", "4095");
    /* per row, over the heap's tables */
    expect(f, "SELECT group_concat(printf('%d:%.2c', id > 0, 'z'), ',') FROM objects",
           "1:zz,1:zz,1:zz,1:zz");
    close_fixture(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_length_bounds_one_step),
        cmocka_unit_test(test_max_length_unset_keeps_sqlite_limit),
        cmocka_unit_test(test_max_steps_interrupts),
        cmocka_unit_test(test_printf_long_char_at_once),
        cmocka_unit_test(test_printf_keeps_sqlite_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
