/* SPDX-License-Identifier: Apache-2.0 */
/* leakray/builder.h: building a heap in process, for scanners that walk their own object
 * graph (a game engine's entities, a scripting VM's values, an app's retain-cycle scanner)
 * and want leakray's analyses without writing a dump file. The program adds classes,
 * objects, references and GC roots as it meets them, in any order, then finishes the build
 * into an lr_heap that every call of leakray.h, analysis.h and report.h accepts: paths,
 * dominators and retained sizes, the histogram, leak traces (lr_analyze with watched
 * classes), the reports.
 *
 *   lr_builder *b;
 *   lr_error err = {0};
 *   lr_builder_new("my-engine", &b, &err);
 *   lr_builder_add_class(b, 1, "Scene", LR_BUILDER_NONE, &err);
 *   lr_builder_add_class(b, 2, "Texture", LR_BUILDER_NONE, &err);
 *   lr_builder_add_node(b, 0x1000, 1, LR_KIND_INSTANCE, 64, "level-1", &err);
 *   lr_builder_add_node(b, 0x2000, 2, LR_KIND_INSTANCE, 4 << 20, NULL, &err);
 *   lr_builder_add_edge(b, 0x1000, 0x2000, "background", LR_REF_STRONG, &err);
 *   lr_builder_add_root(b, 0x1000, LR_ROOT_GLOBAL, &err);
 *   lr_heap *h;
 *   if (lr_builder_finish(b, &h, &err) != LR_OK) { fprintf(stderr, "%s\n", err.msg); ... }
 *   ... lr_top_objects(h, ...), lr_analyze(h, ...) ...
 *   lr_close(h);
 *
 * Ids. Objects and classes are named by the caller's own 64-bit ids (addresses, handles,
 * counters): two separate id spaces, any values but LR_BUILDER_NONE. A reference or root may
 * name an object added later; one that names an object never added is dropped at
 * lr_builder_finish and counted (`leakray info`'s dangling_reference / dangling_root), as a
 * reader drops a dangling reference in a dump. A class id added twice fails the finish
 * (LR_ERR_FORMAT).
 *
 * The model is the one of the JSON-lines graph format (docs/formats/jsonl.md), which a
 * program can write instead of building in process: a node has a class (or none), a kind, a
 * shallow size in bytes (saturated at 4 GiB - 1) and an optional label shown beside its class;
 * a reference is named (a field, property or ivar) or numbered (an element of an array) and
 * has a strength: only strong references keep their target alive for retained sizes and leak
 * traces (weak, soft, phantom and finalizer ones are shown but never retain); roots have a
 * kind LeakCanary's traces name ("GC Root: Global variable in native code", ...).
 * lr_heap_format() of a built heap is "builder"; lr_object_id() gives back the caller's ids.
 *
 * Errors: every call returns lr_status and fills the lr_error given last (which may be NULL):
 * LR_ERR_USAGE for a NULL builder, a kind, strength or root kind out of range, or an id equal
 * to LR_BUILDER_NONE; LR_ERR_NOMEM; LR_ERR_LIMIT past 2^32 - 1 objects, classes, references
 * or roots (the graph's indices are 32-bit). After a failed add the builder stays usable and
 * holds what was added before it. Memory: about 26 bytes per object and 21 per reference
 * while building, plus the strings (interned: a name repeated costs nothing more); finishing
 * then lays out the heap's own arrays. A builder is used by one thread at a time. */
#ifndef LEAKRAY_BUILDER_H
#define LEAKRAY_BUILDER_H

#include "leakray/leakray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque heap under construction. */
typedef struct lr_builder lr_builder;

/* "No class" / "no superclass". */
#define LR_BUILDER_NONE UINT64_MAX

/* How strongly a reference holds its target. Append only. */
typedef enum lr_ref_strength {
    LR_REF_STRONG = 0,   /* keeps the target alive */
    LR_REF_WEAK = 1,     /* weak, unowned or unsafe-unretained: never keeps it alive */
    LR_REF_SOFT = 2,     /* cleared under memory pressure (Java's SoftReference) */
    LR_REF_PHANTOM = 3,
    LR_REF_FINALIZER = 4 /* held only until finalization */
} lr_ref_strength;

/* What holds a root alive, as LeakCanary names it in a trace. Append only. */
typedef enum lr_root_kind {
    LR_ROOT_UNKNOWN = 0, /* "Unknown GC root type" */
    LR_ROOT_GLOBAL = 1,  /* a global or a registry of native code ("Global variable in native
                          * code") */
    LR_ROOT_LOCAL = 2,   /* a local variable of a running function ("Java local variable") */
    LR_ROOT_STACK = 3,   /* a value on a native stack ("Input or output parameters in native
                          * code") */
    LR_ROOT_STATIC = 4,  /* a class or module kept for the life of the program, whose static
                          * fields are its references ("System class") */
    LR_ROOT_THREAD = 5,  /* a running thread ("Thread object") */
    LR_ROOT_VM = 6       /* the runtime's own internals ("Root of VM internals") */
} lr_root_kind;

/* A new, empty builder; name is the heap's name in messages and reports (NULL: "<builder>").
 * Returns LR_OK and *out (free: lr_builder_finish or lr_builder_free), or LR_ERR_NOMEM. */
LR_API lr_status lr_builder_new(const char *name, lr_builder **out, lr_error *err);

/* Adds class `id` named `name` (any UTF-8; NULL or "" for unnamed) with superclass super_id
 * (a class id, added before or after, or LR_BUILDER_NONE). */
LR_API lr_status lr_builder_add_class(lr_builder *b, uint64_t id, const char *name,
                                      uint64_t super_id, lr_error *err);

/* Adds object `id` of class class_id (LR_BUILDER_NONE: none; an id never added as a class
 * also gives none, counted as unknown_class), its kind (LR_KIND_INSTANCE for plain objects,
 * LR_KIND_OBJ_ARRAY for arrays, LR_KIND_CLOSURE for blocks and closures, ...), its shallow
 * size in bytes, and a label (NULL: none) such as a string's value or an entity's name. */
LR_API lr_status lr_builder_add_node(lr_builder *b, uint64_t id, uint64_t class_id,
                                     lr_kind kind, uint64_t size, const char *label,
                                     lr_error *err);

/* Adds the reference from object `from` to object `to` named `name` (a field, property or
 * ivar; NULL: ""), of the given strength. References of one object keep the order they were
 * added in. */
LR_API lr_status lr_builder_add_edge(lr_builder *b, uint64_t from, uint64_t to,
                                     const char *name, lr_ref_strength strength,
                                     lr_error *err);

/* Adds the reference from array (or collection) `from` to its element `to` at `index`. */
LR_API lr_status lr_builder_add_element(lr_builder *b, uint64_t from, uint64_t to,
                                        uint32_t index, lr_ref_strength strength,
                                        lr_error *err);

/* Makes object `id` a GC root of the given kind (an object may be rooted several times). */
LR_API lr_status lr_builder_add_root(lr_builder *b, uint64_t id, lr_root_kind kind,
                                     lr_error *err);

/* Resolves every id and turns the builder into a heap. Returns LR_OK and *out (free:
 * lr_close), or fills *err (LR_ERR_FORMAT for a class id added twice, LR_ERR_NOMEM) and sets
 * *out to NULL. The builder is freed in both cases: do not use b afterwards. */
LR_API lr_status lr_builder_finish(lr_builder *b, lr_heap **out, lr_error *err);

/* Frees a builder that will not be finished. Accepts NULL. */
LR_API void lr_builder_free(lr_builder *b);

#ifdef __cplusplus
}
#endif
#endif
