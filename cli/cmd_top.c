/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_top.c: `leakray top FILE` (cli), prefix top_. The biggest objects by retained size, or
 * with --by class the classes by retained size counted without double counting (an instance
 * counts only when no dominator ancestor has the same class). Retained sizes come from the
 * exact dominator tree (src/analysis/dominators.c) over strong references from the GC roots;
 * docs/design.md says which peer they match (VisualVM for HotSpot). Rows are ordered by
 * retained size descending, ties by object id (classes: by name), so output is deterministic. */
#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "analysis/suspects.h"
#include "cli.h"
#include "cli_filter.h"
#include "format/ruby.h"
#include "format/v8.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --class/--package (per class: keep[c]; classless nodes: keep_none) and --csv. */
static const uint8_t *top_keep;
static int top_keep_none;
static int top_csv;

/* Whether node x passes the class filter. */
static int top_kept(const graph *g, node_ix x)
{
    if (!top_keep)
        return 1;
    class_ix c = g->node_class[x];
    return c < g->n_classes ? top_keep[c] : top_keep_none;
}

/* ---- top-N selection: a min-heap of N node indices keyed by (retained, -id) ---- */

/* Whether a ranks before b: larger retained first, then smaller id. */
static int top_before(const graph *g, const uint64_t *ret, node_ix a, node_ix b)
{
    if (ret[a] != ret[b])
        return ret[a] > ret[b];
    return graph_node_id(g, a) < graph_node_id(g, b);
}

static void top_sift_down(const graph *g, const uint64_t *ret, node_ix *h, uint32_t n,
                          uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && top_before(g, ret, h[m], h[l]))
            m = l;
        if (r < n && top_before(g, ret, h[m], h[r]))
            m = r;
        if (m == i)
            return;
        node_ix t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Fills out with the k first reachable nodes in rank order; returns how many. O(N log k). */
static uint32_t top_select(const graph *g, const dom_tree *t, node_ix *out, uint32_t k)
{
    uint32_t n = 0;
    if (k == 0)
        return 0;
    /* The heap root is the worst of the kept nodes (the one ranked last). */
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (t->idom[x] == GRAPH_NONE || !top_kept(g, x))
            continue;
        if (n < k) {
            out[n++] = x;
            for (uint32_t i = n - 1; i > 0;) {
                uint32_t p = (i - 1) / 2;
                if (!top_before(g, t->retained, out[p], out[i]))
                    break;
                node_ix tmp = out[p];
                out[p] = out[i];
                out[i] = tmp;
                i = p;
            }
        } else if (top_before(g, t->retained, x, out[0])) {
            out[0] = x;
            top_sift_down(g, t->retained, out, n, 0);
        }
    }
    /* Heap sort in place: repeatedly move the worst to the end. */
    for (uint32_t m = n; m > 1; m--) {
        node_ix tmp = out[0];
        out[0] = out[m - 1];
        out[m - 1] = tmp;
        top_sift_down(g, t->retained, out, m - 1, 0);
    }
    return n;
}

/* Class objects: (node, class) pairs sorted by node, to name the class a node describes. */
typedef struct top_cnode {
    node_ix node;
    class_ix cls;
} top_cnode;

static int top_cmp_cnode(const void *pa, const void *pb)
{
    const top_cnode *a = pa, *b = pb;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* Name of the class that class object x describes, or NULL when x is no class object. */
static const char *top_describes(const graph *g, const top_cnode *cn, uint32_t n, node_ix x)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cn[mid].node < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && cn[lo].node == x ? graph_str(g, g->classes[cn[lo].cls].name) : NULL;
}

static const char *top_class_name(const graph *g, node_ix x)
{
    const char *s = graph_class_name(g, x);
    return s && s[0] ? s : "<no class>";
}

/* ---- per-class rows ---- */

typedef struct top_class_row {
    class_ix cls;      /* class index */
    const char *name;  /* class name (graph string table) */
    uint32_t count;    /* reachable instances */
    uint64_t shallow;  /* summed shallow bytes of those instances */
    uint64_t retained; /* retained bytes without double counting */
} top_class_row;

static int top_cmp_class(const void *pa, const void *pb)
{
    const top_class_row *a = pa, *b = pb;
    if (a->retained != b->retained)
        return a->retained > b->retained ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->cls < b->cls ? -1 : a->cls > b->cls;
}

/* Builds the class rows (classes with reachable instances), sorted. */
static lr_status top_classes(const graph *g, const dom_tree *t, top_class_row **out,
                             uint32_t *n_out, lr_error *err)
{
    uint32_t nc = g->n_classes;
    uint64_t *ret = err_calloc(nc ? nc : 1, sizeof *ret);
    uint32_t *cnt = err_calloc(nc ? nc : 1, sizeof *cnt);
    top_class_row *rows = err_calloc(nc ? nc : 1, sizeof *rows);
    lr_status st = LR_OK;
    if (!ret || !cnt || !rows) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "top: out of memory for %u classes", nc);
        goto done;
    }
    if ((st = dom_class_retained(g, t, ret, cnt, err)) != LR_OK)
        goto done;
    for (class_ix c = 0; c < nc; c++)
        rows[c].cls = c;
    for (node_ix x = 0; x < g->n_nodes; x++)
        if (t->idom[x] != GRAPH_NONE && g->node_class[x] < nc)
            rows[g->node_class[x]].shallow += graph_node_size(g, x);
    uint32_t k = 0;
    for (class_ix c = 0; c < nc; c++) {
        if (!cnt[c] || (top_keep && !top_keep[c]))
            continue;
        rows[k] = rows[c];
        rows[k].count = cnt[c];
        rows[k].retained = ret[c];
        rows[k].name = graph_str(g, g->classes[c].name);
        if (!rows[k].name[0])
            rows[k].name = "<unnamed class>";
        k++;
    }
    qsort(rows, k, sizeof *rows, top_cmp_class);
    *out = rows;
    *n_out = k;
    rows = NULL;
done:
    free(ret);
    free(cnt);
    free(rows);
    return st;
}

/* ---- V8/Node/ArkTS: DevTools' retained sizes (src/analysis/devtools.h) ----
 * Objects: every node but the synthetic ones (root, (GC roots) and its sub-roots, which have
 * no size and retain everything), ranked by DevTools' retained size, ties by id. Classes:
 * DevTools' Summary rows by class key, retained without double counting. */

static const devtools_result *top_dt_r;
static const graph *top_dt_g;

static int top_dt_cmp_class(const void *pa, const void *pb)
{
    const devtools_class *a = &top_dt_r->classes[*(const uint32_t *)pa];
    const devtools_class *b = &top_dt_r->classes[*(const uint32_t *)pb];
    if (a->retained != b->retained)
        return a->retained > b->retained ? -1 : 1;
    const graph *g = top_dt_g;
    int c = strcmp(graph_str(g, g->classes[a->cls].name), graph_str(g, g->classes[b->cls].name));
    if (c)
        return c;
    c = strcmp(graph_str(g, a->key), graph_str(g, b->key));
    return c ? c : (a->cls < b->cls ? -1 : a->cls > b->cls);
}

/* The k best non-synthetic nodes by r->retained (then id), in rank order. O(N log k). */
static uint32_t top_dt_select(const graph *g, const devtools_result *r, node_ix *out, uint32_t k,
                              int detached)
{
    uint32_t n = 0;
    if (k == 0)
        return 0;
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (g->node_kind[x] == GRAPH_KIND_SYNTHETIC || x == r->root || !top_kept(g, x))
            continue;
        if (detached && graph_node_dom(g, x) != GRAPH_DOM_DETACHED)
            continue;
        if (n < k) {
            out[n++] = x;
            for (uint32_t i = n - 1; i > 0;) {
                uint32_t p = (i - 1) / 2;
                if (!top_before(g, r->retained, out[p], out[i]))
                    break;
                node_ix tmp = out[p];
                out[p] = out[i];
                out[i] = tmp;
                i = p;
            }
        } else if (top_before(g, r->retained, x, out[0])) {
            out[0] = x;
            top_sift_down(g, r->retained, out, n, 0);
        }
    }
    for (uint32_t m = n; m > 1; m--) {
        node_ix tmp = out[0];
        out[0] = out[m - 1];
        out[m - 1] = tmp;
        top_sift_down(g, r->retained, out, m - 1, 0);
    }
    return n;
}

static int top_devtools(const cli_common *co, const graph *g, int by_class, uint64_t top,
                        int detached)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    devtools_result r;
    double t0 = cli_now_ms();
    if (devtools_build(g, v8_class_keys(g), &r, &err) != LR_OK)
        return cli_error(co, &err);
    double dt_ms = cli_now_ms() - t0;
    uint32_t cap = by_class ? r.n_classes : (top && top < g->n_nodes ? (uint32_t)top : g->n_nodes);
    uint32_t *sel = err_mallocarray(cap ? cap : 1, sizeof *sel);
    if (!sel) {
        devtools_free(&r);
        return cli_fail(co, LR_ERR_NOMEM, "top: out of memory for %u rows", cap);
    }
    uint32_t n = 0;
    uint8_t *cls_det = NULL;
    if (by_class && detached) {
        /* Detached DOM nodes are all renamed "Detached ...": a class is detached as a whole. */
        if (!(cls_det = err_calloc(g->n_classes ? g->n_classes : 1, 1))) {
            free(sel);
            devtools_free(&r);
            return cli_fail(co, LR_ERR_NOMEM, "top: out of memory");
        }
        for (node_ix x = 0; x < g->n_nodes; x++)
            if (graph_node_dom(g, x) == GRAPH_DOM_DETACHED && g->node_class[x] < g->n_classes)
                cls_det[g->node_class[x]] = 1;
    }
    if (by_class) {
        for (uint32_t i = 0; i < r.n_classes; i++)
            if (!r.classes[i].shadowed && (!cls_det || cls_det[r.classes[i].cls]) &&
                (!top_keep || top_keep[r.classes[i].cls]))
                sel[n++] = i;
        free(cls_det);
        top_dt_r = &r;
        top_dt_g = g;
        qsort(sel, n, sizeof *sel, top_dt_cmp_class);
        if (top && top < n)
            n = (uint32_t)top;
    } else {
        n = top_dt_select(g, &r, sel, cap, detached);
    }
    uint32_t reachable = g->n_nodes - r.n_unreachable;
    uint64_t heap_total = r.total + v8_extra_native_bytes(g);
    char b1[CLI_FMT_MAX], b2[CLI_FMT_MAX];
    char f1[CLI_FMT_MAX], f2[CLI_FMT_MAX], f3[CLI_FMT_MAX], f4[CLI_FMT_MAX], f5[CLI_FMT_MAX];
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "by", by_class ? "class" : "object");
        jsonw_kv_str(&w, "model", "devtools");
        jsonw_kv_uint(&w, "reachable_objects", reachable);
        jsonw_kv_uint(&w, "reachable_bytes", r.total);
        jsonw_kv_uint(&w, "heap_total", heap_total);
        jsonw_kv_arr_begin(&w, by_class ? "classes" : "objects");
        for (uint32_t i = 0; i < n; i++) {
            jsonw_obj_begin(&w);
            if (by_class) {
                const devtools_class *c = &r.classes[sel[i]];
                jsonw_kv_str(&w, "class", graph_str(g, g->classes[c->cls].name));
                jsonw_kv_str(&w, "key", graph_str(g, c->key));
                jsonw_kv_uint(&w, "count", c->count);
                jsonw_kv_int(&w, "distance", c->distance);
                jsonw_kv_uint(&w, "shallow", c->self);
                jsonw_kv_uint(&w, "retained", c->retained);
            } else {
                node_ix x = sel[i];
                jsonw_kv_str(&w, "id", cli_fmt_id(b1, g, graph_node_id(g, x)));
                jsonw_kv_str(&w, "class", top_class_name(g, x));
                jsonw_kv_uint(&w, "shallow", graph_node_size(g, x));
                jsonw_kv_uint(&w, "retained", r.retained[x]);
                jsonw_kv_int(&w, "distance", r.distance[x]);
            }
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        cli_json_end_phase(co, &w, "dominators_ms", dt_ms);
    } else if (top_csv) {
        printf(by_class ? "num,count,shallow,retained,distance,class\n"
                        : "num,id,retained,shallow,distance,class\n");
        for (uint32_t i = 0; i < n; i++) {
            if (by_class) {
                const devtools_class *c = &r.classes[sel[i]];
                printf("%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRId32 ",", i + 1,
                       c->count, c->self, c->retained, c->distance);
                cli_filter_csv_name(graph_str(g, g->classes[c->cls].name));
            } else {
                node_ix x = sel[i];
                printf("%" PRIu32 ",%s,%" PRIu64 ",%" PRIu32 ",%" PRId32 ",", i + 1,
                       cli_fmt_id(b1, g, graph_node_id(g, x)), r.retained[x],
                       graph_node_size(g, x), r.distance[x]);
                cli_filter_csv_name(top_class_name(g, x));
            }
            putchar('\n');
        }
    } else {
        printf("%s reachable objects, %s retained by the root (DevTools model)\n",
               cli_fmt_count(b1, reachable), cli_fmt_bytes(b2, r.total));
        if (by_class) {
            printf("%4s  %12s %14s %14s %7s %9s  %s\n", "num", "count", "shallow", "retained",
                   "% heap", "distance", "class name");
            for (uint32_t i = 0; i < n; i++) {
                const devtools_class *c = &r.classes[sel[i]];
                printf("%4" PRIu32 ": %12s %14s %14s %7s %9s  %s\n", i + 1,
                       cli_fmt_count(f1, c->count), cli_fmt_count(f2, c->self),
                       cli_fmt_count(f3, c->retained), cli_fmt_pct(f4, c->retained, r.total),
                       cli_fmt_distance(f5, c->distance), graph_str(g, g->classes[c->cls].name));
            }
        } else {
            printf("%4s  %-18s %14s %12s %7s %9s  %s\n", "num", "id", "retained", "shallow",
                   "% heap", "distance", "class name");
            for (uint32_t i = 0; i < n; i++) {
                node_ix x = sel[i];
                printf("%4" PRIu32 ": %-18s %14s %12s %7s %9s  %s\n", i + 1,
                       cli_fmt_id(b1, g, graph_node_id(g, x)), cli_fmt_count(f1, r.retained[x]),
                       cli_fmt_count(f2, graph_node_size(g, x)),
                       cli_fmt_pct(f3, r.retained[x], r.total), cli_fmt_distance(f4, r.distance[x]),
                       top_class_name(g, x));
            }
        }
        cli_print_timing(co, stdout, "load time", co->load_ms);
        cli_print_timing(co, stdout, "dominators", dt_ms);
    }
    free(sel);
    devtools_free(&r);
    return CLI_EXIT_OK;
}

int cmd_top(int argc, char **argv)
{
    uint64_t top = 20;
    const char *by = "object";
    const char *model = NULL;
    int detached = 0;
    cli_filter flt = {0};
    const cli_optdef opts[] = {
        CLI_FILTER_OPTS(&flt),
        {"--csv", CLI_OPT_FLAG, &top_csv, NULL, "comma-separated values", NULL},
        {"--model", CLI_OPT_STR, &model, "M",
         "retained-size conventions: visualvm (default for HotSpot dumps), devtools (default "
         "for V8/Node/ArkTS snapshots) or strong",
         "visualvm|strong|devtools"},
        {"--by", CLI_OPT_STR, &by, "WHAT", "rank objects (default) or classes", "object|class"},
        {"--top", CLI_OPT_UINT, &top, "N", "rows to show (default 20)", NULL},
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "only detached DOM nodes (V8 browser snapshots)", NULL},
        {0},
    };
    const cli_spec spec = {
        "top", "FILE", "Biggest objects or classes by retained size (exact dominator tree).",
        opts, 1, 1,
        "Retained size = the bytes freed if the object were collected: its shallow size\n"
        "(plus native bytes where known) summed over the objects it dominates, following\n"
        "strong references only. --by class counts an instance only when no object above\n"
        "it in the dominator tree has the same class, so no byte is counted twice.\n"
        "--model strong: exact dominators over strong references from the GC roots.\n"
        "--model visualvm: VisualVM's conventions (weak referents and unreachable objects\n"
        "still take dominance away; class objects weigh only in VisualVM's tree sums);\n"
        "see docs/design.md.\n"
        "--model devtools (default for V8/Node/ArkTS snapshots): Chrome DevTools' retained\n"
        "sizes and distances; synthetic nodes are not ranked (docs/formats/v8.md).\n"
        "Example: leakray top --top 10 app.hprof"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (top > UINT32_MAX)
        top = UINT32_MAX;
    int by_class = strcmp(by, "class") == 0;

    lr_heap *lh;
    if ((rc = cli_open(&co, co.pos[0], 0, &lh)) != 0)
        return rc;
    const graph *g = lr_heap_graph(lh);
    uint8_t *keep = cli_filter_active(&flt) ? cli_filter_classes(&flt, g) : NULL;
    if (cli_filter_active(&flt) && !keep) {
        lr_close(lh);
        return cli_fail(&co, LR_ERR_NOMEM, "top: out of memory for %u classes", g->n_classes);
    }
    top_keep = keep;
    top_keep_none = cli_filter_match(&flt, "<no class>");
    int is_v8 = v8_class_keys(g) && g->synthetic_root != GRAPH_NONE;
    if (model && strcmp(model, "devtools") == 0 && !is_v8) {
        free(keep);
        lr_close(lh);
        return cli_usage_error(&co, "--model devtools needs a V8/Node/ArkTS heap snapshot");
    }
    if (detached && (!is_v8 || (model && strcmp(model, "devtools") != 0))) {
        free(keep);
        lr_close(lh);
        return cli_usage_error(&co, "--detached needs a V8 snapshot and the devtools model");
    }
    if (is_v8 && (!model || strcmp(model, "devtools") == 0)) {
        rc = top_devtools(&co, g, by_class, top, detached);
        free(keep);
        lr_close(lh);
        return rc;
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    dom_tree t;
    double t0 = cli_now_ms();
    /* HotSpot dumps default to VisualVM's conventions, the peer their numbers must equal;
     * everything else (and --model strong) uses plain strong-reference dominators. */
    int vvm = model ? strcmp(model, "visualvm") == 0 : g->size_model == GRAPH_SIZES_VISUALVM;
    dom_opts dopts = {0};
    edge_ix artifact = GRAPH_NONE;
    if (vvm) {
        dom_opts_visualvm(&dopts);
    } else if (!model && (artifact = susp_artifact_edge(g)) != GRAPH_NONE) {
        /* as cli_retained: Bitmap.dumpData is the dumper's copy, no reference */
        dopts.reach = susp_filter_strong;
        dopts.reach_ctx = &artifact;
    }
    if (dom_build_ex(g, &dopts, &t, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        free(keep);
        lr_close(lh);
        return rc;
    }
    double dom_ms = cli_now_ms() - t0;

    node_ix *sel = NULL;
    top_cnode *cn = NULL;
    top_class_row *rows = NULL;
    uint32_t n = 0;
    if (by_class) {
        if (top_classes(g, &t, &rows, &n, &err) != LR_OK)
            goto fail;
        if (top && top < n)
            n = (uint32_t)top;
    } else {
        uint32_t k = top && top < t.n_reachable ? (uint32_t)top : t.n_reachable;
        sel = err_mallocarray(k ? k : 1, sizeof *sel);
        if (!sel) {
            LR_FAIL(&err, LR_ERR_NOMEM, "top: out of memory for %u rows", k);
            goto fail;
        }
        n = top_select(g, &t, sel, k);
    }

    cn = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *cn);
    uint32_t n_cn = 0;
    if (!cn) {
        LR_FAIL(&err, LR_ERR_NOMEM, "top: out of memory for %u classes", g->n_classes);
        goto fail;
    }
    for (class_ix c = 0; c < g->n_classes; c++)
        if (g->classes[c].node < g->n_nodes)
            cn[n_cn++] = (top_cnode){g->classes[c].node, c};
    qsort(cn, n_cn, sizeof *cn, top_cmp_cnode);

    char b1[CLI_FMT_MAX], b2[CLI_FMT_MAX], cname[1100];
    char f1[CLI_FMT_MAX], f2[CLI_FMT_MAX], f3[CLI_FMT_MAX], f4[CLI_FMT_MAX];
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "by", by_class ? "class" : "object");
        jsonw_kv_str(&w, "model", vvm ? "visualvm" : "strong");
        jsonw_kv_uint(&w, "reachable_objects", t.n_reachable);
        jsonw_kv_uint(&w, "reachable_bytes", t.total_reachable);
        jsonw_kv_arr_begin(&w, by_class ? "classes" : "objects");
        for (uint32_t i = 0; i < n; i++) {
            jsonw_obj_begin(&w);
            if (by_class) {
                jsonw_kv_str(&w, "class", rows[i].name);
                jsonw_kv_uint(&w, "count", rows[i].count);
                jsonw_kv_uint(&w, "shallow", rows[i].shallow);
                jsonw_kv_uint(&w, "retained", rows[i].retained);
            } else {
                node_ix x = sel[i];
                jsonw_kv_str(&w, "id", cli_fmt_id(b1, g, graph_node_id(g, x)));
                const char *d = top_describes(g, cn, n_cn, x);
                /* a class object is "class NAME", as the text, show and path say */
                if (d) {
                    snprintf(cname, sizeof cname, "class %s", d);
                    jsonw_kv_str(&w, "class", cname);
                    jsonw_kv_str(&w, "describes", d);
                } else {
                    jsonw_kv_str(&w, "class", top_class_name(g, x));
                }
                jsonw_kv_uint(&w, "shallow", graph_node_size(g, x));
                jsonw_kv_uint(&w, "retained", t.retained[x]);
                if (g->node_native && g->node_native[x]) /* Android registry bytes */
                    jsonw_kv_uint(&w, "native", g->node_native[x]);
                if (ruby_site_of(g, x)) /* Ruby with allocation tracing */
                    jsonw_kv_str(&w, "allocated_at",
                                 ruby_site_text(g, ruby_site_of(g, x), cname, sizeof cname));
            }
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        cli_json_end_phase(&co, &w, "dominators_ms", dom_ms);
    } else if (top_csv) {
        printf(by_class ? "num,count,shallow,retained,class\n" : "num,id,retained,shallow,class\n");
        for (uint32_t i = 0; i < n; i++) {
            if (by_class) {
                printf("%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",", i + 1, rows[i].count,
                       rows[i].shallow, rows[i].retained);
                cli_filter_csv_name(rows[i].name);
            } else {
                node_ix x = sel[i];
                const char *d = top_describes(g, cn, n_cn, x);
                printf("%" PRIu32 ",%s,%" PRIu64 ",%" PRIu32 ",", i + 1,
                       cli_fmt_id(b1, g, graph_node_id(g, x)), t.retained[x],
                       graph_node_size(g, x));
                if (d)
                    printf("class ");
                cli_filter_csv_name(d ? d : top_class_name(g, x));
            }
            putchar('\n');
        }
    } else {
        printf("%s reachable objects, %s retained by GC roots (%s model)\n",
               cli_fmt_count(b1, t.n_reachable), cli_fmt_bytes(b2, t.total_reachable),
               vvm ? "VisualVM" : "strong-reference");
        if (by_class) {
            printf("%4s  %12s %14s %14s %7s  %s\n", "num", "count", "shallow", "retained",
                   "% heap", "class name");
            for (uint32_t i = 0; i < n; i++)
                printf("%4" PRIu32 ": %12s %14s %14s %7s  %s\n", i + 1,
                       cli_fmt_count(f1, rows[i].count), cli_fmt_count(f2, rows[i].shallow),
                       cli_fmt_count(f3, rows[i].retained),
                       cli_fmt_pct(f4, rows[i].retained, t.total_reachable), rows[i].name);
        } else {
            printf("%4s  %-18s %14s %12s %7s  %s\n", "num", "id", "retained", "shallow", "% heap",
                   "class name");
            for (uint32_t i = 0; i < n; i++) {
                node_ix x = sel[i];
                const char *d = top_describes(g, cn, n_cn, x);
                printf("%4" PRIu32 ": %-18s %14s %12s %7s  %s%s", i + 1,
                       cli_fmt_id(b1, g, graph_node_id(g, x)), cli_fmt_count(f1, t.retained[x]),
                       cli_fmt_count(f2, graph_node_size(g, x)),
                       cli_fmt_pct(f3, t.retained[x], t.total_reachable), d ? "class " : "",
                       d ? d : top_class_name(g, x));
                if (g->node_native && g->node_native[x])
                    printf("  (+%s native)", cli_fmt_count(f4, g->node_native[x]));
                if (ruby_site_text(g, ruby_site_of(g, x), cname, sizeof cname))
                    printf("  at %s", cname);
                putchar('\n');
            }
        }
        cli_print_timing(&co, stdout, "load time", co.load_ms);
        cli_print_timing(&co, stdout, "dominators", dom_ms);
    }
    free(cn);
    free(sel);
    free(rows);
    dom_free(&t);
    free(keep);
    lr_close(lh);
    return CLI_EXIT_OK;

fail:
    rc = cli_error(&co, &err);
    free(cn);
    free(sel);
    free(rows);
    dom_free(&t);
    free(keep);
    lr_close(lh);
    return rc;
}
