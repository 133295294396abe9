/* SPDX-License-Identifier: Apache-2.0 */
/* api_test.c: the public API (the headers in include/leakray/) as a program linked against
 * libleakray uses it, on real dumps from ../shared/fixtures: opening from a file and from
 * memory (and refusing garbage with an offset), object/class/root accessors and their range
 * checks, references and referrers agreeing with each other, fields, ids, dominators,
 * histogram, paths, the leak analysis with its groups, traces and renderings, clusters and
 * diff. Only public headers are included here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "leakray/analysis.h"
#include "leakray/leakray.h"
#include "leakray/report.h"
#include "test_fixtures.h"

/* Skips the test (fails under CI=true) without the fixtures. */
#define NEED_FIXTURES()                                          \
    do {                                                         \
        if (!tf_have("hprof", "HPROF") || !tf_have("v8", "V8")) \
            skip();                                              \
    } while (0)

static lr_heap *open_fix(const char *rel)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", fixdir, rel);
    lr_heap *h = NULL;
    lr_error err = {0};
    assert_int_equal(lr_open(p, NULL, &h, &err), LR_OK);
    return h;
}

static void open_memory(void **state)
{
    (void)state;
    NEED_FIXTURES();
    char p[4400];
    snprintf(p, sizeof p, "%s/hprof/sun_jdk6_18_x64.hprof", fixdir);
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    lr_heap *a = open_fix("hprof/sun_jdk6_18_x64.hprof"), *b = NULL;
    lr_error err = {0};
    assert_int_equal(lr_open_memory(buf, (size_t)n, "mem.hprof", NULL, &b, &err), LR_OK);
    assert_int_equal(lr_object_count(a), lr_object_count(b));
    assert_int_equal(lr_class_count(a), lr_class_count(b));
    assert_int_equal(lr_root_count(a), lr_root_count(b));
    assert_true(lr_reference_count(a) == lr_reference_count(b));
    assert_string_equal(lr_heap_format(b), "hprof");
    lr_close(b);
    lr_close(a);
    /* a dump index below -1 is no index (it read as "the last") */
    lr_open_opts bad = {0};
    bad.dump_index = -2;
    b = NULL;
    assert_int_equal(lr_open_memory(buf, (size_t)n, "mem.hprof", &bad, &b, &err), LR_ERR_USAGE);
    assert_null(b);
    /* Garbage: a format error at offset 0 naming the given name; *out stays NULL. */
    lr_error e2 = {0};
    b = (lr_heap *)1;
    assert_int_equal(lr_open_memory("not a dump", 10, "junk.bin", NULL, &b, &e2), LR_ERR_FORMAT);
    assert_null(b);
    assert_int_equal(e2.offset, 0);
    assert_non_null(strstr(e2.msg, "junk.bin"));
    assert_int_equal(lr_exit_code(e2.code), 3);
    /* Truncated: an error past offset 0. */
    lr_error e3 = {0};
    assert_int_not_equal(lr_open_memory(buf, (size_t)n / 2, NULL, NULL, &b, &e3), LR_OK);
    assert_true(e3.offset > 0 && e3.offset != LR_NO_OFFSET);
    free(buf);
    assert_int_equal(lr_open(NULL, NULL, &b, NULL), LR_ERR_USAGE);
    assert_string_equal(lr_version(), LR_VERSION_STRING);
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", LR_VERSION_MAJOR, LR_VERSION_MINOR, LR_VERSION_PATCH);
    assert_string_equal(v, LR_VERSION_STRING);
    assert_int_equal(LR_VERSION_NUMBER,
                     LR_VERSION_MAJOR * 10000 + LR_VERSION_MINOR * 100 + LR_VERSION_PATCH);
}

static int find_value(void *ctx, const lr_field *f)
{
    lr_object *out = ctx;
    if (strcmp(f->name, "value") == 0 && strcmp(f->type, "object") == 0) {
        *out = f->ref;
        return 1;
    }
    return 0;
}

static lr_object value_of_none(void) { return LR_NONE; }

/* Native bytes a Cleaner frees count in the library as in the CLI: test-dump.hprof's
 * NativeAllocationRegistry gives 0x60f0030 (an 8-byte Object) 50,000 bytes, so `show` says
 * 50,008 in all and `top` 2,057,085 reachable bytes. The histogram's ties go by name, as
 * `histo --retained` sorts them. */
static void native_sizes(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *h = open_fix("hprof/test-dump.hprof");
    lr_error err = {0};
    lr_object o = lr_object_find(h, 0x60f0030);
    assert_int_not_equal(o, LR_NONE);
    assert_int_equal(lr_object_shallow(h, o), 50008);
    assert_int_equal(lr_dominators(h, &err), LR_OK);
    assert_int_equal(lr_reachable_bytes(h), 2057085);
    lr_close(h);
    /* two classes retain 2,728 bytes each here (java.io.ExpiringCache$Entry and
     * java.security.Provider$ServiceKey, the second with more shallow bytes) */
    h = open_fix("hprof/sun_jdk6_18_x64.hprof");
    lr_histogram *hi = NULL;
    assert_int_equal(lr_histogram_build(h, 1, &hi, &err), LR_OK);
    for (uint32_t i = 1; i < lr_histogram_count(hi); i++) {
        const lr_histogram_row *a = lr_histogram_get(hi, i - 1), *b = lr_histogram_get(hi, i);
        assert_true(a->retained >= b->retained);
        if (a->retained == b->retained)
            assert_true(strcmp(a->name, b->name) <= 0);
    }
    lr_histogram_free(hi);
    lr_close(h);
}

/* A V8 heap's histogram is `histo`'s (DevTools' Summary): small.heapsnapshot's first rows as
 * `leakray histo --retained` prints them, zero-size instances not counted, and no row for
 * the snapshot's synthetic root and GC-root groups (it led with 100 % of the heap). */
static void v8_histogram(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *h = open_fix("v8/small.heapsnapshot");
    lr_error err = {0};
    lr_histogram *hi = NULL;
    assert_int_equal(lr_histogram_build(h, 1, &hi, &err), LR_OK);
    static const struct {
        const char *name;
        uint32_t count;
        uint64_t shallow, retained;
    } want[] = {{"(compiled code)", 3053, 1672288, 1736760},
                {"(system)", 9177, 373448, 882184},
                {"Function", 4257, 570720, 781312},
                {"(array)", 546, 346528, 613992}};
    assert_true(lr_histogram_count(hi) >= 4);
    for (uint32_t i = 0; i < 4; i++) {
        const lr_histogram_row *r = lr_histogram_get(hi, i);
        assert_string_equal(r->name, want[i].name);
        assert_int_equal(r->count, want[i].count);
        assert_int_equal(r->shallow, want[i].shallow);
        assert_int_equal(r->retained, want[i].retained);
    }
    for (uint32_t i = 0; i < lr_histogram_count(hi); i++)
        assert_true(strcmp(lr_histogram_get(hi, i)->name, "(synthetic)") != 0);
    lr_histogram_free(hi);
    /* without retained sizes: the same rows by shallow bytes, retained 0 */
    assert_int_equal(lr_histogram_build(h, 0, &hi, &err), LR_OK);
    assert_string_equal(lr_histogram_get(hi, 0)->name, "(compiled code)");
    assert_int_equal(lr_histogram_get(hi, 0)->retained, 0);
    assert_int_equal(lr_histogram_get(hi, 1)->shallow, 570720);
    lr_histogram_free(hi);
    lr_close(h);
}

/* A V8 heap's reachable objects are the ones `top` counts (DevTools' distance): closures'
 * 14,126 nodes less one string no root reaches, not every node of DevTools' tree. */
static void v8_reachable(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *h = open_fix("v8/closures.heapsnapshot");
    lr_error err = {0};
    assert_int_equal(lr_object_count(h), 14126);
    assert_int_equal(lr_dominators(h, &err), LR_OK);
    assert_int_equal(lr_reachable_count(h), 14125);
    /* the path `leakray path` prints there (DevTools' by distance): @1 @3 @45 @7729 @21817
     * @21819 @21821 */
    static const uint64_t want[] = {1, 3, 45, 7729, 21817, 21819, 21821};
    lr_object path[16];
    uint32_t len = 0;
    lr_object target = lr_object_find(h, 21821);
    assert_int_equal(lr_path_to(h, target, path, 16, &len, &err), LR_OK);
    assert_int_equal(len, 7);
    for (uint32_t i = 0; i < len; i++)
        assert_int_equal(lr_object_id(h, path[i]), want[i]);
    /* a short buffer gets the first objects and the full length */
    assert_int_equal(lr_path_to(h, target, path, 2, &len, &err), LR_OK);
    assert_int_equal(len, 7);
    assert_int_equal(lr_object_id(h, path[1]), 3);
    /* paths asked first: the dominators come from the same DevTools pass, equal */
    lr_heap *h2 = open_fix("v8/closures.heapsnapshot");
    assert_int_equal(lr_path_to(h2, lr_object_find(h2, 21821), path, 16, &len, &err), LR_OK);
    assert_int_equal(lr_dominators(h2, &err), LR_OK);
    assert_int_equal(lr_reachable_count(h2), 14125);
    assert_int_equal(lr_reachable_bytes(h2), lr_reachable_bytes(h));
    for (lr_object o = 0; o < lr_object_count(h); o++)
        if (lr_object_retained(h, o) != lr_object_retained(h2, o))
            fail_msg("retained size of object %u: %llu, %llu after a path", o,
                     (unsigned long long)lr_object_retained(h, o),
                     (unsigned long long)lr_object_retained(h2, o));
    lr_close(h2);
    lr_close(h);
}

static void objects(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *h = open_fix("hprof/sun_jdk6_18_x64.hprof");
    lr_error err = {0};
    lr_class str = lr_class_find(h, "java.lang.String");
    assert_int_not_equal(str, LR_NONE);
    assert_string_equal(lr_class_name(h, str), "java.lang.String");
    assert_int_equal(lr_class_super(h, str), lr_class_find(h, "java.lang.Object"));
    lr_object so = lr_class_object(h, str);
    assert_int_equal(lr_object_kind(h, so), LR_KIND_CLASS);
    assert_int_equal(lr_object_describes(h, so), str);
    /* The first String: its value field, as a field and as a reference, and back. */
    lr_object s = LR_NONE;
    for (lr_object o = 0; o < lr_object_count(h) && s == LR_NONE; o++)
        if (lr_object_class(h, o) == str)
            s = o;
    assert_int_not_equal(s, LR_NONE);
    assert_int_equal(lr_object_find(h, lr_object_id(h, s)), s);
    assert_string_equal(lr_kind_name(lr_object_kind(h, s)), "instance");
    char text[64];
    long len = lr_object_string(h, s, text, sizeof text);
    assert_true(len >= 0);
    /* a NULL buffer asks the length alone */
    assert_int_equal(lr_object_string(h, s, NULL, 0), len);
    assert_int_equal(lr_object_string(h, value_of_none(), NULL, 0), -1);
    lr_object value = LR_NONE;
    assert_true(lr_object_fields(h, s, find_value, &value) >= 1);
    assert_int_not_equal(value, LR_NONE);
    assert_int_equal(lr_object_kind(h, value), LR_KIND_PRIM_ARRAY);
    int found = 0;
    for (uint32_t i = 0; i < lr_object_ref_count(h, s); i++) {
        lr_ref r;
        assert_int_equal(lr_object_ref(h, s, i, &r, &err), LR_OK);
        assert_int_equal(r.from, s);
        if (r.to == value) {
            found = 1;
            assert_string_equal(r.name, "value");
            assert_string_equal(r.kind, "field");
            assert_string_equal(r.strength, "strong");
        }
    }
    assert_true(found);
    uint32_t nref = 0;
    assert_int_equal(lr_object_referrer_count(h, value, &nref, &err), LR_OK);
    found = 0;
    for (uint32_t i = 0; i < nref; i++) {
        lr_ref r;
        assert_int_equal(lr_object_referrer(h, value, i, &r, &err), LR_OK);
        assert_int_equal(r.to, value);
        found |= r.from == s && strcmp(r.name, "value") == 0;
    }
    assert_true(found);
    /* Range checks. */
    lr_ref r;
    assert_int_equal(lr_object_ref(h, s, 1u << 30, &r, &err), LR_ERR_NOT_FOUND);
    assert_int_equal(lr_object_kind(h, LR_NONE), LR_KIND_OTHER);
    assert_string_equal(lr_object_class_name(h, LR_NONE), "");
    assert_int_equal(lr_object_shallow(h, LR_NONE), 0);
    assert_int_equal(lr_object_find(h, 1), LR_NONE);
    lr_root root;
    assert_int_equal(lr_root_get(h, 0, &root, &err), LR_OK);
    assert_true(root.object < lr_object_count(h));
    lr_error e2 = {0};
    assert_int_equal(lr_root_get(h, lr_root_count(h), &root, &e2), LR_ERR_NOT_FOUND);
    /* no place for the answer is the caller's mistake, not a missing root or object */
    uint32_t rc;
    assert_int_equal(lr_root_get(h, 0, NULL, &e2), LR_ERR_USAGE);
    assert_int_equal(lr_object_ref(h, s, 0, NULL, &e2), LR_ERR_USAGE);
    assert_int_equal(lr_object_referrer_count(h, s, NULL, &e2), LR_ERR_USAGE);
    assert_int_equal(lr_object_referrer_count(h, s, &rc, &e2), LR_OK);
    lr_close(h);
}

static void dominators_histogram_paths(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *h = open_fix("hprof/sun_jdk6_18_x64.hprof");
    lr_error err = {0};
    assert_int_equal(lr_object_retained(h, 0), 0); /* not computed yet */
    lr_object top[5];
    uint32_t n = 0;
    assert_int_equal(lr_top_objects(h, 5, top, &n, &err), LR_OK);
    assert_int_equal(n, 5);
    /* `leakray top` on this dump (VisualVM's conventions): 0x503ec90 retains 45,688 B. */
    assert_int_equal(lr_object_id(h, top[0]), 0x503ec90);
    assert_int_equal(lr_object_retained(h, top[0]), 45688);
    for (uint32_t i = 1; i < n; i++)
        assert_true(lr_object_retained(h, top[i - 1]) >= lr_object_retained(h, top[i]));
    assert_int_equal(lr_reachable_bytes(h), 1003176);
    assert_int_equal(lr_reachable_count(h), 13167);
    /* A dominated object's dominator retains at least as much. */
    for (lr_object o = 0; o < lr_object_count(h); o += 97) {
        lr_object d = lr_object_dominator(h, o);
        if (d != LR_NONE)
            assert_true(lr_object_retained(h, d) >= lr_object_retained(h, o));
    }
    lr_histogram *hi = NULL;
    assert_int_equal(lr_histogram_build(h, 1, &hi, &err), LR_OK);
    uint64_t count = 0;
    for (uint32_t i = 0; i < lr_histogram_count(hi); i++) {
        const lr_histogram_row *r = lr_histogram_get(hi, i);
        count += r->count;
        if (i)
            assert_true(lr_histogram_get(hi, i - 1)->retained >= r->retained);
    }
    assert_null(lr_histogram_get(hi, lr_histogram_count(hi)));
    assert_true(count > 0 && count <= lr_object_count(h));
    lr_histogram_free(hi);
    lr_object path[32];
    uint32_t len = 0;
    lr_object target = top[1];
    assert_int_equal(lr_path_to(h, target, path, 32, &len, &err), LR_OK);
    assert_true(len >= 1 && len <= 32);
    assert_int_equal(path[len - 1], target);
    lr_close(h);

    /* HotSpot: the path `leakray path` prints, the shipped rules' view (a class's protection
     * domain is no reference): 0xd60136e8 through the "Attach Listener" thread's context
     * loader, 8 references, not 5 through CreateCollectionDump's <protection_domain> */
    h = open_fix("hprof/oracle_jdk8_05_x64.hprof");
    target = lr_object_find(h, 0xd60136e8);
    assert_int_equal(lr_path_to(h, target, path, 32, &len, &err), LR_OK);
    assert_int_equal(len, 9);
    assert_int_equal(lr_object_id(h, path[0]), 0xd6010468);
    assert_int_equal(lr_path_to(h, target, path, 32, &len, &err), LR_OK); /* rules cached */
    assert_int_equal(len, 9);
    lr_close(h);

    /* V8: the rows `leakray top --top 5` prints (DevTools' tree), never the synthetic root
     * or "(GC roots)", which retain everything */
    h = open_fix("v8/heap-1.heapsnapshot");
    assert_int_equal(lr_top_objects(h, 5, top, &n, &err), LR_OK);
    assert_int_equal(n, 5);
    static const uint64_t v8_top[5] = {7271, 22167, 22403, 7643, 22159};
    static const uint64_t v8_ret[5] = {23724, 5776, 4116, 2900, 2576};
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(lr_object_id(h, top[i]), v8_top[i]);
        assert_int_equal(lr_object_retained(h, top[i]), v8_ret[i]);
    }
    lr_close(h);
}

static void analysis_and_render(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *h = open_fix("hprof/dialer.android-hprof");
    lr_error err = {0};
    lr_analysis *an = NULL;
    assert_int_equal(lr_analyze(h, NULL, &an, &err), LR_OK);
    assert_false(lr_analysis_suspects(an));
    assert_int_equal(lr_analysis_group_count(an), 1);
    lr_leak_group g;
    assert_int_equal(lr_analysis_group(an, 0, &g, &err), LR_OK);
    assert_string_equal(g.title, "DefaultVoicemailNotifier.sInstance");
    assert_int_equal(strlen(g.signature), 40);
    assert_false(g.library);
    /* no lambda, hidden class or proxy on this trace: the stable signature is the same */
    assert_string_equal(lr_analysis_group_stable_signature(an, 0), g.signature);
    assert_null(lr_analysis_group_stable_signature(an, 1));
    assert_null(lr_analysis_group_stable_signature(NULL, 0));
    uint32_t t = lr_analysis_group_trace(an, 0, 0);
    lr_trace tr;
    assert_int_equal(lr_analysis_trace(an, t, &tr, &err), LR_OK);
    assert_string_equal(tr.signature, g.signature);
    lr_trace_step last, first;
    assert_int_equal(lr_analysis_step(an, t, tr.n_steps - 1, &last, &err), LR_OK);
    assert_int_equal(last.leaking, LR_LEAKING_YES);
    assert_int_equal(last.object, tr.leaking);
    assert_string_equal(last.reference, "");
    assert_int_equal(lr_analysis_step(an, t, 0, &first, &err), LR_OK);
    assert_string_equal(first.reference, "sInstance");
    assert_true(first.suspect);
    lr_error e2 = {0};
    assert_int_equal(lr_analysis_step(an, t, tr.n_steps, &first, &e2), LR_ERR_NOT_FOUND);
    char *buf = NULL;
    size_t len = 0;
    lr_render_opts ro = {1, "dialer"};
    assert_int_equal(lr_render_buffer(an, LR_RENDER_TEXT, &ro, &buf, &len, &err), LR_OK);
    assert_non_null(strstr(buf, "DefaultVoicemailNotifier"));
    assert_non_null(strstr(buf, "Heap dump file path: dialer"));
    lr_free(buf);
    assert_int_equal(lr_render_buffer(an, LR_RENDER_JSON, &ro, &buf, &len, &err), LR_OK);
    assert_int_equal(strncmp(buf, "{\"schema_version\":1,", 20), 0);
    assert_int_equal(strlen(buf), len);
    lr_free(buf);
    assert_int_equal(lr_render_buffer(an, LR_RENDER_HTML, &ro, &buf, &len, &err), LR_OK);
    assert_int_equal(strncmp(buf, "<!DOCTYPE html>", 15), 0);
    assert_non_null(strstr(buf, "default-src 'none'"));
    lr_free(buf);
    assert_int_equal(lr_render_buffer(an, (lr_render_format)7, &ro, &buf, &len, &e2),
                     LR_ERR_USAGE);
    lr_analysis_free(an);
    /* A bad rules file is LR_ERR_RULES and no handle. */
    const char *rules[] = {"/nonexistent/x.rules"};
    lr_analyze_opts o = {.rules_files = rules, .n_rules_files = 1};
    lr_error e3 = {0};
    an = (lr_analysis *)1;
    assert_int_not_equal(lr_analyze(h, &o, &an, &e3), LR_OK);
    assert_null(an);
    /* A NULL class among the watched ones is a usage error, not a crash. */
    const char *watch[] = {NULL};
    lr_analyze_opts ow = {.watch = watch, .n_watch = 1};
    lr_error e4 = {0};
    an = (lr_analysis *)1;
    assert_int_equal(lr_analyze(h, &ow, &an, &e4), LR_ERR_USAGE);
    assert_null(an);
    assert_non_null(strstr(e4.msg, "watch[0] is NULL"));
    lr_close(h);
}

/* lr_analyze finds the LARGEST RETAINERS exactly as `leakray analyze` prints them (the
 * numbers below are its --json "suspects" on these fixtures), and the library's renderings
 * carry them; no_suspects leaves them out. */
static void suspects_api(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_error err = {0};
    /* HotSpot (VisualVM's model): main's locals, held by a Java frame */
    lr_heap *h = open_fix("hprof/openjdk_jdk11_04_x64.hprof.gz");
    lr_analysis *an = NULL;
    assert_int_equal(lr_analyze(h, NULL, &an, &err), LR_OK);
    assert_int_equal(lr_analysis_suspect_count(an), 1);
    assert_int_equal(lr_analysis_suspect_heap(an), 7262240);
    lr_suspect s;
    assert_int_equal(lr_analysis_suspect(an, 0, &s, &err), LR_OK);
    assert_string_equal(s.kind, "thread_locals");
    assert_string_equal(s.description,
                        "thread main keeps local variables with total size 5,394,352 bytes "
                        "(74.3 %)");
    /* 2 of main's 5 frame-held objects: the other 3 are reached from other roots too */
    assert_int_equal(s.retained, 5394352); /* `threads`: retained with locals */
    assert_int_equal(s.count, 2);
    assert_int_equal(lr_object_id(h, s.object), 0xe0c2aaa8);
    assert_int_equal(s.accumulation, s.object);
    assert_int_equal(s.accumulation_retained, 5393384);
    assert_int_equal(s.path_length, 1);
    assert_string_equal(s.gc_root, "Java frame");
    assert_int_equal(lr_analysis_suspect_path(an, 0, 0), s.object);
    assert_int_equal(lr_analysis_suspect_path(an, 0, 1), LR_NONE);
    assert_true(s.thread != LR_NONE);
    lr_error e2 = {0};
    assert_int_equal(lr_analysis_suspect(an, 1, &s, &e2), LR_ERR_NOT_FOUND);
    char *buf = NULL;
    size_t len = 0;
    lr_render_opts ro = {1, "jdk11"};
    assert_int_equal(lr_render_buffer(an, LR_RENDER_TEXT, &ro, &buf, &len, &err), LR_OK);
    assert_non_null(strstr(buf, "LARGEST RETAINERS"));
    assert_non_null(strstr(buf, "thread main keeps local variables with total size 5,394,352"));
    lr_free(buf);
    lr_analysis_free(an);
    lr_analyze_opts o = {.no_suspects = 1};
    assert_int_equal(lr_analyze(h, &o, &an, &err), LR_OK);
    assert_int_equal(lr_analysis_suspect_count(an), 0);
    assert_int_equal(lr_render_buffer(an, LR_RENDER_TEXT, &ro, &buf, &len, &err), LR_OK);
    assert_null(strstr(buf, "LARGEST RETAINERS"));
    lr_free(buf);
    lr_analysis_free(an);
    lr_close(h);

    /* Android (strong references less Bitmap.dumpData), beside a leak trace */
    h = open_fix("hprof/dialer.android-hprof");
    assert_int_equal(lr_analyze(h, NULL, &an, &err), LR_OK);
    assert_int_equal(lr_analysis_group_count(an), 1);
    assert_int_equal(lr_analysis_suspect_count(an), 2);
    assert_int_equal(lr_analysis_suspect_heap(an), 2238553);
    assert_int_equal(lr_analysis_suspect(an, 0, &s, &err), LR_OK);
    assert_string_equal(s.kind, "instances");
    assert_int_equal(s.count, 7988);
    assert_int_equal(s.retained, 400512);
    assert_string_equal(lr_class_name(h, s.instances_of), "java.lang.String");
    /* the group is shown by a string where most of its bytes are held (tagsoup's entity
     * table, 92 kB), not by its biggest (3,998 bytes, a Patterns static): no member keeps
     * 70 % of the group, so the path ends at that string */
    assert_int_equal(lr_object_id(h, s.accumulation), 0xb0e51b90);
    assert_int_equal(s.path_length, 8);
    assert_int_equal(lr_analysis_suspect_path(an, 0, 7), s.accumulation);
    assert_int_equal(lr_analysis_suspect(an, 1, &s, &err), LR_OK);
    assert_string_equal(s.kind, "class");
    assert_int_equal(lr_object_id(h, s.object), 0xb0d6bc80);
    assert_int_equal(s.retained, 252795);
    assert_int_equal(s.accumulation_retained, 249880);
    lr_analysis_free(an);
    lr_close(h);

    /* V8 (DevTools' tree): a real object, never the synthetic root */
    h = open_fix("v8/test.heapsnapshot");
    assert_int_equal(lr_analyze(h, NULL, &an, &err), LR_OK);
    assert_int_equal(lr_analysis_suspect_count(an), 1);
    assert_int_equal(lr_analysis_suspect(an, 0, &s, &err), LR_OK);
    assert_string_equal(s.kind, "object");
    assert_int_equal(lr_object_id(h, s.object), 3407);
    assert_int_equal(s.retained, 1280009384);
    assert_int_equal(lr_object_id(h, s.accumulation), 64911);
    assert_int_equal(s.path_length, 6);
    lr_analysis_free(an);
    lr_close(h);
}

static void clusters_diff(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *a = open_fix("v8/heap-1.heapsnapshot"), *b = open_fix("v8/heap-2.heapsnapshot");
    lr_error err = {0};
    lr_clusters *c = NULL;
    /* rules arguments that are none are usage errors, not a read through NULL */
    const char *none[] = {NULL};
    assert_int_equal(lr_clusters_build(b, NULL, 1, &c, &err), LR_ERR_USAGE);
    assert_int_equal(lr_clusters_build(b, none, 1, &c, &err), LR_ERR_USAGE);
    assert_int_equal(lr_clusters_build(b, NULL, -1, &c, &err), LR_ERR_USAGE);
    assert_null(c);
    assert_int_equal(lr_clusters_build(b, NULL, 0, &c, &err), LR_OK);
    assert_true(lr_clusters_count(c) > 0);
    lr_cluster cl;
    assert_int_equal(lr_clusters_get(c, 0, &cl, &err), LR_OK);
    assert_true(cl.count > 0 && cl.retained > 0 && cl.title[0]);
    lr_clusters_free(c);
    lr_diff *d = NULL;
    assert_int_equal(lr_diff_build(a, b, LR_DIFF_BY_ID, &d, &err), LR_OK);
    /* `leakray diff` on these: 10 classes changed, 17 objects and 668 bytes more. */
    assert_int_equal(lr_diff_count(d), 10);
    assert_int_equal(lr_diff_total(d)->count_delta, 17);
    assert_int_equal(lr_diff_total(d)->size_delta, 668);
    assert_string_equal(lr_diff_get(d, 0)->class_name, "(object shape)");
    assert_null(lr_diff_get(d, 10));
    assert_string_equal(lr_diff_warning(d), "");
    lr_diff_free(d);
    lr_close(a);
    lr_close(b);
}

/* As `leakray diff`: two programs' snapshots are refused (its exit 2), compared when forced
 * with a warning saying so; two formats are refused even forced; unknown flags are usage. */
static void diff_unrelated(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *a = open_fix("v8/heap-1.heapsnapshot"), *b = open_fix("v8/test.heapsnapshot");
    lr_heap *j = open_fix("hprof/test-dump.hprof");
    lr_error err = {0};
    lr_diff *d = NULL;
    assert_int_equal(lr_diff_build(a, b, LR_DIFF_BY_ID, &d, &err), LR_ERR_USAGE);
    assert_null(d);
    assert_non_null(strstr(err.msg, "different programs"));
    assert_non_null(strstr(err.msg, "LR_DIFF_FORCE"));
    assert_int_equal(lr_diff_build(a, b, 0, &d, &err), LR_ERR_USAGE);
    assert_int_equal(lr_diff_build(a, b, LR_DIFF_BY_ID | LR_DIFF_FORCE, &d, &err), LR_OK);
    assert_non_null(strstr(lr_diff_warning(d), "compared as asked"));
    lr_diff_free(d);
    d = NULL;
    memset(&err, 0, sizeof err);
    assert_int_equal(lr_diff_build(a, j, LR_DIFF_FORCE, &d, &err), LR_ERR_USAGE);
    assert_non_null(strstr(err.msg, "only snapshots of one format"));
    assert_int_equal(lr_diff_build(a, a, 4, &d, &err), LR_ERR_USAGE);
    assert_null(d);
    assert_string_equal(lr_diff_warning(NULL), "");
    lr_close(a);
    lr_close(b);
    lr_close(j);
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_memory),
        cmocka_unit_test(objects),
        cmocka_unit_test(native_sizes),
        cmocka_unit_test(v8_reachable),
        cmocka_unit_test(v8_histogram),
        cmocka_unit_test(dominators_histogram_paths),
        cmocka_unit_test(analysis_and_render),
        cmocka_unit_test(suspects_api),
        cmocka_unit_test(clusters_diff),
        cmocka_unit_test(diff_unrelated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
