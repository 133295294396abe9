/* SPDX-License-Identifier: Apache-2.0 */
/* dominators.c: exact dominator tree and retained sizes (analysis layer), prefix dom_.
 * Algorithm: Lengauer-Tarjan (TOPLAS 1(1), 1979), "simple" version: semidominators with
 * path-compressed eval and implicit linking, buckets for relative dominators, then a
 * forward pass. O((N+E) log N) worst case. (SEMI-NCA's chain walks went quadratic on deep
 * DFS trees with random cross references, e.g. long linked lists of objects.)
 * Index convention: everything inside runs on DFS preorder numbers, 0 = the virtual
 * super-root whose children are g->roots (dump order) then g->synthetic_root, so a
 * dominator always has a smaller number than the nodes it dominates; 1..N are graph nodes.
 * Nothing recurses (the DFS and eval use explicit stacks), so a 5 M-node chain is fine.
 * Memory: at the peak six uint32 arrays of N plus one of the followed edges (predecessors)
 * and one bit per edge; no per-node malloc; results are allocated after the scratch is
 * freed.
 * Retained size = shallow + native, accumulated in reverse DFS order. docs/design.md says
 * which peer the numbers must equal (VisualVM for HotSpot, DevTools for V8). */
#include "analysis/dominators.h"

#include <stdlib.h>
#include <string.h>

/* Marks "no DFS number yet" in dfnum; DFS numbers of graph nodes start at 1. */
#define UNSEEN 0u
/* Flags the first entry of each vertex's predecessor list (vertices stay below 2^31). */
#define PRED_FIRST 0x80000000u

static int follow_default(const graph *g, edge_ix e)
{
    uint8_t k = g->edge_kind[e];
    return GRAPH_EDGE_STRENGTH(k) == GRAPH_STRONG && GRAPH_EDGE_KIND(k) != GRAPH_EDGE_WEAK;
}

static inline int follows(const graph *g, dom_edge_filter f, void *ctx, edge_ix e)
{
    return f ? f(g, e, ctx) : follow_default(g, e);
}

/* The super-root's children: every root entry, the synthetic root, then (when `outside` is
 * set) every node outside the reach set, in index order. */
typedef struct sroots {
    const graph *g;
    uint32_t n_entries;     /* entries before the outside nodes */
    const uint8_t *outside; /* mask of reached nodes; nodes with 0 are extra children */
} sroots;

static sroots sroots_make(const graph *g, const uint8_t *reached)
{
    sroots s = {g, g->n_roots + (g->synthetic_root != GRAPH_NONE ? 1u : 0u), reached};
    return s;
}

static uint64_t sroots_count(const sroots *s)
{
    return (uint64_t)s->n_entries + (s->outside ? s->g->n_nodes : 0);
}

/* Child i of the super-root, or GRAPH_NONE when that entry names no (extra) node. */
static node_ix sroots_get(const sroots *s, uint64_t i)
{
    const graph *g = s->g;
    if (i >= s->n_entries) {
        node_ix x = (node_ix)(i - s->n_entries);
        return s->outside[x] ? GRAPH_NONE : x;
    }
    node_ix r = i < g->n_roots ? g->roots[i].node : g->synthetic_root;
    return r < g->n_nodes ? r : GRAPH_NONE;
}

void dom_free(dom_tree *t)
{
    if (!t)
        return;
    free(t->idom);
    free(t->retained);
    memset(t, 0, sizeof *t);
}

/* ---- Step 0: which edges count, one bit per edge ----
 * The filter is asked exactly once per edge, in CSR order (filters that look up the source
 * node can cache it), so the DFS and the predecessor passes are plain bit tests. Edges to
 * out-of-range targets are never followed. */
static uint64_t *follow_bits(const graph *g, dom_edge_filter filter, void *ctx)
{
    uint32_t ne = g->n_edges;
    uint64_t *bits = err_calloc((size_t)ne / 64 + 1, sizeof *bits);
    if (!bits)
        return NULL;
    uint32_t n = g->n_nodes;
    for (node_ix x = 0; x < n; x++) {
        edge_ix end = g->first_edge[x + 1];
        for (edge_ix e = g->first_edge[x]; e < end && e < ne; e++)
            if (g->edge_to[e] < n && follows(g, filter, ctx, e))
                bits[e >> 6] |= 1ull << (e & 63);
    }
    return bits;
}

static inline int fbit(const uint64_t *bits, edge_ix e)
{
    return (int)(bits[e >> 6] >> (e & 63) & 1);
}

/* ---- Step 1: iterative DFS from the super-root ----
 * Fills dfnum[node] (1..N), vert[v] and par[v]; returns N. stk/cur are scratch of n+1. */
static uint32_t dfs(const graph *g, const sroots *sr, const uint64_t *fol, uint32_t *dfnum,
                    node_ix *vert, uint32_t *par, uint32_t *stk, uint32_t *cur)
{
    uint64_t nr = sroots_count(sr), root_cur = 0;
    uint32_t next = 1, sp = 1;
    stk[0] = 0; /* DFS number of the super-root */
    par[0] = 0;
    cur[0] = 0; /* unused: root_cur walks the super-root's children */
    while (sp > 0) {
        uint32_t v = stk[sp - 1];
        node_ix child = GRAPH_NONE;
        if (v == 0) {
            while (root_cur < nr && child == GRAPH_NONE) {
                node_ix r = sroots_get(sr, root_cur++);
                if (r != GRAPH_NONE && dfnum[r] == UNSEEN)
                    child = r;
            }
        } else {
            node_ix x = vert[v];
            edge_ix e = cur[sp - 1], end = g->first_edge[x + 1];
            for (; e < end; e++) {
                node_ix y = g->edge_to[e];
                if (fbit(fol, e) && dfnum[y] == UNSEEN) {
                    child = y;
                    e++;
                    break;
                }
            }
            cur[sp - 1] = e;
        }
        if (child == GRAPH_NONE) {
            sp--;
            continue;
        }
        dfnum[child] = next;
        vert[next] = child;
        par[next] = v;
        stk[sp] = next;
        cur[sp] = g->first_edge[child];
        sp++;
        next++;
    }
    return next - 1;
}

/* ---- Step 2: predecessors in DFS numbers (followed edges between reached nodes) ----
 * first[] has nv + 2 entries; the caller passes it zeroed. */
static lr_status build_preds(const graph *g, const sroots *sr, const uint64_t *fol,
                             const uint32_t *dfnum, uint32_t nv, uint32_t *first,
                             uint32_t **psrc, lr_error *err)
{
    uint64_t total = 0, nr = sroots_count(sr);
    for (uint64_t i = 0; i < nr; i++) {
        node_ix r = sroots_get(sr, i);
        if (r != GRAPH_NONE) {
            first[dfnum[r] + 1]++;
            total++;
        }
    }
    /* Node order (not DFS order) keeps the edge arrays streaming. */
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (dfnum[x] == UNSEEN)
            continue;
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (fbit(fol, e) && dfnum[y] != UNSEEN) {
                first[dfnum[y] + 1]++;
                total++;
            }
        }
    }
    if (total > UINT32_MAX - 1)
        return LR_FAIL(err, LR_ERR_LIMIT, "dominators: %llu edges exceed 2^32",
                       (unsigned long long)total);
    for (uint32_t v = 0; v <= nv; v++)
        first[v + 1] += first[v];
    uint32_t *src = err_mallocarray(total ? total : 1, sizeof *src);
    if (!src)
        return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%llu edges)",
                       (unsigned long long)total);
    /* first[w] is used as the fill cursor and ends up as first[w + 1]; shifted back below. */
    for (uint64_t i = 0; i < nr; i++) {
        node_ix r = sroots_get(sr, i);
        if (r != GRAPH_NONE)
            src[first[dfnum[r]]++] = 0;
    }
    for (node_ix x = 0; x < g->n_nodes; x++) {
        uint32_t v = dfnum[x];
        if (v == UNSEEN)
            continue;
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (fbit(fol, e) && dfnum[y] != UNSEEN)
                src[first[dfnum[y]]++] = v;
        }
    }
    for (uint32_t v = nv + 1; v > 0; v--)
        first[v] = first[v - 1];
    first[0] = 0;
    *psrc = src;
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

/* Link filter restricted to the objects the reach pass found (mask[x] != 0). */
typedef struct link_ctx {
    const dom_opts *o;
    const uint8_t *mask;
} link_ctx;

static int link_follow(const graph *g, edge_ix e, void *c)
{
    const link_ctx *l = c;
    return (!l->mask || l->mask[g->edge_to[e]]) && l->o->link(g, e, l->o->link_ctx);
}

/* ---- VisualVM's class-object weight (DOM_CLASS_TREE_WEIGHT) ----
 * VisualVM adds a class object's own size only when the class is a "tree object": reached,
 * and every distinct object its link edges point to has exactly one referrer (counted over
 * all objects, reached or not) and is itself a tree object; objects with no reach edges are
 * tree objects (leaves). Computed bottom-up from the leaves with a pending counter per node,
 * so cycles never qualify. Fills tree[x] (1 = tree object). O(N+E), three uint32 arrays. */
static lr_status class_tree_marks(const graph *g, const dom_opts *o, const uint8_t *reached,
                                  uint8_t *tree, uint64_t *tr, lr_error *err)
{
    uint32_t n = g->n_nodes;
    uint32_t *refs = err_calloc((size_t)n + 1, sizeof *refs);    /* distinct referrers */
    uint32_t *last = err_mallocarray((size_t)n + 1, sizeof *last); /* dedup per source */
    uint32_t *pending = err_calloc((size_t)n + 1, sizeof *pending);
    uint32_t *queue = err_mallocarray((size_t)n + 1, sizeof *queue);
    lr_status st = LR_OK;
    if (!refs || !last || !pending || !queue) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
        goto done;
    }
    for (uint32_t x = 0; x < n; x++)
        last[x] = GRAPH_NONE;
    for (node_ix x = 0; x < n; x++)
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y < n && last[y] != x && o->link(g, e, o->link_ctx)) {
                last[y] = x;
                refs[y] = refs[y] < UINT32_MAX ? refs[y] + 1 : refs[y];
            }
        }
    /* pending[x] = distinct link targets not yet known as single-referrer tree objects;
     * UINT32_MAX once a target can never qualify. */
    uint32_t qn = 0;
    for (uint32_t x = 0; x < n; x++)
        last[x] = GRAPH_NONE;
    for (node_ix x = 0; x < n; x++) {
        tree[x] = 0;
        tr[x] = graph_node_size(g, x);
        if (!reached[x])
            continue;
        int has_reach = 0;
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y >= n)
                continue;
            if (o->reach(g, e, o->reach_ctx))
                has_reach = 1;
            if (last[y] == x || !o->link(g, e, o->link_ctx))
                continue;
            last[y] = x;
            if (refs[y] != 1 || !reached[y])
                pending[x] = UINT32_MAX;
            else if (pending[x] != UINT32_MAX)
                pending[x]++;
        }
        if (!has_reach || pending[x] == 0) {
            tree[x] = 1;
            queue[qn++] = x;
        }
    }
    /* A tree object with one referrer unblocks that referrer (found by scanning: the one
     * source whose link edge reaches it is recorded in last[] from the counting pass). */
    for (uint32_t x = 0; x < n; x++)
        last[x] = GRAPH_NONE;
    for (node_ix x = 0; x < n; x++)
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y < n && refs[y] == 1 && o->link(g, e, o->link_ctx))
                last[y] = x; /* the single referrer */
        }
    for (uint32_t qi = 0; qi < qn; qi++) {
        node_ix y = queue[qi];
        node_ix p = last[y];
        if (refs[y] != 1 || p == GRAPH_NONE || tree[p] || pending[p] == UINT32_MAX)
            continue;
        tr[p] += tr[y];
        if (--pending[p] == 0) {
            tree[p] = 1;
            queue[qn++] = p;
        }
    }
done:
    free(refs);
    free(last);
    free(pending);
    free(queue);
    return st;
}

/* VisualVM's references: instance fields (the referent of references too), array elements
 * and statics; not class internals (super, loader, signers, protection domain) nor Java
 * locals, which VisualVM has no edge for (their frames are roots themselves). */
static int vvm_link(const graph *g, edge_ix e, void *ctx)
{
    (void)ctx;
    unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
    return k == GRAPH_EDGE_FIELD || k == GRAPH_EDGE_ELEMENT || k == GRAPH_EDGE_STATIC;
}

/* Reachability: the same minus weak/soft/phantom/finalizer referents. */
static int vvm_reach(const graph *g, edge_ix e, void *ctx)
{
    return vvm_link(g, e, ctx) && GRAPH_EDGE_STRENGTH(g->edge_kind[e]) == GRAPH_STRONG;
}

void dom_opts_visualvm(dom_opts *o)
{
    memset(o, 0, sizeof *o);
    o->reach = vvm_reach;
    o->link = vvm_link;
    o->flags = DOM_UNREACHED_AS_ROOTS | DOM_VISUALVM_SUMS;
}

lr_status dom_build(const graph *g, dom_edge_filter filter, void *ctx, dom_tree *t,
                    lr_error *err)
{
    dom_opts o = {filter, ctx, NULL, NULL, 0};
    return dom_build_ex(g, &o, t, err);
}

lr_status dom_build_ex(const graph *g, const dom_opts *o, dom_tree *t, lr_error *err)
{
    memset(t, 0, sizeof *t);
    dom_edge_filter filter = o->reach;
    void *ctx = o->reach_ctx;
    uint8_t *mask = NULL, *tree = NULL;
    uint64_t *tr = NULL; /* VisualVM tree-object retained sizes */
    uint64_t *fol = NULL;
    link_ctx lc = {o, NULL};
    sroots sr;
    uint32_t n = g->n_nodes;
    if (n >= UINT32_MAX - 3)
        return LR_FAIL(err, LR_ERR_LIMIT, "dominators: %u nodes is too many", n);
    if (n > 0 && (!g->first_edge || !g->edge_to || !g->edge_kind))
        return LR_FAIL(err, LR_ERR_USAGE, "dominators: graph was loaded without edges");
    lr_status st = LR_OK;
    /* Scratch is uint32 per vertex and is reused phase to phase; the results (idom in node
     * space, 64-bit retained sizes) are allocated only once the scratch is mostly gone, so
     * the peak is the predecessor build or the Lengauer-Tarjan step: six uint32 arrays of
     * N plus the predecessor list (one uint32 per followed edge). */
    size_t m = (size_t)n + 2;
    uint32_t *dfnum = err_calloc(m, sizeof *dfnum); /* then bucket heads */
    node_ix *vert = err_mallocarray(m, sizeof *vert);
    uint32_t *par = err_mallocarray(m, sizeof *par);  /* DFS parent, then anc */
    uint32_t *a = err_mallocarray(m, sizeof *a);      /* DFS stack, then semi */
    uint32_t *b = err_mallocarray(m, sizeof *b);      /* DFS cursors, then pred index */
    uint32_t *psrc = NULL, *label = NULL, *bnext = NULL;
    if (!dfnum || !vert || !par || !a || !b) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
        goto done;
    }
    t->n = n;
    sr = sroots_make(g, NULL);
    if (!(fol = follow_bits(g, filter, ctx))) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u edges)", g->n_edges);
        goto done;
    }
    uint32_t nv = dfs(g, &sr, fol, dfnum, vert, par, a, b);
    if (o->link) {
        /* Reachability decided, the dominance graph is every link edge among reached
         * objects; a fresh DFS over it keeps the DFS-tree property the algorithm needs. */
        mask = err_calloc(m, 1);
        if (!mask) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
            goto done;
        }
        for (uint32_t v = 1; v <= nv; v++)
            mask[vert[v]] = 1;
        t->n_reachable = nv;
        if (o->flags & DOM_VISUALVM_SUMS) {
            tree = err_malloc(m);
            tr = err_mallocarray(m, sizeof *tr);
            if (!tree || !tr) {
                st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
                goto done;
            }
            if ((st = class_tree_marks(g, o, mask, tree, tr, err)) != LR_OK)
                goto done;
        }
        memset(dfnum, 0, m * sizeof *dfnum);
        /* Unreached referrers as super-root children: their references still take
         * dominance away from reached objects (VisualVM's convention). */
        if (o->flags & DOM_UNREACHED_AS_ROOTS)
            sr = sroots_make(g, mask);
        else
            lc.mask = mask;
        free(fol);
        if (!(fol = follow_bits(g, link_follow, &lc))) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u edges)",
                         g->n_edges);
            goto done;
        }
        nv = dfs(g, &sr, fol, dfnum, vert, par, a, b);
    } else {
        t->n_reachable = nv;
    }
    uint32_t *pfirst = b;
    memset(pfirst, 0, m * sizeof *pfirst);
    st = build_preds(g, &sr, fol, dfnum, nv, pfirst, &psrc, err);
    free(fol);
    fol = NULL;
    if (st != LR_OK)
        goto done;
    /* The index goes: every vertex but the super-root has a predecessor (its DFS parent),
     * so no list is empty and flagging each list's first entry is enough to walk them
     * from the last vertex down. */
    uint32_t n_preds = pfirst[nv + 1];
    for (uint32_t v = 1; v <= nv; v++) {
        if (pfirst[v] == pfirst[v + 1] || v >= PRED_FIRST) {
            st = LR_FAIL(err, LR_ERR_LIMIT, "dominators: vertex %u has no predecessor", v);
            goto done;
        }
        psrc[pfirst[v]] |= PRED_FIRST;
    }
    free(b);
    b = NULL;

    uint32_t *semi = a, *anc = par;
    label = err_mallocarray(m, sizeof *label);
    bnext = err_mallocarray(m, sizeof *bnext);
    if (!label || !bnext) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
        goto done;
    }
    for (uint32_t v = 0; v <= nv; v++) {
        semi[v] = v;
        label[v] = v;
    }
    /* Lengauer-Tarjan with implicit linking: vertices numbered >= `last` are linked, anc[]
     * is compressed towards unlinked ones, so anc[w] is still w's DFS parent when w's turn
     * comes. Buckets hold each vertex under its semidominator (head in dfnum[], now free,
     * chained through bnext[]); once a vertex leaves its bucket its bnext[] slot holds its
     * relative, then immediate, dominator (idom below). */
    uint32_t *head = dfnum, *idom = bnext;
    for (uint32_t v = 0; v <= nv; v++)
        head[v] = UINT32_MAX;
    uint32_t pos = n_preds;
    for (uint32_t w = nv; w >= 1; w--) {
        uint32_t p = anc[w], s = p, u;
        do {
            u = psrc[--pos];
            uint32_t x = u & ~PRED_FIRST;
            uint32_t su = x <= w ? x : semi[eval(x, w + 1, anc, label, semi)];
            if (su < s)
                s = su;
        } while (!(u & PRED_FIRST));
        semi[w] = s;
        bnext[w] = head[s];
        head[s] = w;
        /* w is linked now: evaluate the vertices waiting on its parent. */
        for (uint32_t v = head[p], nx; v != UINT32_MAX; v = nx) {
            nx = bnext[v];
            uint32_t e = eval(v, w, anc, label, semi);
            idom[v] = semi[e] < semi[v] ? e : p;
        }
        head[p] = UINT32_MAX;
    }
    idom[0] = 0;
    /* Relative dominators become immediate ones in increasing order. */
    for (uint32_t w = 1; w <= nv; w++)
        if (idom[w] != semi[w])
            idom[w] = idom[idom[w]];

    /* ---- Step 4: results in node space; retained sizes in reverse DFS order ----
     * Only vert and idom are still needed: the rest goes before the results arrive. */
    free(psrc);
    psrc = NULL;
    free(a);
    a = NULL;
    free(par);
    par = NULL;
    free(dfnum);
    dfnum = NULL;
    t->idom = label; /* m >= n entries, same type */
    label = NULL;
    t->retained = err_calloc(m, sizeof *t->retained);
    if (!t->retained) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
        goto done;
    }
    for (uint32_t x = 0; x < n; x++)
        t->idom[x] = GRAPH_NONE;
    uint64_t total = 0;
    for (uint32_t v = 1; v <= nv; v++) {
        node_ix x = vert[v];
        if (mask && !mask[x])
            continue; /* an unreached referrer: weighs nothing, reported unreachable */
        t->idom[x] = idom[v] == 0 ? DOM_SUPER_ROOT : vert[idom[v]];
    }
    /* Reverse DFS order visits children before their idom: retained[x] first collects what
     * the children pass up, then gets x's own weight. */
    for (uint32_t v = nv; v >= 1; v--) {
        node_ix x = vert[v];
        if (mask && !mask[x])
            continue;
        uint64_t own = graph_node_size(g, x) + (g->node_native ? (uint64_t)g->node_native[x] : 0);
        int is_class = g->node_kind[x] == GRAPH_KIND_CLASS;
        uint64_t up;
        if (tree) {
            /* VisualVM: a tree object's size is its own tree sum and stops what lies below
             * it; class objects pass nothing up and weigh nothing unless tree objects. */
            if (tree[x]) {
                t->retained[x] = tr[x];
                up = is_class ? 0 : tr[x];
            } else {
                t->retained[x] += is_class ? 0 : own;
                up = t->retained[x];
            }
            total += is_class && !tree[x] ? 0 : own;
        } else {
            if (is_class && (o->flags & DOM_CLASS_OBJECTS_FREE))
                own = 0;
            t->retained[x] += own;
            up = t->retained[x];
            total += own;
        }
        if (idom[v] != 0)
            t->retained[vert[idom[v]]] += up;
    }
    t->total_reachable = total;

done:
    free(fol);
    free(mask);
    free(tree);
    free(tr);
    free(dfnum);
    free(vert);
    free(par);
    free(a);
    free(b);
    free(psrc);
    free(label);
    free(bnext);
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
            class_ix c = g->node_class[~x];
            if (c < nc)
                open[c]--;
            continue;
        }
        class_ix c = g->node_class[x];
        if (c < nc) {
            if (count)
                count[c]++;
            if (open[c] == 0) {
                if (retained)
                    retained[c] += t->retained[x];
                if (per_node)
                    per_node[x] = t->retained[x];
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
