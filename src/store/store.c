/* SPDX-License-Identifier: Apache-2.0 */
/* store.c: the leak store's schema and queries (store layer), prefix store_. See store.h for
 * the model. Schema steps are applied in order, each in the transaction that bumps
 * store_meta.schema_version, so a crash mid-upgrade leaves the old version intact. Medians are
 * computed here from sorted rows, because the two SQL dialects share no median function.
 * Ingest is in store_ingest.c, trend and diff in store_trend.c (shared: store_internal.h).
 * Costs: `store_leaks` reads every matching occurrence once. */
#define _GNU_SOURCE /* strverscmp, qsort_r */
#include "store/store_internal.h"

#include "base/err.h"
#include "graph/graph.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- schema ---- */

/* The auto-increment key differs between dialects; every step is written with @PK@. */
#define PK_SQLITE "INTEGER PRIMARY KEY"
#define PK_PG "BIGSERIAL PRIMARY KEY"

/* Version 1: reports, leaks by signature, and occurrences joining them (LeakCanary's
 * heap_analysis / leak / leak_trace, with the app, version and device a fleet needs). */
static const char *const STEP1[] = {
    "CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE report ("
    " id @PK@,"
    " ingest_hash TEXT NOT NULL UNIQUE,"
    " content_hash TEXT NOT NULL,"
    " kind TEXT NOT NULL,"
    " status TEXT NOT NULL,"
    " error TEXT,"
    " source TEXT NOT NULL,"
    " app TEXT NOT NULL,"
    " version TEXT NOT NULL,"
    " device TEXT NOT NULL,"
    " at BIGINT NOT NULL,"
    " ingested_at BIGINT NOT NULL,"
    " leak_count INTEGER NOT NULL,"
    " retained_bytes BIGINT NOT NULL)",
    "CREATE TABLE leak ("
    " signature TEXT PRIMARY KEY,"
    " kind TEXT NOT NULL,"
    " short_description TEXT NOT NULL,"
    " pattern TEXT,"
    " description TEXT)",
    "CREATE TABLE occurrence ("
    " report_id BIGINT NOT NULL REFERENCES report(id) ON DELETE CASCADE,"
    " signature TEXT NOT NULL REFERENCES leak(signature),"
    " instances BIGINT NOT NULL,"
    " retained_bytes BIGINT NOT NULL,"
    " retained_objects BIGINT NOT NULL,"
    " trace TEXT,"
    " PRIMARY KEY (report_id, signature))",
    NULL};

/* Recomputes every leak's running totals (below) from the occurrences: the end of the
 * upgrade to version 2, and of a prune, which removes occurrences. */
#define RECOMPUTE_TOTALS                                                                      \
    "DELETE FROM leak_seen",                                                                  \
    "INSERT INTO leak_seen(signature, dim, value) SELECT DISTINCT o.signature, 'app', r.app"  \
    " FROM occurrence o JOIN report r ON r.id = o.report_id",                                 \
    "INSERT INTO leak_seen(signature, dim, value) SELECT DISTINCT o.signature, 'version',"    \
    " r.version FROM occurrence o JOIN report r ON r.id = o.report_id",                       \
    "INSERT INTO leak_seen(signature, dim, value) SELECT DISTINCT o.signature, 'dump',"       \
    " r.content_hash FROM occurrence o JOIN report r ON r.id = o.report_id",                  \
    "UPDATE leak SET"                                                                          \
    " occurrences = (SELECT COUNT(*) FROM occurrence o WHERE o.signature = leak.signature),"  \
    " instances = COALESCE((SELECT SUM(o.instances) FROM occurrence o"                        \
    "  WHERE o.signature = leak.signature), 0),"                                              \
    " retained_max = COALESCE((SELECT MAX(o.retained_bytes) FROM occurrence o"                \
    "  WHERE o.signature = leak.signature), 0),"                                              \
    " first_at = COALESCE((SELECT MIN(r.at) FROM occurrence o JOIN report r"                  \
    "  ON r.id = o.report_id WHERE o.signature = leak.signature), 0),"                        \
    " last_at = COALESCE((SELECT MAX(r.at) FROM occurrence o JOIN report r"                   \
    "  ON r.id = o.report_id WHERE o.signature = leak.signature), 0),"                        \
    " apps = (SELECT COUNT(*) FROM leak_seen s WHERE s.signature = leak.signature"            \
    "  AND s.dim = 'app'),"                                                                   \
    " versions = (SELECT COUNT(*) FROM leak_seen s WHERE s.signature = leak.signature"        \
    "  AND s.dim = 'version'),"                                                               \
    " dumps = (SELECT COUNT(*) FROM leak_seen s WHERE s.signature = leak.signature"           \
    "  AND s.dim = 'dump')"

/* Version 2: running totals per leak, kept by every ingest, so the leak list over 100,000
 * reports reads 1,000 rows instead of grouping 300,000 (leak_seen holds the distinct apps,
 * versions and dumps a leak was seen in); the indexes the medians, trends and pruning walk
 * (leaks.db has none on its foreign keys, which LeakCanary 3's schema fixed); and which
 * leakray wrote each report. */
static const char *const STEP2[] = {
    "CREATE INDEX IF NOT EXISTS occurrence_signature ON occurrence(signature, retained_bytes)",
    "CREATE INDEX IF NOT EXISTS report_at ON report(at)",
    "CREATE INDEX IF NOT EXISTS report_app_version ON report(app, version)",
    "ALTER TABLE report ADD COLUMN tool_version TEXT",
    "ALTER TABLE leak ADD COLUMN occurrences BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE leak ADD COLUMN instances BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE leak ADD COLUMN retained_max BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE leak ADD COLUMN first_at BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE leak ADD COLUMN last_at BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE leak ADD COLUMN apps BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE leak ADD COLUMN versions BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE leak ADD COLUMN dumps BIGINT NOT NULL DEFAULT 0",
    "CREATE TABLE leak_seen ("
    " signature TEXT NOT NULL,"
    " dim TEXT NOT NULL,"
    " value TEXT NOT NULL,"
    " PRIMARY KEY (signature, dim, value))",
    RECOMPUTE_TOTALS,
    NULL};

static const char *const RECOMPUTE[] = {RECOMPUTE_TOTALS, NULL};

static const char *const *const STEPS[] = {STEP1, STEP2};
#define N_STEPS ((int)(sizeof STEPS / sizeof STEPS[0]))

static int read_int(void *ctx, int n, const char *const *vals)
{
    if (n > 0 && vals[0])
        *(int64_t *)ctx = strtoll(vals[0], NULL, 10);
    return 1;
}

/* A schema version: digits only, else -1 (a damaged or hand-edited store_meta) */
static int read_version(void *ctx, int n, const char *const *vals)
{
    int64_t *v = ctx;
    *v = -1;
    if (n > 0 && vals[0] && vals[0][0] && strlen(vals[0]) < 10 &&
        strspn(vals[0], "0123456789") == strlen(vals[0]))
        *v = strtoll(vals[0], NULL, 10);
    return 1;
}

static lr_status exec_ddl(store *s, const char *stmt, lr_error *err)
{
    const char *pk = sdb_kind_of(s->db) == SDB_SQLITE ? PK_SQLITE : PK_PG;
    char sql[1024];
    const char *at = strstr(stmt, "@PK@");
    if (at) {
        int k = snprintf(sql, sizeof sql, "%.*s%s%s", (int)(at - stmt), stmt, pk, at + 4);
        if (k < 0 || (size_t)k >= sizeof sql)
            return LR_FAIL(err, LR_ERR_INTERNAL, "store: schema statement too long");
        stmt = sql;
    }
    return sdb_exec(s->db, stmt, 0, NULL, NULL, NULL, err);
}

static lr_status current_version(store *s, int64_t *v, lr_error *err)
{
    int has = 0;
    *v = 0;
    LR_TRY(sdb_has_table(s->db, "store_meta", &has, err));
    if (!has)
        return LR_OK;
    LR_TRY(sdb_exec(s->db, "SELECT value FROM store_meta WHERE key = 'schema_version'", 0,
                    NULL, read_version, v, err));
    /* store_meta is made in the step that sets version 1: with no version, or 0, it is a
     * damaged store (read as none, the next ingest failed on the tables already there) */
    if (*v == 0)
        *v = -1;
    return LR_OK;
}

static int count_row(void *ctx, int n, const char *const *vals)
{
    (void)n, (void)vals;
    ++*(int64_t *)ctx;
    return 0;
}

/* A database with tables and no store_meta is another program's (SQLite's is refused as it
 * opens, store_sqlite.c): its tables are left as they are. */
static lr_status refuse_foreign(store *s, const char *url, lr_error *err)
{
    if (sdb_kind_of(s->db) != SDB_POSTGRES)
        return LR_OK;
    int64_t n = 0;
    LR_TRY(sdb_exec(s->db, "SELECT 1 FROM information_schema.tables "
                           "WHERE table_schema = current_schema()", 0, NULL, count_row, &n,
                    err));
    if (!n)
        return LR_OK;
    char shown[256];
    sdb_url_display(url, shown, sizeof shown);
    return LR_FAIL(err, LR_ERR_FORMAT, "%s: a PostgreSQL database that is no leakray store "
                   "(it has %" PRId64 " tables, none of a store's): left untouched", shown, n);
}

/* Brings the schema to STORE_SCHEMA_VERSION, one step per transaction. Another process may
 * be doing the same: the write transaction (SQLite) or advisory lock (PostgreSQL) makes the
 * second one find the work done. */
static lr_status migrate(store *s, const char *url, int existing, lr_error *err)
{
    int64_t v = 0;
    LR_TRY(current_version(s, &v, err));
    if (v == 0 && existing) {
        char shown[256];
        sdb_url_display(url, shown, sizeof shown);
        return LR_FAIL(err, LR_ERR_IO, "no leak store at %s (`leakray store ingest` makes one)",
                       shown);
    }
    if (v < 0) {
        char shown[256];
        sdb_url_display(url, shown, sizeof shown);
        return LR_FAIL(err, LR_ERR_FORMAT, "%s: store_meta's schema_version is no version "
                       "this leakray knows (a damaged store)", shown);
    }
    if (v > STORE_SCHEMA_VERSION) {
        char shown[256];
        sdb_url_display(url, shown, sizeof shown);
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: store schema version %" PRId64 " is newer than this leakray's (%d)"
                       "; upgrade leakray",
                       shown, v, STORE_SCHEMA_VERSION);
    }
    while (v < STORE_SCHEMA_VERSION) {
        LR_TRY(sdb_begin(s->db, err));
        /* Read again under the lock: another process may have upgraded meanwhile. */
        lr_status st = sdb_lock_schema(s->db, err);
        if (st == LR_OK)
            st = current_version(s, &v, err);
        if (st == LR_OK && v < 0)
            st = LR_FAIL(err, LR_ERR_FORMAT, "store_meta's schema_version is no version this "
                         "leakray knows (a damaged store)");
        /* under the lock: another process creating the store meanwhile is no foreigner */
        if (st == LR_OK && v == 0)
            st = refuse_foreign(s, url, err);
        if (st == LR_OK && v >= 0 && v < STORE_SCHEMA_VERSION) {
            for (const char *const *q = STEPS[v]; st == LR_OK && *q; q++)
                st = exec_ddl(s, *q, err);
            char nv[24];
            snprintf(nv, sizeof nv, "%" PRId64, v + 1);
            sdb_val p = SDB_TEXT(nv);
            if (st == LR_OK)
                st = sdb_exec(s->db,
                              "INSERT INTO store_meta(key, value) VALUES ('schema_version', $1)"
                              " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                              1, &p, NULL, NULL, err);
        }
        if (st != LR_OK) {
            sdb_rollback(s->db);
            return st;
        }
        LR_TRY(sdb_commit(s->db, err));
        LR_TRY(current_version(s, &v, err));
    }
    s->version = (int)v;
    return LR_OK;
}

static lr_status open_store(const char *url, int existing, store **out, lr_error *err)
{
    *out = NULL;
    store *s = calloc(1, sizeof *s);
    if (!s)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    lr_status st = sdb_open(url, &s->db, err);
    if (st == LR_OK && sqlite3_open_v2(":memory:", &s->json, SQLITE_OPEN_READWRITE, NULL) !=
                           SQLITE_OK)
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: cannot open the JSON reader");
    if (st == LR_OK)
        st = migrate(s, url, existing, err);
    if (st != LR_OK) {
        store_close(s);
        return st;
    }
    *out = s;
    return LR_OK;
}

lr_status store_open(const char *url, store **out, lr_error *err)
{
    return open_store(url, 0, out, err);
}

lr_status store_open_existing(const char *url, store **out, lr_error *err)
{
    return open_store(url, 1, out, err);
}

void store_close(store *s)
{
    if (!s)
        return;
    sdb_close(s->db);
    if (s->json)
        sqlite3_close(s->json);
    free(s);
}

/* KiB of SQLite page cache for store_expect_bulk_reads (a negative cache_size is KiB). */
#define STORE_BULK_CACHE_KIB "262144"

void store_expect_bulk_reads(store *s)
{
    lr_error ignored = {0};
    if (sdb_kind_of(s->db) == SDB_SQLITE)
        sdb_exec(s->db, "PRAGMA cache_size=-" STORE_BULK_CACHE_KIB, 0, NULL, NULL, NULL,
                 &ignored);
}

int store_schema_version(const store *s)
{
    return s->version;
}

/* ---- queries ---- */

void store_filter_init(store_filter *f)
{
    memset(f, 0, sizeof *f);
    f->since_ms = INT64_MIN;
}

/* Appends the filter's conditions on report r / leak l to sql (after "WHERE r.status =
 * 'ok'") and its values to p, numbering from *n + 1. */
void store_filter_sql(const store_filter *f, char *sql, size_t cap, sdb_val *p, int *n)
{
    size_t len = strlen(sql);
    char add[96];
    if (f->app) {
        p[*n] = SDB_TEXT(f->app);
        snprintf(add, sizeof add, " AND r.app = $%d", ++*n);
        snprintf(sql + len, cap - len, "%s", add);
        len = strlen(sql);
    }
    if (f->version) {
        p[*n] = SDB_TEXT(f->version);
        snprintf(add, sizeof add, " AND r.version = $%d", ++*n);
        snprintf(sql + len, cap - len, "%s", add);
        len = strlen(sql);
    }
    if (f->kind) {
        p[*n] = SDB_TEXT(f->kind);
        snprintf(add, sizeof add, " AND l.kind = $%d", ++*n);
        snprintf(sql + len, cap - len, "%s", add);
        len = strlen(sql);
    }
    if (f->since_ms != INT64_MIN) {
        p[*n] = SDB_INT(f->since_ms);
        snprintf(add, sizeof add, " AND r.at >= $%d", ++*n);
        snprintf(sql + len, cap - len, "%s", add);
    }
}

typedef struct leak_vec {
    store_leak *v;
    size_t n, cap;
    int oom;
} leak_vec;

static int read_leak(void *ctx, int n, const char *const *v)
{
    leak_vec *lv = ctx;
    if (n < 11)
        return 0;
    if (lv->n == lv->cap) {
        size_t nc = lv->cap ? lv->cap * 2 : 64;
        store_leak *nv = err_reallocarray(lv->v, nc, sizeof *nv);
        if (!nv) {
            lv->oom = 1;
            return 1;
        }
        lv->v = nv;
        lv->cap = nc;
    }
    store_leak *l = &lv->v[lv->n++];
    memset(l, 0, sizeof *l);
    snprintf(l->signature, sizeof l->signature, "%s", v[0] ? v[0] : "");
    snprintf(l->kind, sizeof l->kind, "%s", v[1] ? v[1] : "");
    l->description = strdup(v[2] ? v[2] : "");
    if (!l->description)
        lv->oom = 1;
    l->first_ms = num(v[3]);
    l->last_ms = num(v[4]);
    l->occurrences = num(v[5]);
    l->dumps = num(v[6]);
    l->instances = num(v[7]);
    l->apps = num(v[8]);
    l->versions = num(v[9]);
    l->retained_max = num(v[10]);
    return 0;
}

static int cmp_leak_sig(const void *a, const void *b)
{
    return strcmp(((const store_leak *)a)->signature, ((const store_leak *)b)->signature);
}

static int cmp_sig_key(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const store_leak *)elem)->signature);
}

/* Median rows (signature, retained) in any order; leaks sorted by signature. */
static int read_median(void *ctx, int n, const char *const *v)
{
    leak_vec *lv = ctx;
    if (n < 2 || !v[0])
        return 0;
    store_leak *l = bsearch(v[0], lv->v, lv->n, sizeof *lv->v, cmp_sig_key);
    if (l)
        l->retained_median = num(v[1]);
    return 0;
}

static int cmp_leak_rank(const void *a, const void *b)
{
    const store_leak *x = a, *y = b;
    if (x->occurrences != y->occurrences)
        return x->occurrences > y->occurrences ? -1 : 1;
    if (x->last_ms != y->last_ms)
        return x->last_ms > y->last_ms ? -1 : 1;
    return strcmp(x->signature, y->signature);
}

/* Medians when every report counts: the index on (signature, retained_bytes) holds each
 * leak's sizes in order and the running total says how many, so the median is one seek and a
 * short step per leak. PostgreSQL does all leaks in one statement (LATERAL); SQLite cannot
 * refer to an outer row in OFFSET, so it gets one small query per leak. */
static lr_status medians_by_index(store *s, leak_vec *lv, const store_filter *f, lr_error *err)
{
    if (sdb_kind_of(s->db) == SDB_POSTGRES) {
        sdb_val p = SDB_TEXT(f->kind);
        return sdb_exec(s->db,
                        f->kind ? "SELECT l.signature, m.retained_bytes FROM leak l CROSS JOIN"
                                  " LATERAL (SELECT o.retained_bytes FROM occurrence o"
                                  " WHERE o.signature = l.signature ORDER BY o.retained_bytes"
                                  " LIMIT 1 OFFSET (l.occurrences - 1) / 2) m"
                                  " WHERE l.occurrences > 0 AND l.kind = $1"
                                : "SELECT l.signature, m.retained_bytes FROM leak l CROSS JOIN"
                                  " LATERAL (SELECT o.retained_bytes FROM occurrence o"
                                  " WHERE o.signature = l.signature ORDER BY o.retained_bytes"
                                  " LIMIT 1 OFFSET (l.occurrences - 1) / 2) m"
                                  " WHERE l.occurrences > 0",
                        f->kind ? 1 : 0, &p, read_median, lv, err);
    }
    for (size_t i = 0; i < lv->n; i++) {
        store_leak *l = &lv->v[i];
        sdb_val p[2] = {SDB_TEXT(l->signature), SDB_INT((l->occurrences - 1) / 2)};
        LR_TRY(sdb_exec(s->db,
                        "SELECT retained_bytes FROM occurrence WHERE signature = $1"
                        " ORDER BY retained_bytes LIMIT 1 OFFSET $2",
                        2, p, read_id, &l->retained_median, err));
    }
    return LR_OK;
}

/* The median over a leak's reports is the lower middle value, an observed size: window
 * functions (both dialects have them) pick it without sending every row back. */
#define MEDIAN_HEAD                                                                          \
    "SELECT signature, retained_bytes FROM (SELECT o.signature, o.retained_bytes,"          \
    " ROW_NUMBER() OVER (PARTITION BY o.signature ORDER BY o.retained_bytes) AS rn,"        \
    " COUNT(*) OVER (PARTITION BY o.signature) AS cnt"

lr_status store_leaks(store *s, const store_filter *f, store_leak **out, size_t *n,
                      lr_error *err)
{
    *out = NULL;
    *n = 0;
    sdb_val p[8];
    int np = 0;
    char sql[1536], msql[1536];
    int totals = !f->app && !f->version && f->since_ms == INT64_MIN;
    if (totals) {
        /* Every report counts: the running totals are the answer. */
        snprintf(sql, sizeof sql,
                 "SELECT signature, kind, short_description, first_at, last_at, occurrences,"
                 " dumps, instances, apps, versions, retained_max FROM leak l"
                 " WHERE occurrences > 0%s", f->kind ? " AND l.kind = $1" : "");
        snprintf(msql, sizeof msql,
                 MEDIAN_HEAD " FROM occurrence o%s) t WHERE rn = (cnt + 1) / 2",
                 f->kind ? " JOIN leak l ON l.signature = o.signature WHERE l.kind = $1" : "");
        if (f->kind)
            p[np++] = SDB_TEXT(f->kind);
    } else {
        /* --since picks the leaks seen in the window; when each was first seen is still
         * its first report of the app and version asked for, or every old leak read as new
         * on the window's first day ($1, $2: store_filter_sql's app and version) */
        char first[320] = "MIN(r.at)";
        if (f->since_ms != INT64_MIN)
            snprintf(first, sizeof first,
                     "(SELECT MIN(r2.at) FROM occurrence o2 JOIN report r2 ON r2.id ="
                     " o2.report_id WHERE o2.signature = o.signature AND r2.status = 'ok'%s%s)",
                     f->app ? " AND r2.app = $1" : "",
                     f->version ? (f->app ? " AND r2.version = $2" : " AND r2.version = $1")
                                : "");
        snprintf(sql, sizeof sql,
                 "SELECT o.signature, l.kind, l.short_description, %s, MAX(r.at),"
                 " COUNT(*), COUNT(DISTINCT r.content_hash), SUM(o.instances),"
                 " COUNT(DISTINCT r.app), COUNT(DISTINCT r.version), MAX(o.retained_bytes)"
                 FROM_OCC, first);
        store_filter_sql(f, sql, sizeof sql, p, &np);
        size_t len = strlen(sql);
        snprintf(sql + len, sizeof sql - len,
                 " GROUP BY o.signature, l.kind, l.short_description");
        np = 0;
        snprintf(msql, sizeof msql, MEDIAN_HEAD FROM_OCC);
        store_filter_sql(f, msql, sizeof msql, p, &np);
        len = strlen(msql);
        snprintf(msql + len, sizeof msql - len, ") t WHERE rn = (cnt + 1) / 2");
    }
    leak_vec lv = {0};
    lr_status st = sdb_exec(s->db, sql, np, p, read_leak, &lv, err);
    if (st == LR_OK && lv.oom)
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory listing leaks");
    if (st == LR_OK && lv.n) {
        qsort(lv.v, lv.n, sizeof *lv.v, cmp_leak_sig);
        st = totals ? medians_by_index(s, &lv, f, err)
                    : sdb_exec(s->db, msql, np, p, read_median, &lv, err);
        qsort(lv.v, lv.n, sizeof *lv.v, cmp_leak_rank);
    }
    if (st != LR_OK) {
        store_leaks_free(lv.v, lv.n);
        return st;
    }
    *out = lv.v;
    *n = lv.n;
    return LR_OK;
}

void store_leaks_free(store_leak *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].description);
    free(v);
}

/* ---- show ---- */

typedef struct sig_match {
    char sig[48];
    int n;
} sig_match;

static int read_sig(void *ctx, int n, const char *const *v)
{
    sig_match *m = ctx;
    if (n > 0 && v[0]) {
        if (m->n == 0)
            snprintf(m->sig, sizeof m->sig, "%s", v[0]);
        m->n++;
    }
    return m->n >= 2;
}

typedef struct seen_vec {
    store_detail *d;
    int oom;
} seen_vec;

static int read_seen(void *ctx, int n, const char *const *v)
{
    seen_vec *sv = ctx;
    store_detail *d = sv->d;
    if (n < 9)
        return 0;
    store_seen *nv = err_reallocarray(d->seen, d->n_seen + 1, sizeof *nv);
    if (!nv) {
        sv->oom = 1;
        return 1;
    }
    d->seen = nv;
    store_seen *x = &d->seen[d->n_seen++];
    x->report_id = num(v[0]);
    x->at_ms = num(v[1]);
    x->app = strdup(v[2] ? v[2] : "");
    x->version = strdup(v[3] ? v[3] : "");
    x->device = strdup(v[4] ? v[4] : "");
    x->source = strdup(v[5] ? v[5] : "");
    x->instances = num(v[6]);
    x->retained = num(v[7]);
    if (!x->app || !x->version || !x->device || !x->source)
        sv->oom = 1;
    if (d->n_seen == 1 && v[8] && !d->trace_json && !(d->trace_json = strdup(v[8])))
        sv->oom = 1;
    return 0;
}

static int read_leak_meta(void *ctx, int n, const char *const *v)
{
    store_detail *d = ctx;
    if (n >= 2) {
        d->pattern = dup_or_null(v[0]);
        d->explanation = dup_or_null(v[1]);
    }
    return 1;
}

lr_status store_show(store *s, const char *prefix, store_detail *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    size_t pl = strlen(prefix);
    if (pl < 4 || pl > 47 || strspn(prefix, "0123456789abcdefABCDEF") != pl)
        return LR_FAIL(err, LR_ERR_USAGE,
                       "'%s' is not a signature (4 or more hexadecimal digits)", prefix);
    char like[64];
    snprintf(like, sizeof like, "%s%%", prefix);
    for (char *c = like; *c; c++)
        if (*c >= 'A' && *c <= 'F')
            *c = (char)(*c - 'A' + 'a');
    sig_match m = {{0}, 0};
    sdb_val p = SDB_TEXT(like);
    LR_TRY(sdb_exec(s->db, "SELECT signature FROM leak WHERE signature LIKE $1 ORDER BY 1", 1,
                    &p, read_sig, &m, err));
    if (m.n == 0) {
        /* A leak kept by its stable signature (a lambda's, a proxy's) is printed by `analyze`
         * with its trace's LeakCanary signature: the one a user copies finds it too. */
        char in_trace[96];
        snprintf(in_trace, sizeof in_trace, "%%\"signature\":\"%s", like);
        sdb_val q = SDB_TEXT(in_trace);
        LR_TRY(sdb_exec(s->db,
                        "SELECT DISTINCT signature FROM occurrence WHERE trace LIKE $1 ORDER BY 1",
                        1, &q, read_sig, &m, err));
    }
    if (m.n == 0)
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "no leak with signature %s... in the store",
                       prefix);
    if (m.n > 1)
        return LR_FAIL(err, LR_ERR_NOT_FOUND,
                       "signature %s... is ambiguous: give more digits", prefix);
    store_filter f;
    store_filter_init(&f);
    store_leak *lv = NULL;
    size_t n = 0;
    /* The leak's totals are the leak list's row for it, so the two verbs always agree. */
    LR_TRY(store_leaks(s, &f, &lv, &n, err));
    store_leak row;
    memset(&row, 0, sizeof row);
    for (size_t i = 0; i < n; i++)
        if (strcmp(lv[i].signature, m.sig) == 0) {
            row = lv[i];
            lv[i].description = NULL;
        }
    store_leaks_free(lv, n);
    lr_status st = store_history(s, NULL, m.sig, SIZE_MAX, out, NULL, err);
    if (st != LR_OK || !row.description) { /* a leak no ok report mentions: no row */
        free(row.description);
        return st;
    }
    free(out->leak.description);
    out->leak = row;
    return LR_OK;
}

lr_status store_history(store *s, const store_filter *f, const char *signature,
                        size_t max_seen, store_detail *out, int64_t *n_total, lr_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->leak.signature, sizeof out->leak.signature, "%s", signature);
    if (!(out->leak.description = strdup("")))
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    sdb_val sp[8] = {SDB_TEXT(signature),
                     SDB_INT(max_seen > (size_t)INT64_MAX ? INT64_MAX : (int64_t)max_seen)};
    lr_status st = sdb_exec(s->db,
                            "SELECT pattern, description FROM leak WHERE signature = $1", 1,
                            sp, read_leak_meta, out, err);
    /* the reports the filter keeps (a dashboard of one app showed another's reports) */
    char where[512] = " FROM occurrence o JOIN report r ON r.id = o.report_id"
                      " JOIN leak l ON l.signature = o.signature"
                      " WHERE o.signature = $1 AND r.status = 'ok'";
    int np = 2;
    if (f)
        store_filter_sql(f, where, sizeof where, sp, &np);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT r.id, r.at, r.app, r.version, r.device, r.source, o.instances,"
             " o.retained_bytes, o.trace%s ORDER BY r.at DESC, r.id DESC LIMIT $2", where);
    seen_vec sv = {out, 0};
    if (st == LR_OK)
        st = sdb_exec(s->db, sql, np, sp, read_seen, &sv, err);
    if (st == LR_OK && sv.oom)
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    if (st == LR_OK && n_total) {
        *n_total = (int64_t)out->n_seen;
        /* the filter's parameters follow $2, which the count names too (PostgreSQL takes
         * no parameter it is not asked) */
        snprintf(sql, sizeof sql, "SELECT COUNT(*)%s AND CAST($2 AS INTEGER) >= 0", where);
        if (out->n_seen == max_seen)
            st = sdb_exec(s->db, sql, np, sp, read_id, n_total, err);
    }
    if (st != LR_OK)
        store_detail_fini(out);
    return st;
}

/* ---- series ---- */

typedef struct point_vec {
    store_point *v;
    size_t n, cap;
    int oom;
} point_vec;

static int read_point(void *ctx, int n, const char *const *v)
{
    point_vec *pv = ctx;
    if (n < 4 || !v[0])
        return 0;
    if (pv->n == pv->cap) {
        size_t nc = pv->cap ? pv->cap * 2 : 256;
        store_point *nv = err_reallocarray(pv->v, nc, sizeof *nv);
        if (!nv) {
            pv->oom = 1;
            return 1;
        }
        pv->v = nv;
        pv->cap = nc;
    }
    store_point *p = &pv->v[pv->n++];
    snprintf(p->signature, sizeof p->signature, "%s", v[0]);
    p->day = num(v[1]);
    p->occurrences = num(v[2]);
    p->retained = num(v[3]);
    return 0;
}

lr_status store_series(store *s, const store_filter *f, store_point **out, size_t *n,
                       lr_error *err)
{
    *out = NULL;
    *n = 0;
    /* Integer division is the UTC day in both dialects (times are Unix milliseconds). */
    char sql[1024] = "SELECT o.signature, r.at / 86400000, COUNT(*), SUM(o.retained_bytes)"
                     FROM_OCC;
    sdb_val p[8];
    int np = 0;
    store_filter_sql(f, sql, sizeof sql, p, &np);
    size_t len = strlen(sql);
    snprintf(sql + len, sizeof sql - len,
             " GROUP BY o.signature, r.at / 86400000 ORDER BY 1, 2");
    point_vec pv = {0};
    lr_status st = sdb_exec(s->db, sql, np, p, read_point, &pv, err);
    if (st == LR_OK && pv.oom)
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory reading the series");
    if (st != LR_OK) {
        free(pv.v);
        return st;
    }
    *out = pv.v;
    *n = pv.n;
    return LR_OK;
}

void store_detail_fini(store_detail *d)
{
    free(d->leak.description);
    free(d->pattern);
    free(d->explanation);
    free(d->trace_json);
    for (size_t i = 0; i < d->n_seen; i++) {
        free(d->seen[i].app);
        free(d->seen[i].version);
        free(d->seen[i].device);
        free(d->seen[i].source);
    }
    free(d->seen);
    memset(d, 0, sizeof *d);
}

/* ---- reading a stored trace back ---- */

typedef struct trace_rd {
    store_trace *t;
    int oom;
} trace_rd;

static char *dup_empty(const char *s)
{
    return strdup(s ? s : "");
}

static int read_trace_elem(void *ctx, int n, const char *const *v)
{
    trace_rd *rd = ctx;
    if (n < 10)
        return 0;
    store_trace_elem *nv = err_reallocarray(rd->t->v, rd->t->n + 1, sizeof *nv);
    if (!nv) {
        rd->oom = 1;
        return 1;
    }
    rd->t->v = nv;
    store_trace_elem *e = &nv[rd->t->n++];
    e->cls = dup_empty(v[0]);
    e->type = dup_empty(v[1]);
    e->leaking = dup_empty(v[2]);
    e->reason = dup_empty(v[3]);
    e->ref_display = dup_empty(v[4]);
    e->ref_owner = dup_empty(v[5]);
    e->ref_type = dup_empty(v[6]);
    e->suspect = v[7] && strcmp(v[7], "1") == 0;
    e->retained = v[8] ? strtoll(v[8], NULL, 10) : -1;
    e->objects = v[9] ? strtoll(v[9], NULL, 10) : -1;
    if (!e->cls || !e->type || !e->leaking || !e->reason || !e->ref_display || !e->ref_owner ||
        !e->ref_type)
        rd->oom = 1;
    return 0;
}

/* A suspect's path names its root by kind ("JNI global"); text reads the kind's title, as
 * analyze prints it ("Global variable in native code"). */
static const char *root_kind_title(const char *kind)
{
    for (unsigned k = 0; kind && k < GRAPH_ROOT_KIND_COUNT; k++)
        if (strcmp(kind, graph_root_kind_name(k)) == 0)
            return graph_root_kind_title(k);
    return kind;
}

static int read_root(void *ctx, int n, const char *const *v)
{
    trace_rd *rd = ctx;
    rd->t->root = dup_empty(n > 0 ? (v[0] ? v[0] : root_kind_title(n > 2 ? v[2] : NULL)) : NULL);
    if (!rd->t->root)
        rd->oom = 1;
    rd->t->elided = n > 1 && v[1] ? strtoull(v[1], NULL, 10) : 0;
    return 1;
}

/* A leak suspect (analyze's suspects mode) keeps a path from its GC root, not a trace: the
 * same rows, with no Leaking status, references named as analyze's text names them. */
static const char SUSPECT_PATH_SQL[] =
    "SELECT json_extract(e.value, '$.class'), json_extract(e.value, '$.type'), '', '',"
    " CASE json_extract(e.value, '$.reference.kind') WHEN 'local' THEN '<Java Local>'"
    "  ELSE json_extract(e.value, '$.reference.name') END,"
    " json_extract(e.value, '$.reference.owner'),"
    " CASE coalesce(json_extract(e.value, '$.reference.kind'), '') WHEN '' THEN ''"
    "  WHEN 'static' THEN 'static_field' WHEN 'element' THEN 'array_entry'"
    "  WHEN 'local' THEN 'local' ELSE 'instance_field' END,"
    " 0, json_extract(e.value, '$.retained_bytes'), NULL"
    " FROM json_each(?1, '$.path') AS e";

lr_status store_trace_parse(store *s, const char *json, store_trace *t, lr_error *err)
{
    memset(t, 0, sizeof *t);
    trace_rd rd = {t, 0};
    size_t len = strlen(json);
    lr_status st = store_json_query(
        s,
        "SELECT json_extract(?1, '$.gc_root.description'), json_extract(?1, '$.elided_objects'),"
        " json_extract(?1, '$.gc_root.kind')",
        json, len, NULL, read_root, &rd, err);
    if (st == LR_OK)
        st = store_json_query(
            s,
            "SELECT json_extract(e.value, '$.class'), json_extract(e.value, '$.type'),"
            " json_extract(e.value, '$.leaking'), json_extract(e.value, '$.reason'),"
            " json_extract(e.value, '$.reference.display'),"
            " json_extract(e.value, '$.reference.owner'),"
            " json_extract(e.value, '$.reference.type'),"
            " json_extract(e.value, '$.reference.suspect'),"
            " json_extract(e.value, '$.retained_bytes'),"
            " json_extract(e.value, '$.retained_objects')"
            " FROM json_each(?1, '$.elements') AS e",
            json, len, NULL, read_trace_elem, &rd, err);
    if (st == LR_OK && !rd.oom && t->n == 0)
        st = store_json_query(s, SUSPECT_PATH_SQL, json, len, NULL, read_trace_elem, &rd, err);
    /* the path keeps as many objects at each end */
    t->elided_at = t->elided ? t->n / 2 : 0;
    /* a native leak: its allocation's backtrace, as `native report` prints its frames */
    if (st == LR_OK && !rd.oom && t->n == 0) {
        st = store_json_query(
            s,
            "SELECT printf('%s in %s%s', coalesce(json_extract(f.value, '$.ip'), '?'),"
            " coalesce(json_extract(f.value, '$.function'), '?' || '?'),"
            " CASE WHEN json_extract(f.value, '$.file') IS NOT NULL"
            "  THEN ' (' || json_extract(f.value, '$.file') || ':' ||"
            "   coalesce(json_extract(f.value, '$.line'), '?') || ')'"
            "  WHEN json_extract(f.value, '$.module') IS NOT NULL"
            "  THEN ' (' || json_extract(f.value, '$.module') || '+' ||"
            "   coalesce(json_extract(f.value, '$.offset'), '?') || ')' ELSE '' END),"
            " 'frame', '', '', '', '', '', 0, NULL, NULL"
            " FROM json_each(?1, '$.frames') AS f",
            json, len, NULL, read_trace_elem, &rd, err);
        t->backtrace = t->n > 0;
    }
    if (st == LR_OK && rd.oom)
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    if (st == LR_OK && !t->root && !(t->root = strdup("")))
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    if (st != LR_OK)
        store_trace_fini(t);
    return st;
}

void store_trace_fini(store_trace *t)
{
    for (size_t i = 0; i < t->n; i++) {
        store_trace_elem *e = &t->v[i];
        free(e->cls);
        free(e->type);
        free(e->leaking);
        free(e->reason);
        free(e->ref_display);
        free(e->ref_owner);
        free(e->ref_type);
    }
    free(t->v);
    free(t->root);
    memset(t, 0, sizeof *t);
}

/* ---- prune and export ---- */

static lr_status count_rows(store *s, const char *table, int64_t *n, lr_error *err)
{
    char sql[64];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", table);
    *n = 0;
    return sdb_exec(s->db, sql, 0, NULL, read_int, n, err);
}

lr_status store_prune(store *s, int64_t now, int64_t keep_days, int64_t keep_reports,
                      int64_t *removed_reports, int64_t *removed_leaks, lr_error *err)
{
    int64_t r0 = 0, l0 = 0, r1 = 0, l1 = 0;
    LR_TRY(sdb_begin(s->db, err));
    lr_status st = sdb_lock_writes(s->db, 1, err);
    if (st == LR_OK)
        st = count_rows(s, "report", &r0, err);
    if (st == LR_OK)
        st = count_rows(s, "leak", &l0, err);
    if (st == LR_OK && keep_days >= 0) {
        /* more days than since 1970: nothing is that old (and the product would wrap) */
        sdb_val p = SDB_INT(keep_days > now / 86400000 ? INT64_MIN : now - keep_days * 86400000);
        st = sdb_exec(s->db, "DELETE FROM report WHERE at < $1", 1, &p, NULL, NULL, err);
    }
    if (st == LR_OK && keep_reports >= 0) {
        sdb_val p = SDB_INT(keep_reports);
        st = sdb_exec(s->db,
                      "DELETE FROM report WHERE id NOT IN"
                      " (SELECT id FROM report ORDER BY at DESC, id DESC LIMIT $1)",
                      1, &p, NULL, NULL, err);
    }
    /* LeakCanary drops a leak once no trace refers to it; so do we. */
    if (st == LR_OK)
        st = sdb_exec(s->db,
                      "DELETE FROM leak WHERE NOT EXISTS"
                      " (SELECT 1 FROM occurrence o WHERE o.signature = leak.signature)",
                      0, NULL, NULL, NULL, err);
    for (const char *const *q = RECOMPUTE; st == LR_OK && *q; q++)
        st = sdb_exec(s->db, *q, 0, NULL, NULL, NULL, err);
    if (st == LR_OK)
        st = count_rows(s, "report", &r1, err);
    if (st == LR_OK)
        st = count_rows(s, "leak", &l1, err);
    if (st == LR_OK)
        st = sdb_commit(s->db, err);
    else
        sdb_rollback(s->db);
    *removed_reports = r0 - r1;
    *removed_leaks = l0 - l1;
    return st;
}

static const char *const COLS_REPORT[] = {"id", "kind", "status", "error", "source", "app",
                                          "version", "device", "at", "ingested_at",
                                          "leak_count", "retained_bytes", "content_hash",
                                          "ingest_hash", "tool_version", NULL};
static const char *const COLS_LEAK[] = {"signature", "kind", "short_description", "pattern",
                                        "description", "occurrences", "instances", "dumps",
                                        "apps", "versions", "first_at", "last_at",
                                        "retained_max", NULL};
static const char *const COLS_OCC[] = {"report_id", "signature", "instances",
                                       "retained_bytes", "retained_objects", "trace", NULL};

const char *const *store_export_columns(const char *table)
{
    if (strcmp(table, "report") == 0)
        return COLS_REPORT;
    if (strcmp(table, "leak") == 0)
        return COLS_LEAK;
    if (strcmp(table, "occurrence") == 0)
        return COLS_OCC;
    return NULL;
}

lr_status store_export(store *s, const char *table, store_row_fn fn, void *ctx,
                       lr_error *err)
{
    const char *const *cols = store_export_columns(table);
    if (!cols)
        return LR_FAIL(err, LR_ERR_USAGE, "store: no table %s", table);
    char sql[512] = "SELECT ";
    for (int i = 0; cols[i]; i++) {
        size_t len = strlen(sql);
        snprintf(sql + len, sizeof sql - len, "%s%s", i ? ", " : "", cols[i]);
    }
    size_t len = strlen(sql);
    const char *order = strcmp(table, "report") == 0 ? "id"
                        : strcmp(table, "leak") == 0 ? "signature"
                                                     : "report_id, signature";
    snprintf(sql + len, sizeof sql - len, " FROM %s ORDER BY %s", table, order);
    return sdb_exec(s->db, sql, 0, NULL, fn, ctx, err);
}
