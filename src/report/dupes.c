/* SPDX-License-Identifier: Apache-2.0 */
/* dupes.c: wasted memory as `leakray dupes` prints it (report layer), prefix rep_dupes_.
 * Identical primitive arrays with their owners' classes and shortest strong paths, duplicate
 * android.graphics.Bitmap pixels (with the file each group was exported to), large bitmaps
 * and duplicate strings, from a dupes_result (analysis/dupes.h), as text or JSON. Also how a
 * bitmap's pixels are laid out, which the export shares so the listing and the files agree. */
#include "report/dupes.h"

#include "report/fmt.h"
#include "report/png.h"

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
        /* indexed: a scan of the classes per owner was copies x classes (a plugin host's
         * 75,000 statics of 169,000 classes: 13.6 s) */
        class_ix c = graph_class_of_node(g, n);
        if (c < g->n_classes)
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
static void path_text(FILE *out, const graph *g, const paths_result *pr, node_ix n,
                      const char *indent)
{
    static node_ix nodes[PATH_MAX_NODES];
    static edge_ix edges[PATH_MAX_NODES];
    uint32_t k = paths_get(pr, n, nodes, edges, PATH_MAX_NODES);
    char id[REP_FMT_MAX], eb[300];
    if (k == 0) {
        fprintf(out, "%s(no strong path from a GC root)\n", indent);
        return;
    }
    if (k > PATH_MAX_NODES)
        k = PATH_MAX_NODES;
    uint32_t r = paths_root_of(pr, nodes[0]);
    fprintf(out, "%sGC root (%s): %s%s %s\n", indent,
            r < g->n_roots ? graph_root_title(g, g->roots[r].kind) : "?", node_cls(g, nodes[0]),
            g->node_kind[nodes[0]] == GRAPH_KIND_CLASS ? " (class)" : "",
            rep_fmt_id(id, g, graph_node_id(g, nodes[0])));
    for (uint32_t i = 1; i < k; i++) /* a class object says so, as the root line does */
        fprintf(out, "%s  .%s -> %s%s %s\n", indent, edge_txt(g, edges[i - 1], eb, sizeof eb),
                node_cls(g, nodes[i]),
                g->node_kind[nodes[i]] == GRAPH_KIND_CLASS ? " (class)" : "",
                rep_fmt_id(id, g, graph_node_id(g, nodes[i])));
}

/* The path of n as a JSON array of {class, id, edge, root?}; null when unreached. */
static void path_json(jsonw *w, const graph *g, const paths_result *pr, node_ix n)
{
    static node_ix nodes[PATH_MAX_NODES];
    static edge_ix edges[PATH_MAX_NODES];
    uint32_t k = paths_get(pr, n, nodes, edges, PATH_MAX_NODES);
    char id[REP_FMT_MAX], eb[300];
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
        jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, nodes[i])));
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

/* What holds an array no object refers to: a GC root (a Java local, a JNI global) of its
 * own, which "(no referrer)" hid as if it were garbage, or nothing. */
static void no_referrer(const graph *g, const dupes_result *r, node_ix a, char *t, size_t cap)
{
    node_ix nodes[1];
    edge_ix edges[1];
    uint32_t root = paths_get(&r->paths, a, nodes, edges, 1) == 1 ?
                    paths_root_of(&r->paths, a) : GRAPH_NONE;
    if (root < g->n_roots)
        snprintf(t, cap, "(GC root: %s)", graph_root_title(g, g->roots[root].kind));
    else
        snprintf(t, cap, "(no referrer)");
}

static int owner_kinds(const graph *g, const dupes_result *r, const dupes_group *gr,
                       owner_kind *ok, int cap, uint32_t *others)
{
    int n = 0;
    *others = 0;
    for (uint32_t i = 0; i < gr->count; i++) {
        uint32_t m = gr->first_member + i;
        char t[300], eb[260];
        if (r->owner[m] == GRAPH_NONE)
            no_referrer(g, r, r->members[m], t, sizeof t);
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

/* File name extension of a dumped buffer that already is an image file, or NULL. */
const char *rep_dupes_image_ext(const uint8_t *p, uint64_t n)
{
    const char *t = rep_png_image_type(p, n); /* "image/png" ... */
    return !t ? NULL : strcmp(t, "image/jpeg") == 0 ? "jpg" : t + 6;
}

/* How raw pixels are laid out: 4 (ARGB_8888), 2 (RGB_565) or 0 (too few bytes, too big). */
unsigned rep_dupes_raw_bpp(const dupes_pixels *px)
{
    return rep_png_raw_bpp(px, REP_DUPES_MAX_PIXELS);
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
    const char *ext = rep_dupes_image_ext(g->data + px->off, px->len);
    if (px->source == DUPES_PIX_DUMPDATA && ext)
        return ext;
    unsigned bpp = rep_dupes_raw_bpp(px);
    return bpp == 4 ? "raw ARGB_8888" : bpp == 2 ? "raw RGB_565" : "raw (unknown layout)";
}

void rep_dupes_text(FILE *out, const graph *g, const dupes_result *r,
                        const dupes_opts *o, uint64_t top, const rep_dupes_exports *ex)
{
    char a[REP_FMT_MAX], b[REP_FMT_MAX], c[REP_FMT_MAX], t[128], id[REP_FMT_MAX];
    /* Outside JVM dumps a section that cannot apply is left out: a V8 or Ruby heap has no
     * primitive array (typed arrays keep their bytes off the heap), and only Android has
     * android.graphics.Bitmap. --json keeps every key. */
    int java = rep_fmt_runtime(g) == REP_RT_JAVA;
    uint64_t kinds[256];
    graph_kind_census(g, kinds);
    int arrays = java || kinds[GRAPH_KIND_PRIM_ARRAY] || r->n_arrays;
    int bitmaps = java || r->n_bitmaps;
    const char *sep = "";
    if (arrays) {
        fprintf(out, "Duplicate primitive arrays (>= %s bytes, or smaller copies wasting 1 MiB"
                "): %s groups, %s wasted\n", rep_fmt_count(a, o->min_bytes),
                rep_fmt_count(b, r->n_arrays),
                rep_fmt_bytes(c, r->wasted_arrays));
        sep = "\n";
    }
    for (uint32_t i = 0; i < r->n_arrays && i < top; i++) {
        const dupes_group *gr = &r->arrays[i];
        fprintf(out, "  #%u %s x%s: %s each, %s wasted\n", i + 1, array_title(g, gr, t, sizeof t),
                rep_fmt_count(c, gr->count), rep_fmt_count(a, gr->bytes),
                rep_fmt_count(b, gr->wasted));
        owner_kind ok[DUPES_OWNER_KINDS];
        uint32_t others;
        int nk = owner_kinds(g, r, gr, ok, DUPES_OWNER_KINDS, &others);
        fprintf(out, "     owners:");
        for (int k = 0; k < nk; k++)
            fprintf(out, "%s %s x%s", k ? "," : "", ok[k].text, rep_fmt_count(a, ok[k].n));
        if (others)
            fprintf(out, ", %s others", rep_fmt_count(a, others));
        fprintf(out, "\n");
        for (uint32_t k = 0; k < gr->count && k < DUPES_PATHS_TEXT; k++) {
            uint32_t m = gr->first_member + k;
            fprintf(out, "     array %s, owner path:\n",
                    rep_fmt_id(id, g, graph_node_id(g, r->members[m])));
            /* held by no object: the array's own path, a root when one holds it */
            path_text(out, g, &r->paths,
                      r->owner[m] != GRAPH_NONE ? r->owner[m] : r->members[m], "       ");
        }
        if (gr->count > DUPES_PATHS_TEXT)
            fprintf(out, "     ... %s more (--json lists every path)\n",
                    rep_fmt_count(a, gr->count - DUPES_PATHS_TEXT));
    }
    if (r->n_arrays > top)
        fprintf(out, "  ... %s more groups (--top N)\n", rep_fmt_count(a, r->n_arrays - top));

    if (bitmaps) {
        fprintf(out,
                "%sDuplicate bitmaps (android.graphics.Bitmap mBuffer >= %s bytes): %s groups, "
                "%s wasted\n", sep,
                rep_fmt_count(a, o->min_bitmap_bytes), rep_fmt_count(b, r->n_bitmaps),
                rep_fmt_bytes(c, r->wasted_bitmaps));
        sep = "\n";
    }
    for (uint32_t i = 0; i < r->n_bitmaps && i < top; i++) {
        const dupes_group *gr = &r->bitmaps[i];
        fprintf(out, "  #%u %ux%u, buffer %s x%s: %s bytes each, %s wasted\n", i + 1, gr->width,
                gr->height, array_title(g, gr, t, sizeof t), rep_fmt_count(c, gr->count),
                rep_fmt_count(a, gr->bytes), rep_fmt_count(b, gr->wasted));
        if (gr->pix_source == DUPES_PIX_DUMPDATA) {
            dupes_pixels px;
            dupes_bitmap_pixels(g, r->members[gr->first_member], &px);
            fprintf(out, "     pixels: Bitmap.dumpData (native bitmap), %s\n", pix_format(g, &px));
        }
        if (ex && i < ex->n && ex->path[i][0])
            fprintf(out, "     image: %s\n", ex->path[i]);
        for (uint32_t k = 0; k < gr->count && k < DUPES_PATHS_TEXT; k++) {
            node_ix m = r->members[gr->first_member + k];
            fprintf(out, "     bitmap %s, path:\n", rep_fmt_id(id, g, graph_node_id(g, m)));
            path_text(out, g, &r->paths, m, "       ");
        }
        if (gr->count > DUPES_PATHS_TEXT)
            fprintf(out, "     ... %s more (--json lists every path)\n",
                    rep_fmt_count(a, gr->count - DUPES_PATHS_TEXT));
    }

    if (r->n_large) {
        sep = "\n";
        fprintf(out, "\nLarge bitmaps (mWidth x mHeight >= %s pixels): %s\n",
                rep_fmt_count(a, o->large_pixels), rep_fmt_count(b, r->n_large));
        for (uint32_t i = 0; i < r->n_large && i < top; i++) {
            node_ix m = r->large[i];
            dupes_pixels px;
            dupes_bitmap_pixels(g, m, &px);
            fprintf(out, "  #%u %s %ux%u (%s pixels), native %s, pixels: %s\n", i + 1,
                    rep_fmt_id(id, g, graph_node_id(g, m)), px.width, px.height,
                    rep_fmt_count(a, (uint64_t)px.width * px.height),
                    g->node_native && g->node_native[m] ? rep_fmt_bytes(b, g->node_native[m])
                                                       : "unknown",
                    pix_format(g, &px));
            if (i < DUPES_PATHS_TEXT)
                path_text(out, g, &r->paths, m, "       ");
        }
        if (r->n_large > top)
            fprintf(out, "  ... %s more (--top N)\n", rep_fmt_count(a, r->n_large - top));
    }

    fprintf(out, "%sDuplicate strings: %s groups, %s wasted\n", sep,
            rep_fmt_count(a, r->n_strings), rep_fmt_bytes(b, r->wasted_strings));
    for (uint32_t i = 0; i < r->n_strings && i < top; i++) {
        const dupes_group *gr = &r->strings[i];
        char s[96];
        long len = graph_string_value(g, r->members[gr->first_member], s, sizeof s);
        fprintf(out, "  #%u x%s %s wasted: \"", i + 1, rep_fmt_count(b, gr->count),
                rep_fmt_count(a, gr->wasted));
        /* the value's own length: a U+0000 inside is shown escaped, not the end of it */
        rep_fmt_text(out, s, len < 0 ? 0 : (size_t)len < sizeof s - 1 ? (size_t)len : 81, 80);
        fprintf(out, "\"\n");
    }
    if (r->n_strings > top)
        fprintf(out, "  ... %s more groups (--top N)\n", rep_fmt_count(a, r->n_strings - top));
}

static void json_members(jsonw *w, const graph *g, const dupes_result *r, const dupes_group *gr,
                         int arrays)
{
    char id[REP_FMT_MAX], eb[300];
    jsonw_kv_arr_begin(w, "members");
    for (uint32_t k = 0; k < gr->count; k++) {
        uint32_t m = gr->first_member + k;
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, r->members[m])));
        if (arrays) {
            if (r->owner[m] != GRAPH_NONE) {
                jsonw_kv_str(w, "owner_id", rep_fmt_id(id, g, graph_node_id(g, r->owner[m])));
                jsonw_kv_str(w, "owner_class", node_cls(g, r->owner[m]));
                jsonw_kv_str(w, "owner_edge", edge_txt(g, r->owner_edge[m], eb, sizeof eb));
            } else {
                jsonw_kv_null(w, "owner_id");
            }
        }
        jsonw_key(w, "path");
        path_json(w, g, &r->paths, r->owner[m] != GRAPH_NONE ? r->owner[m] : r->members[m]);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void rep_dupes_json(jsonw *w, const graph *g, const dupes_result *r,
                        const dupes_opts *o, uint64_t top, const rep_dupes_exports *ex)
{
    char t[128];
    jsonw_kv_uint(w, "min_bytes", o->min_bytes);
    jsonw_kv_uint(w, "min_bitmap_bytes", o->min_bitmap_bytes);

    jsonw_kv_obj_begin(w, "arrays");
    jsonw_kv_uint(w, "n_groups", r->n_arrays);
    jsonw_kv_uint(w, "wasted", r->wasted_arrays);
    jsonw_kv_arr_begin(w, "groups");
    for (uint32_t i = 0; i < r->n_arrays && i < top; i++) {
        const dupes_group *gr = &r->arrays[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "type", array_title(g, gr, t, sizeof t));
        jsonw_kv_uint(w, "length", gr->length);
        jsonw_kv_uint(w, "count", gr->count);
        jsonw_kv_uint(w, "bytes", gr->bytes);
        jsonw_kv_uint(w, "wasted", gr->wasted);
        json_members(w, g, r, gr, 1);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);

    jsonw_kv_obj_begin(w, "bitmaps");
    jsonw_kv_uint(w, "n_groups", r->n_bitmaps);
    jsonw_kv_uint(w, "wasted", r->wasted_bitmaps);
    jsonw_kv_arr_begin(w, "groups");
    for (uint32_t i = 0; i < r->n_bitmaps && i < top; i++) {
        const dupes_group *gr = &r->bitmaps[i];
        jsonw_obj_begin(w);
        jsonw_kv_uint(w, "width", gr->width);
        jsonw_kv_uint(w, "height", gr->height);
        jsonw_kv_uint(w, "buffer_length", gr->length);
        jsonw_kv_uint(w, "count", gr->count);
        jsonw_kv_uint(w, "bytes", gr->bytes);
        jsonw_kv_uint(w, "wasted", gr->wasted);
        dupes_pixels px;
        dupes_bitmap_pixels(g, r->members[gr->first_member], &px);
        jsonw_kv_str(w, "pixels", pix_source_name(gr->pix_source));
        jsonw_kv_str(w, "pixel_format", pix_format(g, &px));
        if (ex && i < ex->n && ex->path[i][0])
            jsonw_kv_str(w, "image", ex->path[i]);
        else if (ex)
            jsonw_kv_null(w, "image");
        json_members(w, g, r, gr, 0);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);

    jsonw_kv_obj_begin(w, "large_bitmaps");
    jsonw_kv_uint(w, "min_pixels", o->large_pixels);
    jsonw_kv_uint(w, "count", r->n_large);
    jsonw_kv_arr_begin(w, "bitmaps");
    for (uint32_t i = 0; i < r->n_large && i < top; i++) {
        node_ix m = r->large[i];
        char id[REP_FMT_MAX];
        dupes_pixels px;
        dupes_bitmap_pixels(g, m, &px);
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, m)));
        jsonw_kv_uint(w, "width", px.width);
        jsonw_kv_uint(w, "height", px.height);
        jsonw_kv_uint(w, "pixel_count", (uint64_t)px.width * px.height);
        if (g->node_native && g->node_native[m])
            jsonw_kv_uint(w, "native", g->node_native[m]);
        else
            jsonw_kv_null(w, "native");
        jsonw_kv_str(w, "pixels", pix_source_name(px.source));
        jsonw_key(w, "path");
        path_json(w, g, &r->paths, m);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);

    jsonw_kv_obj_begin(w, "strings");
    jsonw_kv_uint(w, "n_groups", r->n_strings);
    jsonw_kv_uint(w, "wasted", r->wasted_strings);
    jsonw_kv_arr_begin(w, "groups");
    for (uint32_t i = 0; i < r->n_strings && i < top; i++) {
        const dupes_group *gr = &r->strings[i];
        char s[1024];
        long len = graph_string_value(g, r->members[gr->first_member], s, sizeof s);
        size_t n = len < 0 ? 0 : rep_fmt_utf8_prefix(s, (size_t)len, sizeof s - 1);
        jsonw_obj_begin(w);
        jsonw_key(w, "value");
        jsonw_strn(w, s, n); /* U+0000 inside escaped, not the end */
        if (len >= 0 && n < (size_t)len) {
            jsonw_kv_uint(w, "value_bytes", (uint64_t)len);
            jsonw_kv_bool(w, "value_truncated", 1);
        }
        jsonw_kv_uint(w, "length", gr->length);
        jsonw_kv_uint(w, "count", gr->count);
        jsonw_kv_uint(w, "bytes", gr->bytes);
        jsonw_kv_uint(w, "wasted", gr->wasted);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}


/* ---- duplicate strings of V8-style snapshots ---- */

#define JS_TEXT_VALUE 120 /* bytes of a value shown per text line */
#define JS_TEXT_IDS 10    /* ids shown per group in text, as memlab */

void rep_dupes_js_text(FILE *out, const graph *g, const jsdup_result *r)
{
    char a[REP_FMT_MAX], b[REP_FMT_MAX], id[REP_FMT_MAX];
    char v[JS_TEXT_VALUE + 8];
    fprintf(out, "\nDuplicate JS strings (memlab's string analysis): %s strings, %s values",
            rep_fmt_count(a, r->n_members), rep_fmt_count(b, r->n_groups));
    fprintf(out, ", %s left out (dominated by code)\n", rep_fmt_count(a, r->n_code_dominated));
    for (uint32_t i = 0; i < r->n_patterns; i++) {
        const jsdup_pattern *p = &r->patterns[i];
        fprintf(out, "  %s: count %s (%.2f%% duplicated), retained %s (%.2f%% duplicated)\n",
                jsdup_pattern_name(p->id), rep_fmt_count(a, p->n),
                p->n ? 100.0 * (double)p->dup_n / (double)p->n : 0.0,
                rep_fmt_human(b, p->size),
                p->size ? 100.0 * p->dup_size / (double)p->size : 0.0);
    }
    for (int by = 0; by < 2; by++) {
        const uint32_t *top = by ? r->top_size : r->top_count;
        uint32_t n = by ? r->n_top_size : r->n_top_count;
        fprintf(out, "  Top duplicated strings by %s:\n", by ? "retained size" : "count");
        if (!n)
            fprintf(out, "    (none)\n");
        for (uint32_t i = 0; i < n; i++) {
            const jsdup_group *gr = &r->groups[top[i]];
            size_t len = jsdup_value(g, r->members[gr->first_member], v, sizeof v);
            fprintf(out, "    #%u x%s, %s: \"", i + 1, rep_fmt_count(a, gr->n),
                    rep_fmt_human(b, gr->size));
            rep_fmt_text(out, v, len, JS_TEXT_VALUE);
            fprintf(out, "\"\n      ids:");
            for (uint32_t k = 0; k < gr->n && k < JS_TEXT_IDS; k++)
                fprintf(out, " %s",
                        rep_fmt_id(id, g, graph_node_id(g, r->members[gr->first_member + k])));
            fprintf(out, "%s\n", gr->n > JS_TEXT_IDS ? " ..." : "");
        }
    }
    if (r->n_unverified)
        fprintf(out, "  (%s strings grouped on hash and length past the compare cap)\n",
                rep_fmt_count(a, r->n_unverified));
}

static void js_group_json(jsonw *w, const graph *g, const jsdup_result *r, uint32_t gi,
                          char *v)
{
    const jsdup_group *gr = &r->groups[gi];
    size_t len = jsdup_value(g, r->members[gr->first_member], v, REP_DUPES_JS_VALUE + 1);
    jsonw_obj_begin(w);
    jsonw_key(w, "value");
    jsonw_strn(w, v, len);
    jsonw_kv_uint(w, "value_bytes", gr->bytes);
    jsonw_kv_bool(w, "value_truncated", len < gr->bytes);
    jsonw_kv_uint(w, "count", gr->n);
    jsonw_kv_uint(w, "size", gr->size);
    jsonw_kv_arr_begin(w, "ids");
    for (uint32_t k = 0; k < gr->n && k < REP_DUPES_JS_IDS; k++)
        jsonw_uint(w, graph_node_id(g, r->members[gr->first_member + k]));
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

void rep_dupes_js_json_head(jsonw *w, const jsdup_result *r)
{
    jsonw_kv_obj_begin(w, "js_strings");
    jsonw_kv_uint(w, "strings", r->n_members);
    jsonw_kv_uint(w, "values", r->n_groups);
    jsonw_kv_uint(w, "code_dominated", r->n_code_dominated);
    jsonw_kv_uint(w, "unverified", r->n_unverified);
    jsonw_kv_arr_begin(w, "patterns");
    for (uint32_t i = 0; i < r->n_patterns; i++) {
        const jsdup_pattern *p = &r->patterns[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", jsdup_pattern_name(p->id));
        jsonw_kv_uint(w, "count", p->n);
        jsonw_kv_uint(w, "dup_count", p->dup_n);
        jsonw_kv_uint(w, "size", p->size);
        jsonw_key(w, "dup_size");
        jsonw_double(w, p->dup_size);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void rep_dupes_js_json(jsonw *w, const graph *g, const jsdup_result *r)
{
    char *v = malloc(REP_DUPES_JS_VALUE + 1);
    rep_dupes_js_json_head(w, r);
    for (int by = 0; by < 2; by++) {
        const uint32_t *top = by ? r->top_size : r->top_count;
        uint32_t n = by ? r->n_top_size : r->n_top_count;
        jsonw_kv_arr_begin(w, by ? "top_size" : "top_count");
        for (uint32_t i = 0; i < n && v; i++)
            js_group_json(w, g, r, top[i], v);
        jsonw_arr_end(w);
    }
    jsonw_obj_end(w);
    free(v);
}
