/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_dashboard.c: `leakray report --db URL -o OUT.html` (cli), prefix dashboard_. Reads the
 * leak store (leaks, each leak's days, trends by day and by version, the comparison of two
 * versions, and for the first DASH_DETAILED leaks their newest trace and history) and writes
 * the dashboard model (docs/json.md "dashboard"), then the page around it
 * (src/report/dashboard.c) or, with --format json, the model itself. Everything from the
 * store came from dumps and is untrusted: it only ever goes out through jsonw, and the page
 * shows it as text. The output file is replaced atomically. */
#include "cmd_dashboard.h"

#include "cli_store.h"

#include "base/outfile.h"
#include "report/dashboard.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DASH_MAX_LEAKS 5000 /* leaks listed; the rest are counted ("leaks_total") */
#define DASH_DETAILED 300   /* leaks with their trace and history in the page */
#define DASH_HISTORY 20     /* occurrences listed per detailed leak, newest first */

int dashboard_wanted(int argc, char **argv)
{
    /* report's options that take a value: their values are not dumps */
    static const char *const valued[] = {"-o", "--output", "--format", "--rules", "--watch",
                                         "--leaking-if", "--mapping", "--max-inflate",
                                         "--dump", "--app", "--version", "--kind", "--since",
                                         "--from", "--to", "--threshold", NULL};
    int dumps = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            dumps += argc - i - 1;
            break;
        }
        if (strcmp(a, "--db") == 0 || strncmp(a, "--db=", 5) == 0)
            return 1;
        if (a[0] != '-') {
            dumps++;
            continue;
        }
        for (int k = 0; valued[k]; k++)
            if (strcmp(a, valued[k]) == 0) {
                i++;
                break;
            }
    }
    const char *env = getenv("LEAKRAY_DB");
    return dumps == 0 && env && *env;
}

/* The store's address without a password (postgres://user:secret@host -> user:***@host). */
static void shown_url(const char *url, char *out, size_t cap)
{
    snprintf(out, cap, "%s", url);
    char *scheme = strstr(out, "://");
    char *at = scheme ? strchr(scheme + 3, '@') : NULL;
    char *colon = scheme ? strchr(scheme + 3, ':') : NULL;
    if (at && colon && colon < at) {
        size_t tail = strlen(at);
        if ((size_t)(colon + 4 - out) + tail < cap) {
            memmove(colon + 4, at, tail + 1);
            memcpy(colon + 1, "***", 3);
        }
    }
    char *pw = strstr(out, "password=");
    if (pw && strlen(out) + 3 < cap) {
        char *end = strchr(pw, '&');
        size_t tail = end ? strlen(end) : 0;
        memmove(pw + 12, end ? end : pw + strlen(pw), tail + 1);
        memcpy(pw + 9, "***", 3);
    }
}

static int cmp_point(const void *a, const void *b)
{
    const store_point *x = a, *y = b;
    int c = strcmp(x->signature, y->signature);
    return c ? c : (x->day > y->day) - (x->day < y->day);
}

static int cmp_point_key(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const store_point *)elem)->signature);
}

static void bucket_json(jsonw *w, const char *key, const store_bucket *v, size_t n)
{
    jsonw_kv_arr_begin(w, key);
    for (size_t i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "label", v[i].label);
        jsonw_kv_int(w, "reports", v[i].reports);
        jsonw_kv_int(w, "failed", v[i].failed);
        jsonw_kv_int(w, "leaks", v[i].leaks);
        jsonw_kv_int(w, "new", v[i].new_leaks);
        jsonw_kv_int(w, "recurring", v[i].recurring);
        jsonw_kv_int(w, "fixed", v[i].fixed);
        jsonw_kv_int(w, "retained_bytes", v[i].retained);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

/* The newest trace in the heap report's trace form (report.js and dashboard.js draw it). */
static void trace_json(jsonw *w, const store_trace *t)
{
    jsonw_kv_obj_begin(w, "trace");
    jsonw_kv_str(w, "gc_root", t->root);
    jsonw_kv_arr_begin(w, "elements");
    for (size_t i = 0; i < t->n; i++) {
        const store_trace_elem *e = &t->v[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "class", e->cls);
        jsonw_kv_str(w, "type", e->type);
        jsonw_kv_str(w, "leaking", e->leaking);
        jsonw_kv_str(w, "reason", e->reason);
        if (e->retained >= 0 && e->objects >= 0) {
            jsonw_kv_int(w, "retained_bytes", e->retained);
            jsonw_kv_int(w, "retained_objects", e->objects);
        }
        if (i + 1 < t->n) {
            jsonw_kv_obj_begin(w, "reference");
            jsonw_kv_str(w, "owner", e->ref_owner);
            jsonw_kv_str(w, "display", e->ref_display);
            jsonw_kv_str(w, "type", e->ref_type);
            jsonw_kv_bool(w, "static", strcmp(e->ref_type, "static_field") == 0);
            jsonw_kv_bool(w, "suspect", e->suspect);
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

/* Pattern, trace and the newest occurrences of one leak. */
static lr_status detail_json(jsonw *w, store *s, const char *sig, lr_error *err)
{
    store_detail d;
    int64_t total = 0;
    LR_TRY(store_history(s, sig, DASH_HISTORY, &d, &total, err));
    store_trace t = {0};
    lr_status st = d.trace_json ? store_trace_parse(s, d.trace_json, &t, err) : LR_OK;
    if (st == LR_OK) {
        char a[CLI_FMT_MAX];
        jsonw_kv_str(w, "pattern", d.pattern);
        jsonw_kv_str(w, "description", d.explanation);
        if (t.n)
            trace_json(w, &t);
        jsonw_kv_int(w, "history_total", total);
        jsonw_kv_arr_begin(w, "history");
        for (size_t i = 0; i < d.n_seen; i++) {
            const store_seen *x = &d.seen[i];
            jsonw_obj_begin(w);
            jsonw_kv_int(w, "report", x->report_id);
            jsonw_kv_str(w, "at", cli_store_time_iso(a, x->at_ms));
            jsonw_kv_str(w, "app", x->app);
            jsonw_kv_str(w, "version", x->version);
            jsonw_kv_str(w, "device", x->device);
            jsonw_kv_str(w, "source", x->source);
            jsonw_kv_int(w, "instances", x->instances);
            jsonw_kv_int(w, "retained_bytes", x->retained);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
    store_trace_fini(&t);
    store_detail_fini(&d);
    return st;
}

static const char *const CHANGE[] = {[STORE_NEW] = "new", [STORE_FIXED] = "fixed",
                                     [STORE_GROWN] = "grown", [STORE_SHRUNK] = "shrunk",
                                     [STORE_SAME] = "same"};

static lr_status comparison_json(jsonw *w, store *s, const store_filter *f, const char *from,
                                 const char *to, double threshold, lr_error *err)
{
    store_delta *v = NULL;
    size_t n = 0;
    LR_TRY(store_diff(s, f, from, to, threshold, &v, &n, err));
    int64_t count[STORE_SAME + 1] = {0};
    for (size_t i = 0; i < n; i++)
        count[v[i].change]++;
    jsonw_kv_obj_begin(w, "comparison");
    jsonw_kv_str(w, "from", from);
    jsonw_kv_str(w, "to", to);
    jsonw_kv_obj_begin(w, "counts");
    for (int c = 0; c <= STORE_SAME; c++)
        jsonw_kv_int(w, CHANGE[c], count[c]);
    jsonw_obj_end(w);
    jsonw_kv_arr_begin(w, "leaks");
    for (size_t i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "signature", v[i].signature);
        jsonw_kv_str(w, "kind", v[i].kind);
        jsonw_kv_str(w, "short_description", v[i].description);
        jsonw_kv_str(w, "change", CHANGE[v[i].change]);
        jsonw_kv_int(w, "from_reports", v[i].from_reports);
        jsonw_kv_int(w, "to_reports", v[i].to_reports);
        jsonw_kv_int(w, "from_retained_median", v[i].from_median);
        jsonw_kv_int(w, "to_retained_median", v[i].to_median);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    store_deltas_free(v, n);
    return LR_OK;
}

typedef struct dash_args {
    const char *url;         /* the store as shown */
    const store_opts *o;     /* filter as given */
    const char *from, *to;   /* versions compared (NULL: the two newest) */
    double threshold;        /* grown/shrunk threshold, percent */
    int no_timing;           /* leave out the generation time */
} dash_args;

static void filter_json(jsonw *w, const store_opts *o)
{
    jsonw_kv_obj_begin(w, "filter");
    jsonw_kv_str(w, "app", o->app);
    jsonw_kv_str(w, "version", o->version);
    jsonw_kv_str(w, "kind", o->kind);
    jsonw_kv_str(w, "since", o->since);
    jsonw_obj_end(w);
}

/* The model, in the order the page reads it. The caller owns and finishes the writer. */
static lr_status model_json(jsonw *w, store *s, const store_filter *f, const dash_args *a,
                            lr_error *err)
{
    store_leak *lv = NULL;
    store_point *pv = NULL;
    store_bucket *days = NULL, *vers = NULL;
    size_t nl = 0, np = 0, nd = 0, nv = 0;
    lr_status st = store_leaks(s, f, &lv, &nl, err);
    if (st == LR_OK)
        st = store_series(s, f, &pv, &np, err);
    if (st == LR_OK)
        st = store_trend(s, f, STORE_BY_DAY, &days, &nd, err);
    if (st == LR_OK)
        st = store_trend(s, f, STORE_BY_VERSION, &vers, &nv, err);
    if (st != LR_OK)
        goto done;
    if (np)
        qsort(pv, np, sizeof *pv, cmp_point);
    int64_t reports = 0, failed = 0;
    for (size_t i = 0; i < nd; i++) {
        reports += days[i].reports;
        failed += days[i].failed;
    }
    char t[CLI_FMT_MAX];
    jsonw_obj_begin(w);
    jsonw_kv_int(w, "schema_version", REP_DASH_SCHEMA_VERSION);
    jsonw_kv_str(w, "store", a->url);
    if (!a->no_timing) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        jsonw_kv_str(w, "generated", cli_store_time_iso(t, (int64_t)ts.tv_sec * 1000));
    }
    filter_json(w, a->o);
    jsonw_kv_obj_begin(w, "summary");
    jsonw_kv_int(w, "reports", reports);
    jsonw_kv_int(w, "failed", failed);
    jsonw_kv_int(w, "leaks", (int64_t)nl);
    jsonw_kv_int(w, "versions", (int64_t)nv);
    if (np) {
        int64_t lo = pv[0].day, hi = pv[0].day;
        for (size_t i = 1; i < np; i++) {
            lo = pv[i].day < lo ? pv[i].day : lo;
            hi = pv[i].day > hi ? pv[i].day : hi;
        }
        jsonw_kv_int(w, "first_day", lo);
        jsonw_kv_int(w, "last_day", hi);
    }
    jsonw_obj_end(w);
    size_t shown = nl < DASH_MAX_LEAKS ? nl : DASH_MAX_LEAKS;
    jsonw_kv_int(w, "leaks_total", (int64_t)nl);
    jsonw_kv_arr_begin(w, "leaks");
    for (size_t i = 0; i < shown && st == LR_OK; i++) {
        jsonw_obj_begin(w);
        cli_store_leak_json(w, &lv[i]);
        /* [day, occurrences, retained bytes] for each day the leak was seen */
        jsonw_kv_arr_begin(w, "days");
        store_point *p = bsearch(lv[i].signature, pv, np, sizeof *pv, cmp_point_key);
        while (p && p > pv && strcmp(p[-1].signature, lv[i].signature) == 0)
            p--;
        for (; p && p < pv + np && strcmp(p->signature, lv[i].signature) == 0; p++) {
            jsonw_arr_begin(w);
            jsonw_int(w, p->day);
            jsonw_int(w, p->occurrences);
            jsonw_int(w, p->retained);
            jsonw_arr_end(w);
        }
        jsonw_arr_end(w);
        if (i < DASH_DETAILED)
            st = detail_json(w, s, lv[i].signature, err);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    if (st == LR_OK) {
        bucket_json(w, "trend_by_day", days, nd);
        bucket_json(w, "trend_by_version", vers, nv);
        const char *from = a->from, *to = a->to;
        if (!from && !to && nv >= 2) {
            from = vers[nv - 2].label;
            to = vers[nv - 1].label;
        }
        if (from && to)
            st = comparison_json(w, s, f, from, to, a->threshold, err);
        else
            jsonw_kv_null(w, "comparison");
    }
    jsonw_obj_end(w);
done:
    store_leaks_free(lv, nl);
    free(pv);
    free(days);
    free(vers);
    return st;
}

int cmd_dashboard(int argc, char **argv)
{
    store_opts o = {0};
    const char *out = NULL, *format = "html", *from = NULL, *to = NULL;
    uint64_t threshold = 10;
    const cli_optdef opts[] = {
        STORE_DB_OPT(&o),
        CLI_OPTS_OUTPUT(&out, "output file (.html)"),
        {"--format", CLI_OPT_STR, &format, "html|json",
         "html (default): the page; json: the dashboard model it embeds", NULL},
        STORE_FILTER_OPTS(&o),
        {"--from", CLI_OPT_STR, &from, "V1", "version comparison: the older version", NULL},
        {"--to", CLI_OPT_STR, &to, "V2",
         "version comparison: the newer version (default: the two newest versions)", NULL},
        {"--threshold", CLI_OPT_UINT, &threshold, "PCT",
         "median retained change that counts as grown/shrunk (default 10)", NULL},
        {0}};
    const cli_spec spec = {
        "report", "--db URL -o OUT.html", "the leak store as a self-contained HTML dashboard",
        opts, 0, 0,
        "One HTML file with inline script and styles, no network access, opening from\n"
        "file://: every leak signature with its occurrences, dumps, apps, versions, first\n"
        "and last seen, retained median and max and a sparkline of the days it was seen;\n"
        "a click shows its newest trace (LeakCanary's layout) and its latest reports. The\n"
        "Versions tab compares two versions (new, fixed, grown, shrunk leaks) and lists\n"
        "new / recurring / fixed leaks per version; Trend does the same per day.\n"
        "Without --db and without a dump, $LEAKRAY_DB names the store.\n" CLI_OUTPUT_NOTE
        "Example: leakray report --db leaks.db -o leaks.html"};
    cli_common co;
    store_filter f;
    store *s = NULL;
    int rc = cli_store_parse(argc, argv, &spec, &out, &o, &co, &f);
    if (rc != CLI_CONTINUE)
        return rc;
    int json = strcmp(format, "json") == 0;
    if (!json && strcmp(format, "html") != 0)
        return cli_usage_error(&co, "--format must be html or json, not '%s'", format);
    if (!from != !to)
        return cli_usage_error(&co, "give both --from V1 and --to V2, or neither");
    if ((rc = cli_store_open(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    store_expect_bulk_reads(s);
    double t0 = cli_now_ms();
    char url[1024], def[4096];
    shown_url(o.db ? o.db : cli_store_default(def, sizeof def), url, sizeof url);
    dash_args a = {url, &o, from, to, (double)threshold, co.no_timing};
    lr_error err = {.offset = LR_NO_OFFSET};
    char *model = NULL, *page = NULL;
    size_t model_len = 0, page_len = 0;
    outfile *of = NULL;
    FILE *mem = open_memstream(&model, &model_len);
    if (!mem) {
        store_close(s);
        return cli_fail(&co, LR_ERR_NOMEM, "out of memory");
    }
    jsonw w;
    jsonw_init(&w, mem, 0);
    lr_status st = model_json(&w, s, &f, &a, &err);
    jsonw_finish(&w);
    fclose(mem);
    store_close(s);
    if (st != LR_OK) {
        free(model);
        return cli_error(&co, &err);
    }
    const char *body = model;
    size_t len = model_len;
    if (!json) {
        mem = open_memstream(&page, &page_len);
        if (!mem || rep_dashboard_html(mem, model, model_len) != 0) {
            if (mem)
                fclose(mem);
            free(model);
            free(page);
            return cli_fail(&co, LR_ERR_NOMEM, "out of memory");
        }
        fclose(mem);
        body = page;
        len = page_len;
    }
    if (outfile_open(out, &of, &err) == LR_OK) {
        outfile_write(of, body, len);
        st = outfile_commit(of, &err);
    } else {
        st = err.code;
    }
    free(model);
    free(page);
    if (st != LR_OK)
        return cli_error(&co, &err);
    double t1 = cli_now_ms();
    if (co.json) {
        cli_json_begin(&w);
        jsonw_kv_str(&w, "output", out);
        jsonw_kv_str(&w, "format", format);
        jsonw_kv_uint(&w, "bytes", len);
        if (!co.no_timing) {
            jsonw_kv_obj_begin(&w, "analysis_timing");
            jsonw_kv_uint(&w, "report_ms", (uint64_t)(t1 - t0 + 0.5));
            jsonw_obj_end(&w);
        }
        cli_json_end(&co, &w);
    } else {
        char b[CLI_FMT_MAX];
        printf("%s -> %s (%s)\n", url, out, cli_fmt_bytes(b, len));
        cli_print_timing(&co, stdout, "report", t1 - t0);
    }
    return CLI_EXIT_OK;
}
