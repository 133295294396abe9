/* SPDX-License-Identifier: Apache-2.0 */
/* dominators.c: exact dominator tree and retained sizes (analysis layer), prefix dom_.
 * Algorithm: Lengauer-Tarjan (TOPLAS 1(1), 1979), "simple" version: semidominators with
 * path-compressed eval and implicit linking, buckets for relative dominators, then a
 * forward pass. O((N+E) log N) worst case. (SEMI-NCA's chain walks went quadratic on deep
 * DFS trees with random cross references, e.g. long linked lists of objects.)
 * Index convention: everything inside runs on DFS preorder numbers, 0 = the virtual
 * super-root whose children are g->roots (dump order) then g->synthetic_root, so a
 * dominator always has a smaller number than the nodes it dominates; 1..K are graph nodes.
 * Trivial leaves get no number: a node without followed out-edges and with one way in (a
 * single followed in-edge, or an entry under the super-root) is dominated by that way in
 * and lies inside no path to another node, so the DFS records its parent and moves on. In
 * Java heaps about 40% of the nodes are such leaves (a String's byte[], boxed values), and
 * every array indexed by DFS number shrinks by as much. A vertex with one way in whose
 * followed references all end in such leaves (or in vertices that became leaves) is a leaf
 * of the same kind once the DFS leaves it: nothing outside its subtree is reached through
 * it, so it changes no other node's dominator. It gives its number back (the last one
 * given) and joins a list in the order the DFS finished them, the order in which their
 * sizes pass up. That takes another 30 % of the nodes out of Lengauer-Tarjan on the
 * benchmark dump (a String held by one field, whole chains and bushes of one referrer).
 * Predecessors come from the DFS itself, which meets every followed edge once: an edge from
 * a smaller number (tree or forward edge) only lowers the starting semidominator, so only
 * edges from larger numbers are kept, packed by target for the semidominator pass.
 * Nothing recurses (the DFS keeps an explicit stack, eval reverses pointers), so a 5 M-node
 * chain is fine.
 * Memory, K vertices with a number at the end, H that gave theirs back, B edges from a
 * larger number: the node-indexed uint32 array that ends as the idom result carries the DFS
 * state from the start; the DFS adds three uint32 arrays touched up to the most numbers
 * held at once (K, or deeper while a long single-referrer chain is open; one of them, vert,
 * touched only as deep as the DFS path goes and cut to K after it), a byte per level of
 * that path, the H list as a delta stream (1 or 2 bytes a node on Java heaps, 5 at most)
 * and at most 8 bytes per B edge; their packing counts in vert, and Lengauer-Tarjan adds
 * a fourth array of K only once the packed copy is the only one; the close holds the
 * results (idom uint32, retained uint64 or uint32 per node), that array of K, the H stream
 * and a bit per node.
 * The dominance options add one byte per node (reach set and marks; a bit per node more
 * while the reach walk runs), and the VisualVM sums 8 bytes per object whose one referrer
 * is not its idom at the close (GC roots with one referrer: 59 of 2.3 M objects on the
 * benchmark dump), with the tree sums kept in the retained array, and a bit per node from
 * the DFS on (which nodes' referrers it counts);
 * the subtrees of those objects, summed from their edges, a stack of at most their edges.
 * Plus one bit per edge (which edges count) until the close, two while the dominance
 * options' reach pass asks the reach and the link filters together, and half a byte per node
 * while that pass runs in two halves (dom_split_min).
 * No per-node malloc; big arrays are freed as soon as they die (the CLI's fixed mmap
 * threshold then hands them back to the system). Over 2^31 - 17 nodes is refused.
 * Retained size = shallow + native, accumulated in reverse DFS order. docs/design.md says
 * which peer the numbers must equal (VisualVM for HotSpot, DevTools for V8). */
#define _GNU_SOURCE /* syscall (dom_split) */
#include "analysis/dominators.h"
#include "analysis/devtools.h"
#include "base/varint.h"
#include "base/par.h"
#include "base/phase.h"
#include "base/spill.h"
#include "base/search.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A node's dfnum[] entry goes through three forms: before the DFS, UNSEEN_BASE plus the C_*
 * bits gathered while filtering edges; then a DFS number 1..K (< LEAF) for a vertex, or
 * LEAF | its parent's node index + 1 (LEAF alone: the super-root) for a trivial leaf. */
#define UNSEEN_BASE 0xFFFFFFF0u
#define C_INS 3u  /* followed in-edges counted: 0, 1 or 2 (= several) */
#define C_OUT 4u  /* has a followed out-edge */
#define C_ROOT 8u /* a child of the super-root */
#define LEAF 0x80000000u
/* Keeps LEAF | number and LEAF | node + 1 below UNSEEN_BASE. */
#define MAX_NODES (UNSEEN_BASE - LEAF - 1u)
/* On the DFS stack: the open vertex keeps a number (something below it does, or it has more
 * than one way in). Node indices stay below it. */
#define OPEN_HELD 0x80000000u
/* In vert[] after Lengauer-Tarjan: the vertex is an unreached referrer (no result). */
#define V_OUT 0x80000000u
/* Closes each target's block in the packed predecessor list (numbers stay below 2^31). */
#define HDR 0x80000000u
#define EMPTY UINT32_MAX
/* Single-referrer states of tree_marks (node indices stay below MAX_NODES). */
#define REF_NONE GRAPH_NONE
#define REF_MULTI (GRAPH_NONE - 1)

/* How far ahead the passes that stream over edges or numbers fetch the random slot they
 * will update: the loop bodies (a filter call, a few branches) leave the core too small a
 * window to overlap those misses by itself. */
#define AHEAD 32
/* How many of a vertex's first targets the DFS fetches when it enters the vertex. */
#define DFS_AHEAD 16
/* And for how many of them it also fetches their edge range, before it knows whether it will
 * enter them: the first child it enters is seldom far enough down the edges for sib_ahead. */
#define DFS_SPEC 4

/* Fetches the slot of a[] that the edge AHEAD of e points to, for writing. Always inlined:
 * gcc 12 takes a void function that only prefetches for pure and drops its calls. */
static inline __attribute__((always_inline)) void ahead_edge(const graph *g, const void *a,
                                                            size_t width, edge_ix e)
{
    if (e + AHEAD < g->n_edges) {
        node_ix y = g->edge_to[e + AHEAD];
        if (y < g->n_nodes)
            __builtin_prefetch((const char *)a + (size_t)y * width, 1);
    }
}

/* A zeroed array whose pages are first touched by writes, for arrays whose first access to a
 * page may be a read. Fresh pages from calloc are mapped to the shared zero page on a read;
 * the write that follows then has to flush that mapping from every core the process runs
 * on, an interrupt to the other core for each page while the other tree is built there
 * (analyze on the 1 GB benchmark dump: 37,000 such faults). Writing the zeros costs a pass. */
static void *zalloc_w(size_t count, size_t size)
{
    void *p = err_mallocarray(count, size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

static inline int is_unseen(uint32_t d)
{
    return d >= UNSEEN_BASE;
}

static inline int is_leaf_class(uint32_t c)
{
    return !(c & C_OUT) && ((c & C_ROOT) || (c & C_INS) == 1);
}

/* Strong references, less the GC's list links (dom_gc_link), so the strong model of `show`,
 * SQL and the library answers as `top` and `threads` do. */
static int follow_default(const graph *g, edge_ix e)
{
    uint8_t k = g->edge_kind[e];
    return GRAPH_EDGE_STRENGTH(k) == GRAPH_STRONG && GRAPH_EDGE_KIND(k) != GRAPH_EDGE_WEAK &&
           !dom_gc_link(g, e) && !devtools_table_half(g, GRAPH_NONE, e);
}

static inline int follows(const graph *g, dom_edge_filter f, void *ctx, edge_ix e)
{
    return f ? f(g, e, ctx) : follow_default(g, e);
}

/* ---- The reach filter's table (dom_reach_table) ----
 * A source's facts as bits (the DOM_RT_ASK_* bits its class or class object has, RT_CLASS when
 * it is a class object), computed once per source, and per kind byte and bits an answer: 0,
 * 1, or RT_CALL (the filter answers). The edge pass reads one byte of an 8 x 256 table per
 * edge, with no call for all but the edges the table leaves to the filter. */
#define RT_CLASS 4u
#define RT_CALL 2u

/* Bits of source x: its class's DOM_RT_ASK_INSTANCE, its class object's DOM_RT_ASK_CLASS_OBJ
 * (that bit for every source that is no class object when any class has it: such a source
 * is the filter's to judge), RT_CLASS. */
static inline unsigned rt_source(const graph *g, const dom_reach_table *t, node_ix x)
{
    unsigned b = 0;
    class_ix c = graph_node_class(g, x);
    if (t->cls && c < g->n_classes)
        b |= t->cls[c] & DOM_RT_ASK_INSTANCE;
    if (g->node_kind[x] == GRAPH_KIND_CLASS) {
        b |= RT_CLASS;
        if (t->any_class_obj && t->cls) {
            class_ix k = graph_class_of_node(g, x);
            b |= k < g->n_classes ? t->cls[k] & DOM_RT_ASK_CLASS_OBJ : 0;
        }
    } else if (t->any_class_obj) {
        b |= DOM_RT_ASK_CLASS_OBJ;
    }
    return b;
}

/* The answer for an edge of table kind v out of a source with bits b: 0, 1 or RT_CALL. */
static inline unsigned rt_answer(unsigned v, unsigned b)
{
    switch (v) {
    case DOM_RT_DROP:
        return 0;
    case DOM_RT_FOLLOW:
        return 1;
    case DOM_RT_BY_CLASS:
        return b & DOM_RT_ASK_INSTANCE ? RT_CALL : 1;
    case DOM_RT_BY_CLASS_OBJ:
        return b & DOM_RT_ASK_CLASS_OBJ ? RT_CALL : 1;
    case DOM_RT_NOT_CLASS:
        return b & RT_CLASS ? 0 : 1;
    default:
        return RT_CALL;
    }
}

/* rows[b][k]: rt_answer(t->kind[k], b) for every bits b and kind byte k. */
typedef uint8_t rt_rows[8][256];

static void rt_fill(const dom_reach_table *t, rt_rows rows)
{
    for (unsigned b = 0; b < 8; b++)
        for (unsigned k = 0; k < 256; k++)
            rows[b][k] = (uint8_t)rt_answer(t->kind[k], b);
}

int dom_reach_table_answer(const graph *g, const dom_reach_table *t, node_ix x, edge_ix e)
{
    unsigned a = rt_answer(t->kind[g->edge_kind[e]], rt_source(g, t, x));
    return a == RT_CALL ? -1 : (int)a;
}

/* The super-root's children: every root entry, the synthetic root, then (when `outside` is
 * set) every node outside the reach set, in index order. */
typedef struct sroots {
    const graph *g;
    uint32_t n_entries;     /* entries before the outside nodes */
    const uint8_t *outside; /* mask of reached nodes; nodes with 0 are extra children */
    dom_root_filter root;   /* root entries that count, NULL = all */
    void *root_ctx;
} sroots;

static sroots sroots_make(const graph *g, const uint8_t *reached, const dom_opts *o)
{
    sroots s = {g, g->n_roots + (g->synthetic_root != GRAPH_NONE ? 1u : 0u), reached,
                o->root, o->root_ctx};
    return s;
}

static uint64_t sroots_count(const sroots *s)
{
    return (uint64_t)s->n_entries + (s->outside ? s->g->n_nodes : 0);
}

/* Child i of the super-root, or GRAPH_NONE when that entry names no (extra) node. */
static inline node_ix sroots_get(const sroots *s, uint64_t i)
{
    const graph *g = s->g;
    if (i >= s->n_entries) {
        node_ix x = (node_ix)(i - s->n_entries);
        return s->outside[x] ? GRAPH_NONE : x;
    }
    if (i < g->n_roots && s->root && !s->root(g, (uint32_t)i, s->root_ctx))
        return GRAPH_NONE;
    node_ix r = i < g->n_roots ? g->roots[i].node : g->synthetic_root;
    return r < g->n_nodes ? r : GRAPH_NONE;
}

void dom_free(dom_tree *t)
{
    if (!t)
        return;
    free(t->idom);
    free(t->retained);
    free(t->retained32);
    memset(t, 0, sizeof *t);
}

/* Extra references (dom_opts.extra_*): a bit per node that has some, and a binary search
 * for the range of the few that do (threads). */
typedef struct xedges {
    uint32_t n;
    const node_ix *from, *to;
    uint64_t *has; /* bit per node */
} xedges;

static inline int x_has(const xedges *xe, node_ix x)
{
    return xe && xe->has && (int)(xe->has[x >> 6] >> (x & 63) & 1);
}

/* Extras of x: [*lo, *hi) into from/to. */
static void x_range(const xedges *xe, node_ix x, uint32_t *lo, uint32_t *hi)
{
    uint32_t a;
    SEARCH_LOWER_BOUND(uint32_t, 0, xe->n, xe->from[search_mid] < x, a);
    *lo = a;
    while (a < xe->n && xe->from[a] == x)
        a++;
    *hi = a;
}

static inline int bit_get(const uint64_t *b, uint32_t i)
{
    return (int)(b[i >> 6] >> (i & 63) & 1);
}

static inline void bit_set(uint64_t *b, uint32_t i) { b[i >> 6] |= 1ull << (i & 63); }

static inline int fbit(const uint64_t *bits, edge_ix e)
{
    return (int)(bits[e >> 6] >> (e & 63) & 1);
}

static inline edge_ix edges_end(const graph *g, node_ix x)
{
    edge_ix end = g->first_edge[x + 1];
    return end < g->n_edges ? end : g->n_edges;
}

/* ---- Implicit references: an object's class, a class's loader ----
 * An HPROF instance or array record names its class by id, and a class names its loader in
 * its record: the JVM keeps both alive through them (a loader is collected only once no
 * class it defined and no instance of those is reachable), so every walk here treats them
 * as references without storing them as edges (22 M edges on a 22 M-object dump). The
 * class hop goes from any object to its class's node when that class has a loader (the boot
 * loader's classes are never unloaded, so no object keeps them) and is not a child of the
 * super-root (the hop cannot change its dominator): most objects' classes are neither, and
 * those objects stay trivial leaves.
 * The loader hop (DOM_LOADER_HOPS, VisualVM's view) goes from a class object to its loader
 * when the filters do not follow its <classloader> edge themselves. Hop targets count as having
 * several ways in, so none is a trivial leaf and the VisualVM sums read their referrers'
 * edges; those sums count graph edges only (a class is not its objects' tree child). */
typedef struct hops {
    const graph *g;
    node_ix *cls; /* per class: the node an object's hop goes to, GRAPH_NONE for none */
    node_ix *ldr; /* per class: the loader its class object's hop goes to, or GRAPH_NONE */
} hops;

/* Object x's hop to its class's node, or GRAPH_NONE. */
static inline node_ix hop_class(const hops *h, node_ix x)
{
    if (!h)
        return GRAPH_NONE;
    class_ix c = graph_node_class(h->g, x);
    return c < h->g->n_classes ? h->cls[c] : GRAPH_NONE;
}

/* Class object x's hop to its loader, or GRAPH_NONE (class objects have no class index). */
static inline node_ix hop_loader(const hops *h, node_ix x)
{
    const graph *g = h ? h->g : NULL;
    if (!g || !h->ldr || graph_node_class(g, x) != GRAPH_NONE ||
        g->node_kind[x] != GRAPH_KIND_CLASS)
        return GRAPH_NONE;
    class_ix c = graph_class_of_node(g, x);
    return c < g->n_classes ? h->ldr[c] : GRAPH_NONE;
}

/* Hop i (0: class, 1: loader) of x, or GRAPH_NONE. */
static inline node_ix hop_get(const hops *h, node_ix x, uint32_t i)
{
    return i == 0 ? hop_class(h, x) : i == 1 ? hop_loader(h, x) : GRAPH_NONE;
}
#define N_HOPS 2u

/* The loader edge of class object x: its <classloader> internal edge, or GRAPH_NONE. */
static edge_ix loader_edge(const graph *g, node_ix x)
{
    for (edge_ix e = g->first_edge[x], end = edges_end(g, x); e < end; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_INTERNAL || g->edge_to[e] >= g->n_nodes)
            continue;
        if (!strcmp(graph_str(g, graph_edge_name_from(g, x, e)), "<classloader>"))
            return e;
    }
    return GRAPH_NONE;
}

static void hops_fini(hops *h)
{
    free(h->cls);
    free(h->ldr);
    memset(h, 0, sizeof *h);
}

/* Fills h for o on g (h->g NULL when no hop applies: DOM_NO_CLASS_HOPS, or no class object
 * has a <classloader> edge, as in every format but HPROF and its generic-graph copies).
 * The super-root's entries are those of sr before the reach set adds its outside nodes.
 * O(classes + roots) plus a bit per node while it runs. Returns 0 or -1 out of memory. */
static int hops_init(hops *h, const graph *g, const dom_opts *o, const sroots *sr)
{
    memset(h, 0, sizeof *h);
    if ((o->flags & DOM_NO_CLASS_HOPS) || !g->n_classes)
        return 0;
    uint32_t n = g->n_nodes, nc = g->n_classes;
    uint64_t *root = err_calloc((size_t)n / 64 + 1, sizeof *root);
    h->cls = err_mallocarray(nc, sizeof *h->cls);
    h->ldr = err_mallocarray(nc, sizeof *h->ldr);
    if (!root || !h->cls || !h->ldr) {
        free(root);
        hops_fini(h);
        return -1;
    }
    for (uint64_t i = 0; i < sr->n_entries; i++) {
        node_ix r = sroots_get(sr, i);
        if (r != GRAPH_NONE)
            root[r >> 6] |= 1ull << (r & 63);
    }
    int any_ldr = 0;
    for (class_ix c = 0; c < nc; c++) {
        node_ix y = g->classes[c].node;
        int ok = y < n && g->node_kind[y] == GRAPH_KIND_CLASS;
        edge_ix e = ok ? loader_edge(g, y) : GRAPH_NONE;
        /* the boot loader's classes (no loader edge) are never unloaded: no object keeps
         * them, and whatever reaches them (a sticky root) is the dump's to say */
        h->cls[c] = e != GRAPH_NONE && !(root[y >> 6] >> (y & 63) & 1) ? y : GRAPH_NONE;
        h->ldr[c] = GRAPH_NONE;
        if (e == GRAPH_NONE || !(o->flags & DOM_LOADER_HOPS))
            continue;
        int fr = follows(g, o->reach, o->reach_ctx, e);
        int fl = o->link ? o->link(g, e, o->link_ctx) : fr;
        if (!fr || !fl) {
            h->ldr[c] = g->edge_to[e];
            any_ldr = 1;
        }
    }
    free(root);
    if (!any_ldr) {
        free(h->ldr);
        h->ldr = NULL;
    }
    int any = 0;
    for (class_ix c = 0; c < nc && !any; c++)
        any = h->cls[c] != GRAPH_NONE;
    if (!any && !h->ldr) {
        hops_fini(h);
        return 0;
    }
    h->g = g;
    return 0;
}

/* ---- Step 0: which edges count, one bit per edge ----
 * The filter is asked at most once per edge, in CSR order (filters that look up the source
 * node can cache it), and not at all where its table answers (dom_reach_table), so the DFS
 * is plain bit tests. Edges to out-of-range targets are never
 * followed. With cls, the same pass prepares the leaf test: cls[x] = UNSEEN_BASE plus C_OUT
 * and C_INS, in-edges counted from the sources the DFS may reach (src[x] != 0; all when src
 * is NULL). Counting an edge the DFS never follows only keeps a leaf a vertex.
 * An etest says which edges count: the filter's answers (and, in the same pass, a second
 * filter's into more bits, asked about the same edge right after), or bits given, kept in
 * place less the edges into a node tmask has 0 for. With count2, cls counts the second
 * filter's edges (the dominance graph's, when every source counts: one pass fewer). */
typedef struct etest {
    dom_edge_filter f; /* NULL with pre NULL: follow_default */
    void *ctx;
    uint64_t *pre;        /* the bits to keep, instead of a filter */
    const uint8_t *tmask; /* with pre: targets that count (nonzero), NULL = all */
    dom_edge_filter f2;   /* also f2's answers into bits2 */
    void *ctx2;
    uint64_t *bits2;
    int count2;           /* cls from f2's answers, not f's */
    const dom_reach_table *tab; /* with f: its answers as data, rows their table */
    const uint8_t (*rows)[256];
} etest;

static int vvm_link(const graph *g, edge_ix e, void *ctx);

/* One half of follow_bits: the nodes [lo, hi). The first half counts into cls itself; the
 * second (nib set) counts into a nibble of its own per node (C_INS in the low two bits,
 * C_OUT above), as the first half's increments may land on any node, and keeps the bits of
 * its edges in the word it shares with the first half (wb) aside in shared[] until both are
 * done. */
typedef struct fb_part {
    const graph *g;
    const etest *et;
    uint32_t *cls;
    const uint8_t *src;
    const xedges *xe;
    const hops *hp;
    uint64_t *bits;
    node_ix lo, hi;
    uint8_t *nib;      /* NULL: counts into cls */
    uint64_t wb;       /* the shared word, UINT64_MAX: none */
    uint64_t shared[2]; /* its bits of bits and et->bits2 */
} fb_part;

/* Adds to node y's in-count (saturating at 2 = several) or, with force, makes it several. */
static inline void fb_count(fb_part *p, node_ix y, int force)
{
    if (!p->nib) {
        uint32_t *c = &p->cls[y];
        if (force)
            *c = (*c & ~C_INS) | 2u;
        else if ((*c & C_INS) < 2)
            (*c)++;
        return;
    }
    uint8_t *q = &p->nib[y >> 1];
    unsigned sh = (y & 1) * 4, v = *q >> sh & 3u;
    unsigned nv = force ? 2u : v < 2 ? v + 1 : 2u;
    *q = (uint8_t)((*q & ~(3u << sh)) | nv << sh);
}

static inline void fb_set(fb_part *p, uint64_t *bits, int which, edge_ix e)
{
    uint64_t b = 1ull << (e & 63);
    if (e >> 6 == p->wb)
        p->shared[which] |= b;
    else
        bits[e >> 6] |= b;
}

static void *fb_run(void *arg)
{
    fb_part *p = arg;
    const graph *g = p->g;
    const etest *et = p->et;
    uint32_t *cls = p->cls;
    const uint8_t *src = p->src;
    uint64_t *bits = p->bits;
    uint32_t ne = g->n_edges, n = g->n_nodes;
    /* VisualVM's reach edges are its link edges that are strong: asked together (its tree
     * for the suspects), one filter call answers both, its class read and names once */
    int vvm = et->f == dom_visualvm_reach && et->bits2 && et->f2 == vvm_link;
    /* the in-counts' slots, fetched ahead: cls's, or the nibbles' */
    const void *cnt = p->nib ? (const void *)p->nib : (const void *)cls;
    size_t cw = p->nib ? 0 : sizeof *cls;
    for (node_ix x = p->lo; x < p->hi; x++) {
        edge_ix end = g->first_edge[x + 1];
        int out = 0, counted = cls && (!src || src[x]);
        /* the filter's table: this source's row of answers, by edge kind byte */
        const uint8_t *row = et->rows && g->first_edge[x] < end && g->first_edge[x] < ne
                                 ? et->rows[rt_source(g, et->tab, x)]
                                 : NULL;
        /* VisualVM's filter drops only the GC's own links, and a field edge is one only
         * from an instance of a java.lang.ref class: from any other source a field edge
         * is followed without reading its target's class, a random slot per edge */
        int xref = 0;
        if (vvm) {
            class_ix xc = graph_node_class(g, x);
            xref = xc < g->n_classes && g->classes[xc].ref_strength != GRAPH_STRONG;
        }
        for (edge_ix e = g->first_edge[x]; e < end && e < ne; e++) {
            if (counted) {
                if (cw)
                    ahead_edge(g, cnt, cw, e);
                else if (e + AHEAD < ne && g->edge_to[e + AHEAD] < n)
                    __builtin_prefetch(&p->nib[g->edge_to[e + AHEAD] >> 1], 1);
            }
            if (xref && g->node_class16 && e + AHEAD < ne && g->edge_to[e + AHEAD] < n)
                __builtin_prefetch(&g->node_class16[g->edge_to[e + AHEAD]]);
            node_ix y = g->edge_to[e];
            if (y >= n)
                continue;
            uint64_t b = 1ull << (e & 63);
            if (et->pre) {
                if (!(bits[e >> 6] & b))
                    continue;
                if (et->tmask && !et->tmask[y]) {
                    bits[e >> 6] &= ~b; /* never split: no shared word */
                    continue;
                }
            } else {
                int f2 = !vvm ? et->bits2 && et->f2(g, e, et->ctx2)
                         : !xref && GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_FIELD
                             ? 1
                             : vvm_link(g, e, NULL);
                unsigned a = row ? row[g->edge_kind[e]] : RT_CALL;
                int f = vvm        ? f2 && GRAPH_EDGE_STRENGTH(g->edge_kind[e]) == GRAPH_STRONG
                        : a < RT_CALL ? (int)a
                                      : follows(g, et->f, et->ctx, e);
                if (f2)
                    fb_set(p, et->bits2, 1, e);
                if (f)
                    fb_set(p, bits, 0, e);
                if (!(et->count2 ? f2 : f))
                    continue;
            }
            out = 1;
            if (counted)
                fb_count(p, y, 0);
        }
        if (x_has(p->xe, x)) {
            uint32_t lo, hi;
            x_range(p->xe, x, &lo, &hi);
            for (uint32_t i = lo; i < hi; i++) {
                node_ix y = p->xe->to[i];
                if (y >= n)
                    continue;
                out = 1;
                if (counted)
                    fb_count(p, y, 0);
            }
        }
        /* a hop's source keeps its leaf test (the DFS carries the hop, see dfs) */
        for (uint32_t i = 0; counted && p->hp && i < N_HOPS; i++) {
            node_ix y = hop_get(p->hp, x, i);
            if (y < n)
                fb_count(p, y, 1); /* several ways in (see hops) */
        }
        if (cls && out) {
            if (p->nib)
                p->nib[x >> 1] |= (uint8_t)(4u << (x & 1) * 4);
            else
                cls[x] |= C_OUT;
        }
    }
    return NULL;
}

/* Merges the second half's nibbles into cls over [lo, hi) (even bounds). */
typedef struct fb_merge {
    uint32_t *cls;
    const uint8_t *nib;
    node_ix lo, hi;
} fb_merge;

static void *fb_merge_run(void *arg)
{
    fb_merge *m = arg;
    for (node_ix x = m->lo; x < m->hi; x++) {
        unsigned v = m->nib[x >> 1] >> (x & 1) * 4 & 15u;
        if (!v)
            continue;
        uint32_t c = m->cls[x], ins = (c & C_INS) + (v & 3u);
        m->cls[x] = (c & ~C_INS) | (ins < 2 ? ins : 2u) | (v & 4u ? C_OUT : 0);
    }
    return NULL;
}

uint32_t dom_split_min = DOM_SPLIT_MIN;

/* Builds in progress in this process: a build alone may take the other core for its passes
 * that split (analyze builds two trees at once, one on each core). */
static unsigned dom_building;

/* Whether the calling thread is the process's first. A build on another thread runs beside
 * work of the first (analyze's suspects' tree starts while the main thread finds the leaks
 * and builds the traces' tree): the other core is not free there. */
static int main_thread(void)
{
#ifdef SYS_gettid
    return (pid_t)syscall(SYS_gettid) == getpid();
#else
    return 1;
#endif
}

/* Whether passes of a build of n nodes split in two now: alone on the main thread, with a
 * second CPU. */
static int dom_split(uint32_t n)
{
    return n >= dom_split_min && __atomic_load_n(&dom_building, __ATOMIC_RELAXED) == 1 &&
           main_thread() && par_two_cpus();
}

/* cls[lo, hi) = UNSEEN_BASE. */
typedef struct fill_part {
    uint32_t *cls;
    node_ix lo, hi;
} fill_part;

static void *fill_run(void *arg)
{
    fill_part *p = arg;
    for (node_ix x = p->lo; x < p->hi; x++)
        p->cls[x] = UNSEEN_BASE;
    return NULL;
}

static uint64_t *follow_bits(const graph *g, const etest *et, uint32_t *cls, const uint8_t *src,
                             const xedges *xe, const hops *hp)
{
    uint32_t ne = g->n_edges, n = g->n_nodes;
    uint64_t *bits = et->pre ? et->pre : err_calloc((size_t)ne / 64 + 1, sizeof *bits);
    if (!bits)
        return NULL;
    /* Two halves when the other core is free and the filters keep no state (VisualVM's, or
     * the default), split where the edges and nodes before are 9/20 of all (the second
     * half's counts cost less) at an even node */
    int vvm = et->f == dom_visualvm_reach && et->bits2 && et->f2 == vvm_link;
    int split = !et->pre && (vvm || (!et->f && !et->bits2)) && dom_split(n);
    if (cls) {
        fill_part fp[2] = {{cls, 0, split ? n / 2 : n}, {cls, split ? n / 2 : n, n}};
        par_two(fill_run, &fp[0], &fp[1], split);
    }
    fb_part parts[2] = {{g, et, cls, src, xe, hp, bits, 0, n, NULL, UINT64_MAX, {0, 0}},
                        {g, et, cls, src, xe, hp, bits, n, n, NULL, UINT64_MAX, {0, 0}}};
    uint8_t *nib = NULL;
    if (split && cls && !(nib = err_calloc((size_t)n / 2 + 1, 1)))
        split = 0; /* one half after all */
    if (split) {
        uint64_t half = ((uint64_t)ne + n) * 9 / 20;
        node_ix mid;
        SEARCH_LOWER_BOUND(node_ix, 0, n,
                           (uint64_t)(g->first_edge[search_mid] < ne ? g->first_edge[search_mid]
                                                                     : ne) +
                                   search_mid < half,
                           mid);
        mid &= ~1u;
        edge_ix e0 = g->first_edge[mid] < ne ? g->first_edge[mid] : ne;
        parts[0].hi = parts[1].lo = mid;
        parts[1].nib = nib;
        parts[1].wb = e0 & 63 ? e0 >> 6 : UINT64_MAX;
    }
    par_two(fb_run, &parts[0], &parts[1], split);
    if (split) {
        if (parts[1].wb != UINT64_MAX) {
            bits[parts[1].wb] |= parts[1].shared[0];
            if (et->bits2)
                et->bits2[parts[1].wb] |= parts[1].shared[1];
        }
        if (nib) {
            fb_merge mg[2] = {{cls, nib, 0, n / 2 & ~1u}, {cls, nib, n / 2 & ~1u, n}};
            par_two(fb_merge_run, &mg[0], &mg[1], 1);
        }
    }
    free(nib);
    return bits;
}

/* Reach set for the dominance options: mask[x] = 1 for every node reachable from the
 * super-root's children over followed edges (any order will do: only the set matters),
 * | leaf for those without a followed edge (each node's edges are read here anyway, so the
 * VisualVM sums' leaf mark costs no pass of its own). Its stack grows as needed (each node
 * is pushed once), so dfnum may already hold the edge counts. With held (dom_opts.held),
 * a first round walks from the root entries other than Java frames and copies the set into
 * held before the second walks from the rest. Returns the number of nodes, or UINT32_MAX
 * out of memory. */
/* Pushes y on the reach stack, growing it. Returns 0, or -1 out of memory. */
static int reach_push(uint32_t **stk, uint32_t *cap, uint32_t *sp, node_ix y)
{
    if (*sp == *cap) {
        uint32_t *p = err_reallocarray(*stk, (size_t)*cap * 2, sizeof **stk);
        if (!p)
            return -1;
        *stk = p;
        *cap *= 2;
    }
    (*stk)[(*sp)++] = y;
    return 0;
}

static uint32_t reach_mark(const graph *g, const sroots *sr, const uint64_t *fol,
                           const hops *hp, uint8_t *mask, uint8_t leaf, uint64_t *held)
{
    uint64_t nr = sroots_count(sr);
    uint32_t sp = 0, cnt = 0, cap = 1u << 16;
    uint32_t *stk = err_mallocarray(cap, sizeof *stk);
    /* Nodes pushed: a bit each, tested for every followed edge, where a byte of mask was a
     * cache miss per edge (an eighth of the bytes stays in the cache beside the other
     * tree's arrays); mask[x] is written once, when x is popped. */
    uint64_t *seen = err_calloc((size_t)g->n_nodes / 64 + 1, sizeof *seen);
    if (!stk || !seen) {
        free(stk);
        free(seen);
        return UINT32_MAX;
    }
    for (uint64_t i = 0, round = held ? 0 : 1;; i++) {
        if (round == 0 && i == g->n_roots) {
            memcpy(held, seen, ((size_t)g->n_nodes / 64 + 1) * sizeof *seen);
            round = 1;
            i = 0;
        }
        if (i >= nr)
            break;
        if (round == 0 && g->roots[i].kind == GRAPH_ROOT_JAVA_FRAME)
            continue;
        node_ix r = sroots_get(sr, i);
        if (r == GRAPH_NONE || bit_get(seen, r))
            continue;
        bit_set(seen, r);
        cnt++;
        stk[sp++] = r;
        while (sp > 0) {
            node_ix x = stk[--sp];
            int any = 0;
            for (edge_ix e = g->first_edge[x], end = edges_end(g, x); e < end; e++) {
                if (!fbit(fol, e))
                    continue;
                any = 1;
                node_ix y = g->edge_to[e];
                if (!bit_get(seen, y)) {
                    if (reach_push(&stk, &cap, &sp, y) != 0) {
                        free(stk);
                        free(seen);
                        return UINT32_MAX;
                    }
                    /* its edges are read when it is popped: fetched meanwhile */
                    __builtin_prefetch(&g->first_edge[y]);
                    bit_set(seen, y);
                    cnt++;
                }
            }
            /* the class hop makes no object a referrer in the VisualVM sums (`any` stays);
             * a class's loader is one of its references there (tree_marks) */
            for (uint32_t i = 0; hp && i < N_HOPS; i++) {
                node_ix y = hop_get(hp, x, i);
                any |= i == 1 && y < g->n_nodes;
                if (y < g->n_nodes && !bit_get(seen, y)) {
                    if (reach_push(&stk, &cap, &sp, y) != 0) {
                        free(stk);
                        free(seen);
                        return UINT32_MAX;
                    }
                    bit_set(seen, y);
                    cnt++;
                }
            }
            mask[x] = (uint8_t)(1u | (any ? 0u : leaf));
        }
    }
    free(stk);
    free(seen);
    return cnt;
}

/* ---- Step 1: iterative DFS from the super-root, collecting predecessors ----
 * Vertices get numbers 1..nv in dfnum[] (node space) and par[] (parent number), semi[]
 * (smallest predecessor number seen so far: the parent, lowered by forward edges and
 * super-root entries). The open vertices are a stack indexed by depth: the node in vert[]
 * (Lengauer-Tarjan's label afterwards, the number -> node map being rebuilt from dfnum[]),
 * only touched, and resident, as deep as the DFS path goes while the DFS runs, which in
 * analyze is beside another tree's; and a byte (sb[]) with the edge cursor and the carried
 * hops' state, whose rare larger values sit on two small side stacks. A linked list of
 * millions of objects is a DFS path that deep (5 bytes a level, not the 16 of a cursor, a
 * carry base and a carried class per level). Trivial leaves get LEAF | parent instead, and
 * so does a vertex that turns out to be one when the DFS leaves it (OPEN_HELD says it may
 * not). An edge x -> w with a larger number on x is a cross or back edge, appended to pairs
 * as (w, x); every other edge ends here (an edge into a vertex that later gives its number
 * back is a tree edge). */
#define SB_CUR 63u      /* the cursor (dfs_next's); SB_CUR itself: on the esc stack */
#define SB_IMPLIED 64u  /* also carries carry[its base - 1] (see carry_push) */
#define SB_RUN 128u     /* its carry base is above its parent's: on the runs stack */

/* A growable stack of sizes (the DFS's side entries, a few per open vertex at most). */
typedef struct zstack {
    size_t *v;
    size_t n, cap;
} zstack;

static int zs_push(zstack *z, size_t x)
{
    if (z->n == z->cap) {
        size_t cap = z->cap ? z->cap * 2 : 64;
        size_t *p = err_reallocarray(z->v, cap, sizeof *p);
        if (!p)
            return -1;
        z->v = p;
        z->cap = cap;
    }
    z->v[z->n++] = x;
    return 0;
}

/* The vertices that gave their number back, in the order the DFS left them (each after
 * those below it): idle from the DFS to the close, which reads them once or twice in that
 * order, so they are kept as a byte stream, each node's difference from the previous one
 * zigzagged into 7-bit groups (low first, the high bit set on all but the last). Those left
 * together are mostly objects written together, so most take 1 or 2 bytes instead of 4. */
typedef struct hlist {
    uint8_t *b;
    size_t n, cap;
    uint32_t count;
    node_ix last;
} hlist;

static int hl_push(hlist *h, node_ix x)
{
    if (h->cap - h->n < 5) {
        size_t cap = h->cap + h->cap / 2;
        uint8_t *p = err_reallocarray(h->b, cap, 1);
        if (!p)
            return -1;
        h->b = p;
        h->cap = cap;
    }
    uint32_t d = x - h->last;
    uint32_t z = (d << 1) ^ (0u - (d >> 31));
    h->last = x;
    h->count++;
    h->n = (size_t)(varint_put(h->b + h->n, z) - h->b);
    return 0;
}

/* A reader of an hlist from its start. */
typedef struct hread {
    const uint8_t *p;
    node_ix last;
} hread;

static inline node_ix hr_next(hread *r)
{
    uint32_t z = (uint32_t)varint_get(&r->p);
    r->last += (z >> 1) ^ (0u - (z & 1));
    return r->last;
}

/* The cross and back edges (w, x), w < x, in the order the DFS meets them, until they are
 * packed by target: the largest block of a tree whose graph has many more edges than objects
 * (8 bytes an edge as pairs of numbers). Consecutive edges mostly leave one vertex, and w is
 * either near x or small (a class, numbered early), so each edge is one varint,
 * min(x - w, w) << 2 | absolute << 1 | new source, followed, when the source changed, by the
 * zigzagged difference from the previous source: 3 to 4 bytes an edge on the bench dumps. */
typedef struct pstream {
    uint8_t *b;
    size_t n, cap, count;
    uint32_t x;
} pstream;

/* The next edge of a stream read from its start (x: the source before it, 0 at the start). */
static inline void ps_next(const uint8_t **pp, uint32_t *x, uint32_t *w)
{
    uint64_t z = varint_get(pp);
    if (z & 1) {
        uint32_t d = (uint32_t)varint_get(pp);
        *x += (d >> 1) ^ (0u - (d & 1));
    }
    uint32_t v = (uint32_t)(z >> 2);
    *w = z & 2 ? v : *x - v;
}

typedef struct dfs_state {
    uint32_t *dfnum, *vert, *par, *cur, *semi;
    pstream pairs;   /* the cross and back edges (w, x) */
    uint32_t nv, n_leaves;
    hlist hung;      /* the vertices that became leaves */
    uint64_t *amb;   /* if set, a bit per vertex with a followed edge to a node that is not
                      * a first visit of one way in (refs_build reads only their edges) */
    node_ix *carry;  /* hop targets carried up (see dfs), the open vertices' in stack order */
    size_t n_carry, cap_carry;
    uint8_t *sb;     /* per open vertex (by depth): cursor and SB_* flags */
    zstack esc;      /* the cursors of the open vertices whose sb says SB_CUR, deepest last */
    zstack runs;     /* the carry bases of those whose sb says SB_RUN, deepest last: the
                      * bases never decrease with depth, so few differ */
} dfs_state;

/* Where the deepest open vertex's carried targets start. */
static inline size_t carry_base(const dfs_state *s)
{
    return s->runs.n ? s->runs.v[s->runs.n - 1] : 0;
}

static lr_status pair_push(dfs_state *s, uint32_t w, uint32_t x, lr_error *err);

/* Carries hop target c for the deepest open vertex (a target already carried last is not
 * carried twice). When its own list is still empty and c is the last target carried by a
 * vertex above it, it only notes that it carries that entry too (SB_IMPLIED): every link of
 * a linked list carries its class, and the entry stays in place while the vertex is open. */
static lr_status carry_push(dfs_state *s, node_ix c, uint8_t *top, lr_error *err)
{
    size_t base = carry_base(s);
    if (s->n_carry > base && s->carry[s->n_carry - 1] == c)
        return LR_OK;
    if (s->n_carry == base && base > 0 && s->carry[base - 1] == c) {
        *top |= SB_IMPLIED;
        return LR_OK;
    }
    if (s->n_carry == s->cap_carry) {
        size_t cap = s->cap_carry ? s->cap_carry * 2 : (size_t)1 << 12;
        node_ix *p = err_reallocarray(s->carry, cap, sizeof *p);
        if (!p)
            return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%zu hops)", cap);
        s->carry = p;
        s->cap_carry = cap;
    }
    s->carry[s->n_carry++] = c;
    return LR_OK;
}

/* The carried targets from base on (and carry[base - 1] when implied) become edges from
 * vertex v (0: the super-root). */
static lr_status carry_flush(dfs_state *s, size_t base, int implied, uint32_t v, lr_error *err)
{
    for (size_t i = implied ? base - 1 : base; i < s->n_carry; i++) {
        uint32_t d = s->dfnum[s->carry[i]];
        if (d >= LEAF)
            continue; /* carried targets are numbered (or super-root leaves) */
        if (d < v) {
            lr_status st = pair_push(s, d, v, err);
            if (st != LR_OK)
                return st;
        } else if (d > v && v < s->semi[d]) {
            s->semi[d] = v;
        }
    }
    s->n_carry = base;
    return LR_OK;
}

/* Whether some hop of z leads to a node the DFS has not met and must number (z then cannot
 * be a trivial leaf: it may dominate that node). */
static int hops_open(const hops *hp, const uint32_t *dfnum, node_ix z)
{
    for (uint32_t i = 0; hp && i < N_HOPS; i++) {
        node_ix c = hop_get(hp, z, i);
        if (c < hp->g->n_nodes && is_unseen(dfnum[c]) && !is_leaf_class(dfnum[c]))
            return 1;
    }
    return 0;
}

/* Trivial leaf z's hops, all to numbered nodes or super-root leaves (hops_open was 0): carried
 * for the deepest open vertex (its sb entry top), or edges from the super-root when z is one
 * of its children. */
static lr_status carry_leaf(dfs_state *s, const hops *hp, node_ix z, int root, uint8_t *top,
                            lr_error *err)
{
    for (uint32_t i = 0; hp && i < N_HOPS; i++) {
        node_ix c = hop_get(hp, z, i);
        if (c >= hp->g->n_nodes || s->dfnum[c] >= LEAF)
            continue;
        if (root) {
            s->semi[s->dfnum[c]] = 0;
        } else {
            lr_status st = carry_push(s, c, top, err);
            if (st != LR_OK)
                return st;
        }
    }
    return LR_OK;
}

static lr_status pair_push(dfs_state *s, uint32_t w, uint32_t x, lr_error *err)
{
    pstream *ps = &s->pairs;
    if (ps->cap - ps->n < 10) {
        size_t cap = ps->cap ? ps->cap + ps->cap / 2 : (size_t)1 << 18;
        uint8_t *p = err_reallocarray(ps->b, cap, 1);
        if (!p)
            return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%zu edges)",
                           ps->count);
        ps->b = p;
        ps->cap = cap;
    }
    uint32_t near = x - w, d = x - ps->x;
    uint64_t z = near <= w ? (uint64_t)near << 2 : (uint64_t)w << 2 | 2;
    uint8_t *q = ps->b + ps->n;
    if (d) {
        q = varint_put(q, z | 1);
        q = varint_put(q, (d << 1) ^ (0u - (d >> 31)));
        ps->x = x;
    } else {
        q = varint_put(q, z);
    }
    ps->n = (size_t)(q - ps->b);
    ps->count++;
    return LR_OK;
}

/* Fetches, in stages, what the DFS will read about the targets of edges k + SIB_FAR, k +
 * SIB_MID and k + SIB_NEAR of the vertex it is in (edges end at end): their dfnum[] entries;
 * once those are in, for a target the DFS will enter (unseen, not a trivial leaf by its
 * edges), its edge range and class; once that is in, its first edges and their bits. The DFS
 * comes back to the vertex after each child's subtree, so each stage has had a subtree's
 * time to arrive: entering a child (the slots of a hash table, a node of its own each) was
 * three cache misses one after the other. */
#define SIB_FAR 16
#define SIB_MID 8
#define SIB_NEAR 4
static inline __attribute__((always_inline)) void sib_ahead(const graph *g, const uint32_t *dfnum,
                                                           const uint64_t *fol, const hops *hp,
                                                           edge_ix k, edge_ix end)
{
    uint32_t n = g->n_nodes;
    if (k + SIB_FAR < end && g->edge_to[k + SIB_FAR] < n)
        __builtin_prefetch(&dfnum[g->edge_to[k + SIB_FAR]]);
    if (k + SIB_MID < end) {
        node_ix z = g->edge_to[k + SIB_MID];
        if (z < n && is_unseen(dfnum[z])) {
            if (!is_leaf_class(dfnum[z]))
                __builtin_prefetch(&g->first_edge[z]);
            if (hp && g->node_class16)
                __builtin_prefetch(&g->node_class16[z]);
        }
    }
    if (k + SIB_NEAR < end) {
        node_ix z = g->edge_to[k + SIB_NEAR];
        if (z < n && is_unseen(dfnum[z]) && !is_leaf_class(dfnum[z])) {
            edge_ix f = g->first_edge[z];
            if (f < g->n_edges) {
                __builtin_prefetch(&g->edge_to[f]);
                __builtin_prefetch(&fol[f >> 6]);
            }
        }
    }
}

/* One step of a vertex's cursor over its hops, then its followed edges, then its extras. The
 * cursor counts from 0: N_HOPS hop slots, then the edges from first_edge on, then the extras.
 * Hops go first so that a class no root numbered is entered from the first of its objects
 * the DFS meets: taken last, the hop would be met by the deepest object below that one, and
 * every object on the way down (a linked list of that class, say) would stay a vertex
 * instead of becoming a leaf. The order changes no dominator, only the DFS's work. Returns
 * the next target, or GRAPH_NONE when the vertex is done; *e is the cursor after that
 * target, *hop says whether it is a hop. */
static node_ix dfs_next(const graph *g, const uint32_t *dfnum, const uint64_t *fol,
                        const xedges *xe, const hops *hp, node_ix x, edge_ix *e, int *hop)
{
    edge_ix c = *e;
    for (; hp && c < N_HOPS; c++) {
        node_ix y = hop_get(hp, x, c);
        if (y < g->n_nodes) {
            *e = c + 1;
            *hop = 1;
            return y;
        }
    }
    *hop = 0;
    if (c < N_HOPS)
        c = N_HOPS;
    edge_ix first = g->first_edge[x], end = edges_end(g, x);
    edge_ix k = first + (c - N_HOPS);
    for (; k < end; k++)
        if (fbit(fol, k)) {
            *e = k + 1 - first + N_HOPS;
            sib_ahead(g, dfnum, fol, hp, k, end);
            return g->edge_to[k];
        }
    if (x_has(xe, x)) {
        uint32_t lo, hi;
        x_range(xe, x, &lo, &hi);
        for (uint32_t i = lo + (k - end); i < hi; i++) {
            k++;
            if (xe->to[i] < g->n_nodes) {
                *e = k - first + N_HOPS;
                return xe->to[i];
            }
        }
    }
    *e = k - first + N_HOPS;
    return GRAPH_NONE;
}

static lr_status dfs(const graph *g, const sroots *sr, const uint64_t *fol, const xedges *xe,
                     const hops *hp, dfs_state *s, lr_error *err)
{
    uint32_t *dfnum = s->dfnum, *par = s->par, *semi = s->semi;
    node_ix *stk_x = s->vert;   /* open vertices, the deepest last, | OPEN_HELD */
    uint64_t nr = sroots_count(sr), root_cur = 0;
    /* With hops, the class roots go first: their statics and loaders number most classes
     * before any object's hop meets them, so chains of objects become leaves (dfs) */
    int round = hp ? 0 : 1;
    uint32_t v = 0, nv = 0, leaves = 0;
    uint32_t sp = 0; /* open vertices; v is stk_x[sp - 1]'s number, 0 when none is open */
    par[0] = 0;
    semi[0] = 0;
    for (;;) {
        node_ix y = GRAPH_NONE;
        uint32_t yc = 0; /* y's class bits */
        if (v == 0) {
            while (y == GRAPH_NONE) {
                if (round == 0 && root_cur >= sr->n_entries) {
                    round = 1;
                    root_cur = 0;
                }
                if (root_cur >= nr)
                    break;
                node_ix r = sroots_get(sr, root_cur++);
                if (r == GRAPH_NONE || (round == 0 && g->node_kind[r] != GRAPH_KIND_CLASS))
                    continue;
                uint32_t d = dfnum[r];
                if (!is_unseen(d)) {
                    if (d < LEAF)
                        semi[d] = 0;
                } else if (is_leaf_class(d) && !hops_open(hp, dfnum, r)) {
                    dfnum[r] = LEAF;
                    leaves++;
                    lr_status st = carry_leaf(s, hp, r, 1, NULL, err);
                    if (st != LR_OK)
                        return st;
                } else {
                    y = r;
                    yc = d;
                }
            }
            if (y == GRAPH_NONE)
                break;
        } else {
            node_ix x = stk_x[sp - 1] & ~OPEN_HELD;
            uint8_t *top = &s->sb[sp - 1];
            edge_ix e = (*top & SB_CUR) == SB_CUR ? (edge_ix)s->esc.v[s->esc.n - 1]
                                                  : *top & SB_CUR;
            uint32_t held = 0, amb = 0;
            int hop = 0;
            for (node_ix z; (z = dfs_next(g, dfnum, fol, xe, hp, x, &e, &hop)) != GRAPH_NONE;) {
                uint32_t d = dfnum[z];
                /* z is seen a second time (it has two ways in), or its first way in is not
                 * its only one: its referrers need counting (a hop is no referrer there) */
                amb |= !hop && (!is_unseen(d) || (d & (C_ROOT | C_INS)) != 1);
                if (is_unseen(d)) {
                    if (!is_leaf_class(d) || hops_open(hp, dfnum, z)) {
                        y = z;
                        yc = d;
                        break;
                    }
                    /* its one way in: this edge, or its entry under the super-root */
                    dfnum[z] = LEAF | (d & C_ROOT ? 0 : x + 1);
                    leaves++;
                    if (hp) {
                        lr_status st = carry_leaf(s, hp, z, (d & C_ROOT) != 0, top, err);
                        if (st != LR_OK)
                            return st;
                    }
                    continue;
                }
                if (d >= LEAF)
                    continue; /* a leaf leads nowhere */
                if (hop) { /* a numbered target: carried (x may still become a leaf) */
                    lr_status st = carry_push(s, z, top, err);
                    if (st != LR_OK)
                        return st;
                    continue;
                }
                held = OPEN_HELD;
                if (d < v) {
                    lr_status st = pair_push(s, d, v, err);
                    if (st != LR_OK)
                        return st;
                } else if (d > v && v < semi[d]) {
                    semi[d] = v; /* forward edge: v is an ancestor of d */
                }
            }
            stk_x[sp - 1] |= held;
            if (amb && s->amb)
                s->amb[x >> 6] |= 1ull << (x & 63);
            if (y == GRAPH_NONE) {
                /* Done with x. When x has one way in and everything below it was a leaf or
                 * became one, nothing outside x's subtree is reached through it: x becomes a
                 * leaf too (its number was the last given), its parent in dfnum. */
                uint32_t p = par[v];
                size_t base = carry_base(s);
                int implied = (*top & SB_IMPLIED) != 0;
                s->runs.n -= (*top & SB_RUN) != 0;
                s->esc.n -= (*top & SB_CUR) == SB_CUR;
                sp--;
                lr_status st = LR_OK;
                if (!(stk_x[sp] & OPEN_HELD) && v == nv) { /* else a vertex stays below */
                    dfnum[x] = LEAF | (p == 0 ? 0 : (stk_x[sp - 1] & ~OPEN_HELD) + 1);
                    if (hl_push(&s->hung, x) != 0)
                        return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (DFS)");
                    leaves++;
                    nv--;
                    /* its carried targets go on up with it, from the super-root at the top
                     * (where nothing is implied: the bottom vertex's base is 0); the one it
                     * implied is the parent's own last one, or implied by the parent too when
                     * the parent has none of its own */
                    if (sp == 0 && s->n_carry > 0)
                        st = carry_flush(s, 0, 0, 0, err);
                    else if (implied && sp > 0 && base == carry_base(s))
                        s->sb[sp - 1] |= SB_IMPLIED;
                } else if (s->n_carry > base || implied) {
                    st = carry_flush(s, base, implied, v, err);
                }
                if (st != LR_OK)
                    return st;
                v = p;
                continue;
            }
            if ((*top & SB_CUR) == SB_CUR)
                s->esc.v[s->esc.n - 1] = e;
            else if (e < SB_CUR)
                *top = (uint8_t)((*top & ~SB_CUR) | e);
            else if (zs_push(&s->esc, e) == 0)
                *top |= SB_CUR;
            else
                return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (DFS stack)");
        }
        nv++;
        dfnum[y] = nv;
        par[nv] = v;
        semi[nv] = v;
        /* y's targets' entries are each a cache miss the loop above would wait on one after
         * the other (and in between on the vertices it enters): fetched at once here */
        for (edge_ix k = g->first_edge[y], end = edges_end(g, y), m = 0; k < end && m < DFS_AHEAD;
             k++, m++)
            if (g->edge_to[k] < g->n_nodes) {
                __builtin_prefetch(&dfnum[g->edge_to[k]]);
                if (m < DFS_SPEC)
                    __builtin_prefetch(&g->first_edge[g->edge_to[k]]);
            }
        /* only a vertex with one way in may become a leaf: its referrer's edge, or its
         * entry under the super-root when the DFS came from there */
        int one = (yc & C_ROOT) ? v == 0 : (yc & C_INS) == 1;
        stk_x[sp] = y | (one ? 0 : OPEN_HELD);
        uint8_t b = 0; /* dfs_next's cursor at 0; sp < nv <= the arrays' K entries */
        if (s->n_carry != carry_base(s)) {
            if (zs_push(&s->runs, s->n_carry) != 0)
                return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (DFS stack)");
            b = SB_RUN;
        }
        s->sb[sp++] = b;
        v = nv;
    }
    s->nv = nv;
    s->n_leaves = leaves;
    return LR_OK;
}

/* Edges decoded at a time, so the passes can fetch their random slots ahead. */
#define PS_CHUNK 1024

/* ---- Step 2: the kept predecessors, packed by target ----
 * Blocks in increasing target order, each block (the sources of edges into w) followed by
 * HDR | w, so the semidominator pass, going w = nv..1, reads it backwards with one cursor.
 * cnt is scratch of nv + 1 entries. */
static lr_status preds_pack(const pstream *ps, uint32_t nv, uint32_t *cnt, uint32_t **out,
                            size_t *n_out, lr_error *err)
{
    uint32_t cw[PS_CHUNK], cx[PS_CHUNK];
    size_t np = ps->count;
    memset(cnt, 0, ((size_t)nv + 1) * sizeof *cnt);
    /* the targets' counters are random slots: fetched AHEAD edges on (and in the scatter
     * below, the slot a counter names once the counter is in) */
    const uint8_t *q = ps->b;
    uint32_t x = 0;
    for (size_t done = 0; done < np;) {
        size_t k = np - done < PS_CHUNK ? np - done : PS_CHUNK;
        for (size_t i = 0; i < k; i++)
            ps_next(&q, &x, &cw[i]);
        for (size_t i = 0; i < k; i++) {
            if (i + AHEAD < k)
                __builtin_prefetch(&cnt[cw[i + AHEAD]], 1);
            cnt[cw[i]]++;
        }
        done += k;
    }
    size_t total = np;
    for (uint32_t w = 1; w <= nv; w++)
        total += cnt[w] != 0;
    if (total > UINT32_MAX)
        return LR_FAIL(err, LR_ERR_LIMIT, "dominators: %zu predecessors exceed 2^32", total);
    uint32_t *p = err_mallocarray(total ? total : 1, sizeof *p);
    if (!p)
        return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%zu edges)", total);
    uint32_t pos = 0;
    for (uint32_t w = 1; w <= nv; w++) {
        uint32_t c = cnt[w];
        cnt[w] = pos;
        if (c) {
            pos += c;
            p[pos++] = HDR | w;
        }
    }
    q = ps->b;
    x = 0;
    for (size_t done = 0; done < np;) {
        size_t k = np - done < PS_CHUNK ? np - done : PS_CHUNK;
        for (size_t i = 0; i < k; i++)
            ps_next(&q, &x, &cw[i]), cx[i] = x;
        for (size_t i = 0; i < k; i++) {
            if (i + 2 * AHEAD < k)
                __builtin_prefetch(&cnt[cw[i + 2 * AHEAD]], 1);
            if (i + AHEAD < k)
                __builtin_prefetch(&p[cnt[cw[i + AHEAD]]], 1);
            p[cnt[cw[i]]++] = cx[i];
        }
        done += k;
    }
    *out = p;
    *n_out = total;
    return LR_OK;
}

/* ---- Step 3: semidominators with path-compressed eval ----
 * anc[] starts as the DFS parent and is compressed towards vertices numbered < last;
 * label[v] is the vertex of minimum semi on the compressed path. Vertices >= last have
 * been processed ("linked"). Returns label of the min-semi vertex on v's path.
 * The compression needs no stack: the way up reverses the anc pointers (each vertex points
 * back to the one below it), the way down restores them, already compressed. */
static uint32_t eval(uint32_t v, uint32_t last, uint32_t *anc, uint32_t *label,
                     const uint32_t *semi)
{
    if (anc[v] < last)
        return label[v];
    /* Up from v to u, the topmost linked vertex (anc[u] < last). */
    uint32_t below = UINT32_MAX, u = v;
    do {
        uint32_t up = anc[u];
        anc[u] = below;
        below = u;
        u = up;
    } while (anc[u] >= last);
    /* Down: every vertex below u gets u's anc and the min-semi label of the path above. */
    uint32_t top = anc[u], p = u;
    while (below != UINT32_MAX) {
        uint32_t w = below;
        below = anc[w];
        anc[w] = top;
        if (semi[label[p]] < semi[label[w]])
            label[w] = label[p];
        p = w;
    }
    return label[v];
}

/* Fetches what eval will first read for the predecessors AHEAD and AHEAD / 2 entries below
 * pos in the packed list (block headers are skipped over: their vertex is the loop's own,
 * read in order): anc and label, then the label's semi once the label is in. */
static inline __attribute__((always_inline)) void lt_ahead(const uint32_t *psrc, size_t pos,
                                                          const uint32_t *anc,
                                                          const uint32_t *label,
                                                          const uint32_t *semi)
{
    if (pos > AHEAD && !(psrc[pos - 1 - AHEAD] & HDR)) {
        __builtin_prefetch(&anc[psrc[pos - 1 - AHEAD]]);
        __builtin_prefetch(&label[psrc[pos - 1 - AHEAD]]);
    }
    if (pos > AHEAD / 2 && !(psrc[pos - 1 - AHEAD / 2] & HDR)) {
        uint32_t l = label[psrc[pos - 1 - AHEAD / 2]];
        if (l != EMPTY)
            __builtin_prefetch(&semi[l]);
    }
}

/* Lengauer-Tarjan over vertices 1..nv. In: anc = DFS parents, semi = smallest number among
 * the smaller-numbered predecessors, psrc = the packed larger-numbered ones. Out: idom[] in
 * DFS numbers. label[] and idom[] are scratch of nv + 1 entries.
 * Vertices numbered > w are linked at step w. A vertex's label slot is read only once it is
 * linked, and its semi slot only once it is processed, so before that they serve as its
 * bucket head (the vertices whose semidominator it is, chained through idom[]) and as its
 * starting semidominator. Bucket w is emptied at the top of step w, when all of w's
 * descendants are linked. */
static void lt_run(uint32_t nv, uint32_t *anc, uint32_t *semi, uint32_t *label,
                   uint32_t *idom, const uint32_t *psrc, size_t n_psrc)
{
    for (uint32_t v = 0; v <= nv; v++)
        label[v] = EMPTY;
    size_t pos = n_psrc;
    for (uint32_t w = nv; w >= 1; w--) {
        for (uint32_t v = label[w], nx; v != EMPTY; v = nx) {
            nx = idom[v];
            uint32_t e = eval(v, w + 1, anc, label, semi);
            idom[v] = semi[e] < w ? e : w; /* semi[v] == w */
        }
        label[w] = w;
        uint32_t s = semi[w];
        if (pos > 0 && psrc[pos - 1] == (HDR | w)) {
            pos--;
            while (pos > 0 && !(psrc[pos - 1] & HDR)) {
                lt_ahead(psrc, pos, anc, label, semi);
                uint32_t su = semi[eval(psrc[--pos], w + 1, anc, label, semi)];
                if (su < s)
                    s = su;
            }
        }
        semi[w] = s;
        idom[w] = label[s];
        label[s] = w;
    }
    for (uint32_t v = label[0], nx; v != EMPTY; v = nx) {
        nx = idom[v];
        idom[v] = 0;
    }
    idom[0] = 0;
    /* Relative dominators become immediate ones in increasing order. */
    for (uint32_t w = 1; w <= nv; w++)
        if (idom[w] != semi[w])
            idom[w] = idom[idom[w]];
}

/* Per-node bits of the dominance options' mask. Only reached nodes carry any, so the mask
 * stays a set for the link edges' targets and sroots; M_NOREACH comes with the reach pass,
 * the others are tree_marks' state. */
enum {
    M_REACHED = 1,
    M_TREE = 2,    /* a VisualVM tree object; its retained slot holds its tree sum */
    M_BLOCKED = 4, /* refers to a target with several referrers, or an unreached one */
    M_NOREACH = 8, /* no reach edges: a tree object weighing itself only */
    M_SUMMED = 16, /* already added into its single referrer's tree sum */
    M_PRE = 16,    /* until refs_build ends: M_REF_IDOM known before it (see there) */
    /* tree_marks' single referrers: M_REF_IDOM alone, the idom is the one referrer;
     * M_REF_OTHER alone, one referrer that is not the idom; both, several referrers */
    M_REF_IDOM = 32,
    M_REF_OTHER = 64,
    M_REF_MULTI = M_REF_IDOM | M_REF_OTHER,
    M_REF_CUR = 128, /* counted for the referrer whose edges are being read */
    M_FINAL = 128,   /* from refs_build's end: a tree object whose slot holds its tree sum,
                      * summed from its edges (tree_walk), final before the close's sums */
};

/* The retained array being filled: 64-bit, or 32-bit when the caller asked for it
 * (DOM_RETAINED32). A 32-bit store that would overflow saturates and sets *over; the build
 * then sums again in 64 bits. */
typedef struct rets {
    uint64_t *w64;
    uint32_t *w32;
} rets;

static inline __attribute__((always_inline)) void rahead(const rets *r, node_ix x)
{
    if (r->w32)
        __builtin_prefetch(&r->w32[x], 1);
    else
        __builtin_prefetch(&r->w64[x], 1);
}

static inline uint64_t rget(const rets *r, node_ix x)
{
    return r->w32 ? r->w32[x] : r->w64[x];
}

static inline void rset(const rets *r, node_ix x, uint64_t v, int *over)
{
    if (!r->w32) {
        r->w64[x] = v;
    } else if (v <= UINT32_MAX) {
        r->w32[x] = (uint32_t)v;
    } else {
        r->w32[x] = UINT32_MAX;
        *over = 1;
    }
}

/* ---- VisualVM's tree objects (DOM_VISUALVM_SUMS) ----
 * VisualVM adds a class object's own size only when the class is a "tree object": reached,
 * and every distinct object its link edges point to has exactly one referrer (counted over
 * all objects, reached or not) and is itself a tree object; objects with no reach edges are
 * tree objects (leaves). A tree object's sum is its size plus its targets' sums (its size
 * alone without reach edges). Computed bottom-up from the leaves: ref(y) names y's single
 * referrer, slot[x] counts x's targets not yet known as tree objects and is replaced by x's
 * sum once x qualifies, so cycles never do. In: mk[] with M_REACHED and M_NOREACH; fol =
 * the link bits of the DFS (link edges to reached objects, and to all objects when unr is
 * set); idom[] in node space. Out: M_TREE marks; slot[x] = the sum of a tree object x,
 * scratch elsewhere (the close's own-size pass writes those slots), and *own += the tree
 * objects' shallow sizes (read there once: the own-size pass then skips them). O(N+E).
 * The single referrers take no array of N: an object's only referrer is a predecessor in
 * the dominance graph, so it is its immediate dominator unless the object also hangs under
 * the super-root (a GC root) or refers to itself. Two mask bits count an object's distinct
 * referrers (none, the idom, one other, several); only the objects with one other referrer
 * (GC roots, a few dozen in a Java heap) are listed, by node, with that referrer. */
uint32_t dom_refs_list_div = DOM_REFS_LIST_DIV;

typedef struct refs {
    const uint8_t *mk;
    const node_ix *idom;
    uint32_t n_other; /* objects listed */
    node_ix *other;   /* their nodes, increasing; NULL: ref is indexed by node */
    uint32_t *ref;    /* their one referrer */
} refs;

static uint32_t ref_slot(const refs *r, node_ix y)
{
    if (!r->other)
        return y;
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, r->n_other, r->other[search_mid] < y, lo);
    return lo; /* always found: callers ask only about listed objects */
}

/* y's single link referrer (a reached y), REF_NONE or REF_MULTI. */
static inline node_ix ref_get(const refs *r, node_ix y)
{
    switch (r->mk[y] & M_REF_MULTI) {
    case 0:
        return REF_NONE;
    case M_REF_IDOM:
        return r->idom[y];
    case M_REF_OTHER:
        return r->ref[ref_slot(r, y)];
    default:
        return REF_MULTI;
    }
}

/* Whether reached y has one link referrer (whichever): an edge followed into y then comes
 * from it, so callers holding such an edge need not ask ref_get which node that is. */
static inline int ref_single(uint8_t k)
{
    uint8_t r = k & M_REF_MULTI;
    return r == M_REF_IDOM || r == M_REF_OTHER;
}

/* The tree sum of tree object x, from its tree children's slots (all M_FINAL): its own
 * bytes (shallow and native, as tree_own's) and theirs. */
static uint64_t tree_sum(const graph *g, const uint64_t *fol, node_ix x, uint8_t *mk,
                         const rets *slot)
{
    uint64_t sum = graph_node_size(g, x) + (g->node_native ? (uint64_t)g->node_native[x] : 0);
    if (mk[x] & M_NOREACH)
        return sum;
    uint32_t n = g->n_nodes;
    for (edge_ix e = g->first_edge[x], end = edges_end(g, x); e < end; e++) {
        node_ix y = g->edge_to[e];
        if (y < n && fbit(fol, e) && (mk[y] & (M_REACHED | M_SUMMED)) == M_REACHED &&
            ref_single(mk[y])) {
            mk[y] |= M_SUMMED;
            sum += rget(slot, y);
        }
    }
    return sum;
}

/* The explicit stack of tree_walk: nodes, WALK_DONE set once their children are pushed. */
typedef struct wstack {
    uint32_t *v;
    size_t n, cap;
} wstack;

#define WALK_DONE 0x80000000u /* node indices stay below it (MAX_NODES) */

static int ws_push(wstack *w, uint32_t x)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 256;
        uint32_t *v = err_reallocarray(w->v, cap, sizeof *v);
        if (!v)
            return -1;
        w->v = v;
        w->cap = cap;
    }
    w->v[w->n++] = x;
    return 0;
}

/* Sums tree object y and every tree object below it not summed yet by reading their edges,
 * children first, each into its slot, marked M_FINAL. Tree objects form a forest (each has
 * one referrer, and a cycle never qualifies), so each is summed once however many walks
 * meet it: O(their edges). Returns 0, or -1 out of memory. */
static int tree_walk(const graph *g, const uint64_t *fol, node_ix y, uint8_t *mk,
                     const rets *slot, wstack *w, int *over)
{
    uint32_t n = g->n_nodes;
    w->n = 0;
    if (ws_push(w, y) != 0)
        return -1;
    while (w->n) {
        uint32_t z = w->v[--w->n];
        if (z & WALK_DONE) {
            z &= ~WALK_DONE;
            rset(slot, z, tree_sum(g, fol, z, mk, slot), over);
            mk[z] |= M_FINAL;
            continue;
        }
        if (mk[z] & M_FINAL)
            continue; /* a second edge to it from its referrer */
        if (ws_push(w, z | WALK_DONE) != 0)
            return -1;
        if (mk[z] & M_NOREACH)
            continue;
        for (edge_ix e = g->first_edge[z], end = edges_end(g, z); e < end; e++) {
            node_ix t = g->edge_to[e];
            if (t < n && fbit(fol, e) && (mk[t] & (M_REACHED | M_FINAL)) == M_REACHED &&
                ref_single(mk[t]) && ws_push(w, t) != 0)
                return -1;
        }
    }
    return 0;
}

/* Tests set it nonzero: every tree object summed from its edges (tree_walk), the reference
 * the sums in the dominator tree's order are checked against. */
int dom_tree_sums_by_edges;

/* Whether mask byte k is that of an object M_BLOCKED applies to (reached, with reach edges). */
static inline int blockable(uint8_t k)
{
    return (k & (M_REACHED | M_NOREACH)) == M_REACHED;
}

/* Whether amb (NULL: every node) names x. */
static inline int amb_has(const uint64_t *amb, node_ix x)
{
    return !amb || (int)(amb[x >> 6] >> (x & 63) & 1);
}

/* Fills the single referrers (see refs). With amb, only the edges of the nodes it names are
 * read: every other node's link edges all lead to objects of one way in met first from it
 * (the DFS's children of that node), already marked M_REF_IDOM | M_PRE, and every referrer
 * of an object not so marked is named. With block (every link edge in fol: unreached
 * referrers), it also marks M_BLOCKED every referrer that blocks (a link edge to an unreached
 * object or to one of several referrers), which tree_marks then need not find by reading
 * those edges again. Returns 0, or -1 out of memory. */
static int refs_build(const graph *g, const uint64_t *fol, const uint64_t *amb,
                      const node_ix *idom, uint8_t *mk, const rets *slot, int block, refs *r)
{
    uint32_t n = g->n_nodes;
    int over = 0; /* node numbers fit 32 bits */
    *r = (refs){mk, idom, 0, NULL, NULL};
    /* Only reached objects' referrers matter: an unreached target blocks its referrer
     * whatever its count. M_REF_CUR makes x count once per target however many edges it
     * has to it; a second walk over x's edges clears it. The zeroed slots hold the first
     * referrer meanwhile, compared with the idom in node order afterwards (asking the idom
     * here was a cache miss the walk waited on for every target). */
    for (node_ix x = 0; x < n; x++) {
        if (!amb_has(amb, x))
            continue;
        edge_ix e0 = g->first_edge[x], end = edges_end(g, x);
        int blocked = 0;
        for (edge_ix e = e0; e < end; e++) {
            ahead_edge(g, mk, 1, e);
            if (!fbit(fol, e))
                continue;
            node_ix y = g->edge_to[e];
            uint8_t k = mk[y];
            if ((k & (M_REACHED | M_REF_CUR | M_PRE)) != M_REACHED) {
                blocked |= !(k & M_REACHED);
                continue;
            }
            uint8_t ref = k & M_REF_MULTI ? M_REF_MULTI : M_REF_OTHER;
            if (ref == M_REF_OTHER)
                rset(slot, y, x, &over);
            mk[y] = (uint8_t)((k & ~M_REF_MULTI) | ref | M_REF_CUR);
            blocked |= ref == M_REF_MULTI; /* y's first referrer: below */
        }
        if (block && blocked && blockable(mk[x]))
            mk[x] |= M_BLOCKED;
        for (edge_ix e = e0; e < end; e++)
            if (fbit(fol, e))
                mk[g->edge_to[e]] &= (uint8_t)~M_REF_CUR;
    }
    for (node_ix y = 0; y < n; y++) {
        if (mk[y] & M_PRE)
            mk[y] &= (uint8_t)~M_PRE; /* M_SUMMED's bit, free again for tree_sum */
        if ((mk[y] & M_REF_MULTI) != M_REF_OTHER)
            continue;
        if (idom[y] == rget(slot, y)) {
            mk[y] = (uint8_t)((mk[y] & ~M_REF_MULTI) | M_REF_IDOM);
            rset(slot, y, 0, &over);
        } else {
            r->n_other++;
        }
    }
    /* a list costs 8 bytes an object, an array of N 4 bytes a node */
    int listed = r->n_other < n / dom_refs_list_div;
    if (r->n_other) {
        r->ref = err_mallocarray(listed ? r->n_other : (size_t)n + 1, sizeof *r->ref);
        if (listed)
            r->other = err_mallocarray(r->n_other, sizeof *r->other);
        if (!r->ref || (listed && !r->other))
            return -1;
    }
    /* with block, an object of several referrers blocks its first one, still in its slot
     * (the others were blocked when they came): fetched AHEAD objects on */
    for (node_ix y = 0, k = 0; y < n; y++) {
        if (block && y + AHEAD < n && (mk[y + AHEAD] & M_REF_MULTI) == M_REF_MULTI) {
            node_ix f = (node_ix)rget(slot, y + AHEAD);
            if (f < n)
                __builtin_prefetch(&mk[f], 1);
        }
        if (!(mk[y] & M_REF_OTHER))
            continue;
        if ((mk[y] & M_REF_MULTI) == M_REF_OTHER) {
            if (listed)
                r->other[k] = y;
            r->ref[listed ? k++ : y] = (uint32_t)rget(slot, y);
        } else if (block) {
            node_ix f = (node_ix)rget(slot, y);
            if (f < n && blockable(mk[f]))
                mk[f] |= M_BLOCKED;
        }
        rset(slot, y, 0, &over);
    }
    return 0;
}

static int root_cmp(const void *a, const void *b)
{
    node_ix x = *(const node_ix *)a, y = *(const node_ix *)b;
    return x < y ? -1 : x > y;
}

/* Whether x is in the sorted rs[0..n). */
static int root_has(const node_ix *rs, uint32_t n, node_ix x)
{
    return bsearch(&x, rs, n, sizeof *rs, root_cmp) != NULL;
}

#define HEIGHT_BUDGET ((uint64_t)1 << 22) /* objects one height walk may visit */

/* The level at which VisualVM would find y a tree object: 0 without link edges, else one
 * more than its children's highest (its height, following link edges into reached objects
 * with one referrer). DOM_HEIGHT_NOT_TREE when an object below has several referrers (then
 * y is no tree object at all), DOM_HEIGHT_UNKNOWN past the budget or around a cycle. */
#define DOM_HEIGHT_NOT_TREE UINT32_MAX
#define DOM_HEIGHT_UNKNOWN (UINT32_MAX - 1)
static uint32_t tree_height(const graph *g, const dom_opts *o, const uint64_t *fol,
                            const uint8_t *mk, node_ix y, uint64_t *budget)
{
    typedef struct frame {
        node_ix x;
        edge_ix e;
    } frame;
    uint32_t n = g->n_nodes, depth_cap = 1u << 16, top = 0, h = 0;
    frame *st = malloc(depth_cap * sizeof *st);
    if (!st)
        return DOM_HEIGHT_UNKNOWN;
    st[top++] = (frame){y, g->first_edge[y]};
    uint32_t result = 0;
    while (top) {
        frame *f = &st[top - 1];
        if (f->e >= edges_end(g, f->x)) {
            top--;
            continue;
        }
        edge_ix e = f->e++;
        node_ix t = g->edge_to[e];
        if (t >= n)
            continue;
        if (!fbit(fol, e)) { /* a link into an unreached object: no tree object above it */
            if (!(mk[t] & M_REACHED) && o->link && o->link(g, e, o->link_ctx)) {
                result = DOM_HEIGHT_NOT_TREE;
                break;
            }
            continue;
        }
        if (!(mk[t] & M_REACHED) || !ref_single(mk[t])) {
            result = DOM_HEIGHT_NOT_TREE;
            break;
        }
        if (t == y || top >= depth_cap || !*budget) {
            result = DOM_HEIGHT_UNKNOWN;
            break;
        }
        --*budget;
        st[top++] = (frame){t, g->first_edge[t]};
        if (top - 1 > h)
            h = top - 1;
    }
    free(st);
    return result ? result : h;
}

/* Blocks (M_BLOCKED) each reached object that is the one referrer of a GC root and whose
 * link edges lead to GC roots only (see tree_marks), or whose highest children are all such
 * roots: VisualVM looks at an object when a child that is no GC root becomes a tree object,
 * level by level from the leaves, and a child found a level later than every other child
 * that could have brought it there leaves it as it was (a chain of objects a static holds
 * and `main`'s locals hold too: each retains its own payload). Reads g->roots once; without
 * memory for the sorted roots it changes nothing. */
static void root_holders(const graph *g, const dom_opts *o, const uint64_t *fol,
                         const refs *ref, uint8_t *mk)
{
    uint32_t n = g->n_nodes, nr = 0;
    uint64_t budget = HEIGHT_BUDGET;
    node_ix *rs = malloc((g->n_roots ? g->n_roots : 1) * sizeof *rs);
    if (!rs)
        return;
    for (uint32_t i = 0; i < g->n_roots; i++) {
        node_ix y = g->roots[i].node;
        if (y < n && (!o->root || o->root(g, i, o->root_ctx)))
            rs[nr++] = y;
    }
    qsort(rs, nr, sizeof *rs, root_cmp);
    for (uint32_t i = 0; i < nr; i++) {
        node_ix y = rs[i];
        if ((i && rs[i - 1] == y) || (mk[y] & M_REF_MULTI) != M_REF_OTHER)
            continue;
        node_ix p = ref_get(ref, y);
        if (p >= n || !blockable(mk[p]) || (mk[p] & M_BLOCKED))
            continue;
        int other = 0;
        for (edge_ix e = g->first_edge[p], end = edges_end(g, p); e < end && !other; e++)
            other = fbit(fol, e) && g->edge_to[e] < n && !root_has(rs, nr, g->edge_to[e]);
        if (!other) {
            mk[p] |= M_BLOCKED;
            continue;
        }
        /* the highest of p's root children against the highest of the others */
        uint32_t h_root = 0, h_other = 0;
        int known = 1;
        for (edge_ix e = g->first_edge[p], end = edges_end(g, p); e < end && known; e++) {
            node_ix t = g->edge_to[e];
            if (t >= n)
                continue;
            if (!fbit(fol, e)) {
                known = (mk[t] & M_REACHED) || !o->link || !o->link(g, e, o->link_ctx);
                continue;
            }
            uint32_t h = tree_height(g, o, fol, mk, t, &budget);
            if (h == DOM_HEIGHT_NOT_TREE || h == DOM_HEIGHT_UNKNOWN) {
                known = 0; /* no tree object anyway, or not known: as before */
                break;
            }
            int root_child = root_has(rs, nr, t) && ref_get(ref, t) == p;
            if (root_child && h > h_root)
                h_root = h;
            else if (!root_child && h > h_other)
                h_other = h;
        }
        if (known && h_root > h_other)
            mk[p] |= M_BLOCKED;
    }
    free(rs);
}

static lr_status tree_marks(const graph *g, const dom_opts *o, const uint64_t *fol,
                            const uint64_t *amb, const uint64_t *isv, const hops *hp, int unr,
                            const uint32_t *idom, uint8_t *mk, const rets *slot, int *over,
                            lr_error *err)
{
    uint32_t n = g->n_nodes;
    refs ref;
    /* with unreached referrers every link edge is one of fol's: refs_build sees each edge
     * that blocks its source (into an unreached object, or one with several referrers) */
    int fused = unr;
    if (refs_build(g, fol, amb, idom, mk, slot, fused, &ref) != 0) {
        free(ref.ref);
        free(ref.other);
        return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
    }
    /* VisualVM counts a class's loader among its references, and a loader (its parent, its
     * class lists) is never one of its tree objects: a class with a loader is none either
     * (class FakeDriver: 2,000,416 bytes, its statics without its own 72). Every class
     * object with a loader hop is a class's node. */
    for (class_ix c = 0; hp && hp->ldr && c < g->n_classes; c++) {
        node_ix x = g->classes[c].node;
        if (x < n && blockable(mk[x]) && g->node_kind[x] == GRAPH_KIND_CLASS &&
            hop_loader(hp, x) < n)
            mk[x] |= M_BLOCKED;
    }
    /* VisualVM climbs from a new tree object to the object that reached it first on the
     * way from the GC roots, and a GC root was reached by no object: a root held by one
     * object never makes that object a tree object. So an object whose link edges lead
     * only to such roots is none (a holder of a buffer a thread's local also holds retains
     * the holder's own bytes, not the buffer's); one with other tree children still is. */
    if (o->flags & DOM_VISUALVM_SUMS)
        root_holders(g, o, fol, &ref, mk);
    /* Each object's single referrer counts it (in its slot); with unreached referrers a
     * trivial leaf (reported, no DFS number: no link edge) that is not blocked (the loader
     * rule above) is a tree object at once and counts nowhere, about 40 % of the objects
     * whose referrer's slot the count and the walk below no longer touch. */
    for (node_ix y = 0; y < n; y++) {
        if (y + AHEAD < n && (mk[y + AHEAD] & M_REF_MULTI) == M_REF_IDOM &&
            idom[y + AHEAD] < n)
            rahead(slot, idom[y + AHEAD]);
        uint8_t k = mk[y];
        if (!(k & M_REACHED))
            continue;
        if (fused && !(k & M_BLOCKED) && idom[y] != GRAPH_NONE && !bit_get(isv, y)) {
            mk[y] = k | M_TREE;
            continue;
        }
        node_ix p = ref_get(&ref, y);
        if (p < n)
            rset(slot, p, rget(slot, p) + 1, over);
    }
    /* a node amb leaves out refers only to reached objects with one referrer: not blocked */
    for (node_ix x = 0; !fused && x < n; x++) {
        if (!blockable(mk[x]) || (mk[x] & M_BLOCKED) || !amb_has(amb, x))
            continue;
        for (edge_ix e = g->first_edge[x], end = edges_end(g, x); e < end; e++) {
            ahead_edge(g, mk, 1, e);
            node_ix y = g->edge_to[e];
            if (y >= n)
                continue;
            int blocks = (mk[y] & M_REACHED) ? fbit(fol, e) && !ref_single(mk[y])
                         : unr                ? fbit(fol, e)
                                              : o->link(g, e, o->link_ctx);
            if (blocks) {
                mk[x] |= M_BLOCKED;
                break;
            }
        }
    }
    /* A new tree object unblocks its single referrer: walking up from each one that
     * qualifies by itself visits every node at most once. Most walks start at an object
     * whose tree children are all leaves (a String, a boxed value's holder) and end at its
     * referrer, whose slot and mark come next: asked some nodes ahead. The marks only: a
     * tree object's sum is its dominator subtree's (close_sums), as its tree children are
     * its dominator children but for the objects whose one referrer is not their idom,
     * summed below. */
    for (node_ix x = 0; x < n; x++) {
        if (x + AHEAD / 2 < n && (mk[x + AHEAD / 2] & (M_REACHED | M_TREE | M_REF_MULTI)) ==
                                     (M_REACHED | M_REF_IDOM)) {
            node_ix p = idom[x + AHEAD / 2];
            if (p < n) {
                rahead(slot, p);
                __builtin_prefetch(&mk[p], 1);
            }
        }
        uint8_t k = mk[x];
        if ((k & (M_REACHED | M_TREE)) != M_REACHED)
            continue;
        if (!(k & M_NOREACH) && ((k & M_BLOCKED) || rget(slot, x) != 0))
            continue;
        for (node_ix y = x;;) {
            mk[y] |= M_TREE;
            node_ix p = ref_get(&ref, y);
            if (p >= n || (mk[p] & (M_REACHED | M_TREE | M_BLOCKED | M_NOREACH)) != M_REACHED)
                break; /* no single referrer, or one that qualifies (or not) by itself */
            uint64_t left = rget(slot, p) - 1;
            rset(slot, p, left, over);
            if (left != 0)
                break;
            y = p;
        }
    }
    /* Every slot of a tree object without M_NOREACH now holds 0 (its count), the others
     * counts and referrers: the own-size pass writes them, adding a tree object's own size
     * into its slot (0 for one the dominance DFS never met, idom[x] GRAPH_NONE: not
     * reported). A tree object whose one referrer is not its idom (a GC root, a class its
     * instances also keep, one the DFS never met) is summed here from its edges, and its sum
     * added into its referrer's slot when that referrer's sum comes from the dominator tree
     * (a tree object with reach edges, not itself summed here). */
    wstack w = {NULL, 0, 0};
    int fail = 0;
    for (node_ix x = 0; dom_tree_sums_by_edges && !fail && x < n; x++)
        if ((mk[x] & (M_TREE | M_FINAL)) == M_TREE)
            fail = tree_walk(g, fol, x, mk, slot, &w, over);
    uint32_t no = ref.other ? ref.n_other : ref.ref ? n : 0;
    for (int pass = 0; pass < 2 && !fail; pass++) {
        for (uint32_t i = 0; i < no && !fail; i++) {
            node_ix y = ref.other ? ref.other[i] : i;
            if ((mk[y] & (M_TREE | M_REF_MULTI)) != (M_TREE | M_REF_OTHER))
                continue;
            node_ix p = ref.ref[ref.other ? i : y];
            if (p >= n || (mk[p] & (M_TREE | M_NOREACH | M_FINAL)) != M_TREE)
                continue;
            if (pass == 0 && !(mk[y] & M_FINAL))
                fail = tree_walk(g, fol, y, mk, slot, &w, over);
            else if (pass == 1)
                rset(slot, p, rget(slot, p) + rget(slot, y), over);
        }
    }
    free(w.v);
    free(ref.ref);
    free(ref.other);
    if (fail)
        return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
    return LR_OK;
}

/* java.lang.ref.Reference's own next and queue of a reference, and whether a field of a
 * subclass also named next (jdk.internal.ref.PhantomCleanable's list) holds `to` too. */
typedef struct ref_fields {
    const graph *g;
    node_ix to, next, queue;
    int other_next_to; /* another field named next holds `to`: the edge cannot be told apart */
} ref_fields;

static int ref_field(void *ctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    ref_fields *r = ctx;
    const graph *g = r->g;
    const char *name = graph_str(g, f->name);
    int own = decl < g->n_classes &&
              !strcmp(graph_str(g, g->classes[decl].name), "java.lang.ref.Reference");
    if (!strcmp(name, "next")) {
        if (own)
            r->next = v->ref;
        else if (v->ref == r->to)
            r->other_next_to = 1;
    } else if (own && !strcmp(name, "queue")) {
        r->queue = v->ref;
    }
    return 0;
}

/* Whether edge x -> y named next is Reference.next of a reference on the GC's pending list:
 * JDK 5 and 6 chain that list through next, and their queues chain enqueued references
 * through it too, with queue = ReferenceQueue.ENQUEUED (JDK 7+ set next to another reference
 * only then). So it is a GC link when x's queue is not ENQUEUED (found as a static of the
 * queue's class or a superclass). An unknown queue, or a subclass's own next (a cleaner's
 * list) holding y as well, keeps the link. */
static int ref_pending_next(const graph *g, node_ix x, node_ix y)
{
    ref_fields r = {g, y, GRAPH_NONE, GRAPH_NONE, 0};
    graph_fields_each(g, x, ref_field, &r);
    if (r.next != y || r.other_next_to || r.queue >= g->n_nodes)
        return 0;
    graph_value enq;
    class_ix c = graph_node_class(g, r.queue);
    for (int depth = 0; c < g->n_classes && depth < 64; depth++, c = g->classes[c].super)
        if (graph_static_find(g, c, "ENQUEUED", &enq))
            return enq.ref != r.queue;
    return 0;
}

int dom_gc_link(const graph *g, edge_ix e)
{
    unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
    if (k != GRAPH_EDGE_FIELD && k != GRAPH_EDGE_STATIC)
        return 0;
    /* the target is a reference (ref_strength is set on every java.lang.ref class): one
     * class read per field or static edge, the source and the name only past that test */
    node_ix y = g->edge_to[e];
    class_ix c = y < g->n_nodes ? graph_node_class(g, y) : GRAPH_NONE;
    if (c >= g->n_classes || g->classes[c].ref_strength == GRAPH_STRONG)
        return 0;
    node_ix x = graph_edge_from(g, e);
    if (x >= g->n_nodes)
        return 0;
    const char *name = graph_str(g, graph_edge_name_from(g, x, e));
    if (k == GRAPH_EDGE_STATIC) {
        c = graph_class_of_node(g, x);
        const char *cn = c < g->n_classes ? graph_str(g, g->classes[c].name) : "";
        return (!strcmp(name, "unenqueued") && !strcmp(cn, "java.lang.ref.ReferenceQueue")) ||
               (!strcmp(name, "pending") && !strcmp(cn, "java.lang.ref.Reference"));
    }
    c = graph_node_class(g, x);
    if (c >= g->n_classes || g->classes[c].ref_strength == GRAPH_STRONG)
        return 0;
    return !strcmp(name, "discovered") || !strcmp(name, "pendingNext") ||
           (!strcmp(name, "next") && ref_pending_next(g, x, y));
}

/* VisualVM's references: instance fields (the referent of references too), array elements
 * and statics; not class internals (super, loader, signers, protection domain) nor Java
 * locals, which VisualVM has no edge for (their frames are roots themselves). Unlike
 * VisualVM, not the GC's pending-list link either (dom_gc_link, docs/design.md). */
static int vvm_link(const graph *g, edge_ix e, void *ctx)
{
    (void)ctx;
    unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
    if (k == GRAPH_EDGE_ELEMENT)
        return 1;
    if (k != GRAPH_EDGE_FIELD && k != GRAPH_EDGE_STATIC)
        return 0;
    /* dom_gc_link's first test, inlined: most targets are no references, and follow_bits
     * asks this of every edge (a call per field edge was 8 % of its time) */
    node_ix y = g->edge_to[e];
    class_ix c = y < g->n_nodes ? graph_node_class(g, y) : GRAPH_NONE;
    return c >= g->n_classes || g->classes[c].ref_strength == GRAPH_STRONG || !dom_gc_link(g, e);
}

/* Reachability: the same minus weak/soft/phantom/finalizer referents. */
int dom_visualvm_reach(const graph *g, edge_ix e, void *ctx)
{
    return GRAPH_EDGE_STRENGTH(g->edge_kind[e]) == GRAPH_STRONG && vvm_link(g, e, ctx);
}

void dom_opts_visualvm(dom_opts *o)
{
    memset(o, 0, sizeof *o);
    o->reach = dom_visualvm_reach;
    o->link = vvm_link;
    o->flags = DOM_UNREACHED_AS_ROOTS | DOM_VISUALVM_SUMS | DOM_LOADER_HOPS;
}

uint64_t dom_scratch_bytes(const graph *g)
{
    /* at Lengauer-Tarjan: dfnum and four vertex arrays (K <= N, about 60 % of N in Java
     * heaps, counted whole), the mask, about one predecessor pair per 8 edges and the edge
     * bits */
    return (uint64_t)g->n_nodes * 21 + (uint64_t)g->n_edges * 9 / 8;
}

lr_status dom_build(const graph *g, dom_edge_filter filter, void *ctx, dom_tree *t,
                    lr_error *err)
{
    dom_opts o = {filter, ctx, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL};
    return dom_build_ex(g, &o, t, err);
}

/* ---- Step 4: retained sizes ----
 * First in node order (the weights may be decoded from the dump, which reads it
 * sequentially then): every reported node gets its own weight and a leaf, having no
 * children, passes its total up at once. Then vertices in reverse DFS order, children
 * before their idom, pass theirs up. */
typedef struct sums {
    const graph *g;
    dom_tree *t;
    const uint8_t *mk; /* tree marks (VisualVM sums) or NULL */
    int class_free;
    uint64_t total;
    const dom_opts *o; /* its weight callback, if any */
    rets r;            /* the retained array */
    int over;          /* a 32-bit size overflowed */
} sums;

/* What x passes to its idom, given its final retained size. VisualVM: a tree object's size
 * is its own tree sum, which takes its tree children's (those of its dominator children
 * whose one referrer it is: tree objects then) and nothing else; a tree object summed from
 * its edges (M_FINAL) or without reach edges takes nothing more. Class objects pass nothing
 * up to others and weigh nothing unless tree objects. */
static void sum_up(sums *s, node_ix x)
{
    node_ix p = s->t->idom[x];
    if (p == DOM_SUPER_ROOT)
        return;
    if (!s->mk) {
        rset(&s->r, p, rget(&s->r, p) + rget(&s->r, x), &s->over);
        return;
    }
    uint8_t kp = s->mk[p], kx = s->mk[x];
    int add;
    if (!(kp & M_TREE))
        add = !((kx & M_TREE) && s->g->node_kind[x] == GRAPH_KIND_CLASS);
    else
        add = !(kp & (M_FINAL | M_NOREACH)) &&
              (kx & (M_TREE | M_REF_MULTI)) == (M_TREE | M_REF_IDOM);
    if (add)
        rset(&s->r, p, rget(&s->r, p) + rget(&s->r, x), &s->over);
}

/* Fetches the slots sum_up(s, x) will add into (its idom's), for writing. */
static inline __attribute__((always_inline)) void sum_ahead(const sums *s, node_ix x)
{
    node_ix p = s->t->idom[x];
    if (p < s->g->n_nodes) {
        rahead(&s->r, p);
        if (s->mk)
            __builtin_prefetch(&s->mk[p]);
    }
}

/* Fetches x's own entries that sum_ahead and sum_up will read. */
static inline __attribute__((always_inline)) void node_ahead(const sums *s, node_ix x)
{
    __builtin_prefetch(&s->t->idom[x]);
    rahead(&s->r, x);
    if (s->mk) {
        __builtin_prefetch(&s->mk[x]);
        __builtin_prefetch(&s->g->node_kind[x]);
    }
}

static void sum_own(sums *s, node_ix x)
{
    const graph *g = s->g;
    uint64_t own = s->o->weight ? s->o->weight(g, x, s->o->weight_ctx)
                                : graph_node_size(g, x) +
                                      (g->node_native ? (uint64_t)g->node_native[x] : 0);
    int is_class = g->node_kind[x] == GRAPH_KIND_CLASS;
    if (s->mk) {
        /* no tree object (tree_own): every slot is written here first (tree_marks leaves
         * its scratch in them) */
        rset(&s->r, x, is_class ? 0 : own, &s->over);
        s->total += is_class ? 0 : own;
        return;
    }
    if (is_class && s->class_free)
        own = 0;
    rset(&s->r, x, own, &s->over); /* the slot's first write (see close_sums) */
    s->total += own;
}

/* sum_own of a reported VisualVM tree object: its weight into the total, and its shallow
 * size and the native bytes it owns (its tree sum's own part, whatever the weights) into its
 * slot, which holds 0 or the sums of its tree children tree_marks added (a count without
 * reach edges, dropped); the slot of one summed from its edges is final. Without the native
 * bytes, an FFM arena's 20 MiB allocation, whose cleanup has one referrer, retained 48 B. */
static void tree_own(sums *s, node_ix x)
{
    const graph *g = s->g;
    uint64_t size = graph_node_size(g, x) + (g->node_native ? (uint64_t)g->node_native[x] : 0);
    s->total += s->o->weight ? s->o->weight(g, x, s->o->weight_ctx) : size;
    uint8_t k = s->mk[x];
    if (!(k & M_FINAL))
        rset(&s->r, x, (k & M_NOREACH ? 0 : rget(&s->r, x)) + size, &s->over);
}

/* sum_own over the reached nodes (0 in the others' slots), on one thread of two. The
 * weights read records through graph_node_size / the weight callback, which keep no shared
 * state (the readers' cursors are thread-local). The threads take OWN_CHUNK nodes at a time
 * from a shared cursor rather than half each: the nodes whose size is read back from the
 * dump bunch up (arrays), and a thread held up (another process on its core) no longer
 * keeps the other waiting at the join with half the nodes left. */
typedef struct own_part {
    sums s;
    uint32_t *next; /* the first node no thread has taken yet (shared) */
} own_part;

#define OWN_CHUNK 65536u     /* nodes a thread takes at once */

static void own_range(own_part *p, node_ix lo, node_ix hi)
{
    /* a size read back from the dump (HPROF arrays) is a miss per record: asked for some
     * nodes on, the misses overlap */
    int ahead = !p->s.o->weight;
    const uint8_t *mk = p->s.mk;
    const graph *g = p->s.g;
    for (node_ix x = lo; x < hi; x++) {
        if (ahead && hi - x > GRAPH_SIZE_AHEAD)
            graph_node_size_ahead(g, x + GRAPH_SIZE_AHEAD);
        if (p->s.t->idom[x] == GRAPH_NONE)
            rset(&p->s.r, x, 0, &p->s.over);
        else if (mk && (mk[x] & M_TREE))
            tree_own(&p->s, x);
        else
            sum_own(&p->s, x);
    }
}

static void *own_run(void *arg)
{
    own_part *p = arg;
    uint32_t n = p->s.g->n_nodes;
    for (;;) {
        uint32_t lo = __atomic_fetch_add(p->next, OWN_CHUNK, __ATOMIC_RELAXED);
        if (lo >= n)
            break;
        own_range(p, lo, n - lo > OWN_CHUNK ? lo + OWN_CHUNK : n);
    }
    return NULL;
}

/* The close: retained sizes into a fresh array of 32 bits (narrow) or 64, and the total.
 * In: t->idom, the reach mask (or NULL), the link bits (VisualVM sums), isv (nodes with a
 * DFS number at the end or given back), vert (number -> node, V_OUT on unreached referrers)
 * and the hung list (those given back, in the order the DFS left them). *over
 * is set when a 32-bit size overflowed (the array is then wrong, and the caller starts
 * again in 64 bits). */
/* The ring of the hung list's decoded nodes: a power of two above 2 * AHEAD. */
#define HRING 128
_Static_assert(HRING > 2 * AHEAD && (HRING & (HRING - 1)) == 0, "HRING");

static lr_status close_sums(const graph *g, const dom_opts *o, const hops *hp, dom_tree *t,
                            uint8_t *mask, const uint64_t *fol, const uint64_t *amb,
                            const uint64_t *isv, const uint32_t *vert, uint32_t nv,
                            const hlist *hung, int narrow, int *over,
                            lr_error *err)
{
    uint32_t n = g->n_nodes;
    size_t m = (size_t)n + 2;
    int vvm = o->link && (o->flags & DOM_VISUALVM_SUMS);
    rets r = {NULL, NULL};
    /* Zeroed by writes where tree_marks comes first (it reads slots before writing them, see
     * zalloc_w); else the own weights' pass writes every node's slot first, in order. */
    if (narrow)
        r.w32 = t->retained32 = vvm ? zalloc_w(m, sizeof *r.w32) : err_mallocarray(m, 4);
    else
        r.w64 = t->retained = vvm ? zalloc_w(m, sizeof *r.w64) : err_mallocarray(m, 8);
    if (!r.w32 && !r.w64)
        return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
    for (node_ix x = n; !vvm && x < m; x++)
        rset(&r, x, 0, over);
    *over = 0;
    if (vvm) {
        int unr = (o->flags & DOM_UNREACHED_AS_ROOTS) != 0;
        lr_status st = tree_marks(g, o, fol, amb, isv, hp, unr, t->idom, mask, &r, over,
                                  err);
        if (st != LR_OK)
            return st;
    }
    sums su = {g, t, vvm ? mask : NULL, (o->flags & DOM_CLASS_OBJECTS_FREE) != 0, 0, o, r, 0};
    /* Own sizes first, on both cores (each node's slot is its own, totals are summed after),
     * then the leaves pass theirs up: leaves dominate nothing, so their slots are final. */
    uint32_t next = 0;
    own_part parts[2] = {{su, &next}, {su, &next}};
    pthread_t th;
    int threaded = n >= dom_split_min && pthread_create(&th, NULL, own_run, &parts[1]) == 0;
    own_run(&parts[0]);
    su.total = parts[0].s.total;
    su.over = parts[0].s.over;
    if (threaded) {
        pthread_join(th, NULL);
        su.total += parts[1].s.total;
        su.over |= parts[1].s.over;
    }
    /* each pass fetches ahead the idom slots it will add into, and in the two passes that
     * go in random node order first the nodes' own entries */
    for (node_ix x = 0; x < n; x++) {
        if (x + AHEAD < n)
            sum_ahead(&su, x + AHEAD);
        if (t->idom[x] != GRAPH_NONE && !bit_get(isv, x))
            sum_up(&su, x);
    }
    /* the vertices that became leaves, each after those below it: decoded 2 * AHEAD ahead
     * into a ring, for the fetches */
    node_ix ring[HRING];
    hread rd = {hung->b, 0};
    for (uint32_t i = 0, got = 0, nh = hung->count; i < nh; i++) {
        for (uint32_t want = i + 2 * AHEAD < nh ? i + 2 * AHEAD + 1 : nh; got < want; got++)
            ring[got & (HRING - 1)] = hr_next(&rd);
        if (i + 2 * AHEAD < nh)
            node_ahead(&su, ring[(i + 2 * AHEAD) & (HRING - 1)]);
        if (i + AHEAD < nh)
            sum_ahead(&su, ring[(i + AHEAD) & (HRING - 1)]);
        node_ix x = ring[i & (HRING - 1)];
        if (t->idom[x] != GRAPH_NONE)
            sum_up(&su, x);
    }
    for (uint32_t v = nv; v >= 1; v--) {
        if (v > 2 * AHEAD)
            node_ahead(&su, vert[v - 2 * AHEAD] & ~V_OUT);
        if (v > AHEAD)
            sum_ahead(&su, vert[v - AHEAD] & ~V_OUT);
        node_ix x = vert[v];
        if (!(x & V_OUT))
            sum_up(&su, x);
    }
    t->total_reachable = su.total;
    *over |= su.over;
    return LR_OK;
}

/* The build's two passes over the nodes that split in two (dom_split): halves of whole
 * 64-node words, as each writes bits of its nodes (isv, amb). */
typedef struct node_part {
    uint32_t *dfnum;
    const uint8_t *outside; /* node_count: sroots' reach set, or NULL */
    uint8_t *mask;          /* the reach set and marks, or NULL */
    int amb;                /* node_count: s.amb is kept */
    uint64_t *amb_bits;     /* node_result: s.amb, or NULL */
    uint32_t *vert;
    uint64_t *isv;
    node_ix lo, hi;
    size_t k;               /* node_count: the nodes that may get a number */
} node_part;

static void node_halves(node_part *p, uint32_t n, int two)
{
    node_ix mid = two ? (n / 2) & ~63u : n;
    p[0].lo = 0;
    p[0].hi = p[1].lo = mid;
    p[1].hi = n;
}

/* Before the DFS: the outside nodes become super-root children, the objects of one way in
 * are marked (s.amb, see build), and the nodes that may get a number are counted. */
static void *node_count(void *arg)
{
    node_part *p = arg;
    uint32_t *dfnum = p->dfnum;
    size_t k = 0;
    for (node_ix x = p->lo; x < p->hi; x++) {
        if (p->outside && !p->outside[x])
            dfnum[x] |= C_ROOT;
        if (p->amb && (dfnum[x] & (C_ROOT | C_INS)) == 1)
            p->mask[x] |= M_REF_IDOM | M_PRE;
        k += !is_leaf_class(dfnum[x]);
    }
    p->k = k;
    return NULL;
}

/* After Lengauer-Tarjan: leaves and unreachable nodes take their result and vert is
 * rebuilt (see build). */
static void *node_result(void *arg)
{
    node_part *p = arg;
    uint32_t *dfnum = p->dfnum, *vert = p->vert;
    uint8_t *mask = p->mask;
    for (node_ix x = p->lo; x < p->hi; x++) {
        uint32_t d = dfnum[x];
        if (d < LEAF) {
            vert[d] = x | (mask && !mask[x] ? V_OUT : 0);
            p->isv[x >> 6] |= 1ull << (x & 63);
        } else if (is_unseen(d)) {
            dfnum[x] = GRAPH_NONE; /* unreachable, or reached over edges the DFS skips */
            if (p->amb_bits) { /* whose edges the DFS never read: refs_build reads them */
                p->amb_bits[x >> 6] |= 1ull << (x & 63);
                mask[x] &= (uint8_t)~(M_REF_IDOM | M_PRE);
            }
        } else if (mask && !mask[x]) {
            dfnum[x] = GRAPH_NONE; /* an unreached referrer */
        } else {
            dfnum[x] = d == LEAF ? DOM_SUPER_ROOT : (d & ~LEAF) - 1;
        }
    }
    return NULL;
}

/* The results' last two steps (see build): 0 sets isv's bits of the vertices that gave
 * their number back, 1 gives each vertex its idom in node space. */
typedef struct res_part {
    const hlist *hung;
    uint64_t *isv;
    const uint32_t *vert, *idom;
    uint32_t *dfnum;
    uint32_t nv;
    int step;
} res_part;

static void *res_run(void *arg)
{
    res_part *r = arg;
    if (r->step == 0) {
        hread rd = {r->hung->b, 0};
        for (uint32_t i = 0; i < r->hung->count; i++) {
            node_ix x = hr_next(&rd);
            r->isv[x >> 6] |= 1ull << (x & 63);
        }
        return NULL;
    }
    const uint32_t *vert = r->vert, *idom = r->idom;
    uint32_t *dfnum = r->dfnum, nv = r->nv;
    /* idom[] stays in DFS numbers: each is read once, here */
    for (uint32_t v = 1; v <= nv; v++) {
        if (v + AHEAD <= nv) {
            __builtin_prefetch(&vert[idom[v + AHEAD]]);
            __builtin_prefetch(&dfnum[vert[v + AHEAD] & ~V_OUT], 1);
        }
        node_ix x = vert[v];
        uint32_t p = idom[v];
        if (x & V_OUT)
            dfnum[x & ~V_OUT] = GRAPH_NONE;
        else
            dfnum[x] = p == 0 ? DOM_SUPER_ROOT : vert[p] & ~V_OUT;
    }
    return NULL;
}

static lr_status build(const graph *g, const dom_opts *o, dom_tree *t, lr_error *err);

unsigned dom_narrow_reruns;

/* Whether the close may try 32-bit retained sizes (DOM_RETAINED32). A retained size adds up
 * the own sizes of distinct nodes, so it stays below the heap's shallow total (native sizes
 * in): when the reader knows that total (HPROF's pass 2 adds it up) and it passes 32 bits,
 * the close goes to 64 at once. Found during the close, an overflow costs the close again,
 * own-size pass and all: 35 s of a 21.6 GB dump's `top`, whose spilled arrays and file no
 * longer fit in the page cache. Unknown or weighted sizes: 32 bits first, and the close
 * again only if they overflow. */
static int narrow_may_fit(const graph *g, const dom_opts *o)
{
    if (!(o->flags & DOM_RETAINED32))
        return 0;
    if (o->weight || !g->shallow_known)
        return 1;
    uint64_t total = g->shallow_total;
    for (node_ix x = 0; g->node_native && x < g->n_nodes && total <= UINT32_MAX; x++)
        total += g->node_native[x];
    return total <= UINT32_MAX;
}

lr_status dom_build_ex(const graph *g, const dom_opts *o, dom_tree *t, lr_error *err)
{
    const char *prev = phase_current();
    phase_enter("dominators");
    __atomic_fetch_add(&dom_building, 1, __ATOMIC_RELAXED);
    lr_status st = build(g, o, t, err);
    __atomic_fetch_sub(&dom_building, 1, __ATOMIC_RELAXED);
    phase_enter(prev);
    return st;
}

static lr_status build(const graph *g, const dom_opts *o, dom_tree *t, lr_error *err)
{
    memset(t, 0, sizeof *t);
    xedges xe = {0, NULL, NULL, NULL};
    hops hp = {NULL, NULL, NULL};
    uint8_t *mask = NULL;
    uint64_t *fol = NULL, *isv = NULL;
    uint32_t *psrc = NULL;
    size_t n_psrc = 0;
    dfs_state s;
    memset(&s, 0, sizeof s);
    uint32_t n = g->n_nodes;
    if (n >= MAX_NODES)
        return LR_FAIL(err, LR_ERR_LIMIT, "dominators: %u nodes is too many", n);
    if (n > 0 && (!g->first_edge || !g->edge_to || !g->edge_kind))
        return LR_FAIL(err, LR_ERR_USAGE, "dominators: graph was loaded without edges");
    lr_status st = LR_OK;
    size_t m = (size_t)n + 2;
    /* dfnum[] becomes t->idom at the close. */
    s.dfnum = err_mallocarray(m, sizeof *s.dfnum);
    if (!s.dfnum)
        goto nomem;
    t->n = n;
    if (o->n_extra && !o->link) {
        xe = (xedges){o->n_extra, o->extra_from, o->extra_to,
                      err_calloc((size_t)n / 64 + 1, sizeof(uint64_t))};
        if (!xe.has)
            goto nomem;
        for (uint32_t i = 0; i < xe.n; i++)
            if (xe.from[i] < n)
                xe.has[xe.from[i] >> 6] |= 1ull << (xe.from[i] & 63);
    }
    sroots sr = sroots_make(g, NULL, o);
    if (hops_init(&hp, g, o, &sr) != 0)
        goto nomem;
    const hops *hpp = hp.g ? &hp : NULL;
    /* the reach filter's table, if any, read as rows of answers (rt_rows) */
    rt_rows rows;
    const dom_reach_table *tab = o->reach ? o->reach_table : NULL;
    if (tab)
        rt_fill(tab, rows);
    const uint8_t(*rrows)[256] = tab ? (const uint8_t(*)[256])rows : NULL;
    etest et = {o->reach, o->reach_ctx, NULL, NULL, NULL, NULL, NULL, 0, tab, rrows};
    const uint8_t *src = NULL; /* sources the DFS may reach, NULL = all */
    int counted = 0; /* the edge counts are in dfnum */
    if (o->link) {
        /* Reachability first, the link edges asked in the same pass; the dominance graph is
         * then every link edge among reached objects, numbered by a DFS of its own. Unreached
         * referrers as super-root children (VisualVM's convention): their references still
         * take dominance away from reached objects, every link edge is one of the dominance
         * graph, and the same pass counts them. Otherwise only reached objects are ever
         * met, so only they count as referrers, and a second pass counts once the reach set
         * is known. */
        int unr = (o->flags & DOM_UNREACHED_AS_ROOTS) != 0;
        mask = zalloc_w(m, 1); /* reach_mark reads a target's byte before setting it */
        uint64_t *lbits = err_calloc((size_t)g->n_edges / 64 + 1, sizeof *lbits);
        et = (etest){o->reach, o->reach_ctx, NULL, NULL, o->link, o->link_ctx, lbits, unr,
                     tab, rrows};
        if (!mask || !lbits ||
            !(fol = follow_bits(g, &et, unr ? s.dfnum : NULL, NULL, NULL, hpp))) {
            free(lbits);
            goto nomem;
        }
        /* M_NOREACH leaves mask[x] nonzero either way for the targets' test */
        t->n_reachable = reach_mark(g, &sr, fol, hpp, mask,
                                    o->flags & DOM_VISUALVM_SUMS ? M_NOREACH : 0, o->held);
        free(fol);
        fol = NULL;
        if (t->n_reachable == UINT32_MAX) {
            free(lbits);
            goto nomem;
        }
        if (unr) {
            sr = sroots_make(g, mask, o);
            fol = lbits;
            counted = 1;
        } else {
            src = mask;
        }
        /* the link edges, into reached objects only unless unreached ones refer */
        et = (etest){NULL, NULL, lbits, src, NULL, NULL, NULL, 0, NULL, NULL};
    }
    if (!counted && !(fol = follow_bits(g, &et, s.dfnum, src, xe.has ? &xe : NULL, hpp))) {
        free(et.pre);
        goto nomem;
    }
    for (uint32_t i = 0; i < sr.n_entries; i++) {
        node_ix r = sroots_get(&sr, i);
        if (r != GRAPH_NONE)
            s.dfnum[r] |= C_ROOT;
    }
    /* Vertex arrays sized by the nodes that may get a number (pages never touched stay
     * unallocated when fewer are reached); the outside nodes (sroots_get's) are marked in
     * the same pass. */
    int vvm = o->link && (o->flags & DOM_VISUALVM_SUMS);
    if (vvm && sr.outside) {
        /* VisualVM's sums with unreached referrers: every link edge is counted in C_INS and
         * every node outside the reach set is a C_ROOT, so an object without C_ROOT and with
         * one link edge in is reached, and its one referrer will be its idom (refs_build;
         * undone in the node pass below for an object the DFS never meets) */
        s.amb = err_calloc((size_t)n / 64 + 1, sizeof *s.amb);
        if (!s.amb)
            goto nomem;
    }
    node_part np[2] = {{s.dfnum, sr.outside, mask, s.amb != NULL, NULL, NULL, NULL, 0, 0, 0},
                       {s.dfnum, sr.outside, mask, s.amb != NULL, NULL, NULL, NULL, 0, 0, 0}};
    int two = dom_split(n);
    node_halves(np, n, two);
    par_two(node_count, &np[0], &np[1], two);
    size_t k = 2 + np[0].k + np[1].k;
    /* a leaf by its edges is numbered when its hop is the first way to its target (dfs):
     * once per target at most */
    if (hpp)
        k += 2 * (size_t)g->n_classes;
    s.vert = err_mallocarray(k, sizeof *s.vert);
    s.par = err_mallocarray(k, sizeof *s.par);
    s.sb = err_malloc(k);
    s.semi = err_mallocarray(k, sizeof *s.semi);
    if (!s.vert || !s.par || !s.sb || !s.semi)
        goto nomem;
    /* semi is written in order (numbering, then Lengauer-Tarjan's pass downwards) and read
     * at random: past the memory limit it goes to a file before the arrays written at
     * random do (base/spill), moved by this thread only, which writes it */
    spill_cold_mine(s.semi);
    /* A byte per vertex that may give its number back, about twice what the hung list
     * takes on Java heaps: one block from the start, so that no outgrown copies are left
     * behind where an adaptive mmap threshold puts blocks this size on the heap (pages
     * never written cost nothing) */
    s.hung.cap = k + 5;
    if (!(s.hung.b = err_malloc(s.hung.cap)))
        goto nomem;
    if ((st = dfs(g, &sr, fol, xe.has ? &xe : NULL, hpp, &s, err)) != LR_OK)
        goto done;
    /* vert held the DFS stack (as deep as its path went: a long single-referrer chain is
     * open to its end before it gives its numbers back); from here on only the numbers
     * still held, so its tail is handed back (kept as it is if that fails) */
    if (s.nv + (size_t)2 < k) {
        uint32_t *vv = err_reallocarray(s.vert, (size_t)s.nv + 2, sizeof *s.vert);
        if (vv)
            s.vert = vv;
    }
    free(s.sb);
    free(s.esc.v);
    free(s.runs.v);
    free(s.carry);
    s.sb = NULL;
    s.esc.v = s.runs.v = NULL;
    s.carry = NULL;
    if (!vvm) {
        free(fol); /* else the link edges again for tree_marks */
        fol = NULL;
    }
    uint32_t nv = s.nv;
    if (!o->link)
        t->n_reachable = nv + s.n_leaves;
    /* the counts go where label will be: vert below the hung list is free until then */
    st = preds_pack(&s.pairs, nv, s.vert, &psrc, &n_psrc, err);
    free(s.pairs.b);
    s.pairs.b = NULL;
    if (st != LR_OK)
        goto done;
    spill_cold(psrc); /* read, in order, from here on */
    if (!(s.cur = err_mallocarray((size_t)nv + 2, sizeof *s.cur)))
        goto nomem;
    /* vert is rebuilt from dfnum afterwards: its array serves as label meanwhile, and cur
     * (the packing's counts) as the buckets, then idom. */
    uint32_t *anc = s.par, *label = s.vert, *idom = s.cur;
    lt_run(nv, anc, s.semi, label, idom, psrc, n_psrc);

    /* ---- Step 4: results in node space ---- */
    free(psrc);
    psrc = NULL;
    free(s.semi);
    s.semi = NULL;
    free(s.par);
    s.par = NULL;
    isv = err_calloc((size_t)n / 64 + 1, sizeof *isv); /* nodes that had a DFS number */
    if (!isv)
        goto nomem;
    /* Leaves and unreachable nodes take their result in a pass over the nodes, which also
     * rebuilds vert (an unreached referrer's entry marked V_OUT); the vertices take theirs
     * in a pass over the numbers, where the loads of one vertex do not wait on those of the
     * previous one (in node order each vertex's idom number, then that number's node, were
     * two dependent cache misses). */
    uint32_t *vert = s.vert, *dfnum = s.dfnum;
    node_part rp[2] = {{dfnum, NULL, mask, 0, s.amb, vert, isv, 0, 0, 0},
                       {dfnum, NULL, mask, 0, s.amb, vert, isv, 0, 0, 0}};
    two = dom_split(n);
    node_halves(rp, n, two);
    par_two(node_result, &rp[0], &rp[1], two);
    /* the given-back vertices' bits beside the vertices' results (neither reads what the
     * other writes) */
    res_part rs[2] = {{&s.hung, isv, vert, s.cur, dfnum, nv, 0},
                      {&s.hung, isv, vert, s.cur, dfnum, nv, 1}};
    if (dom_split(n)) {
        par_two(res_run, &rs[0], &rs[1], 1);
    } else {
        res_run(&rs[0]);
        res_run(&rs[1]);
    }
    t->idom = dfnum;
    s.dfnum = NULL;
    free(s.cur);
    s.cur = NULL;
    int over = 0;
    st = close_sums(g, o, hpp, t, mask, fol, s.amb, isv, vert, nv, &s.hung,
                    narrow_may_fit(g, o), &over, err);
    if (st == LR_OK && over) {
        /* a size past 32 bits: the close again in 64 (tree_marks starts from the reach
         * marks alone, so it reads every node's edges) */
        free(t->retained32);
        t->retained32 = NULL;
        dom_narrow_reruns++;
        for (node_ix x = 0; mask && x < n; x++)
            mask[x] &= M_REACHED | M_NOREACH;
        st = close_sums(g, o, hpp, t, mask, fol, NULL, isv, vert, nv, &s.hung, 0,
                        &over, err);
    }
    goto done;
nomem:
    st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
done:
    hops_fini(&hp);
    free(xe.has);
    free(fol);
    free(mask);
    free(isv);
    free(psrc);
    free(s.dfnum);
    free(s.vert);
    free(s.par);
    free(s.cur);
    free(s.semi);
    free(s.pairs.b);
    free(s.hung.b);
    free(s.amb);
    free(s.sb);
    free(s.esc.v);
    free(s.runs.v);
    free(s.carry);
    if (st != LR_OK)
        dom_free(t);
    return st;
}
/* ---- Per-class retained sizes without double counting ----
 * Walks the dominator tree top-down with an explicit stack, keeping per class the number of
 * open ancestors of that class: an instance is summed only when that number is zero, so a
 * class's total never counts bytes twice (DevTools calculateClassesRetainedSize). */
static lr_status class_walk(const graph *g, const dom_tree *t, uint64_t *retained,
                            uint32_t *count, uint64_t *per_node, lr_error *err);

lr_status dom_class_retained(const graph *g, const dom_tree *t, uint64_t *retained,
                             uint32_t *count, lr_error *err)
{
    return class_walk(g, t, retained, count, NULL, err);
}

lr_status dom_class_top(const graph *g, const dom_tree *t, uint64_t *per_node, lr_error *err)
{
    return class_walk(g, t, NULL, NULL, per_node, err);
}

/* Both of the above: per-class sums and/or per-node "counted" retained sizes. */
static lr_status class_walk(const graph *g, const dom_tree *t, uint64_t *retained,
                            uint32_t *count, uint64_t *per_node, lr_error *err)
{
    uint32_t n = t->n, nc = g->n_classes;
    if (n >= 0x80000000u)
        return LR_FAIL(err, LR_ERR_LIMIT, "dominators: %u nodes is too many", n);
    if (retained)
        memset(retained, 0, (size_t)nc * sizeof *retained);
    if (count)
        memset(count, 0, (size_t)nc * sizeof *count);
    if (per_node)
        memset(per_node, 0, (size_t)n * sizeof *per_node);
    /* Children CSR by parent, parent index n standing for the super-root. */
    uint32_t *first = err_calloc((size_t)n + 2, sizeof *first);
    uint32_t *kids = err_mallocarray((size_t)n + 1, sizeof *kids);
    uint32_t *stk = err_mallocarray((size_t)n + 1, sizeof *stk);
    uint32_t *open = err_calloc(nc ? nc : 1, sizeof *open);
    lr_status st = LR_OK;
    if (!first || !kids || !stk || !open) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
        goto done;
    }
    for (uint32_t x = 0; x < n; x++) {
        node_ix d = t->idom[x];
        if (d == GRAPH_NONE)
            continue;
        first[(d == DOM_SUPER_ROOT ? n : d) + 1]++;
    }
    for (uint32_t x = 0; x <= n; x++)
        first[x + 1] += first[x];
    for (uint32_t x = 0; x < n; x++) {
        node_ix d = t->idom[x];
        if (d != GRAPH_NONE)
            kids[first[d == DOM_SUPER_ROOT ? n : d]++] = x;
    }
    for (uint32_t x = n + 1; x > 0; x--)
        first[x] = first[x - 1];
    first[0] = 0;
    /* Stack entries are a node x (enter) or ~x (leave, high bit set; n < 2^31 is checked
     * above). A node's leave entry replaces its enter entry, so each node holds at most one
     * slot and the stack never exceeds N entries. */
    uint32_t sp = 0;
    for (uint32_t i = first[n]; i < first[n + 1]; i++)
        stk[sp++] = kids[i];
    while (sp > 0) {
        uint32_t x = stk[--sp];
        if (x >= 0x80000000u) {
            class_ix c = graph_node_class(g, ~x);
            if (c < nc)
                open[c]--;
            continue;
        }
        class_ix c = graph_node_class(g, x);
        if (c < nc) {
            if (count)
                count[c]++;
            if (open[c] == 0) {
                if (retained)
                    retained[c] += dom_retained(t, x);
                if (per_node)
                    per_node[x] = dom_retained(t, x);
            }
            open[c]++;
        }
        stk[sp++] = ~x;
        for (uint32_t i = first[x]; i < first[x + 1]; i++)
            stk[sp++] = kids[i];
    }
done:
    free(first);
    free(kids);
    free(stk);
    free(open);
    return st;
}
