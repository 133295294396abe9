/* SPDX-License-Identifier: Apache-2.0 */
/* retained.c: the default retained-size model of a dump and its leak suspects (analysis
 * layer), prefix ret_. Picks what `leakray top` shows without --model (DevTools for V8-like
 * snapshots, VisualVM's conventions for HotSpot dumps, plain strong references otherwise)
 * and exposes its dominator tree as idom/retained arrays, so every verb and the library print
 * the same number for the same node; then finds MAT's leak suspects in it with their paths. */

#include "analysis/retained.h"

#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "analysis/paths.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/par.h"
#include "base/phase.h"
#include "base/spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The watcher's marks in a dump (LeakCanary's, the JVM agent's): a KeyedWeakReference per
 * watched object. VisualVM's references include every referent, so each watched object
 * had a second holder there, and the suspects' tree charged what leaked to no one (the list
 * that kept 3.7 MB of sessions was a 193 kB suspect beside "348 instances of Session"). */
typedef struct kwr_link {
    dom_edge_filter inner; /* VisualVM's link */
    uint8_t *is_kwr;       /* per class: a KeyedWeakReference or a subclass */
} kwr_link;

static int link_no_kwr(const graph *g, edge_ix e, void *ctx)
{
    const kwr_link *k = ctx;
    /* only a weak referent can be a mark: the source is looked up for those alone */
    if (GRAPH_EDGE_STRENGTH(g->edge_kind[e]) == GRAPH_WEAK) {
        class_ix c = graph_node_class(g, graph_edge_from(g, e));
        if (c < g->n_classes && k->is_kwr[c])
            return 0;
    }
    return k->inner(g, e, NULL);
}

/* The classes of the watcher's marks, or NULL when the dump has none (or no memory). */
static uint8_t *kwr_classes(const graph *g)
{
    uint8_t *is = calloc(g->n_classes ? g->n_classes : 1, 1);
    int any = 0;
    for (class_ix c = 0; is && c < g->n_classes; c++)
        for (class_ix k = c, d = 0; k < g->n_classes && d < 64; k = g->classes[k].super, d++)
            if (graph_class_is_named(g, k, "leakcanary.KeyedWeakReference") ||
                graph_class_is_named(g, k, "com.squareup.leakcanary.KeyedWeakReference")) {
                is[c] = 1;
                any = 1;
                break;
            }
    if (!any) {
        free(is);
        return NULL;
    }
    return is;
}

/* ret_build; narrow: the retained sizes in 32 bits when they fit (r->retained32); paths: the
 * suspects' paths will be read (devtools_build_paths); held: a zeroed bit per node for
 * dom_opts.held, filled when the model is VisualVM's, or NULL. */
static lr_status model_build(const graph *g, const str_ix *v8_keys, int narrow, int paths,
                             uint64_t *held, ret_model *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    r->n = g->n_nodes;
    r->artifact = GRAPH_NONE;
    if (v8_keys && g->synthetic_root != GRAPH_NONE) {
        devtools_result *d = err_calloc(1, sizeof *d);
        if (!d)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for the dominator tree");
        lr_status st = paths ? devtools_build_paths(g, v8_keys, d, err)
                             : devtools_build(g, v8_keys, d, err);
        if (st != LR_OK) {
            free(d);
            return st;
        }
        /* DevTools' root is its own dominator (suspects skip it as the top). */
        r->model = "devtools";
        r->idom = d->idom;
        r->top = d->root;
        r->retained = d->retained;
        r->total = d->total;
        r->impl = d;
        return LR_OK;
    }
    dom_tree *t = err_calloc(1, sizeof *t);
    if (!t)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for the dominator tree");
    dom_opts o = {0};
    int vvm = g->size_model == GRAPH_SIZES_VISUALVM;
    kwr_link kl = {NULL, NULL};
    if (vvm) {
        dom_opts_visualvm(&o);
        o.held = held;
        /* the suspects' tree (paths) leaves the watcher's marks out; `top`'s keeps
         * VisualVM's numbers */
        if (paths && (kl.is_kwr = kwr_classes(g)) != NULL) {
            kl.inner = o.link;
            o.link = link_no_kwr;
            o.link_ctx = &kl;
        }
    } else if ((r->artifact = susp_artifact_edge(g)) != GRAPH_NONE) {
        o.reach = susp_filter_strong;
        o.reach_ctx = &r->artifact;
    }
    if (narrow)
        o.flags |= DOM_RETAINED32;
    lr_status st = dom_build_ex(g, &o, t, err);
    free(kl.is_kwr);
    if (st != LR_OK) {
        free(t);
        return st;
    }
    r->model = vvm ? "visualvm" : "strong";
    r->idom = t->idom;
    r->top = DOM_SUPER_ROOT;
    r->retained = t->retained;
    r->total = t->total_reachable;
    r->impl = t;
    return LR_OK;
}

uint32_t ret_split_min = RET_SPLIT_MIN;
uint32_t ret_par_min = RET_PAR_MIN;

lr_status ret_build(const graph *g, const str_ix *v8_keys, ret_model *r, lr_error *err)
{
    return model_build(g, v8_keys, 0, 0, NULL, r, err);
}

void ret_free(ret_model *r)
{
    if (!r || !r->impl)
        return;
    if (r->model && strcmp(r->model, "devtools") == 0)
        devtools_free(r->impl);
    else
        dom_free(r->impl);
    free(r->impl);
    memset(r, 0, sizeof *r);
}

/* The 32-bit retained sizes of a model built narrow (dom_tree.retained32), NULL when they
 * are 64-bit (rt->retained) or the model is DevTools'. */
static const uint32_t *narrow_sizes(const ret_model *rt)
{
    return rt->retained ? NULL : ((const dom_tree *)rt->impl)->retained32;
}

/* After the suspects are found in a dom_tree model: frees its idom array and, when the
 * retained sizes are still 64-bit and all fit 32 bits, narrows them to the tree's
 * retained32. Out of memory keeps the 64-bit array, which answers as well. */
static void compact_model(ret_model *rt)
{
    dom_tree *t = rt->impl;
    free(t->idom);
    t->idom = NULL;
    rt->idom = NULL;
    if (!rt->retained)
        return;
    uint64_t most = 0;
    for (uint32_t x = 0; x < rt->n; x++)
        if (rt->retained[x] > most)
            most = rt->retained[x];
    uint32_t *r32 = most <= UINT32_MAX ? err_mallocarray(rt->n ? rt->n : 1, sizeof *r32) : NULL;
    if (!r32)
        return;
    for (uint32_t x = 0; x < rt->n; x++)
        r32[x] = (uint32_t)rt->retained[x];
    free(t->retained);
    t->retained = rt->retained = NULL;
    t->retained32 = r32;
}

/* The path of a into it->path and it->path_edges in one walk up the search's forest, and
 * its length (0: a has none). A suspect's path on a big heap can be millions of hops long,
 * each a few cache misses: asking its length first walked it twice. The buffers are sized
 * for the longest path there can be and shrunk to the path's length after; only the pages
 * the walk writes are ever touched (the CLI maps arrays this large). When they cannot be
 * had (near --max-memory), it->path stays NULL and the length comes from a walk of its own,
 * as before. */
static uint32_t one_walk_path(const paths_result *pr, node_ix a, susp_item *it)
{
    if (!paths_reached(pr, a))
        return 0;
    size_t cap = (size_t)pr->n + 1;
    /* below a limit, only while they leave an eighth of it free (nothing spilled to disk) */
    if (!mem_fits(cap * (sizeof(node_ix) + sizeof(edge_ix)), 0, mem_limit() / 8))
        return paths_get(pr, a, NULL, NULL, 0);
    node_ix *nodes = err_mallocarray(cap, sizeof *nodes);
    edge_ix *edges = nodes ? err_mallocarray(cap, sizeof *edges) : NULL;
    uint32_t len = edges ? paths_get(pr, a, nodes, edges, (uint32_t)cap) : 0;
    if (len == 0) {
        free(nodes);
        free(edges);
        return paths_get(pr, a, NULL, NULL, 0);
    }
    /* shrinking keeps the contents; a failed shrink leaves the larger block, as good */
    node_ix *pn = err_reallocarray(nodes, len, sizeof *pn);
    edge_ix *pe = err_reallocarray(edges, len, sizeof *pe);
    it->path = pn ? pn : nodes;
    it->path_edges = pe ? pe : edges;
    it->path_n = len; /* filled: ret_suspects sets it again once the sizes are in */
    return len;
}

/* Part [lo, hi) of a suspect's path_retained, read from the model's sizes. */
typedef struct fill {
    const ret_model *rt;
    susp_item *it;
    uint32_t lo, hi;
} fill;

/* A path millions of hops long reads as many sizes, in the order of its nodes (mostly
 * ascending: a list the heap laid out), and faults in the pages they go to; in two halves
 * when the other core is idle. */
static void *fill_half(void *arg)
{
    const fill *f = arg;
    const node_ix *p = f->it->path;
    uint64_t *out = f->it->path_retained;
    const uint32_t *r32 = narrow_sizes(f->rt);
    for (uint32_t k = f->lo; k < f->hi; k++)
        out[k] = f->rt->retained ? f->rt->retained[p[k]] : r32[p[k]];
    return NULL;
}


/* susp_tree.parent for DevTools' tree: the next node up the path devtools_path gives. */
typedef struct dev_up {
    const graph *g;
    const devtools_result *d;
} dev_up;

static node_ix dev_parent(void *ctx, node_ix x)
{
    const dev_up *u = ctx;
    edge_ix e = u->d->parent_edge && x < u->d->n ? u->d->parent_edge[x] : GRAPH_NONE;
    return e == GRAPH_NONE ? GRAPH_NONE : graph_edge_from(u->g, e);
}

/* susp_tree.parent for the other trees: the suspects' own path search (one traversal of
 * the whole graph, run at the first question: only a dump with a group of instances pays
 * for it, and the suspects' paths are read from it after). */
typedef struct search_up {
    const graph *g;
    const paths_policy *pol;
    paths_result pr;
    int state; /* 0: not run, 1: pr holds the forest, -1: it could not be had */
} search_up;

static node_ix search_parent(void *ctx, node_ix x)
{
    search_up *u = ctx;
    if (u->state == 0) {
        /* beside the tree, only while it leaves an eighth of the limit free (the biggest
         * member then stands for the group): the forest is 5 bytes a node and an index of
         * the edges */
        lr_error e;
        uint64_t need = (uint64_t)u->g->n_nodes * 5 + u->g->n_edges / 16;
        u->state = mem_fits(need, 0, mem_limit() / 8) &&
                           paths_find(u->g, u->pol, NULL, 0, &u->pr, &e) == LR_OK
                       ? 1
                       : -1;
    }
    return u->state == 1 ? paths_parent(&u->pr, x) : GRAPH_NONE;
}

lr_status ret_suspects(const graph *g, const str_ix *v8_keys, double share, double accum,
                       susp_result *out, lr_error *err)
{
    return ret_suspects_keep(g, v8_keys, share, accum, out, NULL, err);
}

lr_status ret_suspects_keep(const graph *g, const str_ix *v8_keys, double share, double accum,
                            susp_result *out, ret_model *keep, lr_error *err)
{
    ret_model rt;
    memset(out, 0, sizeof *out);
    if (keep)
        memset(keep, 0, sizeof *keep);
    /* the tree is only read here: its retained sizes in 32 bits when they fit */
    /* what roots other than Java frames reach comes with the VisualVM tree's reach pass
     * (a bit per node); without it susp_find walks the graph itself when it needs it */
    uint64_t *held = NULL;
    if (g->size_model == GRAPH_SIZES_VISUALVM && !(v8_keys && g->synthetic_root != GRAPH_NONE))
        held = err_calloc((size_t)g->n_nodes / 64 + 1, sizeof *held);
    lr_status st = model_build(g, v8_keys, !keep, 1, held, &rt, err);
    if (st != LR_OK) {
        free(held);
        return st;
    }
    /* the tree is built: whether on the job's thread or the caller's, the other core is
     * idle from here on (analyze's other steps end first on big heaps) */
    uint32_t par = par_two_cpus() ? ret_par_min : 0;
    susp_tree t = {rt.n,     rt.idom,           rt.top, rt.retained,
                   rt.total, narrow_sizes(&rt), held,   par,
                   strcmp(rt.model, "visualvm") == 0, NULL, NULL};
    int dev = strcmp(rt.model, "devtools") == 0;
    dev_up up = {g, rt.impl};
    /* The tree holds a class through its instances (the JVM does; no field does): a class a
     * loader defined, reached only that way, is a suspect with a path too, as in `leakray
     * path`. Without the hops a webapp's class kept by its loader, kept by one of its
     * instances, read "no path from a GC root". */
    paths_policy pol = {0};
    pol.class_hops = 1;
    /* one suspect's accumulation point (a map's table) may hold another's (the instances in
     * it): its path passes through */
    pol.through_targets = 1;
    search_up su = {g, &pol, {0}, 0};
    t.parent = dev ? dev_parent : search_parent;
    t.parent_ctx = dev ? (void *)&up : (void *)&su;
    st = susp_find(g, &t, share, accum, out, err);
    free(held);
    out->model = rt.model;
    /* The paths need no tree, only the retained sizes of the objects they pass: the idom
     * array goes, and the sizes shrink to 32 bits when they fit, before the path search's
     * own arrays are allocated (this job runs beside the traces' tree in analyze). */
    if (st == LR_OK && !dev && !keep)
        compact_model(&rt);
    paths_result pr;
    memset(&pr, 0, sizeof pr);
    node_ix *targets = NULL;
    if (st == LR_OK && out->n && !dev) {
        targets = err_mallocarray(out->n, sizeof *targets);
        if (!targets)
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory for suspect paths");
        for (uint32_t i = 0; targets && i < out->n; i++)
            targets[i] = out->v[i].accumulation;
        int all;
        /* stops once every accumulation point's path is final (they are big objects, most
         * near the roots); unreached ones leave the search to run to its end. The forest a
         * group's member was chosen by answers as well: its paths are the same. */
        if (st == LR_OK && su.state == 1) {
            pr = su.pr;
            su.state = 0;
        } else if (st == LR_OK) {
            st = paths_find_targets_split(g, &pol, targets, out->n, par, &pr, &all, err);
        }
    }
    if (su.state == 1)
        paths_free(&su.pr);
    for (uint32_t i = 0; st == LR_OK && i < out->n; i++) {
        susp_item *it = &out->v[i];
        node_ix a = it->accumulation;
        uint32_t len = dev ? devtools_path(g, rt.impl, a, NULL, 0) + 1
                           : one_walk_path(&pr, a, it);
        if (len == 0)
            continue;
        if (!it->path)
            it->path = err_mallocarray(len, sizeof *it->path);
        if (!it->path_edges)
            it->path_edges = err_mallocarray(len, sizeof *it->path_edges);
        it->path_retained = err_mallocarray(len, sizeof *it->path_retained);
        if (!it->path || !it->path_edges || !it->path_retained) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory for suspect paths");
            break;
        }
        if (dev) {
            devtools_path(g, rt.impl, a, it->path_edges, len - 1);
            for (uint32_t k = 0; k + 1 < len; k++)
                it->path[k] = graph_edge_from(g, it->path_edges[k]);
            it->path[len - 1] = a;
            /* the root and the sub-roots below it ("(GC roots)", "(Global handles)") are
             * synthetic: they name the root, the path starts at the first real object */
            uint32_t k0 = 0;
            size_t rl = 0;
            while (k0 + 1 < len && g->node_kind[it->path[k0]] == GRAPH_KIND_SYNTHETIC) {
                node_ix x = it->path[k0++];
                if (x == rt.top || !g->node_name)
                    continue;
                int w = snprintf(it->root_name + rl, sizeof it->root_name - rl, "%s%s",
                                 rl ? " / " : "", graph_str(g, g->node_name[x]));
                if (w > 0 && (size_t)w < sizeof it->root_name - rl)
                    rl += (size_t)w;
            }
            if (k0) {
                memmove(it->path, it->path + k0, (len - k0) * sizeof *it->path);
                memmove(it->path_edges, it->path_edges + k0,
                        (len - 1 - k0) * sizeof *it->path_edges);
                len -= k0;
            }
            it->path_root = g->n_roots;
        } else {
            if (!it->path_n) /* one_walk_path's buffers did not come */
                paths_get(&pr, a, it->path, it->path_edges, len);
            it->path_root = paths_root_of(&pr, it->path[0]);
        }
        it->path_n = len;
        fill r[2] = {{&rt, it, 0, len / 2}, {&rt, it, len / 2, len}};
        if (par && len >= par)
            par_two(fill_half, &r[0], &r[1], 1);
        else
            fill_half(&(fill){&rt, it, 0, len});
    }
    free(targets);
    paths_free(&pr);
    if (keep && st == LR_OK)
        *keep = rt;
    else
        ret_free(&rt);
    if (st != LR_OK)
        susp_free(out);
    return st;
}

int ret_job_room(uint64_t lim, uint64_t use, uint64_t need, uint64_t disk, uint64_t avail,
                 uint64_t data_len)
{
    uint64_t left = use < lim ? lim - use : 0;
    if (!lim || left >= 2 * need)
        return 1;
    /* What the limit cannot hold spills into page cache: cheap while it stays in memory
     * beside the dump's own pages, with as much again to spare (the 1 GB dump under a limit
     * of half its size: analyze 7.6 -> 4.8 s, own memory the same), a disk's speed once it
     * does not (the 21.6 GB dump, whose spilled arrays alone outgrow the machine). Its
     * files take disk blocks too (reserved when made): a folder that could hold what one
     * tree at a time spills, but not both trees at once, must not end the run. */
    uint64_t extra = 2 * need - left;
    return disk / 2 >= extra && avail >= data_len && (avail - data_len) / 2 >= extra;
}

static void *ret_job_run(void *arg)
{
    ret_job *j = arg;
    phase_worker("suspects");
    j->st = ret_suspects_keep(j->g, j->v8_keys, j->share, j->accum, j->out, j->keep, &j->err);
    return NULL;
}

void ret_suspects_start(ret_job *j, const graph *g, const str_ix *v8_keys, double share,
                        double accum, uint32_t split_min, susp_result *out)
{
    ret_suspects_start_keep(j, g, v8_keys, share, accum, split_min, out, NULL);
}

void ret_suspects_start_keep(ret_job *j, const graph *g, const str_ix *v8_keys, double share,
                             double accum, uint32_t split_min, susp_result *out,
                             ret_model *keep)
{
    memset(j, 0, sizeof *j);
    j->keep = keep;
    j->g = g;
    j->v8_keys = v8_keys;
    j->share = share;
    j->accum = accum;
    j->out = out;
    memset(out, 0, sizeof *out);
    /* below split_min a thread costs more than it saves; without room for both trees'
     * scratch the second tree waits for the first one's to be freed, as before; on one CPU
     * the two threads would only take turns, for no time saved, with both trees alive at
     * once (on big.hprof under taskset -c 0: the same wall, a third more memory) */
    uint64_t lim = mem_limit(), use = mem_in_use(), need = dom_scratch_bytes(g);
    int room = ret_job_room(lim, use, need, lim && use + 2 * need > lim ? spill_room() : 0,
                            lim && use + 2 * need > lim ? mem_available_now() : 0, g->data_len);
    j->threaded = g->n_nodes >= split_min && room && par_two_cpus() &&
                  pthread_create(&j->th, NULL, ret_job_run, j) == 0;
    if (!j->threaded)
        j->st = ret_suspects_keep(g, v8_keys, share, accum, out, keep, &j->err);
}

lr_status ret_suspects_join(ret_job *j, lr_error *err)
{
    if (j->threaded) {
        pthread_join(j->th, NULL);
        j->threaded = 0;
    }
    if (j->st != LR_OK && err)
        *err = j->err;
    return j->st;
}
