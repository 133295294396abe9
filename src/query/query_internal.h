/* SPDX-License-Identifier: Apache-2.0 */
/* query_internal.h: state shared by query.c (the database, lazy analyses, SQL functions) and
 * query_vtab.c (the virtual tables), query layer, prefix query_. Every lazily built member is
 * NULL (or have_* zero) until a query_need_* call builds it; a failed build records the
 * error in q->err, returns it, and leaves the member unbuilt so a later statement may retry.
 * Not part of the layer's interface: only src/query/ includes it. */
#ifndef LR_QUERY_INTERNAL_H
#define LR_QUERY_INTERNAL_H

#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "analysis/paths.h"
#include "query/query.h"

#include <sqlite3.h>

struct query_db {
    sqlite3 *db;             /* the in-memory database the tables live in */
    graph *g;                /* the heap (not owned) */
    query_opts o;            /* options given to query_open */
    lr_error err;            /* first failure of a lazy build, reported by the CLI */
    uint64_t steps;          /* progress-handler calls of the current statement */
    uint64_t t0_ms;          /* when the statements began (query_sqlite), for max_ms */
    uint32_t dst_scans;      /* referrer lookups answered by scanning, before reverse edges */

    /* ---- dominators: dom for STRONG/VISUALVM, dt for DEVTOOLS ---- */
    int have_dom;            /* dom or dt is built */
    dom_tree dom;            /* idom, retained, reachability */
    devtools_result dt;      /* DevTools' idom, retained, distances */
    int have_paths;          /* paths is built */
    paths_result paths;      /* `path`'s shortest strong paths, whole forest (not DEVTOOLS) */
    uint32_t *depth;         /* edges from a GC root on the shortest strong path, or
                              * UINT32_MAX when unreached (STRONG/VISUALVM only) */
    uint32_t *dom_first;     /* n_nodes + 1 entries: the nodes x immediately dominates */
    node_ix *dom_kids;       /* are dom_kids[dom_first[x] .. dom_first[x+1]), ascending */

    /* ---- per-class index and sums ---- */
    uint32_t *cls_first;     /* n_classes + 2 entries: nodes of class c are
                              * cls_nodes[cls_first[c] .. cls_first[c+1]); c = n_classes
                              * holds the nodes without a class */
    node_ix *cls_nodes;      /* node indices grouped by class, ascending within a class */
    class_ix *by_name;       /* every class, sorted by name (byte order), then index */
    uint32_t *cls_size;      /* shallow bytes of cls_nodes[i], same positions: read once
                              * in node order (sequential in the dump) so a by-class scan
                              * does not go back to the dump for each array's length */
    uint64_t *cls_shallow;   /* summed shallow bytes of all instances, per class */
    uint64_t *cls_retained;  /* retained bytes without double counting, per class */
    uint8_t *is_string;      /* per class: 1 when instances are strings (java.lang.String) */
};

/* Builders (each once; LR_OK when already built). */
lr_status query_need_dom(query_db *q);
lr_status query_need_depth(query_db *q);
lr_status query_need_class_index(query_db *q);
lr_status query_need_class_sizes(query_db *q); /* cls_size and cls_shallow (needs the index) */
lr_status query_need_by_name(query_db *q);
lr_status query_need_class_retained(query_db *q);
lr_status query_need_strings(query_db *q);
lr_status query_need_dom_kids(query_db *q); /* dom_first and dom_kids (needs the dominators) */

/* Positions [*lo, *hi) in q->by_name of the classes named `name` (needs by_name). */
void query_name_range(const query_db *q, const char *name, uint32_t *lo, uint32_t *hi);

/* Per-node values under the model (need_dom / need_depth first). */
node_ix query_dominator(const query_db *q, node_ix x); /* GRAPH_NONE at the top / unreached */
int query_reachable(const query_db *q, node_ix x);
int64_t query_distance(const query_db *q, node_ix x); /* -1 when unreached */

/* Parses an object id given as SQL value (integer, or text "0x1f", "@12", "12"). */
int query_value_id(sqlite3_value *v, uint64_t *out);

/* Sets the SQL result to field value v: integers for integral types and booleans, reals for
 * float/double, a one-character text for char, the referenced id (NULL for null) for objects. */
void query_result_value(sqlite3_context *ctx, const graph *g, const graph_value *v);

/* Registers the virtual tables (query_vtab.c). */
int query_register_tables(query_db *q);

/* Registers printf() and format() over SQLite's (query_printf.c): a %c longer than the
 * length limit gives NULL at once. An SQLite result code. */
int query_printf_register(sqlite3 *db);

#endif
