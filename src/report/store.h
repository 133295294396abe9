/* SPDX-License-Identifier: Apache-2.0 */
/* store.h: the leak store's verbs as text and JSON (report layer), prefix rep_store_. Pure
 * functions of the store's results (store/store_result.h): ingest outcomes, the leak list,
 * one leak with its newest trace and occurrences, trend buckets, a version comparison, prune
 * counts and the export's rows. The JSON functions write keys (docs/json.md "store") into an
 * object the caller opened; the CLI adds the envelope. Times are UTC. Names and descriptions
 * came from dumps: tables print them through rep_fmt_text, JSON through jsonw. */
#ifndef LR_REPORT_STORE_H
#define LR_REPORT_STORE_H

#include "base/jsonw.h"
#include "store/store_result.h"

#include <stdio.h>

/* "2026-12-01 10:20" into buf (REP_FMT_MAX bytes); returns buf. */
const char *rep_store_time(char *buf, int64_t ms);
/* "2026-12-01T10:20:30Z" into buf (REP_FMT_MAX bytes); returns buf. */
const char *rep_store_time_iso(char *buf, int64_t ms);

/* The keys of one leak row (signature ... retained_max) inside an open object: `store leaks`,
 * `store show` and the dashboard's model share them. */
void rep_store_leak_json(jsonw *w, const store_leak *l);

/* One input of `store ingest`: "stored ...", "already stored ..." or "failed: ... (recorded
 * as report #N)". An input refused with nothing stored (error set, not r->failed) prints
 * nothing here: the CLI reports it as an error. */
void rep_store_ingest_text(FILE *out, const char *path, const store_ingest_result *r,
                           const char *error);
/* The same as one object of "ingested" (status stored, duplicate, failed or refused),
 * streamed: rep_store_ingested_begin, one rep_store_ingest_json per input as it is stored,
 * rep_store_ingested_end. */
void rep_store_ingested_begin(jsonw *w);
void rep_store_ingest_json(jsonw *w, const char *path, const store_ingest_result *r,
                           const char *error);
void rep_store_ingested_end(jsonw *w);

/* `store leaks`: a count line and a table, most occurrences first; JSON "leaks". */
void rep_store_leaks_text(FILE *out, const store_leak *v, size_t n);
void rep_store_leaks_json(jsonw *w, const store_leak *v, size_t n);

/* A stored trace in LeakCanary's layout, root at the top, suspect references underlined. */
void rep_store_trace_text(FILE *out, const store_trace *t);
/* `store show`: the leak, its pattern, its newest trace (t, n == 0: none) and every
 * occurrence; JSON "leak", "occurrences" and "trace_json" (the trace as stored). */
void rep_store_show_text(FILE *out, const store_detail *d, const store_trace *t);
/* The occurrences of one leak as a JSON array under key (newest first, as stored): store show
 * calls it "occurrences", the dashboard "history". */
void rep_store_seen_json(jsonw *w, const char *key, const store_detail *d);
void rep_store_show_json(jsonw *w, const store_detail *d);

/* `store trend`: one row per bucket; by_name is --by as given (the JSON's "by"). */
void rep_store_trend_text(FILE *out, const store_bucket *v, size_t n, store_trend_by by);
/* Trend buckets as the array `key`, each labelled under label_key (the dashboard's model and
 * `store trend --json` share the form). */
void rep_store_buckets_json(jsonw *w, const char *key, const char *label_key,
                            const store_bucket *v, size_t n);
void rep_store_trend_json(jsonw *w, const store_bucket *v, size_t n, store_trend_by by,
                          const char *by_name);

/* "new", "fixed", "grown", "shrunk" or "same". */
const char *rep_store_change(store_change c);
/* The keys of a comparison (from, to, counts per change, leaks[]) inside an open object:
 * `store diff --json` and the dashboard's "comparison". */
void rep_store_diff_json(jsonw *w, const char *from, const char *to, const store_delta *v,
                         size_t n);
/* `store diff`: a summary line, then one line per leak. */
void rep_store_diff_text(FILE *out, const char *from, const char *to, const store_delta *v,
                         size_t n);

/* `store prune`: what was removed. */
void rep_store_prune_text(FILE *out, int64_t reports, int64_t leaks);
void rep_store_prune_json(jsonw *w, int64_t reports, int64_t leaks);

/* `store export`, streamed: begin (the document's object and its versions), then per table
 * rep_store_export_table, the store's rows through rep_store_export_row (a store_row_fn with
 * a rep_store_export as ctx: columns named in cols become keys, the counting ones numbers),
 * rep_store_export_table_end; then rep_store_export_end. */
typedef struct rep_store_export {
    jsonw *w;                /* the document being written */
    const char *const *cols; /* the table's column names, NULL-terminated */
} rep_store_export;

void rep_store_export_begin(jsonw *w, int schema_version, int store_schema_version);
/* table: "report", "leak" or "occurrence" (written as "reports", "leaks", "occurrences"). */
void rep_store_export_table(rep_store_export *x, jsonw *w, const char *table,
                            const char *const *cols);
int rep_store_export_row(void *x, int n_cols, const char *const *vals);
void rep_store_export_table_end(rep_store_export *x);
void rep_store_export_end(jsonw *w);

#endif
