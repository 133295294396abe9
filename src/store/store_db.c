/* SPDX-License-Identifier: Apache-2.0 */
/* store_db.c: the store's database handle (store layer), prefix sdb_. Picks the backend by
 * URL (postgres:// or postgresql:// -> libpq, anything else is a SQLite file) and maps the
 * few operations whose SQL differs: starting a write transaction and serialising schema
 * upgrades. Everything else is the shared SQL passed straight through. */
#include "store/store_backends.h"

#include "base/err.h"
#include "base/url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct sdb {
    sdb_kind kind;  /* which half below is set */
    sqlite3 *lite;  /* SDB_SQLITE connection */
    pg_conn *pg;    /* SDB_POSTGRES connection */
    int in_tx;      /* a transaction is open (rollback is then meaningful) */
    char name[256]; /* the store as messages name it (sdb_url_display) */
    int retryable;  /* the last statement failed on a deadlock or serialisation conflict */
};

/* The keywords a libpq "key=value" connection string may start with. */
/* libpq's connection keywords (PostgreSQL 17's list, older ones included) */
static const char *const PG_KEYWORDS[] = {
    "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service",
    "sslmode", "connect_timeout", "application_name", "options", "target_session_attrs",
    "channel_binding", "client_encoding", "fallback_application_name", "keepalives",
    "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
    "replication", "gssencmode", "requiressl", "sslcompression", "sslcert", "sslkey",
    "sslpassword", "sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni",
    "sslnegotiation", "requirepeer", "require_auth", "ssl_min_protocol_version",
    "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation",
    "load_balance_hosts", NULL};

/* The length of the key of a key=value pair at p ("  sslmode = "), 0 if none starts there. */
static size_t pair_key(const char *p, const char **key)
{
    p += strspn(p, " \t");
    *key = p;
    size_t n = 0;
    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || p[n] == '_')
        n++;
    return n && p[n + strspn(p + n, " \t")] == '=' ? n : 0;
}

int store_url_is_pg(const char *url)
{
    if (strncasecmp(url, "postgres://", 11) == 0 || strncasecmp(url, "postgresql://", 13) == 0)
        return 1;
    /* "host=db1 dbname=leaks": libpq's other form, not a file name. Its first key is one of
     * libpq's, or (a keyword newer than this list) a second pair follows after a space: a
     * file is seldom named so, and a store of that name would carry the password. */
    const char *key;
    size_t n = pair_key(url, &key);
    if (!n)
        return 0;
    for (const char *const *k = PG_KEYWORDS; *k; k++)
        if (strlen(*k) == n && strncmp(key, *k, n) == 0)
            return 1;
    for (const char *p = key; *p; p++)
        if ((*p == ' ' || *p == '\t') && pair_key(p, &key))
            return 1;
    return 0;
}

void sdb_url_display(const char *url, char *out, size_t cap)
{
    url_hide_password(url, out, cap);
}

lr_status sdb_open(const char *url, sdb **out, lr_error *err)
{
    *out = NULL;
    sdb *db = calloc(1, sizeof *db);
    if (!db)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    sdb_url_display(url, db->name, sizeof db->name);
    lr_status st;
    if (store_url_is_pg(url)) {
        db->kind = SDB_POSTGRES;
        st = pg_open(url, &db->pg, err);
    } else {
        db->kind = SDB_SQLITE;
        st = sqlite_open(url, &db->lite, err);
    }
    if (st != LR_OK) {
        if (err && strncmp(err->msg, "store: ", 7) == 0) { /* name which store */
            char m[sizeof err->msg];
            snprintf(m, sizeof m, "%s: %s", db->name, err->msg + 7);
            memcpy(err->msg, m, sizeof m);
        }
        free(db);
        return st;
    }
    *out = db;
    return LR_OK;
}

void sdb_close(sdb *db)
{
    if (!db)
        return;
    if (db->in_tx)
        sdb_rollback(db);
    if (db->lite)
        sqlite_close(db->lite);
    if (db->pg)
        pg_close(db->pg);
    free(db);
}

sdb_kind sdb_kind_of(const sdb *db)
{
    return db->kind;
}

lr_status sdb_exec(sdb *db, const char *sql, int n, const sdb_val *params, sdb_row_fn fn,
                   void *ctx, lr_error *err)
{
    db->retryable = 0;
    lr_status st = db->kind == SDB_SQLITE
                       ? sqlite_exec(db->lite, sql, n, params, fn, ctx, err)
                       : pg_exec(db->pg, sql, n, params, fn, ctx, err, &db->retryable);
    /* the backends say "store: ..."; the message names which store */
    if (st != LR_OK && err && strncmp(err->msg, "store: ", 7) == 0) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s: %s", db->name, err->msg + 7);
        memcpy(err->msg, m, sizeof m);
    }
    return st;
}

int sdb_retryable(const sdb *db)
{
    return db->retryable;
}

lr_status sdb_begin(sdb *db, lr_error *err)
{
    LR_TRY(sdb_exec(db, db->kind == SDB_SQLITE ? "BEGIN IMMEDIATE" : "BEGIN", 0, NULL, NULL,
                    NULL, err));
    db->in_tx = 1;
    return LR_OK;
}

lr_status sdb_commit(sdb *db, lr_error *err)
{
    lr_status st = sdb_exec(db, "COMMIT", 0, NULL, NULL, NULL, err);
    if (st != LR_OK) {
        sdb_rollback(db);
        return st;
    }
    db->in_tx = 0;
    return LR_OK;
}

void sdb_rollback(sdb *db)
{
    if (!db->in_tx)
        return;
    /* the statement that failed says whether the work may run again, not the ROLLBACK */
    int retryable = db->retryable;
    lr_error ignored = {0};
    sdb_exec(db, "ROLLBACK", 0, NULL, NULL, NULL, &ignored);
    db->retryable = retryable;
    db->in_tx = 0;
}

/* The advisory-lock key: any constant both sides agree on ("leakray" in ASCII). */
#define SDB_SCHEMA_LOCK_KEY "108101097107114"

lr_status sdb_lock_schema(sdb *db, lr_error *err)
{
    if (db->kind == SDB_SQLITE)
        return LR_OK;
    return sdb_exec(db, "SELECT pg_advisory_xact_lock(" SDB_SCHEMA_LOCK_KEY ")", 0, NULL, NULL,
                    NULL, err);
}

/* Another constant both sides agree on, for the ingests' and prunes' lock. */
#define SDB_WRITES_LOCK_KEY "108101097107114097"

lr_status sdb_lock_writes(sdb *db, int exclusive, lr_error *err)
{
    if (db->kind == SDB_SQLITE)
        return LR_OK;
    return sdb_exec(db,
                    exclusive ? "SELECT pg_advisory_xact_lock(" SDB_WRITES_LOCK_KEY ")"
                              : "SELECT pg_advisory_xact_lock_shared(" SDB_WRITES_LOCK_KEY ")",
                    0, NULL, NULL, NULL, err);
}

static int set_flag(void *ctx, int n, const char *const *vals)
{
    (void)n;
    (void)vals;
    *(int *)ctx = 1;
    return 1;
}

lr_status sdb_has_table(sdb *db, const char *name, int *out, lr_error *err)
{
    *out = 0;
    const char *sql = db->kind == SDB_SQLITE
                          ? "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1"
                          : "SELECT 1 FROM information_schema.tables "
                            "WHERE table_schema = current_schema() AND table_name = $1";
    sdb_val p = SDB_TEXT(name);
    return sdb_exec(db, sql, 1, &p, set_flag, out, err);
}
