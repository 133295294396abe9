/* SPDX-License-Identifier: Apache-2.0 */
/* trace_reach_test.c: the rules' edge table (trace_dom_table) gives trace_dom_filter's answer
 * for every edge it answers, on every edge of real dumps: the HotSpot, hprof-agent and
 * Android fixtures with the shipped rules (jdk.rules, android.rules on Android dumps), the
 * same with rules written for each dump that ignore and flag as library leaks instance
 * fields, statics and a thread's locals it really has, and V8 snapshots (class objects,
 * internal and weak edges of their own). The filter is left only a small share of the edges,
 * and the dominator trees built with the table (alone and with a link filter) equal those
 * built with the filter alone, node for node. */
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
#include "base/mfile.h"
#include "format/fmt.h"
#include "rules/rules.h"
#include "test_fixtures.h"

typedef struct dump {
    mfile m;
    graph g;
} dump;

static void load(dump *d, const char *sub, const char *file)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s/%s", fixdir, sub, file);
    lr_error err = {.offset = LR_NO_OFFSET};
    assert_int_equal(mfile_open(&d->m, path, 0, &err), LR_OK);
    graph_init(&d->g);
    d->g.path = strdup(file);
    fmt_opts o = {.dump_index = -1};
    const fmt_reader *rd = fmt_find(d->m.data, d->m.len);
    assert_non_null(rd);
    assert_int_equal(rd->load(&d->g, &d->m, &o, &err), LR_OK);
}

static void unload(dump *d)
{
    graph_fini(&d->g);
    mfile_close(&d->m);
}

/* Whether s is a name the rules' lexer reads as one word (class and field names). */
static int plain(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '$' || *s == '_'))
            return 0;
    return 1;
}

/* Appends a rule "ACTION KIND CLS#F" for the first strong edge of kind `kind` at or after
 * edge from_e whose names are plain; returns 1 when there is one. */
static int add_ref(const graph *g, char *buf, size_t cap, const char *action, unsigned kind,
                   edge_ix from_e)
{
    for (node_ix x = 0; x < g->n_nodes; x++) {
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            uint8_t k = g->edge_kind[e];
            if (e < from_e || GRAPH_EDGE_KIND(k) != kind || GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG)
                continue;
            class_ix c = kind == GRAPH_EDGE_STATIC ? graph_class_of_node(g, x)
                                                   : graph_node_class(g, x);
            if (c >= g->n_classes)
                continue;
            const char *cn = graph_str(g, g->classes[c].name);
            const char *fn = graph_str(g, graph_edge_name_from(g, x, e));
            if (!plain(cn) || !plain(fn))
                continue;
            size_t n = strlen(buf);
            snprintf(buf + n, cap - n, "%s %s %s#%s%s\n", action,
                     kind == GRAPH_EDGE_STATIC ? "static" : "instance", cn, fn,
                     !strcmp(action, "library-leak") ? " description \"test\"" : "");
            return 1;
        }
    }
    return 0;
}

/* Rules naming references the dump has: instance fields and statics at a few places of the
 * edge list, ignored and flagged, and the locals of its first named thread. */
static void dump_rules(const graph *g, char *buf, size_t cap)
{
    buf[0] = 0;
    int nf = 0, ns = 0;
    for (int i = 0; i < 4; i++) {
        edge_ix at = (edge_ix)((uint64_t)g->n_edges * (uint64_t)(2 * i + 1) / 8);
        const char *fa = i == 1 ? "library-leak" : "ignore";
        const char *sa = i == 2 ? "library-leak" : "ignore";
        nf += add_ref(g, buf, cap, fa, GRAPH_EDGE_FIELD, at) ||
              add_ref(g, buf, cap, fa, GRAPH_EDGE_FIELD, 0);
        ns += add_ref(g, buf, cap, sa, GRAPH_EDGE_STATIC, at) ||
              add_ref(g, buf, cap, sa, GRAPH_EDGE_STATIC, 0);
    }
    assert_true(nf > 0);
    assert_true(ns > 0);
    for (uint32_t i = 0; i < g->n_threads; i++) {
        char tn[256];
        if (g->threads[i].node >= g->n_nodes ||
            !*rules_thread_name(g, g->threads[i].node, tn, sizeof tn) || strchr(tn, '"'))
            continue;
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, "ignore java-local \"%s\"\n", tn);
        break;
    }
}

/* Every edge: the table's answer, where it gives one, is the filter's. Returns the edges
 * left to the filter; *dropped counts those the filter drops. */
static uint64_t same_answers(const graph *g, const rules_set *rs, const dom_reach_table *t,
                             uint64_t *dropped)
{
    uint64_t asked = 0, follow = 0;
    *dropped = 0;
    for (node_ix x = 0; x < g->n_nodes; x++)
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            int a = dom_reach_table_answer(g, t, x, e);
            int f = trace_dom_filter(g, e, (void *)rs) != 0;
            if (a < 0) {
                asked++;
                *dropped += !f;
                continue;
            }
            follow += f;
            if (a != f)
                fail_msg("%s: edge %u from node %u (kind byte %u): table %d, filter %d",
                         g->path, e, x, g->edge_kind[e], a, f);
        }
    assert_true(follow > 0);
    return asked;
}

static void same_tree(const dom_tree *a, const dom_tree *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->n_reachable, b->n_reachable);
    assert_true(a->total_reachable == b->total_reachable);
    assert_memory_equal(a->idom, b->idom, (size_t)a->n * sizeof *a->idom);
    for (node_ix x = 0; x < a->n; x++)
        assert_true(dom_retained(a, x) == dom_retained(b, x));
}

/* The traces' tree (and one with a link filter) with and without the table. */
static void same_trees(const graph *g, const rules_set *rs, const dom_reach_table *t)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    node_ix *lfrom, *lto;
    dom_opts o = {0};
    o.reach = trace_dom_filter;
    o.reach_ctx = (void *)rs;
    o.root = trace_dom_root;
    o.root_ctx = (void *)rs;
    o.flags = DOM_RETAINED32;
    assert_int_equal(trace_dom_locals(g, rs, &lfrom, &lto, &o.n_extra, &err), LR_OK);
    o.extra_from = lfrom;
    o.extra_to = lto;
    dom_opts ot = o;
    ot.reach_table = t;
    dom_tree a, b;
    assert_int_equal(dom_build_ex(g, &o, &a, &err), LR_OK);
    assert_int_equal(dom_build_ex(g, &ot, &b, &err), LR_OK);
    assert_true(a.n_reachable > 0);
    same_tree(&a, &b);
    dom_free(&a);
    dom_free(&b);
    /* the reach pass with a link filter asks both in one pass */
    o.n_extra = 0;
    o.link = trace_dom_filter;
    o.link_ctx = (void *)rs;
    o.flags |= DOM_UNREACHED_AS_ROOTS;
    ot = o;
    ot.reach_table = t;
    assert_int_equal(dom_build_ex(g, &o, &a, &err), LR_OK);
    assert_int_equal(dom_build_ex(g, &ot, &b, &err), LR_OK);
    same_tree(&a, &b);
    dom_free(&a);
    dom_free(&b);
    free(lfrom);
    free(lto);
}

/* One dump with the shipped rules, then with rules naming its own references. */
static void check(const char *sub, const char *file, int own_rules)
{
    dump d;
    load(&d, sub, file);
    const graph *g = &d.g;
    lr_error err = {.offset = LR_NO_OFFSET};
    for (int pass = 0; pass < 1 + own_rules; pass++) {
        rules_set rs;
        rules_init(&rs);
        assert_int_equal(rules_load_shipped(&rs, "jdk.rules", &err), LR_OK);
        if (graph_find_class(g, "android.os.Build") != GRAPH_NONE)
            assert_int_equal(rules_load_shipped(&rs, "android.rules", &err), LR_OK);
        char text[8192] = "";
        if (pass) {
            dump_rules(g, text, sizeof text);
            assert_int_equal(rules_parse(&rs, "dump.rules", text, strlen(text), &err), LR_OK);
        }
        assert_int_equal(rules_bind(&rs, g, &err), LR_OK);
        dom_reach_table t;
        assert_int_equal(trace_dom_table(g, &rs, &t, &err), LR_OK);
        uint64_t dropped, asked = same_answers(g, &rs, &t, &dropped);
        if (pass)
            printf("%s", text);
        printf("%s%s: %u edges, %llu left to the filter, %llu of them dropped\n", file,
               pass ? " (own rules)" : "", g->n_edges, (unsigned long long)asked,
               (unsigned long long)dropped);
        /* with the shipped rules the table answers nearly every edge (the filter sees the
         * few classes they name); the rules written here name the dump's most common ones */
        if (!pass)
            assert_true(asked * 20 <= g->n_edges);
        else
            assert_true(dropped > 0 && dropped < asked); /* ignore rules and others met */
        same_trees(g, &rs, &t);
        trace_dom_table_free(&t);
        rules_fini(&rs);
    }
    unload(&d);
}

static void test_hprof(void **state)
{
    (void)state;
    if (!tf_have("hprof", "hprof")) {
        skip();
        return;
    }
    static const char *const files[] = {
        "dialer.android-hprof",      "RI.hprof",
        "oracle_jdk8_05_x64.hprof",  "oracle_jdk7_21_hprofagent.hprof",
        "sun_jdk6_18_x64.hprof",     "sun_jdk5_13_x32.hprof",
        "test-dump.hprof",           "sun_jdk6_30_x64_compressedOops.hprof",
        "tokuhirom-heapdump_object_heapdump.hprof",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        check("hprof", files[i], 1);
}

static void test_v8(void **state)
{
    (void)state;
    if (!tf_have("v8", "v8")) {
        skip();
        return;
    }
    check("v8", "weakrefs.heapsnapshot", 0);
    check("v8", "closures.heapsnapshot", 0);
}

/* Rules bound to another graph: the table leaves every edge to the filter. */
static void test_unbound(void **state)
{
    (void)state;
    graph g;
    graph_init(&g);
    rules_set rs;
    rules_init(&rs);
    dom_reach_table t;
    lr_error err = {.offset = LR_NO_OFFSET};
    assert_int_equal(trace_dom_table(&g, &rs, &t, &err), LR_OK);
    for (unsigned k = 0; k < 256; k++)
        assert_int_equal(t.kind[k], DOM_RT_ASK);
    trace_dom_table_free(&t);
    rules_fini(&rs);
    graph_fini(&g);
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hprof),
        cmocka_unit_test(test_v8),
        cmocka_unit_test(test_unbound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
