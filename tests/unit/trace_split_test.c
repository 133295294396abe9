/* SPDX-License-Identifier: Apache-2.0 */
/* trace_split_test.c: trace_paths then trace_finish, with the dominator tree built between the
 * two as `analyze` can, give the same traces as trace_build with the tree built first: every
 * element (status, reason, labels, reference, retained sizes), fingerprint, group and group
 * total, and the unreachable objects, on real dumps: dialer.android-hprof (one leak found by
 * the rules; every HashMap or every ArrayList watched, for many groups, leaking objects found
 * only through others and unreachable ones), test-dump.hprof with its mapping and RI.hprof,
 * where no rule finds a leak and the suspects come from the dominator tree before trace_paths
 * runs. trace_paths leaves the
 * retained sizes unset, and (glibc) holds nothing but its result once it returns. A tree
 * keeping its retained sizes in 32 bits (DOM_RETAINED32, as analyze builds it) gives the
 * same traces, also when a size past 32 bits makes it sum again in 64. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "analysis/dominators.h"
#include "analysis/leakfind.h"
#include "analysis/trace.h"
#include "base/mfile.h"
#include "format/fmt.h"
#include "rules/mapping.h"
#include "rules/rules.h"
#include "test_fixtures.h"

static const char *str(const char *s)
{
    return s ? s : "";
}

static void same_elem(const trace_elem *a, const trace_elem *b)
{
    assert_int_equal(a->node, b->node);
    assert_int_equal(a->status, b->status);
    assert_int_equal(a->suspect, b->suspect);
    assert_int_equal(a->ref_type, b->ref_type);
    assert_int_equal(a->has_retained, b->has_retained);
    assert_int_equal(a->edge, b->edge);
    assert_true(a->retained == b->retained);
    assert_true(a->retained_count == b->retained_count);
    assert_string_equal(str(a->class_name), str(b->class_name));
    assert_string_equal(str(a->reason), str(b->reason));
    assert_string_equal(str(a->labels), str(b->labels));
    assert_string_equal(str(a->ref_name), str(b->ref_name));
    assert_string_equal(str(a->owner), str(b->owner));
}

static void same_result(const trace_result *a, const trace_result *b)
{
    assert_int_equal(a->n_traces, b->n_traces);
    assert_int_equal(a->n_groups, b->n_groups);
    assert_int_equal(a->n_app_groups, b->n_app_groups);
    assert_int_equal(a->n_unreachable, b->n_unreachable);
    assert_int_equal(a->n_also_retained, b->n_also_retained);
    for (uint32_t t = 0; t < a->n_traces; t++) {
        const trace *x = &a->traces[t], *y = &b->traces[t];
        assert_int_equal(x->leak, y->leak);
        assert_int_equal(x->root, y->root);
        assert_int_equal(x->n, y->n);
        assert_int_equal(x->lib, y->lib);
        assert_int_equal(x->group, y->group);
        assert_string_equal(x->fingerprint, y->fingerprint);
        for (uint32_t j = 0; j < x->n; j++)
            same_elem(&x->el[j], &y->el[j]);
    }
    for (uint32_t i = 0; i < a->n_groups; i++) {
        const trace_group *x = &a->groups[i], *y = &b->groups[i];
        assert_int_equal(x->library, y->library);
        assert_int_equal(x->n, y->n);
        assert_true(x->retained == y->retained);
        assert_true(x->retained_count == y->retained_count);
        assert_string_equal(x->fingerprint, y->fingerprint);
        assert_string_equal(x->short_desc, y->short_desc);
        assert_memory_equal(x->traces, y->traces, x->n * sizeof *x->traces);
    }
    for (uint32_t i = 0; i < a->n_unreachable; i++) {
        assert_int_equal(a->unreachable[i].leak, b->unreachable[i].leak);
        same_elem(&a->unreachable[i].el, &b->unreachable[i].el);
    }
}

/* Bytes the process holds in malloc'd blocks (0 where unknown). */
static size_t heap_in_use(void)
{
#ifdef __GLIBC__
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#else
    return 0;
#endif
}

/* Bytes a block takes in heap_in_use's count. */
static size_t block(const void *p)
{
#ifdef __GLIBC__
    return p ? malloc_usable_size((void *)p) + sizeof(size_t) : 0;
#else
    (void)p;
    return 0;
#endif
}

static size_t elem_bytes(const trace_elem *e)
{
    return block(e->class_name) + block(e->reason) + block(e->labels) + block(e->ref_name) +
           block(e->owner);
}

/* What a trace_result owns. */
static size_t result_bytes(const trace_result *r)
{
    size_t n = block(r->traces) + block(r->groups) + block(r->unreachable);
    for (uint32_t t = 0; t < r->n_traces; t++) {
        n += block(r->traces[t].el);
        for (uint32_t j = 0; j < r->traces[t].n; j++)
            n += elem_bytes(&r->traces[t].el[j]);
    }
    for (uint32_t i = 0; i < r->n_groups; i++)
        n += block(r->groups[i].traces);
    for (uint32_t i = 0; i < r->n_unreachable; i++)
        n += elem_bytes(&r->unreachable[i].el);
    return n;
}

/* 2^31 bytes per object: two of them overflow a 32-bit size. */
static uint64_t huge_weight(const graph *g, node_ix x, void *ctx)
{
    (void)g, (void)x, (void)ctx;
    return (uint64_t)1 << 31;
}

/* trace_finish over the trace tree built with 64-bit and with 32-bit sizes (weight: NULL or
 * huge_weight, which overflows): the same traces, group totals included. */
static void check_narrow(const graph *g, const rules_set *rs, const leak_set *ls,
                         uint64_t (*weight)(const graph *, node_ix, void *))
{
    lr_error err = {.offset = LR_NO_OFFSET};
    dom_opts wide = {0};
    wide.reach = trace_dom_filter;
    wide.reach_ctx = (void *)rs;
    wide.weight = weight;
    dom_opts narrow = wide;
    narrow.flags = DOM_RETAINED32;
    dom_tree a, b;
    trace_result ra, rb;
    assert_int_equal(dom_build_ex(g, &wide, &a, &err), LR_OK);
    assert_int_equal(dom_build_ex(g, &narrow, &b, &err), LR_OK);
    /* the narrow tree really is narrow, or fell back to 64 bits after an overflow */
    if (weight) {
        assert_non_null(b.retained);
        assert_null(b.retained32);
    } else {
        assert_null(b.retained);
        assert_non_null(b.retained32);
    }
    assert_int_equal(trace_paths(g, rs, ls, &ra, &err), LR_OK);
    assert_int_equal(trace_paths(g, rs, ls, &rb, &err), LR_OK);
    assert_int_equal(trace_finish_ex(g, rs, ls, &a, &wide, &ra, &err), LR_OK);
    assert_int_equal(trace_finish_ex(g, rs, ls, &b, &narrow, &rb, &err), LR_OK);
    same_result(&ra, &rb);
    assert_true(rb.traces[0].el[rb.traces[0].n - 1].has_retained);
    assert_true(rb.traces[0].el[rb.traces[0].n - 1].retained > 0);
    if (weight) /* past 32 bits */
        assert_true(rb.groups[0].retained > UINT32_MAX || rb.traces[0].el[0].retained >
                                                             UINT32_MAX);
    trace_result_free(&ra);
    trace_result_free(&rb);
    dom_free(&a);
    dom_free(&b);
}

static void check_dump(const char *file, const char *map, const char *watch, int want_suspects)
{
    char path[4300], mpath[4300];
    snprintf(path, sizeof path, "%s/hprof/%s", fixdir, file);
    lr_error err = {.offset = LR_NO_OFFSET};
    mfile m;
    graph g;
    assert_int_equal(mfile_open(&m, path, 0, &err), LR_OK);
    graph_init(&g);
    g.path = strdup(file);
    fmt_opts o = {.dump_index = -1};
    const fmt_reader *rd = fmt_find(m.data, m.len);
    assert_non_null(rd);
    assert_int_equal(rd->load(&g, &m, &o, &err), LR_OK);
    if (map) {
        snprintf(mpath, sizeof mpath, "%s/hprof/%s", fixdir, map);
        assert_int_equal(mapping_apply_file(&g, mpath, &err), LR_OK);
    }
    rules_set rs;
    rules_init(&rs);
    assert_int_equal(rules_load_shipped(&rs, "jdk.rules", &err), LR_OK);
    if (graph_find_class(&g, "android.os.Build") != GRAPH_NONE)
        assert_int_equal(rules_load_shipped(&rs, "android.rules", &err), LR_OK);
    if (watch)
        assert_int_equal(rules_add_watch(&rs, watch, NULL, &err), LR_OK);
    assert_int_equal(rules_bind(&rs, &g, &err), LR_OK);

    /* all in one, the tree first */
    dom_tree dt;
    leak_set ls;
    trace_result one, split;
    memset(&ls, 0, sizeof ls);
    assert_int_equal(dom_build(&g, trace_dom_filter, &rs, &dt, &err), LR_OK);
    assert_int_equal(leak_find(&g, &rs, &ls, &err), LR_OK);
    int suspects = ls.n == 0;
    assert_int_equal(suspects, want_suspects);
    if (suspects)
        assert_int_equal(leak_suspects(&g, &dt, 0.10, 0.70, &ls, &err), LR_OK);
    assert_true(ls.n > 0);
    assert_int_equal(trace_build(&g, &rs, &ls, &dt, &one, &err), LR_OK);
    assert_true(one.n_traces > 0);
    dom_free(&dt);
    leak_set_free(&ls);

    /* split: the paths without a tree, then the tree, then what needs it */
    memset(&ls, 0, sizeof ls);
    assert_int_equal(leak_find(&g, &rs, &ls, &err), LR_OK);
    if (!suspects) {
        assert_int_equal(trace_paths(&g, &rs, &ls, &split, &err), LR_OK);
        trace_result_free(&split); /* once to warm the rules' caches */
        size_t before = heap_in_use();
        assert_int_equal(trace_paths(&g, &rs, &ls, &split, &err), LR_OK);
        size_t after = heap_in_use(), held = after > before ? after - before : 0;
        size_t own = result_bytes(&split);
        printf("%s: %u traces, %zu bytes held after trace_paths, %zu of them the result's "
               "(%u nodes)\n", file, split.n_traces, held, own, g.n_nodes);
        /* nothing but the result (and blocks malloc keeps for reuse): no byte per node */
        assert_true(held <= own || held - own < g.n_nodes / 2);
        for (uint32_t t = 0; t < split.n_traces; t++)
            for (uint32_t j = 0; j < split.traces[t].n; j++)
                assert_int_equal(split.traces[t].el[j].has_retained, 0);
        for (uint32_t i = 0; i < split.n_groups; i++)
            assert_true(split.groups[i].retained == 0);
    }
    assert_int_equal(dom_build(&g, trace_dom_filter, &rs, &dt, &err), LR_OK);
    if (suspects) {
        assert_int_equal(leak_suspects(&g, &dt, 0.10, 0.70, &ls, &err), LR_OK);
        assert_int_equal(trace_paths(&g, &rs, &ls, &split, &err), LR_OK);
    }
    assert_int_equal(trace_finish(&g, &rs, &ls, &dt, &split, &err), LR_OK);
    same_result(&one, &split);
    assert_true(split.traces[0].el[0].has_retained);
    check_narrow(&g, &rs, &ls, NULL);
    check_narrow(&g, &rs, &ls, huge_weight);

    trace_result_free(&one);
    trace_result_free(&split);
    dom_free(&dt);
    leak_set_free(&ls);
    rules_fini(&rs);
    graph_fini(&g);
    mfile_close(&m);
}

static void test_split(void **state)
{
    (void)state;
    if (!tf_have("hprof", "hprof")) {
        skip();
        return;
    }
    check_dump("dialer.android-hprof", NULL, NULL, 0);
    /* 95 watched maps: 91 groups (past the 64 sized exactly), 7 found only through another
     * one ("also retains"), 2 unreachable */
    check_dump("dialer.android-hprof", NULL, "java.util.HashMap", 0);
    /* 162 watched lists, 29 unreachable */
    check_dump("dialer.android-hprof", NULL, "java.util.ArrayList", 0);
    check_dump("test-dump.hprof", "test-dump.map", NULL, 1);
    check_dump("RI.hprof", NULL, NULL, 1);
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
