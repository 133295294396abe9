/* SPDX-License-Identifier: Apache-2.0 */
/* cli_retained.c: the default retained-size model of a dump (cli), prefix cli_retained_.
 * Picks what `leakray top` shows without --model (DevTools for V8-like snapshots, VisualVM's
 * conventions for HotSpot dumps, plain strong references otherwise) and exposes its dominator
 * tree as idom/retained arrays, so every verb prints the same number for the same node.
 * Android's Bitmap.dumpData (buffers the dumper adds) is no reference in the strong model. */
#include "cli.h"

#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "analysis/suspects.h"
#include "format/v8.h"

#include <stdlib.h>
#include <string.h>

lr_status cli_retained_build(const graph *g, cli_retained *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    r->n = g->n_nodes;
    r->artifact = GRAPH_NONE;
    if (v8_class_keys(g) && g->synthetic_root != GRAPH_NONE) {
        devtools_result *d = err_calloc(1, sizeof *d);
        if (!d)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for the dominator tree");
        lr_status st = devtools_build(g, v8_class_keys(g), d, err);
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
    if (vvm) {
        dom_opts_visualvm(&o);
    } else if ((r->artifact = susp_artifact_edge(g)) != GRAPH_NONE) {
        o.reach = susp_filter_strong;
        o.reach_ctx = &r->artifact;
    }
    lr_status st = dom_build_ex(g, &o, t, err);
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

void cli_retained_free(cli_retained *r)
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
