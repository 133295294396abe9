/* SPDX-License-Identifier: Apache-2.0 */
/* builder_test.c: the public heap builder (leakray/builder.h) as a scanner uses it. A graph
 * built in process must be the graph the same records give as JSON lines (docs/formats/
 * jsonl.md) read with lr_open_memory: same objects, classes, references with their names and
 * strengths, roots, retained sizes, dominators, paths and leak traces with their signature.
 * Also the failures: bad arguments are usage errors that leave the builder usable, a class id
 * added twice fails the finish, references to objects never added are dropped and counted, an
 * empty builder gives an empty heap. The histogram, the diff against the JSON-lines heap and
 * the HTML and JSON reports take a built heap too. Only public headers are included here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "leakray/analysis.h"
#include "leakray/builder.h"
#include "leakray/leakray.h"
#include "leakray/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A screen kept by an observer block after it was dismissed, its way back to the window weak.
 * Records in an order a scanner meets them: references before their targets. */
static const char JSONL[] =
    "{\"leakray_graph\": 1}\n"
    "{\"edge\": [4096, 4097], \"name\": \"window\"}\n"
    "{\"node\": 4096, \"class\": 1, \"size\": 64}\n"
    "{\"node\": 4097, \"class\": 2, \"size\": 128, \"label\": \"main\"}\n"
    "{\"node\": 4098, \"class\": 3, \"size\": 256}\n"
    "{\"node\": 4099, \"class\": 4, \"size\": 48}\n"
    "{\"node\": 4100, \"class\": 5, \"size\": 32, \"kind\": \"object array\"}\n"
    "{\"node\": 4101, \"class\": 6, \"size\": 40, \"kind\": \"closure\"}\n"
    "{\"node\": 4102, \"class\": 7, \"size\": 300000, \"kind\": \"primitive array\"}\n"
    "{\"class\": 1, \"name\": \"App\"}\n"
    "{\"class\": 2, \"name\": \"Window\"}\n"
    "{\"class\": 3, \"name\": \"Screen\", \"super\": 8}\n"
    "{\"class\": 4, \"name\": \"NotificationCenter\"}\n"
    "{\"class\": 5, \"name\": \"Array\"}\n"
    "{\"class\": 6, \"name\": \"Block\"}\n"
    "{\"class\": 7, \"name\": \"Image\"}\n"
    "{\"class\": 8, \"name\": \"Controller\"}\n"
    "{\"edge\": [4098, 4097], \"name\": \"window\", \"strength\": \"weak\"}\n"
    "{\"edge\": [4098, 4102], \"name\": \"card\"}\n"
    "{\"edge\": [4099, 4100], \"name\": \"observers\"}\n"
    "{\"edge\": [4100, 4101], \"name\": 0}\n"
    "{\"edge\": [4101, 4098], \"name\": \"self\"}\n"
    "{\"edge\": [4101, 9999], \"name\": \"gone\"}\n"
    "{\"root\": 4096, \"kind\": \"global\"}\n"
    "{\"root\": 4099, \"kind\": \"static\"}\n";

static lr_heap *build(void)
{
    lr_error err = {0};
    lr_builder *b = NULL;
    assert_int_equal(lr_builder_new("scan", &b, &err), LR_OK);
#define OK(call) assert_int_equal((call), LR_OK)
    OK(lr_builder_add_edge(b, 4096, 4097, "window", LR_REF_STRONG, &err));
    OK(lr_builder_add_node(b, 4096, 1, LR_KIND_INSTANCE, 64, NULL, &err));
    OK(lr_builder_add_node(b, 4097, 2, LR_KIND_INSTANCE, 128, "main", &err));
    OK(lr_builder_add_node(b, 4098, 3, LR_KIND_INSTANCE, 256, NULL, &err));
    OK(lr_builder_add_node(b, 4099, 4, LR_KIND_INSTANCE, 48, NULL, &err));
    OK(lr_builder_add_node(b, 4100, 5, LR_KIND_OBJ_ARRAY, 32, NULL, &err));
    OK(lr_builder_add_node(b, 4101, 6, LR_KIND_CLOSURE, 40, NULL, &err));
    OK(lr_builder_add_node(b, 4102, 7, LR_KIND_PRIM_ARRAY, 300000, NULL, &err));
    static const char *const names[] = {"App", "Window", "Screen", "NotificationCenter",
                                        "Array", "Block", "Image", "Controller"};
    for (uint64_t c = 1; c <= 8; c++)
        OK(lr_builder_add_class(b, c, names[c - 1], c == 3 ? 8 : LR_BUILDER_NONE, &err));
    OK(lr_builder_add_edge(b, 4098, 4097, "window", LR_REF_WEAK, &err));
    OK(lr_builder_add_edge(b, 4098, 4102, "card", LR_REF_STRONG, &err));
    OK(lr_builder_add_edge(b, 4099, 4100, "observers", LR_REF_STRONG, &err));
    OK(lr_builder_add_element(b, 4100, 4101, 0, LR_REF_STRONG, &err));
    OK(lr_builder_add_edge(b, 4101, 4098, "self", LR_REF_STRONG, &err));
    OK(lr_builder_add_edge(b, 4101, 9999, "gone", LR_REF_STRONG, &err));
    OK(lr_builder_add_root(b, 4096, LR_ROOT_GLOBAL, &err));
    OK(lr_builder_add_root(b, 4099, LR_ROOT_STATIC, &err));
#undef OK
    lr_heap *h = NULL;
    assert_int_equal(lr_builder_finish(b, &h, &err), LR_OK);
    assert_non_null(h);
    return h;
}

/* The leak analysis of the screen by id: its trace's signature and steps as one string. */
static void trace_of(lr_heap *h, char *out, size_t cap)
{
    const char *watch[] = {"Screen"}, *cond[] = {"@id == 4098"};
    lr_analyze_opts ao = {0};
    ao.watch = watch;
    ao.leaking_if = cond;
    ao.n_watch = 1;
    ao.no_shipped_rules = 1;
    lr_analysis *an = NULL;
    lr_error err = {0};
    assert_int_equal(lr_analyze(h, &ao, &an, &err), LR_OK);
    assert_int_equal(lr_analysis_trace_count(an), 1);
    lr_trace t;
    assert_int_equal(lr_analysis_trace(an, 0, &t, &err), LR_OK);
    size_t k = (size_t)snprintf(out, cap, "%s %s:", t.signature, t.gc_root);
    for (uint32_t j = 0; j < t.n_steps; j++) {
        lr_trace_step s;
        assert_int_equal(lr_analysis_step(an, 0, j, &s, &err), LR_OK);
        k += (size_t)snprintf(out + k, cap - k, " %s#%llx>%s", s.class_name,
                              (unsigned long long)lr_object_id(h, s.object), s.reference);
    }
    lr_analysis_free(an);
}

static void same_as_jsonl(void **state)
{
    (void)state;
    lr_heap *b = build(), *j = NULL;
    lr_error err = {0};
    assert_int_equal(lr_open_memory(JSONL, sizeof JSONL - 1, "scan.jsonl", NULL, &j, &err),
                     LR_OK);
    assert_string_equal(lr_heap_format(b), "builder");
    assert_int_equal(lr_object_count(b), 7);
    assert_int_equal(lr_object_count(j), 7);
    assert_int_equal(lr_class_count(b), lr_class_count(j));
    assert_int_equal(lr_root_count(b), 2);
    assert_int_equal(lr_root_count(j), 2);
    /* the reference to 9999 is dropped in both */
    assert_int_equal(lr_reference_count(b), 6);
    assert_int_equal(lr_reference_count(j), 6);
    assert_int_equal(lr_dominators(b, &err), LR_OK);
    assert_int_equal(lr_dominators(j, &err), LR_OK);
    for (lr_object o = 0; o < lr_object_count(b); o++) {
        assert_int_equal(lr_object_id(b, o), lr_object_id(j, o));
        assert_string_equal(lr_object_class_name(b, o), lr_object_class_name(j, o));
        assert_int_equal(lr_object_kind(b, o), lr_object_kind(j, o));
        assert_int_equal(lr_object_shallow(b, o), lr_object_shallow(j, o));
        assert_int_equal(lr_object_retained(b, o), lr_object_retained(j, o));
        assert_int_equal(lr_object_dominator(b, o), lr_object_dominator(j, o));
        assert_int_equal(lr_object_ref_count(b, o), lr_object_ref_count(j, o));
        for (uint32_t i = 0; i < lr_object_ref_count(b, o); i++) {
            lr_ref rb, rj;
            assert_int_equal(lr_object_ref(b, o, i, &rb, &err), LR_OK);
            assert_int_equal(lr_object_ref(j, o, i, &rj, &err), LR_OK);
            assert_int_equal(rb.to, rj.to);
            assert_string_equal(rb.name, rj.name);
            assert_string_equal(rb.kind, rj.kind);
            assert_string_equal(rb.strength, rj.strength);
        }
    }
    for (uint32_t i = 0; i < 2; i++) {
        lr_root rb, rj;
        assert_int_equal(lr_root_get(b, i, &rb, &err), LR_OK);
        assert_int_equal(lr_root_get(j, i, &rj, &err), LR_OK);
        assert_int_equal(rb.object, rj.object);
        assert_string_equal(rb.kind, rj.kind);
    }
    /* the centre retains its array, the block, the screen and its card; the weak window
     * reference retains nothing */
    lr_object center = lr_object_find(b, 4099), screen = lr_object_find(b, 4098);
    assert_int_equal(lr_object_retained(b, center), 48 + 32 + 40 + 256 + 300000);
    assert_string_equal(lr_class_name(b, lr_class_super(b, lr_object_class(b, screen))),
                        "Controller");
    lr_object top[1];
    uint32_t n = 0;
    assert_int_equal(lr_top_objects(b, 1, top, &n, &err), LR_OK);
    assert_int_equal(n, 1);
    assert_int_equal(top[0], center);
    lr_object path[8];
    uint32_t len = 0;
    assert_int_equal(lr_path_to(b, screen, path, 8, &len, &err), LR_OK);
    assert_int_equal(len, 4);
    assert_int_equal(lr_object_id(b, path[0]), 4099);
    char tb[1024], tj[1024];
    trace_of(b, tb, sizeof tb);
    trace_of(j, tj, sizeof tj);
    assert_string_equal(tb, tj);
    assert_non_null(strstr(tb, " System class: NotificationCenter#1003>observers "
                               "Array#1004>[0] Block#1005>self Screen#1002>"));
    /* the other analyses and the reports take it too */
    lr_histogram *hi = NULL;
    assert_int_equal(lr_histogram_build(b, 1, &hi, &err), LR_OK);
    assert_int_equal(lr_histogram_count(hi), 7);
    assert_string_equal(lr_histogram_get(hi, 0)->name, "NotificationCenter");
    assert_int_equal(lr_histogram_get(hi, 0)->retained, 48 + 32 + 40 + 256 + 300000);
    lr_histogram_free(hi);
    lr_diff *d = NULL;
    assert_int_equal(lr_diff_build(j, b, LR_DIFF_BY_ID, &d, &err), LR_OK);
    assert_int_equal(lr_diff_count(d), 0);
    lr_diff_free(d);
    const char *watch[] = {"Screen"};
    lr_analyze_opts ao = {0};
    ao.watch = watch;
    ao.n_watch = 1;
    ao.no_shipped_rules = 1;
    lr_analysis *an = NULL;
    assert_int_equal(lr_analyze(b, &ao, &an, &err), LR_OK);
    for (int f = 0; f < 2; f++) {
        char *out = NULL;
        size_t len = 0;
        assert_int_equal(lr_render_buffer(an, f ? LR_RENDER_HTML : LR_RENDER_JSON, NULL, &out,
                                          &len, &err), LR_OK);
        assert_non_null(strstr(out, "NotificationCenter"));
        lr_free(out);
    }
    lr_analysis_free(an);
    lr_close(b);
    lr_close(j);
}

static void failures(void **state)
{
    (void)state;
    lr_error err = {0};
    lr_builder *b = NULL;
    assert_int_equal(lr_builder_new(NULL, &b, &err), LR_OK);
    assert_int_equal(lr_builder_add_node(b, 1, LR_BUILDER_NONE, (lr_kind)42, 8, NULL, &err),
                     LR_ERR_USAGE);
    assert_non_null(strstr(err.msg, "kind 42"));
    memset(&err, 0, sizeof err);
    assert_int_equal(lr_builder_add_node(b, LR_BUILDER_NONE, 1, LR_KIND_INSTANCE, 8, NULL,
                                         &err), LR_ERR_USAGE);
    assert_int_equal(lr_builder_add_edge(b, 1, 2, "x", (lr_ref_strength)9, NULL),
                     LR_ERR_USAGE);
    assert_int_equal(lr_builder_add_root(b, 1, (lr_root_kind)99, NULL), LR_ERR_USAGE);
    assert_int_equal(lr_builder_add_node(NULL, 1, 1, LR_KIND_INSTANCE, 8, NULL, NULL),
                     LR_ERR_USAGE);
    /* still usable: one object, one dangling root, a size past 32 bits saturates */
    assert_int_equal(lr_builder_add_node(b, 1, LR_BUILDER_NONE, LR_KIND_INSTANCE,
                                         (uint64_t)1 << 40, NULL, NULL), LR_OK);
    assert_int_equal(lr_builder_add_root(b, 1, LR_ROOT_THREAD, NULL), LR_OK);
    assert_int_equal(lr_builder_add_root(b, 2, LR_ROOT_LOCAL, NULL), LR_OK);
    lr_heap *h = NULL;
    assert_int_equal(lr_builder_finish(b, &h, &err), LR_OK);
    assert_int_equal(lr_object_count(h), 1);
    assert_int_equal(lr_root_count(h), 1);
    assert_int_equal(lr_object_shallow(h, 0), UINT32_MAX);
    assert_int_equal(lr_object_class(h, 0), LR_NONE);
    lr_root r;
    assert_int_equal(lr_root_get(h, 0, &r, &err), LR_OK);
    assert_string_equal(r.kind, "thread object");
    lr_close(h);

    /* a class id twice fails the finish, which frees the builder */
    memset(&err, 0, sizeof err);
    assert_int_equal(lr_builder_new("dup", &b, &err), LR_OK);
    assert_int_equal(lr_builder_add_class(b, 7, "A", LR_BUILDER_NONE, &err), LR_OK);
    assert_int_equal(lr_builder_add_class(b, 7, "B", LR_BUILDER_NONE, &err), LR_OK);
    assert_int_equal(lr_builder_add_node(b, 1, 7, LR_KIND_INSTANCE, 8, NULL, &err), LR_OK);
    h = (lr_heap *)&err;
    assert_int_equal(lr_builder_finish(b, &h, &err), LR_ERR_FORMAT);
    assert_null(h);
    assert_non_null(strstr(err.msg, "class id 7 defined twice"));

    /* nothing added: an empty heap every analysis takes */
    memset(&err, 0, sizeof err);
    assert_int_equal(lr_builder_new("empty", &b, &err), LR_OK);
    assert_int_equal(lr_builder_finish(b, &h, &err), LR_OK);
    assert_int_equal(lr_object_count(h), 0);
    lr_object top[1];
    uint32_t n = 7;
    assert_int_equal(lr_top_objects(h, 1, top, &n, &err), LR_OK);
    assert_int_equal(n, 0);
    lr_close(h);
    lr_builder_free(NULL);
    /* abandoned builders are freed whole (ASan's leak check) */
    assert_int_equal(lr_builder_new("dropped", &b, &err), LR_OK);
    assert_int_equal(lr_builder_add_class(b, 1, "A", LR_BUILDER_NONE, &err), LR_OK);
    assert_int_equal(lr_builder_add_node(b, 1, 1, LR_KIND_INSTANCE, 8, "a", &err), LR_OK);
    assert_int_equal(lr_builder_add_edge(b, 1, 1, "self", LR_REF_STRONG, &err), LR_OK);
    lr_builder_free(b);
}

/* What a scanner's mistakes leave is readable through the API, as `leakray info` prints it:
 * an object id given twice (the later object unreachable by id: a phantom the analyses would
 * otherwise count silently) and a dangling root; and an analysis watching a class no object
 * has says so rather than reading "no leak". */
static void diagnostics_and_warnings(void **state)
{
    (void)state;
    lr_error err = {0};
    lr_builder *b = NULL;
    assert_int_equal(lr_builder_new("dups", &b, &err), LR_OK);
    assert_int_equal(lr_builder_add_class(b, 1, "Node", LR_BUILDER_NONE, &err), LR_OK);
    assert_int_equal(lr_builder_add_node(b, 5, 1, LR_KIND_INSTANCE, 8, NULL, &err), LR_OK);
    assert_int_equal(lr_builder_add_node(b, 5, 1, LR_KIND_INSTANCE, 16, NULL, &err), LR_OK);
    assert_int_equal(lr_builder_add_root(b, 5, LR_ROOT_GLOBAL, &err), LR_OK);
    assert_int_equal(lr_builder_add_root(b, 6, LR_ROOT_GLOBAL, &err), LR_OK);
    lr_heap *h = NULL;
    assert_int_equal(lr_builder_finish(b, &h, &err), LR_OK);
    assert_int_equal(lr_heap_diagnostic_count(h), 2);
    lr_diagnostic d[2];
    for (uint32_t i = 0; i < 2; i++)
        assert_int_equal(lr_heap_diagnostic(h, i, &d[i], &err), LR_OK);
    assert_string_equal(d[0].name, "dangling_root");
    assert_int_equal(d[0].count, 1);
    assert_string_equal(d[1].name, "duplicate_id");
    assert_string_equal(d[1].severity, "data-loss");
    assert_int_equal(d[1].count, 1);
    assert_true(strlen(d[1].description) > 10);
    memset(&err, 0, sizeof err);
    assert_int_equal(lr_heap_diagnostic(h, 2, &d[0], &err), LR_ERR_USAGE);
    assert_non_null(strstr(err.msg, "dups"));

    const char *const watch[] = {"Nod", "Node"};
    lr_analyze_opts o = {.watch = watch, .n_watch = 2, .no_shipped_rules = 1};
    lr_analysis *an = NULL;
    assert_int_equal(lr_analyze(h, &o, &an, &err), LR_OK);
    assert_int_equal(lr_analysis_warning_count(an), 1);
    assert_non_null(strstr(lr_analysis_warning(an, 0), "Nod"));
    assert_null(lr_analysis_warning(an, 1));
    lr_analysis_free(an);
    /* a rules file's watch rule: the warning names the file */
    char path[] = "/tmp/lr_builder_rulesXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("watch Nodee -> \"gone\"\n", f);
    fclose(f);
    const char *const files[] = {path};
    lr_analyze_opts fo = {.rules_files = files, .n_rules_files = 1, .no_shipped_rules = 1};
    assert_int_equal(lr_analyze(h, &fo, &an, &err), LR_OK);
    remove(path);
    assert_int_equal(lr_analysis_warning_count(an), 1);
    assert_true(strncmp(lr_analysis_warning(an, 0), path, strlen(path)) == 0);
    assert_non_null(strstr(lr_analysis_warning(an, 0), "Nodee"));
    lr_analysis_free(an);
    lr_close(h);

    /* the screen's heap: one reference to an object never added */
    h = build();
    assert_int_equal(lr_heap_diagnostic_count(h), 1);
    assert_int_equal(lr_heap_diagnostic(h, 0, &d[0], &err), LR_OK);
    assert_string_equal(d[0].name, "dangling_reference");
    lr_close(h);
}

/* lr_analyze hands a program every trace whole: a Leak at the end of a 200-link list and 150
 * Leaks a global holds. The screen's limits (paths to 100 traces, 50 objects each) gave
 * traces 100 and on only their leaking object, and the long one 50 steps with two of them
 * joined by a reference that does not exist. */
static void whole_traces(void **state)
{
    (void)state;
    lr_builder *b = NULL;
    lr_error err = {0};
    assert_int_equal(lr_builder_new("whole", &b, &err), LR_OK);
    assert_int_equal(lr_builder_add_class(b, 1, "Link", LR_BUILDER_NONE, &err), LR_OK);
    assert_int_equal(lr_builder_add_class(b, 2, "Leak", LR_BUILDER_NONE, &err), LR_OK);
    assert_int_equal(lr_builder_add_class(b, 3, "Holder", LR_BUILDER_NONE, &err), LR_OK);
    for (uint64_t i = 0; i < 200; i++) {
        assert_int_equal(lr_builder_add_node(b, 100 + i, 1, LR_KIND_INSTANCE, 16, NULL, &err),
                         LR_OK);
        if (i)
            assert_int_equal(lr_builder_add_edge(b, 99 + i, 100 + i, "next", LR_REF_STRONG,
                                                 &err), LR_OK);
    }
    assert_int_equal(lr_builder_add_root(b, 100, LR_ROOT_STATIC, &err), LR_OK);
    assert_int_equal(lr_builder_add_node(b, 50000, 2, LR_KIND_INSTANCE, 16, NULL, &err), LR_OK);
    assert_int_equal(lr_builder_add_edge(b, 299, 50000, "leak", LR_REF_STRONG, &err), LR_OK);
    assert_int_equal(lr_builder_add_node(b, 60000, 3, LR_KIND_INSTANCE, 16, NULL, &err), LR_OK);
    assert_int_equal(lr_builder_add_root(b, 60000, LR_ROOT_GLOBAL, &err), LR_OK);
    for (uint64_t i = 0; i < 150; i++) {
        assert_int_equal(lr_builder_add_node(b, 80000 + i, 2, LR_KIND_INSTANCE, 16, NULL, &err),
                         LR_OK);
        assert_int_equal(lr_builder_add_element(b, 60000, 80000 + i, (uint32_t)i, LR_REF_STRONG,
                                                &err), LR_OK);
    }
    lr_heap *h = NULL;
    assert_int_equal(lr_builder_finish(b, &h, &err), LR_OK);
    const char *watch[] = {"Leak"};
    lr_analyze_opts ao = {0};
    ao.watch = watch;
    ao.n_watch = 1;
    ao.no_shipped_rules = 1;
    ao.no_suspects = 1;
    lr_analysis *an = NULL;
    assert_int_equal(lr_analyze(h, &ao, &an, &err), LR_OK);
    assert_int_equal(lr_analysis_trace_count(an), 151);
    for (uint32_t t = 0; t < 151; t++) {
        lr_trace tr;
        assert_int_equal(lr_analysis_trace(an, t, &tr, &err), LR_OK);
        uint64_t id = lr_object_id(h, tr.leaking);
        assert_int_equal(tr.n_steps, id == 50000 ? 201 : 2);
        for (uint32_t j = 0; j + 1 < tr.n_steps; j++) { /* each step holds the next */
            lr_trace_step s, n;
            assert_int_equal(lr_analysis_step(an, t, j, &s, &err), LR_OK);
            assert_int_equal(lr_analysis_step(an, t, j + 1, &n, &err), LR_OK);
            if (id == 50000)
                assert_int_equal(lr_object_id(h, n.object), j + 1 < 200 ? 101 + j : 50000);
        }
    }
    lr_analysis_free(an);
    lr_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_as_jsonl),
        cmocka_unit_test(whole_traces),
        cmocka_unit_test(failures),
        cmocka_unit_test(diagnostics_and_warnings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
