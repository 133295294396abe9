/* SPDX-License-Identifier: Apache-2.0 */
/* dupes.h: `leakray dupes` as text and JSON (report layer), prefix rep_dupes_. Pure functions
 * of a dupes_result (analysis/dupes.h) and the options it was found with; the JSON writes keys
 * (docs/json.md "dupes") into an object the caller opened. `top` limits each section. */
#ifndef LR_REPORT_DUPES_H
#define LR_REPORT_DUPES_H

#include "analysis/dupes.h"
#include "analysis/jsdupes.h"
#include "base/jsonw.h"

#include <stdio.h>

#define REP_DUPES_MAX_PIXELS (64u << 20) /* images larger than this are not encoded */

/* The file each duplicate bitmap group was exported to (--export-png), or NULL. */
typedef struct rep_dupes_exports {
    char (*path)[512]; /* per group; "" when the group was not written */
    uint32_t n;
} rep_dupes_exports;

void rep_dupes_text(FILE *out, const graph *g, const dupes_result *r, const dupes_opts *o,
                    uint64_t top, const rep_dupes_exports *ex);
void rep_dupes_json(jsonw *w, const graph *g, const dupes_result *r, const dupes_opts *o,
                    uint64_t top, const rep_dupes_exports *ex);
/* The duplicate strings of a V8-style snapshot (analysis/jsdupes.h): memlab's pattern
 * statistics and its two top-10 lists. The JSON writes the `js_strings` key. */
#define REP_DUPES_JS_IDS 1000        /* ids listed per group in JSON */
#define REP_DUPES_JS_VALUE (1u << 20) /* bytes of a value written in JSON (text: 120) */
void rep_dupes_js_text(FILE *out, const graph *g, const jsdup_result *r);
void rep_dupes_js_json(jsonw *w, const graph *g, const jsdup_result *r);
/* Opens the `js_strings` object and writes its counts and patterns; the caller writes the
 * two lists in its own id form and closes the object (the report model shares it). */
void rep_dupes_js_json_head(jsonw *w, const jsdup_result *r);
/* File name extension of a dumped buffer that already is an image file ("png", "jpg",
 * "webp"), or NULL. */
const char *rep_dupes_image_ext(const uint8_t *p, uint64_t n);
/* How raw pixels are laid out: 4 (ARGB_8888), 2 (RGB_565) or 0 (too few bytes, too big). */
unsigned rep_dupes_raw_bpp(const dupes_pixels *px);

#endif
