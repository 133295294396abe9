/* SPDX-License-Identifier: Apache-2.0 */
/* v8_load.c: libFuzzer target for the V8/ArkTS `.heapsnapshot` reader. The bytes go through
 * mfile_from_memory (gzip input is inflated under a small cap) and straight into
 * fmt_v8_reader, whatever fmt_find would pick, so every mutation exercises the JSON scanner,
 * the meta checks, the integer arrays and the DevTools naming passes. A graph that loads is
 * then run through devtools_build (dominators, distances, class aggregates) and a bounded walk
 * of names and the analyses of analyses.h, because a reader that accepts bad bytes must not
 * leave them for a later stage.
 * Everything is freed before returning, so LeakSanitizer sees leaks on error paths. Built
 * with tests/fuzz/replay_main.c it replays tests/fuzz/corpus/v8_load/ in `make test`. */
#include "analysis/devtools.h"
#include "analyses.h"
#include "base/mfile.h"
#include "format/v8.h"
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
    if (mfile_from_memory(&m, data, size, FUZZ_MAX_INFLATE, "fuzz.heapsnapshot", &err) !=
        LR_OK) {
        mfile_close(&m);
        return 0;
    }
    graph g;
    graph_init(&g);
    fmt_opts o = {.dump_index = -1, .no_edges = 0, .progress = 0};
    if (fmt_v8_reader.load(&g, &m, &o, &err) == LR_OK) {
        devtools_result r;
        lr_error e2;
        memset(&e2, 0, sizeof e2);
        if (devtools_build(&g, v8_class_keys(&g), &r, &e2) == LR_OK)
            devtools_free(&r);
        char buf[128];
        uint64_t sum = 0;
        uint32_t n = g.n_nodes < FUZZ_MAX_WALK ? g.n_nodes : FUZZ_MAX_WALK;
        for (node_ix i = 0; i < n; i++) {
            sum += strlen(graph_class_name(&g, i)) + graph_find_id(&g, graph_node_id(&g, i));
            for (edge_ix e = g.first_edge[i]; e < g.first_edge[i + 1]; e++)
                sum += strlen(graph_edge_name_text(&g, e, buf, sizeof buf));
        }
        fuzz_analyses(&g);
        if (sum == 0x5eedULL)
            buf[0] = 0;
    }
    graph_fini(&g);
    mfile_close(&m);
    return 0;
}
