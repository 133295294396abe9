/* SPDX-License-Identifier: Apache-2.0 */
/* threads_test.c: threads_with_locals and threads_within (src/analysis/threads.c) on every
 * HPROF fixture with threads. For each thread with an object: the nodes whose chain of
 * thread objects above them (threads_with_locals' under) reaches the thread, with the thread
 * object itself, weigh exactly its figure (the leak suspects leave those nodes to a thread
 * they print, so under must name what the figure counts); and threads_within never says
 * "at most L" for an L below the figure (the leak suspects skip the tree on its word), while
 * it does say so at the figure on a thread whose dominated set is small. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/threads.h"
#include "graph/graph.h"
#include "leakray/leakray.h"
#include "lr_internal.h"

#include "test_fixtures.h"

static const char *const fixtures[] = {
    "hprof/RI.hprof",
    "hprof/oracle_jdk7_21_hprofagent.hprof",
    "hprof/oracle_jdk8_05_x64.hprof",
    "hprof/sun_jdk5_13_x32.hprof",
    "hprof/sun_jdk6_18_x64.hprof",
    "hprof/sun_jdk6_30_x64_compressedOops.hprof",
    "hprof/test-dump.hprof",
    "hprof/openjdk_jdk11_04_x64.hprof.gz",
    "hprof/example-java.hprof.bz2",
    "hprof/dialer.android-hprof",
};

/* Whether thread t's object is x or one of the thread objects above x. */
static int counted_by(const graph *g, const uint32_t *under, node_ix x, uint32_t t)
{
    if (x == g->threads[t].node)
        return 1;
    uint32_t ti = under[x];
    for (uint32_t k = 0; k <= g->n_threads && ti != THREADS_NONE; k++) {
        assert_true(ti < g->n_threads);
        if (ti == t)
            return 1;
        ti = under[g->threads[ti].node];
    }
    return 0;
}

static void check(const char *rel, uint32_t *n_small)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", fixdir, rel);
    lr_heap *h = NULL;
    lr_error err = {0};
    if (lr_open(p, NULL, &h, &err) != LR_OK)
        fail_msg("lr_open %s: %s", rel, err.msg);
    const graph *g = lr_heap_graph(h);
    assert_true(g->n_threads > 0);
    uint64_t *with = calloc(g->n_threads, sizeof *with);
    uint32_t *under = calloc(g->n_nodes, sizeof *under);
    assert_non_null(with);
    assert_non_null(under);
    assert_int_equal(threads_with_locals(g, with, under, &err), LR_OK);
    threads_walker *tw = threads_walker_new(g); /* one walker for every thread's walk */
    assert_non_null(tw);
    for (uint32_t t = 0; t < g->n_threads; t++) {
        if (g->threads[t].node >= g->n_nodes)
            continue;
        uint64_t sum = 0;
        for (node_ix x = 0; x < g->n_nodes; x++)
            if (counted_by(g, under, x, t))
                sum += graph_node_size(g, x) + (g->node_native ? g->node_native[x] : 0);
        if (sum != with[t])
            fail_msg("%s thread %u: under counts %llu, figure %llu", rel, t,
                     (unsigned long long)sum, (unsigned long long)with[t]);
        if (with[t] > 0 && threads_within(tw, t, with[t] - 1, NULL, NULL))
            fail_msg("%s thread %u: bound below the figure %llu", rel, t,
                     (unsigned long long)with[t]);
        *n_small += threads_within(tw, t, 2 * with[t] + 4096, NULL, NULL);
    }
    threads_walker_free(tw);
    free(with);
    free(under);
    lr_close(h);
}

static void every_fixture(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF"))
        return;
    uint32_t n_small = 0;
    for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++)
        check(fixtures[i], &n_small);
    /* the bound is of use: most threads dominate little */
    printf("bound within 2 x the figure + 4 kB: %u threads\n", n_small);
    assert_true(n_small > 10);
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_fixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
