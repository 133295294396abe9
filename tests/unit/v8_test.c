/* SPDX-License-Identifier: Apache-2.0 */
/* v8_test.c: tests of the V8/ArkTS reader (src/format/v8_read.c) and of DevTools' numbers
 * (src/analysis/devtools.c). Every V8 fixture loads, and its per-class count, distance,
 * shallow size and retained size equal what Chrome DevTools' own code computes
 * (heap-snapshot-toolkit 1.1.3, golden files in tests/e2e/expected/devtools/ written by
 * scripts/golden-devtools.sh) line for line, plus the total. Hand-made snapshots pin down the
 * meta-driven layout (6/7/8 node fields, title/uid before meta, ArkTS type lists, undeclared
 * type indexes), string unescaping (surrogate pairs, lone surrogates, \u0000), WeakMap
 * ephemerons, shortcut and weak edges, size re-attribution and interface names. Bad input
 * (truncation at every offset of a small file, bit flips, wrong counts, unterminated strings,
 * bad escapes) must end in LR_ERR_FORMAT / LR_ERR_TRUNCATED with an offset, never a crash.
 * Fixtures come from LEAKRAY_FIXTURES or $LEAKRAY_SRC/../shared/fixtures; when absent the
 * fixture tests skip with a message, unless CI=true. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/devtools.h"
#include "base/mfile.h"
#include "format/fmt.h"
#include "format/v8.h"
#include "graph/graph.h"

#include "test_fixtures.h"

static char golddir[4096];

static int have_fixtures(void) { return tf_have("v8", "V8"); }

/* ---- loading ---- */

static lr_status load_mem(const char *text, size_t len, graph *g, lr_error *e)
{
    mfile m;
    memset(&m, 0, sizeof m);
    memset(e, 0, sizeof *e);
    graph_init(g);
    g->path = strdup("mem.heapsnapshot");
    lr_status s = mfile_from_memory(&m, (const uint8_t *)text, len, 0, "mem.heapsnapshot", e);
    if (s == LR_OK) {
        if (!fmt_v8_reader.sniff(m.data, m.len))
            s = LR_ERR_USAGE;
        else
            s = fmt_v8_reader.load(g, &m, &(fmt_opts){.dump_index = -1}, e);
    }
    mfile_close(&m);
    return s;
}

static void load_ok(const char *text, graph *g)
{
    lr_error e;
    lr_status s = load_mem(text, strlen(text), g, &e);
    if (s != LR_OK)
        fail_msg("load failed (%d): %s", s, e.msg);
}

static void load_file(const char *path, graph *g, mfile *m)
{
    lr_error e = {0};
    memset(m, 0, sizeof *m);
    graph_init(g);
    if (mfile_open(m, path, 0, &e) != LR_OK)
        fail_msg("open %s: %s", path, e.msg);
    assert_non_null(fmt_find(m->data, m->len));
    assert_string_equal(fmt_find(m->data, m->len)->name, "v8");
    if (fmt_v8_reader.load(g, m, &(fmt_opts){.dump_index = -1}, &e) != LR_OK)
        fail_msg("load %s: %s", path, e.msg);
}

/* ---- golden comparison ---- */

static void esc(char *out, size_t cap, const char *s)
{
    size_t k = 0;
    for (; *s && k + 3 < cap; s++) {
        if (*s == '\\' || *s == '\t' || *s == '\n') {
            out[k++] = '\\';
            out[k++] = *s == '\\' ? '\\' : *s == '\t' ? 't' : 'n';
        } else {
            out[k++] = *s;
        }
    }
    out[k] = 0;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows DevTools' Summary holds (shadowed keys dropped), formatted like the golden file. */
static char **devtools_rows(const graph *g, const devtools_result *r, uint32_t *n_rows)
{
    char **rows = calloc(r->n_classes + 1, sizeof *rows);
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->n_classes; i++) {
        const devtools_class *c = &r->classes[i];
        if (c->shadowed)
            continue;
        char key[2048], name[2048];
        esc(key, sizeof key, graph_str(g, c->key));
        esc(name, sizeof name, graph_str(g, g->classes[c->cls].name));
        size_t cap = strlen(key) + strlen(name) + 128;
        rows[k] = malloc(cap);
        snprintf(rows[k], cap, "%s\t%s\t%u\t%d\t%llu\t%llu", key, name, c->count, c->distance,
                 (unsigned long long)c->self, (unsigned long long)c->retained);
        k++;
    }
    qsort(rows, k, sizeof *rows, cmp_line);
    *n_rows = k;
    return rows;
}

static void compare_golden(const char *file)
{
    char path[4400], gold[4400];
    snprintf(path, sizeof path, "%s/v8/%s", fixdir, file);
    snprintf(gold, sizeof gold, "%s/%s.classes.tsv", golddir, file);
    graph g;
    mfile m;
    load_file(path, &g, &m);
    devtools_result r;
    lr_error e = {0};
    if (devtools_build(&g, v8_class_keys(&g), &r, &e) != LR_OK)
        fail_msg("devtools_build %s: %s", file, e.msg);
    FILE *f = fopen(gold, "r");
    if (!f)
        fail_msg("no golden file %s (run scripts/golden-devtools.sh)", gold);
    uint32_t n_rows;
    char **rows = devtools_rows(&g, &r, &n_rows);
    char line[8192];
    uint32_t i = 0, bad = 0;
    int first = 1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (first) {
            first = 0;
            char want[64];
            snprintf(want, sizeof want, "#total\t%llu",
                     (unsigned long long)(r.total + v8_extra_native_bytes(&g)));
            if (strcmp(line, want) != 0) {
                printf("%s: total: devtools '%s', leakray '%s'\n", file, line, want);
                bad++;
            }
            continue;
        }
        if (i >= n_rows || strcmp(rows[i], line) != 0) {
            if (bad < 12)
                printf("%s: devtools '%s'\n%*s leakray  '%s'\n", file, line, (int)strlen(file),
                       "", i < n_rows ? rows[i] : "(none)");
            bad++;
        }
        i++;
    }
    fclose(f);
    if (i != n_rows) {
        printf("%s: devtools has %u classes, leakray %u\n", file, i, n_rows);
        bad++;
    }
    for (uint32_t k = 0; k < n_rows; k++)
        free(rows[k]);
    free(rows);
    devtools_free(&r);
    graph_fini(&g);
    mfile_close(&m);
    if (bad)
        fail_msg("%s: %u lines differ from DevTools", file, bad);
}

static const char *FIXTURES[] = {
    "heap-1.heapsnapshot",     "heap-2.heapsnapshot",       "heap-3.heapsnapshot",
    "closures.heapsnapshot",   "weakrefs.heapsnapshot",     "primitives.heapsnapshot",
    "globals.heapsnapshot",    "snapshot1.heapsnapshot.gz", "snapshot2.heapsnapshot.gz",
    "small.heapsnapshot",      "test.heapsnapshot",
};

static void test_fixtures_match_devtools(void **state)
{
    (void)state;
    if (!have_fixtures()) {
        skip();
        return;
    }
    for (size_t i = 0; i < sizeof FIXTURES / sizeof *FIXTURES; i++)
        compare_golden(FIXTURES[i]);
}


/* ---- hand-made snapshots ---- */

/* Node 20 layout: the root holds (GC roots) and, by shortcut, a global; the global holds an
 * Array with its backing store, a plain object {a, b}, and weakly a second {a, b}. */
static const char SNAP7[] =
    "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
    "\"edge_count\",\"trace_node_id\",\"detachedness\"],"
    "\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\","
    "\"regexp\",\"number\",\"native\",\"synthetic\",\"concatenated string\",\"sliced string\","
    "\"symbol\",\"bigint\",\"object shape\"],\"string\",\"number\",\"number\",\"number\","
    "\"number\",\"number\"],"
    "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
    "\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\","
    "\"weak\"],\"string_or_number\",\"node\"],"
    "\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]},"
    "\"node_count\":8,\"edge_count\":11,\"trace_function_count\":0},\n"
    "\"nodes\":[9,1,1,0,2,0,0\n"      /* 0 root */
    ",9,2,3,0,1,0,0\n"                /* 1 (GC roots) */
    ",3,3,5,100,3,0,0\n"              /* 2 global */
    ",3,4,7,16,1,0,0\n"               /* 3 Array */
    ",1,5,9,80,0,0,0\n"               /* 4 (object elements) */
    ",3,6,11,24,2,0,0\n"              /* 5 plain object {a, b} */
    ",3,6,13,24,2,0,0\n"              /* 6 plain object {a, b} */
    ",2,7,15,20,0,0,0],\n"            /* 7 string */
    "\"edges\":[1,1,7,5,8,14\n"
    ",3,9,14\n"
    ",2,10,21,2,11,35,6,12,42\n"
    ",3,13,28\n"
    ",2,14,49,2,15,49\n"
    ",2,14,49,2,15,49\n"
    "],\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],"
    "\"locations\":[21,3,10,4],"
    "\"strings\":[\"<dummy>\",\"\",\"(GC roots)\",\"global\",\"Array\",\"(object elements)\","
    "\"Object\",\"s\\u00e9\\ud83d\\ude00\\ud800x\\u0000y\\\"\\\\\\/\\b\\f\\n\\r\\t\","
    "\"global\",\"(Global handles)\",\"arr\",\"o1\",\"w\",\"elements\",\"a\",\"b\"]}";

static node_ix by_id(const graph *g, uint64_t id)
{
    node_ix n = graph_find_id(g, id);
    assert_int_not_equal(n, GRAPH_NONE);
    return n;
}

static void test_layout_v8(void **state)
{
    (void)state;
    graph g;
    load_ok(SNAP7, &g);
    assert_int_equal(g.n_nodes, 8);
    assert_int_equal(g.n_edges, 11);
    assert_int_equal(g.synthetic_root, 0);
    assert_int_equal(g.n_roots, 1);
    assert_int_equal(g.roots[0].kind, GRAPH_ROOT_SYNTHETIC);
    assert_string_equal(g.format, "v8");
    /* string unescaping: e-acute, a surrogate pair, a lone surrogate, U+0000, the escapes */
    assert_string_equal(graph_str(&g, g.node_name[7]),
                        "s\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx\xc0\x80y\"\\/\b\f\n\r\t");
    assert_int_equal(g.node_kind[by_id(&g, 5)], GRAPH_KIND_INSTANCE);
    assert_int_equal(g.node_kind[by_id(&g, 9)], GRAPH_KIND_OBJ_ARRAY);
    assert_int_equal(g.node_kind[by_id(&g, 15)], GRAPH_KIND_STRING);
    assert_int_equal(g.node_kind[0], GRAPH_KIND_SYNTHETIC);
    assert_string_equal(g.type_names[g.node_type[by_id(&g, 9)]], "array");
    /* (object elements) owned only by the Array: its 80 bytes move to the Array */
    assert_int_equal(graph_node_size(&g, by_id(&g, 7)), 96);
    assert_int_equal(graph_node_size(&g, by_id(&g, 9)), 0);
    /* the weak edge keeps its name and is weak */
    node_ix gl = by_id(&g, 5);
    edge_ix last = g.first_edge[gl + 1] - 1;
    assert_int_equal(GRAPH_EDGE_KIND(g.edge_kind[last]), GRAPH_EDGE_WEAK);
    assert_int_equal(GRAPH_EDGE_STRENGTH(g.edge_kind[last]), GRAPH_WEAK);
    assert_int_equal(GRAPH_EDGE_KIND(g.edge_kind[0]), GRAPH_EDGE_ELEMENT);
    assert_int_equal(graph_edge_name(&g, 0), 1);
    /* classes: located Array keyed by script/line/col; two {a, b} objects share an interface */
    const str_ix *keys = v8_class_keys(&g);
    assert_non_null(keys);
    assert_string_equal(graph_str(&g, keys[graph_node_class(&g, by_id(&g, 7))]), "3,10,4,Array");
    assert_string_equal(graph_class_name(&g, by_id(&g, 11)), "{a, b}");
    assert_int_equal(graph_node_class(&g, by_id(&g, 11)), graph_node_class(&g, by_id(&g, 13)));
    assert_string_equal(graph_class_name(&g, by_id(&g, 15)), "(string)");
    assert_string_equal(graph_class_name(&g, 0), "(synthetic)");
    /* DevTools numbers: the weakly held object is not page-owned and hangs under the root;
     * its edge to the shared string runs from non-page-owned to page-owned and does not
     * count, so the string belongs to the strongly held object. (GC roots) -> global does
     * not count either, for the same reason. */
    devtools_result r;
    lr_error e = {0};
    assert_int_equal(devtools_build(&g, keys, &r, &e), LR_OK);
    assert_int_equal(r.retained[gl], 100 + 96 + 24 + 20);
    assert_int_equal(r.total, 100 + 96 + 24 + 24 + 20);
    assert_int_equal(r.n_unreachable, 1);
    assert_int_equal(r.idom[by_id(&g, 13)], 0);
    assert_int_equal(r.idom[by_id(&g, 15)], by_id(&g, 11));
    assert_int_equal(r.idom[by_id(&g, 11)], gl);
    assert_int_equal(r.distance[gl], 1);
    assert_int_equal(r.distance[by_id(&g, 9)], 3);
    assert_int_equal(r.distance[1], DEVTOOLS_SYSTEM_DISTANCE + 1);
    int found = 0;
    for (uint32_t i = 0; i < r.n_classes; i++) {
        if (strcmp(graph_str(&g, r.classes[i].key), ",{a, b}") == 0) {
            assert_int_equal(r.classes[i].count, 2);
            assert_int_equal(r.classes[i].self, 48);
            assert_int_equal(r.classes[i].retained, 44 + 24);
            found = 1;
        }
    }
    assert_true(found);
    devtools_free(&r);
    graph_fini(&g);
}

/* 2017-style: title/uid before meta, 6 fields with trace_node_id, 12 types, a node of the
 * undeclared type 12, an unknown edge type, an edge to a non-node. */
static const char SNAP6[] =
    "  {\"snapshot\":{\"title\":\"alinode\",\"uid\":1,\"meta\":{\"node_fields\":[\"type\","
    "\"name\",\"id\",\"self_size\",\"edge_count\",\"trace_node_id\"],\"node_types\":[[\"hidden\","
    "\"array\",\"string\",\"object\",\"code\",\"closure\",\"regexp\",\"number\",\"native\","
    "\"synthetic\",\"concatenated string\",\"sliced string\"],\"string\",\"number\",\"number\","
    "\"number\",\"number\",\"number\"],\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
    "\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\","
    "\"weak\"],\"string_or_number\",\"node\"]},\"node_count\":3,\"edge_count\":4},"
    "\"nodes\":[9,0,1,0,4,0, 12,1,3,32,0,0, 3,2,5,8,0,0],"
    "\"edges\":[5,3,6, 2,3,12, 9,1,12, 2,3,7],"
    "\"strings\":[\"\",\"symbol\",\"Foo\",\"x\"]}";

static void test_layout_old(void **state)
{
    (void)state;
    graph g;
    load_ok(SNAP6, &g);
    assert_int_equal(g.n_nodes, 3);
    assert_int_equal(g.n_edges, 3); /* the edge to node index 7 is dropped */
    assert_int_equal(g.diag.n[DIAG_UNKNOWN_NODE_TYPE], 1);
    assert_int_equal(g.diag.n[DIAG_UNKNOWN_EDGE_TYPE], 1);
    assert_int_equal(g.diag.n[DIAG_BAD_EDGE_TARGET], 1);
    assert_string_equal(graph_class_name(&g, 1), "(undefined)");
    assert_string_equal(graph_class_name(&g, 2), "Foo");
    assert_null(g.node_native);
    devtools_result r;
    lr_error e = {0};
    assert_int_equal(devtools_build(&g, v8_class_keys(&g), &r, &e), LR_OK);
    assert_int_equal(r.total, 40);
    devtools_free(&r);
    graph_fini(&g);
}

/* Node ids that do not step by 2 often enough move from the blocks to an array, 32-bit
 * while they fit and 64-bit after a wide one: every id reads back and is found, across the
 * point where the blocks are given up and across block boundaries. */
static void test_ids_irregular(void **state)
{
    (void)state;
    enum { N = 3000 };
    static char text[40 * N + 2048];
    static uint64_t ids[N];
    for (int wide = 0; wide < 2; wide++) {
        size_t len = (size_t)snprintf(text, sizeof text,
            "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\","
            "\"self_size\",\"edge_count\"],\"node_types\":[[\"hidden\",\"array\",\"string\","
            "\"object\",\"code\",\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\"],"
            "\"string\",\"number\",\"number\",\"number\"],\"edge_fields\":[\"type\","
            "\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\",\"element\","
            "\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\","
            "\"node\"]},\"node_count\":%d,\"edge_count\":0},\"nodes\":[", N);
        uint64_t x = 12345;
        for (uint32_t i = 0; i < N; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            /* a regular stretch first (the blocks hold it), then ids in no order */
            ids[i] = i < 700 ? 1 + 2 * (uint64_t)i : (x >> 40) | 1;
            if (wide && i == 2500)
                ids[i] = 7000000001ull;
            len += (size_t)snprintf(text + len, sizeof text - len, "%s9,0,%llu,0,0",
                                    i ? "," : "", (unsigned long long)ids[i]);
        }
        snprintf(text + len, sizeof text - len, "],\"edges\":[],\"strings\":[\"\"]}");
        graph g;
        load_ok(text, &g);
        assert_true(wide ? g.node_id != NULL : g.node_id32 != NULL);
        for (uint32_t i = 0; i < N; i++)
            assert_true(graph_node_id(&g, i) == ids[i]);
        assert_int_equal(graph_find_id(&g, ids[2999]), 2999);
        assert_int_equal(graph_find_id(&g, ids[63]), 63);
        graph_fini(&g);
    }
}

/* A WeakMap ephemeron (Chrome 120+ names both internal edges to the value, from the table and
 * from the key, "N / part of key (...) -> value (...) pair in WeakMap (table @id)"): the
 * table's edge is not essential, so the key dominates the value; and the BFS takes the value
 * only at its second such edge (the key's, at distance 3), not at the table's (distance 2). */
static const char SNAP_WEAKMAP[] =
    "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
    "\"edge_count\"],\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\","
    "\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\"],\"string\",\"number\","
    "\"number\",\"number\"],\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
    "\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\","
    "\"weak\"],\"string_or_number\",\"node\"]},\"node_count\":5,\"edge_count\":5},"
    "\"nodes\":[9,0,1,0,2, 3,1,3,10,1, 3,3,5,20,1, 3,5,7,30,1, 3,6,9,40,0],"
    "\"edges\":[1,0,10, 1,1,5, 2,2,15, 3,4,20, 3,4,20],"
    "\"strings\":[\"\",\"Global\",\"k\",\"T\",\"1 / part of key (K @7) -> value (V @9) pair "
    "in WeakMap (table @5)\",\"K\",\"V\"]}";

static void test_weakmap_ephemeron(void **state)
{
    (void)state;
    graph g;
    load_ok(SNAP_WEAKMAP, &g);
    devtools_result r;
    lr_error e = {0};
    assert_int_equal(devtools_build(&g, v8_class_keys(&g), &r, &e), LR_OK);
    assert_int_equal(r.idom[4], 3);
    assert_int_equal(r.idom[3], 1);
    assert_int_equal(r.idom[2], 0);
    assert_int_equal(r.retained[3], 70);
    assert_int_equal(r.distance[2], 1);
    assert_int_equal(r.distance[3], 2);
    assert_int_equal(r.distance[4], 3);
    devtools_free(&r);
    graph_fini(&g);
}

/* Edge names are read back from the input: over many checkpoints, with dropped edges (targets
 * that are no node) before and across them, index names, string names and one string index
 * past the table (read as "", counted once), asked in order, backwards and by stride. */
static void test_edge_names_read_back(void **state)
{
    (void)state;
    enum { M = 700 };
    static char text[64 * M + 4096];
    static uint32_t want[M];
    static const char *const names[] = {"", "alpha", "beta", "gamma", "delta"};
    size_t len = (size_t)snprintf(text, sizeof text,
        "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
        "\"edge_count\"],\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\","
        "\"code\",\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\"],\"string\","
        "\"number\",\"number\",\"number\"],\"edge_fields\":[\"type\",\"name_or_index\","
        "\"to_node\"],\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\","
        "\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"]},"
        "\"node_count\":2,\"edge_count\":%d},\"nodes\":[9,1,1,0,%d, 3,2,3,16,0],\n\"edges\":[",
        M, M);
    uint32_t n_good = 0, missing = 0;
    for (uint32_t i = 0; i < M; i++) {
        int bad = i % 13 == 5 || (i >= 60 && i < 70); /* a run of dropped edges, too */
        unsigned type = i % 3 == 0 ? 1 : i % 3 == 1 ? 2 : 3;
        unsigned name = type == 1 ? i * 7 : i == 400 ? 99 : 1 + i % 4;
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%u,%u,%u", i ? ",\n" : "",
                                type, name, bad ? 9999u : 5u);
        if (bad)
            continue;
        want[n_good++] = type == 1 ? name : name == 99 ? 0 : name;
        missing += name == 99 && type != 1;
    }
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "],\n\"strings\":[\"\",\"alpha\",\"beta\",\"gamma\",\"delta\"]}");
    graph g;
    load_ok(text, &g);
    assert_int_equal(g.n_edges, n_good);
    assert_int_equal(g.diag.n[DIAG_MISSING_STRING], missing);
    assert_null(g.edge_name);
    for (uint32_t e = 0; e < n_good; e++) {
        unsigned k = GRAPH_EDGE_KIND(g.edge_kind[e]);
        uint32_t got = graph_edge_name_from(&g, 0, e);
        if (GRAPH_EDGE_NAME_IS_INDEX(k))
            assert_int_equal(got, want[e]);
        else
            assert_string_equal(graph_str(&g, got), names[want[e]]);
    }
    for (uint32_t e = n_good; e-- > 0;)
        assert_int_equal(graph_edge_name(&g, e), graph_edge_name_from(&g, 0, e));
    for (uint32_t step = 31; step < 40; step++)
        for (uint32_t e = step % n_good; e < n_good; e += step) {
            unsigned k = GRAPH_EDGE_KIND(g.edge_kind[e]);
            uint32_t got = graph_edge_name(&g, e);
            if (GRAPH_EDGE_NAME_IS_INDEX(k))
                assert_int_equal(got, want[e]);
            else
                assert_string_equal(graph_str(&g, got), names[want[e]]);
        }
    graph_fini(&g);
}

/* Node ids are kept in 32 bits until one does not fit: the ids read before it move to 64
 * bits, and every id reads back and is found exactly (the 2017 layout with a wide id in the
 * middle and after it). */
static void test_wide_ids(void **state)
{
    (void)state;
    char text[sizeof SNAP6 + 32];
    const char *at = strstr(SNAP6, "12,1,3,32");
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s12,1,5000000003,32%s", (int)(at - SNAP6), SNAP6,
             at + strlen("12,1,3,32"));
    graph g;
    load_ok(text, &g);
    assert_null(g.node_id32); /* kept in blocks: a base per 64 nodes and the exceptions */
    assert_null(g.node_id);
    assert_true(graph_node_id(&g, 0) == 1);
    assert_true(graph_node_id(&g, 1) == 5000000003ull);
    assert_true(graph_node_id(&g, 2) == 5);
    assert_int_equal(graph_find_id(&g, 5000000003ull), 1);
    assert_int_equal(graph_find_id(&g, 5), 2);
    assert_int_equal(graph_find_id(&g, 3), GRAPH_NONE);
    graph_fini(&g);
    /* the usual case: no id array, no payload offsets */
    load_ok(SNAP6, &g);
    assert_null(g.node_id);
    assert_null(g.node_off);
    assert_null(g.node_id32);
    assert_true(graph_node_id(&g, 1) == 3);
    assert_true(graph_node_off(&g, 1) == UINT64_MAX);
    assert_int_equal(graph_find_id(&g, 3), 1);
    /* the intern table is gone after loading; interning again rebuilds it and finds the
     * loaded strings instead of adding them twice */
    assert_null(g.strings.index.slot);
    assert_true(g.strings.index_dropped);
    uint32_t n_str = g.strings.n;
    str_ix ix;
    lr_error e = {0};
    assert_int_equal(graph_intern(&g, "Foo", 3, &ix, &e), LR_OK);
    assert_int_equal(ix, g.node_name[2]);
    assert_int_equal(g.strings.n, n_str);
    assert_int_equal(graph_intern(&g, "Bar", 3, &ix, &e), LR_OK);
    assert_int_equal(ix, n_str);
    assert_int_equal(graph_intern(&g, "Bar", 3, &ix, &e), LR_OK);
    assert_int_equal(ix, n_str);
    graph_fini(&g);
}

/* ArkTS online-serializer layout: 8 fields with native_size, slicedstring, class/framework/
 * handle, native/native_string/xref edges, SyntheticRoot with -subroot- shortcuts, two handle
 * sub-roots that both have id 0. */
static const char SNAPARK[] =
    "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
    "\"edge_count\",\"trace_node_id\",\"detachedness\",\"native_size\"],\"node_types\":[["
    "\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\",\"regexp\",\"number\","
    "\"native\",\"synthetic\",\"concatenated string\",\"slicedstring\",\"symbol\",\"bigint\","
    "\"class\",\"framework\",\"handle\"],\"string\",\"number\",\"number\",\"number\",\"number\","
    "\"number\"],\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\"edge_types\":[["
    "\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\","
    "\"native\",\"native_string\",\"xref\"],\"string_or_number\",\"node\"]},"
    "\"node_count\":6,\"edge_count\":6,\"trace_function_count\":0},"
    "\"nodes\":[9,3,1,0,2,0,0,0,16,4,0,1,1,0,0,0,16,5,0,1,1,0,0,0,"
    "3,6,3,40,2,0,0,0,8,7,5,16,0,0,0,4096,15,8,7,24,0,0,0,0],"
    "\"edges\":[5,9,8,5,9,16,1,0,24,1,0,24,7,10,32,9,11,40],"
    "\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],\"locations\":[],"
    "\"strings\":[\"<dummy>\",\"\",\"GC roots\",\"SyntheticRoot\",\"LocalHandleRoot[1]\","
    "\"GlobalHandleRoot[1]\",\"entry/src/main/ets/pages/Index#Leaky(line:12)[entry]\","
    "\"JSNativePointer\",\"_GLOBAL::func_main_0\",\"-subroot-\",\"ptr\",\"fw\"]}";

static void test_layout_arkts(void **state)
{
    (void)state;
    graph g;
    load_ok(SNAPARK, &g);
    assert_int_equal(g.n_nodes, 6);
    assert_non_null(g.node_native);
    assert_int_equal(g.node_native[4], 4096);
    assert_int_equal(graph_node_id(&g, 1), 0);
    assert_int_equal(graph_node_id(&g, 2), 0);
    assert_int_equal(g.node_kind[1], GRAPH_KIND_SYNTHETIC);
    assert_int_equal(g.node_kind[5], GRAPH_KIND_INSTANCE);
    assert_string_equal(g.type_names[g.node_type[5]], "framework");
    assert_int_equal(GRAPH_EDGE_KIND(g.edge_kind[4]), GRAPH_EDGE_NATIVE);
    assert_int_equal(GRAPH_EDGE_KIND(g.edge_kind[5]), GRAPH_EDGE_XREF);
    assert_string_equal(graph_str(&g, g.node_name[0]), "SyntheticRoot");
    assert_string_equal(graph_class_name(&g, 3),
                        "entry/src/main/ets/pages/Index#Leaky(line:12)[entry]");
    assert_string_equal(graph_class_name(&g, 1), "(handle)");
    assert_non_null(strstr(g.version, "ArkTS"));
    devtools_result r;
    lr_error e = {0};
    assert_int_equal(devtools_build(&g, v8_class_keys(&g), &r, &e), LR_OK);
    /* handle sub-roots are user roots (not synthetic) at distance 1 */
    assert_int_equal(r.distance[1], 1);
    assert_int_equal(r.distance[3], 2);
    assert_int_equal(r.total, 1 + 1 + 40 + 16 + 24);
    assert_int_equal(r.retained[3], 40 + 16 + 24);
    devtools_free(&r);
    graph_fini(&g);
}

/* ---- bad input ---- */

static void expect_bad(const char *text, size_t len, const char *why)
{
    graph g;
    lr_error e;
    lr_status s = load_mem(text, len, &g, &e);
    if (s != LR_ERR_FORMAT && s != LR_ERR_TRUNCATED && s != LR_ERR_USAGE)
        fail_msg("%s: status %d (%s)", why, s, e.msg);
    if (s != LR_ERR_USAGE && (e.offset == LR_NO_OFFSET || e.offset > len))
        fail_msg("%s: no offset in '%s'", why, e.msg);
    graph_fini(&g);
}

static void test_truncation(void **state)
{
    (void)state;
    size_t len = strlen(SNAP7);
    for (size_t cut = 0; cut < len - 1; cut++)
        expect_bad(SNAP7, cut, "truncated");
}

static char *replace(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    assert_non_null(p);
    size_t a = (size_t)(p - text), fl = strlen(from), tl = strlen(to);
    char *out = malloc(strlen(text) - fl + tl + 1);
    memcpy(out, text, a);
    memcpy(out + a, to, tl);
    strcpy(out + a + tl, p + fl);
    return out;
}

static void expect_bad_edit(const char *from, const char *to, lr_status want)
{
    char *t = replace(SNAP7, from, to);
    graph g;
    lr_error e;
    lr_status s = load_mem(t, strlen(t), &g, &e);
    if (s != want)
        fail_msg("%s -> %s: status %d, want %d (%s)", from, to, s, want, e.msg);
    assert_int_not_equal(e.offset, LR_NO_OFFSET);
    assert_non_null(strstr(e.msg, "mem.heapsnapshot"));
    graph_fini(&g);
    free(t);
}

static void test_bad_counts_and_strings(void **state)
{
    (void)state;
    expect_bad_edit("\"node_count\":8", "\"node_count\":9", LR_ERR_FORMAT);
    expect_bad_edit("\"node_count\":8", "\"node_count\":7", LR_ERR_FORMAT);
    expect_bad_edit("\"node_count\":8", "\"node_count\":4000000000", LR_ERR_FORMAT);
    expect_bad_edit("\"node_count\":8", "\"node_count\":99999999999999999999", LR_ERR_FORMAT);
    expect_bad_edit("\"edge_count\":11", "\"edge_count\":12", LR_ERR_FORMAT);
    expect_bad_edit("\"edge_count\":11", "\"edge_count\":10", LR_ERR_FORMAT);
    expect_bad_edit("9,1,1,0,2,0,0", "9,1,1,0,3,0,0", LR_ERR_FORMAT);
    expect_bad_edit("\"Object\"", "\"Obj\\xect\"", LR_ERR_FORMAT);
    expect_bad_edit("\"Object\"", "\"Obj\\u12G4\"", LR_ERR_FORMAT);
    expect_bad_edit("\"b\"]}", "\"b]}", LR_ERR_TRUNCATED);
    expect_bad_edit(",3,9,14\n", ",3,9,x\n", LR_ERR_FORMAT);
    expect_bad_edit("\"node_fields\":[\"type\",", "\"node_fields\":[", LR_ERR_FORMAT);
    expect_bad_edit("\"strings\"", "\"strxngs\"", LR_ERR_FORMAT);
}

/* SNAP7 with 100 strings more after its last ("b"), the k-th written by fill(k): enough for
 * the reader's look-ahead over the strings to run well ahead of the one it interns. */
static char *more_strings(void (*fill)(char *out, size_t cap, int k))
{
    char tail[8192] = "\"b\"";
    size_t n = strlen(tail);
    for (int k = 0; k < 100; k++) {
        char one[64];
        fill(one, sizeof one, k);
        n += (size_t)snprintf(tail + n, sizeof tail - n, ",%s", one);
    }
    snprintf(tail + n, sizeof tail - n, "]}");
    return replace(SNAP7, "\"b\"]}", tail);
}

static void fill_plain(char *out, size_t cap, int k)
{
    snprintf(out, cap, k % 7 == 3 ? "\"s%d\\n\"" : "\"s%d\"", k); /* some escaped */
}

static void fill_bad(char *out, size_t cap, int k)
{
    /* a bad escape in string 30, then a string that never ends at 40: the first one found in
     * file order is the one reported, however far ahead the strings were scanned */
    snprintf(out, cap, k == 30 ? "\"s\\q\"" : k == 40 ? "\"s40\" x" : "\"s%d\"", k);
}

static void test_strings_ahead(void **state)
{
    (void)state;
    char *t = more_strings(fill_plain);
    graph g;
    load_ok(t, &g);
    char want[32];
    for (int k = 0; k < 100; k++) {
        snprintf(want, sizeof want, k % 7 == 3 ? "s%d\n" : "s%d", k);
        uint32_t found = 0;
        for (str_ix i = 0; i < g.strings.n && !found; i++)
            found = strcmp(graph_str(&g, i), want) == 0;
        if (!found)
            fail_msg("string %s not loaded", want);
    }
    graph_fini(&g);
    free(t);
    t = more_strings(fill_bad);
    lr_error e;
    assert_int_equal(load_mem(t, strlen(t), &g, &e), LR_ERR_FORMAT);
    assert_int_equal(e.offset, (uint64_t)(strstr(t, "\\q") - t));
    assert_non_null(strstr(e.msg, "bad escape"));
    graph_fini(&g);
    free(t);
}

static void test_bit_flips(void **state)
{
    (void)state;
    size_t len = strlen(SNAP7);
    char *t = malloc(len + 1);
    uint32_t seed = 12345;
    for (int round = 0; round < 3000; round++) {
        memcpy(t, SNAP7, len + 1);
        for (int k = 0; k < 1 + round % 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            t[at] = (char)(t[at] ^ (1u << ((seed >> 4) & 7)));
        }
        graph g;
        lr_error e;
        lr_status s = load_mem(t, len, &g, &e);
        if (s == LR_OK) {
            devtools_result r;
            assert_int_equal(devtools_build(&g, v8_class_keys(&g), &r, &e), LR_OK);
            devtools_free(&r);
        } else if (s != LR_ERR_USAGE) {
            assert_true(s == LR_ERR_FORMAT || s == LR_ERR_TRUNCATED);
            assert_int_not_equal(e.offset, LR_NO_OFFSET);
        }
        graph_fini(&g);
    }
    free(t);
}

/* ---- DevTools dominators against a plain Lengauer-Tarjan ---- */

/* Random snapshot text: node 0 is the synthetic root, node i has id 2i+1 and a size of
 * 8 + i % 50; edges are properties or (one in five) weak. Nodes [c0, n) keep their strong
 * edges among themselves and are held from outside only weakly, so besides orphans (no
 * strong retainer) they form cliques no DFS from the root or an orphan reaches. */
static char *random_snapshot(uint32_t n, uint32_t deg, uint32_t c0, uint32_t *seed,
                             uint32_t **src_out, uint32_t **dst_out, uint8_t **weak_out,
                             uint32_t *m_out)
{
    uint32_t cap = n * (deg + 1) + 16, m = 0;
    uint32_t *src = malloc(cap * sizeof *src), *dst = malloc(cap * sizeof *dst);
    uint8_t *weak = malloc(cap);
#define RND() (*seed = *seed * 1103515245u + 12345u, *seed >> 8)
    for (uint32_t v = 0; v < n; v++) {
        uint32_t k = v == 0 ? 1 + n / 8 : RND() % (deg + 1);
        for (uint32_t j = 0; j < k; j++) {
            uint32_t t = 1 + RND() % (n - 1);
            int wk = RND() % 5 == 0;
            if (v < c0 && t >= c0)
                wk = 1;
            if (v >= c0 && t < c0 && RND() % 2)
                t = c0 + RND() % (n - c0);
            src[m] = v;
            dst[m] = t;
            weak[m++] = (uint8_t)wk;
        }
    }
#undef RND
    size_t tcap = 1024 + (size_t)n * 40 + (size_t)m * 24, len = 0;
    char *t = malloc(tcap);
    len += (size_t)snprintf(t + len, tcap - len,
        "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
        "\"edge_count\",\"trace_node_id\",\"detachedness\"],\"node_types\":[[\"hidden\","
        "\"array\",\"string\",\"object\",\"code\",\"closure\",\"regexp\",\"number\",\"native\","
        "\"synthetic\"],\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"],"
        "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\"edge_types\":[["
        "\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],"
        "\"string_or_number\",\"node\"]},\"node_count\":%u,\"edge_count\":%u},\"nodes\":[",
        n, m);
    for (uint32_t v = 0, e = 0; v < n; v++) {
        uint32_t k = 0;
        while (e + k < m && src[e + k] == v)
            k++;
        e += k;
        len += (size_t)snprintf(t + len, tcap - len, "%s%d,%d,%u,%u,%u,0,0", v ? "," : "",
                                v ? 3 : 9, v ? 2 : 1, 2 * v + 1, v ? 8 + v % 50 : 0, k);
    }
    len += (size_t)snprintf(t + len, tcap - len, "],\"edges\":[");
    for (uint32_t e = 0; e < m; e++)
        len += (size_t)snprintf(t + len, tcap - len, "%s%d,3,%u", e ? "," : "",
                                weak[e] ? 6 : 2, dst[e] * 7);
    snprintf(t + len, tcap - len, "],\"strings\":[\"\",\"(root)\",\"Obj\",\"p\"]}");
    *src_out = src;
    *dst_out = dst;
    *weak_out = weak;
    *m_out = m;
    return t;
}

/* DevTools' calculateDominatorsAndRetainedSizes written out plainly (every retainer listed,
 * a separate parent, bucket head and bucket link per vertex, dom 0 until a bucket sets it),
 * for graphs whose essential edges are the strong non-self ones (no shortcuts, so nothing
 * is page-owned). 1-based. */
static uint32_t ref_eval(uint32_t *anc, uint32_t *label, const uint32_t *semi, uint32_t v)
{
    if (!anc[v])
        return v;
    uint32_t path[4096 * 4], k = 0;
    for (uint32_t x = v; anc[anc[x]]; x = anc[x])
        path[k++] = x;
    while (k--) {
        uint32_t x = path[k];
        if (semi[label[anc[x]]] < semi[label[x]])
            label[x] = label[anc[x]];
        anc[x] = anc[anc[x]];
    }
    return label[v];
}

static void ref_idom(uint32_t n, uint32_t m, const uint32_t *src, const uint32_t *dst,
                     const uint8_t *weak, uint32_t *idom_out)
{
    size_t al = (size_t)n + 1;
    uint32_t *semi = calloc(al, 4), *vertex = calloc(al, 4), *parent = calloc(al, 4);
    uint32_t *anc = calloc(al, 4), *label = calloc(al, 4), *dom = calloc(al, 4);
    uint32_t *bucket = calloc(al, 4), *blink = calloc(al, 4), *next = calloc(al, 4);
    uint32_t *first = calloc(al + 1, 4), *rfirst = calloc(al + 1, 4), *rsrc = calloc(m + 1, 4);
    for (uint32_t e = 0; e < m; e++)
        first[src[e] + 2]++;
    for (uint32_t v = 1; v <= n + 1; v++)
        first[v] += first[v - 1]; /* edges of vertex v: first[v] .. first[v + 1] */
    for (uint32_t e = 0; e < m; e++)
        if (!weak[e] && src[e] != dst[e])
            rfirst[dst[e] + 2]++;
    for (uint32_t v = 1; v <= n + 1; v++)
        rfirst[v] += rfirst[v - 1];
    uint32_t *cur = calloc(al + 1, 4);
    memcpy(cur, rfirst, (al + 1) * 4);
    for (uint32_t e = 0; e < m; e++)
        if (!weak[e] && src[e] != dst[e])
            rsrc[cur[dst[e] + 1]++] = src[e] + 1;
    free(cur);
    uint32_t cnt = 0, *stack = calloc(al, 4);
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t s = 1; s <= n; s++) {
            if (semi[s] || (pass == 0 && s != 1 && rfirst[s] != rfirst[s + 1]))
                continue;
            if (pass == 1) { /* a clique member: numbered, not searched */
                parent[s] = 1;
                semi[s] = ++cnt;
                vertex[cnt] = s;
                continue;
            }
            if (s != 1)
                parent[s] = 1;
            uint32_t sp = 0;
            stack[sp++] = s;
            next[s] = first[s];
            semi[s] = ++cnt;
            vertex[cnt] = s;
            while (sp) {
                uint32_t v = stack[sp - 1];
                if (next[v] == first[v + 1]) {
                    sp--;
                    continue;
                }
                uint32_t e = next[v]++;
                uint32_t t = dst[e] + 1;
                if (weak[e] || t == v || semi[t])
                    continue;
                parent[t] = v;
                semi[t] = ++cnt;
                vertex[cnt] = t;
                next[t] = first[t];
                stack[sp++] = t;
            }
            if (s == 1)
                s = 0; /* then the orphans, from the first vertex */
        }
    }
    for (uint32_t v = 0; v <= n; v++)
        label[v] = v;
    for (uint32_t i = cnt; i >= 2; i--) {
        uint32_t w = vertex[i];
        if (rfirst[w] == rfirst[w + 1])
            semi[w] = semi[1];
        for (uint32_t k = rfirst[w]; k < rfirst[w + 1]; k++) {
            uint32_t u = ref_eval(anc, label, semi, rsrc[k]);
            if (semi[u] < semi[w])
                semi[w] = semi[u];
        }
        uint32_t b = vertex[semi[w]];
        blink[w] = bucket[b];
        bucket[b] = w;
        uint32_t p = parent[w];
        anc[w] = p;
        for (uint32_t v = bucket[p]; v; v = blink[v]) {
            uint32_t u = ref_eval(anc, label, semi, v);
            dom[v] = semi[u] < semi[v] ? u : p;
        }
        bucket[p] = 0;
    }
    dom[0] = dom[1] = 1;
    for (uint32_t i = 2; i <= cnt; i++) {
        uint32_t w = vertex[i];
        if (dom[w] != vertex[semi[w]])
            dom[w] = dom[dom[w]];
    }
    for (uint32_t v = 0; v < n; v++)
        idom_out[v] = dom[v + 1] - 1;
    free(semi); free(vertex); free(parent); free(anc); free(label); free(dom);
    free(bucket); free(blink); free(next); free(first); free(rfirst); free(rsrc); free(stack);
}

static void test_dominators_random(void **state)
{
    (void)state;
    uint32_t seed = 4242, clique_runs = 0;
    for (int round = 0; round < 120; round++) {
        uint32_t n = round < 100 ? 3 + round * 7 % 300 : 4000 + round * 13;
        uint32_t deg = 1 + round % 5, c0 = n - n / (2 + round % 4);
        uint32_t *src, *dst, m;
        uint8_t *weak;
        char *text = random_snapshot(n, deg, c0, &seed, &src, &dst, &weak, &m);
        graph g;
        load_ok(text, &g);
        assert_int_equal(g.n_nodes, n);
        assert_int_equal(g.n_edges, m);
        devtools_result r;
        lr_error e = {0};
        assert_int_equal(devtools_build(&g, v8_class_keys(&g), &r, &e), LR_OK);
        uint32_t *idom = malloc((size_t)n * sizeof *idom);
        ref_idom(n, m, src, dst, weak, idom);
        uint64_t *ret = calloc(n, sizeof *ret);
        for (uint32_t v = 0; v < n; v++) {
            if (idom[v] != r.idom[v])
                fail_msg("round %d (n %u, m %u): idom of %u is %u, want %u", round, n, m, v,
                         r.idom[v], idom[v]);
            uint32_t x = v, hops = 0;
            for (;;) { /* the size counts in every dominator up to the root */
                ret[x] += graph_node_size(&g, v);
                if (x == 0 || ++hops > n)
                    break;
                x = idom[x];
            }
        }
        for (uint32_t v = 0; v < n; v++)
            assert_int_equal(r.retained[v], ret[v]);
        clique_runs += r.n_unreachable > 0;
        free(ret);
        free(idom);
        devtools_free(&r);
        graph_fini(&g);
        free(text);
        free(src);
        free(dst);
        free(weak);
    }
    assert_true(clique_runs > 60); /* the orphan and clique paths were taken */
}

static void test_sniff(void **state)
{
    (void)state;
    assert_true(v8_sniff((const uint8_t *)" \n{ \"snapshot\" :{", 17));
    assert_false(v8_sniff((const uint8_t *)"{\"snapshots\":{", 14));
    assert_false(v8_sniff((const uint8_t *)"JAVA PROFILE 1.0.2", 18));
    assert_false(v8_sniff((const uint8_t *)"{", 1));
}

int main(void)
{
    tf_init();
    const char *src = getenv("LEAKRAY_SRC");
    snprintf(golddir, sizeof golddir, "%s/tests/e2e/expected/devtools", src ? src : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sniff),
        cmocka_unit_test(test_layout_v8),
        cmocka_unit_test(test_layout_old),
        cmocka_unit_test(test_wide_ids),
        cmocka_unit_test(test_edge_names_read_back),
        cmocka_unit_test(test_ids_irregular),
        cmocka_unit_test(test_weakmap_ephemeron),
        cmocka_unit_test(test_layout_arkts),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_bad_counts_and_strings),
        cmocka_unit_test(test_strings_ahead),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_dominators_random),
        cmocka_unit_test(test_fixtures_match_devtools),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
