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

/* A page's head up to its open <style> element: the Content-Security-Policy (no fetch of
 * any kind, inline styles, and only kit.js and the page's script js of js_len bytes, by
 * their hashes) and the title (plain text, not escaped: a constant). The caller writes the
 * styles, closes the head, writes the body up to its inert JSON element's content and ends
 * the page with rep_html_scripts. */
void rep_html_head(FILE *out, const char *title, const char *js, size_t js_len);

/* Closes the open JSON <script> element and ends the page: kit.js, then js. */
void rep_html_scripts(FILE *out, const char *js, size_t js_len);

#endif
