/* SPDX-License-Identifier: Apache-2.0 */
/* dashboard.h: the leak store's dashboard page (report layer), prefix rep_. One
 * self-contained HTML file, like the heap report (html.h): the report's styles plus the
 * dashboard's, the dashboard model as HTML-safe JSON inside an inert application/json
 * element, and dashboard.js, which builds the page with textContent only. The same
 * Content-Security-Policy: no fetch of any kind, only the page's own script (by its SHA-256)
 * may run, so a leak name from a hostile dump stays text even if it got past the escaping.
 * The model (docs/json.md "dashboard") is rep_dashboard_json's rendering of a
 * store_dashboard (store/store_result.h). */
#ifndef LR_REPORT_DASHBOARD_H
#define LR_REPORT_DASHBOARD_H

#include "base/jsonw.h"
#include "store/store_result.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define REP_DASH_SCHEMA_VERSION 1 /* of the dashboard model; keys append-only */

/* Writes the page around model (len bytes of JSON, written by jsonw so valid UTF-8).
 * Returns 0, or -1 when the stream failed. */
int rep_dashboard_html(FILE *out, const char *model, size_t len);

/* Bounds of the page: the leaks listed (the rest are counted, "leaks_total"), the leaks with
 * their trace and history, and the occurrences listed per such leak, newest first. The CLI
 * asks the store for no more (store_dashboard_build). */
#define REP_DASH_MAX_LEAKS 5000
#define REP_DASH_DETAILED 300
#define REP_DASH_HISTORY 20

/* What the model says about how it was made, beside the store's data. */
typedef struct rep_dash_view {
    const char *url;     /* the store as shown (rep_dashboard_url) */
    const char *app;     /* the filter as given (NULL: none) */
    const char *version;
    const char *kind;
    const char *since;
    int64_t generated_ms; /* when the page was made, Unix ms; < 0: left out (--no-timing) */
} rep_dash_view;

/* The dashboard model (docs/json.md "dashboard") as one JSON object, in the order the page
 * reads it. */
void rep_dashboard_json(jsonw *w, const store_dashboard *d, const rep_dash_view *v);

/* The store's address as the page and the CLI show it: a password in a postgres:// URL
 * (user:secret@ or password=secret) becomes ***. Writes at most cap bytes into out. */
void rep_dashboard_url(const char *url, char *out, size_t cap);

/* What was written: "URL -> OUT (SIZE)"; JSON "output", "format", "bytes". */
void rep_dashboard_written_text(FILE *out, const char *url, const char *path, size_t bytes);
void rep_dashboard_written_json(jsonw *w, const char *path, const char *format, size_t bytes);

#endif
