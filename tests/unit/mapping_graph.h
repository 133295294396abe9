/* SPDX-License-Identifier: Apache-2.0 */
/* mapping_graph.h: the small hand-built graph the --mapping unit test and fuzz target rename
 * (not a test itself): two classes with an inherited and a shadowing field, a static, an
 * object array, and five stack frames (methods d, d, e of a; f of b; y of unmapped x).
 * Aborts on allocation failure (the fuzz target has no test framework). */
#ifndef LR_TEST_MAPPING_GRAPH_H
#define LR_TEST_MAPPING_GRAPH_H

#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

static str_ix S(graph *g, const char *s)
{
    str_ix x = GRAPH_NONE;
    lr_error err;
    if (graph_intern(g, s, strlen(s), &x, &err) != LR_OK)
        abort();
    return x;
}

/* Nodes: 0 class object of a, 1 class object of b, 2 instance of b, 3 a[] array. */
static void build(graph *g)
{
    lr_error err;
    memset(&err, 0, sizeof err);
    if (graph_alloc_nodes(g, 4, 0, &err) != LR_OK || graph_alloc_edges(g, 4, &err) != LR_OK)
        abort();
    g->n_classes = 3;
    g->classes = calloc(3, sizeof *g->classes);
    g->n_fields = 3;
    g->fields = calloc(3, sizeof *g->fields);
    g->n_statics = 1;
    g->statics = calloc(1, sizeof *g->statics);
    if (!g->classes || !g->fields || !g->statics)
        abort();
    g->fields[0] = (graph_field){S(g, "a"), GRAPH_FT_OBJECT};
    g->fields[1] = (graph_field){S(g, "b"), GRAPH_FT_INT};
    g->fields[2] = (graph_field){S(g, "a"), GRAPH_FT_OBJECT};
    g->statics[0] = (graph_static){S(g, "c"), GRAPH_FT_OBJECT, 0};
    g->classes[0] = (graph_class){.name = S(g, "a"), .super = GRAPH_NONE, .node = 0, .id = 1,
                                  .first_field = 0, .n_fields = 2, .n_statics = 1};
    g->classes[1] = (graph_class){.name = S(g, "b"), .super = 0, .node = 1, .id = 2,
                                  .first_field = 2, .n_fields = 1, .first_static = 1};
    g->classes[2] = (graph_class){.name = S(g, "a[]"), .super = GRAPH_NONE, .node = GRAPH_NONE,
                                  .elem_type = GRAPH_FT_OBJECT, .flags = GRAPH_CLASS_ARRAY};
    static const uint8_t kinds[4] = {GRAPH_KIND_CLASS, GRAPH_KIND_CLASS, GRAPH_KIND_INSTANCE,
                                     GRAPH_KIND_OBJ_ARRAY};
    static const class_ix cls[4] = {GRAPH_NONE, GRAPH_NONE, 1, 2};
    for (node_ix n = 0; n < 4; n++) {
        g->node_id[n] = n + 1;
        g->node_class[n] = cls[n];
        g->node_size[n] = 16;
        g->node_kind[n] = g->node_type[n] = kinds[n];
        g->node_off[n] = UINT64_MAX;
        g->node_len[n] = 0;
    }
    /* 0 -c-> 2 (static), 2 -a-> 3, 2 -a-> 0 (inherited and own field), 3 [0] -> 2 */
    static const edge_ix first[5] = {0, 1, 1, 3, 4};
    memcpy(g->first_edge, first, sizeof first);
    g->edge_to[0] = 2;
    g->edge_kind[0] = GRAPH_EDGE_MAKE(GRAPH_EDGE_STATIC, GRAPH_STRONG);
    g->edge_name[0] = S(g, "c");
    g->edge_to[1] = 3;
    g->edge_kind[1] = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
    g->edge_name[1] = S(g, "a");
    g->edge_to[2] = 0;
    g->edge_kind[2] = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
    g->edge_name[2] = S(g, "a");
    g->edge_to[3] = 2;
    g->edge_kind[3] = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
    g->edge_name[3] = 0;
    g->n_frames = 5;
    g->frames = calloc(5, sizeof *g->frames);
    if (!g->frames)
        abort();
    static const char *const fr[5][3] = {{"a", "d", "SourceFile"}, {"a", "d", "SourceFile"},
                                         {"a", "e", "SourceFile"}, {"b", "f", "SourceFile"},
                                         {"x", "y", "X.java"}};
    static const int32_t lines[5] = {3, 6, 8, 4, 11};
    for (uint32_t i = 0; i < 5; i++)
        g->frames[i] = (graph_frame){.class_name = S(g, fr[i][0]), .method = S(g, fr[i][1]),
                                     .source = S(g, fr[i][2]), .signature = GRAPH_NONE,
                                     .line = lines[i]};
}

#endif
