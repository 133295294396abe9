/* SPDX-License-Identifier: Apache-2.0 */
/* virtual_test.c: unit tests of src/analysis/virtual.c on the real dialer.android-hprof fixture
 * (Dalvik: ArrayList keeps `array` + `size`, HashMap a HashMapEntry table): every ArrayList
 * lists its non-null elements first as `[position]` virtual entries, then its fields sorted by
 * name; every HashMap lists key() then the value named by its key ("\"text\"" for a String
 * key) per entry in table order; Strings and boxed primitives have no field references;
 * object array entries are numbered 0..k-1 among the non-null ones; every other overlay edge
 * is a real edge with the same target; a non-HPROF graph gets no overlay; Dalvik's HashSet,
 * LinkedHashSet (backingMap) and CopyOnWriteArrayList (elements) layouts are read. A hand-built
 * dump covers Shark 2.14's Android readers, which the fixtures hold nothing for (dialer's three
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
    virt_overlay vo;
    lr_error err = {.offset = LR_NO_OFFSET};
    assert_int_equal(virt_build(&g, &vo, &err), LR_OK);
    assert_non_null(vo.first_edge);
    assert_true(vo.n_collections > 0 && vo.n_virtual > 0);
    char lbuf[VIRT_LABEL_MAX];

    uint32_t lists = 0, list_elems = 0, maps = 0, named = 0, strings = 0, arrays = 0;
    uint32_t sets = 0, set_elems = 0, cow_elems = 0;
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
                    if (graph_edge_name(&g, a) < (uint32_t)sz.raw) {
                        /* the next overlay edge is this element, named by its position */
                        assert_true(e < e1);
                        assert_int_equal(virt_real_edge(&vo, e), GRAPH_NONE);
                        assert_null(virt_edge_label(&vo, e, lbuf, sizeof lbuf));
                        assert_int_equal(GRAPH_EDGE_KIND(vo.edge_kind[e]), GRAPH_EDGE_ELEMENT);
                        assert_int_equal(vo.edge_name[e], graph_edge_name(&g, a));
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
                            assert_string_equal(virt_edge_label(&vo, e, lbuf, sizeof lbuf),
                                                "key()");
                            assert_int_equal(vo.edge_name[e], index++);
                            e++;
                        }
                        if (val == GRAPH_NONE)
                            continue;
                        assert_int_equal(vo.edge_to[e], val);
                        const char *lb = virt_edge_label(&vo, e, lbuf, sizeof lbuf);
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
                        assert_int_equal(vo.edge_to[e], key);
                        assert_string_equal(virt_edge_label(&vo, e, lbuf, sizeof lbuf),
                                                "element()");
                        assert_int_equal(vo.edge_name[e], index++);
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
                    assert_int_equal(virt_real_edge(&vo, e), GRAPH_NONE);
                    assert_int_equal(vo.edge_to[e], g.edge_to[a]);
                    assert_int_equal(vo.edge_name[e], graph_edge_name(&g, a));
                    cow_elems++;
                }
            check_fields_sorted(&g, &vo, x, e);
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
           "%u Strings/Integers, %u object arrays, %u set elements (%u LinkedHashSets), "
           "%u virtual edges\n",
           lists, list_elems, maps, named, strings, arrays, set_elems, sets, vo.n_virtual);
    assert_true(lists > 0 && list_elems > 0 && maps > 0 && named > 0 && strings > 0);
    /* 15 HashSets and 5 LinkedHashSets, 429 elements (Shark 2.14's Harmony reader) */
    assert_int_equal(set_elems, 429);
    assert_int_equal(sets, 5);
    assert_int_equal(cow_elems, 1);

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
    "android.app.ActivityThread", "mNewActivities", "android.app.ActivityThread$ActivityClientRecord",
    "activity", "nextIdle", "android.app.Activity", "mDestroyed", "android.animation.ObjectAnimator",
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
static void want_virtual(const graph *g, const virt_overlay *vo, node_ix x, uint32_t i,
                         uint64_t to, uint32_t name, const char *label)
{
    edge_ix e = vo->first_edge[x] + i;
    assert_true(e < vo->first_edge[x + 1]);
    assert_int_equal(virt_real_edge(vo, e), GRAPH_NONE);
    assert_int_equal(GRAPH_EDGE_KIND(vo->edge_kind[e]), GRAPH_EDGE_ELEMENT);
    assert_int_equal(vo->edge_to[e], by_id(g, to));
    assert_int_equal(vo->edge_name[e], name);
    char lbuf[VIRT_LABEL_MAX];
    if (label)
        assert_string_equal(virt_edge_label(vo, e, lbuf, sizeof lbuf), label);
    else
        assert_null(virt_edge_label(vo, e, lbuf, sizeof lbuf));
    assert_int_equal(virt_edge_priority(vo, e), VIRT_PRIO_RULES);
}

/* The virtual edges of x (before its real ones). */
static uint32_t n_virtual(const virt_overlay *vo, node_ix x)
{
    uint32_t k = 0;
    for (edge_ix e = vo->first_edge[x]; e < vo->first_edge[x + 1]; e++)
        k += virt_real_edge(vo, e) == GRAPH_NONE;
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
    virt_overlay vo;
    assert_int_equal(virt_build(&g, &vo, &err), LR_OK);

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
    edge_ix e = vo.first_edge[at];
    assert_true(virt_real_edge(&vo, e) != GRAPH_NONE);
    assert_string_equal(graph_str(&g, vo.edge_name[e]), "mNewActivities");
    assert_int_equal(virt_edge_priority(&vo, e), VIRT_PRIO_NORMAL);
    assert_int_equal(vo.first_edge[at + 1] - e, 1); /* not repeated among the fields */
    node_ix head = by_id(&g, 0x4001);
    assert_int_equal(n_virtual(&vo, head), 2);
    want_virtual(&g, &vo, head, 0, 0x4011, 0, NULL);
    want_virtual(&g, &vo, head, 1, 0x4013, 2, NULL);
    assert_int_equal(n_virtual(&vo, by_id(&g, 0x4002)), 0);

    /* ObjectAnimator: the WeakReference's referent as mTarget, low priority, then the field */
    node_ix an = by_id(&g, 0x5000);
    e = vo.first_edge[an];
    assert_int_equal(virt_real_edge(&vo, e), GRAPH_NONE);
    assert_int_equal(GRAPH_EDGE_KIND(vo.edge_kind[e]), GRAPH_EDGE_FIELD);
    assert_string_equal(graph_str(&g, vo.edge_name[e]), "mTarget");
    assert_int_equal(vo.edge_to[e], by_id(&g, 0x9005));
    assert_int_equal(virt_edge_priority(&vo, e), VIRT_PRIO_LOW);
    assert_int_equal(vo.edge_to[e + 1], by_id(&g, 0x5001));
    assert_int_equal(virt_edge_priority(&vo, e + 1), VIRT_PRIO_RULES);

    /* Dalvik LinkedList: the voidLink sentinel takes position 0 */
    node_ix ll = by_id(&g, 0x6000);
    assert_int_equal(n_virtual(&vo, ll), 2);
    want_virtual(&g, &vo, ll, 0, 0x9006, 1, NULL);
    want_virtual(&g, &vo, ll, 1, 0x9007, 2, NULL);

    virt_free(&vo);
    graph_fini(&g);
    mfile_close(&m);
    free(d.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dialer),
        cmocka_unit_test(test_android_readers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
