/* SPDX-License-Identifier: Apache-2.0 */
/* path.h: `leakray path FILE ID` as text and JSON (report layer), prefix rep_path_. Pure
 * functions of a path the analysis found (analysis/paths.h, or DevTools' parent edges,
 * analysis/devtools.h), given as its nodes and edges; the JSON writes keys (docs/json.md
 * "path") into an object the caller opened. */
#ifndef LR_REPORT_PATH_H
#define LR_REPORT_PATH_H

#include "analysis/collapse.h"
#include "base/jsonw.h"

#include <stdio.h>

/* The shortest strong path from a GC root. */
typedef struct rep_path {
    const graph *g;
    node_ix target;
    uint64_t id;               /* the target's id as asked */
    const node_ix *nodes;      /* len objects, root first (len 0: unreachable) */
    const edge_ix *edges;      /* len - 1 references between them */
    uint32_t len;
    const graph_root *root;    /* the root entry the path starts at, or NULL */
    const char *root_kind;     /* its kind's key ("synthetic root" without one) */
    int low_priority;          /* through a low-priority reference or root */
    int collapse;              /* print the category lines below */
    const cat_set *cs;         /* bound categories (collapse) */
    const collapse_line *ln;   /* n_ln lines (collapse) */
    uint32_t n_ln;
    const char *held_through;  /* no strong path: how Java reaches it ("soft", "weak"...),
                                * else its referrers' strongest kind, or NULL */
    uint32_t keep;             /* text: objects printed, half at each end (0 = all) */
} rep_path;

/* The objects a text path prints by default: a chain thousands of objects long (a linked
 * list) keeps its two ends, as analyze's traces do, and --full prints it whole. */
#define REP_PATH_KEEP 200

void rep_path_text(FILE *out, const rep_path *v);
void rep_path_json(jsonw *w, const rep_path *v);

/* DevTools' retaining path by distance (V8/Node/ArkTS). */
typedef struct rep_path_dt {
    const graph *g;
    node_ix target;
    const node_ix *nodes;      /* len + 1 objects from the root to the target */
    const edge_ix *edges;      /* len references */
    uint32_t len;
    const int32_t *distance;   /* per node (devtools_result) */
    const uint64_t *retained;  /* per node */
    int reachable;
    uint32_t keep;             /* text: objects printed, half at each end (0 = all) */
} rep_path_dt;

void rep_path_dt_text(FILE *out, const rep_path_dt *v);
void rep_path_dt_json(jsonw *w, const rep_path_dt *v);

#endif
