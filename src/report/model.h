/* SPDX-License-Identifier: Apache-2.0 */
/* model.h: the report model (report layer), prefix rep_. One struct that points at every
 * analysis result a report shows -- leak traces and groups, the dominator tree as bounded
 * views, the biggest objects and classes, DevTools' Summary rows (V8), clusters, duplicate
 * buffers (HPROF), duplicate strings (V8: memlab's, as `leakray dupes`), threads -- plus
 * the view-building step that derives the bounded parts from the dominator tree. Renderers
 * (html.c, the model's JSON below) are pure functions of it: the model owns only what
 * rep_report_build made, the caller owns the analysis results, and a pointer left NULL
 * means "section not computed" (the page omits it). */
#ifndef LR_REPORT_MODEL_H
#define LR_REPORT_MODEL_H

#include "analysis/cluster.h"
#include "analysis/devtools.h"
#include "analysis/domagg.h"
#include "analysis/dupes.h"
#include "analysis/jsdupes.h"
#include "analysis/leakfind.h"
#include "analysis/suspects.h"
#include "analysis/trace.h"
#include "rules/rules.h"

#include <stdio.h>

#define REP_SCHEMA_VERSION 1  /* of the model JSON (docs/json.md "report"); keys append-only */
#define REP_TREE_NODES 3000   /* nodes per tree view */
#define REP_TREE_K 24         /* children kept per tree node before "other" */
#define REP_TREE_DEPTH 24     /* levels of a tree view */
#define REP_TOP_OBJECTS 200   /* rows of "biggest objects" */
#define REP_TOP_CLASSES 500   /* rows of "classes" */
#define REP_MAX_TRACES 200    /* traces shown (groups always all) */
#define REP_MAX_TRACE_STEPS 100000 /* their steps in all (a leak's path in a list of 2,000
                                    * is up to 2,000 steps: 2,000 groups made 659 MB) */
#define REP_MAX_CLUSTERS 100  /* clusters shown */
#define REP_MAX_DUPES 50      /* rows per duplicates section */
#define REP_JS_VALUE 1024     /* bytes of a duplicate JS string's value shown */
#define REP_JS_IDS 16         /* ids shown per duplicate JS string */
#define REP_MAX_PNG_PIXELS (2u << 20) /* bitmaps larger than this are listed, not inlined */
#define REP_MAX_THREADS 200   /* threads shown */
#define REP_MAX_FRAMES 64     /* frames per thread shown */
#define REP_MAX_LOCALS 64     /* locals per thread shown */
#define REP_DEVTOOLS_ROWS 200 /* DevTools Summary rows */
#define REP_RETAINER_HOPS 12  /* edges of the retaining path shown per Summary row */

/* One row of the classes table. */
typedef struct rep_class_row {
    class_ix cls;       /* graph class */
    uint32_t count;     /* instances */
    uint64_t shallow;   /* their shallow bytes */
    uint64_t retained;  /* retained without double counting (no same-class dominator) */
} rep_class_row;

typedef struct rep_report {
    /* ---- filled by the caller ---- */
    const graph *g;                 /* the heap (not owned) */
    const char *path;               /* the dump's path as shown */
    double analysis_ms;             /* shown unless no_timing */
    int no_timing;                  /* nonzero: no clock readings (byte-stable output) */
    /* leaks (all or none) */
    const rules_set *rs;            /* bound rules */
    const leak_set *ls;             /* leaking objects */
    const trace_result *tr;         /* their traces and groups */
    int suspects;                   /* nothing is watched or declared (no leak traces) */
    const susp_result *suspects_found; /* LARGEST RETAINERS (never traces), or NULL */
    /* dominator tree: exact (HPROF) or DevTools' (V8) */
    domagg_input dom;               /* idom + retained + total; idom NULL = no tree */
    uint32_t n_reachable;           /* objects in the tree */
    rep_class_row *classes;         /* sorted by retained desc (owned by the caller) */
    uint32_t n_classes;             /* rows */
    const devtools_result *devtools; /* V8: DevTools' Summary, or NULL */
    const cluster_ctx *clusters_ctx; /* clusters, or NULL */
    const cluster_result *clusters;
    const dupes_result *dupes;      /* duplicate buffers and bitmaps, or NULL */
    const jsdup_result *js_strings; /* V8-style: memlab's duplicate strings, or NULL */
    int threads;                    /* nonzero: list g->threads */
    const uint64_t *thread_with;    /* per g->threads: retained with its locals (MAT's, as
                                     * `threads`), or NULL: the thread object's own */
    /* ---- made by rep_report_build ---- */
    domagg_view by_object;          /* bounded dominator tree */
    domagg_view by_class;           /* the same grouped by class */
    node_ix *top;                   /* biggest objects by retained size */
    uint32_t n_top;
} rep_report;

/* Builds the bounded views and the top list from r->dom. O(N log k); one CSR of the dominator
 * children (8 bytes per node) lives only during the call. Returns LR_OK or LR_ERR_NOMEM;
 * free with rep_report_fini. Nothing to do when r->dom.idom is NULL. */
lr_status rep_report_build(rep_report *r, lr_error *err);

/* Frees what rep_report_build made (not the caller's results). Accepts a zeroed report. */
void rep_report_fini(rep_report *r);

/* Writes the model as one compact JSON document (docs/json.md "report"). With `safe`, the
 * characters <, >, & and U+2028/U+2029 are written as \u escapes so the text can sit inside
 * an HTML <script> element. Returns 0, or -1 when the stream failed. */
int rep_report_json(FILE *out, const rep_report *r, int safe);

/* Copies the JSON text s (n bytes) to out; with safe, the characters <, >, & and
 * U+2028/U+2029 become \u escapes (they only occur inside JSON strings, where the escape
 * means the same character), so the text can sit inside an HTML <script> element. Returns 0,
 * or -1 when the stream failed. */
int rep_json_copy(FILE *out, const char *s, size_t n, int safe);

#endif
