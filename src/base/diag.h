/* SPDX-License-Identifier: Apache-2.0 */
/* diag.h: counted anomalies (base layer), prefix diag_. Real dumps routinely contain things
 * a strict reader would reject (roots pointing at missing objects, repeated sticky-class
 * roots, undeclared V8 types); they are counted here rather than failing the load, and
 * `leakray info` / --json list every nonzero count with its severity and description. Each
 * anomaly is declared exactly once, in the table in diag.c; the enum is append-only. */
#ifndef LR_BASE_DIAG_H
#define LR_BASE_DIAG_H

#include <stdint.h>

enum diag_id {
    DIAG_DANGLING_REFERENCE = 0, /* a reference to an id that is not in the dump */
    DIAG_DANGLING_ROOT,          /* a GC root whose object is not in the dump */
    DIAG_DUPLICATE_ROOT,         /* the same (object, root kind) repeated */
    DIAG_NULL_ROOT,              /* a GC root with id 0 */
    DIAG_DUPLICATE_ID,           /* two object records with the same id (later one ignored) */
    DIAG_UNKNOWN_RECORD,         /* unknown top-level record tag, skipped by length */
    DIAG_SIZE_SATURATED,         /* a shallow size above 4 GiB clamped */
    DIAG_UNKNOWN_CLASS,          /* an object whose class id has no CLASS_DUMP */
    DIAG_MISSING_STRING,         /* a name id with no STRING record */
    DIAG_PRIM_ARRAY_NODATA,      /* Android PRIMITIVE_ARRAY_NODATA arrays (no contents) */
    DIAG_UNKNOWN_NODE_TYPE,      /* V8 node type index not declared in meta */
    DIAG_UNKNOWN_EDGE_TYPE,      /* V8 edge type index not declared in meta */
    DIAG_BAD_EDGE_TARGET,        /* V8 edge to_node not a multiple of node field count */
    DIAG_EXTRA_DUMPS,            /* heap dumps in the file other than the one loaded */
    DIAG_TRUNCATED,              /* the file ends where a complete dump cannot (cut short) */
    DIAG_STRING_VALUE_MISMATCH,  /* a string value whose length its stated byte size denies */
    DIAG_SHORT_INSTANCE,         /* an instance record shorter than its class's fields */
    DIAG_COUNT
};

enum diag_severity { DIAG_INFO = 0, DIAG_DATA_LOSS = 1, DIAG_ERROR = 2 };

typedef struct diag_counts {
    uint64_t n[DIAG_COUNT]; /* occurrences of each anomaly */
} diag_counts;

static inline void diag_count(diag_counts *d, enum diag_id id) { d->n[id]++; }
static inline void diag_add(diag_counts *d, enum diag_id id, uint64_t k) { d->n[id] += k; }

const char *diag_name(enum diag_id id);        /* stable key, e.g. "dangling_reference" */
const char *diag_description(enum diag_id id); /* one sentence for people */
enum diag_severity diag_severity_of(enum diag_id id);
const char *diag_severity_name(enum diag_severity s); /* "info", "data-loss", "error" */

#endif
