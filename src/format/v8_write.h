/* SPDX-License-Identifier: Apache-2.0 */
/* v8_write.h: writes any loaded graph as a V8 `.heapsnapshot` (format layer), prefix v8w_.
 * The output is what Chrome DevTools, memlab and leakray's own V8 reader open, laid out so
 * DevTools' preparation passes change nothing and its per-class counts and retained sizes
 * equal leakray's strong-reference dominators on the original graph:
 * - only objects reachable over strong references from the GC roots are written (the
 *   dominator tree's node set); weak/soft/phantom/finalizer referents become `weak` edges,
 *   which DevTools never follows for sizes or distances;
 * - HPROF nodes are `object` nodes named by their class (class objects "class Foo", nodes
 *   without a class "(no class)"); never `hidden` or `array`, whose sizes DevTools folds into
 *   an owner; native bytes are added to self_size since DevTools has no native field;
 * - node 0 is a synthetic root whose only edge leads to a synthetic "(GC roots)" node with
 *   one synthetic sub-root per root kind ("(JNI global)", "(sticky class)", ...), which hold
 *   the rooted objects through `element` edges. No `shortcut` edge exists, so DevTools finds
 *   no "user roots": it skips its size re-attribution and page-owned edge filtering, and its
 *   distances are "system" distances (shown as "-");
 * - instance fields and statics (of the class object) are `property` edges, array slots
 *   `element` edges, class internals (<super>, <classloader>) `internal`, Java locals
 *   `context` edges of the thread, ArkTS native/xref edges `internal`;
 * - graphs read from a V8 snapshot keep their own root, node types, names and edge types.
 * DevTools' Summary leaves out objects of self size 0 (Android's empty arrays in Shark's size
 * model): its counts are then lower than leakray's, its sizes still equal.
 * Node ids are the dump's ids when every written one fits in 32 bits (DevTools keeps ids in
 * a Uint32 array), else 2*ordinal+1. Strings are deduplicated by content, since DevTools
 * keys a class by the string index of its name.
 * Output is streamed through a 1 MiB buffer into a temporary file in the target folder that
 * is renamed over out_path only when complete (gzip when out_path ends in .gz). Memory: one
 * uint32 per node and per string, plus the output string table. Spec: docs/formats/v8.md and
 * docs/research/v8-arkts-devtools-memlab.md sections 1-2. */
#ifndef LR_FORMAT_V8_WRITE_H
#define LR_FORMAT_V8_WRITE_H

#include "graph/graph.h"

#include <stdint.h>

/* What a conversion wrote. */
typedef struct v8w_stats {
    uint32_t nodes;          /* nodes written, synthetic ones included */
    uint32_t synthetic;      /* synthetic nodes added (root, (GC roots), sub-roots) */
    uint64_t edges;          /* edges written */
    uint64_t weak_edges;     /* of which `weak` (non-strong referents) */
    uint32_t dropped_nodes;  /* graph nodes not strongly reachable, omitted */
    uint64_t dropped_edges;  /* edges to omitted nodes */
    uint32_t strings;        /* entries of the strings table */
    uint64_t self_bytes;     /* sum of self_size written */
    uint64_t out_bytes;      /* bytes written (uncompressed) */
    int kept_ids;            /* 1: node ids are the dump's ids; 0: 2*ordinal+1 */
} v8w_stats;

/* Writes g to out_path. g needs its edges (not loaded with no_edges). owns_nothing (may be
 * NULL) names strong references that own nothing (the GC's list links the analyses skip):
 * they are written weak, and nothing is reached through them, so the snapshot's retained
 * sizes are the strong model's. Returns LR_OK and fills *st (may be NULL), or LR_ERR_USAGE
 * (no edges), LR_ERR_IO (create/write/rename, out_path untouched), LR_ERR_NOMEM,
 * LR_ERR_LIMIT (more than 2^32/8 nodes). */
lr_status v8w_write(const graph *g, const char *out_path,
                    int (*owns_nothing)(const graph *g, edge_ix e), v8w_stats *st,
                    lr_error *err);

#endif
