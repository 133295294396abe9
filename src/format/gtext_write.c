/* SPDX-License-Identifier: Apache-2.0 */
/* gtext_write.c: writes any loaded graph as the generic JSON-lines graph (format layer),
 * prefix gtext_. One header line, then every class, node (with its edges right after it, in
 * edge order), and root, so the reader rebuilds the same nodes, classes, CSR edge order, edge
 * kinds, strengths and names, roots and size model: the counts, shallow and retained sizes of
 * the copy equal the original's. What the format has no place for is not written: HPROF field
 * bytes and array contents (so primitive field values and strings' text), threads and stack
 * frames, heap tags. Names are escaped per RFC 8259; bytes that are not UTF-8 become U+FFFD
 * (the JSON writer's rule), so the output always parses. Streamed through base/outfile.h. */
#include "format/gtext.h"

#include "base/jsonw.h"
#include "base/outfile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON string through the JSON writer's escaping, into a small FILE on a buffer. */
typedef struct wctx {
    outfile *of;
    char *mem;       /* open_memstream buffer */
    size_t mem_len;
    FILE *mf;
    gtext_stats *st;
} wctx;

static void put(wctx *w, const char *s)
{
    size_t n = strlen(s);
    outfile_write(w->of, s, n);
    w->st->out_bytes += n;
}

static void put_str(wctx *w, const char *s)
{
    rewind(w->mf);
    jsonw j;
    jsonw_init(&j, w->mf, 0);
    jsonw_str(&j, s);
    fflush(w->mf);
    long n = ftell(w->mf);
    outfile_write(w->of, w->mem, (size_t)n);
    w->st->out_bytes += (uint64_t)n;
}

static void put_id(wctx *w, const graph *g, uint64_t id)
{
    char b[32];
    if (g->id_size || g->hex_ids)
        snprintf(b, sizeof b, "\"0x%" PRIx64 "\"", id);
    else
        snprintf(b, sizeof b, "%" PRIu64, id);
    put(w, b);
}

static const char *model_name(uint8_t m)
{
    switch (m) {
    case GRAPH_SIZES_VISUALVM: return "visualvm";
    case GRAPH_SIZES_SHARK: return "shark";
    case GRAPH_SIZES_DEVTOOLS: return "devtools";
    default: return "record";
    }
}

lr_status gtext_write(const graph *g, const char *out_path, gtext_stats *st, lr_error *err)
{
    memset(st, 0, sizeof *st);
    wctx w = {.st = st};
    w.mf = open_memstream(&w.mem, &w.mem_len);
    if (!w.mf)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory");
    lr_status s = outfile_open(out_path, &w.of, err);
    if (s != LR_OK) {
        fclose(w.mf);
        free(w.mem);
        return s;
    }
    uint32_t *names = NULL, cap = 0;
    char b[160];
    put(&w, "{\"leakray_graph\": 1, \"format\": ");
    put_str(&w, g->format ? g->format : "");
    put(&w, ", \"version\": ");
    put_str(&w, g->version);
    snprintf(b, sizeof b, ", \"size_model\": \"%s\", \"timestamp_ms\": %" PRIu64 "%s}\n",
             model_name(g->size_model), g->timestamp_ms,
             g->id_size || g->hex_ids ? ", \"hex_ids\": true" : "");
    put(&w, b);
    for (class_ix c = 0; c < g->n_classes; c++) {
        const graph_class *k = &g->classes[c];
        snprintf(b, sizeof b, "{\"class\": %u, \"name\": ", c);
        put(&w, b);
        put_str(&w, graph_str(g, k->name));
        if (k->super != GRAPH_NONE) {
            snprintf(b, sizeof b, ", \"super\": %u", k->super);
            put(&w, b);
        }
        if (k->node != GRAPH_NONE) {
            put(&w, ", \"node\": ");
            put_id(&w, g, graph_node_id(g, k->node));
        }
        put(&w, "}\n");
        st->classes++;
    }
    for (node_ix n = 0; n < g->n_nodes && !outfile_failed(w.of); n++) {
        uint64_t id = graph_node_id(g, n);
        put(&w, "{\"node\": ");
        put_id(&w, g, id);
        if (graph_node_class(g, n) != GRAPH_NONE) {
            snprintf(b, sizeof b, ", \"class\": %u", graph_node_class(g, n));
            put(&w, b);
        }
        snprintf(b, sizeof b, ", \"kind\": \"%s\", \"size\": %u",
                 graph_node_kind_name(g->node_kind[n]), graph_node_size(g, n));
        put(&w, b);
        if (g->node_native && g->node_native[n]) {
            snprintf(b, sizeof b, ", \"native\": %u", g->node_native[n]);
            put(&w, b);
        }
        if (g->node_name && g->node_name[n] != GRAPH_NONE) {
            put(&w, ", \"label\": ");
            put_str(&w, graph_str(g, g->node_name[n]));
        }
        put(&w, "}\n");
        st->nodes++;
        if (!g->first_edge)
            continue;
        edge_ix e0 = g->first_edge[n], e1 = g->first_edge[n + 1];
        if (e1 - e0 > cap) {
            uint32_t *nn = realloc(names, (size_t)(e1 - e0) * sizeof *nn);
            if (!nn) {
                s = LR_FAIL(err, LR_ERR_NOMEM, "out of memory");
                break;
            }
            names = nn;
            cap = e1 - e0;
        }
        if (e1 > e0)
            graph_edge_names_of(g, n, names);
        for (edge_ix e = e0; e < e1; e++) {
            unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
            put(&w, "{\"edge\": [");
            put_id(&w, g, id);
            put(&w, ", ");
            put_id(&w, g, graph_node_id(g, g->edge_to[e]));
            put(&w, "], \"name\": ");
            if (GRAPH_EDGE_NAME_IS_INDEX(kind)) {
                snprintf(b, sizeof b, "%u", names[e - e0]);
                put(&w, b);
            } else {
                put_str(&w, graph_str(g, names[e - e0]));
            }
            snprintf(b, sizeof b, ", \"kind\": \"%s\"", graph_edge_kind_name(kind));
            put(&w, b);
            unsigned strength = GRAPH_EDGE_STRENGTH(g->edge_kind[e]);
            if (strength != GRAPH_STRONG) {
                snprintf(b, sizeof b, ", \"strength\": \"%s\"", graph_strength_name(strength));
                put(&w, b);
            }
            put(&w, "}\n");
            st->edges++;
        }
    }
    for (uint32_t r = 0; s == LR_OK && r < g->n_roots; r++) {
        put(&w, "{\"root\": ");
        put_id(&w, g, graph_node_id(g, g->roots[r].node));
        snprintf(b, sizeof b, ", \"kind\": \"%s\"}\n", graph_root_kind_name(g->roots[r].kind));
        put(&w, b);
        st->roots++;
    }
    free(names);
    fclose(w.mf);
    free(w.mem);
    if (s != LR_OK) {
        outfile_abort(w.of);
        return s;
    }
    return outfile_commit(w.of, err);
}
