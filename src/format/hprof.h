/* SPDX-License-Identifier: Apache-2.0 */
/* hprof.h: the HPROF reader (format layer), prefix hprof_. Reads JAVA PROFILE 1.0, 1.0.1,
 * 1.0.2 and 1.0.3 (Android) dumps with 4- or 8-byte identifiers from the mapped bytes into a
 * graph (graph/graph.h), without copying field bytes. Shallow sizes follow VisualVM 2.1.5's
 * model for HotSpot dumps and Shark's for Android. The record layout, the choices made for
 * multi-dump files and the size models are in docs/formats/hprof.md. */
#ifndef LR_FORMAT_HPROF_H
#define LR_FORMAT_HPROF_H

#include "format/fmt.h"

extern const fmt_reader fmt_hprof_reader;

/* One heap dump of a file: a HEAP_DUMP (0x0c) record, or a run of HEAP_DUMP_SEGMENT (0x1c)
 * records up to HEAP_DUMP_END (0x2c). Records of other kinds may sit between segments. */
typedef struct hprof_dump {
    uint64_t offset;    /* file offset of the dump's first top-level record (its tag byte) */
    uint64_t length;    /* bytes from offset to the end of its last heap record */
    uint32_t n_records; /* top-level HEAP_DUMP / HEAP_DUMP_SEGMENT records in it */
} hprof_dump;

/* Lists the heap dumps of an HPROF file in file order. Fills out[0 .. min(*n_dumps, cap)-1]
 * (out may be NULL when cap is 0) and sets *n_dumps to the total. name is used in messages.
 * Returns LR_OK, or LR_ERR_FORMAT / LR_ERR_TRUNCATED with the offset of the bad record. */
lr_status hprof_list_dumps(const mfile *m, const char *name, hprof_dump *out, uint32_t cap,
                           uint32_t *n_dumps, lr_error *err);

/* Nonzero if p[0..n) starts with a supported HPROF header ("JAVA PROFILE 1.0[.x]\0"). */
int hprof_sniff(const uint8_t *p, uint64_t n);

/* One class row of a streaming histogram. */
typedef struct hprof_histo_row {
    const char *name; /* class name (h->g's strings or static), NULL for the two last rows */
    uint64_t count;   /* nodes */
    uint64_t bytes;   /* summed shallow sizes */
} hprof_histo_row;

/* Instances and shallow bytes per class without building a graph (hprof_histo.c). Rows are
 * numbered like the classes of the reader's graph for the same dump and hold exactly the
 * count and summed node_size of the nodes of each class; rows[n_classes] counts the class
 * objects, rows[n_classes + 1] the nodes without a class. */
typedef struct hprof_histo {
    uint32_t n_classes;
    hprof_histo_row *rows; /* n_classes + 2 rows */
    graph g;               /* classes and names only, no nodes */
} hprof_histo;

/* Builds the histogram of heap dump dump_index (-1: the last, as the reader) of m in one walk.
 * threads: 1 walks on the calling thread only, 2 splits any dump of several segments over two
 * threads, 0 splits when the dump is large enough to gain from it. Errors are the reader's,
 * same code and offset; LR_ERR_LIMIT also when sums could meet the reader's 32-bit size
 * saturation or the dump has nearly GRAPH_MAX_HEAPS heaps (use the graph then). On failure
 * h holds nothing to free. */
lr_status hprof_histo_build(const mfile *m, const char *name, int dump_index, unsigned threads,
                            hprof_histo *h, lr_error *err);
void hprof_histo_free(hprof_histo *h);

#endif
