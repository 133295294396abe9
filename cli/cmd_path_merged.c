/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_path_merged.c: `leakray path FILE --class CLASS --merged` (cli), prefix pmerge_. MAT's
 * "merge shortest paths to GC roots" for every instance of a class: the union of the paths
 * `path` would print for each instance (src/query/ computes the path forest once, Shark's
 * BFS for HPROF, DevTools' retaining paths for V8), as a tree from the GC roots down with,
 * on each line, the number of instances whose path runs through it and their summed
 * retained bytes. The instances are analysis/instances.h's selection, the tree
 * analysis/merged.h's, the listing report/merged.h's; this file picks the model and passes
 * the query's paths and sizes to them. */
#include "analysis/instances.h"
#include "analysis/merged.h"
#include "cli.h"
#include "format/v8.h"
#include "query/query.h"
#include "report/merged.h"

int path_merged(cli_common *co, const char *cls, int subclasses, uint64_t limit);

/* The query's index, paths and sizes, as the analysis asks for them. */
static lr_status pmerge_nodes(void *ctx, class_ix c, const node_ix **nodes, uint32_t *n,
                              lr_error *err)
{
    return query_class_nodes(ctx, c, nodes, n, err);
}

/* The dominator chain walked at most this far: deeper than any path the listing shows. */
#define PMERGE_DOM_STEPS 100000u

static int pmerge_dominates(void *ctx, node_ix a, node_ix b)
{
    return query_dominates(ctx, a, b, PMERGE_DOM_STEPS);
}

static uint64_t pmerge_retained(void *ctx, node_ix x)
{
    return query_retained(ctx, x);
}

static int pmerge_step(void *ctx, node_ix x, node_ix *parent, edge_ix *edge)
{
    return query_path_step(ctx, x, parent, edge);
}

static uint32_t pmerge_root(void *ctx, node_ix x)
{
    return query_path_root(ctx, x);
}

int path_merged(cli_common *co, const char *cls, int subclasses, uint64_t limit)
{
    lr_heap *lh;
    int rc;
    if ((rc = cli_open(co, co->pos[0], 0, &lh)) != 0)
        return rc;
    graph *g = lr_heap_graph(lh);
    char cbuf[512];
    cls = cli_dump_class(g, cls, cbuf, sizeof cbuf);
    lr_error err = {.offset = LR_NO_OFFSET};
    query_opts qo = {0};
    enum top_model model;
    if (v8_class_keys(g) && g->synthetic_root != GRAPH_NONE) {
        qo.model = QUERY_MODEL_DEVTOOLS; /* `path` shows DevTools' retaining paths there */
        qo.class_keys = v8_class_keys(g);
        model = TOP_MODEL_DEVTOOLS;
    } else if (g->size_model == GRAPH_SIZES_VISUALVM) {
        qo.model = QUERY_MODEL_VISUALVM;
        model = TOP_MODEL_VISUALVM;
    } else {
        qo.model = QUERY_MODEL_STRONG;
        model = TOP_MODEL_STRONG;
    }
    query_db *q = NULL;
    inst_result sel = {0};
    merged_result r = {0};
    double t0 = cli_now_ms();
    if (query_open(g, &qo, &q, &err) != LR_OK)
        goto fail;
    inst_opts io = {cls, subclasses, NULL, NULL, INST_BY_ID, 0};
    if (inst_select(g, &io, pmerge_nodes, q, &sel, &err) != LR_OK)
        goto fail;
    if (subclasses && sel.n_classes && cli_warn_subclasses(co, g, cls))
        sel.o.subclasses = 0; /* the title says the class alone */
    if (!sel.n_classes) {
        char hint[600];
        rc = cli_fail(co, LR_ERR_NOT_FOUND, "%s: no class named %s%s", co->pos[0], cls,
                      cli_hidden_hint(g, hint, sizeof hint, cls));
        goto out;
    }
    merged_src src = {q, pmerge_retained, pmerge_step, pmerge_root, pmerge_dominates};
    if (query_need_paths_retained(q, &err) != LR_OK ||
        merged_build(&sel, model, limit, &src, &r, &err) != LR_OK)
        goto fail;
    double ms = cli_now_ms() - t0;
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        rep_merged_json(&w, &r);
        cli_json_end_phase(co, &w, "paths_ms", ms);
    } else {
        rep_merged_text(stdout, &r);
        cli_print_timing(co, stdout, "load time", co->load_ms);
        cli_print_timing(co, stdout, "merged paths", ms);
    }
    rc = CLI_EXIT_OK;
    goto out;
fail:
    rc = cli_error(co, &err);
out:
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    merged_free(&r);
    inst_free(&sel);
    query_close(q);
    lr_close(lh);
    return rc;
}
