/* SPDX-License-Identifier: Apache-2.0 */
/* analyze_json.c: `leakray analyze --json` (report layer), prefix rep_analyze_. Pure
 * formatting of the analysis results: each trace element with its status, reason, labels and
 * the reference leaving it; each group by signature; the suspects with their path from a GC
 * root cut to SUSP_PATH_ENDS objects at each end as the text does. Ids print as `show` takes
 * them (rep_fmt_id); percentages keep two decimals (the text prints one). The keys and their
 * order are docs/json.md "analyze": append-only, checked byte for byte by tests/e2e/identity.sh.
 * The vocabulary helpers at the top are shared with the report model's JSON (model.c). */
#include "report/analyze_json.h"

#include "report/fmt.h"
#include "report/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- vocabulary shared with the report model ---- */

const char *rep_trace_ref_key(unsigned t)
{
    switch (t) {
    case TRACE_REF_STATIC: return "static_field";
    case TRACE_REF_ARRAY: return "array_entry";
    case TRACE_REF_LOCAL: return "local";
    default: return "instance_field";
    }
}

const char *rep_trace_status_key(unsigned s)
{
    return s == TRACE_YES ? "YES" : s == TRACE_NO ? "NO" : "UNKNOWN";
}

const char *rep_leak_source_key(unsigned s)
{
    return s == LEAK_SRC_WATCHED ? "watched" : s == LEAK_SRC_RULE ? "rule" : "suspect";
}

const char *rep_node_type_key(const graph *g, node_ix n)
{
    switch (g->node_kind[n]) {
    case GRAPH_KIND_CLASS: return "class";
    case GRAPH_KIND_OBJ_ARRAY:
    case GRAPH_KIND_PRIM_ARRAY: return "array";
    default: return "instance";
    }
}

void rep_analyze_labels_json(jsonw *w, const char *labels, int verbose)
{
    jsonw_kv_arr_begin(w, "labels");
    const char *p = labels;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (rep_label_shown(p, verbose))
            jsonw_strn(w, p, len);
        p = nl ? nl + 1 : NULL;
    }
    jsonw_arr_end(w);
}

/* ---- analyze's document ---- */

static void json_elem_ex(jsonw *w, const graph *g, const trace_elem *e, int last, int verbose,
                         const trace_unreachable *u);

static void json_elem(jsonw *w, const graph *g, const trace_elem *e, int last, int verbose)
{
    json_elem_ex(w, g, e, last, verbose, NULL);
}

/* u: an unreachable object's own marks, or NULL */
static void json_elem_ex(jsonw *w, const graph *g, const trace_elem *e, int last, int verbose,
                         const trace_unreachable *u)
{
    char id[REP_FMT_MAX];
    jsonw_obj_begin(w);
    jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, e->node)));
    jsonw_kv_str(w, "class", e->class_name ? e->class_name : "");
    jsonw_kv_str(w, "type", rep_node_type_key(g, e->node));
    jsonw_kv_str(w, "leaking", rep_trace_status_key(e->status));
    jsonw_kv_str(w, "reason", e->reason ? e->reason : "");
    rep_analyze_labels_json(w, e->labels, verbose);
    if (e->has_retained) {
        jsonw_kv_uint(w, "retained_bytes", e->retained);
        jsonw_kv_uint(w, "retained_objects", e->retained_count);
    }
    if (!last) {
        char disp[600];
        trace_ref_display(e, disp, sizeof disp);
        jsonw_kv_obj_begin(w, "reference");
        jsonw_kv_str(w, "type", rep_trace_ref_key(e->ref_type));
        jsonw_kv_str(w, "owner", e->owner ? e->owner : "");
        jsonw_kv_str(w, "name", e->ref_name ? e->ref_name : "");
        jsonw_kv_str(w, "display", disp);
        jsonw_kv_bool(w, "suspect", e->suspect);
        /* "type" is LeakCanary's (a JS property reads instance_field): outside JVM dumps the
         * runtime's own kind of the edge too, as the snapshot has it */
        if (e->edge != GRAPH_NONE && e->edge < g->n_edges && rep_fmt_runtime(g) != REP_RT_JAVA)
            jsonw_kv_str(w, "edge_kind",
                         graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[e->edge])));
        jsonw_obj_end(w);
    }
    if (u) {
        jsonw_kv_bool(w, "held_by_ignored_references", u->ignored_only);
        jsonw_kv_bool(w, "garbage", u->garbage);
    }
    jsonw_obj_end(w);
}

/* --collapse under --json: the trace's runs of one category, indexes into "elements"
 * (the leaking object, last, is never merged). */
static void json_collapsed(jsonw *w, const trace *t, const cat_set *cs)
{
    uint32_t n = t->n ? t->n - 1 : 0;
    node_ix *nodes = err_mallocarray(n ? n : 1, sizeof *nodes);
    collapse_line *ln = err_mallocarray(n ? n : 1, sizeof *ln);
    jsonw_kv_arr_begin(w, "collapsed");
    for (uint32_t i = 0; nodes && ln && i < n; i++)
        nodes[i] = t->el[i].node;
    /* the two ends of a path with its middle left out are collapsed on their own */
    uint32_t h = t->elided && t->n_head < n ? t->n_head : n;
    uint32_t n_ln = nodes && ln ? collapse_path(cs, nodes, h, ln) : 0;
    if (nodes && ln && h < n) {
        uint32_t k = collapse_path(cs, nodes + h, n - h, ln + n_ln);
        for (uint32_t i = n_ln; i < n_ln + k; i++) {
            ln[i].first += h;
            ln[i].last += h;
        }
        n_ln += k;
    }
    for (uint32_t i = 0; i < n_ln; i++) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "category", cat_name(cs, ln[i].cat));
        jsonw_kv_uint(w, "count", collapse_count(&ln[i]));
        jsonw_kv_uint(w, "collections", ln[i].collections);
        jsonw_kv_uint(w, "from", ln[i].first);
        jsonw_kv_uint(w, "to", ln[i].last);
        jsonw_kv_str(w, "first_class", t->el[ln[i].first].class_name);
        jsonw_kv_str(w, "last_class", t->el[ln[i].last].class_name);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    free(nodes);
    free(ln);
}

/* A percentage with two decimals (the text prints one). */
static void kv_pct(jsonw *w, const char *k, double v)
{
    jsonw_key(w, k);
    jsonw_double(w, (double)llround(v * 100.0) / 100.0);
}

static void json_node(jsonw *w, const graph *g, node_ix x, uint64_t retained, uint64_t total)
{
    char id[REP_FMT_MAX], cls[300];
    jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, x)));
    jsonw_kv_str(w, "class", rep_class_label(g, x, cls, sizeof cls));
    jsonw_kv_str(w, "type", rep_node_type_key(g, x));
    jsonw_kv_uint(w, "retained_bytes", retained);
    kv_pct(w, "heap_percent", total ? 100.0 * (double)retained / (double)total : 0.0);
}

/* "suspects": the LARGEST RETAINERS section (docs/json.md). */
static void json_suspects(jsonw *w, const graph *g, const susp_result *sr)
{
    char name[256], ename[300];
    jsonw_kv_obj_begin(w, "suspect_settings");
    jsonw_kv_str(w, "model", sr->model ? sr->model : "");
    jsonw_kv_uint(w, "heap_bytes", sr->total);
    kv_pct(w, "share_percent", 100.0 * sr->share);
    kv_pct(w, "accumulation_percent", 100.0 * sr->accum);
    jsonw_obj_end(w);
    /* what java.lang.ref.Finalizer's queue holds, when it passes the share (as the text) */
    if (sr->pending_bytes &&
        (double)sr->pending_bytes >= sr->share * (double)(sr->total + sr->pending_bytes)) {
        jsonw_kv_obj_begin(w, "pending_finalization");
        jsonw_kv_uint(w, "objects", sr->pending_objects);
        jsonw_kv_uint(w, "bytes", sr->pending_bytes);
        if (sr->pending_class < g->n_classes) {
            jsonw_kv_str(w, "class", graph_str(g, g->classes[sr->pending_class].name));
            jsonw_kv_uint(w, "class_count", sr->pending_class_n);
        }
        jsonw_obj_end(w);
    }
    jsonw_kv_arr_begin(w, "suspects");
    for (uint32_t i = 0; i < sr->n; i++) {
        const susp_item *it = &sr->v[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "kind", susp_kind_name(it->kind));
        jsonw_kv_str(w, "description", it->text);
        json_node(w, g, it->node, it->retained, sr->total);
        if (it->kind == SUSP_INSTANCES || it->kind == SUSP_THREAD_LOCALS ||
            it->kind == SUSP_CLASSES)
            jsonw_kv_uint(w, "count", it->count);
        if (it->kind == SUSP_INSTANCES)
            jsonw_kv_str(w, "instances_of", graph_str(g, g->classes[it->cls].name));
        if (it->kind == SUSP_THREAD_LOCALS) {
            jsonw_kv_obj_begin(w, "thread");
            jsonw_kv_uint(w, "serial", it->thread_serial);
            jsonw_kv_str(w, "name", rules_thread_name(g, it->thread, name, sizeof name));
            if (it->thread != GRAPH_NONE)
                jsonw_kv_str(w, "id", rep_fmt_id(ename, g, graph_node_id(g, it->thread)));
            else
                jsonw_kv_null(w, "id");
            rep_frame_text(g, it->thread_serial, it->frame, ename, sizeof ename);
            jsonw_kv_str(w, "frame", ename);
            jsonw_obj_end(w);
        }
        jsonw_kv_obj_begin(w, "accumulation_point");
        uint64_t acc_ret = it->path_n ? it->path_retained[it->path_n - 1] : 0;
        json_node(w, g, it->accumulation, acc_ret, sr->total);
        jsonw_obj_end(w);
        jsonw_kv_obj_begin(w, "gc_root");
        unsigned rk = it->path_root < g->n_roots ? g->roots[it->path_root].kind
                                                 : GRAPH_ROOT_SYNTHETIC;
        jsonw_kv_str(w, "kind", it->path_n ? graph_root_kind_name(rk) : "");
        if (it->root_name[0])
            jsonw_kv_str(w, "description", it->root_name);
        else if (it->path_n && rk == GRAPH_ROOT_SYNTHETIC) /* as the text and the traces */
            jsonw_kv_str(w, "description", g->synthetic_root != GRAPH_NONE
                                               ? TRACE_ROOT_GLOBAL
                                               : trace_root_description(rk));
        jsonw_obj_end(w);
        /* a long path keeps SUSP_PATH_ENDS objects at each end, as the text does */
        uint32_t cut = it->path_n > 2 * SUSP_PATH_ENDS ? SUSP_PATH_ENDS : it->path_n;
        jsonw_kv_uint(w, "path_length", it->path_n);
        jsonw_kv_uint(w, "elided_objects", it->path_n - (cut < it->path_n ? 2 * cut : cut));
        jsonw_kv_arr_begin(w, "path");
        for (uint32_t k = 0; k < it->path_n; k++) {
            if (k == cut && cut < it->path_n)
                k = it->path_n - SUSP_PATH_ENDS;
            jsonw_obj_begin(w);
            json_node(w, g, it->path[k], it->path_retained[k], sr->total);
            if (k + 1 < it->path_n) {
                edge_ix e = it->path_edges[k];
                jsonw_kv_obj_begin(w, "reference");
                jsonw_kv_str(w, "kind", graph_edge_kind_name(rep_suspect_edge_kind(g, e)));
                jsonw_kv_str(w, "name", rep_suspect_edge_name(g, e, ename, sizeof ename));
                jsonw_kv_str(w, "owner", rep_ref_owner(g, it->path[k], e, name, sizeof name));
                jsonw_obj_end(w);
            }
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void rep_analyze_json(jsonw *w, const rep_analyze *v)
{
    const graph *g = v->g;
    const rules_set *rs = v->rs;
    const leak_set *ls = v->ls;
    const trace_result *tr = v->tr;
    const cat_set *cs = v->collapse;
    const susp_result *sr = v->suspects_found;
    int verbose = v->verbose;
    char id[REP_FMT_MAX];
    jsonw_kv_str(w, "file", v->path);
    /* when the heap was dumped (HPROF's header): the store dates a report by it, so two
     * copies of one dump, or a dump and its report, are one ingest */
    if (g->timestamp_ms)
        jsonw_kv_uint(w, "timestamp_ms", g->timestamp_ms);
    else
        jsonw_kv_null(w, "timestamp_ms");
    jsonw_kv_str(w, "mode", v->suspects ? "suspects" : "leaks");
    jsonw_kv_obj_begin(w, "build");
    jsonw_kv_bool(w, "android", rs->build.is_android);
    if (rs->build.has_sdk)
        jsonw_kv_int(w, "sdk_int", rs->build.sdk);
    else
        jsonw_kv_null(w, "sdk_int");
    jsonw_kv_str(w, "manufacturer", rs->build.manufacturer);
    jsonw_obj_end(w);
    jsonw_kv_uint(w, "leaking_objects", ls->n);
    jsonw_kv_uint(w, "keyed_weak_references", ls->n_kwrs);
    jsonw_kv_uint(w, "retained_yet_cleared", ls->n_cleared);
    jsonw_kv_uint(w, "also_retained", tr->n_also_retained);
    jsonw_kv_bool(w, "truncated", g->diag.n[DIAG_TRUNCATED] != 0);
    for (int lib = 0; lib < 2; lib++) {
        jsonw_kv_arr_begin(w, lib ? "library_leaks" : "application_leaks");
        uint32_t a = lib ? tr->n_app_groups : 0, b = lib ? tr->n_groups : tr->n_app_groups;
        for (uint32_t i = a; i < b; i++) {
            const trace_group *gr = &tr->groups[i];
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "signature", gr->fingerprint);
            if (gr->stable[0] && strcmp(gr->stable, gr->fingerprint))
                jsonw_kv_str(w, "stable_signature", gr->stable);
            jsonw_kv_str(w, "short_description", gr->short_desc);
            if (lib) {
                jsonw_kv_str(w, "pattern", rs->refs[gr->lib].pattern);
                jsonw_kv_str(w, "description", rs->refs[gr->lib].description);
            }
            jsonw_kv_uint(w, "retained_bytes", gr->retained);
            jsonw_kv_uint(w, "retained_objects", gr->retained_count);
            jsonw_kv_arr_begin(w, "traces");
            for (uint32_t k = 0; k < gr->n; k++)
                jsonw_uint(w, gr->traces[k]);
            jsonw_arr_end(w);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
    jsonw_kv_arr_begin(w, "traces");
    for (uint32_t i = 0; i < tr->n_traces; i++) {
        const trace *t = &tr->traces[i];
        const leak_object *lo = &ls->v[t->leak];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "leaking_object", rep_fmt_id(id, g, graph_node_id(g, lo->node)));
        jsonw_kv_str(w, "class", t->el[t->n - 1].class_name);
        jsonw_kv_str(w, "source", rep_leak_source_key(lo->source));
        jsonw_kv_str(w, "signature", t->fingerprint);
        if (t->stable[0] && strcmp(t->stable, t->fingerprint))
            jsonw_kv_str(w, "stable_signature", t->stable);
        jsonw_kv_bool(w, "library_leak", t->lib >= 0);
        jsonw_kv_uint(w, "group", t->group);
        if (lo->source == LEAK_SRC_SUSPECT && lo->top < g->n_nodes) {
            /* The dominator-tree top the accumulation point (the leaking object) lies under. */
            jsonw_kv_obj_begin(w, "suspect");
            jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, lo->top)));
            jsonw_kv_str(w, "class", graph_class_name(g, lo->top));
            if (v->dt && (v->dt->retained || v->dt->retained32))
                jsonw_kv_uint(w, "retained_bytes", dom_retained(v->dt, lo->top));
            jsonw_kv_str(w, "reason", lo->reason);
            jsonw_obj_end(w);
        }
        unsigned rk = t->root < g->n_roots ? g->roots[t->root].kind : GRAPH_ROOT_UNKNOWN;
        jsonw_kv_obj_begin(w, "gc_root");
        jsonw_kv_str(w, "kind", graph_root_kind_name(rk));
        jsonw_kv_str(w, "description", trace_root_text(g, t));
        jsonw_obj_end(w);
        /* elements[0 .. elided_after) start at the root, the rest end at the leaking
         * object; elided_objects path objects between them are left out */
        jsonw_kv_uint(w, "path_length", t->n + t->elided);
        jsonw_kv_uint(w, "elided_objects", t->elided);
        jsonw_kv_uint(w, "elided_after", t->elided ? t->n_head : t->n);
        jsonw_kv_arr_begin(w, "elements");
        for (uint32_t j = 0; j < t->n; j++)
            json_elem(w, g, &t->el[j], j + 1 == t->n, verbose);
        jsonw_arr_end(w);
        if (cs)
            json_collapsed(w, t, cs);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_arr_begin(w, "unreachable_objects");
    for (uint32_t i = 0; i < tr->n_unreachable; i++)
        json_elem_ex(w, g, &tr->unreachable[i].el, 1, verbose, &tr->unreachable[i]);
    jsonw_arr_end(w);
    if (sr)
        json_suspects(w, g, sr);
}
