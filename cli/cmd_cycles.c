/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_cycles.c: `leakray cycles FILE [--from ID | --class NAME] [--max-length N]
 * [--baseline OLD] [--top N] [--json]` (cli). Resolves the scope, builds dominators for
 * retained sizes and runs cycles_find (src/analysis/cycles.c). With --baseline, the older
 * dump is analysed with the same scope (--class NAME, or the class of the --from object,
 * since object ids differ between dumps) and cycles whose signature it already has are
 * left out. Without a scope only strongly connected components are listed. */
#include "cli.h"
#include "analysis/cycles.h"
#include "analysis/dominators.h"

#include <stdlib.h>
#include <string.h>

/* Instances (not class objects) of every class named name; *n = count. NULL on no memory. */
static node_ix *instances_of(const graph *g, const char *name, uint32_t *n)
{
    uint8_t *want = calloc(g->n_classes ? g->n_classes : 1, 1);
    if (!want)
        return NULL;
    for (class_ix c = 0; c < g->n_classes; c++)
        if (strcmp(graph_str(g, g->classes[c].name), name) == 0)
            want[c] = 1;
    uint32_t k = 0;
    for (node_ix i = 0; i < g->n_nodes; i++)
        if (g->node_class[i] != GRAPH_NONE && want[g->node_class[i]] &&
            g->node_kind[i] != GRAPH_KIND_CLASS)
            k++;
    node_ix *out = malloc((k ? k : 1) * sizeof *out);
    if (out) {
        k = 0;
        for (node_ix i = 0; i < g->n_nodes; i++)
            if (g->node_class[i] != GRAPH_NONE && want[g->node_class[i]] &&
                g->node_kind[i] != GRAPH_KIND_CLASS)
                out[k++] = i;
    }
    free(want);
    *n = k;
    return out;
}

static int sig_seen(const cycles_result *old, const char *sig)
{
    for (uint32_t i = 0; i < old->n_cycles; i++)
        if (strcmp(old->cycles[i].signature, sig) == 0)
            return 1;
    return 0;
}

int cmd_cycles(int argc, char **argv)
{
    const char *from = NULL, *cls = NULL, *baseline = NULL;
    uint64_t max_len = CYCLES_DEFAULT_MAX_LENGTH, top = 20;
    const cli_optdef opts[] = {
        {"--from", CLI_OPT_STR, &from, "ID", "scope: what this object reaches", NULL},
        {"--class", CLI_OPT_STR, &cls, "NAME", "scope: what instances of NAME reach", NULL},
        {"--max-length", CLI_OPT_UINT, &max_len, "N", "longest cycle enumerated (default 10)",
         NULL},
        {"--baseline", CLI_OPT_STR, &baseline, "OLD",
         "report only cycles whose signature OLD does not have", NULL},
        {"--top", CLI_OPT_UINT, &top, "N", "cycles / components shown (default 20)", NULL},
        {0}};
    const cli_spec spec = {
        "cycles", "FILE", "retain cycles (strongly connected objects) and who holds them", opts,
        1, 1,
        "Follows strong object edges (fields, elements), never class objects or statics.\n"
        "With --from/--class, cycles up to --max-length are enumerated and grouped by their\n"
        "canonical Class.field signature; a cycle reachable from a static field is marked\n"
        "\"held by singleton\". Without a scope only component sizes are listed."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (from && cls)
        return cli_usage_error(&co, "give --from or --class, not both");
    uint64_t from_id = 0;
    if (from && !cli_parse_id(from, &from_id))
        return cli_usage_error(&co, "invalid object id '%s'", from);
    if (baseline && !from && !cls)
        return cli_usage_error(&co, "--baseline needs --from or --class");

    lr_heap *h;
    if ((rc = cli_open(&co, co.pos[0], 0, &h)) != 0)
        return rc;
    graph *g = lr_heap_graph(h);
    lr_error err = {0};
    node_ix *starts = NULL;
    uint32_t n_starts = 0;
    const char *scope_class = cls;
    if (from) {
        node_ix n = graph_find_id(g, from_id);
        if (n == GRAPH_NONE) {
            rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no object with id %s", co.pos[0], from);
            lr_close(h);
            return rc;
        }
        starts = malloc(sizeof *starts);
        if (starts)
            starts[0] = n;
        n_starts = 1;
        scope_class = graph_class_name(g, n);
    } else if (cls) {
        starts = instances_of(g, cls, &n_starts);
        if (starts && n_starts == 0) {
            free(starts);
            rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no instances of class %s", co.pos[0], cls);
            lr_close(h);
            return rc;
        }
    }
    if ((from || cls) && !starts) {
        lr_close(h);
        return cli_fail(&co, LR_ERR_NOMEM, "out of memory");
    }

    double t0 = cli_now_ms();
    dom_tree dom = {0};
    cycles_result r = {0}, old = {0};
    lr_heap *oh = NULL;
    cycles_opts o = {starts, n_starts, (uint32_t)max_len, CYCLES_DEFAULT_MAX_CYCLES,
                     CYCLES_DEFAULT_MAX_STEPS};
    if ((starts && dom_build(g, NULL, NULL, &dom, &err) != LR_OK) ||
        cycles_find(g, starts ? &dom : NULL, &o, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto done;
    }
    if (baseline) {
        if ((rc = cli_open(&co, baseline, 0, &oh)) != 0)
            goto done;
        graph *og = lr_heap_graph(oh);
        uint32_t on = 0;
        node_ix *os = instances_of(og, scope_class, &on);
        if (!os) {
            rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
            goto done;
        }
        cycles_opts oo = o;
        oo.from = os;
        oo.n_from = on;
        lr_status s = on ? cycles_find(og, NULL, &oo, &old, &err) : LR_OK;
        free(os);
        if (s != LR_OK) {
            rc = cli_error(&co, &err);
            goto done;
        }
    }
    double ms = cli_now_ms() - t0;

    char a[CLI_FMT_MAX], b[CLI_FMT_MAX], id[CLI_FMT_MAX], eb[300];
    uint32_t shown = 0, n_new = 0;
    for (uint32_t i = 0; i < r.n_cycles; i++)
        if (!baseline || !sig_seen(&old, r.cycles[i].signature))
            n_new++;
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_obj_begin(&w, "scope");
        if (from)
            jsonw_kv_str(&w, "from", cli_fmt_id(id, g, graph_node_id(g, starts[0])));
        if (cls)
            jsonw_kv_str(&w, "class", cls);
        jsonw_kv_uint(&w, "start_objects", n_starts);
        jsonw_kv_uint(&w, "objects", r.n_scope);
        jsonw_obj_end(&w);
        jsonw_kv_uint(&w, "max_length", max_len);
        jsonw_kv_uint(&w, "n_sccs", r.n_sccs);
        jsonw_kv_uint(&w, "scc_objects", r.scc_nodes);
        jsonw_kv_arr_begin(&w, "sccs");
        for (uint32_t i = 0; i < r.n_listed_sccs && i < top; i++) {
            const cycles_scc *c = &r.sccs[i];
            jsonw_obj_begin(&w);
            jsonw_kv_uint(&w, "size", c->size);
            jsonw_kv_str(&w, "top_class",
                         c->top_class != GRAPH_NONE ? graph_str(g, g->classes[c->top_class].name)
                                                    : "");
            jsonw_kv_uint(&w, "top_class_count", c->top_count);
            jsonw_kv_str(&w, "example", cli_fmt_id(id, g, graph_node_id(g, c->example)));
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        if (starts) {
            jsonw_kv_uint(&w, "cycles_found", r.n_found);
            jsonw_kv_bool(&w, "truncated", r.truncated);
            if (baseline)
                jsonw_kv_str(&w, "baseline", baseline);
            jsonw_kv_uint(&w, "n_cycles", n_new);
            jsonw_kv_arr_begin(&w, "cycles");
            for (uint32_t i = 0; i < r.n_cycles && shown < top; i++) {
                const cycles_cycle *c = &r.cycles[i];
                if (baseline && sig_seen(&old, c->signature))
                    continue;
                shown++;
                jsonw_obj_begin(&w);
                jsonw_kv_str(&w, "signature", c->signature);
                jsonw_kv_uint(&w, "length", c->length);
                jsonw_kv_uint(&w, "count", c->count);
                jsonw_kv_uint(&w, "members", c->n_members);
                jsonw_kv_uint(&w, "retained", c->retained);
                jsonw_kv_bool(&w, "held_by_singleton", c->singleton);
                jsonw_kv_arr_begin(&w, "example");
                for (uint32_t k = 0; k < c->length; k++) {
                    jsonw_obj_begin(&w);
                    jsonw_kv_str(&w, "class", graph_class_name(g, r.nodes[c->first + k]));
                    node_ix x = r.nodes[c->first + k];
                    jsonw_kv_str(&w, "id", cli_fmt_id(id, g, graph_node_id(g, x)));
                    jsonw_kv_str(&w, "edge",
                                 graph_edge_name_text(g, r.edges[c->first + k], eb, sizeof eb));
                    jsonw_obj_end(&w);
                }
                jsonw_arr_end(&w);
                jsonw_obj_end(&w);
            }
            jsonw_arr_end(&w);
        }
        cli_json_end(&co, &w);
    } else if (!starts) {
        printf("Strongly connected components over object edges (no scope): %s, %s objects\n",
               cli_fmt_count(a, r.n_sccs), cli_fmt_count(b, r.scc_nodes));
        printf("JVM heaps hold giant class/loader and collection components, so cycles are not\n"
               "enumerated without a scope: give --class NAME or --from ID.\n");
        for (uint32_t i = 0; i < r.n_listed_sccs && i < top; i++) {
            const cycles_scc *c = &r.sccs[i];
            printf("  #%u %s objects, mostly %s (%s), e.g. %s\n", i + 1,
                   cli_fmt_count(a, c->size),
                   c->top_class != GRAPH_NONE ? graph_str(g, g->classes[c->top_class].name) : "?",
                   cli_fmt_count(b, c->top_count), cli_fmt_id(id, g, graph_node_id(g, c->example)));
        }
        cli_print_timing(&co, stdout, "cycles", ms);
    } else {
        if (from)
            printf("Scope: %s objects reachable from %s %s\n", cli_fmt_count(a, r.n_scope),
                   graph_class_name(g, starts[0]), cli_fmt_id(id, g, graph_node_id(g, starts[0])));
        else
            printf("Scope: %s objects reachable from %s instances of %s\n",
                   cli_fmt_count(a, r.n_scope), cli_fmt_count(b, n_starts), cls);
        printf("Strongly connected components: %s (%s objects)\n", cli_fmt_count(a, r.n_sccs),
               cli_fmt_count(b, r.scc_nodes));
        printf("Retain cycles up to length %u: %u distinct%s, %s found%s\n", (unsigned)max_len,
               n_new, baseline ? " not in the baseline" : "", cli_fmt_count(a, r.n_found),
               r.truncated ? " (enumeration stopped at its cap; more may exist)" : "");
        for (uint32_t i = 0; i < r.n_cycles && shown < top; i++) {
            const cycles_cycle *c = &r.cycles[i];
            if (baseline && sig_seen(&old, c->signature))
                continue;
            shown++;
            printf("  #%u x%u, length %u, retained %s%s\n", shown, c->count, c->length,
                   cli_fmt_bytes(a, c->retained), c->singleton ? ", held by singleton" : "");
            printf("     %s\n", c->signature);
            printf("     e.g.");
            for (uint32_t k = 0; k < c->length; k++)
                printf(" %s %s .%s ->", graph_class_name(g, r.nodes[c->first + k]),
                       cli_fmt_id(id, g, graph_node_id(g, r.nodes[c->first + k])),
                       graph_edge_name_text(g, r.edges[c->first + k], eb, sizeof eb));
            printf(" (back)\n");
        }
        if (n_new > shown)
            printf("  ... %u more (--top N)\n", n_new - shown);
        cli_print_timing(&co, stdout, "cycles", ms);
    }
    rc = CLI_EXIT_OK;
done:
    cycles_free(&r);
    cycles_free(&old);
    dom_free(&dom);
    free(starts);
    lr_close(oh);
    lr_close(h);
    return rc;
}
