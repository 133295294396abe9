/* SPDX-License-Identifier: Apache-2.0 */
/* reuse_test.c: unit tests of src/base/reuse.c, the table of large freed blocks kept for the
 * next large allocation: blocks under REUSE_MIN_BYTES or over REUSE_MAX_BYTES are declined;
 * a taken block leaves the table; a block large enough is chosen, a smaller one only when
 * the caller may grow it; the oldest blocks leave first when the slots or
 * the byte bound are full, and the caller gets them to free; a drain empties the table. The
 * table never touches the blocks, so the tests use made-up addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/reuse.h"

#define MB ((size_t)1 << 20)

static void *blk(uintptr_t i) { return (void *)(i << 24); }

static void empty(void)
{
    void *out[REUSE_SLOTS];
    reuse_drain(out);
    assert_int_equal(reuse_bytes(), 0);
}

static void declined(void **state)
{
    (void)state;
    empty();
    void *gone[REUSE_SLOTS];
    size_t n_gone = 99;
    assert_false(reuse_put(blk(1), REUSE_MIN_BYTES - 1, gone, &n_gone));
    assert_int_equal(n_gone, 0);
    assert_false(reuse_put(blk(2), REUSE_MAX_BYTES + 1, gone, &n_gone));
    assert_int_equal(n_gone, 0);
    assert_int_equal(reuse_bytes(), 0);
    size_t len = 0;
    assert_null(reuse_take(REUSE_MIN_BYTES, 1, &len));
}

static void take(void **state)
{
    (void)state;
    empty();
    void *gone[REUSE_SLOTS];
    size_t n_gone, len = 0;
    assert_true(reuse_put(blk(1), 8 * MB, gone, &n_gone));
    assert_int_equal(n_gone, 0);
    assert_int_equal(reuse_bytes(), 8 * MB);
    /* too small for a calloc (no growing): stays kept */
    assert_null(reuse_take(9 * MB, 0, &len));
    assert_int_equal(reuse_bytes(), 8 * MB);
    /* a malloc may grow it */
    assert_ptr_equal(reuse_take(9 * MB, 1, &len), blk(1));
    assert_int_equal(len, 8 * MB);
    assert_int_equal(reuse_bytes(), 0);
    assert_null(reuse_take(MB, 1, &len)); /* taken once only */
    assert_true(reuse_put(blk(2), 8 * MB, gone, &n_gone));
    assert_ptr_equal(reuse_take(2 * MB, 0, &len), blk(2)); /* a larger one serves a smaller */
    assert_int_equal(reuse_bytes(), 0);
}

static void oldest_leave(void **state)
{
    (void)state;
    empty();
    void *gone[REUSE_SLOTS];
    size_t n_gone, len = 0;
    for (uintptr_t i = 1; i <= REUSE_SLOTS; i++) {
        assert_true(reuse_put(blk(i), 2 * MB, gone, &n_gone));
        assert_int_equal(n_gone, 0);
    }
    /* slots full: the oldest leaves */
    assert_true(reuse_put(blk(REUSE_SLOTS + 1), 2 * MB, gone, &n_gone));
    assert_int_equal(n_gone, 1);
    assert_ptr_equal(gone[0], blk(1));
    assert_int_equal(reuse_bytes(), (size_t)REUSE_SLOTS * 2 * MB);
    /* bytes full: everything older leaves to make room for one block of the bound */
    assert_true(reuse_put(blk(99), REUSE_MAX_BYTES, gone, &n_gone));
    assert_int_equal(n_gone, REUSE_SLOTS);
    assert_ptr_equal(gone[0], blk(2));
    assert_ptr_equal(gone[n_gone - 1], blk(REUSE_SLOTS + 1));
    assert_int_equal(reuse_bytes(), REUSE_MAX_BYTES);
    assert_ptr_equal(reuse_take(MB, 0, &len), blk(99));
    assert_int_equal(reuse_bytes(), 0);
}

static void drained(void **state)
{
    (void)state;
    empty();
    void *gone[REUSE_SLOTS], *out[REUSE_SLOTS];
    size_t n_gone, len = 0;
    assert_true(reuse_put(blk(7), 3 * MB, gone, &n_gone));
    assert_int_equal(reuse_drain(out), 1);
    assert_ptr_equal(out[0], blk(7));
    assert_int_equal(reuse_bytes(), 0);
    assert_null(reuse_take(MB, 1, &len));
    assert_int_equal(reuse_drain(out), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(declined),
        cmocka_unit_test(take),
        cmocka_unit_test(oldest_leave),
        cmocka_unit_test(drained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
