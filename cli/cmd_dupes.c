/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_dupes.c: `leakray dupes FILE [--min-bytes N] [--min-bitmap N] [--top N] [--json]
 * [--mapping FILE] [--large-pixels N] [--export-png DIR]` (cli). Runs dupes_find
 * (src/analysis/dupes.c) and prints: identical primitive arrays with their owners' classes
 * and shortest strong paths, duplicate android.graphics.Bitmap pixels (Matrix, mBuffer; or
 * Bitmap.dumpData on Android 8+), large bitmaps (KOOM) and duplicate strings (MAT).
 * --export-png writes one image per duplicate bitmap group with libpng: raw pixels are
 * ARGB_8888 (bytes R, G, B, A in memory) or RGB_565 (16-bit little-endian), told apart by
 * the bytes per pixel; a dumped buffer that already is a PNG/JPEG/WebP file is written as
 * is (report/export.h writes them). On a V8-style snapshot (V8, Node, Chromium, ArkTS) it
 * also runs memlab's duplicate-string analysis (analysis/jsdupes.h) over memlab's dominator
 * tree (analysis/memlabdom.h). The listing itself is report/dupes.h's. */
#include "cli.h"
#include "analysis/dupes.h"
#include "analysis/jsdupes.h"
#include "analysis/memlabdom.h"
#include "report/dupes.h"
#include "report/export.h"

#include <stdio.h>
#include <stdlib.h>

/* A group whose pixels cannot be written is named on stderr; the export goes on. */
static void dupes_skipped(void *ctx, uint32_t group, const char *why)
{
    (void)ctx;
    fprintf(stderr, "leakray: bitmap group #%u not exported: %s\n", group + 1, why);
}

int cmd_dupes(int argc, char **argv)
{
    uint64_t min_bytes = DUPES_DEFAULT_MIN_BYTES, min_bmp = DUPES_DEFAULT_MIN_BITMAP, top = 20;
    uint64_t large_px = DUPES_DEFAULT_LARGE_PIXELS;
    const char *png_dir = NULL;
    const cli_optdef opts[] = {
        {"--min-bytes", CLI_OPT_SIZE, &min_bytes, "N",
         "smallest array content grouped (default 1024); smaller ones only where one "
         "content's copies waste 1 MiB", NULL},
        {"--min-bitmap", CLI_OPT_SIZE, &min_bmp, "N",
         "smallest bitmap buffer grouped (default 5000, as Matrix)", NULL},
        {"--top", CLI_OPT_UINT, &top, "N", "groups shown per section (default 20, 0 = all)", NULL},
        {"--large-pixels", CLI_OPT_UINT, &large_px, "N",
         "list bitmaps of at least N pixels (default 1,049,089 as KOOM)", NULL},
        {"--export-png", CLI_OPT_STR, &png_dir, "DIR",
         "write one image per duplicate bitmap group into DIR", NULL},
        {0}};
    const cli_spec spec = {
        "dupes", "FILE", "Identical primitive arrays, bitmaps and strings (wasted memory).", opts,
        1, 1,
        "Arrays are grouped by type, length and exact bytes; each copy's owner is its first\n"
        "referrer, with the shortest strong path from a GC root. Bitmaps: android.graphics.\n"
        "Bitmap instances with identical pixels: mBuffer before Android 8, else the copies a\n"
        "dump taken with bitmap data (am dumpheap -b png) keeps in Bitmap.dumpData. Large\n"
        "bitmaps: mWidth x mHeight >= --large-pixels, with native size when known. Strings:\n"
        "equal java.lang.String contents. wasted = (count - 1) x bytes of one copy.\n"
        "V8/Node/Chromium/ArkTS snapshots: duplicate JS strings as memlab's `analyze string`\n"
        "counts them (string and concatenated string values, retained sizes, top 10)."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (top == 0) /* 0 = all, as in top, histo, clusters and diff */
        top = UINT32_MAX;
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
    jsdup_result js = {0};
    int has_js = jsdup_applies(g);
    if (has_js) {
        mldom_tree dt;
        lr_status st = mldom_build(g, &dt, &err);
        if (st == LR_OK) {
            st = jsdup_find(g, &dt, &js, &err);
            mldom_free(&dt);
        }
        if (st != LR_OK) {
            rc = cli_error(&co, &err);
            dupes_free(&r);
            lr_close(h);
            return rc;
        }
    }
    double ms = cli_now_ms() - t0;
    rep_dupes_exports ex = {NULL, 0}, *exp = NULL;
    if (png_dir) {
        uint32_t n = r.n_bitmaps < top ? r.n_bitmaps : (uint32_t)top;
        if (n)
            cli_mkdirs(png_dir); /* as the agent's dump-dir: made when missing */
        if (rep_export_bitmaps(g, &r, n, png_dir, dupes_skipped, NULL, &ex, &err) != LR_OK) {
            rc = cli_error(&co, &err);
            dupes_free(&r);
            lr_close(h);
            return rc;
        }
        exp = &ex;
    }
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_dupes_json(&w, g, &r, &o, top, exp);
        if (has_js)
            rep_dupes_js_json(&w, g, &js);
        cli_json_end(&co, &w);
    } else {
        rep_dupes_text(stdout, g, &r, &o, top, exp);
        if (has_js)
            rep_dupes_js_text(stdout, g, &js);
        cli_print_timing(&co, stdout, "\nload", co.load_ms);
        cli_print_timing(&co, stdout, "dupes", ms);
    }
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return CLI_EXIT_OK;
    free(ex.path);
    jsdup_free(&js);
    dupes_free(&r);
    lr_close(h);
    return CLI_EXIT_OK;
}
