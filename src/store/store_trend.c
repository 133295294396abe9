/* SPDX-License-Identifier: Apache-2.0 */
/* store_trend.c: the leak store over time (store layer), prefix store_. Trend buckets (by day
 * or by version) and the diff of two versions' leaks, both computed here from sorted rows,
 * because the SQLite and PostgreSQL dialects share no median function; versions order as
 * strverscmp does. */
#define _GNU_SOURCE /* strverscmp, qsort_r */
#include "store/store_internal.h"

#include "base/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- trend ---- */

/* (bucket, signature) pairs, gathered then grouped in C. */
typedef struct pair {
    char *bucket;
    char *sig;
} pair;

typedef struct pair_vec {
    pair *v;
    size_t n, cap;
    int oom;
} pair_vec;

static int read_pair(void *ctx, int n, const char *const *v)
{
    pair_vec *pv = ctx;
    if (n < 2 || !v[0] || !v[1])
        return 0;
    if (pv->n == pv->cap) {
        size_t nc = pv->cap ? pv->cap * 2 : 256;
        pair *nv = err_reallocarray(pv->v, nc, sizeof *nv);
        if (!nv) {
            pv->oom = 1;
            return 1;
        }
        pv->v = nv;
        pv->cap = nc;
    }
    pv->v[pv->n].bucket = strdup(v[0]);
    pv->v[pv->n].sig = strdup(v[1]);
    if (!pv->v[pv->n].bucket || !pv->v[pv->n].sig)
        pv->oom = 1;
    pv->n++;
    return 0;
}

/* (bucket, app, signature) rows as (bucket, "app\x1fsignature") pairs: a signature scoped to
 * the app it was seen in (trend's fixed leaks), or (bucket, app) rows as they are. */
static int read_scoped(void *ctx, int n, const char *const *v)
{
    if (n < 3 || !v[0] || !v[1] || !v[2])
        return n == 2 ? read_pair(ctx, n, v) : 0;
    size_t la = strlen(v[1]), ls = strlen(v[2]);
    char *s = malloc(la + ls + 2);
    if (!s) {
        ((pair_vec *)ctx)->oom = 1;
        return 1;
    }
    memcpy(s, v[1], la);
    s[la] = '\x1f';
    memcpy(s + la + 1, v[2], ls + 1);
    const char *row[2] = {v[0], s};
    int rc = read_pair(ctx, 2, row);
    free(s);
    return rc;
}

static void pairs_free(pair_vec *pv)
{
    for (size_t i = 0; i < pv->n; i++) {
        free(pv->v[i].bucket);
        free(pv->v[i].sig);
    }
    free(pv->v);
}

/* Length of a version's release part: up to a '-' or '~' right after a digit, which starts
 * a pre-release ("1.2.0-rc1", Debian's "1.2.0~rc1"), or a '+' there (build metadata). */
static size_t release_len(const char *v)
{
    size_t i = 0;
    for (; v[i]; i++)
        if (i && (v[i] == '-' || v[i] == '~' || v[i] == '+') && v[i - 1] >= '0' &&
            v[i - 1] <= '9')
            break;
    return i;
}

/* Versions in release order: numbers as numbers ("3.10" after "3.9"), and a pre-release
 * before its release (semantic versioning: 1.2.0-rc1 < 1.2.0-rc2 < 1.2.0). */
static int cmp_version(const char *a, const char *b)
{
    size_t la = release_len(a), lb = release_len(b);
    char ra[256], rb[256];
    snprintf(ra, sizeof ra, "%.*s", (int)(la < 255 ? la : 255), a);
    snprintf(rb, sizeof rb, "%.*s", (int)(lb < 255 ? lb : 255), b);
    int c = strverscmp(ra, rb);
    if (c)
        return c;
    int pa = a[la] == '-' || a[la] == '~', pb = b[lb] == '-' || b[lb] == '~';
    if (pa != pb)
        return pa ? -1 : 1; /* the pre-release first */
    if (pa && (c = strverscmp(a + la + 1, b + lb + 1)) != 0)
        return c;
    return strcmp(a, b);
}

/* Buckets sort as days (numbers) or as versions (cmp_version). */
static int cmp_bucket(const char *a, const char *b, int by_version)
{
    if (by_version)
        return cmp_version(a, b);
    int64_t x = strtoll(a, NULL, 10), y = strtoll(b, NULL, 10);
    return x < y ? -1 : x > y;
}

static int cmp_pair(const void *a, const void *b, void *by_version)
{
    const pair *x = a, *y = b;
    int c = cmp_bucket(x->bucket, y->bucket, *(int *)by_version);
    return c ? c : strcmp(x->sig, y->sig);
}

typedef struct bucket_vec {
    store_bucket *v;
    size_t n, cap;
    int oom;
} bucket_vec;

static store_bucket *bucket_get(bucket_vec *bv, const char *label)
{
    for (size_t i = 0; i < bv->n; i++)
        if (strcmp(bv->v[i].label, label) == 0)
            return &bv->v[i];
    if (bv->n == bv->cap) {
        size_t nc = bv->cap ? bv->cap * 2 : 32;
        store_bucket *nv = err_reallocarray(bv->v, nc, sizeof *nv);
        if (!nv) {
            bv->oom = 1;
            return NULL;
        }
        bv->v = nv;
        bv->cap = nc;
    }
    store_bucket *b = &bv->v[bv->n];
    memset(b, 0, sizeof *b);
    if (!(b->label = strdup(label))) {
        bv->oom = 1;
        return NULL;
    }
    bv->n++;
    return b;
}

void store_buckets_free(store_bucket *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].label);
    free(v);
}

static int read_bucket_totals(void *ctx, int n, const char *const *v)
{
    bucket_vec *bv = ctx;
    if (n < 4 || !v[0])
        return 0;
    store_bucket *b = bucket_get(bv, v[0]);
    if (!b)
        return 1;
    if (v[1] && strcmp(v[1], "ok") == 0) {
        b->reports += num(v[2]);
        b->retained += num(v[3]);
    } else {
        b->failed += num(v[2]);
    }
    return 0;
}

/* Sets the retained bytes of an existing bucket (a kind's, store_trend). */
static int read_kind_retained(void *ctx, int n, const char *const *v)
{
    bucket_vec *bv = ctx;
    if (n < 2 || !v[0])
        return 0;
    for (size_t i = 0; i < bv->n; i++)
        if (strcmp(bv->v[i].label, v[0]) == 0)
            bv->v[i].retained = num(v[1]);
    return 0;
}

static int cmp_bucket_v(const void *a, const void *b, void *by_version)
{
    return cmp_bucket(((const store_bucket *)a)->label, ((const store_bucket *)b)->label,
                      *(int *)by_version);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int in_sorted(char **v, size_t n, const char *s)
{
    return n && bsearch(&s, v, n, sizeof *v, cmp_str) != NULL;
}

lr_status store_trend(store *s, const store_filter *f, store_trend_by by, store_bucket **out,
                      size_t *n, lr_error *err)
{
    *out = NULL;
    *n = 0;
    const char *bucket = by == STORE_BY_DAY ? "(r.at / 86400000)" : "r.version";
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT DISTINCT %s, o.signature" FROM_OCC, bucket);
    sdb_val p[8];
    int np = 0;
    store_filter_sql(f, sql, sizeof sql, p, &np);
    pair_vec pv = {0};
    bucket_vec bv = {0};
    lr_status st = sdb_exec(s->db, sql, np, p, read_pair, &pv, err);
    /* Report totals, failed ingests included; a kind filter applies to leaks only. */
    store_filter rf = *f;
    rf.kind = NULL;
    snprintf(sql, sizeof sql,
             "SELECT %s, r.status, COUNT(*), SUM(r.retained_bytes) FROM report r WHERE 1 = 1",
             bucket);
    np = 0;
    store_filter_sql(&rf, sql, sizeof sql, p, &np);
    size_t len = strlen(sql);
    snprintf(sql + len, sizeof sql - len, " GROUP BY %s, r.status", bucket);
    if (st == LR_OK && !pv.oom)
        st = sdb_exec(s->db, sql, np, p, read_bucket_totals, &bv, err);
    /* under a kind filter the bytes are those the leaks of that kind retained: the report
     * totals count every kind (a day of no suspect showed the application leaks' bytes) */
    if (st == LR_OK && f->kind && !bv.oom) {
        for (size_t b = 0; b < bv.n; b++)
            bv.v[b].retained = 0;
        snprintf(sql, sizeof sql, "SELECT %s, SUM(o.retained_bytes)" FROM_OCC, bucket);
        np = 0;
        store_filter_sql(f, sql, sizeof sql, p, &np);
        len = strlen(sql);
        snprintf(sql + len, sizeof sql - len, " GROUP BY %s", bucket);
        st = sdb_exec(s->db, sql, np, p, read_kind_retained, &bv, err);
    }
    /* A leak is fixed in a bucket where the app it was seen in has data and it is gone; a
     * bucket of another app's dumps says nothing of it (a fleet's services are dumped on
     * different days, their versions are numbered apart): its signatures by app, and which
     * apps each bucket has reports of */
    pair_vec sv = {0}, av = {0};
    if (st == LR_OK) {
        snprintf(sql, sizeof sql, "SELECT DISTINCT %s, coalesce(r.app, ''), o.signature" FROM_OCC,
                 bucket);
        np = 0;
        store_filter_sql(f, sql, sizeof sql, p, &np);
        st = sdb_exec(s->db, sql, np, p, read_scoped, &sv, err);
    }
    if (st == LR_OK) {
        snprintf(sql, sizeof sql,
                 "SELECT DISTINCT %s, coalesce(r.app, '') FROM report r WHERE r.status = 'ok'",
                 bucket);
        np = 0;
        store_filter_sql(&rf, sql, sizeof sql, p, &np);
        st = sdb_exec(s->db, sql, np, p, read_scoped, &av, err);
    }
    if (st == LR_OK && (pv.oom || bv.oom || sv.oom || av.oom))
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    if (st != LR_OK) {
        pairs_free(&pv);
        pairs_free(&sv);
        pairs_free(&av);
        store_buckets_free(bv.v, bv.n);
        return st;
    }
    int by_version = by == STORE_BY_VERSION;
    /* No report matched (an empty store, a filter on nothing): the arrays are NULL. */
    if (pv.n)
        qsort_r(pv.v, pv.n, sizeof *pv.v, cmp_pair, &by_version);
    if (bv.n)
        qsort_r(bv.v, bv.n, sizeof *bv.v, cmp_bucket_v, &by_version);
    if (sv.n)
        qsort_r(sv.v, sv.n, sizeof *sv.v, cmp_pair, &by_version);
    if (av.n)
        qsort_r(av.v, av.n, sizeof *av.v, cmp_pair, &by_version);
    /* Walk buckets in order with the set of signatures seen so far and the previous bucket's
     * set; both are sorted arrays of pointers into pv. */
    char **seen = err_mallocarray(pv.n + 1, sizeof *seen);
    char **cur = err_mallocarray(pv.n + 1, sizeof *cur);
    /* "app\x1fsignature" of each app's last bucket with data; this bucket's; its apps */
    char **last = err_mallocarray(sv.n + 1, sizeof *last);
    char **next = err_mallocarray(sv.n + 1, sizeof *next);
    char **scur = err_mallocarray(sv.n + 1, sizeof *scur);
    char **gone = err_mallocarray(sv.n + 1, sizeof *gone);
    char **apps = err_mallocarray(av.n + 1, sizeof *apps);
    size_t n_seen = 0, n_last = 0, is = 0, ia = 0;
    if (!seen || !cur || !last || !next || !scur || !gone || !apps) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
        goto done;
    }
    size_t i = 0;
    for (size_t b = 0; b < bv.n; b++) {
        store_bucket *bk = &bv.v[b];
        size_t n_cur = 0;
        while (i < pv.n && cmp_bucket(pv.v[i].bucket, bk->label, by_version) < 0)
            i++;
        while (i < pv.n && cmp_bucket(pv.v[i].bucket, bk->label, by_version) == 0)
            cur[n_cur++] = pv.v[i++].sig;
        bk->leaks = (int64_t)n_cur;
        for (size_t k = 0; k < n_cur; k++) {
            if (in_sorted(seen, n_seen, cur[k]))
                bk->recurring++;
            else
                bk->new_leaks++;
        }
        for (size_t k = 0; k < n_cur; k++)
            if (!in_sorted(seen, n_seen, cur[k]))
                seen[n_seen++] = cur[k];
        qsort(seen, n_seen, sizeof *seen, cmp_str);
        /* Fixed: seen in an app's last bucket with data, gone from this one, where that app
         * has data. A bucket whose ingests all failed (a dump cut short) has no app: it says
         * nothing of any leak, and the next compares with the last that did. */
        size_t n_scur = 0, n_apps = 0, n_gone = 0, n_next = 0;
        while (is < sv.n && cmp_bucket(sv.v[is].bucket, bk->label, by_version) < 0)
            is++;
        while (is < sv.n && cmp_bucket(sv.v[is].bucket, bk->label, by_version) == 0)
            scur[n_scur++] = sv.v[is++].sig;
        while (ia < av.n && cmp_bucket(av.v[ia].bucket, bk->label, by_version) < 0)
            ia++;
        while (ia < av.n && cmp_bucket(av.v[ia].bucket, bk->label, by_version) == 0)
            apps[n_apps++] = av.v[ia++].sig;
        for (size_t k = 0; k < n_last; k++) {
            const char *us = strchr(last[k], '\x1f');
            char app[512];
            size_t la = us ? (size_t)(us - last[k]) : 0;
            snprintf(app, sizeof app, "%.*s", (int)(la < sizeof app ? la : sizeof app - 1),
                     last[k]);
            if (!us || !in_sorted(apps, n_apps, app)) {
                next[n_next++] = last[k]; /* no data of its app here: still its last */
                continue;
            }
            if (!in_sorted(scur, n_scur, last[k]))
                gone[n_gone++] = (char *)us + 1;
        }
        qsort(gone, n_gone, sizeof *gone, cmp_str);
        for (size_t k = 0; k < n_gone; k++) /* one leak gone from two apps is one fixed */
            bk->fixed += !k || strcmp(gone[k], gone[k - 1]) != 0;
        memcpy(next + n_next, scur, n_scur * sizeof *scur);
        n_last = n_next + n_scur;
        memcpy(last, next, n_last * sizeof *last);
        qsort(last, n_last, sizeof *last, cmp_str);
        if (by == STORE_BY_DAY) {
            time_t t = (time_t)(strtoll(bk->label, NULL, 10) * 86400);
            struct tm tm;
            char day[32];
            char *nl = gmtime_r(&t, &tm) && strftime(day, sizeof day, "%Y-%m-%d", &tm)
                           ? strdup(day) : NULL;
            if (!nl) {
                st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
                goto done;
            }
            free(bk->label);
            bk->label = nl;
        }
    }
    *out = bv.v;
    *n = bv.n;
    bv.v = NULL;
    bv.n = 0;
done:
    free(seen);
    free(cur);
    free(last);
    free(next);
    free(scur);
    free(gone);
    free(apps);
    store_buckets_free(bv.v, bv.n);
    pairs_free(&pv);
    pairs_free(&sv);
    pairs_free(&av);
    return st;
}

/* ---- diff ---- */

typedef struct diff_row {
    char *sig;
    int to;          /* 0: from version, 1: to version */
    int64_t retained;
} diff_row;

typedef struct diff_rows {
    diff_row *v;
    size_t n, cap;
    const char *from;
    int oom;
} diff_rows;

static int read_diff_row(void *ctx, int n, const char *const *v)
{
    diff_rows *d = ctx;
    if (n < 3 || !v[0] || !v[1])
        return 0;
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 256;
        diff_row *nv = err_reallocarray(d->v, nc, sizeof *nv);
        if (!nv) {
            d->oom = 1;
            return 1;
        }
        d->v = nv;
        d->cap = nc;
    }
    diff_row *r = &d->v[d->n++];
    r->sig = strdup(v[1]);
    r->to = strcmp(v[0], d->from) != 0;
    r->retained = num(v[2]);
    if (!r->sig)
        d->oom = 1;
    return 0;
}

static int cmp_diff_row(const void *a, const void *b)
{
    const diff_row *x = a, *y = b;
    int c = strcmp(x->sig, y->sig);
    if (c)
        return c;
    if (x->to != y->to)
        return x->to - y->to;
    return x->retained < y->retained ? -1 : x->retained > y->retained;
}

static int cmp_delta(const void *a, const void *b)
{
    static const int rank[] = {[STORE_NEW] = 0, [STORE_GROWN] = 1, [STORE_SHRUNK] = 2,
                               [STORE_FIXED] = 3, [STORE_SAME] = 4};
    const store_delta *x = a, *y = b;
    if (rank[x->change] != rank[y->change])
        return rank[x->change] - rank[y->change];
    int64_t sx = x->to_median > x->from_median ? x->to_median : x->from_median;
    int64_t sy = y->to_median > y->from_median ? y->to_median : y->from_median;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return strcmp(x->signature, y->signature);
}

static int read_kind_desc(void *ctx, int n, const char *const *v)
{
    store_delta *d = ctx;
    if (n >= 2) {
        snprintf(d->kind, sizeof d->kind, "%s", v[0] ? v[0] : "");
        d->description = strdup(v[1] ? v[1] : "");
    }
    return 1;
}

static int read_count(void *ctx, int n, const char *const *v)
{
    if (n >= 1 && v[0])
        *(int64_t *)ctx = num(v[0]);
    return 0;
}

/* Reports of version v that the filter keeps (its kind aside): none means a mistyped or
 * never ingested version, whose leaks a comparison would call all new or all fixed. */
static lr_status version_reports(store *s, const store_filter *f, const char *v, int64_t *out,
                                 lr_error *err)
{
    store_filter rf = *f;
    rf.version = NULL;
    rf.kind = NULL;
    char sql[1024] = "SELECT COUNT(*) FROM report r WHERE r.status = 'ok' AND r.version = $1";
    sdb_val p[8] = {SDB_TEXT(v)};
    int np = 1;
    store_filter_sql(&rf, sql, sizeof sql, p, &np);
    *out = 0;
    return sdb_exec(s->db, sql, np, p, read_count, out, err);
}

/* Whether version v stored any suspect (under the filter, its kind aside): suspects are
 * stored for dumps with no leaking object only, so a version whose dumps all had some says
 * nothing of them. */
static lr_status version_suspects(store *s, const store_filter *f, const char *v, int64_t *out,
                                  lr_error *err)
{
    store_filter rf = *f;
    rf.version = NULL;
    rf.kind = NULL;
    char sql[1024] = "SELECT COUNT(*)" FROM_OCC " AND l.kind = 'suspect' AND r.version = $1";
    sdb_val p[8] = {SDB_TEXT(v)};
    int np = 1;
    store_filter_sql(&rf, sql, sizeof sql, p, &np);
    *out = 0;
    return sdb_exec(s->db, sql, np, p, read_count, out, err);
}

lr_status store_diff(store *s, const store_filter *f, const char *from, const char *to,
                     double threshold_pct, store_delta **out, size_t *n, size_t *untracked,
                     lr_error *err)
{
    *out = NULL;
    *n = 0;
    if (untracked)
        *untracked = 0;
    if (strcmp(from, to) == 0)
        return LR_FAIL(err, LR_ERR_USAGE, "store diff: --from and --to both name version %s",
                       from);
    const char *names[2] = {from, to};
    for (int k = 0; k < 2; k++) {
        int64_t c;
        LR_TRY(version_reports(s, f, names[k], &c, err));
        if (c == 0)
            return LR_FAIL(err, LR_ERR_USAGE,
                           "store diff: no report of version %s%s (`leakray store trend --by "
                           "version` lists the versions)",
                           names[k], f->app ? " for this app" : "");
    }
    int64_t susp[2];
    for (int k = 0; k < 2; k++)
        LR_TRY(version_suspects(s, f, names[k], &susp[k], err));
    store_filter vf = *f;
    vf.version = NULL;
    char sql[1024] = "SELECT r.version, o.signature, o.retained_bytes" FROM_OCC
                     " AND r.version IN ($1, $2)";
    sdb_val p[8] = {SDB_TEXT(from), SDB_TEXT(to)};
    int np = 2;
    store_filter_sql(&vf, sql, sizeof sql, p, &np);
    diff_rows rows = {0};
    rows.from = from;
    lr_status st = sdb_exec(s->db, sql, np, p, read_diff_row, &rows, err);
    if (st == LR_OK && rows.oom)
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    store_delta *dv = NULL;
    size_t nd = 0;
    if (st == LR_OK && rows.n) {
        qsort(rows.v, rows.n, sizeof *rows.v, cmp_diff_row);
        dv = err_calloc(rows.n, sizeof *dv);
        if (!dv)
            st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    }
    for (size_t i = 0; st == LR_OK && i < rows.n;) {
        size_t j = i, mid = i;
        while (j < rows.n && strcmp(rows.v[j].sig, rows.v[i].sig) == 0 && !rows.v[j].to)
            j++;
        mid = j;
        while (j < rows.n && strcmp(rows.v[j].sig, rows.v[i].sig) == 0)
            j++;
        store_delta *d = &dv[nd++];
        snprintf(d->signature, sizeof d->signature, "%s", rows.v[i].sig);
        d->from_reports = (int64_t)(mid - i);
        d->to_reports = (int64_t)(j - mid);
        if (d->from_reports)
            d->from_median = rows.v[i + (mid - i - 1) / 2].retained;
        if (d->to_reports)
            d->to_median = rows.v[mid + (j - mid - 1) / 2].retained;
        if (!d->from_reports)
            d->change = STORE_NEW;
        else if (!d->to_reports)
            d->change = STORE_FIXED;
        else if ((double)d->to_median > (double)d->from_median * (1 + threshold_pct / 100))
            d->change = STORE_GROWN;
        else if ((double)d->to_median < (double)d->from_median * (1 - threshold_pct / 100))
            d->change = STORE_SHRUNK;
        else
            d->change = STORE_SAME;
        sdb_val sp = SDB_TEXT(d->signature);
        st = sdb_exec(s->db, "SELECT kind, short_description FROM leak WHERE signature = $1",
                      1, &sp, read_kind_desc, d, err);
        if (st == LR_OK && !d->description)
            d->description = strdup("");
        /* a suspect "new" against a version that stored none, or "fixed" in one: not known */
        if (st == LR_OK && !strcmp(d->kind, "suspect") &&
            ((d->change == STORE_NEW && !susp[0]) || (d->change == STORE_FIXED && !susp[1]))) {
            free(d->description);
            memset(d, 0, sizeof *d);
            nd--;
            if (untracked)
                ++*untracked;
        }
        i = j;
    }
    for (size_t i = 0; i < rows.n; i++)
        free(rows.v[i].sig);
    free(rows.v);
    if (st != LR_OK) {
        store_deltas_free(dv, nd);
        return st;
    }
    if (nd)
        qsort(dv, nd, sizeof *dv, cmp_delta);
    *out = dv;
    *n = nd;
    return LR_OK;
}

void store_deltas_free(store_delta *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].description);
    free(v);
}
