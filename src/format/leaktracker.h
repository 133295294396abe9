/* SPDX-License-Identifier: Apache-2.0 */
/* leaktracker.h: Flutter/Dart leak_tracker reports matched to a Dart heap snapshot (format
 * layer), prefix lt_. leak_tracker watches disposable objects at run time and reports those
 * not disposed before they were collected, disposed but never collected, or collected late,
 * each by its runtime type and identityHashCode. A Dart snapshot records the identity hash of
 * every object that has one (format/dart.h), so a report names the very objects of the
 * snapshot: `leakray analyze app.dartheap --leak-tracker leaks.json` traces them. The report
 * is leak_tracker's JSON (a map from leak type to a list of reports); docs/formats/dart.md. */
#ifndef LR_FORMAT_LEAKTRACKER_H
#define LR_FORMAT_LEAKTRACKER_H

#include "graph/graph.h"

/* leak_tracker's leak types, in its order. */
enum lt_type { LT_NOT_DISPOSED = 0, LT_NOT_GCED = 1, LT_GCED_LATE = 2, LT_TYPE_COUNT };

/* One reported object found in the snapshot. */
typedef struct lt_match {
    node_ix node;     /* the object */
    uint8_t type;     /* enum lt_type */
    uint32_t code;    /* its identityHashCode */
} lt_match;

typedef struct lt_report {
    lt_match *v;          /* matches in report order (an object reported twice: once) */
    uint32_t n;
    uint32_t n_reports;   /* reports read */
    uint32_t n_missing;   /* no object with that hash and type: collected before the dump */
    uint32_t n_ambiguous; /* reports matching several objects (hash collisions): all marked */
} lt_report;

/* leak_tracker's name of a leak type ("notGCed"), and a reader's phrase ("not GCed"). */
const char *lt_type_name(unsigned t);
const char *lt_type_title(unsigned t);

/* Reads the report at path (plain or gzip) and finds each reported object in g, a Dart
 * snapshot with identity hashes, by hash and runtime type (generic arguments ignored: the
 * snapshot names classes without them). Returns LR_OK and *out (free: lt_report_free),
 * LR_ERR_USAGE when g has no identity hashes, LR_ERR_FORMAT with the byte offset for a bad
 * report, LR_ERR_IO, LR_ERR_NOMEM. */
lr_status lt_load(const graph *g, const char *path, lt_report *out, lr_error *err);
/* The same over a report in memory (plain or gzip), named `name` in messages. */
lr_status lt_load_memory(const graph *g, const uint8_t *data, size_t len, const char *name,
                         lt_report *out, lr_error *err);
void lt_report_free(lt_report *r);

#endif
