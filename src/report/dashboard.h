/* SPDX-License-Identifier: Apache-2.0 */
/* dashboard.h: the leak store's dashboard page (report layer), prefix rep_. One
 * self-contained HTML file, like the heap report (html.h): the report's styles plus the
 * dashboard's, the dashboard model as HTML-safe JSON inside an inert application/json
 * element, and dashboard.js, which builds the page with textContent only. The same
 * Content-Security-Policy: no fetch of any kind, only the page's own script (by its SHA-256)
 * may run, so a leak name from a hostile dump stays text even if it got past the escaping.
 * The model (docs/json.md "dashboard") is written by the caller from the store's results. */
#ifndef LR_REPORT_DASHBOARD_H
#define LR_REPORT_DASHBOARD_H

#include <stddef.h>
#include <stdio.h>

#define REP_DASH_SCHEMA_VERSION 1 /* of the dashboard model; keys append-only */

/* Writes the page around model (len bytes of JSON, written by jsonw so valid UTF-8).
 * Returns 0, or -1 when the stream failed. */
int rep_dashboard_html(FILE *out, const char *model, size_t len);

#endif
