/* SPDX-License-Identifier: Apache-2.0 */
/* instances.h: the instances of a class, selected and ordered (analysis layer), prefix inst_.
 * What `leakray instances` lists and `path --merged` merges, as data: every node of each class
 * named CLASS (every class of that name: a dump may load one name twice) and, with
 * subclasses, of the classes extending one, optionally kept by a rules expression (a watch
 * rule, rules.h), then ordered by id, shallow or retained size. The per-class node lists and
 * the retained sizes come from the caller (src/query/ builds them once and lies above this
 * layer): it passes an inst_nodes_fn and, for retained sizes, an inst_retained_fn. */
#ifndef LR_ANALYSIS_INSTANCES_H
#define LR_ANALYSIS_INSTANCES_H

#include "graph/graph.h"
#include "rules/rules.h"

/* The nodes whose class is c, ascending: LR_OK with *nodes (owned by the caller's index) and
 * *n, or an error in err. */
typedef lr_status (*inst_nodes_fn)(void *ctx, class_ix c, const node_ix **nodes, uint32_t *n,
                                   lr_error *err);
/* Retained bytes of x under the caller's model. */
typedef uint64_t (*inst_retained_fn)(void *ctx, node_ix x);

/* Orders of the list; sizes are descending, ties by id ascending. */
enum inst_sort { INST_BY_ID, INST_BY_SHALLOW, INST_BY_RETAINED };

/* What the user asked for (the renderers print it back). */
typedef struct inst_opts {
    const char *cls;        /* class name, as given */
    int subclasses;         /* instances of subclasses too */
    const rules_set *where; /* bound watch rule an instance must match, NULL: all */
    const char *where_text; /* that rule's expression as given (NULL without one) */
    enum inst_sort sort;
    uint64_t limit;         /* rows shown (0 = all); the counts cover every match */
} inst_opts;

typedef struct inst_result {
    const graph *g;       /* the graph rows point into (outlives the result) */
    inst_opts o;          /* as asked (strings not copied: they outlive the result) */
    uint32_t n_classes;   /* classes selected; 0 when no class has the name */
    node_ix *nodes;       /* n matches, in the order asked once inst_order ran */
    uint64_t *retained;   /* per row, INST_BY_RETAINED only (else NULL) */
    uint32_t n;           /* matches */
    uint32_t shown;       /* rows a listing shows: n cut at o.limit */
    uint64_t shallow;     /* shallow bytes summed over the matches */
    uint64_t retained_sum; /* retained bytes summed over them (objects may share bytes) */
} inst_result;

/* The matches of o (a copy is kept in r), in class then node order. Returns LR_OK (free:
 * inst_free; r->n_classes == 0 says no class has the name), LR_ERR_NOMEM or nodes' error. */
lr_status inst_select(const graph *g, const inst_opts *o, inst_nodes_fn nodes, void *ctx,
                      inst_result *r, lr_error *err);

/* Orders the matches as r->o.sort asks and sums their sizes; retained (called once per
 * match, after whatever the caller's model needs) is required for INST_BY_RETAINED and
 * unused otherwise. Returns LR_OK or LR_ERR_NOMEM. */
lr_status inst_order(inst_result *r, inst_retained_fn retained, void *ctx, lr_error *err);

void inst_free(inst_result *r);

#endif
