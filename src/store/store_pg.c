/* SPDX-License-Identifier: Apache-2.0 */
/* store_pg.c: the PostgreSQL backend of the store's database interface (store layer),
 * prefix pg_ (private; store_db.c is the entry). One libpq connection per process; every
 * statement goes through PQexecParams with text parameters, whose types the server infers
 * from the SQL, so the shared $1..$n statements run unchanged. Server notices (e.g. "relation
 * already exists, skipping") are silenced: the store reports its own outcome. */
#include "store/store_backends.h"

#include "base/err.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_MAX_PARAMS 32
#define PG_MAX_COLS 64

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
    PGconn *conn = PQconnectdb(url);
    if (!conn)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory connecting to PostgreSQL");
    if (PQstatus(conn) != CONNECTION_OK) {
        /* libpq's message ends in a newline and may span lines: keep the first. */
        char msg[256];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(conn));
        msg[strcspn(msg, "\n")] = 0;
        PQfinish(conn);
        return LR_FAIL(err, LR_ERR_IO, "store: cannot connect to PostgreSQL: %s", msg);
    }
    PQsetNoticeProcessor(conn, quiet_notice, NULL);
    pg_conn *c = calloc(1, sizeof *c);
    if (!c) {
        PQfinish(conn);
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
    PQfinish(c->conn);
    free(c);
}

lr_status pg_exec(pg_conn *c, const char *sql, int n, const sdb_val *params, sdb_row_fn fn,
                  void *ctx, lr_error *err)
{
    if (n > PG_MAX_PARAMS)
        return LR_FAIL(err, LR_ERR_INTERNAL, "store: %d parameters (max %d)", n,
                       PG_MAX_PARAMS);
    char nums[PG_MAX_PARAMS][24];
    const char *vals[PG_MAX_PARAMS];
    for (int i = 0; i < n; i++) {
        if (params[i].is_int) {
            snprintf(nums[i], sizeof nums[i], "%" PRId64, params[i].i);
            vals[i] = nums[i];
        } else {
            vals[i] = params[i].s;
        }
    }
    PGresult *res = PQexecParams(c->conn, sql, n, NULL, vals, NULL, NULL, 0);
    ExecStatusType rs = PQresultStatus(res);
    if (rs != PGRES_COMMAND_OK && rs != PGRES_TUPLES_OK) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(c->conn));
        msg[strcspn(msg, "\n")] = 0;
        PQclear(res);
        return LR_FAIL(err, LR_ERR_IO, "store: %s (in: %.60s)", msg, sql);
    }
    if (fn && rs == PGRES_TUPLES_OK) {
        int rows = PQntuples(res), nc = PQnfields(res);
        if (nc > PG_MAX_COLS)
            nc = PG_MAX_COLS;
        const char *row[PG_MAX_COLS];
        for (int r = 0; r < rows; r++) {
            for (int col = 0; col < nc; col++)
                row[col] = PQgetisnull(res, r, col) ? NULL : PQgetvalue(res, r, col);
            if (fn(ctx, nc, row))
                break;
        }
    }
    PQclear(res);
    return LR_OK;
}
