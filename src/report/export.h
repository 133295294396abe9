/* SPDX-License-Identifier: Apache-2.0 */
/* export.h: results written to files, and the line that says so (report layer), prefix
 * rep_export_. `dupes --export-png DIR`: one image per duplicate bitmap group, named after
 * the group, its size and the object (bitmap-N-WxH-ID.png), written atomically (base/
 * outfile.h: a failed or interrupted export leaves no partial file). `report -o OUT`: the
 * status line ("DUMP -> OUT (size)") or its JSON once the page is written. */
#ifndef LR_REPORT_EXPORT_H
#define LR_REPORT_EXPORT_H

#include "analysis/dupes.h"
#include "base/jsonw.h"
#include "report/dupes.h"

#include <stdio.h>

/* Told about a bitmap group whose pixels cannot be written (why says so); the export goes
 * on with the next group. group is 0-based. */
typedef void (*rep_export_skip_fn)(void *ctx, uint32_t group, const char *why);

/* Writes the first member of each of the first n duplicate bitmap groups of r into the
 * existing folder dir: raw pixels encoded as PNG, a dumped buffer that already is a PNG/JPEG/
 * WebP file as is. Fills ex->path (n entries, "" for a group skipped; free(ex->path)).
 * Returns LR_OK, LR_ERR_NOMEM, or LR_ERR_IO naming the file (ex is then empty). */
lr_status rep_export_bitmaps(const graph *g, const dupes_result *r, uint32_t n, const char *dir,
                             rep_export_skip_fn skip, void *ctx, rep_dupes_exports *ex,
                             lr_error *err);

/* A report file written. */
typedef struct rep_export_file {
    const char *input;    /* the dump, as given */
    const char *output;   /* the file written, as given */
    const char *format;   /* what it holds: "html" or "json" */
    uint64_t bytes;       /* its size */
    uint64_t leak_groups; /* leak groups it shows */
} rep_export_file;

/* "DUMP -> OUT (size)" on one line. */
void rep_export_file_text(FILE *out, const rep_export_file *f);
/* "output", "format", "bytes", "leak_groups" (the caller adds "timing"). */
void rep_export_file_json(jsonw *w, const rep_export_file *f);

#endif
