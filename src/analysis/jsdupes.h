/* SPDX-License-Identifier: Apache-2.0 */
/* jsdupes.h: duplicate strings of a V8/Node/Chromium/ArkTS heap snapshot (analysis layer),
 * prefix jsdup_. The numbers of memlab's string analysis (`memlab analyze string`,
 * StringAnalysis in @memlab/heap-analysis 2.0.5): candidates are nodes of type `string` and
 * `concatenated string` (never `sliced string`) none of whose dominators (memlab's tree) is
 * of type `code`;
 * a concatenated string's value is its `first` edge's target's value followed by its `second`
 * edge's target's, a sliced string's is its `parent`'s, any other node's is its name. Strings
 * with one value form a group: count, retained size (sum of the members' retained sizes in
 * memlab's own dominator tree, analysis/memlabdom.h, which is not DevTools'), ids.
 * Reported: the 10 duplicated groups (count > 1) with most members and the 10 with most
 * retained size, and per-pattern statistics in memlab's order ("All strings", the
 * Relay and class-name patterns, "JS code string" for strings a code node's `source` edge
 * references). Ties keep memlab's order: the order in which a JavaScript object enumerates its
 * keys (array-index keys ascending, then the others by first occurrence in node order).
 * Bounds for hostile input: values are never built whole. Each value is summarised by a
 * polynomial hash mod 2^61-1, its byte length and what the patterns and memlab's key order
 * need (first 16 bytes, leading digits, the words around spaces), composed bottom-up over
 * concatenations (iteratively, each string node once; a cycle of concatenations reads its
 * back edge as an empty string), so 1M strings cost O(N log N) whatever their depth; equal
 * hashes are then confirmed on the bytes, at most JSDUP_CMP_MAX bytes per pair and
 * JSDUP_CMP_BUDGET bytes and nodes walked per run (beyond which equal hash and length decide,
 * counted in `unverified`). Values shown are cut at the caller's buffer (report: 1 MiB). */
#ifndef LR_ANALYSIS_JSDUPES_H
#define LR_ANALYSIS_JSDUPES_H

#include "analysis/memlabdom.h"
#include "graph/graph.h"

#define JSDUP_TOP 10                      /* memlab's list sizes */
#define JSDUP_CMP_MAX (1u << 20)          /* bytes of two values compared */
#define JSDUP_CMP_BUDGET (1ull << 28)     /* bytes compared (and string nodes walked) per run */
#define JSDUP_WALK_STEPS (1u << 22)       /* string nodes one walk over a value visits */

/* memlab's patterns, in its order. */
enum {
    JSDUP_PAT_ALL = 0,        /* "All strings" */
    JSDUP_PAT_RELAY_ID,       /* "Relay DataID": starts with Uzpf */
    JSDUP_PAT_RELAY_COMPOSITE,/* "Relay DataID composite": /^\d+\{"/ */
    JSDUP_PAT_RELAY_QUERY,    /* "Relay query": starts with {"query_id": */
    JSDUP_PAT_RELAY_CLIENT,   /* "Relay client string": starts with client: */
    JSDUP_PAT_CLASS_NAME,     /* "Element class name": >= 6 space-separated 8-unit words */
    JSDUP_PAT_CODE,           /* "JS code string": referenced by a code node's `source` */
    JSDUP_N_PAT
};

/* One distinct value. */
typedef struct jsdup_group {
    uint32_t n;            /* members */
    uint32_t first_member; /* into jsdup_result.members; members in node order */
    uint64_t size;         /* sum of the members' retained sizes */
    uint64_t bytes;        /* UTF-8 bytes of the value (saturating) */
    uint32_t n_source;     /* members a code node's `source` edge references */
    uint64_t size_source;  /* their retained sizes */
    uint8_t patterns;      /* bit per JSDUP_PAT_* the value matches (ALL always) */
} jsdup_group;

typedef struct jsdup_pattern {
    uint8_t id;            /* JSDUP_PAT_* */
    uint64_t n;            /* strings */
    uint64_t dup_n;        /* sum over groups of n - 1 */
    uint64_t size;         /* retained sizes */
    double dup_size;       /* sum over groups of size * (n - 1) / n, in memlab's order */
} jsdup_pattern;

typedef struct jsdup_result {
    jsdup_group *groups;   /* every value, in memlab's key order */
    uint32_t n_groups;
    node_ix *members;
    uint32_t n_members;    /* = candidates */
    uint32_t top_count[JSDUP_TOP], n_top_count; /* group indices, memlab's ranking */
    uint32_t top_size[JSDUP_TOP], n_top_size;
    jsdup_pattern patterns[JSDUP_N_PAT];        /* those with a member, memlab's order */
    uint32_t n_patterns;
    uint32_t n_code_dominated; /* string nodes left out: a dominator is of type code */
    uint32_t n_unverified;     /* members grouped on hash and length past a compare cap */
} jsdup_result;

/* Whether g is a snapshot this analysis reads (a synthetic root and a `string` node type). */
int jsdup_applies(const graph *g);

/* Runs the analysis with memlab's dominators and retained sizes dt (mldom_build on g).
 * Returns LR_OK and fills *r (free: jsdup_free), LR_ERR_USAGE when g does not apply, or
 * LR_ERR_NOMEM. Memory: 9 bytes per node, 24 per candidate, about 72 per concatenated or
 * sliced string and per interned string (the summaries). */
lr_status jsdup_find(const graph *g, const mldom_tree *dt, jsdup_result *r,
                     lr_error *err);

/* Writes the value of node v into buf (at most cap - 1 bytes, cut at a UTF-8 character
 * boundary, NUL-terminated) and returns the bytes written. Bounded by JSDUP_WALK_STEPS. */
size_t jsdup_value(const graph *g, node_ix v, char *buf, size_t cap);

/* The pattern's name as memlab prints it. */
const char *jsdup_pattern_name(unsigned id);

void jsdup_free(jsdup_result *r);

#endif
