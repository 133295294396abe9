/* SPDX-License-Identifier: Apache-2.0 */
/* rules_test.c: unit tests of src/rules/rules.c: the grammar of docs/rules.md (every rule
 * kind, Shark's pattern strings, comments, quoting), line-numbered LR_ERR_RULES messages for
 * bad input, build-condition evaluation (API / manufacturer / build_id), and that the
 * shipped rules/jdk.rules and rules/android.rules parse with the expected rule counts (90
 * library-leak and 18 ignored references from Shark's AndroidReferenceMatchers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules/rules.h"

static lr_status parse(rules_set *rs, const char *text, lr_error *err)
{
    memset(err, 0, sizeof *err);
    return rules_parse(rs, "t.rules", text, strlen(text), err);
}

static void test_grammar(void **state)
{
    (void)state;
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    const char *text =
        "# comment line\n"
        "\n"
        "ignore instance java.lang.ref.WeakReference#referent   # trailing comment\n"
        "ignore java-local \"main\"\n"
        "library-leak static android.app.Foo$Bar#sInstance when API >= 19 && API <= 28 "
        "description \"a \\\"quoted\\\" #hash\"\n"
        "library-leak native-global android.widget.Toast$TN\n"
        "inspect android.app.Activity if mDestroyed == true -> leaking \"destroyed\"\n"
        "inspect * if @anonymous && @super != \"java.lang.Object\" -> label \"Anon {@super}\"\n"
        "inspect class-object -> not-leaking \"a class is never leaking\"\n"
        "watch com.example.Page if destroyed && !(name == \"x\" || size < -3)\n";
    assert_int_equal(parse(&rs, text, &err), LR_OK);
    assert_int_equal(rs.n_refs, 4);
    assert_int_equal(rs.n_insp, 4);
    assert_string_equal(rs.refs[0].pattern, "instance field java.lang.ref.WeakReference#referent");
    assert_int_equal(rs.refs[0].action, RULES_IGNORE);
    assert_string_equal(rs.refs[1].pattern, "local variable on thread main");
    assert_string_equal(rs.refs[2].pattern, "static field android.app.Foo$Bar#sInstance");
    assert_string_equal(rs.refs[2].description, "a \"quoted\" #hash");
    assert_int_equal(rs.refs[2].line, 5);
    assert_string_equal(rs.refs[3].pattern,
                        "native global variable referencing android.widget.Toast$TN");
    assert_int_equal(rs.insp[0].verdict, RULES_LEAKING);
    assert_int_equal(rs.insp[1].subject, RULES_SUBJ_ANY);
    assert_int_equal(rs.insp[2].subject, RULES_SUBJ_CLASS_OBJECT);
    assert_int_equal(rs.insp[3].watch, 1);
    assert_int_equal(rs.insp[3].verdict, RULES_LEAKING);
    rules_fini(&rs);
}

static void expect_error(const char *text, const char *msg)
{
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    assert_int_equal(parse(&rs, text, &err), LR_ERR_RULES);
    if (!strstr(err.msg, msg)) {
        fprintf(stderr, "got '%s', want '%s'\n", err.msg, msg);
        fail();
    }
    rules_fini(&rs);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("frobnicate x\n", "t.rules:1: unknown rule keyword 'frobnicate'");
    expect_error("# ok\nignore instance Foo\n", "t.rules:2: expected CLASS#FIELD");
    expect_error("inspect Foo if a == -> leaking \"x\"\n", "t.rules:1: expected a field path");
    expect_error("inspect Foo -> maybe \"x\"\n", "t.rules:1: expected leaking, not-leaking");
    expect_error("inspect Foo -> leaking reason\n", "t.rules:1: expected a quoted reason");
    expect_error("ignore java-local main\n", "t.rules:1: expected a quoted thread name");
    expect_error("library-leak static A#b description \"x\" extra\n", "unexpected 'extra'");
    expect_error("inspect Foo if (a -> label \"x\"\n", "t.rules:1: expected ')'");
    expect_error("inspect Foo -> label \"open\n", "t.rules:1: unterminated string");
    expect_error("ignore static A#b when API >= 99999999999999999999\n", "number out of range");
    expect_error("inspect Foo if a is nul -> label \"x\"\n", "expected 'null' after 'is'");
}

static void test_build_conditions(void **state)
{
    (void)state;
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    memset(&err, 0, sizeof err);
    rs.build.has_sdk = 1;
    rs.build.sdk = 23;
    strcpy(rs.build.manufacturer, "samsung");
    strcpy(rs.build.build_id, "TPP2.220218.008");
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "API >= 19 && API <= 28", &err), 1);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "API == 29", &err), 0);
    assert_true(rules_eval_text(&rs, GRAPH_NONE, "manufacturer == \"samsung\" && API in_range",
                                &err) < 0);
    assert_non_null(strstr(err.msg, "unexpected 'in_range' after expression"));
    memset(&err, 0, sizeof err);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE,
                                     "(manufacturer == \"LGE\" || manufacturer == \"samsung\") "
                                     "&& !(API < 23)", &err), 1);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "build_id == \"TPP2.220218.008\"", &err),
                     1);
    /* facts the dump lacks make comparisons false, never true */
    rs.build.has_sdk = 0;
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "API >= 0", &err), 0);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "API != 5", &err), 0);
    assert_true(rules_eval_text(&rs, GRAPH_NONE, "API >=", &err) < 0);
    assert_int_equal(err.code, LR_ERR_RULES);
    rules_fini(&rs);
}

static void count_file(const char *name, uint32_t *lib, uint32_t *ign, uint32_t *insp)
{
    char path[4096];
    const char *src = getenv("LEAKRAY_SRC");
    snprintf(path, sizeof path, "%s/rules/%s", src ? src : ".", name);
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    memset(&err, 0, sizeof err);
    lr_status st = rules_load_file(&rs, path, &err);
    if (st != LR_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, LR_OK);
    *lib = *ign = 0;
    for (uint32_t i = 0; i < rs.n_refs; i++) {
        if (rs.refs[i].action == RULES_LIBRARY_LEAK)
            ++*lib;
        else
            ++*ign;
    }
    *insp = rs.n_insp;
    rules_fini(&rs);
}

static void test_shipped(void **state)
{
    (void)state;
    uint32_t lib, ign, insp;
    count_file("jdk.rules", &lib, &ign, &insp);
    assert_int_equal(lib, 0);
    assert_int_equal(ign, 14);
    assert_true(insp >= 4);
    count_file("android.rules", &lib, &ign, &insp);
    assert_int_equal(lib, 90);
    assert_int_equal(ign, 18);
    assert_true(insp >= 50);
}

static void test_watch(void **state)
{
    (void)state;
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(rules_add_watch(&rs, "com.example.Page", "destroyed == true", &err), LR_OK);
    assert_string_equal(rs.insp[0].text, "Page matches destroyed == true");
    assert_int_equal(rules_add_watch(&rs, "com.example.Page", "destroyed ==", &err),
                     LR_ERR_RULES);
    assert_non_null(strstr(err.msg, "--leaking-if:1:"));
    memset(&err, 0, sizeof err);
    assert_int_equal(rules_add_watch(&rs, "bad#name", NULL, &err), LR_ERR_RULES);
    rules_fini(&rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar),         cmocka_unit_test(test_errors),
        cmocka_unit_test(test_build_conditions), cmocka_unit_test(test_shipped),
        cmocka_unit_test(test_watch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
