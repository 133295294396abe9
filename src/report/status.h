/* SPDX-License-Identifier: Apache-2.0 */
/* status.h: the verbs that write a file or drive a process, their result lines as text and
 * JSON (report layer), prefix rep_status_. `convert` and `strip` report what they wrote,
 * `attach` the agent it loaded, `watch status` the agent's state file, `watch analyze` the
 * report it wrote beside a dump. Each result is a plain structure the CLI fills from the
 * writer's counters (format/ keeps those: this layer reads no format header) or from the
 * files it read; the renderers are pure functions of it. JSON functions write keys into an
 * object the caller opened (docs/json.md); the CLI adds the envelope and timings. */
#ifndef LR_REPORT_STATUS_H
#define LR_REPORT_STATUS_H

#include "base/jsonw.h"

#include <stdint.h>
#include <stdio.h>

/* `convert`: a dump written as a V8 heap snapshot or as JSON lines. */
typedef struct rep_convert {
    const char *input;       /* the dump as given */
    const char *output;      /* OUT as given */
    int jsonl;               /* 1: leakray's JSON-lines graph, 0: .heapsnapshot */
    uint64_t in_nodes;       /* objects in the dump (.heapsnapshot) */
    uint64_t nodes;          /* nodes written (.heapsnapshot: synthetic ones included) */
    uint64_t classes;        /* classes written (JSON lines) */
    uint64_t roots;          /* roots written (JSON lines) */
    uint64_t synthetic;      /* synthetic nodes added (.heapsnapshot) */
    uint64_t edges;          /* edges written */
    uint64_t weak_edges;     /* of which weak (.heapsnapshot) */
    uint64_t dropped_nodes;  /* objects not strongly reachable, omitted (.heapsnapshot) */
    uint64_t dropped_edges;  /* edges to omitted objects (.heapsnapshot) */
    uint64_t strings;        /* entries of the strings table (.heapsnapshot) */
    uint64_t self_bytes;     /* sum of the self sizes written (.heapsnapshot) */
    uint64_t out_bytes;      /* bytes written, before gzip */
    int kept_ids;            /* .heapsnapshot: 1 the dump's ids, 0 renumbered */
} rep_convert;

/* "IN -> OUT (size)" and the counts, one line each; no timing lines. */
void rep_status_convert_text(FILE *out, const rep_convert *c);
/* "output", then JSON lines: "format", "nodes", "classes", "edges", "roots", "out_bytes";
 * .heapsnapshot: "nodes", "synthetic_nodes", "edges", "weak_edges", "dropped_objects",
 * "dropped_edges", "strings", "self_bytes", "out_bytes", "ids". */
void rep_status_convert_json(jsonw *w, const rep_convert *c);

/* `strip`: an HPROF dump rewritten without array contents. */
typedef struct rep_strip {
    const char *mode;            /* "sanitize" or "shrink" */
    const char *input;           /* the dump as given */
    const char *output;          /* OUT as given */
    int shrink;                  /* 1: shrink's counters below, 0: sanitize's */
    uint64_t in_bytes;           /* uncompressed input bytes */
    uint64_t out_bytes;          /* uncompressed output bytes */
    uint64_t arrays;             /* primitive arrays seen */
    uint64_t arrays_zeroed;      /* sanitize: arrays zeroed */
    uint64_t boxed_zeroed;       /* sanitize: boxed values zeroed */
    uint64_t arrays_kept;        /* shrink: arrays written */
    uint64_t arrays_dropped;     /* shrink: arrays left out */
    uint64_t string_arrays;      /* shrink: kept as a String's value */
    uint64_t bitmaps;            /* shrink: bitmaps with a buffer */
    uint64_t bitmap_groups;      /* shrink: groups of identical bitmap buffers */
    uint64_t bitmaps_redirected; /* shrink: bitmaps pointed at a kept copy */
} rep_strip;

/* "MODE: IN -> OUT", the bytes before and after with the ratio, the mode's counts. */
void rep_status_strip_text(FILE *out, const rep_strip *s);
/* "mode", "output", "in_bytes", "out_bytes", "primitive_arrays", then shrink's
 * "arrays_kept", "arrays_dropped", "string_arrays", "bitmaps", "bitmap_groups",
 * "bitmaps_redirected" or sanitize's "arrays_zeroed", "boxed_zeroed". */
void rep_status_strip_json(jsonw *w, const rep_strip *s);

/* `attach`: the JVM agent loaded into a running JVM. */
typedef struct rep_attach {
    const char *pid;         /* the target process as given (digits) */
    const char *agent;       /* the agent library's absolute path */
    const char *options;     /* the agent options passed, paths made absolute */
    const char *status_file; /* where the agent keeps its state (watch status reads it) */
} rep_attach;

/* "leakray: agent loaded into PID; ..." */
void rep_status_attach_text(FILE *out, const rep_attach *a);
/* "pid", "agent", "options", "status_file". */
void rep_status_attach_json(jsonw *w, const rep_attach *a);

/* `watch status`: one "key: value" line of the agent's state file. Text: the key padded to
 * 20 columns; JSON: a member, a number when the value is all digits (below 19 of them). */
void rep_status_pair_text(FILE *out, const char *key, const char *value);
void rep_status_pair_json(jsonw *w, const char *key, const char *value);

/* `watch analyze`: the report written beside a dump the agent took. */
typedef struct rep_watch_report {
    const char *dump;           /* the dump as given */
    uint64_t dump_bytes;        /* its size */
    const char *report_text;    /* NAME.txt */
    const char *report_json;    /* NAME.json */
    uint64_t retained_objects;  /* as the agent passed it */
    uint64_t application_leaks; /* leak groups of the report */
    uint64_t library_leaks;     /* library leak groups */
    uint64_t retained_bytes;    /* summed over the groups */
    uint64_t held_ignored;      /* unreachable objects a root holds through ignored refs */
    uint64_t pruned_dumps;      /* older dumps deleted */
    uint64_t pause_ms;          /* the dump's pause, as the agent passed it */
    double analysis_ms;         /* the two analyses' wall time */
    int no_timing;              /* nonzero: the text leaves the analysis time out */
} rep_watch_report;

/* The summary line "leakray: 3 leaks, 1.3 MB retained, report at NAME.txt (dump 3.9 MB,
 * pause 14 ms, analysis 0.1 s)" (the agent forwards it to the JVM's stderr); without
 * ", analysis ..." under no_timing (the pause is the agent's, passed in, not a clock reading
 * of this run). */
void rep_status_watch_text(FILE *out, const rep_watch_report *r);
/* "dump", "dump_bytes", "report_text", "report_json", "retained_objects", "leaks",
 * "application_leaks", "library_leaks", "retained_bytes", "held_by_ignored_references",
 * "pruned_dumps", "pause_ms". */
void rep_status_watch_json(jsonw *w, const rep_watch_report *r);

/* A report recorded in the leak store (`watch analyze --store`, `native ... --store`). */
typedef struct rep_stored {
    int scan;            /* 1: a native scan (its groups counted), 0: an agent's report */
    const char *path;    /* the scan file (scan only) */
    const char *url;     /* the store as the user named it */
    long long report_id; /* the store's report number */
    int n_leaks;         /* leak groups of the scan */
    int n_new;           /* of which new to the store */
    int duplicate;       /* scan only: the file was stored before, nothing added */
} rep_stored;

/* "leakray: report stored in URL (report #N, M new leaks)", or for a scan "leakray: scan
 * stored in URL (...)" / "leakray: PATH already stored in URL (report #N)". */
void rep_status_stored_text(FILE *out, const rep_stored *s);

#endif
