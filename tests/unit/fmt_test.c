/* SPDX-License-Identifier: Apache-2.0 */
/* fmt_test.c: unit tests of the report layer's terminal text writer (src/report/fmt.c,
 * rep_fmt_text), through which names and string values from dumps reach a terminal. Dumps
 * are untrusted: C0 and C1 controls (an ESC or U+009B would start an escape sequence in some
 * terminals) and invalid UTF-8 must come out as visible escapes, valid characters as they
 * are, and a character cut by the byte limit must not be half printed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/fmt.h"
#include "report/status.h"

/* rep_fmt_text(s, max) into a string the caller frees */
static char *text(const char *s, size_t len, size_t max)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    rep_fmt_text(f, s, len, max);
    fclose(f);
    return buf;
}

static void expect(const char *s, size_t len, size_t max, const char *want)
{
    char *got = text(s, len, max);
    assert_string_equal(got, want);
    free(got);
}

/* Sizes read as Shark prints them: tenths rounded half up on the exact quotient. */
static void human_sizes_round_half_up(void **state)
{
    (void)state;
    char b[REP_FMT_MAX];
    assert_string_equal(rep_fmt_human(b, 999), "999 B");
    assert_string_equal(rep_fmt_human(b, 1000), "1.0 kB");
    assert_string_equal(rep_fmt_human(b, 1049), "1.0 kB");
    assert_string_equal(rep_fmt_human(b, 1050), "1.1 kB");
    assert_string_equal(rep_fmt_human(b, 1250), "1.3 kB");
    assert_string_equal(rep_fmt_human(b, 107050), "107.1 kB");
    assert_string_equal(rep_fmt_human(b, 999949), "999.9 kB");
    assert_string_equal(rep_fmt_human(b, 999950), "1000.0 kB");
    assert_string_equal(rep_fmt_human(b, 1050000), "1.1 MB");
    assert_string_equal(rep_fmt_human(b, UINT64_MAX), "18.4 EB");
}

static void plain_and_utf8_pass(void **state)
{
    (void)state;
    expect("java.util.HashMap", 17, 100, "java.util.HashMap");
    expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, 100,
           "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    expect("\xc2\xa0x", 3, 100, "\xc2\xa0x"); /* U+00A0 is printable */
}

static void controls_escaped(void **state)
{
    (void)state;
    expect("a\nb\tc\rd", 7, 100, "a\\nb\\tc\\rd");
    expect("\x1b[2J\x7f", 5, 100, "\\x1b[2J\\x7f");
    /* C1 CSI and OSC, encoded as UTF-8 */
    expect("x\xc2\x9b" "31m\xc2\x9d", 8, 100, "x\\xc2\\x9b31m\\xc2\\x9d");
    /* a right-to-left override and a line separator reorder or break what follows them;
     * the characters next to them (U+2027, U+202F, U+2065, U+206A) are printable */
    expect("a\xe2\x80\xae" "b\xe2\x80\xa8", 8, 100, "a\\xe2\\x80\\xaeb\\xe2\\x80\\xa8");
    expect("\xe2\x81\xa6\xe2\x81\xa9", 6, 100, "\\xe2\\x81\\xa6\\xe2\\x81\\xa9");
    expect("\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa", 12, 100,
           "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
}

static void invalid_utf8_escaped(void **state)
{
    (void)state;
    expect("\x9b" "31m", 4, 100, "\\x9b31m");           /* raw 8-bit CSI */
    expect("\xc0\xaf", 2, 100, "\\xc0\\xaf");          /* overlong */
    expect("\xed\xa0\x80", 3, 100, "\\xed\\xa0\\x80"); /* surrogate */
    expect("a\xe2\x82", 3, 100, "a\\xe2\\x82");        /* cut at the end of the string */
    expect("\xff", 1, 100, "\\xff");
}

static void limit_cuts_whole_characters(void **state)
{
    (void)state;
    expect("abcdef", 6, 3, "abc...");
    /* the euro sign spans bytes 2-4: a limit of 3 leaves it out rather than half of it */
    expect("ab\xe2\x82\xac", 5, 3, "ab...");
    expect("ab\xe2\x82\xac", 5, 5, "ab\xe2\x82\xac");
}

/* `watch status` prints a status file from /tmp, which another user may have planted: its
 * keys and values are escaped as a dump's names */
static void status_pairs_escaped(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    rep_status_pair_text(f, "dump_dir", "/tmp/x\x1b]0;pwn\x07\x1b[2J");
    rep_status_pair_text(f, "k\x1b[31m", "1");
    fclose(f);
    assert_string_equal(buf, "dump_dir             /tmp/x\\x1b]0;pwn\\x07\\x1b[2J\n"
                             "k\\x1b[31m            1\n");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(human_sizes_round_half_up),
        cmocka_unit_test(plain_and_utf8_pass),
        cmocka_unit_test(controls_escaped),
        cmocka_unit_test(invalid_utf8_escaped),
        cmocka_unit_test(limit_cuts_whole_characters),
        cmocka_unit_test(status_pairs_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
