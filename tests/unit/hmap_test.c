/* SPDX-License-Identifier: Apache-2.0 */
/* hmap_test.c: unit tests of src/base/hmap.c and src/base/hash.h, the hash table and hash
 * functions every layer uses. The table must find every entry added, across the rehashes
 * of growing from empty and from a reservation; must walk every entry sharing one hash
 * (forced collisions: all keys under hash 7, and hashes equal modulo the capacity) and only
 * those; must keep its load at one half; and must refuse the entry number reserved as
 * HMAP_NONE. The hash functions are pinned to their published test vectors (FNV-1a) and to
 * the values stored signatures and group orders were computed with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/hash.h"
#include "base/hmap.h"

/* Entries whose stored hash is h, in walk order, into out[]; returns how many. */
static uint32_t walk(const hmap *m, uint32_t h, uint32_t *out, uint32_t max)
{
    hmap_it it;
    uint32_t n = 0;
    for (uint32_t e = hmap_first(m, h, &it); e != HMAP_NONE; e = hmap_next(m, &it))
        if (n < max)
            out[n++] = e;
        else
            fail_msg("walk of hash %u does not end", h);
    return n;
}

static void test_grow_and_find(void **state)
{
    (void)state;
    enum { N = 100000 };
    hmap m = {0};
    uint32_t out[4];
    assert_int_equal(walk(&m, 123, out, 4), 0); /* empty, never allocated */
    for (uint32_t i = 0; i < N; i++) {
        assert_true(hmap_add(&m, hash_fnv32(&i, sizeof i), i));
        assert_true(2 * (uint64_t)m.n <= m.cap);
    }
    assert_int_equal(m.n, N);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t n = walk(&m, hash_fnv32(&i, sizeof i), out, 4);
        int found = 0;
        for (uint32_t k = 0; k < n; k++)
            found |= out[k] == i;
        assert_true(found);
    }
    hmap_free(&m);
    assert_int_equal(m.cap, 0);
    assert_int_equal(m.n, 0);
}

static void test_collisions(void **state)
{
    (void)state;
    hmap m = {0};
    assert_true(hmap_reserve(&m, 40));
    uint32_t cap = m.cap;
    assert_true(cap >= 80);
    /* 30 entries under hash 7, 30 under 7 + cap (same home slot, other hash). */
    for (uint32_t i = 0; i < 30; i++) {
        assert_true(hmap_add(&m, 7, i));
        assert_true(hmap_add(&m, 7 + cap, 100 + i));
    }
    assert_int_equal(m.cap, cap); /* 60 entries stay under half of the 128 slots */
    uint32_t out[64];
    assert_int_equal(walk(&m, 7, out, 64), 30);
    for (uint32_t k = 0; k < 30; k++)
        assert_true(out[k] < 30);
    assert_int_equal(walk(&m, 7 + cap, out, 64), 30);
    for (uint32_t k = 0; k < 30; k++)
        assert_true(out[k] >= 100);
    assert_int_equal(walk(&m, 8, out, 64), 0);
    /* Survives a rehash: grow past the reservation. */
    for (uint32_t i = 0; i < 1000; i++)
        assert_true(hmap_add(&m, 1000 + i, 1000 + i));
    assert_true(m.cap > cap);
    assert_int_equal(walk(&m, 7, out, 64), 30);
    assert_int_equal(walk(&m, 7 + cap, out, 64), 30);
    hmap_free(&m);
}

static void test_limits(void **state)
{
    (void)state;
    hmap m = {0};
    assert_false(hmap_add(&m, 1, HMAP_NONE)); /* reserved as "absent" */
    assert_int_equal(m.n, 0);
    assert_false(hmap_reserve(&m, (uint64_t)1 << 40)); /* refused, table unchanged */
    assert_int_equal(m.cap, 0);
    assert_true(hmap_add(&m, 1, HMAP_NONE - 1)); /* the largest entry number */
    uint32_t out[2];
    assert_int_equal(walk(&m, 1, out, 2), 1);
    assert_int_equal(out[0], HMAP_NONE - 1);
    hmap_free(&m);
}

static void test_hash_values(void **state)
{
    (void)state;
    /* FNV-1a test vectors (the reference implementation's). */
    assert_int_equal(hash_fnv32("", 0), 0x811c9dc5u);
    assert_int_equal(hash_fnv32_str("a"), 0xe40c292cu);
    assert_int_equal(hash_fnv32_str("foobar"), 0xbf9cf968u);
    assert_int_equal(hash_fnv32("foobar", 6), hash_fnv32_str("foobar"));
    assert_true(hash_fnv64("", 0) == 0xcbf29ce484222325ull);
    assert_true(hash_fnv64_str("a") == 0xaf63dc4c8601ec8cull);
    assert_true(hash_fnv64_str("foobar") == 0x85944171f73967e8ull);
    /* Values outputs depend on (duplicate-group order, native signatures): pinned. */
    const uint8_t buf[11] = "hello world";
    assert_true(hash_bytes64(buf, 11) == 0x8575453583c8b9d2ull);
    assert_true(hash_bytes64(buf, 11) != hash_bytes64(buf, 10));
    assert_true(hash_fnv64_word(HASH_FNV64_INIT, 0) ==
                HASH_FNV64_INIT * 0x100000001b3ull);
    assert_true(hash_mix64(0) == 0);
    assert_true(hash_mix64(1) != hash_mix64(2));
    const uint32_t k[4] = {1, 2, 3, 4}, k2[4] = {1, 2, 4, 3};
    assert_true(hash_words(k, 4) != hash_words(k2, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow_and_find),
        cmocka_unit_test(test_collisions),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_hash_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
