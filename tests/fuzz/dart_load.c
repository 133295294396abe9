/* SPDX-License-Identifier: Apache-2.0 */
/* dart_load.c: libFuzzer target for the Dart VM heap snapshot reader ("dartheap", both
 * layouts). The bytes go through mfile_from_memory (gzip inflated under a small cap) and straight
 * into fmt_dart_reader, so every mutation reaches the LEB128 decoding, the class and field
 * tables, the data payloads and the references. A graph that loads is walked (class names,
 * id lookups, edge names) so a reader that accepts bad bytes cannot leave them for a later
 * stage, then run through the analyses (analyses.h). Everything is freed before
 * returning, so LeakSanitizer sees leaks on error paths.
 * Built with tests/fuzz/replay_main.c it replays tests/fuzz/corpus/dart_load/ in make test. */
#include "analyses.h"
#include "base/mfile.h"
#include "format/dart.h"
#include "graph/graph.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_INFLATE (64ull << 20)
#define FUZZ_MAX_WALK 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mfile m;
    lr_error err;
    memset(&m, 0, sizeof m);
    memset(&err, 0, sizeof err);
    if (mfile_from_memory(&m, data, size, FUZZ_MAX_INFLATE, "fuzz.dartheap", &err) != LR_OK) {
        mfile_close(&m);
        return 0;
    }
    graph g;
    graph_init(&g);
    fmt_opts o = {.dump_index = -1, .no_edges = 0, .progress = 0};
    if (fmt_dart_reader.load(&g, &m, &o, &err) == LR_OK) {
        char buf[128];
        uint64_t sum = 0;
        uint32_t n = g.n_nodes < FUZZ_MAX_WALK ? g.n_nodes : FUZZ_MAX_WALK;
        for (node_ix i = 0; i < n; i++) {
            sum += strlen(graph_class_name(&g, i)) + graph_find_id(&g, graph_node_id(&g, i));
            for (edge_ix e = g.first_edge[i]; e < g.first_edge[i + 1]; e++)
                sum += strlen(graph_edge_name_text(&g, e, buf, sizeof buf)) + g.edge_to[e];
        }
        for (uint32_t r = 0; r < g.n_roots; r++)
            sum += g.roots[r].node;
        if (sum == 0x5eedULL)
            buf[0] = 0;
        fuzz_analyses(&g);
    }
    graph_fini(&g);
    mfile_close(&m);
    return 0;
}
