/* SPDX-License-Identifier: Apache-2.0 */
/* trace.h: leak traces (analysis layer), prefix trace_. For every leaking object found by
 * leakfind: its shortest strong path from a GC root (paths.c, with the rules deciding which
 * references are ignored or visited last), each path object's Leaking YES/NO/UNKNOWN status
 * with reasons and labels, the suspect references (the "~~~" window), the SHA-1 fingerprint,
 * and grouping into application leaks (by fingerprint) and library leaks (by pattern) with
 * the retained bytes of each group's leaking objects taken together (never double counted).
 * Leaking objects reachable only through another one are credited to it ("Also retains");
 * those reachable from no root are listed as unreachable. Exact semantics:
 * docs/research/hprof-leakcanary-shark.md sections 6, 8, 9, 10, 11. */
#ifndef LR_ANALYSIS_TRACE_H
#define LR_ANALYSIS_TRACE_H

#include "analysis/dominators.h"
#include "analysis/leakfind.h"
#include "analysis/paths.h"
#include "graph/graph.h"
#include "rules/rules.h"

enum trace_status { TRACE_UNKNOWN = 0, TRACE_NO = 1, TRACE_YES = 2 };
enum trace_ref_type { TRACE_REF_INSTANCE = 0, TRACE_REF_STATIC = 1, TRACE_REF_ARRAY = 2,
                      TRACE_REF_LOCAL = 3 };

/* One object of a trace and the reference leaving it (absent for the last object). */
typedef struct trace_elem {
    node_ix node;
    uint8_t status;       /* enum trace_status */
    uint8_t suspect;      /* the reference leaving this object is suspect */
    uint8_t ref_type;     /* enum trace_ref_type of the reference leaving it */
    uint8_t has_retained; /* retained/retained_count are meaningful */
    uint8_t as_slot;      /* V8, ArkTS: the reference leaving it enters a linked list (its
                           * target holds an object of its own class by a reference of that
                           * kind and name) or is a key of a dictionary-like object: hashed
                           * `[x]` into the signature, as an array entry */
    char *class_name;     /* display class (a class object's own name; "Foo[]" arrays) */
    char *reason;         /* status reason ("" if none) */
    char *labels;         /* '\n'-separated labels ("" if none) */
    char *ref_name;       /* field name, array index, or "" (locals) */
    char *owner;          /* simple name of the reference's owning class (declaring class of
                           * a field, the class of a static, "Object" for Object[]) */
    edge_ix edge;         /* the edge leaving this object, GRAPH_NONE for the last */
    uint64_t retained;    /* dominator-retained bytes */
    uint64_t retained_count;
} trace_elem;

typedef struct trace {
    uint32_t leak;        /* index into the leak_set */
    uint32_t root;        /* index into g->roots of the GC root used */
    trace_elem *el;       /* el[0] = root object ... el[n-1] = leaking object */
    uint32_t n;
    int32_t lib;          /* library-leak rule index, -1 = application leak */
    char fingerprint[41]; /* lowercase SHA-1 hex */
    char stable[41];      /* the same over classname_stable's names: equal to fingerprint
                           * unless a suspect's class is a lambda, hidden class or proxy
                           * (then the leaking object's class is hashed too) */
    uint32_t group;       /* index into trace_result.groups */
    uint32_t n_head;      /* el[0 .. n_head) start at the root; el[n_head .. n) end at the
                           * leaking object; n_head == n when the whole path is kept */
    uint64_t elided;      /* path objects left out between the two (0: none) */
    const char *root_name; /* the named synthetic nodes (V8's "(GC roots)", "(Stack roots)"
                            * ...) the path starts with, left out of el; NULL: none. Owned
                            * by trace_result.root_names */
} trace;

typedef struct trace_group {
    int library;          /* nonzero: library leak (pattern from rules.refs[lib]) */
    int32_t lib;
    char fingerprint[41];
    char stable[41];      /* its traces' stable fingerprint (a library leak's: fingerprint) */
    uint32_t *traces;     /* indices into trace_result.traces, first-seen order */
    uint32_t n;
    uint64_t retained;    /* bytes retained by the group's leaking objects together */
    uint64_t retained_count;
    char short_desc[256]; /* "<Simple>.<field>" of the first suspect reference */
} trace_group;

/* A leaking object without a path: unreachable from every root. */
typedef struct trace_unreachable {
    uint32_t leak;
    trace_elem el;        /* status forced to YES */
    uint8_t ignored_only; /* strongly reachable, but only through references the rules
                           * ignore (a local of thread main, by jdk.rules) */
    uint8_t garbage;      /* no strong or soft reference reaches it from a GC root (an
                           * instance keeping its class, a class its loader): only weak,
                           * phantom or finalizer ones, or none; the next GC frees it, as a
                           * dump written without a GC first still shows */
} trace_unreachable;

typedef struct trace_result {
    trace *traces;        /* in discovery order (normal paths first, then by depth) */
    uint32_t n_traces;
    trace_group *groups;  /* application groups first, then library groups */
    uint32_t n_groups;
    uint32_t n_app_groups;
    trace_unreachable *unreachable;
    uint32_t n_unreachable;
    uint32_t n_garbage;       /* of those, garbage (trace_unreachable.garbage) */
    uint32_t n_also_retained; /* leaking objects reachable only through another one */
    char **root_names;    /* distinct trace.root_name strings, each malloc'd */
    uint32_t n_root_names;
} trace_result;

/* How much of each path a trace keeps. Paths can be a million objects long and thousands of
 * traces can run along the same chain, so by default a trace keeps both ends of its path
 * (the root side, where the cause usually is, and the leaking object's side) and counts the
 * middle, and only the first traces and the first trace of each group get their path
 * objects at all: the others keep their leaking object (fingerprints, groups and statuses
 * are still computed over whole paths). Time and memory are then O(graph + kept objects). */
typedef struct trace_opts {
    uint32_t max_steps;  /* path objects kept per trace, half at each end; 0 = all */
    uint32_t max_traces; /* traces (and groups' first traces) given their path; 0 = all */
    int shark_refs;      /* Shark's references only: no object -> class object hop
                          * (paths_policy.class_hops), so what only an instance keeps through
                          * its class is unreachable, as in Shark */
} trace_opts;
#define TRACE_DEFAULT_STEPS 50
#define TRACE_DEFAULT_TRACES 100
#define TRACE_COLLAPSE_STEPS 4096 /* when runs of one category are folded into one line */

/* Builds traces for every object of ls: trace_paths then trace_finish. dt may be NULL (no
 * retained sizes). rs must be bound to g. Returns LR_OK or LR_ERR_NOMEM. */
lr_status trace_build(const graph *g, const rules_set *rs, const leak_set *ls,
                      const dom_tree *dt, trace_result *out, lr_error *err);
/* Everything that needs no dominator tree: the paths (one traversal), statuses, labels,
 * fingerprints, "also retains", the unreachable objects and the groups. Every per-node array
 * it uses is freed before it returns (out holds per-trace data only), so a caller can build
 * the dominator tree afterwards without both at once. Retained sizes stay unset. On failure
 * out is freed. */
lr_status trace_paths(const graph *g, const rules_set *rs, const leak_set *ls,
                      trace_result *out, lr_error *err);
/* trace_paths with explicit limits (NULL: TRACE_DEFAULT_STEPS, TRACE_DEFAULT_TRACES). */
lr_status trace_paths_opts(const graph *g, const rules_set *rs, const leak_set *ls,
                           const trace_opts *opts, trace_result *out, lr_error *err);
/* Completes traces made by trace_paths with what needs the dominator tree dt (built with
 * trace_dom_filter over the same rules): retained bytes and objects of each path object
 * and each group's total. Nothing to do when dt is NULL. On failure out is freed. */
lr_status trace_finish(const graph *g, const rules_set *rs, const leak_set *ls,
                       const dom_tree *dt, trace_result *out, lr_error *err);
/* trace_finish with the options dt was built with (roots, extra references, edge filter,
 * weights: NULL = trace_finish's defaults), so each group's "retained together" figure
 * comes from the same reachability and weights as the per-object sizes. */
lr_status trace_finish_ex(const graph *g, const rules_set *rs, const leak_set *ls,
                          const dom_tree *dt, const dom_opts *o, trace_result *out,
                          lr_error *err);
void trace_result_free(trace_result *r);

/* Fingerprint of a trace from its elements (suspect references only). With fold_runs (V8 and
 * ArkTS traces) a suspect reference to an object of its holder's class with the generic
 * name of the reference before it (a linked list's next link) is left out, and one marked
 * as_slot (into a list's head, a dictionary key) hashed `[x]`, so the objects a list or a
 * plain-object map holds are one leak whatever their place or key; and a trace with no
 * suspect reference (an object held straight by a synthetic root) hashes its object's class
 * and root_name instead of nothing. HPROF traces keep Shark's signatures. out: 41 bytes. */
void trace_fingerprint(const trace_elem *el, uint32_t n, int fold_runs, const char *root_name,
                       char *out);

/* Hands s to put as Shark hashes an HPROF name: the JVM writes a character past U+FFFF as a
 * 6-byte surrogate pair, which Shark's UTF-8 decoding turns into two U+FFFD, so each 4-byte
 * UTF-8 character becomes the 6 bytes of two U+FFFD; the signatures then equal Shark's. */
void trace_shark_bytes(const char *s, void (*put)(void *ctx, const void *p, size_t n),
                       void *ctx);

/* What the GC roots reach, marked in seen (bits, cleared by the caller), with queue scratch of
 * n_nodes entries: over strong references only, or (kept) over strong and soft ones and each
 * instance's hop to its class object, which the JVM keeps through its instances (a class
 * keeps its loader through the stored <classloader> edge): what no GC frees while memory
 * lasts. A weak, phantom or finalizer referent goes at the next GC (a finalizable one once
 * finalized). O(N+E). */
void trace_reach(const graph *g, uint8_t *seen, node_ix *queue, int kept);
/* Lowercase SHA-1 hex of s (41 bytes out). */
void trace_sha1_hex(const char *s, size_t len, char *out);

/* Computes statuses and suspects in place from per-element inspector verdicts (exposed for
 * tests): leaking[i]/not_leaking[i] are the joined reasons ("" = none). Sets status, reason
 * (malloc'd) and suspect of el[0..n). */
lr_status trace_statuses(trace_elem *el, uint32_t n, char *const *leaking,
                         char *const *not_leaking, lr_error *err);

/* The traces' path search over the graph's own references, for the `path` verb (rs bound
 * to g; it must outlive the search): the same root order and priorities (library leaks,
 * Java locals, a class's link to its loader visited last), except that what the rules
 * ignore is visited last instead of dropped, so a strongly reachable object always has a
 * path. Where the traces find a path, the objects on it are the same; the traces show
 * collections as Shark reads them (HashMap[key()]), `path` their real references. */
paths_policy trace_path_policy(const rules_set *rs);

/* dom_edge_filter matching the traversal: strong edges the rules (ctx: bound rules_set) do
 * not drop. Pass it to dom_build so retained sizes agree with the paths. */
int trace_dom_filter(const graph *g, edge_ix e, void *ctx);
/* trace_dom_filter's answers as data (dom_opts.reach_table beside it, rs bound to g): every
 * edge's but the strong field edges out of the few classes an `ignore instance` rule applies
 * to, the static edges out of classes an `ignore static` rule names, and the Java locals
 * when an `ignore java-local` rule is active, which trace_dom_filter answers. Fills t
 * (free: trace_dom_table_free). Returns LR_OK or LR_ERR_NOMEM. O(classes). */
lr_status trace_dom_table(const graph *g, const rules_set *rs, dom_reach_table *t,
                          lr_error *err);
void trace_dom_table_free(dom_reach_table *t);
/* dom_root_filter matching the traversal's roots (ctx: bound rules_set): the root entries the
 * rules do not drop, less the Java-frame roots of threads that have a thread object: those
 * locals are references of their thread (trace_dom_locals), or nothing when the rules ignore
 * that thread's locals (Shark ignores those of `main`). The sizes a trace prints then come
 * from the same reachability as its path. */
int trace_dom_root(const graph *g, uint32_t r, void *ctx);
/* The Java locals the traversal reads as references of their thread (Shark's
 * JavaLocalReferenceReader): one (thread object, local) pair per Java-frame root of a thread
 * that has a thread object, unless the rules ignore that thread's locals; sorted by thread,
 * for dom_opts.extra_*. trace_dom_root drops those frame roots. *from and *to are malloc'd
 * (free both); *n may be 0. Returns LR_OK or LR_ERR_NOMEM. */
lr_status trace_dom_locals(const graph *g, const rules_set *rs, node_ix **from, node_ix **to,
                           uint32_t *n, lr_error *err);

/* Shark 2.14's size model (--size-model shark), for users comparing figures with
 * LeakCanary: an instance weighs the instance size its class record declares (field bytes on
 * HotSpot; on ART the object with header and padding), an array its
 * elements (references at the dump's id size), a String its fields plus its value array,
 * which Shark never follows (trace_shark_filter drops every reference out of a String). Native
 * sizes are added as Shark's AndroidNativeSizeMapper does. Pass to dom_opts.weight with the
 * graph's java.lang.String class as ctx (class_ix *, GRAPH_NONE if none). */
uint64_t trace_shark_weight(const graph *g, node_ix x, void *ctx);
/* trace_dom_filter without the references out of java.lang.String instances. ctx: a
 * trace_shark_ctx. */
typedef struct trace_shark_ctx {
    const rules_set *rs;
    class_ix string_class;
} trace_shark_ctx;
int trace_shark_filter(const graph *g, edge_ix e, void *ctx);
/* trace_dom_root limited to the root kinds Shark 2.14 indexes (JNI global and local, Java
 * frame, native stack, sticky class, thread block, monitor used, thread object, JNI
 * monitor): interned strings, finalizing, debugger, reference-cleanup, VM-internal, unknown
 * and unreachable roots hold nothing in its sizes. ctx: a trace_shark_ctx. */
int trace_shark_root(const graph *g, uint32_t r, void *ctx);

/* The whole view the traces' dominator tree is built in, in *o (zeroed first): the rules'
 * edges (trace_dom_filter, answered from *tab where it can: trace_dom_table) and roots
 * (trace_dom_root), the Java locals as references of their thread (trace_dom_locals, into
 * *from and *to), 32-bit retained sizes (DOM_RETAINED32: the suspects' tree may be built
 * beside it); with shark (Shark 2.14's size model, its rs the same rules) Shark's
 * references, weights and roots instead. `analyze` and lr_analyze build their tree in it.
 * Free with trace_dom_view_free, also after an error. Returns LR_OK or LR_ERR_NOMEM. */
lr_status trace_dom_view(const graph *g, const rules_set *rs, trace_shark_ctx *shark,
                         dom_opts *o, dom_reach_table *tab, node_ix **from, node_ix **to,
                         lr_error *err);
void trace_dom_view_free(dom_reach_table *tab, node_ix *from, node_ix *to);

/* The GC root of a V8 path leaving the unnamed snapshot root straight for an object: one of
 * what DevTools calls user roots, which V8 makes of its global objects. */
#define TRACE_ROOT_GLOBAL "Global object"
/* The GC root of a path from a snapshot's own root object (Dart's Root, which holds the
 * isolate), where no sub-root names it. */
#define TRACE_ROOT_SNAPSHOT "Root object of the snapshot"
/* Shark's GC-root description ("System class", "Java local variable", ...; the synthetic
 * root: TRACE_ROOT_SNAPSHOT). */
const char *trace_root_description(unsigned kind);
/* The GC root trace t starts at, as its text and JSON name it: the synthetic nodes a V8
 * path starts with, by their names ("(GC roots) / (Stack roots)"), else
 * trace_root_description of its root entry's kind. Lives as long as t's trace_result. */
const char *trace_root_text(const graph *g, const trace *t);
/* Display name of the reference leaving el: "name" fields, "[3]" arrays, "<Java Local>". */
void trace_ref_display(const trace_elem *el, char *buf, size_t cap);
/* Generic name used in fingerprints: field name, "[x]", "<Java Local>". */
void trace_ref_generic(const trace_elem *el, char *buf, size_t cap);

#endif
