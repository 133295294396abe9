/* SPDX-License-Identifier: Apache-2.0 */
/* query.c: the SQL database over a heap graph (query layer), prefix query_. Opens an
 * in-memory SQLite database, registers the virtual tables of query_vtab.c and the SQL
 * functions isa() and field(), and builds on first use what the tables' columns need beyond
 * the graph: the dominator tree of the chosen model (dominators.c or devtools.c), path depths
 * (paths.c, one BFS), a per-class node index (counting sort, 4 bytes per node), the classes
 * sorted by name and per-class sums. Each is built at most once per database; a failure is
 * kept in q->err with leakray's own message because SQLite would only say "out of memory". */
#include "query/query_internal.h"

#include "base/search.h"
#include "analysis/paths.h"
#include "analysis/trace.h"
#include "rules/rules.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- lazy analyses ---- */

lr_status query_need_dom(query_db *q)
{
    if (q->have_dom)
        return LR_OK;
    lr_status st;
    if (q->o.model == QUERY_MODEL_DEVTOOLS) {
        st = devtools_build_paths(q->g, q->o.class_keys, &q->dt, &q->err);
    } else {
        dom_opts d = {0};
        if (q->o.model == QUERY_MODEL_VISUALVM)
            dom_opts_visualvm(&d);
        st = dom_build_ex(q->g, &d, &q->dom, &q->err);
    }
    if (st == LR_OK)
        q->have_dom = 1;
    return st;
}

/* The path forest of every SQL column and of the merged paths: `leakray path`'s, the traces'
 * order with the shipped rules (the GC's pending-list link and what the rules ignore visited
 * last), with the JVM's hold of a class through its instances, as the dominators (a loader
 * kept only through a class its instances keep is reachable, at the depth `path` gives).
 * Shark's bare priorities gave a WeakEntry a distance through Reference.discovered, one
 * less than `path` prints. */
static lr_status query_paths_find(const graph *g, paths_result *out, lr_error *err)
{
    rules_set rs;
    rules_init(&rs);
    lr_status st = rules_load_defaults(&rs, g, err);
    if (st == LR_OK)
        st = rules_bind(&rs, g, err);
    if (st == LR_OK) {
        paths_policy pol = trace_path_policy(&rs);
        pol.class_hops = 1;
        st = paths_find(g, &pol, NULL, 0, out, err);
    }
    rules_fini(&rs);
    return st;
}

lr_status query_need_depth(query_db *q)
{
    if (q->o.model == QUERY_MODEL_DEVTOOLS)
        return query_need_dom(q);
    if (q->depth)
        return LR_OK;
    const graph *g = q->g;
    if (!q->have_paths) {
        LR_TRY(query_paths_find(g, &q->paths, &q->err));
        q->have_paths = 1;
    }
    const paths_result *r = &q->paths;
    uint32_t *d = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *d);
    node_ix *stack = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *stack);
    node_ix *up = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *up);
    if (!d || !stack || !up) {
        free(d);
        free(stack);
        free(up);
        return LR_FAIL(&q->err, LR_ERR_NOMEM, "sql: out of memory for distances");
    }
    /* every parent at once, one pass over the edges (the forest keeps few of them) */
    paths_parents(r, up);
    /* UINT32_MAX - 1 marks "not yet known"; each node's chain is walked only up to the
     * first known ancestor, so the whole pass is O(N). */
    for (node_ix x = 0; x < g->n_nodes; x++)
        d[x] = paths_reached(r, x) ? UINT32_MAX - 1 : UINT32_MAX;
    for (node_ix x = 0; x < g->n_nodes; x++) {
        uint32_t k = 0;
        node_ix y = x;
        while (d[y] == UINT32_MAX - 1) {
            stack[k++] = y;
            node_ix p = up[y];
            if (p == GRAPH_NONE) {
                d[stack[--k]] = 0;
                break;
            }
            y = p;
        }
        while (k > 0) {
            node_ix z = stack[--k];
            d[z] = d[up[z]] + 1;
        }
    }
    free(up);
    free(stack);
    q->depth = d;
    return LR_OK;
}

lr_status query_need_paths(query_db *q, lr_error *err)
{
    lr_status st = LR_OK;
    if (q->o.model == QUERY_MODEL_DEVTOOLS)
        st = query_need_dom(q);
    else if (!q->have_paths && (st = query_paths_find(q->g, &q->paths, &q->err)) ==
                                   LR_OK)
        q->have_paths = 1;
    if (st != LR_OK && err)
        *err = q->err;
    return st;
}

/* The path forest, built on a second thread while the first builds dominators. */
typedef struct query_paths_job {
    const graph *g;
    paths_result *out;
    lr_error err;
    lr_status st;
} query_paths_job;

static void *query_paths_run(void *p)
{
    query_paths_job *j = p;
    j->st = query_paths_find(j->g, j->out, &j->err);
    return NULL;
}

lr_status query_need_paths_retained(query_db *q, lr_error *err)
{
    lr_status st;
    if (q->o.model == QUERY_MODEL_DEVTOOLS || q->have_paths || q->have_dom) {
        if ((st = query_need_paths(q, err)) == LR_OK)
            st = query_need_retained(q, err);
        return st;
    }
    /* Both only read the graph (derived edge names keep a cursor per thread), and neither
     * needs the other: side by side they take the longer of the two instead of the sum. */
    query_paths_job j = {q->g, &q->paths, {.offset = LR_NO_OFFSET}, LR_OK};
    pthread_t th;
    int threaded = pthread_create(&th, NULL, query_paths_run, &j) == 0;
    if (!threaded)
        query_paths_run(&j);
    st = query_need_dom(q);
    if (threaded)
        pthread_join(th, NULL);
    if (j.st == LR_OK) {
        q->have_paths = 1;
    } else if (st == LR_OK) {
        q->err = j.err;
        st = j.st;
    }
    if (st != LR_OK && err)
        *err = q->err;
    return st;
}

int query_path_step(const query_db *q, node_ix x, node_ix *parent, edge_ix *edge)
{
    if (q->o.model == QUERY_MODEL_DEVTOOLS) {
        if (x == q->dt.root)
            return 0;
        edge_ix e = q->dt.parent_edge[x];
        if (e == GRAPH_NONE)
            return -1;
        *edge = e;
        *parent = graph_edge_from(q->g, e);
        return 1;
    }
    if (!paths_reached(&q->paths, x))
        return -1;
    node_ix p = paths_parent(&q->paths, x);
    if (p == GRAPH_NONE)
        return 0;
    *parent = p;
    *edge = paths_edge(&q->paths, x);
    return 1;
}

uint32_t query_path_root(const query_db *q, node_ix x)
{
    if (q->o.model == QUERY_MODEL_DEVTOOLS)
        return q->g->n_roots;
    return paths_root_of(&q->paths, x);
}

/* The dominator tree's children lists, for `WHERE dominator = X`: a counting sort of the
 * nodes by their immediate dominator (8 bytes a node), so a subtree walk with a recursive
 * CTE reads each level through a lookup instead of a scan of every object. */
lr_status query_need_dom_kids(query_db *q)
{
    if (q->dom_first)
        return LR_OK;
    LR_TRY(query_need_dom(q));
    const graph *g = q->g;
    uint32_t *first = err_calloc((size_t)g->n_nodes + 1, sizeof *first);
    node_ix *kids = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *kids);
    if (!first || !kids) {
        free(first);
        free(kids);
        return LR_FAIL(&q->err, LR_ERR_NOMEM, "sql: out of memory for the dominator index");
    }
    for (node_ix x = 0; x < g->n_nodes; x++) {
        node_ix d = query_dominator(q, x);
        if (d != GRAPH_NONE)
            first[d]++;
    }
    uint32_t at = 0; /* first[d] becomes the end of d's run; the fill moves it to the start */
    for (node_ix d = 0; d < g->n_nodes; d++)
        first[d] = at += first[d];
    first[g->n_nodes] = at;
    for (node_ix x = g->n_nodes; x-- > 0;) {
        node_ix d = query_dominator(q, x);
        if (d != GRAPH_NONE)
            kids[--first[d]] = x;
    }
    q->dom_first = first;
    q->dom_kids = kids;
    return LR_OK;
}

lr_status query_need_class_index(query_db *q)
{
    if (q->cls_first)
        return LR_OK;
    const graph *g = q->g;
    uint32_t nc = g->n_classes;
    uint32_t *first = err_calloc((size_t)nc + 2, sizeof *first);
    node_ix *nodes = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *nodes);
    if (!first || !nodes) {
        free(first);
        free(nodes);
        return LR_FAIL(&q->err, LR_ERR_NOMEM, "sql: out of memory for the class index");
    }
    for (node_ix x = 0; x < g->n_nodes; x++)
        first[(graph_node_class(g, x) < nc ? graph_node_class(g, x) : nc) + 1]++;
    for (uint32_t c = 0; c <= nc; c++)
        first[c + 1] += first[c];
    /* Fill with a moving cursor per class, then shift the starts back. */
    for (node_ix x = 0; x < g->n_nodes; x++) {
        class_ix c = graph_node_class(g, x) < nc ? graph_node_class(g, x) : nc;
        nodes[first[c]++] = x;
    }
    for (uint32_t c = nc + 1; c > 0; c--)
        first[c] = first[c - 1];
    first[0] = 0;
    q->cls_first = first;
    q->cls_nodes = nodes;
    return LR_OK;
}

lr_status query_need_class_sizes(query_db *q)
{
    if (q->cls_size)
        return LR_OK;
    LR_TRY(query_need_class_index(q));
    const graph *g = q->g;
    uint32_t nc = g->n_classes;
    uint32_t *size = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *size);
    uint32_t *pos = err_mallocarray((size_t)nc + 1, sizeof *pos);
    uint64_t *shallow = err_calloc((size_t)nc + 1, sizeof *shallow);
    if (!size || !pos || !shallow) {
        free(size);
        free(pos);
        free(shallow);
        return LR_FAIL(&q->err, LR_ERR_NOMEM, "sql: out of memory for shallow sizes");
    }
    /* Node order, as the index was filled: each class's cursor meets its nodes ascending. */
    memcpy(pos, q->cls_first, ((size_t)nc + 1) * sizeof *pos);
    for (node_ix x = 0; x < g->n_nodes; x++) {
        class_ix c = graph_node_class(g, x) < nc ? graph_node_class(g, x) : nc;
        uint32_t s = graph_node_size(g, x);
        size[pos[c]++] = s;
        shallow[c] += s;
    }
    free(pos);
    q->cls_size = size;
    q->cls_shallow = shallow;
    return LR_OK;
}

static _Thread_local const graph *query_sort_g; /* qsort has no context: one sort a thread */

static int query_cmp_name(const void *pa, const void *pb)
{
    class_ix a = *(const class_ix *)pa, b = *(const class_ix *)pb;
    const graph *g = query_sort_g;
    int c = strcmp(graph_str(g, g->classes[a].name), graph_str(g, g->classes[b].name));
    return c ? c : (a < b ? -1 : a > b);
}

lr_status query_need_by_name(query_db *q)
{
    if (q->by_name)
        return LR_OK;
    const graph *g = q->g;
    class_ix *v = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *v);
    if (!v)
        return LR_FAIL(&q->err, LR_ERR_NOMEM, "sql: out of memory for class names");
    for (class_ix c = 0; c < g->n_classes; c++)
        v[c] = c;
    query_sort_g = g;
    qsort(v, g->n_classes, sizeof *v, query_cmp_name);
    q->by_name = v;
    return LR_OK;
}

void query_name_range(const query_db *q, const char *name, uint32_t *lo_out, uint32_t *hi_out)
{
    const graph *g = q->g;
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, g->n_classes,
                       strcmp(graph_str(g, g->classes[q->by_name[search_mid]].name), name) < 0, lo);
    uint32_t end = lo;
    while (end < g->n_classes && strcmp(graph_str(g, g->classes[q->by_name[end]].name), name) == 0)
        end++;
    *lo_out = lo;
    *hi_out = end;
}

lr_status query_need_class_retained(query_db *q)
{
    if (q->cls_retained)
        return LR_OK;
    LR_TRY(query_need_dom(q));
    const graph *g = q->g;
    uint32_t nc = g->n_classes;
    uint64_t *ret = err_calloc(nc ? nc : 1, sizeof *ret);
    if (!ret)
        return LR_FAIL(&q->err, LR_ERR_NOMEM, "sql: out of memory for class sizes");
    if (q->o.model == QUERY_MODEL_DEVTOOLS) {
        for (uint32_t i = 0; i < q->dt.n_classes; i++)
            if (q->dt.classes[i].cls < nc)
                ret[q->dt.classes[i].cls] += q->dt.classes[i].retained;
    } else {
        uint32_t *cnt = err_calloc(nc ? nc : 1, sizeof *cnt);
        lr_status st = cnt ? dom_class_retained(g, &q->dom, ret, cnt, &q->err)
                           : LR_FAIL(&q->err, LR_ERR_NOMEM, "sql: out of memory for classes");
        free(cnt);
        if (st != LR_OK) {
            free(ret);
            return st;
        }
    }
    q->cls_retained = ret;
    return LR_OK;
}

lr_status query_need_strings(query_db *q)
{
    if (q->is_string)
        return LR_OK;
    const graph *g = q->g;
    uint8_t *s = err_calloc(g->n_classes + 1, 1);
    if (!s)
        return LR_FAIL(&q->err, LR_ERR_NOMEM, "sql: out of memory for string classes");
    for (class_ix c = 0; c < g->n_classes; c++)
        s[c] = g->id_size && strcmp(graph_str(g, g->classes[c].name), "java.lang.String") == 0;
    q->is_string = s;
    return LR_OK;
}

/* ---- per-node values under the model ---- */

node_ix query_dominator(const query_db *q, node_ix x)
{
    if (q->o.model == QUERY_MODEL_DEVTOOLS) {
        /* the dominator tree's, as `show` and DevTools give it: what no essential edge
         * reaches (the hole a WeakMap's table holds) hangs under the root, which retains it
         * (its retained size is DevTools', so its dominator is too; reachable stays 0) */
        node_ix d = q->dt.idom[x];
        return d == x ? GRAPH_NONE : d;
    }
    node_ix d = q->dom.idom[x];
    return d == DOM_SUPER_ROOT ? GRAPH_NONE : d;
}

int query_reachable(const query_db *q, node_ix x)
{
    if (q->o.model == QUERY_MODEL_DEVTOOLS)
        return !q->dt.unreached || !(q->dt.unreached[x >> 6] >> (x & 63) & 1);
    return q->dom.idom[x] != GRAPH_NONE;
}

int64_t query_distance(const query_db *q, node_ix x)
{
    if (q->o.model == QUERY_MODEL_DEVTOOLS)
        return q->dt.distance[x] == DEVTOOLS_NO_DISTANCE ? -1 : q->dt.distance[x];
    return q->depth[x] == UINT32_MAX ? -1 : (int64_t)q->depth[x];
}

lr_status query_need_retained(query_db *q, lr_error *err)
{
    lr_status st = query_need_dom(q);
    if (st != LR_OK && err)
        *err = q->err;
    return st;
}

uint64_t query_retained(const query_db *q, node_ix x)
{
    return q->o.model == QUERY_MODEL_DEVTOOLS ? q->dt.retained[x] : q->dom.retained[x];
}

int query_dominates(const query_db *q, node_ix a, node_ix b, uint32_t steps)
{
    const node_ix *idom = q->o.model == QUERY_MODEL_DEVTOOLS ? q->dt.idom : q->dom.idom;
    uint32_t n = q->g->n_nodes;
    for (node_ix x = b; x < n && steps--; ) {
        if (x == a)
            return 1;
        node_ix up = idom[x];
        if (up == x)
            return 0; /* DevTools' root is its own dominator */
        x = up;
    }
    return 0;
}

lr_status query_class_nodes(query_db *q, class_ix c, const node_ix **nodes, uint32_t *n,
                            lr_error *err)
{
    lr_status st = query_need_class_index(q);
    if (st != LR_OK) {
        if (err)
            *err = q->err;
        return st;
    }
    if (c > q->g->n_classes)
        c = q->g->n_classes;
    *nodes = q->cls_nodes + q->cls_first[c];
    *n = q->cls_first[c + 1] - q->cls_first[c];
    return LR_OK;
}

const lr_error *query_last_error(const query_db *q)
{
    return &q->err;
}

int query_value_id(sqlite3_value *v, uint64_t *out)
{
    switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
        *out = (uint64_t)sqlite3_value_int64(v);
        return 1;
    case SQLITE_FLOAT: {
        double d = sqlite3_value_double(v);
        if (d < 0 || d >= 18446744073709551616.0 || d != (double)(uint64_t)d)
            return 0;
        *out = (uint64_t)d;
        return 1;
    }
    case SQLITE_TEXT: {
        const char *s = (const char *)sqlite3_value_text(v);
        if (!s || !*s)
            return 0;
        int base = 10;
        if (s[0] == '@')
            s++;
        else if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            s += 2, base = 16;
        if (!*s)
            return 0;
        char *end;
        unsigned long long u = strtoull(s, &end, base);
        if (*end || *s == '-' || *s == '+')
            return 0;
        *out = u;
        return 1;
    }
    default:
        return 0;
    }
}

/* ---- SQL functions ---- */

/* isa(class_name, ancestor): 1 when a class named class_name is named ancestor or extends a
 * class named so (any of the classes of that name, for dumps with several loaders). */
static void query_fn_isa(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    query_db *q = sqlite3_user_data(ctx);
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    const char *anc = (const char *)sqlite3_value_text(argv[1]);
    if (!name || !anc) {
        sqlite3_result_null(ctx);
        return;
    }
    if (query_need_by_name(q) != LR_OK) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    uint32_t lo, hi;
    query_name_range(q, name, &lo, &hi);
    int yes = 0;
    for (uint32_t i = lo; i < hi && !yes; i++)
        yes = graph_class_is_named(q->g, q->by_name[i], anc);
    sqlite3_result_int(ctx, yes);
}

/* Element i of array x as a field reads: an HPROF array's bytes, or the element edge named
 * i of a graph with element edges (a JavaScript array). 1, or 0 when it has none. */
static int query_element(const graph *g, node_ix x, unsigned long i, graph_value *v)
{
    uint8_t t;
    if (i <= UINT32_MAX && graph_elements(g, x, &t))
        return graph_element(g, x, (uint32_t)i, v);
    if (!g->first_edge || x >= g->n_nodes)
        return 0;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_ELEMENT &&
            graph_edge_name_from(g, x, e) == i) {
            v->type = GRAPH_FT_OBJECT;
            v->ref = g->edge_to[e];
            v->raw = graph_node_id(g, v->ref);
            return 1;
        }
    return 0;
}

/* field(id, 'a.b[2].c'): the value of a field chain of object id, following references
 * through each name but the last, and into an array's element at [N] (MAT's OQL reads
 * `a.b[2]` so); NULL when the object, a field, an element or a link is missing. A JavaScript
 * property holding a primitive node (true, a smi or heap number) gives the primitive. */
static void query_fn_field(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    query_db *q = sqlite3_user_data(ctx);
    const graph *g = q->g;
    uint64_t id;
    const char *path = (const char *)sqlite3_value_text(argv[1]);
    if (!query_value_id(argv[0], &id) || !path) {
        sqlite3_result_null(ctx);
        return;
    }
    node_ix x = graph_find_id(g, id);
    char name[256];
    while (x != GRAPH_NONE) {
        size_t len = strcspn(path, ".[");
        if (len >= sizeof name)
            break;
        graph_value v;
        int have = 0;
        if (len) {
            memcpy(name, path, len);
            name[len] = 0;
            if (g->node_kind[x] == GRAPH_KIND_CLASS) { /* a class's statics, primitive too */
                class_ix c = graph_class_of_node(g, x);
                have = c != GRAPH_NONE && graph_static_find(g, c, name, &v);
            }
            if (!have && !graph_field_find(g, x, name, &v))
                break;
            have = 1;
        }
        const char *p = path + len;
        while (*p == '[') {
            char *end;
            if (!isdigit((unsigned char)p[1]))
                break;
            errno = 0;
            unsigned long i = strtoul(p + 1, &end, 10);
            node_ix arr = !have ? x : v.type == GRAPH_FT_OBJECT ? v.ref : GRAPH_NONE;
            if (errno || *end != ']' || arr == GRAPH_NONE || !query_element(g, arr, i, &v)) {
                have = 0;
                break;
            }
            have = 1;
            p = end + 1;
        }
        if (!have || (*p && *p != '.'))
            break;
        rules_js js;
        if (!*p && v.type == GRAPH_FT_OBJECT && v.raw && v.ref < g->n_nodes &&
            rules_js_primitive(g, v.ref, &js)) {
            /* a JavaScript primitive is its value, as a condition reads it, not a node id */
            if (js.kind == RULES_JS_NULL)
                sqlite3_result_null(ctx);
            else if (js.kind == RULES_JS_FLOAT)
                sqlite3_result_double(ctx, js.d);
            else
                sqlite3_result_int64(ctx, js.i);
            return;
        }
        if (!*p) {
            query_result_value(ctx, g, &v);
            return;
        }
        if (v.type != GRAPH_FT_OBJECT)
            break;
        x = v.ref;
        path = p + 1;
    }
    sqlite3_result_null(ctx);
}

static uint64_t query_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Called every 1000 VM steps; nonzero interrupts the statement (opts.max_steps, max_ms). */
static int query_progress(void *p)
{
    query_db *q = p;
    if (q->o.max_steps && ++q->steps > q->o.max_steps / 1000 + 1)
        return 1;
    if (q->o.max_ms && query_now_ms() - q->t0_ms > q->o.max_ms) {
        if (q->err.code == LR_OK)
            LR_FAIL(&q->err, LR_ERR_LIMIT, "sql: the statements ran past the time limit "
                    "(%.3g s)", (double)q->o.max_ms / 1000);
        return 1;
    }
    return 0;
}

/* ---- lifecycle ---- */

/* The statements SQLite may prepare: everything but attaching databases and calling
 * fts3_tokenizer (see query_open). */
static int query_authorize(void *ctx, int action, const char *a, const char *b, const char *db,
                           const char *trigger)
{
    (void)ctx, (void)a, (void)db, (void)trigger;
    if (action == SQLITE_ATTACH || action == SQLITE_DETACH)
        return SQLITE_DENY;
    /* temporary storage stays in memory (query_open), where the limit on memory holds */
    if (action == SQLITE_PRAGMA && a &&
        (sqlite3_stricmp(a, "temp_store") == 0 || sqlite3_stricmp(a, "temp_store_directory") == 0 ||
         sqlite3_stricmp(a, "data_store_directory") == 0))
        return SQLITE_DENY;
    if (action == SQLITE_FUNCTION && b && sqlite3_stricmp(b, "fts3_tokenizer") == 0)
        return SQLITE_DENY;
    return SQLITE_OK;
}

lr_status query_open(graph *g, const query_opts *o, query_db **out, lr_error *err)
{
    /* Ids are looked up row by row (joins, `id = ...`): a reader that left the id index out
     * (V8, whose other verbs look up one id) gets it built here, or each lookup would scan. */
    if (!g->id_dir && !g->id_blk && graph_has_ids(g))
        LR_TRY(graph_build_index(g, err));
    query_db *q = err_calloc(1, sizeof *q);
    if (!q)
        return LR_FAIL(err, LR_ERR_NOMEM, "sql: out of memory");
    q->g = g;
    if (o)
        q->o = *o;
    q->err.offset = LR_NO_OFFSET;
    int rc = sqlite3_open_v2(":memory:", &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY,
                             NULL);
    if (rc != SQLITE_OK) {
        lr_status st = LR_FAIL(err, rc == SQLITE_NOMEM ? LR_ERR_NOMEM : LR_ERR_INTERNAL,
                               "sql: cannot open SQLite: %s", sqlite3_errstr(rc));
        query_close(q);
        return st;
    }
    /* A heap query reads the heap: no ATTACH (it would create files), no extensions, and
     * nothing that hands SQL a pointer: a build with FTS3's tokenizer function lets
     * fts3_tokenizer(name, blob) install any address as code, and tells where the library
     * sits with one argument. Defensive mode keeps the schema tables read-only. */
    sqlite3_limit(q->db, SQLITE_LIMIT_ATTACHED, 0);
    /* A big sort or a temporary table spilled to files in /var/tmp, unbounded and beside
     * --tmpdir (6e9 rows of a cross join filled the disk): in memory, every byte of it is
     * counted against --max-memory, past which the statement stops with exit 5. */
    sqlite3_exec(q->db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
    sqlite3_db_config(q->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
    sqlite3_db_config(q->db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, NULL);
    sqlite3_db_config(q->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(q->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_set_authorizer(q->db, query_authorize, NULL);
    if (q->o.max_steps || q->o.max_ms)
        sqlite3_progress_handler(q->db, 1000, query_progress, q);
    /* past it a value fails with "string or blob too big" (SQLITE_TOOBIG) */
    if (q->o.max_length)
        sqlite3_limit(q->db, SQLITE_LIMIT_LENGTH,
                      q->o.max_length < INT_MAX ? (int)q->o.max_length : INT_MAX);
    const int fl = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
    if (query_register_tables(q) != SQLITE_OK || query_printf_register(q->db) != SQLITE_OK ||
        sqlite3_create_function(q->db, "isa", 2, fl, q, query_fn_isa, NULL, NULL) != SQLITE_OK ||
        sqlite3_create_function(q->db, "field", 2, fl, q, query_fn_field, NULL, NULL) !=
            SQLITE_OK) {
        lr_status st = LR_FAIL(err, LR_ERR_INTERNAL, "sql: cannot register tables: %s",
                               sqlite3_errmsg(q->db));
        query_close(q);
        return st;
    }
    *out = q;
    return LR_OK;
}

struct sqlite3 *query_sqlite(query_db *q)
{
    q->steps = 0;
    q->t0_ms = query_now_ms();
    return q->db;
}

void query_close(query_db *q)
{
    if (!q)
        return;
    if (q->db)
        sqlite3_close_v2(q->db);
    dom_free(&q->dom);
    devtools_free(&q->dt);
    free(q->depth);
    free(q->dom_first);
    free(q->dom_kids);
    if (q->have_paths)
        paths_free(&q->paths);
    free(q->cls_first);
    free(q->cls_nodes);
    free(q->by_name);
    free(q->cls_size);
    free(q->cls_shallow);
    free(q->cls_retained);
    free(q->is_string);
    free(q);
}
