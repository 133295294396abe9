/* SPDX-License-Identifier: Apache-2.0 */
/* lr_analysis.c: the public leak analysis, clusters and diff (top of the library), prefix
 * lr_. lr_analyze runs the pipeline `leakray analyze` runs -- shipped + user rules, leak
 * finding, paths, the dominator tree over the traces' own edges and roots, trace completion
 * -- plus the leak suspects (analyze's LARGEST RETAINERS, never traces) in the dump's
 * retained-size model, and keeps the results behind an opaque handle with accessors. As in
 * analyze, the suspects (their own tree, then their paths) run on a second thread beside
 * leak finding, the paths and the traces' tree on heaps of RET_SPLIT_MIN objects or more
 * when the memory limit leaves room for both trees and there are two CPUs to run on
 * (retained.h), else first and alone; paths come before the traces' dominator tree, so
 * their scratch is freed before the tree's exists. */
#define _POSIX_C_SOURCE 200809L
#include "lr_internal.h"
#include "base/clocale.h"
#include "report/model.h"

#include "analysis/diff.h"
#include "analysis/kinship.h"
#include "analysis/retained.h"
#include "format/v8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

lr_analysis *lr_analysis_wrap(lr_heap *h, const rules_set *rs, const leak_set *ls,
                              const trace_result *tr, const dom_tree *dt, int suspects,
                              const susp_result *sr, double ms)
{
    lr_analysis *an = calloc(1, sizeof *an);
    if (!an)
        return NULL;
    an->h = h, an->rs = rs, an->ls = ls, an->tr = tr, an->dt = dt;
    an->suspects = suspects, an->sr = sr, an->ms = ms;
    return an;
}

void lr_analysis_keep_tree(lr_analysis *an, ret_model *kept)
{
    ret_free(&an->kept);
    an->kept = *kept;
    memset(kept, 0, sizeof *kept);
}

/* A watch rule naming no class or field of the dump finds nothing and reads as "no leak":
 * the analysis keeps the message for its caller, as the CLI prints it. */
typedef struct warn_ctx {
    lr_analysis *an;
    const char *file; /* the rules file, or NULL for opts->watch */
} warn_ctx;

static void keep_warning(void *ctx, const char *msg)
{
    warn_ctx *w = ctx;
    lr_analysis *an = w->an;
    char **v = realloc(an->warn, (an->n_warn + 1) * sizeof *v);
    if (!v)
        return; /* a warning lost to a full memory is no reason to fail the analysis */
    an->warn = v;
    size_t len = (w->file ? strlen(w->file) + 2 : 0) + strlen(msg) + 1;
    char *m = malloc(len);
    if (!m)
        return;
    snprintf(m, len, "%s%s%s", w->file ? w->file : "", w->file ? ": " : "", msg);
    an->warn[an->n_warn++] = m;
}

lr_status lr_analyze(lr_heap *h, const lr_analyze_opts *o, lr_analysis **out, lr_error *err)
{
    return lr_analyze_keep(h, o, 0, out, err);
}

static lr_status analyze_keep_c(lr_heap *h, const lr_analyze_opts *o, int keep_tree,
                                lr_analysis **out, lr_error *err)
{
    if (out)
        *out = NULL;
    if (!h || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_analyze: heap and out are required");
    lr_analyze_opts def = {0};
    if (!o)
        o = &def;
    if (o->n_watch < 0 || (o->n_watch > 0 && !o->watch) ||
        (o->n_rules_files > 0 && !o->rules_files))
        return LR_FAIL(err, LR_ERR_USAGE, "lr_analyze: n_watch or n_rules_files without "
                       "their array");
    for (int i = 0; i < o->n_watch; i++)
        if (!o->watch[i])
            return LR_FAIL(err, LR_ERR_USAGE, "lr_analyze: watch[%d] is NULL (a class name "
                           "is needed; leaking_if[%d] may be NULL)", i, i);
    for (int i = 0; i < o->n_rules_files; i++)
        if (!o->rules_files[i])
            return LR_FAIL(err, LR_ERR_USAGE, "lr_analyze: rules_files[%d] is NULL", i);
    double t0 = now_ms();
    lr_analysis *an = calloc(1, sizeof *an);
    if (!an)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", h->g.path);
    an->h = h;
    an->owned = 1;
    rules_init(&an->own_rs);
    graph *g = &h->g;
    lr_status st = LR_OK;
    if (!o->no_shipped_rules)
        st = rules_load_defaults(&an->own_rs, g, err);
    for (int i = 0; st == LR_OK && i < o->n_rules_files; i++) {
        uint32_t before = an->own_rs.n_insp, refs_before = an->own_rs.n_refs;
        st = rules_load_file(&an->own_rs, o->rules_files[i], err);
        warn_ctx w = {an, o->rules_files[i]};
        if (st == LR_OK) {
            rules_watch_check(&an->own_rs, before, g, keep_warning, &w);
            rules_file_check(&an->own_rs, before, refs_before, g, keep_warning, &w);
        }
    }
    uint32_t first_watch = an->own_rs.n_insp;
    for (int i = 0; st == LR_OK && i < o->n_watch; i++)
        st = rules_add_watch(&an->own_rs, o->watch[i], o->leaking_if ? o->leaking_if[i] : NULL,
                             err);
    warn_ctx ow = {an, NULL};
    if (st == LR_OK)
        rules_watch_check(&an->own_rs, first_watch, g, keep_warning, &ow);
    if (st == LR_OK)
        st = rules_bind(&an->own_rs, g, err);
    /* the same suspects, in the same tree, as `leakray analyze`, on the other core when the
     * heap is big and memory allows */
    ret_job sj;
    int sj_on = st == LR_OK && !o->no_suspects;
    if (sj_on)
        ret_suspects_start_keep(&sj, g, v8_class_keys(g), SUSP_SHARE_DEFAULT,
                                SUSP_ACCUMULATION_DEFAULT, ret_split_min, &an->own_sr,
                                keep_tree ? &an->kept : NULL);
    if (st == LR_OK)
        st = leak_find(g, &an->own_rs, &an->own_ls, err);
    uint32_t n_detached;
    if (st == LR_OK && (o->detached > 0 || (o->detached == 0 && !o->n_watch)))
        st = leak_find_detached(g, &an->own_ls, &n_detached, err);
    lr_status found_st = st;
    an->sr = o->no_suspects ? NULL : &an->own_sr;
    an->suspects = an->own_ls.n == 0;
    /* every trace whole: a program reads them, and the screen's limits (100 traces given a
     * path, 50 objects each) left trace 101 on as its leaking object alone and joined two
     * steps by a reference that does not exist */
    const trace_opts whole = {0, 0, 0};
    /* the page (keep_tree) shows at most REP_MAX_TRACES traces of a path's two ends, as
     * analyze's screen: every path whole, in a list of 40,000 leaked elements each path as
     * long as its place, grew past 24 GB for a 6 MB dump */
    const trace_opts page = {TRACE_DEFAULT_STEPS, REP_MAX_TRACES, 0};
    if (st == LR_OK && an->own_ls.n > 0)
        st = trace_paths_opts(g, &an->own_rs, &an->own_ls, keep_tree ? &page : &whole,
                              &an->own_tr, err);
    /* sizes over the traces' own reachability, as analyze: the rules' edges and roots, Java
     * locals as references of their thread */
    dom_opts dopts = {0};
    dom_reach_table dtab = {{0}, NULL, 0};
    node_ix *lfrom = NULL, *lto = NULL;
    if (st == LR_OK && an->own_ls.n > 0) {
        st = trace_dom_view(g, &an->own_rs, NULL, &dopts, &dtab, &lfrom, &lto, err);
        if (st == LR_OK)
            st = dom_build_ex(g, &dopts, &an->own_dt, err);
        if (st == LR_OK)
            st = trace_finish_ex(g, &an->own_rs, &an->own_ls, &an->own_dt, &dopts,
                                 &an->own_tr, err);
    }
    trace_dom_view_free(&dtab, lfrom, lto);
    /* errors in the order the steps run on one core: leak finding, suspects, the traces */
    lr_error serr;
    memset(&serr, 0, sizeof serr);
    lr_status sst = sj_on ? ret_suspects_join(&sj, &serr) : LR_OK;
    if (sst != LR_OK && found_st == LR_OK) {
        if (err)
            *err = serr;
        st = sst;
    }
    an->rs = &an->own_rs, an->ls = &an->own_ls, an->tr = &an->own_tr, an->dt = &an->own_dt;
    an->ms = now_ms() - t0;
    if (st != LR_OK) {
        lr_analysis_free(an);
        return st;
    }
    *out = an;
    return LR_OK;
}

/* In the C locale: lr_analyze_keep formats (and parses) numbers (base/clocale.h). */
lr_status lr_analyze_keep(lr_heap *h, const lr_analyze_opts *o, int keep_tree,
                          lr_analysis **out, lr_error *err)
{
    locale_t was = clocale_enter();
    lr_status st = analyze_keep_c(h, o, keep_tree, out, err);
    clocale_leave(was);
    return st;
}

void lr_analysis_free(lr_analysis *an)
{
    if (!an)
        return;
    rep_report_fini(&an->rep);
    free(an->class_rows);
    if (an->has_devtools)
        devtools_free(&an->devtools);
    if (an->has_clusters) {
        cluster_result_free(&an->clusters);
        cluster_fini(&an->cctx);
        crules_fini(&an->crs);
    }
    if (an->has_tree)
        dom_free(&an->tree);
    if (an->has_view)
        dom_free(&an->view);
    free(an->thread_with);
    for (uint32_t i = 0; i < an->n_warn; i++)
        free(an->warn[i]);
    free(an->warn);
    ret_free(&an->kept);
    if (an->has_dupes)
        dupes_free(&an->dupes);
    if (an->has_jsdupes)
        jsdup_free(&an->jsdupes);
    if (an->owned) {
        trace_result_free(&an->own_tr);
        leak_set_free(&an->own_ls);
        dom_free(&an->own_dt);
        susp_free(&an->own_sr);
        rules_fini(&an->own_rs);
    }
    free(an);
}

int lr_analysis_suspects(const lr_analysis *an) { return an ? an->suspects : 0; }
uint32_t lr_analysis_warning_count(const lr_analysis *an) { return an ? an->n_warn : 0; }
const char *lr_analysis_warning(const lr_analysis *an, uint32_t i)
{
    return an && i < an->n_warn ? an->warn[i] : NULL;
}
uint32_t lr_analysis_trace_count(const lr_analysis *an) { return an ? an->tr->n_traces : 0; }
uint32_t lr_analysis_unreachable_count(const lr_analysis *an)
{
    return an ? an->tr->n_unreachable : 0;
}
uint32_t lr_analysis_group_count(const lr_analysis *an) { return an ? an->tr->n_groups : 0; }

uint32_t lr_analysis_suspect_count(const lr_analysis *an)
{
    return an && an->sr ? an->sr->n : 0;
}

uint64_t lr_analysis_suspect_heap(const lr_analysis *an)
{
    return an && an->sr ? an->sr->total : 0;
}

lr_status lr_analysis_suspect(const lr_analysis *an, uint32_t i, lr_suspect *out, lr_error *err)
{
    if (!out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_analysis_suspect: out is required");
    if (!an || !an->sr || i >= an->sr->n)
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "lr_analysis_suspect: no suspect %u", i);
    const susp_item *it = &an->sr->v[i];
    const graph *g = &an->h->g;
    out->kind = susp_kind_name(it->kind);
    out->description = it->text;
    out->object = it->node;
    out->retained = it->retained;
    out->count = it->kind == SUSP_INSTANCES || it->kind == SUSP_THREAD_LOCALS ||
                         it->kind == SUSP_CLASSES
                     ? it->count
                     : 0;
    out->instances_of = it->kind == SUSP_INSTANCES ? it->cls : LR_NONE;
    out->thread = it->kind == SUSP_THREAD_LOCALS ? it->thread : LR_NONE;
    out->accumulation = it->accumulation;
    out->accumulation_retained = it->path_n ? it->path_retained[it->path_n - 1] : 0;
    out->path_length = it->path_n;
    out->gc_root = it->path_n && it->path_root < g->n_roots
                       ? graph_root_kind_name(g->roots[it->path_root].kind)
                   : it->path_n ? graph_root_kind_name(GRAPH_ROOT_SYNTHETIC)
                                : "";
    return LR_OK;
}

lr_object lr_analysis_suspect_path(const lr_analysis *an, uint32_t i, uint32_t k)
{
    if (!an || !an->sr || i >= an->sr->n || k >= an->sr->v[i].path_n)
        return LR_NONE;
    return an->sr->v[i].path[k];
}

lr_status lr_analysis_group(const lr_analysis *an, uint32_t i, lr_leak_group *out,
                            lr_error *err)
{
    if (!out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_analysis_group: out is required");
    if (!an || i >= an->tr->n_groups)
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "lr_analysis_group: no group %u", i);
    const trace_group *gr = &an->tr->groups[i];
    int lib = i >= an->tr->n_app_groups && gr->lib >= 0;
    out->signature = gr->fingerprint;
    out->title = gr->short_desc;
    out->library = i >= an->tr->n_app_groups;
    out->pattern = lib ? an->rs->refs[gr->lib].pattern : "";
    out->description = lib ? an->rs->refs[gr->lib].description : "";
    out->retained = gr->retained;
    out->retained_objects = gr->retained_count;
    out->n_traces = gr->n;
    return LR_OK;
}

const char *lr_analysis_group_stable_signature(const lr_analysis *an, uint32_t i)
{
    if (!an || i >= an->tr->n_groups)
        return NULL;
    const trace_group *gr = &an->tr->groups[i];
    return gr->stable[0] ? gr->stable : gr->fingerprint;
}

uint32_t lr_analysis_group_trace(const lr_analysis *an, uint32_t i, uint32_t k)
{
    if (!an || i >= an->tr->n_groups || k >= an->tr->groups[i].n)
        return UINT32_MAX;
    return an->tr->groups[i].traces[k];
}

lr_status lr_analysis_trace(const lr_analysis *an, uint32_t t, lr_trace *out, lr_error *err)
{
    if (!out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_analysis_trace: out is required");
    if (!an || t >= an->tr->n_traces)
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "lr_analysis_trace: no trace %u", t);
    const trace *tr = &an->tr->traces[t];
    const leak_object *lo = &an->ls->v[tr->leak];
    const graph *g = &an->h->g;
    out->leaking = lo->node;
    out->signature = tr->fingerprint;
    out->group = tr->group;
    out->gc_root = trace_root_text(g, tr);
    out->source = lo->source == LEAK_SRC_WATCHED ? "watched"
                  : lo->source == LEAK_SRC_RULE  ? "rule"
                                                 : "suspect";
    out->n_steps = tr->n;
    return LR_OK;
}

lr_status lr_analysis_step(lr_analysis *an, uint32_t t, uint32_t j, lr_trace_step *out,
                           lr_error *err)
{
    if (!out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_analysis_step: out is required");
    if (!an || t >= an->tr->n_traces || j >= an->tr->traces[t].n)
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "lr_analysis_step: no step %u of trace %u", j, t);
    const trace *tr = &an->tr->traces[t];
    const trace_elem *e = &tr->el[j];
    an->step_ref[0] = 0;
    if (j + 1 < tr->n)
        trace_ref_display(e, an->step_ref, sizeof an->step_ref);
    out->object = e->node;
    out->class_name = e->class_name ? e->class_name : "";
    out->leaking = e->status == TRACE_YES  ? LR_LEAKING_YES
                   : e->status == TRACE_NO ? LR_LEAKING_NO
                                           : LR_LEAKING_UNKNOWN;
    out->reason = e->reason ? e->reason : "";
    out->labels = e->labels ? e->labels : "";
    out->reference = an->step_ref;
    out->suspect = j + 1 < tr->n && e->suspect;
    out->has_retained = e->has_retained;
    out->retained = e->retained;
    out->retained_objects = e->retained_count;
    return LR_OK;
}

/* ---- clusters ---- */

struct lr_clusters {
    lr_heap *h;
    crules_set rs;
    dom_tree dt;
    cluster_ctx c;
    cluster_result r;
    char **titles; /* per cluster, made by lr_clusters_build */
};

void lr_clusters_free(lr_clusters *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; c->titles && i < c->r.n; i++)
        free(c->titles[i]);
    free(c->titles);
    cluster_result_free(&c->r);
    cluster_fini(&c->c);
    dom_free(&c->dt);
    crules_fini(&c->rs);
    free(c);
}

static lr_status clusters_build_c(lr_heap *h, const char *const *rules_files, int n_rules,
                                  lr_clusters **out, lr_error *err)
{
    if (out)
        *out = NULL;
    if (!h || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_clusters_build: heap and out are required");
    /* as lr_analyze checks its rules files (a NULL array was read through) */
    if (n_rules < 0 || (n_rules > 0 && !rules_files))
        return LR_FAIL(err, LR_ERR_USAGE, "lr_clusters_build: n_rules without its array");
    for (int i = 0; i < n_rules; i++)
        if (!rules_files[i])
            return LR_FAIL(err, LR_ERR_USAGE, "lr_clusters_build: rules_files[%d] is NULL", i);
    lr_clusters *c = calloc(1, sizeof *c);
    if (!c)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", h->g.path);
    c->h = h;
    crules_init(&c->rs);
    lr_status st = LR_OK;
    for (int i = 0; st == LR_OK && i < n_rules; i++)
        st = crules_load_file(&c->rs, rules_files[i], err);
    if (st == LR_OK)
        st = crules_load_shipped(&c->rs, crules_shipped_file(h->g.format, h->g.version), err);
    if (st == LR_OK)
        st = cluster_dom_build(&h->g, &c->dt, err);
    if (st == LR_OK)
        st = cluster_bind(&c->c, &h->g, &c->rs, &c->dt, err);
    if (st == LR_OK)
        st = cluster_run(&c->c, NULL, CLUSTER_SORT_SIZE, &c->r, err);
    if (st == LR_OK && !(c->titles = calloc(c->r.n ? c->r.n : 1, sizeof *c->titles)))
        st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (cluster titles)", h->g.path);
    for (uint32_t i = 0; st == LR_OK && i < c->r.n; i++) {
        char t[CLUSTER_TITLE_MAX];
        if (!(c->titles[i] = strdup(cluster_title(&c->c, &c->r.items[i], t, sizeof t))))
            st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (cluster titles)", h->g.path);
    }
    if (st != LR_OK) {
        lr_clusters_free(c);
        return st;
    }
    *out = c;
    return LR_OK;
}

/* In the C locale: lr_clusters_build formats (and parses) numbers (base/clocale.h). */
lr_status lr_clusters_build(lr_heap *h, const char *const *rules_files, int n_rules,
                            lr_clusters **out, lr_error *err)
{
    locale_t was = clocale_enter();
    lr_status st = clusters_build_c(h, rules_files, n_rules, out, err);
    clocale_leave(was);
    return st;
}

uint32_t lr_clusters_count(const lr_clusters *c) { return c ? c->r.n : 0; }

lr_status lr_clusters_get(const lr_clusters *c, uint32_t i, lr_cluster *out, lr_error *err)
{
    if (!c || !out || i >= c->r.n)
        return LR_FAIL(err, LR_ERR_NOT_FOUND, "lr_clusters_get: no cluster %u", i);
    const cluster_item *it = &c->r.items[i];
    out->title = c->titles[i];
    out->rule = crules_by_name(it->by);
    out->origin = c->c.dir_names[it->dir];
    out->count = it->count;
    out->shallow = it->shallow;
    out->retained = it->retained;
    out->representative = it->rep;
    return LR_OK;
}

/* ---- diff ---- */

struct lr_diff {
    diff_result r;
    lr_diff_row *rows;
    lr_diff_row total;
    char warning[1024]; /* lr_diff_warning */
};

static void diff_warn(lr_diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diff_warn(lr_diff *d, const char *fmt, ...)
{
    size_t len = strlen(d->warning);
    if (len && len + 2 < sizeof d->warning)
        memcpy(d->warning + len, "; ", 3), len += 2;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->warning + len, sizeof d->warning - len, fmt, ap);
    va_end(ap);
}

/* Whether a and b can be compared (analysis/kinship.h), as `leakray diff` decides: LR_OK, or
 * LR_ERR_USAGE saying why. *by_id is cleared where the writer renumbered the ids. */
static lr_status diff_related(const lr_heap *a, const lr_heap *b, int *by_id, int force,
                              lr_diff *d, lr_error *err)
{
    const char *na = a->g.path ? a->g.path : "", *nb = b->g.path ? b->g.path : "";
    /* a built heap is the generic graph's model: it compares with a loaded one */
    const char *fa = lr_heap_format(a), *fb = lr_heap_format(b);
    if (!strcmp(fa, "builder"))
        fa = "graph";
    if (!strcmp(fb, "builder"))
        fb = "graph";
    if (strcmp(fa, fb) != 0)
        return LR_FAIL(err, LR_ERR_USAGE,
                       "%s is %s, %s is %s: only snapshots of one format can be compared", na,
                       lr_heap_format(a), nb, lr_heap_format(b));
    if (!graph_has_ids(&a->g) || !graph_has_ids(&b->g))
        return LR_OK;
    kin_print pa = {0}, pb = {0};
    lr_status st = kin_print_build(&a->g, lr_heap_format(a), &pa, err);
    if (st == LR_OK)
        st = kin_print_build(&b->g, lr_heap_format(b), &pb, err);
    if (st == LR_OK) {
        kin_stats ks;
        char why[256];
        if (kin_compare(&pa, &pb, *by_id, &ks, why, sizeof why)) {
            if (kin_v8_opts_differ(&pa, &pb, why, sizeof why))
                diff_warn(d, "%s and %s: %s; take both the same way", na, nb, why);
        } else if (!force) {
            st = LR_FAIL(err, LR_ERR_USAGE, "%s and %s: %s (LR_DIFF_FORCE compares them anyway)",
                         na, nb, why);
        } else {
            diff_warn(d, "%s and %s: %s; compared as asked (LR_DIFF_FORCE)", na, nb, why);
        }
        if (st == LR_OK && ks.ids_renumbered && *by_id) {
            *by_id = 0;
            diff_warn(d, "%s and %s: object ids renumbered: the writer numbers objects afresh "
                      "in every snapshot, so objects are compared per class", na, nb);
        }
    }
    kin_print_free(&pa);
    kin_print_free(&pb);
    return st;
}

static void diff_row_copy(const diff_row *s, lr_diff_row *d)
{
    d->class_name = s->name;
    d->count_a = s->count_a, d->count_b = s->count_b;
    d->size_a = s->size_a, d->size_b = s->size_b;
    d->n_new = s->n_new, d->n_deleted = s->n_deleted;
    d->count_delta = s->count_delta, d->size_delta = s->size_delta;
}

lr_status lr_diff_build(lr_heap *a, const lr_heap *b, int flags, lr_diff **out,
                        lr_error *err)
{
    if (out)
        *out = NULL;
    if (!a || !b || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_diff_build: two heaps and out are required");
    if (flags & ~(LR_DIFF_BY_ID | LR_DIFF_FORCE))
        return LR_FAIL(err, LR_ERR_USAGE, "lr_diff_build: unknown flags 0x%x", (unsigned)flags);
    lr_diff *d = calloc(1, sizeof *d);
    if (!d)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory (diff)");
    int by_id = (flags & LR_DIFF_BY_ID) != 0;
    lr_status st = diff_related(a, b, &by_id, (flags & LR_DIFF_FORCE) != 0, d, err);
    /* DevTools names the base's plain objects with the compared snapshot's interfaces. */
    if (st == LR_OK && by_id && v8_class_keys(&a->g) && v8_class_keys(&b->g))
        st = v8_apply_interfaces(&a->g, &b->g, err);
    if (st == LR_OK)
        st = diff_build(&a->g, &b->g, v8_class_keys(&a->g), v8_class_keys(&b->g), by_id,
                        &d->r, err);
    if (st == LR_OK) {
        d->rows = calloc(d->r.n ? d->r.n : 1, sizeof *d->rows);
        if (!d->rows)
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory (diff)");
    }
    if (st != LR_OK) {
        lr_diff_free(d);
        return st;
    }
    for (uint32_t i = 0; i < d->r.n; i++)
        diff_row_copy(&d->r.rows[i], &d->rows[i]);
    diff_row_copy(&d->r.total, &d->total);
    if (by_id && d->r.n_reused)
        diff_warn(d, "%llu ids name an object of another class or size in the second heap: "
                  "the collector gave their addresses to other objects, so matching by id "
                  "pairs objects that are not the same; the counts per class are the "
                  "comparison", (unsigned long long)d->r.n_reused);
    *out = d;
    return LR_OK;
}

const char *lr_diff_warning(const lr_diff *d) { return d ? d->warning : ""; }

uint32_t lr_diff_count(const lr_diff *d) { return d ? d->r.n : 0; }
const lr_diff_row *lr_diff_get(const lr_diff *d, uint32_t i)
{
    return d && i < d->r.n ? &d->rows[i] : NULL;
}
const lr_diff_row *lr_diff_total(const lr_diff *d) { return d ? &d->total : NULL; }

void lr_diff_free(lr_diff *d)
{
    if (!d)
        return;
    diff_free(&d->r);
    free(d->rows);
    free(d);
}
