/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_threads.c: `leakray threads FILE` (cli), prefix threads_. Every thread of the dump
 * (g->threads, from THREAD_OBJECT roots and STACK_TRACE records): its name read from
 * Thread.name, state and daemon flag where the dump has them, its stack frames innermost
 * first, and under each frame the objects its local variables hold (JAVA_FRAME roots carrying
 * that thread serial and frame number). A thread's retained size is MAT's Thread Overview
 * figure: what its object retains once its locals count as its references (frames of a thread
 * with a thread object are not roots of their own), plus what only its locals reach. Each
 * local's retained size is `leakray top`'s (cli_retained). Locals whose frame is unknown are
 * listed after the frames. Android dumps carry no frames; their locals still show. */
#include "cli.h"

#include "analysis/dominators.h"
#include "rules/rules.h"

#include <stdlib.h>
#include <string.h>

static void frame_text(const graph *g, const graph_frame *f, char *buf, size_t cap)
{
    char where[600];
    const char *src = f->source != GRAPH_NONE ? graph_str(g, f->source) : "";
    if (f->line > 0)
        snprintf(where, sizeof where, "%s:%d", *src ? src : "Unknown Source", f->line);
    else if (f->line == -2)
        snprintf(where, sizeof where, "Compiled method");
    else if (f->line == -3)
        snprintf(where, sizeof where, "Native Method");
    else
        snprintf(where, sizeof where, "%s", *src ? src : "Unknown Source");
    const char *cls = f->class_name != GRAPH_NONE ? graph_str(g, f->class_name) : "";
    if (snprintf(buf, cap, "%s%s%s(%s)", cls, *cls ? "." : "", graph_str(g, f->method), where) <
        0)
        buf[0] = 0;
}

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

static void put_local(const cli_common *co, jsonw *w, const graph *g, const cli_retained *rt,
                      node_ix n, const char *indent)
{
    char id[CLI_FMT_MAX], sz[CLI_FMT_MAX], lab[300];
    uint64_t ret = n < rt->n ? rt->retained[n] : 0;
    threads_label(g, n, lab, sizeof lab);
    if (co->json) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "id", cli_fmt_id(id, g, graph_node_id(g, n)));
        jsonw_kv_str(w, "class", lab);
        jsonw_kv_uint(w, "shallow_bytes", graph_node_size(g, n));
        jsonw_kv_uint(w, "retained_bytes", ret);
        jsonw_obj_end(w);
    } else {
        printf("%slocal %s %s, retained %s\n", indent, lab,
               cli_fmt_id(id, g, graph_node_id(g, n)), cli_fmt_bytes(sz, ret));
    }
}

/* ---- state and daemon flag ---- */

/* A Thread field, directly (JDK <= 18, Android) or in its FieldHolder (JDK 19+). */
static int thread_field(const graph *g, node_ix t, const char *name, graph_value *v)
{
    graph_value h;
    if (graph_field_find(g, t, name, v))
        return 1;
    return graph_field_find(g, t, "holder", &h) && h.type == GRAPH_FT_OBJECT &&
           h.ref != GRAPH_NONE && graph_field_find(g, h.ref, name, v);
}

/* Thread.State from threadStatus (JVMTI state bits, as the JDK's VM.toThreadState reads
 * them), NULL when the dump has no threadStatus (Android). */
static const char *thread_state(const graph *g, node_ix t)
{
    graph_value v;
    if (t == GRAPH_NONE || !thread_field(g, t, "threadStatus", &v) || v.type != GRAPH_FT_INT)
        return NULL;
    uint32_t s = (uint32_t)v.raw;
    if (s & 0x0004)
        return "RUNNABLE";
    if (s & 0x0400)
        return "BLOCKED";
    if (s & 0x0010)
        return "WAITING";
    if (s & 0x0020)
        return "TIMED_WAITING";
    if (s & 0x0002)
        return "TERMINATED";
    return (s & 0x0001) ? "RUNNABLE" : "NEW";
}

/* 1 daemon, 0 not, -1 unknown. */
static int thread_daemon(const graph *g, node_ix t)
{
    graph_value v;
    if (t == GRAPH_NONE || !thread_field(g, t, "daemon", &v) || v.type != GRAPH_FT_BOOLEAN)
        return -1;
    return v.raw != 0;
}

/* ---- MAT's thread retained size ---- */

typedef struct threads_ctx {
    const graph *g;
    uint32_t *serials; /* sorted serials of threads with a thread object */
    uint32_t n;
} threads_ctx;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* dom_root_filter: a frame root of a thread that has an object is that thread's reference. */
static int threads_root(const graph *g, uint32_t r, void *ctx)
{
    const threads_ctx *c = ctx;
    if (g->roots[r].kind != GRAPH_ROOT_JAVA_FRAME)
        return 1;
    uint32_t s = g->roots[r].thread;
    return bsearch(&s, c->serials, c->n, sizeof s, cmp_u32) == NULL;
}

#define OWN_NONE UINT32_MAX
#define OWN_MANY (UINT32_MAX - 1)

/* with[t] = thread t's object retained in the tree whose frame roots are references of their
 * thread, plus the bytes only t's locals reach (objects that tree leaves unreachable, reached
 * from the locals of exactly one thread). One tree and one pass over the unreached part. */
static lr_status threads_with_locals(const graph *g, uint64_t *with, lr_error *err)
{
    threads_ctx c = {g, err_mallocarray(g->n_threads ? g->n_threads : 1, sizeof(uint32_t)), 0};
    uint32_t *own = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *own);
    node_ix *stack = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *stack);
    dom_tree dt;
    memset(&dt, 0, sizeof dt);
    lr_status st = LR_OK;
    if (!c.serials || !own || !stack) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "threads: out of memory");
        goto out;
    }
    for (uint32_t t = 0; t < g->n_threads; t++)
        if (g->threads[t].node < g->n_nodes)
            c.serials[c.n++] = g->threads[t].serial;
    qsort(c.serials, c.n, sizeof *c.serials, cmp_u32);
    dom_opts o = {0};
    o.root = threads_root;
    o.root_ctx = &c;
    if ((st = dom_build_ex(g, &o, &dt, err)) != LR_OK)
        goto out;
    for (node_ix x = 0; x < g->n_nodes; x++)
        own[x] = OWN_NONE;
    for (uint32_t t = 0; t < g->n_threads; t++) {
        node_ix tn = g->threads[t].node;
        with[t] = tn < g->n_nodes ? dt.retained[tn] : 0;
        if (tn >= g->n_nodes)
            continue;
        uint32_t sp = 0;
        for (uint32_t r = 0; r < g->n_roots; r++) {
            node_ix x = g->roots[r].node;
            if (g->roots[r].kind != GRAPH_ROOT_JAVA_FRAME ||
                g->roots[r].thread != g->threads[t].serial || x >= g->n_nodes ||
                dt.idom[x] != GRAPH_NONE || own[x] == t || own[x] == OWN_MANY)
                continue;
            own[x] = own[x] == OWN_NONE ? t : OWN_MANY;
            stack[sp++] = x;
        }
        /* each node is pushed at most twice: once owned, once when it becomes shared */
        while (sp) {
            node_ix x = stack[--sp];
            for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
                node_ix y = g->edge_to[e];
                uint8_t k = g->edge_kind[e];
                if (y >= g->n_nodes || dt.idom[y] != GRAPH_NONE ||
                    GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG || GRAPH_EDGE_KIND(k) == GRAPH_EDGE_WEAK)
                    continue;
                uint32_t want = own[x] == OWN_MANY ? OWN_MANY : t;
                if (own[y] == want || own[y] == OWN_MANY)
                    continue;
                own[y] = own[y] == OWN_NONE ? want : OWN_MANY;
                stack[sp++] = y;
            }
        }
    }
    for (node_ix x = 0; x < g->n_nodes; x++)
        if (own[x] < g->n_threads)
            with[own[x]] += graph_node_size(g, x) + (g->node_native ? g->node_native[x] : 0);
out:
    dom_free(&dt);
    free(c.serials);
    free(own);
    free(stack);
    return st;
}

int cmd_threads(int argc, char **argv)
{
    const cli_spec spec = {
        "threads", "FILE", "threads, their stack frames and what their local variables retain",
        NULL, 1, 1,
        "A thread's retained size counts what its local variables hold (Eclipse MAT's Thread\n"
        "Overview); each local's is `leakray top`'s. State and daemon flag come from the\n"
        "Thread object when the dump has them (threadStatus: HotSpot only)."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    lr_heap *h;
    if ((rc = cli_open(&co, co.pos[0], 0, &h)) != 0)
        return rc;
    graph *g = lr_heap_graph(h);
    lr_error err;
    memset(&err, 0, sizeof err);
    cli_retained dt;
    memset(&dt, 0, sizeof dt);
    uint64_t *with = err_calloc(g->n_threads ? g->n_threads : 1, sizeof *with);
    lr_status st = with ? cli_retained_build(g, &dt, &err)
                        : LR_FAIL(&err, LR_ERR_NOMEM, "threads: out of memory");
    if (st == LR_OK && g->first_edge)
        st = threads_with_locals(g, with, &err);
    if (st != LR_OK) {
        rc = cli_error(&co, &err);
        cli_retained_free(&dt);
        free(with);
        lr_close(h);
        return rc;
    }
    jsonw w;
    if (co.json) {
        cli_json_begin(&w);
        jsonw_kv_str(&w, "file", co.pos[0]);
        jsonw_kv_arr_begin(&w, "threads");
    }
    char name[256], id[CLI_FMT_MAX], sz[CLI_FMT_MAX], fr[1400];
    for (uint32_t t = 0; t < g->n_threads; t++) {
        const graph_thread *th = &g->threads[t];
        node_ix tn = th->node < g->n_nodes ? th->node : GRAPH_NONE;
        rules_thread_name(g, tn, name, sizeof name);
        uint64_t ret = with[t];
        const char *state = thread_state(g, tn);
        int daemon = thread_daemon(g, tn);
        if (co.json) {
            jsonw_obj_begin(&w);
            jsonw_kv_uint(&w, "serial", th->serial);
            jsonw_kv_str(&w, "name", name);
            if (tn != GRAPH_NONE) {
                jsonw_kv_str(&w, "id", cli_fmt_id(id, g, graph_node_id(g, tn)));
                jsonw_kv_str(&w, "class", graph_class_name(g, tn));
            } else {
                jsonw_kv_null(&w, "id");
                jsonw_kv_null(&w, "class");
            }
            jsonw_kv_uint(&w, "retained_bytes", ret);
            jsonw_kv_uint(&w, "object_retained_bytes", tn < dt.n ? dt.retained[tn] : 0);
            if (state)
                jsonw_kv_str(&w, "state", state);
            else
                jsonw_kv_null(&w, "state");
            if (daemon >= 0)
                jsonw_kv_bool(&w, "daemon", daemon);
            else
                jsonw_kv_null(&w, "daemon");
            jsonw_kv_arr_begin(&w, "frames");
        } else {
            printf("%sThread \"%s\" serial %u", t ? "\n" : "", name, th->serial);
            if (tn != GRAPH_NONE)
                printf(" (%s %s, retained with locals %s)", graph_class_name(g, tn),
                       cli_fmt_id(id, g, graph_node_id(g, tn)), cli_fmt_bytes(sz, ret));
            if (state || daemon > 0)
                printf(" %s%s%s", state ? state : "", state && daemon > 0 ? " " : "",
                       daemon > 0 ? "daemon" : "");
            printf("\n");
        }
        for (uint32_t f = 0; f < th->n_frames; f++) {
            uint32_t fi = th->first_frame + f;
            if (fi >= g->n_frames)
                break;
            frame_text(g, &g->frames[fi], fr, sizeof fr);
            if (co.json) {
                jsonw_obj_begin(&w);
                jsonw_kv_str(&w, "frame", fr);
                jsonw_kv_str(&w, "method", graph_str(g, g->frames[fi].method));
                jsonw_kv_int(&w, "line", g->frames[fi].line);
                jsonw_kv_arr_begin(&w, "locals");
            } else {
                printf("    at %s\n", fr);
            }
            for (uint32_t r = 0; r < g->n_roots; r++) {
                const graph_root *ro = &g->roots[r];
                if (ro->kind == GRAPH_ROOT_JAVA_FRAME && ro->thread == th->serial &&
                    ro->frame == (int32_t)f && ro->node < g->n_nodes)
                    put_local(&co, &w, g, &dt, ro->node, "        ");
            }
            if (co.json) {
                jsonw_arr_end(&w);
                jsonw_obj_end(&w);
            }
        }
        if (co.json) {
            jsonw_arr_end(&w);
            jsonw_kv_arr_begin(&w, "locals_without_frame");
        }
        for (uint32_t r = 0; r < g->n_roots; r++) {
            const graph_root *ro = &g->roots[r];
            if (ro->kind == GRAPH_ROOT_JAVA_FRAME && ro->thread == th->serial &&
                (ro->frame < 0 || (uint32_t)ro->frame >= th->n_frames) && ro->node < g->n_nodes)
                put_local(&co, &w, g, &dt, ro->node, "    ");
        }
        if (co.json) {
            jsonw_arr_end(&w);
            jsonw_obj_end(&w);
        }
    }
    if (co.json) {
        jsonw_arr_end(&w);
        cli_json_end(&co, &w);
    } else if (g->n_threads == 0) {
        printf("no threads in this dump\n");
    }
    cli_retained_free(&dt);
    free(with);
    lr_close(h);
    return CLI_EXIT_OK;
}
