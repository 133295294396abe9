/* SPDX-License-Identifier: Apache-2.0 */
/* test_graph.h: small hand-built graphs for the unit tests of the analyses (not a test
 * itself: the build registers only *_test.c). Edges are given as a list in the order the
 * test wants them walked; tg_edges lays them out as CSR, grouped by source, order kept. */
#ifndef LR_TEST_GRAPH_H
#define LR_TEST_GRAPH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

typedef struct tedge {
    uint32_t from, to; /* node indices */
    uint8_t kind;      /* GRAPH_EDGE_MAKE(kind, strength) */
} tedge;

/* Initialises g with n instances, node i of its own class named names[i] ("C<i>" when names
 * is NULL), id 0x100 + i, shallow size `size`, no payload. Asserts on allocation failure. */
static inline void tg_nodes(graph *g, uint32_t n, const char *const *names, uint32_t size)
{
    lr_error err = {0};
    graph_init(g);
    assert_int_equal(graph_alloc_nodes(g, n, 0, &err), LR_OK);
    g->classes = calloc(n ? n : 1, sizeof *g->classes);
    assert_non_null(g->classes);
    g->n_classes = n;
    for (uint32_t i = 0; i < n; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "C%02u", i);
        const char *nm = names ? names[i] : buf;
        assert_int_equal(graph_intern(g, nm, strlen(nm), &g->classes[i].name, &err), LR_OK);
        g->classes[i].node = GRAPH_NONE;
        g->classes[i].super = GRAPH_NONE;
        g->node_id[i] = 0x100 + i;
        g->node_class[i] = i;
        g->node_size[i] = size;
        g->node_kind[i] = GRAPH_KIND_INSTANCE;
        g->node_type[i] = 0;
        g->node_off[i] = UINT64_MAX;
        g->node_len[i] = 0;
    }
}

/* Fills g's edges from es[0..ne) (g's nodes must be allocated). Edge names: the edge's
 * position in es when number_names, else 0. Asserts on allocation failure. */
static inline void tg_edges(graph *g, const tedge *es, uint32_t ne, int number_names)
{
    lr_error err = {0};
    uint32_t n = g->n_nodes;
    assert_int_equal(graph_alloc_edges(g, ne, &err), LR_OK);
    for (uint32_t i = 0; i < ne; i++)
        g->first_edge[es[i].from + 1]++;
    for (uint32_t i = 0; i < n; i++)
        g->first_edge[i + 1] += g->first_edge[i];
    uint32_t *fill = calloc((size_t)n + 1, sizeof *fill);
    assert_non_null(fill);
    for (uint32_t i = 0; i < ne; i++) {
        uint32_t at = g->first_edge[es[i].from] + fill[es[i].from]++;
        g->edge_to[at] = es[i].to;
        g->edge_name[at] = number_names ? i : 0;
        g->edge_kind[at] = es[i].kind;
    }
    free(fill);
}

#endif
