/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_dupes.c: `leakray dupes FILE [--min-bytes N] [--min-bitmap N] [--top N] [--json]
 * [--mapping FILE] [--large-pixels N] [--export-png DIR]` (cli). Runs dupes_find
 * (src/analysis/dupes.c) and prints: identical primitive arrays with their owners' classes
 * and shortest strong paths, duplicate android.graphics.Bitmap pixels (Matrix, mBuffer; or
 * Bitmap.dumpData on Android 8+), large bitmaps (KOOM) and duplicate strings (MAT).
 * --export-png writes one image per duplicate bitmap group with libpng: raw pixels are
 * ARGB_8888 (bytes R, G, B, A in memory) or RGB_565 (16-bit little-endian), told apart by
 * the bytes per pixel; a dumped buffer that already is a PNG/JPEG/WebP file is written as
 * is. The listing itself is report/dupes.h's. */
#include "cli.h"
#include "analysis/dupes.h"
#include "base/outfile.h"
#include "report/dupes.h"
#include "report/png.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


/* ---- bitmap export ---- */

/* Encodes raw pixels as PNG (the report layer's encoder) and writes them through outfile: a
 * temporary renamed over the target once complete, so a failed or interrupted export never
 * leaves a partial or empty PNG. Returns 0 or -1 with a message in why. */
static int write_png(const char *path, const uint8_t *pix, const dupes_pixels *px, unsigned bpp,
                     char *why, size_t cap)
{
    uint8_t *png = NULL;
    size_t len = 0;
    if (rep_png_encode(pix, px->width, px->height, bpp, &png, &len) != 0) {
        snprintf(why, cap, "%s: cannot encode the PNG (out of memory or libpng error)", path);
        return -1;
    }
    lr_error err = {0};
    outfile *of = NULL;
    if (outfile_open(path, &of, &err) != LR_OK) {
        free(png);
        snprintf(why, cap, "%s", err.msg);
        return -1;
    }
    outfile_write(of, png, len);
    free(png);
    if (outfile_commit(of, &err) != LR_OK) {
        snprintf(why, cap, "%s", err.msg);
        return -1;
    }
    return 0;
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
    if (ext) { /* already an image file: write it unchanged */
        lr_error err = {0};
        outfile *of;
        if (outfile_open(out, &of, &err) == LR_OK) {
            outfile_write(of, p, px.len);
            if (outfile_commit(of, &err) == LR_OK)
                return 0;
        }
        snprintf(why, wcap, "%s", err.msg);
        return -1;
    }
    unsigned bpp = rep_dupes_raw_bpp(&px);
    if (!bpp) {
        snprintf(why, wcap, "%" PRIu64 " bytes do not hold %ux%u pixels", px.len, px.width,
                 px.height);
        return 1;
    }
    return write_png(out, p, &px, bpp, why, wcap);
}

int cmd_dupes(int argc, char **argv)
{
    uint64_t min_bytes = DUPES_DEFAULT_MIN_BYTES, min_bmp = DUPES_DEFAULT_MIN_BITMAP, top = 20;
    uint64_t large_px = DUPES_DEFAULT_LARGE_PIXELS;
    const char *png_dir = NULL;
    const cli_optdef opts[] = {
        {"--min-bytes", CLI_OPT_SIZE, &min_bytes, "N",
         "smallest array content grouped (default 1024)", NULL},
        {"--min-bitmap", CLI_OPT_SIZE, &min_bmp, "N",
         "smallest bitmap buffer grouped (default 5000, as Matrix)", NULL},
        {"--top", CLI_OPT_UINT, &top, "N", "groups shown per section (default 20)", NULL},
        {"--large-pixels", CLI_OPT_UINT, &large_px, "N",
         "list bitmaps of at least N pixels (default 1,049,089 as KOOM)", NULL},
        {"--export-png", CLI_OPT_STR, &png_dir, "DIR",
         "write one image per duplicate bitmap group into DIR", NULL},
        {0}};
    const cli_spec spec = {
        "dupes", "FILE", "identical primitive arrays, bitmaps and strings (wasted memory)", opts,
        1, 1,
        "Arrays are grouped by type, length and exact bytes; each copy's owner is its first\n"
        "referrer, with the shortest strong path from a GC root. Bitmaps: android.graphics.\n"
        "Bitmap instances with identical pixels: mBuffer before Android 8, else the copies a\n"
        "dump taken with bitmap data (am dumpheap -b png) keeps in Bitmap.dumpData. Large\n"
        "bitmaps: mWidth x mHeight >= --large-pixels, with native size when known. Strings:\n"
        "equal java.lang.String contents. wasted = (count - 1) x bytes of one copy."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    lr_heap *h;
    if ((rc = cli_open(&co, co.pos[0], 0, &h)) != 0)
        return rc;
    graph *g = lr_heap_graph(h);
    dupes_opts o = {min_bytes, min_bmp, large_px ? large_px : DUPES_DEFAULT_LARGE_PIXELS};
    dupes_result r;
    lr_error err = {0};
    double t0 = cli_now_ms();
    if (dupes_find(g, &o, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        lr_close(h);
        return rc;
    }
    double ms = cli_now_ms() - t0;
    rep_dupes_exports ex = {NULL, 0}, *exp = NULL;
    if (png_dir) {
        uint32_t n = r.n_bitmaps < top ? r.n_bitmaps : (uint32_t)top;
        ex.path = calloc(n ? n : 1, sizeof *ex.path);
        if (!ex.path) {
            dupes_free(&r);
            lr_close(h);
            return cli_fail(&co, LR_ERR_NOMEM, "out of memory");
        }
        ex.n = n;
        exp = &ex;
        for (uint32_t i = 0; i < n; i++) {
            char why[600];
            int e = export_group(g, &r, i, png_dir, ex.path[i], sizeof ex.path[i], why,
                                 sizeof why);
            if (e != 0)
                ex.path[i][0] = '\0';
            if (e < 0) {
                free(ex.path);
                dupes_free(&r);
                lr_close(h);
                return cli_fail(&co, LR_ERR_IO, "%s", why);
            }
            if (e > 0)
                fprintf(stderr, "leakray: bitmap group #%u not exported: %s\n", i + 1, why);
        }
    }
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_dupes_json(&w, g, &r, &o, top, exp);
        cli_json_end(&co, &w);
    } else {
        rep_dupes_text(stdout, g, &r, &o, top, exp);
        cli_print_timing(&co, stdout, "\nload", co.load_ms);
        cli_print_timing(&co, stdout, "dupes", ms);
    }
    free(ex.path);
    dupes_free(&r);
    lr_close(h);
    return CLI_EXIT_OK;
}
