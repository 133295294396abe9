/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_analyze.c: `leakray analyze FILE` (cli), prefix analyze_. LeakCanary-style leak
 * analysis: load the dump, optionally deobfuscate it with a ProGuard/R8 mapping, load the
 * shipped rules (jdk.rules, plus android.rules for Android dumps), user rules and --watch /
 * --leaking-if pairs, build the dominator tree with the same edge policy as the path search,
 * find leaking objects (watched by KeyedWeakReference, or declared by rules; MAT-style leak
 * suspects when there are none), build and group traces, and print the LeakCanary 2.14
 * report or, under --json, every trace (docs/json.md "analyze"). */
#include "cli.h"

#include "analysis/dominators.h"
#include "analysis/leakfind.h"
#include "analysis/collapse.h"
#include "analysis/trace.h"
#include "report/text.h"
#include "rules/mapping.h"
#include "rules/rules.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* LEAKRAY_TIMINGS=1 prints each phase's wall and CPU time and the heap memory held at its
 * end (RssAnon) to stderr, for bench/analyze.sh. */
static void analyze_phase(const char *name, double *t)
{
    static int on = -1;
    static double last_cpu;
    if (on < 0) {
        const char *e = getenv("LEAKRAY_TIMINGS");
        on = e && *e && strcmp(e, "0") != 0;
    }
    double now = cli_now_ms();
    if (on && name) {
        /* RssAnon at the end of the phase: the heap memory still held. */
        long anon = -1;
        char line[128];
        FILE *f = fopen("/proc/self/status", "r");
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "RssAnon:", 8))
                anon = strtol(line + 8, NULL, 10);
        if (f)
            fclose(f);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
        fprintf(stderr, "leakray: %-10s %8.1f ms wall %8.1f ms cpu  anon %7.1f MB\n", name,
                now - *t, cpu - last_cpu, anon < 0 ? -1.0 : anon / 1024.0);
        last_cpu = cpu;
    }
    *t = now;
}

static const char *ref_type_key(unsigned t)
{
    switch (t) {
    case TRACE_REF_STATIC: return "static_field";
    case TRACE_REF_ARRAY: return "array_entry";
    case TRACE_REF_LOCAL: return "local";
    default: return "instance_field";
    }
}

static const char *status_key(unsigned s)
{
    return s == TRACE_YES ? "YES" : s == TRACE_NO ? "NO" : "UNKNOWN";
}

static const char *type_key(const graph *g, node_ix n)
{
    switch (g->node_kind[n]) {
    case GRAPH_KIND_CLASS: return "class";
    case GRAPH_KIND_OBJ_ARRAY:
    case GRAPH_KIND_PRIM_ARRAY: return "array";
    default: return "instance";
    }
}

static void json_labels(jsonw *w, const char *labels)
{
    jsonw_kv_arr_begin(w, "labels");
    const char *p = labels;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        jsonw_strn(w, p, len);
        p = nl ? nl + 1 : NULL;
    }
    jsonw_arr_end(w);
}

static void json_elem(jsonw *w, const graph *g, const trace_elem *e, int last)
{
    char id[CLI_FMT_MAX];
    jsonw_obj_begin(w);
    jsonw_kv_str(w, "id", cli_fmt_id(id, g, graph_node_id(g, e->node)));
    jsonw_kv_str(w, "class", e->class_name ? e->class_name : "");
    jsonw_kv_str(w, "type", type_key(g, e->node));
    jsonw_kv_str(w, "leaking", status_key(e->status));
    jsonw_kv_str(w, "reason", e->reason ? e->reason : "");
    json_labels(w, e->labels);
    if (e->has_retained) {
        jsonw_kv_uint(w, "retained_bytes", e->retained);
        jsonw_kv_uint(w, "retained_objects", e->retained_count);
    }
    if (!last) {
        char disp[600];
        trace_ref_display(e, disp, sizeof disp);
        jsonw_kv_obj_begin(w, "reference");
        jsonw_kv_str(w, "type", ref_type_key(e->ref_type));
        jsonw_kv_str(w, "owner", e->owner ? e->owner : "");
        jsonw_kv_str(w, "name", e->ref_name ? e->ref_name : "");
        jsonw_kv_str(w, "display", disp);
        jsonw_kv_bool(w, "suspect", e->suspect);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

static const char *source_key(unsigned s)
{
    return s == LEAK_SRC_WATCHED ? "watched" : s == LEAK_SRC_RULE ? "rule" : "suspect";
}

/* --collapse under --json: the trace's runs of one category, indexes into "elements"
 * (the leaking object, last, is never merged). */
static void json_collapsed(jsonw *w, const graph *g, const trace *t, const cat_set *cs)
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
    (void)g;
}

static void analyze_json(const cli_common *co, const char *path, const graph *g,
                         const rules_set *rs, const leak_set *ls, const trace_result *tr,
                         const dom_tree *dt, int suspects, double ms, const cat_set *cs)
{
    jsonw w;
    char id[CLI_FMT_MAX];
    cli_json_begin(&w);
    jsonw_kv_str(&w, "file", path);
    jsonw_kv_str(&w, "mode", suspects ? "suspects" : "leaks");
    jsonw_kv_obj_begin(&w, "build");
    jsonw_kv_bool(&w, "android", rs->build.is_android);
    if (rs->build.has_sdk)
        jsonw_kv_int(&w, "sdk_int", rs->build.sdk);
    else
        jsonw_kv_null(&w, "sdk_int");
    jsonw_kv_str(&w, "manufacturer", rs->build.manufacturer);
    jsonw_obj_end(&w);
    jsonw_kv_uint(&w, "leaking_objects", ls->n);
    jsonw_kv_uint(&w, "keyed_weak_references", ls->n_kwrs);
    jsonw_kv_uint(&w, "retained_yet_cleared", ls->n_cleared);
    jsonw_kv_uint(&w, "also_retained", tr->n_also_retained);
    jsonw_kv_bool(&w, "truncated", g->diag.n[DIAG_TRUNCATED] != 0);
    for (int lib = 0; lib < 2; lib++) {
        jsonw_kv_arr_begin(&w, lib ? "library_leaks" : "application_leaks");
        uint32_t a = lib ? tr->n_app_groups : 0, b = lib ? tr->n_groups : tr->n_app_groups;
        for (uint32_t i = a; i < b; i++) {
            const trace_group *gr = &tr->groups[i];
            jsonw_obj_begin(&w);
            jsonw_kv_str(&w, "signature", gr->fingerprint);
            jsonw_kv_str(&w, "short_description", gr->short_desc);
            if (lib) {
                jsonw_kv_str(&w, "pattern", rs->refs[gr->lib].pattern);
                jsonw_kv_str(&w, "description", rs->refs[gr->lib].description);
            }
            jsonw_kv_uint(&w, "retained_bytes", gr->retained);
            jsonw_kv_uint(&w, "retained_objects", gr->retained_count);
            jsonw_kv_arr_begin(&w, "traces");
            for (uint32_t k = 0; k < gr->n; k++)
                jsonw_uint(&w, gr->traces[k]);
            jsonw_arr_end(&w);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
    }
    jsonw_kv_arr_begin(&w, "traces");
    for (uint32_t i = 0; i < tr->n_traces; i++) {
        const trace *t = &tr->traces[i];
        const leak_object *lo = &ls->v[t->leak];
        jsonw_obj_begin(&w);
        jsonw_kv_str(&w, "leaking_object", cli_fmt_id(id, g, graph_node_id(g, lo->node)));
        jsonw_kv_str(&w, "class", t->el[t->n - 1].class_name);
        jsonw_kv_str(&w, "source", source_key(lo->source));
        jsonw_kv_str(&w, "signature", t->fingerprint);
        jsonw_kv_bool(&w, "library_leak", t->lib >= 0);
        jsonw_kv_uint(&w, "group", t->group);
        if (lo->source == LEAK_SRC_SUSPECT && lo->top < g->n_nodes) {
            /* The dominator-tree top the accumulation point (the leaking object) lies under. */
            jsonw_kv_obj_begin(&w, "suspect");
            jsonw_kv_str(&w, "id", cli_fmt_id(id, g, graph_node_id(g, lo->top)));
            jsonw_kv_str(&w, "class", graph_class_name(g, lo->top));
            if (dt->retained)
                jsonw_kv_uint(&w, "retained_bytes", dt->retained[lo->top]);
            jsonw_kv_str(&w, "reason", lo->reason);
            jsonw_obj_end(&w);
        }
        unsigned rk = t->root < g->n_roots ? g->roots[t->root].kind : GRAPH_ROOT_UNKNOWN;
        jsonw_kv_obj_begin(&w, "gc_root");
        jsonw_kv_str(&w, "kind", graph_root_kind_name(rk));
        jsonw_kv_str(&w, "description", trace_root_description(rk));
        jsonw_obj_end(&w);
        /* elements[0 .. elided_after) start at the root, the rest end at the leaking
         * object; elided_objects path objects between them are left out */
        jsonw_kv_uint(&w, "path_length", t->n + t->elided);
        jsonw_kv_uint(&w, "elided_objects", t->elided);
        jsonw_kv_uint(&w, "elided_after", t->elided ? t->n_head : t->n);
        jsonw_kv_arr_begin(&w, "elements");
        for (uint32_t j = 0; j < t->n; j++)
            json_elem(&w, g, &t->el[j], j + 1 == t->n);
        jsonw_arr_end(&w);
        if (cs)
            json_collapsed(&w, g, t, cs);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_kv_arr_begin(&w, "unreachable_objects");
    for (uint32_t i = 0; i < tr->n_unreachable; i++)
        json_elem(&w, g, &tr->unreachable[i].el, 1);
    jsonw_arr_end(&w);
    if (!co->no_timing)
        jsonw_kv_uint(&w, "analysis_ms", (uint64_t)(ms + 0.5));
    cli_json_end(co, &w);
}

int cmd_analyze(int argc, char **argv)
{
    cli_strlist rules_files = {{0}, 0}, watches = {{0}, 0}, ifs = {{0}, 0};
    const char *mapping = NULL;
    int fail_on_leak = 0, no_shipped = 0, collapse = 0, full = 0, allow_truncated = 0;
    uint64_t max_traces = TRACE_DEFAULT_TRACES;
    const char *categories = NULL;
    const cli_optdef opts[] = {
        {"--rules", CLI_OPT_LIST, &rules_files, "FILE", "extra rules file (repeatable)", NULL},
        {"--watch", CLI_OPT_LIST, &watches, "CLASS",
         "treat instances of CLASS as leaking (with the next --leaking-if)", NULL},
        {"--leaking-if", CLI_OPT_LIST, &ifs, "EXPR",
         "condition for the matching --watch, e.g. 'destroyed == true'", NULL},
        {"--mapping", CLI_OPT_STR, &mapping, "FILE", "ProGuard/R8 mapping to deobfuscate names",
         NULL},
        {"--fail-on-leak", CLI_OPT_FLAG, &fail_on_leak, NULL,
         "exit 1 when application or library leaks are found (3 on a truncated dump)", NULL},
        {"--allow-truncated", CLI_OPT_FLAG, &allow_truncated, NULL,
         "with --fail-on-leak, judge a dump that was cut short like a complete one", NULL},
        {"--no-shipped-rules", CLI_OPT_FLAG, &no_shipped, NULL,
         "do not load jdk.rules / android.rules", NULL},
        {"--collapse", CLI_OPT_FLAG, &collapse, NULL,
         "merge runs of one category (element, widget, view...) in traces into one line", NULL},
        {"--categories", CLI_OPT_STR, &categories, "NAME|FILE",
         "category rules for --collapse: flutter (default), android-views, or a file", NULL},
        {"--max-traces", CLI_OPT_UINT, &max_traces, "N",
         "leak traces printed with their path (default 100, 0 = all)", NULL},
        {"--full", CLI_OPT_FLAG, &full, NULL,
         "print every trace and whole paths (default: 50 objects per trace, both ends)", NULL},
        {0}};
    const cli_spec spec = {
        "analyze", "FILE", "LeakCanary-style leak traces of watched and rule-matched objects",
        opts, 1, 1,
        "Leaking objects: instances watched by leakcanary.KeyedWeakReference, objects a rule\n"
        "declares leaking, and --watch CLASS [--leaking-if EXPR] pairs. When none is found, the\n"
        "report lists leak suspects: dominator-tree tops over 10% of the heap, followed down to\n"
        "their accumulation point. Rules language: docs/rules.md.\n"
        "Example: leakray analyze app.hprof --watch com.example.Page --leaking-if 'destroyed'\n"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (ifs.n > watches.n)
        return cli_usage_error(&co, "--leaking-if needs a --watch CLASS before it");
    cat_set cs;
    if ((rc = cli_categories(&co, collapse, categories, &cs)) != 0)
        return rc;
#ifdef __GLIBC__
    /* The phases allocate and free arrays of N entries one after another; a fixed mmap
     * threshold hands each back to the system when freed (glibc's adaptive threshold would
     * move them to the heap after the first free, and the heap keeps them), so the peak is
     * one phase's scratch, not the sum. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    double t0 = cli_now_ms(), tp = t0;
    lr_heap *h;
    if ((rc = cli_open(&co, co.pos[0], 0, &h)) != 0) {
        cat_fini(&cs);
        return rc;
    }
    analyze_phase("load", &tp);
    graph *g = lr_heap_graph(h);
    lr_error err;
    memset(&err, 0, sizeof err);
    rules_set rs;
    rules_init(&rs);
    leak_set ls;
    memset(&ls, 0, sizeof ls);
    trace_result tr;
    memset(&tr, 0, sizeof tr);
    dom_tree dt;
    memset(&dt, 0, sizeof dt);
    lr_status st = LR_OK;
    int suspects = 0;

    if (mapping)
        st = mapping_apply_file(g, mapping, &err);
    if (st == LR_OK && !no_shipped) {
        st = rules_load_shipped(&rs, "jdk.rules", &err);
        if (st == LR_OK && graph_find_class(g, "android.os.Build") != GRAPH_NONE)
            st = rules_load_shipped(&rs, "android.rules", &err);
    }
    for (int i = 0; st == LR_OK && i < rules_files.n; i++)
        st = rules_load_file(&rs, rules_files.v[i], &err);
    for (int i = 0; st == LR_OK && i < watches.n; i++)
        st = rules_add_watch(&rs, watches.v[i], i < ifs.n ? ifs.v[i] : NULL, &err);
    if (st == LR_OK)
        st = rules_bind(&rs, g, &err);
    if (st == LR_OK && collapse)
        st = cat_bind(&cs, g, &err);
    analyze_phase("rules", &tp);
    /* Paths first when something is watched: trace_paths frees its per-node forest before the
     * dominator scratch is allocated, so the two never add up. Suspects need the dominator
     * tree to be found, so their paths come after it. */
    if (st == LR_OK)
        st = leak_find(g, &rs, &ls, &err);
    analyze_phase("leakfind", &tp);
    /* --collapse folds long runs itself: it gets paths up to TRACE_COLLAPSE_STEPS whole */
    trace_opts topts = {full ? 0 : collapse ? TRACE_COLLAPSE_STEPS : TRACE_DEFAULT_STEPS,
                        full || max_traces > UINT32_MAX ? 0 : (uint32_t)max_traces};
    if (st == LR_OK && ls.n > 0)
        st = trace_paths_opts(g, &rs, &ls, &topts, &tr, &err);
    analyze_phase("paths", &tp);
    if (st == LR_OK)
        st = dom_build(g, trace_dom_filter, &rs, &dt, &err);
    analyze_phase("dominators", &tp);
    if (st == LR_OK && ls.n == 0) {
        suspects = 1;
        st = leak_suspects(g, &dt, 0.10, 0.70, &ls, &err);
        if (st == LR_OK)
            st = trace_paths_opts(g, &rs, &ls, &topts, &tr, &err);
    }
    if (st == LR_OK)
        st = trace_finish(g, &rs, &ls, &dt, &tr, &err);
    analyze_phase("traces", &tp);
    double ms = cli_now_ms() - t0;
    if (st != LR_OK) {
        rc = cli_error(&co, &err);
    } else {
        char abs[PATH_MAX];
        const char *shown = realpath(co.pos[0], abs) ? abs : co.pos[0];
        if (co.json) {
            analyze_json(&co, shown, g, &rs, &ls, &tr, &dt, suspects, ms, collapse ? &cs : NULL);
        } else {
            rep_text_opts o = {shown, co.no_timing, ms, suspects, collapse ? &cs : NULL,
                               topts.max_traces};
            rep_text_analysis(stdout, g, &rs, &ls, &tr, &o);
        }
        analyze_phase("report", &tp);
        rc = CLI_EXIT_OK;
        if (fail_on_leak && !suspects && (tr.n_traces || tr.n_unreachable))
            rc = CLI_EXIT_FINDINGS;
        /* a verdict on part of a heap proves nothing: a CI gate must not rely on it */
        if (fail_on_leak && g->diag.n[DIAG_TRUNCATED] && !allow_truncated) {
            fprintf(stderr, "leakray: %s: dump is truncated, --fail-on-leak cannot pass on it "
                            "(--allow-truncated to judge it anyway)\n", co.pos[0]);
            rc = CLI_EXIT_INPUT;
        }
    }
    trace_result_free(&tr);
    leak_set_free(&ls);
    dom_free(&dt);
    rules_fini(&rs);
    cat_fini(&cs);
    lr_close(h);
    analyze_phase("free", &tp);
    return rc;
}
