/* SPDX-License-Identifier: Apache-2.0 */
/* info.c: one pass over a loaded graph counting what `leakray info` shows (analysis layer),
 * prefix info_. Nothing here interprets the format beyond what the graph records. */
#include "analysis/info.h"

#include "base/err.h"

#include <stdlib.h>
#include <string.h>

void info_count(const graph *g, const char *path, info_result *c)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->path = path;
    uint8_t *is_string = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    if (is_string)
        for (class_ix k = 0; k < g->n_classes; k++)
            is_string[k] = strcmp(graph_str(g, g->classes[k].name), "java.lang.String") == 0;
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        unsigned k = g->node_kind[n] < GRAPH_KIND_COUNT ? g->node_kind[n] : GRAPH_KIND_OTHER;
        c->kind_count[k]++;
        c->kind_shallow[k] += graph_node_size(g, n);
        c->shallow += graph_node_size(g, n);
        if (g->node_native)
            c->native += g->node_native[n];
        unsigned dom = graph_node_dom(g, n);
        c->dom[dom < 3 ? dom : 0]++;
        if (dom == GRAPH_DOM_DETACHED)
            c->detached_shallow += graph_node_size(g, n);
        if (g->node_heap && g->node_heap[n] < GRAPH_MAX_HEAPS) {
            c->heap_count[g->node_heap[n]]++;
            c->heap_shallow[g->node_heap[n]] += graph_node_size(g, n);
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
