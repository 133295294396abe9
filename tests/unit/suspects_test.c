/* SPDX-License-Identifier: Apache-2.0 */
/* suspects_test.c: susp_find's descent to each suspect's accumulation point
 * (src/analysis/suspects.c) against the plainest reading of its rule: from the suspect, go to
 * the biggest dominated child (the first in node order among equals) while it keeps more
 * than the accumulation share of its parent. Random trees whose sizes need not add up (as in
 * VisualVM's model), shallow ones, long chains under a suspect, and chains with more heavy
 * links than the descent's list of heavy children holds: each way the descent can take (the
 * list, a pass per level, the array of every node's biggest child) must give the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/dominators.h"
#include "analysis/suspects.h"
#include "test_graph.h"

static uint32_t rnd_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

/* The accumulation point of a descent from x, children found by scanning the whole tree. */
static node_ix ref_descend(const susp_tree *t, node_ix x, double accum)
{
    for (uint32_t step = 0; step < t->n; step++) {
        node_ix c = GRAPH_NONE;
        for (node_ix y = 0; y < t->n; y++)
            if (t->idom[y] == x && (c == GRAPH_NONE || t->retained[y] > t->retained[c]))
                c = y;
        if (c == GRAPH_NONE || (double)t->retained[c] <= accum * (double)t->retained[x])
            return x;
        x = c;
    }
    return x;
}

/* Same, with children lists (for the big trees, where the scan above is too slow). */
static node_ix ref_descend_kids(const susp_tree *t, const uint32_t *first, const node_ix *kids,
                                node_ix x, double accum)
{
    for (uint32_t step = 0; step < t->n; step++) {
        node_ix c = GRAPH_NONE;
        for (uint32_t i = first[x]; i < first[x + 1]; i++)
            if (c == GRAPH_NONE || t->retained[kids[i]] > t->retained[c])
                c = kids[i];
        if (c == GRAPH_NONE || (double)t->retained[c] <= accum * (double)t->retained[x])
            return x;
        x = c;
    }
    return x;
}

/* susp_find on g and t gives what r holds: the same suspects, sizes and accumulation
 * points. */
static void same_result(const graph *g, const susp_tree *t, double share, double accum,
                        const susp_result *r)
{
    susp_result r2;
    lr_error err = {0};
    assert_int_equal(susp_find(g, t, share, accum, &r2, &err), LR_OK);
    assert_int_equal(r2.n, r->n);
    for (uint32_t i = 0; i < r->n; i++) {
        assert_int_equal(r2.v[i].node, r->v[i].node);
        assert_int_equal(r2.v[i].kind, r->v[i].kind);
        assert_int_equal(r2.v[i].retained, r->v[i].retained);
        assert_int_equal(r2.v[i].accumulation, r->v[i].accumulation);
    }
    susp_free(&r2);
}

/* The other ways susp_find reads a tree must agree with its 64-bit reading (r): the sizes
 * in 32 bits when they fit (the trees retained.c builds), and a graph holding a synthetic
 * node (an unreachable one, which changes no answer) so that the top-level nodes are found
 * by their dominators' kinds rather than by the dominator alone; and the passes over the
 * nodes in two halves on two threads (susp_tree.split_min). */
static void check_variants(graph *g, const susp_tree *t, double share, double accum,
                           const susp_result *r)
{
    uint32_t n = t->n;
    int fits = 1;
    for (node_ix x = 0; x < n; x++)
        fits &= t->retained[x] <= UINT32_MAX;
    if (fits) {
        uint32_t *r32 = malloc((size_t)(n ? n : 1) * sizeof *r32);
        assert_non_null(r32);
        for (node_ix x = 0; x < n; x++)
            r32[x] = (uint32_t)t->retained[x];
        susp_tree t32 = *t;
        t32.retained = NULL;
        t32.retained32 = r32;
        same_result(g, &t32, share, accum, r);
        t32.split_min = 1; /* the passes in halves on two threads: the same answer */
        same_result(g, &t32, share, accum, r);
        free(r32);
    }
    susp_tree split = *t;
    split.split_min = 1;
    same_result(g, &split, share, accum, r);
    for (node_ix x = 0; x < n; x++)
        if (t->idom[x] == GRAPH_NONE) {
            uint8_t kind = g->node_kind[x];
            g->node_kind[x] = GRAPH_KIND_SYNTHETIC;
            same_result(g, t, share, accum, r);
            g->node_kind[x] = kind;
            break;
        }
}

/* Runs susp_find on tree (idom, retained) and checks every suspect's accumulation point
 * (and check_variants); returns how many steps below their suspects those points are. */
static uint32_t check(uint32_t n, node_ix *idom, uint64_t *retained, double share,
                      double accum)
{
    graph g;
    tg_nodes(&g, n, NULL, 1);
    tg_edges(&g, NULL, 0, 0);
    uint64_t total = 0;
    for (node_ix x = 0; x < n; x++)
        if (idom[x] == DOM_SUPER_ROOT)
            total += retained[x];
    susp_tree t = {n, idom, DOM_SUPER_ROOT, retained, total, NULL, NULL, 0, 0, NULL, NULL};
    uint32_t *first = calloc((size_t)n + 2, sizeof *first);
    node_ix *kids = malloc((size_t)(n ? n : 1) * sizeof *kids);
    assert_true(first && kids);
    for (node_ix x = 0; x < n; x++)
        if (idom[x] < n)
            first[idom[x] + 2]++;
    for (uint32_t i = 0; i <= n; i++)
        first[i + 1] += first[i];
    for (node_ix x = 0; x < n; x++) /* children in node order */
        if (idom[x] < n)
            kids[first[idom[x] + 1]++] = x;
    susp_result r;
    lr_error err = {0};
    assert_int_equal(susp_find(&g, &t, share, accum, &r, &err), LR_OK);
    check_variants(&g, &t, share, accum, &r);
    uint32_t steps = 0;
    for (uint32_t i = 0; i < r.n; i++) {
        node_ix want = n <= 5000 ? ref_descend(&t, r.v[i].node, accum)
                                 : ref_descend_kids(&t, first, kids, r.v[i].node, accum);
        assert_int_equal(r.v[i].accumulation, want);
        if (n <= 5000)
            assert_int_equal(want, ref_descend_kids(&t, first, kids, r.v[i].node, accum));
        for (node_ix x = want; x != r.v[i].node; x = idom[x])
            steps++;
    }
    susp_free(&r);
    free(first);
    free(kids);
    graph_fini(&g);
    return steps;
}

/* A random tree: node p[i] hangs under an earlier p[j] or the top, nodes in shuffled order
 * (a child's index may be below its dominator's); sizes random, often not adding up. */
static void random_tree(uint64_t *seed, uint32_t n, node_ix *idom, uint64_t *ret)
{
    node_ix *p = malloc((size_t)n * sizeof *p);
    assert_non_null(p);
    for (uint32_t i = 0; i < n; i++)
        p[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = rnd_next(seed) % i;
        node_ix tmp = p[i - 1];
        p[i - 1] = p[j];
        p[j] = tmp;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = rnd_next(seed) % 16;
        idom[p[i]] = i == 0 || k == 0 ? DOM_SUPER_ROOT
                     : k == 1         ? GRAPH_NONE
                                      : p[i - 1 - rnd_next(seed) % (i < 8 ? i : 8)];
        ret[p[i]] = 1 + rnd_next(seed) % 1000;
    }
    /* sizes that mostly grow toward the top, with equal children and a few exceptions */
    for (uint32_t i = n; i-- > 0;) {
        node_ix x = p[i], d = idom[x];
        if (d < n && rnd_next(seed) % 8)
            ret[d] += ret[x];
    }
    free(p);
}

static void test_random_trees(void **state)
{
    (void)state;
    uint64_t seed = 0x5ab5ca1ef00dULL;
    const double accums[] = {0.7, 0.5, 0.9, 0.3, 0.0};
    uint32_t steps = 0;
    for (int round = 0; round < 120; round++) {
        uint32_t n = 2 + rnd_next(&seed) % 3000;
        node_ix *idom = malloc((size_t)n * sizeof *idom);
        uint64_t *ret = malloc((size_t)n * sizeof *ret);
        assert_true(idom && ret);
        random_tree(&seed, n, idom, ret);
        steps += check(n, idom, ret, round % 2 ? 0.01 : 0.1, accums[round % 5]);
        free(idom);
        free(ret);
    }
    assert_true(steps > 200); /* the descents did go down */
}

/* A chain of len links under one top-level node, the head weighing w, each link keeping
 * keep ppm of the one before (keep 0: w / len less than the one before, sizes that fit 32
 * bits, and every hundredth link from the 90th also holding a twin of its next link, later
 * in node order, which the descent must pass by), every tenth link also holding a small
 * leaf, beside a random tree of other nodes; the descent from the chain's head must go at
 * least min_steps down. */
static void chain_case_w(uint64_t *seed, uint32_t other, uint32_t len, uint32_t keep,
                         uint64_t w, double accum, uint32_t min_steps)
{
    uint32_t n = other + 3 * len;
    node_ix *idom = malloc((size_t)n * sizeof *idom);
    uint64_t *ret = malloc((size_t)n * sizeof *ret);
    assert_true(idom && ret);
    random_tree(seed, other, idom, ret);
    uint64_t step = w / len;
    for (uint32_t i = 0; i < len; i++) {
        node_ix x = other + i;
        idom[x] = i == 0 ? DOM_SUPER_ROOT : x - 1;
        ret[x] = w;
        w = keep ? w / 1000000 * keep + 1 : w - step;
        node_ix leaf = other + len + i;
        idom[leaf] = i % 10 ? GRAPH_NONE : x;
        ret[leaf] = 1 + rnd_next(seed) % 64;
        node_ix twin = other + 2 * len + i;
        idom[twin] = !keep && i % 100 == 90 && i + 1 < len ? x : GRAPH_NONE;
        ret[twin] = w;
    }
    assert_true(check(n, idom, ret, 0.1, accum) >= min_steps);
    free(idom);
    free(ret);
}

/* chain_case_w with a head of 2^50 bytes. */
static void chain_case(uint64_t *seed, uint32_t other, uint32_t len, uint32_t keep,
                       double accum, uint32_t min_steps)
{
    chain_case_w(seed, other, len, keep, (uint64_t)1 << 50, accum, min_steps);
}

static void test_chains(void **state)
{
    (void)state;
    uint64_t seed = 0xc4a1d5eedULL;
    /* ends in a few levels: decided from the list of heavy children alone */
    chain_case(&seed, 2000, 6, 999000, 0.7, 5);
    /* a dozen levels: the list (8 levels at least), then passes */
    chain_case(&seed, 2000, 12, 999000, 0.7, 11);
    /* past the passes: the array of N */
    chain_case(&seed, 2000, 300, 999000, 0.7, 299);
    /* each link keeps 75 %: the list decides about 10 levels, passes and the array go on */
    chain_case(&seed, 2000, 300, 750000, 0.7, 60);
    /* keeps 65 %: no step */
    chain_case(&seed, 2000, 300, 650000, 0.7, 0);
    /* more heavy links than the list holds: the array of N at once */
    chain_case(&seed, 1000, 70000, 999990, 0.7, 69999);
    chain_case(&seed, 1000, 70000, 999990, 0.5, 69999);
    /* the same in sizes that fit 32 bits (the 32-bit index of biggest children) */
    chain_case_w(&seed, 1000, 80000, 0, (uint64_t)80000 << 14, 0.7, 79990);
    chain_case_w(&seed, 2000, 300, 0, (uint64_t)300 << 20, 0.7, 290);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
