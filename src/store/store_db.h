/* SPDX-License-Identifier: Apache-2.0 */
/* store_db.h: the one database interface the leak store is written against (store layer),
 * prefix sdb_. Two backends implement it: SQLite (store_sqlite.c, a file, WAL, busy waits)
 * and PostgreSQL (store_pg.c, libpq, for fleets). The store's SQL is written once in the
 * dialect both accept: parameters are $1..$n, upserts are ON CONFLICT, new ids come back
 * through RETURNING. What differs (the auto-increment key type, how a write transaction
 * starts, how concurrent schema upgrades are serialised) is asked of the backend here.
 * Rows come back as text (NULL for SQL NULL) through a callback, so callers never see a
 * backend type; numbers are parsed by the caller. Not thread-safe: one connection per
 * thread or process. */
#ifndef LR_STORE_DB_H
#define LR_STORE_DB_H

#include "leakray/leakray.h"

#include <stddef.h>
#include <stdint.h>

typedef struct sdb sdb;

/* A bound parameter: text (s, NULL = SQL NULL) or a 64-bit integer. */
typedef struct sdb_val {
    int is_int;    /* 1: i holds the value; 0: s does */
    int64_t i;     /* integer value */
    const char *s; /* NUL-terminated text, or NULL for SQL NULL; not copied */
} sdb_val;

#define SDB_INT(v) ((sdb_val){1, (int64_t)(v), NULL})
#define SDB_TEXT(v) ((sdb_val){0, 0, (v)})

/* Called once per result row; vals[i] is the column as text or NULL. Returning nonzero
 * stops the query early (not an error). */
typedef int (*sdb_row_fn)(void *ctx, int n_cols, const char *const *vals);

/* Which backend a connection speaks; the store's DDL differs in a few words between them. */
typedef enum sdb_kind { SDB_SQLITE = 1, SDB_POSTGRES = 2 } sdb_kind;

/* Opens `url`: "postgres://..." / "postgresql://..." (libpq connection URI) or a SQLite file
 * path (created if missing, parent folder must exist). Returns LR_OK and *out (free with
 * sdb_close), or LR_ERR_IO with a message naming the database. */
lr_status sdb_open(const char *url, sdb **out, lr_error *err);

/* The store's address as messages and pages show it: a password in a PostgreSQL URL or
 * connection string (user:secret@, password=secret) becomes ***. At most cap bytes. */
void sdb_url_display(const char *url, char *out, size_t cap);

/* Whether the last failed statement failed on a conflict with another transaction (a
 * PostgreSQL deadlock or serialisation failure): the whole transaction may be run again. */
int sdb_retryable(const sdb *db);
void sdb_close(sdb *db);
sdb_kind sdb_kind_of(const sdb *db);

/* Runs one statement with n parameters ($1..$n); rows (if any) go to fn (may be NULL).
 * Errors come back as LR_ERR_IO with the database's message and the statement's first
 * words. */
lr_status sdb_exec(sdb *db, const char *sql, int n, const sdb_val *params, sdb_row_fn fn,
                   void *ctx, lr_error *err);

/* Starts a write transaction that holds the write lock from its first statement on (SQLite
 * BEGIN IMMEDIATE, waiting for other writers; PostgreSQL BEGIN), so read-then-insert never
 * races another ingest. */
lr_status sdb_begin(sdb *db, lr_error *err);
lr_status sdb_commit(sdb *db, lr_error *err);
/* Rolls back an open transaction; harmless when none is open. Never fails the caller. */
void sdb_rollback(sdb *db);

/* Inside a transaction: serialises schema creation/upgrades across processes (PostgreSQL
 * takes a transaction-scoped advisory lock; SQLite's BEGIN IMMEDIATE already did). */
lr_status sdb_lock_schema(sdb *db, lr_error *err);

/* Inside a transaction, as its first statement: ingests take this lock shared, a prune (which
 * rewrites every leak's totals) exclusive, so a prune waits for the ingests under way and
 * they for it, never crosswise over rows (PostgreSQL's transaction-scoped advisory lock;
 * SQLite's BEGIN IMMEDIATE already serialises writers). */
lr_status sdb_lock_writes(sdb *db, int exclusive, lr_error *err);

/* Whether table `name` exists. */
lr_status sdb_has_table(sdb *db, const char *name, int *out, lr_error *err);

#endif
