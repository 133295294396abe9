/* SPDX-License-Identifier: Apache-2.0 */
/* store.c: the leak store's schema, ingest and queries (store layer), prefix store_. See
 * store.h for the model. Reports are read with SQLite's JSON functions on a private
 * in-memory connection, whatever the backend: no JSON tree is built here, and the same code
 * parses for SQLite and PostgreSQL stores. Schema steps are applied in order, each in the
 * transaction that bumps store_meta.schema_version, so a crash mid-upgrade leaves the old
 * version intact. Medians and trend buckets are computed here from sorted rows, because
 * the two SQL dialects share no median function. Costs: an ingest is one transaction of
 * 2 + 2 x (leak groups) statements; `store_leaks` reads every matching occurrence once. */
#define _GNU_SOURCE /* strverscmp, qsort_r */
#include "store/store.h"

#include "analysis/trace.h"
#include "base/err.h"
#include "store/store_db.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct store {
    sdb *db;        /* the store's database */
    sqlite3 *json;  /* in-memory connection whose JSON functions read reports */
    int version;    /* schema version after opening */
};

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
    return sdb_exec(s->db, "SELECT value FROM store_meta WHERE key = 'schema_version'", 0,
                    NULL, read_int, v, err);
}

/* Brings the schema to STORE_SCHEMA_VERSION, one step per transaction. Another process may
 * be doing the same: the write transaction (SQLite) or advisory lock (PostgreSQL) makes the
 * second one find the work done. */
static lr_status migrate(store *s, const char *url, lr_error *err)
{
    int64_t v = 0;
    LR_TRY(current_version(s, &v, err));
    if (v > STORE_SCHEMA_VERSION)
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: store schema version %" PRId64 " is newer than this leakray's (%d)"
                       "; upgrade leakray",
                       url, v, STORE_SCHEMA_VERSION);
    while (v < STORE_SCHEMA_VERSION) {
        LR_TRY(sdb_begin(s->db, err));
        /* Read again under the lock: another process may have upgraded meanwhile. */
        lr_status st = sdb_lock_schema(s->db, err);
        if (st == LR_OK)
            st = current_version(s, &v, err);
        if (st == LR_OK && v < STORE_SCHEMA_VERSION) {
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

lr_status store_open(const char *url, store **out, lr_error *err)
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
        st = migrate(s, url, err);
    if (st != LR_OK) {
        store_close(s);
        return st;
    }
    *out = s;
    return LR_OK;
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

/* ---- reading reports (SQLite JSON functions on the private connection) ---- */

/* Runs sql with the report bound as ?1 (and an optional text ?2); rows to fn. */
static lr_status json_query(store *s, const char *sql, const char *json, size_t len,
                            const char *arg2, sdb_row_fn fn, void *ctx, lr_error *err)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(s->json, sql, -1, &stmt, NULL) != SQLITE_OK)
        return LR_FAIL(err, LR_ERR_INTERNAL, "store: %s", sqlite3_errmsg(s->json));
    sqlite3_bind_text(stmt, 1, json, (int)len, SQLITE_STATIC);
    if (arg2)
        sqlite3_bind_text(stmt, 2, arg2, -1, SQLITE_STATIC);
    int rc;
    const char *vals[16];
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int nc = sqlite3_column_count(stmt);
        if (nc > 16)
            nc = 16;
        for (int c = 0; c < nc; c++)
            vals[c] = (const char *)sqlite3_column_text(stmt, c);
        if (fn && fn(ctx, nc, vals))
            break;
    }
    lr_status st = LR_OK;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        st = LR_FAIL(err, LR_ERR_FORMAT, "store: reading report: %s", sqlite3_errmsg(s->json));
    sqlite3_finalize(stmt);
    return st;
}

typedef struct report_head {
    int valid;            /* json_valid */
    int64_t schema;       /* schema_version, or -1 when absent */
    int has_traces;       /* analyze report */
    int has_native;       /* native scan report */
    char mode[16];        /* analyze: "leaks" / "suspects" */
    char canon_sha[41];   /* SHA-1 of the report without file path and timings */
} report_head;

static int read_head(void *ctx, int n, const char *const *v)
{
    report_head *h = ctx;
    h->valid = n > 0 && v[0] && strcmp(v[0], "1") == 0;
    if (!h->valid)
        return 1;
    h->schema = v[1] ? strtoll(v[1], NULL, 10) : -1;
    h->has_traces = v[2] && strcmp(v[2], "array") == 0;
    h->has_native = v[3] && strcmp(v[3], "object") == 0 && v[4] && strcmp(v[4], "array") == 0;
    snprintf(h->mode, sizeof h->mode, "%s", v[5] ? v[5] : "");
    if (v[6])
        trace_sha1_hex(v[6], strlen(v[6]), h->canon_sha);
    return 1;
}

/* One leak group read out of a report. */
typedef struct group {
    char kind[16];
    char *signature, *description, *pattern, *explanation, *trace;
    int64_t instances, retained, objects;
} group;

typedef struct group_list {
    group *v;
    size_t n, cap;
    const char *kind; /* kind of the groups being read */
    int oom;
} group_list;

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int read_group(void *ctx, int n, const char *const *v)
{
    group_list *l = ctx;
    if (n < 8 || !v[0] || !*v[0])
        return 0; /* a group without a signature cannot be deduplicated: skip it */
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        group *nv = err_reallocarray(l->v, nc, sizeof *nv);
        if (!nv) {
            l->oom = 1;
            return 1;
        }
        l->v = nv;
        l->cap = nc;
    }
    group *g = &l->v[l->n++];
    memset(g, 0, sizeof *g);
    snprintf(g->kind, sizeof g->kind, "%s", l->kind);
    g->signature = dup_or_null(v[0]);
    g->description = strdup(v[1] ? v[1] : "");
    g->retained = v[2] ? strtoll(v[2], NULL, 10) : 0;
    g->objects = v[3] ? strtoll(v[3], NULL, 10) : 0;
    g->instances = v[4] ? strtoll(v[4], NULL, 10) : 1;
    g->trace = dup_or_null(v[5]);
    g->pattern = dup_or_null(v[6]);
    g->explanation = dup_or_null(v[7]);
    if (!g->signature || !g->description)
        l->oom = 1;
    return 0;
}

static void groups_free(group_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].signature);
        free(l->v[i].description);
        free(l->v[i].pattern);
        free(l->v[i].explanation);
        free(l->v[i].trace);
    }
    free(l->v);
}

/* Groups of an `analyze --json` report (application_leaks[], library_leaks[], and leak
 * suspects when the report has them), each with its first trace as the representative. */
static const char SQL_ANALYZE_GROUPS[] =
    "SELECT json_extract(g.value, '$.signature'), json_extract(g.value, '$.short_description'),"
    " json_extract(g.value, '$.retained_bytes'), json_extract(g.value, '$.retained_objects'),"
    " json_array_length(g.value, '$.traces'),"
    " json_extract(?1, '$.traces[' || json_extract(g.value, '$.traces[0]') || ']'),"
    " json_extract(g.value, '$.pattern'), json_extract(g.value, '$.description')"
    " FROM json_each(?1, ?2) AS g";

/* Groups of a native scan report: groups[] keyed by their frame signature; bytes and blocks
 * stand for retained bytes and instances, the top frame for the description. */
static const char SQL_NATIVE_GROUPS[] =
    "SELECT json_extract(g.value, '$.signature'),"
    " coalesce(json_extract(g.value, '$.short_description'),"
    "          json_extract(g.value, '$.frames[0].function'),"
    "          json_extract(g.value, '$.frames[0].symbol'), json_extract(g.value, '$.frames[0]'),"
    "          ''),"
    " coalesce(json_extract(g.value, '$.bytes'), json_extract(g.value, '$.total_bytes')),"
    " coalesce(json_extract(g.value, '$.blocks'), json_extract(g.value, '$.count')),"
    " coalesce(json_extract(g.value, '$.blocks'), json_extract(g.value, '$.count')),"
    " g.value, json_extract(g.value, '$.kind'), NULL"
    " FROM json_each(?1, ?2) AS g";

static lr_status read_groups(store *s, const char *json, size_t len, const char *sql,
                             const char *path, const char *kind, group_list *l, lr_error *err)
{
    l->kind = kind;
    LR_TRY(json_query(s, sql, json, len, path, read_group, l, err));
    if (l->oom)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory reading a report");
    return LR_OK;
}

/* ---- ingest ---- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* SHA-1 over the analysis hash and who/when: the identity of one ingest. */
static void ingest_hash(const char *content, const store_meta *m, char out[41])
{
    char buf[2048];
    int k = snprintf(buf, sizeof buf, "%s\x1f%s\x1f%s\x1f%s\x1f%" PRId64, content,
                     m->app ? m->app : "", m->version ? m->version : "",
                     m->device ? m->device : "", m->at_ms);
    if (k < 0)
        k = 0;
    if ((size_t)k >= sizeof buf)
        k = (int)sizeof buf - 1;
    trace_sha1_hex(buf, (size_t)k, out);
}

static int read_id(void *ctx, int n, const char *const *v)
{
    if (n > 0 && v[0])
        *(int64_t *)ctx = strtoll(v[0], NULL, 10);
    return 1;
}

/* Inserts the report row; *id = 0 when the same ingest is already stored (then *existing
 * holds its id). */
static lr_status insert_report(store *s, const char *ihash, const char *chash,
                               const char *kind, const char *status, const char *error,
                               const store_meta *m, int64_t leaks, int64_t retained,
                               int64_t *id, int64_t *existing, lr_error *err)
{
    sdb_val p[13] = {SDB_TEXT(ihash),
                     SDB_TEXT(chash),
                     SDB_TEXT(kind),
                     SDB_TEXT(status),
                     SDB_TEXT(error),
                     SDB_TEXT(m->source ? m->source : ""),
                     SDB_TEXT(m->app ? m->app : ""),
                     SDB_TEXT(m->version ? m->version : ""),
                     SDB_TEXT(m->device ? m->device : ""),
                     SDB_INT(m->at_ms),
                     SDB_INT(now_ms()),
                     SDB_INT(leaks),
                     SDB_INT(retained)};
    *id = 0;
    *existing = 0;
    LR_TRY(sdb_exec(s->db,
                    "INSERT INTO report(ingest_hash, content_hash, kind, status, error, source,"
                    " app, version, device, at, ingested_at, leak_count, retained_bytes,"
                    " tool_version)"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, '"
                    LR_VERSION_STRING "')"
                    " ON CONFLICT (ingest_hash) DO NOTHING RETURNING id",
                    13, p, read_id, id, err));
    if (*id == 0)
        LR_TRY(sdb_exec(s->db, "SELECT id FROM report WHERE ingest_hash = $1", 1, p, read_id,
                        existing, err));
    return LR_OK;
}

/* Groups written per statement: an ingest is 4 statements per STORE_CHUNK groups (plus the
 * report row and the transaction), not 4 per group, which over PostgreSQL is a round trip
 * each. 6 parameters a group keeps a chunk far below both databases' parameter limits. */
#define STORE_CHUNK 64

/* A growable SQL text; on allocation failure it stays NULL and the caller fails. */
typedef struct sqlbuf {
    char *s;
    size_t n, cap;
} sqlbuf;

static void sql_add(sqlbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sql_add(sqlbuf *b, const char *fmt, ...)
{
    if (b->cap && !b->s)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            free(b->s);
            b->s = NULL;
            b->cap = 1;
            return;
        }
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = (b->cap ? b->cap * 2 : 1024) + (size_t)k;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            free(b->s);
            b->s = NULL;
            b->cap = 1;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
}

/* What the chunk's statements return: which leaks are new, and which (leak, app / version /
 * dump) pairs were seen for the first time. */
typedef struct chunk_seen {
    const group *g;  /* the chunk's groups */
    size_t n;
    int *is_new;     /* per group */
    int (*dims)[3];  /* per group: app, version, dump first seen */
} chunk_seen;

static size_t chunk_find(const chunk_seen *c, const char *sig)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->g[i].signature, sig) == 0)
            return i;
    return c->n;
}

static int read_new_leak(void *ctx, int n, const char *const *v)
{
    chunk_seen *c = ctx;
    size_t i = n > 0 && v[0] ? chunk_find(c, v[0]) : c->n;
    if (i < c->n)
        c->is_new[i] = 1;
    return 0;
}

static int read_dims(void *ctx, int n, const char *const *v)
{
    chunk_seen *c = ctx;
    size_t i = n > 1 && v[0] && v[1] ? chunk_find(c, v[0]) : c->n;
    if (i < c->n)
        c->dims[i][v[1][0] == 'a' ? 0 : v[1][0] == 'v' ? 1 : 2] = 1;
    return 0;
}

/* Stores n (<= STORE_CHUNK) groups of a report and moves their leaks' running totals (schema
 * step 2), inside the caller's transaction; *n_new counts leaks this store had not seen. */
static lr_status insert_chunk(store *s, int64_t report_id, const group *g, size_t n,
                              const store_meta *m, const char *content_hash, int *n_new,
                              lr_error *err)
{
    sdb_val p[1 + 6 * STORE_CHUNK];
    int is_new[STORE_CHUNK] = {0}, dims[STORE_CHUNK][3];
    memset(dims, 0, sizeof dims);
    chunk_seen c = {g, n, is_new, dims};
    sqlbuf q = {0};
    lr_status st = LR_OK;
    /* 1. the leaks; RETURNING yields the rows this ingest created: those are "new" */
    sql_add(&q, "INSERT INTO leak(signature, kind, short_description, pattern, description)"
                " VALUES");
    for (size_t i = 0; i < n; i++) {
        sql_add(&q, "%s($%zu, $%zu, $%zu, $%zu, $%zu)", i ? ", " : " ", 5 * i + 1, 5 * i + 2,
                5 * i + 3, 5 * i + 4, 5 * i + 5);
        p[5 * i] = SDB_TEXT(g[i].signature);
        p[5 * i + 1] = SDB_TEXT(g[i].kind);
        p[5 * i + 2] = SDB_TEXT(g[i].description);
        p[5 * i + 3] = SDB_TEXT(g[i].pattern);
        p[5 * i + 4] = SDB_TEXT(g[i].explanation);
    }
    sql_add(&q, " ON CONFLICT (signature) DO NOTHING RETURNING signature");
    if (!q.s)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    st = sdb_exec(s->db, q.s, (int)(5 * n), p, read_new_leak, &c, err);
    /* 2. the occurrences */
    q.n = 0;
    sql_add(&q, "INSERT INTO occurrence(report_id, signature, instances, retained_bytes,"
                " retained_objects, trace) VALUES");
    p[0] = SDB_INT(report_id);
    for (size_t i = 0; i < n; i++) {
        sql_add(&q, "%s($1, $%zu, $%zu, $%zu, $%zu, $%zu)", i ? ", " : " ", 5 * i + 2,
                5 * i + 3, 5 * i + 4, 5 * i + 5, 5 * i + 6);
        p[5 * i + 1] = SDB_TEXT(g[i].signature);
        p[5 * i + 2] = SDB_INT(g[i].instances);
        p[5 * i + 3] = SDB_INT(g[i].retained);
        p[5 * i + 4] = SDB_INT(g[i].objects);
        p[5 * i + 5] = SDB_TEXT(g[i].trace);
    }
    if (st == LR_OK && q.s)
        st = sdb_exec(s->db, q.s, (int)(1 + 5 * n), p, NULL, NULL, err);
    /* 3. the distinct apps, versions and dumps each leak was seen in */
    q.n = 0;
    sql_add(&q, "INSERT INTO leak_seen(signature, dim, value) VALUES");
    p[0] = SDB_TEXT(m->app ? m->app : "");
    p[1] = SDB_TEXT(m->version ? m->version : "");
    p[2] = SDB_TEXT(content_hash);
    for (size_t i = 0; i < n; i++) {
        sql_add(&q, "%s($%zu, 'app', $1), ($%zu, 'version', $2), ($%zu, 'dump', $3)",
                i ? ", " : " ", i + 4, i + 4, i + 4);
        p[3 + i] = SDB_TEXT(g[i].signature);
    }
    sql_add(&q, " ON CONFLICT DO NOTHING RETURNING signature, dim");
    if (st == LR_OK && q.s)
        st = sdb_exec(s->db, q.s, (int)(3 + n), p, read_dims, &c, err);
    /* 4. the running totals. Every SET expression sees the row before the update, so
     * "occurrences = 0" is the first occurrence. CASE rather than MIN/MAX: the dialects name
     * those differently; SELECT ... UNION ALL rather than VALUES: SQLite cannot name the
     * columns of a VALUES list. */
    q.n = 0;
    sql_add(&q, "UPDATE leak SET occurrences = leak.occurrences + 1,"
                " instances = leak.instances + v.i,"
                " retained_max = CASE WHEN v.r > leak.retained_max THEN v.r"
                "  ELSE leak.retained_max END,"
                " first_at = CASE WHEN leak.occurrences = 0 OR $1 < leak.first_at THEN $1"
                "  ELSE leak.first_at END,"
                " last_at = CASE WHEN leak.occurrences = 0 OR $1 > leak.last_at THEN $1"
                "  ELSE leak.last_at END,"
                " apps = leak.apps + v.a, versions = leak.versions + v.vs,"
                " dumps = leak.dumps + v.d FROM (");
    p[0] = SDB_INT(m->at_ms);
    for (size_t i = 0; i < n; i++) {
        size_t k = 6 * i + 2;
        sql_add(&q, "%sSELECT CAST($%zu AS TEXT) AS sig, CAST($%zu AS BIGINT) AS i,"
                    " CAST($%zu AS BIGINT) AS r, CAST($%zu AS BIGINT) AS a,"
                    " CAST($%zu AS BIGINT) AS vs, CAST($%zu AS BIGINT) AS d",
                i ? " UNION ALL " : "", k, k + 1, k + 2, k + 3, k + 4, k + 5);
        p[k - 1] = SDB_TEXT(g[i].signature);
        p[k] = SDB_INT(g[i].instances);
        p[k + 1] = SDB_INT(g[i].retained);
        p[k + 2] = SDB_INT(dims[i][0]);
        p[k + 3] = SDB_INT(dims[i][1]);
        p[k + 4] = SDB_INT(dims[i][2]);
    }
    sql_add(&q, ") AS v WHERE leak.signature = v.sig");
    if (st == LR_OK && q.s)
        st = sdb_exec(s->db, q.s, (int)(1 + 6 * n), p, NULL, NULL, err);
    if (st == LR_OK && !q.s)
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    free(q.s);
    for (size_t i = 0; i < n; i++)
        *n_new += is_new[i];
    return st;
}

/* One group per signature: a report may list a signature twice (an application and a
 * library group can share a path); their sizes add up. */
static void merge_same_signature(group_list *l)
{
    size_t out = 0;
    for (size_t i = 0; i < l->n; i++) {
        size_t j = 0;
        while (j < out && strcmp(l->v[j].signature, l->v[i].signature) != 0)
            j++;
        if (j == out) {
            l->v[out++] = l->v[i];
            continue;
        }
        l->v[j].instances += l->v[i].instances;
        l->v[j].retained += l->v[i].retained;
        l->v[j].objects += l->v[i].objects;
        free(l->v[i].signature);
        free(l->v[i].description);
        free(l->v[i].pattern);
        free(l->v[i].explanation);
        free(l->v[i].trace);
    }
    l->n = out;
}

static const char SQL_HEAD[] =
    "SELECT 1, json_extract(?1, '$.schema_version'), json_type(?1, '$.traces'),"
    " json_type(?1, '$.direct'), json_type(?1, '$.groups'), json_extract(?1, '$.mode'),"
    " json(json_remove(?1, '$.timing', '$.analysis_ms', '$.file', '$.elapsed_ms'))";

static int read_valid(void *ctx, int n, const char *const *v)
{
    *(int *)ctx = n > 0 && v[0] && strcmp(v[0], "1") == 0;
    return 1;
}

lr_status store_ingest_json(store *s, const char *name, const char *json, size_t len,
                            const store_meta *m, store_ingest_result *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    if (len > (size_t)INT32_MAX)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: report of %zu bytes is too large", name, len);
    int valid = 0;
    LR_TRY(json_query(s, "SELECT json_valid(?1)", json, len, NULL, read_valid, &valid, err));
    if (!valid)
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: not a complete JSON document (truncated or malformed report)", name);
    report_head h = {0};
    LR_TRY(json_query(s, SQL_HEAD, json, len, NULL, read_head, &h, err));
    if (h.schema < 1)
        return LR_FAIL(err, LR_ERR_FORMAT, "%s: no schema_version: not a leakray report", name);
    if (h.schema > STORE_REPORT_SCHEMA_MAX)
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: report schema_version %" PRId64 " is newer than this leakray "
                       "understands (%d); upgrade leakray",
                       name, h.schema, STORE_REPORT_SCHEMA_MAX);
    group_list l = {0};
    lr_status st;
    const char *kind;
    if (h.has_traces) {
        kind = "analyze";
        int suspects = strcmp(h.mode, "suspects") == 0;
        st = read_groups(s, json, len, SQL_ANALYZE_GROUPS, "$.application_leaks",
                         suspects ? "suspect" : "application", &l, err);
        if (st == LR_OK)
            st = read_groups(s, json, len, SQL_ANALYZE_GROUPS, "$.library_leaks", "library",
                             &l, err);
        if (st == LR_OK)
            st = read_groups(s, json, len, SQL_ANALYZE_GROUPS, "$.leak_suspects", "suspect",
                             &l, err);
    } else if (h.has_native) {
        kind = "native";
        st = read_groups(s, json, len, SQL_NATIVE_GROUPS, "$.groups", "native", &l, err);
    } else {
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: JSON but not a leakray leak report (analyze or native scan)", name);
    }
    if (st != LR_OK) {
        groups_free(&l);
        return st;
    }
    merge_same_signature(&l);
    int64_t retained = 0;
    for (size_t i = 0; i < l.n; i++)
        retained += l.v[i].retained;
    char ihash[41];
    ingest_hash(h.canon_sha, m, ihash);
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    r->n_leaks = (int)l.n;
    r->retained = retained;

    st = sdb_begin(s->db, err);
    int64_t id = 0, existing = 0;
    if (st == LR_OK)
        st = insert_report(s, ihash, h.canon_sha, kind, "ok", NULL, m, (int64_t)l.n, retained,
                           &id, &existing, err);
    if (st == LR_OK && id == 0) {
        r->duplicate = 1;
        r->report_id = existing;
        sdb_rollback(s->db);
        groups_free(&l);
        return LR_OK;
    }
    for (size_t i = 0; st == LR_OK && i < l.n; i += STORE_CHUNK)
        st = insert_chunk(s, id, l.v + i, l.n - i < STORE_CHUNK ? l.n - i : STORE_CHUNK, m,
                          h.canon_sha, &r->n_new, err);
    if (st == LR_OK)
        st = sdb_commit(s->db, err);
    else
        sdb_rollback(s->db);
    groups_free(&l);
    if (st == LR_OK)
        r->report_id = id;
    return st;
}

lr_status store_ingest_failure(store *s, const store_meta *m, const char *error,
                               store_ingest_result *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    snprintf(r->kind, sizeof r->kind, "failed");
    r->failed = 1;
    char chash[41], ihash[41];
    char buf[1024];
    int k = snprintf(buf, sizeof buf, "failed\x1f%s\x1f%s", m->source ? m->source : "",
                     error ? error : "");
    if (k < 0)
        k = 0;
    if ((size_t)k >= sizeof buf)
        k = (int)sizeof buf - 1;
    trace_sha1_hex(buf, (size_t)k, chash);
    ingest_hash(chash, m, ihash);
    LR_TRY(sdb_begin(s->db, err));
    int64_t id = 0, existing = 0;
    lr_status st = insert_report(s, ihash, chash, "failed", "failed", error, m, 0, 0, &id,
                                 &existing, err);
    if (st != LR_OK || id == 0) {
        sdb_rollback(s->db);
        r->duplicate = st == LR_OK;
        r->report_id = existing;
        return st;
    }
    LR_TRY(sdb_commit(s->db, err));
    r->report_id = id;
    return LR_OK;
}

/* ---- queries ---- */

void store_filter_init(store_filter *f)
{
    memset(f, 0, sizeof *f);
    f->since_ms = INT64_MIN;
}

/* Appends the filter's conditions on report r / leak l to sql (after "WHERE r.status =
 * 'ok'") and its values to p, numbering from *n + 1. */
static void filter_sql(const store_filter *f, char *sql, size_t cap, sdb_val *p, int *n)
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

static int64_t num(const char *s)
{
    return s ? strtoll(s, NULL, 10) : 0;
}

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

#define FROM_OCC                                                                             \
    " FROM occurrence o JOIN report r ON r.id = o.report_id"                                 \
    " JOIN leak l ON l.signature = o.signature WHERE r.status = 'ok'"

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
        snprintf(sql, sizeof sql,
                 "SELECT o.signature, l.kind, l.short_description, MIN(r.at), MAX(r.at),"
                 " COUNT(*), COUNT(DISTINCT r.content_hash), SUM(o.instances),"
                 " COUNT(DISTINCT r.app), COUNT(DISTINCT r.version), MAX(o.retained_bytes)"
                 FROM_OCC);
        filter_sql(f, sql, sizeof sql, p, &np);
        size_t len = strlen(sql);
        snprintf(sql + len, sizeof sql - len,
                 " GROUP BY o.signature, l.kind, l.short_description");
        np = 0;
        snprintf(msql, sizeof msql, MEDIAN_HEAD FROM_OCC);
        filter_sql(f, msql, sizeof msql, p, &np);
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
    lr_status st = store_history(s, m.sig, SIZE_MAX, out, NULL, err);
    if (st != LR_OK || !row.description) { /* a leak no ok report mentions: no row */
        free(row.description);
        return st;
    }
    free(out->leak.description);
    out->leak = row;
    return LR_OK;
}

lr_status store_history(store *s, const char *signature, size_t max_seen, store_detail *out,
                        int64_t *n_total, lr_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->leak.signature, sizeof out->leak.signature, "%s", signature);
    if (!(out->leak.description = strdup("")))
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    sdb_val sp[2] = {SDB_TEXT(signature),
                     SDB_INT(max_seen > (size_t)INT64_MAX ? INT64_MAX : (int64_t)max_seen)};
    lr_status st = sdb_exec(s->db,
                            "SELECT pattern, description FROM leak WHERE signature = $1", 1,
                            sp, read_leak_meta, out, err);
    seen_vec sv = {out, 0};
    if (st == LR_OK)
        st = sdb_exec(s->db,
                      "SELECT r.id, r.at, r.app, r.version, r.device, r.source, o.instances,"
                      " o.retained_bytes, o.trace FROM occurrence o"
                      " JOIN report r ON r.id = o.report_id"
                      " WHERE o.signature = $1 AND r.status = 'ok'"
                      " ORDER BY r.at DESC, r.id DESC LIMIT $2",
                      2, sp, read_seen, &sv, err);
    if (st == LR_OK && sv.oom)
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    if (st == LR_OK && n_total) {
        *n_total = (int64_t)out->n_seen;
        if (out->n_seen == max_seen)
            st = sdb_exec(s->db,
                          "SELECT COUNT(*) FROM occurrence o JOIN report r ON r.id = o.report_id"
                          " WHERE o.signature = $1 AND r.status = 'ok'",
                          1, sp, read_id, n_total, err);
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
    filter_sql(f, sql, sizeof sql, p, &np);
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

static int read_root(void *ctx, int n, const char *const *v)
{
    trace_rd *rd = ctx;
    rd->t->root = dup_empty(n > 0 ? v[0] : NULL);
    if (!rd->t->root)
        rd->oom = 1;
    return 1;
}

lr_status store_trace_parse(store *s, const char *json, store_trace *t, lr_error *err)
{
    memset(t, 0, sizeof *t);
    trace_rd rd = {t, 0};
    size_t len = strlen(json);
    lr_status st = json_query(s, "SELECT json_extract(?1, '$.gc_root.description')", json,
                              len, NULL, read_root, &rd, err);
    if (st == LR_OK)
        st = json_query(s,
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

static void pairs_free(pair_vec *pv)
{
    for (size_t i = 0; i < pv->n; i++) {
        free(pv->v[i].bucket);
        free(pv->v[i].sig);
    }
    free(pv->v);
}

/* Buckets sort as days (numbers) or as versions ("3.10" after "3.9"). */
static int cmp_bucket(const char *a, const char *b, int by_version)
{
    if (by_version) {
        int c = strverscmp(a, b);
        return c ? c : strcmp(a, b);
    }
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
    store_bucket *b = &bv->v[bv->n++];
    memset(b, 0, sizeof *b);
    snprintf(b->label, sizeof b->label, "%s", label);
    return b;
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
    filter_sql(f, sql, sizeof sql, p, &np);
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
    filter_sql(&rf, sql, sizeof sql, p, &np);
    size_t len = strlen(sql);
    snprintf(sql + len, sizeof sql - len, " GROUP BY %s, r.status", bucket);
    if (st == LR_OK && !pv.oom)
        st = sdb_exec(s->db, sql, np, p, read_bucket_totals, &bv, err);
    if (st == LR_OK && (pv.oom || bv.oom))
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    if (st != LR_OK) {
        pairs_free(&pv);
        free(bv.v);
        return st;
    }
    int by_version = by == STORE_BY_VERSION;
    /* No report matched (an empty store, a filter on nothing): the arrays are NULL. */
    if (pv.n)
        qsort_r(pv.v, pv.n, sizeof *pv.v, cmp_pair, &by_version);
    if (bv.n)
        qsort_r(bv.v, bv.n, sizeof *bv.v, cmp_bucket_v, &by_version);
    /* Walk buckets in order with the set of signatures seen so far and the previous bucket's
     * set; both are sorted arrays of pointers into pv. */
    char **seen = err_mallocarray(pv.n + 1, sizeof *seen);
    char **prev = err_mallocarray(pv.n + 1, sizeof *prev);
    char **cur = err_mallocarray(pv.n + 1, sizeof *cur);
    size_t n_seen = 0, n_prev = 0;
    if (!seen || !prev || !cur) {
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
        for (size_t k = 0; k < n_prev; k++)
            if (!in_sorted(cur, n_cur, prev[k]))
                bk->fixed++;
        for (size_t k = 0; k < n_cur; k++)
            if (!in_sorted(seen, n_seen, cur[k]))
                seen[n_seen++] = cur[k];
        qsort(seen, n_seen, sizeof *seen, cmp_str);
        memcpy(prev, cur, n_cur * sizeof *cur);
        n_prev = n_cur;
        if (by == STORE_BY_DAY) {
            time_t t = (time_t)(strtoll(bk->label, NULL, 10) * 86400);
            struct tm tm;
            gmtime_r(&t, &tm);
            strftime(bk->label, sizeof bk->label, "%Y-%m-%d", &tm);
        }
    }
    *out = bv.v;
    *n = bv.n;
    bv.v = NULL;
done:
    free(seen);
    free(prev);
    free(cur);
    free(bv.v);
    pairs_free(&pv);
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

lr_status store_diff(store *s, const store_filter *f, const char *from, const char *to,
                     double threshold_pct, store_delta **out, size_t *n, lr_error *err)
{
    *out = NULL;
    *n = 0;
    store_filter vf = *f;
    vf.version = NULL;
    char sql[1024] = "SELECT r.version, o.signature, o.retained_bytes" FROM_OCC
                     " AND r.version IN ($1, $2)";
    sdb_val p[8] = {SDB_TEXT(from), SDB_TEXT(to)};
    int np = 2;
    filter_sql(&vf, sql, sizeof sql, p, &np);
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
    lr_status st = count_rows(s, "report", &r0, err);
    if (st == LR_OK)
        st = count_rows(s, "leak", &l0, err);
    if (st == LR_OK && keep_days >= 0) {
        sdb_val p = SDB_INT(now - keep_days * 86400000);
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
