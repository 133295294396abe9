/* SPDX-License-Identifier: Apache-2.0 */
/* virtual_test.c: unit tests of src/analysis/virtual.c on the real dialer.android-hprof fixture
 * (Dalvik: ArrayList keeps `array` + `size`, HashMap a HashMapEntry table): every ArrayList
 * lists its non-null elements first as `[position]` virtual entries, then its fields sorted by
 * name; every HashMap lists key() then the value named by its key ("\"text\"" for a String
 * key) per entry in table order; Strings and boxed primitives have no field references;
 * object array entries are numbered 0..k-1 among the non-null ones; every other entry is a
 * real edge with the same target; a non-HPROF graph gets no view; Dalvik's HashSet,
 * LinkedHashSet (backingMap) and CopyOnWriteArrayList (elements) layouts are read. The lists
 * are made one node at a time, so the test also checks that a node's list does not depend on
 * which lists were made before (every node of several real dumps, in node order and in
 * reverse order from a fresh generator), and that every dump's whole view still has the
 * digest the whole-graph overlay built before it had; shortest paths over the lists made on
 * demand equal those over that overlay, step for step and label for label. A hand-built dump
 * covers Shark 2.14's Android readers, which the fixtures hold nothing for (dialer's three
 * MessageQueues are empty): MessageQueue, ArraySet, SafeIterableMap,
 * ActivityThread.mNewActivities, ObjectAnimator's weak target, and Dalvik's LinkedList. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/paths.h"
#include "analysis/virtual.h"
#include "base/mfile.h"
#include "format/fmt.h"

#include "test_hprof_load.h"

static node_ix field_ref(const graph *g, node_ix n, const char *name)
{
    graph_value v;
    if (!graph_field_find(g, n, name, &v) || v.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    return v.ref;
}

static int load(graph *g, mfile *m)
{
    return tl_load_hprof(g, m, "dialer.android-hprof");
}

/* Every node's list, made in node order and kept side by side (what a whole-graph overlay
 * holds): entry e of node x is first[x] + its position. */
typedef struct tov {
    virt_gen *vg;
    edge_ix *first;
    node_ix *src, *to;
    uint32_t *name;
    uint8_t *kind, *prio;
    edge_ix *real;
    uint32_t n, cap;
    uint64_t n_collections, n_virtual;
} tov;

static void tov_build(const graph *g, tov *o)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    memset(o, 0, sizeof *o);
    assert_int_equal(virt_gen_new(g, &o->vg, &err), LR_OK);
    assert_non_null(o->vg);
    o->first = calloc((size_t)g->n_nodes + 1, sizeof *o->first);
    assert_non_null(o->first);
    for (node_ix x = 0; x < g->n_nodes; x++) {
        const virt_list *l = virt_edges(o->vg, x);
        assert_non_null(l);
        assert_int_equal(l->node, x);
        o->first[x] = o->n;
        if (o->n + l->n > o->cap) {
            o->cap = (o->n + l->n) * 2 + 1024;
            o->src = realloc(o->src, o->cap * sizeof *o->src);
            o->to = realloc(o->to, o->cap * sizeof *o->to);
            o->name = realloc(o->name, o->cap * sizeof *o->name);
            o->kind = realloc(o->kind, o->cap * sizeof *o->kind);
            o->prio = realloc(o->prio, o->cap * sizeof *o->prio);
            o->real = realloc(o->real, o->cap * sizeof *o->real);
            assert_true(o->src && o->to && o->name && o->kind && o->prio && o->real);
        }
        assert_true(l->n_lead <= l->n);
        for (uint32_t i = 0; i < l->n; i++, o->n++) {
            /* the reader's entries lead; after them only real edges, at the rules' priority */
            if (i >= l->n_lead)
                assert_true(l->real[i] != GRAPH_NONE && l->prio[i] == VIRT_PRIO_RULES);
            else
                assert_true(l->real[i] == GRAPH_NONE || l->prio[i] == VIRT_PRIO_NORMAL);
            o->src[o->n] = x;
            o->to[o->n] = l->to[i];
            o->name[o->n] = l->name[i];
            o->kind[o->n] = l->kind[i];
            o->prio[o->n] = l->prio[i];
            o->real[o->n] = l->real[i];
        }
    }
    o->first[g->n_nodes] = o->n;
    virt_stats(o->vg, &o->n_collections, &o->n_virtual);
}

static void tov_free(tov *o)
{
    virt_gen_free(o->vg);
    free(o->first);
    free(o->src);
    free(o->to);
    free(o->name);
    free(o->kind);
    free(o->prio);
    free(o->real);
    memset(o, 0, sizeof *o);
}

static edge_ix tov_real(const tov *o, edge_ix e)
{
    return o->real[e];
}

/* The label of entry e, asked of the generator by (node, position) as traces do. */
static const char *tov_label(const tov *o, edge_ix e, char *buf, size_t cap)
{
    node_ix x = o->src[e];
    return virt_edge_label(o->vg, x, e - o->first[x], buf, cap);
}

static int tov_priority(const tov *o, edge_ix e)
{
    node_ix x = o->src[e];
    return virt_edge_priority(o->vg, x, e - o->first[x]);
}

/* Overlay edges of x after the virtual ones are real fields in name order. */
static void check_fields_sorted(const graph *g, const tov *vo, node_ix x, edge_ix from)
{
    const char *prev = NULL;
    for (edge_ix e = from; e < vo->first[x + 1]; e++) {
        edge_ix re = tov_real(vo, e);
        assert_true(re != GRAPH_NONE);
        assert_int_equal(vo->to[e], g->edge_to[re]);
        if (GRAPH_EDGE_KIND(vo->kind[e]) != GRAPH_EDGE_FIELD)
            continue;
        const char *name = graph_str(g, graph_edge_name(g, re));
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
    tov vo;
    lr_error err = {.offset = LR_NO_OFFSET};
    tov_build(&g, &vo);
    assert_true(vo.n_collections > 0 && vo.n_virtual > 0);
    char lbuf[VIRT_LABEL_MAX];

    uint32_t lists = 0, list_elems = 0, maps = 0, named = 0, strings = 0, arrays = 0;
    uint32_t sets = 0, set_elems = 0, cow_elems = 0;
    for (node_ix x = 0; x < g.n_nodes; x++) {
        const char *cn = graph_class_name(&g, x);
        edge_ix e = vo.first[x], e1 = vo.first[x + 1];
        if (g.node_kind[x] == GRAPH_KIND_INSTANCE && !strcmp(cn, "java.util.ArrayList")) {
            node_ix arr = field_ref(&g, x, "array");
            graph_value sz;
            assert_true(graph_field_find(&g, x, "size", &sz));
            uint32_t want = 0;
            if (arr != GRAPH_NONE)
                for (edge_ix a = g.first_edge[arr]; a < g.first_edge[arr + 1]; a++)
                    if (graph_edge_name(&g, a) < (uint32_t)sz.raw) {
                        /* the next overlay edge is this element, named by its position */
                        assert_true(e < e1);
                        assert_int_equal(tov_real(&vo, e), GRAPH_NONE);
                        assert_null(tov_label(&vo, e, lbuf, sizeof lbuf));
                        assert_int_equal(GRAPH_EDGE_KIND(vo.kind[e]), GRAPH_EDGE_ELEMENT);
                        assert_int_equal(vo.name[e], graph_edge_name(&g, a));
                        assert_int_equal(vo.to[e], g.edge_to[a]);
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
                            assert_int_equal(vo.to[e], key);
                            assert_string_equal(tov_label(&vo, e, lbuf, sizeof lbuf),
                                                "key()");
                            assert_int_equal(vo.name[e], index++);
                            e++;
                        }
                        if (val == GRAPH_NONE)
                            continue;
                        assert_int_equal(vo.to[e], val);
                        const char *lb = tov_label(&vo, e, lbuf, sizeof lbuf);
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
                        assert_int_equal(vo.name[e], index++);
                        e++;
                    }
            check_fields_sorted(&g, &vo, x, e);
            maps++;
        } else if (g.node_kind[x] == GRAPH_KIND_INSTANCE &&
                   (!strcmp(cn, "java.util.HashSet") || !strcmp(cn, "java.util.LinkedHashSet"))) {
            /* Dalvik's HashSet keeps its map in `backingMap`: keys as element() */
            node_ix map = field_ref(&g, x, "backingMap");
            node_ix table = map != GRAPH_NONE ? field_ref(&g, map, "table") : GRAPH_NONE;
            uint32_t index = 0;
            if (table != GRAPH_NONE)
                for (edge_ix a = g.first_edge[table]; a < g.first_edge[table + 1]; a++)
                    for (node_ix n = g.edge_to[a]; n != GRAPH_NONE; n = field_ref(&g, n, "next")) {
                        node_ix key = field_ref(&g, n, "key");
                        if (key == GRAPH_NONE)
                            continue;
                        assert_int_equal(vo.to[e], key);
                        assert_string_equal(tov_label(&vo, e, lbuf, sizeof lbuf),
                                                "element()");
                        assert_int_equal(vo.name[e], index++);
                        e++;
                    }
            check_fields_sorted(&g, &vo, x, e);
            set_elems += index;
            sets += !strcmp(cn, "java.util.LinkedHashSet");
        } else if (g.node_kind[x] == GRAPH_KIND_INSTANCE &&
                   !strcmp(cn, "java.util.concurrent.CopyOnWriteArrayList")) {
            /* Dalvik's layout: `elements`, every non-null entry by its position */
            node_ix arr = field_ref(&g, x, "elements");
            if (arr != GRAPH_NONE)
                for (edge_ix a = g.first_edge[arr]; a < g.first_edge[arr + 1]; a++, e++) {
                    assert_int_equal(tov_real(&vo, e), GRAPH_NONE);
                    assert_int_equal(vo.to[e], g.edge_to[a]);
                    assert_int_equal(vo.name[e], graph_edge_name(&g, a));
                    cow_elems++;
                }
            check_fields_sorted(&g, &vo, x, e);
        } else if (g.node_kind[x] == GRAPH_KIND_INSTANCE &&
                   (!strcmp(cn, "java.lang.String") || !strcmp(cn, "java.lang.Integer"))) {
            for (; e < e1; e++)
                assert_int_not_equal(GRAPH_EDGE_KIND(vo.kind[e]), GRAPH_EDGE_FIELD);
            strings++;
        } else if (g.node_kind[x] == GRAPH_KIND_OBJ_ARRAY) {
            uint32_t k = 0;
            for (; e < e1; e++)
                if (GRAPH_EDGE_KIND(vo.kind[e]) == GRAPH_EDGE_ELEMENT) {
                    assert_int_equal(vo.name[e], k++);
                    edge_ix re = tov_real(&vo, e);
                    assert_true(re != GRAPH_NONE);
                    assert_int_equal(vo.to[e], g.edge_to[re]);
                }
            arrays++;
        } else if (g.node_kind[x] == GRAPH_KIND_INSTANCE) {
            check_fields_sorted(&g, &vo, x, e);
        }
    }
    printf("dialer: %u ArrayLists (%u elements), %u HashMaps (%u String-keyed values), "
           "%u Strings/Integers, %u object arrays, %u set elements (%u LinkedHashSets), "
           "%llu virtual edges\n",
           lists, list_elems, maps, named, strings, arrays, set_elems, sets,
           (unsigned long long)vo.n_virtual);
    assert_true(lists > 0 && list_elems > 0 && maps > 0 && named > 0 && strings > 0);
    /* 15 HashSets and 5 LinkedHashSets, 429 elements (Shark 2.14's Harmony reader) */
    assert_int_equal(set_elems, 429);
    assert_int_equal(sets, 5);
    assert_int_equal(cow_elems, 1);

    /* the list held answers again without being made anew */
    uint64_t c0, v0, c1, v1;
    node_ix some = vo.src[vo.n - 1];
    const virt_list *l1 = virt_edges(vo.vg, some);
    virt_stats(vo.vg, &c0, &v0);
    assert_ptr_equal(virt_edges(vo.vg, some), l1);
    virt_stats(vo.vg, &c1, &v1);
    assert_true(c1 == c0 && v1 == v0);
    tov_free(&vo);

    /* other formats keep their real edges */
    const char *fmt = g.format;
    g.format = "v8";
    virt_gen *vg = (virt_gen *)&g; /* any non-NULL value: virt_gen_new must clear it */
    assert_int_equal(virt_gen_new(&g, &vg, &err), LR_OK);
    assert_null(vg);
    g.format = fmt;
    graph_fini(&g);
    mfile_close(&m);
}

/* ---- a hand-built Android dump with the structures only Shark's Android readers read ---- */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *s, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void u1(buf *b, uint8_t v) { put(b, &v, 1); }
static void u4(buf *b, uint32_t v)
{
    uint8_t s[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(b, s, 4);
}
static void u2(buf *b, uint16_t v)
{
    uint8_t s[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    put(b, s, 2);
}

/* Strings of the dump; a string's id is its index + 1. */
static const char *const STR[] = {
    "java.lang.Object", "android.os.MessageQueue", "android.os.Message", "mMessages", "next",
    "android.util.ArraySet", "mArray", "androidx.arch.core.internal.SafeIterableMap", "mStart",
    "androidx.arch.core.internal.SafeIterableMap$Entry", "mKey", "mValue", "mNext",
    "android.app.ActivityThread", "mNewActivities",
    "android.app.ActivityThread$ActivityClientRecord", "activity", "nextIdle",
    "android.app.Activity", "mDestroyed", "android.animation.ObjectAnimator",
    "mTarget", "java.lang.ref.Reference", "referent", "java.lang.ref.WeakReference",
    "java.util.LinkedList", "voidLink", "java.util.LinkedList$Link", "data", "com.example.Foo",
    "java.lang.Object[]",
};
static uint32_t sid(const char *s)
{
    for (uint32_t i = 0; i < sizeof STR / sizeof *STR; i++)
        if (!strcmp(STR[i], s))
            return i + 1;
    fail_msg("no string %s", s);
    return 0;
}

/* Class c (id 0x100 + its name's string id) with object fields, `bool_field` a boolean. */
static void class_dump(buf *s, const char *name, const char *super, const char *const *fields,
                       unsigned nf, const char *bool_field)
{
    u1(s, 0x20);
    u4(s, 0x100 + sid(name));
    u4(s, 0);
    u4(s, super ? 0x100 + sid(super) : 0);
    for (int k = 0; k < 5; k++)
        u4(s, 0);
    u4(s, 4 * nf + (bool_field ? 1 : 0));
    u2(s, 0);
    u2(s, 0);
    u2(s, (uint16_t)(nf + (bool_field ? 1 : 0)));
    for (unsigned i = 0; i < nf; i++) {
        u4(s, sid(fields[i]));
        u1(s, GRAPH_FT_OBJECT);
    }
    if (bool_field) {
        u4(s, sid(bool_field));
        u1(s, GRAPH_FT_BOOLEAN);
    }
}

/* Instance oid of class `name` with object field values v (own fields, then the super's). */
static void inst(buf *s, uint32_t oid, const char *name, const uint32_t *v, unsigned nv, int flag)
{
    u1(s, 0x21);
    u4(s, oid);
    u4(s, 0);
    u4(s, 0x100 + sid(name));
    u4(s, 4 * nv + (flag >= 0 ? 1 : 0));
    for (unsigned i = 0; i < nv; i++)
        u4(s, v[i]);
    if (flag >= 0)
        u1(s, (uint8_t)flag);
}
#define INST(s, oid, name, ...)                                                                  \
    do {                                                                                         \
        const uint32_t v_[] = {__VA_ARGS__};                                                     \
        inst(s, oid, name, v_, sizeof v_ / sizeof *v_, -1);                                      \
    } while (0)

static buf android_readers_dump(void)
{
    buf b = {0}, s = {0};
    put(&b, "JAVA PROFILE 1.0.3", 19);
    u4(&b, 4);
    u4(&b, 0);
    u4(&b, 0);
    for (uint32_t i = 0; i < sizeof STR / sizeof *STR; i++) {
        u1(&b, 0x01);
        u4(&b, 0);
        u4(&b, 4 + (uint32_t)strlen(STR[i]));
        u4(&b, i + 1);
        put(&b, STR[i], strlen(STR[i]));
    }
    static const char *const classes[] = {
        "java.lang.Object", "android.os.MessageQueue", "android.os.Message",
        "android.util.ArraySet", "androidx.arch.core.internal.SafeIterableMap",
        "androidx.arch.core.internal.SafeIterableMap$Entry", "android.app.ActivityThread",
        "android.app.ActivityThread$ActivityClientRecord", "android.app.Activity",
        "android.animation.ObjectAnimator", "java.lang.ref.Reference",
        "java.lang.ref.WeakReference", "java.util.LinkedList", "java.util.LinkedList$Link",
        "com.example.Foo", "java.lang.Object[]",
    };
    for (uint32_t i = 0; i < sizeof classes / sizeof *classes; i++) {
        u1(&b, 0x02);
        u4(&b, 0);
        u4(&b, 16);
        u4(&b, i + 1);
        u4(&b, 0x100 + sid(classes[i]));
        u4(&b, 0);
        u4(&b, sid(classes[i]));
    }
    const char *O = "java.lang.Object";
    class_dump(&s, O, NULL, NULL, 0, NULL);
    class_dump(&s, "android.os.MessageQueue", O, (const char *[]){"mMessages"}, 1, NULL);
    class_dump(&s, "android.os.Message", O, (const char *[]){"next"}, 1, NULL);
    class_dump(&s, "android.util.ArraySet", O, (const char *[]){"mArray"}, 1, NULL);
    class_dump(&s, "androidx.arch.core.internal.SafeIterableMap", O, (const char *[]){"mStart"},
               1, NULL);
    class_dump(&s, "androidx.arch.core.internal.SafeIterableMap$Entry", O,
               (const char *[]){"mKey", "mValue", "mNext"}, 3, NULL);
    class_dump(&s, "android.app.ActivityThread", O, (const char *[]){"mNewActivities"}, 1, NULL);
    class_dump(&s, "android.app.ActivityThread$ActivityClientRecord", O,
               (const char *[]){"activity", "nextIdle"}, 2, NULL);
    class_dump(&s, "android.app.Activity", O, NULL, 0, "mDestroyed");
    class_dump(&s, "android.animation.ObjectAnimator", O, (const char *[]){"mTarget"}, 1, NULL);
    class_dump(&s, "java.lang.ref.Reference", O, (const char *[]){"referent"}, 1, NULL);
    class_dump(&s, "java.lang.ref.WeakReference", "java.lang.ref.Reference", NULL, 0, NULL);
    class_dump(&s, "java.util.LinkedList", O, (const char *[]){"voidLink"}, 1, NULL);
    class_dump(&s, "java.util.LinkedList$Link", O, (const char *[]){"data", "next"}, 2, NULL);
    class_dump(&s, "com.example.Foo", O, NULL, 0, NULL);
    class_dump(&s, "java.lang.Object[]", O, NULL, 0, NULL);
    for (uint32_t f = 0x9000; f < 0x9010; f++) /* plain objects to point at */
        INST(&s, f, "com.example.Foo");
    /* a queue of three messages whose last one loops back to the first */
    INST(&s, 0x1000, "android.os.MessageQueue", 0x1001);
    INST(&s, 0x1001, "android.os.Message", 0x1002);
    INST(&s, 0x1002, "android.os.Message", 0x1003);
    INST(&s, 0x1003, "android.os.Message", 0x1001);
    /* ArraySet over {Foo0, null, Foo1, null} */
    INST(&s, 0x2000, "android.util.ArraySet", 0x2001);
    u1(&s, 0x22);
    u4(&s, 0x2001);
    u4(&s, 0);
    u4(&s, 4);
    u4(&s, 0x100 + sid("java.lang.Object[]"));
    u4(&s, 0x9000);
    u4(&s, 0);
    u4(&s, 0x9001);
    u4(&s, 0);
    /* SafeIterableMap {Foo2 -> Foo3, null -> Foo4} */
    const char *E = "androidx.arch.core.internal.SafeIterableMap$Entry";
    INST(&s, 0x3000, "androidx.arch.core.internal.SafeIterableMap", 0x3001);
    INST(&s, 0x3001, E, 0x9002, 0x9003, 0x3002);
    INST(&s, 0x3002, E, 0, 0x9004, 0);
    /* ActivityThread.mNewActivities: records of a destroyed, a live, a destroyed activity */
    const char *R = "android.app.ActivityThread$ActivityClientRecord";
    INST(&s, 0x4000, "android.app.ActivityThread", 0x4001);
    INST(&s, 0x4001, R, 0x4011, 0x4002);
    INST(&s, 0x4002, R, 0x4012, 0x4003);
    INST(&s, 0x4003, R, 0x4013, 0);
    inst(&s, 0x4011, "android.app.Activity", NULL, 0, 1);
    inst(&s, 0x4012, "android.app.Activity", NULL, 0, 0);
    inst(&s, 0x4013, "android.app.Activity", NULL, 0, 1);
    /* ObjectAnimator whose target sits behind a WeakReference */
    INST(&s, 0x5000, "android.animation.ObjectAnimator", 0x5001);
    INST(&s, 0x5001, "java.lang.ref.WeakReference", 0x9005);
    /* Dalvik LinkedList: sentinel voidLink, then Foo6, Foo7, circular */
    const char *L = "java.util.LinkedList$Link";
    INST(&s, 0x6000, "java.util.LinkedList", 0x6001);
    INST(&s, 0x6001, L, 0, 0x6002);
    INST(&s, 0x6002, L, 0x9006, 0x6003);
    INST(&s, 0x6003, L, 0x9007, 0x6001);
    u1(&b, 0x1c);
    u4(&b, 0);
    u4(&b, (uint32_t)s.n);
    put(&b, s.p, s.n);
    u1(&b, 0x2c);
    u4(&b, 0);
    u4(&b, 0);
    free(s.p);
    return b;
}

static node_ix by_id(const graph *g, uint64_t id)
{
    node_ix x = graph_find_id(g, id);
    assert_true(x != GRAPH_NONE);
    return x;
}

/* Overlay edge i of x is a virtual edge to object `to` named `name`, labelled `label`. */
static void want_virtual(const graph *g, const tov *vo, node_ix x, uint32_t i,
                         uint64_t to, uint32_t name, const char *label)
{
    edge_ix e = vo->first[x] + i;
    assert_true(e < vo->first[x + 1]);
    assert_int_equal(tov_real(vo, e), GRAPH_NONE);
    assert_int_equal(GRAPH_EDGE_KIND(vo->kind[e]), GRAPH_EDGE_ELEMENT);
    assert_int_equal(vo->to[e], by_id(g, to));
    assert_int_equal(vo->name[e], name);
    char lbuf[VIRT_LABEL_MAX];
    if (label)
        assert_string_equal(tov_label(vo, e, lbuf, sizeof lbuf), label);
    else
        assert_null(tov_label(vo, e, lbuf, sizeof lbuf));
    assert_int_equal(tov_priority(vo, e), VIRT_PRIO_RULES);
}

/* The virtual edges of x (before its real ones). */
static uint32_t n_virtual(const tov *vo, node_ix x)
{
    uint32_t k = 0;
    for (edge_ix e = vo->first[x]; e < vo->first[x + 1]; e++)
        k += tov_real(vo, e) == GRAPH_NONE;
    return k;
}

static void test_android_readers(void **state)
{
    (void)state;
    buf d = android_readers_dump();
    mfile m;
    graph g;
    lr_error err = {.offset = LR_NO_OFFSET};
    graph_init(&g);
    g.path = strdup("readers.hprof");
    assert_int_equal(mfile_from_memory(&m, d.p, d.n, 0, "readers.hprof", &err), LR_OK);
    const fmt_reader *rd = fmt_find(m.data, m.len);
    assert_non_null(rd);
    fmt_opts o = {.dump_index = -1};
    assert_int_equal(rd->load(&g, &m, &o, &err), LR_OK);
    tov vo;
    tov_build(&g, &vo);

    /* MessageQueue: every message as [i], the loop back to the first one ends the walk */
    node_ix q = by_id(&g, 0x1000);
    assert_int_equal(n_virtual(&vo, q), 3);
    want_virtual(&g, &vo, q, 0, 0x1001, 0, NULL);
    want_virtual(&g, &vo, q, 1, 0x1002, 1, NULL);
    want_virtual(&g, &vo, q, 2, 0x1003, 2, NULL);
    assert_int_equal(n_virtual(&vo, by_id(&g, 0x1001)), 0);

    /* ArraySet: the non-null entries by position, as element() */
    node_ix as = by_id(&g, 0x2000);
    assert_int_equal(n_virtual(&vo, as), 2);
    want_virtual(&g, &vo, as, 0, 0x9000, 0, "element()");
    want_virtual(&g, &vo, as, 1, 0x9001, 2, "element()");

    /* SafeIterableMap: key() then the value named by its key, "null" without one */
    node_ix sm = by_id(&g, 0x3000);
    char key[80];
    snprintf(key, sizeof key, "instance @%u of com.example.Foo", 0x9002);
    assert_int_equal(n_virtual(&vo, sm), 3);
    want_virtual(&g, &vo, sm, 0, 0x9002, 0, "key()");
    want_virtual(&g, &vo, sm, 1, 0x9003, 1, key);
    want_virtual(&g, &vo, sm, 2, 0x9004, 2, "null");

    /* ActivityThread: mNewActivities first, a real edge at normal priority; its head record
     * lists the destroyed activities by their place in the nextIdle chain */
    node_ix at = by_id(&g, 0x4000);
    edge_ix e = vo.first[at];
    assert_true(tov_real(&vo, e) != GRAPH_NONE);
    assert_string_equal(graph_str(&g, vo.name[e]), "mNewActivities");
    assert_int_equal(tov_priority(&vo, e), VIRT_PRIO_NORMAL);
    assert_int_equal(vo.first[at + 1] - e, 1); /* not repeated among the fields */
    node_ix head = by_id(&g, 0x4001);
    assert_int_equal(n_virtual(&vo, head), 2);
    want_virtual(&g, &vo, head, 0, 0x4011, 0, NULL);
    want_virtual(&g, &vo, head, 1, 0x4013, 2, NULL);
    assert_int_equal(n_virtual(&vo, by_id(&g, 0x4002)), 0);

    /* ObjectAnimator: the WeakReference's referent as mTarget, low priority, then the field */
    node_ix an = by_id(&g, 0x5000);
    e = vo.first[an];
    assert_int_equal(tov_real(&vo, e), GRAPH_NONE);
    assert_int_equal(GRAPH_EDGE_KIND(vo.kind[e]), GRAPH_EDGE_FIELD);
    assert_string_equal(graph_str(&g, vo.name[e]), "mTarget");
    assert_int_equal(vo.to[e], by_id(&g, 0x9005));
    assert_int_equal(tov_priority(&vo, e), VIRT_PRIO_LOW);
    assert_int_equal(vo.to[e + 1], by_id(&g, 0x5001));
    assert_int_equal(tov_priority(&vo, e + 1), VIRT_PRIO_RULES);

    /* Dalvik LinkedList: the voidLink sentinel takes position 0 */
    node_ix ll = by_id(&g, 0x6000);
    assert_int_equal(n_virtual(&vo, ll), 2);
    want_virtual(&g, &vo, ll, 0, 0x9006, 1, NULL);
    want_virtual(&g, &vo, ll, 1, 0x9007, 2, NULL);

    tov_free(&vo);
    graph_fini(&g);
    mfile_close(&m);
    free(d.p);
}

/* Digests (view_digest) of the whole-graph overlay that preceded the lists made on demand. */
#define DIGEST_DIALER 0xcd5292b8a4547bc8ull
#define DIGEST_TEST_DUMP 0x2cb671229fafffa2ull
#define DIGEST_RI 0x79b69609b3f99fb7ull
#define DIGEST_JDK8 0x0ad84b302ed9fa52ull
#define DIGEST_JDK6 0xf30d88acb2fee1afull

/* A digest of a whole view that does not depend on how the reader numbers nodes, edges and
 * strings: the sum over nodes of an FNV-1a of the node's id, its entry count and per entry
 * the target's id, kind, name (number or text), the real edge's place among the node's
 * edges, priority and label text. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t view_digest(const graph *g, const tov *o)
{
    uint64_t sum = 0;
    char lbuf[VIRT_LABEL_MAX];
    for (node_ix x = 0; x < g->n_nodes; x++) {
        uint64_t h = 0xcbf29ce484222325ull, id = graph_node_id(g, x);
        uint32_t n = o->first[x + 1] - o->first[x];
        h = fnv(h, &id, sizeof id);
        h = fnv(h, &n, sizeof n);
        for (edge_ix e = o->first[x]; e < o->first[x + 1]; e++) {
            uint64_t to = graph_node_id(g, o->to[e]);
            uint32_t v[3] = {o->real[e] == GRAPH_NONE ? UINT32_MAX : o->real[e] - g->first_edge[x],
                             (uint32_t)tov_priority(o, e), o->kind[e]};
            h = fnv(h, &to, sizeof to);
            h = fnv(h, v, sizeof v);
            if (GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(o->kind[e])))
                h = fnv(h, &o->name[e], sizeof o->name[e]);
            else
                h = fnv(h, graph_str(g, o->name[e]), strlen(graph_str(g, o->name[e])) + 1);
            const char *lb = tov_label(o, e, lbuf, sizeof lbuf);
            h = fnv(h, lb ? lb : "", strlen(lb ? lb : "") + 1);
        }
        sum += h;
    }
    return sum;
}

/* Every node's list, made from a fresh generator in reverse node order (so each collection is
 * walked after nodes it shares with others), equals the one made in node order; and the
 * whole view has the digest the whole-graph overlay (built in one pass over all nodes
 * before lists were made one at a time) had on the same dump. */
static void test_on_demand_equals_overlay(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        uint64_t digest;
    } dumps[] = {
        {"dialer.android-hprof", DIGEST_DIALER},
        {"test-dump.hprof", DIGEST_TEST_DUMP},
        {"RI.hprof", DIGEST_RI},
        {"oracle_jdk8_05_x64.hprof", DIGEST_JDK8},
        {"sun_jdk6_18_x64.hprof", DIGEST_JDK6},
    };
    for (size_t d = 0; d < sizeof dumps / sizeof *dumps; d++) {
        graph g;
        mfile m;
        if (!tl_load_hprof(&g, &m, dumps[d].file)) {
            skip();
            return;
        }
        tov o;
        tov_build(&g, &o);
        uint64_t h = view_digest(&g, &o);
        printf("%s: %u nodes, %u entries, %llu collections expanded, digest %016llx\n",
               dumps[d].file, g.n_nodes, o.n, (unsigned long long)o.n_collections,
               (unsigned long long)h);
        assert_true(h == dumps[d].digest);
        lr_error err = {.offset = LR_NO_OFFSET};
        virt_gen *vg;
        assert_int_equal(virt_gen_new(&g, &vg, &err), LR_OK);
        uint32_t checked = 0;
        for (node_ix x = g.n_nodes; x-- > 0;) {
            const virt_list *l = virt_edges(vg, x);
            assert_non_null(l);
            assert_int_equal(l->n, o.first[x + 1] - o.first[x]);
            for (uint32_t i = 0; i < l->n; i++) {
                edge_ix e = o.first[x] + i;
                assert_int_equal(l->to[i], o.to[e]);
                assert_int_equal(l->name[i], o.name[e]);
                assert_int_equal(l->kind[i], o.kind[e]);
                assert_int_equal(l->real[i], o.real[e]);
                assert_int_equal(l->prio[i], o.prio[e]);
                if (l->real[i] != GRAPH_NONE)
                    assert_int_equal(virt_real_name(vg, x, l->real[i]), l->name[i]);
                checked++;
            }
        }
        assert_int_equal(checked, o.n);
        virt_gen_free(vg);
        tov_free(&o);
        graph_fini(&g);
        mfile_close(&m);
    }
}

static int gen_source(void *ctx, node_ix x, paths_list *out)
{
    const virt_list *l = virt_edges(ctx, x);
    if (!l)
        return -1;
    *out = (paths_list){l->n, l->to, l->kind, l->real};
    return 0;
}

/* The position in x's list of the entry a path step recorded (edge code of the step). */
static uint32_t step_pos(const tov *o, node_ix x, uint32_t code)
{
    if (code & PATHS_VIRTUAL)
        return code & ~PATHS_VIRTUAL;
    for (edge_ix e = o->first[x]; e < o->first[x + 1]; e++)
        if (o->real[e] == code)
            return e - o->first[x];
    fail_msg("no entry of node %u stands for edge %u", x, code);
    return 0;
}

/* Paths over lists made on demand (an edge source) equal paths over the whole view laid out
 * as a graph of its own (the overlay the traces walked before): every node of the dialer dump
 * has the same parent, depth, root entry and priority, and the step into it is the same entry
 * of its parent's list, with the same label when made again by (node, position). */
static void test_paths_on_demand(void **state)
{
    (void)state;
    graph g;
    mfile m;
    if (!load(&g, &m)) {
        skip();
        return;
    }
    tov o;
    tov_build(&g, &o);
    graph view = g;
    view.n_edges = o.n;
    view.first_edge = o.first;
    view.edge_to = o.to;
    view.edge_kind = o.kind;
    view.edge_name = o.name;
    view.rev_first = view.rev_edge = NULL;
    lr_error err = {.offset = LR_NO_OFFSET};
    paths_result a, b;
    assert_int_equal(paths_find(&view, NULL, NULL, 0, &a, &err), LR_OK);
    virt_gen *vg;
    assert_int_equal(virt_gen_new(&g, &vg, &err), LR_OK);
    paths_source src = {gen_source, vg};
    paths_policy pol = {NULL, NULL, NULL, &src, 0, 0};
    assert_int_equal(paths_find(&g, &pol, NULL, 0, &b, &err), LR_OK);
    uint32_t reached = 0, virtual_steps = 0, labelled = 0;
    char l1[VIRT_LABEL_MAX], l2[VIRT_LABEL_MAX];
    for (node_ix x = 0; x < g.n_nodes; x++) {
        assert_int_equal(paths_reached(&a, x), paths_reached(&b, x));
        if (!paths_reached(&a, x))
            continue;
        reached++;
        node_ix p = paths_parent(&a, x);
        assert_int_equal(paths_parent(&b, x), p);
        assert_int_equal(paths_via_last(&a, x), paths_via_last(&b, x));
        assert_int_equal(paths_depth(&a, x), paths_depth(&b, x));
        assert_int_equal(paths_root_of(&a, x), paths_root_of(&b, x));
        if (p == GRAPH_NONE) {
            assert_int_equal(paths_edge(&b, x), PATHS_FROM_ROOT);
            continue;
        }
        uint32_t pos = paths_edge(&a, x) - o.first[p], code = paths_edge(&b, x);
        assert_int_equal(step_pos(&o, p, code), pos);
        assert_int_equal(o.to[o.first[p] + pos], x);
        if (!(code & PATHS_VIRTUAL))
            continue;
        virtual_steps++;
        const char *x1 = tov_label(&o, o.first[p] + pos, l1, sizeof l1);
        const char *x2 = virt_edge_label(vg, p, pos, l2, sizeof l2);
        assert_true((x1 == NULL) == (x2 == NULL));
        if (x1) {
            assert_string_equal(x1, x2);
            labelled++;
        }
    }
    printf("dialer paths: %u nodes reached, %u through a collection entry (%u labelled)\n",
           reached, virtual_steps, labelled);
    assert_true(virtual_steps > 0 && labelled > 0);
    paths_free(&a);
    paths_free(&b);
    virt_gen_free(vg);
    tov_free(&o);
    graph_fini(&g);
    mfile_close(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dialer),
        cmocka_unit_test(test_android_readers),
        cmocka_unit_test(test_on_demand_equals_overlay),
        cmocka_unit_test(test_paths_on_demand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
