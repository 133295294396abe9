/* SPDX-License-Identifier: Apache-2.0 */
/* trace_internal.h: what the parts of the leak traces share (analysis layer), prefix trace_.
 * The traces are five files: trace_status.c (Shark's status propagation, the suspect window, SHA-1
 * signatures, reference display), trace_elems.c (a trace's objects: class names, inspectors,
 * references; dominator subtree counts; Shark's trace order), trace_policy.c (the rules as
 * path-search policy and as the dominator tree's edges, roots and Shark's weights), trace_groups.c
 * (the exact retained size of a group's leaking objects taken together) and trace.c (the path
 * tree, its walk into traces, grouping, trace_paths and trace_finish). The string helpers and the
 * one rule test below are the only copies. Never included outside src/analysis/trace*.c. */
#ifndef LR_ANALYSIS_TRACE_INTERNAL_H
#define LR_ANALYSIS_TRACE_INTERNAL_H

#include "analysis/paths.h"
#include "analysis/trace.h"
#include "analysis/virtual.h"

#include <stdio.h>
#include <string.h>

/* ---- strings (NULL when out of memory) ---- */

static inline char *sdup(const char *s)
{
    size_t n = strlen(s);
    char *p = err_malloc(n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

static inline char *joinf(const char *a, const char *mid, const char *b)
{
    size_t n = strlen(a) + strlen(mid) + strlen(b) + 1;
    char *p = err_malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", a, mid, b);
    return p;
}

/* ---- trace_elems.c: a trace's objects ---- */

/* Class name a trace shows for node n (a class object's own name; "Foo[]" arrays). */
/* Status and reason of a path object from its inspectors alone (lk: why it leaks, nl: why
 * not; last: it is the leaking object), before Shark's propagation along the path; NULL when
 * out of memory. trace_statuses and the trace tree's walker share it. */
char *trace_raw_status(const char *lk, const char *nl, int last, uint8_t *st_out);
char *trace_node_class_name(const graph *g, const rules_set *rs, node_ix n);
/* Simple name of class cls (strip_array: less one trailing "[]"); NULL when out of memory. */
char *trace_owner_simple(const char *cls, int strip_array);
/* Appends to a '\n'-separated label list (realloc'd). */
int trace_add_label(char **labels, const char *s);
/* Whether n is a class object whose defining loader is itself a leaking object (watched,
 * by a KeyedWeakReference or a rule): such a class is unloaded with its loader only, so it
 * leaks too, whatever "a class is never leaking" (rules/jdk.rules) says of classes. */
int trace_class_of_leaking_loader(const graph *g, const rules_set *rs, const leak_set *ls,
                                  node_ix n);
/* Inspector verdicts plus the KeyedWeakReference inspector for node n. */
int trace_inspect(const graph *g, const rules_set *rs, const leak_set *ls, node_ix n,
                  char **leaking, char **not_leaking, char **labels);
/* Whether a reference of kind k (GRAPH_EDGE_KIND) named `name` is a numbered slot, an array
 * entry in a trace (elements, V8 hidden edges, V8 internal edges named by a number); its
 * index in *ix. trace_build_elem_ref and the path tree's walk (trace.c) name them alike. */
int trace_ref_slot(const graph *g, unsigned k, uint32_t name, uint32_t *ix);
/* The text a trace gives a reference of kind k named `name` that is no slot: the name, but a
 * V8 WeakMap entry's "N / part of key (K @k) -> value (V @v) pair in WeakMap (table @t)"
 * without its numbers (TRACE_WEAKMAP_REF), so the entries of one map are one leak. */
const char *trace_ref_text(const graph *g, unsigned k, uint32_t name);
#define TRACE_WEAKMAP_REF "part of key -> value pair in WeakMap"
/* The reference leaving el for node `to` (GRAPH_NONE if unknown): an edge of kind k named
 * `name` in the view the paths walked. */
lr_status trace_build_elem_ref(const graph *g, trace_elem *el, uint8_t k8, uint32_t name,
                               node_ix to);

/* Dominator subtree object counts of the nodes of `want` (sorted, distinct) into cnt, one per
 * entry; 0, or -1 when out of memory. trace_want_index: x's entry, UINT32_MAX if none. */
int trace_subtree_counts(const dom_tree *t, const node_ix *want, uint32_t nw, uint32_t *cnt);
uint32_t trace_want_index(const node_ix *want, uint32_t nw, node_ix x);
/* qsort comparators: node_ix ascending; order_key (found in order, then depth, then leak) */
int trace_cmp_node(const void *a, const void *b);
int trace_cmp_order(const void *a, const void *b);

/* Path nodes Shark's trace order compares, from the root: deeper divergences keep the
 * dequeue order (bounds the work on million-node chains). */
#define TRACE_ORDER_DEPTH 1024

typedef struct order_key {
    uint32_t leak;
    uint8_t via_last;
    uint32_t depth;
    node_ix top; /* the path's node at depth min(depth, TRACE_ORDER_DEPTH) */
} order_key;

/* Reorders ord[0..n) into Shark's trace order (trace_elems.c, "Shark's trace order"). */
lr_status trace_shark_order(const graph *g, const paths_result *pr, const leak_set *ls,
                            order_key *ord, uint32_t n, lr_error *err);

/* ---- the rules as the path search's policy (trace_policy.c) ---- */

static inline int follow(const rules_set *rs, node_ix from, edge_ix e)
{
    int32_t lib;
    return rules_edge_class(rs, from, e, &lib) != RULES_DROP;
}

/* The path search walks Shark's reference view (virtual.h), one node's list at a time: rules
 * judge the real edge behind an entry; collection entries have none and are followed, as
 * Shark matches no pattern on them; the few entries whose priority a Shark reader fixes keep
 * it. */
typedef struct vpol_ctx {
    const rules_set *rs;
    virt_gen *vg;
    int shark; /* Shark's references: a class's link to its loader stays ignored */
} vpol_ctx;

/* paths_policy callbacks over the graph's own edges (ctx: the rules_set; _shark: Shark's
 * references, where a class's link to its loader stays ignored)... */
enum paths_edge_class trace_pol_edge(const graph *g, node_ix from, edge_ix e, void *ctx);
enum paths_edge_class trace_pol_edge_shark(const graph *g, node_ix from, edge_ix e, void *ctx);
enum paths_edge_class trace_pol_root(const graph *g, uint32_t r, void *ctx);
/* ...and over Shark's reference view (ctx: a vpol_ctx; trace_vsource is its paths_source) */
int trace_vsource(void *ctx, node_ix x, paths_list *out);
enum paths_edge_class trace_pol_vedge(const graph *g, node_ix from, edge_ix pos, void *ctx);
enum paths_edge_class trace_pol_vroot(const graph *g, uint32_t r, void *ctx);

/* ---- trace_status.c ---- */

/* A synthetic root's name without its numbers ("(Global handles) (17 / DevTools console)":
 * the handle's index differs for every object logged), for a signature. buf: cap bytes. */
void trace_root_generic(const char *root_name, char *buf, size_t cap);

/* ---- trace_groups.c ---- */

/* Bytes and objects the reachable nodes marked in `stop` retain together, in the view the
 * dominator tree was built with (o; NULL: strong references the rules follow). inr and live
 * are bitmaps of N bits; queue has N entries. */
void trace_together(const graph *g, const rules_set *rs, const dom_opts *o, const dom_tree *dt,
                    const uint8_t *stop, uint8_t *inr, uint8_t *live, uint32_t *queue,
                    uint64_t *bytes, uint64_t *count);

/* What every group of one analysis shares, so that each group costs what its leaking objects
 * reach rather than the heap: the nodes alive without any group's leaking objects (one
 * traversal), the leaking objects such a node refers to, and the reachable nodes outside
 * them (what only leaking objects keep). */
typedef struct trace_tog_base {
    uint8_t *live0;  /* bit per node: reached from the roots without entering `all` */
    uint8_t *held0;  /* bit per node: a node of `all` a live0 node or a root refers to */
    node_ix *behind; /* the reachable nodes not in live0 (`all` among them), ascending */
    uint32_t n_behind;
} trace_tog_base;

/* Fills b for the leaking objects of every group to size (bitmap `all`); queue has N
 * entries. LR_ERR_NOMEM leaves b zeroed (trace_together_base then answers as
 * trace_together). */
lr_status trace_tog_base_build(const graph *g, const rules_set *rs, const dom_opts *o,
                               const dom_tree *dt, const uint8_t *all, uint32_t *queue,
                               trace_tog_base *b, lr_error *err);
void trace_tog_base_free(trace_tog_base *b);

/* trace_together for a group whose leaking objects (stop) are among the base's `all`: the
 * same answer, from a traversal of what they reach short of live0 and a scan of the edges
 * of b->behind instead of the heap's. */
void trace_together_base(const graph *g, const rules_set *rs, const dom_opts *o,
                         const dom_tree *dt, const trace_tog_base *b, const uint8_t *stop,
                         uint8_t *inr, uint8_t *live, uint32_t *queue, uint64_t *bytes,
                         uint64_t *count);

#endif
