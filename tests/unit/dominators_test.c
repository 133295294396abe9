/* SPDX-License-Identifier: Apache-2.0 */
/* dominators_test.c: unit tests of src/analysis/dominators.c on hand-built graphs with known
 * immediate dominators (the Lengauer-Tarjan paper's example, diamonds, cycles, unreachable
 * nodes, several roots, weak edges), retained sizes with native bytes, per-class retained
 * sizes without double counting, random graphs checked against a brute-force definition
 * (d dominates v iff v is unreachable once d is removed), and a 5 M-node chain that would
 * overflow any recursive implementation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "analysis/dominators.h"
#include "test_graph.h"

/* ---- graph builder ---- */


#define STRONG GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG)
#define WEAKREF GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_WEAK)
#define V8WEAK GRAPH_EDGE_MAKE(GRAPH_EDGE_WEAK, GRAPH_STRONG)

/* Builds n nodes (size 1 each unless sizes given, class 0) with edges in the given order
 * (grouped by source, order kept) and roots. */
static void build(graph *g, uint32_t n, const tedge *es, uint32_t ne, const uint32_t *roots,
                  uint32_t nr, const uint32_t *sizes)
{
    lr_error err = {0};
    graph_init(g);
    assert_int_equal(graph_alloc_nodes(g, n, 0, &err), LR_OK);
    for (uint32_t i = 0; i < n; i++) {
        g->node_id[i] = 0x1000 + 8 * (uint64_t)i;
        g->node_class[i] = 0;
        g->node_size[i] = sizes ? sizes[i] : 1;
        g->node_kind[i] = GRAPH_KIND_INSTANCE;
        g->node_type[i] = 0;
        g->node_off[i] = UINT64_MAX;
        g->node_len[i] = 0;
    }
    tg_edges(g, es, ne, 0);
    g->roots = calloc(nr ? nr : 1, sizeof *g->roots);
    assert_non_null(g->roots);
    g->n_roots = nr;
    for (uint32_t i = 0; i < nr; i++) {
        g->roots[i].node = roots[i];
        g->roots[i].kind = GRAPH_ROOT_JNI_GLOBAL;
        g->roots[i].frame = -1;
    }
}

static void dom(const graph *g, dom_tree *t)
{
    lr_error err = {0};
    assert_int_equal(dom_build(g, NULL, NULL, t, &err), LR_OK);
    assert_int_equal(t->n, g->n_nodes);
}

#define SUP DOM_SUPER_ROOT
#define NO GRAPH_NONE

/* ---- known trees ---- */

/* Lengauer & Tarjan 1979, figure 1: R=0, A..L = 1..12. */
static void test_lt_paper(void **state)
{
    (void)state;
    enum { R, A, B, C, D, E, F, G, H, I, J, K, L, N };
    const tedge es[] = {
        {R, A, STRONG}, {R, B, STRONG}, {R, C, STRONG}, {A, D, STRONG}, {B, A, STRONG},
        {B, D, STRONG}, {B, E, STRONG}, {C, F, STRONG}, {C, G, STRONG}, {D, L, STRONG},
        {E, H, STRONG}, {F, I, STRONG}, {G, I, STRONG}, {G, J, STRONG}, {H, E, STRONG},
        {H, K, STRONG}, {I, K, STRONG}, {J, I, STRONG}, {K, I, STRONG}, {K, R, STRONG},
        {L, H, STRONG},
    };
    const uint32_t roots[] = {R};
    const uint32_t want[N] = {SUP, R, R, R, R, R, C, C, R, R, G, R, D};
    graph g;
    dom_tree t;
    build(&g, N, es, sizeof es / sizeof *es, roots, 1, NULL);
    dom(&g, &t);
    for (uint32_t v = 0; v < N; v++)
        assert_int_equal(t.idom[v], want[v]);
    assert_int_equal(t.n_reachable, N);
    assert_int_equal(t.retained[R], N);
    assert_int_equal(t.retained[C], 4); /* C, F, G, J */
    dom_free(&t);
    graph_fini(&g);
}

static void test_diamond_cycle_unreachable(void **state)
{
    (void)state;
    /* 0 root; 0->1, 1->2, 1->3, 2->4, 3->4 (diamond: idom 4 = 1);
     * 4->5->6->4 (cycle: idom 5 = 4, 6 = 5); 7 and 8 unreachable (8->7). */
    const tedge es[] = {{0, 1, STRONG}, {1, 2, STRONG}, {1, 3, STRONG}, {2, 4, STRONG},
                        {3, 4, STRONG}, {4, 5, STRONG}, {5, 6, STRONG}, {6, 4, STRONG},
                        {8, 7, STRONG}};
    const uint32_t roots[] = {0};
    const uint32_t sizes[] = {10, 20, 30, 40, 50, 60, 70, 80, 90};
    graph g;
    dom_tree t;
    build(&g, 9, es, sizeof es / sizeof *es, roots, 1, sizes);
    dom(&g, &t);
    const uint32_t want[] = {SUP, 0, 1, 1, 1, 4, 5, NO, NO};
    for (uint32_t v = 0; v < 9; v++)
        assert_int_equal(t.idom[v], want[v]);
    assert_int_equal(t.retained[6], 70);
    assert_int_equal(t.retained[5], 130);
    assert_int_equal(t.retained[4], 50 + 130);
    assert_int_equal(t.retained[2], 30);
    assert_int_equal(t.retained[1], 20 + 30 + 40 + 180);
    assert_int_equal(t.retained[0], 10 + 270);
    assert_int_equal(t.retained[7], 0);
    assert_int_equal(t.retained[8], 0);
    assert_int_equal(t.n_reachable, 7);
    assert_int_equal(t.total_reachable, 280);
    dom_free(&t);
    graph_fini(&g);
}

static void test_multiple_roots(void **state)
{
    (void)state;
    /* Roots 0 and 1 both reach 2; 0 also reaches root 1 (a root is never dominated by
     * another root); 3 hangs under 2; root entry 0 repeated; a root index out of range. */
    const tedge es[] = {{0, 2, STRONG}, {0, 1, STRONG}, {1, 2, STRONG}, {2, 3, STRONG}};
    const uint32_t roots[] = {0, 1, 0, 99};
    graph g;
    dom_tree t;
    build(&g, 4, es, sizeof es / sizeof *es, roots, 4, NULL);
    dom(&g, &t);
    assert_int_equal(t.idom[0], SUP);
    assert_int_equal(t.idom[1], SUP);
    assert_int_equal(t.idom[2], SUP);
    assert_int_equal(t.idom[3], 2);
    assert_int_equal(t.retained[0], 1);
    assert_int_equal(t.retained[2], 2);
    dom_free(&t);
    graph_fini(&g);
}

static void test_synthetic_root(void **state)
{
    (void)state;
    const tedge es[] = {{0, 1, STRONG}, {0, 2, STRONG}, {1, 3, STRONG}, {2, 3, STRONG}};
    graph g;
    dom_tree t;
    build(&g, 4, es, sizeof es / sizeof *es, NULL, 0, NULL);
    g.synthetic_root = 0;
    dom(&g, &t);
    assert_int_equal(t.idom[0], SUP);
    assert_int_equal(t.idom[1], 0);
    assert_int_equal(t.idom[3], 0);
    assert_int_equal(t.retained[0], 4);
    dom_free(&t);
    graph_fini(&g);
}

static void test_weak_edges_skipped(void **state)
{
    (void)state;
    /* 0->1, 0->2; 1 -weakref-> 3 and 2->3: idom 3 = 2. 1 -V8 weak-> 4 only: unreachable.
     * 2 -soft-> 5, 2 -phantom-> 5, 2 -finalizer-> 5: unreachable. */
    const tedge es[] = {
        {0, 1, STRONG}, {0, 2, STRONG}, {1, 3, WEAKREF}, {1, 4, V8WEAK}, {2, 3, STRONG},
        {2, 5, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_SOFT)},
        {2, 5, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_PHANTOM)},
        {2, 5, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_FINALIZER)},
    };
    const uint32_t roots[] = {0};
    graph g;
    dom_tree t;
    build(&g, 6, es, sizeof es / sizeof *es, roots, 1, NULL);
    dom(&g, &t);
    assert_int_equal(t.idom[3], 2);
    assert_int_equal(t.idom[4], NO);
    assert_int_equal(t.idom[5], NO);
    assert_int_equal(t.retained[1], 1);
    assert_int_equal(t.retained[2], 2);
    dom_free(&t);
    graph_fini(&g);
}

/* A filter following everything, weak edges included. */
static int follow_all(const graph *g, edge_ix e, void *ctx)
{
    (void)g;
    (void)e;
    (*(int *)ctx)++;
    return 1;
}

static void test_filter(void **state)
{
    (void)state;
    const tedge es[] = {{0, 1, STRONG}, {0, 2, STRONG}, {1, 3, WEAKREF}, {2, 3, STRONG},
                        {1, 4, V8WEAK}};
    const uint32_t roots[] = {0};
    graph g;
    dom_tree t;
    lr_error err = {0};
    int calls = 0;
    build(&g, 5, es, sizeof es / sizeof *es, roots, 1, NULL);
    assert_int_equal(dom_build(&g, follow_all, &calls, &t, &err), LR_OK);
    assert_true(calls > 0);
    assert_int_equal(t.idom[3], 0);
    assert_int_equal(t.idom[4], 1);
    assert_int_equal(t.retained[1], 2);
    dom_free(&t);
    graph_fini(&g);
}

static void test_native_sizes(void **state)
{
    (void)state;
    const tedge es[] = {{0, 1, STRONG}, {1, 2, STRONG}};
    const uint32_t roots[] = {0};
    graph g;
    dom_tree t;
    build(&g, 3, es, 2, roots, 1, NULL);
    g.node_native = calloc(3, sizeof *g.node_native);
    assert_non_null(g.node_native);
    g.node_native[2] = 1000000;
    g.node_size[1] = UINT32_MAX; /* sums must not wrap at 32 bits */
    dom(&g, &t);
    assert_int_equal(t.retained[2], 1000001);
    assert_true(t.retained[1] == (uint64_t)UINT32_MAX + 1000001);
    assert_true(t.total_reachable == (uint64_t)UINT32_MAX + 1000002);
    dom_free(&t);
    graph_fini(&g);
}

static void test_empty_and_no_roots(void **state)
{
    (void)state;
    graph g;
    dom_tree t;
    build(&g, 0, NULL, 0, NULL, 0, NULL);
    dom(&g, &t);
    assert_int_equal(t.n_reachable, 0);
    dom_free(&t);
    graph_fini(&g);
    const tedge es[] = {{0, 1, STRONG}};
    build(&g, 2, es, 1, NULL, 0, NULL);
    dom(&g, &t);
    assert_int_equal(t.idom[0], NO);
    assert_int_equal(t.idom[1], NO);
    assert_int_equal(t.retained[0], 0);
    dom_free(&t);
    graph_fini(&g);
}

/* Dense: a complete digraph on K nodes under one root: every node's idom is the entry. */
static void test_dense_cycles(void **state)
{
    (void)state;
    enum { K = 300 };
    tedge *es = malloc(sizeof *es * (K * K + 1));
    assert_non_null(es);
    uint32_t ne = 0;
    es[ne++] = (tedge){0, 1, STRONG};
    for (uint32_t a = 1; a <= K; a++)
        for (uint32_t b = 1; b <= K; b++)
            if (a != b)
                es[ne++] = (tedge){a, b, STRONG};
    const uint32_t roots[] = {0};
    graph g;
    dom_tree t;
    build(&g, K + 1, es, ne, roots, 1, NULL);
    dom(&g, &t);
    for (uint32_t v = 2; v <= K; v++)
        assert_int_equal(t.idom[v], 1);
    assert_int_equal(t.retained[1], K);
    dom_free(&t);
    graph_fini(&g);
    free(es);
}

/* ---- brute force on random graphs ---- */

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

/* Reachability from the roots over strong edges, skipping node `cut`. */
static void reach(const graph *g, uint32_t cut, uint8_t *seen, uint32_t *stk)
{
    uint32_t sp = 0;
    memset(seen, 0, g->n_nodes);
    for (uint32_t i = 0; i < g->n_roots; i++) {
        uint32_t r = g->roots[i].node;
        if (r != cut && !seen[r]) {
            seen[r] = 1;
            stk[sp++] = r;
        }
    }
    while (sp) {
        uint32_t x = stk[--sp];
        for (uint32_t e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            uint32_t y = g->edge_to[e];
            if (y != cut && !seen[y] && GRAPH_EDGE_STRENGTH(g->edge_kind[e]) == GRAPH_STRONG) {
                seen[y] = 1;
                stk[sp++] = y;
            }
        }
    }
}

static void test_random_vs_brute_force(void **state)
{
    (void)state;
    enum { NG = 300, MAXN = 40 };
    uint8_t base[MAXN], seen[MAXN], domby[MAXN][MAXN];
    uint32_t stk[MAXN * MAXN];
    tedge es[MAXN * 4];
    for (int round = 0; round < NG; round++) {
        uint32_t n = 2 + rnd() % (MAXN - 1), ne = rnd() % (n * 3), nr = 1 + rnd() % 3;
        for (uint32_t i = 0; i < ne; i++)
            es[i] = (tedge){rnd() % n, rnd() % n, rnd() % 8 ? STRONG : WEAKREF};
        uint32_t roots[3] = {rnd() % n, rnd() % n, rnd() % n};
        graph g;
        dom_tree t;
        build(&g, n, es, ne, roots, nr, NULL);
        dom(&g, &t);
        reach(&g, UINT32_MAX, base, stk);
        for (uint32_t d = 0; d < n; d++) {
            reach(&g, d, seen, stk);
            for (uint32_t v = 0; v < n; v++)
                domby[v][d] = base[v] && (v == d || !seen[v]);
        }
        for (uint32_t v = 0; v < n; v++) {
            if (!base[v]) {
                assert_int_equal(t.idom[v], NO);
                continue;
            }
            /* The idom chain of v must list exactly the dominators found by brute force. */
            uint8_t chain[MAXN] = {0};
            chain[v] = 1;
            uint32_t k = 1;
            for (uint32_t d = t.idom[v]; d != SUP; d = t.idom[d]) {
                assert_true(d < n);
                chain[d] = 1;
                assert_true(++k <= n);
            }
            for (uint32_t d = 0; d < n; d++)
                assert_int_equal(chain[d], domby[v][d]);
        }
        /* Retained = number of nodes dominated (size 1 each). */
        for (uint32_t d = 0; d < n; d++) {
            uint64_t c = 0;
            for (uint32_t v = 0; v < n; v++)
                c += domby[v][d];
            assert_int_equal(t.retained[d], c);
        }
        dom_free(&t);
        graph_fini(&g);
    }
}

/* ---- per-class retained ---- */

static void test_class_retained(void **state)
{
    (void)state;
    /* Classes: A=0, B=1. 0(A)->1(A)->2(B)->3(A); 0->4(B); root 5(B) -> 6(A) (shared
     * with 3? no) ; only counted when no dominator ancestor has the same class. */
    const tedge es[] = {{0, 1, STRONG}, {1, 2, STRONG}, {2, 3, STRONG}, {0, 4, STRONG},
                        {5, 6, STRONG}};
    const uint32_t roots[] = {0, 5};
    const uint32_t sizes[] = {1, 2, 4, 8, 16, 32, 64};
    graph g;
    dom_tree t;
    lr_error err = {0};
    build(&g, 7, es, sizeof es / sizeof *es, roots, 2, sizes);
    g.classes = calloc(2, sizeof *g.classes);
    assert_non_null(g.classes);
    g.n_classes = 2;
    const uint32_t cls[] = {0, 0, 1, 0, 1, 1, 0};
    for (uint32_t i = 0; i < 7; i++)
        g.node_class[i] = cls[i];
    dom(&g, &t);
    uint64_t ret[2];
    uint32_t cnt[2];
    assert_int_equal(dom_class_retained(&g, &t, ret, cnt, &err), LR_OK);
    /* A: node 0 (retains 0..4 = 31) + node 6 (64); nodes 1, 3 are under node 0. */
    assert_int_equal(ret[0], 31 + 64);
    assert_int_equal(cnt[0], 4);
    /* B: node 2 (4+8) + node 4 (16) + node 5 (32+64). */
    assert_int_equal(ret[1], 12 + 16 + 96);
    assert_int_equal(cnt[1], 3);
    dom_free(&t);
    graph_fini(&g);
}

/* ---- VisualVM conventions (dom_opts_visualvm) ---- */

static void test_visualvm_model(void **state)
{
    (void)state;
    /* 0 root -> 1 -> 2; 0 -> 3 -weakref-> 2: strong model idom(2) = 1, VisualVM 0.
     * 4 unreachable -> 8 (8 under 1 too): VisualVM gives 8 to the super-root.
     * Class 5 (root) -static-> 6, a leaf with one referrer: the class is a tree object and
     * weighs its own size. Class 7 (root) -static-> 9, also referenced by 4: not a tree
     * object, so its own size never counts. */
    const tedge es[] = {
        {0, 1, STRONG}, {0, 3, STRONG}, {1, 2, STRONG}, {1, 8, STRONG}, {3, 2, WEAKREF},
        {4, 8, STRONG}, {5, 6, GRAPH_EDGE_MAKE(GRAPH_EDGE_STATIC, GRAPH_STRONG)},
        {7, 9, GRAPH_EDGE_MAKE(GRAPH_EDGE_STATIC, GRAPH_STRONG)}, {4, 9, STRONG},
    };
    const uint32_t roots[] = {0, 5, 7};
    const uint32_t sizes[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
    graph g;
    dom_tree t;
    lr_error err = {0};
    build(&g, 10, es, sizeof es / sizeof *es, roots, 3, sizes);
    g.node_kind[5] = GRAPH_KIND_CLASS;
    g.node_kind[7] = GRAPH_KIND_CLASS;
    dom(&g, &t);
    assert_int_equal(t.idom[2], 1);
    assert_int_equal(t.idom[8], 1);
    assert_int_equal(t.retained[1], 2 + 4 + 256);
    assert_int_equal(t.retained[7], 128 + 512);
    dom_free(&t);
    dom_opts o;
    dom_opts_visualvm(&o);
    assert_int_equal(dom_build_ex(&g, &o, &t, &err), LR_OK);
    assert_int_equal(t.idom[2], 0);
    assert_int_equal(t.idom[8], SUP);
    assert_int_equal(t.idom[4], NO); /* unreachable, though it takes dominance away */
    assert_int_equal(t.retained[4], 0);
    assert_int_equal(t.retained[1], 2);
    assert_int_equal(t.retained[0], 1 + 2 + 4 + 8);
    assert_int_equal(t.retained[5], 32 + 64);
    assert_int_equal(t.idom[9], SUP);
    assert_int_equal(t.retained[7], 0);
    assert_int_equal(t.n_reachable, 9);
    dom_free(&t);
    graph_fini(&g);
}

/* ---- scale: a 5,000,000-node chain (deep DFS, deep dominator tree) ---- */

static void test_long_chain(void **state)
{
    (void)state;
    enum { N = 5000000 };
    graph g;
    lr_error err = {0};
    graph_init(&g);
    assert_int_equal(graph_alloc_nodes(&g, N, 0, &err), LR_OK);
    assert_int_equal(graph_alloc_edges(&g, N - 1, &err), LR_OK);
    for (uint32_t i = 0; i < N; i++) {
        g.node_class[i] = GRAPH_NONE;
        g.node_size[i] = 2;
        g.first_edge[i] = i;
        if (i + 1 < N) {
            g.edge_to[i] = i + 1;
            g.edge_kind[i] = STRONG;
        }
    }
    g.first_edge[N] = N - 1;
    g.roots = calloc(1, sizeof *g.roots);
    assert_non_null(g.roots);
    g.n_roots = 1;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    dom_tree t;
    dom(&g, &t);
    clock_gettime(CLOCK_MONOTONIC, &b);
    print_message("5M-node chain: dominators in %.0f ms\n",
                  (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
    assert_int_equal(t.n_reachable, N);
    assert_int_equal(t.idom[0], SUP);
    assert_int_equal(t.idom[N - 1], N - 2);
    assert_int_equal(t.idom[N / 2], N / 2 - 1);
    assert_true(t.retained[0] == 2ull * N);
    assert_true(t.retained[N - 1] == 2);
    uint64_t ret[1];
    uint32_t cnt[1];
    g.n_classes = 0;
    assert_int_equal(dom_class_retained(&g, &t, ret, cnt, &err), LR_OK);
    dom_free(&t);
    graph_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lt_paper),
        cmocka_unit_test(test_diamond_cycle_unreachable),
        cmocka_unit_test(test_multiple_roots),
        cmocka_unit_test(test_synthetic_root),
        cmocka_unit_test(test_weak_edges_skipped),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_native_sizes),
        cmocka_unit_test(test_empty_and_no_roots),
        cmocka_unit_test(test_dense_cycles),
        cmocka_unit_test(test_random_vs_brute_force),
        cmocka_unit_test(test_class_retained),
        cmocka_unit_test(test_visualvm_model),
        cmocka_unit_test(test_long_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
