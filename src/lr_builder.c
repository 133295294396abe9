/* SPDX-License-Identifier: Apache-2.0 */
/* lr_builder.c: the public heap builder (include/leakray/builder.h; top of the library),
 * prefix lr_builder_. A builder owns the lr_heap it will hand out: strings (class names,
 * labels, reference names) are interned into that heap's graph as they come, objects go to
 * growable arrays, and classes, references and roots are kept by the caller's ids in the same
 * pending form the JSON-lines reader fills (format/gtext.h). Finishing sizes the graph's node
 * arrays exactly, copies the objects in, and lets gtext_resolve do what it does for a file:
 * the id index, class and edge resolution, CSR layout, roots. So a built heap and the same
 * graph written as JSON lines load into identical graphs. */
#include "leakray/builder.h"

#include "format/gtext.h"
#include "lr_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUILDER_FORMAT "builder"

/* The reader a built heap reports (lr_heap_format); it never reads a file. */
static const fmt_reader builder_reader = {BUILDER_FORMAT, NULL, NULL};

struct lr_builder {
    lr_heap *h;          /* the heap being built (its graph holds the strings) */
    const char *name;    /* h->g.path */
    gtext_pending p;     /* classes, node classes, edges, roots by id */
    uint64_t cap_class, cap_node, cap_edge, cap_root;
    /* objects, n = p.n_node */
    uint64_t *node_id;
    uint32_t *node_size;
    uint8_t *node_kind;
    str_ix *node_name;   /* GRAPH_NONE when no label */
    int any_label;
};

/* Grows *p (elements of `size` bytes) to hold at least need. */
static int grow(void *pp, uint64_t need, uint64_t cap, size_t size)
{
    void **p = pp;
    if (need <= cap)
        return 0;
    void *np = err_reallocarray(*p, need, size);
    if (!np)
        return -1;
    *p = np;
    return 0;
}

/* Makes room for one more record of a kind whose count is *n and capacity *cap; the arrays
 * are grown by the caller through GROW with the new capacity. */
static lr_status room(lr_builder *b, uint64_t n, uint64_t *cap, uint64_t *nc, lr_error *err)
{
    *nc = *cap;
    if (n >= UINT32_MAX - 1)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: more than 2^32 - 2 records of one kind (the "
                                          "graph's indices are 32-bit)", b->name);
    *nc = n < *cap ? *cap : *cap ? *cap * 2 : 64;
    if (*nc > UINT32_MAX)
        *nc = UINT32_MAX;
    return LR_OK;
}

#define GROW(arr, nc, cap) grow(&(arr), (nc), (cap), sizeof *(arr))
#define NOMEM(b, err) LR_FAIL((err), LR_ERR_NOMEM, "%s: out of memory", (b)->name)

lr_status lr_builder_new(const char *name, lr_builder **out, lr_error *err)
{
    if (!out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_builder_new: out is required");
    *out = NULL;
    lr_builder *b = calloc(1, sizeof *b);
    lr_heap *h = calloc(1, sizeof *h);
    if (!b || !h) {
        free(b);
        free(h);
        return LR_FAIL(err, LR_ERR_NOMEM, "lr_builder_new: out of memory");
    }
    graph_init(&h->g);
    h->reader = &builder_reader;
    h->g.path = strdup(name ? name : "<builder>");
    if (!h->g.path) {
        lr_close(h);
        free(b);
        return LR_FAIL(err, LR_ERR_NOMEM, "lr_builder_new: out of memory");
    }
    b->h = h;
    b->name = h->g.path;
    *out = b;
    return LR_OK;
}

void lr_builder_free(lr_builder *b)
{
    if (!b)
        return;
    gtext_pending_free(&b->p);
    free(b->node_id);
    free(b->node_size);
    free(b->node_kind);
    free(b->node_name);
    lr_close(b->h);
    free(b);
}

static lr_status intern(lr_builder *b, const char *s, str_ix *out, lr_error *err)
{
    return graph_intern(&b->h->g, s ? s : "", s ? strlen(s) : 0, out, err);
}

static lr_status check(const lr_builder *b, uint64_t id, const char *fn, lr_error *err)
{
    if (!b)
        return LR_FAIL(err, LR_ERR_USAGE, "%s: no builder", fn);
    if (id == LR_BUILDER_NONE)
        return LR_FAIL(err, LR_ERR_USAGE, "%s: %s: id LR_BUILDER_NONE is reserved", fn,
                       b->name);
    return LR_OK;
}

lr_status lr_builder_add_class(lr_builder *b, uint64_t id, const char *name, uint64_t super_id,
                               lr_error *err)
{
    LR_TRY(check(b, id, "lr_builder_add_class", err));
    gtext_pending *p = &b->p;
    graph *g = &b->h->g;
    uint64_t n = p->n_class, nc;
    LR_TRY(room(b, n, &b->cap_class, &nc, err));
    if (GROW(p->class_id, nc, b->cap_class) || GROW(p->class_super, nc, b->cap_class) ||
        GROW(p->class_node, nc, b->cap_class) || GROW(p->class_has_super, nc, b->cap_class) ||
        GROW(p->class_has_node, nc, b->cap_class) || GROW(g->classes, nc, b->cap_class))
        return NOMEM(b, err);
    b->cap_class = nc;
    str_ix s;
    LR_TRY(intern(b, name, &s, err));
    g->classes[n] = (graph_class){.name = s, .super = GRAPH_NONE, .node = GRAPH_NONE};
    p->class_id[n] = id;
    p->class_super[n] = super_id;
    p->class_has_super[n] = super_id != LR_BUILDER_NONE;
    p->class_node[n] = 0;
    p->class_has_node[n] = 0;
    p->n_class = n + 1;
    return LR_OK;
}

lr_status lr_builder_add_node(lr_builder *b, uint64_t id, uint64_t class_id, lr_kind kind,
                              uint64_t size, const char *label, lr_error *err)
{
    LR_TRY(check(b, id, "lr_builder_add_node", err));
    if ((unsigned)kind >= GRAPH_KIND_COUNT)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_builder_add_node: %s: kind %d out of range",
                       b->name, (int)kind);
    gtext_pending *p = &b->p;
    uint64_t n = p->n_node, nc;
    LR_TRY(room(b, n, &b->cap_node, &nc, err));
    if (GROW(p->node_class_id, nc, b->cap_node) || GROW(p->node_has_class, nc, b->cap_node) ||
        GROW(b->node_id, nc, b->cap_node) || GROW(b->node_size, nc, b->cap_node) ||
        GROW(b->node_kind, nc, b->cap_node) || GROW(b->node_name, nc, b->cap_node))
        return NOMEM(b, err);
    b->cap_node = nc;
    str_ix s = GRAPH_NONE;
    if (label) {
        LR_TRY(intern(b, label, &s, err));
        b->any_label = 1;
    }
    if (size > UINT32_MAX) {
        diag_count(&b->h->g.diag, DIAG_SIZE_SATURATED);
        size = UINT32_MAX;
    }
    b->node_id[n] = id;
    b->node_size[n] = (uint32_t)size;
    b->node_kind[n] = (uint8_t)kind;
    b->node_name[n] = s;
    p->node_class_id[n] = class_id;
    p->node_has_class[n] = class_id != LR_BUILDER_NONE;
    p->n_node = n + 1;
    return LR_OK;
}

static lr_status add_ref(lr_builder *b, uint64_t from, uint64_t to, unsigned kind, uint32_t nm,
                         lr_ref_strength strength, lr_error *err)
{
    gtext_pending *p = &b->p;
    uint64_t n = p->n_edge, nc;
    LR_TRY(room(b, n, &b->cap_edge, &nc, err));
    if (GROW(p->edge_from, nc, b->cap_edge) || GROW(p->edge_to_id, nc, b->cap_edge) ||
        GROW(p->edge_nm, nc, b->cap_edge) || GROW(p->edge_k, nc, b->cap_edge))
        return NOMEM(b, err);
    b->cap_edge = nc;
    p->edge_from[n] = from;
    p->edge_to_id[n] = to;
    p->edge_nm[n] = nm;
    p->edge_k[n] = GRAPH_EDGE_MAKE(kind, (unsigned)strength);
    p->n_edge = n + 1;
    return LR_OK;
}

static lr_status check_ref(const lr_builder *b, uint64_t from, uint64_t to,
                           lr_ref_strength strength, const char *fn, lr_error *err)
{
    LR_TRY(check(b, from, fn, err));
    LR_TRY(check(b, to, fn, err));
    if ((unsigned)strength > LR_REF_FINALIZER)
        return LR_FAIL(err, LR_ERR_USAGE, "%s: %s: strength %d out of range", fn, b->name,
                       (int)strength);
    return LR_OK;
}

lr_status lr_builder_add_edge(lr_builder *b, uint64_t from, uint64_t to, const char *name,
                              lr_ref_strength strength, lr_error *err)
{
    LR_TRY(check_ref(b, from, to, strength, "lr_builder_add_edge", err));
    str_ix s;
    LR_TRY(intern(b, name, &s, err));
    return add_ref(b, from, to, GRAPH_EDGE_FIELD, s, strength, err);
}

lr_status lr_builder_add_element(lr_builder *b, uint64_t from, uint64_t to, uint32_t index,
                                 lr_ref_strength strength, lr_error *err)
{
    LR_TRY(check_ref(b, from, to, strength, "lr_builder_add_element", err));
    return add_ref(b, from, to, GRAPH_EDGE_ELEMENT, index, strength, err);
}

lr_status lr_builder_add_root(lr_builder *b, uint64_t id, lr_root_kind kind, lr_error *err)
{
    static const uint8_t kinds[] = {
        [LR_ROOT_UNKNOWN] = GRAPH_ROOT_UNKNOWN,      [LR_ROOT_GLOBAL] = GRAPH_ROOT_JNI_GLOBAL,
        [LR_ROOT_LOCAL] = GRAPH_ROOT_JAVA_FRAME,     [LR_ROOT_STACK] = GRAPH_ROOT_NATIVE_STACK,
        [LR_ROOT_STATIC] = GRAPH_ROOT_STICKY_CLASS,  [LR_ROOT_THREAD] = GRAPH_ROOT_THREAD_OBJECT,
        [LR_ROOT_VM] = GRAPH_ROOT_VM_INTERNAL};
    LR_TRY(check(b, id, "lr_builder_add_root", err));
    if ((unsigned)kind >= sizeof kinds)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_builder_add_root: %s: root kind %d out of range",
                       b->name, (int)kind);
    gtext_pending *p = &b->p;
    uint64_t n = p->n_root, nc;
    LR_TRY(room(b, n, &b->cap_root, &nc, err));
    if (GROW(p->root_id, nc, b->cap_root) || GROW(p->root_k, nc, b->cap_root))
        return NOMEM(b, err);
    b->cap_root = nc;
    p->root_id[n] = id;
    p->root_k[n] = kinds[kind];
    p->n_root = n + 1;
    return LR_OK;
}

lr_status lr_builder_finish(lr_builder *b, lr_heap **out, lr_error *err)
{
    if (out)
        *out = NULL;
    if (!b || !out) {
        lr_builder_free(b);
        return LR_FAIL(err, LR_ERR_USAGE, "lr_builder_finish: builder and out are required");
    }
    lr_heap *h = b->h;
    graph *g = &h->g;
    gtext_pending *p = &b->p;
    g->format = BUILDER_FORMAT;
    g->size_model = GRAPH_SIZES_RECORD;
    g->synthetic_root = GRAPH_NONE;
    g->type_names[0] = "object";
    g->n_types = 1;
    snprintf(g->version, sizeof g->version, "built in process");
    uint32_t n = (uint32_t)p->n_node;
    lr_status st = graph_alloc_nodes(g, n, b->any_label ? GRAPH_WANT_NAME : 0, err);
    if (st == LR_OK) {
        g->first_edge = err_calloc((size_t)n + 1, sizeof *g->first_edge);
        g->roots = err_calloc(p->n_root ? p->n_root : 1, sizeof *g->roots);
        if (!g->first_edge || !g->roots)
            st = NOMEM(b, err);
    }
    if (st == LR_OK) {
        for (uint32_t i = 0; i < n; i++) {
            g->node_id[i] = b->node_id[i];
            g->node_class[i] = GRAPH_NONE;
            g->node_size[i] = b->node_size[i];
            g->node_kind[i] = b->node_kind[i];
            g->node_type[i] = 0;
            g->node_off[i] = UINT64_MAX;
            g->node_len[i] = 0;
            if (g->node_name)
                g->node_name[i] = b->node_name[i];
        }
        g->n_classes = (uint32_t)p->n_class;
        st = gtext_resolve(g, p, b->name, err);
    }
    if (st == LR_OK) {
        b->h = NULL; /* handed out */
        *out = h;
    }
    lr_builder_free(b);
    return st;
}
