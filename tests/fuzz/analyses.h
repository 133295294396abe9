/* SPDX-License-Identifier: Apache-2.0 */
/* analyses.h: the analyses run on a graph a fuzz target managed to load (tests/fuzz). A
 * reader that accepts bad bytes hands them to the analyses, so each loading target also runs
 * what `leakray path`, `top` and `analyze` run: shortest paths from every root, the exact
 * dominator tree (both edge filters), leak finding with a watch rule on the class of the
 * first instance, traces with short path ends (so the elided middle is exercised) over the
 * traces' tree as analyze builds it, in its model and in Shark's (the rules' edge table is
 * checked against the filter: a different tree traps), and leak suspects from the dominator
 * tree. Everything is freed before returning (LeakSanitizer). */
#ifndef LR_FUZZ_ANALYSES_H
#define LR_FUZZ_ANALYSES_H

#include "analysis/dominators.h"
#include "analysis/leakfind.h"
#include "analysis/paths.h"
#include "analysis/trace.h"
#include "graph/graph.h"
#include "rules/rules.h"

#include <string.h>

/* The traces' tree as `analyze` builds it (trace_dom_view: the rules' edge table, their
 * roots, Java locals as their thread's; Shark's model when shark is set), and the same
 * build asking the filter for every edge instead of the table: a different tree is a bug,
 * reported as a crash. Returns the tree in *dt, built or not. */
static lr_status fuzz_trace_tree(const graph *g, rules_set *rs, trace_shark_ctx *shark,
                                 dom_opts *o, dom_tree *dt, dom_reach_table *tab,
                                 node_ix **from, node_ix **to, lr_error *err)
{
    memset(dt, 0, sizeof *dt);
    lr_status st = trace_dom_view(g, rs, shark, o, tab, from, to, err);
    if (st == LR_OK)
        st = dom_build_ex(g, o, dt, err);
    if (st != LR_OK || !o->reach_table)
        return st;
    dom_opts plain_o = *o;
    plain_o.reach_table = NULL;
    dom_tree plain;
    memset(&plain, 0, sizeof plain);
    if (dom_build_ex(g, &plain_o, &plain, err) == LR_OK) {
        if (plain.n_reachable != dt->n_reachable)
            __builtin_trap();
        for (node_ix v = 0; v < g->n_nodes; v++)
            if (plain.idom[v] != dt->idom[v] || dom_retained(&plain, v) != dom_retained(dt, v))
                __builtin_trap();
    }
    dom_free(&plain);
    return LR_OK;
}

static void fuzz_traces(const graph *g, rules_set *rs, const leak_set *ls)
{
    lr_error err;
    memset(&err, 0, sizeof err);
    trace_opts to = {4, 3, 0}; /* two objects at each end, three traces in full */
    trace_shark_ctx sctx = {rs, graph_find_class(g, "java.lang.String")};
    for (int shark = 0; shark < 2; shark++) {
        trace_result tr;
        to.shark_refs = shark;
        if (trace_paths_opts(g, rs, ls, &to, &tr, &err) != LR_OK)
            return;
        dom_opts o;
        dom_tree dt;
        dom_reach_table tab;
        node_ix *from = NULL, *lto = NULL;
        if (fuzz_trace_tree(g, rs, shark ? &sctx : NULL, &o, &dt, &tab, &from, &lto, &err) ==
            LR_OK)
            (void)trace_finish_ex(g, rs, ls, &dt, &o, &tr, &err);
        trace_dom_view_free(&tab, from, lto);
        trace_result_free(&tr);
        dom_free(&dt);
    }
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
