/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_leaks.c: `leakray leaks --baseline A --target B --final C` (cli), prefix leaks_cmd_.
 * memlab's three-snapshot method on V8, Node and ArkTS heaps: the leaked set is the objects
 * whose node id is in the target but not in the baseline (allocated during the action) and
 * still present in the final snapshot (survived the cleanup). Only ids are read from the
 * baseline and target (loaded without edges); the final snapshot is analysed in full.
 * Filters (documented in docs/rules.md): objects unreachable in the final snapshot, VM
 * internals (cluster rule `internal`/`none` directories) and `leak-ignore` directories
 * (strings, backing stores, numbers) are dropped. The rest are clustered with the ArkTS
 * rules and reported with exact counts and exact retained sizes: a cluster's retained size,
 * and the total, count each byte once (members dominated by other members add nothing).
 * report/leaks.h renders the result. */
#include "cmd_clusters.h"
#include "report/leaks.h"

#include "analysis/kinship.h"

#include <stdlib.h>
#include <string.h>

static int leaks_cmd_u64cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

static int leaks_cmd_has(const uint64_t *ids, uint64_t n, uint64_t id)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ids[lo] == id;
}

/* Sorted ids of the nodes of path (loaded without edges) that are not in excl[0..n_excl),
 * and the snapshot's fingerprint in *kp (free: kin_print_free). Returns 0 or the exit code
 * (error printed). */
static int leaks_cmd_ids(cli_common *co, const char *path, const uint64_t *excl, uint64_t n_excl,
                         uint64_t **out, uint64_t *n_out, kin_print *kp)
{
    lr_heap *h;
    int rc = cli_open(co, path, CLI_OPEN_NO_EDGES, &h);
    if (rc)
        return rc;
    const graph *g = lr_heap_graph(h);
    if (!graph_has_ids(g)) {
        /* The HPROF reader keeps no ids without edges (histo streaming): load it in full. */
        lr_close(h);
        if ((rc = cli_open(co, path, 0, &h)) != 0)
            return rc;
        g = lr_heap_graph(h);
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    if (kin_print_build(g, lr_heap_format(h), kp, &err) != LR_OK) {
        lr_close(h);
        return cli_error(co, &err);
    }
    uint64_t *ids = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *ids);
    if (!ids) {
        lr_close(h);
        return cli_fail(co, LR_ERR_NOMEM, "out of memory reading ids of %s", path);
    }
    uint64_t n = 0;
    for (node_ix v = 0; v < g->n_nodes; v++)
        if (!excl || !leaks_cmd_has(excl, n_excl, graph_node_id(g, v)))
            ids[n++] = graph_node_id(g, v);
    lr_close(h);
    qsort(ids, n, sizeof *ids, leaks_cmd_u64cmp);
    *out = ids;
    *n_out = n;
    return 0;
}

int cmd_leaks(int argc, char **argv)
{
    const char *base = NULL, *target = NULL, *final = NULL, *sort = "size";
    uint64_t top = 20;
    int fail_on_leak = 0, detached = 0, force = 0;
    cli_strlist rules = {0};
    const cli_optdef opts[] = {
        {"--baseline", CLI_OPT_STR, &base, "FILE", "snapshot before the action (required)",
         NULL},
        {"--target", CLI_OPT_STR, &target, "FILE", "snapshot after the action (required)",
         NULL},
        {"--final", CLI_OPT_STR, &final, "FILE",
         "snapshot after reverting the action (default: the target)", NULL},
        {"--sort", CLI_OPT_STR, &sort, "KEY", "order clusters by retained size or count",
         "size|count"},
        {"--top", CLI_OPT_UINT, &top, "N", "clusters to show (default 20, 0 = all)", NULL},
        {"--fail-on-leak", CLI_OPT_FLAG, &fail_on_leak, NULL, "exit 1 when anything leaked",
         NULL},
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "only detached DOM nodes (V8 browser snapshots)", NULL},
        {"--force", CLI_OPT_FLAG, &force, NULL,
         "compare snapshots that look like two processes (formats must still match)", NULL},
        {"--rules", CLI_OPT_LIST, &rules, "FILE",
         "extra cluster rules (docs/rules.md), before the shipped arkts.rules", NULL},
        {0},
    };
    const cli_spec spec = {
        "leaks", "", "Objects allocated in the target and still alive in the final snapshot.",
        opts, 0, 0,
        "memlab's method: leaked = ids(target) - ids(baseline), present in final. Objects\n"
        "unreachable in the final snapshot, VM internals, strings, backing stores and\n"
        "numbers are not reported (see docs/rules.md). Leaks are grouped by origin with the\n"
        "ArkTS clustering rules; counts and retained sizes are exact (no sampling, no byte\n"
        "counted twice). Clusters whose objects are held by another cluster's objects are\n"
        "marked \"nested in #N\". The three snapshots must have one format and come from\n"
        "one process (shared classes, ids that keep their class); else exit 2.\n"
        "Example: leakray leaks --baseline s1.heapsnapshot --target s2.heapsnapshot \\\n"
        "             --final s3.heapsnapshot --fail-on-leak"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (!base || !target)
        return cli_usage_error(&co, "--baseline and --target are required");
    if (!final)
        final = target;
    crules_set rs;
    if ((rc = clu_load_rules(&co, &rules, &rs)) != 0)
        return rc;
    uint64_t *base_ids = NULL, *new_ids = NULL, n_base = 0, n_new = 0;
    lr_heap *lh = NULL;
    uint8_t *sel = NULL;
    dom_tree t = {0};
    cluster_ctx c = {0};
    cluster_result r = {0};
    lr_error err = {.offset = LR_NO_OFFSET};
    kin_print kb = {0}, kt = {0}, kf = {0};
    kin_stats ks = {0}, ks2;
    int related = 1, related2 = 1;
    if ((rc = leaks_cmd_ids(&co, base, NULL, 0, &base_ids, &n_base, &kb)) != 0 ||
        (rc = leaks_cmd_ids(&co, target, base_ids, n_base, &new_ids, &n_new, &kt)) != 0 ||
        (rc = cli_check_related(&co, base, &kb, target, &kt, force, &ks, &related)) != 0)
        goto out;
    free(base_ids);
    base_ids = NULL;
    if ((rc = cli_open(&co, final, 0, &lh)) != 0)
        goto out;
    const graph *g = lr_heap_graph(lh);
    if (final != target) {
        if (kin_print_build(g, lr_heap_format(lh), &kf, &err) != LR_OK) {
            rc = cli_error(&co, &err);
            goto out;
        }
        if ((rc = cli_check_related(&co, target, &kt, final, &kf, force, &ks2, &related2)) != 0)
            goto out;
    }
    double t0 = cli_now_ms();
    sel = err_calloc(g->n_nodes ? g->n_nodes : 1, 1);
    if (!sel) {
        rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
        goto out;
    }
    uint64_t n_alive = 0;
    for (node_ix v = 0; v < g->n_nodes; v++)
        if (leaks_cmd_has(new_ids, n_new, graph_node_id(g, v)) &&
            (!detached || graph_node_dom(g, v) == GRAPH_DOM_DETACHED)) {
            sel[v] = 1;
            n_alive++;
        }
    if (cluster_dom_build(g, &t, &err) != LR_OK || cluster_bind(&c, g, &rs, &t, &err) != LR_OK ||
        cluster_run(&c, sel, strcmp(sort, "count") == 0 ? CLUSTER_SORT_COUNT : CLUSTER_SORT_SIZE,
                    &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    double ms = cli_now_ms() - t0;
    rep_leaks v = {base, target, final, n_new, n_alive, &c, &r, top, &ks,
                   related && related2, force};
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_leaks_json(&w, &v);
        cli_json_end_phase(&co, &w, "analysis_ms", ms);
    } else {
        rep_leaks_text(stdout, &v);
        cli_print_timing(&co, stdout, "load", co.load_ms_total);
        cli_print_timing(&co, stdout, "analysis", ms);
    }
    if (fail_on_leak && r.n_members > 0)
        rc = CLI_EXIT_FINDINGS;
out:
    kin_print_free(&kb);
    kin_print_free(&kt);
    kin_print_free(&kf);
    cluster_result_free(&r);
    cluster_fini(&c);
    dom_free(&t);
    free(sel);
    free(base_ids);
    free(new_ids);
    lr_close(lh);
    crules_fini(&rs);
    return rc;
}
