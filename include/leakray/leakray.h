/* SPDX-License-Identifier: Apache-2.0 */
/* leakray.h: the public API of libleakray, prefix lr_. The flow is load -> analyse -> report:
 *
 *   lr_heap *h; lr_error err;
 *   if (lr_open("app.hprof", NULL, &h, &err) != LR_OK) { fprintf(stderr, "%s\n", err.msg); ... }
 *   ... lr_heap_graph(h) hands the loaded graph to the analyses (src/analysis/) ...
 *   lr_close(h);
 *
 * Every fallible function returns an lr_status and takes an lr_error * as its last parameter;
 * on failure the error carries the code, the byte offset in the input where the problem was
 * found (or LR_NO_OFFSET) and a one-line message naming the file. The first failure wins.
 * Status values are append-only and never renumbered: they are part of the stable surface
 * (exit codes and JSON depend on them). Nothing here is thread-safe on one lr_heap unless it
 * says so; different heaps may be used from different threads. */
#ifndef LEAKRAY_H
#define LEAKRAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define LR_API __attribute__((visibility("default")))
#else
#define LR_API
#endif

#define LR_VERSION_STRING "0.1.0"

/* Status codes. Append only. */
typedef enum lr_status {
    LR_OK = 0,            /* success */
    LR_ERR_USAGE = 1,     /* bad arguments from the caller (CLI exit 2) */
    LR_ERR_IO = 2,        /* open/read/write/mmap failed (CLI exit 4) */
    LR_ERR_NOMEM = 3,     /* allocation failed (CLI exit 5) */
    LR_ERR_FORMAT = 4,    /* input is not a known format or is malformed (CLI exit 3) */
    LR_ERR_TRUNCATED = 5, /* input ends inside a record (CLI exit 3) */
    LR_ERR_LIMIT = 6,     /* a resource ceiling was hit, e.g. --max-inflate (CLI exit 5) */
    LR_ERR_NOT_FOUND = 7, /* a requested object/class/dump does not exist (CLI exit 2) */
    LR_ERR_RULES = 8,     /* a rules file is invalid (CLI exit 3) */
    LR_ERR_INTERNAL = 9   /* a leakray bug: an invariant failed (CLI exit 5) */
} lr_status;

#define LR_NO_OFFSET UINT64_MAX
#define LR_ERROR_MSG_MAX 512

/* Error details. Zero-initialise before use; the first failure recorded wins. */
typedef struct lr_error {
    lr_status code;             /* LR_OK while no error was recorded */
    uint64_t offset;            /* byte offset in the input, or LR_NO_OFFSET */
    char msg[LR_ERROR_MSG_MAX]; /* "file: offset 0x..: what" ready for printing */
} lr_error;

/* Returns a static, never-NULL description of a status. Thread-safe. */
LR_API const char *lr_strerror(lr_status s);

/* Maps a status to the CLI exit code documented in docs/json.md (0, 2, 3, 4, 5). */
LR_API int lr_exit_code(lr_status s);

/* Opaque loaded heap: the graph plus the mapped input it reads lazily. */
typedef struct lr_heap lr_heap;

/* Load options; NULL means defaults. */
typedef struct lr_open_opts {
    uint64_t max_inflate;  /* cap on decompressed bytes for gzip/bzip2 input; 0 = default */
    int dump_index;        /* which heap dump of a multi-dump HPROF file; -1 = default (last) */
    int progress;          /* nonzero: draw a progress bar on stderr (callers check isatty) */
    int no_edges;          /* nonzero: nodes and classes only (histo, info) */
} lr_open_opts;

#define LR_DEFAULT_MAX_INFLATE (64ULL << 30) /* 64 GiB: larger than any sane dump */

/* Opens and loads a heap dump of any known format (sniffed by content, after gunzip/bunzip2).
 * Returns LR_OK and *out (free with lr_close), or fills *err and leaves *out NULL. */
LR_API lr_status lr_open(const char *path, const lr_open_opts *opts, lr_heap **out,
                         lr_error *err);

/* Frees a heap and unmaps its input. Accepts NULL. */
LR_API void lr_close(lr_heap *h);

/* The format reader's name ("hprof", "v8") of a loaded heap. Never NULL. */
LR_API const char *lr_heap_format(const lr_heap *h);

/* The graph of a loaded heap (struct graph, src/graph/graph.h). Owned by h. */
LR_API void *lr_heap_graph(lr_heap *h);

#ifdef __cplusplus
}
#endif
#endif
