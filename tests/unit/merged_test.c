/* SPDX-License-Identifier: Apache-2.0 */
/* merged_test.c: the results `instances` and `path --merged` render, on a hand-made heap.
 * inst_select takes every class of the name (and subclasses when asked), inst_order sorts by
 * size with ties by id (not by node) and keeps each row's retained size; merged_build looks up
 * each top's root entry and names the references to exactly the children a listing cut at
 * --limit shows; merged_walk_next visits them in the listing's order, says which branches the
 * limit cut, and numbers the tops with or without a limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/instances.h"
#include "analysis/merged.h"
#include "test_graph.h"

/*   0 --> 1 --> 4        node 0 and node 7 start paths (root entries 5 and 3);
 *   |     `--> 5         node 8 is reached by no path; 9 starts one but is no instance.
 *   |--> 2 --> 6         Nodes 3..8 are instances of classes named "T" (one class each,
 *   `--> 3               as a dump that loads one name twice); node 2's class extends "T".
 *   7                    */
#define N 10
static const char *const names[N] = {"R", "M", "S", "T", "T", "T", "T", "T", "T", "X"};
/* edges in CSR order; a first edge 9 -> 8 so that no edge on a path is named 0 */
static const tedge edges[] = {{9, 8, 0}, {0, 1, 0}, {0, 2, 0}, {0, 3, 0},
                              {1, 4, 0}, {1, 5, 0}, {2, 6, 0}};
static const node_ix parent[N] = {GRAPH_NONE, 0, 0, 0, 1, 1, 2, GRAPH_NONE, N, GRAPH_NONE};
static const uint64_t retained[N] = {0, 0, 0, 30, 40, 50, 60, 5, 9, 0};
static graph g;

static void build(void)
{
    tg_nodes(&g, N, names, 16);
    g.node_size[5] = 24;
    g.node_size[6] = 24;
    g.classes[2].super = 3; /* S extends (the first) T */
    tg_edges(&g, edges, sizeof edges / sizeof *edges, 1);
}

/* The nodes of class c: the one node tg_nodes gave it. */
static lr_status nodes_of(void *ctx, class_ix c, const node_ix **nodes, uint32_t *n,
                          lr_error *err)
{
    static node_ix one[N];
    (void)ctx;
    (void)err;
    one[c] = c;
    *nodes = &one[c];
    *n = 1;
    return LR_OK;
}

static uint64_t retained_of(void *ctx, node_ix x)
{
    (void)ctx;
    return retained[x];
}

static int step(void *ctx, node_ix x, node_ix *p, edge_ix *e)
{
    (void)ctx;
    if (parent[x] == N)
        return -1;
    if (parent[x] == GRAPH_NONE)
        return 0;
    *p = parent[x];
    for (edge_ix k = g.first_edge[*p]; k < g.first_edge[*p + 1]; k++)
        if (g.edge_to[k] == x)
            *e = k;
    return 1;
}

static uint32_t root_of(void *ctx, node_ix x)
{
    (void)ctx;
    return x == 0 ? 5 : x == 7 ? 3 : GRAPH_NONE;
}

static void test_instances(void **state)
{
    (void)state;
    build();
    lr_error err = {0};
    inst_result r;
    inst_opts o = {"T", 0, NULL, NULL, INST_BY_SHALLOW, 2};
    assert_int_equal(inst_select(&g, &o, nodes_of, NULL, &r, &err), LR_OK);
    assert_int_equal(r.n_classes, 6);
    assert_int_equal(r.n, 6);
    assert_int_equal(r.shown, 2);
    /* ids descending against node order: ties must follow the ids, not the nodes */
    g.ids_sorted = 0;
    for (node_ix x = 0; x < N; x++)
        g.node_id[x] = 0x1000 - x;
    assert_int_equal(inst_order(&r, NULL, NULL, &err), LR_OK);
    static const node_ix by_shallow[6] = {6, 5, 8, 7, 4, 3};
    for (uint32_t i = 0; i < 6; i++)
        assert_int_equal(r.nodes[i], by_shallow[i]);
    assert_int_equal(r.shallow, 4 * 16 + 2 * 24);
    assert_null(r.retained);
    inst_free(&r);

    o = (inst_opts){"T", 1, NULL, NULL, INST_BY_RETAINED, 0};
    assert_int_equal(inst_select(&g, &o, nodes_of, NULL, &r, &err), LR_OK);
    assert_int_equal(r.n_classes, 7); /* S too */
    assert_int_equal(r.shown, 7);
    assert_int_equal(inst_order(&r, retained_of, NULL, &err), LR_OK);
    static const node_ix by_retained[7] = {6, 5, 4, 3, 8, 7, 2};
    for (uint32_t i = 0; i < 7; i++) {
        assert_int_equal(r.nodes[i], by_retained[i]);
        assert_int_equal(r.retained[i], retained[by_retained[i]]);
    }
    assert_int_equal(r.retained_sum, 194);
    inst_free(&r);

    o = (inst_opts){"Nothing", 1, NULL, NULL, INST_BY_ID, 0};
    assert_int_equal(inst_select(&g, &o, nodes_of, NULL, &r, &err), LR_OK);
    assert_int_equal(r.n_classes, 0);
    assert_int_equal(r.n, 0);
    inst_free(&r);
    graph_fini(&g);
}

/* Runs the walk and writes it as "o<node>@<depth>" and "c<first cut or ->@<depth>" words. */
static void walk(const merged_result *r, char *buf, size_t cap, uint32_t *top_pos)
{
    merged_walk w;
    merged_walk_start(r, &w);
    size_t at = 0;
    int ev;
    uint32_t k = 0;
    buf[0] = '\0';
    while ((ev = merged_walk_next(r, &w)) != MERGED_END) {
        node_ix x = w.node == MPATH_NONE ? GRAPH_NONE : r->tree.nodes[w.node].node;
        if (ev == MERGED_OPEN && w.depth == 0)
            top_pos[k++] = w.top_pos;
        if (x == GRAPH_NONE)
            at += (size_t)snprintf(buf + at, cap - at, "c-@%u%s ", w.depth, w.top ? "T" : "");
        else
            at += (size_t)snprintf(buf + at, cap - at, "%c%u@%u%s ",
                                   ev == MERGED_OPEN ? 'o' : 'c', x, w.depth, w.top ? "T" : "");
    }
}

static uint32_t find(const mpath_tree *t, node_ix x)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->nodes[i].node == x)
            return i;
    return MPATH_NONE;
}

static void test_merged(void **state)
{
    (void)state;
    build();
    lr_error err = {0};
    inst_result sel;
    inst_opts o = {"T", 0, NULL, NULL, INST_BY_ID, 0};
    assert_int_equal(inst_select(&g, &o, nodes_of, NULL, &sel, &err), LR_OK);
    merged_src src = {NULL, retained_of, step, root_of, NULL};
    merged_result r;
    char buf[512];
    uint32_t tp[4] = {9, 9, 9, 9};

    assert_int_equal(merged_build(&sel, TOP_MODEL_STRONG, 2, &src, &r, &err), LR_OK);
    assert_int_equal(r.n_instances, 6);
    assert_int_equal(r.tree.n_unreached, 1);
    /* tops by retained: 0 (180) then 7 (5); under 0: 1 (90), 2 (60), 3 (30) */
    assert_int_equal(r.top_root[0], 5);
    assert_int_equal(r.top_root[1], 3);
    walk(&r, buf, sizeof buf, tp);
    assert_string_equal(buf, "o0@0 o1@1 o5@2 c-@3 o4@2 c-@3 c-@2 o2@1 o6@2 c-@3 c-@2 c3@1 "
                             "o7@0 c-@1 c-@0T ");
    assert_int_equal(tp[0], 0);
    assert_int_equal(tp[1], 1);
    /* names: the references to the children shown (edge positions above), not to 3 */
    assert_int_equal(r.tree.nodes[find(&r.tree, 1)].edge_name, 1);
    assert_int_equal(r.tree.nodes[find(&r.tree, 2)].edge_name, 2);
    assert_int_equal(r.tree.nodes[find(&r.tree, 4)].edge_name, 4);
    assert_int_equal(r.tree.nodes[find(&r.tree, 5)].edge_name, 5);
    assert_int_equal(r.tree.nodes[find(&r.tree, 6)].edge_name, 6);
    assert_int_equal(r.tree.nodes[find(&r.tree, 3)].edge_name, 0);
    merged_free(&r);

    assert_int_equal(merged_build(&sel, TOP_MODEL_STRONG, 1, &src, &r, &err), LR_OK);
    walk(&r, buf, sizeof buf, tp);
    assert_string_equal(buf, "o0@0 o1@1 o5@2 c-@3 c4@2 c2@1 c7@0T ");
    merged_free(&r);

    tp[1] = 9;
    assert_int_equal(merged_build(&sel, TOP_MODEL_STRONG, 0, &src, &r, &err), LR_OK);
    walk(&r, buf, sizeof buf, tp);
    assert_string_equal(buf, "o0@0 o1@1 o5@2 c-@3 o4@2 c-@3 c-@2 o2@1 o6@2 c-@3 c-@2 o3@1 "
                             "c-@2 c-@1 o7@0 c-@1 c-@0T ");
    assert_int_equal(tp[1], 1); /* the second top is numbered without a limit too */
    assert_int_equal(r.tree.nodes[find(&r.tree, 3)].edge_name, 3);
    merged_free(&r);
    inst_free(&sel);
    graph_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_instances),
                                       cmocka_unit_test(test_merged)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
