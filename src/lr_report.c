/* SPDX-License-Identifier: Apache-2.0 */
/* lr_report.c: the public renderers (top of the library), prefix lr_. Text is LeakCanary's
 * layout (report/text.c). JSON and HTML render the report model (report/model.h), whose
 * extra sections are computed here on the first such call, each only for the heaps that have
 * it: the classes table from `top`'s dominator tree (for V8 DevTools' Summary, beside the
 * clusters on DevTools' tree); for HPROF duplicate buffers and bitmaps, and threads; for
 * V8-style snapshots memlab's duplicate strings (as `leakray dupes`). A section that fails
 * for want of memory is left out rather than failing the whole report. */
#define _GNU_SOURCE /* open_memstream */
#include "lr_internal.h"
#include "base/clocale.h"

#include "analysis/memlabdom.h"
#include "analysis/threads.h"
#include "base/phase.h"
#include "format/v8.h"
#include "report/html.h"
#include "report/text.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static int class_row_cmp(const void *a, const void *b)
{
    const rep_class_row *x = a, *y = b;
    if (x->retained != y->retained)
        return x->retained < y->retained ? 1 : -1;
    if (x->shallow != y->shallow)
        return x->shallow < y->shallow ? 1 : -1;
    return (x->cls > y->cls) - (x->cls < y->cls);
}

/* The classes table of a V8 snapshot: DevTools' Summary numbers for every class it lists
 * (instances of nonzero size, their shallow bytes, retained bytes of those with no same-class
 * dominator in DevTools' tree), so the table, the Summary's biggest classes and the DevTools
 * tab agree. Read from the tree, the synthetic root made "(synthetic)" the biggest class at
 * the whole heap, and zero-size nodes (V8's (array) backing stores among them) added
 * retained bytes DevTools never counts. */
static lr_status devtools_rows(lr_analysis *an, lr_error *err)
{
    const devtools_result *d = &an->devtools;
    rep_class_row *rows = calloc(d->n_classes ? d->n_classes : 1, sizeof *rows);
    if (!rows)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (classes)", an->h->g.path);
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n_classes; i++) {
        const devtools_class *c = &d->classes[i];
        if (!c->shadowed) /* DevTools shows one row per public key: the last class */
            rows[n++] = (rep_class_row){c->cls, c->count, c->self, c->retained};
    }
    qsort(rows, n, sizeof *rows, class_row_cmp);
    an->class_rows = rows, an->rep.classes = rows, an->rep.n_classes = n;
    return LR_OK;
}

/* The classes table: instances and shallow bytes of every class, retained bytes without
 * double counting from tree t. V8 snapshots take DevTools' numbers (devtools_rows) and have
 * no table when DevTools' result could not be made. */
static lr_status class_rows(lr_analysis *an, const dom_tree *t, lr_error *err)
{
    const graph *g = &an->h->g;
    if (g->synthetic_root != GRAPH_NONE)
        return an->has_devtools ? devtools_rows(an, err) : LR_OK;
    uint32_t nc = g->n_classes;
    uint64_t *ret = calloc(nc ? nc : 1, sizeof *ret);
    uint32_t *cnt = calloc(nc ? nc : 1, sizeof *cnt);
    rep_class_row *rows = calloc(nc ? nc : 1, sizeof *rows);
    lr_status st = LR_OK;
    if (!ret || !cnt || !rows) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (classes)", g->path);
        goto done;
    }
    if ((st = dom_class_retained(g, t, ret, cnt, err)) != LR_OK)
        goto done;
    for (uint32_t c = 0; c < nc; c++)
        rows[c].cls = c, rows[c].retained = ret[c];
    for (node_ix x = 0; x < g->n_nodes; x++) {
        class_ix c = graph_node_class(g, x);
        if (c < nc) {
            rows[c].count++;
            rows[c].shallow += graph_node_size(g, x); /* as histo's: native bytes apart */
        }
    }
    uint32_t n = 0;
    for (uint32_t c = 0; c < nc; c++)
        if (rows[c].count)
            rows[n++] = rows[c];
    qsort(rows, n, sizeof *rows, class_row_cmp);
    an->class_rows = rows, an->rep.classes = rows, an->rep.n_classes = n;
    rows = NULL;
done:
    free(ret), free(cnt), free(rows);
    return st;
}

/* LEAKRAY_TIMINGS=1: each report phase's wall time on stderr (bench/html_report.sh). */
static int timings_on(void)
{
    static int on = -1; /* threads may race to set it, to the same value */
    int v = __atomic_load_n(&on, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *e = getenv("LEAKRAY_TIMINGS");
        v = e && *e && strcmp(e, "0") != 0;
        __atomic_store_n(&on, v, __ATOMIC_RELAXED);
    }
    return v;
}

static double ms_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t0->tv_sec) * 1e3 + (now.tv_nsec - t0->tv_nsec) / 1e6;
}

static void phase(const char *name)
{
    /* per thread: heaps may be rendered on several threads at once */
    static _Thread_local struct timespec last;
    if (timings_on() && name)
        fprintf(stderr, "leakray: report %-10s %8.1f ms\n", name, ms_since(&last));
    clock_gettime(CLOCK_MONOTONIC, &last);
}

/* The duplicates section, run beside the rest on the second core: HPROF's duplicate buffers,
 * bitmaps and strings, or on a V8-style snapshot memlab's duplicate strings, which need
 * memlab's own dominator tree (not DevTools', which the main thread builds meanwhile), made
 * and freed here. Both read the graph only and write only their own result. Failing leaves
 * the section out. */
typedef struct dupes_thread {
    lr_analysis *an;
    int js;          /* memlab's strings, not HPROF's buffers */
    pthread_t th;
    int started;
    double ms;       /* the job's own wall time */
} dupes_thread;

static void *dupes_run(void *arg)
{
    dupes_thread *dj = arg;
    lr_analysis *an = dj->an;
    graph *g = &an->h->g;
    lr_error scratch = {0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (dj->js) {
        mldom_tree dt;
        if (mldom_build(g, &dt, &scratch) == LR_OK) {
            if (jsdup_find(g, &dt, &an->jsdupes, &scratch) == LR_OK)
                an->has_jsdupes = 1;
            mldom_free(&dt);
        }
    } else {
        dupes_opts o = {DUPES_DEFAULT_MIN_BYTES, DUPES_DEFAULT_MIN_BITMAP, 0};
        if (dupes_find_groups(g, &o, &an->dupes, &scratch) == LR_OK)
            an->has_dupes = 1;
    }
    dj->ms = ms_since(&t0);
    return NULL;
}

/* Thread entry: a resource limit hit in the job names it, and its CPU time counts in the
 * main thread's phases (base/phase.h). */
static void *dupes_job(void *arg)
{
    phase_worker("duplicates");
    return dupes_run(arg);
}

/* Starts the job on another thread, or runs it here when no thread can be made. Once per
 * analysis: a render after a failed one finds the result already made. */
static void dupes_start(dupes_thread *dj, lr_analysis *an, int js)
{
    dj->an = an, dj->js = js;
    if (js ? an->has_jsdupes || !jsdup_applies(&an->h->g) : an->has_dupes)
        return;
    if (pthread_create(&dj->th, NULL, dupes_job, dj) == 0)
        dj->started = 1;
    else
        dupes_run(dj);
}

static void dupes_join(dupes_thread *dj)
{
    if (dj->started)
        pthread_join(dj->th, NULL);
    if (dj->started && timings_on())
        fprintf(stderr, "leakray: report %-10s %8.1f ms (beside the rest)\n",
                dj->js ? "js strings" : "dupes job", dj->ms);
    dj->started = 0;
}

static lr_status build_report(lr_analysis *an, lr_error *err)
{
    if (an->report_built)
        return LR_OK;
    graph *g = &an->h->g;
    int v8 = g->synthetic_root != GRAPH_NONE;
    lr_error scratch = {0};
    const dom_tree *t = an->dt;
    dupes_thread dj = {0};
    phase(NULL);
    /* the suspects' tree, when the analysis kept it, is this one: taken over, not rebuilt */
    int kept_dev = an->kept.impl && strcmp(an->kept.model, "devtools") == 0;
    if (an->kept.impl && kept_dev != v8)
        ret_free(&an->kept);
    if (v8) {
        /* memlab's duplicate strings on the second core from the start: its own tree is
         * as long to build as DevTools' below */
        dupes_start(&dj, an, 1);
        /* DevTools' tree, the one its Summary and the clusters are measured on. */
        lr_status tst;
        if (kept_dev) {
            if ((tst = cluster_dom_copy(g, an->kept.impl, &an->tree, err)) != LR_OK) {
                dupes_join(&dj);
                return tst;
            }
            an->devtools = *(devtools_result *)an->kept.impl;
            an->has_devtools = 1;
            free(an->kept.impl);
            memset(&an->kept, 0, sizeof an->kept);
        } else if ((tst = cluster_dom_build(g, &an->tree, err)) != LR_OK) {
            dupes_join(&dj);
            return tst;
        }
        an->has_tree = 1;
        t = &an->tree;
        if (!an->has_devtools && v8_class_keys(g) &&
            devtools_build_paths(g, v8_class_keys(g), &an->devtools, &scratch) == LR_OK)
            an->has_devtools = 1;
        crules_init(&an->crs);
        an->has_clusters = 1;
        if (crules_load_shipped(&an->crs, crules_shipped_file(g->format, g->version),
                                &scratch) != LR_OK ||
            cluster_bind(&an->cctx, g, &an->crs, t, &scratch) != LR_OK ||
            cluster_run(&an->cctx, NULL, CLUSTER_SORT_SIZE, &an->clusters, &scratch) != LR_OK) {
            cluster_result_free(&an->clusters);
            cluster_fini(&an->cctx);
            crules_fini(&an->crs);
            an->has_clusters = 0;
        }
    } else {
        /* The tree `leakray top` shows (VisualVM's conventions for HotSpot dumps, strong
         * references less Bitmap.dumpData otherwise), so the treemap, the tables and the
         * LARGEST RETAINERS give one node one retained size. */
        if (an->kept.impl) {
            an->tree = *(dom_tree *)an->kept.impl;
            free(an->kept.impl);
            memset(&an->kept, 0, sizeof an->kept);
        } else {
            dom_opts o = {0};
            edge_ix artifact = GRAPH_NONE;
            if (g->size_model == GRAPH_SIZES_VISUALVM) {
                dom_opts_visualvm(&o);
            } else if ((artifact = susp_artifact_edge(g)) != GRAPH_NONE) {
                o.reach = susp_filter_strong;
                o.reach_ctx = &artifact;
            }
            LR_TRY(dom_build_ex(g, &o, &an->tree, err));
        }
        an->has_tree = 1;
        t = &an->tree;
        /* Duplicates on the second core while the tables and views are built. */
        dupes_start(&dj, an, 0);
    }
    /* ArkTS: the clusters' tree counts native sizes, DevTools' and `top`'s do not */
    if (v8 && g->node_native && an->has_devtools) {
        lr_status vst = cluster_dom_devtools(g, &an->devtools, &an->view, err);
        if (vst != LR_OK) {
            dupes_join(&dj);
            return vst;
        }
        an->has_view = 1;
        t = &an->view;
    }
    phase(v8 ? "devtools" : "start");
    rep_report *r = &an->rep;
    r->g = g;
    r->analysis_ms = an->ms;
    if (an->tr && an->ls && an->rs) {
        r->rs = an->rs, r->ls = an->ls, r->tr = an->tr;
    }
    r->suspects = an->suspects;
    r->suspects_found = an->sr;
    r->dom = (domagg_input){t->idom, t->retained, DOM_SUPER_ROOT, t->total_reachable};
    if (v8 && g->synthetic_root < g->n_nodes) {
        /* The tree's one first-level node is the synthetic root: start below it. */
        r->dom.top_mark = g->synthetic_root;
        r->dom.total = t->retained[g->synthetic_root];
    }
    r->n_reachable = t->n_reachable;
    r->devtools = an->has_devtools ? &an->devtools : NULL;
    r->clusters_ctx = an->has_clusters ? &an->cctx : NULL;
    r->clusters = an->has_clusters ? &an->clusters : NULL;
    r->threads = g->n_threads > 0;
    /* the Threads tab sizes a thread with its locals, as `threads` and the suspects do;
     * without memory for that tree, the thread objects' own */
    if (r->threads && !v8 && (an->thread_with = malloc(g->n_threads * sizeof *an->thread_with)) &&
        threads_with_locals(g, an->thread_with, NULL, &scratch) != LR_OK) {
        free(an->thread_with);
        an->thread_with = NULL;
    }
    r->thread_with = an->thread_with;
    lr_status st = class_rows(an, t, err);
    phase("classes");
    if (st == LR_OK)
        st = rep_report_build(r, err);
    phase("views");
    dupes_join(&dj);
    phase("dupes");
    if (st != LR_OK)
        return st;
    r->dupes = an->has_dupes ? &an->dupes : NULL;
    r->js_strings = an->has_jsdupes ? &an->jsdupes : NULL;
    an->report_built = 1;
    return LR_OK;
}

static lr_status render_c(lr_analysis *an, lr_render_format fmt, const lr_render_opts *opts,
                          FILE *out, lr_error *err)
{
    if (!an || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_render: analysis and out are required");
    const graph *g = &an->h->g;
    const char *path = opts && opts->dump_path ? opts->dump_path : g->path;
    int no_timing = opts ? opts->no_timing : 0;
    int bad;
    switch (fmt) {
    case LR_RENDER_TEXT: {
        /* A library caller writes to a file or buffer, not a terminal: no zero-width spaces. */
        rep_text_opts o = {path, no_timing, an->ms, an->suspects, NULL, TRACE_DEFAULT_TRACES,
                           an->sr, 0, 0};
        rep_text_analysis(out, g, an->rs, an->ls, an->tr, &o);
        bad = ferror(out);
        break;
    }
    case LR_RENDER_JSON:
    case LR_RENDER_HTML:
        LR_TRY(build_report(an, err));
        an->rep.path = path;
        an->rep.no_timing = no_timing;
        bad = fmt == LR_RENDER_JSON ? rep_report_json(out, &an->rep, 0) : rep_html(out, &an->rep);
        phase("render");
        break;
    default:
        return LR_FAIL(err, LR_ERR_USAGE, "lr_render: unknown format %d", (int)fmt);
    }
    if (bad || fflush(out) != 0)
        return LR_FAIL(err, LR_ERR_IO, "%s: writing the report failed", path);
    return LR_OK;
}

/* The bytes a write to out may add before the file-size limit (ulimit -f): 1 and *room when
 * a limit applies to it (a regular file), else 0. */
static int fsize_room(FILE *out, uint64_t *room)
{
    struct rlimit rl;
    struct stat st;
    int fd = fileno(out);
    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || fd < 0 ||
        fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    off_t at = ftello(out);
    int fl = fcntl(fd, F_GETFL);
    if (at < 0 || (fl >= 0 && (fl & O_APPEND) && st.st_size > at))
        at = st.st_size;
    *room = (uint64_t)rl.rlim_cur > (uint64_t)at ? (uint64_t)rl.rlim_cur - (uint64_t)at : 0;
    return 1;
}

/* In the C locale: lr_render formats numbers (base/clocale.h). Under a file-size limit the
 * write that passes it raises SIGXFSZ, which ends a program that left the signal as it is
 * (the library changes no disposition): there the report is made in memory first, and
 * written only when it fits. */
lr_status lr_render(lr_analysis *an, lr_render_format fmt, const lr_render_opts *opts,
                    FILE *out, lr_error *err)
{
    uint64_t room;
    if (an && out && fsize_room(out, &room)) {
        char *buf = NULL;
        size_t len = 0;
        LR_TRY(lr_render_buffer(an, fmt, opts, &buf, &len, err));
        const char *path = opts && opts->dump_path ? opts->dump_path : an->h->g.path;
        lr_status st = LR_OK;
        if (len > room)
            st = LR_FAIL(err, LR_ERR_IO, "%s: the report (%zu bytes) passes the file-size "
                         "limit (ulimit -f): %llu bytes left in the file", path, len,
                         (unsigned long long)room);
        else if (fwrite(buf, 1, len, out) != len || fflush(out) != 0)
            st = LR_FAIL(err, LR_ERR_IO, "%s: writing the report failed", path);
        free(buf);
        return st;
    }
    locale_t was = clocale_enter();
    lr_status st = render_c(an, fmt, opts, out, err);
    clocale_leave(was);
    return st;
}

lr_status lr_render_buffer(lr_analysis *an, lr_render_format fmt, const lr_render_opts *opts,
                           char **buf, size_t *len, lr_error *err)
{
    if (!buf || !len)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_render_buffer: buf and len are required");
    *buf = NULL, *len = 0;
    FILE *mem = open_memstream(buf, len);
    if (!mem)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory (report buffer)");
    lr_status st = lr_render(an, fmt, opts, mem, err);
    if (fclose(mem) != 0 && st == LR_OK)
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory (report buffer)");
    if (st != LR_OK) {
        free(*buf);
        *buf = NULL, *len = 0;
    }
    return st;
}

void lr_free(void *p) { free(p); }
