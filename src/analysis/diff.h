/* SPDX-License-Identifier: Apache-2.0 */
/* diff.h: per-class comparison of two heap snapshots (analysis layer), prefix diff_. What
 * Chrome DevTools' Comparison view computes: per class key, objects new in the second
 * snapshot and deleted from the first, matched by node id (# New, # Deleted, # Delta,
 * Alloc. size, Freed size, Size delta); an id on both sides in one class is neither, one
 * that changed class (an element become detached) is deleted and new. Ids only mean "the
 * same object" where the runtime keeps them stable (V8, ArkTS); HPROF ids are addresses that
 * GC reuses, so for those the caller asks for class mode: counts and shallow bytes per class
 * on each side and their deltas, with no per-object matching. Like DevTools, only objects
 * with a nonzero shallow size are counted, and classes where nothing changed are dropped.
 * Cost: O((Na+Nb) log) for the id sort, 16 bytes per object of scratch. */
#ifndef LR_ANALYSIS_DIFF_H
#define LR_ANALYSIS_DIFF_H

#include "graph/graph.h"

/* One class row. In class mode n_new/n_deleted/alloc/freed are 0. */
typedef struct diff_row {
    const char *name;    /* class display name (points into the result's pool) */
    const char *key;     /* class key (DevTools "scriptId,line,col,name" or ",name") */
    uint32_t count_a;    /* objects of the class in the first snapshot */
    uint32_t count_b;    /* ... in the second */
    uint64_t size_a;     /* their shallow bytes in the first */
    uint64_t size_b;     /* ... in the second */
    uint32_t n_new;      /* id mode: objects only in the second snapshot */
    uint32_t n_deleted;  /* id mode: objects only in the first */
    uint64_t alloc_size; /* id mode: shallow bytes of the new objects */
    uint64_t freed_size; /* id mode: shallow bytes of the deleted objects */
    int64_t count_delta; /* id mode: new - deleted; class mode: count_b - count_a */
    int64_t size_delta;  /* id mode: alloc - freed (DevTools); class mode: size_b - size_a */
    uint64_t retained_a; /* with retained sizes: the class's retained bytes in the first */
    uint64_t retained_b; /* ... in the second */
    int64_t retained_delta; /* retained_b - retained_a */
} diff_row;

typedef struct diff_result {
    int by_id;        /* nonzero: objects matched by id */
    int retained;     /* nonzero: rows carry retained sizes (diff_build_ex) */
    uint32_t n;       /* rows (changed classes) */
    diff_row *rows;   /* sorted by |size_delta| descending, then |count_delta|, then key */
    diff_row total;   /* sums over all rows (name "(total)"); its retained_a/_b are the
                       * reachable bytes of each snapshot, not a sum over classes */
    uint64_t n_reused; /* by_id: ids that name an object of another class or size in b than
                        * in a (an address a collection gave another object) */
    char *pool;       /* names and keys (owned) */
} diff_result;

/* Compares a (first, "base") with b (second). keys_a/keys_b, when not NULL, give each class's
 * key string (class_ix -> str_ix in that graph); classes match across snapshots by key, else
 * by class name. Objects without a class are grouped by their node name. Returns LR_OK and
 * fills *r (free: diff_free), or LR_ERR_NOMEM. */
lr_status diff_build(const graph *a, const graph *b, const str_ix *keys_a, const str_ix *keys_b,
                     int by_id, diff_result *r, lr_error *err);

/* Per-class retained sizes for diff_build_ex: class_ix -> bytes a class's instances retain
 * together (dominators.h dom_class_retained, or DevTools' per-class sums), per snapshot. */
typedef struct diff_retained {
    const uint64_t *class_a; /* a->n_classes entries */
    const uint64_t *class_b; /* b->n_classes entries */
    uint64_t total_a;        /* reachable bytes of a (the total row) */
    uint64_t total_b;        /* ... of b */
    uint64_t class_objects_a; /* the "<class objects>" row's in a (histo_class_objects_retained) */
    uint64_t class_objects_b; /* ... in b */
} diff_retained;

/* diff_build plus retained sizes when ret is not NULL: rows carry retained_a/_b/_delta, a
 * class whose retained size changed is a changed row even when its counts did not, and rows
 * are ordered by |retained_delta| first. */
lr_status diff_build_ex(const graph *a, const graph *b, const str_ix *keys_a,
                        const str_ix *keys_b, int by_id, const diff_retained *ret,
                        diff_result *r, lr_error *err);
void diff_free(diff_result *r);

/* Keeps only the rows whose name starts with prefix ("Detached ": the detached DOM classes,
 * docs/formats/v8.md) and sums the total over them. */
void diff_keep_prefix(diff_result *r, const char *prefix);

/* One growth gate, CLASS=N or CLASS=PCT%: it fails when the class's instance count grows by
 * more than N objects, or by more than PCT percent of its count in the base. */
typedef struct diff_gate {
    const char *spec;   /* as typed */
    char cls[256];      /* class name */
    char spelled[256];  /* the name as typed when diff_gate_eval read it as a nested class's
                         * (Outer.Inner as Outer$Inner), else "" */
    uint64_t limit;     /* N or PCT */
    int pct;            /* nonzero: limit is a percentage */
    int known;          /* the class exists in one of the snapshots */
    uint64_t count_a;   /* its instances in the base */
    uint64_t count_b;   /* ... in the second snapshot */
    int64_t growth;     /* count delta (id mode: new - deleted) */
    int failed;         /* growth over the limit */
} diff_gate;

/* Parses "CLASS=N" or "CLASS=PCT%" (the class may contain '=' only before the last one).
 * Returns 1, or 0 when s is malformed. */
int diff_gate_parse(const char *s, diff_gate *g);
/* Sums the class's rows of r into the gate and decides it; a and b tell whether an unchanged
 * class exists at all. */
void diff_gate_eval(diff_gate *gt, const diff_result *r, const graph *a, const graph *b);

#endif
