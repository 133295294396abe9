/* SPDX-License-Identifier: Apache-2.0 */
/* kinship.h: whether two snapshots plausibly come from one process (analysis layer), prefix
 * kin_. Comparisons (diff, leaks) only mean something between snapshots of one program: an
 * HPROF against a .heapsnapshot, or two unrelated programs, give confident nonsense. A
 * snapshot is reduced to a fingerprint (its format, the hashes of its class names, and its
 * object ids each with its class-name hash), so a caller can keep three of them without
 * keeping three graphs. Two fingerprints are compared on two signals:
 * - class set: the share of the smaller side's class names the other side also has; one
 *   program loads the same classes (or constructors) from one snapshot to the next, while
 *   another program brings its own (different runtimes or apps share well under half);
 * - object ids: the share of ids present on both sides that carry the same class name;
 *   where ids are stable (V8 heap-profiler ids, ART and HotSpot objects that did not move)
 *   a surviving object keeps id and class, while in another process an equal id is a
 *   coincidence whose class rarely matches. V8 numbers objects in heap order at the first
 *   snapshot that sees them, so two processes of one runtime give their start-up objects
 *   the same ids: the VM's own ("system / ...", strings, code) match there by half or more.
 *   JavaScript objects and closures tell them apart: one isolate keeps 99.7-100 % of them
 *   with their name (constructor, function) from snapshot to snapshot, another 0.2-11 %.
 * Cost: 16 bytes per object plus 4 per class, one sort, O(N log N). Thresholds below. */
#ifndef LR_ANALYSIS_KINSHIP_H
#define LR_ANALYSIS_KINSHIP_H

#include "graph/graph.h"

/* Under this share of shared class names (percent of the smaller class set), two snapshots
 * are from different programs; so they are when each side has at least KIN_MAX_OWN_PCT (of
 * the smaller set) class names the other lacks: one program's later snapshot adds classes,
 * it rarely loses many. */
#define KIN_MIN_CLASS_PCT 50
#define KIN_MAX_OWN_PCT 10
/* With at least KIN_MIN_ID_SAMPLE ids on both sides, under this share of them keeping their
 * class name (percent), the ids say "another process"; with at least that many objects on
 * each side and not one id kept with its class, too. */
#define KIN_MIN_ID_PCT 50
/* V8 snapshots sharing KIN_MIN_ID_SAMPLE ids or more, at least this share of them with their
 * class, are one process's sequence: the class-name checks do not refuse them. */
#define KIN_SAME_SEQ_PCT 95
#define KIN_MIN_ID_SAMPLE 1000
/* V8: with at least KIN_MIN_JS_SAMPLE JavaScript objects and closures (not "system / ...")
 * on both sides by id, under this share of them keeping their constructor (percent), the
 * snapshots come from two isolates. */
#define KIN_MIN_JS_PCT 90
#define KIN_MIN_JS_SAMPLE 100
/* V8: with at least KIN_MIN_JS_SAMPLE flat strings on both sides by id, under this share of
 * them keeping their text (percent), the ids were given afresh: a string never changes, and
 * one isolate keeps 100 % of them. Two inspector sessions number a heap anew each, in heap
 * order: on a big heap that did not change, 96 % of the shared ids kept their class by that
 * order alone (a run of one constructor's objects), and 7 % of the strings their text. */
#define KIN_MIN_STR_PCT 90
/* Renumbered ids: the writer numbers its objects afresh in every snapshot, so an id names
 * no object from one snapshot to the next. Bun's V8-format snapshots (JavaScriptCore's heap
 * snapshot builder) do so in two ways: 1.3.14 and later count on from the previous snapshot
 * (fewer than KIN_MAX_RENUM_PCT percent of the smaller side's ids on both sides, and one
 * side's ids all above the other's but for that share), 1.2 gives each object its position
 * in the snapshot (at least KIN_MIN_POS_PCT percent of ids equal the node index, or the
 * index + 1, on both sides; Dart's reader numbers objects so too). 1.3.0 to 1.3.10 keep
 * ids. Both tests need KIN_MIN_RENUM_OBJS objects per side, and neither applies to HPROF,
 * whose ids are addresses. Two processes of a V8 writer both count 1, 3, 5, ..., so their
 * ranges overlap and the class test of the shared ids tells them apart instead. */
#define KIN_MAX_RENUM_PCT 1
#define KIN_MIN_POS_PCT 99
#define KIN_MIN_RENUM_OBJS 100

typedef struct kin_obj {
    uint64_t id;  /* object id in the dump */
    uint32_t cls; /* hash of its class name */
    uint32_t js;  /* V8 JavaScript object or closure: hash of its name (constructor or
                   * function), odd; a flat string: hash of its text, even and nonzero
                   * (KIN_MIN_STR_PCT); else 0 (the isolate test above). Other formats:
                   * the object's birth (graph.node_birth), 0 when unknown */
} kin_obj;

/* Whether o is a V8 JavaScript object or closure (its js is a name's hash, odd). */
#define KIN_IS_JS(o) (((o)->js & 1u) != 0)

typedef struct kin_print {
    char format[16];  /* reader name: "hprof", "v8", ... */
    char entry[256];  /* class of the outermost main() frame, "" when unknown */
    kin_obj *objs;    /* sorted by id (owned) */
    uint64_t n_objs;  /* objects */
    uint32_t *cls;    /* sorted unique class-name hashes (owned) */
    uint32_t n_cls;   /* distinct class names */
    unsigned v8_opts; /* KIN_V8_* marks of the options a V8 snapshot was written with */
    uint64_t n_pos;   /* objects whose id is their node index or the index + 1 */
    int births;       /* the objects carry their births (graph.node_birth) */
} kin_print;

/* What V8's snapshot options leave in the file. Between snapshots that differ in them a
 * comparison reports differences the options made, not the program (docs/formats/v8.md). */
#define KIN_V8_NUMERIC 1u       /* small integers as "smi number" nodes (exposeNumericValues) */
#define KIN_V8_NO_USER_ROOTS 2u /* no user root: recorded sizes (exposeInternals, near OOM) */

typedef struct kin_stats {
    uint32_t classes_a;      /* distinct class names of a */
    uint32_t classes_b;      /* ... of b */
    uint32_t classes_shared; /* names on both sides */
    uint64_t ids_shared;     /* ids on both sides */
    uint64_t ids_same_class; /* ... whose class name is the same on both sides */
    uint64_t js_shared;      /* V8: ids on both sides of a JavaScript object or closure */
    uint64_t js_same_class;  /* ... whose name (constructor, function) is the same */
    uint64_t str_shared;     /* V8: ids on both sides of a flat string */
    uint64_t str_same_text;  /* ... whose text is the same (a string never changes) */
    uint64_t ids_refilled;   /* HPROF: shared ids whose object in a was a filler a thread's
                              * allocation buffer wrote to make the heap walkable (an int[]
                              * or jdk.internal.vm.Filler*) and in b is of another class:
                              * the buffer's allocation went on there, nothing moved */
    int hprof;               /* both are HPROF: ids are addresses, which a moving collector
                              * changes (callers that follow objects by id check
                              * ids_same_class against ids_shared) */
    int ids_renumbered;      /* the ids do not follow objects from a to b (KIN_MAX_RENUM_PCT):
                              * id matching means nothing, the id test is skipped */
} kin_stats;

/* Fingerprint of g, whose reader is named format. Needs node ids (graph_has_ids). Returns
 * LR_OK and *p (free: kin_print_free), or LR_ERR_NOMEM. */
lr_status kin_print_build(const graph *g, const char *format, kin_print *p, lr_error *err);
void kin_print_free(kin_print *p);

/* Compares two fingerprints. Returns 1 when they plausibly come from one process, 0 when
 * not, with a sentence saying why in why[cap] (either way). Formats are compared too; a
 * format mismatch is reported by kin_same_format, which callers check first. When the ids
 * are renumbered (s->ids_renumbered) only the class names decide; callers that match
 * objects by id must then refuse or compare per class. by_id 0: the caller compares per
 * class, and two processes of one program are fine: only the program tests decide (class
 * names, main class); the id statistics are still counted. */
int kin_compare(const kin_print *a, const kin_print *b, int by_id, kin_stats *s, char *why,
                size_t cap);

/* 1 when the formats are equal. */
int kin_same_format(const kin_print *a, const kin_print *b);

/* When a and b were written with different V8 snapshot options (KIN_V8_*), writes a sentence
 * saying how into why[cap] and returns 1; else 0. */
int kin_v8_opts_differ(const kin_print *a, const kin_print *b, char *why, size_t cap);

#endif
