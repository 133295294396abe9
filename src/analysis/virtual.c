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

/* Fields the readers look up by name. */
enum virt_field {
    VF_NEXT, VF_KEY, VF_VALUE, VF_VAL, VF_ELEMENT_DATA, VF_ARRAY, VF_SIZE, VF_ELEMENTS,
    VF_FIRST, VF_ITEM, VF_VOID_LINK, VF_DATA, VF_MESSAGES, VF_TABLE, VF_MAP, VF_BACKING_MAP,
    VF_MARRAY, VF_MSTART, VF_MNEXT, VF_MKEY, VF_MVALUE, VF_NEXT_IDLE, VF_ACTIVITY,
    VF_DESTROYED, VF_REFERENT, VF_NEW_ACTIVITIES, VF_NONE, VF_COUNT = VF_NONE
};

static const char *const virt_field_names[VF_COUNT] = {
    "next", "key", "value", "val", "elementData", "array", "size", "elements",
    "first", "item", "voidLink", "data", "mMessages", "table", "map", "backingMap",
    "mArray", "mStart", "mNext", "mKey", "mValue", "nextIdle", "activity",
    "mDestroyed", "referent", "mNewActivities",
};

/* Label codes of virtual edges, stored as UINT32_MAX - code in edge_aux (so a plain one is
 * GRAPH_NONE); a map value's label is made from its key node only when asked for. */
enum {
    VL_PLAIN = 0,
    VL_KEY = 1,     /* "key()" */
    VL_ELEMENT = 2, /* "element()" */
    VL_VALUE = 3,   /* + key node (n_nodes for a null key): the value named by its key */
};

/* A virtual edge made by a collection reader, kept until the exact arrays exist. */
typedef struct vedge {
    node_ix to;
    uint32_t name;
    uint32_t aux;
    uint8_t kind;
} vedge;

/* A collection's virtual edges: the node and how many of the buffered ones are its. */
typedef struct vcoll {
    node_ix node;
    uint32_t n;
    edge_ix given; /* the real edge the reader already gave, GRAPH_NONE without */
} vcoll;

/* Layout of a named field in a class, as graph_fields_each finds it (most-derived first):
 * bit 63 known, bit 62 present, bits 8..61 byte offset, bits 0..7 graph_ftype. */
#define VF_KNOWN (1ull << 63)
#define VF_PRESENT (1ull << 62)

typedef struct builder {
    const graph *g;
    virt_overlay *vo;
    uint8_t *reader;     /* per class: enum virt_reader */
    uint8_t *seen;       /* per node bit: walked by the current collection */
    node_ix *walked;     /* the nodes whose seen bit is set, to clear them after it */
    uint32_t n_walked, cap_walked;
    uint64_t budget;     /* chain/array steps left for all collections */
    int failed;          /* out of memory */
    node_ix *heads;      /* ActivityThread.mNewActivities targets, ascending */
    uint32_t n_heads;
    uint32_t cap_prio;
    uint64_t *layout[VF_COUNT]; /* per field, per class: VF_KNOWN..., made on first use */
    vedge *tv;           /* virtual edges, in node order */
    uint32_t n_tv, cap_tv;
    vcoll *coll;         /* collections that made edges (or gave one) */
    uint32_t n_coll, cap_coll;
    uint64_t at;         /* overlay index of the next edge of the current node */
    uint32_t *rank;      /* per string: 1 + rank of a field name in strcmp order, 0 if none */
    uint32_t n_rank;
    uint32_t shadow;     /* rank of "shadow$_klass_", 0 when no field has that name */
} builder;

static int grow_array(void **p, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    uint64_t nc = (uint64_t)*cap + *cap / 2 + 64;
    if (nc < need)
        nc = need;
    if (nc > UINT32_MAX - 1)
        return -1;
    void *t = err_reallocarray(*p, nc, size);
    if (!t)
        return -1;
    *p = t;
    *cap = (uint32_t)nc;
    return 0;
}

/* Buffers a virtual edge of the node being read (or the real edge a reader gives first). */
static void push(builder *b, node_ix to, uint8_t kind, uint32_t name, uint32_t aux)
{
    if (b->failed || grow_array((void **)&b->tv, &b->cap_tv, b->n_tv + 1, sizeof *b->tv)) {
        b->failed = 1;
        return;
    }
    b->tv[b->n_tv++] = (vedge){to, name, aux, kind};
}

static uint32_t value_label(const builder *b, node_ix key)
{
    return UINT32_MAX - VL_VALUE - (key < b->g->n_nodes ? key : b->g->n_nodes);
}

/* Marks the edge just buffered with a priority of its own (edges come in ascending order, so
 * the list stays sorted for virt_edge_priority's binary search). */
static void set_priority(builder *b, uint32_t first_tv, uint8_t prio)
{
    virt_overlay *vo = b->vo;
    if (b->failed || b->n_tv == first_tv)
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
    uint64_t at = b->at + (b->n_tv - 1 - first_tv);
    if (at > UINT32_MAX - 1) {
        b->failed = 1;
        return;
    }
    vo->prio_edge[vo->n_prio] = (edge_ix)at;
    vo->prio[vo->n_prio++] = prio;
}

/* The first real field edge of x named `name`, GRAPH_NONE without one. */
static edge_ix field_edge(const graph *g, node_ix x, const char *name)
{
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_FIELD &&
            !strcmp(graph_str(g, graph_edge_name(g, e)), name))
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

/* Where graph_fields_each would find field `name` of class c's instances: the walk stops at
 * a field of unknown size, and takes the first field of that name, most-derived first. */
static uint64_t field_layout(const graph *g, class_ix c, const char *name)
{
    uint64_t pos = 0;
    for (uint32_t hops = 0; c != GRAPH_NONE && c < g->n_classes && hops <= g->n_classes; hops++) {
        const graph_class *k = &g->classes[c];
        for (uint32_t i = 0; i < k->n_fields; i++) {
            if ((uint64_t)k->first_field + i >= g->n_fields)
                return VF_KNOWN;
            const graph_field *f = &g->fields[k->first_field + i];
            unsigned sz = graph_ftype_size(g, f->type);
            if (sz == 0)
                return VF_KNOWN;
            if (!strcmp(graph_str(g, f->name), name))
                return VF_KNOWN | VF_PRESENT | pos << 8 | f->type;
            pos += sz;
        }
        c = k->super;
    }
    return VF_KNOWN;
}

/* graph_field_find(g, n, virt_field_names[f], out), with the field's place in the instance
 * bytes worked out once per class rather than decoding every field before it. */
static int field_get(builder *b, node_ix n, unsigned f, graph_value *out)
{
    const graph *g = b->g;
    if (n >= g->n_nodes)
        return 0;
    if (graph_node_off(g, n) == UINT64_MAX || g->node_kind[n] != GRAPH_KIND_INSTANCE || !g->id_size)
        return graph_field_find(g, n, virt_field_names[f], out);
    if (!g->data)
        return 0;
    uint64_t pos = graph_node_off(g, n), end = pos + graph_node_len(g, n);
    class_ix c = g->node_class[n];
    if (end > g->data_len || end < pos || c >= g->n_classes)
        return 0;
    if (!b->layout[f]) {
        b->layout[f] = err_calloc(g->n_classes, sizeof *b->layout[f]);
        if (!b->layout[f]) {
            b->failed = 1;
            return 0;
        }
    }
    uint64_t l = b->layout[f][c];
    if (!l)
        l = b->layout[f][c] = field_layout(g, c, virt_field_names[f]);
    if (!(l & VF_PRESENT))
        return 0;
    uint8_t type = (uint8_t)l;
    uint64_t off = (l & ~(VF_KNOWN | VF_PRESENT)) >> 8;
    unsigned sz = graph_ftype_size(g, type);
    if (off + sz > end - pos)
        return 0;
    const uint8_t *p = g->data + pos + off;
    uint64_t v = 0;
    for (unsigned i = 0; i < sz; i++)
        v = (v << 8) | p[i];
    out->type = type;
    out->raw = v;
    out->ref = type == GRAPH_FT_OBJECT && v != 0 ? graph_find_id(g, v) : GRAPH_NONE;
    return 1;
}

/* An object-typed field of n; GRAPH_NONE when absent, null or not in the dump. */
static node_ix ref_field(builder *b, node_ix n, unsigned f, int *present)
{
    graph_value v;
    if (present)
        *present = 0;
    if (n >= b->g->n_nodes || !field_get(b, n, f, &v) || v.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    if (present)
        *present = v.raw != 0;
    return v.ref < b->g->n_nodes ? v.ref : GRAPH_NONE;
}

static void mark(builder *b, node_ix x)
{
    if (grow_array((void **)&b->walked, &b->cap_walked, b->n_walked + 1, sizeof *b->walked)) {
        b->failed = 1;
        return;
    }
    b->walked[b->n_walked++] = x;
    b->seen[x / 8] |= (uint8_t)(1u << (x % 8));
}

/* Whether the walk may step on node x (not yet seen in this collection, budget left). */
static int step(builder *b, node_ix x)
{
    if (x >= b->g->n_nodes || (b->seen[x / 8] >> (x % 8) & 1) || b->budget == 0 || b->failed)
        return 0;
    mark(b, x);
    b->budget--;
    return 1;
}

/* Elements of object array arr as (position, node), position < limit. */
static void array_elements(builder *b, node_ix arr, uint64_t limit, uint32_t aux)
{
    const graph *g = b->g;
    if (arr >= g->n_nodes || g->node_kind[arr] != GRAPH_KIND_OBJ_ARRAY)
        return;
    for (edge_ix e = g->first_edge[arr]; e < g->first_edge[arr + 1] && !b->failed; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT || graph_edge_name(g, e) >= limit)
            continue;
        if (b->budget == 0)
            return;
        b->budget--;
        push(b, g->edge_to[e], GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG),
             graph_edge_name(g, e), aux);
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
    unsigned long long id = (unsigned long long)graph_node_id(g, key);
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
static void map_entries(builder *b, node_ix table, unsigned val_field, int keys_only)
{
    const graph *g = b->g;
    if (table >= g->n_nodes || g->node_kind[table] != GRAPH_KIND_OBJ_ARRAY)
        return;
    uint32_t index = 0;
    for (edge_ix e = g->first_edge[table]; e < g->first_edge[table + 1] && !b->failed; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT)
            continue;
        for (node_ix n = g->edge_to[e]; !b->failed && step(b, n);
             n = ref_field(b, n, VF_NEXT, NULL)) {
            int has_key;
            node_ix key = ref_field(b, n, VF_KEY, &has_key);
            if (key != GRAPH_NONE)
                push(b, key, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), index++,
                     UINT32_MAX - (keys_only ? VL_ELEMENT : VL_KEY));
            if (keys_only)
                continue;
            node_ix val = ref_field(b, n, val_field, NULL);
            if (val == GRAPH_NONE)
                continue;
            push(b, val, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), index++,
                 value_label(b, has_key ? key : GRAPH_NONE));
        }
    }
}

/* Linked nodes from `n` along `next`, each node's `item` as [position]; positions count every
 * node, so an entry without item (Harmony's voidLink sentinel) leaves a gap, as in Shark. */
static void chain_items(builder *b, node_ix n, unsigned next, unsigned item)
{
    for (uint32_t pos = 0; !b->failed && step(b, n); n = ref_field(b, n, next, NULL), pos++) {
        node_ix it = item != VF_NONE ? ref_field(b, n, item, NULL) : n;
        if (it != GRAPH_NONE)
            push(b, it, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), pos, GRAPH_NONE);
    }
}

/* SafeIterableMap: mStart -> Entry.mNext; per entry mKey as key(), mValue named by its key. */
static void safe_map(builder *b, node_ix x)
{
    uint32_t index = 0;
    for (node_ix n = ref_field(b, x, VF_MSTART, NULL); !b->failed && step(b, n);
         n = ref_field(b, n, VF_MNEXT, NULL)) {
        int has_key;
        node_ix key = ref_field(b, n, VF_MKEY, &has_key);
        if (key != GRAPH_NONE)
            push(b, key, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), index++,
                 UINT32_MAX - VL_KEY);
        node_ix val = ref_field(b, n, VF_MVALUE, NULL);
        if (val == GRAPH_NONE)
            continue;
        push(b, val, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), index++,
             value_label(b, has_key ? key : GRAPH_NONE));
    }
}

/* The head ActivityClientRecord of ActivityThread.mNewActivities: along nextIdle, each
 * record's activity when that activity is destroyed (mDestroyed), as [position]. */
static void new_activities(builder *b, node_ix x)
{
    const graph *g = b->g;
    for (uint32_t pos = 0; !b->failed && step(b, x);
         x = ref_field(b, x, VF_NEXT_IDLE, NULL), pos++) {
        node_ix act = ref_field(b, x, VF_ACTIVITY, NULL);
        graph_value d;
        if (act == GRAPH_NONE || g->node_kind[act] != GRAPH_KIND_INSTANCE ||
            !field_get(b, act, VF_DESTROYED, &d) || d.type != GRAPH_FT_BOOLEAN || !d.raw)
            continue;
        push(b, act, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), pos, GRAPH_NONE);
    }
}

/* The element references of collection x read by reader r, buffered in b->tv. Returns a real
 * edge of x the reader already gave (not to repeat among the fields), GRAPH_NONE otherwise. */
static edge_ix expand(builder *b, node_ix x, unsigned r)
{
    const graph *g = b->g;
    uint32_t before = b->n_tv;
    edge_ix given = GRAPH_NONE;
    while (b->n_walked)
        b->seen[b->walked[--b->n_walked] / 8] = 0;
    mark(b, x);
    switch (r) {
    case VR_ARRAY_LIST: {
        node_ix arr = ref_field(b, x, VF_ELEMENT_DATA, NULL);
        if (arr == GRAPH_NONE)
            arr = ref_field(b, x, VF_ARRAY, NULL);
        graph_value sz;
        uint64_t limit = UINT64_MAX;
        if (field_get(b, x, VF_SIZE, &sz) && sz.type == GRAPH_FT_INT)
            limit = (int32_t)(uint32_t)sz.raw < 0 ? 0 : (uint32_t)sz.raw;
        array_elements(b, arr, limit, GRAPH_NONE);
        break;
    }
    case VR_COW_LIST:
        array_elements(b, ref_field(b, x, VF_ARRAY, NULL), UINT64_MAX, GRAPH_NONE);
        break;
    case VR_COW_LIST_H:
        array_elements(b, ref_field(b, x, VF_ELEMENTS, NULL), UINT64_MAX, GRAPH_NONE);
        break;
    case VR_LINKED_LIST:
        chain_items(b, ref_field(b, x, VF_FIRST, NULL), VF_NEXT, VF_ITEM);
        break;
    case VR_LINKED_LIST_H:
        chain_items(b, ref_field(b, x, VF_VOID_LINK, NULL), VF_NEXT, VF_DATA);
        break;
    case VR_MESSAGE_QUEUE:
        chain_items(b, ref_field(b, x, VF_MESSAGES, NULL), VF_NEXT, VF_NONE);
        break;
    case VR_HASH_MAP:
        map_entries(b, ref_field(b, x, VF_TABLE, NULL), VF_VALUE, 0);
        break;
    case VR_CHM:
        map_entries(b, ref_field(b, x, VF_TABLE, NULL), VF_VAL, 0);
        break;
    case VR_HASH_SET:
    case VR_HASH_SET_H: {
        node_ix map = ref_field(b, x, r == VR_HASH_SET ? VF_MAP : VF_BACKING_MAP, NULL);
        if (map != GRAPH_NONE && step(b, map))
            map_entries(b, ref_field(b, map, VF_TABLE, NULL), VF_VALUE, 1);
        break;
    }
    case VR_ARRAY_SET:
        array_elements(b, ref_field(b, x, VF_MARRAY, NULL), UINT64_MAX, UINT32_MAX - VL_ELEMENT);
        break;
    case VR_SAFE_MAP:
        safe_map(b, x);
        break;
    case VR_ACTIVITY_THREAD:
        /* Shark gives mNewActivities first, at normal priority, tagged as a library leak
         * (the rules tag it); the field reader repeats it later */
        given = field_edge(g, x, "mNewActivities");
        if (given != GRAPH_NONE) {
            push(b, g->edge_to[given], g->edge_kind[given], graph_edge_name(g, given), given);
            set_priority(b, before, VIRT_PRIO_NORMAL);
        }
        return given;
    case VR_CLIENT_RECORD:
        if (is_head(b, x)) {
            b->seen[x / 8] &= (uint8_t)~(1u << (x % 8));
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
        node_ix ref = ref_field(b, w, VF_REFERENT, NULL);
        if (ref == GRAPH_NONE)
            break;
        push(b, ref, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG), graph_edge_name(g, te),
             GRAPH_NONE);
        set_priority(b, before, VIRT_PRIO_LOW);
        break;
    }
    default: break;
    }
    if (b->n_tv > before) {
        b->vo->n_collections++;
        b->vo->n_virtual += b->n_tv - before;
    }
    return given;
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
        node_ix h = ref_field(b, x, VF_NEW_ACTIVITIES, NULL);
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
    return b->failed ? -1 : 0;
}

/* ---- field order: instance fields by name, as strcmp orders them ---- */

static _Thread_local const graph *rank_g; /* qsort has no context argument in C11 */

static int cmp_str_ix(const void *a, const void *b)
{
    return strcmp(graph_str(rank_g, *(const str_ix *)a), graph_str(rank_g, *(const str_ix *)b));
}

/* Ranks every declared field name once, so sorting an object's fields compares integers
 * (equal text, equal rank). Names no field declares (a reader's own edges) keep rank 0 and
 * their objects are sorted by text. Returns -1 on allocation failure. */
static int rank_names(builder *b)
{
    const graph *g = b->g;
    uint32_t ns = g->strings.n, n = 0;
    if (!g->n_fields || !ns)
        return 0;
    str_ix *ids = err_mallocarray(g->n_fields, sizeof *ids);
    b->rank = err_calloc(ns, sizeof *b->rank);
    if (!ids || !b->rank) {
        free(ids);
        return -1;
    }
    b->n_rank = ns;
    for (uint32_t i = 0; i < g->n_fields; i++) {
        str_ix s = g->fields[i].name;
        if (s < ns && !b->rank[s]) {
            b->rank[s] = 1;
            ids[n++] = s;
        }
    }
    rank_g = g;
    qsort(ids, n, sizeof *ids, cmp_str_ix);
    uint32_t r = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(graph_str(g, ids[i - 1]), graph_str(g, ids[i])))
            r++;
        b->rank[ids[i]] = r;
        if (!strcmp(graph_str(g, ids[i]), "shadow$_klass_"))
            b->shadow = r;
    }
    free(ids);
    return 0;
}

typedef struct field_ref {
    uint32_t rank;
    edge_ix e;
} field_ref;

static int cmp_field_text(const void *a, const void *b)
{
    const field_ref *x = a, *y = b;
    int c = strcmp(graph_str(rank_g, graph_edge_name(rank_g, x->e)),
                   graph_str(rank_g, graph_edge_name(rank_g, y->e)));
    if (c)
        return c;
    return (x->e > y->e) - (x->e < y->e);
}

static int cmp_field_rank(const void *a, const void *b)
{
    const field_ref *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

/* Whether field edge e is java.lang.Object's ART class pointer, which Shark does not follow. */
static int is_shadow(const builder *b, edge_ix e, uint32_t *rank)
{
    str_ix s = graph_edge_name(b->g, e);
    *rank = s < b->n_rank ? b->rank[s] : 0;
    if (*rank)
        return *rank == b->shadow;
    return !strcmp(graph_str(b->g, s), "shadow$_klass_");
}

/* The real edges node x keeps in the overlay, in Shark's order: for an instance the non-field
 * edges, then its fields by name (none for Strings and boxed primitives, never `given`); array
 * entries renumbered among the non-null ones (none for wrapper arrays). Counts them, and
 * writes them from overlay index `at` unless count_only. */
static uint32_t real_edges(builder *b, node_ix x, unsigned r, edge_ix given, int count_only,
                           field_ref **fr, uint32_t *fr_cap, uint32_t at)
{
    const graph *g = b->g;
    virt_overlay *vo = b->vo;
    edge_ix e0 = g->first_edge[x], e1 = g->first_edge[x + 1];
    unsigned kind = g->node_kind[x];
    uint32_t n = 0;
#define PUT(e, name)                                                   \
    do {                                                               \
        if (!count_only) {                                             \
            vo->edge_to[at + n] = g->edge_to[e];                       \
            vo->edge_name[at + n] = (name);                            \
            vo->edge_kind[at + n] = g->edge_kind[e];                   \
            vo->edge_aux[at + n] = (e);                                \
        }                                                              \
        n++;                                                           \
    } while (0)
    if (kind == GRAPH_KIND_OBJ_ARRAY) {
        /* Shark numbers entries among the non-null elements present in the dump */
        uint32_t k = 0;
        for (edge_ix e = e0; e < e1; e++) {
            if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT)
                PUT(e, graph_edge_name(g, e));
            else if (r != VR_WRAPPER_ARR) {
                PUT(e, k);
                k++;
            }
        }
        return n;
    }
    if (kind != GRAPH_KIND_INSTANCE) {
        if (count_only)
            return e1 - e0;
        for (edge_ix e = e0; e < e1; e++)
            PUT(e, graph_edge_name(g, e));
        return n;
    }
    uint32_t nf = 0;
    int by_text = 0, sorted = 1;
    for (edge_ix e = e0; e < e1; e++) {
        if (e == given)
            continue;
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_FIELD) {
            PUT(e, graph_edge_name(g, e));
            continue;
        }
        if (r == VR_PLAIN)
            continue;
        uint32_t rank;
        if (is_shadow(b, e, &rank))
            continue;
        if (count_only) {
            n++;
            continue;
        }
        if (grow_array((void **)fr, fr_cap, nf + 1, sizeof **fr)) {
            b->failed = 1;
            return n;
        }
        by_text |= rank == 0;
        if (nf && rank < (*fr)[nf - 1].rank)
            sorted = 0;
        (*fr)[nf].rank = rank;
        (*fr)[nf].e = e;
        nf++;
    }
    if (count_only)
        return n;
    if (by_text && nf > 1) {
        rank_g = g;
        qsort(*fr, nf, sizeof **fr, cmp_field_text);
    } else if (!sorted) {
        if (nf <= 16) {
            for (uint32_t i = 1; i < nf; i++) {
                field_ref t = (*fr)[i];
                uint32_t j = i;
                for (; j > 0 && cmp_field_rank(&(*fr)[j - 1], &t) > 0; j--)
                    (*fr)[j] = (*fr)[j - 1];
                (*fr)[j] = t;
            }
        } else {
            qsort(*fr, nf, sizeof **fr, cmp_field_rank);
        }
    }
    for (uint32_t i = 0; i < nf; i++)
        PUT((*fr)[i].e, graph_edge_name(g, (*fr)[i].e));
#undef PUT
    return n;
}

static void builder_free(builder *b)
{
    free(b->reader);
    free(b->seen);
    free(b->walked);
    free(b->heads);
    free(b->tv);
    free(b->coll);
    free(b->rank);
    for (unsigned f = 0; f < VF_COUNT; f++)
        free(b->layout[f]);
}

lr_status virt_build(const graph *g, virt_overlay *vo, lr_error *err)
{
    memset(vo, 0, sizeof *vo);
    if (!g->format || strcmp(g->format, "hprof") || !g->first_edge)
        return LR_OK;
    uint32_t nn = g->n_nodes;
    /* real edges and label codes share edge_aux */
    if ((uint64_t)g->n_edges + nn + VL_VALUE + 1 > UINT32_MAX)
        return LR_FAIL(err, LR_ERR_LIMIT, "graph too large for the virtual reference view");
    builder b;
    memset(&b, 0, sizeof b);
    b.g = g;
    b.vo = vo;
    vo->g = g;
    vo->n_real = g->n_edges;
    b.budget = 4 * ((uint64_t)g->n_edges + nn) + 1024;
    field_ref *fr = NULL;
    uint32_t fr_cap = 0;
    b.reader = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    b.seen = err_calloc(nn / 8 + 1, 1);
    vo->first_edge = err_mallocarray((size_t)nn + 1, sizeof *vo->first_edge);
    if (!b.reader || !b.seen || !vo->first_edge)
        goto nomem;
    if (set_readers(&b) || find_heads(&b) || rank_names(&b))
        goto nomem;
    /* pass 1: the collections' edges into a buffer, and every node's count */
    b.at = 0;
    for (node_ix x = 0; x < nn && !b.failed; x++) {
        vo->first_edge[x] = (edge_ix)b.at;
        class_ix c = g->node_class[x];
        unsigned r = c < g->n_classes ? b.reader[c] : VR_NONE;
        edge_ix given = GRAPH_NONE;
        uint32_t nv = 0;
        if (g->node_kind[x] == GRAPH_KIND_INSTANCE && r >= VR_ARRAY_LIST) {
            uint32_t before = b.n_tv;
            given = expand(&b, x, r);
            nv = b.n_tv - before;
            if ((nv || given != GRAPH_NONE) && !b.failed) {
                if (grow_array((void **)&b.coll, &b.cap_coll, b.n_coll + 1, sizeof *b.coll))
                    goto nomem;
                b.coll[b.n_coll++] = (vcoll){x, nv, given};
            }
        }
        b.at += nv + real_edges(&b, x, r, given, 1, NULL, NULL, 0);
        if (b.at > UINT32_MAX - 1)
            goto nomem;
    }
    if (b.failed)
        goto nomem;
    vo->first_edge[nn] = (edge_ix)b.at;
    vo->n_edges = (uint32_t)b.at;
    free(b.seen);
    b.seen = NULL;
    free(b.walked);
    b.walked = NULL;
    size_t ne = vo->n_edges ? vo->n_edges : 1;
    vo->edge_to = err_mallocarray(ne, sizeof *vo->edge_to);
    vo->edge_name = err_mallocarray(ne, sizeof *vo->edge_name);
    vo->edge_kind = err_mallocarray(ne, sizeof *vo->edge_kind);
    vo->edge_aux = err_mallocarray(ne, sizeof *vo->edge_aux);
    if (!vo->edge_to || !vo->edge_name || !vo->edge_kind || !vo->edge_aux)
        goto nomem;
    /* pass 2: per node its buffered edges, then its real ones */
    uint32_t ci = 0, ti = 0;
    for (node_ix x = 0; x < nn && !b.failed; x++) {
        uint32_t at = vo->first_edge[x];
        edge_ix given = GRAPH_NONE;
        if (ci < b.n_coll && b.coll[ci].node == x) {
            for (uint32_t i = 0; i < b.coll[ci].n; i++, ti++, at++) {
                const vedge *v = &b.tv[ti];
                vo->edge_to[at] = v->to;
                vo->edge_name[at] = v->name;
                vo->edge_kind[at] = v->kind;
                vo->edge_aux[at] = v->aux;
            }
            given = b.coll[ci++].given;
        }
        class_ix c = g->node_class[x];
        unsigned r = c < g->n_classes ? b.reader[c] : VR_NONE;
        uint32_t n = real_edges(&b, x, r, given, 0, &fr, &fr_cap, at);
        if (at + n != vo->first_edge[x + 1]) {
            free(fr);
            builder_free(&b);
            virt_free(vo);
            return LR_FAIL(err, LR_ERR_INTERNAL, "virtual reference view: edge count changed");
        }
    }
    if (b.failed)
        goto nomem;
    free(fr);
    builder_free(&b);
    return LR_OK;
nomem:
    free(fr);
    builder_free(&b);
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
    if (e >= vo->n_edges || vo->edge_aux[e] >= vo->n_real)
        return GRAPH_NONE;
    return vo->edge_aux[e];
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

const char *virt_edge_label(const virt_overlay *vo, edge_ix e, char *buf, size_t cap)
{
    if (!vo->first_edge || e >= vo->n_edges || vo->edge_aux[e] < vo->n_real)
        return NULL;
    uint32_t code = UINT32_MAX - vo->edge_aux[e];
    switch (code) {
    case VL_PLAIN: return NULL;
    case VL_KEY: return "key()";
    case VL_ELEMENT: return "element()";
    default: break;
    }
    node_ix key = code - VL_VALUE;
    if (!buf || !cap)
        return NULL;
    if (cap > VIRT_LABEL_MAX)
        cap = VIRT_LABEL_MAX;
    key_name(vo->g, key < vo->g->n_nodes ? key : GRAPH_NONE, buf, cap);
    return buf;
}

void virt_free(virt_overlay *vo)
{
    free(vo->first_edge);
    free(vo->edge_to);
    free(vo->edge_name);
    free(vo->edge_kind);
    free(vo->edge_aux);
    free(vo->prio_edge);
    free(vo->prio);
    memset(vo, 0, sizeof *vo);
}
