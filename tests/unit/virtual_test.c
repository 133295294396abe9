/* SPDX-License-Identifier: Apache-2.0 */
/* virtual_test.c: unit tests of src/analysis/virtual.c on the real dialer.android-hprof fixture
 * (Dalvik: ArrayList keeps `array` + `size`, HashMap a HashMapEntry table): every ArrayList
 * lists its non-null elements first as `[position]` virtual entries, then its fields sorted by
 * name; every HashMap lists key() then the value named by its key ("\"text\"" for a String
 * key) per entry in table order; Strings and boxed primitives have no field references;
 * object array entries are numbered 0..k-1 among the non-null ones; every other overlay edge
 * is a real edge with the same target; a non-HPROF graph gets no overlay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/virtual.h"
#include "base/mfile.h"
#include "format/fmt.h"

static int load(graph *g, mfile *m)
{
    char path[4200];
    const char *fx = getenv("LEAKRAY_FIXTURES"), *src = getenv("LEAKRAY_SRC");
    if (fx)
        snprintf(path, sizeof path, "%s/hprof/dialer.android-hprof", fx);
    else
        snprintf(path, sizeof path, "%s/../shared/fixtures/hprof/dialer.android-hprof",
                 src ? src : ".");
    lr_error err = {.offset = LR_NO_OFFSET};
    if (mfile_open(m, path, 0, &err) != LR_OK) {
        const char *ci = getenv("CI");
        if (ci && !strcmp(ci, "true"))
            fail_msg("fixture %s missing and CI=true", path);
        printf("SKIP: %s not found (set LEAKRAY_FIXTURES)\n", path);
        return 0;
    }
    graph_init(g);
    g->path = strdup("dialer");
    fmt_opts o = {.dump_index = -1};
    const fmt_reader *rd = fmt_find(m->data, m->len);
    assert_non_null(rd);
    assert_int_equal(rd->load(g, m, &o, &err), LR_OK);
    return 1;
}

static node_ix field_ref(const graph *g, node_ix n, const char *name)
{
    graph_value v;
    if (!graph_field_find(g, n, name, &v) || v.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    return v.ref;
}

/* Overlay edges of x after the virtual ones are real fields in name order. */
static void check_fields_sorted(const graph *g, const virt_overlay *vo, node_ix x, edge_ix from)
{
    const char *prev = NULL;
    for (edge_ix e = from; e < vo->first_edge[x + 1]; e++) {
        edge_ix re = virt_real_edge(vo, e);
        assert_true(re != GRAPH_NONE);
        assert_int_equal(vo->edge_to[e], g->edge_to[re]);
        if (GRAPH_EDGE_KIND(vo->edge_kind[e]) != GRAPH_EDGE_FIELD)
            continue;
        const char *name = graph_str(g, g->edge_name[re]);
        if (prev)
            assert_true(strcmp(prev, name) <= 0);
        prev = name;
    }
}

static void test_dialer(void **state)
{
    (void)state;
    graph g;
    mfile m;
    if (!load(&g, &m)) {
        skip();
        return;
    }
    virt_overlay vo;
    lr_error err = {.offset = LR_NO_OFFSET};
    assert_int_equal(virt_build(&g, &vo, &err), LR_OK);
    assert_non_null(vo.first_edge);
    assert_true(vo.n_collections > 0 && vo.n_virtual > 0);

    uint32_t lists = 0, list_elems = 0, maps = 0, named = 0, strings = 0, arrays = 0;
    for (node_ix x = 0; x < g.n_nodes; x++) {
        const char *cn = graph_class_name(&g, x);
        edge_ix e = vo.first_edge[x], e1 = vo.first_edge[x + 1];
        if (g.node_kind[x] == GRAPH_KIND_INSTANCE && !strcmp(cn, "java.util.ArrayList")) {
            node_ix arr = field_ref(&g, x, "array");
            graph_value sz;
            assert_true(graph_field_find(&g, x, "size", &sz));
            uint32_t want = 0;
            if (arr != GRAPH_NONE)
                for (edge_ix a = g.first_edge[arr]; a < g.first_edge[arr + 1]; a++)
                    if (g.edge_name[a] < (uint32_t)sz.raw) {
                        /* the next overlay edge is this element, named by its position */
                        assert_true(e < e1);
                        assert_int_equal(virt_real_edge(&vo, e), GRAPH_NONE);
                        assert_null(virt_edge_label(&vo, e));
                        assert_int_equal(GRAPH_EDGE_KIND(vo.edge_kind[e]), GRAPH_EDGE_ELEMENT);
                        assert_int_equal(vo.edge_name[e], g.edge_name[a]);
                        assert_int_equal(vo.edge_to[e], g.edge_to[a]);
                        e++;
                        want++;
                    }
            check_fields_sorted(&g, &vo, x, e);
            lists++;
            list_elems += want;
        } else if (g.node_kind[x] == GRAPH_KIND_INSTANCE &&
                   (!strcmp(cn, "java.util.HashMap") || !strcmp(cn, "java.util.LinkedHashMap"))) {
            node_ix table = field_ref(&g, x, "table");
            uint32_t index = 0;
            if (table != GRAPH_NONE)
                for (edge_ix a = g.first_edge[table]; a < g.first_edge[table + 1]; a++)
                    for (node_ix n = g.edge_to[a]; n != GRAPH_NONE; n = field_ref(&g, n, "next")) {
                        node_ix key = field_ref(&g, n, "key"), val = field_ref(&g, n, "value");
                        if (key != GRAPH_NONE) {
                            assert_int_equal(vo.edge_to[e], key);
                            assert_string_equal(virt_edge_label(&vo, e), "key()");
                            assert_int_equal(vo.edge_name[e], index++);
                            e++;
                        }
                        if (val == GRAPH_NONE)
                            continue;
                        assert_int_equal(vo.edge_to[e], val);
                        const char *lb = virt_edge_label(&vo, e);
                        assert_non_null(lb);
                        char s[600], q[700];
                        if (key != GRAPH_NONE && graph_string_value(&g, key, s, sizeof s) >= 0) {
                            snprintf(q, sizeof q, "\"%s\"", s);
                            assert_string_equal(lb, q);
                            named++;
                        } else if (key == GRAPH_NONE) {
                            assert_string_equal(lb, "null");
                        } else {
                            /* Shark's toString of the key object */
                            const char *want = g.node_kind[key] == GRAPH_KIND_CLASS ? "class "
                                : g.node_kind[key] == GRAPH_KIND_PRIM_ARRAY ? "primitive array @"
                                : g.node_kind[key] == GRAPH_KIND_OBJ_ARRAY ? "object array @"
                                : "instance @";
                            assert_true(!strncmp(lb, want, strlen(want)));
                            snprintf(q, sizeof q, " of %s", graph_class_name(&g, key));
                            if (g.node_kind[key] != GRAPH_KIND_CLASS)
                                assert_non_null(strstr(lb, q));
                        }
                        assert_int_equal(vo.edge_name[e], index++);
                        e++;
                    }
            check_fields_sorted(&g, &vo, x, e);
            maps++;
        } else if (g.node_kind[x] == GRAPH_KIND_INSTANCE &&
                   (!strcmp(cn, "java.lang.String") || !strcmp(cn, "java.lang.Integer"))) {
            for (; e < e1; e++)
                assert_int_not_equal(GRAPH_EDGE_KIND(vo.edge_kind[e]), GRAPH_EDGE_FIELD);
            strings++;
        } else if (g.node_kind[x] == GRAPH_KIND_OBJ_ARRAY) {
            uint32_t k = 0;
            for (; e < e1; e++)
                if (GRAPH_EDGE_KIND(vo.edge_kind[e]) == GRAPH_EDGE_ELEMENT) {
                    assert_int_equal(vo.edge_name[e], k++);
                    edge_ix re = virt_real_edge(&vo, e);
                    assert_true(re != GRAPH_NONE);
                    assert_int_equal(vo.edge_to[e], g.edge_to[re]);
                }
            arrays++;
        } else if (g.node_kind[x] == GRAPH_KIND_INSTANCE) {
            check_fields_sorted(&g, &vo, x, e);
        }
    }
    printf("dialer: %u ArrayLists (%u elements), %u HashMaps (%u String-keyed values), "
           "%u Strings/Integers, %u object arrays, %u virtual edges\n",
           lists, list_elems, maps, named, strings, arrays, vo.n_virtual);
    assert_true(lists > 0 && list_elems > 0 && maps > 0 && named > 0 && strings > 0);

    graph view;
    virt_view(&g, &vo, &view);
    assert_ptr_equal(view.first_edge, vo.first_edge);
    assert_ptr_equal(view.edge_to, vo.edge_to);
    assert_null(view.rev_first);
    assert_int_equal(view.n_nodes, g.n_nodes);
    virt_free(&vo);
    assert_null(vo.first_edge);

    /* other formats keep their real edges */
    const char *fmt = g.format;
    g.format = "v8";
    assert_int_equal(virt_build(&g, &vo, &err), LR_OK);
    assert_null(vo.first_edge);
    virt_view(&g, &vo, &view);
    assert_ptr_equal(view.edge_to, g.edge_to);
    assert_int_equal(virt_real_edge(&vo, 7), 7);
    g.format = fmt;
    graph_fini(&g);
    mfile_close(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dialer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
