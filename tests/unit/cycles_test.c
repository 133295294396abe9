/* SPDX-License-Identifier: Apache-2.0 */
/* cycles_test.c: unit tests of src/analysis/cycles.c on hand-built graphs: components and
 * self-loops, weak edges that close no cycle, the elementary cycles of a component found once
 * each, canonical grouping of the same shape found twice, a 200,000-node ring (the iterative
 * Tarjan must not recurse), the length bound, and the step budget reported as truncation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/cycles.h"
#include "test_graph.h"


#define EL GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG)
#define WEAK GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_WEAK)

/* n nodes; node i has class names[i] (or "C<i>"); edges in order, named by their index. */
static void build(graph *g, uint32_t n, const tedge *es, uint32_t ne, const char *const *names)
{
    tg_nodes(g, n, names, 10);
    tg_edges(g, es, ne, 1);
}

static void run(const graph *g, const node_ix *from, uint32_t nf, uint32_t maxlen,
                uint64_t steps, cycles_result *r)
{
    lr_error err = {0};
    cycles_opts o = {from, nf, maxlen, CYCLES_DEFAULT_MAX_CYCLES, steps};
    assert_int_equal(cycles_find(g, NULL, &o, r, &err), LR_OK);
}

/* 0->1->2->0 and 1->0 in one component; 3 loops on itself; 4->5->6 -weak-> 4 is no cycle. */
static const tedge SMALL[] = {{0, 1, EL}, {1, 2, EL}, {2, 0, EL}, {1, 0, EL},
                              {3, 3, EL}, {4, 5, EL}, {5, 6, EL}, {6, 4, WEAK}};

static void test_components(void **state)
{
    (void)state;
    graph g;
    build(&g, 7, SMALL, 8, NULL);
    cycles_result r;
    run(&g, NULL, 0, 10, CYCLES_DEFAULT_MAX_STEPS, &r);
    assert_int_equal(r.n_scope, 7);
    assert_int_equal(r.n_sccs, 2);
    assert_int_equal(r.scc_nodes, 4);
    assert_int_equal(r.sccs[0].size, 3);
    assert_int_equal(r.sccs[0].example, 0);
    assert_int_equal(r.sccs[1].size, 1);
    assert_int_equal(r.sccs[1].example, 3);
    assert_int_equal(r.n_cycles, 0); /* no scope: components only */
    cycles_free(&r);
    graph_fini(&g);
}

static void test_elementary(void **state)
{
    (void)state;
    graph g;
    build(&g, 7, SMALL, 8, NULL);
    cycles_result r;
    node_ix from = 2;
    run(&g, &from, 1, 10, CYCLES_DEFAULT_MAX_STEPS, &r);
    assert_int_equal(r.n_scope, 3); /* 2 reaches 0 and 1, nothing else */
    assert_int_equal(r.n_sccs, 1);
    assert_int_equal(r.n_found, 2);
    assert_int_equal(r.n_cycles, 2);
    assert_false(r.truncated);
    int seen3 = 0, seen2 = 0;
    for (uint32_t i = 0; i < r.n_cycles; i++) {
        if (r.cycles[i].length == 3) {
            seen3 = 1;
            assert_string_equal(r.cycles[i].signature, "C00.[] -> C01.[] -> C02.[]");
        } else {
            assert_int_equal(r.cycles[i].length, 2);
            seen2 = 1;
            assert_string_equal(r.cycles[i].signature, "C00.[] -> C01.[]");
        }
        assert_int_equal(r.cycles[i].count, 1);
    }
    assert_true(seen2 && seen3);
    /* the length bound drops the 3-cycle */
    cycles_free(&r);
    run(&g, &from, 1, 2, CYCLES_DEFAULT_MAX_STEPS, &r);
    assert_int_equal(r.n_found, 1);
    assert_int_equal(r.cycles[0].length, 2);
    cycles_free(&r);
    graph_fini(&g);
}

/* Two A<->B pairs, entered from different members: one canonical shape, count 2. */
static void test_canonical(void **state)
{
    (void)state;
    static const char *const names[] = {"A", "B", "B", "A", "R"};
    static const tedge es[] = {{0, 1, EL}, {1, 0, EL}, {2, 3, EL}, {3, 2, EL},
                               {4, 1, EL}, {4, 2, EL}};
    graph g;
    build(&g, 5, es, 6, names);
    cycles_result r;
    node_ix from = 4;
    run(&g, &from, 1, 10, CYCLES_DEFAULT_MAX_STEPS, &r);
    assert_int_equal(r.n_found, 2);
    assert_int_equal(r.n_cycles, 1);
    assert_int_equal(r.cycles[0].count, 2);
    assert_int_equal(r.cycles[0].n_members, 4);
    assert_string_equal(r.cycles[0].signature, "A.[] -> B.[]");
    assert_string_equal(graph_class_name(&g, r.nodes[r.cycles[0].first]), "A");
    cycles_free(&r);
    graph_fini(&g);
}

/* One ring of 200,000 nodes: a recursive Tarjan would overflow the stack. */
static void test_big_ring(void **state)
{
    (void)state;
    enum { N = 200000 };
    tedge *es = malloc(N * sizeof *es);
    assert_non_null(es);
    for (uint32_t i = 0; i < N; i++)
        es[i] = (tedge){i, (i + 1) % N, EL};
    graph g;
    build(&g, N, es, N, NULL);
    free(es);
    cycles_result r;
    node_ix from = 5;
    run(&g, &from, 1, 10, CYCLES_DEFAULT_MAX_STEPS, &r);
    assert_int_equal(r.n_sccs, 1);
    assert_int_equal(r.sccs[0].size, N);
    assert_int_equal(r.n_found, 0); /* longer than max_length */
    assert_false(r.truncated);
    cycles_free(&r);
    graph_fini(&g);
}

/* A complete graph on 8 nodes has thousands of cycles; a tiny budget must say so. */
static void test_budget(void **state)
{
    (void)state;
    tedge es[56];
    uint32_t k = 0;
    for (uint32_t i = 0; i < 8; i++)
        for (uint32_t j = 0; j < 8; j++)
            if (i != j)
                es[k++] = (tedge){i, j, EL};
    graph g;
    build(&g, 8, es, k, NULL);
    cycles_result r;
    node_ix from = 0;
    run(&g, &from, 1, 10, 100, &r);
    assert_true(r.truncated);
    cycles_free(&r);
    run(&g, &from, 1, 8, CYCLES_DEFAULT_MAX_STEPS, &r);
    assert_false(r.truncated);
    /* elementary cycles of K8: sum over k=2..8 of C(8,k)(k-1)! = 16,064 */
    assert_int_equal(r.n_found, 16064);
    cycles_free(&r);
    graph_fini(&g);
}

/* 40 pairs whose members each hold 5 references out of their pair: the passes for the short
 * lengths run out of their share of the steps before the last pass, which records only the
 * longer ones, finishes. Every pair is a cycle: a result that misses some must say it stopped
 * (it read as complete, 58,686 of 80,000 pairs on a real dump). */
static void test_short_pass_budget(void **state)
{
    (void)state;
    enum { PAIRS = 40, OUT = 5, N = 2 * PAIRS + 2 };
    tedge es[2 * PAIRS * (OUT + 1) + 2 * PAIRS];
    uint32_t k = 0, sink = N - 1, root = N - 2;
    for (uint32_t i = 0; i < 2 * PAIRS; i++) {
        es[k++] = (tedge){i, i ^ 1, EL};
        for (uint32_t j = 0; j < OUT; j++)
            es[k++] = (tedge){i, sink, EL};
        es[k++] = (tedge){root, i, EL};
    }
    graph g;
    build(&g, N, es, k, NULL);
    cycles_result r;
    node_ix from = root;
    run(&g, &from, 1, 10, 2000, &r);
    assert_int_equal(r.n_sccs, PAIRS);
    assert_true(r.n_found == PAIRS || r.truncated);
    cycles_free(&r);
    run(&g, &from, 1, 10, CYCLES_DEFAULT_MAX_STEPS, &r);
    assert_int_equal(r.n_found, PAIRS);
    assert_false(r.truncated);
    cycles_free(&r);
    graph_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_components), cmocka_unit_test(test_elementary),
        cmocka_unit_test(test_canonical),  cmocka_unit_test(test_big_ring),
        cmocka_unit_test(test_budget),     cmocka_unit_test(test_short_pass_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
