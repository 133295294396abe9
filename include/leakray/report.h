/* SPDX-License-Identifier: Apache-2.0 */
/* leakray/report.h: renderings of an lr_analysis (leakray/analysis.h).
 *
 *   FILE *f = fopen("report.html", "w");
 *   lr_render(an, LR_RENDER_HTML, NULL, f, &err);      // what `leakray report` writes
 *
 *   char *json; size_t len;
 *   lr_render_buffer(an, LR_RENDER_JSON, NULL, &json, &len, &err);
 *   ... lr_free(json);
 *
 * TEXT is LeakCanary's report layout (what `leakray analyze` prints). JSON is the report
 * model (docs/json.md, "report"): summary, leak groups and traces, the dominator tree as a
 * bounded tree (top children per level plus "other"), biggest objects and classes, and for
 * the heaps that have them DevTools' Summary with retainers, clusters, duplicate buffers and
 * bitmaps, memlab's duplicate strings (V8-style snapshots), threads. HTML is one
 * self-contained page over that model: no network access, inline script and styles, opens
 * from file://; every string from the dump is shown as text.
 * The first HTML/JSON rendering computes the model's extra sections (about one more pass over
 * the heap); later renderings reuse it. */
#ifndef LEAKRAY_REPORT_H
#define LEAKRAY_REPORT_H

#include "leakray/analysis.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lr_render_format {
    LR_RENDER_TEXT = 0, /* LeakCanary text */
    LR_RENDER_JSON = 1, /* the report model, one compact document */
    LR_RENDER_HTML = 2  /* the self-contained page */
} lr_render_format;

/* Rendering options; NULL means defaults. */
typedef struct lr_render_opts {
    int no_timing;          /* nonzero: no clock readings, so output is byte-stable */
    const char *dump_path;  /* path shown for the dump (NULL: the path it was opened with) */
} lr_render_opts;

/* Writes an to out in format fmt. Returns LR_OK, LR_ERR_IO when writing failed,
 * LR_ERR_NOMEM, or LR_ERR_USAGE for an unknown format. */
LR_API lr_status lr_render(lr_analysis *an, lr_render_format fmt, const lr_render_opts *opts,
                           FILE *out, lr_error *err);

/* The same into a malloc'd, NUL-terminated buffer: *buf (free: lr_free) and *len bytes. */
LR_API lr_status lr_render_buffer(lr_analysis *an, lr_render_format fmt,
                                  const lr_render_opts *opts, char **buf, size_t *len,
                                  lr_error *err);

/* Frees a buffer the library allocated for the caller. Accepts NULL. */
LR_API void lr_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
