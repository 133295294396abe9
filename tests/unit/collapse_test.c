/* SPDX-License-Identifier: Apache-2.0 */
/* collapse_test.c: unit tests of src/rules/categories.c and src/analysis/collapse.c on a
 * hand-built class hierarchy: the '*'-only glob, parse errors with file:line, the
 * first-rule-up-the-superclass-chain binding (Text is a widget through StatelessWidget),
 * a superclass cycle that must terminate, class objects as "other", and collapsing: runs,
 * collections merged only between two runs of one category (repeatedly), "other" nodes
 * never merged, the shipped flutter.rules parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/collapse.h"

/* Classes: name and superclass index (-1 none). */
static const struct {
    const char *name;
    int super;
} CLASSES[] = {
    {"Widget", -1},                      /* 0 */
    {"StatelessWidget", 0},              /* 1 */
    {"Text", 1},                         /* 2 */
    {"Element", -1},                     /* 3 */
    {"StatelessElement", 3},             /* 4 */
    {"java.util.AbstractCollection", -1}, /* 5 */
    {"java.util.AbstractList", 5},       /* 6 */
    {"java.util.ArrayList", 6},          /* 7 */
    {"java.lang.Object[]", -1},          /* 8 */
    {"com.example.Foo", -1},             /* 9 */
    {"State", -1},                       /* 10 */
    {"MyState", 10},                     /* 11 */
    {"Loop1", 13},                       /* 12: corrupt superclass cycle */
    {"Loop2", 12},                       /* 13 */
};
#define NC (sizeof CLASSES / sizeof CLASSES[0])
enum { WID = 0, SWID, TEXT, ELEM, SELEM, ACOLL, ALIST, ALST, OARR, FOO, STATE, MYSTATE, LOOP1 };

static const char RULES[] = "# test categories\n"
                            "category element Element\n"
                            "category widget Widget   # trailing comment\n"
                            "\n"
                            "category state State\n"
                            "category collection java.util.AbstractCollection *[]\n";

/* One node per class (node i has class i) plus one class-object node (index NC). */
static void build(graph *g)
{
    lr_error err = {0};
    graph_init(g);
    assert_int_equal(graph_alloc_nodes(g, NC + 1, 0, &err), LR_OK);
    g->classes = calloc(NC, sizeof *g->classes);
    assert_non_null(g->classes);
    g->n_classes = NC;
    for (uint32_t i = 0; i < NC; i++) {
        const char *nm = CLASSES[i].name;
        assert_int_equal(graph_intern(g, nm, strlen(nm), &g->classes[i].name, &err), LR_OK);
        g->classes[i].super = CLASSES[i].super < 0 ? GRAPH_NONE : (class_ix)CLASSES[i].super;
        g->classes[i].node = GRAPH_NONE;
        g->node_class[i] = i;
        g->node_kind[i] = GRAPH_KIND_INSTANCE;
    }
    g->node_class[NC] = GRAPH_NONE;
    g->node_kind[NC] = GRAPH_KIND_CLASS;
    g->classes[TEXT].node = NC;
    assert_int_equal(graph_alloc_edges(g, 0, &err), LR_OK);
}

static void bind(cat_set *cs, graph *g)
{
    lr_error err = {0};
    build(g);
    cat_init(cs);
    assert_int_equal(cat_parse(cs, "t.rules", RULES, strlen(RULES), &err), LR_OK);
    assert_int_equal(cat_bind(cs, g, &err), LR_OK);
}

static void test_match(void **state)
{
    (void)state;
    assert_true(cat_match("Widget", "Widget"));
    assert_false(cat_match("Widget", "Widgets"));
    assert_false(cat_match("Widget", "StatelessWidget"));
    assert_true(cat_match("*Widget", "StatelessWidget"));
    assert_true(cat_match("*[]", "java.lang.Object[]"));
    assert_false(cat_match("*[]", "java.lang.Object"));
    assert_true(cat_match("android.view.ViewRootImpl$*", "android.view.ViewRootImpl$W"));
    assert_true(cat_match("a*b*c", "axxbyybzzc"));
    assert_false(cat_match("a*b*c", "axxbyyb"));
    assert_true(cat_match("*", ""));
}

static void expect_error(const char *text, const char *msg_part)
{
    cat_set cs;
    lr_error err = {0};
    cat_init(&cs);
    assert_int_equal(cat_parse(&cs, "bad.rules", text, strlen(text), &err), LR_ERR_RULES);
    if (!strstr(err.msg, msg_part))
        fail_msg("error '%s' lacks '%s'", err.msg, msg_part);
    cat_fini(&cs);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_error("category a A\nignore instance X#y\n", "bad.rules:2: expected 'category");
    expect_error("category widget\n", "bad.rules:1: missing class patterns");
    expect_error("\n\ncategory\n", "bad.rules:3: missing category name");
    expect_error("category other Foo\n", "'other' is what no rule matches");
    expect_error("category wid!get Foo\n", "bad category name");
    expect_error("category a A\x01\n", "control character");
}

static void test_bind(void **state)
{
    (void)state;
    graph g;
    cat_set cs;
    bind(&cs, &g);
    assert_int_equal(cs.n_names, 4);
    assert_string_equal(cat_name(&cs, cat_of_node(&cs, TEXT)), "widget");
    assert_string_equal(cat_name(&cs, cat_of_node(&cs, SWID)), "widget");
    assert_string_equal(cat_name(&cs, cat_of_node(&cs, SELEM)), "element");
    assert_string_equal(cat_name(&cs, cat_of_node(&cs, MYSTATE)), "state");
    assert_int_equal(cat_of_node(&cs, ALST), cs.collection);
    assert_int_equal(cat_of_node(&cs, OARR), cs.collection);
    assert_int_equal(cat_of_node(&cs, FOO), CAT_NONE);
    assert_string_equal(cat_name(&cs, CAT_NONE), "other");
    assert_int_equal(cat_of_node(&cs, LOOP1), CAT_NONE); /* cycle ends */
    assert_int_equal(cat_of_node(&cs, NC), CAT_NONE);    /* class object of Text */
    assert_int_equal(cat_of_node(&cs, NC + 5), CAT_NONE);
    cat_fini(&cs);
    graph_fini(&g);
}

typedef struct want {
    uint32_t count, cat_is; /* cat_is: node whose category the line has */
    uint32_t collections;
} want;

static void check(const cat_set *cs, const node_ix *p, uint32_t n, const want *w, uint32_t nw)
{
    collapse_line ln[64];
    uint32_t k = collapse_path(cs, p, n, ln);
    assert_int_equal(k, nw);
    uint32_t at = 0;
    for (uint32_t i = 0; i < k; i++) {
        assert_int_equal(ln[i].first, at);
        assert_int_equal(collapse_count(&ln[i]), w[i].count);
        assert_int_equal(ln[i].cat, cat_of_node(cs, w[i].cat_is));
        assert_int_equal(ln[i].collections, w[i].collections);
        at = ln[i].last + 1;
    }
    assert_int_equal(at, n);
}

static void test_collapse(void **state)
{
    (void)state;
    graph g;
    cat_set cs;
    bind(&cs, &g);
    /* Foo | E E [AL O[]] E -> one element run | T T | S | AL (between state and widget:
     * kept) | T | Foo | Foo (other never merges) */
    const node_ix p1[] = {FOO, ELEM, SELEM, ALST, OARR, SELEM, TEXT, SWID,
                          MYSTATE, ALST, TEXT, FOO, FOO};
    const want w1[] = {{1, FOO, 0}, {5, ELEM, 2}, {2, TEXT, 0}, {1, STATE, 0},
                       {1, ALST, 0}, {1, TEXT, 0}, {1, FOO, 0}, {1, FOO, 0}};
    check(&cs, p1, 13, w1, 8);
    /* Repeated: E AL E O[] O[] E is one run with 3 collections; collections at the ends stay. */
    const node_ix p2[] = {OARR, ELEM, ALST, ELEM, OARR, OARR, SELEM, ALST};
    const want w2[] = {{1, OARR, 0}, {6, ELEM, 3}, {1, ALST, 0}};
    check(&cs, p2, 8, w2, 3);
    /* A collection between two "other" nodes is its own line. */
    const node_ix p3[] = {FOO, ALST, FOO};
    const want w3[] = {{1, FOO, 0}, {1, ALST, 0}, {1, FOO, 0}};
    check(&cs, p3, 3, w3, 3);
    collapse_line ln[1];
    assert_int_equal(collapse_path(&cs, p3, 0, ln), 0);
    cat_fini(&cs);
    graph_fini(&g);
}

static void test_shipped(void **state)
{
    (void)state;
    const char *src = getenv("LEAKRAY_SRC");
    if (!src)
        skip();
    char path[4096];
    const char *files[] = {"flutter.rules", "android-views.rules"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/rules/%s", src, files[i]);
        cat_set cs;
        lr_error err = {0};
        cat_init(&cs);
        if (cat_load(&cs, path, &err) != LR_OK)
            fail_msg("%s", err.msg);
        assert_true(cs.collection != CAT_NONE);
        assert_true(cs.n_rules >= 5);
        cat_fini(&cs);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),   cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_bind),    cmocka_unit_test(test_collapse),
        cmocka_unit_test(test_shipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
