/* SPDX-License-Identifier: Apache-2.0 */
/* text.h: the LeakCanary 2.14 text report (report layer), prefix rep_. Renders a
 * trace_result exactly as Shark's HeapAnalysisSuccess.toString does: the four sections
 * separated by "====" lines, each leak as "<n> bytes retained by leaking objects",
 * "Displaying only 1 leak trace out of <n> with the same signature", "Signature: <sha1>"
 * then the trace drawn with ┬─── ├─ │ ↓ ~~~ ╰→. Layout reference:
 * docs/research/hprof-leakcanary-shark.md section 12. */
#ifndef LR_REPORT_TEXT_H
#define LR_REPORT_TEXT_H

#include "analysis/collapse.h"
#include "analysis/leakfind.h"
#include "analysis/paths.h"
#include "analysis/suspects.h"
#include "analysis/trace.h"
#include "base/jsonw.h"
#include "rules/rules.h"

#include <stdio.h>

typedef struct rep_text_opts {
    const char *dump_path;  /* "Heap dump file path:" value */
    int no_timing;          /* omit "Analysis duration:" (byte-stable output) */
    double analysis_ms;     /* total analysis time */
    int suspects;           /* nothing is watched (kept for callers; no line depends on it) */
    const cat_set *collapse; /* non-NULL: print traces collapsed by these categories (bound) */
    uint32_t max_traces;    /* groups printed, application ones first; 0 = all */
    const susp_result *suspects_found; /* non-NULL: print the LARGEST RETAINERS section */
    int verbose;            /* also labels LeakCanary never prints ("Also retains ...") */
    int zwsp;               /* start the leaking object's detail lines with U+200B as Shark
                             * does for logcat (the CLI sets it only on a terminal) */
} rep_text_opts;

/* Writes the whole report. */
void rep_text_analysis(FILE *out, const graph *g, const rules_set *rs, const leak_set *ls,
                       const trace_result *tr, const rep_text_opts *o);
/* Writes one trace (no trailing newline). */
void rep_text_trace(FILE *out, const graph *g, const trace *t, int verbose);
/* Same with runs of one category (analysis/collapse.h) before the leaking object drawn as one
 * "├─ N x category: First ... Last" step; the leaking object always keeps its own lines. */
void rep_text_trace_collapsed(FILE *out, const graph *g, const trace *t, const cat_set *cs,
                              int verbose);
/* Whether a label line is printed: "Also retains ..." lines only when verbose. */
int rep_label_shown(const char *line, int verbose);
/* The LARGEST RETAINERS section: each suspect's sentence, its thread frame when it is a
 * thread's locals, and its path from a GC root to the accumulation point drawn like a leak
 * trace (no statuses), retained sizes and heap shares from the suspects' tree. */
void rep_text_suspects(FILE *out, const graph *g, const susp_result *sr);
/* Display class of x: a class object's own name, else its class ("<no class>"). */
const char *rep_class_label(const graph *g, node_ix x, char *buf, size_t cap);
/* Simple name of the class a suspect path's reference from x along e is shown under, as
 * the traces show it: a field under the class declaring it (`ThreadPoolExecutor.workQueue`
 * on a ScheduledThreadPoolExecutor; of two fields of one name, a subclass's hiding its
 * superclass's, the one holding e's target), an element under the array's name less its `[]`
 * (`Object` for `Object[3]`), anything else under x's class. Returns buf. */
const char *rep_ref_owner(const graph *g, node_ix x, edge_ix e, char *buf, size_t cap);
/* Name and kind of a suspect path's reference e: a graph edge's own, or `<class>` and
 * GRAPH_EDGE_INTERNAL for a class hop (PATHS_CLASS_HOP: an instance holds its class, no edge
 * says so). rep_suspect_edge_name returns buf. */
const char *rep_suspect_edge_name(const graph *g, edge_ix e, char *buf, size_t cap);
unsigned rep_suspect_edge_kind(const graph *g, edge_ix e);
/* "Foo.bar(Foo.java:12)" of frame f, as a Java stack trace prints it; returns buf. */
const char *rep_frame_fmt(const graph *g, const graph_frame *f, char *buf, size_t cap);
/* Where a root that a thread holds (r->thread != 0) holds its object, for people:
 * `thread "main" (serial 1) at Foo.bar(Foo.java:12)`, the frame when the root names one and
 * the name when the Thread object has one, both escaped as rep_fmt_text escapes; "" for a
 * root no thread holds. Returns buf. */
const char *rep_root_thread(const graph *g, const graph_root *r, char *buf, size_t cap);
/* The same as JSON keys of the open object: "thread_serial", and "thread_name" and "frame"
 * when known (path's root, show's thread_roots[]). Nothing for a root no thread holds. */
void rep_root_thread_json(jsonw *w, const graph *g, const graph_root *r);
/* "Foo.bar(Foo.java:12)" of frame `frame` of the thread with that serial, "" if unknown. */
const char *rep_frame_text(const graph *g, uint32_t serial, int32_t frame, char *buf,
                           size_t cap);
/* Base-1000 size as Shark prints it: "512 B", "12.3 kB". buf: 32 bytes. */
const char *rep_human_bytes(char *buf, uint64_t bytes);

#endif
