/* SPDX-License-Identifier: Apache-2.0 */
/* lex_test.c: unit tests of src/rules/lex.c, the text layer of every rules reader: line
 * numbers with and without a final newline, NUL detection, words with quoted parts and
 * comments, both escape styles of quoted strings, overflow and unterminated results, the
 * file:line error form, the file loader's size ceiling and the rules-folder search order
 * ($LEAKRAY_RULES_DIR first). Also the readers' common behaviour through lex: categories
 * accept UTF-8 class names but reject control characters, cluster rules keep glob escapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rules/categories.h"
#include "rules/cluster_rules.h"
#include "rules/lex.h"

static void test_lines(void **state)
{
    (void)state;
    const char text[] = "a\n\nb\r\nc";
    lex_lines l;
    lex_lines_init(&l, text, sizeof text - 1, 1);
    const char *want[] = {"a", "", "b\r", "c"};
    for (uint32_t i = 0; i < 4; i++) {
        assert_true(lex_next_line(&l));
        assert_int_equal(l.line, i + 1);
        assert_int_equal((size_t)(l.eol - l.p), strlen(want[i]));
        assert_memory_equal(l.p, want[i], strlen(want[i]));
        assert_false(lex_line_has_nul(&l));
    }
    assert_false(lex_next_line(&l));
    /* a final newline does not start another line; first_line offsets the numbers */
    lex_lines_init(&l, "x\n", 2, 7);
    assert_true(lex_next_line(&l));
    assert_int_equal(l.line, 7);
    assert_false(lex_next_line(&l));
    lex_lines_init(&l, "x\0y", 3, 1);
    assert_true(lex_next_line(&l));
    assert_true(lex_line_has_nul(&l));
}

static void test_words(void **state)
{
    (void)state;
    const char *s = "  dir a\tname=\"x y\"z \"\" end#c more";
    const char *end = s + strlen(s), *p = s;
    char w[32];
    const char *want[] = {"dir", "a", "name=x yz", "", "end"};
    for (int i = 0; i < 5; i++) {
        long k = lex_word(&p, end, w, sizeof w);
        assert_int_equal(k, (long)strlen(want[i]));
        assert_string_equal(w, want[i]);
    }
    assert_int_equal(lex_word(&p, end, w, sizeof w), LEX_END);
    p = "# only a comment";
    assert_int_equal(lex_word(&p, p + strlen(p), w, sizeof w), LEX_END);
    p = "a\"open";
    assert_int_equal(lex_word(&p, p + strlen(p), w, sizeof w), LEX_EQUOTE);
    p = "abcdefgh";
    assert_int_equal(lex_word(&p, p + 8, w, 4), LEX_ELONG);
    assert_string_equal(w, "abc");
    /* the end pointer bounds the scan even without a NUL */
    p = "ab cd";
    assert_int_equal(lex_word(&p, p + 1, w, sizeof w), 1);
    assert_string_equal(w, "a");
}

static void test_quoted(void **state)
{
    (void)state;
    char out[32];
    const char *s = "\"a\\\"b\\\\c\\n\\*\" rest";
    const char *p = s;
    assert_int_equal(lex_quoted(&p, s + strlen(s), LEX_ESC_C, out, sizeof out), 7);
    assert_string_equal(out, "a\"b\\c\n*");
    assert_string_equal(p, " rest");
    p = s; /* glob style: only \" and \\ are escapes */
    assert_int_equal(lex_quoted(&p, s + strlen(s), 0, out, sizeof out), 9);
    assert_string_equal(out, "a\"b\\c\\n\\*");
    p = "\"abc";
    assert_int_equal(lex_quoted(&p, p + 4, 0, out, sizeof out), LEX_EQUOTE);
    p = "\"abcdef\"";
    assert_int_equal(lex_quoted(&p, p + 8, 0, out, 4), LEX_ELONG);
}

static void test_fail_and_files(void **state)
{
    (void)state;
    lr_error err = {0};
    assert_int_equal(LEX_FAIL(&err, "r.rules", 12, "bad `%s`", "x"), LR_ERR_RULES);
    assert_int_equal(err.code, LR_ERR_RULES);
    assert_non_null(strstr(err.msg, "r.rules:12: bad `x`"));

    char dir[] = "/tmp/lex_test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[4096], found[4096];
    snprintf(path, sizeof path, "%s/only-here.rules", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("category w W\n", f);
    fclose(f);
    setenv("LEAKRAY_RULES_DIR", dir, 1);
    assert_true(lex_find_rules("only-here.rules", found, sizeof found));
    assert_string_equal(found, path);
    assert_false(lex_find_rules("no-such-file.rules", found, sizeof found));
    /* a set name resolves through the same search */
    cat_set cs;
    cat_init(&cs);
    err = (lr_error){0};
    assert_int_equal(cat_load(&cs, "only-here", &err), LR_OK);
    assert_int_equal(cs.n_rules, 1);
    cat_fini(&cs);
    unsetenv("LEAKRAY_RULES_DIR");

    char *text;
    size_t n;
    err = (lr_error){0};
    assert_int_equal(lex_read_file(path, "rules file", 1, &text, &n, &err), LR_OK);
    assert_int_equal(n, 13);
    assert_memory_equal(text, "category w W\n", 13);
    free(text);
    /* a file of the ceiling or more is refused, not read whole */
    f = fopen(path, "wb");
    assert_non_null(f);
    static char zero[1 << 16];
    for (int i = 0; i < 17; i++)
        fwrite(zero, 1, sizeof zero, f);
    fclose(f);
    err = (lr_error){0};
    assert_int_equal(lex_read_file(path, "rules file", 1, &text, &n, &err), LR_ERR_LIMIT);
    assert_null(text);
    assert_non_null(strstr(err.msg, "rules file larger than 1 MiB"));
    unlink(path);
    err = (lr_error){0};
    assert_int_equal(lex_read_file(path, "rules file", 1, &text, &n, &err), LR_ERR_IO);
    assert_non_null(strstr(err.msg, path));
    rmdir(dir);
}

static void test_readers(void **state)
{
    (void)state;
    cat_set cs;
    cat_init(&cs);
    lr_error err = {0};
    const char *utf8 = "category widget com.example.Caf\xc3\xa9* # comment\n";
    assert_int_equal(cat_parse(&cs, "c.rules", utf8, strlen(utf8), &err), LR_OK);
    assert_int_equal(cs.n_rules, 1);
    assert_string_equal(cs.rules[0].pattern, "com.example.Caf\xc3\xa9*");
    cat_fini(&cs);
    cat_init(&cs);
    err = (lr_error){0};
    const char *ctl = "\ncategory widget A\x7f\n";
    assert_int_equal(cat_parse(&cs, "c.rules", ctl, strlen(ctl), &err), LR_ERR_RULES);
    assert_non_null(strstr(err.msg, "c.rules:2: control character"));
    cat_fini(&cs);

    crules_set rs;
    crules_init(&rs);
    err = (lr_error){0};
    const char *glob = "dir d name=\"a\\*b c\"\n";
    assert_int_equal(crules_parse(&rs, "k.rules", glob, strlen(glob), &err), LR_OK);
    assert_string_equal(rs.maps[0].name_glob, "a\\*b c");
    assert_int_equal(crules_match(&rs, "object", "a*b c"), 0);
    assert_int_equal(crules_match(&rs, "object", "axb c"), -1);
    crules_fini(&rs);
    crules_init(&rs);
    err = (lr_error){0};
    const char *many = "leak-ignore 1 2 3 4 5 6 7 8\n";
    assert_int_equal(crules_parse(&rs, "k.rules", many, strlen(many), &err), LR_ERR_RULES);
    assert_non_null(strstr(err.msg, "k.rules:1: unterminated quote or too many fields"));
    crules_fini(&rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),          cmocka_unit_test(test_words),
        cmocka_unit_test(test_quoted),         cmocka_unit_test(test_fail_and_files),
        cmocka_unit_test(test_readers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
