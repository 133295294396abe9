/* SPDX-License-Identifier: Apache-2.0 */
/* export.c: results written to files, and the line that says so (report layer), prefix
 * rep_export_. Bitmap pixels are laid out as report/dupes.c decides (rep_dupes_raw_bpp,
 * rep_dupes_image_ext), so the files and the listing naming them agree; PNG encoding is
 * png.c's. Every file goes through outfile: a temporary renamed over the target once
 * complete. */
#include "report/export.h"

#include "base/err.h"
#include "base/outfile.h"
#include "report/fmt.h"
#include "report/png.h"

#include <inttypes.h>
#include <stdlib.h>

/* Writes len bytes to path. Returns 0, or -1 with the message in why. */
static int write_file(const char *path, const void *p, size_t len, char *why, size_t cap)
{
    lr_error e = {0};
    outfile *of = NULL;
    if (outfile_open(path, &of, &e) == LR_OK) {
        outfile_write(of, p, len);
        if (outfile_commit(of, &e) == LR_OK)
            return 0;
    }
    snprintf(why, cap, "%s", e.msg);
    return -1;
}

/* Encodes raw pixels as PNG and writes them to path. Returns 0 or -1 with a message in why. */
static int write_png(const char *path, const uint8_t *pix, const dupes_pixels *px, unsigned bpp,
                     char *why, size_t cap)
{
    uint8_t *png = NULL;
    size_t len = 0;
    if (rep_png_encode(pix, px->width, px->height, bpp, &png, &len) != 0) {
        snprintf(why, cap, "%s: cannot encode the PNG (out of memory or libpng error)", path);
        return -1;
    }
    int rc = write_file(path, png, len, why, cap);
    free(png);
    return rc;
}

/* Writes the first member of bitmap group i into dir. Returns 0 and the file's path in out,
 * 1 when the group's pixels cannot be shown (why says so), or -1 on an I/O error. */
static int export_group(const graph *g, const dupes_result *r, uint32_t i, const char *dir,
                        char *out, size_t cap, char *why, size_t wcap)
{
    const dupes_group *gr = &r->bitmaps[i];
    node_ix m = r->members[gr->first_member];
    dupes_pixels px;
    if (!dupes_bitmap_pixels(g, m, &px) || px.source == DUPES_PIX_NONE) {
        snprintf(why, wcap, "no pixels in the dump");
        return 1;
    }
    const uint8_t *p = g->data + px.off;
    const char *ext = px.source == DUPES_PIX_DUMPDATA ? rep_dupes_image_ext(p, px.len) : NULL;
    snprintf(out, cap, "%s/bitmap-%u-%ux%u-%" PRIx64 ".%s", dir, i + 1, px.width, px.height,
             graph_node_id(g, m), ext ? ext : "png");
    if (ext) /* already an image file: written unchanged */
        return write_file(out, p, px.len, why, wcap);
    unsigned bpp = rep_dupes_raw_bpp(&px);
    if (!bpp) {
        snprintf(why, wcap, "%" PRIu64 " bytes do not hold %ux%u pixels", px.len, px.width,
                 px.height);
        return 1;
    }
    return write_png(out, p, &px, bpp, why, wcap);
}

lr_status rep_export_bitmaps(const graph *g, const dupes_result *r, uint32_t n, const char *dir,
                             rep_export_skip_fn skip, void *ctx, rep_dupes_exports *ex,
                             lr_error *err)
{
    ex->n = 0;
    ex->path = calloc(n ? n : 1, sizeof *ex->path);
    if (!ex->path)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory");
    ex->n = n;
    for (uint32_t i = 0; i < n; i++) {
        char why[600];
        int e = export_group(g, r, i, dir, ex->path[i], sizeof ex->path[i], why, sizeof why);
        if (e != 0)
            ex->path[i][0] = '\0';
        if (e < 0) {
            free(ex->path);
            ex->path = NULL;
            ex->n = 0;
            return LR_FAIL(err, LR_ERR_IO, "%s", why);
        }
        if (e > 0 && skip)
            skip(ctx, i, why);
    }
    return LR_OK;
}

void rep_export_file_text(FILE *out, const rep_export_file *f)
{
    char a[REP_FMT_MAX];
    fprintf(out, "%s -> %s (%s)\n", f->input, f->output, rep_fmt_bytes(a, f->bytes));
}

void rep_export_file_json(jsonw *w, const rep_export_file *f)
{
    jsonw_kv_str(w, "output", f->output);
    jsonw_kv_str(w, "format", f->format);
    jsonw_kv_uint(w, "bytes", f->bytes);
    jsonw_kv_uint(w, "leak_groups", f->leak_groups);
}
