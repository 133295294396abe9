/* SPDX-License-Identifier: Apache-2.0 */
/* trace_counts_test.c: unit tests of the dominator subtree object counts the traces show
 * (trace_subtree_counts, src/analysis/trace_elems.c): on random dominator forests with long
 * chains, unreachable nodes and super-root children, the counts of 12, 600 and 70,000 wanted
 * nodes (a byte, two and four bytes per node of scratch), and at each width's last and the
 * next one's first, equal a brute-force climb from every node; and with the program's
 * allocator wrappers linked in (cli/cli_malloc.c, as the CLI counts its memory), the scratch
 * for a few wanted nodes stays near a byte per node, which `analyze` relies on: it runs while
 * both dominator trees may be at their peak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/dominators.h"
#include "base/mem.h"

/* the wrappers count every allocation of this test (a no-op under a sanitizer, which owns
 * malloc: mem_active() then stays 0 and the memory bound is not checked) */
#include "../../cli/cli_malloc.c"

/* From src/analysis/trace_internal.h (included by the trace files alone). */
int trace_subtree_counts(const dom_tree *t, const node_ix *want, uint32_t nw, uint32_t *cnt);

static uint64_t rng = 88172645463325252ull;

static uint32_t next_u32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* A random dominator forest over n nodes: nodes placed in the order of a multiplicative
 * permutation (no array beside the forest, so the memory test sees only the counts'
 * scratch), so an idom is anywhere in the array; one node in 16 unreachable (GRAPH_NONE), one
 * in 64 under the super-root, the rest under a node placed earlier, half of them the one just
 * before (long chains). */
#define PERM_MUL 1000003u /* prime, and no n below divides by it */

static node_ix placed(uint32_t i, uint32_t n)
{
    return (node_ix)(((uint64_t)i * PERM_MUL + 7) % n);
}

static node_ix *random_forest(uint32_t n)
{
    node_ix *idom = malloc((size_t)n * sizeof *idom);
    assert_non_null(idom);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = next_u32() % 64;
        node_ix x = placed(i, n);
        if (i == 0 || r == 0)
            idom[x] = DOM_SUPER_ROOT;
        else if (r < 4)
            idom[x] = GRAPH_NONE;
        else if (r < 34)
            idom[x] = placed(i - 1, n);
        else
            idom[x] = placed(next_u32() % i, n);
        /* an unreachable node dominates nothing: its children hang under the super-root */
        if (idom[x] < n && idom[idom[x]] == GRAPH_NONE)
            idom[x] = DOM_SUPER_ROOT;
    }
    return idom;
}

static int cmp_node(const void *a, const void *b)
{
    node_ix x = *(const node_ix *)a, y = *(const node_ix *)b;
    return x < y ? -1 : x > y;
}

/* nw distinct reachable nodes, sorted */
static node_ix *random_want(const node_ix *idom, uint32_t n, uint32_t nw)
{
    node_ix *want = malloc((size_t)nw * sizeof *want);
    uint8_t *taken = calloc(n / 8 + 1, 1);
    assert_non_null(want);
    assert_non_null(taken);
    for (uint32_t k = 0; k < nw;) {
        node_ix x = next_u32() % n;
        if ((taken[x / 8] >> (x % 8) & 1) || idom[x] == GRAPH_NONE)
            continue;
        taken[x / 8] |= (uint8_t)(1u << (x % 8));
        want[k++] = x;
    }
    qsort(want, nw, sizeof *want, cmp_node);
    free(taken);
    return want;
}

static void check_counts(uint32_t n, uint32_t nw)
{
    node_ix *idom = random_forest(n);
    node_ix *want = random_want(idom, n, nw);
    uint32_t *cnt = malloc((size_t)nw * sizeof *cnt);
    uint32_t *pos = malloc((size_t)n * sizeof *pos);
    uint32_t *expect = calloc(nw, sizeof *expect);
    assert_non_null(cnt);
    assert_non_null(pos);
    assert_non_null(expect);
    for (uint32_t x = 0; x < n; x++)
        pos[x] = UINT32_MAX;
    for (uint32_t k = 0; k < nw; k++)
        pos[want[k]] = k;
    /* every reachable node counts in the subtree of each wanted node on its way up */
    for (uint32_t x = 0; x < n; x++)
        for (node_ix y = idom[x] == GRAPH_NONE ? GRAPH_NONE : x; y < n; y = idom[y])
            if (pos[y] != UINT32_MAX)
                expect[pos[y]]++;
    dom_tree t = {n, idom, NULL, 0, 0, NULL};
    assert_int_equal(trace_subtree_counts(&t, want, nw, cnt), 0);
    for (uint32_t k = 0; k < nw; k++)
        assert_int_equal(cnt[k], expect[k]);
    free(idom);
    free(want);
    free(cnt);
    free(pos);
    free(expect);
}

static void test_few(void **state)
{
    (void)state;
    check_counts(50000, 12);
}

static void test_hundreds(void **state)
{
    (void)state;
    check_counts(50000, 600);
}

static void test_many(void **state)
{
    (void)state;
    check_counts(200000, 70000);
}

/* the last count of each width and the first of the next */
static void test_width_edges(void **state)
{
    (void)state;
    check_counts(20000, 253);
    check_counts(20000, 254);
    check_counts(100000, 65533);
    check_counts(100000, 65534);
}

/* The scratch of a count over N nodes for a few wanted ones: N bytes plus a bit per node
 * (the wanted set), not 4 bytes per node. */
static void test_scratch_bytes(void **state)
{
    (void)state;
    if (!mem_active())
        skip();
    uint32_t n = 4000000, nw = 40;
    assert_true(mem_peak() < (uint64_t)n); /* the first test: nothing big allocated yet */
    node_ix *idom = random_forest(n);
    node_ix *want = random_want(idom, n, nw);
    uint32_t *cnt = malloc(nw * sizeof *cnt);
    assert_non_null(cnt);
    dom_tree t = {n, idom, NULL, 0, 0, NULL};
    /* the high point so far is the forest and the wanted set's bitmap: the count's own peak
     * is above it, or else below this bound anyway */
    uint64_t before = mem_in_use();
    assert_int_equal(trace_subtree_counts(&t, want, nw, cnt), 0);
    uint64_t extra = mem_peak() - before;
    assert_true(extra <= (uint64_t)n + n / 8 + (1u << 20));
    free(idom);
    free(want);
    free(cnt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scratch_bytes),
        cmocka_unit_test(test_few),
        cmocka_unit_test(test_hundreds),
        cmocka_unit_test(test_many),
        cmocka_unit_test(test_width_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
