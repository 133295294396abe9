/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_clusters.c: `leakray clusters FILE` (cli), prefix clu_. Groups the objects of the
 * biggest directories (rules/v8.rules: Object, Array, Function, ...; rules/arkts.rules:
 * jsobject, jsarray, Function, ...; or class names) by origin with the ArkTS clustering
 * method and prints each cluster's count, shallow and exact retained size, whether another
 * cluster's objects dominate it, and its representative shortest reference chain
 * (report/clusters.h renders them). Also holds the rules loading `leakray leaks` reuses
 * (cmd_clusters.h). Sorting: --sort size (retained, default) or count; ties by directory
 * then representative id, so output is deterministic. */
#include "cmd_clusters.h"
#include "report/clusters.h"

#include <string.h>

int clu_load_rules(const cli_common *co, const cli_strlist *files, crules_set *rs)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    crules_init(rs);
    for (int i = 0; i < files->n; i++)
        if (crules_load_file(rs, files->v[i], &err) != LR_OK) {
            crules_fini(rs);
            return cli_error(co, &err);
        }
    return 0;
}

int clu_load_shipped(const cli_common *co, const graph *g, crules_set *rs)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    if (crules_load_shipped(rs, crules_shipped_file(g->format, g->version), &err) != LR_OK)
        return cli_error(co, &err);
    return 0;
}

int cmd_clusters(int argc, char **argv)
{
    const char *sort = "size";
    uint64_t top = 20;
    int detached = 0;
    cli_strlist rules = {0};
    const cli_optdef opts[] = {
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "cluster every detached DOM node instead of the anchors (V8 browser snapshots)", NULL},
        {"--sort", CLI_OPT_STR, &sort, "KEY",
         "size (retained bytes, the default) or count",
         "size|count"},
        {"--top", CLI_OPT_UINT, &top, "N", "clusters to show (default 20, 0 = all)", NULL},
        {"--rules", CLI_OPT_LIST, &rules, "FILE",
         "extra cluster rules (docs/rules.md), before the shipped v8.rules, hprof.rules or "
         "arkts.rules",
         NULL},
        {0},
    };
    const cli_spec spec = {
        "clusters", "FILE", "Group same-type objects by origin (ArkTS clustering rules).", opts,
        1, 1,
        "Anchors are the 20 biggest directories by retained size plus any holding over 5%\n"
        "of the heap. A V8 snapshot's directories are DevTools' class names (rules/v8.rules:\n"
        "Object, Array, Function, (string), ...), an ArkTS one's DevEco's (rules/arkts.rules:\n"
        "jsobject, jsarray, ...); other objects go by class name. Their objects are grouped\n"
        "by shortest reference chain from the roots (array indices and dictionary keys\n"
        "written []), with the directory's rule: name + chain, properties + chain, promise\n"
        "handler + chain, proxy target + chain. Retained sizes are exact: no byte is counted\n"
        "twice in a cluster.\n"
        "Example: leakray clusters --sort count app.heapsnapshot"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    crules_set rs;
    if ((rc = clu_load_rules(&co, &rules, &rs)) != 0)
        return rc;
    lr_heap *lh;
    if ((rc = cli_open(&co, co.pos[0], 0, &lh)) != 0) {
        crules_fini(&rs);
        return rc;
    }
    const graph *g = lr_heap_graph(lh);
    if (detached && (rc = cli_need_dom(&co, g, co.pos[0])) != 0) {
        lr_close(lh);
        crules_fini(&rs);
        return rc;
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    dom_tree t = {0};
    cluster_ctx c = {0};
    cluster_result r = {0};
    uint8_t *sel = NULL;
    if ((rc = clu_load_shipped(&co, g, &rs)) != 0)
        goto out;
    double t0 = cli_now_ms();
    if (detached) {
        if (!(sel = err_calloc(g->n_nodes ? g->n_nodes : 1, 1))) {
            rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
            goto out;
        }
        for (node_ix v = 0; v < g->n_nodes; v++)
            sel[v] = graph_node_dom(g, v) == GRAPH_DOM_DETACHED;
    }
    if (cluster_dom_build(g, &t, &err) != LR_OK || cluster_bind(&c, g, &rs, &t, &err) != LR_OK ||
        cluster_run(&c, sel, strcmp(sort, "count") == 0 ? CLUSTER_SORT_COUNT
                                                         : CLUSTER_SORT_SIZE,
                    &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    double ms = cli_now_ms() - t0;
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_clusters_json(&w, co.pos[0], sort, &c, &r, top);
        cli_json_end_phase(&co, &w, "cluster_ms", ms);
    } else {
        rep_clusters_text(stdout, co.pos[0], &c, &r, top, detached);
        cli_print_timing(&co, stdout, "load", co.load_ms);
        cli_print_timing(&co, stdout, "clustering", ms);
    }
out:
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    free(sel);
    cluster_result_free(&r);
    cluster_fini(&c);
    dom_free(&t);
    lr_close(lh);
    crules_fini(&rs);
    return rc;
}
