/* SPDX-License-Identifier: Apache-2.0 */
/* threads.c: threads, their frames and locals as text and JSON (report layer), prefix
 * rep_threads_. Per thread: name, serial, object and retained size with locals, state; its
 * stack frames innermost first with the objects each frame's locals hold (JAVA_FRAME roots of
 * that serial and frame number), then locals whose frame is unknown. Android dumps carry no
 * frames; their locals still show. */
#include "report/threads.h"

#include "report/fmt.h"
#include "report/text.h"
#include "base/search.h"

#include <stdlib.h>
#include <string.h>

/* "class Foo" for a class object (a local holding a Class), else the object's class. */
static const char *threads_label(const graph *g, node_ix n, char *buf, size_t cap)
{
    class_ix c = g->node_kind[n] == GRAPH_KIND_CLASS ? graph_class_of_node(g, n) : GRAPH_NONE;
    if (c != GRAPH_NONE)
        snprintf(buf, cap, "class %s", graph_str(g, g->classes[c].name));
    else
        snprintf(buf, cap, "%s", graph_class_name(g, n));
    return buf;
}

static void put_local(FILE *out, jsonw *w, const threads_result *res, node_ix n,
                      const char *indent)
{
    char id[REP_FMT_MAX], sz[REP_FMT_MAX], lab[300];
    const graph *g = res->g;
    uint64_t ret = n < res->n_retained ? res->retained[n] : 0;
    threads_label(g, n, lab, sizeof lab);
    if (w) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, n)));
        jsonw_kv_str(w, "class", lab);
        jsonw_kv_uint(w, "shallow_bytes", graph_node_size(g, n));
        jsonw_kv_uint(w, "retained_bytes", ret);
        jsonw_obj_end(w);
    } else {
        fprintf(out, "%slocal %s %s, retained %s\n", indent, lab,
                rep_fmt_id(id, g, graph_node_id(g, n)), rep_fmt_bytes(sz, ret));
    }
}

/* Both forms share one walk: w non-NULL writes JSON, else text goes to out. */
/* A Java-frame root by thread serial and frame, for threads_walk: each thread, each frame,
 * reads its own (every root per frame made 25,000 threads 47 s). */
typedef struct frame_ref {
    uint32_t serial;
    int32_t frame;
    uint32_t root;
} frame_ref;

static int cmp_frame_ref(const void *pa, const void *pb)
{
    const frame_ref *a = pa, *b = pb;
    if (a->serial != b->serial)
        return a->serial < b->serial ? -1 : 1;
    if (a->frame != b->frame)
        return a->frame < b->frame ? -1 : 1;
    return a->root < b->root ? -1 : a->root > b->root;
}

static int cmp_u32(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* The threads to print, as indices in g->threads: all in dump order, or with top the `top`
 * that retain most, most first (ties in dump order). NULL when out of memory. */
static const threads_result *sort_res; /* cmp_retained's: qsort takes no context */

static int cmp_retained(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    uint64_t x = sort_res->rows[a].with_locals, y = sort_res->rows[b].with_locals;
    if (x != y)
        return x > y ? -1 : 1;
    return a < b ? -1 : a > b;
}

static uint32_t *thread_order(const threads_result *res, uint32_t top, uint32_t *n_out)
{
    uint32_t n = res->g->n_threads;
    uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (!ord)
        return NULL;
    for (uint32_t t = 0; t < n; t++)
        ord[t] = t;
    if (top && top < n) {
        sort_res = res;
        qsort(ord, n, sizeof *ord, cmp_retained);
        n = top;
    }
    *n_out = n;
    return ord;
}

static void threads_walk(FILE *out, jsonw *w, const threads_result *res, uint32_t top)
{
    const graph *g = res->g;
    char id[REP_FMT_MAX], sz[REP_FMT_MAX], fr[1400];
    uint32_t nref = 0;
    frame_ref *refs = malloc((g->n_roots ? g->n_roots : 1) * sizeof *refs);
    uint32_t *loose = malloc((g->n_roots ? g->n_roots : 1) * sizeof *loose);
    if (!refs || !loose) { /* the threads and frames still print, without their locals */
        fprintf(stderr, "leakray: out of memory listing the threads' locals\n");
        free(refs);
        free(loose);
        refs = NULL;
        loose = NULL;
    }
    for (uint32_t r = 0; refs && r < g->n_roots; r++)
        if (g->roots[r].kind == GRAPH_ROOT_JAVA_FRAME && g->roots[r].node < g->n_nodes)
            refs[nref++] = (frame_ref){g->roots[r].thread, g->roots[r].frame, r};
    if (nref)
        qsort(refs, nref, sizeof *refs, cmp_frame_ref);
    uint32_t n_show = 0;
    uint32_t *ord = thread_order(res, top, &n_show);
    if (!ord) {
        fprintf(stderr, "leakray: out of memory ordering the threads\n");
        n_show = 0;
    }
    for (uint32_t o = 0; o < n_show; o++) {
        uint32_t t = ord[o];
        const graph_thread *th = &g->threads[t];
        const threads_row *row = &res->rows[t];
        node_ix tn = row->node;
        const char *name = row->name;
        uint64_t ret = row->with_locals;
        const char *state = row->state;
        int daemon = row->daemon;
        if (w) {
            jsonw_obj_begin(w);
            jsonw_kv_uint(w, "serial", th->serial);
            jsonw_kv_str(w, "name", name);
            if (tn != GRAPH_NONE) {
                jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, tn)));
                jsonw_kv_str(w, "class", graph_class_name(g, tn));
            } else {
                jsonw_kv_null(w, "id");
                jsonw_kv_null(w, "class");
            }
            jsonw_kv_uint(w, "retained_bytes", ret);
            jsonw_kv_uint(w, "object_retained_bytes",
                          tn < res->n_retained ? res->retained[tn] : 0);
            if (state)
                jsonw_kv_str(w, "state", state);
            else
                jsonw_kv_null(w, "state");
            if (daemon >= 0)
                jsonw_kv_bool(w, "daemon", daemon);
            else
                jsonw_kv_null(w, "daemon");
            jsonw_kv_arr_begin(w, "frames");
        } else {
            char nb[1024], cb[1024]; /* a thread's name is the program's: escaped */
            fprintf(out, "%sThread \"%s\" serial %u", o ? "\n" : "",
                    rep_fmt_term(nb, sizeof nb, name), th->serial);
            if (tn != GRAPH_NONE)
                fprintf(out, " (%s %s, retained with locals %s)",
                        rep_fmt_term(cb, sizeof cb, graph_class_name(g, tn)),
                        rep_fmt_id(id, g, graph_node_id(g, tn)), rep_fmt_bytes(sz, ret));
            if (state || daemon > 0)
                fprintf(out, " %s%s%s", state ? state : "", state && daemon > 0 ? " " : "",
                        daemon > 0 ? "daemon" : "");
            fprintf(out, "\n");
        }
        uint32_t k0, k1, k;
        SEARCH_LOWER_BOUND(uint32_t, 0, nref, refs[search_mid].serial < th->serial, k0);
        for (k1 = k0; k1 < nref && refs[k1].serial == th->serial; k1++)
            ;
        for (k = k0; k < k1 && refs[k].frame < 0; k++)
            ;
        for (uint32_t f = 0; f < th->n_frames; f++) {
            uint32_t fi = th->first_frame + f;
            if (fi >= g->n_frames)
                break;
            rep_frame_fmt(g, &g->frames[fi], fr, sizeof fr);
            if (w) {
                jsonw_obj_begin(w);
                jsonw_kv_str(w, "frame", fr);
                jsonw_kv_str(w, "method", graph_str(g, g->frames[fi].method));
                jsonw_kv_int(w, "line", g->frames[fi].line);
                jsonw_kv_arr_begin(w, "locals");
            } else {
                fputs("    at ", out);
                rep_fmt_name(out, fr);
                fputc('\n', out);
            }
            for (; k < k1 && refs[k].frame == (int32_t)f; k++)
                put_local(out, w, res, g->roots[refs[k].root].node, "        ");
            if (w) {
                jsonw_arr_end(w);
                jsonw_obj_end(w);
            }
        }
        if (w) {
            jsonw_arr_end(w);
            jsonw_kv_arr_begin(w, "locals_without_frame");
        }
        /* the frames this thread does not have, in root order as the roots list them */
        uint32_t nl = 0;
        for (uint32_t j = k0; j < k1; j++)
            if (refs[j].frame < 0 || (uint32_t)refs[j].frame >= th->n_frames)
                loose[nl++] = refs[j].root;
        if (nl)
            qsort(loose, nl, sizeof *loose, cmp_u32);
        for (uint32_t j = 0; j < nl; j++)
            put_local(out, w, res, g->roots[loose[j]].node, "    ");
        if (w) {
            jsonw_arr_end(w);
            jsonw_obj_end(w);
        }
    }
    free(refs);
    free(loose);
    free(ord);
}

void rep_threads_text(FILE *out, const threads_result *r, uint32_t top)
{
    threads_walk(out, NULL, r, top);
    if (top && top < r->g->n_threads) {
        char c[REP_FMT_MAX];
        fprintf(out, "\n%s more thread%s, each retaining at most the last one's (--top 0 shows "
                "all)\n", rep_fmt_count(c, r->g->n_threads - top),
                r->g->n_threads - top == 1 ? "" : "s");
    }
    if (r->g->n_threads == 0 && rep_fmt_runtime(r->g) == REP_RT_JS)
        /* a V8 snapshot has no thread records: its stack slots are a root category */
        fprintf(out, "no threads in this dump: a V8 heap snapshot records no thread stacks; "
                     "what the running\ncode held is under the (Stack roots) root category "
                     "(leakray info)\n");
    else if (r->g->n_threads == 0)
        fprintf(out, "no threads in this dump\n");
}

void rep_threads_json(jsonw *w, const threads_result *r, const char *path, uint32_t top)
{
    jsonw_kv_str(w, "file", path);
    jsonw_kv_uint(w, "threads_total", r->g->n_threads);
    jsonw_kv_arr_begin(w, "threads");
    threads_walk(NULL, w, r, top);
    jsonw_arr_end(w);
}
