/* SPDX-License-Identifier: Apache-2.0 */
/* top_test.c: the rows of `top` and the object of `show` as data (src/analysis/top.c,
 * src/analysis/show.c) on a hand-made heap: objects ranked by retained size with ties broken
 * by id (not by load order), unreachable objects left out, the row limit, the class filter,
 * class rows counted without double counting, the class an object describes, allocation
 * sites from the caller's hook; and for show the roots, the dominator in each case, and the
 * edge and referrer lists cut at the limit with their totals kept. Ties among many objects:
 * the same rows as a full sort whatever the id index (in node order, a rank index out of node
 * order, a directory), with ids read back only for the rows themselves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/show.h"
#include "analysis/top.h"
#include "test_graph.h"

#define STRONG GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG)

/*  roots: 0, 5, 6          sizes: 0:10 1:5 2:5 3:5 4:20 5:15 6:15
 *      0                   classes: A = {0, 3}, B = {1, 2, 4}, C = {5, 6}
 *     / \                  4 is unreachable; node 2 is B's class object.
 *    1   2                 ids fall as indexes rise, so id order is not load order.
 *     \ /
 *      3                                                                       */
static void make(graph *g)
{
    static const char *const names[7] = {"A", "B", "C", "x", "x", "x", "x"};
    static const class_ix cls[7] = {0, 1, 1, 0, 1, 2, 2};
    static const uint32_t size[7] = {10, 5, 5, 5, 20, 15, 15};
    static const tedge es[] = {{0, 1, STRONG}, {0, 2, STRONG}, {1, 3, STRONG}, {2, 3, STRONG}};
    tg_nodes(g, 7, names, 1);
    g->n_classes = 3;
    for (uint32_t i = 0; i < 7; i++) {
        g->node_class[i] = cls[i];
        g->node_size[i] = size[i];
        g->node_id[i] = 0x200 - 8 * (uint64_t)i;
    }
    g->classes[1].node = 2;
    tg_edges(g, es, sizeof es / sizeof *es, 0);
    static const node_ix roots[3] = {0, 5, 6};
    g->roots = calloc(3, sizeof *g->roots);
    assert_non_null(g->roots);
    g->n_roots = 3;
    for (uint32_t i = 0; i < 3; i++) {
        g->roots[i].node = roots[i];
        g->roots[i].kind = GRAPH_ROOT_JNI_GLOBAL;
        g->roots[i].frame = -1;
    }
}

static int site_of(const graph *g, node_ix n, top_site *out)
{
    (void)g;
    if (n != 0)
        return 0;
    *out = (top_site){0, 42, 0};
    return 1;
}

static void objects(void **state)
{
    (void)state;
    graph g;
    make(&g);
    lr_error err = {0};
    dom_tree t;
    assert_int_equal(top_tree_build(&g, 0, 1, &t, &err), LR_OK);
    /* every size fits 32 bits: 4 bytes per node, as analyze's tree */
    assert_null(t.retained);
    assert_non_null(t.retained32);
    top_opts o = {.site_of = site_of};
    top_result r;
    assert_int_equal(top_build(&g, &t, TOP_MODEL_STRONG, &o, &r, &err), LR_OK);
    /* 0 retains 25; 5 and 6 tie at 15 and 6 has the smaller id; 1, 2, 3 tie at 5 */
    static const node_ix want[6] = {0, 6, 5, 3, 2, 1};
    static const uint64_t ret[6] = {25, 15, 15, 5, 5, 5};
    assert_int_equal(r.n, 6); /* 4 is unreachable */
    assert_int_equal(r.reachable_objects, 6);
    assert_int_equal(r.reachable_bytes, 55);
    for (uint32_t i = 0; i < r.n; i++) {
        top_row row;
        top_row_get(&r, i, &row);
        assert_int_equal(row.node, want[i]);
        assert_int_equal(row.retained, ret[i]);
        assert_int_equal(row.shallow, g.node_size[want[i]]);
        assert_int_equal(row.has_site, want[i] == 0);
        if (want[i] == 2)
            assert_string_equal(row.describes, "B");
        else
            assert_null(row.describes);
    }
    top_row row;
    top_row_get(&r, 0, &row);
    assert_int_equal(row.site.line, 42);
    assert_string_equal(row.name, "A");
    top_free(&r);

    /* a limit keeps the best rows; a class filter keeps class A's objects only */
    o.limit = 2;
    assert_int_equal(top_build(&g, &t, TOP_MODEL_STRONG, &o, &r, &err), LR_OK);
    assert_int_equal(r.n, 2);
    top_row_get(&r, 1, &row);
    assert_int_equal(row.node, 6);
    top_free(&r);
    static const uint8_t keep_a[3] = {1, 0, 0};
    o.limit = 0;
    o.keep = keep_a;
    assert_int_equal(top_build(&g, &t, TOP_MODEL_STRONG, &o, &r, &err), LR_OK);
    assert_int_equal(r.n, 2);
    top_row_get(&r, 0, &row);
    assert_int_equal(row.node, 0);
    top_row_get(&r, 1, &row);
    assert_int_equal(row.node, 3);
    top_free(&r);
    dom_free(&t);
    graph_fini(&g);
}

static void classes(void **state)
{
    (void)state;
    graph g;
    make(&g);
    lr_error err = {0};
    dom_tree t;
    assert_int_equal(top_tree_build(&g, 0, 1, &t, &err), LR_OK);
    top_opts o = {.by_class = 1};
    top_result r;
    assert_int_equal(top_build(&g, &t, TOP_MODEL_STRONG, &o, &r, &err), LR_OK);
    /* C: 5 + 6; A: 0 only (3 lies under 0, an A: counted once); B: 1 + 2 (4 unreachable) */
    static const char *const name[3] = {"C", "A", "B"};
    static const uint64_t ret[3] = {30, 25, 10}, shallow[3] = {30, 15, 10};
    assert_int_equal(r.n, 3);
    for (uint32_t i = 0; i < 3; i++) {
        top_row row;
        top_row_get(&r, i, &row);
        assert_string_equal(row.name, name[i]);
        assert_int_equal(row.retained, ret[i]);
        assert_int_equal(row.shallow, shallow[i]);
        assert_int_equal(row.count, 2);
        assert_int_equal(row.node, GRAPH_NONE);
    }
    top_free(&r);
    dom_free(&t);
    graph_fini(&g);
}

static void show(void **state)
{
    (void)state;
    graph g;
    make(&g);
    g.id_size = 0; /* no field bytes: edges are listed */
    lr_error err = {0};
    dom_tree t;
    assert_int_equal(top_tree_build(&g, 0, 1, &t, &err), LR_OK);
    /* show reads 64-bit sizes; top's tree keeps them in 32 bits when they fit */
    assert_null(t.retained);
    assert_non_null(t.retained = malloc(t.n * sizeof *t.retained));
    for (uint32_t i = 0; i < t.n; i++)
        t.retained[i] = t.retained32[i];
    ret_model rt = {"strong", g.n_nodes, t.idom, DOM_SUPER_ROOT, t.retained, t.total_reachable,
                    NULL, GRAPH_NONE};
    show_opts o = {.limit = 1, .rt = &rt};
    show_result *r = malloc(sizeof *r);
    assert_non_null(r);

    assert_int_equal(show_build(&g, 3, &o, r, &err), LR_OK);
    assert_int_equal(r->ret, SHOW_RET_TREE);
    assert_int_equal(r->dominator, 0);
    assert_int_equal(r->retained, 5);
    assert_int_equal(r->referrers_total, 2); /* from 1 and 2, one shown */
    assert_int_equal(r->n_referrers, 1);
    assert_true(graph_edge_from(&g, r->referrers[0]) == 1 ||
                graph_edge_from(&g, r->referrers[0]) == 2);
    assert_int_equal(r->string_len, -1);
    show_free(r);

    assert_int_equal(show_build(&g, 0, &o, r, &err), LR_OK);
    assert_int_equal(r->dominator, SHOW_DOM_ROOTS);
    assert_true(r->roots[GRAPH_ROOT_JNI_GLOBAL]);
    assert_true(r->has_edges);
    assert_int_equal(r->edges_total, 2);
    assert_int_equal(r->n_edges, 1);
    assert_int_equal(g.edge_to[r->first_edge], 1);
    assert_int_equal(r->referrers_total, 0);
    show_free(r);

    o.limit = 0; /* all */
    assert_int_equal(show_build(&g, 0, &o, r, &err), LR_OK);
    assert_int_equal(r->n_edges, 2);
    show_free(r);

    assert_int_equal(show_build(&g, 4, &o, r, &err), LR_OK);
    assert_int_equal(r->dominator, GRAPH_NONE); /* unreachable */
    assert_false(r->roots[GRAPH_ROOT_JNI_GLOBAL]);
    show_free(r);
    free(r);
    dom_free(&t);
    graph_fini(&g);
}

/* ---- ties: ids read back through graph.derive, and counted ---- */

static const uint64_t *tie_id;
static const uint64_t *tie_ret;
static unsigned long id_reads;

static uint64_t tie_node_id(const graph *g, node_ix n)
{
    (void)g;
    id_reads++;
    return tie_id[n];
}
static const graph_derive TIE_DERIVE = {tie_node_id, NULL, NULL, NULL, NULL};

/* Retained descending, then id ascending: the order of top_select's rows. */
static int cmp_rank(const void *a, const void *b)
{
    node_ix x = *(const node_ix *)a, y = *(const node_ix *)b;
    if (tie_ret[x] != tie_ret[y])
        return tie_ret[x] > tie_ret[y] ? -1 : 1;
    return tie_id[x] < tie_id[y] ? -1 : tie_id[x] > tie_id[y];
}

/* 20,000 objects with 13 distinct retained sizes (about 1,540 at each; sizes 1: 3 sizes,
 * more ties than the selection's candidate list holds; 2: rising in pairs, so every object
 * joins the list, which must drop those left behind), ids laid out as `layout` says; every k
 * gives the rows of a full sort. */
static void check_ties(int layout, int sizes)
{
    enum { N = 20000 };
    graph g;
    lr_error err = {0};
    graph_init(&g);
    assert_int_equal(graph_alloc_nodes(&g, N, 0, &err), LR_OK);
    uint64_t *ids = malloc(N * sizeof *ids), *ret = malloc(N * sizeof *ret);
    node_ix *want = malloc(N * sizeof *want), *got = malloc((N + 10) * sizeof *got);
    assert_true(ids && ret && want && got);
    for (uint32_t i = 0; i < N; i++) {
        if (layout == 0) /* ascending, dense: node order is id order */
            ids[i] = 0x10000 + 16 * (uint64_t)i;
        else if (layout == 1) /* dense regions written out of order: the rank index */
            ids[i] = 0x10000 + 0x40000 * (uint64_t)(i / 1000 * 7 % 20) + 8 * (i % 1000);
        else /* far apart, out of order: the directory */
            ids[i] = 0x10000 + ((uint64_t)((i * 7919u) % N) << 24) + 8 * (i % 3);
        if (sizes == 0)
            ret[i] = (uint64_t)((i * 7919u) % 13) * 100;
        else if (sizes == 1)
            ret[i] = (uint64_t)((i * 7919u) % 3) * 100;
        else
            ret[i] = (uint64_t)(i / 2) * 100;
    }
    memcpy(g.node_id, ids, N * sizeof *ids);
    assert_int_equal(graph_build_index(&g, &err), LR_OK);
    assert_int_equal(g.id_blk != NULL, layout < 2);
    free(g.node_id);
    g.node_id = NULL;
    g.derive = &TIE_DERIVE;
    tie_id = ids;
    tie_ret = ret;
    for (uint32_t i = 0; i < N; i++)
        want[i] = i;
    qsort(want, N, sizeof *want, cmp_rank);
    static const uint32_t ks[] = {1, 5, 20, 100, 1537, 1540, 19999, 20000, 20010};
    for (uint32_t j = 0; j < sizeof ks / sizeof *ks; j++) {
        id_reads = 0;
        uint32_t n = top_select(&g, NULL, ret, GRAPH_NONE, NULL, 1, got, ks[j]);
        assert_int_equal(n, ks[j] < N ? ks[j] : N);
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(got[i], want[i]);
        if (layout == 0)
            assert_int_equal(id_reads, 0);
        else if (layout == 1 && ks[j] == 20 && sizes == 0)
            assert_true(id_reads < 400); /* not one per tied object (about 1,540) */
    }
    free(ids);
    free(ret);
    free(want);
    free(got);
    graph_fini(&g);
}

static void ties(void **state)
{
    (void)state;
    for (int layout = 0; layout < 3; layout++)
        for (int sizes = 0; sizes < 3; sizes++)
            check_ties(layout, sizes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(objects),
        cmocka_unit_test(classes),
        cmocka_unit_test(show),
        cmocka_unit_test(ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
