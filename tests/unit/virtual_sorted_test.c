/* SPDX-License-Identifier: Apache-2.0 */
/* virtual_sorted_test.c: unit test of src/analysis/virtual.c's big-table read (prefix virt_):
 * a HashMap-like table past virt_set_sorted_min has the first two entries of its chains read
 * in node order before the walk lists them, which must change nothing. On every HPROF
 * fixture, every node's list made with every table read so (sorted_min 1) equals the list
 * made with none read so (sorted_min UINT32_MAX): targets, names, kinds, real edges,
 * priorities and labels, entry for entry. The lists are made in reverse node order from the
 * second generator, so the two never share the order in which tables were met. The test
 * also counts the chains the dumps hold by length, from the `next` fields read directly, so
 * that chains of one, two and three or more entries (the head read ahead, the second read
 * ahead, a third read by the walk) are known to be covered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/virtual.h"
#include "base/mfile.h"
#include "format/fmt.h"

#include "test_hprof_load.h"

static node_ix ref_of(const graph *g, node_ix n, const char *name)
{
    graph_value v;
    if (n >= g->n_nodes || !graph_field_find(g, n, name, &v) || v.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    return v.ref;
}

#define CHAIN_LEN_MAX 3 /* chains counted by length 1, 2, and 3 or more */

/* Adds the chains of every HashMap-like table of g (a `table` array whose elements link
 * through `next`) to counts[len - 1], lengths past CHAIN_LEN_MAX counted as its. */
static void count_chains(const graph *g, uint64_t counts[CHAIN_LEN_MAX])
{
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (g->node_kind[x] != GRAPH_KIND_INSTANCE)
            continue;
        const char *cn = graph_class_name(g, x);
        if (strcmp(cn, "java.util.HashMap") && strcmp(cn, "java.util.LinkedHashMap") &&
            strcmp(cn, "java.util.concurrent.ConcurrentHashMap"))
            continue;
        node_ix t = ref_of(g, x, "table");
        if (t >= g->n_nodes || g->node_kind[t] != GRAPH_KIND_OBJ_ARRAY)
            continue;
        for (edge_ix e = g->first_edge[t]; e < g->first_edge[t + 1]; e++) {
            uint32_t len = 0;
            for (node_ix n = g->edge_to[e]; n < g->n_nodes && len < 1000;
                 n = ref_of(g, n, "next"))
                len++;
            if (len)
                counts[(len < CHAIN_LEN_MAX ? len : CHAIN_LEN_MAX) - 1]++;
        }
    }
}

static void test_sorted_equals_plain(void **state)
{
    (void)state;
    static const char *const dumps[] = {
        "dialer.android-hprof", "test-dump.hprof", "RI.hprof", "oracle_jdk8_05_x64.hprof",
        "sun_jdk6_18_x64.hprof",
    };
    uint64_t chains[CHAIN_LEN_MAX] = {0}, entries = 0;
    char l1[VIRT_LABEL_MAX], l2[VIRT_LABEL_MAX];
    for (size_t d = 0; d < sizeof dumps / sizeof *dumps; d++) {
        graph g;
        mfile m;
        if (!tl_load_hprof(&g, &m, dumps[d])) {
            skip();
            return;
        }
        count_chains(&g, chains);
        lr_error err = {.offset = LR_NO_OFFSET};
        virt_gen *plain, *sorted;
        assert_int_equal(virt_gen_new(&g, &plain, &err), LR_OK);
        assert_int_equal(virt_gen_new(&g, &sorted, &err), LR_OK);
        virt_set_sorted_min(plain, UINT32_MAX);
        virt_set_sorted_min(sorted, 1);
        for (node_ix x = 0; x < g.n_nodes; x++) {
            node_ix y = g.n_nodes - 1 - x;
            /* the plain list is copied out: the second generator's list is made next */
            const virt_list *a = virt_edges(plain, y);
            assert_non_null(a);
            uint32_t n = a->n, lead = a->n_lead;
            node_ix *to = malloc((n ? n : 1) * sizeof *to);
            uint32_t *name = malloc((n ? n : 1) * sizeof *name);
            edge_ix *real = malloc((n ? n : 1) * sizeof *real);
            uint8_t *kind = malloc(n ? n : 1), *prio = malloc(n ? n : 1);
            assert_true(to && name && real && kind && prio);
            memcpy(to, a->to, n * sizeof *to);
            memcpy(name, a->name, n * sizeof *name);
            memcpy(real, a->real, n * sizeof *real);
            memcpy(kind, a->kind, n);
            memcpy(prio, a->prio, n);
            const virt_list *b = virt_edges(sorted, y);
            assert_non_null(b);
            assert_int_equal(b->n, n);
            assert_int_equal(b->n_lead, lead);
            for (uint32_t i = 0; i < n; i++) {
                assert_int_equal(b->to[i], to[i]);
                assert_int_equal(b->name[i], name[i]);
                assert_int_equal(b->kind[i], kind[i]);
                assert_int_equal(b->real[i], real[i]);
                assert_int_equal(b->prio[i], prio[i]);
            }
            for (uint32_t i = 0; i < lead; i++) {
                const char *x1 = virt_edge_label(plain, y, i, l1, sizeof l1);
                const char *x2 = virt_edge_label(sorted, y, i, l2, sizeof l2);
                assert_true((x1 == NULL) == (x2 == NULL));
                if (x1)
                    assert_string_equal(x1, x2);
            }
            entries += lead;
            free(to);
            free(name);
            free(real);
            free(kind);
            free(prio);
        }
        virt_gen_free(plain);
        virt_gen_free(sorted);
        graph_fini(&g);
        mfile_close(&m);
    }
    printf("sorted = plain: %llu collection entries; chains of 1, 2, 3+ entries: %llu %llu "
           "%llu\n",
           (unsigned long long)entries, (unsigned long long)chains[0],
           (unsigned long long)chains[1], (unsigned long long)chains[2]);
    for (unsigned k = 0; k < CHAIN_LEN_MAX; k++)
        assert_true(chains[k] > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_equals_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
