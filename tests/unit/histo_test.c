/* SPDX-License-Identifier: Apache-2.0 */
/* histo_test.c: the retained column of the class histogram (src/analysis/histo.c) on a
 * hand-made heap: the tree it sums keeps retained sizes in 32 bits (4 bytes per node, as
 * analyze's and top's), and the rows summed per class (no heap filter) or per node (a heap
 * filter) are those of the per-node sums over a 64-bit tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/histo.h"
#include "test_graph.h"

#define STRONG GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG)

/*  roots: 0, 5              sizes: 0:10 1:5 2:7 3:5 4:20 5:15 6:3
 *      0                    classes: A = {0, 3}, B = {1, 2, 4}, C = {5, 6}
 *     / \                   4 is unreachable; 3 sits under 0 (same class: not counted again)
 *    1   2                  and 6 under 5 (same); heap 1 holds 2, 3 and 6, heap 0 the rest.
 *     \ /
 *      3     5 -> 6                                                                    */
static void make(graph *g)
{
    static const char *const names[7] = {"A", "B", "C", "x", "x", "x", "x"};
    static const class_ix cls[7] = {0, 1, 1, 0, 1, 2, 2};
    static const uint32_t size[7] = {10, 5, 7, 5, 20, 15, 3};
    static const uint8_t heap[7] = {0, 0, 1, 1, 0, 0, 1};
    static const tedge es[] = {{0, 1, STRONG}, {0, 2, STRONG}, {1, 3, STRONG}, {2, 3, STRONG},
                               {5, 6, STRONG}};
    tg_nodes(g, 7, names, 1);
    g->n_classes = 3;
    g->node_heap = calloc(7, 1);
    assert_non_null(g->node_heap);
    for (uint32_t i = 0; i < 7; i++) {
        g->node_class[i] = cls[i];
        g->node_size[i] = size[i];
        g->node_heap[i] = heap[i];
    }
    tg_edges(g, es, sizeof es / sizeof *es, 0);
    static const node_ix roots[2] = {0, 5};
    g->roots = calloc(2, sizeof *g->roots);
    assert_non_null(g->roots);
    g->n_roots = 2;
    for (uint32_t i = 0; i < 2; i++) {
        g->roots[i].node = roots[i];
        g->roots[i].kind = GRAPH_ROOT_JNI_GLOBAL;
        g->roots[i].frame = -1;
    }
}

static void tree_is_narrow(void **state)
{
    (void)state;
    graph g;
    make(&g);
    lr_error err = {0};
    dom_tree t;
    assert_int_equal(histo_tree_build(&g, &t, &err), LR_OK);
    /* every size fits 32 bits: 4 bytes per node, not 8 */
    assert_null(t.retained);
    assert_non_null(t.retained32);
    assert_int_equal(t.retained32[0], 10 + 5 + 7 + 5);
    assert_int_equal(t.retained32[5], 15 + 3);
    assert_int_equal(t.total_reachable, 45);
    dom_free(&t);
    graph_fini(&g);
}

/* The rows of histo_build_retained equal histo_build's over dom_class_top's per-node sums
 * of a 64-bit tree, with and without a heap filter. */
static void check_rows(int heap)
{
    graph g;
    make(&g);
    lr_error err = {0};
    dom_opts o = {0};
    dom_tree t;
    assert_int_equal(dom_build_ex(&g, &o, &t, &err), LR_OK);
    assert_non_null(t.retained);
    uint64_t per_node[7];
    assert_int_equal(dom_class_top(&g, &t, per_node, &err), LR_OK);
    histo_result want, got;
    assert_int_equal(histo_build(&g, per_node, heap, HISTO_BY_RETAINED, NULL, NULL, &want, &err),
                     LR_OK);
    want.heap_bytes = t.total_reachable;
    dom_free(&t);
    assert_int_equal(histo_build_retained(&g, heap, HISTO_BY_RETAINED, NULL, NULL, &got, &err),
                     LR_OK);
    assert_true(got.has_retained);
    assert_int_equal(got.heap_bytes, want.heap_bytes);
    assert_int_equal(got.n_rows, want.n_rows);
    for (uint32_t i = 0; i < got.n_rows; i++) {
        assert_string_equal(got.rows[i].name, want.rows[i].name);
        assert_int_equal(got.rows[i].count, want.rows[i].count);
        assert_int_equal(got.rows[i].shallow, want.rows[i].shallow);
        assert_int_equal(got.rows[i].retained, want.rows[i].retained);
    }
    assert_int_equal(got.total.retained, want.total.retained);
    if (heap < 0) { /* A: 0's 27 (3 not again); B: 1's 5 + 2's 7 (4 unreached); C: 5's 18 */
        assert_int_equal(got.rows[0].retained, 27);
        assert_int_equal(got.rows[1].retained, 18);
        assert_int_equal(got.rows[2].retained, 12);
    }
    histo_free(&want);
    histo_free(&got);
    graph_fini(&g);
}

static void rows_all(void **state)
{
    (void)state;
    check_rows(-1);
}

static void rows_heap(void **state)
{
    (void)state;
    check_rows(0);
    check_rows(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tree_is_narrow),
        cmocka_unit_test(rows_all),
        cmocka_unit_test(rows_heap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
