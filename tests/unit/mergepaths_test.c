/* SPDX-License-Identifier: Apache-2.0 */
/* mergepaths_test.c: mpath_build on hand-made path forests: shared prefixes merge, counts
 * add up to the root, a target's own retained size stands for the targets below it, tops and
 * children come by retained size, unreached targets are counted apart, and a step function
 * that loops is an error, not a hang. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/mergepaths.h"
#include "test_graph.h"

/* parent[x]: next node towards the root; GRAPH_NONE = a root; UNREACHED = no path. */
#define UNREACHED (GRAPH_NONE - 1)
static const node_ix *mp_parent;

static int step(void *ctx, node_ix x, node_ix *parent, edge_ix *edge)
{
    (void)ctx;
    if (mp_parent[x] == UNREACHED)
        return -1;
    if (mp_parent[x] == GRAPH_NONE)
        return 0;
    *parent = mp_parent[x];
    *edge = 100 + x;
    return 1;
}

static uint32_t find(const mpath_tree *t, node_ix x)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->nodes[i].node == x)
            return i;
    return MPATH_NONE;
}

static void test_merge(void **state)
{
    (void)state;
    graph g;
    tg_nodes(&g, 8, NULL, 16);
    /* 0 <- 1 <- 2 <- 4, 1 <- 3, 0 <- 5; 6 unreached; 7 a root of its own */
    static const node_ix parent[8] = {GRAPH_NONE, 0, 1, 1, 2, 0, UNREACHED, GRAPH_NONE};
    mp_parent = parent;
    const node_ix targets[5] = {4, 3, 2, 6, 7};
    const uint64_t retained[5] = {10, 20, 100, 5, 7};
    mpath_tree t;
    lr_error err = {0};
    assert_int_equal(mpath_build(&g, targets, retained, 5, step, NULL, NULL, &t, &err), LR_OK);
    assert_int_equal(t.n, 6); /* 0 1 2 3 4 7: node 5 is on no target's path */
    assert_int_equal(t.n_reached, 4);
    assert_int_equal(t.n_unreached, 1);
    assert_int_equal(t.unreached_retained, 5);
    const mpath_node *n0 = &t.nodes[find(&t, 0)], *n1 = &t.nodes[find(&t, 1)];
    const mpath_node *n2 = &t.nodes[find(&t, 2)], *n4 = &t.nodes[find(&t, 4)];
    assert_int_equal(n0->count, 3);
    assert_int_equal(n1->count, 3);
    assert_int_equal(n2->count, 2);
    assert_int_equal(n4->count, 1);
    assert_int_equal(n2->retained, 100); /* 4 is inside 2: not added again */
    assert_int_equal(n1->retained, 120);
    assert_int_equal(n0->retained, 120);
    assert_true(n2->is_target && !n1->is_target);
    assert_int_equal(n4->edge, 104);
    assert_int_equal(n0->edge, GRAPH_NONE);
    assert_int_equal(n4->parent, find(&t, 2));
    /* tops by retained: 0 (120) before 7 (7); under 1: 2 (100) before 3 (20) */
    assert_int_equal(t.nodes[t.first_top].node, 0);
    assert_int_equal(t.nodes[t.nodes[t.first_top].next_sibling].node, 7);
    assert_int_equal(t.nodes[n1->first_child].node, 2);
    assert_int_equal(t.nodes[t.nodes[n1->first_child].next_sibling].node, 3);
    mpath_free(&t);
    graph_fini(&g);
}

static void test_loop(void **state)
{
    (void)state;
    graph g;
    tg_nodes(&g, 3, NULL, 16);
    static const node_ix parent[3] = {1, 2, 0}; /* 0 -> 1 -> 2 -> 0: a broken step function */
    mp_parent = parent;
    const node_ix targets[1] = {0};
    mpath_tree t;
    lr_error err = {0};
    assert_int_equal(mpath_build(&g, targets, NULL, 1, step, NULL, NULL, &t, &err),
                     LR_ERR_INTERNAL);
    assert_null(t.nodes);
    graph_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_merge), cmocka_unit_test(test_loop)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
