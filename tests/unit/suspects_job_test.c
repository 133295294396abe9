/* SPDX-License-Identifier: Apache-2.0 */
/* suspects_job_test.c: ret_suspects_start/ret_suspects_join (src/analysis/retained.c), the
 * LARGEST RETAINERS computed on a second thread while the caller builds another dominator
 * tree over the same graph, as `analyze` does. On real fixtures of each retained-size model
 * (VisualVM's on HotSpot, strong less Bitmap.dumpData on Android, DevTools' on V8) the
 * threaded job must give exactly what ret_suspects gives on one thread, with the traces'
 * kind of tree built meanwhile equal to one built alone; a memory limit without room for two
 * trees' scratch, or one CPU to run on, runs the job on the caller's thread, with the same
 * result, and so do its passes split in halves on two threads. The library's
 * lr_analyze, threaded the same way, must answer as it does sequentially; and the suspects'
 * tree, whose retained sizes are kept in 32 bits (DOM_RETAINED32), must equal the 64-bit
 * one, also when a size overflows 32 bits and the sums run again. The report made from the
 * suspects' tree the analysis kept (lr_analyze_keep) must equal one made from its own. */
#define _GNU_SOURCE /* sched_getaffinity, sched_setaffinity */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/dominators.h"
#include "analysis/retained.h"
#include "base/mem.h"
#include "base/spill.h"
#include "format/v8.h"
#include "graph/graph.h"
#include "leakray/analysis.h"
#include "leakray/leakray.h"
#include "lr_internal.h"

#include "test_fixtures.h"

static lr_heap *open_fix(const char *rel)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", fixdir, rel);
    lr_heap *h = NULL;
    lr_error err = {0};
    if (lr_open(p, NULL, &h, &err) != LR_OK)
        fail_msg("lr_open %s: %s", rel, err.msg);
    return h;
}

static void same_suspects(const susp_result *a, const susp_result *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->total, b->total);
    assert_string_equal(a->model, b->model);
    for (uint32_t i = 0; i < a->n; i++) {
        const susp_item *x = &a->v[i], *y = &b->v[i];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->node, y->node);
        assert_int_equal(x->retained, y->retained);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->accumulation, y->accumulation);
        assert_string_equal(x->text, y->text);
        assert_string_equal(x->root_name, y->root_name);
        assert_int_equal(x->path_n, y->path_n);
        assert_int_equal(x->path_root, y->path_root);
        for (uint32_t k = 0; k < x->path_n; k++) {
            assert_int_equal(x->path[k], y->path[k]);
            assert_int_equal(x->path_retained[k], y->path_retained[k]);
            if (k + 1 < x->path_n)
                assert_int_equal(x->path_edges[k], y->path_edges[k]);
        }
    }
}

/* One fixture: the suspects alone, then the job with a plain strong tree built meanwhile
 * on this thread (compared with the same tree built alone). */
/* CPUs this process may run on (2 when unknown). */
static int cpus(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 2;
}

static void check(const char *rel, uint32_t want_suspects)
{
    lr_heap *h = open_fix(rel);
    const graph *g = lr_heap_graph(h);
    const str_ix *keys = v8_class_keys(g);
    lr_error err = {0};
    susp_result alone, job;
    assert_int_equal(ret_suspects(g, keys, SUSP_SHARE_DEFAULT, SUSP_ACCUMULATION_DEFAULT,
                                  &alone, &err), LR_OK);
    assert_true(alone.n >= want_suspects);
    /* the passes over the nodes and the walks along the paths in halves on two threads
     * (RET_PAR_MIN, a million nodes, lowered to split on a fixture): the same answer */
    susp_result halves;
    ret_par_min = 1;
    lr_status hst = ret_suspects(g, keys, SUSP_SHARE_DEFAULT, SUSP_ACCUMULATION_DEFAULT,
                                 &halves, &err);
    ret_par_min = RET_PAR_MIN;
    assert_int_equal(hst, LR_OK);
    same_suspects(&alone, &halves);
    susp_free(&halves);
    dom_tree t0, t1;
    assert_int_equal(dom_build(g, NULL, NULL, &t0, &err), LR_OK);

    ret_job j;
    int threaded;
    ret_suspects_start(&j, g, keys, SUSP_SHARE_DEFAULT, SUSP_ACCUMULATION_DEFAULT, 1, &job);
    /* split_min 1 and no memory limit: a second thread, given a second CPU */
    assert_int_equal(j.threaded, cpus() >= 2);
    assert_int_equal(dom_build(g, NULL, NULL, &t1, &err), LR_OK);
    assert_int_equal(ret_suspects_join(&j, &err), LR_OK);
    same_suspects(&alone, &job);
    assert_int_equal(t0.n_reachable, t1.n_reachable);
    assert_int_equal(t0.total_reachable, t1.total_reachable);
    assert_memory_equal(t0.idom, t1.idom, (size_t)t0.n * sizeof *t0.idom);
    assert_memory_equal(t0.retained, t1.retained, (size_t)t0.n * sizeof *t0.retained);
    susp_free(&job);
    dom_free(&t1);

    /* a limit that leaves no room for a second tree's scratch: run at once, same answer */
    uint64_t lim = mem_limit();
    mem_set_limit(dom_scratch_bytes(g));
    ret_suspects_start(&j, g, keys, SUSP_SHARE_DEFAULT, SUSP_ACCUMULATION_DEFAULT, 1, &job);
    assert_false(j.threaded);
    mem_set_limit(lim);
    assert_int_equal(ret_suspects_join(&j, &err), LR_OK);
    same_suspects(&alone, &job);
    susp_free(&job);
    /* the same limit with spilling on: what it cannot hold is page cache, which the
     * machine holds many times over beside this fixture, so a second thread after all */
    uint64_t need = dom_scratch_bytes(g), avail = mem_available_now();
    spill_set_dir("/tmp");
    uint64_t disk = spill_room();
    mem_set_limit(need);
    ret_suspects_start(&j, g, keys, SUSP_SHARE_DEFAULT, SUSP_ACCUMULATION_DEFAULT, 1, &job);
    threaded = j.threaded;
    mem_set_limit(lim);
    spill_set_dir(NULL);
    if (avail >= g->data_len + 4 * need && disk >= 4 * need)
        assert_int_equal(threaded, cpus() >= 2);
    assert_int_equal(ret_suspects_join(&j, &err), LR_OK);
    same_suspects(&alone, &job);
    susp_free(&job);

    /* one CPU to run on: the two threads would take turns for no time saved, with both
     * trees' scratch alive at once, so at once as well */
    cpu_set_t was, one;
    assert_int_equal(sched_getaffinity(0, sizeof was, &was), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &was)) {
            CPU_SET(c, &one);
            break;
        }
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    ret_suspects_start(&j, g, keys, SUSP_SHARE_DEFAULT, SUSP_ACCUMULATION_DEFAULT, 1, &job);
    threaded = j.threaded;
    assert_int_equal(sched_setaffinity(0, sizeof was, &was), 0);
    assert_false(threaded);
    assert_int_equal(ret_suspects_join(&j, &err), LR_OK);
    same_suspects(&alone, &job);
    susp_free(&job);

    /* below split_min: at once as well */
    ret_suspects_start(&j, g, keys, SUSP_SHARE_DEFAULT, SUSP_ACCUMULATION_DEFAULT,
                       g->n_nodes + 1, &job);
    assert_false(j.threaded);
    assert_int_equal(ret_suspects_join(&j, &err), LR_OK);
    same_suspects(&alone, &job);
    susp_free(&job);

    dom_free(&t0);
    susp_free(&alone);
    lr_close(h);
}

static void hotspot_visualvm(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF"))
        skip();
    check("hprof/openjdk_jdk11_04_x64.hprof.gz", 1);
    check("hprof/oracle_jdk8_05_x64.hprof", 0);
}

static void android_strong(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF"))
        skip();
    check("hprof/dialer.android-hprof", 2);
}

static void v8_devtools(void **state)
{
    (void)state;
    if (!tf_have("v8", "V8"))
        skip();
    check("v8/test.heapsnapshot", 1);
}

/* When both trees' scratch may be alive at once (ret_job_room), in the figures of the two
 * bench dumps: the 1 GB one under a limit of half its size spills a few hundred MB that
 * the page cache holds (both trees at once); the 21.6 GB one, past its limit by more than
 * the machine holds beside the dump, builds them one after the other. */
static void job_room(void **state)
{
    (void)state;
    const uint64_t M = 1000000, G = 1000 * M, D = 50 * G; /* free in the spill folder */
    assert_true(ret_job_room(0, 300 * M, 493 * M, 0, 0, G));          /* no limit */
    assert_true(ret_job_room(2 * G, 300 * M, 493 * M, 0, 0, G));      /* room */
    assert_false(ret_job_room(505 * M, 300 * M, 493 * M, 0, 20 * G, G)); /* spill off */
    assert_true(ret_job_room(505 * M, 300 * M, 493 * M, D, 20 * G, G));
    assert_false(ret_job_room(505 * M, 300 * M, 493 * M, D, 2 * G, G)); /* 2 x 781 MB */
    assert_false(ret_job_room(505 * M, 300 * M, 493 * M, G, 20 * G, G)); /* disk */
    assert_true(ret_job_room(505 * M, 300 * M, 493 * M, 2 * G, 20 * G, G));
    assert_false(ret_job_room(505 * M, 600 * M, 493 * M, D, 2 * G, G)); /* over already */
    assert_true(ret_job_room(505 * M, 600 * M, 493 * M, D, 3 * G, G));
    assert_false(ret_job_room(10800 * M, 9 * G, 9800 * M, D, 12 * G, 21600 * M));
    assert_false(ret_job_room(10800 * M, 9 * G, 9800 * M, D, 0, 21600 * M)); /* unknown */
}

/* ---- the library: lr_analyze threaded and sequential ---- */

static void same_analysis(const lr_analysis *a, const lr_analysis *b)
{
    lr_error err = {0};
    assert_int_equal(lr_analysis_suspects(a), lr_analysis_suspects(b));
    assert_int_equal(lr_analysis_trace_count(a), lr_analysis_trace_count(b));
    assert_int_equal(lr_analysis_unreachable_count(a), lr_analysis_unreachable_count(b));
    assert_int_equal(lr_analysis_group_count(a), lr_analysis_group_count(b));
    for (uint32_t i = 0; i < lr_analysis_group_count(a); i++) {
        lr_leak_group x, y;
        assert_int_equal(lr_analysis_group(a, i, &x, &err), LR_OK);
        assert_int_equal(lr_analysis_group(b, i, &y, &err), LR_OK);
        assert_string_equal(x.signature, y.signature);
        assert_int_equal(x.retained, y.retained);
        assert_int_equal(x.retained_objects, y.retained_objects);
    }
    assert_int_equal(lr_analysis_suspect_count(a), lr_analysis_suspect_count(b));
    assert_int_equal(lr_analysis_suspect_heap(a), lr_analysis_suspect_heap(b));
    for (uint32_t i = 0; i < lr_analysis_suspect_count(a); i++) {
        lr_suspect x, y;
        assert_int_equal(lr_analysis_suspect(a, i, &x, &err), LR_OK);
        assert_int_equal(lr_analysis_suspect(b, i, &y, &err), LR_OK);
        assert_string_equal(x.description, y.description);
        assert_int_equal(x.object, y.object);
        assert_int_equal(x.retained, y.retained);
        assert_int_equal(x.accumulation, y.accumulation);
        assert_int_equal(x.accumulation_retained, y.accumulation_retained);
        assert_int_equal(x.path_length, y.path_length);
        for (uint32_t k = 0; k < x.path_length; k++)
            assert_int_equal(lr_analysis_suspect_path(a, i, k),
                             lr_analysis_suspect_path(b, i, k));
    }
}

/* want_traces and want_suspects: at least this many (so the comparison covers both). */
static void check_library(const char *rel, uint32_t want_traces, uint32_t want_suspects)
{
    lr_heap *h = open_fix(rel);
    lr_error err = {0};
    lr_analysis *seq = NULL, *thr = NULL;
    uint32_t old = ret_split_min;
    ret_split_min = UINT32_MAX; /* one thread */
    assert_int_equal(lr_analyze(h, NULL, &seq, &err), LR_OK);
    ret_split_min = 1; /* the suspects on a second thread beside the traces' tree */
    assert_int_equal(lr_analyze(h, NULL, &thr, &err), LR_OK);
    ret_split_min = old;
    assert_true(lr_analysis_trace_count(seq) >= want_traces);
    assert_true(lr_analysis_suspect_count(seq) >= want_suspects);
    same_analysis(seq, thr);
    lr_analysis_free(seq);
    lr_analysis_free(thr);
    lr_close(h);
}

static void library_job(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF"))
        skip();
    check_library("hprof/dialer.android-hprof", 1, 2);
    check_library("hprof/openjdk_jdk11_04_x64.hprof.gz", 0, 1);
}

/* ---- the report taking over the suspects' tree ---- */

/* The report model (LR_RENDER_JSON, no timings) of an analysis of h, the suspects' tree kept
 * or not, on one thread or two. */
static char *report_json(lr_heap *h, int keep, uint32_t split_min)
{
    lr_error err = {0};
    lr_analysis *an = NULL;
    uint32_t old = ret_split_min;
    ret_split_min = split_min;
    assert_int_equal(lr_analyze_keep(h, NULL, keep, &an, &err), LR_OK);
    ret_split_min = old;
    /* kept: the tree is there until the render takes it over */
    assert_int_equal(an->kept.impl != NULL, keep != 0);
    lr_render_opts ro = {1, NULL};
    char *buf = NULL;
    size_t len = 0;
    assert_int_equal(lr_render_buffer(an, LR_RENDER_JSON, &ro, &buf, &len, &err), LR_OK);
    assert_null(an->kept.impl);
    assert_true(an->has_tree);
    lr_analysis_free(an);
    return buf;
}

/* The page made from the kept tree is the page made from a tree built for it, byte for
 * byte: VisualVM's model, the strong model less Bitmap.dumpData, DevTools' (whose Summary
 * comes from the kept tree too). */
static void kept_tree(void **state)
{
    (void)state;
    const char *fix[] = {"hprof/openjdk_jdk11_04_x64.hprof.gz", "hprof/dialer.android-hprof",
                         "v8/heap-1.heapsnapshot"};
    for (size_t i = 0; i < sizeof fix / sizeof *fix; i++) {
        if (!tf_have(i < 2 ? "hprof" : "v8", i < 2 ? "HPROF" : "V8"))
            continue;
        lr_heap *h = open_fix(fix[i]);
        char *want = report_json(h, 0, UINT32_MAX);
        assert_true(strlen(want) > 1000);
        for (uint32_t split = 0; split < 2; split++) {
            char *got = report_json(h, 1, split ? 1 : UINT32_MAX);
            assert_string_equal(want, got);
            free(got);
        }
        free(want);
        lr_close(h);
    }
}

/* ---- retained sizes in 32 bits ---- */

/* 2^31 bytes per object: two of them overflow a 32-bit size. */
static uint64_t huge_weight(const graph *g, node_ix x, void *ctx)
{
    (void)g, (void)x, (void)ctx;
    return (uint64_t)1 << 31;
}

/* The same tree built with and without DOM_RETAINED32: same idoms and totals, the narrow
 * sizes equal to the wide ones (or absent after an overflow, the wide ones then equal). */
static void check_narrow(const graph *g, const dom_opts *o, int overflows)
{
    lr_error err = {0};
    dom_opts wide = *o, narrow = *o;
    narrow.flags |= DOM_RETAINED32;
    dom_tree a, b;
    assert_int_equal(dom_build_ex(g, &wide, &a, &err), LR_OK);
    assert_int_equal(dom_build_ex(g, &narrow, &b, &err), LR_OK);
    assert_non_null(a.retained);
    assert_null(a.retained32);
    assert_int_equal(a.total_reachable, b.total_reachable);
    assert_int_equal(a.n_reachable, b.n_reachable);
    assert_memory_equal(a.idom, b.idom, (size_t)a.n * sizeof *a.idom);
    if (overflows) {
        assert_null(b.retained32);
        assert_non_null(b.retained);
        assert_memory_equal(a.retained, b.retained, (size_t)a.n * sizeof *a.retained);
    } else {
        assert_null(b.retained);
        assert_non_null(b.retained32);
        for (uint32_t x = 0; x < a.n; x++) {
            assert_int_equal(a.retained[x], b.retained32[x]);
            assert_int_equal(dom_retained(&a, x), dom_retained(&b, x));
        }
    }
    dom_free(&a);
    dom_free(&b);
}

static void narrow_sizes(void **state)
{
    (void)state;
    if (!tf_have("hprof", "HPROF"))
        skip();
    const char *fix[] = {"hprof/openjdk_jdk11_04_x64.hprof.gz", "hprof/dialer.android-hprof"};
    for (size_t i = 0; i < sizeof fix / sizeof *fix; i++) {
        lr_heap *h = open_fix(fix[i]);
        const graph *g = lr_heap_graph(h);
        dom_opts o;
        memset(&o, 0, sizeof o);
        check_narrow(g, &o, 0); /* strong references */
        o.weight = huge_weight;
        check_narrow(g, &o, 1);
        dom_opts_visualvm(&o); /* VisualVM's tree objects keep their sums in the array */
        check_narrow(g, &o, 0);
        o.weight = huge_weight;
        check_narrow(g, &o, 1);
        lr_close(h);
    }
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(job_room),
        cmocka_unit_test(hotspot_visualvm),
        cmocka_unit_test(android_strong),
        cmocka_unit_test(v8_devtools),
        cmocka_unit_test(library_job),
        cmocka_unit_test(kept_tree),
        cmocka_unit_test(narrow_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
