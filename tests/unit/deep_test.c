/* SPDX-License-Identifier: Apache-2.0 */
/* deep_test.c: the graph analyses on a 5-million-object doubly linked list whose last node
 * points back at the first: a chain 5 M deep that is also one dense strongly connected
 * component (every neighbour pair is a 2-cycle). Shortest paths (paths.c) must find the
 * 5 M-node path to the tail (also when an edge source lists every step as a virtual
 * entry), the dominator tree (dominators.c) must make each node the
 * immediate dominator of the next, and the components (cycles.c) must find one component
 * of 5 M nodes, and a scoped cycle search must stop at its budget -- all without recursion,
 * on the default 8 MiB stack, under ASan too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/cycles.h"
#include "analysis/dominators.h"
#include "analysis/paths.h"

enum { N = 5000000 };

#define STRONG GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG)

static graph G;

/* Node i: edges to i+1 (field "next") and i-1 (field "prev"); node N-1 to 0 ("next"). */
static int setup(void **state)
{
    (void)state;
    lr_error err = {0};
    graph_init(&G);
    if (graph_alloc_nodes(&G, N, 0, &err) != LR_OK)
        return -1;
    G.classes = calloc(1, sizeof *G.classes);
    if (!G.classes)
        return -1;
    G.n_classes = 1;
    str_ix next, prev;
    if (graph_intern(&G, "Node", 4, &G.classes[0].name, &err) != LR_OK ||
        graph_intern(&G, "next", 4, &next, &err) != LR_OK ||
        graph_intern(&G, "prev", 4, &prev, &err) != LR_OK)
        return -1;
    G.classes[0].node = GRAPH_NONE;
    G.classes[0].super = GRAPH_NONE;
    if (graph_alloc_edges(&G, 2 * N - 1, &err) != LR_OK)
        return -1;
    edge_ix e = 0;
    for (uint32_t i = 0; i < N; i++) {
        G.node_id[i] = 0x1000 + 16ull * i;
        G.node_class[i] = 0;
        G.node_size[i] = 16;
        G.node_kind[i] = GRAPH_KIND_INSTANCE;
        G.node_type[i] = 0;
        G.node_off[i] = UINT64_MAX;
        G.node_len[i] = 0;
        G.first_edge[i] = e;
        G.edge_to[e] = i + 1 < N ? i + 1 : 0;
        G.edge_name[e] = next;
        G.edge_kind[e++] = STRONG;
        if (i > 0) {
            G.edge_to[e] = i - 1;
            G.edge_name[e] = prev;
            G.edge_kind[e++] = STRONG;
        }
    }
    G.first_edge[N] = e;
    G.roots = calloc(1, sizeof *G.roots);
    if (!G.roots)
        return -1;
    G.roots[0] = (graph_root){.node = 0, .kind = GRAPH_ROOT_JNI_GLOBAL, .frame = -1};
    G.n_roots = 1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    graph_fini(&G);
    return 0;
}

static void test_paths(void **state)
{
    (void)state;
    paths_result r;
    lr_error err = {0};
    node_ix tail = N - 1;
    assert_int_equal(paths_find(&G, NULL, &tail, 1, &r, &err), LR_OK);
    assert_int_equal(paths_depth(&r, tail), N - 1);
    assert_int_equal(paths_depth(&r, N / 2), N / 2);
    assert_int_equal(paths_parent(&r, tail), N - 2);
    assert_int_equal(paths_root_of(&r, tail), 0);
    node_ix *nodes = malloc((size_t)N * sizeof *nodes);
    edge_ix *edges = malloc((size_t)N * sizeof *edges);
    assert_non_null(nodes);
    assert_non_null(edges);
    assert_int_equal(paths_get(&r, tail, nodes, edges, N), N);
    assert_int_equal(nodes[0], 0);
    assert_int_equal(nodes[N - 1], tail);
    for (uint32_t i = 0; i + 1 < N; i += 999983)
        assert_int_equal(G.edge_to[edges[i]], nodes[i + 1]);
    free(nodes);
    free(edges);
    paths_free(&r);
}

/* An edge source listing node i as "next" (a virtual entry) then its real edges in CSR
 * order: the 5 M-deep path goes through virtual entries all the way. */
typedef struct chain_src {
    node_ix to[3];
    uint8_t kind[3];
    edge_ix real[3];
    uint32_t calls;
} chain_src;

static int chain_edges(void *ctx, node_ix x, paths_list *out)
{
    chain_src *c = ctx;
    uint32_t n = 0;
    c->calls++;
    if (x + 1 < N) {
        c->to[n] = x + 1;
        c->kind[n] = STRONG;
        c->real[n++] = GRAPH_NONE;
    }
    for (edge_ix e = G.first_edge[x]; e < G.first_edge[x + 1]; e++) {
        c->to[n] = G.edge_to[e];
        c->kind[n] = G.edge_kind[e];
        c->real[n++] = e;
    }
    *out = (paths_list){n, c->to, c->kind, c->real};
    return 0;
}

static void test_paths_source(void **state)
{
    (void)state;
    chain_src c = {0};
    paths_source src = {chain_edges, &c};
    paths_policy pol = {NULL, NULL, NULL, &src, 0, 0};
    paths_result r;
    lr_error err = {0};
    node_ix tail = N - 1;
    int all = 0;
    assert_int_equal(paths_find_targets(&G, &pol, &tail, 1, &r, &all, &err), LR_OK);
    assert_true(all);
    assert_int_equal(paths_depth(&r, tail), N - 1);
    assert_int_equal(paths_edge(&r, tail), PATHS_VIRTUAL | 0);
    assert_int_equal(paths_root_of(&r, tail), 0);
    /* the tail is a leaf and the search stopped there: it was never listed */
    assert_int_equal(c.calls, N - 1);
    edge_ix *edges = malloc((size_t)N * sizeof *edges);
    assert_non_null(edges);
    assert_int_equal(paths_get(&r, tail, NULL, edges, N), N);
    for (uint32_t i = 0; i + 1 < N; i += 999983)
        assert_int_equal(edges[i], PATHS_VIRTUAL | 0);
    free(edges);
    paths_free(&r);
}

static void test_dominators(void **state)
{
    (void)state;
    dom_tree t;
    lr_error err = {0};
    assert_int_equal(dom_build(&G, NULL, NULL, &t, &err), LR_OK);
    assert_int_equal(t.n_reachable, N);
    assert_int_equal(t.idom[1], 0);
    assert_int_equal(t.idom[N - 1], N - 2);
    assert_int_equal(t.idom[N / 2], N / 2 - 1);
    assert_true(t.retained[0] == 16ull * N);
    assert_true(t.retained[N - 1] == 16);
    assert_true(t.retained[N / 2] == 16ull * (N - N / 2));
    uint64_t ret[1];
    uint32_t cnt[1];
    assert_int_equal(dom_class_retained(&G, &t, ret, cnt, &err), LR_OK);
    assert_true(ret[0] == 16ull * N); /* only the head counts: the rest are below it */
    dom_free(&t);
}

static void test_components(void **state)
{
    (void)state;
    cycles_result r;
    lr_error err = {0};
    cycles_opts o = {NULL, 0, 10, CYCLES_DEFAULT_MAX_CYCLES, CYCLES_DEFAULT_MAX_STEPS};
    assert_int_equal(cycles_find(&G, NULL, &o, &r, &err), LR_OK);
    assert_int_equal(r.n_sccs, 1);
    assert_true(r.scc_nodes == N);
    assert_int_equal(r.sccs[0].size, N);
    assert_int_equal(r.sccs[0].example, 0);
    cycles_free(&r);

    /* Scoped: the 2-cycles are found; the budget bounds the work on a 5 M component. */
    node_ix from = N / 2;
    cycles_opts s = {&from, 1, 10, 1000, 2000000};
    assert_int_equal(cycles_find(&G, NULL, &s, &r, &err), LR_OK);
    assert_true(r.n_scope == N);
    assert_true(r.n_found >= 1);
    assert_true(r.n_cycles >= 1);
    assert_int_equal(r.cycles[0].length, 2);
    assert_true(r.truncated);
    cycles_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_paths_source),
        cmocka_unit_test(test_dominators),
        cmocka_unit_test(test_components),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
