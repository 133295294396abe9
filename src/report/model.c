/* SPDX-License-Identifier: Apache-2.0 */
/* model.c: the report model's views and its JSON (report layer), prefix rep_. The JSON is
 * what the HTML page embeds and renders, and what lr_render(LR_RENDER_JSON) prints; its keys
 * are documented in docs/json.md ("report") and only ever added. Everything from the dump
 * (class names, strings, field names) goes through jsonw's escaping, and with `safe` through
 * a second pass that keeps the text inert inside an HTML <script> element. Every list is cut
 * at a REP_* bound, so the document stays a few hundred kB whatever the heap's size. */
#define _GNU_SOURCE /* open_memstream */
#include "report/model.h"

#include "analysis/info.h"
#include "analysis/paths.h"
#include "analysis/top.h"
#include "base/jsonw.h"
#include "report/analyze_json.h"
#include "report/dupes.h"
#include "report/fmt.h"
#include "report/png.h"
#include "report/text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

lr_status rep_report_build(rep_report *r, lr_error *err)
{
    if (!r->dom.idom)
        return LR_OK;
    domagg_kids k;
    lr_status st = domagg_kids_build(r->g, &r->dom, &k, err);
    if (st != LR_OK)
        return st;
    domagg_opts o = {REP_TREE_NODES, REP_TREE_K, REP_TREE_DEPTH, 0.0001};
    st = domagg_objects(r->g, &r->dom, &k, &o, &r->by_object, err);
    if (st == LR_OK)
        st = domagg_classes(r->g, &r->dom, &k, &o, &r->by_class, err);
    domagg_kids_free(&k);
    if (st == LR_OK) {
        r->top = malloc(REP_TOP_OBJECTS * sizeof *r->top);
        if (!r->top)
            st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (top objects)", r->g->path);
        else
            /* the rows `leakray top` prints: ties by id, V8's synthetic nodes left out */
            r->n_top = top_select(r->g, r->dom.idom, r->dom.retained, r->g->synthetic_root,
                                  NULL, 0, r->top, REP_TOP_OBJECTS);
    }
    if (st != LR_OK)
        rep_report_fini(r);
    return st;
}

void rep_report_fini(rep_report *r)
{
    if (!r)
        return;
    domagg_view_free(&r->by_object);
    domagg_view_free(&r->by_class);
    free(r->top);
    r->top = NULL;
    r->n_top = 0;
}

/* ---- helpers ---- */

static const char *fmt_id(char *buf, size_t cap, const graph *g, node_ix n)
{
    if (n >= g->n_nodes || !graph_has_ids(g))
        snprintf(buf, cap, "#%u", n);
    else if (g->id_size == 0)
        snprintf(buf, cap, "@%" PRIu64, graph_node_id(g, n));
    else
        snprintf(buf, cap, "0x%" PRIx64, graph_node_id(g, n));
    return buf;
}

/* What a person calls node n: "class Foo" for a class object, its class, or its V8 name.
 * buf: at least REP_LABEL_MAX bytes. */
#define REP_LABEL_MAX 512
#define REP_MODEL_MAX_STR 2048 /* bytes of a name in the model, then "…" */
static const char *node_label_buf(const graph *g, node_ix n, char *buf)
{
    if (n >= g->n_nodes)
        return "";
    if (g->node_kind[n] == GRAPH_KIND_CLASS) {
        class_ix c = graph_class_of_node(g, n);
        if (c < g->n_classes) {
            snprintf(buf, REP_LABEL_MAX, "class %s", graph_str(g, g->classes[c].name));
            return buf;
        }
    }
    class_ix c = graph_node_class(g, n);
    if (g->class_clear_name && c < g->n_classes && g->class_clear_name[c] != GRAPH_NONE)
        return graph_str(g, g->class_clear_name[c]); /* an array of a mapped class */
    const char *s = cluster_node_label(g, n, buf, REP_LABEL_MAX);
    return s && *s ? s : graph_node_kind_name(g->node_kind[n]);
}

static const char *node_label(const graph *g, node_ix n)
{
    static _Thread_local char buf[REP_LABEL_MAX];
    return node_label_buf(g, n, buf);
}

static uint64_t retained_of(const rep_report *r, node_ix n)
{
    return r->dom.retained && n < r->g->n_nodes ? r->dom.retained[n] : 0;
}

static void kv_id(jsonw *w, const char *k, const graph *g, node_ix n)
{
    char b[40];
    jsonw_kv_str(w, k, fmt_id(b, sizeof b, g, n));
}

/* ---- sections ---- */

static void j_summary(jsonw *w, const rep_report *r)
{
    const graph *g = r->g;
    jsonw_kv_obj_begin(w, "summary");
    jsonw_kv_uint(w, "objects", g->n_nodes);
    jsonw_kv_uint(w, "edges", g->n_edges);
    jsonw_kv_uint(w, "classes", g->n_classes);
    jsonw_kv_uint(w, "roots", g->n_roots);
    jsonw_kv_uint(w, "threads", g->n_threads);
    /* V8 and Dart have one root entry, the synthetic root: what it holds is the count people
     * read (left out when there is no memory for it) */
    info_roots rc;
    lr_error rerr = {0};
    if (info_synthetic_root(g) != GRAPH_NONE && info_root_cats(g, &rc, &rerr) == LR_OK) {
        jsonw_kv_uint(w, "root_objects", rc.objects);
        jsonw_kv_uint(w, "root_categories", rc.n_cats);
    }
    /* as `info`: the shallow total, and the native bytes a Cleaner frees apart */
    uint64_t native = 0;
    for (node_ix n = 0; g->node_native && n < g->n_nodes; n++)
        native += g->node_native[n];
    jsonw_kv_uint(w, "shallow_bytes", graph_shallow_total(g));
    if (g->node_native)
        jsonw_kv_uint(w, "native_bytes", native);
    jsonw_kv_uint(w, "reachable_objects", r->n_reachable);
    jsonw_kv_uint(w, "reachable_bytes", r->dom.total);
    jsonw_kv_str(w, "mode", !r->tr ? "none" : r->suspects ? "suspects" : "leaks");
    jsonw_kv_uint(w, "leaking_objects", r->ls ? r->ls->n : 0);
    jsonw_kv_uint(w, "traces", r->tr ? r->tr->n_traces : 0);
    jsonw_kv_uint(w, "application_groups", r->tr ? r->tr->n_app_groups : 0);
    jsonw_kv_uint(w, "library_groups", r->tr ? r->tr->n_groups - r->tr->n_app_groups : 0);
    jsonw_kv_uint(w, "unreachable_leaking", r->tr ? r->tr->n_unreachable : 0);
    if (r->rs && rep_fmt_runtime(g) == REP_RT_JAVA) { /* Android is a JVM question */
        jsonw_kv_bool(w, "android", r->rs->build.is_android);
        if (r->rs->build.has_sdk)
            jsonw_kv_int(w, "sdk_int", r->rs->build.sdk);
    }
    if (!r->no_timing)
        jsonw_kv_uint(w, "analysis_ms", (uint64_t)(r->analysis_ms + 0.5));
    jsonw_obj_end(w);
}

static void j_elem(jsonw *w, const graph *g, const trace_elem *e, int last)
{
    jsonw_obj_begin(w);
    kv_id(w, "id", g, e->node);
    jsonw_kv_str(w, "class", e->class_name ? e->class_name : "");
    jsonw_kv_str(w, "kind", graph_node_kind_name(g->node_kind[e->node]));
    jsonw_kv_str(w, "type", rep_node_type_key(g, e->node));
    jsonw_kv_str(w, "leaking", rep_trace_status_key(e->status));
    jsonw_kv_str(w, "reason", e->reason ? e->reason : "");
    /* as analyze without --verbose ("Also retains leaking object" lines left out) */
    rep_analyze_labels_json(w, e->labels, 0);
    if (e->has_retained) {
        jsonw_kv_uint(w, "retained_bytes", e->retained);
        jsonw_kv_uint(w, "retained_objects", e->retained_count);
    }
    if (!last) {
        char disp[600];
        trace_ref_display(e, disp, sizeof disp);
        jsonw_kv_obj_begin(w, "reference");
        jsonw_kv_str(w, "owner", e->owner ? e->owner : "");
        jsonw_kv_str(w, "display", disp);
        jsonw_kv_bool(w, "suspect", e->suspect);
        jsonw_kv_bool(w, "static", e->ref_type == TRACE_REF_STATIC);
        jsonw_kv_str(w, "type", rep_trace_ref_key(e->ref_type));
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

/* Which traces the page carries, at most REP_MAX_TRACES and every group's first (a group of
 * thousands of the same leak took the whole budget before: the groups after it had none),
 * then the groups' next ones in turn, within REP_MAX_TRACE_STEPS steps. keep[i] is trace
 * i's index in the page's traces[] plus one, 0 when left out. NULL (out of memory): the
 * first REP_MAX_TRACES. */
static uint32_t *pick_traces(const trace_result *tr)
{
    uint32_t *keep = tr && tr->n_traces ? calloc(tr->n_traces, sizeof *keep) : NULL;
    if (!keep)
        return NULL;
    uint32_t n = 0;
    uint64_t steps = 0; /* REP_MAX_TRACE_STEPS bounds the page: the first group's trace and
                         * then as many as fit, the groups past them listed without one */
    for (uint32_t i = 0; i < tr->n_groups; i++) {
        uint32_t t = tr->groups[i].n ? tr->groups[i].traces[0] : UINT32_MAX;
        if (t >= tr->n_traces || (n && steps + tr->traces[t].n > REP_MAX_TRACE_STEPS))
            continue;
        keep[t] = 1;
        steps += tr->traces[t].n;
        n++;
    }
    for (uint32_t k = 1, more = 1; more && n < REP_MAX_TRACES; k++) {
        more = 0;
        for (uint32_t i = 0; i < tr->n_groups && n < REP_MAX_TRACES; i++) {
            const trace_group *gr = &tr->groups[i];
            if (k >= gr->n)
                continue;
            more = 1;
            uint32_t t = gr->traces[k];
            if (t < tr->n_traces && !keep[t] && steps + tr->traces[t].n <= REP_MAX_TRACE_STEPS) {
                keep[t] = 1;
                steps += tr->traces[t].n;
                n++;
            }
        }
    }
    for (uint32_t i = 0, at = 0; i < tr->n_traces; i++)
        if (keep[i])
            keep[i] = ++at;
    return keep;
}

static void j_leaks(jsonw *w, const rep_report *r)
{
    const graph *g = r->g;
    const trace_result *tr = r->tr;
    uint32_t *keep = pick_traces(tr);
    jsonw_kv_arr_begin(w, "groups");
    for (uint32_t i = 0; tr && i < tr->n_groups; i++) {
        const trace_group *gr = &tr->groups[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "signature", gr->fingerprint);
        if (gr->stable[0] && strcmp(gr->stable, gr->fingerprint))
            jsonw_kv_str(w, "stable_signature", gr->stable);
        jsonw_kv_str(w, "short_description", gr->short_desc);
        jsonw_kv_bool(w, "library", i >= tr->n_app_groups);
        if (i >= tr->n_app_groups && r->rs && gr->lib >= 0) {
            jsonw_kv_str(w, "pattern", r->rs->refs[gr->lib].pattern);
            jsonw_kv_str(w, "description", r->rs->refs[gr->lib].description);
        }
        jsonw_kv_uint(w, "retained_bytes", gr->retained);
        jsonw_kv_uint(w, "retained_objects", gr->retained_count);
        jsonw_kv_uint(w, "count", gr->n);
        jsonw_kv_arr_begin(w, "traces");
        for (uint32_t k = 0; k < gr->n; k++) {
            uint32_t t = gr->traces[k];
            if (keep ? t < tr->n_traces && keep[t] : t < REP_MAX_TRACES)
                jsonw_uint(w, keep ? keep[t] - 1 : t);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_arr_begin(w, "traces");
    for (uint32_t i = 0; tr && i < tr->n_traces && (keep || i < REP_MAX_TRACES); i++) {
        if (keep && !keep[i])
            continue;
        const trace *t = &tr->traces[i];
        const leak_object *lo = &r->ls->v[t->leak];
        jsonw_obj_begin(w);
        kv_id(w, "leaking_object", g, lo->node);
        jsonw_kv_str(w, "class", t->n ? t->el[t->n - 1].class_name : "");
        jsonw_kv_str(w, "source", rep_leak_source_key(lo->source));
        jsonw_kv_str(w, "reason", lo->reason);
        jsonw_kv_str(w, "signature", t->fingerprint);
        if (t->stable[0] && strcmp(t->stable, t->fingerprint))
            jsonw_kv_str(w, "stable_signature", t->stable);
        jsonw_kv_uint(w, "group", t->group);
        jsonw_kv_str(w, "gc_root", trace_root_text(g, t));
        jsonw_kv_arr_begin(w, "elements");
        for (uint32_t j = 0; j < t->n; j++)
            j_elem(w, g, &t->el[j], j + 1 == t->n);
        jsonw_arr_end(w);
        /* as analyze --json: elements[0 .. elided_after) start at the root, the rest end at
         * the leaking object, elided_objects between them left out (the page says so; it
         * joined the two ends as if one referred to the other) */
        jsonw_kv_uint(w, "path_length", t->n + t->elided);
        jsonw_kv_uint(w, "elided_objects", t->elided);
        jsonw_kv_uint(w, "elided_after", t->elided ? t->n_head : t->n);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_arr_begin(w, "unreachable");
    for (uint32_t i = 0; tr && i < tr->n_unreachable && i < REP_MAX_TRACES; i++)
        j_elem(w, g, &tr->unreachable[i].el, 1);
    jsonw_arr_end(w);
    free(keep);
}

static void j_susp_node(jsonw *w, const graph *g, node_ix x, uint64_t retained, uint64_t total)
{
    char cls[300];
    kv_id(w, "id", g, x);
    jsonw_kv_str(w, "class", rep_class_label(g, x, cls, sizeof cls));
    jsonw_kv_uint(w, "retained_bytes", retained);
    jsonw_kv_uint(w, "heap_permille", total ? (uint64_t)(1000.0 * retained / total + 0.5) : 0);
}

/* The LARGEST RETAINERS section as analyze finds it: suspects are never leak traces. Each
 * keeps the structured fields the page's table needs; `text` is the section as analyze
 * prints it, shown as such. */
static void j_suspects(jsonw *w, const rep_report *r)
{
    const susp_result *sr = r->suspects_found;
    if (!sr)
        return;
    const graph *g = r->g;
    jsonw_kv_obj_begin(w, "suspect_settings");
    jsonw_kv_str(w, "model", sr->model ? sr->model : "");
    jsonw_kv_uint(w, "heap_bytes", sr->total);
    jsonw_kv_uint(w, "share_percent", (uint64_t)(100.0 * sr->share + 0.5));
    jsonw_kv_uint(w, "accumulation_percent", (uint64_t)(100.0 * sr->accum + 0.5));
    jsonw_obj_end(w);
    jsonw_kv_arr_begin(w, "suspects");
    for (uint32_t i = 0; i < sr->n; i++) {
        const susp_item *it = &sr->v[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "kind", susp_kind_name(it->kind));
        jsonw_kv_str(w, "description", it->text);
        j_susp_node(w, g, it->node, it->retained, sr->total);
        if (it->kind == SUSP_INSTANCES || it->kind == SUSP_THREAD_LOCALS ||
            it->kind == SUSP_CLASSES)
            jsonw_kv_uint(w, "count", it->count);
        jsonw_kv_obj_begin(w, "accumulation_point");
        j_susp_node(w, g, it->accumulation, it->path_n ? it->path_retained[it->path_n - 1] : 0,
                    sr->total);
        jsonw_obj_end(w);
        jsonw_kv_uint(w, "path_length", it->path_n);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem) {
        rep_text_suspects(mem, g, sr);
        if (fclose(mem) == 0) {
            jsonw_key(w, "suspects_text");
            jsonw_strn(w, buf, len);
        }
    }
    free(buf);
}

/* A view as rows [parent, label, count, retained, other, expanded, id]: arrays, not objects,
 * because a view has thousands of rows. */
static void j_view(jsonw *w, const rep_report *r, const char *key, const domagg_view *v,
                   int by_class)
{
    const graph *g = r->g;
    char b[40];
    jsonw_kv_arr_begin(w, key);
    for (uint32_t i = 0; i < v->n; i++) {
        const domagg_node *d = &v->v[i];
        jsonw_arr_begin(w);
        jsonw_int(w, d->parent == DOMAGG_NO_PARENT ? -1 : (int64_t)d->parent);
        if (i == 0)
            jsonw_str(w, "(heap)");
        else if (d->other)
            jsonw_str(w, "(other)");
        else if (by_class && d->cls != GRAPH_NONE)
            jsonw_str(w, graph_str(g, graph_class_shown_name(g, d->cls)));
        else if (by_class && d->node < g->n_nodes) {
            char kb[64]; /* objects without a class, grouped by kind */
            snprintf(kb, sizeof kb, "(%s)", graph_node_kind_name(g->node_kind[d->node]));
            jsonw_str(w, kb);
        }
        else
            jsonw_str(w, node_label(g, d->node));
        jsonw_uint(w, d->count);
        jsonw_uint(w, d->retained);
        jsonw_uint(w, d->other);
        jsonw_uint(w, d->expanded);
        jsonw_str(w, d->node != GRAPH_NONE && !by_class ? fmt_id(b, sizeof b, g, d->node) : "");
        jsonw_arr_end(w);
    }
    jsonw_arr_end(w);
}

static void j_tables(jsonw *w, const rep_report *r)
{
    const graph *g = r->g;
    jsonw_kv_obj_begin(w, "tree");
    j_view(w, r, "objects", &r->by_object, 0);
    j_view(w, r, "classes", &r->by_class, 1);
    jsonw_obj_end(w);
    jsonw_kv_arr_begin(w, "top_objects");
    for (uint32_t i = 0; i < r->n_top; i++) {
        node_ix n = r->top[i];
        jsonw_obj_begin(w);
        kv_id(w, "id", g, n);
        /* the class as `top` and DevTools' Summary group it ("Function", "(compiled code)"),
         * the node's own name ("BuiltinModule", "node:fs") beside it where they differ */
        const char *label = node_label(g, n), *cls = label;
        if (g->node_name && n != g->synthetic_root && g->node_kind[n] != GRAPH_KIND_CLASS) {
            const char *c = graph_class_name(g, n);
            if (c && *c)
                cls = c;
        }
        jsonw_kv_str(w, "class", cls);
        if (cls != label && strcmp(cls, label) != 0)
            jsonw_kv_str(w, "name", label);
        jsonw_kv_str(w, "kind", graph_node_kind_name(g->node_kind[n]));
        jsonw_kv_uint(w, "shallow_bytes", graph_node_size(g, n));
        jsonw_kv_uint(w, "retained_bytes", retained_of(r, n));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_arr_begin(w, "classes");
    for (uint32_t i = 0; i < r->n_classes && i < REP_TOP_CLASSES; i++) {
        const rep_class_row *c = &r->classes[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", graph_str(g, graph_class_shown_name(g, c->cls)));
        jsonw_kv_uint(w, "count", c->count);
        jsonw_kv_uint(w, "shallow_bytes", c->shallow);
        jsonw_kv_uint(w, "retained_bytes", c->retained);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

typedef struct rank {
    uint64_t key; /* retained bytes */
    uint32_t ix;  /* row index */
} rank;

static int rank_cmp(const void *a, const void *b)
{
    const rank *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return (x->ix > y->ix) - (x->ix < y->ix);
}

static void j_devtools(jsonw *w, const rep_report *r)
{
    const devtools_result *dr = r->devtools;
    const graph *g = r->g;
    if (!dr)
        return;
    /* Rows by retained size; the biggest instance of each with its distance path. */
    uint32_t n = dr->n_classes < REP_DEVTOOLS_ROWS ? dr->n_classes : REP_DEVTOOLS_ROWS;
    uint32_t *rows = malloc((size_t)(dr->n_classes ? dr->n_classes : 1) * sizeof *rows);
    node_ix *best = malloc((size_t)(g->n_classes ? g->n_classes : 1) * sizeof *best);
    if (!rows || !best) {
        free(rows), free(best);
        return;
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < dr->n_classes; i++)
        if (!dr->classes[i].shadowed)
            rows[m++] = i;
    /* By retained size, descending; ties keep DevTools' row order. */
    rank *rk = malloc((size_t)(m ? m : 1) * sizeof *rk);
    if (!rk) {
        free(rows), free(best);
        return;
    }
    for (uint32_t i = 0; i < m; i++)
        rk[i] = (rank){dr->classes[rows[i]].retained, rows[i]};
    qsort(rk, m, sizeof *rk, rank_cmp);
    for (uint32_t i = 0; i < m; i++)
        rows[i] = rk[i].ix;
    free(rk);
    if (n > m)
        n = m;
    memset(best, 0xff, (size_t)g->n_classes * sizeof *best);
    for (node_ix x = 0; x < g->n_nodes; x++) {
        class_ix c = graph_node_class(g, x);
        if (c < g->n_classes && (best[c] == GRAPH_NONE || dr->retained[x] > dr->retained[best[c]]))
            best[c] = x;
    }
    jsonw_kv_arr_begin(w, "devtools_summary");
    char nb[128], b[40];
    for (uint32_t i = 0; i < n; i++) {
        const devtools_class *dc = &dr->classes[rows[i]];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", graph_str(g, g->classes[dc->cls].name));
        jsonw_kv_int(w, "distance", dc->distance);
        jsonw_kv_uint(w, "count", dc->count);
        jsonw_kv_uint(w, "shallow_bytes", dc->self);
        jsonw_kv_uint(w, "retained_bytes", dc->retained);
        node_ix s = best[dc->cls];
        if (s != GRAPH_NONE) {
            jsonw_kv_obj_begin(w, "sample");
            jsonw_kv_str(w, "id", fmt_id(b, sizeof b, g, s));
            jsonw_kv_uint(w, "retained_bytes", dr->retained[s]);
            jsonw_kv_int(w, "distance", dr->distance[s]);
            jsonw_kv_arr_begin(w, "retainers");
            /* Closest retainer first, as DevTools' Retainers pane lists them, up to
             * REP_RETAINER_HOPS of them: a path can be far longer (devtools_path counts it
             * whole but fills only the root end), so the walk goes up from the sample. */
            node_ix x = s;
            for (uint32_t k = 0; k < REP_RETAINER_HOPS && dr->parent_edge && x < dr->n &&
                                 dr->parent_edge[x] != GRAPH_NONE; k++) {
                edge_ix e = dr->parent_edge[x];
                node_ix from = graph_edge_from(g, e);
                x = from;
                jsonw_obj_begin(w);
                jsonw_kv_str(w, "edge", graph_edge_name_text(g, e, nb, sizeof nb));
                jsonw_kv_str(w, "from", node_label(g, from));
                jsonw_kv_str(w, "id", fmt_id(b, sizeof b, g, from));
                jsonw_obj_end(w);
            }
            jsonw_arr_end(w);
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    free(rows), free(best);
}

static void j_clusters(jsonw *w, const rep_report *r)
{
    const cluster_result *cr = r->clusters;
    const cluster_ctx *c = r->clusters_ctx;
    if (!cr || !c)
        return;
    char title[CLUSTER_TITLE_MAX], nb[256];
    jsonw_kv_arr_begin(w, "clusters");
    for (uint32_t i = 0; i < cr->n && i < REP_MAX_CLUSTERS; i++) {
        const cluster_item *it = &cr->items[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "title", cluster_title(c, it, title, sizeof title));
        jsonw_kv_str(w, "rule", crules_by_name(it->by));
        jsonw_kv_str(w, "directory", c->dir_names[it->dir]);
        jsonw_kv_uint(w, "count", it->count);
        jsonw_kv_uint(w, "shallow_bytes", it->shallow);
        jsonw_kv_uint(w, "retained_bytes", it->retained);
        node_ix nodes[REP_RETAINER_HOPS + 1];
        edge_ix edges[REP_RETAINER_HOPS + 1];
        uint32_t len = cluster_chain_get(c, it->rep, nodes, edges, REP_RETAINER_HOPS + 1);
        if (len > REP_RETAINER_HOPS + 1)
            len = REP_RETAINER_HOPS + 1;
        jsonw_kv_arr_begin(w, "chain");
        for (uint32_t k = 0; k < len; k++) {
            jsonw_obj_begin(w);
            if (k > 0) {
                jsonw_kv_str(w, "edge", cluster_edge_label(c, nodes[k - 1], edges[k - 1], nb,
                                                           sizeof nb));
                /* the representative's own edge, "[12]" where the label says "[]" */
                jsonw_kv_str(w, "name", graph_edge_name_text(r->g, edges[k - 1], nb, sizeof nb));
            }
            jsonw_kv_str(w, "node", node_label(r->g, nodes[k]));
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Writes "data:TYPE;base64,..." as a JSON string (null when out of memory). */
static void j_data_uri(jsonw *w, const char *type, const uint8_t *p, size_t n)
{
    size_t head = strlen(type) + 14, cap = head + (n + 2) / 3 * 4 + 1;
    char *s = malloc(cap);
    if (!s) {
        jsonw_null(w);
        return;
    }
    size_t o = (size_t)snprintf(s, cap, "data:%s;base64,", type);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        s[o++] = b64[v >> 18 & 63];
        s[o++] = b64[v >> 12 & 63];
        s[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        s[o++] = i + 2 < n ? b64[v & 63] : '=';
    }
    jsonw_strn(w, s, o);
    free(s);
}

static void j_bitmap_image(jsonw *w, const graph *g, node_ix bm)
{
    dupes_pixels px;
    if (!dupes_bitmap_pixels(g, bm, &px) || px.source == DUPES_PIX_NONE ||
        px.off + px.len > g->data_len) {
        jsonw_null(w);
        return;
    }
    const uint8_t *p = g->data + px.off;
    const char *type = px.source == DUPES_PIX_DUMPDATA ? rep_png_image_type(p, px.len) : NULL;
    if (type && px.len <= REP_MAX_PNG_PIXELS * 4u) {
        j_data_uri(w, type, p, px.len);
        return;
    }
    unsigned bpp = type ? 0 : rep_png_raw_bpp(&px, REP_MAX_PNG_PIXELS);
    uint8_t *png = NULL;
    size_t len = 0;
    if (!bpp || rep_png_encode(p, px.width, px.height, bpp, &png, &len) != 0) {
        jsonw_null(w);
        return;
    }
    j_data_uri(w, "image/png", png, len);
    free(png);
}

static void j_group(jsonw *w, const rep_report *r, const dupes_group *gr, int bitmap)
{
    const graph *g = r->g;
    const dupes_result *d = r->dupes;
    jsonw_obj_begin(w);
    jsonw_kv_str(w, "type", graph_ftype_name(gr->elem_type));
    jsonw_kv_uint(w, "length", gr->length);
    jsonw_kv_uint(w, "bytes", gr->bytes);
    jsonw_kv_uint(w, "count", gr->count);
    jsonw_kv_uint(w, "wasted_bytes", gr->wasted);
    if (bitmap) {
        jsonw_kv_uint(w, "width", gr->width);
        jsonw_kv_uint(w, "height", gr->height);
    }
    jsonw_kv_arr_begin(w, "ids");
    char b[40];
    for (uint32_t k = 0; k < gr->count && k < 16; k++)
        jsonw_str(w, fmt_id(b, sizeof b, g, d->members[gr->first_member + k]));
    jsonw_arr_end(w);
    if (bitmap) {
        jsonw_key(w, "image");
        j_bitmap_image(w, g, d->members[gr->first_member]);
    }
    jsonw_obj_end(w);
}

static void j_dupes(jsonw *w, const rep_report *r)
{
    const dupes_result *d = r->dupes;
    if (!d)
        return;
    jsonw_kv_obj_begin(w, "duplicates");
    jsonw_kv_uint(w, "wasted_arrays", d->wasted_arrays);
    jsonw_kv_uint(w, "wasted_bitmaps", d->wasted_bitmaps);
    jsonw_kv_uint(w, "wasted_strings", d->wasted_strings);
    jsonw_kv_arr_begin(w, "bitmaps");
    for (uint32_t i = 0; i < d->n_bitmaps && i < REP_MAX_DUPES; i++)
        j_group(w, r, &d->bitmaps[i], 1);
    jsonw_arr_end(w);
    jsonw_kv_arr_begin(w, "arrays");
    for (uint32_t i = 0; i < d->n_arrays && i < REP_MAX_DUPES; i++)
        j_group(w, r, &d->arrays[i], 0);
    jsonw_arr_end(w);
    jsonw_kv_arr_begin(w, "strings");
    for (uint32_t i = 0; i < d->n_strings && i < REP_MAX_DUPES; i++) {
        const dupes_group *gr = &d->strings[i];
        char val[256];
        jsonw_obj_begin(w);
        long len = graph_string_value(r->g, d->members[gr->first_member], val, sizeof val);
        size_t n = len < 0 ? 0 : rep_fmt_utf8_prefix(val, (size_t)len, sizeof val - 1);
        jsonw_key(w, "value");
        jsonw_strn(w, val, n);
        if (len >= 0 && n < (size_t)len) { /* cut: the page says so, as for V8's */
            jsonw_kv_uint(w, "value_bytes", (uint64_t)len);
            jsonw_kv_bool(w, "value_truncated", 1);
        }
        jsonw_kv_uint(w, "count", gr->count);
        jsonw_kv_uint(w, "bytes", gr->bytes);
        jsonw_kv_uint(w, "wasted_bytes", gr->wasted);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

/* memlab's duplicate strings: the numbers `leakray dupes --json` prints under js_strings
 * (report/dupes.c), with each value cut at REP_JS_VALUE bytes on a character boundary and
 * REP_JS_IDS ids per group, in the model's id form, so the page stays small. */
static void j_js_group(jsonw *w, const rep_report *r, uint32_t gi)
{
    const graph *g = r->g;
    const jsdup_result *d = r->js_strings;
    const jsdup_group *gr = &d->groups[gi];
    char v[REP_JS_VALUE + 1], b[40];
    size_t len = jsdup_value(g, d->members[gr->first_member], v, sizeof v);
    jsonw_obj_begin(w);
    jsonw_key(w, "value");
    jsonw_strn(w, v, len);
    jsonw_kv_uint(w, "value_bytes", gr->bytes);
    jsonw_kv_bool(w, "value_truncated", len < gr->bytes);
    jsonw_kv_uint(w, "count", gr->n);
    jsonw_kv_uint(w, "size", gr->size);
    /* memlab's duplicated size of one value, size x (n - 1) / n, rounded down */
    uint64_t n = gr->n ? gr->n : 1;
    jsonw_kv_uint(w, "wasted_bytes", gr->size / n * (n - 1) + gr->size % n * (n - 1) / n);
    jsonw_kv_arr_begin(w, "ids");
    for (uint32_t k = 0; k < gr->n && k < REP_JS_IDS; k++)
        jsonw_str(w, fmt_id(b, sizeof b, g, d->members[gr->first_member + k]));
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void j_js_strings(jsonw *w, const rep_report *r)
{
    const jsdup_result *d = r->js_strings;
    if (!d)
        return;
    rep_dupes_js_json_head(w, d);
    jsonw_kv_arr_begin(w, "top_count");
    for (uint32_t i = 0; i < d->n_top_count; i++)
        j_js_group(w, r, d->top_count[i]);
    jsonw_arr_end(w);
    jsonw_kv_arr_begin(w, "top_size");
    for (uint32_t i = 0; i < d->n_top_size; i++)
        j_js_group(w, r, d->top_size[i]);
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void j_threads(jsonw *w, const rep_report *r)
{
    const graph *g = r->g;
    if (!r->threads)
        return;
    char buf[900];
    jsonw_kv_arr_begin(w, "threads");
    for (uint32_t i = 0; i < g->n_threads && i < REP_MAX_THREADS; i++) {
        const graph_thread *t = &g->threads[i];
        jsonw_obj_begin(w);
        /* as `threads` names them: a char[] name (JDK 8 and before) too */
        buf[0] = 0;
        if (t->node != GRAPH_NONE)
            rules_thread_name(g, t->node, buf, 256);
        jsonw_kv_str(w, "name", buf);
        if (t->node != GRAPH_NONE) {
            kv_id(w, "id", g, t->node);
            /* `threads`' keys: with its locals (MAT's Thread Overview), and the object's */
            uint64_t own = retained_of(r, t->node);
            jsonw_kv_uint(w, "retained_bytes", r->thread_with ? r->thread_with[i] : own);
            jsonw_kv_uint(w, "object_retained_bytes", own);
        }
        jsonw_kv_arr_begin(w, "frames");
        for (uint32_t k = 0; k < t->n_frames && k < REP_MAX_FRAMES; k++) {
            if (t->first_frame + k >= g->n_frames)
                break;
            rep_frame_fmt(g, &g->frames[t->first_frame + k], buf, sizeof buf);
            jsonw_str(w, buf);
        }
        jsonw_arr_end(w);
        jsonw_kv_arr_begin(w, "locals");
        uint32_t shown = 0;
        for (uint32_t k = 0; k < g->n_roots && shown < REP_MAX_LOCALS; k++) {
            const graph_root *ro = &g->roots[k];
            if (ro->kind != GRAPH_ROOT_JAVA_FRAME || ro->thread != t->serial ||
                ro->node >= g->n_nodes)
                continue;
            jsonw_obj_begin(w);
            jsonw_kv_int(w, "frame", ro->frame);
            kv_id(w, "id", g, ro->node);
            jsonw_kv_str(w, "class", node_label(g, ro->node));
            jsonw_kv_uint(w, "retained_bytes", retained_of(r, ro->node));
            jsonw_obj_end(w);
            shown++;
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

/* Copies src to out; with safe, the HTML-significant characters become \u escapes. They can
 * only occur inside JSON strings, where the escape means the same character. */
int rep_json_copy(FILE *out, const char *s, size_t n, int safe)
{
    if (!safe)
        return fwrite(s, 1, n, out) == n ? 0 : -1;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *esc = NULL;
        size_t skip = 1;
        unsigned char c = (unsigned char)s[i];
        if (c == '<')
            esc = "\\u003c";
        else if (c == '>')
            esc = "\\u003e";
        else if (c == '&')
            esc = "\\u0026";
        else if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                 ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
            esc = (unsigned char)s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
            skip = 3;
        }
        if (!esc)
            continue;
        fwrite(s + run, 1, i - run, out);
        fputs(esc, out);
        i += skip - 1;
        run = i + 1;
    }
    fwrite(s + run, 1, n - run, out);
    return ferror(out) ? -1 : 0;
}

int rep_report_json(FILE *out, const rep_report *r, int safe)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return -1;
    jsonw w;
    jsonw_init(&w, mem, 0);
    /* names are bounded too, not only lists: a dump whose one class is named with 200,000
     * characters repeats it in every row, and made a 636 MB page no browser opened */
    w.max_str = REP_MODEL_MAX_STR;
    jsonw_obj_begin(&w);
    jsonw_kv_uint(&w, "schema_version", REP_SCHEMA_VERSION);
    jsonw_kv_str(&w, "file", r->path ? r->path : r->g->path);
    jsonw_kv_str(&w, "format", r->g->format ? r->g->format : "");
    jsonw_kv_str(&w, "format_version", r->g->version);
    /* a dump cut short: every answer below is partial, and the page says so */
    jsonw_kv_bool(&w, "truncated", r->g->diag.n[DIAG_TRUNCATED] != 0);
    j_summary(&w, r);
    j_leaks(&w, r);
    j_suspects(&w, r);
    j_tables(&w, r);
    j_devtools(&w, r);
    j_clusters(&w, r);
    j_dupes(&w, r);
    j_js_strings(&w, r);
    j_threads(&w, r);
    jsonw_obj_end(&w);
    jsonw_finish(&w);
    int bad = fclose(mem) != 0;
    if (!bad)
        bad = rep_json_copy(out, buf, len, safe);
    free(buf);
    return bad ? -1 : 0;
}
