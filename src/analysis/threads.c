/* SPDX-License-Identifier: Apache-2.0 */
/* threads.c: thread names, states and MAT's thread retained size (analysis layer), prefix
 * threads_. State and daemon flag are read from the Thread object (directly or through its
 * JDK 19+ FieldHolder); the retained size comes from one extra dominator tree in which a
 * thread's frame roots are references of its object, over strong references less the GC's
 * pending-list link (dom_gc_link). */
#include "analysis/threads.h"

#include "analysis/dominators.h"
#include "analysis/suspects.h"
#include "base/err.h"
#include "rules/rules.h"

#include <stdlib.h>
#include <string.h>

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

/* The tree's references: strong ones, minus the GC's pending-list link (dom_gc_link). */
static int threads_edge(const graph *g, edge_ix e, void *ctx)
{
    (void)ctx;
    uint8_t k = g->edge_kind[e];
    return GRAPH_EDGE_STRENGTH(k) == GRAPH_STRONG && GRAPH_EDGE_KIND(k) != GRAPH_EDGE_WEAK &&
           !dom_gc_link(g, e);
}

#define OWN_NONE UINT32_MAX
#define OWN_MANY (UINT32_MAX - 1)

/* with[t] = thread t's object retained in the tree whose frame roots are references of their
 * thread, plus the bytes only t's locals reach (objects that tree leaves unreachable, reached
 * from the locals of exactly one thread). One tree and one pass over the unreached part. */
static lr_status with_locals(const graph *g, uint64_t *with, lr_error *err)
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
    o.reach = threads_edge;
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
                    GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG ||
                    GRAPH_EDGE_KIND(k) == GRAPH_EDGE_WEAK || dom_gc_link(g, e))
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

lr_status threads_build(const graph *g, const uint64_t *retained, uint32_t n,
                        threads_result *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    r->g = g;
    r->retained = retained;
    r->n_retained = n;
    uint32_t nt = g->n_threads;
    r->rows = err_calloc(nt ? nt : 1, sizeof *r->rows);
    uint64_t *with = err_calloc(nt ? nt : 1, sizeof *with);
    lr_status st = LR_OK;
    if (!r->rows || !with)
        st = LR_FAIL(err, LR_ERR_NOMEM, "threads: out of memory");
    else if (g->first_edge)
        st = with_locals(g, with, err);
    if (st != LR_OK) {
        free(with);
        threads_free(r);
        return st;
    }
    for (uint32_t t = 0; t < nt; t++) {
        threads_row *row = &r->rows[t];
        node_ix tn = g->threads[t].node < g->n_nodes ? g->threads[t].node : GRAPH_NONE;
        row->node = tn;
        rules_thread_name(g, tn, row->name, sizeof row->name);
        row->state = thread_state(g, tn);
        row->daemon = thread_daemon(g, tn);
        row->with_locals = with[t];
    }
    free(with);
    return LR_OK;
}

void threads_free(threads_result *r)
{
    free(r->rows);
    r->rows = NULL;
}
