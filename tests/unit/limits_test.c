/* SPDX-License-Identifier: Apache-2.0 */
/* limits_test.c: a graph never takes more nodes or edges than its 32-bit indices allow
 * (graph_check_size, GRAPH_MAX_NODES/EDGES), and the readers say so where they first know a
 * count: LR_ERR_LIMIT naming the count and the limit, before allocating for it. Real dumps
 * are far below the limits, so the tests lower g->max_nodes / g->max_edges (as the limits
 * are per graph) and load real fixtures: HotSpot HPROF (objects after pass 1, reference
 * slots before the edges are resolved) and a V8 snapshot (the header's counts). At the real
 * limits, graph_alloc_nodes/edges refuse 2^31 without allocating. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/mfile.h"
#include "format/fmt.h"
#include "graph/graph.h"

#include "test_fixtures.h"

/* Loads fixdir/sub/file into g with the given limits (0: the defaults). */
static lr_status load(const char *sub, const char *file, uint64_t max_nodes,
                      uint64_t max_edges, graph *g, lr_error *e)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s/%s", fixdir, sub, file);
    mfile *m = calloc(1, sizeof *m);
    assert_non_null(m);
    assert_int_equal(mfile_open(m, p, 0, e), LR_OK);
    graph_init(g);
    g->path = strdup(file);
    if (max_nodes)
        g->max_nodes = max_nodes;
    if (max_edges)
        g->max_edges = max_edges;
    const fmt_reader *r = fmt_find(m->data, m->len);
    assert_non_null(r);
    fmt_opts o = {.dump_index = -1};
    memset(e, 0, sizeof *e);
    lr_status st = r->load(g, m, &o, e);
    graph_fini(g);
    mfile_close(m);
    free(m);
    return st;
}

static void hprof_counts(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF"))
        return;
    graph g;
    lr_error e;
    /* the control: the same fixture loads under the real limits */
    assert_int_equal(load("hprof", "oracle_jdk8_05_x64.hprof", 0, 0, &g, &e), LR_OK);
    assert_int_equal(load("hprof", "oracle_jdk8_05_x64.hprof", 1000, 0, &g, &e), LR_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "oracle_jdk8_05_x64.hprof: "));
    assert_non_null(strstr(e.msg, " objects, more than the 1000 one graph can hold (32-bit "
                                  "node indices"));
    assert_int_equal(load("hprof", "oracle_jdk8_05_x64.hprof", 0, 1000, &g, &e), LR_ERR_LIMIT);
    assert_non_null(strstr(e.msg, " reference slots (null or not), more than the 1000 one "
                                  "graph can hold (32-bit edge indices"));
}

static void v8_counts(void **state)
{
    (void)state;
    if (!tf_have("v8", "V8"))
        return;
    graph g;
    lr_error e;
    assert_int_equal(load("v8", "small.heapsnapshot", 0, 0, &g, &e), LR_OK);
    assert_int_equal(load("v8", "small.heapsnapshot", 10, 0, &g, &e), LR_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "small.heapsnapshot: "));
    assert_non_null(strstr(e.msg, " objects, more than the 10 one graph can hold"));
    assert_int_equal(load("v8", "small.heapsnapshot", 0, 10, &g, &e), LR_ERR_LIMIT);
    assert_non_null(strstr(e.msg, " edges, more than the 10 one graph can hold"));
}

/* The real limits: 2^31 nodes or edges are refused before any allocation (an allocation of
 * that many would succeed lazily on a large machine and fail much later). */
static void alloc_refuses(void **state)
{
    (void)state;
    graph g;
    lr_error e = {0};
    graph_init(&g);
    assert_int_equal(graph_alloc_nodes(&g, GRAPH_MAX_NODES + 1, 0, &e), LR_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "2147483648 objects, more than the 2147483647"));
    assert_null(g.node_class);
    memset(&e, 0, sizeof e);
    assert_int_equal(graph_alloc_edges(&g, 3ull << 30, &e), LR_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "3221225472 edges"));
    assert_null(g.edge_to);
    assert_int_equal(graph_check_size(&g, GRAPH_MAX_NODES, GRAPH_MAX_EDGES, NULL, &e), LR_OK);
    graph_fini(&g);
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hprof_counts),
        cmocka_unit_test(v8_counts),
        cmocka_unit_test(alloc_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
