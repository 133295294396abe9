/* SPDX-License-Identifier: Apache-2.0 */
/* store.h: the leak store (store layer), prefix store_. Remembers every analysed dump, native
 * scan and agent report, and groups their leaks by signature the way LeakCanary's leaks.db
 * does, so a leak reads "seen 14 times since Tuesday, in versions 3.1-3.3". Input is the
 * JSON document a report already is (`leakray analyze --json`, `leakray native ... --json`);
 * the CLI turns a dump into one before it calls in. One schema, two databases: a SQLite file
 * (default) or PostgreSQL (a postgres:// URL), behind store_db.h.
 *
 * Data model (docs/store.md): report (one row per ingest: source, app, version, device, time,
 * status, content and ingest hashes), leak (one row per signature: kind, short description),
 * occurrence (report x leak: instances, retained bytes, the representative trace as JSON).
 * Ingest is idempotent: the same report with the same app/version/device/time is stored once
 * (ingest hash); the same analysis at another time is a second occurrence of each leak but
 * the same dump (content hash). A report is written in one transaction: after a crash it is
 * either whole or absent. The schema is versioned (store_meta.schema_version) and upgraded in
 * place by the steps in store.c, under a lock, when a store is opened.
 *
 * Results are plain arrays owned by the caller (free with the matching _free), of the types
 * in store_result.h, which the report layer renders. Not thread-safe: one store per
 * thread. */
#ifndef LR_STORE_H
#define LR_STORE_H

#include "leakray/leakray.h"
#include "store/store_result.h"

#include <stddef.h>
#include <stdint.h>

#define STORE_SCHEMA_VERSION 2 /* what this build writes; older stores are upgraded */
/* Newest report "schema_version" this build understands. Version 2 only moved analyze's
 * analysis_ms under "timing", which the canonical form drops either way (store.c). */
#define STORE_REPORT_SCHEMA_MAX 2

typedef struct store store;

/* Opens (creating or upgrading) the store at url: "postgres://..." or a SQLite file path.
 * A store written by a newer leakray (schema_version above ours) is refused with
 * LR_ERR_FORMAT. Returns LR_OK and *out (free: store_close), or fills err. */
lr_status store_open(const char *url, store **out, lr_error *err);
/* A copy of s (NULL stays NULL; free it) in valid UTF-8, each byte that starts no valid
 * sequence as U+FFFD: what the store keeps of a text that is not, as both backends keep it.
 * A filter on such a text (--app given the same bytes) must be made with it to match. */
char *store_text_dup(const char *s);
/* The same for commands that only read: a database with no store in it (a PostgreSQL
 * database never ingested into) is LR_ERR_IO "no leak store", and nothing is written. */
lr_status store_open_existing(const char *url, store **out, lr_error *err);
/* 1 when url names a PostgreSQL store (postgres://, postgresql://, or libpq's
 * "key=value" form), 0 for a SQLite file. */
int store_url_is_pg(const char *url);
void store_close(store *s);
/* The caller is about to read much of the store (the dashboard): the backend may cache more
 * of it (SQLite: a 256 MiB page cache, filled as pages are read, instead of the default
 * 2 MB, which made a 100,000-report dashboard read each page many times over). The small
 * verbs do without: a big cache made even `store leaks` slower. Never fails. */
void store_expect_bulk_reads(store *s);

/* The schema version the opened store has (== STORE_SCHEMA_VERSION after store_open). */
int store_schema_version(const store *s);

/* Who and when an ingested report belongs to. Strings may be NULL (stored as ""). */
typedef struct store_meta {
    const char *source;  /* what was ingested (path as given), for people */
    const char *app;     /* --app */
    const char *version; /* --version */
    const char *device;  /* --device */
    int64_t at_ms;       /* when the dump was taken, Unix milliseconds */
    int64_t also_at_ms;  /* another time the same ingest may be stored under, 0: none (the
                          * file's modification time, by which older versions dated a dump
                          * that is now dated by its own header) */
} store_meta;

/* Stores one JSON report (len bytes, need not be NUL-terminated). Refuses (LR_ERR_FORMAT,
 * nothing written) text that is not JSON, a report whose schema_version is newer than
 * STORE_REPORT_SCHEMA_MAX, and JSON that is no leakray report. `name` labels errors. */
lr_status store_ingest_json(store *s, const char *name, const char *json, size_t len,
                            const store_meta *m, store_ingest_result *r, lr_error *err);

/* Records an input that could not be analysed, with its error, so a failed ingest is never
 * silently lost. Idempotent like store_ingest_json. */
lr_status store_ingest_failure(store *s, const store_meta *m, const char *error,
                               store_ingest_result *r, lr_error *err);

/* ---- queries ---- */

/* Which reports a query looks at. NULL strings and since_ms = INT64_MIN mean "any". */
typedef struct store_filter {
    const char *app;
    const char *version;
    const char *kind;  /* leak kind: "application", "library", "suspect", "native" */
    int64_t since_ms;  /* reports taken at or after */
} store_filter;

void store_filter_init(store_filter *f);

/* All leaks of the filtered reports, most occurrences first (then latest, then signature).
 * *out is an array of *n (free: store_leaks_free). */
lr_status store_leaks(store *s, const store_filter *f, store_leak **out, size_t *n,
                      lr_error *err);
void store_leaks_free(store_leak *v, size_t n);

/* The leak whose signature starts with `prefix` (at least 4 hex digits). LR_ERR_NOT_FOUND
 * when none or several match (the message says which). Free with store_detail_fini. */
lr_status store_show(store *s, const char *prefix, store_detail *out, lr_error *err);

/* The history of the leak with this exact signature: pattern and explanation, the newest
 * occurrence's trace, and at most max_seen occurrences, newest first (*n_total says how many
 * there are). out->leak holds only the signature and an empty description: the counts are
 * store_leaks' row. Free with store_detail_fini. One indexed query per call. */
lr_status store_history(store *s, const store_filter *f, const char *signature,
                        size_t max_seen, store_detail *out, int64_t *n_total, lr_error *err);

/* Every leak's days over the filtered reports, by signature then day: the sparklines of the
 * dashboard. *out is an array of *n (free: free()). One grouped scan of the occurrences. */
lr_status store_series(store *s, const store_filter *f, store_point **out, size_t *n,
                       lr_error *err);
void store_detail_fini(store_detail *d);

/* Reads a trace JSON (store_detail.trace_json) into *t (free: store_trace_fini). A text that
 * has no elements[] gives n == 0 (e.g. a native scan group). */
lr_status store_trace_parse(store *s, const char *json, store_trace *t, lr_error *err);
void store_trace_fini(store_trace *t);

/* Buckets of the filtered reports, oldest day or lowest version first. *out is an array of
 * *n (free: store_buckets_free). */
lr_status store_trend(store *s, const store_filter *f, store_trend_by by, store_bucket **out,
                      size_t *n, lr_error *err);
/* Frees what store_trend returned. */
void store_buckets_free(store_bucket *v, size_t n);

/* Leaks of version `from` against `to`: new, fixed, grown or shrunk by more than
 * threshold_pct of the median retained size, or the same. Order: new, grown, shrunk, fixed,
 * same; then by size. Free with store_deltas_free. A suspect that would be new against a
 * version that stored no suspect (its dumps all had leaking objects), or fixed in one, is
 * left out and counted in *untracked (may be NULL). */
lr_status store_diff(store *s, const store_filter *f, const char *from, const char *to,
                     double threshold_pct, store_delta **out, size_t *n, size_t *untracked,
                     lr_error *err);
void store_deltas_free(store_delta *v, size_t n);

/* Reads what the dashboard shows over the filtered reports: every leak, every leak's days,
 * the trends by day and by version, for the first max_detailed of the first max_listed leaks
 * their pattern, newest trace and at most max_history occurrences (store_history), and the
 * comparison of version from with to (both NULL: the two highest versions, when there are
 * two; no comparison otherwise) at threshold_pct. from and to must outlive *out. Returns LR_OK
 * and *out (free: store_dashboard_fini), or fills err with *out empty. */
lr_status store_dashboard_build(store *s, const store_filter *f, size_t max_listed,
                                size_t max_detailed, size_t max_history, const char *from,
                                const char *to, double threshold_pct, store_dashboard *out,
                                lr_error *err);
void store_dashboard_fini(store_dashboard *d);

/* Deletes reports older than keep_days (when >= 0, against now_ms) and all but the newest
 * keep_reports (when >= 0), then leaks no report mentions any more. *removed_reports and
 * *removed_leaks count what went. */
lr_status store_prune(store *s, int64_t now_ms, int64_t keep_days, int64_t keep_reports,
                      int64_t *removed_reports, int64_t *removed_leaks, lr_error *err);

/* Streams the whole store: every report, leak and occurrence, as rows of text (the
 * column names first). `table` is "report", "leak" or "occurrence". */
typedef int (*store_row_fn)(void *ctx, int n_cols, const char *const *vals);
lr_status store_export(store *s, const char *table, store_row_fn fn, void *ctx,
                       lr_error *err);
/* Column names of an exported table, NULL-terminated. */
const char *const *store_export_columns(const char *table);

#endif
