/* SPDX-License-Identifier: Apache-2.0 */
/* graph_index_test.c: unit tests of the id -> node index of src/graph/graph.c: ascending ids
 * (no permutation), a few descending-interleaved runs (heap merge of runs), more runs than the
 * merge takes (radix sort fallback), repeated ids answering with the first node in node
 * order, and misses below, between and above the ids, checked against a brute-force scan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"

/* First node with id, by brute force. */
static node_ix scan(const graph *g, uint64_t id)
{
    for (node_ix i = 0; i < g->n_nodes; i++)
        if (graph_node_id(g, i) == id)
            return i;
    return GRAPH_NONE;
}

static void check_all(graph *g)
{
    lr_error err = {0};
    assert_int_equal(graph_build_index(g, &err), LR_OK);
    for (node_ix i = 0; i < g->n_nodes; i++) {
        uint64_t id = graph_node_id(g, i);
        assert_int_equal(graph_find_id(g, id), scan(g, id));
        /* ids are multiples of 8 in these graphs: the neighbours are misses */
        assert_int_equal(graph_find_id(g, id + 1), scan(g, id + 1));
        if (id)
            assert_int_equal(graph_find_id(g, id - 1), scan(g, id - 1));
    }
    assert_int_equal(graph_find_id(g, 0), scan(g, 0));
    assert_int_equal(graph_find_id(g, UINT64_MAX), GRAPH_NONE);
}

static void make(graph *g, uint32_t n)
{
    lr_error err = {0};
    graph_init(g);
    assert_int_equal(graph_alloc_nodes(g, n, 0, &err), LR_OK);
}

static void test_sorted(void **state)
{
    (void)state;
    graph g;
    make(&g, 2000);
    for (uint32_t i = 0; i < g.n_nodes; i++)
        g.node_id[i] = 0x10000 + 8 * (uint64_t)i * (i % 7 + 1);
    for (uint32_t i = 1; i < g.n_nodes; i++)
        if (graph_node_id(&g, i) <= graph_node_id(&g, i - 1))
            g.node_id[i] = graph_node_id(&g, i - 1) + 8;
    check_all(&g);
    assert_true(g.ids_sorted);
    assert_null(g.id_sorted);
    graph_fini(&g);
}

/* Runs of ascending ids that interleave (heap regions written out of address order). */
static void test_runs(void **state)
{
    (void)state;
    graph g;
    make(&g, 3000);
    uint32_t runs = 37, per = g.n_nodes / runs + 1;
    for (uint32_t i = 0; i < g.n_nodes; i++) {
        uint32_t r = i / per, k = i % per;
        g.node_id[i] = 0x7f0000000000ull + 8 * ((uint64_t)k * runs + (runs - 1 - r));
    }
    check_all(&g);
    assert_false(g.ids_sorted);
    assert_non_null(g.id_sorted);
    for (uint32_t p = 1; p < g.n_nodes; p++)
        assert_true(graph_node_id(&g, g.id_sorted[p - 1]) < graph_node_id(&g, g.id_sorted[p]));
    graph_fini(&g);
}

/* Strictly descending ids: one run per node, past the merge's limit (radix sort). */
static void test_many_runs(void **state)
{
    (void)state;
    graph g;
    lr_error err = {0};
    make(&g, 70000);
    for (uint32_t i = 0; i < g.n_nodes; i++)
        g.node_id[i] = 8 * (uint64_t)(g.n_nodes - i) * 3;
    assert_int_equal(graph_build_index(&g, &err), LR_OK);
    assert_false(g.ids_sorted);
    for (uint32_t i = 0; i < g.n_nodes; i++) {
        assert_int_equal(graph_find_id(&g, graph_node_id(&g, i)), i);
        /* ids step by 24 */
        assert_int_equal(graph_find_id(&g, graph_node_id(&g, i) + 8), GRAPH_NONE);
    }
    assert_int_equal(graph_find_id(&g, 24), g.n_nodes - 1);
    graph_fini(&g);
}

/* Repeated ids (corrupt dumps): the first node in node order answers, sorted or not. */
static void test_duplicates(void **state)
{
    (void)state;
    static const uint64_t ids[] = {80, 16, 40, 16, 96, 40, 40, 8, 96, 24};
    graph g;
    make(&g, sizeof ids / sizeof ids[0]);
    memcpy(g.node_id, ids, sizeof ids);
    check_all(&g);
    assert_int_equal(graph_find_id(&g, 16), 1);
    assert_int_equal(graph_find_id(&g, 40), 2);
    assert_int_equal(graph_find_id(&g, 96), 4);
    graph_fini(&g);
    make(&g, 6);
    static const uint64_t asc[] = {8, 8, 16, 24, 24, 24};
    memcpy(g.node_id, asc, sizeof asc);
    check_all(&g);
    assert_true(g.ids_sorted);
    assert_int_equal(graph_find_id(&g, 24), 3);
    graph_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_many_runs),
        cmocka_unit_test(test_duplicates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
