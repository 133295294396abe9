/* SPDX-License-Identifier: Apache-2.0 */
/* lr_internal.h: what the library's public entry points share and what the CLI may reach
 * that programs linked against libleakray may not (top of the library, prefix lr_). Nothing
 * here carries LR_API, so with -fvisibility=hidden none of it is exported from the shared
 * library; the CLI links the static archive and sees it. struct lr_heap owns the mapped input
 * and the graph (the graph's offsets point into the mapping); struct lr_analysis points at
 * the leak results, owned or borrowed, plus the report sections computed on first render. */
#ifndef LR_INTERNAL_H
#define LR_INTERNAL_H

#include "leakray/leakray.h"
#include "leakray/report.h"

#include "analysis/cluster.h"
#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "analysis/dupes.h"
#include "analysis/jsdupes.h"
#include "analysis/leakfind.h"
#include "analysis/retained.h"
#include "analysis/suspects.h"
#include "analysis/trace.h"
#include "base/mfile.h"
#include "format/fmt.h"
#include "graph/graph.h"
#include "report/model.h"
#include "rules/cluster_rules.h"
#include "rules/rules.h"

struct lr_heap {
    mfile input;                /* mapped or inflated dump */
    graph g;                    /* the loaded graph (points into input) */
    const fmt_reader *reader;   /* the format that loaded it */
    int has_dom;                /* dom is computed (lr_dominators) */
    dom_tree dom;               /* the heap's dominator tree */
    int has_dt;                 /* dt is computed (lr_path_to on a V8 heap) */
    devtools_result dt;         /* DevTools' distances: `path`'s retaining paths on V8 */
    int has_path_rs;            /* path_rs is loaded and bound (lr_path_to elsewhere) */
    rules_set path_rs;          /* the shipped rules, whose view `path` takes */
};

struct lr_analysis {
    lr_heap *h;                 /* not owned */
    int owned;                  /* nonzero: own_* below are the results, freed with it */
    rules_set own_rs;
    leak_set own_ls;
    trace_result own_tr;
    dom_tree own_dt;
    susp_result own_sr;         /* LARGEST RETAINERS found by lr_analyze */
    const rules_set *rs;        /* the results (own_* or the caller's) */
    const leak_set *ls;
    const trace_result *tr;
    const dom_tree *dt;         /* dominators over the traces' edges */
    int suspects;               /* nothing watched or declared leaks (no leak traces) */
    const susp_result *sr;      /* LARGEST RETAINERS (own_sr or the caller's), or NULL */
    double ms;                  /* analysis wall time */
    ret_model kept;             /* the suspects' tree, kept for the report (it is `top`'s),
                                 * or zeroed; the report takes it over */
    char step_ref[600];         /* lr_analysis_step's reference text */
    /* ---- report sections, made on the first HTML/JSON render ---- */
    int report_built;
    rep_report rep;
    rep_class_row *class_rows;
    int has_devtools;
    devtools_result devtools;
    int has_tree;               /* tree below is the report's (`top`'s; V8: DevTools') */
    dom_tree tree;
    /* V8 with native sizes (ArkTS): `tree` counts them for the clusters; the treemap and the
     * tables show DevTools' own (`top`'s), this one */
    int has_view;
    dom_tree view;
    uint64_t *thread_with;      /* per thread: retained with its locals, or NULL */
    int has_clusters;
    crules_set crs;
    cluster_ctx cctx;
    cluster_result clusters;
    int has_dupes;
    dupes_result dupes;
    int has_jsdupes;            /* V8-style: memlab's duplicate strings */
    jsdup_result jsdupes;
    char **warn;                /* lr_analyze's warnings (a watched class or field no object
                                 * of the dump has), n_warn of them, owned */
    uint32_t n_warn;
};

/* lr_open with the Cleaner-freed native sizes to credit (analysis/native.h's NATIVE_*;
 * lr_open credits NATIVE_ALL): Shark's size model counts the registry's alone. */
lr_status lr_open_ex(const char *path, const lr_open_opts *opts, unsigned native_kinds,
                     lr_heap **out, lr_error *err);

/* The graph of a loaded heap, for the CLI and the tests (owned by h). */
graph *lr_heap_graph(lr_heap *h);

/* An analysis over results the caller computed (cmd_analyze): borrowed, so they must outlive
 * the handle; lr_analysis_free frees only what rendering added. Returns NULL when out of
 * memory. */
lr_analysis *lr_analysis_wrap(lr_heap *h, const rules_set *rs, const leak_set *ls,
                              const trace_result *tr, const dom_tree *dt, int suspects,
                              const susp_result *sr, double ms);

/* lr_analyze, and with keep_tree nonzero the suspects' tree is kept for a render of the
 * HTML page or the report model (`leakray report`, `analyze --html`), which then need not
 * build the same tree again; memory: the tree's arrays from the analysis to the render.
 * For the page the traces are analyze's screen's: the two ends of each path (50 objects),
 * whole paths for REP_MAX_TRACES traces and groups' first ones only. */
lr_status lr_analyze_keep(lr_heap *h, const lr_analyze_opts *o, int keep_tree,
                          lr_analysis **out, lr_error *err);

/* Gives an analysis the suspects' tree of ret_suspects_keep (*kept is zeroed), for the
 * report to take over. */
void lr_analysis_keep_tree(lr_analysis *an, ret_model *kept);

#endif
