/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_load.c: libFuzzer target for the load path of untrusted dumps. The bytes go through
 * mfile_from_memory (so gzip/bzip2 input is inflated, under a small cap), fmt_find picks the
 * reader, and the reader builds the whole graph with edges; then the graph helpers that
 * decode raw bytes lazily (field values, strings, edge names, reverse edges) are run over a
 * bounded number of nodes, because a reader that accepts bad bytes must not leave them for a
 * later stage to trip over; then the analyses (analyses.h). Everything is freed before
 * returning, so LeakSanitizer sees leaks on error paths. Built with tests/fuzz/replay_main.c
 * it replays the corpus in `make test`. */
#include "analyses.h"
#include "analysis/native.h"
#include "base/mfile.h"
#include "format/fmt.h"
#include "format/hprof.h"
#include "format/hprof_internal.h"
#include "graph/graph.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Caps keep one input's work small so the fuzzer explores instead of decoding one giant
 * array: 64 MiB inflated and at most this many nodes walked after the load. */
#define FUZZ_MAX_INFLATE (64ull << 20)
#define FUZZ_MAX_WALK 4096u

/* An HPROF dump loaded again with pass 2 split in two halves (as dumps of 4 MiB or more
 * are) and the edge walk going backward (as on dumps larger than half the memory: pass 2
 * then counts the non-null reference slots, reading them through the class layouts) must
 * give the graph the one-thread load gave: nodes, edges, and every node's kind,
 * class, size and length (the second half's array lengths are written from the end
 * down and turned round after the join). */
static void same_split(const fmt_reader *r, const mfile *m, const graph *g)
{
    graph s;
    lr_error err;
    memset(&err, 0, sizeof err);
    graph_init(&s);
    fmt_opts o = {.dump_index = -1, .no_edges = 0, .progress = 0};
    uint64_t saved = hprof_split_min_bytes;
    uint32_t saved_min = hprof_edge_split_min;
    hprof_split_min_bytes = 1;
    hprof_edges_back_min = 1;
    hprof_edge_split_min = 0;
    hprof_edge_chunks = 3;
    lr_status st = r->load(&s, m, &o, &err);
    hprof_split_min_bytes = saved;
    hprof_edges_back_min = 0;
    hprof_edge_split_min = saved_min;
    hprof_edge_chunks = 0;
    if (st != LR_OK || s.n_nodes != g->n_nodes || s.n_edges != g->n_edges)
        abort();
    for (edge_ix e = 0; e < g->n_edges; e++)
        if (s.edge_to[e] != g->edge_to[e] || s.edge_kind[e] != g->edge_kind[e])
            abort();
    for (node_ix i = 0; i < g->n_nodes; i++) /* a few loads each: every node */
        if (s.node_kind[i] != g->node_kind[i] ||
            graph_node_class(&s, i) != graph_node_class(g, i) ||
            graph_node_size(&s, i) != graph_node_size(g, i) ||
            graph_node_len(&s, i) != graph_node_len(g, i))
            abort();
    graph_fini(&s);
}

static int count_field(void *ctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    uint64_t *sum = ctx;
    *sum += v->raw + f->type + decl;
    return 0;
}

static void walk(graph *g)
{
    char buf[256];
    uint64_t sum = 0;
    lr_error err;
    memset(&err, 0, sizeof err);
    if (graph_build_reverse(g, &err) != LR_OK)
        return;
    uint32_t n = g->n_nodes < FUZZ_MAX_WALK ? g->n_nodes : FUZZ_MAX_WALK;
    for (node_ix i = 0; i < n; i++) {
        graph_fields_each(g, i, count_field, &sum);
        (void)graph_string_value(g, i, buf, sizeof buf);
        (void)graph_class_name(g, i);
        for (edge_ix e = g->first_edge ? g->first_edge[i] : 0;
             g->first_edge && e < g->first_edge[i + 1]; e++) {
            (void)graph_edge_name_text(g, e, buf, sizeof buf);
            sum += g->edge_to[e];
        }
        if (graph_has_ids(g)) {
            /* the values an HPROF graph reads back from its records */
            sum += graph_find_id(g, graph_node_id(g, i)) + graph_node_len(g, i);
            sum += graph_node_size(g, i) + graph_node_off(g, i);
        }
    }
    for (class_ix c = 0; c < g->n_classes && c < FUZZ_MAX_WALK; c++) {
        graph_value v;
        (void)graph_static_find(g, c, "value", &v);
        (void)graph_str(g, g->classes[c].name);
    }
    /* Keeps the loop from being optimised away. */
    if (sum == 0x5eedULL)
        buf[0] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mfile m;
    lr_error err;
    memset(&m, 0, sizeof m);
    memset(&err, 0, sizeof err);
    if (mfile_from_memory(&m, data, size, FUZZ_MAX_INFLATE, "fuzz.hprof", &err) != LR_OK) {
        mfile_close(&m);
        return 0;
    }
    const fmt_reader *r = fmt_find(m.data, m.len);
    if (r) {
        graph g;
        graph_init(&g);
        fmt_opts o = {.dump_index = -1, .no_edges = 0, .progress = 0};
        lr_status full = r->load(&g, &m, &o, &err);
        if (full == LR_OK && r == &fmt_hprof_reader)
            same_split(r, &m, &g);
        if (full == LR_OK) {
            walk(&g);
            /* as every verb does after loading: Cleaner-freed native sizes join shallow ones */
            lr_error nerr = {.code = LR_OK};
            (void)native_assign(&g, NULL, &nerr);
            fuzz_analyses(&g);
        }
        /* Counting references (info's load) must accept and count exactly what the full
         * load does. */
        graph c;
        graph_init(&c);
        fmt_opts oc = {.dump_index = -1, .count_edges = 1};
        lr_status counted = r->load(&c, &m, &oc, &err);
        if (counted != full || (full == LR_OK && c.n_edges != g.n_edges))
            abort();
        graph_fini(&c);
        graph_fini(&g);
    }
    mfile_close(&m);
    return 0;
}
