/* SPDX-License-Identifier: Apache-2.0 */
/* kinship_test.c: the "one process?" test of src/analysis/kinship.c on hand-made pairs of
 * heaps with the id schemes real writers use: V8's ids that objects keep (one process, and
 * two processes whose ids collide but name other classes), and the two ways Bun renumbers
 * objects in every snapshot: 1.3.14 and later count on from the previous snapshot (the
 * ranges apart but for the root's ids 1 and 2), 1.2 gives each object its node index. A
 * renumbered pair is one process with ids_renumbered set; small heaps and HPROF dumps
 * (addresses) are never called renumbered. tests/e2e/v8_bun.sh checks the verbs on real
 * Bun snapshots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/kinship.h"
#include "test_graph.h"

#define KT_N 1200     /* objects per heap (KIN_MIN_ID_SAMPLE for the id test) */
#define KT_CLASSES 30 /* distinct class names */

enum kt_ids { KT_V8, KT_BUN_COUNTER, KT_BUN_POSITION };

/* A heap of n objects whose class names cycle through KT_CLASSES names, starting at `shift`
 * (another shift: the same classes at other positions). Ids by scheme: V8 1, 3, 5, ... from
 * `first`; Bun's counter 1, 2 (root and (GC roots)) then first, first + 1, ...; Bun's
 * positions the node index, but for one object with a large id (as Bun 1.2 writes). */
static void kt_heap(graph *g, uint32_t n, uint32_t shift, enum kt_ids ids, uint64_t first)
{
    static char names[KT_N][16];
    static const char *ptrs[KT_N];
    for (uint32_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "K%02u", (i + shift) % KT_CLASSES);
        ptrs[i] = names[i];
    }
    tg_nodes(g, n, ptrs, 16);
    for (uint32_t i = 0; i < n; i++)
        g->node_id[i] = ids == KT_V8             ? first + 2 * (uint64_t)i
                        : ids == KT_BUN_POSITION ? (i == n / 2 ? 3652511 : i)
                        : i < 2                  ? i + 1
                                                 : first + i - 2;
}

/* kin_compare of two heaps of one format; *renumbered gets ids_renumbered. */
static int kt_compare_as(graph *a, graph *b, const char *format, int *renumbered)
{
    kin_print pa, pb;
    kin_stats s;
    char why[256];
    lr_error err = {0};
    assert_int_equal(kin_print_build(a, format, &pa, &err), LR_OK);
    assert_int_equal(kin_print_build(b, format, &pb, &err), LR_OK);
    int ok = kin_compare(&pa, &pb, 1, &s, why, sizeof why);
    *renumbered = s.ids_renumbered;
    kin_print_free(&pa);
    kin_print_free(&pb);
    graph_fini(a);
    graph_fini(b);
    return ok;
}

static int kt_compare(graph *a, graph *b, int *renumbered)
{
    return kt_compare_as(a, b, "v8", renumbered);
}

/* V8: the later snapshot keeps the earlier one's ids for its first objects. */
static void test_v8_one_process(void **state)
{
    (void)state;
    graph a, b;
    int ren;
    kt_heap(&a, KT_N, 0, KT_V8, 1);
    kt_heap(&b, KT_N, 20, KT_V8, 1 + 2 * 20); /* 20 objects gone, 20 new at the end */
    assert_int_equal(kt_compare(&a, &b, &ren), 1);
    assert_int_equal(ren, 0);
}

/* V8: two processes both count 1, 3, 5, ...; the shared ids name other classes. */
static void test_v8_two_processes(void **state)
{
    (void)state;
    graph a, b;
    int ren;
    kt_heap(&a, KT_N, 0, KT_V8, 1);
    kt_heap(&b, KT_N, 7, KT_V8, 1);
    assert_int_equal(kt_compare(&a, &b, &ren), 0);
    assert_int_equal(ren, 0);
}

/* Two heaps of format whose shared ids name other classes: refused, and why says text. */
static void kt_refused_says(const char *format, const char *text)
{
    graph a, b;
    kin_print pa, pb;
    kin_stats s;
    char why[256];
    lr_error err = {0};
    kt_heap(&a, KT_N, 0, KT_V8, 1);
    kt_heap(&b, KT_N, 7, KT_V8, 1);
    assert_int_equal(kin_print_build(&a, format, &pa, &err), LR_OK);
    assert_int_equal(kin_print_build(&b, format, &pb, &err), LR_OK);
    assert_int_equal(kin_compare(&pa, &pb, 1, &s, why, sizeof why), 0);
    assert_non_null(strstr(why, text));
    kin_print_free(&pa);
    kin_print_free(&pb);
    graph_fini(&a);
    graph_fini(&b);
}

/* Ids that change class may be one process: HPROF's whose collector moved objects (Serial
 * GC compacting between dumps), V8's snapshots each taken by a new inspector session. The
 * refusal says so, where "different processes" alone led to --force, which compares garbage
 * there. */
static void test_hprof_moved_says_so(void **state)
{
    (void)state;
    kt_refused_says("hprof", "the collector moved objects");
    kt_refused_says("v8", "new inspector session");
}

/* V8: the same heap but for its last `js` objects, JavaScript objects of class "Object"
 * named name_i (tag: 0 = each takes its own name, 1 = shifted by one). */
static void kt_js_heap(graph *g, uint32_t js, int shifted)
{
    lr_error err = {0};
    kt_heap(g, KT_N, 0, KT_V8, 1);
    g->node_name = calloc(KT_N, sizeof *g->node_name);
    assert_non_null(g->node_name);
    str_ix object;
    assert_int_equal(graph_intern(g, "Object", 6, &object, &err), LR_OK);
    for (uint32_t i = 0; i < KT_N - js; i++)
        g->node_kind[i] = GRAPH_KIND_CODE; /* the VM's own: maps, code, ... */
    for (uint32_t i = KT_N - js; i < KT_N; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "name_%u", i + (uint32_t)shifted);
        assert_int_equal(graph_intern(g, nm, strlen(nm), &g->node_name[i], &err), LR_OK);
        g->classes[g->node_class[i]].name = object;
    }
}

/* V8: two isolates number their start-up objects alike (same ids, same classes) but their
 * JavaScript objects' names differ at the shared ids; one isolate keeps them. */
static void test_v8_two_isolates(void **state)
{
    (void)state;
    graph a, b;
    int ren;
    kt_js_heap(&a, 300, 0);
    kt_js_heap(&b, 300, 1);
    assert_int_equal(kt_compare(&a, &b, &ren), 0);
    kt_js_heap(&a, 300, 0);
    kt_js_heap(&b, 300, 0);
    assert_int_equal(kt_compare(&a, &b, &ren), 1);
    /* below KIN_MIN_JS_SAMPLE, the names do not decide */
    kt_js_heap(&a, KIN_MIN_JS_SAMPLE - 1, 0);
    kt_js_heap(&b, KIN_MIN_JS_SAMPLE - 1, 1);
    assert_int_equal(kt_compare(&a, &b, &ren), 1);
}

/* Bun 1.3.14+: ids 1, 2, then a counter going on from the previous snapshot; either order. */
static void test_bun_counter(void **state)
{
    (void)state;
    graph a, b;
    int ren;
    kt_heap(&a, KT_N, 0, KT_BUN_COUNTER, 3);
    kt_heap(&b, KT_N, 0, KT_BUN_COUNTER, 3 + KT_N);
    assert_int_equal(kt_compare(&a, &b, &ren), 1);
    assert_int_equal(ren, 1);
    kt_heap(&a, KT_N, 0, KT_BUN_COUNTER, 3);
    kt_heap(&b, KT_N, 0, KT_BUN_COUNTER, 3 + KT_N);
    assert_int_equal(kt_compare(&b, &a, &ren), 1);
    assert_int_equal(ren, 1);
}

/* Bun 1.2: every id is the node's index, so equal ids name other objects: one process all
 * the same (the id test said "different processes" before ids_renumbered). */
static void test_bun_positions(void **state)
{
    (void)state;
    graph a, b;
    int ren;
    kt_heap(&a, KT_N, 0, KT_BUN_POSITION, 0);
    kt_heap(&b, KT_N - 10, 7, KT_BUN_POSITION, 0);
    assert_int_equal(kt_compare(&a, &b, &ren), 1);
    assert_int_equal(ren, 1);
}

/* Under KIN_MIN_RENUM_OBJS objects a side, disjoint ids prove nothing. */
static void test_small_heaps(void **state)
{
    (void)state;
    graph a, b;
    int ren;
    kt_heap(&a, KIN_MIN_RENUM_OBJS - 1, 0, KT_BUN_COUNTER, 3);
    kt_heap(&b, KIN_MIN_RENUM_OBJS - 1, 0, KT_BUN_COUNTER, 3 + KT_N);
    assert_int_equal(kt_compare(&a, &b, &ren), 1);
    assert_int_equal(ren, 0);
}

/* HPROF ids are addresses: ranges apart (a 32-bit and a 64-bit JVM) are not renumbering. */
static void test_hprof_addresses(void **state)
{
    (void)state;
    graph a, b;
    int ren;
    kt_heap(&a, KT_N, 0, KT_BUN_COUNTER, 0x10000);
    kt_heap(&b, KT_N, 0, KT_BUN_COUNTER, 0x7f0000000000ull);
    kt_compare_as(&a, &b, "hprof", &ren);
    assert_int_equal(ren, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v8_one_process), cmocka_unit_test(test_v8_two_processes),
        cmocka_unit_test(test_hprof_moved_says_so),
        cmocka_unit_test(test_v8_two_isolates),
        cmocka_unit_test(test_bun_counter),    cmocka_unit_test(test_bun_positions),
        cmocka_unit_test(test_small_heaps),    cmocka_unit_test(test_hprof_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
