/* SPDX-License-Identifier: Apache-2.0 */
/* mapping_test.c: unit test of src/rules/mapping.c on a small obfuscated graph (classes a,
 * b extends a, a[]; the class object of a holds static c; an instance of b has an own and
 * an inherited field both obfuscated as "a"). Applying a mapping must rename the classes
 * (arrays too), declared fields and statics, field edges by the declaring class's mapping and
 * static edges by the class whose class object holds them; unmapped names stay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "rules/mapping.h"

static str_ix S(graph *g, const char *s)
{
    str_ix x = GRAPH_NONE;
    lr_error err;
    if (graph_intern(g, s, strlen(s), &x, &err) != LR_OK)
        abort();
    return x;
}

/* Nodes: 0 class object of a, 1 class object of b, 2 instance of b, 3 a[] array. */
static void build(graph *g)
{
    lr_error err;
    memset(&err, 0, sizeof err);
    if (graph_alloc_nodes(g, 4, 0, &err) != LR_OK || graph_alloc_edges(g, 4, &err) != LR_OK)
        abort();
    g->n_classes = 3;
    g->classes = calloc(3, sizeof *g->classes);
    g->n_fields = 3;
    g->fields = calloc(3, sizeof *g->fields);
    g->n_statics = 1;
    g->statics = calloc(1, sizeof *g->statics);
    if (!g->classes || !g->fields || !g->statics)
        abort();
    g->fields[0] = (graph_field){S(g, "a"), GRAPH_FT_OBJECT};
    g->fields[1] = (graph_field){S(g, "b"), GRAPH_FT_INT};
    g->fields[2] = (graph_field){S(g, "a"), GRAPH_FT_OBJECT};
    g->statics[0] = (graph_static){S(g, "c"), GRAPH_FT_OBJECT, 0};
    g->classes[0] = (graph_class){.name = S(g, "a"), .super = GRAPH_NONE, .node = 0, .id = 1,
                                  .first_field = 0, .n_fields = 2, .n_statics = 1};
    g->classes[1] = (graph_class){.name = S(g, "b"), .super = 0, .node = 1, .id = 2,
                                  .first_field = 2, .n_fields = 1, .first_static = 1};
    g->classes[2] = (graph_class){.name = S(g, "a[]"), .super = GRAPH_NONE, .node = GRAPH_NONE,
                                  .elem_type = GRAPH_FT_OBJECT, .flags = GRAPH_CLASS_ARRAY};
    static const uint8_t kinds[4] = {GRAPH_KIND_CLASS, GRAPH_KIND_CLASS, GRAPH_KIND_INSTANCE,
                                     GRAPH_KIND_OBJ_ARRAY};
    static const class_ix cls[4] = {GRAPH_NONE, GRAPH_NONE, 1, 2};
    for (node_ix n = 0; n < 4; n++) {
        g->node_id[n] = n + 1;
        g->node_class[n] = cls[n];
        g->node_size[n] = 16;
        g->node_kind[n] = g->node_type[n] = kinds[n];
        g->node_off[n] = UINT64_MAX;
        g->node_len[n] = 0;
    }
    /* 0 -c-> 2 (static), 2 -a-> 3, 2 -a-> 0 (inherited and own field), 3 [0] -> 2 */
    static const edge_ix first[5] = {0, 1, 1, 3, 4};
    memcpy(g->first_edge, first, sizeof first);
    g->edge_to[0] = 2;
    g->edge_kind[0] = GRAPH_EDGE_MAKE(GRAPH_EDGE_STATIC, GRAPH_STRONG);
    g->edge_name[0] = S(g, "c");
    g->edge_to[1] = 3;
    g->edge_kind[1] = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
    g->edge_name[1] = S(g, "a");
    g->edge_to[2] = 0;
    g->edge_kind[2] = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
    g->edge_name[2] = S(g, "a");
    g->edge_to[3] = 2;
    g->edge_kind[3] = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
    g->edge_name[3] = 0;
}

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
