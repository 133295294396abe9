/* SPDX-License-Identifier: Apache-2.0 */
/* threads.c: thread names, states and MAT's thread retained size (analysis layer), prefix
 * threads_. State and daemon flag are read from the Thread object (directly or through its
 * JDK 19+ FieldHolder); the retained size (threads_with_locals, which the leak suspects'
 * thread sentence uses too) comes from one extra dominator tree in which a thread's frame
 * roots are references of its object, over strong references less the GC's pending-list
 * link (dom_gc_link). */
#include "analysis/threads.h"

#include "analysis/dominators.h"
#include "base/err.h"
#include "base/search.h"
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

/* Whether t is a virtual thread (JDK 21+), which keeps its own state and is always a daemon. */
static int is_virtual(const graph *g, node_ix t)
{
    class_ix c = t == GRAPH_NONE ? GRAPH_NONE : graph_node_class(g, t);
    return c != GRAPH_NONE && graph_class_is_named(g, c, "java.lang.BaseVirtualThread");
}

/* The int constant of class c itself (not a superclass: Thread's NORM_PRIORITY is no state)
 * named like a state (upper case) whose value is `state`, or NULL. */
static const char *state_constant(const graph *g, class_ix c, uint32_t state)
{
    if (c == GRAPH_NONE || c >= g->n_classes)
        return NULL;
    const graph_class *k = &g->classes[c];
    for (uint32_t i = 0; i < k->n_statics && k->first_static + i < g->n_statics; i++) {
        const graph_static *st = &g->statics[k->first_static + i];
        const char *nm = graph_str(g, st->name);
        if (st->type != GRAPH_FT_INT || (uint32_t)st->value != state || !*nm)
            continue;
        size_t j = 0;
        while (nm[j] == '_' || (nm[j] >= 'A' && nm[j] <= 'Z'))
            j++;
        if (!nm[j])
            return nm;
    }
    return NULL;
}

/* A virtual thread's state: VirtualThread.state is one of its class's int constants
 * (PARKED, RUNNING, TIMED_PARKED...), whose values change between JDK releases but are in
 * the dump with the class's statics; the SUSPENDED bit (a debugger's) is taken off when no
 * constant has the whole value. NULL when t is no virtual thread or no constant matches. */
static const char *virtual_state(const graph *g, node_ix t)
{
    graph_value v, susp;
    if (!is_virtual(g, t) || !graph_field_find(g, t, "state", &v) || v.type != GRAPH_FT_INT)
        return NULL;
    class_ix c = graph_node_class(g, t);
    const char *nm = state_constant(g, c, (uint32_t)v.raw);
    if (!nm && graph_static_find(g, c, "SUSPENDED", &susp) && susp.type == GRAPH_FT_INT &&
        (uint32_t)susp.raw)
        nm = state_constant(g, c, (uint32_t)v.raw & ~(uint32_t)susp.raw);
    return nm;
}

/* 1 daemon, 0 not, -1 unknown. */
static int thread_daemon(const graph *g, node_ix t)
{
    graph_value v;
    if (is_virtual(g, t))
        return 1;
    if (t == GRAPH_NONE || !thread_field(g, t, "daemon", &v) || v.type != GRAPH_FT_BOOLEAN)
        return -1;
    return v.raw != 0;
}

/* ---- MAT's thread retained size ---- */

/* A thread that has an object: its serial and its node. */
typedef struct tnode {
    uint32_t serial; /* HPROF thread serial */
    node_ix node;    /* its thread object */
} tnode;

typedef struct threads_ctx {
    tnode *v;   /* threads with a thread object, sorted by serial */
    uint32_t n; /* entries of v */
} threads_ctx;

static int cmp_tnode(const void *a, const void *b)
{
    const tnode *x = a, *y = b;
    if (x->serial != y->serial)
        return x->serial < y->serial ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static int cmp_tnode_node(const void *a, const void *b)
{
    const tnode *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/* The object of the thread of serial s (the first in node order when a dump repeats a
 * serial), GRAPH_NONE when that thread has none. */
static node_ix thread_node(const threads_ctx *c, uint32_t s)
{
    uint32_t a;
    SEARCH_LOWER_BOUND(uint32_t, 0, c->n, c->v[search_mid].serial < s, a);
    return a < c->n && c->v[a].serial == s ? c->v[a].node : GRAPH_NONE;
}

/* dom_root_filter: a frame root of a thread that has an object is that thread's reference. */
static int threads_root(const graph *g, uint32_t r, void *ctx)
{
    return g->roots[r].kind != GRAPH_ROOT_JAVA_FRAME ||
           thread_node(ctx, g->roots[r].thread) == GRAPH_NONE;
}

/* The tree's references: strong ones, minus the GC's pending-list link (dom_gc_link). */
static int threads_edge(const graph *g, edge_ix e, void *ctx)
{
    (void)ctx;
    uint8_t k = g->edge_kind[e];
    return GRAPH_EDGE_STRENGTH(k) == GRAPH_STRONG && GRAPH_EDGE_KIND(k) != GRAPH_EDGE_WEAK &&
           !dom_gc_link(g, e);
}

/* A local of a thread with an object: the extra reference thread -> object (dom_opts). */
typedef struct xref {
    node_ix from; /* the thread object */
    node_ix to;   /* what one of its frames holds */
} xref;

static int cmp_xref(const void *a, const void *b)
{
    const xref *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

#define UNDER_UNSET (THREADS_NONE - 1)

/* The index in g->threads of the thread whose object is x, THREADS_NONE if none; by node is
 * threads sorted by node. */
static uint32_t thread_of_node(const tnode *by_node, uint32_t n, node_ix x)
{
    uint32_t a;
    SEARCH_LOWER_BOUND(uint32_t, 0, n, by_node[search_mid].node < x, a);
    return a < n && by_node[a].node == x ? by_node[a].serial : THREADS_NONE;
}

/* under[x] for every node (threads_with_locals). by_node lists the threads that have an
 * object, by node, each with its index in g->threads in place of its serial. A node's answer
 * is found by one walk up the tree to the first thread object or node already answered,
 * then written along that walk: every node is written once, O(N log threads). */
static void fill_under(const graph *g, const dom_tree *dt, const tnode *by_node, uint32_t nb,
                       uint32_t *under)
{
    uint32_t n = g->n_nodes;
    for (node_ix x = 0; x < n; x++)
        under[x] = UNDER_UNSET;
    for (node_ix x = 0; x < n; x++) {
        if (under[x] != UNDER_UNSET)
            continue;
        uint32_t ans = THREADS_NONE;
        node_ix y = dt->idom[x];
        for (uint32_t k = 0; k < n && y < n; k++, y = dt->idom[y]) {
            uint32_t ti = thread_of_node(by_node, nb, y);
            if (ti != THREADS_NONE) {
                ans = ti;
                break;
            }
            if (under[y] != UNDER_UNSET) {
                ans = under[y];
                break;
            }
        }
        /* the nodes from x up to that stop (y, excluded) have no thread object between them
         * and it: the same answer */
        node_ix stop = y;
        for (node_ix z = x; z < n && z != stop; z = dt->idom[z])
            under[z] = ans;
    }
}

lr_status threads_with_locals(const graph *g, uint64_t *with, uint32_t *under, lr_error *err)
{
    for (uint32_t t = 0; t < g->n_threads; t++)
        with[t] = 0;
    for (node_ix x = 0; under && x < g->n_nodes; x++)
        under[x] = THREADS_NONE;
    if (!g->first_edge)
        return LR_OK;
    threads_ctx c = {err_mallocarray(g->n_threads ? g->n_threads : 1, sizeof *c.v), 0};
    xref *v = err_mallocarray(g->n_roots ? g->n_roots : 1, sizeof *v);
    node_ix *from = err_mallocarray(g->n_roots ? g->n_roots : 1, sizeof *from);
    node_ix *to = err_mallocarray(g->n_roots ? g->n_roots : 1, sizeof *to);
    dom_tree dt;
    memset(&dt, 0, sizeof dt);
    lr_status st = LR_OK;
    if (!c.v || !v || !from || !to) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "threads: out of memory");
        goto out;
    }
    for (uint32_t t = 0; t < g->n_threads; t++)
        if (g->threads[t].node < g->n_nodes)
            c.v[c.n++] = (tnode){g->threads[t].serial, g->threads[t].node};
    qsort(c.v, c.n, sizeof *c.v, cmp_tnode);
    /* the frame roots threads_root drops become references of their thread */
    uint32_t k = 0;
    for (uint32_t r = 0; r < g->n_roots; r++) {
        node_ix x = g->roots[r].node;
        if (x < g->n_nodes && !threads_root(g, r, &c))
            v[k++] = (xref){thread_node(&c, g->roots[r].thread), x};
    }
    qsort(v, k, sizeof *v, cmp_xref);
    for (uint32_t i = 0; i < k; i++) {
        from[i] = v[i].from;
        to[i] = v[i].to;
    }
    dom_opts o = {0};
    o.reach = threads_edge;
    o.root = threads_root;
    o.root_ctx = &c;
    o.n_extra = k;
    o.extra_from = from;
    o.extra_to = to;
    o.flags = DOM_RETAINED32; /* 4 bytes per node when every size fits, as most do */
    if ((st = dom_build_ex(g, &o, &dt, err)) != LR_OK)
        goto out;
    for (uint32_t t = 0; t < g->n_threads; t++)
        if (g->threads[t].node < g->n_nodes)
            with[t] = dom_retained(&dt, g->threads[t].node);
    if (under) {
        /* c.v becomes the list by node, each with its index in g->threads */
        c.n = 0;
        for (uint32_t t = 0; t < g->n_threads; t++)
            if (g->threads[t].node < g->n_nodes)
                c.v[c.n++] = (tnode){t, g->threads[t].node};
        qsort(c.v, c.n, sizeof *c.v, cmp_tnode_node);
        fill_under(g, &dt, c.v, c.n, under);
    }
out:
    dom_free(&dt);
    free(c.v);
    free(v);
    free(from);
    free(to);
    return st;
}

/* ---- a bound without a tree ---- */

static int cmp_node(const void *a, const void *b)
{
    node_ix x = *(const node_ix *)a, y = *(const node_ix *)b;
    return x < y ? -1 : x > y;
}

/* Whether sorted list r (k entries) holds x. */
static int has_node(const node_ix *r, uint32_t k, node_ix x)
{
    uint32_t a;
    SEARCH_LOWER_BOUND(uint32_t, 0, k, r[search_mid] < x, a);
    return a < k && r[a] == x;
}

/* Everything thread t's object dominates in threads_with_locals' tree is reached from that
 * object along paths that meet no root (a root on the way reaches the rest without the
 * thread), so the bytes of that set bound the figure from above. The walk follows more
 * than the tree does (every class hop, every thread's locals it meets as that thread's
 * references) and stops past its budget of nodes (threads.h) or past limit: a bound, not
 * the figure. */
struct threads_walker {
    const graph *g;
    threads_ctx c;   /* threads by serial */
    node_ix *roots;  /* nodes held by roots other than a thread's frames, sorted */
    uint32_t nr;
    xref *loc;       /* (thread object, local) pairs of the Java-frame roots, sorted */
    uint32_t nl;
    uint64_t *seen;  /* bit per node; cleared after each walk through visited[] */
    node_ix *stack, *visited;
    uint32_t budget;
};

void threads_walker_free(threads_walker *w)
{
    if (!w)
        return;
    free(w->c.v);
    free(w->roots);
    free(w->loc);
    free(w->seen);
    free(w->stack);
    free(w->visited);
    free(w);
}

threads_walker *threads_walker_new(const graph *g)
{
    uint32_t n = g->n_nodes;
    threads_walker *w = err_calloc(1, sizeof *w);
    if (!w || !g->first_edge) {
        free(w);
        return NULL;
    }
    w->g = g;
    w->budget = n / THREADS_BOUND_DIV > THREADS_BOUND_NODES ? n / THREADS_BOUND_DIV
                                                            : THREADS_BOUND_NODES;
    w->c.v = err_mallocarray(g->n_threads ? g->n_threads : 1, sizeof *w->c.v);
    w->roots = err_mallocarray(g->n_roots ? g->n_roots : 1, sizeof *w->roots);
    w->loc = err_mallocarray(g->n_roots ? g->n_roots : 1, sizeof *w->loc);
    w->seen = err_calloc((size_t)n / 64 + 1, sizeof *w->seen);
    w->stack = err_mallocarray((size_t)w->budget + 1, sizeof *w->stack);
    w->visited = err_mallocarray((size_t)w->budget + 2, sizeof *w->visited);
    if (!w->c.v || !w->roots || !w->loc || !w->seen || !w->stack || !w->visited) {
        threads_walker_free(w);
        return NULL;
    }
    for (uint32_t i = 0; i < g->n_threads; i++)
        if (g->threads[i].node < n)
            w->c.v[w->c.n++] = (tnode){g->threads[i].serial, g->threads[i].node};
    qsort(w->c.v, w->c.n, sizeof *w->c.v, cmp_tnode);
    for (uint32_t r = 0; r < g->n_roots; r++) {
        node_ix x = g->roots[r].node;
        if (x >= n)
            continue;
        if (threads_root(g, r, &w->c))
            w->roots[w->nr++] = x;
        else
            w->loc[w->nl++] = (xref){thread_node(&w->c, g->roots[r].thread), x};
    }
    qsort(w->roots, w->nr, sizeof *w->roots, cmp_node);
    qsort(w->loc, w->nl, sizeof *w->loc, cmp_xref);
    return w;
}

int threads_within(threads_walker *w, uint32_t t, uint64_t limit, threads_stop_fn stop,
                   void *ctx)
{
    const graph *g = w->g;
    uint32_t n = g->n_nodes;
    if (t >= g->n_threads || g->threads[t].node >= n)
        return 1;
    const xref *loc = w->loc;
    uint32_t nl = w->nl, nv = 0;
    uint64_t *seen = w->seen;
    node_ix *stack = w->stack;
    int ok = 0;
    node_ix tn = g->threads[t].node;
    uint64_t sum = 0;
    uint32_t sp = 0, count = 1;
    seen[tn >> 6] |= 1ull << (tn & 63);
    w->visited[nv++] = tn;
    stack[sp++] = tn;
    while (sp) {
        node_ix x = stack[--sp];
        sum += graph_node_size(g, x) + (g->node_native ? g->node_native[x] : 0);
        if (sum > limit)
            goto out;
        /* successors: edges, then the class hop, then x's locals if x is a thread */
        edge_ix e = g->first_edge[x], end = g->first_edge[x + 1];
        class_ix cl = graph_node_class(g, x);
        uint32_t li;
        SEARCH_LOWER_BOUND(uint32_t, 0, nl, loc[search_mid].from < x, li);
        for (;;) {
            node_ix y;
            if (e < end) {
                if (!threads_edge(g, e, NULL)) {
                    e++;
                    continue;
                }
                y = g->edge_to[e++];
            } else if (cl < g->n_classes) {
                y = g->classes[cl].node;
                cl = GRAPH_NONE;
            } else if (li < nl && loc[li].from == x) {
                y = loc[li++].to;
            } else {
                break;
            }
            if (y >= n || (seen[y >> 6] >> (y & 63) & 1) || has_node(w->roots, w->nr, y) ||
                (stop && stop(ctx, y)))
                continue;
            seen[y >> 6] |= 1ull << (y & 63);
            w->visited[nv++] = y;
            if (++count > w->budget)
                goto out;
            stack[sp++] = y;
        }
    }
    ok = 1;
out:
    /* the next thread's walk starts from a clear bitset: only what this one set */
    for (uint32_t i = 0; i < nv; i++)
        seen[w->visited[i] >> 6] = 0;
    return ok;
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
        st = threads_with_locals(g, with, NULL, err);
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
        if (!row->state)
            row->state = virtual_state(g, tn);
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
