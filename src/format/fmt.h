/* SPDX-License-Identifier: Apache-2.0 */
/* fmt.h: the reader registry (format layer), prefix fmt_. Each format reader has a name, a
 * sniff on the first bytes and a load function filling a graph; fmt_find picks one by content
 * so the CLI and the analyses never branch on the format. */
#ifndef LR_FORMAT_FMT_H
#define LR_FORMAT_FMT_H

#include "base/mfile.h"
#include "graph/graph.h"

typedef struct fmt_opts {
    int dump_index;   /* HPROF: which heap dump (0-based) of a multi-dump file; -1 = default */
    int no_edges;     /* nonzero: skip edges (histo/info need nodes and classes only) */
    int progress;     /* nonzero: draw progress on stderr */
    int count_edges;  /* nonzero: count references, keep no edges (lr_open_opts.count_edges) */
} fmt_opts;

typedef struct fmt_reader {
    const char *name;                                    /* "hprof", "v8" */
    int (*sniff)(const uint8_t *p, uint64_t n);          /* nonzero if p looks like this format */
    lr_status (*load)(graph *g, const mfile *m, const fmt_opts *o, lr_error *err);
} fmt_reader;

/* The reader for these bytes, or NULL when no reader recognises them. */
const fmt_reader *fmt_find(const uint8_t *p, uint64_t n);

/* When no reader recognises p: a sentence naming the format p is in, if it is one leakray
 * knows but does not read (with what to write instead), else NULL. Static storage. */
const char *fmt_unsupported(const uint8_t *p, uint64_t n);

/* Whether the first n bytes of an input may begin a heap dump: a reader recognises them, or
 * fmt_unsupported does (a blank head is none: no dump starts with 64 KiB of spaces). For a
 * compressed input's first inflated bytes (mfile_open_dump): a small file that inflates to
 * gigabytes of something else is refused before they are written. */
int fmt_head_known(const uint8_t *p, uint64_t n);

/* All registered readers, NULL-terminated. */
const fmt_reader *const *fmt_all(void);

#endif
