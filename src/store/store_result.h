/* SPDX-License-Identifier: Apache-2.0 */
/* store_result.h: what the leak store's queries return (store layer), prefix store_: plain
 * data, no functions, so the report layer can render it (src/report/store.c, dashboard.c)
 * without reaching the database; this is the one store header that layer includes
 * (scripts/check-layers.sh). Filled by store.h's functions and store_dashboard_build; strings
 * marked owned are freed by the matching _free/_fini there. Every string came from a report,
 * and so from a dump: renderers escape it. */
#ifndef LR_STORE_RESULT_H
#define LR_STORE_RESULT_H

#include <stddef.h>
#include <stdint.h>

/* What one ingest did. */
typedef struct store_ingest_result {
    int64_t report_id; /* the stored report (the existing one when duplicate) */
    int duplicate;     /* 1: an identical ingest was already stored, nothing written */
    int failed;        /* 1: stored as a failed ingest (store_ingest_failure) */
    char kind[16];     /* "analyze", "native" or "failed" */
    int n_leaks;       /* leak groups in the report */
    int n_new;         /* of which seen for the first time in this store */
    int64_t retained;  /* bytes the report's leaks retain together */
} store_ingest_result;

/* One leak (signature) over the filtered reports. */
typedef struct store_leak {
    char signature[48];     /* SHA-1 hex (or the native monitor's frame hash) */
    char kind[16];          /* application, library, suspect, native */
    char *description;      /* short description: the suspect reference (owned) */
    int64_t first_ms;       /* earliest report time */
    int64_t last_ms;        /* latest report time */
    int64_t occurrences;    /* reports it appears in (one per ingest) */
    int64_t dumps;          /* distinct analyses among those (same dump ingested twice = 1) */
    int64_t instances;      /* leaking objects over all those reports */
    int64_t apps;           /* distinct apps */
    int64_t versions;       /* distinct versions */
    int64_t retained_median; /* median over reports of the bytes the leak retained */
    int64_t retained_max;   /* largest such value */
} store_leak;

/* One report a leak appeared in, newest first. */
typedef struct store_seen {
    int64_t report_id;
    int64_t at_ms;
    char *app, *version, *device, *source; /* owned */
    int64_t instances;
    int64_t retained;
} store_seen;

typedef struct store_detail {
    store_leak leak;     /* the leak over all reports */
    char *pattern;       /* library leaks: the matched pattern, else NULL */
    char *explanation;   /* library leaks: its description, else NULL */
    char *trace_json;    /* the newest occurrence's representative trace (report JSON form) */
    store_seen *seen;    /* every occurrence, newest first */
    size_t n_seen;
} store_detail;

/* One leak on one UTC day: how often it was seen and how much it retained. */
typedef struct store_point {
    char signature[48];
    int64_t day;         /* days since 1970-01-01 (UTC) */
    int64_t occurrences; /* reports of that day it appears in */
    int64_t retained;    /* bytes it retained, summed over those reports */
} store_point;

/* A stored representative trace, read back for display (the report's traces[] form). */
typedef struct store_trace_elem {
    char *cls;          /* class of the object (owned) */
    char *type;         /* instance, class, array */
    char *leaking;      /* YES, NO, UNKNOWN */
    char *reason;       /* why, or "" */
    char *ref_owner;    /* reference to the next element: declaring class ("" on the last) */
    char *ref_display;  /* field name, [i] or <Java Local> ("" on the last) */
    char *ref_type;     /* instance_field, static_field, array_entry, local ("" on the last) */
    int suspect;        /* reference underlined as a likely cause */
    int64_t retained;   /* bytes retained by the object, -1 unknown */
    int64_t objects;    /* objects retained, -1 unknown */
} store_trace_elem;

typedef struct store_trace {
    char *root;              /* GC root description (owned), "" if absent */
    store_trace_elem *v;     /* root first, leaking object last */
    size_t n;
    /* a suspect's path (leaking "" throughout) keeps its ends: `elided` objects were left
     * out before v[elided_at] */
    uint64_t elided;
    size_t elided_at;
    /* a native leak's: v[i].cls is frame i of its allocation's backtrace, innermost first
     * ("0x4011a3 in main (app.c:12)"), and nothing else is set */
    int backtrace;
} store_trace;

/* One bucket of `store trend`: a day (UTC) or a version, in order. */
typedef struct store_bucket {
    char *label;          /* "2026-12-01" or the version string (owned: store_buckets_free) */
    int64_t reports;      /* reports in the bucket (ok ones) */
    int64_t failed;       /* failed ingests in the bucket */
    int64_t leaks;        /* distinct leaks seen in it */
    int64_t new_leaks;    /* seen for the first time (no earlier bucket has them) */
    int64_t recurring;    /* seen in an earlier bucket too */
    int64_t fixed;        /* seen in the previous bucket, not in this one */
    int64_t retained;     /* bytes retained by leaks, summed over its reports */
} store_bucket;

typedef enum store_trend_by { STORE_BY_DAY, STORE_BY_VERSION } store_trend_by;

/* One leak's change between two versions. */
typedef enum store_change { STORE_NEW, STORE_FIXED, STORE_GROWN, STORE_SHRUNK,
                            STORE_SAME } store_change;

typedef struct store_delta {
    char signature[48];
    char kind[16];
    char *description;      /* owned */
    store_change change;
    int64_t from_reports, to_reports;     /* reports of each version it appears in */
    int64_t from_median, to_median;       /* median retained bytes per report */
} store_delta;

/* One listed leak of the dashboard: its days and, for the first ones, its history. */
typedef struct store_dash_leak {
    size_t first_point;    /* its days: points[first_point .. first_point + n_points) */
    size_t n_points;
    int detailed;          /* 1: detail, trace and history_total below were read */
    store_detail detail;   /* pattern, explanation, newest occurrences (leak: signature only) */
    store_trace trace;     /* the newest trace, parsed (n == 0: none or a native group) */
    int64_t history_total; /* occurrences in all, of which detail.n_seen are listed */
} store_dash_leak;

/* Everything the dashboard shows, read in one go (store_dashboard_build). */
typedef struct store_dashboard {
    store_leak *leaks;      /* every leak of the filter, store_leaks' order */
    size_t n_leaks;
    store_dash_leak *listed; /* the first n_listed leaks' days and details */
    size_t n_listed;
    store_point *points;    /* every leak's days, by signature then day */
    size_t n_points;
    store_bucket *days;     /* store_trend by day */
    size_t n_days;
    store_bucket *versions; /* store_trend by version */
    size_t n_versions;
    int64_t reports;        /* ok reports of the filter (sum over days) */
    int64_t failed;         /* failed ingests of the filter */
    int has_days;           /* 1: first_day and last_day hold (some leak was seen) */
    int64_t first_day;      /* earliest day any leak was seen, days since 1970-01-01 */
    int64_t last_day;       /* latest such day */
    const char *from;       /* versions compared (NULL: no comparison); points into the */
    const char *to;         /* caller's strings or versions[] */
    store_delta *deltas;    /* the comparison from -> to */
    size_t n_deltas;
} store_dashboard;

#endif
