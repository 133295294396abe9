/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_dupes.c: `leakray dupes FILE [--min-bytes N] [--min-bitmap N] [--top N] [--json]
 * [--mapping FILE] [--large-pixels N] [--export-png DIR]` (cli). Runs dupes_find
 * (src/analysis/dupes.c) and prints: identical primitive arrays with their owners' classes
 * and shortest strong paths, duplicate android.graphics.Bitmap pixels (Matrix, mBuffer; or
 * Bitmap.dumpData on Android 8+), large bitmaps (KOOM) and duplicate strings (MAT).
 * --export-png writes one image per duplicate bitmap group with libpng: raw pixels are
 * ARGB_8888 (bytes R, G, B, A in memory) or RGB_565 (16-bit little-endian), told apart by
 * the bytes per pixel; a dumped buffer that already is a PNG/JPEG/WebP file is written as
 * is. Also defines cli_special_path / cli_special_path_json, the path rendering shared with
 * cmd_cycles.c. */
#include "cli.h"
#include "analysis/dupes.h"
#include "base/outfile.h"
#include "report/png.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DUPES_PATHS_TEXT 3  /* paths printed per group in text (JSON has all) */
#define DUPES_OWNER_KINDS 5 /* distinct owner class.field pairs printed per group */
#define PATH_MAX_NODES 4096 /* longest path rendered */

/* Class name of a node; class objects show the class they describe. */
static const char *node_cls(const graph *g, node_ix n)
{
    if (g->node_kind[n] == GRAPH_KIND_CLASS) {
        if (n < g->n_classes && g->classes[n].node == n)
            return graph_str(g, g->classes[n].name);
        for (class_ix c = 0; c < g->n_classes; c++)
            if (g->classes[c].node == n)
                return graph_str(g, g->classes[c].name);
    }
    return graph_class_name(g, n);
}

/* "static FIELD", "FIELD" or "[i]" for edge e. */
static const char *edge_txt(const graph *g, edge_ix e, char *buf, size_t cap)
{
    char tmp[256];
    const char *t = graph_edge_name_text(g, e, tmp, sizeof tmp);
    int is_static = GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_STATIC;
    snprintf(buf, cap, "%s%s", is_static ? "static " : "", t);
    return buf;
}

/* Prints the path of n, one line per step, each line starting with indent. */
void cli_special_path(FILE *out, const graph *g, const paths_result *pr, node_ix n,
                      const char *indent);
void cli_special_path(FILE *out, const graph *g, const paths_result *pr, node_ix n,
                      const char *indent)
{
    static node_ix nodes[PATH_MAX_NODES];
    static edge_ix edges[PATH_MAX_NODES];
    uint32_t k = paths_get(pr, n, nodes, edges, PATH_MAX_NODES);
    char id[CLI_FMT_MAX], eb[300];
    if (k == 0) {
        fprintf(out, "%s(no strong path from a GC root)\n", indent);
        return;
    }
    if (k > PATH_MAX_NODES)
        k = PATH_MAX_NODES;
    uint32_t r = paths_root_of(pr, nodes[0]);
    fprintf(out, "%sGC root (%s): %s%s %s\n", indent,
            r < g->n_roots ? graph_root_kind_title(g->roots[r].kind) : "?", node_cls(g, nodes[0]),
            g->node_kind[nodes[0]] == GRAPH_KIND_CLASS ? " (class)" : "",
            cli_fmt_id(id, g, graph_node_id(g, nodes[0])));
    for (uint32_t i = 1; i < k; i++)
        fprintf(out, "%s  .%s -> %s %s\n", indent, edge_txt(g, edges[i - 1], eb, sizeof eb),
                node_cls(g, nodes[i]), cli_fmt_id(id, g, graph_node_id(g, nodes[i])));
}

/* The path of n as a JSON array of {class, id, edge, root?}; null when unreached. */
void cli_special_path_json(jsonw *w, const graph *g, const paths_result *pr, node_ix n);
void cli_special_path_json(jsonw *w, const graph *g, const paths_result *pr, node_ix n)
{
    static node_ix nodes[PATH_MAX_NODES];
    static edge_ix edges[PATH_MAX_NODES];
    uint32_t k = paths_get(pr, n, nodes, edges, PATH_MAX_NODES);
    char id[CLI_FMT_MAX], eb[300];
    if (k == 0) {
        jsonw_null(w);
        return;
    }
    if (k > PATH_MAX_NODES)
        k = PATH_MAX_NODES;
    jsonw_arr_begin(w);
    for (uint32_t i = 0; i < k; i++) {
        jsonw_obj_begin(w);
        if (i == 0) {
            uint32_t r = paths_root_of(pr, nodes[0]);
            jsonw_kv_str(w, "root", r < g->n_roots ? graph_root_kind_name(g->roots[r].kind) : "");
        } else {
            jsonw_kv_str(w, "edge", edge_txt(g, edges[i - 1], eb, sizeof eb));
        }
        jsonw_kv_str(w, "class", node_cls(g, nodes[i]));
        jsonw_kv_str(w, "id", cli_fmt_id(id, g, graph_node_id(g, nodes[i])));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

/* "int[2000]" */
static const char *array_title(const graph *g, const dupes_group *gr, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s[%u]", graph_ftype_name(gr->elem_type & 0x7f), gr->length);
    return buf;
}

/* Distinct owner "Class.field" pairs of an array group, with counts, in first-seen order. */
typedef struct owner_kind {
    char text[300];
    uint32_t n;
} owner_kind;

static int owner_kinds(const graph *g, const dupes_result *r, const dupes_group *gr,
                       owner_kind *ok, int cap, uint32_t *others)
{
    int n = 0;
    *others = 0;
    for (uint32_t i = 0; i < gr->count; i++) {
        uint32_t m = gr->first_member + i;
        char t[300], eb[260];
        if (r->owner[m] == GRAPH_NONE)
            snprintf(t, sizeof t, "(no referrer)");
        else
            snprintf(t, sizeof t, "%s.%s", node_cls(g, r->owner[m]),
                     GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(g->edge_kind[r->owner_edge[m]]))
                         ? "[]"
                         : edge_txt(g, r->owner_edge[m], eb, sizeof eb));
        int k = 0;
        for (; k < n; k++)
            if (strcmp(ok[k].text, t) == 0)
                break;
        if (k == n) {
            if (n == cap) {
                (*others)++;
                continue;
            }
            snprintf(ok[n].text, sizeof ok[n].text, "%s", t);
            ok[n++].n = 0;
        }
        ok[k].n++;
    }
    return n;
}

/* ---- bitmap export ---- */

#define DUPES_MAX_EXPORT_PIXELS (64u << 20) /* refuse bigger images (64 Mpixel) */

/* File name extension of a dumped buffer that already is an image file, or NULL. */
static const char *image_file_ext(const uint8_t *p, uint64_t n)
{
    const char *t = rep_png_image_type(p, n); /* "image/png" ... */
    return !t ? NULL : strcmp(t, "image/jpeg") == 0 ? "jpg" : t + 6;
}

/* How raw pixels are laid out: 4 (ARGB_8888), 2 (RGB_565) or 0 (too few bytes, too big). */
static unsigned raw_bpp(const dupes_pixels *px)
{
    return rep_png_raw_bpp(px, DUPES_MAX_EXPORT_PIXELS);
}

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
    const char *ext = px.source == DUPES_PIX_DUMPDATA ? image_file_ext(p, px.len) : NULL;
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
    unsigned bpp = raw_bpp(&px);
    if (!bpp) {
        snprintf(why, wcap, "%" PRIu64 " bytes do not hold %ux%u pixels", px.len, px.width,
                 px.height);
        return 1;
    }
    return write_png(out, p, &px, bpp, why, wcap);
}

/* "buffer", "dump_data" or "none". */
static const char *pix_source_name(unsigned s)
{
    return s == DUPES_PIX_BUFFER ? "buffer" : s == DUPES_PIX_DUMPDATA ? "dump_data" : "none";
}

/* Pixel format of a bitmap for people: "raw ARGB_8888", "png", ... */
static const char *pix_format(const graph *g, const dupes_pixels *px)
{
    if (px->source == DUPES_PIX_NONE)
        return "none";
    const char *ext = image_file_ext(g->data + px->off, px->len);
    if (px->source == DUPES_PIX_DUMPDATA && ext)
        return ext;
    unsigned bpp = raw_bpp(px);
    return bpp == 4 ? "raw ARGB_8888" : bpp == 2 ? "raw RGB_565" : "raw (unknown layout)";
}

/* Export results per bitmap group (file paths), filled by --export-png. */
typedef struct exports {
    char (*path)[512]; /* "" when the group was not written */
    uint32_t n;
} exports;

static void text_report(const cli_common *co, const graph *g, const dupes_result *r,
                        const dupes_opts *o, uint64_t top, const exports *ex)
{
    char a[CLI_FMT_MAX], b[CLI_FMT_MAX], c[CLI_FMT_MAX], t[128], id[CLI_FMT_MAX];
    printf("Duplicate primitive arrays (>= %s bytes): %s groups, %s wasted\n",
           cli_fmt_count(a, o->min_bytes), cli_fmt_count(b, r->n_arrays),
           cli_fmt_bytes(c, r->wasted_arrays));
    for (uint32_t i = 0; i < r->n_arrays && i < top; i++) {
        const dupes_group *gr = &r->arrays[i];
        printf("  #%u %s x%u: %s each, %s wasted\n", i + 1, array_title(g, gr, t, sizeof t),
               gr->count, cli_fmt_count(a, gr->bytes), cli_fmt_count(b, gr->wasted));
        owner_kind ok[DUPES_OWNER_KINDS];
        uint32_t others;
        int nk = owner_kinds(g, r, gr, ok, DUPES_OWNER_KINDS, &others);
        printf("     owners:");
        for (int k = 0; k < nk; k++)
            printf("%s %s x%u", k ? "," : "", ok[k].text, ok[k].n);
        if (others)
            printf(", %u others", others);
        printf("\n");
        for (uint32_t k = 0; k < gr->count && k < DUPES_PATHS_TEXT; k++) {
            uint32_t m = gr->first_member + k;
            printf("     array %s, owner path:\n",
                   cli_fmt_id(id, g, graph_node_id(g, r->members[m])));
            if (r->owner[m] != GRAPH_NONE)
                cli_special_path(stdout, g, &r->paths, r->owner[m], "       ");
            else
                printf("       (no referrer)\n");
        }
        if (gr->count > DUPES_PATHS_TEXT)
            printf("     ... %u more (--json lists every path)\n", gr->count - DUPES_PATHS_TEXT);
    }
    if (r->n_arrays > top)
        printf("  ... %u more groups (--top N)\n", (unsigned)(r->n_arrays - top));

    printf("\nDuplicate bitmaps (android.graphics.Bitmap mBuffer >= %s bytes): %s groups, %s "
           "wasted\n",
           cli_fmt_count(a, o->min_bitmap_bytes), cli_fmt_count(b, r->n_bitmaps),
           cli_fmt_bytes(c, r->wasted_bitmaps));
    for (uint32_t i = 0; i < r->n_bitmaps && i < top; i++) {
        const dupes_group *gr = &r->bitmaps[i];
        printf("  #%u %ux%u, buffer %s x%u: %s bytes each, %s wasted\n", i + 1, gr->width,
               gr->height, array_title(g, gr, t, sizeof t), gr->count,
               cli_fmt_count(a, gr->bytes), cli_fmt_count(b, gr->wasted));
        if (gr->pix_source == DUPES_PIX_DUMPDATA) {
            dupes_pixels px;
            dupes_bitmap_pixels(g, r->members[gr->first_member], &px);
            printf("     pixels: Bitmap.dumpData (native bitmap), %s\n", pix_format(g, &px));
        }
        if (ex && i < ex->n && ex->path[i][0])
            printf("     image: %s\n", ex->path[i]);
        for (uint32_t k = 0; k < gr->count && k < DUPES_PATHS_TEXT; k++) {
            node_ix m = r->members[gr->first_member + k];
            printf("     bitmap %s, path:\n", cli_fmt_id(id, g, graph_node_id(g, m)));
            cli_special_path(stdout, g, &r->paths, m, "       ");
        }
        if (gr->count > DUPES_PATHS_TEXT)
            printf("     ... %u more (--json lists every path)\n", gr->count - DUPES_PATHS_TEXT);
    }

    if (r->n_large) {
        printf("\nLarge bitmaps (mWidth x mHeight >= %s pixels): %s\n",
               cli_fmt_count(a, o->large_pixels), cli_fmt_count(b, r->n_large));
        for (uint32_t i = 0; i < r->n_large && i < top; i++) {
            node_ix m = r->large[i];
            dupes_pixels px;
            dupes_bitmap_pixels(g, m, &px);
            printf("  #%u %s %ux%u (%s pixels), native %s, pixels: %s\n", i + 1,
                   cli_fmt_id(id, g, graph_node_id(g, m)), px.width, px.height,
                   cli_fmt_count(a, (uint64_t)px.width * px.height),
                   g->node_native && g->node_native[m] ? cli_fmt_bytes(b, g->node_native[m])
                                                       : "unknown",
                   pix_format(g, &px));
            if (i < DUPES_PATHS_TEXT)
                cli_special_path(stdout, g, &r->paths, m, "       ");
        }
        if (r->n_large > top)
            printf("  ... %u more (--top N)\n", (unsigned)(r->n_large - top));
    }

    printf("\nDuplicate strings: %s groups, %s wasted\n", cli_fmt_count(a, r->n_strings),
           cli_fmt_bytes(b, r->wasted_strings));
    for (uint32_t i = 0; i < r->n_strings && i < top; i++) {
        const dupes_group *gr = &r->strings[i];
        char s[96];
        graph_string_value(g, r->members[gr->first_member], s, sizeof s);
        printf("  #%u x%u %s wasted: \"", i + 1, gr->count, cli_fmt_count(a, gr->wasted));
        cli_put_text(stdout, s, strlen(s), 80);
        printf("\"\n");
    }
    if (r->n_strings > top)
        printf("  ... %u more groups (--top N)\n", (unsigned)(r->n_strings - top));
    (void)co;
}

static void json_members(jsonw *w, const graph *g, const dupes_result *r, const dupes_group *gr,
                         int arrays)
{
    char id[CLI_FMT_MAX], eb[300];
    jsonw_kv_arr_begin(w, "members");
    for (uint32_t k = 0; k < gr->count; k++) {
        uint32_t m = gr->first_member + k;
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "id", cli_fmt_id(id, g, graph_node_id(g, r->members[m])));
        if (arrays) {
            if (r->owner[m] != GRAPH_NONE) {
                jsonw_kv_str(w, "owner_id", cli_fmt_id(id, g, graph_node_id(g, r->owner[m])));
                jsonw_kv_str(w, "owner_class", node_cls(g, r->owner[m]));
                jsonw_kv_str(w, "owner_edge", edge_txt(g, r->owner_edge[m], eb, sizeof eb));
            } else {
                jsonw_kv_null(w, "owner_id");
            }
        }
        jsonw_key(w, "path");
        if (r->owner[m] != GRAPH_NONE)
            cli_special_path_json(w, g, &r->paths, r->owner[m]);
        else
            jsonw_null(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static void json_report(const cli_common *co, const graph *g, const dupes_result *r,
                        const dupes_opts *o, uint64_t top, const exports *ex)
{
    jsonw w;
    char t[128];
    cli_json_begin(&w);
    jsonw_kv_uint(&w, "min_bytes", o->min_bytes);
    jsonw_kv_uint(&w, "min_bitmap_bytes", o->min_bitmap_bytes);

    jsonw_kv_obj_begin(&w, "arrays");
    jsonw_kv_uint(&w, "n_groups", r->n_arrays);
    jsonw_kv_uint(&w, "wasted", r->wasted_arrays);
    jsonw_kv_arr_begin(&w, "groups");
    for (uint32_t i = 0; i < r->n_arrays && i < top; i++) {
        const dupes_group *gr = &r->arrays[i];
        jsonw_obj_begin(&w);
        jsonw_kv_str(&w, "type", array_title(g, gr, t, sizeof t));
        jsonw_kv_uint(&w, "length", gr->length);
        jsonw_kv_uint(&w, "count", gr->count);
        jsonw_kv_uint(&w, "bytes", gr->bytes);
        jsonw_kv_uint(&w, "wasted", gr->wasted);
        json_members(&w, g, r, gr, 1);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);

    jsonw_kv_obj_begin(&w, "bitmaps");
    jsonw_kv_uint(&w, "n_groups", r->n_bitmaps);
    jsonw_kv_uint(&w, "wasted", r->wasted_bitmaps);
    jsonw_kv_arr_begin(&w, "groups");
    for (uint32_t i = 0; i < r->n_bitmaps && i < top; i++) {
        const dupes_group *gr = &r->bitmaps[i];
        jsonw_obj_begin(&w);
        jsonw_kv_uint(&w, "width", gr->width);
        jsonw_kv_uint(&w, "height", gr->height);
        jsonw_kv_uint(&w, "buffer_length", gr->length);
        jsonw_kv_uint(&w, "count", gr->count);
        jsonw_kv_uint(&w, "bytes", gr->bytes);
        jsonw_kv_uint(&w, "wasted", gr->wasted);
        dupes_pixels px;
        dupes_bitmap_pixels(g, r->members[gr->first_member], &px);
        jsonw_kv_str(&w, "pixels", pix_source_name(gr->pix_source));
        jsonw_kv_str(&w, "pixel_format", pix_format(g, &px));
        if (ex && i < ex->n && ex->path[i][0])
            jsonw_kv_str(&w, "image", ex->path[i]);
        else if (ex)
            jsonw_kv_null(&w, "image");
        json_members(&w, g, r, gr, 0);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);

    jsonw_kv_obj_begin(&w, "large_bitmaps");
    jsonw_kv_uint(&w, "min_pixels", o->large_pixels);
    jsonw_kv_uint(&w, "count", r->n_large);
    jsonw_kv_arr_begin(&w, "bitmaps");
    for (uint32_t i = 0; i < r->n_large && i < top; i++) {
        node_ix m = r->large[i];
        char id[CLI_FMT_MAX];
        dupes_pixels px;
        dupes_bitmap_pixels(g, m, &px);
        jsonw_obj_begin(&w);
        jsonw_kv_str(&w, "id", cli_fmt_id(id, g, graph_node_id(g, m)));
        jsonw_kv_uint(&w, "width", px.width);
        jsonw_kv_uint(&w, "height", px.height);
        jsonw_kv_uint(&w, "pixel_count", (uint64_t)px.width * px.height);
        if (g->node_native && g->node_native[m])
            jsonw_kv_uint(&w, "native", g->node_native[m]);
        else
            jsonw_kv_null(&w, "native");
        jsonw_kv_str(&w, "pixels", pix_source_name(px.source));
        jsonw_key(&w, "path");
        cli_special_path_json(&w, g, &r->paths, m);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);

    jsonw_kv_obj_begin(&w, "strings");
    jsonw_kv_uint(&w, "n_groups", r->n_strings);
    jsonw_kv_uint(&w, "wasted", r->wasted_strings);
    jsonw_kv_arr_begin(&w, "groups");
    for (uint32_t i = 0; i < r->n_strings && i < top; i++) {
        const dupes_group *gr = &r->strings[i];
        char s[1024];
        graph_string_value(g, r->members[gr->first_member], s, sizeof s);
        jsonw_obj_begin(&w);
        jsonw_kv_str(&w, "value", s);
        jsonw_kv_uint(&w, "length", gr->length);
        jsonw_kv_uint(&w, "count", gr->count);
        jsonw_kv_uint(&w, "bytes", gr->bytes);
        jsonw_kv_uint(&w, "wasted", gr->wasted);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    cli_json_end(co, &w);
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
    exports ex = {NULL, 0}, *exp = NULL;
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
        json_report(&co, g, &r, &o, top, exp);
    } else {
        text_report(&co, g, &r, &o, top, exp);
        cli_print_timing(&co, stdout, "\nload", co.load_ms);
        cli_print_timing(&co, stdout, "dupes", ms);
    }
    free(ex.path);
    dupes_free(&r);
    lr_close(h);
    return CLI_EXIT_OK;
}
