/* SPDX-License-Identifier: Apache-2.0 */
/* domagg_test.c: the bounded dominator-tree views (src/analysis/domagg.c) on a hand-made
 * tree: which children are kept, what "other" sums, class grouping across members, the node
 * budget, and the top list with its tie rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/domagg.h"
#include "analysis/dominators.h"
#include "test_graph.h"

/*            super
 *        /     |     \
 *      0(6)   1(2)   2(1)        8 unreachable
 *     / | \     \
 *  3(3) 4(1) 5(1) 9(1)
 *   / \
 *  6   7
 * classes: 0,1 A; 2 B; 3,4,5,9 C; 6,7 D. */
static const node_ix IDOM[10] = {DOM_SUPER_ROOT, DOM_SUPER_ROOT, DOM_SUPER_ROOT, 0, 0, 0, 3, 3,
                                 GRAPH_NONE, 1};
static const uint64_t RET[10] = {6, 2, 1, 3, 1, 1, 1, 1, 0, 1};

static void make(graph *g)
{
    static const char *const names[10] = {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"};
    static const class_ix cls[10] = {0, 0, 1, 2, 2, 2, 3, 3, 4, 2};
    tg_nodes(g, 10, names, 1);
    for (int i = 0; i < 10; i++)
        g->node_class[i] = cls[i];
}

static const domagg_input IN = {IDOM, RET, DOM_SUPER_ROOT, 9};

static void objects_view(void **state)
{
    (void)state;
    graph g;
    make(&g);
    lr_error err = {0};
    domagg_kids k;
    assert_int_equal(domagg_kids_build(&g, &IN, &k, &err), LR_OK);
    assert_int_equal(k.first[11] - k.first[10], 3); /* first level: 0, 1, 2 */
    domagg_opts o = {100, 2, 10, 0};
    domagg_view v;
    assert_int_equal(domagg_objects(&g, &IN, &k, &o, &v, &err), LR_OK);
    /* root, [0, 1, other{2}], [3, 4, other{5}], [6, 7], [9] */
    assert_int_equal(v.n, 10);
    assert_int_equal(v.v[0].retained, 9);
    assert_int_equal(v.v[0].parent, DOMAGG_NO_PARENT);
    assert_int_equal(v.v[1].node, 0);
    assert_int_equal(v.v[2].node, 1);
    assert_true(v.v[3].other);
    assert_int_equal(v.v[3].count, 1);
    assert_int_equal(v.v[3].retained, 1);
    assert_int_equal(v.v[4].node, 3);
    assert_int_equal(v.v[4].parent, 1);
    assert_int_equal(v.v[5].node, 4); /* 4 and 5 tie: the smaller index is kept */
    assert_true(v.v[6].other);
    assert_int_equal(v.v[6].retained, 1);
    uint64_t sum = 0;
    for (uint32_t i = 1; i < v.n; i++) {
        assert_true(v.v[i].parent < i); /* parents first */
        if (v.v[i].parent == 0)
            sum += v.v[i].retained;
    }
    assert_int_equal(sum, 9);
    domagg_view_free(&v);
    /* Budgets: never more nodes than asked, whatever k. */
    for (uint32_t cap = 2; cap < 12; cap++) {
        domagg_opts b = {cap, 2, 10, 0};
        assert_int_equal(domagg_objects(&g, &IN, &k, &b, &v, &err), LR_OK);
        assert_true(v.n <= cap);
        domagg_view_free(&v);
    }
    /* Depth 1: the first level only, nothing below it expanded. */
    domagg_opts d1 = {100, 5, 1, 0};
    assert_int_equal(domagg_objects(&g, &IN, &k, &d1, &v, &err), LR_OK);
    assert_int_equal(v.n, 4);
    domagg_view_free(&v);
    domagg_kids_free(&k);
    graph_fini(&g);
}

static void classes_view(void **state)
{
    (void)state;
    graph g;
    make(&g);
    lr_error err = {0};
    domagg_kids k;
    assert_int_equal(domagg_kids_build(&g, &IN, &k, &err), LR_OK);
    domagg_opts o = {100, 2, 10, 0};
    domagg_view v;
    assert_int_equal(domagg_classes(&g, &IN, &k, &o, &v, &err), LR_OK);
    /* root, [A x2 (8), B x1 (1)], under A: [C x4 (6)], under C: [D x2 (2)] */
    assert_int_equal(v.n, 5);
    assert_int_equal(v.v[1].cls, 0);
    assert_int_equal(v.v[1].count, 2);
    assert_int_equal(v.v[1].retained, 8);
    assert_int_equal(v.v[1].node, 0); /* sample: the biggest member */
    assert_int_equal(v.v[2].cls, 1);
    assert_int_equal(v.v[3].cls, 2);
    assert_int_equal(v.v[3].parent, 1);
    assert_int_equal(v.v[3].count, 4); /* children of both A members, one group */
    assert_int_equal(v.v[3].retained, 6);
    assert_int_equal(v.v[4].cls, 3);
    assert_int_equal(v.v[4].parent, 3);
    assert_int_equal(v.v[4].count, 2);
    domagg_view_free(&v);
    /* k = 1: B folds into "other" at the first level. */
    domagg_opts o1 = {100, 1, 10, 0};
    assert_int_equal(domagg_classes(&g, &IN, &k, &o1, &v, &err), LR_OK);
    assert_int_equal(v.v[1].cls, 0);
    assert_true(v.v[2].other);
    assert_int_equal(v.v[2].retained, 1);
    domagg_view_free(&v);
    domagg_kids_free(&k);
    graph_fini(&g);
}

static void top(void **state)
{
    (void)state;
    graph g;
    make(&g);
    node_ix t[4];
    assert_int_equal(domagg_top(&g, RET, 3, t), 3);
    assert_int_equal(t[0], 0);
    assert_int_equal(t[1], 3);
    assert_int_equal(t[2], 1);
    /* More asked than there are objects with a size: only those. */
    node_ix all[12];
    assert_int_equal(domagg_top(&g, RET, 12, all), 9);
    assert_int_equal(all[8], 9); /* last of the 1-byte ties: the largest index */
    graph_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(objects_view),
        cmocka_unit_test(classes_view),
        cmocka_unit_test(top),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
