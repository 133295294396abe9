/* SPDX-License-Identifier: Apache-2.0 */
/* collapse.h: shortens a reference path by category (analysis layer), prefix collapse_.
 * Deep UI trees (Flutter element/widget/render trees, Android view hierarchies) make leak
 * paths hundreds of hops long; grouping consecutive nodes of one category into one line
 * brings them back to a readable size. Rules, applied to a root-first list of nodes:
 * 1. consecutive nodes with the same category (src/rules/categories.h) form one run; nodes
 *    without a category ("other") always stay lines of their own;
 * 2. a run of the `collection` category lying between two runs of the same other category
 *    merges with both into one run (List/Map plumbing inside a component tree), repeatedly,
 *    so element, list, element, map, element is one element run.
 * A line keeps the index of its first and last path node so callers print the edge into the
 * line and both ends. O(n) time, no allocation (out has room for n lines). */
#ifndef LR_ANALYSIS_COLLAPSE_H
#define LR_ANALYSIS_COLLAPSE_H

#include "graph/graph.h"
#include "rules/categories.h"

#include <stdint.h>

typedef struct collapse_line {
    uint32_t first;       /* index in the path of the line's first node */
    uint32_t last;        /* index of its last node (= first for a single node) */
    uint32_t cat;         /* category, CAT_NONE for an uncategorized single node */
    uint32_t collections; /* collection nodes merged into this run of another category */
} collapse_line;

/* Collapses the path nodes[0..n) into out (capacity n). cs must be bound to the graph the
 * nodes belong to. Returns the number of lines (0 when n is 0). */
uint32_t collapse_path(const cat_set *cs, const node_ix *nodes, uint32_t n, collapse_line *out);

/* Nodes on line l. */
static inline uint32_t collapse_count(const collapse_line *l) { return l->last - l->first + 1; }

#endif
