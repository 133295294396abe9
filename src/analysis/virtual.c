/* SPDX-License-Identifier: Apache-2.0 */
/* virtual.c: Shark's reference readers as an edge overlay (analysis layer), prefix virt_.
 * Per node, in Shark 2.14's order (ChainingInstanceReferenceReader: the first matching virtual
 * reader, then the field reader): the collection's element references, then the non-field
 * edges as the reader made them, then instance fields sorted by name (stable, so shadowed
 * fields keep their hierarchy order). Collection internals (elementData, table, nodes) stay
 * reachable through the fields, as in 2.14; they are just never first. Walking a collection
 * reads untrusted data: chains stop at a node already seen in the same collection, and the
 * whole expansion has a step budget proportional to the graph, past which collections are
 * left as plain objects. Readers are chosen per class by exact name, as Shark matches them,
 * and only where the dump's classes have the layout the reader needs. Facts:
 * docs/research/hprof-leakcanary-shark.md sections 5, 6.5, and Shark 2.14's
 * AndroidReferenceReaders / ApacheHarmonyInstanceRefReaders. */
#include "analysis/virtual.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum virt_reader {
    VR_NONE = 0,
    VR_PLAIN,       /* String, boxed primitive: no references at all */
    VR_WRAPPER_ARR, /* Integer[] and friends: no references */
    VR_WEAK_REF_CLASS, /* java.lang.ref.WeakReference itself: fields as usual */
    VR_ARRAY_LIST,  /* elementData (JDK) or array (Android) up to size */
    VR_COW_LIST,    /* CopyOnWriteArrayList.array */
    VR_LINKED_LIST, /* first -> Node.next, Node.item */
    VR_HASH_MAP,    /* table -> Node.next, key(), value named by key */
    VR_CHM,         /* ConcurrentHashMap: table -> Node.next, key(), val */
    VR_HASH_SET,    /* map -> HashMap.table, keys as element() */
    VR_LINKED_LIST_H, /* Apache Harmony (Dalvik): voidLink -> Link.next, Link.data */
    VR_COW_LIST_H,  /* Apache Harmony: CopyOnWriteArrayList.elements */
    VR_HASH_SET_H,  /* Apache Harmony: backingMap -> HashMap.table, keys as element() */
    VR_MESSAGE_QUEUE, /* mMessages -> Message.next, each message as [i] */
    VR_ARRAY_SET,   /* android.util.ArraySet.mArray, non-null entries as element() */
    VR_SAFE_MAP,    /* androidx SafeIterableMap: mStart -> Entry.mNext, mKey key(), mValue */
    VR_ACTIVITY_THREAD, /* ActivityThread.mNewActivities first, normal priority */
    VR_CLIENT_RECORD, /* the mNewActivities head: destroyed activities along nextIdle */
    VR_ANIMATOR,    /* ObjectAnimator.mTarget through a WeakReference, low priority */
};

static const struct {
    const char *name;
    uint8_t reader;
} virt_classes[] = {
    {"java.lang.String", VR_PLAIN},
    {"java.lang.Boolean", VR_PLAIN},
    {"java.lang.Character", VR_PLAIN},
    {"java.lang.Float", VR_PLAIN},
    {"java.lang.Double", VR_PLAIN},
    {"java.lang.Byte", VR_PLAIN},
    {"java.lang.Short", VR_PLAIN},
    {"java.lang.Integer", VR_PLAIN},
    {"java.lang.Long", VR_PLAIN},
    {"java.lang.Boolean[]", VR_WRAPPER_ARR},
    {"java.lang.Character[]", VR_WRAPPER_ARR},
    {"java.lang.Float[]", VR_WRAPPER_ARR},
    {"java.lang.Double[]", VR_WRAPPER_ARR},
    {"java.lang.Byte[]", VR_WRAPPER_ARR},
    {"java.lang.Short[]", VR_WRAPPER_ARR},
    {"java.lang.Integer[]", VR_WRAPPER_ARR},
    {"java.lang.Long[]", VR_WRAPPER_ARR},
    {"java.util.ArrayList", VR_ARRAY_LIST},
    {"java.util.concurrent.CopyOnWriteArrayList", VR_COW_LIST},
    {"java.util.LinkedList", VR_LINKED_LIST},
    {"java.util.HashMap", VR_HASH_MAP},
    {"java.util.LinkedHashMap", VR_HASH_MAP},
    {"java.util.concurrent.ConcurrentHashMap", VR_CHM},
    {"java.util.HashSet", VR_HASH_SET},
    {"java.util.LinkedHashSet", VR_HASH_SET},
    {"android.os.MessageQueue", VR_MESSAGE_QUEUE},
    {"android.util.ArraySet", VR_ARRAY_SET},
    {"androidx.arch.core.internal.SafeIterableMap", VR_SAFE_MAP},
    {"androidx.arch.core.internal.FastSafeIterableMap", VR_SAFE_MAP},
    {"android.app.ActivityThread", VR_ACTIVITY_THREAD},
    {"android.app.ActivityThread$ActivityClientRecord", VR_CLIENT_RECORD},
    {"android.animation.ObjectAnimator", VR_ANIMATOR},
};

typedef struct builder {
    const graph *g;
    virt_overlay *vo;
    uint32_t cap;        /* capacity of the edge arrays */
    uint8_t *reader;     /* per class: enum virt_reader */
    uint32_t *seen;      /* per node: stamp of the collection that last walked it */
    uint32_t stamp;
    uint64_t budget;     /* chain/array steps left for all collections */
    int failed;          /* out of memory */
    node_ix *heads;      /* ActivityThread.mNewActivities targets, ascending */
    uint32_t n_heads;
    uint32_t cap_prio;
} builder;

static int grow(builder *b, uint32_t need)
{
    virt_overlay *vo = b->vo;
    if (need <= b->cap)
        return 0;
    uint64_t nc = (uint64_t)b->cap + b->cap / 2 + 1024;
    if (nc < need)
        nc = need;
    if (nc > UINT32_MAX - 1)
        return -1;
    node_ix *to = err_reallocarray(vo->edge_to, nc, sizeof *to);
    if (to)
        vo->edge_to = to;
    uint32_t *nm = err_reallocarray(vo->edge_name, nc, sizeof *nm);
    if (nm)
        vo->edge_name = nm;
    uint8_t *k = err_reallocarray(vo->edge_kind, nc, sizeof *k);
    if (k)
        vo->edge_kind = k;
    edge_ix *re = err_reallocarray(vo->edge_real, nc, sizeof *re);
    if (re)
        vo->edge_real = re;
    uint32_t *lb = err_reallocarray(vo->edge_label, nc, sizeof *lb);
    if (lb)
        vo->edge_label = lb;
    if (!to || !nm || !k || !re || !lb)
        return -1;
    b->cap = (uint32_t)nc;
    return 0;
}

static void push(builder *b, node_ix to, uint8_t kind, uint32_t name, edge_ix real, uint32_t label)
{
    virt_overlay *vo = b->vo;
    if (b->failed || grow(b, vo->n_edges + 1)) {
        b->failed = 1;
        return;
    }
    uint32_t i = vo->n_edges++;
    vo->edge_to[i] = to;
    vo->edge_kind[i] = kind;
    vo->edge_name[i] = name;
    vo->edge_real[i] = real;
    vo->edge_label[i] = label;
}

/* Marks the overlay edge just pushed with a priority of its own (edges come in ascending
 * order, so the list stays sorted for virt_edge_priority's binary search). */
static void set_priority(builder *b, uint8_t prio)
{
    virt_overlay *vo = b->vo;
    if (b->failed || vo->n_edges == 0)
        return;
    if (vo->n_prio == b->cap_prio) {
        uint32_t nc = b->cap_prio ? b->cap_prio * 2 : 16;
        edge_ix *pe = err_reallocarray(vo->prio_edge, nc, sizeof *pe);
        if (pe)
            vo->prio_edge = pe;
        uint8_t *pv = err_reallocarray(vo->prio, nc, 1);
        if (pv)
            vo->prio = pv;
        if (!pe || !pv) {
            b->failed = 1;
            return;
        }
        b->cap_prio = nc;
    }
    vo->prio_edge[vo->n_prio] = vo->n_edges - 1;
    vo->prio[vo->n_prio++] = prio;
}

/* The first real field edge of x named `name`, GRAPH_NONE without one. */
static edge_ix field_edge(const graph *g, node_ix x, const char *name)
{
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_FIELD &&
            !strcmp(graph_str(g, g->edge_name[e]), name))
            return e;
    return GRAPH_NONE;
}

/* Whether class c itself (not a superclass) declares instance field `name`. */
static int declares(const graph *g, class_ix c, const char *name)
{
    if (c >= g->n_classes)
        return 0;
    const graph_class *k = &g->classes[c];
    for (uint32_t i = 0; i < k->n_fields && k->first_field + i < g->n_fields; i++)
        if (!strcmp(graph_str(g, g->fields[k->first_field + i].name), name))
            return 1;
    return 0;
}

static int cmp_node(const void *a, const void *b)
{
    node_ix x = *(const node_ix *)a, y = *(const node_ix *)b;
    return (x > y) - (x < y);
}

static int is_head(const builder *b, node_ix x)
{
    return b->n_heads && bsearch(&x, b->heads, b->n_heads, sizeof x, cmp_node) != NULL;
}

/* Appends a label to the pool; its offset, or UINT32_MAX on failure. */
static uint32_t add_label(builder *b, const char *s)
{
    virt_overlay *vo = b->vo;
    size_t n = strlen(s) + 1;
    if (vo->n_pool + n > UINT32_MAX - 1) {
        b->failed = 1;
        return UINT32_MAX;
    }
    if (vo->n_pool + n > vo->cap_pool) {
        size_t nc = vo->cap_pool * 2 + n + 4096;
        char *p = realloc(vo->pool, nc);
        if (!p) {
            b->failed = 1;
            return UINT32_MAX;
        }
        vo->pool = p;
        vo->cap_pool = nc;
    }
    memcpy(vo->pool + vo->n_pool, s, n);
    uint32_t off = (uint32_t)vo->n_pool;
    vo->n_pool += n;
    return off;
}

/* Label offset of the fixed names "key()" / "element()", made once. */
typedef struct fixed_labels {
    uint32_t key, element;
} fixed_labels;

/* An object-typed field of n by name; GRAPH_NONE when absent, null or not in the dump. */
static node_ix ref_field(const graph *g, node_ix n, const char *name, int *present)
{
    graph_value v;
    if (present)
        *present = 0;
    if (n >= g->n_nodes || !graph_field_find(g, n, name, &v) || v.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    if (present)
        *present = v.raw != 0;
    return v.ref < g->n_nodes ? v.ref : GRAPH_NONE;
}

/* Whether the walk may step on node x (not yet seen in this collection, budget left). */
static int step(builder *b, node_ix x)
{
    if (x >= b->g->n_nodes || b->seen[x] == b->stamp || b->budget == 0)
        return 0;
    b->seen[x] = b->stamp;
    b->budget--;
    return 1;
}

/* Elements of object array arr as (position, node), position < limit. */
static void array_elements(builder *b, node_ix arr, uint64_t limit, uint32_t *index)
{
    const graph *g = b->g;
    if (arr >= g->n_nodes || g->node_kind[arr] != GRAPH_KIND_OBJ_ARRAY)
        return;
    for (edge_ix e = g->first_edge[arr]; e < g->first_edge[arr + 1] && !b->failed; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT || g->edge_name[e] >= limit)
            continue;
        if (b->budget == 0)
            return;
        b->budget--;
        push(b, g->edge_to[e], GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG),
             g->edge_name[e], GRAPH_NONE, UINT32_MAX);
        (*index)++;
    }
}

/* Shark names a map value by its key: a String key quoted, else the key object's toString
 * ("instance @<id> of <class>", "class <name>", ...), "null" without one. */
static void key_name(const graph *g, node_ix key, char *buf, size_t cap)
{
    if (key == GRAPH_NONE) {
        snprintf(buf, cap, "null");
        return;
    }
    const char *cn = graph_class_name(g, key);
    if (g->node_kind[key] == GRAPH_KIND_INSTANCE && !strcmp(cn, "java.lang.String")) {
        char s[2048];
        if (graph_string_value(g, key, s, sizeof s) >= 0) {
            snprintf(buf, cap, "\"%s\"", s);
            return;
        }
    }
    unsigned long long id = (unsigned long long)g->node_id[key];
    switch (g->node_kind[key]) {
    case GRAPH_KIND_CLASS: {
        class_ix c = GRAPH_NONE;
        for (class_ix i = 0; i < g->n_classes; i++)
            if (g->classes[i].node == key) {
                c = i;
                break;
            }
        snprintf(buf, cap, "class %s", c != GRAPH_NONE ? graph_str(g, g->classes[c].name) : cn);
        break;
    }
    case GRAPH_KIND_OBJ_ARRAY: snprintf(buf, cap, "object array @%llu of %s", id, cn); break;
    case GRAPH_KIND_PRIM_ARRAY: snprintf(buf, cap, "primitive array @%llu of %s", id, cn); break;
    default: snprintf(buf, cap, "instance @%llu of %s", id, cn); break;
    }
}

/* HashMap-like table walk: every bucket's chain through `next`; per entry a key() reference
 * (or element() when keys_only) and, unless keys_only, the value named by its key. */
static void map_entries(builder *b, node_ix table, const char *val_field, int keys_only,
                        const fixed_labels *fl)
{
    const graph *g = b->g;
    if (table >= g->n_nodes || g->node_kind[table] != GRAPH_KIND_OBJ_ARRAY)
        return;
    uint32_t index = 0;
    char name[2200];
    for (edge_ix e = g->first_edge[table]; e < g->first_edge[table + 1] && !b->failed; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT)
            continue;
        for (node_ix n = g->edge_to[e]; !b->failed && step(b, n); n = ref_field(g, n, "next", NULL)) {
            int has_key;
            node_ix key = ref_field(g, n, "key", &has_key);
            if (key != GRAPH_NONE)
                push(b, key, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), index++, GRAPH_NONE,
                     keys_only ? fl->element : fl->key);
            if (keys_only)
                continue;
            node_ix val = ref_field(g, n, val_field, NULL);
            if (val == GRAPH_NONE)
                continue;
            key_name(g, has_key ? key : GRAPH_NONE, name, sizeof name);
            uint32_t lb = add_label(b, name);
            push(b, val, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), index++, GRAPH_NONE, lb);
        }
    }
}

static void copy_edge(builder *b, edge_ix e, uint32_t name);

/* Linked nodes from `n` along `next`, each node's `item` as [position]; positions count every
 * node, so an entry without item (Harmony's voidLink sentinel) leaves a gap, as in Shark. */
static void chain_items(builder *b, node_ix n, const char *next, const char *item)
{
    const graph *g = b->g;
    for (uint32_t pos = 0; !b->failed && step(b, n); n = ref_field(g, n, next, NULL), pos++) {
        node_ix it = item ? ref_field(g, n, item, NULL) : n;
        if (it != GRAPH_NONE)
            push(b, it, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), pos, GRAPH_NONE,
                 UINT32_MAX);
    }
}

/* SafeIterableMap: mStart -> Entry.mNext; per entry mKey as key(), mValue named by its key. */
static void safe_map(builder *b, node_ix x, const fixed_labels *fl)
{
    const graph *g = b->g;
    uint32_t index = 0;
    char name[2200];
    for (node_ix n = ref_field(g, x, "mStart", NULL); !b->failed && step(b, n);
         n = ref_field(g, n, "mNext", NULL)) {
        int has_key;
        node_ix key = ref_field(g, n, "mKey", &has_key);
        if (key != GRAPH_NONE)
            push(b, key, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), index++, GRAPH_NONE,
                 fl->key);
        node_ix val = ref_field(g, n, "mValue", NULL);
        if (val == GRAPH_NONE)
            continue;
        key_name(g, has_key ? key : GRAPH_NONE, name, sizeof name);
        uint32_t lb = add_label(b, name);
        push(b, val, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), index++, GRAPH_NONE, lb);
    }
}

/* The head ActivityClientRecord of ActivityThread.mNewActivities: along nextIdle, each
 * record's activity when that activity is destroyed (mDestroyed), as [position]. */
static void new_activities(builder *b, node_ix x)
{
    const graph *g = b->g;
    for (uint32_t pos = 0; !b->failed && step(b, x); x = ref_field(g, x, "nextIdle", NULL), pos++) {
        node_ix act = ref_field(g, x, "activity", NULL);
        graph_value d;
        if (act == GRAPH_NONE || g->node_kind[act] != GRAPH_KIND_INSTANCE ||
            !graph_field_find(g, act, "mDestroyed", &d) || d.type != GRAPH_FT_BOOLEAN || !d.raw)
            continue;
        push(b, act, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), pos, GRAPH_NONE,
             UINT32_MAX);
    }
}

/* The element references of collection x read by reader r. Returns a real edge of x the
 * reader already gave (not to repeat among the fields), GRAPH_NONE otherwise. */
static edge_ix expand(builder *b, node_ix x, unsigned r, const fixed_labels *fl)
{
    const graph *g = b->g;
    uint32_t before = b->vo->n_edges, index = 0;
    edge_ix given = GRAPH_NONE;
    b->stamp++;
    b->seen[x] = b->stamp;
    switch (r) {
    case VR_ARRAY_LIST: {
        node_ix arr = ref_field(g, x, "elementData", NULL);
        if (arr == GRAPH_NONE)
            arr = ref_field(g, x, "array", NULL);
        graph_value sz;
        uint64_t limit = UINT64_MAX;
        if (graph_field_find(g, x, "size", &sz) && sz.type == GRAPH_FT_INT)
            limit = (int32_t)(uint32_t)sz.raw < 0 ? 0 : (uint32_t)sz.raw;
        array_elements(b, arr, limit, &index);
        break;
    }
    case VR_COW_LIST:
        array_elements(b, ref_field(g, x, "array", NULL), UINT64_MAX, &index);
        break;
    case VR_COW_LIST_H:
        array_elements(b, ref_field(g, x, "elements", NULL), UINT64_MAX, &index);
        break;
    case VR_LINKED_LIST:
        chain_items(b, ref_field(g, x, "first", NULL), "next", "item");
        break;
    case VR_LINKED_LIST_H:
        chain_items(b, ref_field(g, x, "voidLink", NULL), "next", "data");
        break;
    case VR_MESSAGE_QUEUE:
        chain_items(b, ref_field(g, x, "mMessages", NULL), "next", NULL);
        break;
    case VR_HASH_MAP:
        map_entries(b, ref_field(g, x, "table", NULL), "value", 0, fl);
        break;
    case VR_CHM:
        map_entries(b, ref_field(g, x, "table", NULL), "val", 0, fl);
        break;
    case VR_HASH_SET:
    case VR_HASH_SET_H: {
        node_ix map = ref_field(g, x, r == VR_HASH_SET ? "map" : "backingMap", NULL);
        if (map != GRAPH_NONE && step(b, map))
            map_entries(b, ref_field(g, map, "table", NULL), "value", 1, fl);
        break;
    }
    case VR_ARRAY_SET: {
        node_ix arr = ref_field(g, x, "mArray", NULL);
        uint32_t first = b->vo->n_edges;
        array_elements(b, arr, UINT64_MAX, &index);
        for (uint32_t i = first; i < b->vo->n_edges; i++)
            b->vo->edge_label[i] = fl->element;
        break;
    }
    case VR_SAFE_MAP:
        safe_map(b, x, fl);
        break;
    case VR_ACTIVITY_THREAD:
        /* Shark gives mNewActivities first, at normal priority, tagged as a library leak
         * (the rules tag it); the field reader repeats it later */
        given = field_edge(g, x, "mNewActivities");
        if (given != GRAPH_NONE) {
            copy_edge(b, given, g->edge_name[given]);
            set_priority(b, VIRT_PRIO_NORMAL);
        }
        return given;
    case VR_CLIENT_RECORD:
        if (is_head(b, x)) {
            b->seen[x] = 0;
            new_activities(b, x);
        }
        break;
    case VR_ANIMATOR: {
        /* API 26+ keeps the target behind a WeakReference: Shark reads through it, at low
         * priority, as the field itself */
        edge_ix te = field_edge(g, x, "mTarget");
        if (te == GRAPH_NONE)
            break;
        node_ix w = g->edge_to[te];
        class_ix wc = g->node_class[w];
        if (g->node_kind[w] != GRAPH_KIND_INSTANCE || wc >= g->n_classes ||
            b->reader[wc] != VR_WEAK_REF_CLASS)
            break;
        node_ix ref = ref_field(g, w, "referent", NULL);
        if (ref == GRAPH_NONE)
            break;
        push(b, ref, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG), g->edge_name[te],
             GRAPH_NONE, UINT32_MAX);
        set_priority(b, VIRT_PRIO_LOW);
        break;
    }
    default: break;
    }
    if (b->vo->n_edges > before) {
        b->vo->n_collections++;
        b->vo->n_virtual += b->vo->n_edges - before;
    }
    return given;
}

typedef struct field_ref {
    const char *name;
    edge_ix e;
} field_ref;

static int cmp_field(const void *a, const void *b)
{
    const field_ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->e > y->e) - (x->e < y->e);
}

static void copy_edge(builder *b, edge_ix e, uint32_t name)
{
    const graph *g = b->g;
    push(b, g->edge_to[e], g->edge_kind[e], name, e, UINT32_MAX);
}

/* Readers per class, by exact class name as Shark matches them; a reader whose layout the
 * dump's class lacks is not made (Shark's factories return none), and the Apache Harmony
 * (Dalvik) layouts get their own readers. Returns -1 on allocation failure. */
static int set_readers(builder *b)
{
    const graph *g = b->g;
    class_ix at = graph_find_class(g, "android.app.ActivityThread");
    class_ix acr = graph_find_class(g, "android.app.ActivityThread$ActivityClientRecord");
    int new_acts = declares(g, at, "mNewActivities") && declares(g, acr, "nextIdle") &&
                   declares(g, acr, "activity");
    /* Shark picks the Apache Harmony reader of a family from its base class's layout */
    int ll_h = declares(g, graph_find_class(g, "java.util.LinkedList"), "voidLink");
    int cow_h = declares(g, graph_find_class(g, "java.util.concurrent.CopyOnWriteArrayList"),
                         "elements");
    int hs_h = declares(g, graph_find_class(g, "java.util.HashSet"), "backingMap");
    for (class_ix c = 0; c < g->n_classes; c++) {
        const char *cn = graph_str(g, g->classes[c].name);
        if (!strcmp(cn, "java.lang.ref.WeakReference")) {
            b->reader[c] = VR_WEAK_REF_CLASS;
            continue;
        }
        uint8_t r = VR_NONE;
        for (size_t i = 0; i < sizeof virt_classes / sizeof *virt_classes; i++)
            if (!strcmp(cn, virt_classes[i].name)) {
                r = virt_classes[i].reader;
                break;
            }
        if (r == VR_LINKED_LIST && ll_h)
            r = VR_LINKED_LIST_H;
        else if (r == VR_COW_LIST && cow_h)
            r = VR_COW_LIST_H;
        else if (r == VR_HASH_SET && hs_h)
            r = VR_HASH_SET_H;
        else if ((r == VR_ACTIVITY_THREAD || r == VR_CLIENT_RECORD) && !new_acts)
            r = VR_NONE;
        b->reader[c] = r;
    }
    return 0;
}

/* The records ActivityThread.mNewActivities points at (Shark remembers the one it read). */
static int find_heads(builder *b)
{
    const graph *g = b->g;
    uint32_t cap = 0;
    for (node_ix x = 0; x < g->n_nodes; x++) {
        class_ix c = g->node_class[x];
        if (g->node_kind[x] != GRAPH_KIND_INSTANCE || c >= g->n_classes ||
            b->reader[c] != VR_ACTIVITY_THREAD)
            continue;
        node_ix h = ref_field(g, x, "mNewActivities", NULL);
        if (h == GRAPH_NONE)
            continue;
        if (b->n_heads == cap) {
            uint32_t nc = cap ? cap * 2 : 4;
            node_ix *t = err_reallocarray(b->heads, nc, sizeof *t);
            if (!t)
                return -1;
            b->heads = t;
            cap = nc;
        }
        b->heads[b->n_heads++] = h;
    }
    if (b->n_heads > 1)
        qsort(b->heads, b->n_heads, sizeof *b->heads, cmp_node);
    return 0;
}

lr_status virt_build(const graph *g, virt_overlay *vo, lr_error *err)
{
    memset(vo, 0, sizeof *vo);
    if (!g->format || strcmp(g->format, "hprof") || !g->first_edge)
        return LR_OK;
    builder b;
    memset(&b, 0, sizeof b);
    b.g = g;
    b.vo = vo;
    b.budget = 4 * ((uint64_t)g->n_edges + g->n_nodes) + 1024;
    uint32_t nn = g->n_nodes;
    field_ref *fr = NULL;
    uint32_t fr_cap = 0;
    b.reader = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    b.seen = err_calloc(nn ? nn : 1, sizeof *b.seen);
    vo->first_edge = err_mallocarray((size_t)nn + 1, sizeof *vo->first_edge);
    if (!b.reader || !b.seen || !vo->first_edge || grow(&b, g->n_edges + 1024))
        goto nomem;
    if (set_readers(&b) || find_heads(&b))
        goto nomem;
    fixed_labels fl = {add_label(&b, "key()"), add_label(&b, "element()")};
    for (node_ix x = 0; x < nn && !b.failed; x++) {
        vo->first_edge[x] = vo->n_edges;
        edge_ix e0 = g->first_edge[x], e1 = g->first_edge[x + 1];
        class_ix c = g->node_class[x];
        unsigned r = c < g->n_classes ? b.reader[c] : VR_NONE;
        unsigned kind = g->node_kind[x];
        if (kind == GRAPH_KIND_OBJ_ARRAY) {
            /* Shark numbers entries among the non-null elements present in the dump */
            uint32_t k = 0;
            for (edge_ix e = e0; e < e1; e++) {
                if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT)
                    copy_edge(&b, e, g->edge_name[e]);
                else if (r != VR_WRAPPER_ARR)
                    copy_edge(&b, e, k++);
            }
            continue;
        }
        if (kind != GRAPH_KIND_INSTANCE) {
            for (edge_ix e = e0; e < e1; e++)
                copy_edge(&b, e, g->edge_name[e]);
            continue;
        }
        edge_ix given = r >= VR_ARRAY_LIST ? expand(&b, x, r, &fl) : GRAPH_NONE;
        uint32_t nf = 0;
        for (edge_ix e = e0; e < e1; e++) {
            if (e == given)
                continue;
            if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_FIELD) {
                copy_edge(&b, e, g->edge_name[e]);
                continue;
            }
            if (r == VR_PLAIN)
                continue;
            const char *name = graph_str(g, g->edge_name[e]);
            /* java.lang.Object's ART class pointer is not a reference Shark follows */
            if (!strcmp(name, "shadow$_klass_"))
                continue;
            if (nf == fr_cap) {
                uint32_t nc = fr_cap ? fr_cap * 2 : 64;
                field_ref *t = err_reallocarray(fr, nc, sizeof *fr);
                if (!t)
                    goto nomem;
                fr = t;
                fr_cap = nc;
            }
            fr[nf].name = name;
            fr[nf].e = e;
            nf++;
        }
        if (nf > 1)
            qsort(fr, nf, sizeof *fr, cmp_field);
        for (uint32_t i = 0; i < nf; i++)
            copy_edge(&b, fr[i].e, g->edge_name[fr[i].e]);
    }
    if (b.failed)
        goto nomem;
    vo->first_edge[nn] = vo->n_edges;
    free(fr);
    free(b.reader);
    free(b.seen);
    free(b.heads);
    return LR_OK;
nomem:
    free(fr);
    free(b.reader);
    free(b.seen);
    free(b.heads);
    virt_free(vo);
    return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building the virtual reference view");
}

void virt_view(const graph *g, const virt_overlay *vo, graph *view)
{
    *view = *g;
    if (!vo->first_edge)
        return;
    view->n_edges = vo->n_edges;
    view->first_edge = vo->first_edge;
    view->edge_to = vo->edge_to;
    view->edge_name = vo->edge_name;
    view->edge_kind = vo->edge_kind;
    view->rev_first = NULL;
    view->rev_edge = NULL;
}

edge_ix virt_real_edge(const virt_overlay *vo, edge_ix e)
{
    if (!vo->first_edge)
        return e;
    return e < vo->n_edges ? vo->edge_real[e] : GRAPH_NONE;
}

int virt_edge_priority(const virt_overlay *vo, edge_ix e)
{
    uint32_t lo = 0, hi = vo->n_prio;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (vo->prio_edge[mid] < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < vo->n_prio && vo->prio_edge[lo] == e ? vo->prio[lo] : VIRT_PRIO_RULES;
}

const char *virt_edge_label(const virt_overlay *vo, edge_ix e)
{
    if (!vo->first_edge || e >= vo->n_edges || vo->edge_label[e] == UINT32_MAX ||
        vo->edge_label[e] >= vo->n_pool)
        return NULL;
    return vo->pool + vo->edge_label[e];
}

void virt_free(virt_overlay *vo)
{
    free(vo->first_edge);
    free(vo->edge_to);
    free(vo->edge_name);
    free(vo->edge_kind);
    free(vo->edge_real);
    free(vo->edge_label);
    free(vo->pool);
    free(vo->prio_edge);
    free(vo->prio);
    memset(vo, 0, sizeof *vo);
}
