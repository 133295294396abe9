/* SPDX-License-Identifier: Apache-2.0 */
/* gtext.h: the generic object-graph format, JSON lines (format layer), prefix gtext_. Any
 * runtime or scanner that can list its objects, classes, references and roots writes one
 * record per line and gets every leakray verb: paths, dominators, leak traces, cycles. The
 * reader (gtext_read.c) streams the file in two passes; the writer (gtext_write.c) exports any
 * loaded graph, so `leakray convert app.hprof -o app.jsonl` and reading the result back give
 * the same counts, sizes and retained sizes. The format is specified in docs/formats/jsonl.md:
 *
 *   {"leakray_graph": 1, "format": "ios-scan", "size_model": "record"}
 *   {"class": 1, "name": "ViewController", "super": null}
 *   {"node": "0x7f01", "class": 1, "size": 96, "label": "checkout"}
 *   {"edge": ["0x7f01", "0x7f02"], "name": "block", "strength": "strong"}
 *   {"root": "0x7f01", "kind": "global", "name": "AppDelegate.window"} */
#ifndef LR_FORMAT_GTEXT_H
#define LR_FORMAT_GTEXT_H

#include "format/fmt.h"

#define GTEXT_VERSION 1 /* "leakray_graph" value this build writes and reads */

extern const fmt_reader fmt_gtext_reader;

/* Nonzero if the first line of p[0..n) is a leakray_graph header. */
int gtext_sniff(const uint8_t *p, uint64_t n);

/* A graph's classes, nodes, edges and roots whose references are still ids, as the reader
 * (pass 2) or the C API's builder (lr_builder) collected them; gtext_resolve turns them into
 * the graph's indices. Parallel arrays, n_* entries each. */
typedef struct gtext_pending {
    uint64_t n_class, n_node, n_edge, n_root;
    uint64_t *class_id, *class_super, *class_node; /* a class's id, its super's and node's */
    uint64_t *class_off;                           /* its record's byte offset (reader), or
                                                    * NULL (the builder: no file) */
    uint8_t *class_has_super, *class_has_node;
    uint64_t *node_class_id;                       /* a node's class id */
    uint8_t *node_has_class;
    uint64_t *edge_from, *edge_to_id;              /* an edge's ends by node id */
    uint32_t *edge_nm;                             /* its name: str_ix or element index */
    uint8_t *edge_k;                               /* GRAPH_EDGE_MAKE(kind, strength) */
    uint64_t *root_id;                             /* a root's node id */
    uint8_t *root_k;                               /* enum graph_root_kind */
} gtext_pending;

/* Completes g, whose nodes (ids included), class names, n_classes, zeroed first_edge (n_nodes
 * + 1) and roots array (n_root) are filled: builds the id index, resolves class, super and
 * node ids, lays edges out as CSR by source (record order within a source), resolves roots.
 * References to absent nodes are dropped and counted (dangling_reference, dangling_root); a
 * class id defined twice is an error. p's arrays are rewritten (edge_to_id becomes node
 * indices). Returns LR_OK, LR_ERR_FORMAT naming `name`, LR_ERR_NOMEM. */
lr_status gtext_resolve(graph *g, gtext_pending *p, const char *name, lr_error *err);
void gtext_pending_free(gtext_pending *p);

/* What gtext_write wrote. */
typedef struct gtext_stats {
    uint64_t nodes, classes, edges, roots;
    uint64_t out_bytes; /* uncompressed bytes */
} gtext_stats;

/* Writes g as JSON lines to out_path (atomically: a temporary file renamed when complete;
 * gzip when the name ends in .gz). Every node, class, edge (with kind, strength and name) and
 * root is written. Returns LR_OK or LR_ERR_IO / LR_ERR_NOMEM. */
lr_status gtext_write(const graph *g, const char *out_path, gtext_stats *st, lr_error *err);

#endif
