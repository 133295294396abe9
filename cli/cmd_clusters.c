/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_clusters.c: `leakray clusters FILE` (cli), prefix clu_. Groups the objects of the
 * biggest directories (rules/arkts.rules: jsobject, jsarray, Function, ... or class names) by
 * origin with the ArkTS clustering rules and prints each cluster's count, shallow and exact
 * retained size, whether another cluster's objects dominate it, and its representative
 * shortest reference chain. Also holds the cluster rendering `leakray leaks` reuses
 * (cmd_clusters.h). Sorting: --sort size (retained, default) or count; ties by directory then
 * representative id, so output is deterministic. */
#include "cmd_clusters.h"

#include <inttypes.h>
#include <string.h>

#define CLU_CHAIN_MAX 256 /* hops printed per chain; deeper chains are cut with "..." */

int clu_load_rules(const cli_common *co, const cli_strlist *files, crules_set *rs)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    crules_init(rs);
    for (int i = 0; i < files->n; i++)
        if (crules_load_file(rs, files->v[i], &err) != LR_OK)
            goto fail;
    if (crules_load_shipped(rs, &err) != LR_OK)
        goto fail;
    return 0;
fail:
    crules_fini(rs);
    return cli_error(co, &err);
}

static void print_chain_text(FILE *out, const cluster_ctx *c, node_ix rep)
{
    const graph *g = c->g;
    node_ix nodes[CLU_CHAIN_MAX];
    edge_ix edges[CLU_CHAIN_MAX];
    uint32_t len = cluster_chain_get(c, rep, nodes, edges, CLU_CHAIN_MAX);
    char nb[128];
    if (len == 0)
        return;
    uint32_t shown = len < CLU_CHAIN_MAX ? len : CLU_CHAIN_MAX;
    fputs("      ", out);
    const char *l0 = cluster_node_label(g, nodes[0]);
    cli_put_text(out, l0, strlen(l0), 80);
    fputc('\n', out);
    for (uint32_t i = 1; i < shown; i++) {
        edge_ix e = edges[i - 1];
        const char *lab = cluster_edge_label(c, nodes[i - 1], e, nb, sizeof nb);
        fputs("        --", out);
        cli_put_text(out, lab, strlen(lab), 60);
        fprintf(out, " (%s)--> ", graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[e])));
        const char *l = cluster_node_label(g, nodes[i]);
        cli_put_text(out, l, strlen(l), 80);
        fputc('\n', out);
    }
    if (shown < len)
        fprintf(out, "        ... %u more\n", len - shown);
}

void clu_print_text(FILE *out, const cluster_ctx *c, const cluster_result *r, uint64_t top)
{
    const graph *g = c->g;
    char a[CLI_FMT_MAX], b[CLI_FMT_MAX], d[CLI_FMT_MAX], title[512];
    uint32_t n = top && top < r->n ? (uint32_t)top : r->n;
    for (uint32_t i = 0; i < n; i++) {
        const cluster_item *it = &r->items[i];
        fprintf(out, "#%u  ", i + 1);
        cluster_title(c, it, title, sizeof title);
        cli_put_text(out, title, strlen(title), 200);
        fprintf(out, "  [%s]\n", crules_by_name(it->by));
        fprintf(out, "    count %s, shallow %s, retained %s", cli_fmt_count(a, it->count),
                cli_fmt_human(b, it->shallow), cli_fmt_human(d, it->retained));
        if (it->nested_in != CLUSTER_NONE)
            fprintf(out, ", nested in #%u", it->nested_in + 1);
        fprintf(out, "\n    representative %s, chain:\n",
                cli_fmt_id(a, g, graph_node_id(g, it->rep)));
        print_chain_text(out, c, it->rep);
    }
    if (n < r->n)
        fprintf(out, "(%s more clusters; --top 0 shows all)\n",
                cli_fmt_count((char[CLI_FMT_MAX]){0}, r->n - n));
}

void clu_print_json(jsonw *w, const cluster_ctx *c, const cluster_result *r, uint64_t top)
{
    const graph *g = c->g;
    char title[512], nb[128];
    node_ix nodes[CLU_CHAIN_MAX];
    edge_ix edges[CLU_CHAIN_MAX];
    uint32_t n = top && top < r->n ? (uint32_t)top : r->n;
    jsonw_kv_arr_begin(w, "clusters");
    for (uint32_t i = 0; i < n; i++) {
        const cluster_item *it = &r->items[i];
        jsonw_obj_begin(w);
        jsonw_kv_uint(w, "rank", i + 1);
        jsonw_kv_str(w, "title", cluster_title(c, it, title, sizeof title));
        jsonw_kv_str(w, "directory", c->dir_names[it->dir]);
        jsonw_kv_str(w, "rule", crules_by_name(it->by));
        jsonw_kv_uint(w, "count", it->count);
        jsonw_kv_uint(w, "shallow", it->shallow);
        jsonw_kv_uint(w, "retained", it->retained);
        jsonw_kv_uint(w, "top_level", it->n_top);
        if (it->nested_in != CLUSTER_NONE)
            jsonw_kv_uint(w, "nested_in", it->nested_in + 1);
        else
            jsonw_kv_null(w, "nested_in");
        jsonw_kv_obj_begin(w, "representative");
        jsonw_kv_uint(w, "id", graph_node_id(g, it->rep));
        jsonw_kv_str(w, "name", cluster_node_label(g, it->rep));
        jsonw_kv_uint(w, "retained", c->dom->retained[it->rep]);
        jsonw_obj_end(w);
        uint32_t len = cluster_chain_get(c, it->rep, nodes, edges, CLU_CHAIN_MAX);
        if (len > CLU_CHAIN_MAX)
            len = CLU_CHAIN_MAX;
        jsonw_kv_arr_begin(w, "chain");
        for (uint32_t k = 0; k < len; k++) {
            jsonw_obj_begin(w);
            if (k > 0) {
                edge_ix e = edges[k - 1];
                jsonw_kv_str(w, "edge_kind",
                             graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[e])));
                jsonw_kv_str(w, "edge", cluster_edge_label(c, nodes[k - 1], e, nb, sizeof nb));
            }
            jsonw_kv_str(w, "node", cluster_node_label(g, nodes[k]));
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
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
        {"--sort", CLI_OPT_STR, &sort, "KEY", "order clusters by retained size or count",
         "size|count"},
        {"--top", CLI_OPT_UINT, &top, "N", "clusters to show (default 20, 0 = all)", NULL},
        {"--rules", CLI_OPT_LIST, &rules, "FILE",
         "extra cluster rules (docs/rules.md), before the shipped arkts.rules", NULL},
        {0},
    };
    const cli_spec spec = {
        "clusters", "FILE", "Group same-type objects by origin (ArkTS clustering rules).", opts,
        1, 1,
        "Anchors are the 20 biggest directories by retained size (node types mapped by\n"
        "rules/arkts.rules: jsobject, jsarray, Function, string, ... or class names) plus\n"
        "any holding over 5% of the heap. Their objects are grouped by shortest reference\n"
        "chain from the roots (array indices and dictionary keys written []), with the\n"
        "directory's rule: name + chain, properties + chain, promise handler + chain, proxy\n"
        "target + chain. Retained sizes are exact: no byte is counted twice in a cluster.\n"
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
    lr_error err = {.offset = LR_NO_OFFSET};
    dom_tree t = {0};
    cluster_ctx c = {0};
    cluster_result r = {0};
    uint8_t *sel = NULL;
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
    char a[CLI_FMT_MAX], b[CLI_FMT_MAX], d[CLI_FMT_MAX];
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "file", co.pos[0]);
        jsonw_kv_str(&w, "sort", sort);
        jsonw_kv_uint(&w, "heap_retained", r.heap_total);
        jsonw_kv_uint(&w, "objects", r.n_members);
        jsonw_kv_uint(&w, "shallow", r.members_shallow);
        jsonw_kv_uint(&w, "retained", r.members_retained);
        jsonw_kv_uint(&w, "total_clusters", r.n);
        jsonw_kv_arr_begin(&w, "anchors");
        for (uint32_t i = 0; i < r.n_anchors; i++) {
            jsonw_obj_begin(&w);
            jsonw_kv_str(&w, "directory", c.dir_names[r.anchors[i].dir]);
            jsonw_kv_str(&w, "rule", crules_by_name(c.dir_by[r.anchors[i].dir]));
            jsonw_kv_uint(&w, "count", r.anchors[i].count);
            jsonw_kv_uint(&w, "retained", r.anchors[i].retained);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        clu_print_json(&w, &c, &r, top);
        cli_json_end_phase(&co, &w, "cluster_ms", ms);
    } else {
        if (detached)
            printf("%s: %s clusters over %s detached DOM objects (heap %s)\n", co.pos[0],
                   cli_fmt_count(a, r.n), cli_fmt_count(b, r.n_members),
                   cli_fmt_human(d, r.heap_total));
        else
            printf("%s: %s clusters over %s objects in %u anchor directories (heap %s)\n",
                   co.pos[0], cli_fmt_count(a, r.n), cli_fmt_count(b, r.n_members), r.n_anchors,
                   cli_fmt_human(d, r.heap_total));
        if (!detached)
            printf("anchors:\n");
        for (uint32_t i = 0; i < r.n_anchors; i++) {
            const char *dn = c.dir_names[r.anchors[i].dir];
            fputs("  ", stdout);
            cli_put_text(stdout, dn, strlen(dn), 60);
            printf("  %s objects, retained %s [%s]\n", cli_fmt_count(a, r.anchors[i].count),
                   cli_fmt_human(b, r.anchors[i].retained),
                   crules_by_name(c.dir_by[r.anchors[i].dir]));
        }
        printf("\n");
        clu_print_text(stdout, &c, &r, top);
        cli_print_timing(&co, stdout, "load", co.load_ms);
        cli_print_timing(&co, stdout, "clustering", ms);
    }
out:
    free(sel);
    cluster_result_free(&r);
    cluster_fini(&c);
    dom_free(&t);
    lr_close(lh);
    crules_fini(&rs);
    return rc;
}
