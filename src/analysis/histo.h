/* SPDX-License-Identifier: Apache-2.0 */
/* histo.h: the class histogram (analysis layer), prefix histo_. Instances, shallow bytes and
 * optionally retained bytes per class, as `jmap -histo` counts them, and DevTools' Summary rows
 * of a V8 snapshot selected and ordered the same way. Rows are sorted by the chosen key with
 * ties broken by name, then class index, so the result (and every rendering of it,
 * report/histo.h) is deterministic. Class filters arrive as a predicate over class names: the
 * histogram knows nothing of how a user wrote them. */
#ifndef LR_ANALYSIS_HISTO_H
#define LR_ANALYSIS_HISTO_H

#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "graph/graph.h"

enum histo_sort { HISTO_BY_SHALLOW, HISTO_BY_COUNT, HISTO_BY_NAME, HISTO_BY_RETAINED };

#define HISTO_NO_CLASS_NAME "<no class>"
#define HISTO_CLASS_OBJECTS_NAME "<class objects>"

/* Nonzero: keep the class of this display name. */
typedef int (*histo_keep_fn)(const char *name, void *arg);

typedef struct histo_row {
    class_ix cls;      /* class index, or GRAPH_NONE for the two synthetic rows */
    const char *name;  /* display name (graph string table or the input; outlives the rows) */
    uint64_t count;    /* instances */
    uint64_t shallow;  /* summed shallow bytes */
    uint64_t retained; /* summed retained bytes (only when has_retained) */
} histo_row;

typedef struct histo_result {
    histo_row *rows;    /* n_rows rows with count > 0, kept by the filter, sorted */
    uint32_t n_rows;
    histo_row total;    /* sums over the kept rows */
    int has_retained;   /* the retained column was computed */
    uint64_t heap_bytes; /* reachable bytes, the base of the % column (with retained) */
} histo_result;

/* Sums every node (of heap index `heap`, or all when heap < 0) into its class row. retained:
 * per-node bytes to sum (an instance counted only when no dominator has its class,
 * dom_class_top), or NULL. keep may be NULL. O(N + C log C). Returns LR_OK (free:
 * histo_free) or LR_ERR_NOMEM. */
lr_status histo_build(const graph *g, const uint64_t *retained, int heap, enum histo_sort sort,
                      histo_keep_fn keep, void *keep_arg, histo_result *out, lr_error *err);
/* The tree --retained sums: VisualVM's dominators on HotSpot dumps with its sizes, else every
 * strong edge; retained sizes in 32 bits when they all fit (DOM_RETAINED32: 4 bytes per node,
 * not 8). Returns LR_OK and fills *t (free: dom_free), or dom_build_ex's errors. */
lr_status histo_tree_build(const graph *g, dom_tree *t, lr_error *err);
/* Retained bytes of the class objects (in heap, or all with heap < 0): the "<class objects>"
 * row's, a class object counting unless a class object dominates it; O(N). UINT64_MAX when
 * out of memory. */
uint64_t histo_class_objects_retained(const graph *g, const dom_tree *t, int heap);
/* histo_build with the retained column from histo_tree_build's tree: per class, an instance
 * counted only when no dominator has its class (dom_class_retained's sums; per node through
 * dom_class_top when heap >= 0, as only that heap's instances count), and heap_bytes set to
 * the reachable bytes. Returns LR_OK (free: histo_free), LR_ERR_NOMEM or LR_ERR_LIMIT. */
lr_status histo_build_retained(const graph *g, int heap, enum histo_sort sort,
                               histo_keep_fn keep, void *keep_arg, histo_result *out,
                               lr_error *err);
/* The same from rows summed elsewhere (the streaming HPROF histogram): all has nc + 2 rows,
 * names set for the first nc; all[nc] are class objects without a class, all[nc + 1] other
 * classless nodes. Takes all over (freed by histo_free). */
void histo_rank(histo_row *all, uint32_t nc, enum histo_sort sort, histo_keep_fn keep,
                void *keep_arg, histo_result *out);
void histo_free(histo_result *h);

/* DevTools' Summary rows of a V8 snapshot as the histogram shows them: rows not shadowed and
 * kept by the filter (with detached_only, only classes of detached DOM nodes), sorted. */
typedef struct histo_dt_result {
    const devtools_result *dt; /* the rows' source (not owned) */
    uint32_t *ix;             /* n indexes into dt->classes, sorted */
    uint32_t n;
    uint64_t count, self, retained; /* totals over the selected rows */
    int has_dom;              /* the graph records DOM state (the detached line applies) */
    uint64_t detached_count;  /* instances and shallow bytes of detached classes (kept by the */
    uint64_t detached_self;   /* filter, whatever detached_only) */
    int detached_only;
    uint64_t heap_total;      /* DevTools' heap total (caller: dt->total + native extras) */
} histo_dt_result;

/* Returns LR_OK (free: histo_dt_free) or LR_ERR_NOMEM. */
lr_status histo_dt_select(const graph *g, const devtools_result *dt, enum histo_sort sort,
                          int detached_only, histo_keep_fn keep, void *keep_arg,
                          histo_dt_result *out, lr_error *err);
void histo_dt_free(histo_dt_result *h);

#endif
