/* SPDX-License-Identifier: Apache-2.0 */
/* info.c: one pass over a loaded graph counting what `leakray info` shows (analysis layer),
 * prefix info_. Nothing here interprets the format beyond what the graph records. A graph
 * that reads sizes back from its input (graph.derive) reads an array's record for its size:
 * one read per node, and the record of the array INFO_AHEAD nodes on is fetched ahead so its
 * cache miss is under way instead of waited for (nodes are in record order). */
#include "analysis/info.h"

#include "base/err.h"

#include <stdlib.h>
#include <string.h>

#define INFO_AHEAD 16 /* nodes between an array record's fetch and its read */

/* Starts fetching the record of node z when its size is read from it (an array's length and
 * element type sit just before its payload: a line before the payload's first byte). The
 * offset of a primitive array is itself read back from its record's tag: that read starts
 * the same miss, INFO_AHEAD nodes before the size needs it. */
static inline void fetch_record(const graph *g, node_ix z)
{
    uint8_t k = g->node_kind[z];
    if (k != GRAPH_KIND_OBJ_ARRAY && k != GRAPH_KIND_PRIM_ARRAY)
        return;
    uint64_t off = graph_node_off(g, z);
    if (off >= 16 && off <= g->data_len) {
        __builtin_prefetch(g->data + off - 16);
        __builtin_prefetch(g->data + off - 1);
    }
}

void info_count(const graph *g, const char *path, info_result *c)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->path = path;
    uint8_t *is_string = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    if (is_string)
        for (class_ix k = 0; k < g->n_classes; k++)
            is_string[k] = strcmp(graph_str(g, g->classes[k].name), "java.lang.String") == 0;
    int ahead = !g->node_size && g->derive && g->data;
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        if (ahead && g->n_nodes - n > INFO_AHEAD)
            fetch_record(g, n + INFO_AHEAD);
        unsigned k = g->node_kind[n] < GRAPH_KIND_COUNT ? g->node_kind[n] : GRAPH_KIND_OTHER;
        uint32_t size = graph_node_size(g, n);
        c->kind_count[k]++;
        c->kind_shallow[k] += size;
        c->shallow += size;
        if (g->node_native)
            c->native += g->node_native[n];
        unsigned dom = graph_node_dom(g, n);
        c->dom[dom < 3 ? dom : 0]++;
        if (dom == GRAPH_DOM_DETACHED)
            c->detached_shallow += size;
        if (g->node_heap && g->node_heap[n] < GRAPH_MAX_HEAPS) {
            c->heap_count[g->node_heap[n]]++;
            c->heap_shallow[g->node_heap[n]] += size;
        }
        class_ix cl = graph_node_class(g, n);
        if (k == GRAPH_KIND_STRING || (is_string && cl < g->n_classes && is_string[cl]))
            c->strings++;
    }
    free(is_string);
    for (uint32_t r = 0; r < g->n_roots; r++) {
        unsigned k = g->roots[r].kind;
        c->root_count[k < GRAPH_ROOT_KIND_COUNT ? k : GRAPH_ROOT_KIND_COUNT]++;
    }
}
