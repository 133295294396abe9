/* SPDX-License-Identifier: Apache-2.0 */
/* virtual.c: Shark's reference readers as per-node edge lists made on demand (analysis layer),
 * prefix virt_. Per node, in Shark 2.14's order (ChainingInstanceReferenceReader: the first
 * matching virtual reader, then the field reader): the collection's element references, then
 * the non-field edges as the reader made them, then instance fields sorted by name (stable, so
 * shadowed fields keep their hierarchy order). Collection internals (elementData, table,
 * nodes) stay reachable through the fields, as in 2.14; they are just never first. Walking a
 * collection reads untrusted data: chains stop at a node already seen in the same collection,
 * and all expansions share a step budget proportional to the graph, past which collections
 * list nothing of their own. Readers are chosen per class by exact name, as Shark matches
 * them, and only where the dump's classes have the layout the reader needs; that choice, the
 * place of the fields the readers read and the order of field names are worked out once per
 * class or name, so making one node's list costs about its edges plus its collection's walk;
 * a big HashMap-like table has its entries read in node order first (the records' order in
 * the dump), its walk then taking their fields from there.
 * Facts: docs/research/hprof-leakcanary-shark.md sections 5, 6.5, and Shark 2.14's
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

/* Label codes of virtual entries; a map value's label is made from its key node (n_nodes
 * for a null key) only when asked for. */
enum {
    VL_PLAIN = 0,
    VL_KEY = 1,     /* "key()" */
    VL_ELEMENT = 2, /* "element()" */
    VL_VALUE = 3,   /* + key node: the value named by its key */
};

/* Layout of a named field in a class, as graph_fields_each finds it (most-derived first):
 * bit 63 known, bit 62 present, bits 40..61 the number of object fields before it, bits
 * 8..39 byte offset, bits 0..7 graph_ftype. */
#define VF_KNOWN (1ull << 63)
#define VF_PRESENT (1ull << 62)
#define VF_SLOT_SHIFT 40
#define VF_SLOT_MAX ((1u << 22) - 1)
#define VF_OFF_MASK 0xffffffffull

/* Byte offsets of the object fields of a class's instances, in layout order. */
typedef struct ref_offs {
    uint32_t n;
    uint32_t off[];
} ref_offs;

typedef struct field_ref {
    uint32_t rank;
    str_ix name;
    edge_ix e;
} field_ref;

struct virt_gen {
    const graph *g;
    uint8_t *reader;     /* per class: enum virt_reader */
    uint8_t *seen;       /* per node bit: walked by the current collection */
    node_ix *walked;     /* the nodes whose seen bit is set, to clear them after it */
    uint32_t n_walked, cap_walked;
    uint64_t budget;     /* chain/array steps left for all collections */
    uint64_t budget_full;
    int failed;          /* out of memory while making the current list */
    node_ix *heads;      /* ActivityThread.mNewActivities targets, ascending */
    uint32_t n_heads;
    uint64_t *layout[VF_COUNT]; /* per field, per class: VF_KNOWN..., made on first use */
    ref_offs **refs;     /* per class: its object fields' offsets, made on first use */
    node_ix trust_node;  /* the instance whose edges resolve() last checked */
    node_ix at_node;     /* the instance field_get last read (a map entry's key, value and
                          * next come one after the other): its payload's place */
    uint64_t at_pos, at_end;
    int trust_ok;        /* whether they are its non-null fields, one each, in order */
    uint32_t *rank;      /* per string: 1 + rank of a field name in strcmp order, 0 if none */
    uint32_t n_rank;
    uint32_t shadow;     /* rank of "shadow$_klass_", 0 when no field has that name */
    field_ref *fr;       /* an instance's fields while they are sorted */
    uint32_t cap_fr;
    /* the list held: columns of `cap` entries, `n` used */
    node_ix *to;
    uint32_t *name;
    uint8_t *kind;
    edge_ix *real;
    uint32_t *label;     /* VL_* code of virtual entries */
    uint8_t *prio;
    uint32_t n, cap;
    virt_list list;      /* the public view of the list held (list.node = GRAPH_NONE: none) */
    uint64_t n_collections, n_virtual;
    uint32_t sorted_min;  /* table size from which entries are read in node order */
};

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

/* Room for `more` entries after the n held. */
static int reserve(virt_gen *v, uint32_t more)
{
    if (v->failed)
        return -1;
    uint64_t need = (uint64_t)v->n + more;
    if (need <= v->cap)
        return 0;
    uint64_t nc = (uint64_t)v->cap * 2 + 64;
    if (nc < need)
        nc = need;
    if (nc > UINT32_MAX - 1) {
        v->failed = 1;
        return -1;
    }
    void *a = err_reallocarray(v->to, nc, sizeof *v->to);
    if (a)
        v->to = a;
    void *b = a ? err_reallocarray(v->name, nc, sizeof *v->name) : NULL;
    if (b)
        v->name = b;
    void *c = b ? err_reallocarray(v->kind, nc, sizeof *v->kind) : NULL;
    if (c)
        v->kind = c;
    void *d = c ? err_reallocarray(v->real, nc, sizeof *v->real) : NULL;
    if (d)
        v->real = d;
    void *e = d ? err_reallocarray(v->label, nc, sizeof *v->label) : NULL;
    if (e)
        v->label = e;
    void *f = e ? err_reallocarray(v->prio, nc, sizeof *v->prio) : NULL;
    if (!f) {
        v->failed = 1;
        return -1;
    }
    v->prio = f;
    v->cap = (uint32_t)nc;
    return 0;
}

static void put(virt_gen *v, node_ix to, uint8_t kind, uint32_t name, edge_ix real,
                uint32_t label)
{
    if (reserve(v, 1))
        return;
    uint32_t i = v->n++;
    v->to[i] = to;
    v->name[i] = name;
    v->kind[i] = kind;
    v->real[i] = real;
    v->label[i] = label;
    v->prio[i] = VIRT_PRIO_RULES;
}

/* An element entry of the collection being read. */
static void push(virt_gen *v, node_ix to, uint32_t name, uint32_t label)
{
    put(v, to, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), name, GRAPH_NONE, label);
}

static uint32_t value_label(const virt_gen *v, node_ix key)
{
    return VL_VALUE + (key < v->g->n_nodes ? key : v->g->n_nodes);
}

/* Gives the entry just made (if any since `first`) a priority of its own. */
static void set_priority(virt_gen *v, uint32_t first, uint8_t prio)
{
    if (!v->failed && v->n > first)
        v->prio[v->n - 1] = prio;
}

/* The first real field edge of x named `name`, GRAPH_NONE without one. */
static edge_ix field_edge(const graph *g, node_ix x, const char *name)
{
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_FIELD &&
            !strcmp(graph_str(g, graph_edge_name_from(g, x, e)), name))
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

static int is_head(const virt_gen *v, node_ix x)
{
    return v->n_heads && bsearch(&x, v->heads, v->n_heads, sizeof x, cmp_node) != NULL;
}

/* Where graph_fields_each would find field `name` of class c's instances: the walk stops at
 * a field of unknown size, and takes the first field of that name, most-derived first. */
static uint64_t field_layout(const graph *g, class_ix c, const char *name)
{
    uint64_t pos = 0, slot = 0;
    for (uint32_t hops = 0; c != GRAPH_NONE && c < g->n_classes && hops <= g->n_classes; hops++) {
        const graph_class *k = &g->classes[c];
        for (uint32_t i = 0; i < k->n_fields; i++) {
            if ((uint64_t)k->first_field + i >= g->n_fields)
                return VF_KNOWN;
            const graph_field *f = &g->fields[k->first_field + i];
            unsigned sz = graph_ftype_size(g, f->type);
            if (sz == 0 || pos > VF_OFF_MASK || slot > VF_SLOT_MAX)
                return VF_KNOWN;
            if (!strcmp(graph_str(g, f->name), name))
                return VF_KNOWN | VF_PRESENT | slot << VF_SLOT_SHIFT | pos << 8 | f->type;
            pos += sz;
            slot += f->type == GRAPH_FT_OBJECT;
        }
        c = k->super;
    }
    return VF_KNOWN;
}

/* The offsets of class c's object fields, up to the first field of unknown size (past it no
 * field is read); NULL when out of memory. */
static const ref_offs *class_refs(virt_gen *v, class_ix c)
{
    const graph *g = v->g;
    if (!v->refs && !(v->refs = err_calloc(g->n_classes, sizeof *v->refs)))
        return NULL;
    if (v->refs[c])
        return v->refs[c];
    ref_offs *r = NULL;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t pos = 0;
        uint32_t n = 0;
        class_ix k = c;
        for (uint32_t hops = 0; k != GRAPH_NONE && k < g->n_classes && hops <= g->n_classes;
             hops++) {
            const graph_class *kc = &g->classes[k];
            uint32_t i = 0;
            for (; i < kc->n_fields && (uint64_t)kc->first_field + i < g->n_fields; i++) {
                const graph_field *f = &g->fields[kc->first_field + i];
                unsigned sz = graph_ftype_size(g, f->type);
                if (sz == 0 || pos > VF_OFF_MASK)
                    break;
                if (f->type == GRAPH_FT_OBJECT) {
                    if (r)
                        r->off[n] = (uint32_t)pos;
                    n++;
                }
                pos += sz;
            }
            if (i < kc->n_fields)
                break;
            k = kc->super;
        }
        if (r)
            break;
        if (!(r = err_malloc(sizeof *r + ((size_t)n + 1) * sizeof r->off[0])))
            return NULL;
        r->n = n;
    }
    return v->refs[c] = r;
}

/* resolve's answer once it knows the edge e of n that would hold the field (all: n's
 * non-null object fields within its bytes): that edge's target when n's edges can be trusted
 * to be its fields in layout order, or when the target has this id; else the search's. */
static inline node_ix edge_target(virt_gen *v, node_ix n, uint32_t all, edge_ix e, uint64_t id)
{
    const graph *g = v->g;
    if (v->trust_node != n) {
        edge_ix e0 = g->first_edge[n], e1 = g->first_edge[n + 1];
        int ok = all == e1 - e0;
        for (edge_ix k = e0; ok && k < e1; k++)
            ok = GRAPH_EDGE_KIND(g->edge_kind[k]) == GRAPH_EDGE_FIELD;
        v->trust_node = n;
        v->trust_ok = ok;
    }
    node_ix y = g->edge_to[e];
    if (y < g->n_nodes && (v->trust_ok || (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_FIELD &&
                                           graph_node_id(g, y) == id)))
        return y;
    return graph_find_id(g, id);
}

/* The node an object field of instance n with value id refers to: graph_find_id(id), found
 * among n's own edges when possible. The reader made one field edge per non-null field within
 * the instance's bytes that names a node (graph_find_id of its id), in layout order. So when n
 * has only field edges, as many as non-null fields, none was dropped and the slot'th object
 * field's edge comes after one edge per non-null field before it. Otherwise the edge there
 * still names the same node when its target has this id; failing that, the search answers. */
static node_ix resolve(virt_gen *v, node_ix n, const uint8_t *fields, uint32_t len,
                       uint32_t slot, uint64_t id, unsigned sz)
{
    const graph *g = v->g;
    const ref_offs *r = class_refs(v, graph_node_class(g, n));
    if (!r || slot >= r->n)
        return graph_find_id(g, id);
    edge_ix e0 = g->first_edge[n], e1 = g->first_edge[n + 1], e = e0;
    uint32_t before = 0, all = 0;
    for (uint32_t i = 0; i < r->n && r->off[i] + (uint64_t)sz <= len; i++) {
        uint64_t w = 0;
        for (unsigned b = 0; b < sz; b++)
            w = (w << 8) | fields[r->off[i] + b];
        all += w != 0;
        before += i < slot && w != 0;
    }
    e += before;
    return e < e1 ? edge_target(v, n, all, e, id) : graph_find_id(g, id);
}

/* graph_field_find(g, n, virt_field_names[f], out), with the field's place in the instance
 * bytes worked out once per class rather than decoding every field before it. */
static int field_get(virt_gen *v, node_ix n, unsigned f, graph_value *out)
{
    const graph *g = v->g;
    if (n >= g->n_nodes)
        return 0;
    if (g->node_kind[n] != GRAPH_KIND_INSTANCE || !g->id_size)
        return graph_field_find(g, n, virt_field_names[f], out);
    /* a derived offset costs a few dependent loads: read once per instance */
    if (v->at_node != n) {
        v->at_pos = graph_node_off(g, n);
        v->at_end = v->at_pos == UINT64_MAX ? 0 : v->at_pos + graph_node_len(g, n);
        v->at_node = n;
    }
    if (v->at_pos == UINT64_MAX)
        return graph_field_find(g, n, virt_field_names[f], out);
    if (!g->data)
        return 0;
    uint64_t pos = v->at_pos, end = v->at_end;
    class_ix c = graph_node_class(g, n);
    if (end > g->data_len || end < pos || c >= g->n_classes)
        return 0;
    if (!v->layout[f]) {
        v->layout[f] = err_calloc(g->n_classes, sizeof *v->layout[f]);
        if (!v->layout[f]) {
            v->failed = 1;
            return 0;
        }
    }
    uint64_t l = v->layout[f][c];
    if (!l)
        l = v->layout[f][c] = field_layout(g, c, virt_field_names[f]);
    if (!(l & VF_PRESENT))
        return 0;
    uint8_t type = (uint8_t)l;
    uint64_t off = (l >> 8) & VF_OFF_MASK;
    unsigned sz = graph_ftype_size(g, type);
    if (off + sz > end - pos)
        return 0;
    const uint8_t *p = g->data + pos + off;
    uint64_t val = 0;
    for (unsigned i = 0; i < sz; i++)
        val = (val << 8) | p[i];
    out->type = type;
    out->raw = val;
    out->ref = GRAPH_NONE;
    if (type == GRAPH_FT_OBJECT && val != 0)
        out->ref = resolve(v, n, g->data + pos, (uint32_t)(end - pos),
                           (uint32_t)((l & ~(VF_KNOWN | VF_PRESENT)) >> VF_SLOT_SHIFT), val, sz);
    return 1;
}

/* An object-typed field of n; GRAPH_NONE when absent, null or not in the dump. */
static node_ix ref_field(virt_gen *v, node_ix n, unsigned f, int *present)
{
    graph_value val;
    if (present)
        *present = 0;
    if (n >= v->g->n_nodes || !field_get(v, n, f, &val) || val.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    if (present)
        *present = val.raw != 0;
    return val.ref < v->g->n_nodes ? val.ref : GRAPH_NONE;
}

/* ---- a map entry's three fields at once ----
 * A table walk reads key, value and next of every entry: through ref_field that is three
 * decodes of one record, each counting the non-null object fields before its own to find its
 * edge. entry_read reads the record once for the three, from a shape of the entry's class
 * made when the class changes, and answers exactly what the three ref_field calls would. */

#define ENTRY_FIELDS 3
#define ENTRY_SLOTS_MAX 64 /* object fields a shape's class may have (a bit each) */

typedef struct entry_shape {
    class_ix c;                 /* class the shape is for, GRAPH_NONE for none yet */
    int fast;                   /* whether entry_read may answer for this class */
    const ref_offs *refs;       /* the class's object field offsets */
    uint64_t l[ENTRY_FIELDS];   /* field_layout of each field */
} entry_shape;

/* Set bits of w (the build targets no popcount instruction: a library call otherwise). */
static inline uint32_t bits_set(uint64_t w)
{
    w = w - ((w >> 1) & 0x5555555555555555ull);
    w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((w * 0x0101010101010101ull) >> 56);
}

/* The big-endian value of sz bytes at p. */
static inline uint64_t rd_be(const uint8_t *p, unsigned sz)
{
    uint64_t w = 0;
    if (sz == 8) {
        memcpy(&w, p, 8);
        return __builtin_bswap64(w);
    }
    if (sz == 4) {
        uint32_t h;
        memcpy(&h, p, 4);
        return __builtin_bswap32(h);
    }
    for (unsigned b = 0; b < sz; b++)
        w = (w << 8) | p[b];
    return w;
}

/* Makes sh the shape of class c for fields f (0 when out of memory). */
static int shape_make(virt_gen *v, entry_shape *sh, class_ix c, const unsigned f[ENTRY_FIELDS])
{
    const graph *g = v->g;
    sh->c = c;
    sh->fast = 0;
    for (unsigned i = 0; i < ENTRY_FIELDS; i++) {
        if (!v->layout[f[i]] &&
            !(v->layout[f[i]] = err_calloc(g->n_classes, sizeof *v->layout[f[i]])))
            return 0;
        uint64_t l = v->layout[f[i]][c];
        if (!l)
            l = v->layout[f[i]][c] = field_layout(g, c, virt_field_names[f[i]]);
        sh->l[i] = l;
    }
    sh->refs = class_refs(v, c);
    sh->fast = sh->refs && sh->refs->n <= ENTRY_SLOTS_MAX;
    return 1;
}

/* ref_field(v, n, f[i], NULL) into out[i] for the three fields, n a node. */
static void entry_read(virt_gen *v, entry_shape *sh, node_ix n, const unsigned f[ENTRY_FIELDS],
                       node_ix out[ENTRY_FIELDS])
{
    const graph *g = v->g;
    uint64_t pos = UINT64_MAX, end = 0;
    class_ix c = GRAPH_NONE;
    int fast = g->node_kind[n] == GRAPH_KIND_INSTANCE && g->id_size && g->data;
    if (fast) {
        pos = graph_node_off(g, n);
        fast = pos != UINT64_MAX;
    }
    if (fast) {
        end = pos + graph_node_len(g, n);
        v->at_node = n; /* field_get's cache of the place, as its first call would leave it */
        v->at_pos = pos;
        v->at_end = end;
        c = graph_node_class(g, n);
        if (end > g->data_len || end < pos || c >= g->n_classes) {
            /* field_get finds no field */
            for (unsigned i = 0; i < ENTRY_FIELDS; i++)
                out[i] = GRAPH_NONE;
            return;
        }
        if (sh->c != c && !shape_make(v, sh, c, f)) {
            v->failed = 1;
            sh->c = GRAPH_NONE;
            fast = 0;
        }
        fast = fast && sh->fast;
    }
    if (!fast) {
        for (unsigned i = 0; i < ENTRY_FIELDS; i++)
            out[i] = ref_field(v, n, f[i], NULL);
        return;
    }
    const uint8_t *fields = g->data + pos;
    uint64_t len = end - pos;
    unsigned sz = g->id_size;
    /* the non-null object fields within the record, a bit each, as resolve counts them */
    const ref_offs *r = sh->refs;
    uint64_t nz = 0;
    for (uint32_t i = 0; i < r->n && r->off[i] + (uint64_t)sz <= len; i++)
        nz |= (uint64_t)(rd_be(fields + r->off[i], sz) != 0) << i;
    edge_ix e0 = g->first_edge[n], e1 = g->first_edge[n + 1];
    uint32_t all = bits_set(nz);
    for (unsigned i = 0; i < ENTRY_FIELDS; i++) {
        uint64_t l = sh->l[i];
        out[i] = GRAPH_NONE;
        if (!(l & VF_PRESENT) || (uint8_t)l != GRAPH_FT_OBJECT)
            continue;
        uint64_t off = (l >> 8) & VF_OFF_MASK;
        if (off + sz > len)
            continue;
        uint64_t id = rd_be(fields + off, sz);
        if (!id)
            continue;
        uint32_t slot = (uint32_t)((l & ~(VF_KNOWN | VF_PRESENT)) >> VF_SLOT_SHIFT);
        node_ix y;
        edge_ix e;
        if (slot >= r->n || (e = e0 + bits_set(nz & ((1ull << slot) - 1))) >= e1)
            y = graph_find_id(g, id);
        else
            y = edge_target(v, n, all, e, id);
        out[i] = y < g->n_nodes ? y : GRAPH_NONE;
    }
}

static void mark(virt_gen *v, node_ix x)
{
    if (grow_array((void **)&v->walked, &v->cap_walked, v->n_walked + 1, sizeof *v->walked)) {
        v->failed = 1;
        return;
    }
    v->walked[v->n_walked++] = x;
    v->seen[x / 8] |= (uint8_t)(1u << (x % 8));
}

/* Whether the walk may step on node x (not yet seen in this collection, budget left). */
static int step(virt_gen *v, node_ix x)
{
    if (x >= v->g->n_nodes || (v->seen[x / 8] >> (x % 8) & 1) || v->budget == 0 || v->failed)
        return 0;
    mark(v, x);
    v->budget--;
    return 1;
}

/* Elements of object array arr as (position, node), position < limit. */
static void array_elements(virt_gen *v, node_ix arr, uint64_t limit, uint32_t label)
{
    const graph *g = v->g;
    if (arr >= g->n_nodes || g->node_kind[arr] != GRAPH_KIND_OBJ_ARRAY)
        return;
    for (edge_ix e = g->first_edge[arr]; e < g->first_edge[arr + 1] && !v->failed; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT)
            continue;
        uint32_t index = graph_edge_name_from(g, arr, e);
        if (index >= limit)
            continue;
        if (v->budget == 0)
            return;
        v->budget--;
        push(v, g->edge_to[e], index, label);
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

/* ---- big tables: entries read in node order ----
 * A big table's entries lie all over the dump, and reading one in bucket order waits on a
 * miss in each array it looks up (kind, class, edge bounds, the record's place, the record,
 * its edges), page after page. Their records are in the dump in node order, as are those
 * arrays: so a table of sorted_min buckets or more has the first two entries of its chains
 * (the head, and its next when there is one) read first, each level in node order (each
 * page and line then serves the entries it holds), into tables of answers in bucket order.
 * The walk then takes its answers from there and reads deeper entries itself. Reading an
 * entry is a pure function of the graph, so the answers are those the walk would read, and
 * the entries listed (seen marks and budget apply in the walk, as before) are the same. On
 * the 1 GB bench dump (a 2^21-bucket HashMap of 1.2 M entries) this takes the map's walk
 * from about 265 to 225 ms; on the 115 MB one (120 k entries) reading in bucket order is
 * cheaper, the entries' lines still being cached, hence the threshold. */
#define VIRT_SORTED_MIN (1u << 18) /* buckets (non-null) from which entries are read so */
#define MAP_READ_AHEAD 8           /* entries ahead whose record is fetched, in node order
                                    * (their per-node arrays twice as far ahead) */

/* What entry_read found for one entry. */
typedef struct entry_res {
    node_ix key;  /* key field's node, GRAPH_NONE when none */
    node_ix val;  /* value field's node */
    node_ix next; /* next entry */
} entry_res;

/* The per-node arrays reading entry m looks up first, fetched ahead of ahead_record. */
static void ahead_node(const virt_gen *v, node_ix m)
{
    const graph *g = v->g;
    __builtin_prefetch(&g->first_edge[m]);
    __builtin_prefetch(&g->node_kind[m]);
    if (g->node_class16)
        __builtin_prefetch(&g->node_class16[m]);
    else
        __builtin_prefetch(&g->node_class[m]);
}

/* The record of instance m and its edges, fetched ahead of reading it. */
static void ahead_record(const virt_gen *v, node_ix m)
{
    const graph *g = v->g;
    edge_ix me = g->first_edge[m];
    __builtin_prefetch(&g->edge_to[me]);
    __builtin_prefetch(&g->edge_kind[me]);
    if (g->node_kind[m] != GRAPH_KIND_INSTANCE)
        return;
    uint64_t o = graph_node_off(g, m);
    if (o >= 8 && o < g->data_len) {
        __builtin_prefetch(g->data + o - 8);
        if (o + 56 < g->data_len)
            __builtin_prefetch(g->data + o + 56);
    }
}

#define PAIR_DIGIT_MAX 12 /* bits of a node index sorted per pass (a 16 KB count) */

/* Sorts the m pairs (node << 32 | index) of a by node (ties in any order): LSD radix sort,
 * as few passes as the largest node index needs; tmp holds m pairs. Returns the sorted
 * array (a or tmp). */
static uint64_t *sort_pairs(uint64_t *a, uint64_t *tmp, uint32_t m, uint32_t n_nodes)
{
    uint32_t bits = 0, count[1u << PAIR_DIGIT_MAX];
    while (bits < 32 && ((uint64_t)(n_nodes - 1) >> bits))
        bits++;
    uint32_t passes = (bits + PAIR_DIGIT_MAX - 1) / PAIR_DIGIT_MAX;
    uint32_t digit = passes ? (bits + passes - 1) / passes : 1, mask = (1u << digit) - 1;
    for (uint32_t shift = 32; shift < 32 + bits; shift += digit) {
        memset(count, 0, sizeof count);
        for (uint32_t i = 0; i < m; i++)
            count[(a[i] >> shift) & mask]++;
        for (uint32_t d = 0, at = 0; d <= mask; d++) {
            uint32_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (uint32_t i = 0; i < m; i++)
            tmp[count[(a[i] >> shift) & mask]++] = a[i];
        uint64_t *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/* Reads the entries named by the m pairs (node << 32 | index) of a into res[index], in node
 * order. Returns -1 when out of memory. */
static int read_sorted(virt_gen *v, entry_shape *sh, const unsigned f[ENTRY_FIELDS],
                       uint64_t *a, uint32_t m, entry_res *res)
{
    uint64_t *tmp = err_mallocarray(m ? m : 1, sizeof *tmp);
    if (!tmp)
        return -1;
    uint64_t *s = sort_pairs(a, tmp, m, v->g->n_nodes);
    for (uint32_t k = 0; k < m && !v->failed; k++) {
        if (k + 2 * MAP_READ_AHEAD < m)
            ahead_node(v, (node_ix)(s[k + 2 * MAP_READ_AHEAD] >> 32));
        if (k + MAP_READ_AHEAD < m)
            ahead_record(v, (node_ix)(s[k + MAP_READ_AHEAD] >> 32));
        node_ix out[ENTRY_FIELDS];
        entry_read(v, sh, (node_ix)(s[k] >> 32), f, out);
        res[(uint32_t)s[k]] = (entry_res){out[0], out[1], out[2]};
    }
    free(tmp);
    return 0;
}

/* Whether bucket edge e (of a table) holds the head of a chain the walk steps on. */
static inline int bucket_head(const graph *g, edge_ix e)
{
    return GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_ELEMENT && g->edge_to[e] < g->n_nodes;
}

/* The answers for the first two entries of the chains of a table's edges [e0, e1): heads[i]
 * for the head of bucket edge e0 + i (bucket_head), seconds[j] for the next of the j-th
 * head, in bucket order, that has one. Returns -1 when out of memory. */
static int map_read_ahead(virt_gen *v, entry_shape *sh, const unsigned f[ENTRY_FIELDS],
                          edge_ix e0, edge_ix e1, entry_res **heads, entry_res **seconds)
{
    const graph *g = v->g;
    uint32_t nb = e1 - e0, m = 0, k = 0;
    uint64_t *a = err_mallocarray(nb, sizeof *a);
    *heads = err_mallocarray(nb, sizeof **heads);
    if (!a || !*heads)
        goto nomem;
    for (uint32_t i = 0; i < nb; i++)
        if (bucket_head(g, e0 + i))
            a[m++] = (uint64_t)g->edge_to[e0 + i] << 32 | i;
    if (read_sorted(v, sh, f, a, m, *heads))
        goto nomem;
    for (uint32_t i = 0; i < nb && !v->failed; i++)
        if (bucket_head(g, e0 + i) && (*heads)[i].next != GRAPH_NONE) {
            a[k] = (uint64_t)(*heads)[i].next << 32 | k;
            k++;
        }
    *seconds = err_mallocarray(k ? k : 1, sizeof **seconds);
    if (!*seconds || read_sorted(v, sh, f, a, k, *seconds))
        goto nomem;
    free(a);
    return 0;
nomem:
    free(a);
    return -1;
}

/* HashMap-like table walk: every bucket's chain through `next`; per entry a key() reference
 * (or element() when keys_only) and, unless keys_only, the value named by its key (a null
 * key and a key not in the dump both name it "null"). */
static void map_entries(virt_gen *v, node_ix table, unsigned val_field, int keys_only)
{
    const graph *g = v->g;
    if (table >= g->n_nodes || g->node_kind[table] != GRAPH_KIND_OBJ_ARRAY)
        return;
    uint32_t index = 0, at_second = 0;
    edge_ix e0 = g->first_edge[table], e1 = g->first_edge[table + 1];
    entry_shape sh = {.c = GRAPH_NONE};
    const unsigned f[ENTRY_FIELDS] = {VF_KEY, val_field, VF_NEXT};
    entry_res *heads = NULL, *seconds = NULL;
    if (e1 - e0 >= v->sorted_min && map_read_ahead(v, &sh, f, e0, e1, &heads, &seconds))
        v->failed = 1;
    for (edge_ix e = e0; e < e1 && !v->failed; e++) {
        if (!bucket_head(g, e))
            continue; /* not an element, or names no node: the walk takes no step there */
        /* the answers read ahead for this chain's first two entries, if any */
        const entry_res *first = heads ? &heads[e - e0] : NULL, *second = NULL;
        if (first && first->next != GRAPH_NONE)
            second = &seconds[at_second++];
        node_ix n = g->edge_to[e];
        for (uint32_t d = 0; !v->failed && step(v, n); d++) {
            entry_res r;
            if (d == 0 && first) {
                r = *first;
            } else if (d == 1 && second) {
                r = *second;
            } else {
                node_ix out[ENTRY_FIELDS];
                entry_read(v, &sh, n, f, out);
                r = (entry_res){out[0], out[1], out[2]};
            }
            if (r.key != GRAPH_NONE)
                push(v, r.key, index++, keys_only ? VL_ELEMENT : VL_KEY);
            if (!keys_only && r.val != GRAPH_NONE)
                push(v, r.val, index++, value_label(v, r.key));
            n = r.next;
        }
    }
    free(heads);
    free(seconds);
}

/* Linked nodes from `n` along `next`, each node's `item` as [position]; positions count every
 * node, so an entry without item (Harmony's voidLink sentinel) leaves a gap, as in Shark. */
static void chain_items(virt_gen *v, node_ix n, unsigned next, unsigned item)
{
    for (uint32_t pos = 0; !v->failed && step(v, n); n = ref_field(v, n, next, NULL), pos++) {
        node_ix it = item != VF_NONE ? ref_field(v, n, item, NULL) : n;
        if (it != GRAPH_NONE)
            push(v, it, pos, VL_PLAIN);
    }
}

/* SafeIterableMap: mStart -> Entry.mNext; per entry mKey as key(), mValue named by its key. */
static void safe_map(virt_gen *v, node_ix x)
{
    uint32_t index = 0;
    for (node_ix n = ref_field(v, x, VF_MSTART, NULL); !v->failed && step(v, n);
         n = ref_field(v, n, VF_MNEXT, NULL)) {
        int has_key;
        node_ix key = ref_field(v, n, VF_MKEY, &has_key);
        if (key != GRAPH_NONE)
            push(v, key, index++, VL_KEY);
        node_ix val = ref_field(v, n, VF_MVALUE, NULL);
        if (val == GRAPH_NONE)
            continue;
        push(v, val, index++, value_label(v, has_key ? key : GRAPH_NONE));
    }
}

/* The head ActivityClientRecord of ActivityThread.mNewActivities: along nextIdle, each
 * record's activity when that activity is destroyed (mDestroyed), as [position]. */
static void new_activities(virt_gen *v, node_ix x)
{
    const graph *g = v->g;
    for (uint32_t pos = 0; !v->failed && step(v, x);
         x = ref_field(v, x, VF_NEXT_IDLE, NULL), pos++) {
        node_ix act = ref_field(v, x, VF_ACTIVITY, NULL);
        graph_value d;
        if (act == GRAPH_NONE || g->node_kind[act] != GRAPH_KIND_INSTANCE ||
            !field_get(v, act, VF_DESTROYED, &d) || d.type != GRAPH_FT_BOOLEAN || !d.raw)
            continue;
        push(v, act, pos, VL_PLAIN);
    }
}

/* The element references of collection x read by reader r, appended to the list. Returns a
 * real edge of x the reader already gave (not to repeat among the fields), GRAPH_NONE
 * otherwise. */
static edge_ix expand(virt_gen *v, node_ix x, unsigned r)
{
    const graph *g = v->g;
    uint32_t before = v->n;
    edge_ix given = GRAPH_NONE;
    while (v->n_walked)
        v->seen[v->walked[--v->n_walked] / 8] = 0;
    mark(v, x);
    switch (r) {
    case VR_ARRAY_LIST: {
        node_ix arr = ref_field(v, x, VF_ELEMENT_DATA, NULL);
        if (arr == GRAPH_NONE)
            arr = ref_field(v, x, VF_ARRAY, NULL);
        graph_value sz;
        uint64_t limit = UINT64_MAX;
        if (field_get(v, x, VF_SIZE, &sz) && sz.type == GRAPH_FT_INT)
            limit = (int32_t)(uint32_t)sz.raw < 0 ? 0 : (uint32_t)sz.raw;
        array_elements(v, arr, limit, VL_PLAIN);
        break;
    }
    case VR_COW_LIST:
        array_elements(v, ref_field(v, x, VF_ARRAY, NULL), UINT64_MAX, VL_PLAIN);
        break;
    case VR_COW_LIST_H:
        array_elements(v, ref_field(v, x, VF_ELEMENTS, NULL), UINT64_MAX, VL_PLAIN);
        break;
    case VR_LINKED_LIST:
        chain_items(v, ref_field(v, x, VF_FIRST, NULL), VF_NEXT, VF_ITEM);
        break;
    case VR_LINKED_LIST_H:
        chain_items(v, ref_field(v, x, VF_VOID_LINK, NULL), VF_NEXT, VF_DATA);
        break;
    case VR_MESSAGE_QUEUE:
        chain_items(v, ref_field(v, x, VF_MESSAGES, NULL), VF_NEXT, VF_NONE);
        break;
    case VR_HASH_MAP:
        map_entries(v, ref_field(v, x, VF_TABLE, NULL), VF_VALUE, 0);
        break;
    case VR_CHM:
        map_entries(v, ref_field(v, x, VF_TABLE, NULL), VF_VAL, 0);
        break;
    case VR_HASH_SET:
    case VR_HASH_SET_H: {
        node_ix map = ref_field(v, x, r == VR_HASH_SET ? VF_MAP : VF_BACKING_MAP, NULL);
        if (map != GRAPH_NONE && step(v, map))
            map_entries(v, ref_field(v, map, VF_TABLE, NULL), VF_VALUE, 1);
        break;
    }
    case VR_ARRAY_SET:
        array_elements(v, ref_field(v, x, VF_MARRAY, NULL), UINT64_MAX, VL_ELEMENT);
        break;
    case VR_SAFE_MAP:
        safe_map(v, x);
        break;
    case VR_ACTIVITY_THREAD:
        /* Shark gives mNewActivities first, at normal priority, tagged as a library leak
         * (the rules tag it); the field reader repeats it later */
        given = field_edge(g, x, "mNewActivities");
        if (given != GRAPH_NONE) {
            put(v, g->edge_to[given], g->edge_kind[given], graph_edge_name_from(g, x, given),
                given, VL_PLAIN);
            set_priority(v, before, VIRT_PRIO_NORMAL);
        }
        return given;
    case VR_CLIENT_RECORD:
        if (is_head(v, x)) {
            v->seen[x / 8] &= (uint8_t)~(1u << (x % 8));
            new_activities(v, x);
        }
        break;
    case VR_ANIMATOR: {
        /* API 26+ keeps the target behind a WeakReference: Shark reads through it, at low
         * priority, as the field itself */
        edge_ix te = field_edge(g, x, "mTarget");
        if (te == GRAPH_NONE)
            break;
        node_ix w = g->edge_to[te];
        class_ix wc = graph_node_class(g, w);
        if (g->node_kind[w] != GRAPH_KIND_INSTANCE || wc >= g->n_classes ||
            v->reader[wc] != VR_WEAK_REF_CLASS)
            break;
        node_ix ref = ref_field(v, w, VF_REFERENT, NULL);
        if (ref == GRAPH_NONE)
            break;
        put(v, ref, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG),
            graph_edge_name_from(g, x, te), GRAPH_NONE, VL_PLAIN);
        set_priority(v, before, VIRT_PRIO_LOW);
        break;
    }
    default: break;
    }
    if (v->n > before) {
        v->n_collections++;
        v->n_virtual += v->n - before;
    }
    return given;
}

/* Readers per class, by exact class name as Shark matches them; a reader whose layout the
 * dump's class lacks is not made (Shark's factories return none), and the Apache Harmony
 * (Dalvik) layouts get their own readers. */
static void set_readers(virt_gen *v)
{
    const graph *g = v->g;
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
            v->reader[c] = VR_WEAK_REF_CLASS;
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
        v->reader[c] = r;
    }
}

/* The records ActivityThread.mNewActivities points at (Shark remembers the one it read).
 * Returns -1 on allocation failure. */
static int find_heads(virt_gen *v)
{
    const graph *g = v->g;
    uint32_t cap = 0;
    int any = 0;
    for (class_ix c = 0; c < g->n_classes && !any; c++)
        any = v->reader[c] == VR_ACTIVITY_THREAD;
    for (node_ix x = 0; any && x < g->n_nodes; x++) {
        class_ix c = graph_node_class(g, x);
        if (g->node_kind[x] != GRAPH_KIND_INSTANCE || c >= g->n_classes ||
            v->reader[c] != VR_ACTIVITY_THREAD)
            continue;
        node_ix h = ref_field(v, x, VF_NEW_ACTIVITIES, NULL);
        if (h == GRAPH_NONE)
            continue;
        if (v->n_heads == cap) {
            uint32_t nc = cap ? cap * 2 : 4;
            node_ix *t = err_reallocarray(v->heads, nc, sizeof *t);
            if (!t)
                return -1;
            v->heads = t;
            cap = nc;
        }
        v->heads[v->n_heads++] = h;
    }
    if (v->n_heads > 1)
        qsort(v->heads, v->n_heads, sizeof *v->heads, cmp_node);
    return v->failed ? -1 : 0;
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
static int rank_names(virt_gen *v)
{
    const graph *g = v->g;
    uint32_t ns = g->strings.n, n = 0;
    if (!g->n_fields || !ns)
        return 0;
    str_ix *ids = err_mallocarray(g->n_fields, sizeof *ids);
    v->rank = err_calloc(ns, sizeof *v->rank);
    if (!ids || !v->rank) {
        free(ids);
        return -1;
    }
    v->n_rank = ns;
    for (uint32_t i = 0; i < g->n_fields; i++) {
        str_ix s = g->fields[i].name;
        if (s < ns && !v->rank[s]) {
            v->rank[s] = 1;
            ids[n++] = s;
        }
    }
    rank_g = g;
    qsort(ids, n, sizeof *ids, cmp_str_ix);
    uint32_t r = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(graph_str(g, ids[i - 1]), graph_str(g, ids[i])))
            r++;
        v->rank[ids[i]] = r;
        if (!strcmp(graph_str(g, ids[i]), "shadow$_klass_"))
            v->shadow = r;
    }
    free(ids);
    return 0;
}

static int cmp_field_text(const void *a, const void *b)
{
    const field_ref *x = a, *y = b;
    int c = strcmp(graph_str(rank_g, x->name), graph_str(rank_g, y->name));
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

/* Whether a field named s is java.lang.Object's ART class pointer, which Shark does not
 * follow; *rank is the name's rank. */
static int is_shadow(const virt_gen *v, str_ix s, uint32_t *rank)
{
    *rank = s < v->n_rank ? v->rank[s] : 0;
    if (*rank)
        return *rank == v->shadow;
    return !strcmp(graph_str(v->g, s), "shadow$_klass_");
}

/* Appends the real edges node x keeps, in Shark's order: for an instance the non-field
 * edges, then its fields by name (none for Strings and boxed primitives, never `given`);
 * array entries renumbered among the non-null ones (none for wrapper arrays). */
static void real_edges(virt_gen *v, node_ix x, unsigned r, edge_ix given)
{
    const graph *g = v->g;
    edge_ix e0 = g->first_edge[x], e1 = g->first_edge[x + 1];
    unsigned kind = g->node_kind[x];
    if (e0 >= e1 || reserve(v, e1 - e0))
        return;
#define PUT(e, nm)                                 \
    do {                                           \
        uint32_t i_ = v->n++;                      \
        v->to[i_] = g->edge_to[e];                 \
        v->name[i_] = (nm);                        \
        v->kind[i_] = g->edge_kind[e];             \
        v->real[i_] = (e);                         \
        v->label[i_] = VL_PLAIN;                   \
        v->prio[i_] = VIRT_PRIO_RULES;             \
    } while (0)
    if (kind == GRAPH_KIND_OBJ_ARRAY) {
        /* Shark numbers entries among the non-null elements present in the dump */
        uint32_t k = 0;
        for (edge_ix e = e0; e < e1; e++) {
            if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT)
                PUT(e, graph_edge_name_from(g, x, e));
            else if (r != VR_WRAPPER_ARR)
                PUT(e, k++);
        }
        return;
    }
    if (kind != GRAPH_KIND_INSTANCE) {
        for (edge_ix e = e0; e < e1; e++)
            PUT(e, graph_edge_name_from(g, x, e));
        return;
    }
    uint32_t nf = 0;
    int by_text = 0, sorted = 1;
    for (edge_ix e = e0; e < e1; e++) {
        if (e == given)
            continue;
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_FIELD) {
            PUT(e, graph_edge_name_from(g, x, e));
            continue;
        }
        if (r == VR_PLAIN)
            continue;
        uint32_t rank;
        str_ix s = graph_edge_name_from(g, x, e);
        if (is_shadow(v, s, &rank))
            continue;
        if (grow_array((void **)&v->fr, &v->cap_fr, nf + 1, sizeof *v->fr)) {
            v->failed = 1;
            return;
        }
        by_text |= rank == 0;
        if (nf && rank < v->fr[nf - 1].rank)
            sorted = 0;
        v->fr[nf++] = (field_ref){rank, s, e};
    }
    field_ref *fr = v->fr;
    if (by_text && nf > 1) {
        rank_g = g;
        qsort(fr, nf, sizeof *fr, cmp_field_text);
    } else if (!sorted) {
        if (nf <= 16) {
            for (uint32_t i = 1; i < nf; i++) {
                field_ref t = fr[i];
                uint32_t j = i;
                for (; j > 0 && cmp_field_rank(&fr[j - 1], &t) > 0; j--)
                    fr[j] = fr[j - 1];
                fr[j] = t;
            }
        } else {
            qsort(fr, nf, sizeof *fr, cmp_field_rank);
        }
    }
    for (uint32_t i = 0; i < nf; i++)
        PUT(fr[i].e, fr[i].name);
#undef PUT
}

/* ---- the generator ---- */

void virt_gen_free(virt_gen *v)
{
    if (!v)
        return;
    free(v->reader);
    free(v->seen);
    free(v->walked);
    free(v->heads);
    free(v->rank);
    free(v->fr);
    for (unsigned f = 0; f < VF_COUNT; f++)
        free(v->layout[f]);
    for (class_ix c = 0; v->refs && c < v->g->n_classes; c++)
        free(v->refs[c]);
    free(v->refs);
    free(v->to);
    free(v->name);
    free(v->kind);
    free(v->real);
    free(v->label);
    free(v->prio);
    free(v);
}

lr_status virt_gen_new(const graph *g, virt_gen **out, lr_error *err)
{
    *out = NULL;
    if (!g->format || strcmp(g->format, "hprof") || !g->first_edge || !g->edge_to ||
        !g->edge_kind)
        return LR_OK;
    if ((uint64_t)g->n_nodes + VL_VALUE + 1 > UINT32_MAX)
        return LR_FAIL(err, LR_ERR_LIMIT, "graph too large for the virtual reference view");
    virt_gen *v = err_calloc(1, sizeof *v);
    if (!v)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for the virtual reference view");
    v->g = g;
    v->budget_full = v->budget = 4 * ((uint64_t)g->n_edges + g->n_nodes) + 1024;
    v->list.node = GRAPH_NONE;
    v->trust_node = GRAPH_NONE;
    v->at_node = GRAPH_NONE;
    v->sorted_min = VIRT_SORTED_MIN;
    v->reader = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    v->seen = err_calloc(g->n_nodes / 8 + 1, 1);
    if (!v->reader || !v->seen || reserve(v, 64))
        goto nomem;
    set_readers(v);
    if (find_heads(v) || rank_names(v))
        goto nomem;
    *out = v;
    return LR_OK;
nomem:
    virt_gen_free(v);
    return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for the virtual reference view");
}

void virt_set_sorted_min(virt_gen *v, uint32_t buckets)
{
    v->sorted_min = buckets;
}

void virt_budget_reset(virt_gen *v)
{
    v->budget = v->budget_full;
}

void virt_stats(const virt_gen *v, uint64_t *collections, uint64_t *entries)
{
    *collections = v->n_collections;
    *entries = v->n_virtual;
}

const virt_list *virt_edges(virt_gen *v, node_ix x)
{
    const graph *g = v->g;
    if (v->list.node == x && x != GRAPH_NONE)
        return &v->list;
    v->list.node = GRAPH_NONE;
    v->n = 0;
    v->failed = 0;
    uint32_t lead = 0;
    if (x < g->n_nodes) {
        class_ix c = graph_node_class(g, x);
        unsigned r = c < g->n_classes ? v->reader[c] : VR_NONE;
        edge_ix given = GRAPH_NONE;
        if (g->node_kind[x] == GRAPH_KIND_INSTANCE && r >= VR_ARRAY_LIST) {
            given = expand(v, x, r);
            lead = v->n;
        }
        real_edges(v, x, r, given);
    }
    if (v->failed)
        return NULL;
    v->list = (virt_list){x, v->n, lead, v->to, v->name, v->kind, v->real, v->prio};
    return &v->list;
}

edge_ix virt_real_edge(virt_gen *v, node_ix from, uint32_t pos)
{
    const virt_list *l = virt_edges(v, from);
    return l && pos < l->n ? l->real[pos] : GRAPH_NONE;
}

int virt_edge_priority(virt_gen *v, node_ix from, uint32_t pos)
{
    const virt_list *l = virt_edges(v, from);
    return l && pos < l->n ? l->prio[pos] : VIRT_PRIO_RULES;
}

const char *virt_edge_label(virt_gen *v, node_ix from, uint32_t pos, char *buf, size_t cap)
{
    const virt_list *l = virt_edges(v, from);
    if (!l || pos >= l->n || l->real[pos] != GRAPH_NONE)
        return NULL;
    uint32_t code = v->label[pos];
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
    key_name(v->g, key < v->g->n_nodes ? key : GRAPH_NONE, buf, cap);
    return buf;
}

uint32_t virt_real_name(const virt_gen *v, node_ix from, edge_ix e)
{
    const graph *g = v->g;
    /* The view exists for HPROF alone, where an object array's edges are its non-null
     * elements and nothing else, in index order (hprof_edges.c): an entry's number among them
     * is its edge's position. (Counting the elements before it made 400,000 watched objects
     * in one array 38 s of counting.) */
    if (from < g->n_nodes && g->node_kind[from] == GRAPH_KIND_OBJ_ARRAY &&
        GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_ELEMENT)
        return (uint32_t)(e - g->first_edge[from]);
    return graph_edge_name_from(g, from, e);
}

