/* SPDX-License-Identifier: Apache-2.0 */
/* store_pg.c: the PostgreSQL backend of the store's database interface (store layer),
 * prefix pg_ (private; store_db.c is the entry). One libpq connection per process; every
 * statement goes through PQexecParams with text parameters, whose types the server infers
 * from the SQL, so the shared $1..$n statements run unchanged. Server notices (e.g. "relation
 * already exists, skipping") are silenced: the store reports its own outcome.
 * libpq (Debian's libpq5) is loaded with dlopen the first time a postgres:// store is opened,
 * not linked: it brings twenty libraries along (Kerberos, LDAP, GnuTLS, ...) whose
 * relocation and constructors cost every leakray process ~3.5 ms of CPU at start, three
 * times a SQLite ingest's own work. */
#include "store/store_backends.h"

#include "base/err.h"
#include "base/url.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_MAX_PARAMS 512 /* the store binds at most 1 + 6 x STORE_CHUNK */
#define PG_MAX_COLS 64
#define PG_LIBRARY "libpq.so.5" /* the soname of Debian's libpq5 */

/* The libpq functions the backend calls, resolved once (pq_load). */
static struct {
    PGconn *(*connectdb)(const char *const *, const char *const *, int);
    ConnStatusType (*status)(const PGconn *);
    char *(*error_message)(const PGconn *);
    void (*finish)(PGconn *);
    PQnoticeProcessor (*set_notice_processor)(PGconn *, PQnoticeProcessor, void *);
    PGresult *(*exec_params)(PGconn *, const char *, int, const Oid *, const char *const *,
                             const int *, const int *, int);
    ExecStatusType (*result_status)(const PGresult *);
    void (*clear)(PGresult *);
    int (*ntuples)(const PGresult *);
    int (*nfields)(const PGresult *);
    int (*getisnull)(const PGresult *, int, int);
    char *(*getvalue)(const PGresult *, int, int);
    char *(*error_field)(const PGresult *, int);
} pq;
static char pq_error[256]; /* why libpq could not be loaded, "" when it was */
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;

static void pq_load(void)
{
    void *h = dlopen(PG_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(pq_error, sizeof pq_error, "%s", dlerror());
        return;
    }
    /* POSIX: a function pointer may be stored through a void * (dlsym's own contract). */
    struct { void *dst; const char *name; } syms[] = {
        {&pq.connectdb, "PQconnectdbParams"},  {&pq.status, "PQstatus"},
        {&pq.error_message, "PQerrorMessage"}, {&pq.finish, "PQfinish"},
        {&pq.set_notice_processor, "PQsetNoticeProcessor"},
        {&pq.exec_params, "PQexecParams"},     {&pq.result_status, "PQresultStatus"},
        {&pq.clear, "PQclear"},                {&pq.ntuples, "PQntuples"},
        {&pq.nfields, "PQnfields"},            {&pq.getisnull, "PQgetisnull"},
        {&pq.getvalue, "PQgetvalue"},          {&pq.error_field, "PQresultErrorField"}};
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(h, syms[i].name);
        if (!f) {
            snprintf(pq_error, sizeof pq_error, "%s: no %s", PG_LIBRARY, syms[i].name);
            memset(&pq, 0, sizeof pq);
            return;
        }
        memcpy(syms[i].dst, &f, sizeof f);
    }
}

#define PG_CONNECT_TIMEOUT "10" /* seconds */

struct pg_conn {
    PGconn *conn; /* owned */
};

static void quiet_notice(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

lr_status pg_open(const char *url, pg_conn **out, lr_error *err)
{
    *out = NULL;
    pthread_once(&pq_once, pq_load);
    if (!pq.connectdb)
        return LR_FAIL(err, LR_ERR_IO, "store: PostgreSQL client library unavailable (%s)",
                       pq_error);
    /* A server that takes the connection and never answers held an ingest (and the program
     * a native monitor records scans of) for good: 10 s to connect unless the URL says
     * otherwise (its own connect_timeout comes later, so it wins). */
    static const char *const keys[] = {"connect_timeout", "dbname", NULL};
    const char *const vals[] = {PG_CONNECT_TIMEOUT, url, NULL};
    PGconn *conn = pq.connectdb(keys, vals, 1);
    if (!conn)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory connecting to PostgreSQL");
    if (pq.status(conn) != CONNECTION_OK) {
        /* libpq's message ends in a newline and may span lines: keep the first. */
        char msg[256];
        snprintf(msg, sizeof msg, "%s", pq.error_message(conn));
        msg[strcspn(msg, "\n")] = 0;
        url_hide_in_message(url, msg, sizeof msg); /* "50%off": a password it could not parse */
        pq.finish(conn);
        return LR_FAIL(err, LR_ERR_IO, "store: cannot connect to PostgreSQL: %s", msg);
    }
    pq.set_notice_processor(conn, quiet_notice, NULL);
    pg_conn *c = calloc(1, sizeof *c);
    if (!c) {
        pq.finish(conn);
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    }
    c->conn = conn;
    *out = c;
    return LR_OK;
}

void pg_close(pg_conn *c)
{
    if (!c)
        return;
    pq.finish(c->conn);
    free(c);
}

lr_status pg_exec(pg_conn *c, const char *sql, int n, const sdb_val *params, sdb_row_fn fn,
                  void *ctx, lr_error *err, int *retryable)
{
    if (n > PG_MAX_PARAMS)
        return LR_FAIL(err, LR_ERR_INTERNAL, "store: %d parameters (max %d)", n,
                       PG_MAX_PARAMS);
    char nums[PG_MAX_PARAMS][24]; /* 12 kB of stack: integers as text */
    const char *vals[PG_MAX_PARAMS];
    for (int i = 0; i < n; i++) {
        if (params[i].is_int) {
            snprintf(nums[i], sizeof nums[i], "%" PRId64, params[i].i);
            vals[i] = nums[i];
        } else {
            vals[i] = params[i].s;
        }
    }
    PGresult *res = pq.exec_params(c->conn, sql, n, NULL, vals, NULL, NULL, 0);
    ExecStatusType rs = pq.result_status(res);
    if (rs != PGRES_COMMAND_OK && rs != PGRES_TUPLES_OK) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s", pq.error_message(c->conn));
        msg[strcspn(msg, "\n")] = 0;
        /* 40P01 deadlock_detected, 40001 serialization_failure */
        const char *state = res ? pq.error_field(res, PG_DIAG_SQLSTATE) : NULL;
        *retryable = state && (strcmp(state, "40P01") == 0 || strcmp(state, "40001") == 0);
        pq.clear(res);
        return LR_FAIL(err, LR_ERR_IO, "store: %s (in: %.60s)", msg, sql);
    }
    if (fn && rs == PGRES_TUPLES_OK) {
        int rows = pq.ntuples(res), nc = pq.nfields(res);
        if (nc > PG_MAX_COLS)
            nc = PG_MAX_COLS;
        const char *row[PG_MAX_COLS];
        for (int r = 0; r < rows; r++) {
            for (int col = 0; col < nc; col++)
                row[col] = pq.getisnull(res, r, col) ? NULL : pq.getvalue(res, r, col);
            if (fn(ctx, nc, row))
                break;
        }
    }
    pq.clear(res);
    return LR_OK;
}
