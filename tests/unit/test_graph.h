/* SPDX-License-Identifier: Apache-2.0 */
/* test_graph.h: small hand-built graphs for the unit tests of the analyses (not a test
 * itself: the build registers only *_test.c). Edges are given as a list in the order the
 * test wants them walked; tg_edges lays them out as CSR, grouped by source, order kept. */
#ifndef LR_TEST_GRAPH_H
#define LR_TEST_GRAPH_H

#include <stdlib.h>

#include "graph/graph.h"

typedef struct tedge {
    uint32_t from, to; /* node indices */
    uint8_t kind;      /* GRAPH_EDGE_MAKE(kind, strength) */
} tedge;

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
