/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw_test.c: unit tests of src/base/jsonw.c (the JSON writer every --json output goes
 * through) and src/base/progress.c. Writes into memory streams and compares exact bytes:
 * separators and indentation, string escaping of quotes, backslashes and control bytes,
 * invalid UTF-8 (stray continuation, overlong, surrogate, truncated sequence) replaced by
 * U+FFFD while valid multi-byte characters pass through, 64-bit integer extremes, doubles
 * that round-trip and non-finite doubles as strings; and that a progress bar requested
 * while stderr is not a terminal stays disabled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/jsonw.h"
#include "base/progress.h"
#include "base/utf8.h"

typedef struct membuf {
    char *buf;
    size_t len;
    FILE *f;
} membuf;

static jsonw *start(membuf *m, int pretty)
{
    static jsonw w;
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    assert_non_null(m->f);
    jsonw_init(&w, m->f, pretty);
    return &w;
}

static void expect(membuf *m, const char *want)
{
    fclose(m->f);
    assert_string_equal(m->buf, want);
    free(m->buf);
}

static void test_compact_structure(void **state)
{
    membuf m;
    jsonw *w = start(&m, 0);
    jsonw_obj_begin(w);
    jsonw_kv_int(w, "a", 1);
    jsonw_kv_arr_begin(w, "b");
    jsonw_int(w, -2);
    jsonw_str(w, "x");
    jsonw_null(w);
    jsonw_bool(w, 1);
    jsonw_obj_begin(w);
    jsonw_obj_end(w);
    jsonw_arr_begin(w);
    jsonw_arr_end(w);
    jsonw_arr_end(w);
    jsonw_kv_str(w, "c", NULL);
    jsonw_obj_end(w);
    jsonw_finish(w);
    expect(&m, "{\"a\":1,\"b\":[-2,\"x\",null,true,{},[]],\"c\":null}\n");
}

static void test_pretty_layout(void **state)
{
    membuf m;
    jsonw *w = start(&m, 1);
    jsonw_obj_begin(w);
    jsonw_kv_int(w, "schema_version", 1);
    jsonw_kv_arr_begin(w, "xs");
    jsonw_uint(w, 7);
    jsonw_arr_end(w);
    jsonw_kv_arr_begin(w, "empty");
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    jsonw_finish(w);
    expect(&m, "{\n  \"schema_version\": 1,\n  \"xs\": [\n    7\n  ],\n  \"empty\": []\n}\n");
}

static void test_string_escapes(void **state)
{
    membuf m;
    jsonw *w = start(&m, 0);
    jsonw_str(w, "q\"b\\n\n\t\r\b\f\x01\x1f\x7f/");
    jsonw_finish(w);
    expect(&m, "\"q\\\"b\\\\n\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f/\"\n");
}

static void test_embedded_nul(void **state)
{
    membuf m;
    jsonw *w = start(&m, 0);
    jsonw_strn(w, "a\0b", 3);
    jsonw_finish(w);
    expect(&m, "\"a\\u0000b\"\n");
}

static void test_utf8_valid_passes(void **state)
{
    membuf m;
    jsonw *w = start(&m, 0);
    /* U+01A9, U+20AC, U+1F600 */
    jsonw_str(w, "\xc6\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    jsonw_finish(w);
    expect(&m, "\"\xc6\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n");
}

static void test_utf8_invalid_replaced(void **state)
{
    membuf m;
    jsonw *w = start(&m, 0);
    /* stray continuation; overlong '/'; UTF-16 surrogate; above U+10FFFF; cut sequence */
    jsonw_str(w, "a\x80" "b\xc0\xaf" "c\xed\xa0\x80" "d\xf4\x90\x80\x80" "e\xe2\x82");
    jsonw_finish(w);
    expect(&m, "\"a\\ufffdb\\ufffd\\ufffdc\\ufffd\\ufffd\\ufffdd\\ufffd\\ufffd\\ufffd\\ufffde"
               "\\ufffd\\ufffd\"\n");
}

/* utf8_fit: whole when it fits; else cut before the character a byte cut would split, with
 * an ellipsis, within the buffer (API names and cluster titles: two-byte Cyrillic here). */
static void test_utf8_fit(void **state)
{
    (void)state;
    char b[12];
    assert_string_equal(utf8_fit(b, sizeof b, "short"), "short");
    assert_string_equal(utf8_fit(b, sizeof b, "exactly 11b"), "exactly 11b");
    assert_string_equal(utf8_fit(b, sizeof b, "twelve bytes"), "twelve b\xe2\x80\xa6");
    /* "ab" + three 2-byte letters: a cut at 8 bytes would split the third */
    assert_string_equal(utf8_fit(b, sizeof b, "ab\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87!!"),
                        "ab\xd0\xba\xd0\xbb\xd1\x8e\xe2\x80\xa6");
    assert_string_equal(utf8_fit(b, sizeof b, "abc\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87!!"),
                        "abc\xd0\xba\xd0\xbb\xe2\x80\xa6");
    for (size_t i = 0, n; i < strlen(b); i += n) /* every character whole */
        assert_true((n = utf8_seq_len((const unsigned char *)b + i, strlen(b) - i)) > 0);
}

static void test_integer_extremes(void **state)
{
    membuf m;
    jsonw *w = start(&m, 0);
    jsonw_arr_begin(w);
    jsonw_int(w, INT64_MIN);
    jsonw_int(w, INT64_MAX);
    jsonw_uint(w, UINT64_MAX);
    jsonw_arr_end(w);
    jsonw_finish(w);
    expect(&m, "[-9223372036854775808,9223372036854775807,18446744073709551615]\n");
}

static void test_doubles(void **state)
{
    membuf m;
    jsonw *w = start(&m, 0);
    jsonw_arr_begin(w);
    jsonw_double(w, 0.5);
    jsonw_double(w, 0.1);
    jsonw_double(w, 1e300);
    jsonw_double(w, NAN);
    jsonw_double(w, -INFINITY);
    jsonw_arr_end(w);
    jsonw_finish(w);
    expect(&m, "[0.5,0.1,1e+300,\"NaN\",\"-Infinity\"]\n");
}

static void test_progress_disabled_without_tty(void **state)
{
    /* ctest runs with stderr redirected, so an enabled request must still draw nothing. */
    if (isatty(STDERR_FILENO))
        skip();
    progress p;
    progress_init(&p, "loading", 1000, 1);
    assert_int_equal(p.enabled, 0);
    assert_true(p.next == UINT64_MAX);
    for (uint64_t i = 0; i <= 1000; i += 10)
        progress_update(&p, i);
    progress_done(&p);
    assert_int_equal(p.drawn, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact_structure),
        cmocka_unit_test(test_pretty_layout),
        cmocka_unit_test(test_string_escapes),
        cmocka_unit_test(test_embedded_nul),
        cmocka_unit_test(test_utf8_valid_passes),
        cmocka_unit_test(test_utf8_invalid_replaced),
        cmocka_unit_test(test_utf8_fit),
        cmocka_unit_test(test_integer_extremes),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_progress_disabled_without_tty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
