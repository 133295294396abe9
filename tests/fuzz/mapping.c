/* SPDX-License-Identifier: Apache-2.0 */
/* mapping.c: libFuzzer target for the ProGuard/R8 mapping reader (src/rules/mapping.c). The
 * input bytes are the mapping text; they are applied to a small obfuscated graph
 * (tests/unit/mapping_graph.h: classes a, b extends a, a[], fields, a static), so
 * both the parser and the renaming of classes, fields, statics and edge names run. Any bytes
 * must apply or fail with LR_ERR_RULES / LR_ERR_NOMEM, never crash or leak. */
#include "graph/graph.h"
#include "rules/mapping.h"
#include "../unit/mapping_graph.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    graph g;
    graph_init(&g);
    build(&g);
    lr_error err;
    memset(&err, 0, sizeof err);
    lr_status st = mapping_apply_text(&g, "fuzz.map", (const char *)data, size, &err);
    if (st != LR_OK && st != LR_ERR_RULES && st != LR_ERR_NOMEM)
        __builtin_trap();
    char buf[256];
    size_t sum = 0;
    for (class_ix c = 0; c < g.n_classes; c++)
        sum += strlen(graph_str(&g, g.classes[c].name));
    for (edge_ix e = 0; e < g.n_edges; e++)
        sum += strlen(graph_edge_name_text(&g, e, buf, sizeof buf));
    if (sum == 0x5eed)
        g.timestamp_ms = 1;
    graph_fini(&g);
    return 0;
}
