/* SPDX-License-Identifier: Apache-2.0 */
/* info.c: one pass over a loaded graph counting what `leakray info` shows (analysis layer),
 * prefix info_. Nothing here interprets the format beyond what the graph records. A graph
 * that reads sizes back from its input (graph.derive) reads an array's record for its size, a
 * cache miss per node: the kind with the most such nodes is not read at all (its bytes are
 * the shallow total the reader added up, less the other kinds'), and the records of the
 * others are fetched INFO_AHEAD nodes ahead so their misses overlap (nodes are in record
 * order). O(N + R), one core. */
#include "analysis/info.h"

#include "base/err.h"

#include <stdlib.h>
#include <string.h>

#define INFO_AHEAD GRAPH_SIZE_AHEAD /* nodes between a record's fetch and its size read */

/* Nodes per kind (kinds past GRAPH_KIND_COUNT as GRAPH_KIND_OTHER). */
static void kind_census(const graph *g, uint64_t out[GRAPH_KIND_COUNT])
{
    uint64_t t[256];
    graph_kind_census(g, t);
    for (unsigned v = 0; v < 256; v++)
        out[v < GRAPH_KIND_COUNT ? v : GRAPH_KIND_OTHER] += t[v];
}

/* The kind whose shallow bytes are the shallow total less every other kind's, so that none of
 * its sizes is read: the size-reading kind (graph.size_read_kinds: an HPROF array's size is
 * in its record, a cache miss each) with the most nodes. Only when the total is known without
 * a pass of its own (graph.shallow_known) and no other count needs each node's size (heaps,
 * detached DOM nodes). GRAPH_KIND_COUNT: every size is read. */
static unsigned rest_kind(const graph *g, const uint64_t count[GRAPH_KIND_COUNT])
{
    unsigned best = GRAPH_KIND_COUNT;
    if (g->node_size || !g->shallow_known || g->node_heap || g->node_dom)
        return best;
    for (unsigned k = 0; k < GRAPH_KIND_COUNT; k++)
        if ((g->size_read_kinds >> k & 1) && count[k] &&
            (best == GRAPH_KIND_COUNT || count[k] > count[best]))
            best = k;
    return best;
}

/* The per-node counts, apart from the result so that their sums stay in registers. */
typedef struct info_part {
    const graph *g;
    const uint8_t *is_string; /* per class: java.lang.String, or NULL */
    unsigned rest;            /* rest_kind: its sizes are not read */
    uint32_t ahead_kinds;     /* kinds (bits) whose records are fetched ahead */
    uint64_t kind_shallow[GRAPH_KIND_COUNT];
    uint64_t heap_count[GRAPH_MAX_HEAPS];
    uint64_t heap_shallow[GRAPH_MAX_HEAPS];
    uint64_t native, strings, dom[3], detached_shallow;
} info_part;

/* The counts of p's nodes. The sums live in locals (sums in the result, which the graph's
 * pointers might alias, made each node wait on the previous one's store) and the per-node
 * extras (native bytes, DOM state, heaps) are tested once, so a node costs its kind, its
 * class when some class is a string's, and its size unless its kind is the rest. */
static void count_nodes(info_part *p)
{
    const graph *g = p->g;
    const uint8_t *kinds = g->node_kind, *is_string = p->is_string;
    const unsigned rest = p->rest;
    const uint32_t ahead_kinds = p->ahead_kinds, n_nodes = g->n_nodes;
    const int extras = g->node_native || g->node_dom || g->node_heap;
    uint64_t sh[GRAPH_KIND_COUNT] = {0}, strings = 0;
    for (node_ix n = 0; n < n_nodes; n++) {
        if (ahead_kinds && n_nodes - n > INFO_AHEAD) {
            unsigned z = kinds[n + INFO_AHEAD];
            if (z < 32 && (ahead_kinds >> z & 1))
                g->size_ahead(g, n + INFO_AHEAD);
        }
        unsigned k = kinds[n] < GRAPH_KIND_COUNT ? kinds[n] : GRAPH_KIND_OTHER;
        if (k == GRAPH_KIND_STRING) {
            strings++;
        } else if (is_string) {
            class_ix cl = graph_node_class(g, n);
            strings += cl < g->n_classes && is_string[cl];
        }
        uint32_t size = k == rest ? 0 : graph_node_size(g, n);
        sh[k] += size;
        if (!extras)
            continue;
        if (g->node_native)
            p->native += g->node_native[n];
        unsigned dom = graph_node_dom(g, n);
        p->dom[dom < 3 ? dom : 0]++;
        if (dom == GRAPH_DOM_DETACHED)
            p->detached_shallow += size;
        if (g->node_heap && g->node_heap[n] < GRAPH_MAX_HEAPS) {
            p->heap_count[g->node_heap[n]]++;
            p->heap_shallow[g->node_heap[n]] += size;
        }
    }
    if (!extras)
        p->dom[GRAPH_DOM_UNKNOWN] = n_nodes;
    for (unsigned k = 0; k < GRAPH_KIND_COUNT; k++)
        p->kind_shallow[k] = sh[k];
    p->strings = strings;
}

void info_count(const graph *g, const char *path, info_result *c)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->path = path;
    uint8_t *is_string = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    int any_string = 0;
    if (is_string)
        for (class_ix k = 0; k < g->n_classes; k++)
            any_string |= is_string[k] =
                strcmp(graph_str(g, g->classes[k].name), "java.lang.String") == 0;
    kind_census(g, c->kind_count);
    /* One pass on one core: halves on two cores cost more in all (1 GB dump: 86 -> 124 ms
     * CPU, and no less wall), their size reads contending for the mapped records. */
    info_part p;
    memset(&p, 0, sizeof p);
    p.g = g;
    p.is_string = any_string ? is_string : NULL;
    p.rest = rest_kind(g, c->kind_count);
    /* fetch ahead the records whose sizes are read: never those of the kind left to the end */
    p.ahead_kinds = g->node_size ? 0 : g->size_read_kinds & ~(1u << p.rest);
    count_nodes(&p);
    free(is_string);
    for (unsigned k = 0; k < GRAPH_KIND_COUNT; k++) {
        c->kind_shallow[k] = p.kind_shallow[k];
        c->shallow += p.kind_shallow[k];
    }
    memcpy(c->heap_count, p.heap_count, sizeof c->heap_count);
    memcpy(c->heap_shallow, p.heap_shallow, sizeof c->heap_shallow);
    c->native = p.native;
    c->strings = p.strings;
    memcpy(c->dom, p.dom, sizeof c->dom);
    c->detached_shallow = p.detached_shallow;
    unsigned rest = p.rest;
    if (rest < GRAPH_KIND_COUNT) {
        /* graph_shallow_total is the sum of every node's graph_node_size (graph.h) */
        c->kind_shallow[rest] = graph_shallow_total(g) - c->shallow;
        c->shallow += c->kind_shallow[rest];
    }
    for (uint32_t r = 0; r < g->n_roots; r++) {
        unsigned k = g->roots[r].kind;
        c->root_count[k < GRAPH_ROOT_KIND_COUNT ? k : GRAPH_ROOT_KIND_COUNT]++;
    }
}

/* ---- Root categories (graphs with a synthetic root) ---- */

static int cmp_node(const void *a, const void *b)
{
    node_ix x = *(const node_ix *)a, y = *(const node_ix *)b;
    return (x > y) - (x < y);
}

/* The categories are found breadth first from the root through synthetic nodes only, so that
 * (GC roots) is walked into its sub-roots and each lists in the snapshot's edge order, as
 * DevTools' Containment view does. One bit per node marks both the synthetic nodes queued and
 * the objects counted (a node is one or the other). Weak edges (V8's weak global handles)
 * keep nothing alive, so what they reach is not held. */
node_ix info_synthetic_root(const graph *g)
{
    if (g->synthetic_root != GRAPH_NONE)
        return g->synthetic_root;
    /* Dart's snapshot roots everything in its Root object, a synthetic node the reader
     * records as the one root entry */
    if (g->n_roots == 1 && g->roots[0].kind == GRAPH_ROOT_SYNTHETIC &&
        g->roots[0].node < g->n_nodes && g->node_kind[g->roots[0].node] == GRAPH_KIND_SYNTHETIC)
        return g->roots[0].node;
    return GRAPH_NONE;
}

lr_status info_root_cats(const graph *g, info_roots *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    node_ix root = info_synthetic_root(g);
    if (root == GRAPH_NONE || root >= g->n_nodes || !g->first_edge || !g->edge_to)
        return LR_OK;
    uint64_t *bit = calloc((size_t)g->n_nodes / 64 + 1, sizeof *bit);
    node_ix *queue = NULL, *held = NULL;
    size_t n_queue = 0, cap_queue = 64, head = 0, cap_held = 0;
    lr_status st = LR_OK;
    queue = malloc(cap_queue * sizeof *queue);
    if (!bit || !queue) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "info: out of memory for the root categories");
        goto done;
    }
    queue[n_queue++] = root;
    bit[root / 64] |= 1ull << (root % 64);
    while (head < n_queue) {
        node_ix s = queue[head++];
        edge_ix e0 = g->first_edge[s], e1 = g->first_edge[s + 1];
        if (e1 - e0 > cap_held) {
            node_ix *t = realloc(held, (size_t)(e1 - e0) * sizeof *t);
            if (!t) {
                st = LR_FAIL(err, LR_ERR_NOMEM, "info: out of memory for the root categories");
                goto done;
            }
            held = t;
            cap_held = e1 - e0;
        }
        size_t n_held = 0;
        for (edge_ix e = e0; e < e1; e++) {
            node_ix x = g->edge_to[e];
            unsigned k = g->edge_kind[e];
            if (x >= g->n_nodes || GRAPH_EDGE_KIND(k) == GRAPH_EDGE_WEAK ||
                GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG)
                continue;
            int marked = (bit[x / 64] >> (x % 64)) & 1;
            if (g->node_kind[x] != GRAPH_KIND_SYNTHETIC) {
                held[n_held++] = x;
                r->objects += !marked;
            } else if (!marked) {
                if (n_queue == cap_queue) {
                    node_ix *t = realloc(queue, 2 * cap_queue * sizeof *t);
                    if (!t) {
                        st = LR_FAIL(err, LR_ERR_NOMEM,
                                     "info: out of memory for the root categories");
                        goto done;
                    }
                    queue = t;
                    cap_queue *= 2;
                }
                queue[n_queue++] = x;
            }
            bit[x / 64] |= 1ull << (x % 64);
        }
        if (!n_held)
            continue;
        /* an object held twice by one category (V8's stack slots) counts once there */
        qsort(held, n_held, sizeof *held, cmp_node);
        uint64_t distinct = 1;
        for (size_t i = 1; i < n_held; i++)
            distinct += held[i] != held[i - 1];
        if (r->n_cats < INFO_MAX_ROOT_CATS)
            r->cats[r->n_cats] = (info_root_cat){s, distinct};
        r->n_cats++;
    }
done:
    free(bit);
    free(queue);
    free(held);
    if (st != LR_OK)
        memset(r, 0, sizeof *r);
    return st;
}
