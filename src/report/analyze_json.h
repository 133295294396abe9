/* SPDX-License-Identifier: Apache-2.0 */
/* analyze_json.h: `leakray analyze --json` (report layer), prefix rep_analyze_. The leak
 * traces, their groups, the unreachable leaking objects and the LARGEST RETAINERS suspects
 * as one JSON document's keys (docs/json.md "analyze"), a pure function of the analysis
 * results: trace_result, leak_set, susp_result and the traces' dominator totals. The keys go
 * into an object the caller opened (the CLI adds schema_version, warnings and timing). Also
 * the small vocabularies ("YES", "watched", "static_field", ...) and the labels array the
 * report model's JSON (model.c) shares, so the two documents spell them one way. */
#ifndef LR_REPORT_ANALYZE_JSON_H
#define LR_REPORT_ANALYZE_JSON_H

#include "analysis/collapse.h"
#include "analysis/dominators.h"
#include "analysis/leakfind.h"
#include "analysis/suspects.h"
#include "analysis/trace.h"
#include "base/jsonw.h"
#include "rules/rules.h"

/* What one analyze run found; the view owns nothing. */
typedef struct rep_analyze {
    const char *path;          /* the dump as shown ("file") */
    const graph *g;            /* the heap */
    const rules_set *rs;       /* bound rules: build info, library leak patterns */
    const leak_set *ls;        /* leaking objects */
    const trace_result *tr;    /* their traces, groups and unreachable ones */
    const dom_tree *dt;        /* the traces' dominator tree (retained of a suspect's top) */
    const cat_set *collapse;   /* non-NULL: each trace's "collapsed" runs by these (bound) */
    const susp_result *suspects_found; /* non-NULL: "suspect_settings" and "suspects" */
    int suspects;              /* nothing is watched or declared: "mode" is "suspects" */
    int verbose;               /* labels LeakCanary never prints are kept */
} rep_analyze;

/* Writes "file", "mode", "build", the counts, "application_leaks", "library_leaks",
 * "traces", "unreachable_objects" and, with suspects_found, "suspect_settings" and
 * "suspects". */
void rep_analyze_json(jsonw *w, const rep_analyze *v);

/* "YES", "NO" or "UNKNOWN" of a TRACE_YES/TRACE_NO/other status. */
const char *rep_trace_status_key(unsigned status);
/* "watched", "rule" or "suspect" of a LEAK_SRC_* source. */
const char *rep_leak_source_key(unsigned source);
/* "static_field", "array_entry", "local" or "instance_field" of a TRACE_REF_* type. */
const char *rep_trace_ref_key(unsigned ref_type);
/* "class", "array" or "instance": what node n is, as traces name it. */
const char *rep_node_type_key(const graph *g, node_ix n);
/* "labels": the label lines of a trace element that are shown (rep_label_shown). */
void rep_analyze_labels_json(jsonw *w, const char *labels, int verbose);

#endif
