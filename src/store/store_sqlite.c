/* SPDX-License-Identifier: Apache-2.0 */
/* store_sqlite.c: the SQLite backend of the store's database interface (store layer),
 * prefix sdb_ (the SQLite half; store_pg.c is the other, store_db.c picks by URL). One file
 * per store, in WAL mode so readers never block the ingest that writes; writers wait for
 * each other (busy timeout) instead of failing, which is what lets many processes ingest
 * into one file at once. Foreign keys are switched on per connection, since deleting a
 * report must take its occurrences along. Parameters written $1..$n in the shared SQL are
 * SQLite named parameters and are bound by name. */
#include "store/store_backends.h"

#include "base/err.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

/* How long a writer waits for another before giving up: ingests are short (milliseconds),
 * so only a wedged process makes anyone wait this long. */
#define SQLITE_BUSY_MS 60000
#define SQLITE_MAX_COLS 64
#define SQLITE_KEPT_STMTS 48 /* prepared statements a connection keeps (kept_stmt) */

lr_status sqlite_open(const char *path, sqlite3 **out, lr_error *err)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                            SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        /* "store: ": sdb_open names the store, as messages show it */
        lr_status st = LR_FAIL(err, LR_ERR_IO, "store: cannot open store: %s",
                               db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return st;
    }
    sqlite3_busy_timeout(db, SQLITE_BUSY_MS);
    /* Another program's database (a typo in --db, $LEAKRAY_DB naming the wrong file) is left
     * as it is: the setup below would switch it to WAL and add the store's tables. A store
     * has store_meta; an empty file becomes one. Read before anything is written. */
    sqlite3_stmt *probe = NULL;
    rc = sqlite3_prepare_v2(db, "SELECT count(*), coalesce(sum(name = 'store_meta'), 0) "
                                "FROM sqlite_master WHERE type = 'table'", -1, &probe, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(probe)) == SQLITE_ROW &&
        sqlite3_column_int64(probe, 0) > 0 && sqlite3_column_int64(probe, 1) == 0) {
        lr_status st = LR_FAIL(err, LR_ERR_FORMAT, "%s: an SQLite database that is no leakray "
                               "store (it has %lld tables, none of a store's): left untouched",
                               path, (long long)sqlite3_column_int64(probe, 0));
        sqlite3_finalize(probe);
        sqlite3_close(db);
        return st;
    }
    sqlite3_finalize(probe);
    probe = NULL;
    /* A store runs no SQL of its own: a trigger, a view in place of a table, an index or a
     * column whose expression SQLite evaluates on every read or write would run a crafted
     * file's code inside every store command (a trigger looping until the disk filled). The
     * store's own schema has none beyond its three indexes. */
    rc = sqlite3_prepare_v2(db, "SELECT type, name FROM sqlite_master WHERE type IN "
                                "('trigger', 'view') OR (type = 'index' AND name NOT LIKE "
                                "'sqlite^_autoindex^_%' ESCAPE '^' AND name NOT IN "
                                "('occurrence_signature', 'report_at', 'report_app_version')) "
                                "OR (type = 'table' AND (upper(sql) LIKE '%GENERATED%' OR "
                                "upper(sql) LIKE '%CHECK%' OR upper(sql) LIKE '% AS (%' OR "
                                "upper(sql) LIKE '%DEFAULT (%' OR upper(sql) LIKE "
                                "'%DEFAULT(%')) LIMIT 1", -1, &probe, NULL);
    if (rc == SQLITE_OK && sqlite3_step(probe) == SQLITE_ROW) {
        lr_status st = LR_FAIL(err, LR_ERR_FORMAT, "%s: holds a %s (%s) that no leakray store "
                               "has: a store file runs no SQL of its own; left untouched", path,
                               (const char *)sqlite3_column_text(probe, 0),
                               (const char *)sqlite3_column_text(probe, 1));
        sqlite3_finalize(probe);
        sqlite3_close(db);
        return st;
    }
    sqlite3_finalize(probe);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    /* The last connection to close folds the WAL into the database and deletes it (SQLite's
     * default, kept on purpose). A WAL left behind costs more: the first connection of the
     * next process must rebuild the WAL index by reading every frame, and that recovery
     * forgets which frames were checkpointed, so the WAL never restarts and every process
     * reads and copies all of it again (measured: 2 MB read per ingest, growing). */
    /* journal_mode=WAL needs a moment of exclusive access the first time. SQLite answers
     * SQLITE_BUSY there without calling the busy handler when several processes create the
     * same new file at once (one of them would have to wait inside a read transaction, which
     * could deadlock), so the setup is retried here, within the same time budget. */
    const char *setup = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                        "PRAGMA foreign_keys=ON; PRAGMA trusted_schema=OFF;";
    char *msg = NULL;
    int waited = 0;
    while ((rc = sqlite3_exec(db, setup, NULL, NULL, &msg)) == SQLITE_BUSY &&
           waited < SQLITE_BUSY_MS) {
        sqlite3_free(msg);
        msg = NULL;
        sqlite3_sleep(10);
        waited += 10;
    }
    if ((rc & 0xff) == SQLITE_READONLY) {
        /* a store in WAL mode is read through its -wal and -shm files beside it */
        lr_status st = LR_FAIL(err, LR_ERR_IO, "%s: cannot write the store or its folder (%s): "
                               "SQLite keeps a store's -wal and -shm files beside it, even to "
                               "read it", path, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        sqlite3_close(db);
        return st;
    }
    if ((rc & 0xff) == SQLITE_FULL || (rc & 0xff) == SQLITE_IOERR) {
        /* the disk, not the store: a full folder read as a damaged store */
        lr_status st = LR_FAIL(err, LR_ERR_IO, "%s: cannot write beside the store: %s (is its "
                               "folder's disk full?)", path, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        sqlite3_close(db);
        return st;
    }
    if (rc != SQLITE_OK) {
        lr_status st = LR_FAIL(err, LR_ERR_IO, "%s: not a usable SQLite store: %s", path,
                               msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        sqlite3_close(db);
        return st;
    }
    *out = db;
    return LR_OK;
}

void sqlite_close(sqlite3 *db)
{
    sqlite3_stmt *st;
    while ((st = sqlite3_next_stmt(db, NULL)) != NULL)
        sqlite3_finalize(st);
    sqlite3_close_v2(db);
}

static lr_status fail(sqlite3 *db, const char *sql, lr_error *err)
{
    return LR_FAIL(err, LR_ERR_IO, "store: %s (in: %.60s)", sqlite3_errmsg(db), sql);
}

/* The connection keeps the statements it ran (SQLite lists them, with their text): the store
 * runs the same few statements over and over (an ingest's per-group inserts, a median per
 * leak), and preparing one costs more than running it. An idle statement with the same text
 * is reused; *n_kept counts the statements the connection holds. */
static sqlite3_stmt *kept_stmt(sqlite3 *db, const char *sql, int *n_kept)
{
    *n_kept = 0;
    for (sqlite3_stmt *st = sqlite3_next_stmt(db, NULL); st; st = sqlite3_next_stmt(db, st)) {
        ++*n_kept;
        if (!sqlite3_stmt_busy(st) && strcmp(sqlite3_sql(st), sql) == 0)
            return st;
    }
    return NULL;
}

/* Done with stmt: kept for the next run, or finalized when the connection holds enough. */
static void release(sqlite3_stmt *stmt, int keep)
{
    if (!keep) {
        sqlite3_finalize(stmt);
        return;
    }
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
}

lr_status sqlite_exec(sqlite3 *db, const char *sql, int n, const sdb_val *params,
                      sdb_row_fn fn, void *ctx, lr_error *err)
{
    int n_kept = 0;
    sqlite3_stmt *stmt = kept_stmt(db, sql, &n_kept);
    int keep = stmt != NULL || n_kept < SQLITE_KEPT_STMTS;
    if (!stmt && sqlite3_prepare_v3(db, sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, &stmt,
                                    NULL) != SQLITE_OK)
        return fail(db, sql, err);
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "$%d", i + 1);
        int ix = sqlite3_bind_parameter_index(stmt, name);
        if (ix == 0)
            continue; /* a parameter the statement does not use */
        int rc = params[i].is_int ? sqlite3_bind_int64(stmt, ix, params[i].i)
                 : params[i].s    ? sqlite3_bind_text(stmt, ix, params[i].s, -1,
                                                      SQLITE_STATIC)
                                  : sqlite3_bind_null(stmt, ix);
        if (rc != SQLITE_OK) {
            lr_status st = fail(db, sql, err);
            release(stmt, keep);
            return st;
        }
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!fn)
            continue;
        int nc = sqlite3_column_count(stmt);
        if (nc > SQLITE_MAX_COLS)
            nc = SQLITE_MAX_COLS;
        const char *vals[SQLITE_MAX_COLS];
        for (int c = 0; c < nc; c++)
            vals[c] = (const char *)sqlite3_column_text(stmt, c);
        if (fn(ctx, nc, vals))
            break;
    }
    lr_status st = LR_OK;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        st = fail(db, sql, err);
    release(stmt, keep);
    return st;
}
