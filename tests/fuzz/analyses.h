/* SPDX-License-Identifier: Apache-2.0 */
/* analyses.h: the analyses run on a graph a fuzz target managed to load (tests/fuzz). A
 * reader that accepts bad bytes hands them to the analyses, so each loading target also runs
 * what `leakray path`, `top` and `analyze` run: shortest paths from every root, the exact
 * dominator tree (both edge filters), leak finding with a watch rule on the class of the
 * first instance, traces with short path ends (so the elided middle is exercised), and leak
 * suspects from the dominator tree. Everything is freed before returning (LeakSanitizer). */
#ifndef LR_FUZZ_ANALYSES_H
#define LR_FUZZ_ANALYSES_H

#include "analysis/dominators.h"
#include "analysis/leakfind.h"
#include "analysis/paths.h"
#include "analysis/trace.h"
#include "graph/graph.h"
#include "rules/rules.h"

#include <string.h>

static void fuzz_traces(const graph *g, rules_set *rs, const leak_set *ls)
{
    lr_error err;
    memset(&err, 0, sizeof err);
    trace_result tr;
    dom_tree dt;
    memset(&dt, 0, sizeof dt);
    trace_opts o = {4, 3, 0}; /* two objects at each end, three traces in full */
    if (trace_paths_opts(g, rs, ls, &o, &tr, &err) != LR_OK)
        return;
    if (dom_build(g, trace_dom_filter, rs, &dt, &err) == LR_OK)
        (void)trace_finish(g, rs, ls, &dt, &tr, &err);
    trace_result_free(&tr);
    dom_free(&dt);
}

static void fuzz_analyses(const graph *g)
{
    lr_error err;
    memset(&err, 0, sizeof err);
    paths_result pr;
    if (paths_find(g, NULL, NULL, 0, &pr, &err) == LR_OK) {
        node_ix nodes[8];
        edge_ix edges[8];
        for (node_ix x = 0; x < g->n_nodes && x < 64; x++)
            (void)paths_get(&pr, x, nodes, edges, 8);
        paths_free(&pr);
    }
    dom_tree dt;
    memset(&dt, 0, sizeof dt);
    memset(&err, 0, sizeof err);
    if (dom_build(g, NULL, NULL, &dt, &err) == LR_OK) {
        leak_set ls;
        memset(&ls, 0, sizeof ls);
        rules_set rs;
        rules_init(&rs);
        if (rules_bind(&rs, g, &err) == LR_OK &&
            leak_suspects(g, &dt, 0.10, 0.70, &ls, &err) == LR_OK)
            fuzz_traces(g, &rs, &ls);
        leak_set_free(&ls);
        rules_fini(&rs);
    }
    dom_free(&dt);
    /* a watch rule on the class of the first instance: traces along real paths */
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (g->node_kind[x] != GRAPH_KIND_INSTANCE)
            continue;
        rules_set rs;
        rules_init(&rs);
        leak_set ls;
        memset(&ls, 0, sizeof ls);
        memset(&err, 0, sizeof err);
        const char *cls = graph_class_name(g, x);
        if (cls && *cls && rules_add_watch(&rs, cls, NULL, &err) == LR_OK &&
            rules_bind(&rs, g, &err) == LR_OK && leak_find(g, &rs, &ls, &err) == LR_OK)
            fuzz_traces(g, &rs, &ls);
        leak_set_free(&ls);
        rules_fini(&rs);
        break;
    }
}

#endif
