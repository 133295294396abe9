/* SPDX-License-Identifier: Apache-2.0 */
/* mapping_test.c: unit test of src/rules/mapping.c on a small obfuscated graph (classes a,
 * b extends a, a[]; the class object of a holds static c; an instance of b has an own and
 * an inherited field both obfuscated as "a"). Applying a mapping must rename the classes
 * (arrays too), declared fields and statics, field edges by the declaring class's mapping and
 * static edges by the class whose class object holds them; unmapped names stay. Stack
 * frames read as source through R8's line ranges, inlined chains (innermost entry first, its
 * class from the qualified name) and sourceFile headers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "rules/mapping.h"
#include "mapping_graph.h"

static const char MAP[] =
    "# compiler: R8\n"
    "com.example.Base -> a:\n"
    "    java.lang.Object parent -> a\n"
    "    int count -> b\n"
    "    com.example.Base INSTANCE -> c\n"
    "    void run() -> d\n"
    "com.example.Child -> b:\n"
    "    com.example.Base[] children -> a\n";

static void test_apply(void **state)
{
    (void)state;
    graph g;
    graph_init(&g);
    build(&g);
    lr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(mapping_apply_text(&g, "t.map", MAP, strlen(MAP), &err), LR_OK);
    assert_string_equal(graph_str(&g, g.classes[0].name), "com.example.Base");
    assert_string_equal(graph_str(&g, g.classes[1].name), "com.example.Child");
    assert_string_equal(graph_str(&g, g.classes[2].name), "com.example.Base[]");
    assert_string_equal(graph_str(&g, g.fields[0].name), "parent");
    assert_string_equal(graph_str(&g, g.fields[1].name), "count");
    assert_string_equal(graph_str(&g, g.fields[2].name), "children");
    assert_string_equal(graph_str(&g, g.statics[0].name), "INSTANCE");
    /* static edge of a's class object, then b's field edges: the first "a" field found up
     * the chain of b is b's own */
    assert_string_equal(graph_str(&g, graph_edge_name(&g, 0)), "INSTANCE");
    assert_string_equal(graph_str(&g, graph_edge_name(&g, 1)), "children");
    assert_string_equal(graph_str(&g, graph_edge_name(&g, 2)), "children");
    assert_int_equal(graph_edge_name(&g, 3), 0); /* element index untouched */
    graph_fini(&g);
}

static const char FRAMES_MAP[] =
    "# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n"
    "com.example.Base -> a:\n"
    "# {\"id\":\"sourceFile\",\"fileName\":\"Base.kt\"}\n"
    "    1:5:void run():40:44 -> d\n"
    "    6:6:void com.example.Util.log(java.lang.String):7:7 -> d\n"
    "    6:6:void run():45 -> d\n"
    "    7:9:void stop():20 -> e\n"
    "      # {\"id\":\"com.android.tools.r8.synthesized\"}\n"
    "com.example.Child -> b:\n"
    "    3:4:void go() -> f\n";

static void expect_frame(graph *g, uint32_t i, const char *cls, const char *method,
                         const char *source, int32_t line)
{
    assert_string_equal(graph_str(g, g->frames[i].class_name), cls);
    assert_string_equal(graph_str(g, g->frames[i].method), method);
    assert_string_equal(graph_str(g, g->frames[i].source), source);
    assert_int_equal(g->frames[i].line, line);
}

static void test_frames(void **state)
{
    (void)state;
    graph g;
    graph_init(&g);
    build(&g);
    lr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(mapping_apply_text(&g, "f.map", FRAMES_MAP, strlen(FRAMES_MAP), &err),
                     LR_OK);
    expect_frame(&g, 0, "com.example.Base", "run", "Base.kt", 42);     /* 40 + (3 - 1) */
    expect_frame(&g, 1, "com.example.Util", "log", "Util.java", 7);    /* inlined, innermost */
    expect_frame(&g, 2, "com.example.Base", "stop", "Base.kt", 20);    /* range to one line */
    expect_frame(&g, 3, "com.example.Child", "go", "Child.java", 4);   /* lines unchanged */
    expect_frame(&g, 4, "x", "y", "X.java", 11);                       /* not in the mapping */
    graph_fini(&g);
}

static void test_bad_class_line(void **state)
{
    (void)state;
    graph g;
    graph_init(&g);
    build(&g);
    lr_error err;
    memset(&err, 0, sizeof err);
    const char *bad = "com.example.Base -> a:\ncom.example.Child -> b\n";
    assert_int_equal(mapping_apply_text(&g, "t.map", bad, strlen(bad), &err), LR_ERR_RULES);
    assert_non_null(strstr(err.msg, "t.map:2: class line must end with ':'"));
    assert_string_equal(graph_str(&g, g.classes[0].name), "a");
    graph_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_bad_class_line),
        cmocka_unit_test(test_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
