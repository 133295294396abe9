/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_cycles.c: `leakray cycles FILE [--from ID | --class NAME] [--max-length N]
 * [--baseline OLD] [--top N] [--json]` (cli). Resolves the scope, builds dominators for
 * retained sizes and runs cycles_find (src/analysis/cycles.c). With --baseline, the older
 * dump is analysed with the same scope (--class NAME, or the class of the --from object,
 * since object ids differ between dumps) and cycles whose signature it already has are
 * left out. Without a scope only strongly connected components are listed. The listing
 * itself is report/cycles.h's. */
#include "cli.h"
#include "analysis/cycles.h"
#include "analysis/dominators.h"
#include "analysis/kinship.h"
#include "report/cycles.h"

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
        if (graph_node_class(g, i) != GRAPH_NONE && want[graph_node_class(g, i)] &&
            g->node_kind[i] != GRAPH_KIND_CLASS)
            k++;
    node_ix *out = malloc((k ? k : 1) * sizeof *out);
    if (out) {
        k = 0;
        for (node_ix i = 0; i < g->n_nodes; i++)
            if (graph_node_class(g, i) != GRAPH_NONE && want[graph_node_class(g, i)] &&
                g->node_kind[i] != GRAPH_KIND_CLASS)
                out[k++] = i;
    }
    free(want);
    *n = k;
    return out;
}

/* The retained-size model of g as a dominator tree for cycles_find (a view: the arrays stay
 * rm's). */
static lr_status cycles_model(const graph *g, cli_retained *rm, dom_tree *dom, lr_error *err)
{
    lr_status s = cli_retained_build(g, rm, err);
    if (s == LR_OK) {
        dom->n = rm->n;
        dom->idom = rm->idom;
        dom->retained = rm->retained;
    }
    return s;
}

int cmd_cycles(int argc, char **argv)
{
    const char *from = NULL, *cls = NULL, *baseline = NULL;
    uint64_t max_len = CYCLES_DEFAULT_MAX_LENGTH, top = 20, max_cycles = CYCLES_DEFAULT_MAX_CYCLES;
    int force = 0;
    const cli_optdef opts[] = {
        {"--from", CLI_OPT_STR, &from, "ID", "scope: what this object reaches", NULL},
        {"--class", CLI_OPT_STR, &cls, "NAME", "scope: what instances of NAME reach", NULL},
        {"--max-length", CLI_OPT_UINT, &max_len, "N",
         "longest cycle enumerated (default 10, at most 4096; the shorter first)", NULL},
        {"--max-cycles", CLI_OPT_UINT, &max_cycles, "N",
         "elementary cycles enumerated at most per band of lengths (default 100000; 0: no "
         "cap but 50 M steps)",
         NULL},
        {"--baseline", CLI_OPT_STR, &baseline, "OLD",
         "report only cycles whose signature OLD does not have", NULL},
        {"--top", CLI_OPT_UINT, &top, "N", "cycles / components shown (default 20, 0 = all)", NULL},
        {"--force", CLI_OPT_FLAG, &force, NULL,
         "compare with a baseline of another program (the format must match)", NULL},
        {0}};
    const cli_spec spec = {
        "cycles", "FILE", "Retain cycles (strongly connected objects) and who holds them.", opts,
        1, 1,
        "Follows strong object edges (fields, elements), never class objects or statics;\n"
        "in JavaScript heaps also what holds a value's own data (a closure's, generator's or\n"
        "async function's context, a nested scope's outer one, a bound function's this and\n"
        "arguments, a promise's reactions, a Map's or Set's table; not a WeakMap's entries),\n"
        "never prototype links (__proto__, a function's prototype: every class makes such\n"
        "cycles) nor the VM's maps, code and native context;\n"
        "in a generic graph (JSON lines, the C API's builder) every strong reference.\n"
        "With --from/--class, cycles up to --max-length are enumerated and grouped by their\n"
        "canonical Class.field signature; a cycle reachable from a static field is marked\n"
        "\"held by singleton\". A cycle no root holds is grouped apart and listed last:\n"
        "garbage in a traced heap (HPROF, V8, Dart, Ruby: no strong or soft reference holds\n"
        "it, the next GC frees it, it retains nothing), never freed in a generic graph (what\n"
        "it alone reaches stays with it).\n"
        "A lambda's hidden class is named without its address, so signatures match across\n"
        "runs. Retained sizes are the dump's model, as in `top`. Without a scope only\n"
        "component sizes are listed."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (top == 0) /* 0 = all, as in top, histo, clusters and diff */
        top = UINT32_MAX;
    if (rc != CLI_CONTINUE)
        return rc;
    if (from && cls)
        return cli_usage_error(&co, "give --from or --class, not both");
    if (max_len > CYCLES_MAX_LENGTH)
        return cli_usage_error(&co, "--max-length %llu: at most %u", (unsigned long long)max_len,
                               (unsigned)CYCLES_MAX_LENGTH);
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
    /* the dump's own retained-size model, as `top` and `show` give it (DevTools' for V8,
     * VisualVM's for HotSpot): one node has one retained size in every verb */
    cli_retained rm = {0};
    dom_tree dom = {0};
    cycles_result r = {0}, old = {0};
    lr_heap *oh = NULL;
    cycles_opts o = {starts, n_starts, (uint32_t)max_len, max_cycles ? max_cycles : UINT64_MAX,
                     CYCLES_DEFAULT_MAX_STEPS};
    if ((starts && cycles_model(g, &rm, &dom, &err) != LR_OK) ||
        cycles_find(g, starts ? &dom : NULL, &o, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto done;
    }
    if (baseline) {
        if ((rc = cli_open(&co, baseline, 0, &oh)) != 0)
            goto done;
        graph *og = lr_heap_graph(oh);
        /* a baseline of another format or program makes every cycle "new", as diff and
         * leaks refuse it (signatures are compared, not ids: the program is checked) */
        kin_print pa = {0}, pb = {0};
        kin_stats ks;
        if (kin_print_build(og, lr_heap_format(oh), &pa, &err) != LR_OK ||
            kin_print_build(g, lr_heap_format(h), &pb, &err) != LR_OK)
            rc = cli_error(&co, &err);
        else
            rc = cli_check_related(&co, baseline, &pa, co.pos[0], &pb, 0, force, 0, &ks, NULL);
        kin_print_free(&pa);
        kin_print_free(&pb);
        if (rc)
            goto done;
        uint32_t on = 0;
        node_ix *os = instances_of(og, scope_class, &on);
        if (!os) {
            rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
            goto done;
        }
        cycles_opts oo = o;
        oo.from = os;
        oo.n_from = on;
        /* its dominators tell its garbage cycles from its held ones, as for the target */
        cli_retained orm = {0};
        dom_tree odom = {0};
        lr_status s = LR_OK;
        if (on && (s = cycles_model(og, &orm, &odom, &err)) == LR_OK)
            s = cycles_find(og, &odom, &oo, &old, &err);
        cli_retained_free(&orm);
        free(os);
        if (s != LR_OK) {
            rc = cli_error(&co, &err);
            goto done;
        }
    }
    double ms = cli_now_ms() - t0;

    rep_cycles v = {g, &r, baseline ? &old : NULL, baseline, from ? starts[0] : GRAPH_NONE,
                    cls, n_starts, starts != NULL, (uint32_t)max_len, top};
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_cycles_json(&w, &v);
        cli_json_end(&co, &w);
    } else {
        rep_cycles_text(stdout, &v);
        cli_print_timing(&co, stdout, "cycles", ms);
    }
    rc = CLI_EXIT_OK;
done:
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    cycles_free(&r);
    cycles_free(&old);
    cli_retained_free(&rm);
    free(starts);
    lr_close(oh);
    lr_close(h);
    return rc;
}
