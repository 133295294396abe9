/* SPDX-License-Identifier: Apache-2.0 */
/* virtual.c: Shark's reference readers as an edge overlay (analysis layer), prefix virt_.
 * Per node, in Shark 2.14's order (ChainingInstanceReferenceReader: the first matching virtual
 * reader, then the field reader): the collection's element references, then the non-field
 * edges as the reader made them, then instance fields sorted by name (stable, so shadowed
 * fields keep their hierarchy order). Collection internals (elementData, table, nodes) stay
 * reachable through the fields, as in 2.14; they are just never first. Walking a collection
 * reads untrusted data: chains stop at a node already seen in the same collection, and the
 * whole expansion has a step budget proportional to the graph, past which collections are
 * left as plain objects. Facts: docs/research/hprof-leakcanary-shark.md sections 5, 6.5. */
#include "analysis/virtual.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum virt_reader {
    VR_NONE = 0,
    VR_PLAIN,       /* String, boxed primitive: no references at all */
    VR_WRAPPER_ARR, /* Integer[] and friends: no references */
    VR_ARRAY_LIST,  /* elementData (JDK) or array (Android) up to size */
    VR_COW_LIST,    /* CopyOnWriteArrayList.array */
    VR_LINKED_LIST, /* first -> Node.next, Node.item */
    VR_HASH_MAP,    /* table -> Node.next, key(), value named by key */
    VR_CHM,         /* ConcurrentHashMap: table -> Node.next, key(), val */
    VR_HASH_SET,    /* map -> HashMap.table, keys as element() */
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

/* The element references of collection x read by reader r. */
static void expand(builder *b, node_ix x, unsigned r, const fixed_labels *fl)
{
    const graph *g = b->g;
    uint32_t before = b->vo->n_edges, index = 0;
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
    case VR_LINKED_LIST: {
        uint32_t pos = 0;
        for (node_ix n = ref_field(g, x, "first", NULL); !b->failed && step(b, n);
             n = ref_field(g, n, "next", NULL), pos++) {
            node_ix item = ref_field(g, n, "item", NULL);
            if (item != GRAPH_NONE)
                push(b, item, GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG), pos, GRAPH_NONE,
                     UINT32_MAX);
        }
        break;
    }
    case VR_HASH_MAP:
        map_entries(b, ref_field(g, x, "table", NULL), "value", 0, fl);
        break;
    case VR_CHM:
        map_entries(b, ref_field(g, x, "table", NULL), "val", 0, fl);
        break;
    case VR_HASH_SET: {
        node_ix map = ref_field(g, x, "map", NULL);
        if (map != GRAPH_NONE && step(b, map))
            map_entries(b, ref_field(g, map, "table", NULL), "value", 1, fl);
        break;
    }
    default: break;
    }
    if (b->vo->n_edges > before) {
        b->vo->n_collections++;
        b->vo->n_virtual += b->vo->n_edges - before;
    }
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
    for (class_ix c = 0; c < g->n_classes; c++) {
        const char *cn = graph_str(g, g->classes[c].name);
        for (size_t i = 0; i < sizeof virt_classes / sizeof *virt_classes; i++)
            if (!strcmp(cn, virt_classes[i].name)) {
                b.reader[c] = virt_classes[i].reader;
                break;
            }
    }
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
        if (r >= VR_ARRAY_LIST)
            expand(&b, x, r, &fl);
        uint32_t nf = 0;
        for (edge_ix e = e0; e < e1; e++) {
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
    return LR_OK;
nomem:
    free(fr);
    free(b.reader);
    free(b.seen);
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
    memset(vo, 0, sizeof *vo);
}
