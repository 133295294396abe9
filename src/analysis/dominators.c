/* SPDX-License-Identifier: Apache-2.0 */
/* dominators.c: exact dominator tree and retained sizes (analysis layer), prefix dom_.
 * Algorithm: SEMI-NCA (Georgiadis, Tarjan, Werneck, "Finding dominators in practice",
 * JGAA 10(1), 2006): Lengauer-Tarjan semidominators computed with path-compressed eval
 * and simple linking, then each idom found as the nearest common ancestor of the DFS
 * parent and the semidominator. O((N+E) log N) worst case, near linear on heaps.
 * Index convention: everything inside runs on DFS preorder numbers, 0 = the virtual
 * super-root whose children are g->roots (dump order) then g->synthetic_root, so a
 * dominator always has a smaller number than the nodes it dominates; 1..N are graph nodes.
 * Nothing recurses (the DFS and eval use explicit stacks), so a 5 M-node chain is fine.
 * Memory: about eight uint32 arrays of N plus one of the followed edges; no per-node malloc.
 * Retained size = shallow + native, accumulated in reverse DFS order. docs/design.md says
 * which peer the numbers must equal (VisualVM for HotSpot, DevTools for V8). */
#include "analysis/dominators.h"

#include <stdlib.h>
#include <string.h>

/* Marks "no DFS number yet" in dfnum; DFS numbers of graph nodes start at 1. */
#define UNSEEN 0u

static int follow_default(const graph *g, edge_ix e)
{
    uint8_t k = g->edge_kind[e];
    return GRAPH_EDGE_STRENGTH(k) == GRAPH_STRONG && GRAPH_EDGE_KIND(k) != GRAPH_EDGE_WEAK;
}

static inline int follows(const graph *g, dom_edge_filter f, void *ctx, edge_ix e)
{
    return f ? f(g, e, ctx) : follow_default(g, e);
}

/* Number of super-root children entries: every root entry plus the synthetic root. */
static uint32_t n_root_entries(const graph *g)
{
    return g->n_roots + (g->synthetic_root != GRAPH_NONE ? 1u : 0u);
}

/* Root entry i of the super-root, or GRAPH_NONE when it names no valid node. */
static node_ix root_entry(const graph *g, uint32_t i)
{
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

/* ---- Step 1: iterative DFS from the super-root ----
 * Fills dfnum[node] (1..N), vert[v] and par[v]; returns N. stk/cur are scratch of n+1. */
static uint32_t dfs(const graph *g, dom_edge_filter filter, void *ctx, uint32_t *dfnum,
                    node_ix *vert, uint32_t *par, uint32_t *stk, uint32_t *cur)
{
    uint32_t nr = n_root_entries(g), next = 1, sp = 1;
    stk[0] = 0; /* DFS number of the super-root */
    par[0] = 0;
    cur[0] = 0; /* next root entry */
    while (sp > 0) {
        uint32_t v = stk[sp - 1];
        node_ix child = GRAPH_NONE;
        if (v == 0) {
            while (cur[0] < nr && child == GRAPH_NONE) {
                node_ix r = root_entry(g, cur[0]++);
                if (r != GRAPH_NONE && dfnum[r] == UNSEEN)
                    child = r;
            }
        } else {
            node_ix x = vert[v];
            edge_ix e = cur[sp - 1], end = g->first_edge[x + 1];
            for (; e < end; e++) {
                node_ix y = g->edge_to[e];
                if (y < g->n_nodes && dfnum[y] == UNSEEN && follows(g, filter, ctx, e)) {
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

/* ---- Step 2: predecessors in DFS numbers (followed edges between reached nodes) ---- */
static lr_status build_preds(const graph *g, dom_edge_filter filter, void *ctx,
                             const uint32_t *dfnum, const node_ix *vert, uint32_t nv,
                             uint32_t **pfirst, uint32_t **psrc, lr_error *err)
{
    uint32_t *first = err_calloc((size_t)nv + 2, sizeof *first);
    if (!first)
        return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", nv);
    uint64_t total = 0;
    uint32_t nr = n_root_entries(g);
    for (uint32_t i = 0; i < nr; i++) {
        node_ix r = root_entry(g, i);
        if (r != GRAPH_NONE) {
            first[dfnum[r] + 1]++;
            total++;
        }
    }
    for (uint32_t v = 1; v <= nv; v++) {
        node_ix x = vert[v];
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y < g->n_nodes && dfnum[y] != UNSEEN && follows(g, filter, ctx, e)) {
                first[dfnum[y] + 1]++;
                total++;
            }
        }
    }
    if (total > UINT32_MAX - 1) {
        free(first);
        return LR_FAIL(err, LR_ERR_LIMIT, "dominators: %llu edges exceed 2^32",
                       (unsigned long long)total);
    }
    for (uint32_t v = 0; v <= nv; v++)
        first[v + 1] += first[v];
    uint32_t *src = err_mallocarray(total ? total : 1, sizeof *src);
    if (!src) {
        free(first);
        return LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%llu edges)",
                       (unsigned long long)total);
    }
    /* first[w] is used as the fill cursor and ends up as first[w + 1]; shifted back below. */
    for (uint32_t i = 0; i < nr; i++) {
        node_ix r = root_entry(g, i);
        if (r != GRAPH_NONE)
            src[first[dfnum[r]]++] = 0;
    }
    for (uint32_t v = 1; v <= nv; v++) {
        node_ix x = vert[v];
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y < g->n_nodes && dfnum[y] != UNSEEN && follows(g, filter, ctx, e))
                src[first[dfnum[y]]++] = v;
        }
    }
    for (uint32_t v = nv + 1; v > 0; v--)
        first[v] = first[v - 1];
    first[0] = 0;
    *pfirst = first;
    *psrc = src;
    return LR_OK;
}

/* ---- Step 3: semidominators with path-compressed eval ----
 * anc[] starts as the DFS parent and is compressed towards vertices numbered < last;
 * label[v] is the vertex of minimum semi on the compressed path. Vertices >= last have
 * been processed ("linked"). Returns label of the min-semi vertex on v's path. */
static uint32_t eval(uint32_t v, uint32_t last, uint32_t *anc, uint32_t *label,
                     const uint32_t *semi, uint32_t *stk)
{
    if (anc[v] < last)
        return label[v];
    uint32_t sp = 0, u = v;
    do {
        stk[sp++] = u;
        u = anc[u];
    } while (anc[u] >= last);
    /* u is the topmost linked vertex on the path; its anc is below `last`. */
    uint32_t p = u;
    while (sp > 0) {
        uint32_t w = stk[--sp];
        anc[w] = anc[p];
        if (semi[label[p]] < semi[label[w]])
            label[w] = label[p];
        p = w;
    }
    return label[v];
}

lr_status dom_build(const graph *g, dom_edge_filter filter, void *ctx, dom_tree *t,
                    lr_error *err)
{
    memset(t, 0, sizeof *t);
    uint32_t n = g->n_nodes;
    if (n >= UINT32_MAX - 2)
        return LR_FAIL(err, LR_ERR_LIMIT, "dominators: %u nodes is too many", n);
    if (n > 0 && (!g->first_edge || !g->edge_to || !g->edge_kind))
        return LR_FAIL(err, LR_ERR_USAGE, "dominators: graph was loaded without edges");
    lr_status st = LR_OK;
    size_t m = (size_t)n + 1;
    uint32_t *dfnum = err_calloc(m, sizeof *dfnum);
    node_ix *vert = err_mallocarray(m, sizeof *vert);
    uint32_t *par = err_mallocarray(m, sizeof *par);
    uint32_t *a = err_mallocarray(m, sizeof *a); /* DFS stack, then semi */
    uint32_t *b = err_mallocarray(m, sizeof *b); /* DFS cursors, then label */
    uint32_t *pfirst = NULL, *psrc = NULL, *estk = NULL, *idom = NULL;
    t->idom = err_mallocarray(m, sizeof *t->idom);
    t->retained = err_calloc(m, sizeof *t->retained);
    if (!dfnum || !vert || !par || !a || !b || !t->idom || !t->retained) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
        goto done;
    }
    t->n = n;
    uint32_t nv = dfs(g, filter, ctx, dfnum, vert, par, a, b);
    t->n_reachable = nv;
    st = build_preds(g, filter, ctx, dfnum, vert, nv, &pfirst, &psrc, err);
    if (st != LR_OK)
        goto done;

    uint32_t *semi = a, *label = b, *anc = par;
    idom = err_mallocarray(m, sizeof *idom);
    estk = err_mallocarray(m, sizeof *estk);
    if (!idom || !estk) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "dominators: out of memory (%u nodes)", n);
        goto done;
    }
    for (uint32_t v = 0; v <= nv; v++) {
        idom[v] = par[v]; /* DFS parent, kept before anc (= par) gets compressed */
        semi[v] = v;
        label[v] = v;
    }
    for (uint32_t w = nv; w >= 1; w--) {
        uint32_t s = idom[w];
        for (uint32_t i = pfirst[w]; i < pfirst[w + 1]; i++) {
            uint32_t u = psrc[i];
            uint32_t su = u <= w ? u : semi[eval(u, w + 1, anc, label, semi, estk)];
            if (su < s)
                s = su;
        }
        semi[w] = s;
    }
    /* NCA step: walk the parent's dominator chain up to the semidominator. Increasing
     * order guarantees every idom[] on the walk is already final. */
    for (uint32_t w = 2; w <= nv; w++) {
        uint32_t d = idom[w];
        while (d > semi[w])
            d = idom[d];
        idom[w] = d;
    }

    /* ---- Step 4: results in node space; retained sizes in reverse DFS order ---- */
    for (uint32_t x = 0; x < n; x++)
        t->idom[x] = GRAPH_NONE;
    uint64_t total = 0;
    for (uint32_t v = 1; v <= nv; v++) {
        node_ix x = vert[v];
        uint64_t sz = g->node_size[x] + (g->node_native ? (uint64_t)g->node_native[x] : 0);
        t->retained[x] = sz;
        total += sz;
        t->idom[x] = idom[v] == 0 ? DOM_SUPER_ROOT : vert[idom[v]];
    }
    for (uint32_t v = nv; v >= 1; v--)
        if (idom[v] != 0)
            t->retained[vert[idom[v]]] += t->retained[vert[v]];
    t->total_reachable = total;

done:
    free(dfnum);
    free(vert);
    free(par);
    free(a);
    free(b);
    free(pfirst);
    free(psrc);
    free(estk);
    free(idom);
    if (st != LR_OK)
        dom_free(t);
    return st;
}

/* ---- Per-class retained sizes without double counting ----
 * Walks the dominator tree top-down with an explicit stack, keeping per class the number of
 * open ancestors of that class: an instance is summed only when that number is zero, so a
 * class's total never counts bytes twice (DevTools calculateClassesRetainedSize). */
lr_status dom_class_retained(const graph *g, const dom_tree *t, uint64_t *retained,
                             uint32_t *count, lr_error *err)
{
    uint32_t n = t->n, nc = g->n_classes;
    if (n >= 0x80000000u)
        return LR_FAIL(err, LR_ERR_LIMIT, "dominators: %u nodes is too many", n);
    memset(retained, 0, (size_t)nc * sizeof *retained);
    memset(count, 0, (size_t)nc * sizeof *count);
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
            count[c]++;
            if (open[c] == 0)
                retained[c] += t->retained[x];
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
