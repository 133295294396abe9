/* SPDX-License-Identifier: Apache-2.0 */
/* store_test.c: unit tests of the leak store's results and their renderers: what
 * store_dashboard_build (src/store/store_dash.c) gathers within its bounds from a store
 * holding a real report (tests/fuzz/corpus/store_ingest/analyze-two-groups.json, two leak
 * groups) ingested as three versions; the store's address with its password hidden
 * (rep_dashboard_url); and a stored trace in LeakCanary's layout (rep_store_trace_text),
 * whose suspect underline must sit under the reference's name when names carry non-ASCII
 * characters or escape sequences; and a V8 snapshot given as a report, refused by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/dashboard.h"
#include "report/store.h"
#include "store/store.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

/* One day apart: 1.0, 1.0 again (another device), then 1.1. */
static store *filled(void)
{
    char path[4096];
    const char *src = getenv("LEAKRAY_SRC");
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/store_ingest/analyze-two-groups.json",
             src ? src : ".");
    size_t len;
    char *doc = slurp(path, &len);
    store *s;
    lr_error err = {0};
    assert_int_equal(store_open(":memory:", &s, &err), LR_OK);
    static const char *const ver[] = {"1.0", "1.0", "1.1"};
    static const char *const dev[] = {"a", "b", "a"};
    for (int i = 0; i < 3; i++) {
        store_meta m = {"two.json", "app", ver[i], dev[i], 1764547200000 + i * 86400000LL, 0};
        store_ingest_result r;
        assert_int_equal(store_ingest_json(s, "two.json", doc, len, &m, &r, &err), LR_OK);
        assert_int_equal(r.n_leaks, 2);
    }
    free(doc);
    return s;
}

static void dashboard_within_bounds(void **state)
{
    (void)state;
    store *s = filled();
    store_filter f;
    store_filter_init(&f);
    store_dashboard d;
    lr_error err = {0};
    /* two leaks, one listed, none detailed: the second is only counted */
    assert_int_equal(store_dashboard_build(s, &f, 1, 0, 5, NULL, NULL, 10, &d, &err), LR_OK);
    assert_int_equal(d.n_leaks, 2);
    assert_int_equal(d.n_listed, 1);
    assert_false(d.listed[0].detailed);
    assert_int_equal(d.listed[0].n_points, 3); /* seen on three days */
    for (size_t k = 0; k < 3; k++)
        assert_string_equal(d.points[d.listed[0].first_point + k].signature,
                            d.leaks[0].signature);
    assert_int_equal(d.reports, 3);
    assert_int_equal(d.failed, 0);
    assert_true(d.has_days);
    assert_int_equal(d.last_day - d.first_day, 2);
    /* no versions named: the two highest are compared; both leaks stayed */
    assert_string_equal(d.from, "1.0");
    assert_string_equal(d.to, "1.1");
    assert_int_equal(d.n_deltas, 2);
    assert_int_equal(d.deltas[0].change, STORE_SAME);
    store_dashboard_fini(&d);

    /* all listed and detailed, at most two occurrences each, versions as asked */
    assert_int_equal(store_dashboard_build(s, &f, 10, 10, 2, "1.1", "1.0", 10, &d, &err),
                     LR_OK);
    assert_int_equal(d.n_listed, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_true(d.listed[i].detailed);
        assert_int_equal(d.listed[i].detail.n_seen, 2);
        assert_int_equal(d.listed[i].history_total, 3);
        assert_int_equal(d.listed[i].trace.n, 3); /* the corpus traces are three long */
        assert_int_equal(d.listed[i].detail.seen[0].at_ms, 1764547200000 + 2 * 86400000LL);
    }
    assert_string_equal(d.from, "1.1");
    store_dashboard_fini(&d);

    /* a filter that matches nothing: no leaks, no days, no comparison */
    f.app = "nosuch";
    assert_int_equal(store_dashboard_build(s, &f, 10, 10, 2, NULL, NULL, 10, &d, &err), LR_OK);
    assert_int_equal(d.n_leaks, 0);
    assert_int_equal(d.n_listed, 0);
    assert_false(d.has_days);
    assert_null(d.from);
    store_dashboard_fini(&d);
    store_close(s);
}

static void url_password_hidden(void **state)
{
    (void)state;
    char out[256];
    rep_dashboard_url("postgres://leak:s3cret@db.example/leaks", out, sizeof out);
    assert_string_equal(out, "postgres://leak:***@db.example/leaks");
    rep_dashboard_url("postgres:///leaks?host=/run/pg&password=s3cret&user=x", out, sizeof out);
    assert_string_equal(out, "postgres:///leaks?host=/run/pg&password=***&user=x");
    rep_dashboard_url("/var/lib/leaks:1/store.db", out, sizeof out);
    assert_string_equal(out, "/var/lib/leaks:1/store.db");
}

static char *trace_text(const store_trace *t)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    rep_store_trace_text(f, t);
    fclose(f);
    return buf;
}

static void underline_under_name(void **state)
{
    (void)state;
    store_trace_elem e[2] = {
        {"Holder", "class", "NO", "", "\xc3\x9c" "ber\x1b", "f\xc3\xaf" "eld", "static_field", 1,
         -1, -1},
        {"Leaked\x1b[2J", "instance", "YES", "", "", "", "", 0, -1, -1},
    };
    store_trace t = {"System class", e, 2, 0, 0, 0};
    char *got = trace_text(&t);
    /* "│    ↓ static " is 14 columns, "Über\x1b" 8 (the ESC shown as \x1b), "." 1: the name
     * starts at column 23, so "│" and 22 spaces come before the underline */
    assert_string_equal(got, "┬───\n"
                             "│ GC Root: System class\n"
                             "│\n"
                             "├─ Holder class\n"
                             "│    Leaking: NO\n"
                             "│    ↓ static Über\\x1b.fïeld\n"
                             "│                      ~~~~~\n"
                             "╰→ Leaked\\x1b[2J instance\n"
                             "     Leaking: YES\n");
    free(got);
}

/* A V8 snapshot handed to the store as a report is refused with what it is and what to run,
 * not "not a leakray report" (tests/data/v8/cliques.heapsnapshot, in DevTools' layout). */
static void snapshot_named(void **state)
{
    (void)state;
    const char *src = getenv("LEAKRAY_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/v8/cliques.heapsnapshot", src ? src : ".");
    size_t len;
    char *doc = slurp(path, &len);
    store *s;
    lr_error err = {0};
    assert_int_equal(store_open(":memory:", &s, &err), LR_OK);
    store_meta m = {"g.heapsnapshot", "app", "1", "a", 1764547200000, 0};
    store_ingest_result r;
    assert_int_equal(store_ingest_json(s, "g.heapsnapshot", doc, len, &m, &r, &err),
                     LR_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "g.heapsnapshot: a V8 heap snapshot, not a leakray report"));
    assert_non_null(strstr(err.msg, "leakray store ingest FILE"));
    free(doc);
    store_close(s);
}

/* Ingests a suspects-mode report holding one suspect given as JSON, and returns the store's
 * leak signatures after it (the first leak's into sig). */
static void suspect_sig(store *s, const char *suspect, int day, char sig[48])
{
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"schema_version\": 2, \"mode\": \"suspects\", \"application_leaks\": [],"
             " \"library_leaks\": [], \"traces\": [], \"suspects\": [%s]}",
             suspect);
    store_meta m = {"s.json", "app", day == 0 ? "1" : "2", "",
                    1764547200000 + day * 86400000LL, 0};
    store_ingest_result r;
    lr_error err = {0};
    assert_int_equal(store_ingest_json(s, "s.json", doc, strlen(doc), &m, &r, &err), LR_OK);
    assert_int_equal(r.n_leaks, 1);
    store_filter f;
    store_filter_init(&f);
    f.version = day == 0 ? "1" : "2";
    store_leak *lv = NULL;
    size_t n = 0;
    assert_int_equal(store_leaks(s, &f, &lv, &n, &err), LR_OK);
    assert_int_equal(n, 1);
    snprintf(sig, 48, "%s", lv[0].signature);
    store_leaks_free(lv, n);
}

/* A suspect is keyed by what stays from one run to the next: a class suspect by its class
 * (its shown instance is any of the biggest), a thread's name without its counters, class
 * names without a lambda's address. */
static void suspect_keys_stable(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"{\"kind\": \"instances\", \"class\": \"Sess\", \"instances_of\": \"Sess\","
         " \"retained_bytes\": 100, \"count\": 300, \"accumulation_point\": {\"class\":"
         " \"Sess\"}, \"path\": [{\"class\": \"global\", \"reference\": {\"kind\":"
         " \"property\", \"name\": \"sess_1774\"}}, {\"class\": \"Sess\"}]}",
         "{\"kind\": \"instances\", \"class\": \"Sess\", \"instances_of\": \"Sess\","
         " \"retained_bytes\": 100, \"count\": 300, \"accumulation_point\": {\"class\":"
         " \"Sess\"}, \"path\": [{\"class\": \"global\", \"reference\": {\"kind\":"
         " \"property\", \"name\": \"sess_2551\"}}, {\"class\": \"Sess\"}]}"},
        {"{\"kind\": \"thread_locals\", \"class\": \"java.util.ArrayList\", \"thread\":"
         " {\"name\": \"pool-1-thread-2\"}, \"retained_bytes\": 9, \"count\": 1,"
         " \"accumulation_point\": {\"class\": \"java.lang.Object[]\"}, \"path\": []}",
         "{\"kind\": \"thread_locals\", \"class\": \"java.util.ArrayList\", \"thread\":"
         " {\"name\": \"pool-1-thread-3\"}, \"retained_bytes\": 9, \"count\": 1,"
         " \"accumulation_point\": {\"class\": \"java.lang.Object[]\"}, \"path\": []}"},
        {"{\"kind\": \"object\", \"class\": \"byte[]\", \"retained_bytes\": 9,"
         " \"accumulation_point\": {\"class\": \"byte[]\"}, \"path\": [{\"class\":"
         " \"Lam$$Lambda$1+0x00007f6a08000a08\", \"reference\": {\"kind\": \"field\","
         " \"name\": \"arg$1\"}}, {\"class\": \"byte[]\"}]}",
         "{\"kind\": \"object\", \"class\": \"byte[]\", \"retained_bytes\": 9,"
         " \"accumulation_point\": {\"class\": \"byte[]\"}, \"path\": [{\"class\":"
         " \"Lam$$Lambda$1+0x00007f0000c01000\", \"reference\": {\"kind\": \"field\","
         " \"name\": \"arg$1\"}}, {\"class\": \"byte[]\"}]}"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        store *s;
        lr_error err = {0};
        assert_int_equal(store_open(":memory:", &s, &err), LR_OK);
        char a[48], b[48];
        suspect_sig(s, pairs[i][0], 0, a);
        suspect_sig(s, pairs[i][1], 1, b);
        assert_string_equal(a, b);
        store_close(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dashboard_within_bounds),
        cmocka_unit_test(url_password_hidden),
        cmocka_unit_test(underline_under_name),
        cmocka_unit_test(snapshot_named),
        cmocka_unit_test(suspect_keys_stable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
