/* SPDX-License-Identifier: Apache-2.0 */
/* merged.c: the merged shortest paths of a class's instances (analysis layer), prefix
 * merged_. Reads each instance's retained size once, merges the paths (mergepaths.c), looks
 * up the root entry of each top, then walks the tree as a listing shows it and names the
 * references to the children shown. Naming goes node by node, in edge order, as the listing
 * opens them (mpath_name_children): asked per child, HPROF's derived names would walk a wide
 * array's slots once per child. Prints nothing. */
#include "analysis/merged.h"

#include "base/err.h"

#include <stdlib.h>
#include <string.h>

lr_status merged_build(const inst_result *sel, enum top_model model, uint64_t limit,
                       const merged_src *src, merged_result *r, lr_error *err)
{
    const graph *g = sel->g;
    uint32_t n = sel->n;
    memset(r, 0, sizeof *r);
    r->g = g;
    r->cls = sel->o.cls;
    r->subclasses = sel->o.subclasses;
    r->model = model;
    r->limit = limit;
    r->n_instances = n;
    uint64_t *ret = err_mallocarray(n ? n : 1, sizeof *ret);
    if (!ret)
        return LR_FAIL(err, LR_ERR_NOMEM, "path: out of memory for %u instances", n);
    for (uint32_t i = 0; i < n; i++)
        ret[i] = src->retained(src->ctx, sel->nodes[i]);
    lr_status st = mpath_build(g, sel->nodes, ret, n, src->step, src->dominates, src->ctx,
                               &r->tree, err);
    free(ret);
    if (st != LR_OK)
        return st;
    uint32_t n_tops = 0;
    for (uint32_t c = r->tree.first_top; c != MPATH_NONE; c = r->tree.nodes[c].next_sibling)
        n_tops++;
    r->top_root = err_mallocarray(n_tops ? n_tops : 1, sizeof *r->top_root);
    if (!r->top_root) {
        merged_free(r);
        return LR_FAIL(err, LR_ERR_NOMEM, "path: out of memory for %u tree nodes", n_tops);
    }
    n_tops = 0;
    for (uint32_t c = r->tree.first_top; c != MPATH_NONE; c = r->tree.nodes[c].next_sibling)
        r->top_root[n_tops++] = src->root(src->ctx, r->tree.nodes[c].node);
    merged_walk w;
    merged_walk_start(r, &w);
    int ev;
    while ((ev = merged_walk_next(r, &w)) != MERGED_END) {
        if (ev != MERGED_OPEN)
            continue;
        st = mpath_name_children(g, &r->tree, w.node, limit, err);
        if (st != LR_OK) {
            merged_free(r);
            return st;
        }
    }
    return LR_OK;
}

void merged_free(merged_result *r)
{
    mpath_free(&r->tree);
    free(r->top_root);
    r->top_root = NULL;
}

void merged_walk_start(const merged_result *r, merged_walk *w)
{
    memset(w, 0, sizeof *w);
    w->parent_ = MPATH_NONE;
    w->next_ = r->tree.first_top;
}

int merged_walk_next(const merged_result *r, merged_walk *w)
{
    const mpath_tree *t = &r->tree;
    if (w->done_)
        return MERGED_END;
    if (w->next_ != MPATH_NONE && (r->limit == 0 || w->pos_ < r->limit)) {
        uint32_t c = w->next_;
        w->node = c;
        w->depth = w->depth_;
        if (w->depth_ == 0)
            w->top_pos = w->tops_++;
        w->parent_ = c; /* down into its children */
        w->next_ = t->nodes[c].first_child;
        w->pos_ = 0;
        w->depth_++;
        return MERGED_OPEN;
    }
    w->node = w->next_;
    w->depth = w->depth_;
    w->top = w->parent_ == MPATH_NONE;
    if (w->top) {
        w->done_ = 1;
        return MERGED_CLOSE;
    }
    /* back up to the parent's next sibling: count the parent's place again (it was shown, so
     * at most limit steps; without a limit the place is never compared) */
    uint32_t p = w->parent_;
    w->parent_ = t->nodes[p].parent;
    w->next_ = t->nodes[p].next_sibling;
    w->depth_--;
    w->pos_ = 0;
    if (r->limit) {
        uint32_t c = w->parent_ == MPATH_NONE ? t->first_top : t->nodes[w->parent_].first_child;
        for (; c != p; c = t->nodes[c].next_sibling)
            w->pos_++;
        w->pos_++;
    }
    return MERGED_CLOSE;
}
