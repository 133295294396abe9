/* SPDX-License-Identifier: Apache-2.0 */
/* store_backends.h: the two halves behind store_db.h (store layer, private to src/store/).
 * store_sqlite.c speaks SQLite through sqlite3, store_pg.c PostgreSQL through libpq; both take
 * the shared SQL ($1..$n parameters) and hand rows back as text. store_db.c owns the handle
 * and picks the half by URL; nothing else includes this file. */
#ifndef LR_STORE_BACKENDS_H
#define LR_STORE_BACKENDS_H

#include "store/store_db.h"

typedef struct sqlite3 sqlite3;
typedef struct pg_conn pg_conn;

lr_status sqlite_open(const char *path, sqlite3 **out, lr_error *err);
void sqlite_close(sqlite3 *db);
lr_status sqlite_exec(sqlite3 *db, const char *sql, int n, const sdb_val *params,
                      sdb_row_fn fn, void *ctx, lr_error *err);

lr_status pg_open(const char *url, pg_conn **out, lr_error *err);
void pg_close(pg_conn *c);
/* *retryable = 1 when the statement failed on a deadlock or serialisation failure. */
lr_status pg_exec(pg_conn *c, const char *sql, int n, const sdb_val *params, sdb_row_fn fn,
                  void *ctx, lr_error *err, int *retryable);

#endif
