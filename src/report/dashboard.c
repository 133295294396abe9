/* SPDX-License-Identifier: Apache-2.0 */
/* dashboard.c: the leak store's dashboard page (report layer), prefix rep_. A fixed frame
 * around four inline parts: report.css (the heap report's look: header, tabs, sortable
 * tables, LeakCanary traces), dashboard.css, the model JSON made HTML-safe by rep_json_copy,
 * and dashboard.js. Assets are compiled in from src/report/assets/ by
 * scripts/embed-assets.cmake. Size: the model plus ~25 kB. The model is written here too,
 * from a store_dashboard: strings from the store only ever go out through jsonw. */
#include "report/dashboard.h"

#include "base/url.h"

#include "report/fmt.h"
#include "report/html.h"
#include "report/model.h"
#include "report/store.h"

#include <string.h>

/* Generated from src/report/assets/ by scripts/embed-assets.cmake. */
extern const char rep_asset_report_css[];
extern const size_t rep_asset_report_css_len;
extern const char rep_asset_dashboard_css[];
extern const size_t rep_asset_dashboard_css_len;
extern const char rep_asset_dashboard_js[];
extern const size_t rep_asset_dashboard_js_len;

int rep_dashboard_html(FILE *out, const char *model, size_t len)
{
    rep_html_head(out, "leakray leak store", rep_asset_dashboard_js,
                  rep_asset_dashboard_js_len);
    fwrite(rep_asset_report_css, 1, rep_asset_report_css_len, out);
    fwrite(rep_asset_dashboard_css, 1, rep_asset_dashboard_css_len, out);
    fputs("</style>\n</head>\n<body>\n<div id=\"app\"></div>\n"
          "<script type=\"application/json\" id=\"leakray-store\">",
          out);
    if (rep_json_copy(out, model, len, 1) != 0)
        return -1;
    rep_html_scripts(out, rep_asset_dashboard_js, rep_asset_dashboard_js_len);
    return ferror(out) ? -1 : 0;
}

/* ---- the model ---- */

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
        if (e->retained >= 0)
            jsonw_kv_int(w, "retained_bytes", e->retained);
        if (e->objects >= 0)
            jsonw_kv_int(w, "retained_objects", e->objects);
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
static void detail_json(jsonw *w, const store_dash_leak *x)
{
    const store_detail *d = &x->detail;
    jsonw_kv_str(w, "pattern", d->pattern);
    jsonw_kv_str(w, "description", d->explanation);
    if (x->trace.n && !x->trace.backtrace) /* a native leak's frames are no trace */
        trace_json(w, &x->trace);
    jsonw_kv_int(w, "history_total", x->history_total);
    rep_store_seen_json(w, "history", d);
}

void rep_dashboard_json(jsonw *w, const store_dashboard *d, const rep_dash_view *v)
{
    char t[REP_FMT_MAX];
    jsonw_obj_begin(w);
    jsonw_kv_int(w, "schema_version", REP_DASH_SCHEMA_VERSION);
    jsonw_kv_str(w, "store", v->url);
    if (v->generated_ms >= 0)
        jsonw_kv_str(w, "generated", rep_store_time_iso(t, v->generated_ms));
    jsonw_kv_obj_begin(w, "filter");
    jsonw_kv_str(w, "app", v->app);
    jsonw_kv_str(w, "version", v->version);
    jsonw_kv_str(w, "kind", v->kind);
    jsonw_kv_str(w, "since", v->since);
    jsonw_obj_end(w);
    jsonw_kv_obj_begin(w, "summary");
    jsonw_kv_int(w, "reports", d->reports);
    jsonw_kv_int(w, "failed", d->failed);
    jsonw_kv_int(w, "leaks", (int64_t)d->n_leaks);
    jsonw_kv_int(w, "versions", (int64_t)d->n_versions);
    if (d->has_days) {
        jsonw_kv_int(w, "first_day", d->first_day);
        jsonw_kv_int(w, "last_day", d->last_day);
    }
    jsonw_obj_end(w);
    jsonw_kv_int(w, "leaks_total", (int64_t)d->n_leaks);
    jsonw_kv_arr_begin(w, "leaks");
    for (size_t i = 0; i < d->n_listed; i++) {
        const store_dash_leak *x = &d->listed[i];
        jsonw_obj_begin(w);
        rep_store_leak_json(w, &d->leaks[i]);
        /* [day, occurrences, retained bytes] for each day the leak was seen */
        jsonw_kv_arr_begin(w, "days");
        for (size_t k = x->first_point; k < x->first_point + x->n_points; k++) {
            const store_point *p = &d->points[k];
            jsonw_arr_begin(w);
            jsonw_int(w, p->day);
            jsonw_int(w, p->occurrences);
            jsonw_int(w, p->retained);
            jsonw_arr_end(w);
        }
        jsonw_arr_end(w);
        if (x->detailed)
            detail_json(w, x);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    rep_store_buckets_json(w, "trend_by_day", "label", d->days, d->n_days);
    rep_store_buckets_json(w, "trend_by_version", "label", d->versions,
                           d->n_versions);
    if (d->from && d->to) {
        jsonw_kv_obj_begin(w, "comparison");
        rep_store_diff_json(w, d->from, d->to, d->deltas, d->n_deltas);
        jsonw_obj_end(w);
    } else {
        jsonw_kv_null(w, "comparison");
    }
    jsonw_obj_end(w);
}

/* ---- around the page ---- */

void rep_dashboard_url(const char *url, char *out, size_t cap)
{
    url_hide_password(url, out, cap);
}

void rep_dashboard_written_text(FILE *out, const char *url, const char *path, size_t bytes)
{
    char b[REP_FMT_MAX];
    fprintf(out, "%s -> %s (%s)\n", url, path, rep_fmt_bytes(b, bytes));
}

void rep_dashboard_written_json(jsonw *w, const char *path, const char *format, size_t bytes)
{
    jsonw_kv_str(w, "output", path);
    jsonw_kv_str(w, "format", format);
    jsonw_kv_uint(w, "bytes", bytes);
}
