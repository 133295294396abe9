/* SPDX-License-Identifier: Apache-2.0 */
/* devtools.c: Chrome DevTools' heap-snapshot numbers (analysis layer), prefix devtools_.
 * Ports the parts of HeapSnapshot.ts (heap-snapshot-toolkit 1.1.3) that decide the Summary
 * view: markPageOwnedNodes, computeIsEssentialEdge, calculateDominatorsAndRetainedSizes
 * (Lengauer-Tarjan 1979, "simple" eval/link with path compression, iterative DFS, 1-based
 * vertex numbers with 0 as "none"), buildDominatedNodes, calculateDistances (two BFS passes
 * with the JS filter) and getAggregatesByClassKey. The port keeps DevTools' visiting orders,
 * including how orphans and unreachable cliques are attached to the root, because those
 * choices change the numbers. Cost: O((N+E) log N). Two threads mark the essential edges,
 * by halves of the edge range (the results do not depend on the split); the strings are
 * tested once for the ephemeron form, so no edge name is read back from the input when none
 * has it. Memory peaks in Lengauer-Tarjan at five uint32 arrays of N plus the retainer lists
 * as LEB128 deltas (about 1.2 bytes per essential retainer on V8 heaps, where the retainers
 * of one node are mostly neighbours in node order); afterwards idom and retained are held
 * with either the dominated-nodes listing or the distances, one after the other (20 bytes
 * per node, plus the BFS queue's waiting part in blocks). Every array is freed as soon as
 * its phase ends, so idom and retained never coexist with the Lengauer-Tarjan state.
 * Spec: docs/formats/v8.md. */
#include "analysis/devtools.h"
#include "base/varint.h"
#include "base/hash.h"
#include "base/hmap.h"
#include "base/search.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- node roles (first meta entry with a name, as DevTools' indexOf) ---- */

typedef struct dtroles {
    int hidden, array, synthetic;
} dtroles;

static int type_index(const graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_types && i < 32; i++)
        if (g->type_names[i] && strcmp(g->type_names[i], name) == 0)
            return (int)i;
    return -1;
}

/* A fresh per-node or per-edge array that the pass writes throughout: on huge pages it
 * costs one page fault per 2 MB instead of per 4 KB (work stacks, often nearly empty, stay
 * on small pages). */
static void *dense(void *p, size_t bytes)
{
    graph_hint_huge(p, bytes);
    return p;
}

static inline int kind_of(const graph *g, edge_ix e) { return GRAPH_EDGE_KIND(g->edge_kind[e]); }

static inline int is_doc_trees_root(const graph *g, const dtroles *r, node_ix v)
{
    return r->synthetic >= 0 && g->node_type[v] == r->synthetic &&
           strcmp(graph_str(g, g->node_name[v]), "(Document DOM trees)") == 0;
}

/* JSHeapSnapshot.isUserRoot: any non-synthetic node, or "(Document DOM trees)". */
static inline int is_user_root(const graph *g, const dtroles *r, node_ix v)
{
    return r->synthetic < 0 || g->node_type[v] != r->synthetic || is_doc_trees_root(g, r, v);
}

/* ---- WeakMap ephemeron edge names ---- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Matches DevTools' ephemeron edge-name pattern
 *   /^\d+( \/ part of key \(.*? @\d+\) -> value \(.*? @\d+\) pair in WeakMap
 *    \(table @(\d+)\))$/
 * (the last ')' closes the group) without a regex engine: the anchored tail fixes the table
 * and value ids, so only the key part needs a search. *dup gets the duplicated part, *table
 * the table id. */
static int weakmap_edge(const char *s, const char **dup, uint64_t *table)
{
    const char *p = s;
    if (!is_digit(*p))
        return 0;
    while (is_digit(*p))
        p++;
    const char *d = p;
    static const char KEY[] = " / part of key (";
    if (p[0] != ' ' || p[1] != '/' || strncmp(p, KEY, sizeof KEY - 1) != 0) /* most fail here */
        return 0;
    p += sizeof KEY - 1;
    const char *end = p + strlen(p);
    if (end - p < 1 || end[-1] != ')')
        return 0;
    const char *q = end - 1, *te = q;
    while (q > p && is_digit(q[-1]))
        q--;
    if (q == te)
        return 0;
    uint64_t t = 0;
    for (const char *z = q; z < te; z++)
        t = t > UINT64_MAX / 10 - 10 ? UINT64_MAX : t * 10 + (uint64_t)(*z - '0');
    static const char PAIR[] = ") pair in WeakMap (table @";
    size_t pl = sizeof PAIR - 1;
    if ((size_t)(q - p) < pl || memcmp(q - pl, PAIR, pl) != 0)
        return 0;
    q -= pl;
    const char *ve = q;
    while (q > p && is_digit(q[-1]))
        q--;
    if (q == ve || q - p < 2 || q[-1] != '@' || q[-2] != ' ')
        return 0;
    const char *vend = q - 2; /* end of the value's free text */
    for (const char *z = p; z < vend; z++) {
        unsigned char ch = (unsigned char)*z;
        if (ch == '\n' || ch == '\r')
            return 0;
        if (ch == 0xe2 && (unsigned char)z[1] == 0x80 &&
            ((unsigned char)z[2] == 0xa8 || (unsigned char)z[2] == 0xa9))
            return 0;
    }
    static const char VAL[] = ") -> value (";
    size_t vl = sizeof VAL - 1;
    for (const char *k = p; k + 2 < vend; k++) {
        if (k[0] != ' ' || k[1] != '@' || !is_digit(k[2]))
            continue;
        const char *z = k + 2;
        while (is_digit(*z))
            z++;
        if ((size_t)(vend - z) >= vl && memcmp(z, VAL, vl) == 0) {
            *dup = d;
            *table = t;
            return 1;
        }
    }
    return 0;
}

int devtools_weakmap_edge(const char *name, uint64_t *table)
{
    const char *dup;
    return weakmap_edge(name, &dup, table);
}

int devtools_table_half(const graph *g, node_ix from, edge_ix e)
{
    if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_INTERNAL || g->synthetic_root == GRAPH_NONE)
        return 0;
    const char *s = graph_str(g, from == GRAPH_NONE ? graph_edge_name(g, e)
                                                    : graph_edge_name_from(g, from, e)),
               *dup;
    uint64_t table;
    if (!is_digit(s[0]) || !weakmap_edge(s, &dup, &table))
        return 0;
    return table == graph_node_id(g, from == GRAPH_NONE ? graph_edge_from(g, e) : from);
}

/* Set of duplicated parts of ephemeron edge names seen once (calculateDistances). Every
 * distinct string (a pointer into the graph's strings) is an entry for good; membership is a
 * flag per entry, so a delete is a flag cleared and a re-add a flag set. */
typedef struct pset {
    hmap index;        /* FNV-1a -> entry */
    const char **strs; /* entry -> string */
    uint8_t *in;       /* entry -> currently a member */
    edge_ix *first;    /* entry -> the edge that last added it */
    uint32_t n, cap;
} pset;

static void pset_free(pset *ps)
{
    hmap_free(&ps->index);
    free(ps->strs);
    free(ps->in);
    free(ps->first);
}

/* Set.delete(s) || (Set.add(s), false): returns 1 if s was present (now removed; *first gets
 * the edge e that added it), 0 if it was added by e, -1 when out of memory. */
static int pset_toggle(pset *ps, const char *s, edge_ix e, edge_ix *first)
{
    uint32_t h = hash_fnv32_str(s);
    hmap_it it;
    for (uint32_t x = hmap_first(&ps->index, h, &it); x != HMAP_NONE;
         x = hmap_next(&ps->index, &it)) {
        if (strcmp(ps->strs[x], s) == 0) {
            ps->in[x] ^= 1;
            if (ps->in[x])
                ps->first[x] = e;
            else
                *first = ps->first[x];
            return !ps->in[x];
        }
    }
    if (ps->n == ps->cap) {
        uint32_t cap = ps->cap ? ps->cap * 2 : 1024;
        const char **ns = err_reallocarray(ps->strs, cap, sizeof *ns);
        if (!ns)
            return -1;
        ps->strs = ns;
        uint8_t *ni = realloc(ps->in, cap);
        if (!ni)
            return -1;
        ps->in = ni;
        edge_ix *nf = err_reallocarray(ps->first, cap, sizeof *nf);
        if (!nf)
            return -1;
        ps->first = nf;
        ps->cap = cap;
    }
    if (!hmap_add(&ps->index, h, ps->n))
        return -1;
    ps->strs[ps->n] = s;
    ps->first[ps->n] = e;
    ps->in[ps->n++] = 1;
    return 0;
}

/* JavaScript parseInt(s, 10): 1 and *v, or 0 for NaN. */
static int js_parseint(const char *s, int64_t *v)
{
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    int neg = 0;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (!is_digit(*s))
        return 0;
    int64_t x = 0;
    while (is_digit(*s)) {
        if (x < INT64_MAX / 10 - 10)
            x = x * 10 + (*s - '0');
        s++;
    }
    *v = neg ? -x : x;
    return 1;
}

/* ---- the build ---- */

typedef struct work {
    const graph *g;
    dtroles r;
    node_ix root;
    uint8_t *page;       /* page-owned flag per node */
    uint8_t *essential;  /* bit per edge */
    uint8_t *held;       /* bit per node: it has an essential retainer */
    uint32_t *dom_first; /* dominated nodes CSR: n+1 */
    uint32_t *dom_list;  /* children in the dominator tree */
    uint8_t *wm;         /* per string: 1 no ephemeron name, 2 one (read-only once built) */
    uint32_t n_wm;       /* entries in wm */
    int any_wm;          /* some string has the ephemeron form */
    int paths;           /* devtools_build_paths: parent_edge takes ties by name */
    lr_error *err;
} work;

/* weakmap_edge for the name of edge e out of v. Every string was tested once up front (wm),
 * so when none has the ephemeron form no name is read at all: V8 graphs read edge names
 * back from the input (graph.derive), and internal edges are the most numerous. */
static int weakmap_name(const work *w, node_ix v, edge_ix e, const char **dup, uint64_t *table)
{
    if (!w->any_wm)
        return 0;
    str_ix s = graph_edge_name_from(w->g, v, e);
    if (s < w->n_wm && w->wm[s] == 1)
        return 0;
    return weakmap_edge(graph_str(w->g, s), dup, table);
}

static inline int ess(const work *w, edge_ix e) { return (w->essential[e >> 3] >> (e & 7)) & 1; }

static lr_status nomem(work *w)
{
    return LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory computing DevTools retained sizes");
}

/* markPageOwnedNodes: everything reachable over non-weak edges from the root's shortcut
 * targets and from "(Document DOM trees)". */
static lr_status mark_page_owned(work *w)
{
    const graph *g = w->g;
    uint32_t n = g->n_nodes;
    uint32_t *stack = malloc((size_t)n * sizeof *stack + sizeof *stack);
    w->page = calloc(n, 1);
    if (!stack || !w->page) {
        free(stack);
        return nomem(w);
    }
    uint32_t len = 0;
    node_ix root = w->root;
    for (edge_ix e = g->first_edge[root]; e < g->first_edge[root + 1]; e++) {
        node_ix t = g->edge_to[e];
        int k = kind_of(g, e);
        if (k == GRAPH_EDGE_ELEMENT) {
            if (!is_doc_trees_root(g, &w->r, t))
                continue;
        } else if (k != GRAPH_EDGE_SHORTCUT) {
            continue;
        }
        if (!w->page[t]) /* DevTools may push twice; marking once changes nothing */
            stack[len++] = t;
        w->page[t] = 1;
    }
    while (len) {
        uint32_t v = stack[--len];
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            node_ix t = g->edge_to[e];
            if (w->page[t] || kind_of(g, e) == GRAPH_EDGE_WEAK)
                continue;
            w->page[t] = 1;
            stack[len++] = t;
        }
    }
    free(stack);
    return LR_OK;
}

/* computeIsEssentialEdge for the edges of nodes [v0, v1): sets their bits, and for each
 * target the bit in `held` that says it has an essential retainer. The byte holding edge
 * `shared` (the first edge of the range when another thread owns the byte's lower bits) is
 * collected in *head instead, for the caller to merge. */
typedef struct ess_part {
    work w; /* a copy per part (the wm table is shared read-only) */
    uint32_t v0, v1;
    uint8_t *held;  /* bit per node; the second part's own, ORed in after the join */
    pthread_t th;
    edge_ix shared; /* GRAPH_NONE: no shared byte */
    uint8_t head;
} ess_part;

static void *ess_mark(void *vp)
{
    ess_part *p = vp;
    work *w = &p->w;
    const graph *g = w->g;
    uint8_t *held = p->held;
    edge_ix hb = p->shared == GRAPH_NONE ? GRAPH_NONE : p->shared >> 3;
    for (node_ix v = p->v0; v < p->v1; v++) {
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            int k = kind_of(g, e);
            node_ix t = g->edge_to[e];
            if (k == GRAPH_EDGE_INTERNAL) {
                const char *dup;
                uint64_t table;
                if (weakmap_name(w, v, e, &dup, &table) &&
                    table == graph_node_id(g, v))
                    continue;
            }
            if (k == GRAPH_EDGE_WEAK || t == v)
                continue;
            if (v != w->root) {
                if (k == GRAPH_EDGE_SHORTCUT)
                    continue;
                if (w->page[t] && !w->page[v])
                    continue;
            }
            if ((e >> 3) == hb)
                p->head |= (uint8_t)(1u << (e & 7));
            else
                w->essential[e >> 3] |= (uint8_t)(1u << (e & 7));
            held[t >> 3] |= (uint8_t)(1u << (t & 7));
        }
    }
    return NULL;
}

/* computeIsEssentialEdge for every edge, on two threads over halves of the edges when a
 * second `held` bitmap fits. The reverse lists are built after the DFS (dominators). */
static lr_status essential_edges(work *w)
{
    const graph *g = w->g;
    uint32_t n = g->n_nodes, m = g->n_edges;
    w->essential = calloc((size_t)m / 8 + 1, 1);
    w->held = calloc((size_t)n / 8 + 1, 1);
    if (!w->essential || !w->held)
        return nomem(w);
    ess_part pa = {.w = *w, .v0 = 0, .v1 = n, .held = w->held, .shared = GRAPH_NONE};
    ess_part pb = pa;
    pb.held = NULL; /* pb owns only what it allocates below */
    int threaded = 0;
    if (m >= (1u << 14)) { /* small graphs too, so that every test covers the split */
        /* the first node whose edges start at or after the middle edge */
        uint32_t lo;
        SEARCH_LOWER_BOUND(uint32_t, 0, n, g->first_edge[search_mid] < m / 2, lo);
        pb.v0 = pa.v1 = lo;
        pb.held = calloc((size_t)n / 8 + 1, 1);
        edge_ix e0 = g->first_edge[lo];
        pb.shared = (e0 & 7) ? e0 : GRAPH_NONE;
        if (pb.held && pthread_create(&pb.th, NULL, ess_mark, &pb) == 0)
            threaded = 1;
    }
    if (!threaded)
        pa.v1 = n;
    ess_mark(&pa);
    if (threaded) {
        pthread_join(pb.th, NULL);
        if (pb.shared != GRAPH_NONE)
            w->essential[pb.shared >> 3] |= pb.head;
        for (size_t i = 0; i <= (size_t)n / 8; i++)
            w->held[i] |= pb.held[i];
    }
    free(pb.held);
    return LR_OK;
}

/* calculateDominatorsAndRetainedSizes. Vertices are ordinal + 1; 0 means none.
 * Memory is a peak of the whole DevTools pass, so the Lengauer-Tarjan state is five arrays of
 * N and one byte stream: a vertex's DFS parent waits in its ancestor slot, tagged LT_UNLINKED,
 * until the vertex is linked; bucket lists are chained through dom (a vertex's dom is only
 * written when it is taken) with their heads in the labels of vertices not linked yet; path
 * compression reverses the ancestor pointers on the way up instead of using a stack. The DFS
 * keeps edge cursors only for the vertices on its path. Each vertex's essential retainers
 * but its DFS parent (whose number starts its semidominator) are listed once, in the order
 * the semidominator pass takes the vertices, as LEB128 numbers: the first retainer's distance
 * from the vertex (zigzag), then the growth from the previous one (retainers come in node
 * order). On V8 heaps that is about 1.2 bytes per retainer instead of 4. */
#define LT_UNLINKED 0x80000000u

static inline int lt_linked(uint32_t a) { return a != 0 && !(a & LT_UNLINKED); }

/* EVAL(x): the vertex of smallest semi on x's path in the link forest, compressing it. */
static inline uint32_t lt_eval(uint32_t *anc, uint32_t *label, const uint32_t *semi, uint32_t x)
{
    if (!lt_linked(anc[x]))
        return x;
    uint32_t y = x, prev = 0;
    while (lt_linked(anc[anc[y]])) {
        uint32_t up = anc[y];
        anc[y] = prev; /* reversed: the way back down */
        prev = y;
        y = up;
    }
    uint32_t a = y; /* original ancestor of the vertex taken next, already compressed */
    while (prev) {
        uint32_t z = prev;
        prev = anc[z];
        if (semi[label[a]] < semi[label[z]])
            label[z] = label[a];
        anc[z] = anc[a];
        a = z;
    }
    return label[x];
}

/* The code of retainer v in the list of t: its distance from the previous one (last), or
 * for the first (last 0) its signed distance from t, zigzagged. Neither is ever 0. */
static inline uint32_t lt_code(uint32_t v, uint32_t t, uint32_t last)
{
    if (last)
        return v - last;
    return v > t ? 2 * (v - t) : 2 * (t - v) - 1;
}

/* DevTools' iterative DFS over essential edges from `start`, numbering vertices in semi and
 * vertex and leaving each one's parent in anc. Edge cursors live on a stack of the path only
 * (*stk, grown as needed). Returns 0, or -1 when out of memory. */
static int lt_dfs(const graph *g, const uint8_t *ess_, uint32_t start, uint32_t *anc,
                  uint32_t *semi, uint32_t *vertex, uint32_t *cnt, edge_ix **stk, size_t *cap)
{
    const uint32_t *fe = g->first_edge;
    const node_ix *to_ = g->edge_to;
    size_t depth = 0;
    uint32_t v = start;
    semi[v] = ++*cnt;
    vertex[*cnt] = v;
    edge_ix e = fe[v - 1];
    for (;;) {
        edge_ix end = fe[v];
        for (; e < end; e++) {
            if (!((ess_[e >> 3] >> (e & 7)) & 1))
                continue;
            uint32_t wv = to_[e] + 1;
            if (semi[wv] != 0)
                continue;
            if (depth == *cap) {
                size_t nc = *cap ? *cap * 2 : 4096;
                edge_ix *ns = realloc(*stk, nc * sizeof *ns);
                if (!ns)
                    return -1;
                *stk = ns;
                *cap = nc;
            }
            (*stk)[depth++] = e + 1; /* where v resumes */
            anc[wv] = v | LT_UNLINKED;
            semi[wv] = ++*cnt;
            vertex[*cnt] = wv;
            v = wv;
            e = fe[v - 1];
            end = fe[v];
            e--; /* the loop's e++ */
        }
        if (depth == 0)
            return 0;
        e = (*stk)[--depth];
        v = anc[v] & ~LT_UNLINKED;
    }
}

static lr_status dominators(work *w, devtools_result *res)
{
    const graph *g = w->g;
    uint32_t n = g->n_nodes;
    if (n >= LT_UNLINKED - 1)
        return LR_FAIL(w->err, LR_ERR_LIMIT, "too many nodes (%u) for DevTools dominators", n);
    size_t al = (size_t)n + 1;
    lr_status s = LR_OK;
    uint32_t *anc = dense(calloc(al, 4), al * 4), *vertex = dense(calloc(al, 4), al * 4);
    uint32_t *semi = dense(calloc(al, 4), al * 4);
    uint32_t *label = NULL, *dom = NULL;
    uint8_t *rs = NULL;
    edge_ix *stk = NULL;
    size_t stk_cap = 0;
    if (!anc || !vertex || !semi) {
        s = nomem(w);
        goto out;
    }
    uint32_t cnt = 0;
    const uint32_t *fe = g->first_edge;
    const uint8_t *ess_ = w->essential;
    const uint8_t *held = w->held;
    const node_ix *to_ = g->edge_to;

    uint32_t r = w->root + 1;
    uint32_t first = n + 1; /* DFS number of the first clique member */
    if (lt_dfs(g, ess_, r, anc, semi, vertex, &cnt, &stk, &stk_cap)) {
        s = nomem(w);
        goto out;
    }
    res->n_unreachable = n - cnt;
    if (cnt < n) {
        /* which nodes those are: the ones not numbered yet (vertex[] is 1-based) */
        res->unreached = malloc(((size_t)n + 63) / 64 * sizeof *res->unreached);
        if (!res->unreached) {
            s = nomem(w);
            goto out;
        }
        memset(res->unreached, 0xff, ((size_t)n + 63) / 64 * sizeof *res->unreached);
        for (uint32_t k = 1; k <= cnt; k++) {
            uint32_t x = vertex[k] - 1;
            res->unreached[x >> 6] &= ~((uint64_t)1 << (x & 63));
        }
    }
    if (cnt < n) {
        /* Orphans: nodes with no essential retainer hang under the root, DFS from each. */
        for (uint32_t v = 1; v <= n; v++) {
            if (semi[v] == 0 && !((held[(v - 1) >> 3] >> ((v - 1) & 7)) & 1)) {
                anc[v] = r | LT_UNLINKED;
                if (lt_dfs(g, ess_, v, anc, semi, vertex, &cnt, &stk, &stk_cap)) {
                    s = nomem(w);
                    goto out;
                }
            }
        }
    }
    free(stk);
    stk = NULL;
    if (cnt < n) {
        /* Cliques retained only by each other: attached to the root one by one (nothing
         * numbered earlier retains a clique member). */
        first = cnt + 1;
        for (uint32_t v = 1; v <= n; v++) {
            if (semi[v] == 0) {
                anc[v] = r | LT_UNLINKED;
                semi[v] = ++cnt;
                vertex[cnt] = v;
            }
        }
    }
    free(w->held);
    w->held = NULL;

    /* The retainer lists: bytes per vertex (dom), then where each list starts in the order
     * the semidominator pass takes the vertices (decreasing DFS number), then the lists. The
     * root is never taken: its retainers are left out. label holds the last retainer listed
     * per vertex; a retainer with several edges to one vertex is listed once. */
    label = dense(calloc(al, 4), al * 4);
    dom = dense(calloc(al, 4), al * 4);
    if (!label || !dom) {
        s = nomem(w);
        goto out;
    }
    for (uint32_t v = 1; v <= n; v++) {
        for (edge_ix e = fe[v - 1]; e < fe[v]; e++) {
            if (!((ess_[e >> 3] >> (e & 7)) & 1))
                continue;
            uint32_t t = to_[e] + 1;
            if (t == r || (anc[t] & ~LT_UNLINKED) == v || label[t] == v)
                continue;
            dom[t] += varint_len32(lt_code(v, t, label[t]));
            label[t] = v;
        }
    }
    uint64_t total = 0;
    for (uint32_t i = cnt; i >= 2; i--) {
        uint32_t t = vertex[i], c = dom[t];
        dom[t] = (uint32_t)total;
        total += c;
        if (total > UINT32_MAX) {
            s = LR_FAIL(w->err, LR_ERR_LIMIT, "too many retainers for DevTools dominators");
            goto out;
        }
    }
    rs = dense(malloc((size_t)total + 8), (size_t)total);
    if (!rs) {
        s = nomem(w);
        goto out;
    }
    memset(label, 0, al * 4);
    for (uint32_t v = 1; v <= n; v++) {
        for (edge_ix e = fe[v - 1]; e < fe[v]; e++) {
            if (!((ess_[e >> 3] >> (e & 7)) & 1))
                continue;
            uint32_t t = to_[e] + 1;
            if (t == r || (anc[t] & ~LT_UNLINKED) == v || label[t] == v)
                continue;
            dom[t] = (uint32_t)(varint_put(rs + dom[t], lt_code(v, t, label[t])) - rs);
            label[t] = v;
        }
    }
    free(w->essential);
    w->essential = NULL;
    /* Labels start as the vertex itself, and a vertex not linked yet keeps the head of its
     * bucket in its label (EVAL never reads an unlinked vertex's label): a label equal to its
     * vertex is an empty bucket. A bucket is emptied before its vertex is taken, since its
     * vertex's first child is taken just before it; DevTools leaves a clique member's dom at
     * 0 (its semidominator, another member, has no tree children to empty its bucket), which
     * the last pass turns into the root, so members go in no bucket. A vertex's semi is its
     * DFS number until it is taken, so an earlier retainer (EVAL gives it back) offers its
     * number; the DFS parent's number starts the minimum, except for the vertices the DFS
     * started from: an orphan's is the root's (as DevTools sets it), a clique member's its
     * own. */
    for (uint32_t v = 0; v <= n; v++)
        label[v] = v;
    uint32_t *lend = dom;

    const uint8_t *k = rs;
    for (uint32_t i = cnt; i >= 2; i--) {
        uint32_t wv = vertex[i];
        uint32_t pw = anc[wv] & ~LT_UNLINKED;
        if (i < first)
            semi[wv] = semi[pw];
        uint32_t last = 0;
        for (const uint8_t *end = rs + lend[wv]; k < end;) {
            uint32_t c = (uint32_t)varint_get(&k), v;
            if (last)
                v = last + c;
            else
                v = (c & 1) ? wv - (c + 1) / 2 : wv + c / 2;
            last = v;
            uint32_t u = lt_eval(anc, label, semi, v);
            if (semi[u] < semi[wv])
                semi[wv] = semi[u];
        }
        if (i >= first) {
            dom[wv] = 0;
        } else {
            uint32_t b = vertex[semi[wv]];
            dom[wv] = label[b] == b ? 0 : label[b]; /* bucket link until its dom is known */
            label[b] = wv;
        }
        if (label[wv] != wv) { /* not met (see above); DevTools would leave these doms 0 */
            for (uint32_t v = label[wv], nx; v; v = nx) {
                nx = dom[v];
                dom[v] = 0;
            }
            label[wv] = wv;
        }
        anc[wv] = pw; /* link(parent, wv) */
        if (label[pw] != pw) {
            for (uint32_t v = label[pw], nx; v; v = nx) {
                nx = dom[v];
                uint32_t u = lt_eval(anc, label, semi, v);
                dom[v] = semi[u] < semi[v] ? u : pw;
            }
            label[pw] = pw;
        }
    }
    free(anc);
    free(label);
    free(rs);
    anc = label = NULL;
    rs = NULL;
    dom[0] = dom[r] = r;
    for (uint32_t i = 2; i <= cnt; i++) {
        uint32_t wv = vertex[i];
        if (dom[wv] != vertex[semi[wv]])
            dom[wv] = dom[dom[wv]];
    }
    free(semi);
    semi = NULL;

    /* idom by ordinal, in place: dom[o + 1] is read before dom[o + 1] is overwritten. */
    for (uint32_t o = 0; o < n; o++)
        dom[o] = dom[o + 1] - 1;
    res->idom = dom;
    dom = NULL;
    res->retained = dense(malloc((size_t)n * sizeof *res->retained + 1), (size_t)n * 8);
    if (!res->retained) {
        s = nomem(w);
        goto out;
    }
    for (uint32_t o = 0; o < n; o++)
        res->retained[o] = graph_node_size(g, o);
    for (uint32_t i = cnt; i > 1; i--) {
        uint32_t o = vertex[i] - 1;
        res->retained[res->idom[o]] += res->retained[o];
    }
    res->total = res->retained[w->root];
out:
    free(anc);
    free(vertex);
    free(semi);
    free(label);
    free(dom);
    free(rs);
    free(stk);
    return s;
}

/* buildDominatedNodes: children lists of the dominator tree (the root excluded). */
static lr_status dominated_nodes(work *w, const devtools_result *res)
{
    uint32_t n = w->g->n_nodes;
    w->dom_first = dense(calloc((size_t)n + 1, sizeof *w->dom_first), (size_t)n * 4);
    w->dom_list = dense(malloc((size_t)n * sizeof *w->dom_list + 1), (size_t)n * 4);
    if (!w->dom_first || !w->dom_list)
        return nomem(w);
    for (uint32_t o = 0; o < n; o++)
        if (o != w->root)
            w->dom_first[res->idom[o] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        w->dom_first[i + 1] += w->dom_first[i];
    /* dom_first[p] is p's fill cursor; one shift afterwards restores the starts. */
    for (uint32_t o = 0; o < n; o++)
        if (o != w->root)
            w->dom_list[w->dom_first[res->idom[o]]++] = o;
    memmove(w->dom_first + 1, w->dom_first, (size_t)n * sizeof *w->dom_first);
    w->dom_first[0] = 0;
    return LR_OK;
}

/* The JSHeapSnapshot.calculateDistances edge filter; called only for unvisited targets. When
 * it passes the second half of a WeakMap entry met, *first gets the first half's edge. */
static int distance_filter(work *w, pset *pending, node_ix v, edge_ix e, int *oom,
                           edge_ix *first)
{
    const graph *g = w->g;
    int k = kind_of(g, e);
    int numeric = GRAPH_EDGE_NAME_IS_INDEX(k);
    if (w->r.hidden >= 0 && g->node_type[v] == w->r.hidden && !numeric &&
        strcmp(graph_str(g, graph_edge_name_from(g, v, e)), "sloppy_function_map") == 0 &&
        strcmp(graph_str(g, g->node_name[v]), "system / NativeContext") == 0)
        return 0;
    if (w->r.array >= 0 && g->node_type[v] == w->r.array &&
        strcmp(graph_str(g, g->node_name[v]), "(map descriptors)") == 0) {
        int64_t ix;
        int ok;
        if (numeric) {
            ix = graph_edge_name_from(g, v, e);
            ok = 1;
        } else {
            ok = js_parseint(graph_str(g, graph_edge_name_from(g, v, e)), &ix);
        }
        if (!ok)
            return 1; /* NaN < 2 is false, NaN % 3 !== 1 is true */
        return ix < 2 || ix % 3 != 1;
    }
    if (k == GRAPH_EDGE_INTERNAL) {
        const char *dup;
        uint64_t table;
        if (weakmap_name(w, v, e, &dup, &table)) {
            int t = pset_toggle(pending, dup, e, first);
            if (t < 0) {
                *oom = 1;
                return 0;
            }
            if (t == 0)
                return 0;
        }
    }
    return 1;
}

/* The BFS queue: a FIFO of fixed-size blocks, each freed once read. On V8 heaps the part
 * waiting at once stays well under the node count (about 40% at its widest), so this holds
 * less than one array of N would. */
#define FIFO_BLOCK 65536u
typedef struct fblock {
    struct fblock *next;
    uint32_t v[FIFO_BLOCK];
} fblock;

typedef struct fifo {
    fblock *head, *tail, *spare;
    uint32_t hi, ti; /* next read in head, next write in tail */
} fifo;

static int fifo_push(fifo *q, uint32_t x)
{
    if (!q->tail || q->ti == FIFO_BLOCK) {
        fblock *b = q->spare ? q->spare : malloc(sizeof *b);
        if (!b)
            return 0;
        q->spare = NULL;
        b->next = NULL;
        if (q->tail)
            q->tail->next = b;
        else
            q->head = b;
        q->tail = b;
        q->ti = 0;
    }
    q->tail->v[q->ti++] = x;
    return 1;
}

/* Takes the next entry into *x; 0 when empty. */
static int fifo_pop(fifo *q, uint32_t *x)
{
    if (q->head == q->tail && q->hi == q->ti)
        return 0;
    if (q->hi == FIFO_BLOCK) {
        fblock *b = q->head;
        q->head = b->next;
        q->hi = 0;
        free(q->spare);
        q->spare = b;
    }
    *x = q->head->v[q->hi++];
    return 1;
}

static void fifo_free(fifo *q)
{
    for (fblock *b = q->head, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    free(q->spare);
    memset(q, 0, sizeof *q);
}

/* Which of equally short ways in a node's path takes (graph.ties_by_name): of the nodes one
 * node reaches first, those it reaches through edges listed in a hash's order are queued in
 * name order (graph_order_ties), so each level's queue order does not depend on the hash, and
 * of two such edges to one target the first by name is the parent edge. The distances are
 * those of edge order: a level's nodes are the same in any order, and an ephemeron's value
 * still waits for the second of its two edges. */
typedef struct ties {
    edge_ix *v;
    uint32_t n, cap;
} ties;

static lr_status bfs(work *w, int32_t *dist, edge_ix *pe, fifo *queue, pset *pending)
{
    const graph *g = w->g;
    int oom = 0;
    node_ix v;
    ties tie = {0};
    lr_status s = LR_OK;
    while (fifo_pop(queue, &v)) {
        int32_t d = dist[v] + 1;
        edge_ix e0 = g->first_edge[v], e1 = g->first_edge[v + 1];
        int sorted = w->paths && g->ties_by_name && e1 - e0 > 1;
        uint32_t n_ties = 0;
        tie.n = 0;
        if (sorted && 5 * (uint64_t)(e1 - e0) > tie.cap) {
            uint64_t want = 5 * (uint64_t)(e1 - e0) < 640 ? 640 : 5 * (uint64_t)(e1 - e0);
            edge_ix *t = want <= UINT32_MAX ? realloc(tie.v, want * sizeof *t) : NULL;
            if (!t) {
                s = nomem(w);
                goto out;
            }
            tie.v = t;
            tie.cap = (uint32_t)want;
        }
        for (edge_ix e = e0; e < e1; e++) {
            if (kind_of(g, e) == GRAPH_EDGE_WEAK)
                continue;
            node_ix t = g->edge_to[e];
            if (dist[t] != DEVTOOLS_NO_DISTANCE) {
                /* a second edge of v's to a target v reached: the first by name stays */
                if (sorted && dist[t] == d && pe[t] >= e0 && pe[t] < e &&
                    GRAPH_EDGE_TIES_BY_NAME(kind_of(g, e)) &&
                    GRAPH_EDGE_TIES_BY_NAME(kind_of(g, pe[t])) &&
                    graph_edge_name_cmp(g, v, e, pe[t]) < 0)
                    pe[t] = e;
                continue;
            }
            edge_ix first = GRAPH_NONE;
            if (!distance_filter(w, pending, v, e, &oom, &first)) {
                if (oom) {
                    s = nomem(w);
                    goto out;
                }
                continue;
            }
            dist[t] = d;
            pe[t] = e;
            /* A WeakMap value's distance is its second half's (DevTools), its path the
             * nearer half's, as the Retainers view sorted by distance lists them, and the
             * key's at equal distances: the value lives as long as its key (the dominators'
             * view), so a path through the table would blame the map. */
            if (first != GRAPH_NONE && first < g->n_edges) {
                node_ix a = graph_edge_from(g, first);
                int key_first = !devtools_table_half(g, a, first);
                if (dist[a] < dist[v] || (dist[a] == dist[v] && key_first))
                    pe[t] = first;
            }
            if (sorted) {
                n_ties += GRAPH_EDGE_TIES_BY_NAME(kind_of(g, e));
                tie.v[tie.n++] = e;
            } else if (!fifo_push(queue, t)) {
                s = nomem(w);
                goto out;
            }
        }
        if (n_ties > 1) {
            /* names are read only here, for the few nodes that need them: reading each as
             * it is met costs more (most nodes reach one such edge or none) */
            for (uint32_t i = 0; i < tie.n; i++) /* the edge that stayed */
                tie.v[i] = pe[g->edge_to[tie.v[i]]];
            graph_order_ties(g, v, tie.v, NULL, tie.n, tie.v + (e1 - e0));
        }
        for (uint32_t i = 0; i < tie.n; i++)
            if (!fifo_push(queue, g->edge_to[tie.v[i]])) {
                s = nomem(w);
                goto out;
            }
    }
out:
    free(tie.v);
    return s;
}

/* calculateDistances: user roots at 1 first, then the rest from the root. */
static lr_status distances(work *w, devtools_result *res)
{
    const graph *g = w->g;
    uint32_t n = g->n_nodes;
    node_ix root = w->root;
    res->distance = dense(malloc((size_t)n * sizeof *res->distance + 1), (size_t)n * 4);
    res->parent_edge = dense(malloc((size_t)n * sizeof *res->parent_edge + 1), (size_t)n * 4);
    fifo queue = {0};
    pset pending = {0};
    lr_status s = LR_OK;
    if (!res->distance || !res->parent_edge) {
        s = nomem(w);
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        res->distance[i] = DEVTOOLS_NO_DISTANCE;
        res->parent_edge[i] = GRAPH_NONE;
    }
    uint32_t len = 0;
    for (edge_ix e = g->first_edge[root]; e < g->first_edge[root + 1]; e++) {
        node_ix t = g->edge_to[e];
        if (is_user_root(g, &w->r, t)) {
            if (res->distance[t] != 1)
                res->parent_edge[t] = e;
            res->distance[t] = 1;
            if (!fifo_push(&queue, t)) {
                s = nomem(w);
                goto out;
            }
            len++;
        }
    }
    if ((s = bfs(w, res->distance, res->parent_edge, &queue, &pending)))
        goto out;
    res->distance[root] = len > 0 ? DEVTOOLS_SYSTEM_DISTANCE : 0;
    res->parent_edge[root] = GRAPH_NONE;
    if (!fifo_push(&queue, root)) {
        s = nomem(w);
        goto out;
    }
    s = bfs(w, res->distance, res->parent_edge, &queue, &pending);
out:
    fifo_free(&queue);
    pset_free(&pending);
    return s;
}

/* buildAggregates + calculateClassesRetainedSize + the public-key map; the distances come
 * after (class_distances), once the dominated-nodes listing is freed. */
static lr_status aggregates(work *w, const str_ix *class_keys, devtools_result *res)
{
    const graph *g = w->g;
    uint32_t n = g->n_nodes, nc = g->n_classes;
    lr_status s = LR_OK;
    uint32_t *row = malloc(((size_t)nc + 1) * sizeof *row);
    uint8_t *seen = calloc((size_t)nc + 1, 1);
    uint32_t *list = malloc(((size_t)n + 1) * sizeof *list);
    /* A class is pushed at most once while seen, so both stacks stay within nc + 1. */
    int64_t *sizes = malloc(((size_t)nc + 2) * sizeof *sizes);
    uint32_t *keys = malloc(((size_t)nc + 1) * sizeof *keys);
    res->classes = calloc((size_t)nc + 1, sizeof *res->classes);
    if (!row || !seen || !list || !sizes || !keys || !res->classes) {
        s = nomem(w);
        goto out;
    }
    for (uint32_t c = 0; c < nc; c++)
        row[c] = UINT32_MAX;
    for (node_ix v = 0; v < n; v++) {
        uint32_t sz = graph_node_size(g, v);
        class_ix c = graph_node_class(g, v);
        if (!sz || c >= nc)
            continue;
        devtools_class *a;
        if (row[c] == UINT32_MAX) {
            row[c] = res->n_classes++;
            a = &res->classes[row[c]];
            a->cls = c;
            a->key = class_keys ? class_keys[c] : g->classes[c].name;
        } else {
            a = &res->classes[row[c]];
        }
        a->count++;
        a->self += sz;
    }
    /* Dominator-tree walk; a class is "seen" while one of its counted instances with
     * children is on the path from the root. */
    uint32_t len = 0, ns = 0;
    list[len++] = w->root;
    sizes[ns++] = -1;
    uint32_t nk = 0;
    while (len) {
        node_ix v = list[--len];
        class_ix c = graph_node_class(g, v);
        uint32_t from = w->dom_first[v], to = w->dom_first[v + 1];
        if (c < nc && !seen[c] && graph_node_size(g, v)) {
            res->classes[row[c]].retained += res->retained[v];
            if (from != to) {
                seen[c] = 1;
                sizes[ns++] = len;
                keys[nk++] = c;
            }
        }
        for (uint32_t i = from; i < to; i++)
            list[len++] = w->dom_list[i];
        while (ns && sizes[ns - 1] == (int64_t)len) {
            ns--;
            seen[keys[--nk]] = 0;
        }
    }
    /* DevTools re-keys the map by public key: with two classes on one key, the later one in
     * first-appearance order overwrites the earlier. */
    {
        hmap keys = {0};
        uint32_t *last = malloc(((size_t)res->n_classes + 1) * sizeof *last);
        if (!last || !hmap_reserve(&keys, res->n_classes)) {
            free(last);
            hmap_free(&keys);
            s = nomem(w);
            goto out;
        }
        for (uint32_t i = 0; i < res->n_classes; i++) {
            str_ix k = res->classes[i].key;
            uint32_t h = (uint32_t)hash_mix64(k);
            hmap_it it;
            uint32_t first = hmap_first(&keys, h, &it);
            while (first != HMAP_NONE && res->classes[first].key != k)
                first = hmap_next(&keys, &it);
            if (first == HMAP_NONE) {
                hmap_add(&keys, h, i); /* reserved: cannot fail */
                last[i] = i;
            } else {
                res->classes[last[first]].shadowed = 1;
                last[first] = i;
            }
        }
        free(last);
        hmap_free(&keys);
    }
out:
    free(row);
    free(seen);
    free(list);
    free(sizes);
    free(keys);
    return s;
}

/* Each row's smallest distance among its counted instances. */
static lr_status class_distances(work *w, devtools_result *res)
{
    const graph *g = w->g;
    uint32_t nc = g->n_classes;
    uint32_t *row = malloc(((size_t)nc + 1) * sizeof *row);
    if (!row)
        return nomem(w);
    for (uint32_t c = 0; c < nc; c++)
        row[c] = UINT32_MAX;
    for (uint32_t i = 0; i < res->n_classes; i++) {
        row[res->classes[i].cls] = i;
        res->classes[i].distance = INT32_MAX;
    }
    for (node_ix v = 0; v < g->n_nodes; v++) {
        class_ix c = graph_node_class(g, v);
        if (c >= nc || row[c] == UINT32_MAX || !graph_node_size(g, v))
            continue;
        devtools_class *a = &res->classes[row[c]];
        if (res->distance[v] < a->distance)
            a->distance = res->distance[v];
    }
    free(row);
    return LR_OK;
}

static lr_status build(const graph *g, const str_ix *class_keys, int paths, devtools_result *r,
                       lr_error *err);

lr_status devtools_build(const graph *g, const str_ix *class_keys, devtools_result *r,
                         lr_error *err)
{
    return build(g, class_keys, 0, r, err);
}

lr_status devtools_build_paths(const graph *g, const str_ix *class_keys, devtools_result *r,
                               lr_error *err)
{
    return build(g, class_keys, 1, r, err);
}

static lr_status build(const graph *g, const str_ix *class_keys, int paths, devtools_result *r,
                       lr_error *err)
{
    memset(r, 0, sizeof *r);
    if (g->synthetic_root == GRAPH_NONE || g->synthetic_root >= g->n_nodes || !g->node_name)
        return LR_FAIL(err, LR_ERR_USAGE, "DevTools numbers need a V8/ArkTS heap snapshot");
    work w = {.g = g, .root = g->synthetic_root, .err = err, .paths = paths};
    w.r.hidden = type_index(g, "hidden");
    w.r.array = type_index(g, "array");
    w.r.synthetic = type_index(g, "synthetic");
    r->n = g->n_nodes;
    r->root = g->synthetic_root;
    /* Which strings have the ephemeron form: most fail at their first bytes. */
    w.n_wm = g->strings.n;
    w.wm = malloc((size_t)w.n_wm + 1);
    if (!w.wm)
        return nomem(&w);
    for (str_ix i = 0; i < w.n_wm; i++) {
        const char *dup;
        uint64_t table;
        w.wm[i] = weakmap_edge(graph_str(g, i), &dup, &table) ? 2 : 1;
        w.any_wm |= w.wm[i] == 2;
    }
    if (!w.any_wm) { /* weakmap_name answers without it */
        free(w.wm);
        w.wm = NULL;
    }
    lr_status s;
    if ((s = mark_page_owned(&w)))
        goto out;
    if ((s = essential_edges(&w)))
        goto out;
    free(w.page);
    w.page = NULL;
    if ((s = dominators(&w, r)))
        goto out;
    free(w.essential);
    free(w.held);
    w.essential = NULL;
    w.held = NULL;
    /* One phase after another, each array freed when its phase ends, so no phase holds more
     * than Lengauer-Tarjan did: idom and retained (12 bytes per node), with the dominated-nodes
     * listing (8) for the class walk, then with the distances (8, and the BFS queue's waiting
     * part). The distances could run beside the listing on a second core, but the two
     * together would set a new peak. */
    if ((s = dominated_nodes(&w, r)))
        goto out;
    if ((s = aggregates(&w, class_keys, r)))
        goto out;
    free(w.dom_first);
    free(w.dom_list);
    w.dom_first = w.dom_list = NULL;
    if ((s = distances(&w, r)))
        goto out;
    s = class_distances(&w, r);
out:
    free(w.page);
    free(w.essential);
    free(w.held);
    free(w.dom_first);
    free(w.dom_list);
    free(w.wm);
    if (s != LR_OK)
        devtools_free(r);
    return s;
}

void devtools_free(devtools_result *r)
{
    if (!r)
        return;
    free(r->idom);
    free(r->retained);
    free(r->distance);
    free(r->parent_edge);
    free(r->classes);
    free(r->unreached);
    memset(r, 0, sizeof *r);
}

uint32_t devtools_path(const graph *g, const devtools_result *r, node_ix v, edge_ix *edges,
                       uint32_t cap)
{
    if (!r->parent_edge || v >= r->n)
        return 0;
    /* Each hop lowers the distance by one, so the walk ends within n steps; the bound only
     * guards against a corrupted result. */
    uint32_t len = 0;
    for (node_ix x = v; r->parent_edge[x] != GRAPH_NONE && len < r->n; len++)
        x = graph_edge_from(g, r->parent_edge[x]);
    node_ix x = v;
    for (uint32_t i = len; i > 0; i--) {
        edge_ix e = r->parent_edge[x];
        if (i - 1 < cap)
            edges[i - 1] = e;
        x = graph_edge_from(g, e);
    }
    return len;
}
