/* SPDX-License-Identifier: Apache-2.0 */
/* store_dash.c: what the leak store's dashboard shows, read in one go (store layer), prefix
 * store_. Input: an open store and a filter; output: a store_dashboard (store_result.h) that
 * src/report/dashboard.c renders as the page's model. Cost: four grouped queries (leaks,
 * days, trend by day and by version), one indexed store_history per detailed leak and one
 * store_diff; memory is bounded by the caller's limits (listed leaks, detailed leaks,
 * occurrences per leak) plus one row per leak and per leak-day. */
#include "store/store_internal.h"

#include "base/err.h"

#include <stdlib.h>
#include <string.h>

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

/* The leak's days: the run of points with its signature (points sorted by signature). */
static void find_days(const store_dashboard *d, const char *sig, store_dash_leak *x)
{
    const store_point *pv = d->points, *p = NULL;
    if (d->n_points)
        p = bsearch(sig, pv, d->n_points, sizeof *pv, cmp_point_key);
    while (p && p > pv && strcmp(p[-1].signature, sig) == 0)
        p--;
    x->first_point = p ? (size_t)(p - pv) : 0;
    x->n_points = 0;
    for (; p && p < pv + d->n_points && strcmp(p->signature, sig) == 0; p++)
        x->n_points++;
}

static int read_count(void *ctx, int n, const char *const *v)
{
    if (n > 0 && v[0])
        *(int64_t *)ctx = strtoll(v[0], NULL, 10);
    return 0;
}

/* Pattern, newest trace and newest occurrences of one leak. */
static lr_status read_detail(store *s, const store_filter *f, const char *sig,
                             size_t max_history, store_dash_leak *x, lr_error *err)
{
    LR_TRY(store_history(s, f, sig, max_history, &x->detail, &x->history_total, err));
    x->detailed = 1;
    if (x->detail.trace_json)
        return store_trace_parse(s, x->detail.trace_json, &x->trace, err);
    return LR_OK;
}

lr_status store_dashboard_build(store *s, const store_filter *f, size_t max_listed,
                                size_t max_detailed, size_t max_history, const char *from,
                                const char *to, double threshold_pct, store_dashboard *out,
                                lr_error *err)
{
    store_dashboard *d = out;
    memset(d, 0, sizeof *d);
    lr_status st = store_leaks(s, f, &d->leaks, &d->n_leaks, err);
    if (st == LR_OK)
        st = store_series(s, f, &d->points, &d->n_points, err);
    if (st == LR_OK)
        st = store_trend(s, f, STORE_BY_DAY, &d->days, &d->n_days, err);
    if (st == LR_OK)
        st = store_trend(s, f, STORE_BY_VERSION, &d->versions, &d->n_versions, err);
    if (st != LR_OK)
        goto fail;
    if (d->n_points)
        qsort(d->points, d->n_points, sizeof *d->points, cmp_point);
    for (size_t i = 0; i < d->n_days; i++) {
        d->reports += d->days[i].reports;
        d->failed += d->days[i].failed;
    }
    for (size_t i = 0; i < d->n_points; i++) {
        int64_t day = d->points[i].day;
        d->first_day = !d->has_days || day < d->first_day ? day : d->first_day;
        d->last_day = !d->has_days || day > d->last_day ? day : d->last_day;
        d->has_days = 1;
    }
    size_t listed = d->n_leaks < max_listed ? d->n_leaks : max_listed;
    if (listed && !(d->listed = calloc(listed, sizeof *d->listed))) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
        goto fail;
    }
    d->n_listed = listed;
    for (size_t i = 0; i < listed && st == LR_OK; i++) {
        find_days(d, d->leaks[i].signature, &d->listed[i]);
        if (i < max_detailed)
            st = read_detail(s, f, d->leaks[i].signature, max_history, &d->listed[i], err);
    }
    if (st != LR_OK)
        goto fail;
    int64_t apps = 1;
    if (!from && !to && !f->app) {
        /* versions of two apps compare nothing (cache 5.0 against web 1.1 read as "web's
         * leaks fixed"): with several apps, only versions given, or --app, make one */
        char sql[512] = "SELECT COUNT(DISTINCT coalesce(r.app, '')) FROM report r"
                        " WHERE r.status = 'ok'";
        sdb_val p[8];
        int np = 0;
        store_filter rf = *f;
        rf.kind = NULL;
        store_filter_sql(&rf, sql, sizeof sql, p, &np);
        if ((st = sdb_exec(s->db, sql, np, p, read_count, &apps, err)) != LR_OK)
            goto fail;
    }
    if (!from && !to && apps <= 1) {
        /* the last two versions with a report: one whose every ingest failed (a dump cut
         * short) has nothing to compare, and refused the whole page */
        const char *pick[2] = {NULL, NULL};
        for (size_t i = d->n_versions; i-- > 0 && !pick[0];)
            if (d->versions[i].reports > 0) {
                if (!pick[1])
                    pick[1] = d->versions[i].label;
                else
                    pick[0] = d->versions[i].label;
            }
        from = pick[0];
        to = pick[1];
    }
    if (from && to) {
        st = store_diff(s, f, from, to, threshold_pct, &d->deltas, &d->n_deltas, NULL, err);
        if (st != LR_OK)
            goto fail;
        d->from = from;
        d->to = to;
    }
    return LR_OK;
fail:
    store_dashboard_fini(d);
    return st;
}

void store_dashboard_fini(store_dashboard *d)
{
    store_leaks_free(d->leaks, d->n_leaks);
    for (size_t i = 0; i < d->n_listed; i++)
        if (d->listed[i].detailed) {
            store_trace_fini(&d->listed[i].trace);
            store_detail_fini(&d->listed[i].detail);
        }
    free(d->listed);
    free(d->points);
    store_buckets_free(d->days, d->n_days);
    store_buckets_free(d->versions, d->n_versions);
    store_deltas_free(d->deltas, d->n_deltas);
    memset(d, 0, sizeof *d);
}
