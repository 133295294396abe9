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
