/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_test.c: tests of the HPROF reader (src/format/hprof_read.c), the input layer
 * (src/base/mfile.c) and lr_open on real dumps: every HotSpot fixture's per-class instance
 * counts and shallow bytes equal VisualVM 2.1.5's histogram line for line
 * (tests/e2e/expected/visualvm/, written by scripts/golden-visualvm.sh); totals of every
 * fixture against ../shared/peers/README.md (Shark-model bytes for Android); a hand-built
 * Android dump with 8-byte ids, HEAP_DUMP_INFO and PRIMITIVE_ARRAY_NODATA; gzip/bzip2 input,
 * the inflate cap and corrupt streams; choosing one of two heap dumps; and truncation at
 * many offsets, which must end in LR_ERR_TRUNCATED / LR_ERR_FORMAT with the offset, never a
 * crash. Fixtures come from LEAKRAY_FIXTURES or $LEAKRAY_SRC/../shared/fixtures; when absent
 * the fixture tests skip with a message, unless CI=true. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/mfile.h"
#include "format/fmt.h"
#include "format/hprof.h"
#include "format/hprof_internal.h"
#include "graph/graph.h"
#include "leakray/leakray.h"
#include "lr_internal.h"

#include <bzlib.h>
#include <zlib.h>

#include "test_fixtures.h"

static char golddir[4096];

static int have_fixtures(void) { return tf_have("hprof", "HPROF"); }

#define NEED_FIXTURES()         \
    do {                        \
        if (!have_fixtures()) { \
            skip();             \
            return;             \
        }                       \
    } while (0)

/* mode 0: full graph; 1: without edges; 2: references counted, no edges kept. */
static lr_heap *open_fixture(const char *name, int dump_index, int mode)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/hprof/%s", fixdir, name);
    lr_open_opts o = {0};
    o.dump_index = dump_index;
    o.no_edges = mode == 1;
    o.count_edges = mode == 2;
    lr_heap *h = NULL;
    lr_error e = {0};
    lr_status st = lr_open(p, &o, &h, &e);
    if (st != LR_OK)
        fail_msg("lr_open %s: %s", name, e.msg);
    return h;
}

/* ---- histogram comparison ---- */

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Per-class "name\tcount\tbytes" lines of the graph, sorted bytewise. */
static char **histo_lines(const graph *g, size_t *n_out)
{
    uint64_t *cnt = calloc(g->n_classes + 1, sizeof *cnt);
    uint64_t *by = calloc(g->n_classes + 1, sizeof *by);
    assert_non_null(cnt);
    assert_non_null(by);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        if (g->node_kind[i] == GRAPH_KIND_CLASS)
            continue;
        assert_int_not_equal(graph_node_class(g, i), GRAPH_NONE);
        cnt[graph_node_class(g, i)]++;
        by[graph_node_class(g, i)] += graph_node_size(g, i);
    }
    char **lines = calloc(g->n_classes + 1, sizeof *lines);
    size_t n = 0;
    for (uint32_t c = 0; c < g->n_classes; c++) {
        if (!cnt[c])
            continue;
        char buf[1024];
        snprintf(buf, sizeof buf, "%s\t%llu\t%llu", graph_str(g, g->classes[c].name),
                 (unsigned long long)cnt[c], (unsigned long long)by[c]);
        lines[n++] = strdup(buf);
    }
    qsort(lines, n, sizeof *lines, cmp_line);
    free(cnt);
    free(by);
    *n_out = n;
    return lines;
}

static void check_histo(const char *name, int dump_index)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s.histo.tsv", golddir, name);
    FILE *f = fopen(p, "r");
    if (!f)
        fail_msg("golden histogram %s missing (run scripts/golden-visualvm.sh)", p);
    for (int pass = 0; pass < 2; pass++) {
        /* Sizes must not depend on whether edges are built. */
        lr_heap *h = open_fixture(name, dump_index, pass);
        size_t n;
        char **lines = histo_lines(lr_heap_graph(h), &n);
        rewind(f);
        char buf[1024];
        size_t i = 0;
        while (fgets(buf, sizeof buf, f)) {
            buf[strcspn(buf, "\n")] = 0;
            if (i >= n)
                fail_msg("%s: missing line '%s'", name, buf);
            if (strcmp(buf, lines[i]) != 0)
                fail_msg("%s line %zu: VisualVM '%s', leakray '%s'", name, i + 1, buf, lines[i]);
            i++;
        }
        if (i != n)
            fail_msg("%s: leakray has %zu classes with instances, VisualVM %zu", name, n, i);
        for (size_t k = 0; k < n; k++)
            free(lines[k]);
        free(lines);
        lr_close(h);
    }
    fclose(f);
}

#define HISTO_TEST(fn, file, dump)                \
    static void fn(void **state)                  \
    {                                             \
        (void)state;                              \
        NEED_FIXTURES();                          \
        check_histo(file, dump);                  \
    }

HISTO_TEST(histo_ri, "RI.hprof", -1)
HISTO_TEST(histo_example_bz2, "example-java.hprof.bz2", -1)
HISTO_TEST(histo_hprof32, "hprof-32.bin", -1)
HISTO_TEST(histo_jdk11_gz, "openjdk_jdk11_04_x64.hprof.gz", -1)
/* VisualVM reads the first of the two dumps in this file. */
HISTO_TEST(histo_jdk7_agent, "oracle_jdk7_21_hprofagent.hprof", 0)
HISTO_TEST(histo_jdk8, "oracle_jdk8_05_x64.hprof", -1)
HISTO_TEST(histo_jdk5_32, "sun_jdk5_13_x32.hprof", -1)
HISTO_TEST(histo_jdk5_64, "sun_jdk5_64bit.hprof", -1)
HISTO_TEST(histo_jdk6_18_32, "sun_jdk6_18_x32.hprof", -1)
HISTO_TEST(histo_jdk6_18_64, "sun_jdk6_18_x64.hprof", -1)
HISTO_TEST(histo_jdk6_coops, "sun_jdk6_30_x64_compressedOops.hprof", -1)
HISTO_TEST(histo_jdk6_32, "sun_jdk6_32bit.hprof", -1)
HISTO_TEST(histo_toku_object, "tokuhirom-heapdump_object_heapdump.hprof", -1)
HISTO_TEST(histo_toku_recursion, "tokuhirom-heapdump_recursion_heapdump.hprof", -1)

/* Counting references instead of keeping them changes no count: the edge total, every
 * diagnostic (dangling references and roots, duplicate ids), roots, threads, nodes and their
 * sizes equal the full load's, on dumps whose edges split over two threads
 * (openjdk_jdk11_04_x64, 187,949 objects), with dangling references, Android's, and the
 * first of two dumps. */
static void count_edges_equal(void **state)
{
    (void)state;
    NEED_FIXTURES();
    static const struct {
        const char *name;
        int dump;
    } F[] = {{"openjdk_jdk11_04_x64.hprof.gz", -1}, {"sun_jdk5_64bit.hprof", -1},
             {"dialer.android-hprof", -1},          {"oracle_jdk7_21_hprofagent.hprof", 0},
             {"hprof-32.bin", -1},                  {"sun_jdk5_13_x32.hprof", -1}};
    uint64_t dangling = 0;
    for (size_t f = 0; f < sizeof F / sizeof F[0]; f++) {
        lr_heap *hf = open_fixture(F[f].name, F[f].dump, 0);
        lr_heap *hc = open_fixture(F[f].name, F[f].dump, 2);
        const graph *a = lr_heap_graph(hf), *b = lr_heap_graph(hc);
        assert_non_null(a->first_edge);
        assert_null(b->first_edge);
        assert_null(b->edge_to);
        assert_true(a->n_edges > 0);
        assert_int_equal(a->n_edges, b->n_edges);
        assert_int_equal(a->n_nodes, b->n_nodes);
        assert_int_equal(a->n_classes, b->n_classes);
        assert_int_equal(a->n_roots, b->n_roots);
        assert_int_equal(a->n_threads, b->n_threads);
        assert_int_equal(a->n_frames, b->n_frames);
        for (unsigned d = 0; d < DIAG_COUNT; d++)
            if (a->diag.n[d] != b->diag.n[d])
                fail_msg("%s: %s %llu full, %llu counted", F[f].name, diag_name(d),
                         (unsigned long long)a->diag.n[d], (unsigned long long)b->diag.n[d]);
        dangling += a->diag.n[DIAG_DANGLING_REFERENCE];
        for (uint32_t n = 0; n < a->n_nodes; n++) {
            assert_int_equal(a->node_kind[n], b->node_kind[n]);
            assert_int_equal(graph_node_class(a, n), graph_node_class(b, n));
            assert_int_equal(graph_node_size(a, n), graph_node_size(b, n));
        }
        for (uint32_t r = 0; r < a->n_roots; r++) {
            assert_int_equal(a->roots[r].node, b->roots[r].node);
            assert_int_equal(a->roots[r].kind, b->roots[r].kind);
            assert_int_equal(a->roots[r].frame, b->roots[r].frame);
        }
        lr_close(hf);
        lr_close(hc);
    }
    assert_true(dangling > 0); /* the dangling count was compared, not just zero twice */
}

/* java_pid1884 inflates to 522,836,448 bytes: its histogram runs once, without edges. */
static void histo_pid1884_gz(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *h = open_fixture("java_pid1884.0001.hprof.gz", -1, 1);
    size_t n;
    char **lines = histo_lines(lr_heap_graph(h), &n);
    char p[4200];
    snprintf(p, sizeof p, "%s/java_pid1884.0001.hprof.gz.histo.tsv", golddir);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    char buf[1024];
    size_t i = 0;
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = 0;
        assert_true(i < n);
        assert_string_equal(buf, lines[i]);
        i++;
    }
    assert_int_equal(i, n);
    fclose(f);
    for (size_t k = 0; k < n; k++)
        free(lines[k]);
    free(lines);
    lr_close(h);
}

/* ---- totals (peers/README.md; Android bytes are Shark's model, see docs/formats/hprof.md) ---- */

/* graph_node_size_ahead: on a graph whose sizes are read back (HPROF with edges) it asks the
 * reader to fetch exactly the array nodes' records, the only sizes that read the dump; with
 * sizes stored (no edges) it asks for nothing. The reader's fetch is counted through a copy of
 * the graph whose size_ahead forwards to it; sizes are unchanged by the fetches. */
static const graph *ahead_g;
static uint32_t ahead_calls, ahead_wrong;
static void count_ahead(const graph *g, node_ix n)
{
    ahead_calls++;
    if (g->node_kind[n] != GRAPH_KIND_OBJ_ARRAY && g->node_kind[n] != GRAPH_KIND_PRIM_ARRAY)
        ahead_wrong++;
    ahead_g->size_ahead(ahead_g, n);
}

static void size_ahead(void **state)
{
    (void)state;
    NEED_FIXTURES();
    static const char *const F[] = {"RI.hprof", "hprof-32.bin", "dialer.android-hprof",
                                    "sun_jdk6_30_x64_compressedOops.hprof"};
    for (size_t t = 0; t < sizeof F / sizeof F[0]; t++) {
        for (int mode = 0; mode <= 1; mode++) {
            lr_heap *h = open_fixture(F[t], -1, mode);
            const graph *g = lr_heap_graph(h);
            graph c = *g;
            if (mode == 0) {
                assert_null(g->node_size);
                assert_non_null(g->size_ahead);
            }
            ahead_g = g;
            c.size_ahead = count_ahead;
            ahead_calls = ahead_wrong = 0;
            uint32_t arrays = 0;
            for (node_ix i = 0; i < g->n_nodes; i++) {
                uint32_t before = graph_node_size(g, i);
                graph_node_size_ahead(&c, i);
                assert_int_equal(graph_node_size(g, i), before);
                arrays += g->node_kind[i] == GRAPH_KIND_OBJ_ARRAY ||
                          g->node_kind[i] == GRAPH_KIND_PRIM_ARRAY;
            }
            if (ahead_wrong || ahead_calls != (mode == 0 ? arrays : 0))
                fail_msg("%s mode %d: %u fetches (%u not arrays), %u arrays", F[t], mode,
                         ahead_calls, ahead_wrong, arrays);
            assert_true(arrays > 0);
            lr_close(h);
        }
    }
}

static void totals(void **state)
{
    (void)state;
    NEED_FIXTURES();
    static const struct {
        const char *file;
        int dump;
        uint64_t instances, bytes;
    } T[] = {
        {"RI.hprof", -1, 24542, 1531816},
        {"dialer.android-hprof", -1, 40116, 1917873},
        {"example-java.hprof.bz2", -1, 23961, 1617392},
        {"hprof-32.bin", -1, 2565, 141280},
        {"openjdk_jdk11_04_x64.hprof.gz", -1, 186037, 7705488},
        {"oracle_jdk7_21_hprofagent.hprof", 0, 3205, 174976},
        {"oracle_jdk8_05_x64.hprof", -1, 14637, 906408},
        {"sun_jdk5_13_x32.hprof", -1, 1029, 117768},
        {"sun_jdk5_64bit.hprof", -1, 3453, 326024},
        {"sun_jdk6_18_x32.hprof", -1, 14850, 1013384},
        {"sun_jdk6_18_x64.hprof", -1, 26870, 1919048},
        {"sun_jdk6_30_x64_compressedOops.hprof", -1, 3975, 351776},
        {"sun_jdk6_32bit.hprof", -1, 14917, 850304},
        {"test-dump-base.hprof", -1, 14797, 869932},
        {"test-dump.hprof", -1, 24793, 1589865},
        {"tokuhirom-heapdump_object_heapdump.hprof", -1, 15587, 678296},
        {"tokuhirom-heapdump_recursion_heapdump.hprof", -1, 16698, 718728},
    };
    for (size_t t = 0; t < sizeof T / sizeof T[0]; t++) {
        /* the heap's total as pass 2 adds it up: every node's size as read back later
         * (class objects included), with edges and without (sizes then stored) */
        for (int mode = 1; mode <= 2; mode++) {
            lr_heap *h = open_fixture(T[t].file, T[t].dump, mode == 1 ? 1 : 0);
            const graph *g = lr_heap_graph(h);
            uint64_t all = 0;
            for (uint32_t i = 0; i < g->n_nodes; i++)
                all += graph_node_size(g, i);
            assert_true(g->shallow_known);
            if (g->shallow_total != all || graph_shallow_total(g) != all)
                fail_msg("%s: shallow total %llu, the nodes' sizes add up to %llu", T[t].file,
                         (unsigned long long)g->shallow_total, (unsigned long long)all);
            lr_close(h);
        }
        lr_heap *h = open_fixture(T[t].file, T[t].dump, 0);
        const graph *g = lr_heap_graph(h);
        uint64_t n = 0, b = 0;
        for (uint32_t i = 0; i < g->n_nodes; i++)
            if (g->node_kind[i] != GRAPH_KIND_CLASS) {
                n++;
                b += graph_node_size(g, i);
            }
        if (n != T[t].instances || b != T[t].bytes)
            fail_msg("%s: %llu objects / %llu bytes, want %llu / %llu", T[t].file,
                     (unsigned long long)n, (unsigned long long)b,
                     (unsigned long long)T[t].instances, (unsigned long long)T[t].bytes);
        int android = strstr(g->version, "1.0.3") != NULL;
        assert_int_equal(g->size_model, android ? GRAPH_SIZES_SHARK : GRAPH_SIZES_VISUALVM);
        /* CSR invariants. */
        assert_int_equal(g->first_edge[g->n_nodes], g->n_edges);
        for (uint32_t i = 0; i < g->n_nodes; i++)
            assert_true(g->first_edge[i] <= g->first_edge[i + 1]);
        for (uint32_t e = 0; e < g->n_edges; e++)
            assert_true(g->edge_to[e] < g->n_nodes);
        for (uint32_t r = 0; r < g->n_roots; r++)
            assert_true(g->roots[r].node < g->n_nodes);
        lr_close(h);
    }
}

/* Shark's model by hand on ahat's test dump: bigArray is byte[1000000] -> 1,000,000 bytes;
 * an instance is its class's declared instance size; class names in Java form. */
static void android_sizes(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *h = open_fixture("test-dump.hprof", -1, 0);
    const graph *g = lr_heap_graph(h);
    class_ix ba = graph_find_class(g, "byte[]");
    assert_int_not_equal(ba, GRAPH_NONE);
    uint32_t biggest = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (graph_node_class(g, i) == ba && graph_node_size(g, i) > biggest) {
            biggest = graph_node_size(g, i);
            assert_int_equal(graph_node_size(g, i), graph_node_len(g, i));
        }
    assert_int_equal(biggest, 1000000);
    class_ix ds = graph_find_class(g, "DumpedStuff");
    assert_int_not_equal(ds, GRAPH_NONE);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (graph_node_class(g, i) == ds)
            assert_int_equal(graph_node_size(g, i), g->classes[ds].instance_size);
    assert_true(g->n_heaps >= 1);
    assert_non_null(g->node_heap);
    assert_string_equal(graph_str(g, g->heap_names[g->node_heap[g->classes[ds].node]]), "app");
    assert_int_equal(g->n_frames, 0); /* stack traces exist, but no thread has frames */
    lr_close(h);
}

/* ---- graph content on HotSpot fixtures ---- */

static void hotspot_graph(void **state)
{
    (void)state;
    NEED_FIXTURES();
    lr_heap *h = open_fixture("sun_jdk6_18_x32.hprof", -1, 0);
    const graph *g = lr_heap_graph(h);
    assert_string_equal(lr_heap_format(h), "hprof");
    assert_int_not_equal(graph_find_class(g, "java.lang.String"), GRAPH_NONE);
    assert_int_not_equal(graph_find_class(g, "int[]"), GRAPH_NONE);
    assert_int_not_equal(graph_find_class(g, "byte[][]"), GRAPH_NONE);
    assert_int_not_equal(graph_find_class(g, "java.lang.Object[]"), GRAPH_NONE);
    assert_int_equal(graph_find_class(g, "java/lang/String"), GRAPH_NONE);
    class_ix wr = graph_find_class(g, "java.lang.ref.WeakReference");
    class_ix sr = graph_find_class(g, "java.lang.ref.SoftReference");
    class_ix fz = graph_find_class(g, "java.lang.ref.Finalizer");
    assert_int_equal(g->classes[wr].ref_strength, GRAPH_WEAK);
    assert_int_equal(g->classes[sr].ref_strength, GRAPH_SOFT);
    assert_int_equal(g->classes[fz].ref_strength, GRAPH_FINALIZER);
    /* Every referent edge out of a WeakReference subclass is weak; other fields strong. */
    unsigned weak_edges = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        if (g->node_kind[i] != GRAPH_KIND_INSTANCE ||
            !graph_class_is(g, graph_node_class(g, i), wr))
            continue;
        for (uint32_t e = g->first_edge[i]; e < g->first_edge[i + 1]; e++) {
            const char *nm = graph_str(g, graph_edge_name(g, e));
            unsigned s = GRAPH_EDGE_STRENGTH(g->edge_kind[e]);
            assert_int_equal(GRAPH_EDGE_KIND(g->edge_kind[e]), GRAPH_EDGE_FIELD);
            assert_int_equal(s, strcmp(nm, "referent") ? GRAPH_STRONG : GRAPH_WEAK);
            weak_edges += s == GRAPH_WEAK;
        }
    }
    assert_true(weak_edges > 0);
    /* Class internals and statics. */
    class_ix str = graph_find_class(g, "java.lang.String");
    node_ix sn = g->classes[str].node;
    int saw_super = 0, saw_static = 0;
    for (uint32_t e = g->first_edge[sn]; e < g->first_edge[sn + 1]; e++) {
        unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
        if (k == GRAPH_EDGE_INTERNAL && !strcmp(graph_str(g, graph_edge_name(g, e)), "<super>")) {
            saw_super = 1;
            assert_string_equal(graph_class_name(g, g->edge_to[e]), "");
            assert_int_equal(g->node_kind[g->edge_to[e]], GRAPH_KIND_CLASS);
        }
        saw_static |= k == GRAPH_EDGE_STATIC;
    }
    assert_true(saw_super);
    assert_true(saw_static);
    /* Element edges carry their index. */
    class_ix oa = graph_find_class(g, "java.lang.Object[]");
    int saw_elem = 0;
    for (uint32_t i = 0; i < g->n_nodes && !saw_elem; i++) {
        if (graph_node_class(g, i) != oa)
            continue;
        for (uint32_t e = g->first_edge[i]; e < g->first_edge[i + 1]; e++) {
            assert_int_equal(GRAPH_EDGE_KIND(g->edge_kind[e]), GRAPH_EDGE_ELEMENT);
            assert_true(graph_edge_name(g, e) < graph_node_len(g, i));
            saw_elem = 1;
        }
    }
    assert_true(saw_elem);
    /* Object ids resolve through the index. */
    for (uint32_t i = 0; i < g->n_nodes; i += 97)
        assert_int_equal(graph_find_id(g, graph_node_id(g, i)), i);
    /* Threads with Java frames (innermost first) in this JDK 6 dump. */
    assert_true(g->n_threads > 0);
    int saw_frames = 0;
    for (uint32_t t = 0; t < g->n_threads; t++) {
        const graph_thread *th = &g->threads[t];
        if (th->n_frames == 0)
            continue;
        saw_frames = 1;
        const graph_frame *f = &g->frames[th->first_frame];
        assert_true(strlen(graph_str(g, f->method)) > 0);
        assert_null(strchr(graph_str(g, f->class_name), '/'));
    }
    assert_true(saw_frames);
    int saw_frame_root = 0;
    for (uint32_t r = 0; r < g->n_roots; r++)
        if (g->roots[r].kind == GRAPH_ROOT_JAVA_FRAME) {
            saw_frame_root = 1;
            assert_true(g->roots[r].thread != 0);
            assert_true(g->roots[r].frame >= 0);
        }
    assert_true(saw_frame_root);
    lr_close(h);
}

/* ---- hand-built Android dump ---- */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *s, size_t n)
{
    if (n == 0)
        return;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void u1(buf *b, uint8_t v) { put(b, &v, 1); }
static void u2(buf *b, uint16_t v)
{
    uint8_t s[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    put(b, s, 2);
}
static void u4(buf *b, uint32_t v)
{
    uint8_t s[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(b, s, 4);
}
static void u8(buf *b, uint64_t v)
{
    u4(b, (uint32_t)(v >> 32));
    u4(b, (uint32_t)v);
}
static unsigned IDS = 8;
static void id(buf *b, uint64_t v)
{
    if (IDS == 8)
        u8(b, v);
    else
        u4(b, (uint32_t)v);
}

/* Top-level record with body from `body`. */
static void rec(buf *b, uint8_t tag, const buf *body)
{
    u1(b, tag);
    u4(b, 0);
    u4(b, (uint32_t)body->n);
    put(b, body->p, body->n);
}

static void str_rec(buf *b, uint64_t sid, const char *s)
{
    buf r = {0};
    id(&r, sid);
    put(&r, s, strlen(s));
    rec(b, 0x01, &r);
    free(r.p);
}

static void load_class(buf *b, uint32_t serial, uint64_t cid, uint64_t name)
{
    buf r = {0};
    u4(&r, serial);
    id(&r, cid);
    u4(&r, 0);
    id(&r, name);
    rec(b, 0x02, &r);
    free(r.p);
}

/* CLASS_DUMP with up to one instance field (object) named field_name (0 = none). */
static void class_dump(buf *s, uint64_t cid, uint64_t super, uint32_t inst_size,
                       uint64_t field_name)
{
    u1(s, 0x20);
    id(s, cid);
    u4(s, 0);
    id(s, super);
    for (int k = 0; k < 5; k++)
        id(s, 0);
    u4(s, inst_size);
    u2(s, 0); /* constant pool */
    u2(s, 0); /* statics */
    u2(s, field_name ? 1 : 0);
    if (field_name) {
        id(s, field_name);
        u1(s, GRAPH_FT_OBJECT);
    }
}

static void instance(buf *s, uint64_t oid, uint64_t cid, uint64_t ref)
{
    u1(s, 0x21);
    id(s, oid);
    u4(s, 0);
    id(s, cid);
    u4(s, IDS);
    id(s, ref);
}

static buf android_dump(void)
{
    IDS = 8;
    buf b = {0};
    put(&b, "JAVA PROFILE 1.0.3", 19);
    u4(&b, 8);
    u8(&b, 1700000000000ull);
    str_rec(&b, 1, "java.lang.Object");
    str_rec(&b, 2, "com.example.Foo");
    str_rec(&b, 3, "app");
    str_rec(&b, 4, "zygote");
    str_rec(&b, 5, "next");
    str_rec(&b, 6, "java.lang.ref.Reference");
    str_rec(&b, 7, "java.lang.ref.WeakReference");
    str_rec(&b, 8, "referent");
    str_rec(&b, 9, "com.example.Foo[]");
    load_class(&b, 1, 0x100, 1);
    load_class(&b, 2, 0x200, 2);
    load_class(&b, 3, 0x300, 6);
    load_class(&b, 4, 0x400, 7);
    load_class(&b, 5, 0x500, 9);
    buf s = {0};
    u1(&s, 0xfe); /* HEAP_DUMP_INFO zygote */
    u4(&s, 'Z');
    id(&s, 4);
    class_dump(&s, 0x100, 0, 0, 0);
    class_dump(&s, 0x300, 0x100, 8, 8);
    class_dump(&s, 0x400, 0x300, 8, 0);
    class_dump(&s, 0x500, 0x100, 0, 0);
    u1(&s, 0xfe); /* HEAP_DUMP_INFO app */
    u4(&s, 'A');
    id(&s, 3);
    class_dump(&s, 0x200, 0x100, 8, 5);
    instance(&s, 0x1000, 0x200, 0x1010);
    instance(&s, 0x1010, 0x200, 0xdead); /* dangling */
    instance(&s, 0x1020, 0x400, 0x1000); /* weak referent */
    u1(&s, 0xc3); /* PRIMITIVE_ARRAY_NODATA int[100] */
    id(&s, 0x2000);
    u4(&s, 0);
    u4(&s, 100);
    u1(&s, GRAPH_FT_INT);
    u1(&s, 0x23); /* byte[3] */
    id(&s, 0x2010);
    u4(&s, 0);
    u4(&s, 3);
    u1(&s, GRAPH_FT_BYTE);
    put(&s, "abc", 3);
    u1(&s, 0x22); /* Foo[3] {0x1000, null, 0x1010} */
    id(&s, 0x3000);
    u4(&s, 0);
    u4(&s, 3);
    id(&s, 0x500);
    id(&s, 0x1000);
    id(&s, 0);
    id(&s, 0x1010);
    u1(&s, 0x05); /* sticky class Foo */
    id(&s, 0x200);
    u1(&s, 0x8d); /* VM internal */
    id(&s, 0x1000);
    u1(&s, 0xff); /* null root */
    id(&s, 0);
    u1(&s, 0x01); /* JNI global to a missing object */
    id(&s, 0xbeef);
    id(&s, 0);
    u1(&s, 0x89); /* interned string root */
    id(&s, 0x2010);
    u1(&s, 0x05); /* repeated sticky class */
    id(&s, 0x200);
    rec(&b, 0x1c, &s);
    buf e = {0};
    rec(&b, 0x2c, &e);
    free(s.p);
    return b;
}

static lr_status load_mem(const uint8_t *p, size_t n, int dump, int no_edges, graph *g,
                          lr_error *e);

/* ---- class indices past 16 bits ---- */

#define MANY_CID(k) (0x100000ull + 16ull * (k))
#define MANY_OID(k) (0x10000000ull + 32ull * (k))
#define MANY_PID(t) (0x20000000ull + 64ull * (t))

/* A HotSpot dump of nc classes C0..C<nc-1>, one instance of each whose `next` field holds the
 * previous class's instance, and one array of each of the 8 primitive types, whose classes
 * the dump lacks, so the reader makes them (indices nc..nc+7). */
static buf many_classes_dump(uint32_t nc)
{
    IDS = 8;
    buf b = {0};
    put(&b, "JAVA PROFILE 1.0.2", 19);
    u4(&b, 8);
    u8(&b, 1700000000000ull);
    str_rec(&b, 1, "next");
    for (uint32_t k = 0; k < nc; k++) {
        char name[24];
        snprintf(name, sizeof name, "C%u", k);
        str_rec(&b, 100 + k, name);
        load_class(&b, k + 1, MANY_CID(k), 100 + k);
    }
    buf s = {0};
    for (uint32_t k = 0; k < nc; k++)
        class_dump(&s, MANY_CID(k), 0, 8, 1);
    for (uint32_t k = 0; k < nc; k++)
        instance(&s, MANY_OID(k), MANY_CID(k), k ? MANY_OID(k - 1) : 0);
    static const uint8_t prims[8] = {GRAPH_FT_BOOLEAN, GRAPH_FT_CHAR, GRAPH_FT_FLOAT,
                                     GRAPH_FT_DOUBLE, GRAPH_FT_BYTE, GRAPH_FT_SHORT,
                                     GRAPH_FT_INT, GRAPH_FT_LONG};
    for (unsigned t = 0; t < 8; t++) {
        u1(&s, 0x23); /* an empty primitive array */
        id(&s, MANY_PID(t));
        u4(&s, 0);
        u4(&s, 0);
        u1(&s, prims[t]);
    }
    rec(&b, 0x1c, &s);
    buf e = {0};
    rec(&b, 0x2c, &e);
    free(s.p);
    return b;
}

/* Checks every node's class in a many_classes_dump graph, loaded with or without edges: each
 * instance's class is the one named for it, class objects have none, each primitive array
 * has its made class. A class index cut to 16 bits would name the wrong class (or none). */
static void many_classes_check(const graph *g, uint32_t nc, int edges)
{
    assert_int_equal(g->n_classes, nc + 8);
    assert_int_equal(g->n_nodes, 2 * nc + 8);
    uint32_t *seen = calloc(g->n_classes, sizeof *seen);
    assert_non_null(seen);
    for (node_ix n = 0; n < g->n_nodes; n++) {
        class_ix c = graph_node_class(g, n);
        if (g->node_kind[n] == GRAPH_KIND_CLASS) {
            assert_int_equal(c, GRAPH_NONE);
            continue;
        }
        assert_true(c < g->n_classes);
        seen[c]++;
        if (g->node_kind[n] == GRAPH_KIND_PRIM_ARRAY) {
            assert_true(c >= nc);
            assert_int_equal(g->classes[c].node, GRAPH_NONE);
            continue;
        }
        assert_int_equal(g->node_kind[n], GRAPH_KIND_INSTANCE);
        assert_true(c < nc);
        if (edges) {
            uint32_t k = (uint32_t)((graph_node_id(g, n) - MANY_OID(0)) / 32);
            char want[24];
            snprintf(want, sizeof want, "C%u", k);
            assert_string_equal(graph_class_name(g, n), want);
            assert_int_equal(g->classes[c].id, MANY_CID(k));
        }
    }
    for (class_ix c = 0; c < g->n_classes; c++)
        assert_int_equal(seen[c], 1);
    free(seen);
    if (edges) { /* the last instance's `next` reaches the one of C<nc-2> */
        node_ix last = graph_find_id(g, MANY_OID(nc - 1));
        assert_int_not_equal(last, GRAPH_NONE);
        assert_int_equal(g->first_edge[last + 1] - g->first_edge[last], 1);
        node_ix to = g->edge_to[g->first_edge[last]];
        assert_int_equal(graph_node_id(g, to), MANY_OID(nc - 2));
        assert_int_equal(graph_node_class(g, to), graph_node_class(g, last) - 1);
    }
}

/* The 16-bit class array holds indices up to 65,534 (stored plus one, 0 is "none"): a dump whose
 * classes, the 8 made for primitive arrays included, number 65,535 keeps it; one more class
 * and the reader keeps 32-bit classes, as for 70,000. */
static void many_classes(void **state)
{
    (void)state;
    static const uint32_t ncs[3] = {65527, 65528, 70000};
    for (unsigned i = 0; i < 3; i++) {
        buf b = many_classes_dump(ncs[i]);
        for (int edges = 0; edges < 2; edges++) {
            graph g;
            lr_error e = {0};
            assert_int_equal(load_mem(b.p, b.n, -1, !edges, &g, &e), LR_OK);
            if (i == 0) {
                assert_non_null(g.node_class16);
                assert_null(g.node_class);
            } else {
                assert_null(g.node_class16);
                assert_non_null(g.node_class);
            }
            many_classes_check(&g, ncs[i], edges);
            graph_fini(&g);
        }
        free(b.p);
    }
}

static lr_status load_mem(const uint8_t *p, size_t n, int dump, int no_edges, graph *g,
                          lr_error *e)
{
    mfile m;
    graph_init(g);
    g->path = strdup("mem.hprof");
    lr_status st = mfile_from_memory(&m, p, n, 0, "mem.hprof", e);
    if (st != LR_OK)
        return st;
    const fmt_reader *r = fmt_find(m.data, m.len);
    if (!r) {
        mfile_close(&m);
        return LR_CORRUPT(e, "mem.hprof", 0, "unknown format");
    }
    fmt_opts o = {.dump_index = dump, .no_edges = no_edges};
    st = r->load(g, &m, &o, e);
    /* Plain input is not copied: g->data (which ids, sizes and edge names are read back
     * from) stays the caller's buffer, valid while the caller keeps it. */
    mfile_close(&m);
    return st;
}

static node_ix by_id(const graph *g, uint64_t want)
{
    node_ix n = graph_find_id(g, want);
    assert_int_not_equal(n, GRAPH_NONE);
    return n;
}

/* ---- pass 2 on two threads ---- */

/* Every field of two graphs of the same dump, the second loaded with pass 2 split. */
static void same_graph(const char *name, const graph *a, const graph *b)
{
    assert_int_equal(a->n_nodes, b->n_nodes);
    assert_int_equal(a->n_edges, b->n_edges);
    assert_int_equal(a->n_roots, b->n_roots);
    assert_int_equal(a->n_classes, b->n_classes);
    assert_int_equal(a->n_threads, b->n_threads);
    assert_int_equal(a->n_heaps, b->n_heaps);
    for (unsigned k = 0; k < DIAG_COUNT; k++)
        if (a->diag.n[k] != b->diag.n[k])
            fail_msg("%s: diagnostic %u: %llu sequential, %llu split", name, k,
                     (unsigned long long)a->diag.n[k], (unsigned long long)b->diag.n[k]);
    for (class_ix c = 0; c < a->n_classes; c++) {
        assert_string_equal(graph_str(a, a->classes[c].name), graph_str(b, b->classes[c].name));
        assert_int_equal(a->classes[c].node, b->classes[c].node);
    }
    for (node_ix i = 0; i < a->n_nodes; i++) {
        if (graph_node_class(a, i) != graph_node_class(b, i) ||
            a->node_kind[i] != b->node_kind[i] ||
            graph_node_id(a, i) != graph_node_id(b, i) ||
            graph_node_size(a, i) != graph_node_size(b, i) ||
            graph_node_len(a, i) != graph_node_len(b, i) ||
            graph_node_off(a, i) != graph_node_off(b, i) ||
            (a->node_heap && a->node_heap[i] != b->node_heap[i]) ||
            a->first_edge[i] != b->first_edge[i])
            fail_msg("%s: node %u differs", name, i);
    }
    for (edge_ix e = 0; e < a->n_edges; e++)
        if (a->edge_to[e] != b->edge_to[e] || a->edge_kind[e] != b->edge_kind[e])
            fail_msg("%s: edge %u differs", name, e);
    assert_memory_equal(a->roots, b->roots, (size_t)a->n_roots * sizeof *a->roots);
    assert_true(a->shallow_known && b->shallow_known);
    assert_int_equal(a->shallow_total, b->shallow_total);
}

/* Passes 1 and 2 split at half the dump (hprof_split_min_bytes lowered: the fixtures are
 * smaller than the default) give the graph one sequential pass gives, field for field, on
 * dumps with one HEAP_DUMP record (pass 1 whole) and with many segments (pass 1 split too),
 * HotSpot and Android (heaps: the second half meets a HEAP_DUMP_INFO and is walked again).
 * The split load packs its record offsets on two threads too (hprof_pack_split_min). The
 * sequential load reads its arrays' lengths back from their records (hprof_arr_table
 * off), the split one and a third, sequential, take them from pass 2's table: every node's
 * size and length are compared. */
static void split_pass2(void **state)
{
    (void)state;
    NEED_FIXTURES();
    static const char *const names[] = {"sun_jdk6_18_x32.hprof", "oracle_jdk8_05_x64.hprof",
                                        "test-dump.hprof", "dialer.android-hprof",
                                        "oracle_jdk7_21_hprofagent.hprof",
                                        "openjdk_jdk11_04_x64.hprof.gz"};
    /* several heap dump records, one starting past half the dump */
    static const unsigned segmented[] = {0, 0, 1, 1, 0, 0};
    uint64_t saved = hprof_split_min_bytes;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        hprof_split_min_bytes = UINT64_MAX;
        unsigned tables = hprof_arr_tables;
        lr_heap *tab = open_fixture(names[k], -1, 0);
        if (hprof_arr_tables != tables + 1)
            fail_msg("%s: no table of array lengths", names[k]);
        unsigned before = hprof_splits, before1 = hprof_pass1_splits;
        hprof_arr_table = 0;
        lr_heap *seq = open_fixture(names[k], -1, 0);
        hprof_arr_table = 1;
        assert_int_equal(hprof_arr_tables, tables + 1);
        assert_int_equal(hprof_splits, before);
        assert_int_equal(hprof_pass1_splits, before1);
        same_graph(names[k], lr_heap_graph(seq), lr_heap_graph(tab));
        lr_close(tab);
        hprof_split_min_bytes = 1;
        hprof_pack_split_min = 1;
        lr_heap *two = open_fixture(names[k], -1, 0);
        hprof_split_min_bytes = saved;
        hprof_pack_split_min = HPROF_PACK_SPLIT_MIN;
        if (hprof_splits != before + 1)
            fail_msg("%s: pass 2 did not split", names[k]);
        if (hprof_arr_tables != tables + 2)
            fail_msg("%s: no table of array lengths after a split pass 2", names[k]);
        if (hprof_pass1_splits != before1 + segmented[k])
            fail_msg("%s: pass 1 split %u times", names[k], hprof_pass1_splits - before1);
        same_graph(names[k], lr_heap_graph(seq), lr_heap_graph(two));
        lr_close(seq);
        lr_close(two);
    }
    /* The hand-built Android dump: the second half starts in another heap than the first. */
    buf b = android_dump();
    graph ga, gb;
    lr_error e = {0};
    hprof_split_min_bytes = UINT64_MAX;
    assert_int_equal(load_mem(b.p, b.n, -1, 0, &ga, &e), LR_OK);
    hprof_split_min_bytes = 1;
    unsigned before = hprof_splits;
    assert_int_equal(load_mem(b.p, b.n, -1, 0, &gb, &e), LR_OK);
    hprof_split_min_bytes = saved;
    assert_int_equal(hprof_splits, before + 1);
    same_graph("android_dump", &ga, &gb);
    graph_fini(&ga);
    graph_fini(&gb);
    free(b.p);
}

/* The start of a HotSpot dump (8-byte ids) of classes cids[0..nc), named K0.., each with
 * one object field `next`: the header, strings and LOAD_CLASS records into *b, the class
 * dumps with a sticky-class root each into the heap dump body *s. */
static void next_classes(buf *b, buf *s, const uint64_t *cids, uint32_t nc)
{
    IDS = 8;
    put(b, "JAVA PROFILE 1.0.2", 19);
    u4(b, 8);
    u8(b, 1700000000000ull);
    str_rec(b, 1, "next");
    for (uint32_t k = 0; k < nc; k++) {
        char name[24];
        snprintf(name, sizeof name, "K%u", k);
        str_rec(b, 100 + k, name);
        load_class(b, k + 1, cids[k], 100 + k);
    }
    for (uint32_t k = 0; k < nc; k++) {
        class_dump(s, cids[k], 0, 8, 1);
        u1(s, 0x05); /* ROOT_STICKY_CLASS */
        id(s, cids[k]);
    }
}

/* A dump for the edge walk's chunks: 300,000 instances of three classes whose nodes fall
 * among the objects', each referring to the one before, every fifth null, every thirteenth
 * short (no field bytes) and, with dangle, every eleventh to no object; every thousandth
 * object an Object[3] {previous, null, previous but one}. */
static buf chunks_dump(int dangle)
{
    enum { NC = 3, N = 300000 };
    uint64_t cids[NC];
    for (uint32_t c = 0; c < NC; c++)
        cids[c] = 0x100000 + 32ull * (100000u * c + 50000u) + 16;
    buf b = {0}, s = {0};
    next_classes(&b, &s, cids, NC);
    for (uint32_t k = 0; k < N; k++) {
        uint64_t oid = 0x100000 + 32ull * k, prev = oid - 32;
        if (k % 1000 == 999) {
            u1(&s, 0x22);
            id(&s, oid);
            u4(&s, 0);
            u4(&s, 3);
            id(&s, cids[0]);
            id(&s, prev);
            id(&s, 0);
            id(&s, prev - 32);
            continue;
        }
        if (k % 13 == 7) {
            u1(&s, 0x21);
            id(&s, oid);
            u4(&s, 0);
            id(&s, cids[k % NC]);
            u4(&s, 0);
            continue;
        }
        instance(&s, oid, cids[k % NC], k % 5 == 0 ? 0 : dangle && k % 11 == 0 ? 0x8 : prev);
    }
    rec(&b, 0x1c, &s);
    buf e0 = {0};
    rec(&b, 0x2c, &e0);
    free(s.p);
    return b;
}

/* The edge walk cut in chunks and walked backward (a dump larger than half the memory
 * available: hprof_edges_back_min lowered) gives the edges one sequential walk gives, and so
 * do two forward halves. Backward, pass 2's census counts the non-null slots: with no
 * dangling id no chunk's range moves; with them the ranges close their gaps. */
static void edges_backward(void **state)
{
    (void)state;
    for (int dangle = 0; dangle < 2; dangle++) {
        buf b = chunks_dump(dangle);
        graph one, fwd, back;
        lr_error e = {0};
        unsigned backs = hprof_edges_backward;
        hprof_edge_split_min = UINT32_MAX;
        hprof_edges_back_min = UINT64_MAX;
        assert_int_equal(load_mem(b.p, b.n, -1, 0, &one, &e), LR_OK);
        assert_int_equal(hprof_edges_last_chunks, 1);
        hprof_edge_split_min = 100000;
        assert_int_equal(load_mem(b.p, b.n, -1, 0, &fwd, &e), LR_OK);
        assert_int_equal(hprof_edges_last_chunks, 2);
        assert_int_equal(hprof_edges_backward, backs);
        hprof_edges_back_min = 1;
        hprof_edge_chunks = 4;
        assert_int_equal(load_mem(b.p, b.n, -1, 0, &back, &e), LR_OK);
        hprof_edges_back_min = 0;
        hprof_edge_chunks = 0;
        assert_int_equal(hprof_edges_backward, backs + 1);
        assert_true(hprof_edges_last_chunks >= 3);
        if (dangle)
            assert_true(hprof_edges_moved > 0);
        else
            assert_int_equal(hprof_edges_moved, 0);
        uint32_t dangling = 0;
        for (uint32_t k = 1; dangle && k < 300000; k++)
            dangling += k % 1000 != 999 && k % 13 != 7 && k % 5 != 0 && k % 11 == 0;
        assert_int_equal(one.diag.n[DIAG_DANGLING_REFERENCE], dangling);
        same_graph(dangle ? "edges forward, dangling" : "edges forward", &one, &fwd);
        same_graph(dangle ? "edges backward, dangling" : "edges backward", &one, &back);
        graph_fini(&one);
        graph_fini(&fwd);
        graph_fini(&back);
        free(b.p);
    }
}

/* ---- ids while loading: the scan in pass 2, the class-node merge, the index ---- */

/* A HotSpot dump of classes cids[0..nc) (each with one object field `next`, written in that
 * order) and instances oids[0..n) written in that order: instance k of class k % nc, whose
 * `next` holds instance k - 1's id. One HEAP_DUMP_SEGMENT per `per` instances (0: one). */
static buf ids_dump(const uint64_t *cids, uint32_t nc, const uint64_t *oids, uint32_t n,
                    uint32_t per)
{
    buf b = {0}, s = {0};
    next_classes(&b, &s, cids, nc);
    for (uint32_t k = 0; k < n; k++) {
        instance(&s, oids[k], cids[k % nc], k ? oids[k - 1] : 0);
        if (per && (k + 1) % per == 0 && k + 1 < n) {
            rec(&b, 0x1c, &s);
            s.n = 0;
        }
    }
    rec(&b, 0x1c, &s);
    buf e = {0};
    rec(&b, 0x2c, &e);
    free(s.p);
    return b;
}

/* Every node of an ids_dump graph: class nodes hold their class's id (read back from the
 * record the merge moved), instances their class and `next`; every id finds the first node
 * in node order holding it; with sorted set, node order is id order. */
static void ids_check(const char *what, const graph *g, const uint64_t *cids, uint32_t nc,
                      const uint64_t *oids, uint32_t n, int sorted)
{
    assert_int_equal(g->n_nodes, nc + n);
    for (class_ix c = 0; c < nc; c++) {
        node_ix cn = g->classes[c].node;
        assert_true(cn < g->n_nodes);
        assert_int_equal(g->node_kind[cn], GRAPH_KIND_CLASS);
        assert_int_equal(graph_node_class(g, cn), GRAPH_NONE);
        if (graph_node_id(g, cn) != cids[c])
            fail_msg("%s: class %u's node %u holds id 0x%llx", what, c, cn,
                     (unsigned long long)graph_node_id(g, cn));
    }
    uint32_t inst = 0;
    for (node_ix i = 0; i < g->n_nodes; i++) {
        uint64_t v = graph_node_id(g, i);
        if (sorted && i && v < graph_node_id(g, i - 1))
            fail_msg("%s: node %u's id is below node %u's", what, i, i - 1);
        node_ix f = graph_find_id(g, v);
        if (f > i || graph_node_id(g, f) != v)
            fail_msg("%s: id 0x%llx finds node %u, not the first of node %u", what,
                     (unsigned long long)v, f, i);
        for (node_ix j = 0; j < f; j++)
            if (graph_node_id(g, j) == v)
                fail_msg("%s: id 0x%llx finds node %u, not %u", what, (unsigned long long)v,
                         f, j);
        inst += g->node_kind[i] == GRAPH_KIND_INSTANCE;
    }
    assert_int_equal(inst, n);
    for (uint32_t k = 0; k < n; k++) {
        node_ix o = graph_find_id(g, oids[k]);
        if (o == GRAPH_NONE || g->node_kind[o] != GRAPH_KIND_INSTANCE)
            continue; /* an id a class object holds too, found first: checked above */
        uint32_t j = 0;
        while (j < k && oids[j] != oids[k])
            j++;
        if (j < k)
            continue; /* a repeated object id finds the first */
        char want[24];
        snprintf(want, sizeof want, "K%u", k % nc);
        assert_string_equal(graph_class_name(g, o), want);
        uint32_t ne = g->first_edge[o + 1] - g->first_edge[o];
        if (k == 0) {
            assert_int_equal(ne, 0);
            continue;
        }
        assert_int_equal(ne, 1);
        assert_int_equal(g->edge_to[g->first_edge[o]], graph_find_id(g, oids[k - 1]));
    }
}

/* Loads an ids_dump sequentially and with passes 1 and 2 split, checks both (ids_check) and
 * that they are the same graph; returns the duplicate-id count. */
static uint64_t ids_case(const char *what, const uint64_t *cids, uint32_t nc,
                         const uint64_t *oids, uint32_t n, int sorted, graph *out, buf *keep)
{
    buf b = ids_dump(cids, nc, oids, n, n / 7 + 1);
    *keep = b; /* ids are read back from it: it outlives the graph */
    uint64_t saved = hprof_split_min_bytes;
    graph g2;
    lr_error e = {0};
    hprof_split_min_bytes = UINT64_MAX;
    assert_int_equal(load_mem(b.p, b.n, -1, 0, out, &e), LR_OK);
    hprof_split_min_bytes = 1;
    unsigned before = hprof_splits;
    assert_int_equal(load_mem(b.p, b.n, -1, 0, &g2, &e), LR_OK);
    hprof_split_min_bytes = saved;
    assert_int_equal(hprof_splits, before + 1);
    ids_check(what, out, cids, nc, oids, n, sorted);
    ids_check(what, &g2, cids, nc, oids, n, sorted);
    same_graph(what, out, &g2);
    assert_int_equal(out->ids_sorted, sorted);
    /* ids are read back from the records once loaded (a directory's copy is freed) */
    assert_null(out->node_id);
    assert_null(g2.node_id);
    graph_fini(&g2);
    return out->diag.n[DIAG_DUPLICATE_ID];
}

static void ids_done(graph *g, buf *keep)
{
    graph_fini(g);
    free(keep->p);
}

/* Without an id kept per node while loading: class objects merged among ascending objects
 * (below all, between two, equal to an object's id and so after it, above all, two in one
 * gap), the index built from pass 2's scan; objects in runs of ascending ids (the run table),
 * in descending order (too many runs: the permutation), and sparse (no rank index: the
 * directory searches ids read back from the records). */
static void load_ids(void **state)
{
    (void)state;
    enum { N = 3000 };
    static uint64_t oids[N];
    for (uint32_t k = 0; k < N; k++)
        oids[k] = 0x100000 + 16ull * k;
    graph g;
    buf kb;
    /* merged: below, equal to instance 5's id, two between 9 and 10, above, past 700 */
    const uint64_t cm[6] = {0x9000,           0x100000 + 16 * 5,          0x100000 + 16 * 9 + 8,
                            0x100000 + 16 * 9 + 4, 0x100000 + 16ull * N + 64,
                            0x100000 + 16 * 700 + 12};
    assert_int_equal(ids_case("merged", cm, 6, oids, N, 1, &g, &kb), 1);
    assert_null(g.id_blk); /* a repeated id: the directory answers */
    assert_int_equal(g.node_kind[graph_find_id(&g, cm[1])], GRAPH_KIND_INSTANCE);
    assert_int_equal(g.classes[1].node, graph_find_id(&g, cm[1]) + 1); /* after the object */
    ids_done(&g, &kb);
    const uint64_t cu[3] = {0x9000, 0x100000 + 16ull * N + 64, 0x100000 + 16 * 9 + 8};
    assert_int_equal(ids_case("merged unique", cu, 3, oids, N, 1, &g, &kb), 0);
    assert_non_null(g.id_blk);
    assert_int_equal(g.classes[0].node, 0);
    assert_int_equal(g.classes[1].node, N + 2);
    assert_int_equal(g.classes[2].node, 11); /* after instances 0..9 and class 0 */
    ids_done(&g, &kb);
    /* runs: three regions written high, low, middle; classes first (not merged), the last
     * one above the first object */
    static uint64_t runs[N];
    for (uint32_t k = 0; k < N; k++)
        runs[k] = oids[(k + 2 * N / 3) % N];
    const uint64_t cr[3] = {0x9000, 0x100000 + 16 * 9 + 8, 0x100000 + 16ull * N + 64};
    assert_int_equal(ids_case("runs", cr, 3, runs, N, 0, &g, &kb), 0);
    assert_non_null(g.id_blk);
    assert_int_equal(g.id_seg_n, 6); /* K0, objects 0-9, K1, objects 10-1999, 2000-, K2 */
    assert_null(g.id_sorted);
    ids_done(&g, &kb);
    /* descending: a run per object, more than the scan keeps */
    static uint64_t down[N];
    for (uint32_t k = 0; k < N; k++)
        down[k] = oids[N - 1 - k];
    assert_int_equal(ids_case("descending", cu, 3, down, N, 0, &g, &kb), 0);
    assert_non_null(g.id_blk);
    assert_non_null(g.id_sorted);
    ids_done(&g, &kb);
    /* sparse, with a repeated object id: the directory over ids read back */
    static uint64_t sparse[N];
    for (uint32_t k = 0; k < N; k++)
        sparse[k] = 0x100000 + (k * k * 2654435761ull % 1000003ull) * 4096;
    sparse[N / 2] = sparse[N / 3];
    assert_int_equal(ids_case("sparse", cu, 3, sparse, N, 0, &g, &kb), 1);
    assert_null(g.id_blk);
    assert_non_null(g.id_dir);
    ids_done(&g, &kb);
}

/* Offsets of the first byte of every non-empty HEAP_DUMP / HEAP_DUMP_SEGMENT body. */
static size_t segment_bodies(const uint8_t *d, size_t n, uint64_t *out, size_t cap)
{
    size_t pos = strlen((const char *)d) + 1 + 12, k = 0;
    while (pos + 9 <= n) {
        uint32_t len = (uint32_t)d[pos + 5] << 24 | (uint32_t)d[pos + 6] << 16 |
                       (uint32_t)d[pos + 7] << 8 | d[pos + 8];
        if ((d[pos] == 0x0c || d[pos] == 0x1c) && len && k < cap)
            out[k++] = pos + 9;
        pos += 9 + (size_t)len;
    }
    return k;
}

/* A bad sub-record in the second half of a split pass 1 is reported as one walk reports it
 * (same status, offset and message); with a bad one in the first half too, the first half's
 * wins, as in file order. */
static void split_pass1_errors(void **state)
{
    (void)state;
    NEED_FIXTURES();
    char p[4200];
    snprintf(p, sizeof p, "%s/hprof/test-dump.hprof", fixdir);
    mfile m;
    lr_error e = {0};
    assert_int_equal(mfile_open(&m, p, 0, &e), LR_OK);
    uint8_t *b = malloc(m.len);
    assert_non_null(b);
    memcpy(b, m.data, m.len);
    static uint64_t segs[4096];
    size_t ns = segment_bodies(b, m.len, segs, 4096);
    assert_true(ns > 100);
    uint64_t late = segs[ns - 2], early = segs[1];
    assert_true(late > m.len / 2 && early < m.len / 2);
    uint64_t saved = hprof_split_min_bytes;
    for (int both = 0; both < 2; both++) {
        b[late] = 0x77;
        if (both)
            b[early] = 0x77;
        graph ga, gb;
        lr_error ea = {0}, eb = {0};
        hprof_split_min_bytes = UINT64_MAX;
        lr_status sa = load_mem(b, m.len, -1, 0, &ga, &ea);
        hprof_split_min_bytes = 1;
        unsigned before1 = hprof_pass1_splits;
        lr_status sb = load_mem(b, m.len, -1, 0, &gb, &eb);
        hprof_split_min_bytes = saved;
        assert_int_equal(hprof_pass1_splits, before1 + 1);
        assert_int_equal(sa, LR_ERR_FORMAT);
        assert_int_equal(sb, sa);
        assert_int_equal(ea.offset, both ? early : late);
        assert_int_equal(eb.offset, ea.offset);
        assert_string_equal(eb.msg, ea.msg);
        assert_non_null(strstr(eb.msg, "unknown heap dump sub-record tag 0x77"));
        graph_fini(&ga);
        graph_fini(&gb);
    }
    free(b);
    mfile_close(&m);
}

static void android_handmade(void **state)
{
    (void)state;
    buf b = android_dump();
    graph g;
    lr_error e = {0};
    assert_int_equal(load_mem(b.p, b.n, -1, 0, &g, &e), LR_OK);
    assert_int_equal(g.id_size, 8);
    assert_int_equal(g.size_model, GRAPH_SIZES_SHARK);
    assert_string_equal(g.version, "JAVA PROFILE 1.0.3");
    assert_int_equal(g.n_nodes, 11);
    assert_int_equal(g.n_classes, 7); /* 5 dumped + synthetic int[] and byte[] */
    assert_int_equal(g.n_heaps, 2);
    assert_non_null(g.node_heap);
    node_ix foo1 = by_id(&g, 0x1000), foo2 = by_id(&g, 0x1010), wr = by_id(&g, 0x1020);
    node_ix nodata = by_id(&g, 0x2000), bytes = by_id(&g, 0x2010), arr = by_id(&g, 0x3000);
    node_ix objcls = by_id(&g, 0x100), foocls = by_id(&g, 0x200);
    assert_string_equal(graph_str(&g, g.heap_names[g.node_heap[objcls]]), "zygote");
    assert_string_equal(graph_str(&g, g.heap_names[g.node_heap[foocls]]), "app");
    assert_string_equal(graph_str(&g, g.heap_names[g.node_heap[foo1]]), "app");
    assert_string_equal(graph_class_name(&g, nodata), "int[]");
    assert_string_equal(graph_class_name(&g, bytes), "byte[]");
    assert_string_equal(graph_class_name(&g, arr), "com.example.Foo[]");
    assert_int_equal(g.classes[graph_node_class(&g, nodata)].node, GRAPH_NONE);
    assert_int_equal(g.node_kind[nodata], GRAPH_KIND_PRIM_ARRAY);
    assert_int_equal(graph_node_len(&g, nodata), 100);
    assert_true(graph_node_off(&g, nodata) == UINT64_MAX);
    assert_string_equal(g.type_names[g.node_type[arr]], "object array");
    /* Shark sizes. */
    assert_int_equal(graph_node_size(&g, foo1), 8);
    assert_int_equal(graph_node_size(&g, nodata), 400);
    assert_int_equal(graph_node_size(&g, bytes), 3);
    assert_int_equal(graph_node_size(&g, arr), 24);
    /* Edges. */
    assert_int_equal(g.first_edge[g.n_nodes], g.n_edges);
    assert_int_equal(g.first_edge[foo1 + 1] - g.first_edge[foo1], 1);
    assert_int_equal(g.edge_to[g.first_edge[foo1]], foo2);
    assert_string_equal(graph_str(&g, graph_edge_name(&g, g.first_edge[foo1])), "next");
    assert_int_equal(g.first_edge[foo2 + 1] - g.first_edge[foo2], 0);
    assert_int_equal(g.edge_to[g.first_edge[wr]], foo1);
    assert_int_equal(g.edge_kind[g.first_edge[wr]], GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_WEAK));
    assert_int_equal(g.first_edge[arr + 1] - g.first_edge[arr], 2);
    assert_int_equal(graph_edge_name(&g, g.first_edge[arr] + 1), 2);
    assert_int_equal(g.edge_to[g.first_edge[arr] + 1], foo2);
    assert_string_equal(graph_str(&g, graph_edge_name(&g, g.first_edge[foocls])), "<super>");
    assert_int_equal(g.edge_to[g.first_edge[foocls]], objcls);
    /* Diagnostics and roots. */
    assert_int_equal(g.diag.n[DIAG_DANGLING_REFERENCE], 1);
    assert_int_equal(g.diag.n[DIAG_PRIM_ARRAY_NODATA], 1);
    assert_int_equal(g.diag.n[DIAG_NULL_ROOT], 1);
    assert_int_equal(g.diag.n[DIAG_DANGLING_ROOT], 1);
    assert_int_equal(g.diag.n[DIAG_DUPLICATE_ROOT], 1);
    assert_int_equal(g.diag.n[DIAG_EXTRA_DUMPS], 0);
    assert_int_equal(g.n_roots, 4); /* the repeated sticky root stays, counted */
    assert_int_equal(g.roots[0].node, foocls);
    assert_int_equal(g.roots[0].kind, GRAPH_ROOT_STICKY_CLASS);
    assert_int_equal(g.roots[1].kind, GRAPH_ROOT_VM_INTERNAL);
    assert_int_equal(g.roots[2].kind, GRAPH_ROOT_INTERNED_STRING);
    assert_int_equal(g.roots[3].kind, GRAPH_ROOT_STICKY_CLASS);
    assert_int_equal(g.roots[3].node, foocls);
    assert_int_equal(g.classes[graph_node_class(&g, wr)].ref_strength, GRAPH_WEAK);
    graph_fini(&g);

    /* no_edges: same sizes and classes, no edges. */
    memset(&e, 0, sizeof e);
    assert_int_equal(load_mem(b.p, b.n, -1, 1, &g, &e), LR_OK);
    assert_int_equal(g.n_nodes, 11);
    assert_int_equal(g.n_edges, 0);
    uint64_t tot = 0;
    for (uint32_t i = 0; i < g.n_nodes; i++)
        if (g.node_kind[i] != GRAPH_KIND_CLASS)
            tot += graph_node_size(&g, i);
    assert_int_equal(tot, 8 + 8 + 8 + 400 + 3 + 24);
    graph_fini(&g);

    /* Truncation at every offset: never a crash; a cut at a record boundary is a valid
     * shorter file, any other cut is TRUNCATED/FORMAT with an offset inside the bytes. */
    for (size_t cut = 0; cut < b.n; cut++) {
        memset(&e, 0, sizeof e);
        lr_status st = load_mem(b.p, cut, -1, 0, &g, &e);
        if (st != LR_OK) {
            if (st != LR_ERR_TRUNCATED && st != LR_ERR_FORMAT)
                fail_msg("cut %zu: status %d (%s)", cut, st, e.msg);
            assert_true(e.offset <= cut);
            assert_non_null(strstr(e.msg, "mem.hprof: offset 0x"));
        }
        graph_fini(&g);
    }
    free(b.p);
}

/* ---- compression ---- */

static void gzip_bzip2_memory(void **state)
{
    (void)state;
    buf b = android_dump();
    /* gzip */
    uLongf zn = compressBound(b.n) + 64;
    uint8_t *z = malloc(zn + 32);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = b.p;
    zs.avail_in = (uInt)b.n;
    zs.next_out = z;
    zs.avail_out = (uInt)zn;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t gzn = zs.total_out;
    deflateEnd(&zs);
    mfile m;
    lr_error e = {0};
    assert_int_equal(mfile_from_memory(&m, z, gzn, 0, "x.gz", &e), LR_OK);
    assert_int_equal(m.compression, MFILE_GZIP);
    assert_int_equal(m.len, b.n);
    assert_memory_equal(m.data, b.p, b.n);
    mfile_close(&m);
    /* cap below the inflated size */
    memset(&e, 0, sizeof e);
    assert_int_equal(mfile_from_memory(&m, z, gzn, 100, "x.gz", &e), LR_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "inflated size exceeds --max-inflate (100 bytes)"));
    /* truncated stream */
    memset(&e, 0, sizeof e);
    assert_int_equal(mfile_from_memory(&m, z, gzn / 2, 0, "x.gz", &e), LR_ERR_TRUNCATED);
    /* corrupt stream */
    memset(&e, 0, sizeof e);
    z[gzn / 2] ^= 0xff;
    z[gzn / 2 + 1] ^= 0x55;
    lr_status st = mfile_from_memory(&m, z, gzn, 0, "x.gz", &e);
    assert_true(st == LR_ERR_FORMAT);
    assert_true(e.offset != LR_NO_OFFSET && e.offset <= gzn);
    free(z);

    /* bzip2 */
    unsigned bn = (unsigned)(b.n * 2 + 600);
    char *bz = malloc(bn);
    assert_int_equal(BZ2_bzBuffToBuffCompress(bz, &bn, (char *)b.p, (unsigned)b.n, 9, 0, 0), BZ_OK);
    memset(&e, 0, sizeof e);
    assert_int_equal(mfile_from_memory(&m, (uint8_t *)bz, bn, 0, "x.bz2", &e), LR_OK);
    assert_int_equal(m.compression, MFILE_BZIP2);
    assert_int_equal(m.len, b.n);
    assert_memory_equal(m.data, b.p, b.n);
    mfile_close(&m);
    memset(&e, 0, sizeof e);
    assert_int_equal(mfile_from_memory(&m, (uint8_t *)bz, bn, 50, "x.bz2", &e), LR_ERR_LIMIT);
    memset(&e, 0, sizeof e);
    assert_int_equal(mfile_from_memory(&m, (uint8_t *)bz, bn - 10, 0, "x.bz2", &e),
                     LR_ERR_TRUNCATED);
    memset(&e, 0, sizeof e);
    bz[bn / 2] ^= 0xff;
    st = mfile_from_memory(&m, (uint8_t *)bz, bn, 0, "x.bz2", &e);
    assert_true(st == LR_ERR_FORMAT || st == LR_ERR_TRUNCATED);
    free(bz);
    free(b.p);
}

static void inflate_cap_fixture(void **state)
{
    (void)state;
    NEED_FIXTURES();
    char p[4200];
    snprintf(p, sizeof p, "%s/hprof/java_pid1884.0001.hprof.gz", fixdir);
    lr_open_opts o = {.max_inflate = 10u << 20, .dump_index = -1};
    lr_heap *h = NULL;
    lr_error e = {0};
    assert_int_equal(lr_open(p, &o, &h, &e), LR_ERR_LIMIT);
    assert_null(h);
    assert_non_null(strstr(e.msg, "inflated size exceeds --max-inflate (10,485,760 bytes)"));
}

/* ---- multiple dumps ---- */

static void two_dumps(void **state)
{
    (void)state;
    NEED_FIXTURES();
    char p[4200];
    snprintf(p, sizeof p, "%s/hprof/oracle_jdk7_21_hprofagent.hprof", fixdir);
    mfile m;
    lr_error e = {0};
    assert_int_equal(mfile_open(&m, p, 0, &e), LR_OK);
    hprof_dump d[4];
    uint32_t nd = 0;
    assert_int_equal(hprof_list_dumps(&m, p, d, 4, &nd, &e), LR_OK);
    assert_int_equal(nd, 2);
    assert_true(d[0].offset + d[0].length <= d[1].offset);
    assert_int_equal(d[0].n_records, 1);
    mfile_close(&m);
    uint32_t counts[3];
    for (int k = 0; k < 3; k++) {
        lr_heap *h = open_fixture("oracle_jdk7_21_hprofagent.hprof", k == 2 ? -1 : k, 0);
        const graph *g = lr_heap_graph(h);
        counts[k] = g->n_nodes;
        assert_int_equal(g->diag.n[DIAG_EXTRA_DUMPS], 1);
        lr_close(h);
    }
    assert_int_equal(counts[0], 3632);
    assert_int_equal(counts[1], 3665);
    assert_int_equal(counts[2], counts[1]); /* default: the last dump */
    lr_open_opts o = {.dump_index = 2};
    lr_heap *h = NULL;
    memset(&e, 0, sizeof e);
    assert_int_equal(lr_open(p, &o, &h, &e), LR_ERR_NOT_FOUND);
}

/* ---- truncation of a real dump ---- */

static void truncated_fixture(void **state)
{
    (void)state;
    NEED_FIXTURES();
    char p[4200];
    snprintf(p, sizeof p, "%s/hprof/hprof-32.bin", fixdir);
    mfile m;
    lr_error e = {0};
    assert_int_equal(mfile_open(&m, p, 0, &e), LR_OK);
    uint64_t cuts[80];
    size_t nc = 0;
    for (uint64_t c = 0; c < 20; c++)
        cuts[nc++] = c;
    for (int k = 1; k < 60; k++)
        cuts[nc++] = m.len * (uint64_t)k / 60 + (uint64_t)k % 7;
    for (size_t k = 0; k < nc; k++) {
        graph g;
        memset(&e, 0, sizeof e);
        lr_status st = load_mem(m.data, cuts[k], -1, 0, &g, &e);
        if (cuts[k] == 0) {
            assert_int_equal(st, LR_ERR_FORMAT); /* no reader recognises 0 bytes */
        } else {
            if (st != LR_ERR_TRUNCATED && st != LR_ERR_FORMAT)
                fail_msg("cut at %llu: status %d %s", (unsigned long long)cuts[k], st, e.msg);
            assert_true(e.offset <= cuts[k]);
            assert_non_null(strstr(e.msg, "mem.hprof: offset 0x"));
        }
        graph_fini(&g);
    }
    /* A file missing only its trailing HEAP_DUMP_END-free tail still loads up to a record end:
     * the full file is fine. */
    graph g;
    memset(&e, 0, sizeof e);
    assert_int_equal(load_mem(m.data, m.len, -1, 0, &g, &e), LR_OK);
    graph_fini(&g);
    mfile_close(&m);
}

static void not_hprof(void **state)
{
    (void)state;
    lr_error e = {0};
    lr_heap *h = NULL;
    assert_int_equal(lr_open("/nonexistent/x.hprof", NULL, &h, &e), LR_ERR_IO);
    uint8_t bad[40] = "JAVA PROFILE 1.0.2";
    bad[22] = 5; /* identifier size 5 */
    graph g;
    memset(&e, 0, sizeof e);
    assert_int_equal(load_mem(bad, 31, -1, 0, &g, &e), LR_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "identifier size"));
    graph_fini(&g);
}

int main(void)
{
    tf_init();
    const char *src = getenv("LEAKRAY_SRC");
    snprintf(golddir, sizeof golddir, "%s/tests/e2e/expected/visualvm", src ? src : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(android_handmade),
        cmocka_unit_test(many_classes),
        cmocka_unit_test(load_ids),
        cmocka_unit_test(gzip_bzip2_memory),
        cmocka_unit_test(not_hprof),
        cmocka_unit_test(histo_ri),
        cmocka_unit_test(histo_example_bz2),
        cmocka_unit_test(histo_hprof32),
        cmocka_unit_test(histo_jdk11_gz),
        cmocka_unit_test(histo_jdk7_agent),
        cmocka_unit_test(histo_jdk8),
        cmocka_unit_test(histo_jdk5_32),
        cmocka_unit_test(histo_jdk5_64),
        cmocka_unit_test(histo_jdk6_18_32),
        cmocka_unit_test(histo_jdk6_18_64),
        cmocka_unit_test(histo_jdk6_coops),
        cmocka_unit_test(histo_jdk6_32),
        cmocka_unit_test(histo_toku_object),
        cmocka_unit_test(histo_toku_recursion),
        cmocka_unit_test(histo_pid1884_gz),
        cmocka_unit_test(count_edges_equal),
        cmocka_unit_test(totals),
        cmocka_unit_test(size_ahead),
        cmocka_unit_test(android_sizes),
        cmocka_unit_test(hotspot_graph),
        cmocka_unit_test(split_pass2),
        cmocka_unit_test(edges_backward),
        cmocka_unit_test(split_pass1_errors),
        cmocka_unit_test(two_dumps),
        cmocka_unit_test(truncated_fixture),
        cmocka_unit_test(inflate_cap_fixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
