/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_histo.c: `leakray histo FILE` (cli), prefix histo_. Instances and shallow bytes per
 * class, laid out like `jmap -histo`, from a load without edges (the fast path). One pass
 * over the nodes sums into a row per class (plus one row for nodes without a class); rows
 * are sorted by the chosen key with ties broken by name, then class index, so the output is
 * deterministic. A retained-size column is prepared for (histo_row.retained, printed when
 * histo_ctx.retained is set): a caller with a dominator tree fills ctx.retained with the
 * per-node retained sizes before histo_collect, and needs a load with edges for it. */
#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "cli.h"
#include "cli_filter.h"
#include "format/hprof.h"
#include "format/v8.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum histo_sort { HISTO_BY_SHALLOW, HISTO_BY_COUNT, HISTO_BY_NAME, HISTO_BY_RETAINED };

typedef struct histo_row {
    class_ix cls;      /* class index, or GRAPH_NONE for the two synthetic rows */
    const char *name;  /* display name (graph string table; lives as long as the graph) */
    uint64_t count;    /* instances */
    uint64_t shallow;  /* summed shallow bytes */
    uint64_t retained; /* summed retained bytes (only when histo_ctx.retained is set) */
} histo_row;

typedef struct histo_ctx {
    const graph *g;
    const uint64_t *retained; /* per-node retained sizes (dom_tree.retained), or NULL */
    int heap;                 /* heap index to keep, or -1 for all */
    enum histo_sort sort;
    histo_row *rows;          /* n_rows rows with count > 0, sorted */
    uint32_t n_rows;
    histo_row total;          /* sums over every kept node */
    uint64_t heap_bytes;      /* reachable bytes, the base of the % column (with retained) */
} histo_ctx;

#define HISTO_NO_CLASS_NAME "<no class>"
#define HISTO_CLASS_OBJECTS_NAME "<class objects>"

static int cmp_name(const histo_row *a, const histo_row *b)
{
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->cls < b->cls ? -1 : a->cls > b->cls;
}

/* qsort has no context argument; the key lives here for the duration of one sort. */
static enum histo_sort sort_key;

static int cmp_rows(const void *pa, const void *pb)
{
    const histo_row *a = pa, *b = pb;
    uint64_t ka = 0, kb = 0;
    switch (sort_key) {
    case HISTO_BY_SHALLOW: ka = a->shallow; kb = b->shallow; break;
    case HISTO_BY_COUNT: ka = a->count; kb = b->count; break;
    case HISTO_BY_RETAINED: ka = a->retained; kb = b->retained; break;
    case HISTO_BY_NAME: return cmp_name(a, b);
    }
    if (ka != kb)
        return ka > kb ? -1 : 1; /* descending */
    return cmp_name(a, b);
}

static void histo_rank(histo_ctx *h, histo_row *all, uint32_t nc);

/* --class/--package and --csv, set once by cmd_histo (rows are named only when ranked). */
static const cli_filter *histo_filter;
static int histo_csv;

/* Sums every node into its class row. O(N + C log C). Returns LR_OK or LR_ERR_NOMEM. */
static lr_status histo_collect(histo_ctx *h, lr_error *err)
{
    const graph *g = h->g;
    /* Row n_classes collects class objects the reader left without a class (HPROF: jmap
     * files them under java.lang.Class, VisualVM leaves them out; a row of their own keeps
     * every real class row equal to VisualVM's), row n_classes + 1 any other classless
     * node (or an out-of-range class index). */
    histo_row *all = err_calloc((size_t)g->n_classes + 2, sizeof *all);
    if (!all)
        return LR_FAIL(err, LR_ERR_NOMEM, "histo: out of memory for %u classes", g->n_classes);
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        if (h->heap >= 0 && (!g->node_heap || g->node_heap[n] != h->heap))
            continue;
        class_ix c = g->node_class[n];
        if (c >= g->n_classes)
            c = g->node_kind[n] == GRAPH_KIND_CLASS ? g->n_classes : g->n_classes + 1;
        histo_row *r = &all[c];
        r->count++;
        r->shallow += graph_node_size(g, n);
        if (h->retained)
            r->retained += h->retained[n];
    }
    for (uint32_t c = 0; c < g->n_classes; c++)
        all[c].name = graph_str(g, g->classes[c].name);
    histo_rank(h, all, g->n_classes);
    return LR_OK;
}

/* Names the two synthetic rows (all[nc], all[nc + 1]), drops empty rows, sums the total and
 * sorts; all[c].name is set for c < nc. Takes all over as h->rows. */
static void histo_rank(histo_ctx *h, histo_row *all, uint32_t nc)
{
    memset(&h->total, 0, sizeof h->total);
    uint32_t k = 0;
    for (uint32_t c = 0; c <= nc + 1; c++) {
        if (!all[c].count)
            continue;
        all[c].cls = c < nc ? c : GRAPH_NONE;
        if (c >= nc)
            all[c].name = c == nc ? HISTO_CLASS_OBJECTS_NAME : HISTO_NO_CLASS_NAME;
        if (!all[c].name || !all[c].name[0])
            all[c].name = "<unnamed class>";
        if (histo_filter && !cli_filter_match(histo_filter, all[c].name))
            continue;
        h->total.count += all[c].count;
        h->total.shallow += all[c].shallow;
        h->total.retained += all[c].retained;
        all[k++] = all[c];
    }
    sort_key = h->sort;
    qsort(all, k, sizeof *all, cmp_rows);
    h->rows = all;
    h->n_rows = k;
}

/* --csv: one header line, then num,count,shallow[,retained],class per row. */
static void histo_print_csv(const histo_ctx *h, uint64_t top)
{
    int ret = h->retained != NULL;
    printf("num,count,shallow%s,class\n", ret ? ",retained" : "");
    uint32_t n = top && top < h->n_rows ? (uint32_t)top : h->n_rows;
    for (uint32_t i = 0; i < n; i++) {
        const histo_row *r = &h->rows[i];
        printf("%" PRIu32 ",%" PRIu64 ",%" PRIu64, i + 1, r->count, r->shallow);
        if (ret)
            printf(",%" PRIu64, r->retained);
        putchar(',');
        cli_filter_csv_name(r->name);
        putchar('\n');
    }
}

/* ---- the text table, one layout for HPROF and V8 ----
 * Columns: count, shallow, then with --retained retained and its share of the reachable heap
 * (and DevTools' distance on V8). Numbers carry thousands separators. The Total row sums
 * count and shallow only: classes' retained sizes overlap (a class's instances may hold
 * another class's), so their sum means nothing and is not printed. */

static void histo_head(int ret, int dist)
{
    char head[160];
    int n = snprintf(head, sizeof head, " num        count        shallow%s%s  class name",
                     ret ? "       retained  % heap" : "", ret && dist ? "  distance" : "");
    printf("%s\n", head);
    for (int i = 0; i < n; i++)
        putchar('-');
    putchar('\n');
}

static void histo_line(uint32_t num, uint64_t count, uint64_t shallow, int ret,
                       uint64_t retained, uint64_t heap, int dist, int32_t distance,
                       const char *name)
{
    char c[CLI_FMT_MAX], s[CLI_FMT_MAX], r[CLI_FMT_MAX], p[CLI_FMT_MAX], d[CLI_FMT_MAX];
    printf("%4" PRIu32 ": %12s %14s", num, cli_fmt_count(c, count), cli_fmt_count(s, shallow));
    if (ret)
        printf(" %14s %7s", cli_fmt_count(r, retained), cli_fmt_pct(p, retained, heap));
    if (ret && dist)
        printf(" %9s", cli_fmt_distance(d, distance));
    printf("  %s\n", name);
}

static void histo_total(uint64_t count, uint64_t shallow, int ret, uint64_t heap, uint32_t n,
                        uint32_t n_rows)
{
    char c[CLI_FMT_MAX], s[CLI_FMT_MAX];
    printf("Total %12s %14s  (%" PRIu32 " classes)\n", cli_fmt_count(c, count),
           cli_fmt_count(s, shallow), n_rows);
    if (n < n_rows)
        printf("(%" PRIu32 " of %" PRIu32 " classes shown; the total covers all)\n", n, n_rows);
    if (ret)
        printf("retained: what a class's instances keep alive together, no byte counted twice "
               "within a class;\nclasses overlap, so the column does not add up. %% heap: of "
               "%s reachable.\n",
               cli_fmt_bytes(c, heap));
}

static void histo_print_text(const histo_ctx *h, uint64_t top)
{
    int ret = h->retained != NULL;
    if (histo_csv) {
        histo_print_csv(h, top);
        return;
    }
    histo_head(ret, 0);
    uint32_t n = top && top < h->n_rows ? (uint32_t)top : h->n_rows;
    for (uint32_t i = 0; i < n; i++) {
        const histo_row *r = &h->rows[i];
        histo_line(i + 1, r->count, r->shallow, ret, r->retained, h->heap_bytes, 0, 0, r->name);
    }
    histo_total(h->total.count, h->total.shallow, ret, h->heap_bytes, n, h->n_rows);
}

static void histo_print_json(const cli_common *co, const histo_ctx *h, uint64_t top,
                             const char *heap, const char *sort)
{
    jsonw w;
    int ret = h->retained != NULL;
    cli_json_begin(&w);
    jsonw_kv_str(&w, "sort", sort);
    jsonw_kv_str(&w, "heap", heap);
    jsonw_kv_arr_begin(&w, "classes");
    uint32_t n = top && top < h->n_rows ? (uint32_t)top : h->n_rows;
    for (uint32_t i = 0; i < n; i++) {
        const histo_row *r = &h->rows[i];
        jsonw_obj_begin(&w);
        jsonw_kv_str(&w, "name", r->name);
        jsonw_kv_uint(&w, "count", r->count);
        jsonw_kv_uint(&w, "shallow", r->shallow);
        if (ret)
            jsonw_kv_uint(&w, "retained", r->retained);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_kv_obj_begin(&w, "total");
    jsonw_kv_uint(&w, "classes", h->n_rows);
    jsonw_kv_uint(&w, "count", h->total.count);
    jsonw_kv_uint(&w, "shallow", h->total.shallow);
    if (ret)
        jsonw_kv_uint(&w, "retained", h->total.retained);
    jsonw_obj_end(&w);
    cli_json_end(co, &w);
}

/* ---- V8/Node/ArkTS: DevTools' Summary view (src/analysis/devtools.h) ----
 * One row per DevTools class key (shadowed keys dropped, as DevTools' map keeps the last):
 * instances with a nonzero shallow size, their smallest distance, shallow bytes and, with
 * --retained, the retained bytes of instances no same-class dominator already counts. */

static const graph *histo_dt_g;
static const devtools_result *histo_dt_r;

static int histo_dt_cmp(const void *pa, const void *pb)
{
    const devtools_class *a = &histo_dt_r->classes[*(const uint32_t *)pa];
    const devtools_class *b = &histo_dt_r->classes[*(const uint32_t *)pb];
    uint64_t ka = 0, kb = 0;
    switch (sort_key) {
    case HISTO_BY_SHALLOW: ka = a->self; kb = b->self; break;
    case HISTO_BY_COUNT: ka = a->count; kb = b->count; break;
    case HISTO_BY_RETAINED: ka = a->retained; kb = b->retained; break;
    case HISTO_BY_NAME: break;
    }
    if (ka != kb)
        return ka > kb ? -1 : 1;
    const graph *g = histo_dt_g;
    int c = strcmp(graph_str(g, g->classes[a->cls].name), graph_str(g, g->classes[b->cls].name));
    if (c)
        return c;
    c = strcmp(graph_str(g, a->key), graph_str(g, b->key));
    if (c)
        return c;
    return a->cls < b->cls ? -1 : a->cls > b->cls;
}

/* DevTools renames every detached DOM node "Detached ...", so a class is detached or not as
 * a whole; cls_det[c] says which (NULL when the graph has no DOM state). */
static uint8_t *histo_detached_classes(const graph *g)
{
    if (!g->node_dom)
        return NULL;
    uint8_t *d = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    for (node_ix v = 0; d && v < g->n_nodes; v++)
        if (graph_node_dom(g, v) == GRAPH_DOM_DETACHED && g->node_class[v] < g->n_classes)
            d[g->node_class[v]] = 1;
    return d;
}

static int histo_devtools(const cli_common *co, const graph *g, enum histo_sort sort,
                          const char *sort_name, uint64_t top, int ret, int detached_only)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    devtools_result r;
    double t0 = cli_now_ms();
    if (devtools_build(g, v8_class_keys(g), &r, &err) != LR_OK)
        return cli_error(co, &err);
    double dt_ms = cli_now_ms() - t0;
    uint32_t *ix = err_mallocarray(r.n_classes ? r.n_classes : 1, sizeof *ix);
    if (!ix) {
        devtools_free(&r);
        return cli_fail(co, LR_ERR_NOMEM, "histo: out of memory for %u classes", r.n_classes);
    }
    uint8_t *cls_det = histo_detached_classes(g);
    uint32_t k = 0;
    uint64_t t_count = 0, t_self = 0, t_ret = 0, d_count = 0, d_self = 0;
    for (uint32_t i = 0; i < r.n_classes; i++) {
        if (r.classes[i].shadowed ||
            (histo_filter &&
             !cli_filter_match(histo_filter, graph_str(g, g->classes[r.classes[i].cls].name))))
            continue;
        int det = cls_det && cls_det[r.classes[i].cls];
        if (det) {
            d_count += r.classes[i].count;
            d_self += r.classes[i].self;
        }
        if (detached_only && !det)
            continue;
        ix[k++] = i;
        t_count += r.classes[i].count;
        t_self += r.classes[i].self;
        t_ret += r.classes[i].retained;
    }
    sort_key = sort;
    histo_dt_g = g;
    histo_dt_r = &r;
    qsort(ix, k, sizeof *ix, histo_dt_cmp);
    uint32_t n = top && top < k ? (uint32_t)top : k;
    uint64_t heap_total = r.total + v8_extra_native_bytes(g);
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "sort", sort_name);
        jsonw_kv_null(&w, "heap");
        jsonw_kv_str(&w, "model", "devtools");
        jsonw_kv_arr_begin(&w, "classes");
        for (uint32_t i = 0; i < n; i++) {
            const devtools_class *c = &r.classes[ix[i]];
            jsonw_obj_begin(&w);
            jsonw_kv_str(&w, "name", graph_str(g, g->classes[c->cls].name));
            jsonw_kv_str(&w, "key", graph_str(g, c->key));
            jsonw_kv_uint(&w, "count", c->count);
            jsonw_kv_int(&w, "distance", c->distance);
            jsonw_kv_uint(&w, "shallow", c->self);
            if (ret)
                jsonw_kv_uint(&w, "retained", c->retained);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        jsonw_kv_obj_begin(&w, "total");
        jsonw_kv_uint(&w, "classes", k);
        jsonw_kv_uint(&w, "count", t_count);
        jsonw_kv_uint(&w, "shallow", t_self);
        if (ret)
            jsonw_kv_uint(&w, "retained", t_ret);
        jsonw_kv_uint(&w, "heap_total", heap_total);
        jsonw_kv_uint(&w, "unreachable", r.n_unreachable);
        jsonw_kv_uint(&w, "detached_count", d_count);
        jsonw_kv_uint(&w, "detached_shallow", d_self);
        jsonw_obj_end(&w);
        cli_json_end_phase(co, &w, "devtools_ms", dt_ms);
    } else if (histo_csv) {
        printf("num,count,shallow%s,class\n", ret ? ",retained,distance" : "");
        for (uint32_t i = 0; i < n; i++) {
            const devtools_class *c = &r.classes[ix[i]];
            printf("%" PRIu32 ",%" PRIu32 ",%" PRIu64, i + 1, c->count, c->self);
            if (ret)
                printf(",%" PRIu64 ",%" PRId32, c->retained, c->distance);
            putchar(',');
            cli_filter_csv_name(graph_str(g, g->classes[c->cls].name));
            putchar('\n');
        }
    } else {
        histo_head(ret, 1);
        for (uint32_t i = 0; i < n; i++) {
            const devtools_class *c = &r.classes[ix[i]];
            histo_line(i + 1, c->count, c->self, ret, c->retained, r.total, 1, c->distance,
                       graph_str(g, g->classes[c->cls].name));
        }
        histo_total(t_count, t_self, ret, r.total, n, k);
        char b1[CLI_FMT_MAX];
        printf("DevTools Summary: objects of nonzero size per class key; heap total %s\n",
               cli_fmt_bytes(b1, heap_total));
        if (cls_det)
            printf("detached DOM: %s objects, %s%s\n",
                   cli_fmt_count((char[CLI_FMT_MAX]){0}, d_count), cli_fmt_bytes(b1, d_self),
                   detached_only ? "" : " (--detached lists them)");
        cli_print_timing(co, stdout, "load time", co->load_ms);
        cli_print_timing(co, stdout, "devtools", dt_ms);
    }
    free(ix);
    free(cls_det);
    devtools_free(&r);
    return CLI_EXIT_OK;
}

/* Heap index by name, or -1; lists the heaps on failure. */
static int find_heap(const graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_heaps && i < GRAPH_MAX_HEAPS; i++)
        if (strcmp(graph_str(g, g->heap_names[i]), name) == 0)
            return (int)i;
    return -1;
}

/* HPROF without --retained and --heap: the streaming histogram (format/hprof.h) gives the
 * rows the graph would, in one walk without building it. Whatever it declines or fails on
 * (other formats, damaged input, sizes near 4 GiB) is left to the graph load, so errors are
 * printed by one code path. Returns an exit code, or -1 for "load the graph". */
static int histo_stream(cli_common *co, enum histo_sort sort, const char *sort_name,
                        uint64_t top)
{
    double t0 = cli_now_ms();
    mfile m;
    lr_error err = {.offset = LR_NO_OFFSET};
    if (mfile_open(&m, co->pos[0], co->max_inflate, &err) != LR_OK)
        return -1;
    hprof_histo hh;
    if (!hprof_sniff(m.data, m.len) ||
        hprof_histo_build(&m, co->pos[0], (int)co->dump_index, 0, &hh, &err) != LR_OK) {
        mfile_close(&m);
        return -1;
    }
    co->load_ms = cli_now_ms() - t0;
    co->load_ms_total += co->load_ms;
    int rc = CLI_EXIT_OK;
    histo_ctx h = {.heap = -1, .sort = sort};
    histo_row *all = err_calloc((size_t)hh.n_classes + 2, sizeof *all);
    if (!all) {
        rc = cli_fail(co, LR_ERR_NOMEM, "histo: out of memory for %u classes", hh.n_classes);
    } else {
        for (uint32_t c = 0; c < hh.n_classes + 2; c++) {
            all[c].name = hh.rows[c].name;
            all[c].count = hh.rows[c].count;
            all[c].shallow = hh.rows[c].bytes;
        }
        histo_rank(&h, all, hh.n_classes);
        if (co->json) {
            histo_print_json(co, &h, top, NULL, sort_name);
        } else {
            histo_print_text(&h, top);
            if (!histo_csv)
                cli_print_timing(co, stdout, "load time", co->load_ms);
        }
        free(h.rows);
    }
    hprof_histo_free(&hh);
    mfile_close(&m);
    return rc;
}

int cmd_histo(int argc, char **argv)
{
    uint64_t top = 0;
    const char *sort = NULL;
    const char *heap = NULL;
    int want_retained = 0, detached = 0;
    cli_filter flt = {0};
    const cli_optdef opts[] = {
        CLI_FILTER_OPTS(&flt),
        {"--csv", CLI_OPT_FLAG, &histo_csv, NULL, "comma-separated values", NULL},
        {"--retained", CLI_OPT_FLAG, &want_retained, NULL,
         "add retained bytes per class, no byte counted twice (loads references)", NULL},
        {"--top", CLI_OPT_UINT, &top, "N", "show only the first N rows (the total covers all)",
         NULL},
        {"--sort", CLI_OPT_STR, &sort, "KEY",
         "row order: shallow (default; V8: retained), count, name or retained",
         "shallow|count|name|retained"},
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "V8 browser snapshots: only detached DOM classes", NULL},
        {"--heap", CLI_OPT_STR, &heap, "NAME", "only objects of this heap (Android: app, "
                                               "zygote, image)", NULL},
        {0},
    };
    const cli_spec spec = {
        "histo", "FILE", "Instances and shallow bytes per class, like jmap -histo.", opts, 1, 1,
        "Columns: rank, instances, shallow bytes, class name; the Total line sums every class.\n"
        "Ties are ordered by class name. Example: leakray histo --top 20 app.hprof\n"
        "V8/Node/ArkTS snapshots: DevTools' Summary (per class key, objects of nonzero size,\n"
        "retained bytes and distance, sorted by retained size), docs/formats/v8.md."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    histo_filter = cli_filter_active(&flt) ? &flt : NULL;

    lr_heap *lh;
    int sort_given = sort != NULL;
    if (!sort)
        sort = "shallow";
    if (!want_retained && !heap && !detached && !co.mapping && strcmp(sort, "retained") != 0) {
        enum histo_sort hs = strcmp(sort, "count") == 0  ? HISTO_BY_COUNT
                             : strcmp(sort, "name") == 0 ? HISTO_BY_NAME
                                                         : HISTO_BY_SHALLOW;
        if ((rc = histo_stream(&co, hs, sort, top)) >= 0)
            return rc;
    }
    if ((rc = cli_open(&co, co.pos[0], want_retained ? 0 : CLI_OPEN_NO_EDGES, &lh)) != 0)
        return rc;
    const graph *g = lr_heap_graph(lh);
    if (v8_class_keys(g) && g->synthetic_root != GRAPH_NONE && !heap) {
        /* DevTools' Summary shows retained sizes and sorts by them. */
        if (!sort_given)
            sort = "retained";
        want_retained = 1;
        enum histo_sort hs = strcmp(sort, "retained") == 0 ? HISTO_BY_RETAINED
                             : strcmp(sort, "count") == 0  ? HISTO_BY_COUNT
                             : strcmp(sort, "name") == 0   ? HISTO_BY_NAME
                                                           : HISTO_BY_SHALLOW;
        rc = histo_devtools(&co, g, hs, sort, top, want_retained, detached);
        lr_close(lh);
        return rc;
    }
    if (detached) {
        lr_close(lh);
        return cli_usage_error(&co, "--detached needs a V8 snapshot of a browser page");
    }
    if (strcmp(sort, "retained") == 0 && !want_retained) {
        lr_close(lh);
        return cli_usage_error(&co, "--sort retained needs --retained");
    }
    /* --retained: an instance's retained size counts for its class only when no dominator
     * ancestor has the same class (dom_class_top); VisualVM's model for HotSpot dumps. */
    uint64_t *class_top = NULL, heap_bytes = 0;
    if (want_retained) {
        lr_error derr = {.offset = LR_NO_OFFSET};
        dom_opts dopts = {0};
        dom_tree dt;
        if (g->size_model == GRAPH_SIZES_VISUALVM)
            dom_opts_visualvm(&dopts);
        class_top = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *class_top);
        if (!class_top)
            LR_FAIL(&derr, LR_ERR_NOMEM, "histo: out of memory for %u nodes", g->n_nodes);
        else if (dom_build_ex(g, &dopts, &dt, &derr) == LR_OK) {
            dom_class_top(g, &dt, class_top, &derr);
            heap_bytes = dt.total_reachable;
            dom_free(&dt);
        }
        if (derr.code != LR_OK) {
            free(class_top);
            rc = cli_error(&co, &derr);
            lr_close(lh);
            return rc;
        }
    }

    histo_ctx h = {.g = g, .heap = -1, .retained = class_top, .heap_bytes = heap_bytes};
    h.sort = strcmp(sort, "retained") == 0 ? HISTO_BY_RETAINED
             : strcmp(sort, "count") == 0 ? HISTO_BY_COUNT
             : strcmp(sort, "name") == 0 ? HISTO_BY_NAME
                                         : HISTO_BY_SHALLOW;
    if (heap) {
        h.heap = find_heap(g, heap);
        if (h.heap < 0) {
            char names[256] = "";
            size_t used = 0;
            for (uint32_t i = 0; i < g->n_heaps && i < GRAPH_MAX_HEAPS; i++) {
                int k = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 graph_str(g, g->heap_names[i]));
                if (k < 0 || (size_t)k >= sizeof names - used)
                    break;
                used += (size_t)k;
            }
            rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no heap named '%s' (heaps: %s)", co.pos[0],
                          heap, used ? names : "none, the dump has no heap tags");
            free(class_top);
            lr_close(lh);
            return rc;
        }
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    if (histo_collect(&h, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        free(class_top);
        lr_close(lh);
        return rc;
    }
    if (co.json) {
        histo_print_json(&co, &h, top, heap, sort);
    } else {
        histo_print_text(&h, top);
        if (!histo_csv)
            cli_print_timing(&co, stdout, "load time", co.load_ms);
    }
    free(h.rows);
    free(class_top);
    lr_close(lh);
    return CLI_EXIT_OK;
}
