/* SPDX-License-Identifier: Apache-2.0 */
/* suspects.c: MAT-style leak suspects over any dominator tree (analysis layer), prefix susp_.
 * Steps: (1) top-level nodes = nodes whose dominator is the tree's top or a synthetic node
 * (or a global object the synthetic root names) whose own dominators up to the top are such
 * nodes; (2) those held only by Java-frame roots
 * of one thread, and reached from no other root, make that thread a candidate; (3) threads
 * whose figure (threads_with_locals, `threads`' "retained with locals") passes the share,
 * then single objects and class objects over it, then classes whose remaining top-level
 * instances together pass it, none of them counted in a printed thread's figure; (4) each
 * descends to its accumulation point. The
 * Bitmap.dumpData object (an artifact of `am dumpheap -b`, not app memory) is subtracted
 * from its dominators and never descended into. Arrays of N: one flag byte per node (and,
 * when some node is held by frames alone and the tree's reach pass gave no held set, a
 * stack of N for mark_held's walk) and one sum per class; a thread's figure costs one more
 * tree (and 4 bytes per node) only when threads_within cannot bound it below the share; the
 * biggest dominated children
 * are found only for the nodes the suspects descend through: the first SUSP_GATHER_LEVELS
 * levels from one pass listing the children heavy enough to matter, then a level per pass
 * over the tree (an index per node only past SUSP_DESCENT_PASSES more levels, or at once
 * when the heavy children are too many to list: a long chain below). The pass over N that
 * finds the top-level nodes, and the faulting-in of that index, run in two halves on two
 * threads when the caller says its other core is idle (susp_tree.split_min). */
#include "analysis/suspects.h"

#include "analysis/dominators.h"
#include "analysis/threads.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/hmap.h"
#include "base/mem.h"
#include "base/numfmt.h"
#include "base/par.h"
#include "base/search.h"
#include "rules/rules.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define F_SYN_CHAIN 1u /* synthetic node under the top through synthetic nodes only */
#define F_TOP 2u       /* top-level: candidate suspect */
#define F_LOCAL 4u     /* top-level node held only by Java-frame roots */
#define F_ARTIFACT 8u  /* the dump artifact */
#define F_FRONT 16u    /* a node some suspect's descent has reached, in this pass */
#define F_HELD 32u     /* reached from a root other than a Java frame (mark_held) */
#define F_SYN_SEEN 64u /* F_SYN_CHAIN is known (syn_chain) */
#define F_THREAD 128u  /* a thread object whose thread is a suspect */

/* Dominators a class object below the top is looked up through for a suspect above it */
#define SUSP_CLASS_WALK 4096u

/* Global objects listed in scan.users before the list grows on the heap */
#define SUSP_USER_ROOTS 64u

/* Levels of descent found by passes over the tree before one array of N takes over. */
#define SUSP_DESCENT_PASSES 8
/* Levels of descent decided by the one pass that lists the heavy children first, and the
 * most children that list holds (8 bytes each: 512 kB). */
#define SUSP_GATHER_LEVELS 8
#define SUSP_GATHER_MAX 65536u

const char *susp_kind_name(unsigned kind)
{
    switch (kind) {
    case SUSP_CLASS: return "class";
    case SUSP_INSTANCES: return "instances";
    case SUSP_THREAD_LOCALS: return "thread_locals";
    case SUSP_CLASSES: return "classes";
    default: return "object";
    }
}

void susp_free(susp_result *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n; i++) {
        free(r->v[i].path);
        free(r->v[i].path_edges);
        free(r->v[i].path_retained);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

edge_ix susp_artifact_edge(const graph *g)
{
    class_ix c = graph_find_class(g, "android.graphics.Bitmap");
    if (c == GRAPH_NONE || g->classes[c].node >= g->n_nodes || !g->first_edge)
        return GRAPH_NONE;
    node_ix x = g->classes[c].node;
    char name[64];
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_STATIC &&
            !strcmp(graph_edge_name_text(g, e, name, sizeof name), "dumpData"))
            return e;
    return GRAPH_NONE;
}

int susp_filter_strong(const graph *g, edge_ix e, void *ctx)
{
    uint8_t k = g->edge_kind[e];
    return (!ctx || e != *(const edge_ix *)ctx) && GRAPH_EDGE_STRENGTH(k) == GRAPH_STRONG &&
           GRAPH_EDGE_KIND(k) != GRAPH_EDGE_WEAK && !dom_gc_link(g, e);
}

/* Android's `am dumpheap -b` keeps every bitmap's pixels in the static
 * android.graphics.Bitmap.dumpData so that tools can decode them: memory the dump added. */
static node_ix find_artifact(const graph *g)
{
    class_ix c = graph_find_class(g, "android.graphics.Bitmap");
    graph_value v;
    if (c == GRAPH_NONE || !graph_static_find(g, c, "dumpData", &v) ||
        v.type != GRAPH_FT_OBJECT || v.ref >= g->n_nodes)
        return GRAPH_NONE;
    return v.ref;
}

typedef struct scan {
    const graph *g;
    const susp_tree *t;
    uint8_t *fl;
    node_ix artifact;
    uint64_t art_bytes;   /* retained by the artifact */
    uint8_t *art_anc;     /* dominators of the artifact (bit per node via fl would clash) */
    /* The objects the synthetic root names directly (V8's global objects, DevTools' user
     * roots), seen through like synthetic nodes: under Node 24 `global` dominates over 90 %
     * of every heap, and "one instance of global" said nothing; what it holds is what grows. */
    node_ix users_in[SUSP_USER_ROOTS];
    node_ix *users;       /* users_in, or a heap copy past SUSP_USER_ROOTS (a page with 80
                           * iframes has 81 windows) */
    uint32_t n_users, cap_users;
    uint8_t *user_bit;    /* a bit per node: one of users (see_through asks per node) */
} scan;

/* Whether the passes over the nodes run in two halves (susp_tree.split_min). */
static int split(const susp_tree *t)
{
    return t->split_min && t->n >= t->split_min;
}

/* One half of a pass over the nodes: [lo, hi) of the tree in s (populate_half: the bytes
 * [lo, hi) of big), and the array it fills. */
typedef struct half {
    const scan *s;
    size_t lo, hi;
    node_ix *big;
} half;

/* Retained bytes of x without the artifact. */
static uint64_t weight(const scan *s, node_ix x)
{
    uint64_t r = s->t->retained ? s->t->retained[x] : s->t->retained32[x];
    if (s->art_anc && s->art_anc[x])
        r = r > s->art_bytes ? r - s->art_bytes : 0;
    return r;
}

static int is_synthetic(const graph *g, node_ix x)
{
    return x < g->n_nodes && g->node_kind[x] == GRAPH_KIND_SYNTHETIC;
}

/* A synthetic node or one of scan.users: the suspects look below it. */
static int see_through(const scan *s, node_ix x)
{
    if (is_synthetic(s->g, x))
        return 1;
    return s->user_bit && x < s->g->n_nodes && (s->user_bit[x / 8] >> (x % 8) & 1);
}

/* Adds x to s->users (once); 0, or -1 out of memory. */
static int add_user(scan *s, node_ix x)
{
    const graph *g = s->g;
    if (!s->user_bit && !(s->user_bit = calloc(g->n_nodes / 8 + 1, 1)))
        return -1;
    if (s->user_bit[x / 8] >> (x % 8) & 1)
        return 0;
    if (!s->users) {
        s->users = s->users_in;
        s->cap_users = SUSP_USER_ROOTS;
    }
    if (s->n_users == s->cap_users) {
        node_ix *p = err_mallocarray((size_t)s->cap_users * 2, sizeof *p);
        if (!p)
            return -1;
        memcpy(p, s->users, s->n_users * sizeof *p);
        if (s->users != s->users_in)
            free(s->users);
        s->users = p;
        s->cap_users *= 2;
    }
    s->user_bit[x / 8] |= (uint8_t)(1u << (x % 8));
    s->users[s->n_users++] = x;
    return 0;
}

/* Fills s->users: the non-synthetic targets of the synthetic root's edges, and every global
 * object below. 0, or -1 out of memory. */
static int find_users(scan *s)
{
    const graph *g = s->g;
    node_ix r = g->synthetic_root;
    if (r >= g->n_nodes || !g->first_edge)
        return 0;
    for (edge_ix e = g->first_edge[r]; e < g->first_edge[r + 1]; e++) {
        node_ix y = g->edge_to[e];
        if (y < g->n_nodes && !is_synthetic(g, y) && y != r && add_user(s, y))
            return -1;
    }
    /* A browser's global objects hang below the GC roots' sub-roots (a page's `Window
     * [JSGlobalObject]` under "(Global handles)" through its native context; a worker's
     * `DedicatedWorkerGlobalScope [JSGlobalObject]` likewise), not under the root: the page
     * read "one instance of Window occupies 97.6 %" and nothing it held was ranked. V8 tags
     * every global object's class so; one pass over the classes, one over the nodes. */
    uint8_t *glob = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    if (!glob)
        return -1;
    int any = 0, rc = 0;
    for (uint32_t c = 0; c < g->n_classes; c++)
        any |= glob[c] = strstr(graph_str(g, g->classes[c].name), "[JSGlobalObject]") != NULL;
    for (node_ix x = 0; any && !rc && x < g->n_nodes; x++) {
        class_ix c = graph_node_class(g, x);
        if (c < g->n_classes && glob[c])
            rc = add_user(s, x);
    }
    free(glob);
    return rc;
}

/* Whether synthetic node x hangs under the top through synthetic nodes only (bounded walk:
 * sub-root chains are a few nodes deep), found the first time a node below it asks and kept
 * in its flags: HPROF dumps have no synthetic node, so no pass over N looks for them. */
static int syn_chain(scan *s, node_ix x)
{
    const susp_tree *t = s->t;
    if (s->fl[x] & F_SYN_SEEN)
        return (s->fl[x] & F_SYN_CHAIN) != 0;
    int ok = 0;
    if (t->idom[x] != GRAPH_NONE && x != t->top) {
        node_ix y = x;
        for (int k = 0; k < 64; k++) {
            node_ix d = t->idom[y];
            if (d == t->top) {
                ok = 1;
                break;
            }
            if (d >= t->n || !see_through(s, d) || d == y)
                break;
            y = d;
        }
    }
    s->fl[x] |= (uint8_t)(F_SYN_SEEN | (ok ? F_SYN_CHAIN : 0));
    return ok;
}

/* Whether a is x or lies below x in the tree (a bounded walk up: V8's trees are shallow,
 * and a chain longer than the bound reads as "not below"). */
static int dominated_by(const susp_tree *t, node_ix a, node_ix x)
{
    for (uint32_t k = 0; a < t->n && k < 1u << 20; k++) {
        if (a == x)
            return 1;
        node_ix d = t->idom[a];
        if (d == a || d == t->top)
            return 0;
        a = d;
    }
    return 0;
}

/* Whether x's dominator is the top, or a synthetic node chained to it. */
static int under_top(scan *s, node_ix x)
{
    node_ix d = s->t->idom[x];
    if (d == s->t->top)
        return 1;
    return d < s->t->n && see_through(s, d) && syn_chain(s, d);
}

/* Frame-rooted top-level nodes: every root entry naming them is a Java frame. The thread
 * serial of the first such entry and its frame are kept in a list sorted by node, one entry
 * per such node: roots are few next to nodes, so two arrays of N (18 MB on a 2.3 M-object
 * heap, while the tree is held) would cost more than a sort of the roots. */
/* A Java-frame root by its thread's serial (root: its index in g->roots). */
typedef struct frame_root {
    uint32_t serial, root;
} frame_root;

static int cmp_frame_root(const void *pa, const void *pb)
{
    const frame_root *a = pa, *b = pb;
    if (a->serial != b->serial)
        return a->serial < b->serial ? -1 : 1;
    return a->root < b->root ? -1 : a->root > b->root;
}

typedef struct local {
    node_ix node;    /* a top-level node held only by Java-frame roots */
    uint32_t serial; /* thread serial of its first frame root; 0 once counted */
    int32_t frame;   /* that root's frame */
    int printed;     /* its thread is a suspect: its figure counts this node */
} local;

typedef struct locals {
    local *v;
    uint32_t n;
} locals;

static int cmp_local(const void *pa, const void *pb)
{
    const local *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    /* the root index, kept in serial until the group is read: the first entry first */
    return a->serial < b->serial ? -1 : a->serial > b->serial;
}

static local *local_find(const locals *l, node_ix x)
{
    uint32_t a;
    SEARCH_LOWER_BOUND(uint32_t, 0, l->n, l->v[search_mid].node < x, a);
    return a < l->n && l->v[a].node == x ? &l->v[a] : NULL;
}

/* The references the tree's model follows, for mark_held: VisualVM's for HotSpot dumps,
 * strong ones otherwise (the same choice as retained.c; a Java-local edge is a frame's hold,
 * not one of another root). */
static int held_edge(const graph *g, edge_ix e)
{
    if (g->size_model == GRAPH_SIZES_VISUALVM)
        return dom_visualvm_reach(g, e, NULL);
    uint8_t k = g->edge_kind[e];
    return GRAPH_EDGE_STRENGTH(k) == GRAPH_STRONG && GRAPH_EDGE_KIND(k) != GRAPH_EDGE_WEAK &&
           GRAPH_EDGE_KIND(k) != GRAPH_EDGE_LOCAL && !dom_gc_link(g, e);
}

/* Sets F_HELD on every node the roots other than Java frames reach through the model's
 * references. A frame-held object that a static (or any other root) also reaches is no
 * thread's local: in MAT's thread overview a thread keeps only what its object dominates
 * once its frames are references of that object, and `threads` measures it so. The
 * VisualVM tree's reach pass gives that set (susp_tree.held, a bit per node, at no walk of
 * its own: is_held reads it); otherwise one DFS, a stack of up to N nodes. Returns 0, or -1
 * when out of memory. */
static int mark_held(scan *s)
{
    const graph *g = s->g;
    uint32_t n = s->t->n;
    if (s->t->held)
        return 0;
    if (!g->first_edge)
        return 0;
    node_ix *stack = err_mallocarray(n ? n : 1, sizeof *stack);
    if (!stack)
        return -1;
    uint32_t sp = 0;
    for (uint32_t r = 0; r < g->n_roots; r++) {
        node_ix x = g->roots[r].node;
        if (g->roots[r].kind == GRAPH_ROOT_JAVA_FRAME || x >= n || (s->fl[x] & F_HELD))
            continue;
        s->fl[x] |= F_HELD;
        stack[sp++] = x;
    }
    while (sp) {
        node_ix x = stack[--sp];
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y >= n || (s->fl[y] & F_HELD) || !held_edge(g, e))
                continue;
            s->fl[y] |= F_HELD;
            stack[sp++] = y;
        }
    }
    free(stack);
    return 0;
}

/* Whether a root other than a Java frame reaches x (after mark_held). */
static int is_held(const scan *s, node_ix x)
{
    if (s->t->held)
        return s->t->held[x >> 6] >> (x & 63) & 1;
    return (s->fl[x] & F_HELD) != 0;
}

/* Fills *l and sets F_LOCAL: top-level nodes whose root entries are all Java frames of one
 * thread and that no other root reaches (mark_held, run only when there are such nodes).
 * Returns 0, or -1 when out of memory. */
static int mark_locals(scan *s, locals *l)
{
    const graph *g = s->g;
    uint32_t m = 0;
    for (uint32_t r = 0; r < g->n_roots; r++) {
        node_ix x = g->roots[r].node;
        m += x < g->n_nodes && (s->fl[x] & F_TOP);
    }
    l->n = 0;
    l->v = err_mallocarray(m ? m : 1, sizeof *l->v);
    if (!l->v)
        return -1;
    for (uint32_t r = 0; r < g->n_roots; r++) {
        node_ix x = g->roots[r].node;
        if (x < g->n_nodes && (s->fl[x] & F_TOP))
            l->v[l->n++] = (local){x, r, 0, 0};
    }
    qsort(l->v, l->n, sizeof *l->v, cmp_local);
    uint32_t out = 0;
    for (uint32_t i = 0, j; i < l->n; i = j) {
        const graph_root *first = &g->roots[l->v[i].serial];
        int frames = 1;
        for (j = i; j < l->n && l->v[j].node == l->v[i].node; j++) {
            const graph_root *rt = &g->roots[l->v[j].serial];
            frames &= rt->kind == GRAPH_ROOT_JAVA_FRAME && rt->thread != 0 &&
                      rt->thread == first->thread;
        }
        if (frames)
            l->v[out++] = (local){l->v[i].node, first->thread, first->frame, 0};
    }
    l->n = out;
    if (out && mark_held(s))
        return -1;
    out = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        if (is_held(s, l->v[i].node))
            continue;
        l->v[out++] = l->v[i];
        s->fl[l->v[i].node] |= F_LOCAL;
    }
    l->n = out;
    return 0;
}

/* Whether a thread whose sentence is printed (F_THREAD) counts x in its figure: one of the
 * thread objects dominating x in threads_with_locals' tree (under). At most one step per
 * thread. */
static int in_thread(const graph *g, const scan *s, const uint32_t *under, node_ix x)
{
    uint32_t ti = under[x];
    for (uint32_t k = 0; k < g->n_threads && ti < g->n_threads; k++) {
        node_ix tn = g->threads[ti].node;
        if (tn >= s->t->n)
            break;
        if (s->fl[tn] & F_THREAD)
            return 1;
        ti = under[tn];
    }
    return 0;
}

/* threads_stop_fn for threads_within: a top-level object that a root other than a Java
 * frame also reaches is reached without the thread, unless that root's way goes through
 * the thread's own fields: a worker's field and its frame both holding a queue that nothing
 * else holds. Such a thread's locals' estimate (the old sentence) already leaves the queue
 * out, so it keeps the old answer: the queue is an object suspect, no thread sentence. */
static int shared_top(void *ctx, node_ix x)
{
    const scan *s = ctx;
    return (s->fl[x] & F_TOP) && is_held(s, x);
}

/* The top-level nodes of a heap without synthetic nodes over [lo, hi): those whose
 * dominator is the top, with no look at each dominator's kind (a read out of order per
 * node: half of this pass's time on a big heap). Each half sets the flags of its own
 * nodes only. */
static void *top_half(void *arg)
{
    const half *h = arg;
    const susp_tree *t = h->s->t;
    uint8_t *fl = h->s->fl;
    if (t->top == GRAPH_NONE)
        return NULL;
    for (node_ix x = (node_ix)h->lo; x < h->hi; x++)
        if (t->idom[x] == t->top && x != t->top && !(fl[x] & F_ARTIFACT))
            fl[x] |= F_TOP;
    return NULL;
}

static int push(susp_result *out, uint32_t *cap, const susp_item *it)
{
    if (out->n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        susp_item *v = realloc(out->v, (size_t)nc * sizeof *v);
        if (!v)
            return -1;
        out->v = v;
        *cap = nc;
    }
    out->v[out->n++] = *it;
    return 0;
}

/* push: a single object (or class object) x retaining w as a suspect of its own. */
static int push_single(susp_result *out, uint32_t *cap, const graph *g, node_ix x, uint64_t w)
{
    susp_item it = {0};
    it.kind = g->node_kind[x] == GRAPH_KIND_CLASS ? SUSP_CLASS : SUSP_OBJECT;
    it.node = x;
    it.cls = GRAPH_NONE;
    it.retained = w;
    it.thread = GRAPH_NONE;
    it.frame = -1;
    return push(out, cap, &it);
}

static int cmp_item(const void *pa, const void *pb)
{
    const susp_item *a = pa, *b = pb;
    if (a->retained != b->retained)
        return a->retained < b->retained ? 1 : -1;
    return a->node < b->node ? -1 : a->node > b->node;
}

static const char *class_label(const graph *g, node_ix x, char *buf, size_t cap)
{
    if (g->node_kind[x] == GRAPH_KIND_CLASS) {
        class_ix c = graph_class_of_node(g, x);
        if (c != GRAPH_NONE) {
            snprintf(buf, cap, "%s", graph_str(g, g->classes[c].name));
            return buf;
        }
    }
    const char *n = graph_class_name(g, x);
    snprintf(buf, cap, "%s", n && *n ? n : "<no class>");
    return buf;
}

/* The JDK's own loaders (and Android's): a class they define needs no "loaded by". */
static const char *const builtin_loaders[] = {
    "jdk.internal.loader.ClassLoaders$AppClassLoader",
    "jdk.internal.loader.ClassLoaders$PlatformClassLoader",
    "jdk.internal.loader.ClassLoaders$BootClassLoader",
    "sun.misc.Launcher$AppClassLoader",
    "sun.misc.Launcher$ExtClassLoader",
    "dalvik.system.PathClassLoader",
    "java.lang.BootClassLoader",
};

/* ", loaded by LOADER @ 0xID (NAME)" into buf when class object y was defined by a loader
 * other than the JDK's own, as MAT names it: a redeployed application's classes are
 * there once per loader, and three suspects "The class webapp.App" read alike otherwise;
 * else "". Returns buf. */
static const char *loaded_by(const graph *g, node_ix y, char *buf, size_t cap)
{
    buf[0] = 0;
    if (y >= g->n_nodes || g->node_kind[y] != GRAPH_KIND_CLASS)
        return buf;
    edge_ix end = g->first_edge[y + 1] < g->n_edges ? g->first_edge[y + 1] : g->n_edges;
    node_ix l = GRAPH_NONE;
    for (edge_ix e = g->first_edge[y]; e < end && l == GRAPH_NONE; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_INTERNAL &&
            g->edge_to[e] < g->n_nodes &&
            !strcmp(graph_str(g, graph_edge_name_from(g, y, e)), "<classloader>"))
            l = g->edge_to[e];
    const char *lc = l != GRAPH_NONE ? graph_class_name(g, l) : NULL;
    if (!lc || !*lc)
        return buf;
    for (size_t i = 0; i < sizeof builtin_loaders / sizeof *builtin_loaders; i++)
        if (!strcmp(lc, builtin_loaders[i]))
            return buf;
    char name[128];
    rules_thread_name(g, l, name, sizeof name); /* ClassLoader.name, as Thread.name */
    snprintf(buf, cap, ", loaded by %s @ 0x%" PRIx64 "%s%s%s", lc, graph_node_id(g, l),
             *name ? " (" : "", name, *name ? ")" : "");
    return buf;
}

/* The class object of x's class, GRAPH_NONE when the dump has none. */
static node_ix class_node_of(const graph *g, node_ix x)
{
    class_ix c = graph_node_class(g, x);
    return c < g->n_classes ? g->classes[c].node : GRAPH_NONE;
}

static void describe(const graph *g, const susp_tree *t, susp_item *it)
{
    char cls[256], name[256], acc[256], by[256], b[NUMFMT_GROUP_MAX], nb[NUMFMT_GROUP_MAX];
    double pct = t->total ? 100.0 * (double)it->retained / (double)t->total : 0.0;
    numfmt_group(b, it->retained);
    int n = 0;
    switch (it->kind) {
    case SUSP_CLASS:
        loaded_by(g, it->node, by, sizeof by);
        n = snprintf(it->text, sizeof it->text, "The class %s%s%s occupies %s bytes (%.1f %%)",
                     class_label(g, it->node, cls, sizeof cls), by, *by ? "," : "", b, pct);
        break;
    case SUSP_INSTANCES:
        loaded_by(g, g->classes[it->cls].node, by, sizeof by);
        n = snprintf(it->text, sizeof it->text,
                     "%s instances of %s%s%s occupy %s bytes (%.1f %%)",
                     numfmt_group(nb, it->count), graph_str(g, g->classes[it->cls].name), by,
                     *by ? "," : "", b, pct);
        break;
    case SUSP_CLASSES:
        loaded_by(g, it->node, by, sizeof by);
        n = snprintf(it->text, sizeof it->text,
                     "%s classes %s, each defined by its own class loader (the biggest%s), "
                     "occupy %s bytes (%.1f %%)",
                     numfmt_group(nb, it->count), class_label(g, it->node, cls, sizeof cls),
                     *by ? by + 1 : " by the JDK's", b, pct);
        break;
    case SUSP_THREAD_LOCALS:
        rules_thread_name(g, it->thread, name, sizeof name);
        n = snprintf(it->text, sizeof it->text,
                     "thread %s keeps local variables with total size %s bytes (%.1f %%)",
                     *name ? name : "(unnamed)", b, pct);
        break;
    default:
        loaded_by(g, class_node_of(g, it->node), by, sizeof by);
        n = snprintf(it->text, sizeof it->text,
                     "One instance of %s%s%s occupies %s bytes (%.1f %%)%s",
                     class_label(g, it->node, cls, sizeof cls), by, *by ? "," : "", b, pct,
                     it->beside ? " outside the suspects it holds" : "");
        break;
    }
    if (n > 0 && (size_t)n < sizeof it->text && it->accumulation != it->node)
        snprintf(it->text + n, sizeof it->text - (size_t)n,
                 "; the memory is accumulated in one instance of %s",
                 class_label(g, it->accumulation, acc, sizeof acc));
}

/* Whether x counts as a dominated child of its idom for the descent (the artifact and the
 * tree's top never do). */
static int descent_child(const scan *s, node_ix x)
{
    node_ix d = s->t->idom[x];
    return d != GRAPH_NONE && d < s->t->n && x != s->t->top && !(s->fl[x] & F_ARTIFACT);
}

/* A dominated child heavy enough for gather's list: the node and its dominator. */
typedef struct kid {
    node_ix parent; /* its idom */
    node_ix x;      /* the child */
} kid;

static int cmp_kid(const void *pa, const void *pb)
{
    const kid *a = pa, *b = pb;
    if (a->parent != b->parent)
        return a->parent < b->parent ? -1 : 1;
    return a->x < b->x ? -1 : a->x > b->x;
}

/* One pass over the tree: every descent child weighing thr or more, into k (room for
 * SUSP_GATHER_MAX), sorted by dominator then node. Returns how many, or UINT32_MAX when
 * there are more (a deep heavy structure: a chain's every link keeps most of the next). */
static uint32_t gather(const scan *s, double thr, kid *k)
{
    uint32_t c = 0;
    for (node_ix x = 0; x < s->t->n; x++) {
        if ((double)weight(s, x) < thr || !descent_child(s, x))
            continue;
        if (c == SUSP_GATHER_MAX)
            return UINT32_MAX;
        k[c++] = (kid){s->t->idom[x], x};
    }
    qsort(k, c, sizeof *k, cmp_kid);
    return c;
}

/* Steps descent i from at[i] down the gathered children while the list decides: a child
 * that keeps more than accum of a is in it whenever thr <= accum * weight(a), and so is
 * every child as big (the first in node order wins, as in a pass). Returns whether the
 * descent ended (its accumulation point set). */
static int descend_gathered(const scan *s, const kid *k, uint32_t nk, double thr,
                            double accum, node_ix *at, uint32_t *steps, susp_item *it)
{
    for (;;) {
        node_ix a = *at;
        if (!(thr <= accum * (double)weight(s, a)))
            return 0;
        uint32_t lo;
        SEARCH_LOWER_BOUND(uint32_t, 0, nk, k[search_mid].parent < a, lo);
        node_ix c = GRAPH_NONE;
        for (uint32_t j = lo; j < nk && k[j].parent == a; j++)
            if (c == GRAPH_NONE || weight(s, k[j].x) > weight(s, c))
                c = k[j].x;
        if (*steps < s->t->n && c != GRAPH_NONE &&
            (double)weight(s, c) > accum * (double)weight(s, a)) {
            *at = c;
            (*steps)++;
            continue;
        }
        it->accumulation = a;
        return 1;
    }
}

/* Faults in one half of big (the bytes [lo, hi) of it). */
static void *populate_half(void *arg)
{
    const half *h = arg;
    mem_populate((char *)h->big + h->lo, h->hi - h->lo);
    return NULL;
}

/* big[d] = d's biggest dominated child + 1 (the first in node order among equals), 0 for
 * none: one pass over the tree. big is zeroed pages from the system: the pass reads each
 * slot before it writes it, so they are faulted in first (at once, not twice a page), in
 * two halves when split. The pass itself stays on one thread: in halves by child the
 * slots both write need a locked instruction per child, which stops the loads overlapping
 * (twice the time on the 1 GB bench dump); in halves by dominator each half streams every
 * child past a test it cannot predict, and the heavier half alone costs what the whole
 * pass did. The common case (32-bit sizes, no artifact) reads the sizes directly, and the
 * top and the artifact are no child (descent_child) by their index, not the flags: one
 * array less to stream through. */
static void biggest_children(const scan *s, node_ix *big)
{
    const susp_tree *t = s->t;
    size_t bytes = (size_t)t->n * sizeof *big, bmid = split(t) ? bytes / 2 : bytes;
    half p[2] = {{s, 0, bmid, big}, {s, bmid, bytes, big}};
    par_two(populate_half, &p[0], &p[1], bmid < bytes);
    const node_ix *idom = t->idom;
    const uint32_t *w = t->retained32;
    if (t->retained || s->art_anc) {
        for (node_ix x = 0; x < t->n; x++) {
            node_ix d = idom[x];
            if (descent_child(s, x) && (!big[d] || weight(s, x) > weight(s, big[d] - 1)))
                big[d] = x + 1;
        }
        return;
    }
    for (node_ix x = 0; x < t->n; x++) {
        node_ix d = idom[x];
        if (d >= t->n || x == t->top || x == s->artifact)
            continue;
        node_ix b = big[d];
        if (!b || w[x] > w[b - 1])
            big[d] = x + 1;
    }
}

/* Each suspect's accumulation point: down its biggest dominated child (the first in node
 * order among equals) while that child keeps more than accum of its parent, at most n steps
 * (a group of instances is the parent of its biggest one).
 * Each step keeps more than accum of the last, so SUSP_GATHER_LEVELS levels stay above
 * thr = accum^levels of the lightest suspect: one pass lists the children that heavy
 * (gather), and those levels are decided from the list. Descents still going then take a
 * pass over the tree per level, for the biggest children of the nodes they stand on; past
 * SUSP_DESCENT_PASSES levels, or at once when the heavy children are too many for the list
 * (a long chain below), one array of N gives every node's biggest child. Returns 0, or -1
 * when out of memory. */
static int descend(scan *s, susp_result *out, double accum)
{
    const susp_tree *t = s->t;
    uint32_t n = t->n, m = out->n, n_live = m;
    node_ix *at = err_mallocarray(m ? m : 1, sizeof *at);
    node_ix *best = err_mallocarray(m ? m : 1, sizeof *best);
    uint32_t *steps = err_calloc(m ? m : 1, sizeof *steps);
    kid *kids = m ? err_mallocarray(SUSP_GATHER_MAX, sizeof *kids) : NULL;
    node_ix *big = NULL;
    int rc = -1, deep = 0;
    if (!at || !best || !steps || (m && !kids))
        goto done;
    double thr = 0;
    for (uint32_t i = 0; i < m; i++) {
        at[i] = out->v[i].node;
        if (i == 0 || (double)weight(s, at[i]) < thr)
            thr = (double)weight(s, at[i]);
    }
    for (int l = 0; l < SUSP_GATHER_LEVELS; l++)
        thr *= accum;
    /* A group's first step is from the group to its biggest instance: taken only when that
     * instance keeps more than accum of the group, or the clause would name what one
     * arbitrary member of 2,000 strings holds. */
    for (uint32_t i = 0; i < m; i++)
        if (out->v[i].beside ||
            ((out->v[i].kind == SUSP_INSTANCES || out->v[i].kind == SUSP_CLASSES) &&
             !((double)weight(s, at[i]) > accum * (double)out->v[i].retained))) {
            out->v[i].accumulation = at[i];
            at[i] = GRAPH_NONE;
            n_live--;
        }
    uint32_t nk = m ? gather(s, thr, kids) : 0;
    deep = nk == UINT32_MAX;
    for (uint32_t i = 0; !deep && i < m; i++)
        if (at[i] != GRAPH_NONE &&
            descend_gathered(s, kids, nk, thr, accum, &at[i], &steps[i], &out->v[i])) {
            at[i] = GRAPH_NONE;
            n_live--;
        }
    for (uint32_t pass = 0; n_live && !deep && pass < SUSP_DESCENT_PASSES; pass++) {
        for (uint32_t i = 0; i < m; i++) {
            best[i] = GRAPH_NONE;
            if (at[i] != GRAPH_NONE)
                s->fl[at[i]] |= F_FRONT;
        }
        for (node_ix x = 0; x < n; x++) {
            node_ix d = t->idom[x];
            if (d >= n || !(s->fl[d] & F_FRONT) || !descent_child(s, x))
                continue;
            for (uint32_t i = 0; i < m; i++)
                if (at[i] == d && (best[i] == GRAPH_NONE || weight(s, x) > weight(s, best[i])))
                    best[i] = x;
        }
        for (uint32_t i = 0; i < m; i++)
            if (at[i] != GRAPH_NONE)
                s->fl[at[i]] &= (uint8_t)~F_FRONT;
        for (uint32_t i = 0; i < m; i++) {
            if (at[i] == GRAPH_NONE)
                continue;
            node_ix c = best[i];
            if (steps[i] < n && c != GRAPH_NONE &&
                (double)weight(s, c) > accum * (double)weight(s, at[i])) {
                at[i] = c;
                steps[i]++;
                continue;
            }
            out->v[i].accumulation = at[i];
            at[i] = GRAPH_NONE;
            n_live--;
        }
    }
    if (n_live) {
        /* child + 1, 0 for none: zeroed pages come from the system, no pass writes them */
        big = err_calloc(n ? n : 1, sizeof *big);
        if (!big)
            goto done;
        biggest_children(s, big);
        for (uint32_t i = 0; i < m; i++) {
            if (at[i] == GRAPH_NONE)
                continue;
            node_ix a = at[i];
            for (uint32_t k = steps[i]; k < n; k++) {
                node_ix c = big[a] - 1;
                if (!big[a] || (double)weight(s, c) <= accum * (double)weight(s, a))
                    break;
                a = c;
            }
            out->v[i].accumulation = a;
        }
    }
    for (uint32_t i = 0; i < m; i++)
        out->v[i].path_root = UINT32_MAX;
    rc = 0;
done:
    free(at);
    free(best);
    free(steps);
    free(kids);
    free(big);
    return rc;
}

/* A class object by its class's name, for group_classes. */
typedef struct named_class {
    const char *name;
    node_ix node;
    uint64_t w;
} named_class;

static int cmp_named_class(const void *pa, const void *pb)
{
    const named_class *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    if (a->w != b->w)
        return a->w < b->w ? 1 : -1;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* Class objects as suspects where the tree counts what a class keeps under no top-level
 * node (susp_tree.classes_apart): one over the share alone, and the class objects of one
 * name, each defined by its own loader, together: a class loader leak repeated (20,000
 * loaders, each with its copy of a class and the class's statics, kept by one list, held 98
 * % of a heap and gave no suspect). Elsewhere only top-level class objects are candidates,
 * and a single one was a suspect already. Sorting by name costs O(C log C) for C classes. */
static int group_classes(scan *s, susp_result *out, uint32_t *cap, double limit)
{
    const graph *g = s->g;
    const susp_tree *t = s->t;
    named_class *v = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *v);
    uint8_t *held = err_calloc(t->n / 8 + 1, 1);
    if (!v || !held) {
        free(v);
        free(held);
        return -1;
    }
    for (uint32_t i = 0; i < out->n; i++)
        if (out->v[i].node < t->n)
            held[out->v[i].node / 8] |= (uint8_t)(1u << (out->v[i].node % 8));
    uint32_t m = 0;
    char by[256];
    for (class_ix c = 0; c < g->n_classes; c++) {
        node_ix x = g->classes[c].node;
        if (x >= t->n || g->node_kind[x] != GRAPH_KIND_CLASS || t->idom[x] == GRAPH_NONE ||
            x == t->top || (s->fl[x] & F_ARTIFACT))
            continue;
        int top = (s->fl[x] & F_TOP) != 0;
        if (!top && !t->classes_apart)
            continue;
        if (!top) {
            /* A class a tree object holds passes its sum up after all (VisualVM's rule), so
             * only the classes of loaders other than the JDK's own, which a leak keeps, are
             * taken below the top, and none under a suspect already printed */
            if (!*loaded_by(g, x, by, sizeof by))
                continue;
            int under = 0;
            node_ix d = t->idom[x];
            for (uint32_t k = 0; d < t->n && k < SUSP_CLASS_WALK && !under; k++) {
                under = held[d / 8] >> (d % 8) & 1;
                d = t->idom[d];
            }
            if (under)
                continue;
        }
        uint64_t w = weight(s, x);
        if ((double)w > limit) {
            if (!top && push_single(out, cap, g, x, w)) {
                free(v);
                free(held);
                return -1;
            }
            continue;
        }
        v[m++] = (named_class){graph_str(g, g->classes[c].name), x, w};
    }
    qsort(v, m, sizeof *v, cmp_named_class);
    for (uint32_t i = 0, j; i < m; i = j) {
        uint64_t sum = 0;
        for (j = i; j < m && !strcmp(v[j].name, v[i].name); j++)
            sum += v[j].w;
        if (j - i < 2 || (double)sum <= limit)
            continue;
        susp_item it = {0};
        it.kind = SUSP_CLASSES;
        it.node = v[i].node; /* the biggest */
        it.cls = graph_class_of_node(g, v[i].node);
        it.count = j - i;
        it.retained = sum;
        it.thread = GRAPH_NONE;
        it.frame = -1;
        if (push(out, cap, &it)) {
            free(v);
            free(held);
            return -1;
        }
    }
    free(v);
    free(held);
    return 0;
}

/* out->pending_*: what waits for finalization (susp_result). Only when the bytes the tree
 * does not reach could pass the share: a pass over the nodes, then the edges of the reached
 * ones (the Finalizers' referents), then a walk through what those reach. */
static lr_status pending_final(const graph *g, const susp_tree *t, double share,
                               susp_result *out, lr_error *err)
{
    uint32_t n = t->n;
    out->pending_class = GRAPH_NONE;
    if (!g->first_edge || !g->edge_kind)
        return LR_OK;
    uint64_t unreached = 0;
    for (node_ix v = 0; v < n; v++)
        if (t->idom[v] == GRAPH_NONE)
            unreached += graph_node_size(g, v);
    if ((double)unreached < share * (double)(t->total + unreached) || unreached == 0)
        return LR_OK;
    uint8_t *mark = err_calloc(n, 1);
    node_ix *stk = err_mallocarray(n, sizeof *stk);
    uint32_t *per = g->n_classes ? err_calloc(g->n_classes, sizeof *per) : NULL;
    if (!mark || !stk || (g->n_classes && !per)) {
        free(mark);
        free(stk);
        free(per);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding objects to finalize");
    }
    uint32_t sp = 0;
    for (node_ix v = 0; v < n; v++) {
        if (t->idom[v] == GRAPH_NONE)
            continue;
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_FINALIZER || y >= n ||
                t->idom[y] != GRAPH_NONE || mark[y])
                continue;
            mark[y] = 1;
            stk[sp++] = y;
            class_ix c = graph_node_class(g, y);
            if (c < g->n_classes && ++per[c] > out->pending_class_n) {
                out->pending_class_n = per[c];
                out->pending_class = c;
            }
        }
    }
    while (sp) {
        node_ix x = stk[--sp];
        out->pending_objects++;
        out->pending_bytes += graph_node_size(g, x);
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            unsigned str = GRAPH_EDGE_STRENGTH(g->edge_kind[e]);
            if ((str != GRAPH_STRONG && str != GRAPH_FINALIZER) || y >= n ||
                t->idom[y] != GRAPH_NONE || mark[y])
                continue;
            mark[y] = 1;
            stk[sp++] = y;
        }
    }
    free(mark);
    free(stk);
    free(per);
    return LR_OK;
}

/* What the pass over the top-level nodes needs to tell the suspects' candidates and the
 * groups of instances apart, for that pass and for typical()'s. */
typedef struct grouping {
    const scan *s;
    const locals *loc;
    const uint32_t *under; /* threads_with_locals' nearest thread, or NULL */
    double limit;
} grouping;

/* Whether x is a candidate: a top-level node no printed thread counts. */
static int candidate(const grouping *gr, node_ix x)
{
    const scan *s = gr->s;
    return (s->fl[x] & F_TOP) && !(s->fl[x] & F_THREAD) &&
           !((s->fl[x] & F_LOCAL) && local_find(gr->loc, x)->printed) &&
           !(gr->under && in_thread(s->g, s, gr->under, x));
}

/* The class a candidate under the share is summed in, GRAPH_NONE for none. DevTools'
 * "(system)", "(compiled code)", "(array)"... are VM internals of every kind, not one type
 * the program allocates: never grouped. */
static class_ix group_of(const grouping *gr, node_ix x)
{
    const graph *g = gr->s->g;
    class_ix c = graph_node_class(g, x);
    if (c >= g->n_classes || g->node_kind[x] == GRAPH_KIND_CLASS ||
        graph_str(g, g->classes[c].name)[0] == '(')
        return GRAPH_NONE;
    return c;
}

/* One node of the tree the retaining paths of a group's members make (typical()). */
typedef struct twig {
    node_ix node;
    uint32_t up;   /* its parent's twig, HMAP_NONE at a path's start */
    uint32_t best; /* its heaviest child's twig, HMAP_NONE for none */
    int member;
    uint64_t sum;  /* weight of the members at or below it */
} twig;

/* Most steps typical() walks up the members' paths (24 bytes and a hash slot each) before it
 * leaves the group to its biggest instance, and most members whose paths it walks: of a
 * bigger group, every k-th in node order (4,004,000 thread locals took 160 MB walked whole). */
#define SUSP_TYPICAL_STEPS (1u << 21)
#define SUSP_TYPICAL_MEMBERS 65536u

static uint32_t twig_find(const hmap *m, const twig *v, node_ix x, uint32_t h)
{
    hmap_it it;
    for (uint32_t e = hmap_first(m, h, &it); e != HMAP_NONE; e = hmap_next(m, &it))
        if (v[e].node == x)
            return e;
    return HMAP_NONE;
}

/* The member of group c to describe the group by: where most of its bytes are held. The
 * members' retaining paths (susp_tree.parent) make a tree; from its top the heaviest branch
 * is followed down to the first member on it. The biggest member alone showed the path of
 * an outlier: Node's console context, for 1,170 closure contexts two thirds of which one
 * listener list held. big (the biggest) when the paths take more than SUSP_TYPICAL_STEPS
 * or memory runs out; count: the group's members. */
static node_ix typical(const grouping *gr, class_ix c, uint32_t count, node_ix big)
{
    const scan *s = gr->s;
    const susp_tree *t = s->t;
    uint64_t seed = hmap_seed();
    hmap m = {0};
    twig *v = NULL;
    uint32_t nv = 0, cap = 0, steps = 0;
    node_ix pick = big;
    uint32_t stride = count / SUSP_TYPICAL_MEMBERS + 1, k = 0;
    for (node_ix x = 0; x < t->n; x++) {
        if (!candidate(gr, x) || (double)weight(s, x) > gr->limit || group_of(gr, x) != c ||
            k++ % stride)
            continue;
        uint64_t w = weight(s, x);
        uint32_t below = HMAP_NONE; /* the twig just walked up from */
        for (node_ix y = x; y != GRAPH_NONE; y = t->parent(t->parent_ctx, y)) {
            if (++steps > SUSP_TYPICAL_STEPS)
                goto done;
            uint32_t h = (uint32_t)hash_mix64(seed ^ y);
            uint32_t e = twig_find(&m, v, y, h);
            if (e == HMAP_NONE) {
                if (nv == cap) {
                    uint32_t nc = cap ? cap * 2 : 1024;
                    twig *nv2 = err_reallocarray(v, nc, sizeof *v);
                    if (!nv2)
                        goto done;
                    v = nv2;
                    cap = nc;
                }
                if (!hmap_add(&m, h, nv))
                    goto done;
                v[nv] = (twig){y, HMAP_NONE, HMAP_NONE, 0, 0};
                e = nv++;
            }
            if (below != HMAP_NONE)
                v[below].up = e;
            v[e].sum += w;
            if (y == x)
                v[e].member = 1;
            below = e;
        }
    }
    /* each twig's heaviest child, the first of equals (entries are in node order) */
    uint32_t start = HMAP_NONE;
    for (uint32_t e = 0; e < nv; e++) {
        uint32_t *b = v[e].up == HMAP_NONE ? &start : &v[v[e].up].best;
        if (*b == HMAP_NONE || v[e].sum > v[*b].sum)
            *b = e;
    }
    for (uint32_t e = start; e != HMAP_NONE; e = v[e].best)
        if (v[e].member) {
            pick = v[e].node;
            break;
        }
done:
    hmap_free(&m);
    free(v);
    return pick;
}

lr_status susp_find(const graph *g, const susp_tree *t, double share, double accum,
                    susp_result *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    out->total = t->total;
    out->artifact = GRAPH_NONE;
    out->pending_class = GRAPH_NONE;
    out->share = share;
    out->accum = accum;
    uint32_t n = t->n;
    if (n == 0 || t->total == 0)
        return LR_OK;
    scan s = {g, t, NULL, GRAPH_NONE, 0, NULL, {0}, NULL, 0, 0, NULL};
    uint32_t cap = 0;
    locals loc = {NULL, 0};
    uint64_t *per_class = NULL;
    uint32_t *cls_count = NULL;
    node_ix *cls_big = NULL;
    uint64_t *with = NULL;  /* threads_with_locals, once some thread needs it */
    frame_root *fr = NULL;  /* the Java-frame roots by thread serial */
    threads_walker *tw = NULL;
    uint32_t *under = NULL; /* its nearest thread above each node */
    lr_status st = LR_OK;
    s.fl = err_calloc(n, 1);
    if (!s.fl)
        goto nomem;

    /* the artifact and what it costs its dominators */
    s.artifact = find_artifact(g);
    if (s.artifact != GRAPH_NONE && t->idom[s.artifact] != GRAPH_NONE) {
        s.art_anc = err_calloc(n, 1);
        if (!s.art_anc)
            goto nomem;
        s.art_bytes = t->retained ? t->retained[s.artifact] : t->retained32[s.artifact];
        s.fl[s.artifact] |= F_ARTIFACT;
        node_ix d = t->idom[s.artifact];
        for (uint32_t k = 0; d < n && k < n; k++, d = t->idom[d])
            s.art_anc[d] = 1;
        out->artifact = s.artifact;
    }

    /* the top-level nodes; without a synthetic node (every HPROF dump: memchr finds none
     * at a glance) top_half's plain test, in two halves when split */
    if (find_users(&s))
        goto nomem;
    if (!memchr(g->node_kind, GRAPH_KIND_SYNTHETIC, n)) {
        node_ix mid = split(t) ? n / 2 : n;
        half h[2] = {{&s, 0, mid, NULL}, {&s, mid, n, NULL}};
        par_two(top_half, &h[0], &h[1], mid < n);
    } else {
        for (node_ix x = 0; x < n; x++) {
            node_ix d = t->idom[x];
            if (d == GRAPH_NONE || x == t->top || (s.fl[x] & F_ARTIFACT))
                continue;
            if (!see_through(&s, x) && under_top(&s, x))
                s.fl[x] |= F_TOP;
        }
    }
    if (mark_locals(&s, &loc))
        goto nomem;

    double limit = share * (double)t->total;
    uint32_t nc = g->n_classes;
    per_class = err_calloc(nc ? nc : 1, sizeof *per_class);
    cls_count = err_calloc(nc ? nc : 1, sizeof *cls_count);
    cls_big = err_mallocarray(nc ? nc : 1, sizeof *cls_big);
    if (!per_class || !cls_count || !cls_big)
        goto nomem;
    for (uint32_t c = 0; c < nc; c++)
        cls_big[c] = GRAPH_NONE;

    /* threads first: a thread whose sentence is printed is no object suspect, nor one of
     * its class's instances (its figure holds its own retained size). Each thread reads its
     * own frames' roots, found by serial in a sorted copy (all roots per thread made 8,000
     * threads 34 s), in root order within a thread as before. */
    uint32_t nfr = 0;
    fr = err_mallocarray(g->n_roots ? g->n_roots : 1, sizeof *fr);
    tw = g->n_threads ? threads_walker_new(g) : NULL; /* NULL: only the tree tells */
    if (!fr)
        goto nomem;
    for (uint32_t r = 0; r < g->n_roots; r++)
        if (g->roots[r].kind == GRAPH_ROOT_JAVA_FRAME && g->roots[r].node < n)
            fr[nfr++] = (frame_root){g->roots[r].thread, r};
    qsort(fr, nfr, sizeof *fr, cmp_frame_root);
    for (uint32_t ti = 0; ti < g->n_threads; ti++) {
        uint32_t ser = g->threads[ti].serial;
        uint64_t sum = 0;
        uint32_t cnt = 0;
        node_ix best = GRAPH_NONE;
        uint32_t k0;
        SEARCH_LOWER_BOUND(uint32_t, 0, nfr, fr[search_mid].serial < ser, k0);
        for (uint32_t k = k0; k < nfr && fr[k].serial == ser; k++) {
            uint32_t r = fr[k].root;
            node_ix x = g->roots[r].node;
            if (!(s.fl[x] & F_LOCAL))
                continue;
            local *lx = local_find(&loc, x);
            if (!lx || lx->serial != ser)
                continue;
            lx->serial = 0; /* count each local once (several frames may hold it) */
            sum += weight(&s, x);
            cnt++;
            if (best == GRAPH_NONE || weight(&s, x) > weight(&s, best))
                best = x;
        }
        if (best == GRAPH_NONE)
            continue;
        uint64_t locals = sum; /* what the frames alone hold */
        node_ix tn = g->threads[ti].node < n ? g->threads[ti].node : GRAPH_NONE;
        /* no tree for a thread whose old estimate (its locals' and its object's own sizes
         * in this tree) and threads_within's walk both keep it under the share */
        if (tn != GRAPH_NONE && (s.fl[tn] & F_TOP) && (double)weight(&s, tn) <= limit)
            sum += weight(&s, tn);
        if (tn != GRAPH_NONE && (double)sum <= limit && tw &&
            threads_within(tw, ti, (uint64_t)limit, shared_top, &s))
            continue;
        if (tn != GRAPH_NONE) {
            /* MAT's thread overview: the thread object's retained size once its locals are
             * its references, the figure `threads` prints (one tree, built once, only when
             * some thread holds a top-level object in its frames alone) */
            if (!with) {
                with = err_calloc(g->n_threads, sizeof *with);
                under = err_mallocarray(n, sizeof *under);
                if (!with || !under)
                    goto nomem;
                if ((st = threads_with_locals(g, with, under, err)) != LR_OK)
                    goto fail;
            }
            sum = with[ti];
        }
        if ((double)sum <= limit)
            continue;
        /* A thread whose weight is mostly its object's own (its ThreadLocal map, a field),
         * not its frames': the object is the suspect, described from the object down, as
         * below; a thread-locals suspect showed the biggest local (80 bytes of 8 MB) and
         * never the map. */
        if (tn != GRAPH_NONE && (s.fl[tn] & F_TOP) && (double)locals * 2 < (double)sum &&
            (double)weight(&s, tn) > limit)
            continue;
        susp_item it = {0};
        it.kind = SUSP_THREAD_LOCALS;
        it.node = best;
        it.cls = GRAPH_NONE;
        it.count = cnt;
        it.retained = sum;
        it.thread = tn;
        it.thread_serial = ser;
        it.frame = local_find(&loc, best)->frame;
        if (push(out, &cap, &it))
            goto nomem;
        if (tn != GRAPH_NONE)
            s.fl[tn] |= F_THREAD;
        for (uint32_t k = k0; k < nfr && fr[k].serial == ser; k++) {
            node_ix x = g->roots[fr[k].root].node;
            local *lx = s.fl[x] & F_LOCAL ? local_find(&loc, x) : NULL;
            if (lx)
                lx->printed = 1;
        }
    }

    /* single objects and classes; the rest summed per class. A thread's local no printed
     * thread counts is one of them: memory spread over many threads' locals, each thread
     * under the share, was in no suspect (2,000 threads' locals, 98 % of a heap: none). */
    grouping gr = {&s, &loc, under, limit};
    for (node_ix x = 0; x < n; x++) {
        if (!candidate(&gr, x))
            continue;
        uint64_t w = weight(&s, x);
        if ((double)w > limit) {
            if (push_single(out, &cap, g, x, w))
                goto nomem;
            continue;
        }
        class_ix c = group_of(&gr, x);
        if (c != GRAPH_NONE) {
            per_class[c] += w;
            cls_count[c]++;
            if (cls_big[c] == GRAPH_NONE || w > weight(&s, cls_big[c]))
                cls_big[c] = x;
        }
    }
    for (uint32_t c = 0; c < nc; c++)
        if (cls_count[c] > 1 && (double)per_class[c] > limit) {
            susp_item it = {0};
            it.kind = SUSP_INSTANCES;
            it.node = t->parent ? typical(&gr, c, cls_count[c], cls_big[c]) : cls_big[c];
            it.cls = c;
            it.count = cls_count[c];
            it.retained = per_class[c];
            it.thread = GRAPH_NONE;
            it.frame = -1;
            if (push(out, &cap, &it))
                goto nomem;
        }

    if (group_classes(&s, out, &cap, limit))
        goto nomem;

    /* A global object seen through is a suspect itself when what it holds beyond the
     * suspects below it still passes the share: growth spread over its own properties
     * (globalThis.req_1, req_2, ... of many shapes) passes no share child by child, and was
     * in no suspect but a tenth of it. */
    for (uint32_t u = 0; u < s.n_users; u++) {
        node_ix x = s.users[u];
        if (x >= n || (double)weight(&s, x) <= limit || !under_top(&s, x))
            continue;
        uint64_t rest = weight(&s, x);
        for (uint32_t i = 0; i < out->n; i++)
            if (dominated_by(t, out->v[i].node, x))
                rest -= out->v[i].retained < rest ? out->v[i].retained : rest;
        if ((double)rest > limit) {
            if (push_single(out, &cap, g, x, rest))
                goto nomem;
            /* holding no suspect, it is one like any other (and may accumulate below) */
            out->v[out->n - 1].beside = rest < weight(&s, x);
        }
    }

    if (descend(&s, out, accum))
        goto nomem;
    if (out->n) /* v is NULL when nothing passes: qsort takes no null pointer, even for 0 */
        qsort(out->v, out->n, sizeof *out->v, cmp_item);
    for (uint32_t i = 0; i < out->n; i++)
        describe(g, t, &out->v[i]);
    if ((st = pending_final(g, t, share, out, err)) != LR_OK)
        goto fail;

    goto done;
nomem:
    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding leak suspects");
fail:
    susp_free(out);
done:
    free(s.fl);
    free(s.art_anc);
    free(s.user_bit);
    if (s.users != s.users_in)
        free(s.users);
    free(loc.v);
    free(per_class);
    free(cls_count);
    free(cls_big);
    free(with);
    free(under);
    free(fr);
    threads_walker_free(tw);
    return st;
}
