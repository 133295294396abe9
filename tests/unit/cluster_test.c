/* SPDX-License-Identifier: Apache-2.0 */
/* cluster_test.c: unit tests of src/analysis/cluster.c and src/rules/cluster_rules.c on a
 * hand-built V8-shaped graph with the shipped rules/arkts.rules: one cluster per call site
 * (global array, dictionary-like object, closures by name, promises by reaction handler,
 * proxies by target, plain objects by property set), nesting through the dominator tree,
 * exact retained sizes without double counting, the largest-retained tie rule for equally
 * short chains, `[]` normalisation, anchors, line-numbered rule errors, nesting judged on
 * every top member, detached DOM grouped by tag, class and tree role, and the same scene under
 * rules/v8.rules (DevTools' names), the rules a V8 snapshot takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/cluster.h"

/* ---- a tiny V8-like graph builder ---- */

enum { T_SYN, T_OBJ, T_CLO, T_HID, T_STR, T_ARR, T_N };
static const char *const TYPES[T_N] = {"synthetic", "object", "closure", "hidden", "string",
                                        "array"};

#define MAXN 512
#define MAXE 2048

typedef struct tb {
    uint32_t n, ne;
    uint8_t type[MAXN];
    const char *name[MAXN];
    uint32_t size[MAXN];
    uint32_t from[MAXE], to[MAXE], eidx[MAXE];
    uint8_t ekind[MAXE];
    const char *ename[MAXE];
} tb;

static uint32_t node(tb *b, int type, const char *name, uint32_t size)
{
    assert_true(b->n < MAXN);
    b->type[b->n] = (uint8_t)type;
    b->name[b->n] = name;
    b->size[b->n] = size;
    return b->n++;
}

static void edge(tb *b, uint32_t from, unsigned kind, const char *name, uint32_t idx, uint32_t to)
{
    assert_true(b->ne < MAXE);
    b->from[b->ne] = from;
    b->to[b->ne] = to;
    b->ekind[b->ne] = GRAPH_EDGE_MAKE(kind, kind == GRAPH_EDGE_WEAK ? GRAPH_WEAK : GRAPH_STRONG);
    b->ename[b->ne] = name;
    b->eidx[b->ne] = idx;
    b->ne++;
}

static void prop(tb *b, uint32_t from, const char *name, uint32_t to)
{
    edge(b, from, GRAPH_EDGE_PROPERTY, name, 0, to);
}

static void build(const tb *b, graph *g)
{
    lr_error err = {0};
    graph_init(g);
    assert_int_equal(graph_alloc_nodes(g, b->n, GRAPH_WANT_NAME, &err), LR_OK);
    for (int t = 0; t < T_N; t++)
        g->type_names[t] = TYPES[t];
    g->n_types = T_N;
    for (uint32_t i = 0; i < b->n; i++) {
        g->node_id[i] = 1 + 2 * (uint64_t)i;
        g->node_class[i] = GRAPH_NONE;
        g->node_size[i] = b->size[i];
        g->node_type[i] = b->type[i];
        g->node_kind[i] = b->type[i] == T_SYN   ? GRAPH_KIND_SYNTHETIC
                          : b->type[i] == T_CLO ? GRAPH_KIND_CLOSURE
                          : b->type[i] == T_STR ? GRAPH_KIND_STRING
                          : b->type[i] == T_ARR ? GRAPH_KIND_OBJ_ARRAY
                          : b->type[i] == T_HID ? GRAPH_KIND_OTHER
                                                : GRAPH_KIND_INSTANCE;
        g->node_off[i] = UINT64_MAX;
        assert_int_equal(graph_intern(g, b->name[i], strlen(b->name[i]), &g->node_name[i], &err),
                         LR_OK);
    }
    assert_int_equal(graph_alloc_edges(g, b->ne, &err), LR_OK);
    for (uint32_t i = 0; i < b->ne; i++) {
        assert_true(i == 0 || b->from[i] >= b->from[i - 1]); /* grouped by source */
        g->first_edge[b->from[i] + 1]++;
    }
    for (uint32_t i = 0; i < b->n; i++)
        g->first_edge[i + 1] += g->first_edge[i];
    for (uint32_t i = 0; i < b->ne; i++) {
        g->edge_to[i] = b->to[i];
        g->edge_kind[i] = b->ekind[i];
        if (GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(b->ekind[i])))
            g->edge_name[i] = b->eidx[i];
        else
            assert_int_equal(graph_intern(g, b->ename[i], strlen(b->ename[i]), &g->edge_name[i],
                                          &err),
                             LR_OK);
    }
    g->synthetic_root = 0;
    g->roots = calloc(1, sizeof *g->roots);
    assert_non_null(g->roots);
    g->roots[0] = (graph_root){.node = 0, .kind = GRAPH_ROOT_SYNTHETIC, .frame = -1};
    g->n_roots = 1;
}

/* The source tree's rules/FILE, else the shipped copy (the one built in when nothing else). */
static void load_rules(crules_set *rs, const char *file)
{
    lr_error err = {0};
    crules_init(rs);
    const char *src = getenv("LEAKRAY_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/rules/%s", src ? src : ".", file);
    lr_status st = crules_load_file(rs, path, &err);
    if (st != LR_OK) {
        err = (lr_error){0};
        st = crules_load_shipped(rs, file, &err);
    }
    if (st != LR_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, LR_OK);
}

/* ---- the scenario ---- */

#define K_REC 7
#define K_CACHE 10
#define K_DONE 3
#define K_OTHER 2
#define K_PROM 4
#define K_PROXY 5

typedef struct scene {
    tb b;
    uint32_t root, global, bg, small, shared, rec0;
} scene;

static void make_scene(scene *s)
{
    tb *b = &s->b;
    memset(s, 0, sizeof *s);
    /* Nodes are created in an order that keeps every node's edges contiguous below. */
    uint32_t root = node(b, T_SYN, "", 0);
    uint32_t global = node(b, T_OBJ, "global", 40);
    uint32_t records = node(b, T_OBJ, "Array", 16);
    uint32_t cache = node(b, T_OBJ, "Object", 24);
    uint32_t cbs = node(b, T_OBJ, "Array", 16);
    uint32_t proms = node(b, T_OBJ, "Array", 16);
    uint32_t prox = node(b, T_OBJ, "Array", 16);
    uint32_t objs = node(b, T_OBJ, "Array", 16);
    uint32_t small = node(b, T_OBJ, "Object", 8);
    uint32_t bg = node(b, T_OBJ, "Object", 8);
    uint32_t handler = node(b, T_OBJ, "Object", 12);
    uint32_t shared = node(b, T_OBJ, "SharedThing", 4);
    uint32_t big = node(b, T_OBJ, "BigBlob", 5000);
    uint32_t bufs = node(b, T_OBJ, "Array", 16);
    s->root = root;
    s->global = global;
    s->bg = bg;
    s->small = small;
    s->shared = shared;
    edge(b, root, GRAPH_EDGE_SHORTCUT, "1", 0, global);
    prop(b, global, "records", records);
    prop(b, global, "cache", cache);
    prop(b, global, "cbs", cbs);
    prop(b, global, "proms", proms);
    prop(b, global, "prox", prox);
    prop(b, global, "objs", objs);
    prop(b, global, "small", small);
    prop(b, global, "bg", bg);
    prop(b, global, "handler", handler);
    edge(b, global, GRAPH_EDGE_WEAK, "w", 0, big); /* weak: never a chain */
    prop(b, global, "bufs", bufs);
    /* site 1: records[i] = LeakedRecord {values: Array} */
    uint32_t rec[K_REC], vals[K_REC];
    for (int i = 0; i < K_REC; i++) {
        rec[i] = node(b, T_OBJ, "LeakedRecord", 32);
        vals[i] = node(b, T_OBJ, "Array", 16);
    }
    s->rec0 = rec[0];
    for (int i = 0; i < K_REC; i++)
        edge(b, records, GRAPH_EDGE_ELEMENT, NULL, (uint32_t)i, rec[i]);
    /* site 2: cache (dictionary) k0..k9 -> CacheEntry {key, meta} */
    static const char *const keys[K_CACHE] = {"k0", "k1", "k2", "k3", "k4",
                                              "k5", "k6", "k7", "k8", "k9"};
    uint32_t ce[K_CACHE];
    for (int i = 0; i < K_CACHE; i++)
        ce[i] = node(b, T_OBJ, "CacheEntry", 24);
    for (int i = 0; i < K_CACHE; i++)
        prop(b, cache, keys[i], ce[i]);
    /* site 3: cbs[i] = closure onDone (3) / other (2), context -> Context -> ClosurePayload */
    uint32_t clo[K_DONE + K_OTHER], ctx[K_DONE + K_OTHER], pay[K_DONE + K_OTHER];
    for (int i = 0; i < K_DONE + K_OTHER; i++) {
        clo[i] = node(b, T_CLO, i < K_DONE ? "onDone" : "other", 32);
        ctx[i] = node(b, T_OBJ, "system / Context", 20);
        pay[i] = node(b, T_OBJ, "ClosurePayload", 100);
    }
    for (int i = 0; i < K_DONE + K_OTHER; i++)
        edge(b, cbs, GRAPH_EDGE_ELEMENT, NULL, (uint32_t)i, clo[i]);
    /* site 4: proms[i] = Promise -> reactions_or_result -> PromiseReaction -> onSettled */
    uint32_t pr[K_PROM], re[K_PROM], hd[K_PROM];
    for (int i = 0; i < K_PROM; i++) {
        pr[i] = node(b, T_OBJ, "Promise", 20);
        re[i] = node(b, T_HID, "system / PromiseReaction", 20);
        hd[i] = node(b, T_CLO, "onSettled", 32);
    }
    for (int i = 0; i < K_PROM; i++)
        edge(b, proms, GRAPH_EDGE_ELEMENT, NULL, (uint32_t)i, pr[i]);
    /* site 5: prox[i] = JSProxy (hidden) -> [1] ProxiedModel, [2] shared handler */
    uint32_t px[K_PROXY], tg[K_PROXY];
    for (int i = 0; i < K_PROXY; i++) {
        px[i] = node(b, T_HID, "system / JSProxy", 16);
        tg[i] = node(b, T_OBJ, "ProxiedModel", 24);
    }
    for (int i = 0; i < K_PROXY; i++)
        edge(b, prox, GRAPH_EDGE_ELEMENT, NULL, (uint32_t)i, px[i]);
    /* site 6: objs[] holds 3 {a} and 2 {a, b} plain objects */
    uint32_t po[5], leaf = node(b, T_STR, "x", 8);
    for (int i = 0; i < 5; i++)
        po[i] = node(b, T_OBJ, "Object", 12);
    for (int i = 0; i < 5; i++)
        edge(b, objs, GRAPH_EDGE_ELEMENT, NULL, (uint32_t)i, po[i]);
    /* tie: shared is at depth 3 through small.x and bg.x; bg retains more (big2) */
    uint32_t big2 = node(b, T_OBJ, "Blob", 900);
    prop(b, small, "x", shared);
    prop(b, bg, "x", shared);
    prop(b, bg, "blob", big2);
    /* ArkTS-style array names carrying their length: one directory, one cluster */
    static const char *const bufnames[3] = {"Buf[12]", "Buf[7]", "Buf[12]"};
    for (int i = 0; i < 3; i++)
        edge(b, bufs, GRAPH_EDGE_ELEMENT, NULL, (uint32_t)i, node(b, T_OBJ, bufnames[i], 8));
    /* out-edges of per-site nodes, in node order */
    for (int i = 0; i < K_REC; i++)
        prop(b, rec[i], "values", vals[i]);
    for (int i = 0; i < K_CACHE; i++)
        prop(b, ce[i], "key", leaf);
    for (int i = 0; i < K_DONE + K_OTHER; i++) {
        edge(b, clo[i], GRAPH_EDGE_INTERNAL, "context", 0, ctx[i]);
        edge(b, ctx[i], GRAPH_EDGE_CONTEXT, "payload", 0, pay[i]);
    }
    for (int i = 0; i < K_PROM; i++) {
        edge(b, pr[i], GRAPH_EDGE_INTERNAL, "reactions_or_result", 0, re[i]);
        edge(b, re[i], GRAPH_EDGE_HIDDEN, NULL, 1, hd[i]);
    }
    for (int i = 0; i < K_PROXY; i++) {
        edge(b, px[i], GRAPH_EDGE_HIDDEN, NULL, 1, tg[i]);
        edge(b, px[i], GRAPH_EDGE_HIDDEN, NULL, 2, handler);
    }
    for (int i = 0; i < 5; i++) {
        prop(b, po[i], "a", leaf);
        if (i >= 3)
            prop(b, po[i], "b", leaf);
    }
}

/* The edges above are appended per site, not per source node; sort them by source
 * (stable) so the CSR build sees them grouped. */
static void sort_edges(tb *b)
{
    for (uint32_t i = 1; i < b->ne; i++) {
        uint32_t j = i;
        while (j > 0 && b->from[j - 1] > b->from[j]) {
            uint32_t t;
            const char *s;
            uint8_t k;
#define SW(a, tmp)            \
    tmp = a[j];               \
    a[j] = a[j - 1];          \
    a[j - 1] = tmp
            SW(b->from, t);
            SW(b->to, t);
            SW(b->eidx, t);
            SW(b->ekind, k);
            SW(b->ename, s);
#undef SW
            j--;
        }
    }
}

typedef struct fixture {
    scene s;
    graph g;
    crules_set rs;
    dom_tree t;
    cluster_ctx c;
} fixture;

static fixture *setup_rules(const char *file)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    make_scene(&f->s);
    sort_edges(&f->s.b);
    build(&f->s.b, &f->g);
    load_rules(&f->rs, file);
    lr_error err = {0};
    assert_int_equal(cluster_dom_build(&f->g, &f->t, &err), LR_OK);
    assert_int_equal(cluster_bind(&f->c, &f->g, &f->rs, &f->t, &err), LR_OK);
    return f;
}

static fixture *setup_all(void)
{
    return setup_rules(CRULES_FILE);
}

static void teardown_all(fixture *f)
{
    cluster_fini(&f->c);
    dom_free(&f->t);
    crules_fini(&f->rs);
    graph_fini(&f->g);
    free(f);
}

static const cluster_item *find(const cluster_ctx *c, const cluster_result *r, const char *title)
{
    char buf[256];
    const cluster_item *hit = NULL;
    for (uint32_t i = 0; i < r->n; i++)
        if (strcmp(cluster_title(c, &r->items[i], buf, sizeof buf), title) == 0) {
            if (hit)
                fail_msg("two clusters titled \"%s\"", title); /* unique in this scene */
            hit = &r->items[i];
        }
    if (!hit) {
        for (uint32_t i = 0; i < r->n; i++)
            fprintf(stderr, "  have: %s x%u\n", cluster_title(c, &r->items[i], buf, sizeof buf),
                    r->items[i].count);
        fail_msg("no cluster titled \"%s\"", title);
    }
    return hit;
}

static void test_exact(void **state)
{
    (void)state;
    fixture *f = setup_all();
    const graph *g = &f->g;
    uint8_t *sel = calloc(g->n_nodes, 1);
    assert_non_null(sel);
    /* select only the per-site objects (not the containers) */
    for (node_ix v = 0; v < g->n_nodes; v++) {
        const char *nm = graph_str(g, g->node_name[v]);
        sel[v] = v >= f->s.rec0;
        if (strcmp(nm, "Blob") == 0 || strcmp(nm, "x") == 0)
            sel[v] = 0;
    }
    cluster_result r;
    lr_error err = {0};
    assert_int_equal(cluster_run(&f->c, sel, CLUSTER_SORT_SIZE, &r, &err), LR_OK);
    char buf[256];

    const cluster_item *rec = find(&f->c, &r, "LeakedRecord");
    assert_int_equal(rec->count, K_REC);
    assert_int_equal(rec->shallow, K_REC * 32);
    assert_int_equal(rec->retained, K_REC * (32 + 16));
    const cluster_item *vals = find(&f->c, &r, "jsarray");
    assert_int_equal(vals->count, K_REC);
    assert_int_equal(vals->retained, K_REC * 16);
    assert_true(vals->nested_in != CLUSTER_NONE);
    assert_ptr_equal(&r.items[vals->nested_in], rec);

    /* one cluster for all ten dictionary values: keys k0..k9 are written [] */
    const cluster_item *ce = find(&f->c, &r, "CacheEntry");
    assert_int_equal(ce->count, K_CACHE);
    node_ix nodes[16];
    edge_ix edges[16];
    uint32_t len = cluster_chain_get(&f->c, ce->rep, nodes, edges, 16);
    assert_int_equal(len, 4); /* root -> global -> cache -> entry */
    assert_string_equal(cluster_edge_label(&f->c, nodes[2], edges[2], buf, sizeof buf), "[]");
    assert_string_equal(cluster_edge_label(&f->c, nodes[1], edges[1], buf, sizeof buf), "cache");

    /* closures: by name; payloads nested in the closures through their contexts */
    assert_int_equal(find(&f->c, &r, "Function onDone")->count, K_DONE);
    assert_int_equal(find(&f->c, &r, "Function other")->count, K_OTHER);
    /* payloads held by differently named closures come from different sites */
    uint32_t n_pay = 0, pay_count = 0;
    for (uint32_t i = 0; i < r.n; i++) {
        if (strcmp(cluster_title(&f->c, &r.items[i], buf, sizeof buf), "ClosurePayload") != 0)
            continue;
        n_pay++;
        pay_count += r.items[i].count;
        assert_true(r.items[i].nested_in != CLUSTER_NONE);
        assert_string_equal(f->c.dir_names[r.items[r.items[i].nested_in].dir], "Function");
        assert_int_equal(r.items[i].retained, 100 * r.items[i].count);
    }
    assert_int_equal(n_pay, 2);
    assert_int_equal(pay_count, K_DONE + K_OTHER);
    /* the Contexts are VM internals: never clustered */
    for (uint32_t i = 0; i < r.n; i++)
        assert_string_not_equal(f->c.dir_names[r.items[i].dir], "(system)");
    /* closure retained = closure + context + payload, no double counting with payloads */
    assert_int_equal(find(&f->c, &r, "Function onDone")->retained, K_DONE * (32 + 20 + 100));

    /* promises by the reaction's handler; proxies by their target */
    const cluster_item *pr = find(&f->c, &r, "Promise -> onSettled");
    assert_int_equal(pr->count, K_PROM);
    assert_int_equal(pr->retained, K_PROM * (20 + 20 + 32));
    const cluster_item *px = find(&f->c, &r, "proxy -> ProxiedModel");
    assert_int_equal(px->count, K_PROXY);
    assert_int_equal(px->retained, K_PROXY * (16 + 24)); /* the shared handler is not theirs */

    /* plain objects split by property set */
    assert_int_equal(find(&f->c, &r, "jsobject {a}")->count, 3);
    assert_int_equal(find(&f->c, &r, "jsobject {a, b}")->count, 2);

    /* "Buf[12]" and "Buf[7]" share directory "Buf[]" and, by name + chain, one cluster */
    const cluster_item *buf3 = find(&f->c, &r, "Buf[]");
    assert_int_equal(buf3->count, 3);
    assert_string_equal(f->c.dir_names[buf3->dir], "Buf[]");

    /* the set's total counts each byte once */
    uint64_t sum_top = 0;
    for (uint32_t i = 0; i < r.n; i++)
        if (r.items[i].nested_in == CLUSTER_NONE)
            sum_top += r.items[i].retained;
    assert_int_equal(r.members_retained, sum_top);
    cluster_result_free(&r);
    free(sel);
    teardown_all(f);
}

/* Chains on a page: of two equally short ways into a detached element, the one through a
 * closure beats the one through a detached sibling that retains more (a timer's element was
 * chained through the removed section and folded into the panels' leak). A hidden edge keeps
 * its index (a context's slots, a proxy's target and handler differ). */
static void test_page_chains(void **state)
{
    (void)state;
    tb *b = calloc(1, sizeof *b);
    assert_non_null(b);
    uint32_t root = node(b, T_SYN, "", 0);
    uint32_t glob = node(b, T_OBJ, "Window", 10);
    uint32_t list = node(b, T_HID, "system / ArrayList", 16);
    uint32_t tmpl[5];
    for (uint32_t i = 0; i < 5; i++)
        tmpl[i] = node(b, T_OBJ, "Tmpl", 8);
    uint32_t panel = node(b, T_OBJ, "Detached <div class=\"panel\">", 500);
    uint32_t tick = node(b, T_CLO, "tickClock", 10);
    uint32_t clock = node(b, T_OBJ, "Detached <div class=\"clock\">", 20);
    edge(b, root, GRAPH_EDGE_ELEMENT, NULL, 1, glob);
    prop(b, glob, "cache", list);
    prop(b, glob, "saved", panel);
    prop(b, glob, "timer", tick);
    for (uint32_t i = 0; i < 5; i++)
        edge(b, list, GRAPH_EDGE_HIDDEN, NULL, i, tmpl[i]);
    edge(b, panel, GRAPH_EDGE_INTERNAL, "nextSibling", 0, clock);
    edge(b, tick, GRAPH_EDGE_CONTEXT, "clockEl", 0, clock);
    sort_edges(b);
    graph g;
    build(b, &g);
    g.node_dom = calloc(g.n_nodes, 1);
    assert_non_null(g.node_dom);
    g.node_dom[panel] = g.node_dom[clock] = GRAPH_DOM_DETACHED;
    crules_set rs;
    load_rules(&rs, CRULES_V8_FILE);
    dom_tree t;
    cluster_ctx c;
    cluster_result r;
    lr_error err = {0};
    assert_int_equal(cluster_dom_build(&g, &t, &err), LR_OK);
    assert_int_equal(cluster_bind(&c, &g, &rs, &t, &err), LR_OK);
    assert_int_equal(c.parent[clock], tick);
    uint8_t *sel = calloc(g.n_nodes, 1);
    assert_non_null(sel);
    for (uint32_t i = 0; i < 5; i++)
        sel[tmpl[i]] = 1;
    assert_int_equal(cluster_run(&c, sel, CLUSTER_SORT_SIZE, &r, &err), LR_OK);
    assert_int_equal(r.n, 5);
    cluster_result_free(&r);
    free(sel);
    cluster_fini(&c);
    dom_free(&t);
    crules_fini(&rs);
    graph_fini(&g);
    free(b);
}

/* A V8 snapshot takes rules/v8.rules: the same directories under DevTools' Summary names,
 * so the scene clusters as under arkts.rules, group for group, with V8's titles. */
static void test_v8_names(void **state)
{
    (void)state;
    assert_string_equal(crules_shipped_file("v8", "V8 heap snapshot, 6 node fields"),
                        CRULES_V8_FILE);
    assert_string_equal(crules_shipped_file("v8", "ArkTS heap snapshot, 8 node fields"),
                        CRULES_FILE);
    assert_string_equal(crules_shipped_file("hprof", "JAVA PROFILE 1.0.2"), CRULES_HPROF_FILE);
    assert_string_equal(crules_shipped_file("jsonl", "V8 heap snapshot"), CRULES_FILE);
    assert_string_equal(crules_shipped_file(NULL, NULL), CRULES_FILE);

    fixture *f = setup_rules(CRULES_V8_FILE);
    const graph *g = &f->g;
    uint8_t *sel = calloc(g->n_nodes, 1);
    assert_non_null(sel);
    for (node_ix v = 0; v < g->n_nodes; v++) {
        const char *nm = graph_str(g, g->node_name[v]);
        sel[v] = v >= f->s.rec0 && strcmp(nm, "Blob") != 0 && strcmp(nm, "x") != 0;
    }
    cluster_result r;
    lr_error err = {0};
    assert_int_equal(cluster_run(&f->c, sel, CLUSTER_SORT_SIZE, &r, &err), LR_OK);
    assert_int_equal(find(&f->c, &r, "LeakedRecord")->count, K_REC);
    assert_int_equal(find(&f->c, &r, "Array")->count, K_REC);
    assert_int_equal(find(&f->c, &r, "Function onDone")->count, K_DONE);
    assert_int_equal(find(&f->c, &r, "Promise -> onSettled")->count, K_PROM);
    const cluster_item *px = find(&f->c, &r, "system / JSProxy -> ProxiedModel");
    assert_int_equal(px->count, K_PROXY);
    assert_int_equal(px->retained, K_PROXY * (16 + 24));
    assert_int_equal(find(&f->c, &r, "Object {a}")->count, 3);
    assert_int_equal(find(&f->c, &r, "Object {a, b}")->count, 2);
    static const char *const ark[] = {"jsobject", "jsarray", "js_map", "string", "proxy",
                                      "global_object", "HiddenClass"};
    for (uint32_t d = 0; d < f->c.n_dirs; d++)
        for (size_t k = 0; k < sizeof ark / sizeof ark[0]; k++)
            assert_string_not_equal(f->c.dir_names[d], ark[k]);
    cluster_result_free(&r);

    /* the global object stays a singleton (not clustered), strings are DevTools' (string) */
    assert_int_equal(cluster_run(&f->c, NULL, CLUSTER_SORT_SIZE, &r, &err), LR_OK);
    for (uint32_t i = 0; i < r.n_anchors; i++) {
        assert_string_not_equal(f->c.dir_names[r.anchors[i].dir], "global");
        assert_string_not_equal(f->c.dir_names[r.anchors[i].dir], "(system)");
    }
    for (node_ix v = 0; v < g->n_nodes; v++)
        if (strcmp(g->type_names[g->node_type[v]], "string") == 0)
            assert_string_equal(f->c.dir_names[f->c.node_dir[v]], "(string)");
        else if (v == f->s.global)
            assert_string_equal(f->c.dir_names[f->c.node_dir[v]], "global");
    cluster_result_free(&r);
    free(sel);
    teardown_all(f);
}

static void test_tie_rule(void **state)
{
    (void)state;
    fixture *f = setup_all();
    /* shared is reached at depth 3 through small.x and bg.x; bg retains more */
    assert_true(f->t.retained[f->s.bg] > f->t.retained[f->s.small]);
    assert_int_equal(f->c.parent[f->s.shared], f->s.bg);
    /* weak edges never make chains: BigBlob is unreached */
    const graph *g = &f->g;
    for (node_ix v = 0; v < g->n_nodes; v++)
        if (strcmp(graph_str(g, g->node_name[v]), "BigBlob") == 0)
            assert_int_equal(f->c.node_chain[v], CLUSTER_NONE);
    /* all records share one chain, with the index written [] */
    node_ix nodes[8];
    edge_ix edges[8];
    uint32_t len = cluster_chain_get(&f->c, f->s.rec0, nodes, edges, 8);
    assert_int_equal(len, 4);
    assert_int_equal(nodes[0], f->s.root);
    assert_int_equal(nodes[1], f->s.global);
    char buf[64];
    assert_string_equal(cluster_edge_label(&f->c, nodes[2], edges[2], buf, sizeof buf), "[]");
    assert_int_equal(f->c.node_chain[f->s.rec0], f->c.node_chain[f->s.rec0 + 2]);
    teardown_all(f);
}

static void test_anchors(void **state)
{
    (void)state;
    fixture *f = setup_all();
    cluster_result r;
    lr_error err = {0};
    assert_int_equal(cluster_run(&f->c, NULL, CLUSTER_SORT_COUNT, &r, &err), LR_OK);
    assert_true(r.n_anchors > 0 && r.n_anchors <= 20);
    for (uint32_t i = 1; i < r.n_anchors; i++)
        assert_true(r.anchors[i - 1].retained >= r.anchors[i].retained);
    for (uint32_t i = 0; i < r.n_anchors; i++) {
        const char *d = f->c.dir_names[r.anchors[i].dir];
        assert_string_not_equal(d, "(system)");
        assert_string_not_equal(d, "global_object");
    }
    for (uint32_t i = 1; i < r.n; i++)
        assert_true(r.items[i - 1].count >= r.items[i].count);
    assert_int_equal(find(&f->c, &r, "CacheEntry")->count, K_CACHE);
    cluster_result_free(&r);
    teardown_all(f);
}

static void test_rule_errors(void **state)
{
    (void)state;
    crules_set rs;
    lr_error err = {0};
    crules_init(&rs);
    const char *ok = "# c\ndir a type=object name=\"x y\"  # tail\ncluster a by=chain\n"
                     "leak-ignore a\nleak-ignore s* contents\nanchors top=3 percent=10\n"
                     "dictionary min=4\n";
    assert_int_equal(crules_parse(&rs, "t.rules", ok, strlen(ok), &err), LR_OK);
    assert_int_equal(rs.n_maps, 1);
    assert_string_equal(rs.maps[0].name_glob, "x y");
    assert_int_equal(crules_match(&rs, "object", "x y"), 0);
    assert_int_equal(crules_match(&rs, "object", "x"), -1);
    assert_int_equal(crules_by(&rs, "a"), CRULES_BY_CHAIN);
    assert_int_equal(crules_by(&rs, "zzz"), CRULES_BY_NAME);
    assert_int_equal(crules_leak_ignored(&rs, "a"), 1);
    assert_int_equal(crules_leak_ignored(&rs, "str"), CRULES_IGNORE_CONTENTS);
    assert_int_equal(crules_leak_ignored(&rs, "b"), 0);
    assert_int_equal(rs.anchor_top, 3);
    assert_int_equal(rs.anchor_permille, 100);
    assert_int_equal(rs.dict_min, 4);
    static const char *const bad[] = {
        "dir\n", "cluster a by=wrong\n", "\n\nfrobnicate x\n", "dir a name=\"open\n",
        "anchors top=x\n", "dictionary min=1\n", "dir a colour=red\n",
        "leak-ignore a content\n", "leak-ignore a contents b\n",
    };
    static const char *const where[] = {"t.rules:1:", "t.rules:1:", "t.rules:3:", "t.rules:1:",
                                        "t.rules:1:", "t.rules:1:", "t.rules:1:", "t.rules:1:",
                                        "t.rules:1:"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = (lr_error){0};
        assert_int_equal(crules_parse(&rs, "t.rules", bad[i], strlen(bad[i]), &err),
                         LR_ERR_RULES);
        assert_non_null(strstr(err.msg, where[i]));
    }
    crules_fini(&rs);
}

/* Nesting asks every top member, not the first one: two `Inner` objects held by two boxes
 * whose unique names make two one-object groups lie in neither; held by two detached panels
 * that one DOM group holds (tag and class, ids dropped), they are nested in it. */
static void test_nesting_and_dom(void **state)
{
    (void)state;
    tb *b = calloc(1, sizeof *b);
    assert_non_null(b);
    uint32_t root = node(b, T_SYN, "", 0);
    uint32_t glob = node(b, T_OBJ, "Window", 10);
    uint32_t hold = node(b, T_OBJ, "Array", 16);
    uint32_t box[2], inner[2], div[2], h2[2];
    box[0] = node(b, T_OBJ, "Box one", 20);
    box[1] = node(b, T_OBJ, "Box two", 20);
    inner[0] = node(b, T_OBJ, "Inner", 8);
    inner[1] = node(b, T_OBJ, "Inner", 8);
    div[0] = node(b, T_OBJ, "Detached <div class=\"p\" id=\"p-1\">", 100);
    div[1] = node(b, T_OBJ, "Detached <div id=\"p-2\" class=\"p\">", 100);
    h2[0] = node(b, T_OBJ, "Detached <h2>", 50);
    h2[1] = node(b, T_OBJ, "Detached <h2>", 50);
    edge(b, root, GRAPH_EDGE_ELEMENT, NULL, 1, glob);
    prop(b, glob, "held", hold);
    for (uint32_t i = 0; i < 2; i++) {
        edge(b, hold, GRAPH_EDGE_ELEMENT, NULL, i, box[i]);
        edge(b, hold, GRAPH_EDGE_ELEMENT, NULL, 2 + i, div[i]);
    }
    for (uint32_t i = 0; i < 2; i++)
        prop(b, box[i], "inner", inner[i]);
    for (uint32_t i = 0; i < 2; i++)
        edge(b, div[i], GRAPH_EDGE_ELEMENT, NULL, 0, h2[i]);
    sort_edges(b);
    graph g;
    build(b, &g);
    /* The boxes share a class, as DevTools' `<div>`s do; the DOM nodes are detached. */
    g.classes = calloc(1, sizeof *g.classes);
    assert_non_null(g.classes);
    lr_error err = {0};
    assert_int_equal(graph_intern(&g, "Box", 3, &g.classes[0].name, &err), LR_OK);
    g.classes[0].node = GRAPH_NONE;
    g.classes[0].super = GRAPH_NONE;
    g.n_classes = 1;
    g.node_class[box[0]] = g.node_class[box[1]] = 0;
    g.node_dom = calloc(g.n_nodes, 1);
    assert_non_null(g.node_dom);
    for (uint32_t i = 0; i < 2; i++)
        g.node_dom[div[i]] = g.node_dom[h2[i]] = GRAPH_DOM_DETACHED;
    crules_set rs;
    load_rules(&rs, CRULES_FILE);
    dom_tree t;
    cluster_ctx c;
    cluster_result r;
    assert_int_equal(cluster_dom_build(&g, &t, &err), LR_OK);
    assert_int_equal(cluster_bind(&c, &g, &rs, &t, &err), LR_OK);
    uint8_t *sel = calloc(g.n_nodes, 1);
    assert_non_null(sel);
    for (uint32_t i = 0; i < 2; i++)
        sel[box[i]] = sel[inner[i]] = sel[div[i]] = sel[h2[i]] = 1;
    assert_int_equal(cluster_run(&c, sel, CLUSTER_SORT_SIZE, &r, &err), LR_OK);
    const cluster_item *in = find(&c, &r, "Inner");
    assert_int_equal(in->count, 2);
    assert_int_equal(in->nested_in, CLUSTER_NONE);
    assert_int_equal(find(&c, &r, "Box Box one")->count, 1);
    const cluster_item *roots = find(&c, &r, "Detached <div class=\"p\"> (detached tree roots)");
    assert_int_equal(roots->count, 2);
    assert_int_equal(roots->retained, 300);
    assert_int_equal(roots->nested_in, CLUSTER_NONE);
    const cluster_item *heads = find(&c, &r, "Detached <h2> (inside detached trees)");
    assert_int_equal(heads->count, 2);
    assert_ptr_equal(&r.items[heads->nested_in], roots);
    cluster_result_free(&r);
    free(sel);
    cluster_fini(&c);
    dom_free(&t);
    crules_fini(&rs);
    graph_fini(&g);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),      cmocka_unit_test(test_tie_rule),
        cmocka_unit_test(test_anchors),    cmocka_unit_test(test_rule_errors),
        cmocka_unit_test(test_nesting_and_dom), cmocka_unit_test(test_v8_names),
        cmocka_unit_test(test_page_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
