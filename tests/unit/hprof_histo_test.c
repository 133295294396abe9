/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_histo_test.c: tests of the streaming HPROF histogram (src/format/hprof_histo.c)
 * against the reader's graph: for every HPROF fixture (plain, gzip, bzip2, Android), on one
 * thread and split over two, each class row's instance count and summed shallow bytes, the
 * class-object row and the classless row equal what the graph loaded without edges gives
 * (the sums `leakray histo` prints); each heap dump of a two-dump file likewise; and on
 * truncated and byte-flipped copies of fixtures both end with the same status code. Fixtures
 * come from LEAKRAY_FIXTURES or $LEAKRAY_SRC/../shared/fixtures; when absent the tests skip
 * with a message, unless CI=true. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>

#include "base/mfile.h"
#include "format/fmt.h"
#include "format/hprof.h"
#include "graph/graph.h"
#include "leakray/leakray.h"

#include "test_fixtures.h"


static int have_fixtures(void) { return tf_have("hprof", "HPROF"); }

/* Loads m with the reader (no edges) into g; returns the status. */
static lr_status graph_load(const mfile *m, int dump_index, graph *g, lr_error *e)
{
    graph_init(g);
    g->path = strdup("dump");
    assert_non_null(g->path);
    fmt_opts o = {.dump_index = dump_index, .no_edges = 1};
    return fmt_hprof_reader.load(g, m, &o, e);
}

/* Asserts that h has, row for row, the graph's per-class sums. Returns the classes seen. */
static uint32_t compare(const char *what, const graph *g, const hprof_histo *h)
{
    if (h->n_classes != g->n_classes)
        fail_msg("%s: %u classes streamed, graph has %u", what, h->n_classes, g->n_classes);
    uint32_t nc = g->n_classes;
    uint64_t *cnt = calloc(nc + 2, sizeof *cnt), *by = calloc(nc + 2, sizeof *by);
    assert_non_null(cnt);
    assert_non_null(by);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        class_ix c = graph_node_class(g, i);
        if (c >= nc)
            c = g->node_kind[i] == GRAPH_KIND_CLASS ? nc : nc + 1;
        cnt[c]++;
        by[c] += graph_node_size(g, i);
    }
    for (uint32_t c = 0; c < nc + 2; c++) {
        const hprof_histo_row *r = &h->rows[c];
        const char *gn = c < nc ? graph_str(g, g->classes[c].name) : NULL;
        if (c < nc && (!r->name || strcmp(r->name, gn) != 0))
            fail_msg("%s: class %u named '%s', graph '%s'", what, c, r->name ? r->name : "?",
                     gn);
        if (r->count != cnt[c] || r->bytes != by[c])
            fail_msg("%s: class %u (%s): streamed %llu / %llu bytes, graph %llu / %llu", what,
                     c, gn ? gn : "synthetic row", (unsigned long long)r->count,
                     (unsigned long long)r->bytes, (unsigned long long)cnt[c],
                     (unsigned long long)by[c]);
    }
    free(cnt);
    free(by);
    return nc;
}

static void check_bytes(const char *what, const mfile *m, int dump_index)
{
    graph g;
    lr_error ge = {.offset = LR_NO_OFFSET};
    lr_status gs = graph_load(m, dump_index, &g, &ge);
    if (gs != LR_OK)
        fail_msg("%s: reader failed: %s", what, ge.msg);
    for (unsigned threads = 1; threads <= 2; threads++) {
        hprof_histo h;
        lr_error he = {.offset = LR_NO_OFFSET};
        if (hprof_histo_build(m, "dump", dump_index, threads, &h, &he) != LR_OK)
            fail_msg("%s: streaming histogram failed: %s", what, he.msg);
        compare(what, &g, &h);
        hprof_histo_free(&h);
    }
    graph_fini(&g);
}

/* Every HPROF fixture, whatever its compression. */
static void all_fixtures(void **state)
{
    (void)state;
    if (!have_fixtures()) {
        skip();
        return;
    }
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/hprof", fixdir);
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    struct dirent *de;
    unsigned n = 0, android = 0;
    while ((de = readdir(dp))) {
        char p[8400];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        mfile m;
        lr_error e = {.offset = LR_NO_OFFSET};
        if (de->d_name[0] == '.' || mfile_open(&m, p, 0, &e) != LR_OK)
            continue;
        if (hprof_sniff(m.data, m.len)) {
            check_bytes(de->d_name, &m, -1);
            n++;
            android += m.len > 18 && memcmp(m.data, "JAVA PROFILE 1.0.3", 18) == 0;
        }
        mfile_close(&m);
    }
    closedir(dp);
    printf("streamed histograms equal the graph's for %u HPROF fixtures (%u Android)\n", n,
           android);
    assert_true(n >= 10);
    assert_true(android >= 1);
}

static uint8_t *slurp(const char *name, uint64_t *len)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/hprof/%s", fixdir, name);
    mfile m;
    lr_error e = {.offset = LR_NO_OFFSET};
    if (mfile_open(&m, p, 0, &e) != LR_OK)
        fail_msg("%s", e.msg);
    uint8_t *b = malloc(m.len + 1);
    assert_non_null(b);
    memcpy(b, m.data, m.len);
    *len = m.len;
    mfile_close(&m);
    return b;
}

/* A file with two heap dumps: the fixture's dump record appended once more. Both dumps and
 * the default one (the last) are checked, and a missing index fails as in the reader. */
static void two_dumps(void **state)
{
    (void)state;
    if (!have_fixtures()) {
        skip();
        return;
    }
    uint64_t len;
    uint8_t *b = slurp("sun_jdk5_64bit.hprof", &len);
    mfile m;
    lr_error e = {.offset = LR_NO_OFFSET};
    assert_int_equal(mfile_from_memory(&m, b, len, 0, "dump", &e), LR_OK);
    hprof_dump d;
    uint32_t nd;
    assert_int_equal(hprof_list_dumps(&m, "dump", &d, 1, &nd, &e), LR_OK);
    assert_int_equal(nd, 1);
    mfile_close(&m);
    uint8_t *two = malloc(len + d.length);
    assert_non_null(two);
    memcpy(two, b, len);
    memcpy(two + len, b + d.offset, d.length);
    assert_int_equal(mfile_from_memory(&m, two, len + d.length, 0, "dump", &e), LR_OK);
    assert_int_equal(hprof_list_dumps(&m, "dump", NULL, 0, &nd, &e), LR_OK);
    assert_int_equal(nd, 2);
    check_bytes("dump #0", &m, 0);
    check_bytes("dump #1", &m, 1);
    check_bytes("default dump", &m, -1);
    hprof_histo h;
    lr_error he = {.offset = LR_NO_OFFSET};
    assert_int_equal(hprof_histo_build(&m, "dump", 2, 0, &h, &he), LR_ERR_NOT_FOUND);
    mfile_close(&m);
    free(two);
    free(b);
}

/* Same status from the reader and from the streaming walk on a damaged copy. */
static void same_status(const char *what, const uint8_t *b, uint64_t len, unsigned *n_err)
{
    mfile m;
    lr_error e = {.offset = LR_NO_OFFSET};
    if (mfile_from_memory(&m, b, len, 0, "dump", &e) != LR_OK)
        fail_msg("%s: %s", what, e.msg);
    graph g;
    lr_error ge = {.offset = LR_NO_OFFSET};
    lr_status gs = graph_load(&m, -1, &g, &ge);
    for (unsigned threads = 1; threads <= 2; threads++) {
        hprof_histo h;
        lr_error he = {.offset = LR_NO_OFFSET};
        lr_status hs = hprof_histo_build(&m, "dump", -1, threads, &h, &he);
        if (hs != gs)
            fail_msg("%s (%u threads): reader %d '%s', streaming %d '%s'", what, threads,
                     (int)gs, ge.msg, (int)hs, he.msg);
        if (hs == LR_OK) {
            compare(what, &g, &h);
            hprof_histo_free(&h);
        } else if (he.offset != ge.offset) {
            fail_msg("%s: reader offset %llu, streaming %llu ('%s' / '%s')", what,
                     (unsigned long long)ge.offset, (unsigned long long)he.offset, ge.msg,
                     he.msg);
        }
    }
    *n_err += gs != LR_OK;
    graph_fini(&g);
    mfile_close(&m);
}

static void damaged(const char *name)
{
    uint64_t len;
    uint8_t *b = slurp(name, &len);
    uint8_t *c = malloc(len);
    assert_non_null(c);
    unsigned n_err = 0;
    char what[256];
    /* Truncations at spread offsets: always an error. */
    for (unsigned k = 1; k < 25; k++) {
        uint64_t cut = len * k / 25 + k;
        snprintf(what, sizeof what, "%s cut at %llu", name, (unsigned long long)cut);
        same_status(what, b, cut, &n_err);
    }
    /* Deterministic byte flips. */
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (unsigned k = 0; k < 60; k++) {
        memcpy(c, b, len);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t at = 32 + x % (len - 32);
        c[at] ^= (uint8_t)(1u << (x >> 40 & 7));
        snprintf(what, sizeof what, "%s flip at %llu", name, (unsigned long long)at);
        same_status(what, c, len, &n_err);
    }
    assert_true(n_err >= 24);
    free(c);
    free(b);
}

static void damaged_hotspot(void **state)
{
    (void)state;
    if (!have_fixtures()) {
        skip();
        return;
    }
    damaged("hprof-32.bin");
    damaged("sun_jdk5_64bit.hprof");
}

static void damaged_android(void **state)
{
    (void)state;
    if (!have_fixtures()) {
        skip();
        return;
    }
    damaged("test-dump-base.hprof");
}

int main(void)
{
    tf_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_fixtures),
        cmocka_unit_test(two_dumps),
        cmocka_unit_test(damaged_hotspot),
        cmocka_unit_test(damaged_android),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
