/* SPDX-License-Identifier: Apache-2.0 */
/* memlabdom.c: memlab's dominator tree (analysis layer), prefix mldom_. Lengauer-Tarjan with
 * the simple eval/link and iterative path compression, vertices numbered 1..N (0 = none) in
 * the order of memlab's iterative DFS, which follows edges in edge order; the counted
 * retainers of each vertex are gathered once into a reverse CSR. The unreachable-node
 * handling is memlab's as written (docs in memlabdom.h): the numbers of clique members depend
 * on it. */
#include "analysis/memlabdom.h"

#include <stdlib.h>
#include <string.h>

#define F_PAGE 1u      /* memlab's page-owned flag */
#define F_STRONG_IN 2u /* some referrer edge is neither weak nor a shortcut */

typedef struct lt {
    const graph *g;
    uint8_t *flags;
    node_ix root;
    uint32_t *parent, *ancestor, *vertex, *label, *semi, *dom, *next_edge;
    uint32_t n; /* vertices numbered */
} lt;

static unsigned kind(const graph *g, edge_ix e) { return GRAPH_EDGE_KIND(g->edge_kind[e]); }

static int essential(const lt *x, node_ix from, edge_ix e, node_ix to)
{
    unsigned k = kind(x->g, e);
    if (from == to || k == GRAPH_EDGE_WEAK)
        return 0;
    if (from != x->root && (k == GRAPH_EDGE_SHORTCUT ||
                            ((x->flags[to] & F_PAGE) && !(x->flags[from] & F_PAGE))))
        return 0;
    return 1;
}

/* memlab's flagReachableNodesFromWindow; stack holds N entries. */
static void mark_page(lt *x, uint32_t *stack)
{
    const graph *g = x->g;
    uint32_t len = 0;
    node_ix r = x->root;
    int synth = -1;
    for (uint32_t i = 0; i < g->n_types && i < 32; i++)
        if (g->type_names[i] && strcmp(g->type_names[i], "synthetic") == 0) {
            synth = (int)i;
            break;
        }
    for (edge_ix e = g->first_edge[r]; e < g->first_edge[r + 1]; e++) {
        node_ix t = g->edge_to[e];
        unsigned k = kind(g, e);
        if (k == GRAPH_EDGE_SHORTCUT || t >= g->n_nodes)
            continue;
        if (k == GRAPH_EDGE_ELEMENT && synth >= 0 && g->node_type[t] == (uint8_t)synth &&
            strcmp(graph_str(g, g->node_name[t]), "(Document DOM trees)") == 0)
            continue;
        if (!(x->flags[t] & F_PAGE)) { /* memlab may push twice; once changes nothing */
            x->flags[t] |= F_PAGE;
            stack[len++] = t;
        }
    }
    while (len) {
        node_ix v = stack[--len];
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            node_ix t = g->edge_to[e];
            if (t >= g->n_nodes || (x->flags[t] & F_PAGE) || kind(g, e) == GRAPH_EDGE_WEAK)
                continue;
            x->flags[t] |= F_PAGE;
            stack[len++] = t;
        }
    }
}

/* memlab's iterative DFS from vertex `start` (its parent already set). */
static void dfs(lt *x, uint32_t start)
{
    const graph *g = x->g;
    x->next_edge[start - 1] = g->first_edge[start - 1];
    uint32_t v = start;
    while (v) {
        if (!x->semi[v]) {
            x->semi[v] = ++x->n;
            x->vertex[x->n] = x->label[v] = v;
        }
        uint32_t vn = x->parent[v];
        node_ix vo = v - 1;
        edge_ix end = g->first_edge[vo + 1];
        for (; x->next_edge[vo] < end; x->next_edge[vo]++) {
            edge_ix e = x->next_edge[vo];
            node_ix wo = g->edge_to[e];
            if (wo >= g->n_nodes || !essential(x, vo, e, wo))
                continue;
            uint32_t w = wo + 1;
            if (!x->semi[w]) {
                x->parent[w] = v;
                x->next_edge[wo] = g->first_edge[wo];
                vn = w;
                break;
            }
        }
        v = vn;
    }
}

/* eval with path compression; stack has N + 1 entries. */
static uint32_t eval(lt *x, uint32_t v, uint32_t *stack)
{
    uint32_t *anc = x->ancestor, *label = x->label, *semi = x->semi;
    if (!anc[v])
        return v;
    uint32_t sp = 0, u = v;
    while (anc[anc[u]]) {
        stack[sp++] = u;
        u = anc[u];
    }
    while (sp) {
        uint32_t w = stack[--sp];
        if (semi[label[anc[w]]] < semi[label[w]])
            label[w] = label[anc[w]];
        anc[w] = anc[anc[w]];
    }
    return label[v];
}

void mldom_free(mldom_tree *t)
{
    free(t->idom);
    free(t->retained);
    memset(t, 0, sizeof *t);
}

lr_status mldom_build(const graph *g, mldom_tree *t, lr_error *err)
{
    memset(t, 0, sizeof *t);
    if (g->synthetic_root == GRAPH_NONE || g->synthetic_root >= g->n_nodes || !g->node_type ||
        !g->node_name)
        return LR_FAIL(err, LR_ERR_USAGE, "memlab's dominators need a V8/ArkTS heap snapshot");
    uint32_t N = g->n_nodes;
    size_t al = (size_t)N + 1;
    lt x = {.g = g, .root = g->synthetic_root};
    lr_status st = LR_OK;
    uint32_t *rfirst = NULL, *rlist = NULL, *stack = NULL, *bucket = NULL, *bnext = NULL;
    x.flags = calloc(al, 1);
    stack = malloc(al * sizeof *stack);
    x.parent = calloc(al, sizeof *x.parent);
    x.ancestor = calloc(al, sizeof *x.ancestor);
    x.vertex = calloc(al, sizeof *x.vertex);
    x.label = calloc(al, sizeof *x.label);
    x.semi = calloc(al, sizeof *x.semi);
    x.next_edge = malloc(al * sizeof *x.next_edge);
    rfirst = calloc(al + 1, sizeof *rfirst);
    if (!x.flags || !stack || !x.parent || !x.ancestor || !x.vertex || !x.label || !x.semi ||
        !x.next_edge || !rfirst)
        goto nomem;
    mark_page(&x, stack);
    /* counted retainers per target (reverse CSR) and memlab's hasOnlyWeakReferrers */
    uint64_t m = 0;
    for (node_ix v = 0; v < N; v++)
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            node_ix to = g->edge_to[e];
            if (to >= N)
                continue;
            unsigned k = kind(g, e);
            if (k != GRAPH_EDGE_WEAK && k != GRAPH_EDGE_SHORTCUT)
                x.flags[to] |= F_STRONG_IN;
            if (essential(&x, v, e, to)) {
                rfirst[to + 1]++;
                m++;
            }
        }
    for (uint32_t v = 0; v < N; v++)
        rfirst[v + 1] += rfirst[v];
    rlist = malloc((m ? m : 1) * sizeof *rlist);
    if (!rlist)
        goto nomem;
    memcpy(stack, rfirst, (size_t)N * sizeof *stack); /* fill cursors */
    for (node_ix v = 0; v < N; v++)
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            node_ix to = g->edge_to[e];
            if (to < N && essential(&x, v, e, to))
                rlist[stack[to]++] = v;
        }

    uint32_t r = x.root + 1;
    dfs(&x, r);
    if (x.n < N)
        for (uint32_t v = 1; v <= N; v++)
            if (!x.semi[v] && !(x.flags[v - 1] & F_STRONG_IN)) {
                x.parent[v] = r;
                dfs(&x, v);
            }
    if (x.n < N)
        for (uint32_t v = 1; v <= N; v++)
            if (!x.semi[v]) {
                x.parent[v] = r;
                x.semi[v] = ++x.n;
                x.vertex[x.n] = x.label[v] = v;
            }
    free(x.next_edge);
    x.next_edge = NULL;
    x.dom = calloc(al, sizeof *x.dom);
    bucket = calloc(al, sizeof *bucket); /* per vertex: first of its bucket, 0 = empty */
    bnext = calloc(al, sizeof *bnext);
    if (!x.dom || !bucket || !bnext)
        goto nomem;
    for (uint32_t i = x.n; i >= 2; i--) {
        uint32_t w = x.vertex[i];
        node_ix wo = w - 1;
        int orphan = 1;
        for (uint32_t k = rfirst[wo]; k < rfirst[wo + 1]; k++) {
            orphan = 0;
            uint32_t u = eval(&x, rlist[k] + 1, stack);
            if (x.semi[u] < x.semi[w])
                x.semi[w] = x.semi[u];
        }
        if (orphan)
            x.semi[w] = x.semi[r];
        /* bucket(semidominator) gets w: each vertex sits in one bucket once */
        uint32_t sd = x.vertex[x.semi[w]];
        bnext[w] = bucket[sd];
        bucket[sd] = w;
        x.ancestor[w] = x.parent[w]; /* link */
        uint32_t p = x.parent[w];
        for (uint32_t v = bucket[p], nx; v; v = nx) {
            nx = bnext[v];
            uint32_t u = eval(&x, v, stack);
            x.dom[v] = x.semi[u] < x.semi[v] ? u : p;
        }
        bucket[p] = 0;
    }
    x.dom[0] = x.dom[r] = r;
    for (uint32_t i = 2; i <= x.n; i++) {
        uint32_t w = x.vertex[i];
        if (x.dom[w] != x.vertex[x.semi[w]])
            x.dom[w] = x.dom[x.dom[w]];
    }
    t->n = N;
    t->root = x.root;
    t->idom = malloc(al * sizeof *t->idom);
    t->retained = malloc(al * sizeof *t->retained);
    if (!t->idom || !t->retained)
        goto nomem;
    for (uint32_t o = 0; o < N; o++) {
        t->idom[o] = x.dom[o + 1] - 1;
        t->retained[o] = graph_node_size(g, o);
    }
    for (uint32_t i = x.n; i > 1; i--) {
        uint32_t o = x.vertex[i] - 1;
        t->retained[t->idom[o]] += t->retained[o];
    }
    goto out;
nomem:
    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory computing memlab's dominators");
    mldom_free(t);
out:
    free(x.flags);
    free(x.parent);
    free(x.ancestor);
    free(x.vertex);
    free(x.label);
    free(x.semi);
    free(x.dom);
    free(x.next_edge);
    free(rfirst);
    free(rlist);
    free(stack);
    free(bucket);
    free(bnext);
    return st;
}
