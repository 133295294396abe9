/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_dupes.c: `leakray dupes FILE [--min-bytes N] [--min-bitmap N] [--top N] [--json]`
 * (cli). Runs dupes_find (src/analysis/dupes.c) and prints three sections: identical
 * primitive arrays with their owners' classes and shortest strong paths, duplicate
 * android.graphics.Bitmap buffers (Matrix) and duplicate strings (MAT). Also defines
 * cli_special_path / cli_special_path_json, the path rendering shared with cmd_cycles.c. */
#include "cli.h"
#include "analysis/dupes.h"

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
    snprintf(buf, cap, "%s%s", GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_STATIC ? "static " : "",
             t);
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
    uint32_t r = pr->root_of[nodes[0]];
    fprintf(out, "%sGC root (%s): %s%s %s\n", indent,
            r < g->n_roots ? graph_root_kind_name(g->roots[r].kind) : "?", node_cls(g, nodes[0]),
            g->node_kind[nodes[0]] == GRAPH_KIND_CLASS ? " (class)" : "",
            cli_fmt_id(id, g, g->node_id[nodes[0]]));
    for (uint32_t i = 1; i < k; i++)
        fprintf(out, "%s  .%s -> %s %s\n", indent, edge_txt(g, edges[i - 1], eb, sizeof eb),
                node_cls(g, nodes[i]), cli_fmt_id(id, g, g->node_id[nodes[i]]));
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
            uint32_t r = pr->root_of[nodes[0]];
            jsonw_kv_str(w, "root", r < g->n_roots ? graph_root_kind_name(g->roots[r].kind) : "");
        } else {
            jsonw_kv_str(w, "edge", edge_txt(g, edges[i - 1], eb, sizeof eb));
        }
        jsonw_kv_str(w, "class", node_cls(g, nodes[i]));
        jsonw_kv_str(w, "id", cli_fmt_id(id, g, g->node_id[nodes[i]]));
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

static void text_report(const cli_common *co, const graph *g, const dupes_result *r,
                        const dupes_opts *o, uint64_t top)
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
            printf("     array %s, owner path:\n", cli_fmt_id(id, g, g->node_id[r->members[m]]));
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
        for (uint32_t k = 0; k < gr->count && k < DUPES_PATHS_TEXT; k++) {
            node_ix m = r->members[gr->first_member + k];
            printf("     bitmap %s, path:\n", cli_fmt_id(id, g, g->node_id[m]));
            cli_special_path(stdout, g, &r->paths, m, "       ");
        }
        if (gr->count > DUPES_PATHS_TEXT)
            printf("     ... %u more (--json lists every path)\n", gr->count - DUPES_PATHS_TEXT);
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
        jsonw_kv_str(w, "id", cli_fmt_id(id, g, g->node_id[r->members[m]]));
        if (arrays) {
            if (r->owner[m] != GRAPH_NONE) {
                jsonw_kv_str(w, "owner_id", cli_fmt_id(id, g, g->node_id[r->owner[m]]));
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
                        const dupes_opts *o, uint64_t top)
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
        json_members(&w, g, r, gr, 0);
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
    const cli_optdef opts[] = {
        {"--min-bytes", CLI_OPT_SIZE, &min_bytes, "N",
         "smallest array content grouped (default 1024)", NULL},
        {"--min-bitmap", CLI_OPT_SIZE, &min_bmp, "N",
         "smallest bitmap buffer grouped (default 5000, as Matrix)", NULL},
        {"--top", CLI_OPT_UINT, &top, "N", "groups shown per section (default 20)", NULL},
        {0}};
    const cli_spec spec = {
        "dupes", "FILE", "identical primitive arrays, bitmaps and strings (wasted memory)", opts,
        1, 1,
        "Arrays are grouped by type, length and exact bytes; each copy's owner is its first\n"
        "referrer, with the shortest strong path from a GC root. Bitmaps: android.graphics.\n"
        "Bitmap instances (pre-8.0 layout, mBuffer) with identical pixels. Strings: equal\n"
        "java.lang.String contents. wasted = (count - 1) x bytes of one copy."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    lr_heap *h;
    if ((rc = cli_open(&co, co.pos[0], 0, &h)) != 0)
        return rc;
    graph *g = lr_heap_graph(h);
    dupes_opts o = {min_bytes, min_bmp};
    dupes_result r;
    lr_error err = {0};
    double t0 = cli_now_ms();
    if (dupes_find(g, &o, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        lr_close(h);
        return rc;
    }
    double ms = cli_now_ms() - t0;
    if (co.json) {
        json_report(&co, g, &r, &o, top);
    } else {
        text_report(&co, g, &r, &o, top);
        cli_print_timing(&co, stdout, "\nload", co.load_ms);
        cli_print_timing(&co, stdout, "dupes", ms);
    }
    dupes_free(&r);
    lr_close(h);
    return CLI_EXIT_OK;
}
