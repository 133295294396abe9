/* SPDX-License-Identifier: Apache-2.0 */
/* show.c: one object in full (analysis layer), prefix show_. Gathers what `show` prints about
 * one node: its roots (each kind once, dump order), its string value, its place in the
 * dominator tree, its class's statics resolved to nodes, its fields (graph_fields_each), the
 * bounds of its element, edge and referrer lists (the --limit cut is applied here), and reads
 * array elements on demand from the mapped input, each offset checked against its end. Cost:
 * O(fields + statics + roots) plus the reverse edge index (built once per graph). Prints
 * nothing. */
#include "analysis/show.h"

#include "base/err.h"

#include <stdlib.h>
#include <string.h>

class_ix show_class_of_node(const graph *g, node_ix n)
{
    if (n >= g->n_nodes || g->node_kind[n] != GRAPH_KIND_CLASS)
        return GRAPH_NONE;
    return graph_class_of_node(g, n);
}

/* ---- fields ---- */

typedef struct field_ctx {
    show_result *r;
    uint32_t cap;   /* entries in r->fields */
} field_ctx;

static int count_cb(void *ctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    (void)decl, (void)f, (void)v;
    (*(uint32_t *)ctx)++;
    return 0;
}

static int field_cb(void *vctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    field_ctx *c = vctx;
    show_result *r = c->r;
    if (r->n_fields == c->cap)
        return 1; /* the second walk found more than the first: stop, keep what fits */
    r->fields[r->n_fields++] = (show_field){decl, f, {v->raw, v->ref}};
    return 0;
}

static lr_status gather_fields(const graph *g, show_result *r, lr_error *err)
{
    node_ix n = r->node;
    if (g->node_kind[n] != GRAPH_KIND_INSTANCE || graph_node_off(g, n) == UINT64_MAX || !g->id_size)
        return LR_OK;
    r->has_fields = 1;
    uint32_t count = 0;
    graph_fields_each(g, n, count_cb, &count);
    if (!count)
        return LR_OK;
    r->fields = err_mallocarray(count, sizeof *r->fields);
    if (!r->fields)
        return LR_FAIL(err, LR_ERR_NOMEM, "show: out of memory for %u fields", count);
    field_ctx c = {r, count};
    graph_fields_each(g, n, field_cb, &c);
    return LR_OK;
}

/* ---- class objects ---- */

static lr_status gather_statics(const graph *g, show_result *r, lr_error *err)
{
    const graph_class *k = &g->classes[r->as_class];
    uint32_t n = 0;
    while (n < k->n_statics && (uint64_t)k->first_static + n < g->n_statics)
        n++;
    if (!n)
        return LR_OK;
    r->statics = err_mallocarray(n, sizeof *r->statics);
    if (!r->statics)
        return LR_FAIL(err, LR_ERR_NOMEM, "show: out of memory for %u statics", n);
    for (uint32_t i = 0; i < n; i++) {
        const graph_static *s = &g->statics[k->first_static + i];
        node_ix ref = GRAPH_NONE;
        if (s->type == GRAPH_FT_OBJECT && s->value)
            ref = graph_find_id(g, s->value);
        r->statics[i] = (show_value){s->value, ref};
    }
    r->n_statics = n;
    return LR_OK;
}

/* ---- arrays ---- */

static uint64_t read_be(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Element type and payload of an HPROF array node, or 0 when the bytes are not available
 * (V8 arrays, Android PRIMITIVE_ARRAY_NODATA, offsets past the end). */
static int array_payload(const graph *g, node_ix n, uint8_t *type, unsigned *esz,
                         const uint8_t **p)
{
    class_ix c = graph_node_class(g, n);
    if (!g->id_size || graph_node_off(g, n) == UINT64_MAX || !g->data)
        return 0;
    *type = g->node_kind[n] == GRAPH_KIND_OBJ_ARRAY ? GRAPH_FT_OBJECT
            : c < g->n_classes                      ? g->classes[c].elem_type
                                                    : 0;
    *esz = graph_ftype_size(g, *type);
    uint64_t len = graph_node_len(g, n), off = graph_node_off(g, n);
    if (!*esz || off > g->data_len || len > (g->data_len - off) / *esz)
        return 0;
    *p = g->data + off;
    return 1;
}

static void gather_array(const graph *g, show_result *r, uint64_t limit)
{
    node_ix n = r->node;
    unsigned kind = g->node_kind[n];
    if (kind != GRAPH_KIND_OBJ_ARRAY && kind != GRAPH_KIND_PRIM_ARRAY)
        return;
    r->is_array = 1;
    r->length = graph_node_len(g, n);
    r->have_elements = array_payload(g, n, &r->elem_type, &r->elem_size, &r->payload);
    uint64_t shown = r->length;
    if (kind == GRAPH_KIND_PRIM_ARRAY && shown > SHOW_PRIM_ELEMENTS)
        shown = SHOW_PRIM_ELEMENTS;
    if (limit && shown > limit)
        shown = limit;
    r->n_elements = r->have_elements ? shown : 0;
}

show_value show_element(const show_result *r, uint64_t i)
{
    uint64_t raw = read_be(r->payload + i * r->elem_size, r->elem_size);
    node_ix ref = GRAPH_NONE;
    if (r->elem_type == GRAPH_FT_OBJECT && raw)
        ref = graph_find_id(r->g, raw);
    return (show_value){raw, ref};
}

/* ---- the object ---- */

static lr_status gather_tree(const graph *g, show_result *r, const show_opts *o, lr_error *err)
{
    node_ix n = r->node;
    if (o->dt) {
        const devtools_result *dt = o->dt;
        node_ix d = dt->idom[n];
        r->ret = SHOW_RET_DEVTOOLS;
        r->retained = dt->retained[n];
        r->distance = dt->distance[n];
        r->dominator = n != dt->root && d < g->n_nodes ? d : GRAPH_NONE;
        r->has_traces = o->has_traces;
        /* read even without traces: a malformed trace section is an error either way */
        if (o->stack_of) {
            LR_TRY(o->stack_of(g, n, r->stack, SHOW_MAX_FRAMES, &r->stack_depth, err));
            r->n_stack = r->stack_depth < SHOW_MAX_FRAMES ? r->stack_depth : SHOW_MAX_FRAMES;
        }
    } else if (o->rt) {
        node_ix d = o->rt->idom[n];
        r->ret = SHOW_RET_TREE;
        r->model = o->rt->model;
        r->retained = o->rt->retained[n];
        r->dominator = d < g->n_nodes ? d : d == GRAPH_NONE ? GRAPH_NONE : SHOW_DOM_ROOTS;
    }
    return LR_OK;
}

/* Keeps root r, by which a thread holds the object, unless one kept names the same thread and
 * frame: dumps repeat such roots (one per local slot, or the same record twice). */
static void add_thread_root(show_result *out, const graph_root *r)
{
    for (uint32_t k = 0; k < out->n_thread_roots; k++)
        if (out->thread_roots[k]->thread == r->thread && out->thread_roots[k]->frame == r->frame)
            return;
    if (out->n_thread_roots < SHOW_THREAD_ROOTS)
        out->thread_roots[out->n_thread_roots++] = r;
    else
        out->thread_roots_more = 1;
}

lr_status show_build(graph *g, node_ix n, const show_opts *o, show_result *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    out->g = g;
    out->node = n;
    out->dominator = GRAPH_NONE;
    out->as_class = show_class_of_node(g, n);
    if (g->node_type && g->node_type[n] < g->n_types && g->type_names[g->node_type[n]])
        out->type = g->type_names[g->node_type[n]];
    if (g->node_heap && g->node_heap[n] < g->n_heaps)
        out->heap = graph_str(g, g->heap_names[g->node_heap[n]]);
    out->name = g->node_name ? graph_str(g, g->node_name[n]) : "";
    for (uint32_t i = 0; i < g->n_roots; i++)
        if (g->roots[i].node == n) {
            const graph_root *r = &g->roots[i];
            out->roots[r->kind < GRAPH_ROOT_KIND_COUNT ? r->kind : GRAPH_ROOT_KIND_COUNT] = 1;
            if (r->thread && r->kind != GRAPH_ROOT_THREAD_OBJECT)
                add_thread_root(out, r);
        }
    if (o->site_of)
        out->has_site = o->site_of(g, n, &out->site);
    long len = graph_string_value(g, n, out->string, sizeof out->string);
    out->string_len = len;
    out->string_shown = len < 0                             ? 0
                        : (size_t)len < sizeof out->string ? (size_t)len
                                                            : strlen(out->string);
    lr_status st = gather_tree(g, out, o, err);
    if (st == LR_OK && out->as_class != GRAPH_NONE)
        st = gather_statics(g, out, err);
    if (st == LR_OK)
        st = gather_fields(g, out, err);
    if (st != LR_OK)
        goto fail;
    gather_array(g, out, o->limit);
    /* HPROF contents are decoded from the bytes (fields, elements, statics); listing the
     * edges too would only repeat them. A class object without statics (Ruby's: its
     * constants, class variables and instance variables are references) lists its edges. */
    if (g->first_edge && !g->id_size &&
        (g->node_kind[n] != GRAPH_KIND_CLASS || !out->n_statics)) {
        out->has_edges = 1;
        out->first_edge = g->first_edge[n];
        out->edges_total = g->first_edge[n + 1] - g->first_edge[n];
        out->n_edges = o->limit && out->edges_total > o->limit ? o->limit : out->edges_total;
    }
    if (g->first_edge) {
        if ((st = graph_build_reverse(g, err)) != LR_OK)
            goto fail;
        out->has_referrers = 1;
        out->referrers = g->rev_edge + g->rev_first[n];
        out->referrers_total = g->rev_first[n + 1] - g->rev_first[n];
        out->n_referrers =
            o->limit && out->referrers_total > o->limit ? o->limit : out->referrers_total;
    }
    return LR_OK;
fail:
    show_free(out);
    return st;
}

void show_free(show_result *r)
{
    if (!r)
        return;
    free(r->fields);
    free(r->statics);
    r->fields = NULL;
    r->statics = NULL;
    r->n_fields = r->n_statics = 0;
}
