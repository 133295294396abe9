/* SPDX-License-Identifier: Apache-2.0 */
/* query_limits_test.c: unit tests of the bounds query_open puts on a statement
 * (src/query/query.c), over the small hand-built graph of mapping_graph.h. max_length must
 * stop a value past it in the one step that makes it (printf with a huge precision once ran
 * for over 30 s under the sanitizers, building a 1 GB string in a single VM step that
 * max_steps cannot interrupt: now printf gives NULL, zeroblob fails with SQLITE_TOOBIG),
 * leave shorter values alone, and change nothing when unset; max_steps must interrupt a query
 * that never ends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_length_bounds_one_step),
        cmocka_unit_test(test_max_length_unset_keeps_sqlite_limit),
        cmocka_unit_test(test_max_steps_interrupts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
