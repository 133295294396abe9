/* SPDX-License-Identifier: Apache-2.0 */
/* store_internal.h: what the parts of the leak store share (store layer), prefix store_.
 * The store is three files over one handle: store.c (the schema and its steps, opening,
 * the leak queries, show, series, stored traces read back, prune and export),
 * store_ingest.c (reports read with SQLite's JSON functions, the ingest transaction) and
 * store_trend.c (trend buckets and the diff of two versions). The handle, the occurrence
 * join and the small row readers below are the only copies. Never included outside
 * src/store/store*.c. */
#ifndef LR_STORE_STORE_INTERNAL_H
#define LR_STORE_STORE_INTERNAL_H

#include "store/store.h"
#include "store/store_db.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct store {
    sdb *db;        /* the store's database */
    sqlite3 *json;  /* in-memory connection whose JSON functions read reports */
    int version;    /* schema version after opening */
};

/* Occurrences of leaks in reports that analysed fine; callers append " AND ..." */
#define FROM_OCC                                                                             \
    " FROM occurrence o JOIN report r ON r.id = o.report_id"                                 \
    " JOIN leak l ON l.signature = o.signature WHERE r.status = 'ok'"

static inline char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static inline int64_t num(const char *s)
{
    return s ? strtoll(s, NULL, 10) : 0;
}

/* sdb_row_fn: the first column as an integer into *(int64_t *)ctx. */
static inline int read_id(void *ctx, int n, const char *const *v)
{
    if (n > 0 && v[0])
        *(int64_t *)ctx = strtoll(v[0], NULL, 10);
    return 1;
}

/* ---- store_ingest.c ---- */

/* Runs sql with the report bound as ?1 (and an optional text ?2); rows to fn. */
lr_status store_json_query(store *s, const char *sql, const char *json, size_t len,
                           const char *arg2, sdb_row_fn fn, void *ctx, lr_error *err);
/* SHA-1 over the analysis hash and who/when: the identity of one ingest. */
void store_ingest_hash(const char *content, const store_meta *m, char out[41]);

/* ---- store.c ---- */

/* Appends the filter's conditions on report r / leak l to sql (after "WHERE r.status =
 * 'ok'") and its values to p, numbering from *n + 1. */
void store_filter_sql(const store_filter *f, char *sql, size_t cap, sdb_val *p, int *n);

#endif
