/* SPDX-License-Identifier: Apache-2.0 */
/* instances.c: the instances of a class, selected and ordered (analysis layer), prefix inst_.
 * Selection reads the caller's per-class node lists (no scan of the heap) and asks the rules
 * about each node only when a --where expression was given. Ordering sorts (key, id, node)
 * triples, so the comparison needs no global state and reads each retained size once; ties
 * keep the order of the ids, which is the node order where the graph's ids are sorted. Prints
 * nothing. */
#include "analysis/instances.h"

#include "base/err.h"
#include "graph/classname.h"

#include <stdlib.h>
#include <string.h>

/* Whether class c's name, as signatures give it (classname_stable), is cls: a hidden class
 * named without its address, `Foo$$Lambda` for every lambda class of Foo, as `--watch`
 * takes them. */
static int stable_named(const graph *g, class_ix c, const char *cls)
{
    return classname_stable_is(graph_str(g, g->classes[c].name), cls);
}

/* Whether class c is selected: named cls, or (subclasses) extending a class named cls; with
 * by_stable (no class has the name itself), named so as signatures give names. */
static int class_selected(const graph *g, class_ix c, const char *cls, int subclasses,
                          int by_stable)
{
    if (by_stable)
        return stable_named(g, c, cls);
    if (strcmp(graph_str(g, g->classes[c].name), cls) == 0)
        return 1;
    return subclasses && graph_class_is_named(g, c, cls);
}

lr_status inst_select(const graph *g, const inst_opts *o, inst_nodes_fn nodes, void *ctx,
                      inst_result *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    r->g = g;
    r->o = *o;
    uint32_t cap = 0;
    int by_stable = 0;
    if (graph_find_class(g, o->cls) == GRAPH_NONE)
        for (class_ix c = 0; c < g->n_classes && !by_stable; c++)
            by_stable = stable_named(g, c, o->cls);
    for (class_ix c = 0; c < g->n_classes; c++) {
        if (!class_selected(g, c, o->cls, o->subclasses, by_stable))
            continue;
        r->n_classes++;
        const node_ix *v;
        uint32_t k;
        lr_status st = nodes(ctx, c, &v, &k, err);
        if (st != LR_OK) {
            inst_free(r);
            return st;
        }
        if (r->n + k > cap) {
            uint32_t ncap = cap ? cap : 1024;
            while (ncap < r->n + k)
                ncap *= 2;
            node_ix *m = err_reallocarray(r->nodes, ncap, sizeof *m);
            if (!m) {
                uint32_t want = r->n + k;
                inst_free(r);
                return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for %u instances", want);
            }
            r->nodes = m;
            cap = ncap;
        }
        char why[256];
        for (uint32_t i = 0; i < k; i++)
            if (!o->where || rules_is_leaking_object(o->where, v[i], why, sizeof why))
                r->nodes[r->n++] = v[i];
    }
    r->shown = o->limit && o->limit < r->n ? (uint32_t)o->limit : r->n;
    return LR_OK;
}

typedef struct inst_key {
    uint64_t size; /* sort key (0 when sorting by id) */
    uint64_t id;   /* object id, or the node index where ids are sorted */
    node_ix node;
} inst_key;

static int key_cmp(const void *pa, const void *pb)
{
    const inst_key *a = pa, *b = pb;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1; /* sizes descending */
    return a->id < b->id ? -1 : a->id > b->id;
}

lr_status inst_order(inst_result *r, inst_retained_fn retained, void *ctx, lr_error *err)
{
    const graph *g = r->g;
    int with_retained = r->o.sort == INST_BY_RETAINED;
    inst_key *k = err_mallocarray(r->n ? r->n : 1, sizeof *k);
    if (with_retained && !(r->retained = err_mallocarray(r->n ? r->n : 1, sizeof *r->retained)))
        free(k), k = NULL;
    if (!k)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for %u instances", r->n);
    for (uint32_t i = 0; i < r->n; i++) {
        node_ix x = r->nodes[i];
        k[i].node = x;
        k[i].id = g->ids_sorted ? x : graph_node_id(g, x); /* node order is id order there */
        k[i].size = with_retained                   ? retained(ctx, x)
                    : r->o.sort == INST_BY_SHALLOW ? graph_node_size(g, x)
                                                   : 0;
    }
    qsort(k, r->n, sizeof *k, key_cmp);
    r->shallow = r->retained_sum = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        r->nodes[i] = k[i].node;
        r->shallow += graph_node_size(g, k[i].node);
        if (with_retained) {
            r->retained[i] = k[i].size;
            r->retained_sum += k[i].size;
        }
    }
    free(k);
    return LR_OK;
}

void inst_free(inst_result *r)
{
    free(r->nodes);
    free(r->retained);
    r->nodes = NULL;
    r->retained = NULL;
    r->n = r->shown = 0;
}
