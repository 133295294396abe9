/* SPDX-License-Identifier: Apache-2.0 */
/* leakray/analysis.h: the analyses of libleakray over a heap opened with leakray.h.
 *
 *   lr_dominators(h, &err);                          // retained sizes, dominator of each object
 *   lr_object top[5]; uint32_t n;
 *   lr_top_objects(h, 5, top, &n, &err);             // the five biggest by retained size
 *
 *   lr_analysis *an;
 *   lr_analyze(h, NULL, &an, &err);                  // LeakCanary-style leak traces
 *   for (uint32_t i = 0; i < lr_analysis_group_count(an); i++) { lr_leak_group g; ... }
 *   lr_analysis_free(an);
 *
 * Every result is an opaque handle freed by its own _free function (which accepts NULL);
 * strings it hands out live until that call. Every fallible call returns lr_status and fills
 * the lr_error given last (which may be NULL). A heap is not thread-safe: run one analysis at
 * a time on it; different heaps are independent. The numbers match the peers named in
 * docs/design.md (VisualVM for HotSpot retained sizes, Shark for leak traces, DevTools for
 * V8 snapshots). */
#ifndef LEAKRAY_ANALYSIS_H
#define LEAKRAY_ANALYSIS_H

#include "leakray/leakray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- dominators and retained sizes ---- */

/* Computes the dominator tree of the heap once and keeps it with the heap: HotSpot dumps use
 * VisualVM's conventions, other HPROF dumps strong references from the GC roots, V8
 * snapshots DevTools' tree. O((objects + references) log objects), about 16 bytes per
 * object. Returns LR_OK (also when already computed), LR_ERR_NOMEM or LR_ERR_LIMIT. */
LR_API lr_status lr_dominators(lr_heap *h, lr_error *err);

/* After lr_dominators: retained bytes of o (0 when unreachable or before), its immediate
 * dominator (LR_NONE when o is a top of the tree, unreachable, or before), the bytes of
 * everything reachable, and how many objects are reachable. */
LR_API uint64_t lr_object_retained(const lr_heap *h, lr_object o);
LR_API lr_object lr_object_dominator(const lr_heap *h, lr_object o);
LR_API uint64_t lr_reachable_bytes(const lr_heap *h);
LR_API uint32_t lr_reachable_count(const lr_heap *h);

/* The n biggest objects by retained size into out (caller array of n), largest first, ties
 * by object id: the rows `leakray top` prints. Only objects the tree reaches count, and in a
 * V8 snapshot not its synthetic nodes (the root, "(GC roots)" and its sub-roots), which
 * retain everything. *found says how many were filled. Computes the dominators if needed.
 * Returns LR_OK or an error of lr_dominators. */
LR_API lr_status lr_top_objects(lr_heap *h, uint32_t n, lr_object *out, uint32_t *found,
                                lr_error *err);

/* ---- class histogram ---- */

typedef struct lr_histogram lr_histogram;

/* One class of the histogram. */
typedef struct lr_histogram_row {
    lr_class cls;          /* the class */
    const char *name;      /* its name */
    uint32_t count;        /* instances */
    uint64_t shallow;      /* their shallow bytes, as `histo` and SQL give them: without
                            * the native bytes lr_object_shallow adds per object */
    uint64_t retained;     /* retained bytes without double counting (an instance counts
                            * only when no dominator ancestor has its class); 0 unless
                            * with_retained */
} lr_histogram_row;

/* Instances per class, sorted by retained (with_retained) or shallow bytes, descending, ties
 * by name. Class objects are no class's instances: `histo`'s "<class objects>" row has no
 * row here. A V8-style heap's rows are `histo`'s, DevTools' Summary: instances of nonzero
 * size, retained bytes in DevTools' tree, no row for the snapshot's synthetic nodes.
 * with_retained computes the dominators if needed. Returns LR_OK and *out (free:
 * lr_histogram_free), or LR_ERR_NOMEM. */
LR_API lr_status lr_histogram_build(lr_heap *h, int with_retained, lr_histogram **out,
                                    lr_error *err);
LR_API uint32_t lr_histogram_count(const lr_histogram *hi);
/* Row i, or NULL when out of range. Owned by hi. */
LR_API const lr_histogram_row *lr_histogram_get(const lr_histogram *hi, uint32_t i);
LR_API void lr_histogram_free(lr_histogram *hi);

/* ---- paths from GC roots ---- */

/* The shortest strong reference path from a GC root to target, the one `leakray path` prints:
 * Shark's order under the shipped rules (Java locals, weak-referent edges, what the rules
 * ignore and a class's internals last; the rules are loaded on the first call on a heap); on
 * HPROF an object also holds its class object, last too, so a class and its loader kept only
 * through an instance have a path, as lr_object_retained sees them. On V8, Node and ArkTS
 * heaps the path `leakray path` prints there: DevTools' retaining path by distance, from the
 * snapshot's root, no weak edge (the first call on a heap computes DevTools' distances).
 * Fills objs[0..min(cap, len)) root first, target last, and *len with the full length (a
 * caller with a small cap can ask again). Returns LR_OK, or LR_ERR_NOT_FOUND when no root
 * reaches target, LR_ERR_NOMEM. O(objects + references). */
LR_API lr_status lr_path_to(lr_heap *h, lr_object target, lr_object *objs, uint32_t cap,
                            uint32_t *len, lr_error *err);

/* ---- leak analysis: traces, signatures, suspects ---- */

typedef struct lr_analysis lr_analysis;

/* Options of lr_analyze; a zeroed struct (or NULL) means the defaults. */
typedef struct lr_analyze_opts {
    const char *const *rules_files; /* extra rules files (docs/rules.md), n_rules_files */
    int n_rules_files;
    const char *const *watch;       /* classes whose instances are leaking when leaking_if[i]
                                     * holds; n_watch names, none NULL (LR_ERR_USAGE) */
    const char *const *leaking_if;  /* may be NULL or hold NULLs: always leaking */
    int n_watch;
    int no_shipped_rules;           /* nonzero: skip jdk.rules, android.rules, browser.rules */
    int no_suspects;                /* nonzero: skip the leak suspects (`leakray analyze`'s
                                     * LARGEST RETAINERS, never traces) and their tree */
    int detached;                   /* browser snapshots: the detached DOM nodes still
                                     * retained are leaking objects. 0: when n_watch is 0
                                     * (`leakray analyze`'s default), 1: always, -1: never */
} lr_analyze_opts;

/* Finds leaking objects (watched by LeakCanary's KeyedWeakReference, declared by rules or
 * opts->watch) and builds their traces: shortest strong path, Leaking YES/NO/UNKNOWN per
 * object, suspect references, SHA-1 signature, groups by signature (application leaks) and
 * by pattern (library leaks), retained bytes over the traces' own reachability (the rules'
 * edges and roots, Java locals as their thread's references), groups in Shark's order. When
 * none is found there are no traces: the big retainers (MAT's leak suspects) are not leaks;
 * they are found apart (unless opts->no_suspects), exactly as `leakray analyze` prints them
 * under LARGEST RETAINERS: lr_analysis_suspect below.
 * Returns LR_OK and *out (free: lr_analysis_free; h must outlive it), LR_ERR_RULES for a bad
 * rules file or expression, LR_ERR_NOMEM. */
LR_API lr_status lr_analyze(lr_heap *h, const lr_analyze_opts *opts, lr_analysis **out,
                            lr_error *err);
LR_API void lr_analysis_free(lr_analysis *an);

/* Nonzero when nothing was watched or declared leaking (then there is no trace). */
LR_API int lr_analysis_suspects(const lr_analysis *an);
/* Warnings of lr_analyze, in the order found: a watched class (opts->watch, or a watch rule
 * of opts->rules_files, then prefixed by the file's path) or a field of its condition that
 * no object of the dump has. Such a watch finds nothing, which reads as "no leak": a gate
 * should refuse to pass on it, as `leakray analyze --strict` does. The strings live until
 * lr_analysis_free; an index out of range gives NULL. */
LR_API uint32_t lr_analysis_warning_count(const lr_analysis *an);
LR_API const char *lr_analysis_warning(const lr_analysis *an, uint32_t i);
/* Leaking objects with a trace, and those no GC root reaches (unreachable: no trace). */
LR_API uint32_t lr_analysis_trace_count(const lr_analysis *an);
LR_API uint32_t lr_analysis_unreachable_count(const lr_analysis *an);
/* Groups: application leaks first (lr_leak_group.library == 0), then library leaks. */
LR_API uint32_t lr_analysis_group_count(const lr_analysis *an);

typedef struct lr_leak_group {
    const char *signature;        /* SHA-1 hex of the suspect references (LeakCanary's) */
    const char *title;            /* "<Class>.<field>" of the first suspect reference */
    int library;                  /* nonzero: a known library leak */
    const char *pattern;          /* library leaks: the matching reference pattern, else "" */
    const char *description;      /* library leaks: the rule's description, else "" */
    uint64_t retained;            /* bytes retained by the group's leaking objects together */
    uint64_t retained_objects;    /* objects retained */
    uint32_t n_traces;            /* traces in the group */
} lr_leak_group;

/* Group i, and the index (for lr_analysis_trace) of its k-th trace. Return LR_OK or
 * LR_ERR_NOT_FOUND / UINT32_MAX when out of range. */
LR_API lr_status lr_analysis_group(const lr_analysis *an, uint32_t i, lr_leak_group *out,
                                   lr_error *err);
LR_API uint32_t lr_analysis_group_trace(const lr_analysis *an, uint32_t i, uint32_t k);
/* Group i's stable signature (docs/json.md, `stable_signature`): the same SHA-1 over class
 * names without what the JVM numbers or places anew in each run (lambdas, hidden classes,
 * proxies), so equal from one run of a program to the next; equal to lr_leak_group.signature
 * when no such class is among its suspects. The key to keep leaks by across dumps. NULL when
 * i is out of range. Valid while an lives. */
LR_API const char *lr_analysis_group_stable_signature(const lr_analysis *an, uint32_t i);

typedef enum lr_leaking {
    LR_LEAKING_UNKNOWN = 0,
    LR_LEAKING_NO = 1,
    LR_LEAKING_YES = 2
} lr_leaking;

typedef struct lr_trace {
    lr_object leaking;            /* the leaking object (last step) */
    const char *signature;        /* its group's signature */
    uint32_t group;               /* index of its group */
    const char *gc_root;          /* "System class", "Java local variable", ... */
    const char *source;           /* "watched", "rule" or "suspect" */
    uint32_t n_steps;             /* objects on the path, GC root first: the whole path, for
                                   * every trace (what `leakray analyze --full --max-traces 0`
                                   * prints; its text keeps 50 objects of 100 traces) */
} lr_trace;

typedef struct lr_trace_step {
    lr_object object;
    const char *class_name;       /* display class ("Foo class" objects: the class's name) */
    lr_leaking leaking;           /* Leaking: YES / NO / UNKNOWN */
    const char *reason;           /* why ("" when none) */
    const char *labels;           /* newline-separated labels ("" when none); all of them,
                                   * as `leakray analyze --verbose` prints them (its default
                                   * leaves out "Also retains ..." lines) */
    const char *reference;        /* the reference to the next step ("" for the last) */
    int suspect;                  /* nonzero: that reference is a suspect (LeakCanary's ~~~) */
    int has_retained;             /* nonzero: retained/retained_objects are known */
    uint64_t retained;
    uint64_t retained_objects;
} lr_trace_step;

/* Trace t (0 .. lr_analysis_trace_count-1) and its step j (0 .. n_steps-1). reference
 * strings of steps are valid until the next call of lr_analysis_step on an. Return LR_OK or
 * LR_ERR_NOT_FOUND. */
LR_API lr_status lr_analysis_trace(const lr_analysis *an, uint32_t t, lr_trace *out,
                                   lr_error *err);
LR_API lr_status lr_analysis_step(lr_analysis *an, uint32_t t, uint32_t j, lr_trace_step *out,
                                  lr_error *err);

/* ---- leak suspects (analyze's LARGEST RETAINERS) ----
 * Eclipse MAT's leak suspects in the dump's retained-size model (the tree lr_dominators and
 * `leakray top` use): objects, classes, groups of top-level instances of one class and
 * threads' locals holding over 10 % of the heap, each followed down to its accumulation
 * point. Largest first; the numbers equal `leakray analyze --json`'s "suspects". */

typedef struct lr_suspect {
    const char *kind;             /* "object", "class", "instances" or "thread_locals" */
    const char *description;      /* MAT's sentence ("One instance of X occupies ...") */
    lr_object object;             /* the suspect (instances: the biggest; thread_locals: the
                                   * biggest local) */
    uint64_t retained;            /* bytes it holds (instances: the sum; thread_locals: the
                                   * thread's retained size with its locals, as `leakray
                                   * threads` prints it) */
    uint32_t count;               /* instances / locals counted, 0 for other kinds */
    lr_class instances_of;        /* "instances": their class, else LR_NONE */
    lr_object thread;             /* "thread_locals": the thread object, else LR_NONE */
    lr_object accumulation;       /* where the memory accumulates (object itself if nowhere
                                   * lower) */
    uint64_t accumulation_retained; /* its retained bytes */
    uint32_t path_length;         /* objects on its path from a GC root (lr_analysis_suspect_
                                   * path), 0 when none reaches it */
    const char *gc_root;          /* that path's root kind ("System class", ...), or "" */
} lr_suspect;

/* Suspects found (0 under no_suspects), the bytes their shares are of (the heap as the model
 * counts it), suspect i, and object k of its path (root first, the accumulation point last;
 * LR_NONE when out of range). Strings live until lr_analysis_free. */
LR_API uint32_t lr_analysis_suspect_count(const lr_analysis *an);
LR_API uint64_t lr_analysis_suspect_heap(const lr_analysis *an);
LR_API lr_status lr_analysis_suspect(const lr_analysis *an, uint32_t i, lr_suspect *out,
                                     lr_error *err);
LR_API lr_object lr_analysis_suspect_path(const lr_analysis *an, uint32_t i, uint32_t k);

/* ---- clusters (V8/ArkTS: same-type objects grouped by origin) ---- */

typedef struct lr_clusters lr_clusters;

typedef struct lr_cluster {
    const char *title;            /* "LeakedRecord", "onTick", "{key, meta}", ... (owned by
                                   * the lr_clusters; as `leakray clusters --json` gives it) */
    const char *rule;             /* the clustering rule that made it */
    const char *origin;           /* its directory: script, module or class */
    uint32_t count;               /* members */
    uint64_t shallow;             /* their shallow bytes */
    uint64_t retained;            /* bytes they retain together */
    lr_object representative;     /* the member retaining most */
} lr_cluster;

/* Clusters the heap's objects with the shipped rules of its runtime (rules/v8.rules for V8
 * snapshots, rules/arkts.rules for ArkTS and other formats) plus rules_files, read first.
 * Computes its own dominator tree. Returns LR_OK and *out (free: lr_clusters_free; h must
 * outlive it), LR_ERR_RULES, LR_ERR_NOMEM. Sorted by retained bytes, descending. */
LR_API lr_status lr_clusters_build(lr_heap *h, const char *const *rules_files, int n_rules,
                                   lr_clusters **out, lr_error *err);
LR_API uint32_t lr_clusters_count(const lr_clusters *c);
LR_API lr_status lr_clusters_get(const lr_clusters *c, uint32_t i, lr_cluster *out,
                                 lr_error *err);
LR_API void lr_clusters_free(lr_clusters *c);

/* ---- diff of two heaps ---- */

typedef struct lr_diff lr_diff;

typedef struct lr_diff_row {
    const char *class_name;
    uint32_t count_a, count_b;    /* instances in the first and the second heap */
    uint64_t size_a, size_b;      /* their shallow bytes */
    uint32_t n_new, n_deleted;    /* by_id: objects only in b / only in a */
    int64_t count_delta;          /* by_id: new - deleted; else count_b - count_a */
    int64_t size_delta;           /* by_id: bytes new - deleted; else size_b - size_a */
} lr_diff_row;

/* lr_diff_build's flags. */
#define LR_DIFF_BY_ID 1 /* match objects by id (as `leakray diff` on V8, --match-ids on HPROF) */
#define LR_DIFF_FORCE 2 /* compare heaps that seem unrelated (as `leakray diff --force`) */

/* Per-class comparison of a (before) with b (after): rows for classes that changed, sorted
 * by |size_delta| descending. flags LR_DIFF_BY_ID matches objects by id (V8 snapshots of one
 * process keep ids); then, as DevTools' Comparison does, a's plain objects are named with b's
 * interface definitions (a is changed so: its class names may differ afterwards). As
 * `leakray diff`, it first checks that the comparison means something: heaps of two formats
 * are refused, and so, unless LR_DIFF_FORCE, are heaps that do not come from one program
 * (their class names) or, by id, from one process (ids that do not keep their class):
 * LR_ERR_USAGE with a message saying why. Where ids were renumbered by the writer (Bun), a
 * comparison by id is made per class. lr_diff_warning says what a caller should know of the
 * result (forced, options that differ, addresses reused). The rows equal `leakray diff`'s
 * with the same choices. Returns LR_OK and *out (free: lr_diff_free; a and b must outlive
 * it), LR_ERR_USAGE, LR_ERR_NOMEM. */
LR_API lr_status lr_diff_build(lr_heap *a, const lr_heap *b, int flags, lr_diff **out,
                               lr_error *err);
/* The warnings of d, one sentence each, joined by "; " ("" when none). Owned by d. */
LR_API const char *lr_diff_warning(const lr_diff *d);
LR_API uint32_t lr_diff_count(const lr_diff *d);
/* Row i (NULL when out of range) and the totals over all rows. Owned by d. */
LR_API const lr_diff_row *lr_diff_get(const lr_diff *d, uint32_t i);
LR_API const lr_diff_row *lr_diff_total(const lr_diff *d);
LR_API void lr_diff_free(lr_diff *d);

#ifdef __cplusplus
}
#endif
#endif
