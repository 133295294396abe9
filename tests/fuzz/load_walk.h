/* SPDX-License-Identifier: Apache-2.0 */
/* load_walk.h: the body of the fuzz targets of the readers added beside HPROF and V8 (Ruby,
 * JSON lines, Dart; not a target itself). fuzz_load_walk feeds the bytes through
 * mfile_from_memory (gzip inflated under a small cap) straight into one reader, whatever
 * fmt_find would pick; a graph that loads is walked (class names, id lookups, edge names and
 * targets, roots) and run through the analyses (analyses.h), so a reader that accepts bad
 * bytes cannot leave them for a later stage. Everything is freed (LeakSanitizer). */
#ifndef LR_FUZZ_LOAD_WALK_H
#define LR_FUZZ_LOAD_WALK_H

#include "analyses.h"
#include "analysis/dupes.h"
#include "base/mfile.h"
#include "format/fmt.h"
#include "graph/graph.h"

#include <stdint.h>
#include <string.h>

#define FUZZ_MAX_INFLATE (64ull << 20)
#define FUZZ_MAX_WALK 4096u

static int fuzz_load_walk(const fmt_reader *reader, const char *name, const uint8_t *data,
                          size_t size)
{
    mfile m;
    lr_error err;
    memset(&m, 0, sizeof m);
    memset(&err, 0, sizeof err);
    if (mfile_from_memory(&m, data, size, FUZZ_MAX_INFLATE, name, &err) != LR_OK) {
        mfile_close(&m);
        return 0;
    }
    graph g;
    graph_init(&g);
    fmt_opts o = {.dump_index = -1, .no_edges = 0, .progress = 0};
    if (reader->load(&g, &m, &o, &err) == LR_OK) {
        char buf[128];
        uint64_t sum = 0;
        uint32_t n = g.n_nodes < FUZZ_MAX_WALK ? g.n_nodes : FUZZ_MAX_WALK;
        for (node_ix i = 0; i < n; i++) {
            sum += strlen(graph_class_name(&g, i)) + graph_find_id(&g, graph_node_id(&g, i));
            /* string values the record states (Ruby): a short buffer cuts long ones */
            sum += (uint64_t)graph_string_value(&g, i, buf, 8);
            for (edge_ix e = g.first_edge[i]; e < g.first_edge[i + 1]; e++)
                sum += strlen(graph_edge_name_text(&g, e, buf, sizeof buf)) + g.edge_to[e];
        }
        for (uint32_t r = 0; r < g.n_roots; r++)
            sum += g.roots[r].node;
        if (sum == 0x5eedULL)
            buf[0] = 0;
        fuzz_analyses(&g);
        /* duplicate strings group on the values the reader kept */
        dupes_opts dopt = {0, DUPES_DEFAULT_MIN_BITMAP, 0};
        dupes_result dr;
        memset(&err, 0, sizeof err);
        if (dupes_find_groups(&g, &dopt, &dr, &err) == LR_OK)
            dupes_free(&dr);
    }
    graph_fini(&g);
    mfile_close(&m);
    return 0;
}

#endif
