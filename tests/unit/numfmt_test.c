/* SPDX-License-Identifier: Apache-2.0 */
/* numfmt_test.c: the one thousands grouping (src/base/numfmt.c) at its edges: no comma
 * below 1,000, one at every third digit from the right, the longest uint64_t within
 * NUMFMT_GROUP_MAX; and the report layer's rep_fmt_count giving the same text, since every
 * verb's tables and the analysis layer's suspect sentences must read alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/numfmt.h"
#include "report/fmt.h"

static void edges(void **state)
{
    (void)state;
    static const struct {
        uint64_t n;
        const char *want;
    } cases[] = {
        {0, "0"},
        {999, "999"},
        {1000, "1,000"},
        {23975680, "23,975,680"},
        {100000, "100,000"},
        {UINT64_MAX, "18,446,744,073,709,551,615"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char b[NUMFMT_GROUP_MAX], r[REP_FMT_MAX];
        assert_string_equal(numfmt_group(b, cases[i].n), cases[i].want);
        assert_string_equal(rep_fmt_count(r, cases[i].n), cases[i].want);
    }
    assert_int_equal(strlen("18,446,744,073,709,551,615") + 1, NUMFMT_GROUP_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(edges)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
