/* SPDX-License-Identifier: Apache-2.0 */
/* html.h: the self-contained HTML report (report layer), prefix rep_. One file: styles,
 * script and the report model's JSON inline, no network access (a Content-Security-Policy
 * forbids it, and only the page's own script, by hash, may run), opens from file://. */
#ifndef LR_REPORT_HTML_H
#define LR_REPORT_HTML_H

#include "report/model.h"

#include <stdio.h>

/* Writes the page for r (rep_report_build done). Returns 0, or -1 when the stream failed. */
int rep_html(FILE *out, const rep_report *r);

/* The base64 SHA-256 of an inline script (n bytes), as a Content-Security-Policy's
 * 'sha256-...' source names it: 44 characters and a NUL in out. */
void rep_html_script_hash(const char *s, size_t n, char out[45]);

#endif
