/* SPDX-License-Identifier: Apache-2.0 */
/* trace_groups_test.c: a group's exact size from what every group shares
 * (trace_together_base) equals the whole-heap computation (trace_together), on real dumps in
 * analyze's view (the rules' edge filter and table, class and loader hops, thread locals as
 * references): random groups of 2 to 40 objects, several groups at once over one base, some
 * holding one another or the same objects, so that a group's objects are reached through
 * another's and a base node refers to them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/dominators.h"
#include "analysis/trace.h"
#include "analysis/trace_internal.h"
#include "base/mfile.h"
#include "format/fmt.h"
#include "rules/rules.h"
#include "test_fixtures.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next_rand(uint32_t below)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % below);
}

static void check(const char *sub, const char *file)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s/%s", fixdir, sub, file);
    lr_error err = {.offset = LR_NO_OFFSET};
    mfile m;
    graph g;
    assert_int_equal(mfile_open(&m, path, 0, &err), LR_OK);
    graph_init(&g);
    g.path = strdup(file);
    fmt_opts fo = {.dump_index = -1};
    const fmt_reader *rd = fmt_find(m.data, m.len);
    assert_non_null(rd);
    assert_int_equal(rd->load(&g, &m, &fo, &err), LR_OK);
    rules_set rs;
    rules_init(&rs);
    assert_int_equal(rules_load_shipped(&rs, "jdk.rules", &err), LR_OK);
    assert_int_equal(rules_bind(&rs, &g, &err), LR_OK);
    dom_opts o;
    dom_reach_table tab;
    node_ix *from, *to;
    assert_int_equal(trace_dom_view(&g, &rs, NULL, &o, &tab, &from, &to, &err), LR_OK);
    dom_tree dt;
    assert_int_equal(dom_build_ex(&g, &o, &dt, &err), LR_OK);
    uint32_t n = g.n_nodes;
    node_ix *reach = malloc((size_t)n * sizeof *reach);
    uint32_t nr = 0;
    for (node_ix x = 0; x < n; x++)
        if (dt.idom[x] != GRAPH_NONE)
            reach[nr++] = x;
    assert_true(nr > 100);
    uint8_t *all = calloc(n / 8 + 1, 1), *stop = calloc(n / 8 + 1, 1);
    uint8_t *inr = calloc(n / 8 + 1, 1), *live = calloc(n / 8 + 1, 1);
    uint32_t *queue = malloc((size_t)n * sizeof *queue);
    enum { GROUPS = 12, MAX_PER = 40 };
    node_ix grp[GROUPS][MAX_PER];
    uint32_t per[GROUPS];
    uint64_t differ = 0, joint = 0;
    for (int round = 0; round < 6; round++) {
        memset(all, 0, n / 8 + 1);
        for (int k = 0; k < GROUPS; k++) {
            per[k] = 2 + next_rand(MAX_PER - 1);
            for (uint32_t i = 0; i < per[k]; i++) {
                /* a node of the group before, or its dominator, or a node at random */
                uint32_t how = next_rand(4);
                node_ix x = reach[next_rand(nr)];
                if (how == 0 && k > 0)
                    x = grp[k - 1][next_rand(per[k - 1])];
                else if (how == 1 && i > 0 && dt.idom[grp[k][i - 1]] < n)
                    x = dt.idom[grp[k][i - 1]];
                grp[k][i] = x;
                all[x / 8] |= (uint8_t)(1u << (x % 8));
            }
        }
        trace_tog_base base;
        assert_int_equal(trace_tog_base_build(&g, &rs, &o, &dt, all, queue, &base, &err), LR_OK);
        for (int k = 0; k < GROUPS; k++) {
            memset(stop, 0, n / 8 + 1);
            uint64_t dom_sum = 0;
            for (uint32_t i = 0; i < per[k]; i++)
                stop[grp[k][i] / 8] |= (uint8_t)(1u << (grp[k][i] % 8));
            for (uint32_t i = 0; i < per[k]; i++)
                dom_sum += dom_retained(&dt, grp[k][i]);
            uint64_t b1, c1, b2, c2;
            trace_together(&g, &rs, &o, &dt, stop, inr, live, queue, &b1, &c1);
            memset(inr, 0, n / 8 + 1);
            memset(live, 0, n / 8 + 1);
            trace_together_base(&g, &rs, &o, &dt, &base, stop, inr, live, queue, &b2, &c2);
            assert_int_equal(b1, b2);
            assert_int_equal(c1, c2);
            /* the bitmaps come back cleared for the next group */
            for (uint32_t i = 0; i <= n / 8; i++)
                assert_int_equal(inr[i] | live[i], 0);
            differ += b1 != dom_sum;
            joint += b1 > 0;
        }
        trace_tog_base_free(&base);
    }
    printf("%s: %u reachable nodes, 72 groups: %llu with a size, %llu not the sum of "
           "their members' dominator sizes\n",
           file, nr, (unsigned long long)joint, (unsigned long long)differ);
    assert_true(joint > 0 && differ > 0);
    free(all);
    free(stop);
    free(inr);
    free(live);
    free(queue);
    free(reach);
    dom_free(&dt);
    trace_dom_view_free(&tab, from, to);
    rules_fini(&rs);
    graph_fini(&g);
    mfile_close(&m);
}

static void test_hprof(void **state)
{
    (void)state;
    if (!tf_have("hprof", "hprof")) {
        skip();
        return;
    }
    check("hprof", "RI.hprof");
    check("hprof", "oracle_jdk8_05_x64.hprof");
    check("hprof", "dialer.android-hprof");
    check("hprof", "sun_jdk6_30_x64_compressedOops.hprof");
}

static void test_v8(void **state)
{
    (void)state;
    if (!tf_have("v8", "v8")) {
        skip();
        return;
    }
    check("v8", "closures.heapsnapshot");
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hprof),
        cmocka_unit_test(test_v8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
