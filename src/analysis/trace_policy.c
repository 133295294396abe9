/* SPDX-License-Identifier: Apache-2.0 */
/* trace_policy.c: the rules as the traces' view of the heap (analysis layer), prefix trace_.
 * The path search's policy (which references are dropped or visited last, over the graph's
 * edges or Shark's reference view, virtual.h), and the same view for the dominator tree the
 * retained sizes come from: its edge filter (trace_dom_filter), roots (trace_dom_root: a
 * Java-frame root of a thread with a thread object is no root, its locals become references
 * of the thread, trace_dom_locals) and Shark's own weights and roots (trace_shark_*), so
 * "Retaining" lines equal Shark's. docs/design.md, "Retained sizes in analyze". */
#include "analysis/trace_internal.h"
#include "analysis/devtools.h"
#include "base/search.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- policy */

/* Whether e is a class object's link to its defining loader. */
static int loader_link(const graph *g, node_ix from, edge_ix e)
{
    return GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_INTERNAL &&
           GRAPH_EDGE_STRENGTH(g->edge_kind[e]) == GRAPH_STRONG &&
           g->node_kind[from] == GRAPH_KIND_CLASS &&
           strcmp(graph_str(g, graph_edge_name_from(g, from, e)), "<classloader>") == 0;
}

/* The rules' verdict, except that a class's link to its loader, which the rules drop as
 * Shark does, is visited last: the JVM keeps a loader as long as one of its classes lives,
 * so a closed loader whose class a static map still holds is reachable (Shark calls it
 * unreachable). Visited last, it gives a path only to what nothing else reaches: every path
 * Shark finds stays Shark's. */
/* Whether e is a WeakMap table's reference to an entry's value: the entry lives while its
 * key does, so the value is the key's (DevTools leaves this half of the pair out of its
 * distances and dominators); a path through the table would blame the map. */
static int weakmap_table_link(const graph *g, node_ix from, edge_ix e)
{
    return devtools_table_half(g, from, e);
}

enum paths_edge_class trace_pol_edge_shark(const graph *g, node_ix from, edge_ix e, void *ctx)
{
    int32_t lib;
    enum paths_edge_class k = (enum paths_edge_class)rules_edge_class(ctx, from, e, &lib);
    return k == PATHS_FOLLOW && (weakmap_table_link(g, from, e) || paths_console_link(g, from, e))
               ? PATHS_VISIT_LAST
               : k;
}

enum paths_edge_class trace_pol_edge(const graph *g, node_ix from, edge_ix e, void *ctx)
{
    enum paths_edge_class k = trace_pol_edge_shark(g, from, e, ctx);
    return k == PATHS_IGNORE && loader_link(g, from, e) ? PATHS_VISIT_LAST : k;
}

/* The `path` verb's view: the traces' order, with nothing dropped (what the rules ignore is
 * visited last too), so an object strongly reachable only through an ignored reference still
 * gets a path, and every other object gets the path the traces' search takes. The GC's
 * list links, which own nothing in any model (dom_gc_link: JDK 5/6's pending list through
 * Reference.next), are visited last too: a path through one says so (low priority), as
 * `show` and `top` call such an object unreachable. */
static enum paths_edge_class path_pol_edge(const graph *g, node_ix from, edge_ix e, void *ctx)
{
    enum paths_edge_class k = trace_pol_edge(g, from, e, ctx);
    if (k == PATHS_FOLLOW && dom_gc_link(g, e))
        return PATHS_VISIT_LAST;
    return k == PATHS_IGNORE ? PATHS_VISIT_LAST : k;
}

static enum paths_edge_class path_pol_root(const graph *g, uint32_t r, void *ctx)
{
    enum paths_edge_class k = trace_pol_root(g, r, ctx);
    return k == PATHS_IGNORE ? PATHS_VISIT_LAST : k;
}

paths_policy trace_path_policy(const rules_set *rs)
{
    return (paths_policy){path_pol_edge, path_pol_root, (void *)rs, NULL, 0, 0};
}

int trace_vsource(void *ctx, node_ix x, paths_list *out)
{
    const virt_list *l = virt_edges(((vpol_ctx *)ctx)->vg, x);
    if (!l)
        return -1;
    *out = (paths_list){l->n, l->to, l->kind, l->real};
    return 0;
}

enum paths_edge_class trace_pol_vedge(const graph *g, node_ix from, edge_ix pos, void *ctx)
{
    const vpol_ctx *c = ctx;
    int prio = virt_edge_priority(c->vg, from, pos);
    if (prio == VIRT_PRIO_LOW)
        return PATHS_VISIT_LAST;
    edge_ix re = virt_real_edge(c->vg, from, pos);
    if (re == GRAPH_NONE)
        return PATHS_FOLLOW;
    enum paths_edge_class k = c->shark ? trace_pol_edge_shark(g, from, re, (void *)c->rs)
                                       : trace_pol_edge(g, from, re, (void *)c->rs);
    return prio == VIRT_PRIO_NORMAL && k == PATHS_VISIT_LAST ? PATHS_FOLLOW : k;
}

enum paths_edge_class trace_pol_root(const graph *g, uint32_t r, void *ctx)
{
    int32_t lib;
    (void)g;
    if (r >= g->n_roots)
        return PATHS_FOLLOW;
    return (enum paths_edge_class)rules_root_class(ctx, r, &lib);
}

enum paths_edge_class trace_pol_vroot(const graph *g, uint32_t r, void *ctx)
{
    return trace_pol_root(g, r, (void *)((const vpol_ctx *)ctx)->rs);
}

/* Source node of edge e (binary search over first_edge). */
static node_ix edge_source(const graph *g, edge_ix e)
{
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, g->n_nodes, g->first_edge[search_mid + 1] <= e, lo);
    return lo;
}

int trace_dom_filter(const graph *g, edge_ix e, void *ctx)
{
    /* Callers ask edge after edge in CSR order (dom_build does), so the source of the
     * previous edge almost always answers without a search. */
    static _Thread_local const graph *last_g;
    static _Thread_local node_ix last_src;
    int32_t lib;
    uint8_t k = g->edge_kind[e];
    if (GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG)
        return 0;
    node_ix x = last_src;
    if (last_g != g || x >= g->n_nodes || e < g->first_edge[x] || e >= g->first_edge[x + 1]) {
        /* a few steps forward (nodes without edges in between), else a search */
        int steps = 0;
        if (last_g == g && x < g->n_nodes && e >= g->first_edge[x])
            while (++steps < 32 && x + 1 < g->n_nodes && e >= g->first_edge[x + 1])
                x++;
        if (steps == 0 || steps >= 32 || e < g->first_edge[x] || e >= g->first_edge[x + 1])
            x = edge_source(g, e);
        last_g = g;
        last_src = x;
    }
    if (GRAPH_EDGE_KIND(k) == GRAPH_EDGE_INTERNAL && weakmap_table_link(g, x, e))
        return 0; /* the value is its key's (devtools_table_half) */
    return rules_edge_class(ctx, x, e, &lib) != RULES_DROP;
}

/* Whether g has an ephemeron edge (V8's WeakMap entries): most strings fail at once. */
static int any_ephemeron(const graph *g)
{
    if (g->synthetic_root == GRAPH_NONE)
        return 0;
    for (str_ix i = 0; i < g->strings.n; i++) {
        const char *s = graph_str(g, i);
        uint64_t table;
        if (s[0] >= '0' && s[0] <= '9' && devtools_weakmap_edge(s, &table))
            return 1;
    }
    return 0;
}

/* Mirrors trace_dom_filter over rules_edge_class: by kind and strength, with the classes a
 * rule may drop a field or static edge of (rules_drop_classes) left to the filter. */
lr_status trace_dom_table(const graph *g, const rules_set *rs, dom_reach_table *t,
                          lr_error *err)
{
    memset(t, 0, sizeof *t);
    if (rs->g != g) { /* rules bound elsewhere: the filter answers every edge */
        memset(t->kind, DOM_RT_ASK, sizeof t->kind);
        return LR_OK;
    }
    t->cls = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *t->cls);
    if (!t->cls)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for the rules' edge table");
    int locals = rules_drop_classes(rs, t->cls), ephemerons = any_ephemeron(g);
    for (class_ix c = 0; c < g->n_classes; c++) {
        uint8_t d = t->cls[c];
        t->cls[c] = (uint8_t)((d & RULES_MAY_DROP_FIELD ? DOM_RT_ASK_INSTANCE : 0) |
                              (d & RULES_MAY_DROP_STATIC ? DOM_RT_ASK_CLASS_OBJ : 0));
        t->any_class_obj |= (t->cls[c] & DOM_RT_ASK_CLASS_OBJ) != 0;
    }
    for (unsigned k = 0; k < 256; k++) {
        uint8_t v;
        switch (GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG ? GRAPH_EDGE_WEAK : GRAPH_EDGE_KIND(k)) {
        case GRAPH_EDGE_FIELD:
        case GRAPH_EDGE_PROPERTY: /* V8's, matched as fields (rules_edge_class) */
        case GRAPH_EDGE_CONTEXT:
            v = DOM_RT_BY_CLASS;
            break;
        case GRAPH_EDGE_STATIC:
            v = DOM_RT_BY_CLASS_OBJ;
            break;
        case GRAPH_EDGE_LOCAL:
            v = locals ? DOM_RT_ASK : DOM_RT_FOLLOW;
            break;
        case GRAPH_EDGE_INTERNAL: /* a class's internals are no references (rules_edge_class) */
            v = ephemerons ? DOM_RT_ASK : DOM_RT_NOT_CLASS; /* WeakMap tables' halves */
            break;
        case GRAPH_EDGE_WEAK:
            v = DOM_RT_DROP;
            break;
        default:
            v = DOM_RT_FOLLOW;
        }
        t->kind[k] = v;
    }
    return LR_OK;
}

void trace_dom_table_free(dom_reach_table *t)
{
    free(t->cls);
    memset(t, 0, sizeof *t);
}

/* Whether x is an array of boxed primitives (java.lang.Integer[] and the seven others), whose
 * references Shark 2.14 never follows (ObjectArrayReferenceReader's skippable wrapper
 * arrays): it weighs them into the array instead. */
static int shark_wrapper_array(const graph *g, node_ix x)
{
    static const char *const boxes[] = {"Boolean[]", "Character[]", "Float[]", "Double[]",
                                        "Byte[]",    "Short[]",     "Integer[]", "Long[]"};
    if (g->node_kind[x] != GRAPH_KIND_OBJ_ARRAY)
        return 0;
    class_ix c = graph_node_class(g, x);
    if (c >= g->n_classes)
        return 0;
    const char *n = graph_str(g, g->classes[c].name);
    if (strncmp(n, "java.lang.", 10))
        return 0;
    for (size_t i = 0; i < sizeof boxes / sizeof *boxes; i++)
        if (!strcmp(n + 10, boxes[i]))
            return 1;
    return 0;
}

static uint64_t shark_shallow(const graph *g, node_ix x);

/* A wrapper array as Shark weighs it: its elements, plus the first non-null element's weight
 * once per non-null element (the graph's edges out of an array are its non-null elements). */
static uint64_t shark_wrapper_weight(const graph *g, node_ix x)
{
    uint64_t s = (uint64_t)graph_node_len(g, x) * (g->id_size ? g->id_size : 4);
    uint64_t n = 0, one = 0;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT)
            continue;
        node_ix y = g->edge_to[e];
        if (!n++ && y < g->n_nodes && g->node_kind[y] == GRAPH_KIND_INSTANCE)
            one = shark_shallow(g, y);
    }
    return s + n * one;
}

/* Shark's shallow size of node x, without native bytes. */
static uint64_t shark_shallow(const graph *g, node_ix x)
{
    switch (g->node_kind[x]) {
    case GRAPH_KIND_OBJ_ARRAY:
        if (shark_wrapper_array(g, x))
            return shark_wrapper_weight(g, x);
        return (uint64_t)graph_node_len(g, x) * (g->id_size ? g->id_size : 4);
    case GRAPH_KIND_PRIM_ARRAY: {
        class_ix c = graph_node_class(g, x);
        unsigned es = c < g->n_classes ? graph_ftype_size(g, g->classes[c].elem_type) : 1;
        return (uint64_t)graph_node_len(g, x) * (es ? es : 1);
    }
    case GRAPH_KIND_INSTANCE: {
        /* the instance size the class record declares (Shark's HeapInstance.byteSize): the
         * field bytes on HotSpot, the object with its header and padding on ART */
        class_ix c = graph_node_class(g, x);
        if (c < g->n_classes && g->classes[c].instance_size)
            return g->classes[c].instance_size;
        return graph_node_len(g, x);
    }
    case GRAPH_KIND_CLASS: {
        /* Shark weighs a class by its CLASS_DUMP record after the tag byte (HeapClass's
         * recordSize): class id, stack serial, six ids, instance size, constant pool entries
         * (the old hprof agent writes them; HotSpot and ART write none), its statics with
         * their values and its instance field descriptors. The reader keeps that length as
         * the class node's payload; the sum below stands in where a graph has none. */
        uint32_t len = graph_node_len(g, x);
        if (len)
            return len;
        class_ix c = graph_class_of_node(g, x);
        uint64_t ids = g->id_size;
        if (c == GRAPH_NONE || c >= g->n_classes || !ids)
            return graph_node_size(g, x);
        const graph_class *k = &g->classes[c];
        uint64_t s = 7 * ids + 4 + 4 + 2 + 2 + 2 + (uint64_t)k->n_fields * (ids + 1);
        for (uint32_t i = 0; i < k->n_statics && k->first_static + i < g->n_statics; i++)
            s += ids + 1 + graph_ftype_size(g, g->statics[k->first_static + i].type);
        return s;
    }
    default:
        return graph_node_size(g, x);
    }
}

uint64_t trace_shark_weight(const graph *g, node_ix x, void *ctx)
{
    class_ix sc = *(const class_ix *)ctx;
    uint64_t w = shark_shallow(g, x) + (g->node_native ? g->node_native[x] : 0);
    graph_value v;
    if (sc != GRAPH_NONE && graph_node_class(g, x) == sc &&
        g->node_kind[x] == GRAPH_KIND_INSTANCE &&
        graph_field_find(g, x, "value", &v) && v.type == GRAPH_FT_OBJECT &&
        v.ref < g->n_nodes && g->node_kind[v.ref] == GRAPH_KIND_PRIM_ARRAY)
        w += shark_shallow(g, v.ref);
    return w;
}

int trace_shark_filter(const graph *g, edge_ix e, void *ctx)
{
    const trace_shark_ctx *c = ctx;
    if (!trace_dom_filter(g, e, (void *)c->rs))
        return 0;
    node_ix from = graph_edge_from(g, e);
    if (from < g->n_nodes && shark_wrapper_array(g, from))
        return 0;
    if (c->string_class == GRAPH_NONE)
        return 1;
    return graph_node_class(g, from) != c->string_class ||
           g->node_kind[from] != GRAPH_KIND_INSTANCE;
}

/* The thread object of a frame root's thread, GRAPH_NONE if it has none. */
static node_ix frame_thread(const graph *g, uint32_t r)
{
    if (g->roots[r].kind != GRAPH_ROOT_JAVA_FRAME)
        return GRAPH_NONE;
    return rules_thread_of_serial(g, g->roots[r].thread);
}

int trace_dom_root(const graph *g, uint32_t r, void *ctx)
{
    int32_t lib;
    if (frame_thread(g, r) != GRAPH_NONE)
        return 0;
    return rules_root_class(ctx, r, &lib) != RULES_DROP;
}

int trace_shark_root(const graph *g, uint32_t r, void *ctx)
{
    const trace_shark_ctx *c = ctx;
    switch (g->roots[r].kind) {
    case GRAPH_ROOT_JNI_GLOBAL:
    case GRAPH_ROOT_JNI_LOCAL:
    case GRAPH_ROOT_JAVA_FRAME:
    case GRAPH_ROOT_NATIVE_STACK:
    case GRAPH_ROOT_STICKY_CLASS:
    case GRAPH_ROOT_THREAD_BLOCK:
    case GRAPH_ROOT_MONITOR_USED:
    case GRAPH_ROOT_THREAD_OBJECT:
    case GRAPH_ROOT_JNI_MONITOR:
        return trace_dom_root(g, r, (void *)c->rs);
    default:
        return 0;
    }
}

typedef struct xpair {
    node_ix from, to;
} xpair;

static int cmp_xpair(const void *a, const void *b)
{
    const xpair *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

lr_status trace_dom_locals(const graph *g, const rules_set *rs, node_ix **from, node_ix **to,
                           uint32_t *n, lr_error *err)
{
    uint32_t k = 0;
    int32_t lib;
    *from = *to = NULL;
    *n = 0;
    xpair *v = err_mallocarray(g->n_roots ? g->n_roots : 1, sizeof *v);
    if (!v)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for thread locals");
    for (uint32_t r = 0; r < g->n_roots; r++) {
        node_ix t = frame_thread(g, r), x = g->roots[r].node;
        /* rules_root_class drops a frame root whose thread's locals the rules ignore */
        if (t != GRAPH_NONE && x < g->n_nodes && rules_root_class(rs, r, &lib) != RULES_DROP)
            v[k++] = (xpair){t, x};
    }
    qsort(v, k, sizeof *v, cmp_xpair);
    *from = err_mallocarray(k ? k : 1, sizeof **from);
    *to = err_mallocarray(k ? k : 1, sizeof **to);
    if (!*from || !*to) {
        free(v);
        free(*from);
        free(*to);
        *from = *to = NULL;
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for thread locals");
    }
    for (uint32_t i = 0; i < k; i++) {
        (*from)[i] = v[i].from;
        (*to)[i] = v[i].to;
    }
    *n = k;
    free(v);
    return LR_OK;
}

lr_status trace_dom_view(const graph *g, const rules_set *rs, trace_shark_ctx *shark,
                         dom_opts *o, dom_reach_table *tab, node_ix **from, node_ix **to,
                         lr_error *err)
{
    memset(o, 0, sizeof *o);
    memset(tab, 0, sizeof *tab);
    *from = *to = NULL;
    o->flags = DOM_RETAINED32;
    if (shark) {
        o->flags |= DOM_NO_CLASS_HOPS; /* Shark's references (docs/design.md) */
        o->reach = trace_shark_filter;
        o->reach_ctx = shark;
        o->weight = trace_shark_weight;
        o->weight_ctx = &shark->string_class;
        o->root = trace_shark_root;
        o->root_ctx = shark;
    } else {
        /* a class keeps its loader alive (the JVM unloads neither while the class is
         * reachable), whatever the rules say of the <classloader> edge: a loader leaked
         * through a class of its own retains what it holds */
        o->flags |= DOM_LOADER_HOPS;
        o->reach = trace_dom_filter;
        o->reach_ctx = (void *)rs;
        o->root = trace_dom_root;
        o->root_ctx = (void *)rs;
        /* the filter's answers as data: it is called only for the edges a rule may drop */
        lr_status st = trace_dom_table(g, rs, tab, err);
        if (st != LR_OK)
            return st;
        o->reach_table = tab;
    }
    lr_status st = trace_dom_locals(g, rs, from, to, &o->n_extra, err);
    o->extra_from = *from;
    o->extra_to = *to;
    return st;
}

void trace_dom_view_free(dom_reach_table *tab, node_ix *from, node_ix *to)
{
    trace_dom_table_free(tab);
    free(from);
    free(to);
}
