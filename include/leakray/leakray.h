/* SPDX-License-Identifier: Apache-2.0 */
/* leakray.h: the public API of libleakray, prefix lr_: loading a heap dump and reading its
 * objects, classes and GC roots. The flow is load -> analyse -> report:
 *
 *   #include <leakray/leakray.h>    // this file: open, objects, classes, roots
 *   #include <leakray/analysis.h>   // histogram, dominators/top, paths, leaks, clusters, diff
 *   #include <leakray/report.h>     // text, JSON and HTML renderings
 *
 *   lr_heap *h; lr_error err = {0};
 *   if (lr_open("app.hprof", NULL, &h, &err) != LR_OK) { fprintf(stderr, "%s\n", err.msg); ... }
 *   printf("%u objects\n", lr_object_count(h));
 *   lr_close(h);
 *
 * Formats: HPROF (JVM and Android, 1.0.1-1.0.3, gzip/bzip2 compressed too) and V8/Node/ArkTS
 * .heapsnapshot, sniffed by content. Build with `pkg-config --cflags --libs leakray` or CMake's
 * `find_package(leakray)` and `target_link_libraries(app leakray::leakray)`.
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

/* The version of these headers. Before 1.0 a minor release may change the API and the ABI
 * (the shared library's soname then changes); a patch release never does. Compare
 * LR_VERSION_NUMBER at compile time and lr_version() at run time. */
#define LR_VERSION_MAJOR 0
#define LR_VERSION_MINOR 2
#define LR_VERSION_PATCH 0
#define LR_VERSION_NUMBER (LR_VERSION_MAJOR * 10000 + LR_VERSION_MINOR * 100 + LR_VERSION_PATCH)
#define LR_VERSION_STRING "0.2.0"

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
    uint64_t max_inflate;  /* cap on decompressed bytes for gzip/bzip2 input; 0 = default:
                            * LR_DEFAULT_MAX_INFLATE, and the free space of $TMPDIR (/tmp),
                            * where the inflated dump is written (an unnamed file) */
    int dump_index;        /* which heap dump of a multi-dump HPROF file, 0 the first; -1 =
                            * the last, as with NULL opts and the CLI: a zeroed struct picks
                            * the FIRST, so set -1 unless that is meant; below -1: usage */
    int progress;          /* nonzero: draw a progress bar on stderr (callers check isatty) */
    int no_edges;          /* nonzero: nodes and classes only (histo) */
    /* nonzero: references are resolved and counted (the edge count, dangling references) but
     * not kept, so the heap has no edges: what `info` needs, at a fraction of the memory.
     * HPROF only; other formats load their edges as usual. */
    int count_edges;
} lr_open_opts;

#define LR_DEFAULT_MAX_INFLATE (64ULL << 30) /* 64 GiB: larger than any sane dump */

/* Opens and loads a heap dump of any known format (sniffed by content, after gunzip/bunzip2).
 * Returns LR_OK and *out (free with lr_close), or fills *err and leaves *out NULL. */
LR_API lr_status lr_open(const char *path, const lr_open_opts *opts, lr_heap **out,
                         lr_error *err);

/* Frees a heap and unmaps its input. Accepts NULL. */
LR_API void lr_close(lr_heap *h);

/* ---- version ---- */

/* The library's version, "MAJOR.MINOR.PATCH" (LR_VERSION_STRING of the build that made the
 * library, which may differ from the header's). Static, thread-safe. */
LR_API const char *lr_version(void);

/* ---- opening ---- */

/* Loads a heap dump held in memory: data[0..len) (compressed or not). The caller keeps data
 * alive and unchanged until lr_close (object payloads are read from it lazily); name is used
 * in messages (NULL: "<memory>"). Returns LR_OK and *out (free: lr_close), or fills *err. */
LR_API lr_status lr_open_memory(const void *data, size_t len, const char *name,
                                const lr_open_opts *opts, lr_heap **out, lr_error *err);

/* The format reader's name ("hprof", "v8") of a loaded heap. Never NULL. */
LR_API const char *lr_heap_format(const lr_heap *h);

/* Nonzero when the dump was cut short (its file ends where a complete dump cannot: a writer
 * killed mid-dump) and loaded as far as it goes: the heap is part of the program's, so a
 * verdict on it (no leak found) proves nothing. The CLI refuses --fail-on-leak on it (exit
 * 3); a gate built on this library should too. */
LR_API int lr_heap_truncated(const lr_heap *h);

/* What the reader met and counted instead of failing the load (`leakray info`'s
 * diagnostics): references or roots to objects not in the dump, an object id given twice
 * (the later object is left without referrers), undeclared types, sizes clamped, the dump
 * cut short. Only kinds that occurred are listed, in a fixed order; i from 0 to
 * lr_heap_diagnostic_count(h)-1. name is a stable key ("dangling_reference",
 * "duplicate_id", ...), severity "info" (nothing lost), "data-loss" (answers may miss
 * part of the heap) or "error"; strings are static. */
typedef struct lr_diagnostic {
    const char *name;
    const char *severity;
    const char *description; /* one sentence for people */
    uint64_t count;          /* occurrences */
} lr_diagnostic;
LR_API uint32_t lr_heap_diagnostic_count(const lr_heap *h);
LR_API lr_status lr_heap_diagnostic(const lr_heap *h, uint32_t i, lr_diagnostic *out,
                                    lr_error *err);

/* ---- objects ----
 * Objects are numbered 0 .. lr_object_count(h)-1 in dump order: loop with a plain `for` to
 * iterate. An lr_object index is only meaningful for the heap it came from. None of the
 * accessors below fail on a valid index; an index out of range gives 0 / "" / LR_NONE. All
 * returned strings live in the heap until lr_close. */

typedef uint32_t lr_object; /* index of an object in one heap */
typedef uint32_t lr_class;  /* index of a class in one heap */
#define LR_NONE UINT32_MAX  /* "no object / no class" */

/* What an object is, whatever the format. Append only. */
typedef enum lr_kind {
    LR_KIND_INSTANCE = 0,   /* object with fields (Java instance, JS object) */
    LR_KIND_CLASS = 1,      /* class object (statics live here) */
    LR_KIND_OBJ_ARRAY = 2,  /* array of references */
    LR_KIND_PRIM_ARRAY = 3, /* array of primitives */
    LR_KIND_STRING = 4,     /* V8 string (Java Strings are instances of java.lang.String) */
    LR_KIND_CLOSURE = 5,    /* JS function/closure */
    LR_KIND_CODE = 6,       /* compiled code, shapes, VM internals */
    LR_KIND_NATIVE = 7,     /* native/external memory object */
    LR_KIND_SYNTHETIC = 8,  /* synthetic (V8 root, GC roots groups) */
    LR_KIND_OTHER = 9       /* anything else */
} lr_kind;

/* Counts. O(1). */
LR_API uint32_t lr_object_count(const lr_heap *h);
LR_API uint32_t lr_class_count(const lr_heap *h);
LR_API uint32_t lr_root_count(const lr_heap *h);
LR_API uint64_t lr_reference_count(const lr_heap *h); /* references (edges) between objects */

/* The object's id in the dump (HPROF address, V8 node id). */
LR_API uint64_t lr_object_id(const lr_heap *h, lr_object o);
/* The object with id `id`, or LR_NONE. O(1) expected. */
LR_API lr_object lr_object_find(const lr_heap *h, uint64_t id);
/* The object's kind, and its name ("instance", "class", "object array", ...). */
LR_API lr_kind lr_object_kind(const lr_heap *h, lr_object o);
LR_API const char *lr_kind_name(lr_kind k);
/* The object's class, or LR_NONE; and the class's display name in Java form
 * ("java.lang.String", "int[]") or the V8 constructor name ("" when none). */
LR_API lr_class lr_object_class(const lr_heap *h, lr_object o);
LR_API const char *lr_object_class_name(const lr_heap *h, lr_object o);
/* For a class object (LR_KIND_CLASS): the class it describes, else LR_NONE. O(log classes). */
LR_API lr_class lr_object_describes(const lr_heap *h, lr_object o);
/* Shallow size in bytes (the format's own model: VisualVM's for HotSpot, Shark's for
 * Android, DevTools' for V8), plus native bytes where the format reports them. */
LR_API uint64_t lr_object_shallow(const lr_heap *h, lr_object o);
/* The value of a string object (java.lang.String or V8 string) as UTF-8 into buf (cap bytes,
 * always NUL-terminated, truncated). Returns the full length, or -1 if o is no string. buf
 * NULL (or cap 0) asks the length alone, to size a buffer. */
LR_API long lr_object_string(const lr_heap *h, lr_object o, char *buf, size_t cap);

/* One reference between two objects. */
typedef struct lr_ref {
    lr_object from;      /* the referring object */
    lr_object to;        /* the referred object */
    const char *kind;    /* "field", "static", "element", "property", "context", ... */
    const char *strength; /* "strong", "weak", "soft", "phantom", "finalizer" */
    char name[128];      /* field or property name, or "[index]" for elements; a longer
                          * name is cut on a character and ends in U+2026 (an ellipsis) */
} lr_ref;

/* Outgoing references of o: lr_object_ref_count(h, o) of them, the i-th into *out.
 * lr_object_ref returns LR_OK, or LR_ERR_NOT_FOUND when o or i is out of range. */
LR_API uint32_t lr_object_ref_count(const lr_heap *h, lr_object o);
LR_API lr_status lr_object_ref(const lr_heap *h, lr_object o, uint32_t i, lr_ref *out,
                               lr_error *err);

/* Referrers (incoming references) of o. The first call builds the reverse index of the whole
 * heap (O(objects + references), 4 bytes per reference), hence the lr_status: LR_OK and
 * *count, or LR_ERR_NOMEM. lr_object_referrer fills *out with the i-th (out->to == o). Not
 * thread-safe on one heap until the index exists. */
LR_API lr_status lr_object_referrer_count(lr_heap *h, lr_object o, uint32_t *count,
                                          lr_error *err);
LR_API lr_status lr_object_referrer(lr_heap *h, lr_object o, uint32_t i, lr_ref *out,
                                    lr_error *err);

/* One field of an instance (HPROF; for V8 objects the properties are references). */
typedef struct lr_field {
    const char *name;         /* field name */
    const char *type;         /* "object", "int", "boolean", ... */
    const char *declared_in;  /* declaring class (fields are listed most-derived first) */
    lr_object ref;            /* for object fields: the object, LR_NONE for null/missing */
    uint64_t raw;             /* the value's bits (object fields: the referred id) */
} lr_field;

/* Calls fn for every instance field of o, most-derived class first; fn returns nonzero to
 * stop. Returns the number of fields visited. Objects without field values (arrays, V8
 * objects, class objects) have none. */
typedef int (*lr_field_fn)(void *ctx, const lr_field *f);
LR_API uint32_t lr_object_fields(const lr_heap *h, lr_object o, lr_field_fn fn, void *ctx);

/* ---- classes ---- */

/* Name of class c (Java form or V8 constructor), its superclass (LR_NONE for none), and the
 * class object's node (LR_NONE when the format has none). */
LR_API const char *lr_class_name(const lr_heap *h, lr_class c);
LR_API lr_class lr_class_super(const lr_heap *h, lr_class c);
LR_API lr_object lr_class_object(const lr_heap *h, lr_class c);
/* The first class named exactly `name`, or LR_NONE. O(classes). */
LR_API lr_class lr_class_find(const lr_heap *h, const char *name);

/* ---- GC roots ---- */

typedef struct lr_root {
    lr_object object;   /* the rooted object */
    const char *kind;   /* "JNI global", "Java frame", "sticky class", "synthetic", ... */
    uint32_t thread;    /* HPROF thread serial number, 0 if none */
    int32_t frame;      /* frame number in that thread's stack, -1 if none */
} lr_root;

/* The i-th GC root entry (an object may be rooted several times). Returns LR_OK, or
 * LR_ERR_NOT_FOUND when i >= lr_root_count(h). */
LR_API lr_status lr_root_get(const lr_heap *h, uint32_t i, lr_root *out, lr_error *err);

#ifdef __cplusplus
}
#endif
#endif
