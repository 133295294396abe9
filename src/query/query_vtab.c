/* SPDX-License-Identifier: Apache-2.0 */
/* query_vtab.c: the virtual tables objects, classes, edges, roots, strings, fields, elements
 * (query layer), prefix query_. Eponymous SQLite modules: each is usable by name without
 * CREATE, read-only, and reads the graph when a row is asked for; no table stores rows. A
 * cursor is a position in the graph (node, edge, root, field list of one node) plus a plan
 * chosen by xBestIndex: a scan, or a lookup through an index (ids: graph_find_id; classes:
 * the per-class node index and the by-name class order; referrers: reverse edges, built
 * once). Columns that need an analysis (retained, dominator, distance, reachable) ask
 * query.c for it on their first row, so a query that never names them never pays for them.
 * Column lists are docs/sql.md's; keep them append-only. */
#include "query/query_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plans (idxNum). */
enum { PLAN_SCAN = 0, PLAN_ID = 1, PLAN_CLASS = 2, PLAN_BY_CLASS = 3, PLAN_DST = 4,
       PLAN_BY_CLASS_DESC = 5, PLAN_DOMINATED = 6 };

#define COST_LOOKUP 1.0 /* one row through an index */
#define COST_CLASS 1e3  /* the instances of one class */

/* A vtab shared by every table: SQLite's header plus the database it reads. */
typedef struct query_vtab {
    sqlite3_vtab base;
    query_db *q;
} query_vtab;

/* A cursor shared by every table; each table uses the members it needs. */
typedef struct query_cur {
    sqlite3_vtab_cursor base;
    query_db *q;
    int plan;           /* PLAN_* */
    int eof;            /* no current row */
    node_ix node;       /* current node (objects, strings, fields, edges' source) */
    uint32_t pos, end;  /* objects by class: position in cls_nodes; edges: current edge and
                         * end; roots: current root; fields: current field */
    uint32_t bucket;    /* objects by class: 0 = nodes without a class, b > 0 = the class
                         * at by_name[b - 1] */
    uint32_t bucket_end; /* one past the last bucket to visit */
    int desc;           /* objects by class: the buckets from the last one down (DESC) */
    const char *cname;  /* objects by class: the bucket's class name (NULL: no class), */
    int cname_len;      /* and its length: every row of a bucket has this class */
    /* fields of one node, gathered at once (graph_fields_each calls back per field) */
    struct query_frow *frows;
    uint32_t n_frows, cap_frows; /* rows in frows (stacks: frames in frames) */
    query_frame *frames;         /* stacks: the current node's allocation stack */
    int lazy;                    /* elements: rows read from the array's bytes, not frows */
    uint8_t lazy_type;           /* elements: their graph_ftype */
} query_cur;

static query_db *vq(sqlite3_vtab_cursor *c)
{
    return ((query_cur *)c)->q;
}

static int query_connect(sqlite3 *db, void *aux, const char *schema, sqlite3_vtab **out,
                         char **errmsg)
{
    int rc = sqlite3_declare_vtab(db, schema);
    if (rc != SQLITE_OK)
        return rc;
    query_vtab *t = sqlite3_malloc(sizeof *t);
    if (!t)
        return SQLITE_NOMEM;
    memset(t, 0, sizeof *t);
    t->q = aux;
    *out = &t->base;
    return SQLITE_OK;
}

static int query_disconnect(sqlite3_vtab *t)
{
    sqlite3_free(t);
    return SQLITE_OK;
}

static int query_open_cur(sqlite3_vtab *t, sqlite3_vtab_cursor **out)
{
    query_cur *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    c->q = ((query_vtab *)t)->q;
    *out = &c->base;
    return SQLITE_OK;
}

static int query_close_cur(sqlite3_vtab_cursor *cur)
{
    query_cur *c = (query_cur *)cur;
    free(c->frows);
    free(c->frames);
    sqlite3_free(c);
    return SQLITE_OK;
}

static int query_eof(sqlite3_vtab_cursor *cur)
{
    return ((query_cur *)cur)->eof;
}

/* A row's rowid is its identity, the same on every access path: SQLite's multi-index OR
 * (`WHERE src = X OR dst = X`) joins two lookups and drops the rows of the second whose
 * rowid the first gave, so a running row number lost rows. */
static int objects_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
    *out = (sqlite3_int64)((query_cur *)cur)->node;
    return SQLITE_OK;
}

static int classes_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
    const query_cur *c = (const query_cur *)cur;
    *out = (sqlite3_int64)(c->bucket ? c->q->by_name[c->pos] : c->pos);
    return SQLITE_OK;
}

static int roots_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
    *out = (sqlite3_int64)((query_cur *)cur)->pos;
    return SQLITE_OK;
}

/* strings, fields, stacks: a node's rows, numbered within it */
static int group_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
    const query_cur *c = (const query_cur *)cur;
    *out = (sqlite3_int64)((uint64_t)c->node << 31 | (c->pos & 0x7fffffffu));
    return SQLITE_OK;
}

/* Reports a lazy build's failure to SQLite (the message stays in q->err for the CLI). */
static int query_fail(sqlite3_vtab_cursor *cur, lr_status st)
{
    query_db *q = vq(cur);
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("%s", q->err.msg);
    return st == LR_ERR_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
}

static void result_id(sqlite3_context *ctx, const graph *g, node_ix x)
{
    if (x == GRAPH_NONE || x >= g->n_nodes)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_int64(ctx, (sqlite3_int64)graph_node_id(g, x));
}

static void result_str(sqlite3_context *ctx, const char *s)
{
    /* Graph strings and name tables live as long as the database. */
    sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
}

/* Finds the usable equality constraint on column col; returns its index or -1. A text
 * comparison under another collation than BINARY (NOCASE, say) is no exact lookup: SQLite
 * keeps it and the table scans. */
static int find_eq(sqlite3_index_info *info, int col)
{
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *k = &info->aConstraint[i];
        if (k->usable && k->iColumn == col && k->op == SQLITE_INDEX_CONSTRAINT_EQ &&
            sqlite3_stricmp(sqlite3_vtab_collation(info, i), "BINARY") == 0)
            return i;
    }
    return -1;
}

/* Uses constraint i as argv[0] of xFilter, checked by the table (SQLite need not recheck). */
static void use_eq(sqlite3_index_info *info, int i, int plan, double cost, sqlite3_int64 rows)
{
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->idxNum = plan;
    info->estimatedCost = cost;
    info->estimatedRows = rows;
    if (rows == 1)
        info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
}

/* The node an id argument names, or GRAPH_NONE. */
static node_ix arg_node(const graph *g, sqlite3_value *v)
{
    uint64_t id;
    return query_value_id(v, &id) ? graph_find_id(g, id) : GRAPH_NONE;
}

/* ---- tables whose rows come in groups, one group per node (strings: 0 or 1 row; fields:
 * the node's fields; stacks: its allocation frames), by id lookup or a scan over the nodes.
 * A loader fills the current node's group (c->n_frows rows) and returns 0, or -1 when out of
 * memory. */
typedef int (*group_load_fn)(query_cur *c);

/* Moves to the first node at or after c->node with a nonempty group (the lookup's node only,
 * under PLAN_ID). */
static int group_settle(query_cur *c, group_load_fn load)
{
    const graph *g = c->q->g;
    for (;;) {
        if (c->node >= g->n_nodes) {
            c->eof = 1;
            return SQLITE_OK;
        }
        if (load(c))
            return SQLITE_NOMEM;
        if (c->n_frows) {
            c->pos = 0;
            return SQLITE_OK;
        }
        if (c->plan == PLAN_ID) {
            c->eof = 1;
            return SQLITE_OK;
        }
        c->node++;
    }
}

static int group_filter(sqlite3_vtab_cursor *cur, int plan, sqlite3_value **argv,
                        group_load_fn load)
{
    query_cur *c = (query_cur *)cur;
    c->plan = plan;
    c->eof = 0;
    c->node = plan == PLAN_ID ? arg_node(c->q->g, argv[0]) : 0;
    if (c->node == GRAPH_NONE) {
        c->eof = 1;
        return SQLITE_OK;
    }
    return group_settle(c, load);
}

static int group_next(sqlite3_vtab_cursor *cur, group_load_fn load)
{
    query_cur *c = (query_cur *)cur;
    if (++c->pos < c->n_frows)
        return SQLITE_OK;
    if (c->plan == PLAN_ID) {
        c->eof = 1;
        return SQLITE_OK;
    }
    c->node++;
    return group_settle(c, load);
}

/* ================================================================ objects */

enum { OC_ID, OC_CLASS, OC_KIND, OC_SHALLOW, OC_RETAINED, OC_DOMINATOR, OC_DISTANCE, OC_HEAP,
       OC_REACHABLE, OC_LOCATION, OC_DOM, OC_NAME, OC_NATIVE, OC_CLASS_ID, OC_LENGTH };
#define OBJECTS_SCHEMA                                                                     \
    "CREATE TABLE x(id INTEGER, class TEXT, kind TEXT, shallow INTEGER, retained INTEGER, " \
    "dominator INTEGER, distance INTEGER, heap TEXT, reachable INTEGER, location TEXT, " \
    "dom TEXT, name TEXT, native INTEGER, class_id INTEGER, length INTEGER)"

/* V8: the script location of class c's constructor, "scriptId,line,column" from its DevTools
 * class key; NULL result when the class has none (or the graph is no V8 graph). */
static void result_location(sqlite3_context *ctx, const query_db *q, class_ix c)
{
    const graph *g = q->g;
    if (!q->o.class_keys || c >= g->n_classes) {
        sqlite3_result_null(ctx);
        return;
    }
    const char *k = graph_str(g, q->o.class_keys[c]);
    const char *p = k;
    for (int commas = 0; *p && commas < 3; p++)
        commas += *p == ',';
    if (k[0] == ',' || !*p) {
        sqlite3_result_null(ctx);
        return;
    }
    sqlite3_result_text(ctx, k, (int)(p - 1 - k), SQLITE_TRANSIENT);
}

static int objects_best(sqlite3_vtab *t, sqlite3_index_info *info)
{
    const graph *g = ((query_vtab *)t)->q->g;
    int i;
    if ((i = find_eq(info, OC_ID)) >= 0) {
        use_eq(info, i, PLAN_ID, COST_LOOKUP, 1);
    } else if ((i = find_eq(info, OC_CLASS)) >= 0) {
        use_eq(info, i, PLAN_CLASS, COST_CLASS, 1000);
    } else if ((i = find_eq(info, OC_DOMINATOR)) >= 0) {
        /* a node's children in the dominator tree (a subtree's CTE asks it per level) */
        use_eq(info, i, PLAN_DOMINATED, COST_CLASS, 100);
    } else {
        info->idxNum = PLAN_SCAN;
        info->estimatedCost = (double)g->n_nodes + 10;
        info->estimatedRows = g->n_nodes;
        /* GROUP BY / ORDER BY class: stream the nodes class by class in name order, which
         * is the order SQLite's BINARY collation wants, so it needs no sorter. Ascending
         * or descending, as asked: with GROUP BY class ORDER BY class DESC SQLite asks for
         * the groups (vtab distinct 1) and then takes the rows as already in the ORDER BY's
         * order, and with GROUP BY class ORDER BY count(*) DESC it asks for them DESC too
         * (a sorter over every object when refused: 4.6 s of CPU for 6.7 M objects). */
        if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == OC_CLASS) {
            info->idxNum = info->aOrderBy[0].desc ? PLAN_BY_CLASS_DESC : PLAN_BY_CLASS;
            info->orderByConsumed = 1;
            info->estimatedCost -= 5; /* same work, no sort: SQLite must prefer it */
        }
    }
    return SQLITE_OK;
}

/* Class of bucket b (see query_cur.bucket). */
static class_ix bucket_class(const query_db *q, uint32_t b)
{
    return b == 0 ? q->g->n_classes : q->by_name[b - 1];
}

/* Positions a class-plan cursor on the first node of the first nonempty bucket from
 * c->bucket on, or at eof. */
static void objects_load_bucket(query_cur *c)
{
    const query_db *q = c->q;
    for (; c->bucket < c->bucket_end; c->bucket++) {
        /* DESC: the same walk, each step mirrored (bucket 0, no class, comes last) */
        class_ix k = bucket_class(q, c->desc ? c->bucket_end - 1 - c->bucket : c->bucket);
        c->pos = q->cls_first[k];
        c->end = q->cls_first[k + 1];
        if (c->pos < c->end) {
            c->node = q->cls_nodes[c->pos];
            c->cname = k < q->g->n_classes ? graph_str(q->g, q->g->classes[k].name) : NULL;
            c->cname_len = c->cname ? (int)strlen(c->cname) : 0;
            return;
        }
    }
    c->eof = 1;
}

static int objects_filter(sqlite3_vtab_cursor *cur, int plan, const char *s, int argc,
                          sqlite3_value **argv)
{
    query_cur *c = (query_cur *)cur;
    query_db *q = c->q;
    const graph *g = q->g;
    lr_status st;
    c->plan = plan;
    c->eof = 0;
    if (plan == PLAN_ID) {
        c->node = arg_node(g, argv[0]);
        c->eof = c->node == GRAPH_NONE;
        return SQLITE_OK;
    }
    if (plan == PLAN_SCAN) {
        c->node = 0;
        c->eof = g->n_nodes == 0;
        return SQLITE_OK;
    }
    if (plan == PLAN_DOMINATED) {
        if ((st = query_need_dom_kids(q)) != LR_OK)
            return query_fail(cur, st);
        node_ix d = arg_node(g, argv[0]);
        c->pos = d == GRAPH_NONE ? 0 : q->dom_first[d];
        c->end = d == GRAPH_NONE ? 0 : q->dom_first[d + 1];
        c->eof = c->pos >= c->end;
        if (!c->eof)
            c->node = q->dom_kids[c->pos];
        return SQLITE_OK;
    }
    if ((st = query_need_class_index(q)) != LR_OK || (st = query_need_by_name(q)) != LR_OK)
        return query_fail(cur, st);
    c->desc = plan == PLAN_BY_CLASS_DESC;
    if (plan == PLAN_BY_CLASS || plan == PLAN_BY_CLASS_DESC) {
        c->plan = PLAN_BY_CLASS; /* the columns read it as one plan */
        c->bucket = 0; /* NULL class sorts first */
        c->bucket_end = g->n_classes + 1;
    } else {
        const char *name = (const char *)sqlite3_value_text(argv[0]);
        if (!name || sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
            c->eof = 1;
            return SQLITE_OK;
        }
        uint32_t lo, hi;
        query_name_range(q, name, &lo, &hi);
        c->bucket = lo + 1;
        c->bucket_end = hi + 1;
    }
    objects_load_bucket(c);
    return SQLITE_OK;
}

static int objects_next(sqlite3_vtab_cursor *cur)
{
    query_cur *c = (query_cur *)cur;
    const query_db *q = c->q;
    switch (c->plan) {
    case PLAN_ID:
        c->eof = 1;
        break;
    case PLAN_SCAN:
        if (++c->node >= q->g->n_nodes)
            c->eof = 1;
        break;
    case PLAN_DOMINATED:
        if (++c->pos < c->end)
            c->node = q->dom_kids[c->pos];
        else
            c->eof = 1;
        break;
    default:
        if (++c->pos < c->end) {
            c->node = q->cls_nodes[c->pos];
        } else {
            c->bucket++;
            objects_load_bucket(c);
        }
    }
    return SQLITE_OK;
}

static int objects_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    query_cur *c = (query_cur *)cur;
    query_db *q = c->q;
    const graph *g = q->g;
    node_ix x = c->node;
    lr_status st;
    switch (col) {
    case OC_ID:
        result_id(ctx, g, x);
        break;
    case OC_CLASS:
        if (c->plan == PLAN_CLASS || c->plan == PLAN_BY_CLASS) {
            if (c->cname)
                sqlite3_result_text(ctx, c->cname, c->cname_len, SQLITE_STATIC);
            else
                sqlite3_result_null(ctx);
        } else if (graph_node_class(g, x) < g->n_classes) {
            result_str(ctx, graph_class_name(g, x));
        } else {
            sqlite3_result_null(ctx);
        }
        break;
    case OC_KIND:
        result_str(ctx, graph_node_kind_name(g->node_kind[x]));
        break;
    case OC_CLASS_ID: {
        /* classes.id of the object's class: two classes of one name (a web application's
         * copy loaded again by its next class loader) are told apart by it */
        class_ix k = graph_node_class(g, x);
        if (k >= g->n_classes)
            sqlite3_result_null(ctx);
        else if (g->classes[k].id)
            sqlite3_result_int64(ctx, (sqlite3_int64)g->classes[k].id);
        else
            result_id(ctx, g, g->classes[k].node);
        break;
    }
    case OC_LENGTH: {
        /* an array's element count, where the dump records its elements (HPROF): MAT's
         * @length; V8, Ruby and Dart arrays carry no count of their own */
        unsigned k = g->node_kind[x];
        if (g->id_size && (k == GRAPH_KIND_OBJ_ARRAY || k == GRAPH_KIND_PRIM_ARRAY))
            sqlite3_result_int64(ctx, graph_node_len(g, x));
        else
            sqlite3_result_null(ctx);
        break;
    }
    case OC_SHALLOW:
        if (c->plan == PLAN_CLASS || c->plan == PLAN_BY_CLASS) {
            /* a class plan reads many rows: the sizes in class order, read once */
            if ((st = query_need_class_sizes(q)) != LR_OK)
                return query_fail(cur, st);
            sqlite3_result_int64(ctx, q->cls_size[c->pos]);
        } else {
            sqlite3_result_int64(ctx, graph_node_size(g, x));
        }
        break;
    case OC_HEAP:
        if (g->node_heap && g->node_heap[x] < g->n_heaps)
            result_str(ctx, graph_str(g, g->heap_names[g->node_heap[x]]));
        else
            sqlite3_result_null(ctx);
        break;
    case OC_LOCATION: {
        /* a closure: its function's own location, in the class key's form */
        const graph_loc *l = graph_node_loc(g, x);
        if (l) {
            char b[48];
            snprintf(b, sizeof b, "%" PRIu32 ",%" PRIu32 ",%" PRIu32, l->script, l->line,
                     l->col);
            sqlite3_result_text(ctx, b, -1, SQLITE_TRANSIENT);
        } else {
            result_location(ctx, q, graph_node_class(g, x));
        }
        break;
    }
    case OC_NAME:
        /* V8's node name, what DevTools shows beside the class: a function's name, the
         * start of a string, a synthetic node's "(Stack roots)"; HPROF nodes have none */
        if (x == g->synthetic_root) /* unnamed in the snapshot; "(root)" in every verb */
            result_str(ctx, "(root)");
        else if (g->node_name && g->node_name[x] != GRAPH_NONE)
            result_str(ctx, graph_str(g, g->node_name[x]));
        else
            sqlite3_result_null(ctx);
        break;
    case OC_NATIVE:
        /* off-heap bytes the object owns (V8's native size, Android's registry, a direct
         * buffer's); NULL when the dump records none at all */
        if (g->node_native)
            sqlite3_result_int64(ctx, g->node_native[x]);
        else
            sqlite3_result_null(ctx);
        break;
    case OC_DOM: {
        unsigned d = graph_node_dom(g, x);
        if (d == GRAPH_DOM_UNKNOWN)
            sqlite3_result_null(ctx);
        else
            result_str(ctx, d == GRAPH_DOM_DETACHED ? "detached" : "attached");
        break;
    }
    case OC_DISTANCE: {
        if ((st = query_need_depth(q)) != LR_OK)
            return query_fail(cur, st);
        int64_t d = query_distance(q, x);
        if (d < 0)
            sqlite3_result_null(ctx);
        else
            sqlite3_result_int64(ctx, d);
        break;
    }
    default:
        if ((st = query_need_dom(q)) != LR_OK)
            return query_fail(cur, st);
        if (col == OC_RETAINED)
            sqlite3_result_int64(ctx, (sqlite3_int64)query_retained(q, x));
        else if (col == OC_DOMINATOR)
            result_id(ctx, g, query_dominator(q, x));
        else
            sqlite3_result_int(ctx, query_reachable(q, x));
    }
    return SQLITE_OK;
}

/* ================================================================ classes */

enum { CC_ID, CC_NAME, CC_SUPER, CC_LOADER, CC_INSTANCES, CC_SHALLOW, CC_RETAINED,
       CC_LOCATION };
#define CLASSES_SCHEMA                                                                     \
    "CREATE TABLE x(id INTEGER, name TEXT, super TEXT, loader INTEGER, instances INTEGER, " \
    "shallow INTEGER, retained INTEGER, location TEXT)"

static int classes_best(sqlite3_vtab *t, sqlite3_index_info *info)
{
    const graph *g = ((query_vtab *)t)->q->g;
    int i;
    if ((i = find_eq(info, CC_ID)) >= 0) {
        use_eq(info, i, PLAN_ID, COST_LOOKUP, 1);
    } else if ((i = find_eq(info, CC_NAME)) >= 0) {
        use_eq(info, i, PLAN_CLASS, COST_LOOKUP * 2, 1);
    } else {
        info->idxNum = PLAN_SCAN;
        info->estimatedCost = (double)g->n_classes + 10;
        info->estimatedRows = g->n_classes;
    }
    return SQLITE_OK;
}

/* Classes are visited as positions pos..end; `bucket` = 1 when they index by_name. */
static int classes_filter(sqlite3_vtab_cursor *cur, int plan, const char *s, int argc,
                          sqlite3_value **argv)
{
    query_cur *c = (query_cur *)cur;
    query_db *q = c->q;
    const graph *g = q->g;
    lr_status st;
    c->plan = plan;
    c->bucket = 0;
    c->pos = 0;
    c->end = g->n_classes;
    if (plan == PLAN_ID) {
        c->end = 0;
        uint64_t id;
        if (query_value_id(argv[0], &id) && id != 0) {
            for (class_ix k = 0; k < g->n_classes; k++) /* O(classes): a few thousand */
                if (g->classes[k].id == id) {
                    c->pos = k;
                    c->end = k + 1;
                    break;
                }
        }
    } else if (plan == PLAN_CLASS) {
        const char *name = (const char *)sqlite3_value_text(argv[0]);
        if ((st = query_need_by_name(q)) != LR_OK)
            return query_fail(cur, st);
        c->end = 0;
        if (name && sqlite3_value_type(argv[0]) == SQLITE_TEXT)
            query_name_range(q, name, &c->pos, &c->end);
        c->bucket = 1;
    }
    c->eof = c->pos >= c->end;
    return SQLITE_OK;
}

static int classes_next(sqlite3_vtab_cursor *cur)
{
    query_cur *c = (query_cur *)cur;
    c->eof = ++c->pos >= c->end;
    return SQLITE_OK;
}

/* The class loader of class k: its class object's "<classloader>" edge (HPROF). */
static node_ix class_loader(const graph *g, class_ix k)
{
    node_ix x = g->classes[k].node;
    if (x >= g->n_nodes)
        return GRAPH_NONE;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_INTERNAL)
            continue;
        if (strcmp(graph_str(g, graph_edge_name_from(g, x, e)), "<classloader>") == 0)
            return g->edge_to[e];
    }
    return GRAPH_NONE;
}

static int classes_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    query_cur *c = (query_cur *)cur;
    query_db *q = c->q;
    const graph *g = q->g;
    class_ix k = c->bucket ? q->by_name[c->pos] : c->pos;
    const graph_class *cl = &g->classes[k];
    lr_status st;
    switch (col) {
    case CC_ID:
        if (cl->id)
            sqlite3_result_int64(ctx, (sqlite3_int64)cl->id);
        else
            result_id(ctx, g, cl->node);
        break;
    case CC_NAME:
        result_str(ctx, graph_str(g, cl->name));
        break;
    case CC_SUPER:
        if (cl->super < g->n_classes)
            result_str(ctx, graph_str(g, g->classes[cl->super].name));
        else
            sqlite3_result_null(ctx);
        break;
    case CC_LOADER:
        if (g->n_edges)
            result_id(ctx, g, class_loader(g, k));
        else
            sqlite3_result_null(ctx);
        break;
    case CC_INSTANCES:
        if ((st = query_need_class_index(q)) != LR_OK)
            return query_fail(cur, st);
        sqlite3_result_int64(ctx, q->cls_first[k + 1] - q->cls_first[k]);
        break;
    case CC_SHALLOW:
        if ((st = query_need_class_sizes(q)) != LR_OK)
            return query_fail(cur, st);
        sqlite3_result_int64(ctx, (sqlite3_int64)q->cls_shallow[k]);
        break;
    case CC_LOCATION:
        result_location(ctx, q, k);
        break;
    default:
        if ((st = query_need_class_retained(q)) != LR_OK)
            return query_fail(cur, st);
        sqlite3_result_int64(ctx, (sqlite3_int64)q->cls_retained[k]);
    }
    return SQLITE_OK;
}

/* ================================================================ edges */

enum { EC_SRC, EC_DST, EC_NAME, EC_KIND, EC_STRENGTH };
#define EDGES_SCHEMA "CREATE TABLE x(src INTEGER, dst INTEGER, name TEXT, kind TEXT, " \
                     "strength TEXT)"

static int edges_best(sqlite3_vtab *t, sqlite3_index_info *info)
{
    const graph *g = ((query_vtab *)t)->q->g;
    int i;
    if ((i = find_eq(info, EC_SRC)) >= 0) {
        use_eq(info, i, PLAN_ID, COST_LOOKUP * 10, 10);
    } else if ((i = find_eq(info, EC_DST)) >= 0) {
        use_eq(info, i, PLAN_DST, COST_LOOKUP * 10, 10);
    } else {
        info->idxNum = PLAN_SCAN;
        info->estimatedCost = (double)g->n_edges + 10;
        info->estimatedRows = g->n_edges;
    }
    return SQLITE_OK;
}

/* A few referrer lookups scan edge_to (a tight loop over 4 bytes per edge, milliseconds for
 * millions) instead of building reverse edges; from this many on, the reverse index is built
 * once and every later lookup reads it. */
#define QUERY_DST_SCANS 3

/* Moves to the current row: scans skip to the next node with edges; a referrer lookup
 * without reverse edges (c->bucket set) skips to the next edge into c->node. */
static void edges_settle(query_cur *c)
{
    const graph *g = c->q->g;
    if (c->plan == PLAN_DST && c->bucket) {
        /* locals: through c the compiler would store pos on every step */
        const node_ix *to = g->edge_to;
        uint32_t p = c->pos, end = c->end;
        node_ix x = c->node;
        while (p < end && to[p] != x)
            p++;
        c->pos = p;
        c->eof = p >= end;
        return;
    }
    while (c->pos >= c->end) {
        if (c->plan != PLAN_SCAN || ++c->node >= g->n_nodes) {
            c->eof = 1;
            return;
        }
        c->pos = g->first_edge[c->node];
        c->end = g->first_edge[c->node + 1];
    }
}

static int edges_filter(sqlite3_vtab_cursor *cur, int plan, const char *s, int argc,
                        sqlite3_value **argv)
{
    query_cur *c = (query_cur *)cur;
    query_db *q = c->q;
    graph *g = q->g;
    c->plan = plan;
    c->eof = 0;
    c->pos = c->end = 0;
    c->bucket = 0;
    if (g->n_nodes == 0 || !g->first_edge) {
        c->eof = 1;
        return SQLITE_OK;
    }
    if (plan == PLAN_SCAN) {
        c->node = 0;
        c->pos = g->first_edge[0];
        c->end = g->first_edge[1];
    } else {
        node_ix x = arg_node(g, argv[0]);
        if (x == GRAPH_NONE) {
            c->eof = 1;
            return SQLITE_OK;
        }
        if (plan == PLAN_ID) {
            c->node = x;
            c->pos = g->first_edge[x];
            c->end = g->first_edge[x + 1];
        } else if (!g->rev_first && q->dst_scans < QUERY_DST_SCANS) {
            q->dst_scans++;
            c->bucket = 1;
            c->node = x;
            c->end = g->n_edges;
        } else {
            if (!g->rev_first && graph_build_reverse(g, &q->err) != LR_OK)
                return query_fail(cur, q->err.code);
            c->pos = g->rev_first[x];
            c->end = g->rev_first[x + 1];
        }
    }
    edges_settle(c);
    return SQLITE_OK;
}

static int edges_next(sqlite3_vtab_cursor *cur)
{
    query_cur *c = (query_cur *)cur;
    c->pos++;
    edges_settle(c);
    return SQLITE_OK;
}

static int edges_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
    const query_cur *c = (const query_cur *)cur;
    *out = (sqlite3_int64)(c->plan == PLAN_DST && !c->bucket ? c->q->g->rev_edge[c->pos]
                                                              : c->pos);
    return SQLITE_OK;
}

static int edges_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    query_cur *c = (query_cur *)cur;
    const graph *g = c->q->g;
    edge_ix e = c->plan == PLAN_DST && !c->bucket ? g->rev_edge[c->pos] : c->pos;
    node_ix from = c->plan == PLAN_DST ? graph_edge_from(g, e) : c->node;
    unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
    switch (col) {
    case EC_SRC:
        result_id(ctx, g, from);
        break;
    case EC_DST:
        result_id(ctx, g, g->edge_to[e]);
        break;
    case EC_NAME: {
        uint32_t nm = graph_edge_name_from(g, from, e);
        if (GRAPH_EDGE_NAME_IS_INDEX(kind)) {
            char buf[24];
            snprintf(buf, sizeof buf, "[%u]", nm);
            sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
        } else {
            result_str(ctx, graph_str(g, nm));
        }
        break;
    }
    case EC_KIND:
        result_str(ctx, graph_edge_kind_name(kind));
        break;
    default:
        result_str(ctx, graph_strength_name(GRAPH_EDGE_STRENGTH(g->edge_kind[e])));
    }
    return SQLITE_OK;
}

/* ================================================================ roots */

enum { RC_ID, RC_KIND, RC_THREAD, RC_FRAME, RC_TITLE };
#define ROOTS_SCHEMA \
    "CREATE TABLE x(id INTEGER, kind TEXT, thread INTEGER, frame TEXT, title TEXT)"

static int roots_best(sqlite3_vtab *t, sqlite3_index_info *info)
{
    info->idxNum = PLAN_SCAN;
    info->estimatedCost = (double)((query_vtab *)t)->q->g->n_roots + 10;
    info->estimatedRows = ((query_vtab *)t)->q->g->n_roots;
    return SQLITE_OK;
}

static int roots_filter(sqlite3_vtab_cursor *cur, int plan, const char *s, int argc,
                        sqlite3_value **argv)
{
    query_cur *c = (query_cur *)cur;
    c->pos = 0;
    c->end = c->q->g->n_roots;
    c->eof = c->pos >= c->end;
    return SQLITE_OK;
}

/* The stack frame of a Java-frame root as "Class.method(File.java:12)", into buf; NULL when
 * the dump has no such frame. */
static const char *root_frame(const graph *g, const graph_root *r, char *buf, size_t cap)
{
    if (!r->thread || r->frame < 0)
        return NULL;
    for (uint32_t t = 0; t < g->n_threads; t++) {
        const graph_thread *th = &g->threads[t];
        if (th->serial != r->thread)
            continue;
        if ((uint32_t)r->frame >= th->n_frames || th->first_frame + r->frame >= g->n_frames)
            return NULL;
        const graph_frame *f = &g->frames[th->first_frame + r->frame];
        int n = snprintf(buf, cap, "%s%s%s(%s", graph_str(g, f->class_name),
                         f->class_name != GRAPH_NONE ? "." : "", graph_str(g, f->method),
                         f->source != GRAPH_NONE ? graph_str(g, f->source) : "unknown");
        if (n >= 0 && (size_t)n < cap && f->line > 0)
            n += snprintf(buf + n, cap - (size_t)n, ":%d", f->line);
        if (n >= 0 && (size_t)n + 1 < cap)
            snprintf(buf + n, cap - (size_t)n, ")");
        return buf;
    }
    return NULL;
}

static int roots_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    query_cur *c = (query_cur *)cur;
    const graph *g = c->q->g;
    const graph_root *r = &g->roots[c->pos];
    switch (col) {
    case RC_ID:
        result_id(ctx, g, r->node);
        break;
    case RC_KIND:
        result_str(ctx, graph_root_kind_name(r->kind));
        break;
    case RC_THREAD:
        if (r->thread)
            sqlite3_result_int64(ctx, r->thread);
        else
            sqlite3_result_null(ctx);
        break;
    case RC_TITLE: /* in the runtime's words, as `info` prints it (Ruby's root categories) */
        result_str(ctx, r->kind < GRAPH_ROOT_KIND_COUNT ? graph_root_title(g, r->kind)
                                                        : "other");
        break;
    default: {
        char buf[1024];
        const char *f = root_frame(g, r, buf, sizeof buf);
        if (f)
            sqlite3_result_text(ctx, f, -1, SQLITE_TRANSIENT);
        else
            sqlite3_result_null(ctx);
    }
    }
    return SQLITE_OK;
}

/* ================================================================ strings */

enum { SC_ID, SC_VALUE, SC_COMPLETE };
#define STRINGS_SCHEMA "CREATE TABLE x(id INTEGER, value TEXT, complete INTEGER)"

/* Shared by strings and fields: id lookup or a scan over the nodes. */
static int node_best(sqlite3_vtab *t, sqlite3_index_info *info)
{
    int i;
    if ((i = find_eq(info, 0)) >= 0) {
        use_eq(info, i, PLAN_ID, COST_LOOKUP, 1);
    } else {
        info->idxNum = PLAN_SCAN;
        info->estimatedCost = (double)((query_vtab *)t)->q->g->n_nodes * 4 + 10;
        info->estimatedRows = ((query_vtab *)t)->q->g->n_nodes;
    }
    return SQLITE_OK;
}

static int is_string(const query_db *q, node_ix x)
{
    const graph *g = q->g;
    if (g->node_kind[x] == GRAPH_KIND_STRING)
        return 1;
    return graph_node_class(g, x) < g->n_classes && q->is_string[graph_node_class(g, x)];
}

/* A string is a group of one row. */
static int strings_load(query_cur *c)
{
    c->n_frows = is_string(c->q, c->node);
    return 0;
}

static int strings_filter(sqlite3_vtab_cursor *cur, int plan, const char *s, int argc,
                          sqlite3_value **argv)
{
    lr_status st;
    if ((st = query_need_strings(vq(cur))) != LR_OK)
        return query_fail(cur, st);
    return group_filter(cur, plan, argv, strings_load);
}

static int strings_next(sqlite3_vtab_cursor *cur)
{
    return group_next(cur, strings_load);
}

static int strings_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    query_cur *c = (query_cur *)cur;
    const graph *g = c->q->g;
    if (col == SC_ID) {
        result_id(ctx, g, c->node);
        return SQLITE_OK;
    }
    char buf[4096];
    long len = graph_string_value(g, c->node, buf, sizeof buf);
    if (col == SC_COMPLETE) {
        /* what V8 cut (its first 1,024 characters) or never wrote (a slice) is no whole text */
        sqlite3_result_int(ctx, len >= 0 && !graph_string_partial(g, c->node));
        return SQLITE_OK;
    }
    if (len < 0) {
        sqlite3_result_null(ctx);
    } else if ((size_t)len < sizeof buf) {
        sqlite3_result_text(ctx, buf, (int)len, SQLITE_TRANSIENT);
    } else {
        /* A long string: the buffer is sized from the decoded length, bounded by the dump. */
        char *big = sqlite3_malloc64((sqlite3_uint64)len + 1);
        if (!big)
            return SQLITE_NOMEM;
        graph_string_value(g, c->node, big, (size_t)len + 1);
        /* its length, not its first NUL: a Java string may hold U+0000 */
        sqlite3_result_text64(ctx, big, (sqlite3_uint64)len, sqlite3_free, SQLITE_UTF8);
    }
    return SQLITE_OK;
}

/* ================================================================ fields */

enum { FC_ID, FC_NAME, FC_TYPE, FC_VALUE, FC_REF };
#define FIELDS_SCHEMA "CREATE TABLE x(id INTEGER, name TEXT, type TEXT, value, ref INTEGER)"

/* One field of the current node: a decoded instance or static field, or (graphs without
 * field bytes: V8) an outgoing edge. */
typedef struct query_frow {
    str_ix name;    /* field name (fields) */
    uint8_t type;   /* enum graph_ftype (fields) */
    uint64_t raw;   /* raw value (fields) */
    node_ix ref;    /* referenced node, GRAPH_NONE if none */
    edge_ix edge;   /* the edge this row stands for, GRAPH_NONE for a field */
} query_frow;

static int frow_push(query_cur *c, const query_frow *r)
{
    if (c->n_frows == c->cap_frows) {
        uint32_t cap = c->cap_frows ? c->cap_frows * 2 : 16;
        query_frow *v = err_reallocarray(c->frows, cap, sizeof *v);
        if (!v)
            return -1;
        c->frows = v;
        c->cap_frows = cap;
    }
    c->frows[c->n_frows++] = *r;
    return 0;
}

static int frow_field(void *ctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    query_frow r = {f->name, f->type, v->raw, v->ref, GRAPH_NONE};
    return frow_push(ctx, &r) ? 1 : 0;
}

/* Gathers the fields of c->node into c->frows. Returns 0, or -1 when out of memory. */
static int fields_gather(query_cur *c)
{
    const graph *g = c->q->g;
    node_ix x = c->node;
    c->n_frows = 0;
    if (g->id_size) {
        graph_fields_each(g, x, frow_field, c);
        if (g->node_kind[x] == GRAPH_KIND_CLASS) {
            class_ix k = graph_class_of_node(g, x);
            for (uint32_t i = 0; k != GRAPH_NONE && i < g->classes[k].n_statics; i++) {
                uint32_t s = g->classes[k].first_static + i;
                if (s >= g->n_statics)
                    break;
                const graph_static *st = &g->statics[s];
                node_ix ref = st->type == GRAPH_FT_OBJECT && st->value
                                  ? graph_find_id(g, st->value) : GRAPH_NONE;
                query_frow r = {st->name, st->type, st->value, ref, GRAPH_NONE};
                if (frow_push(c, &r))
                    return -1;
            }
        }
    } else if (g->first_edge) {
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            query_frow r = {0, GRAPH_FT_OBJECT, 0, g->edge_to[e], e};
            if (frow_push(c, &r))
                return -1;
        }
    }
    return 0;
}

static int fields_filter(sqlite3_vtab_cursor *cur, int plan, const char *s, int argc,
                         sqlite3_value **argv)
{
    return group_filter(cur, plan, argv, fields_gather);
}

static int fields_next(sqlite3_vtab_cursor *cur)
{
    return group_next(cur, fields_gather);
}

void query_result_value(sqlite3_context *ctx, const graph *g, const graph_value *v)
{
    uint64_t r = v->raw;
    switch (v->type) {
    case GRAPH_FT_OBJECT:
        if (r)
            sqlite3_result_int64(ctx, (sqlite3_int64)r);
        else
            sqlite3_result_null(ctx);
        break;
    case GRAPH_FT_BOOLEAN:
        sqlite3_result_int(ctx, r != 0);
        break;
    case GRAPH_FT_BYTE:
        sqlite3_result_int(ctx, (int8_t)r);
        break;
    case GRAPH_FT_SHORT:
        sqlite3_result_int(ctx, (int16_t)r);
        break;
    case GRAPH_FT_INT:
        sqlite3_result_int(ctx, (int32_t)r);
        break;
    case GRAPH_FT_LONG:
        sqlite3_result_int64(ctx, (int64_t)r);
        break;
    case GRAPH_FT_FLOAT: {
        uint32_t b = (uint32_t)r;
        float f;
        memcpy(&f, &b, sizeof f);
        sqlite3_result_double(ctx, f);
        break;
    }
    case GRAPH_FT_DOUBLE: {
        double d;
        memcpy(&d, &r, sizeof d);
        sqlite3_result_double(ctx, d);
        break;
    }
    case GRAPH_FT_CHAR: {
        /* One UTF-16 unit as UTF-8 (surrogate halves stay numbers: they are no text). */
        uint32_t u = (uint16_t)r;
        char s[4];
        int n;
        if (u >= 0xd800 && u < 0xe000) {
            sqlite3_result_int(ctx, (int)u);
            break;
        }
        if (u < 0x80) {
            s[0] = (char)u;
            n = 1;
        } else if (u < 0x800) {
            s[0] = (char)(0xc0 | u >> 6);
            s[1] = (char)(0x80 | (u & 0x3f));
            n = 2;
        } else {
            s[0] = (char)(0xe0 | u >> 12);
            s[1] = (char)(0x80 | ((u >> 6) & 0x3f));
            s[2] = (char)(0x80 | (u & 0x3f));
            n = 3;
        }
        sqlite3_result_text(ctx, s, n, SQLITE_TRANSIENT);
        break;
    }
    default:
        sqlite3_result_null(ctx);
    }
}

static int fields_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    query_cur *c = (query_cur *)cur;
    const graph *g = c->q->g;
    const query_frow *r = &c->frows[c->pos];
    switch (col) {
    case FC_ID:
        result_id(ctx, g, c->node);
        break;
    case FC_NAME:
        if (r->edge == GRAPH_NONE) {
            result_str(ctx, graph_str(g, r->name));
        } else {
            unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[r->edge]);
            uint32_t nm = graph_edge_name_from(g, c->node, r->edge);
            if (GRAPH_EDGE_NAME_IS_INDEX(kind)) {
                char buf[24];
                snprintf(buf, sizeof buf, "[%u]", nm);
                sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
            } else {
                result_str(ctx, graph_str(g, nm));
            }
        }
        break;
    case FC_TYPE:
        if (r->edge == GRAPH_NONE)
            result_str(ctx, graph_ftype_name(r->type));
        else
            result_str(ctx, graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[r->edge])));
        break;
    case FC_VALUE:
        if (r->edge == GRAPH_NONE) {
            graph_value v = {r->type, r->raw, r->ref};
            query_result_value(ctx, g, &v);
        } else {
            result_id(ctx, g, r->ref);
        }
        break;
    default:
        result_id(ctx, g, r->ref);
    }
    return SQLITE_OK;
}

/* ================================================================ elements */

enum { LC_ID, LC_IDX, LC_TYPE, LC_VALUE, LC_REF };
#define ELEMENTS_SCHEMA "CREATE TABLE x(id INTEGER, idx INTEGER, type TEXT, value, ref INTEGER)"

/* The current array's rows: an HPROF array's are its elements, read from its bytes at each
 * column (c->lazy_type; a 10 M-element byte[] costs no list), a graph's with element edges
 * are those edges (a JavaScript array's [0], [1], ...). */
static int elements_gather(query_cur *c)
{
    const graph *g = c->q->g;
    node_ix x = c->node;
    c->n_frows = graph_elements(g, x, &c->lazy_type);
    c->lazy = c->n_frows > 0;
    if (c->lazy || !g->first_edge || g->id_size)
        return 0;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT)
            continue;
        query_frow r = {0, GRAPH_FT_OBJECT, 0, g->edge_to[e], e};
        if (frow_push(c, &r))
            return -1;
    }
    return 0;
}

static int elements_filter(sqlite3_vtab_cursor *cur, int plan, const char *s, int argc,
                           sqlite3_value **argv)
{
    return group_filter(cur, plan, argv, elements_gather);
}

static int elements_next(sqlite3_vtab_cursor *cur)
{
    return group_next(cur, elements_gather);
}

static int elements_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    query_cur *c = (query_cur *)cur;
    const graph *g = c->q->g;
    graph_value v = {GRAPH_FT_OBJECT, 0, GRAPH_NONE};
    edge_ix e = GRAPH_NONE;
    if (c->lazy)
        graph_element(g, c->node, c->pos, &v);
    else
        e = c->frows[c->pos].edge, v.ref = c->frows[c->pos].ref;
    switch (col) {
    case LC_ID:
        result_id(ctx, g, c->node);
        break;
    case LC_IDX:
        sqlite3_result_int64(ctx, c->lazy ? c->pos : graph_edge_name_from(g, c->node, e));
        break;
    case LC_TYPE:
        result_str(ctx, c->lazy ? graph_ftype_name(v.type) : "element");
        break;
    case LC_VALUE:
        if (c->lazy)
            query_result_value(ctx, g, &v);
        else
            result_id(ctx, g, v.ref);
        break;
    default:
        result_id(ctx, g, v.ref);
    }
    return SQLITE_OK;
}

/* ================================================================ stacks */

enum { KC_ID, KC_DEPTH, KC_FUNCTION, KC_SCRIPT, KC_LINE, KC_COLUMN };
#define STACKS_SCHEMA "CREATE TABLE x(id INTEGER, depth INTEGER, function TEXT, script TEXT, " \
                      "line INTEGER, column INTEGER)"
#define STACKS_MAX_DEPTH 1024 /* frames kept per stack (V8 records at most a few hundred) */

/* Loads the stack of c->node into c->frows (reused as frame storage). 0, or -1 on failure. */
static int stacks_load(query_cur *c)
{
    const query_db *q = c->q;
    c->n_frows = 0;
    if (!q->o.stacks || !q->o.stacks->has(q->g, c->node))
        return 0;
    if (!c->frames) {
        c->frames = err_mallocarray(STACKS_MAX_DEPTH, sizeof *c->frames);
        if (!c->frames)
            return -1;
    }
    uint32_t n = 0;
    if (q->o.stacks->get(q->g, c->node, c->frames, STACKS_MAX_DEPTH, &n))
        return -1;
    c->n_frows = n < STACKS_MAX_DEPTH ? n : STACKS_MAX_DEPTH;
    return 0;
}

static int stacks_filter(sqlite3_vtab_cursor *cur, int plan, const char *s, int argc,
                         sqlite3_value **argv)
{
    if (!vq(cur)->o.stacks) { /* no graph without stacks is scanned for none */
        query_cur *c = (query_cur *)cur;
        c->eof = 1;
        return SQLITE_OK;
    }
    return group_filter(cur, plan, argv, stacks_load);
}

static int stacks_next(sqlite3_vtab_cursor *cur)
{
    return group_next(cur, stacks_load);
}

static int stacks_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    query_cur *c = (query_cur *)cur;
    const graph *g = c->q->g;
    const query_frame *f = &c->frames[c->pos];
    switch (col) {
    case KC_ID:
        result_id(ctx, g, c->node);
        break;
    case KC_DEPTH:
        sqlite3_result_int64(ctx, c->pos);
        break;
    case KC_FUNCTION:
        result_str(ctx, graph_str(g, f->name));
        break;
    case KC_SCRIPT:
        if (f->script == GRAPH_NONE)
            sqlite3_result_null(ctx);
        else
            result_str(ctx, graph_str(g, f->script));
        break;
    default: {
        uint32_t v = col == KC_LINE ? f->line : f->column;
        if (v)
            sqlite3_result_int64(ctx, v);
        else
            sqlite3_result_null(ctx);
    }
    }
    return SQLITE_OK;
}

/* ================================================================ registration */

/* A table: its connect (declaring the schema) and its module. */
#define QUERY_MODULE(pfx, schema, best, filter, next, column, rowid)                     \
    static int pfx##_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, \
                             sqlite3_vtab **out, char **errmsg)                         \
    {                                                                                  \
        return query_connect(db, aux, schema, out, errmsg);                            \
    }                                                                                  \
    static const sqlite3_module pfx##_module = {                                       \
        .iVersion = 0,                                                                 \
        .xCreate = NULL, /* eponymous-only: the table exists under the module's name */ \
        .xConnect = pfx##_connect,                                                     \
        .xBestIndex = best,                                                            \
        .xDisconnect = query_disconnect,                                               \
        .xDestroy = query_disconnect,                                                  \
        .xOpen = query_open_cur,                                                       \
        .xClose = query_close_cur,                                                     \
        .xFilter = filter,                                                             \
        .xNext = next,                                                                 \
        .xEof = query_eof,                                                             \
        .xColumn = column,                                                             \
        .xRowid = rowid,                                                               \
    }

QUERY_MODULE(objects, OBJECTS_SCHEMA, objects_best, objects_filter, objects_next,
             objects_column, objects_rowid);
QUERY_MODULE(classes, CLASSES_SCHEMA, classes_best, classes_filter, classes_next,
             classes_column, classes_rowid);
QUERY_MODULE(edges, EDGES_SCHEMA, edges_best, edges_filter, edges_next, edges_column,
             edges_rowid);
QUERY_MODULE(roots, ROOTS_SCHEMA, roots_best, roots_filter, classes_next, roots_column,
             roots_rowid);
QUERY_MODULE(strings, STRINGS_SCHEMA, node_best, strings_filter, strings_next, strings_column,
             group_rowid);
QUERY_MODULE(fields, FIELDS_SCHEMA, node_best, fields_filter, fields_next, fields_column,
             group_rowid);
QUERY_MODULE(elements, ELEMENTS_SCHEMA, node_best, elements_filter, elements_next,
             elements_column, group_rowid);
QUERY_MODULE(stacks, STACKS_SCHEMA, node_best, stacks_filter, stacks_next, stacks_column,
             group_rowid);

int query_register_tables(query_db *q)
{
    static const struct {
        const char *name;
        const sqlite3_module *m;
    } T[] = {{"objects", &objects_module}, {"classes", &classes_module},
             {"edges", &edges_module},     {"roots", &roots_module},
             {"strings", &strings_module}, {"fields", &fields_module},
             {"elements", &elements_module}, {"stacks", &stacks_module}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        int rc = sqlite3_create_module_v2(q->db, T[i].name, T[i].m, q, NULL);
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}
