/* SPDX-License-Identifier: Apache-2.0 */
/* rules_test.c: unit tests of src/rules/rules*.c: the grammar of docs/rules.md (every rule
 * kind, Shark's pattern strings, comments, quoting), line-numbered LR_ERR_RULES messages for
 * bad input, build-condition evaluation (API / manufacturer / build_id), and that the
 * shipped rules/jdk.rules and rules/android.rules parse with the expected rule counts (90
 * library-leak and 18 ignored references from Shark's AndroidReferenceMatchers), and on the
 * real dialer.android-hprof fixture: `in static` collection membership (ArrayMap, HashMap),
 * `fields` inspectors and `@component` with Shark's exact SERVICE / CONTEXT_FIELD wording. */
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
#include "rules/rules.h"
#include "test_graph.h"

static lr_status parse(rules_set *rs, const char *text, lr_error *err)
{
    memset(err, 0, sizeof *err);
    return rules_parse(rs, "t.rules", text, strlen(text), err);
}

static void test_grammar(void **state)
{
    (void)state;
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    const char *text =
        "# comment line\n"
        "\n"
        "ignore instance java.lang.ref.WeakReference#referent   # trailing comment\n"
        "ignore java-local \"main\"\n"
        "library-leak static android.app.Foo$Bar#sInstance when API >= 19 && API <= 28 "
        "description \"a \\\"quoted\\\" #hash\"\n"
        "library-leak native-global android.widget.Toast$TN\n"
        "inspect android.app.Activity if mDestroyed == true -> leaking \"destroyed\"\n"
        "inspect * if @anonymous && @super != \"java.lang.Object\" -> label \"Anon {@super}\"\n"
        "inspect class-object -> not-leaking \"a class is never leaking\"\n"
        "watch com.example.Page if destroyed && !(name == \"x\" || size < -3)\n";
    assert_int_equal(parse(&rs, text, &err), LR_OK);
    assert_int_equal(rs.n_refs, 4);
    assert_int_equal(rs.n_insp, 4);
    assert_string_equal(rs.refs[0].pattern, "instance field java.lang.ref.WeakReference#referent");
    assert_int_equal(rs.refs[0].action, RULES_IGNORE);
    assert_string_equal(rs.refs[1].pattern, "local variable on thread main");
    assert_string_equal(rs.refs[2].pattern, "static field android.app.Foo$Bar#sInstance");
    assert_string_equal(rs.refs[2].description, "a \"quoted\" #hash");
    assert_int_equal(rs.refs[2].line, 5);
    assert_string_equal(rs.refs[3].pattern,
                        "native global variable referencing android.widget.Toast$TN");
    assert_int_equal(rs.insp[0].verdict, RULES_LEAKING);
    assert_int_equal(rs.insp[1].subject, RULES_SUBJ_ANY);
    assert_int_equal(rs.insp[2].subject, RULES_SUBJ_CLASS_OBJECT);
    assert_int_equal(rs.insp[3].watch, 1);
    assert_int_equal(rs.insp[3].verdict, RULES_LEAKING);
    rules_fini(&rs);
}

static void expect_error(const char *text, const char *msg)
{
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    assert_int_equal(parse(&rs, text, &err), LR_ERR_RULES);
    if (!strstr(err.msg, msg)) {
        fprintf(stderr, "got '%s', want '%s'\n", err.msg, msg);
        fail();
    }
    rules_fini(&rs);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("frobnicate x\n", "t.rules:1: unknown rule keyword 'frobnicate'");
    expect_error("# ok\nignore instance Foo\n", "t.rules:2: expected CLASS#FIELD");
    expect_error("inspect Foo if a == -> leaking \"x\"\n", "t.rules:1: expected a field path");
    expect_error("inspect Foo -> maybe \"x\"\n", "t.rules:1: expected leaking, not-leaking");
    expect_error("inspect Foo -> leaking reason\n", "t.rules:1: expected a quoted reason");
    expect_error("inspect Foo -> label \"x\" find-if a is null\n",
                 "t.rules:1: 'find-if' follows a 'leaking' inspector's reason only");
    expect_error("inspect Foo -> leaking \"x\" find-if\n", "t.rules:1: expected a field path");
    expect_error("ignore java-local main\n", "t.rules:1: expected a quoted thread name");
    expect_error("library-leak static A#b description \"x\" extra\n", "unexpected 'extra'");
    expect_error("inspect Foo if (a -> label \"x\"\n", "t.rules:1: expected ')'");
    expect_error("inspect Foo -> label \"open\n", "t.rules:1: unterminated string");
    expect_error("ignore static A#b when API >= 99999999999999999999\n", "number out of range");
    /* a Java long's range exactly: Long.MAX_VALUE and Long.MIN_VALUE are numbers, one past
     * either is not */
    expect_error("inspect Foo if a == 9223372036854775808 -> label \"x\"\n", "number out of range");
    expect_error("inspect Foo if a == -9223372036854775809 -> label \"x\"\n",
                 "number out of range");
    {
        rules_set rs;
        rules_init(&rs);
        lr_error err;
        assert_int_equal(parse(&rs, "inspect Foo if a == 9223372036854775807 -> label \"x\"\n"
                                    "inspect Foo if a == -9223372036854775808 -> label \"y\"\n",
                               &err),
                         LR_OK);
        rules_fini(&rs);
    }
    expect_error("inspect Foo if a is nul -> label \"x\"\n", "expected 'null' after 'is'");
    expect_error("inspect Foo if this in mServices -> label \"x\"\n",
                 "t.rules:1: expected 'static CLASS#FIELD' after 'in'");
    expect_error("inspect Foo if this in static Foo -> label \"x\"\n",
                 "expected CLASS#FIELD[.path] after 'in static'");
    expect_error("inspect Foo if this in static Foo#a..b -> label \"x\"\n",
                 "expected CLASS#FIELD[.path] after 'in static'");
    expect_error("inspect Foo if this not static A#b -> label \"x\"\n",
                 "expected 'in' after 'not'");
    expect_error("inspect * fields android.content.Context -> leaking \"x\"\n",
                 "t.rules:1: a 'fields' inspector can only add labels");
    expect_error("inspect * fields -> label \"x\"\n", "expected a class name after 'fields'");
}

static void test_build_conditions(void **state)
{
    (void)state;
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    memset(&err, 0, sizeof err);
    rs.build.has_sdk = 1;
    rs.build.sdk = 23;
    strcpy(rs.build.manufacturer, "samsung");
    strcpy(rs.build.build_id, "TPP2.220218.008");
    rs.build.has_manufacturer = rs.build.has_build_id = 1;
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "API >= 19 && API <= 28", &err), 1);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "API == 29", &err), 0);
    assert_true(rules_eval_text(&rs, GRAPH_NONE, "manufacturer == \"samsung\" && API in_range",
                                &err) < 0);
    assert_non_null(strstr(err.msg, "unexpected 'in_range' after expression"));
    memset(&err, 0, sizeof err);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE,
                                     "(manufacturer == \"LGE\" || manufacturer == \"samsung\") "
                                     "&& !(API < 23)", &err), 1);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "build_id == \"TPP2.220218.008\"", &err),
                     1);
    /* facts the dump lacks make comparisons false, never true */
    rs.build.has_sdk = 0;
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "API >= 0", &err), 0);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "API != 5", &err), 0);
    rs.build.has_manufacturer = 0;
    rs.build.manufacturer[0] = 0;
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "manufacturer != \"samsung\"", &err), 0);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, "manufacturer == \"\"", &err), 0);
    assert_true(rules_eval_text(&rs, GRAPH_NONE, "API >=", &err) < 0);
    assert_int_equal(err.code, LR_ERR_RULES);
    rules_fini(&rs);
}

/* Hostile nesting must fail cleanly (the parser and eval recurse per level), and a long
 * "||" / "&&" chain, which is flat, must still parse and evaluate with short-circuit order. */
static void test_deep_expressions(void **state)
{
    (void)state;
    size_t n = 200000;
    char *t = malloc(3 * n + 64);
    assert_non_null(t);
    strcpy(t, "ignore static A#b when ");
    size_t k = strlen(t);
    memset(t + k, '(', n);
    strcpy(t + k + n, "API == 1");
    memset(t + k + n + 8, ')', n);
    strcpy(t + k + 2 * n + 8, "\n");
    expect_error(t, "t.rules:1: expression nested too deeply");
    strcpy(t, "ignore static A#b when ");
    memset(t + k, '!', n);
    strcpy(t + k + n, "API == 1\n");
    expect_error(t, "t.rules:1: expression nested too deeply");
    free(t);

    rules_set rs;
    rules_init(&rs);
    lr_error err;
    memset(&err, 0, sizeof err);
    rs.build.has_sdk = 1;
    rs.build.sdk = 23;
    size_t terms = 5000, cap = terms * 16 + 64;
    char *e = malloc(cap);
    assert_non_null(e);
    size_t at = 0;
    for (size_t i = 0; i < terms; i++)
        at += (size_t)snprintf(e + at, cap - at, "%sAPI == %zu", i ? " || " : "", 100 + i);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, e, &err), 0);
    snprintf(e + at, cap - at, " || API == 23");
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, e, &err), 1);
    at = 0;
    for (size_t i = 0; i < terms; i++)
        at += (size_t)snprintf(e + at, cap - at, "%sAPI >= %zu", i ? " && " : "", i % 24);
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, e, &err), 1);
    snprintf(e + at, cap - at, " && (API < 23 || !(API == 23))");
    assert_int_equal(rules_eval_text(&rs, GRAPH_NONE, e, &err), 0);
    free(e);
    rules_fini(&rs);
}

static void count_file(const char *name, uint32_t *lib, uint32_t *ign, uint32_t *insp)
{
    char path[4096];
    const char *src = getenv("LEAKRAY_SRC");
    snprintf(path, sizeof path, "%s/rules/%s", src ? src : ".", name);
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    memset(&err, 0, sizeof err);
    lr_status st = rules_load_file(&rs, path, &err);
    if (st != LR_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, LR_OK);
    *lib = *ign = 0;
    for (uint32_t i = 0; i < rs.n_refs; i++) {
        if (rs.refs[i].action == RULES_LIBRARY_LEAK)
            ++*lib;
        else
            ++*ign;
    }
    *insp = rs.n_insp;
    rules_fini(&rs);
}

static void test_shipped(void **state)
{
    (void)state;
    uint32_t lib, ign, insp;
    count_file("jdk.rules", &lib, &ign, &insp);
    assert_int_equal(lib, 2); /* servers' pools: Tomcat 9's NioChannel, Jetty's cursor */
    assert_int_equal(ign, 17); /* Shark's 14, the GC lists: discovered, pendingNext, unenqueued */
    assert_true(insp >= 4);
    count_file("android.rules", &lib, &ign, &insp);
    assert_int_equal(lib, 90);
    assert_int_equal(ign, 18);
    assert_true(insp >= 50);
}

static void test_watch(void **state)
{
    (void)state;
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(rules_add_watch(&rs, "com.example.Page", "destroyed == true", &err), LR_OK);
    assert_string_equal(rs.insp[0].text, "Page matches destroyed == true");
    assert_int_equal(rules_add_watch(&rs, "com.example.Page", "destroyed ==", &err),
                     LR_ERR_RULES);
    /* the expression as typed, and its end named as such (not the "->" of the rule the
     * expression is wrapped in) */
    assert_string_equal(err.msg, "--leaking-if 'destroyed ==': expected a field path or a "
                                 "value, got the end of the expression");
    /* any class name a snapshot has: written quoted, shown whole in the reason */
    memset(&err, 0, sizeof err);
    assert_int_equal(rules_add_watch(&rs, "Detached <tr>", NULL, &err), LR_OK);
    assert_string_equal(rs.insp[rs.n_insp - 1].cls, "Detached <tr>");
    assert_string_equal(rs.insp[rs.n_insp - 1].text, "Detached <tr> is watched");
    assert_int_equal(rules_add_watch(&rs, "a \"b\" \\ #c", NULL, &err), LR_OK);
    assert_string_equal(rs.insp[rs.n_insp - 1].cls, "a \"b\" \\ #c");
    /* refused: no name, or one that would end the rule's line */
    assert_int_equal(rules_add_watch(&rs, "", NULL, &err), LR_ERR_RULES);
    assert_int_equal(rules_add_watch(&rs, "bad\nname", NULL, &err), LR_ERR_RULES);
    rules_fini(&rs);
}

/* ---- on a real dump: dialer.android-hprof (API 19) ---- */

static node_ix first_of_class(const graph *g, const char *cls)
{
    for (node_ix n = 0; n < g->n_nodes; n++)
        if (g->node_kind[n] == GRAPH_KIND_INSTANCE && !strcmp(graph_class_name(g, n), cls))
            return n;
    return GRAPH_NONE;
}

static node_ix ref_field(const graph *g, node_ix n, const char *name)
{
    graph_value v;
    assert_true(graph_field_find(g, n, name, &v));
    assert_int_equal(v.type, GRAPH_FT_OBJECT);
    return v.ref;
}

static int eval1(rules_set *rs, node_ix n, const char *expr)
{
    lr_error err;
    memset(&err, 0, sizeof err);
    int r = rules_eval_text(rs, n, expr, &err);
    if (r < 0)
        fail_msg("%s: %s", expr, err.msg);
    return r;
}

#define SERVICES "static android.app.ActivityThread#sCurrentActivityThread.mServices"

static void test_dialer(void **state)
{
    (void)state;
    char path[4200];
    const char *fx = getenv("LEAKRAY_FIXTURES"), *src = getenv("LEAKRAY_SRC");
    if (fx)
        snprintf(path, sizeof path, "%s/hprof/dialer.android-hprof", fx);
    else
        snprintf(path, sizeof path, "%s/../shared/fixtures/hprof/dialer.android-hprof",
                 src ? src : ".");
    mfile m;
    lr_error err = {.offset = LR_NO_OFFSET};
    if (mfile_open(&m, path, 0, &err) != LR_OK) {
        const char *ci = getenv("CI");
        if (ci && !strcmp(ci, "true"))
            fail_msg("fixture %s missing and CI=true", path);
        printf("SKIP: %s not found (set LEAKRAY_FIXTURES)\n", path);
        skip();
        return;
    }
    graph g;
    graph_init(&g);
    g.path = strdup("dialer");
    fmt_opts o = {.dump_index = -1};
    const fmt_reader *rd = fmt_find(m.data, m.len);
    assert_non_null(rd);
    assert_int_equal(rd->load(&g, &m, &o, &err), LR_OK);
    rules_set rs;
    rules_init(&rs);
    assert_int_equal(rules_load_shipped(&rs, "jdk.rules", &err), LR_OK);
    assert_int_equal(rules_load_shipped(&rs, "android.rules", &err), LR_OK);
    assert_int_equal(rules_bind(&rs, &g, &err), LR_OK);

    /* SERVICE: the stopped service is not a value of ActivityThread.mServices */
    node_ix svc = first_of_class(&g, "com.android.dialer.calllog.CallLogNotificationsService");
    assert_true(svc != GRAPH_NONE);
    assert_int_equal(eval1(&rs, svc, "this in " SERVICES), 0);
    assert_int_equal(eval1(&rs, svc, "this not in " SERVICES), 1);
    char reason[256];
    assert_true(rules_is_leaking_object(&rs, svc, reason, sizeof reason));
    assert_string_equal(reason, "Service not held by ActivityThread");
    /* this dump's mServices is empty: nothing is held, the collection itself exists */
    const node_ix *mem;
    int32_t last = (int32_t)rs.n_exprs;
    assert_int_equal(eval1(&rs, svc, "this in " SERVICES), 0);
    assert_int_equal(rules_in_members(&rs, last, &mem), 0);
    /* ArrayMap: mPackages holds one package name -> WeakReference; every value (odd slot of
     * mArray, as Shark reads mServices) and every key is a member */
    graph_value v;
    class_ix atc = graph_find_class(&g, "android.app.ActivityThread");
    assert_true(atc != GRAPH_NONE && graph_static_find(&g, atc, "sCurrentActivityThread", &v));
    node_ix map = ref_field(&g, v.ref, "mPackages");
    node_ix arr = ref_field(&g, map, "mArray");
    graph_value msize;
    assert_true(graph_field_find(&g, map, "mSize", &msize));
    assert_int_equal(g.node_kind[arr], GRAPH_KIND_OBJ_ARRAY);
    const char *pk = "this in static android.app.ActivityThread#sCurrentActivityThread.mPackages";
    uint32_t slots = 0;
    for (edge_ix e = g.first_edge[arr]; e < g.first_edge[arr + 1]; e++) {
        assert_int_equal(eval1(&rs, g.edge_to[e], pk), 1);
        slots++;
    }
    last = (int32_t)rs.n_exprs;
    assert_int_equal(eval1(&rs, arr, pk), 0); /* the structure itself is no member */
    uint32_t nm = rules_in_members(&rs, last, &mem);
    printf("ActivityThread.mPackages: mSize %u, %u members\n", (unsigned)msize.raw, nm);
    assert_true(msize.raw == 1 && slots == 2 && nm == 2);
    /* a later expression over the same collection object reads the members found once (each
     * walked the collection anew: 300 rules over one static map of 120,000 sessions took
     * 18 s and 500 MB), and answers the same */
    const node_ix *mem2;
    last = (int32_t)rs.n_exprs;
    assert_int_equal(eval1(&rs, arr, "this not in static android.app.ActivityThread#"
                                     "sCurrentActivityThread.mPackages"),
                     1);
    assert_int_equal(rules_in_members(&rs, last, &mem2), nm);
    assert_ptr_equal(mem2, mem);
    /* ArrayList: the application is an element of mAllApplications */
    node_ix app = first_of_class(&g, "com.android.dialer.DialerApplication");
    assert_int_equal(eval1(&rs, app, "this in static android.app.ActivityThread#"
                                     "sCurrentActivityThread.mAllApplications"),
                     1);
    assert_int_equal(eval1(&rs, svc, "this in static android.app.ActivityThread#"
                                     "sCurrentActivityThread.mAllApplications"),
                     0);
    /* a missing collection makes both forms false */
    assert_int_equal(eval1(&rs, svc, "this in static no.Such#field"), 0);
    assert_int_equal(eval1(&rs, svc, "this not in static no.Such#field"), 0);
    assert_int_equal(eval1(&rs, svc, "this not in static android.app.ActivityThread#nope"), 0);

    /* HashMap: ServiceManager.sCache holds name -> binder through table[] and HashMap$Entry */
    last = (int32_t)rs.n_exprs;
    assert_int_equal(eval1(&rs, svc, "this in static android.os.ServiceManager#sCache"), 0);
    nm = rules_in_members(&rs, last, &mem);
    class_ix smc = graph_find_class(&g, "android.os.ServiceManager");
    assert_true(smc != GRAPH_NONE && graph_static_find(&g, smc, "sCache", &v));
    graph_value size;
    assert_true(graph_field_find(&g, v.ref, "size", &size));
    printf("ServiceManager.sCache: size %u, %u members\n", (unsigned)size.raw, nm);
    assert_true(size.raw > 0);
    assert_int_equal(nm, 2 * (uint32_t)size.raw);
    for (uint32_t i = 0; i < nm; i++)
        assert_true(mem[i] < g.n_nodes && (i == 0 || mem[i - 1] < mem[i]));

    /* @component: what a Context stands for */
    node_ix base = ref_field(&g, svc, "mBase");
    assert_int_equal(eval1(&rs, svc, "@component == this"), 1);
    assert_int_equal(eval1(&rs, base, "@component is null"), 1);
    assert_int_equal(eval1(&rs, base, "@class == \"android.app.ContextImpl\""), 1);
    assert_int_equal(eval1(&rs, svc, "mBase.@simple == \"ContextImpl\""), 1);

    /* CONTEXT_FIELD labels, field by field, most-derived class first (Shark's order) */
    rules_verdicts vd;
    memset(&vd, 0, sizeof vd);
    rules_inspect_node(&rs, svc, &vd);
    assert_string_equal(vd.leaking, "Service not held by ActivityThread");
    assert_non_null(strstr(vd.labels,
                           "mApplication instance of com.android.dialer.DialerApplication\n"
                           "mBase instance of android.app.ContextImpl"));
    node_ix notifier = first_of_class(&g, "com.android.dialer.calllog.DefaultVoicemailNotifier");
    assert_true(notifier != GRAPH_NONE);
    memset(&vd, 0, sizeof vd);
    rules_inspect_node(&rs, notifier, &vd);
    assert_non_null(strstr(vd.labels, "mContext instance of "
                                      "com.android.dialer.calllog.CallLogNotificationsService"));
    assert_string_equal(vd.leaking, "");
    /* a `fields` rule sees the field name and the value; not a leaking-object finder */
    const char *extra = "inspect * fields java.lang.Object if @field == \"mBase\" "
                        "-> label \"F {@field}={@simple}/{@component}\"\n";
    assert_int_equal(rules_parse(&rs, "x.rules", extra, strlen(extra), &err), LR_OK);
    assert_int_equal(rules_bind(&rs, &g, &err), LR_OK);
    memset(&vd, 0, sizeof vd);
    rules_inspect_node(&rs, svc, &vd);
    assert_non_null(strstr(vd.labels, "mBase instance of android.app.ContextImpl"));
    assert_non_null(strstr(vd.labels, "F mBase=ContextImpl/null"));
    assert_null(strstr(vd.labels, "F mApplication"));
    assert_false(rules_is_leaking_object(&rs, notifier, reason, sizeof reason));
    /* the per-class filter leak finding walks every object with: a class it rules out has
     * no object the full check finds leaking; the service's class is kept, and most are
     * ruled out (else the filter saves nothing) */
    uint8_t *may = malloc((size_t)g.n_classes + 1);
    assert_non_null(may);
    rules_leaking_classes(&rs, may);
    uint32_t kept = 0;
    for (class_ix c = 0; c <= g.n_classes; c++)
        kept += may[c];
    assert_true(may[graph_node_class(&g, svc)]);
    assert_true(kept > 0 && kept < g.n_classes / 4);
    uint32_t leaking = 0;
    for (node_ix n = 0; n < g.n_nodes; n++) {
        if (g.node_kind[n] == GRAPH_KIND_CLASS)
            continue;
        class_ix c = graph_node_class(&g, n);
        int full = rules_is_leaking_object(&rs, n, reason, sizeof reason);
        leaking += (uint32_t)full;
        if (full && !may[c < g.n_classes ? c : g.n_classes])
            fail_msg("node %u (%s) leaks but its class was ruled out", n, graph_class_name(&g, n));
    }
    assert_true(leaking > 0);
    free(may);
    rules_fini(&rs);
    graph_fini(&g);
    mfile_close(&m);
}

/* Local-variable edges (thread -> object) come only from readers that can carry them, such
 * as the JSON-lines graph: rules_bind looks for one there. An HPROF graph never has one (its
 * locals are JAVA_FRAME roots), and rules_bind decides so from the format without reading
 * every edge's kind: the same edges under the "hprof" format count as none. */
static void test_local_edges(void **state)
{
    (void)state;
    const tedge es[] = {{0, 1, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG)},
                        {1, 2, GRAPH_EDGE_MAKE(GRAPH_EDGE_LOCAL, GRAPH_STRONG)}};
    graph g;
    tg_nodes(&g, 3, NULL, 16);
    tg_edges(&g, es, 2, 0);
    rules_set rs;
    rules_init(&rs);
    lr_error err;
    assert_int_equal(parse(&rs, "ignore java-local \"main\"\n", &err), LR_OK);
    g.format = "graph"; /* the JSON-lines reader's */
    assert_int_equal(rules_bind(&rs, &g, &err), LR_OK);
    assert_int_equal(rs.has_local_edges, 1);
    g.edge_kind[1] = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
    assert_int_equal(rules_bind(&rs, &g, &err), LR_OK);
    assert_int_equal(rs.has_local_edges, 0);
    g.edge_kind[1] = GRAPH_EDGE_MAKE(GRAPH_EDGE_LOCAL, GRAPH_STRONG);
    g.format = "hprof";
    assert_int_equal(rules_bind(&rs, &g, &err), LR_OK);
    assert_int_equal(rs.has_local_edges, 0);
    rules_fini(&rs);
    graph_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar),         cmocka_unit_test(test_errors),
        cmocka_unit_test(test_build_conditions), cmocka_unit_test(test_shipped),
        cmocka_unit_test(test_watch),           cmocka_unit_test(test_dialer),
        cmocka_unit_test(test_deep_expressions), cmocka_unit_test(test_local_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
