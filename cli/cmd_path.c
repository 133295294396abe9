/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_path.c: `leakray path FILE 0xID` (cli), prefix path_. The shortest strong reference
 * path from a GC root to one object, found by src/analysis/paths.c with Shark's priorities
 * (Java locals and unusual root kinds only when nothing else reaches the object; weak, soft,
 * phantom and finalizer referents never followed). Prints the root kind, then each hop:
 * the reference taken (kind and field name or index), the object id and its class. An
 * object no strong path reaches is reported as unreachable (exit 0: an answer, not an
 * error); an id that names no object is LR_ERR_NOT_FOUND (exit 2). With --collapse, runs of
 * one category (src/rules/categories.h, default set rules/flutter.rules) print as one line
 * (src/analysis/collapse.c); --json then adds a "collapsed" array beside the full path.
 * report/path.h renders both kinds of path. */
#include "analysis/collapse.h"
#include "analysis/devtools.h"
#include "analysis/paths.h"
#include "analysis/trace.h"
#include "cli.h"
#include "format/v8.h"
#include "report/path.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* V8/Node/ArkTS: the retaining path DevTools' Retainers view leads to when sorted by
 * distance: from the root, one hop per unit of DevTools distance, never through a weak edge
 * (src/analysis/devtools.h, parent_edge). Printed like the strong path, with each object's
 * distance and DevTools retained size. */
static int path_devtools(const cli_common *co, const graph *g, node_ix target)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    devtools_result r;
    double t0 = cli_now_ms();
    if (devtools_build(g, v8_class_keys(g), &r, &err) != LR_OK)
        return cli_error(co, &err);
    double path_ms = cli_now_ms() - t0;
    uint32_t len = devtools_path(g, &r, target, NULL, 0);
    edge_ix *edges = err_mallocarray(len ? len : 1, sizeof *edges);
    node_ix *nodes = err_mallocarray((size_t)len + 1, sizeof *nodes);
    if (!edges || !nodes) {
        free(edges);
        free(nodes);
        devtools_free(&r);
        return cli_fail(co, LR_ERR_NOMEM, "path: out of memory for %u hops", len);
    }
    devtools_path(g, &r, target, edges, len);
    for (uint32_t i = 0; i < len; i++)
        nodes[i] = graph_edge_from(g, edges[i]);
    nodes[len] = target;
    int reachable = r.distance[target] != DEVTOOLS_NO_DISTANCE && (len > 0 || target == r.root);
    rep_path_dt v = {g, target, nodes, edges, len, r.distance, r.retained, reachable};
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        rep_path_dt_json(&w, &v);
        cli_json_end_phase(co, &w, "paths_ms", path_ms);
    } else {
        rep_path_dt_text(stdout, &v);
        if (reachable) {
            cli_print_timing(co, stdout, "load time", co->load_ms);
            cli_print_timing(co, stdout, "path", path_ms);
        }
    }
    free(edges);
    free(nodes);
    devtools_free(&r);
    return CLI_EXIT_OK;
}

int path_merged(cli_common *co, const char *cls, int subclasses, uint64_t limit);

/* The rules `analyze` loads by default (jdk.rules; android.rules on Android dumps), bound to
 * g: the path is then the one analyze's traces take (trace_path_policy). */
static lr_status path_rules(const graph *g, rules_set *rs, lr_error *err)
{
    lr_status st = rules_load_shipped(rs, "jdk.rules", err);
    if (st == LR_OK && graph_find_class(g, "android.os.Build") != GRAPH_NONE)
        st = rules_load_shipped(rs, "android.rules", err);
    return st == LR_OK ? rules_bind(rs, g, err) : st;
}

int cmd_path(int argc, char **argv)
{
    int collapse = 0, merged = 0, subclasses = 0;
    const char *categories = NULL, *cls = NULL;
    uint64_t limit = 10;
    const cli_optdef opts[] = {
        {"--class", CLI_OPT_STR, &cls, "CLASS", "with --merged: every instance of CLASS", NULL},
        {"--merged", CLI_OPT_FLAG, &merged, NULL,
         "merge the shortest paths of all instances of --class into one tree (MAT)", NULL},
        {"--subclasses", CLI_OPT_FLAG, &subclasses, NULL,
         "with --merged: instances of subclasses too", NULL},
        {"--limit", CLI_OPT_UINT, &limit, "N",
         "with --merged: branches shown under each node (default 10; 0 = all)", NULL},
        {"--collapse", CLI_OPT_FLAG, &collapse, NULL,
         "merge runs of one category (element, widget, view...) into one line", NULL},
        {"--categories", CLI_OPT_STR, &categories, "NAME|FILE",
         "category rules for --collapse: flutter (default), android-views, or a file", NULL},
        {0}};
    const cli_spec spec = {
        "path", "FILE 0xID | FILE --class CLASS --merged",
        "Shortest strong reference path from a GC root to an object.", opts, 1, 2,
        "Breadth-first from all GC roots in Shark's root order, as analyze's leak traces: Java\n"
        "locals, unusual root kinds, known library leaks, a class's link to its loader and\n"
        "the references the rules ignore are used only when no other path exists. Weak,\n"
        "soft, phantom and finalizer references are never followed.\n"
        "Example: leakray path app.hprof 0x7f00ab10\n"
        "--collapse: consecutive objects of one category (a class or any superclass matches a\n"
        "`category` rule, docs/rules.md) print as one line with their count; a collection\n"
        "between two runs of one category merges into them. Objects of no category keep their\n"
        "own line. --json keeps the full path and adds \"collapsed\".\n"
        "V8/Node/ArkTS snapshots (without --collapse): DevTools' retaining path by distance,\n"
        "one hop per unit of distance, weak edges hidden (docs/formats/v8.md).\n"
        "--class CLASS --merged: the paths of every instance merged into one tree from the GC\n"
        "roots down, each line with the instances whose path runs through it and their\n"
        "summed retained bytes (MAT's \"merge shortest paths to GC roots\")."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (merged || cls) {
        if (!merged || !cls)
            return cli_usage_error(&co, "--class and --merged go together");
        if (co.n_pos != 1 || collapse)
            return cli_usage_error(&co, "--merged takes FILE only (no object id, no --collapse)");
        return path_merged(&co, cls, subclasses, limit);
    }
    if (co.n_pos != 2)
        return cli_usage_error(&co, "missing the object id (or --class CLASS --merged)");
    uint64_t id;
    if (!cli_parse_id(co.pos[1], &id))
        return cli_usage_error(&co, "'%s' is not an object id (0x1f, @123 or 123)", co.pos[1]);
    cat_set cs;
    if ((rc = cli_categories(&co, collapse, categories, &cs)) != 0)
        return rc;

    lr_heap *lh;
    if ((rc = cli_open(&co, co.pos[0], 0, &lh)) != 0) {
        cat_fini(&cs);
        return rc;
    }
    const graph *g = lr_heap_graph(lh);
    node_ix target = graph_find_id(g, id);
    char b1[CLI_FMT_MAX];
    if (target == GRAPH_NONE) {
        rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no object with id %s", co.pos[0],
                      cli_fmt_id(b1, g, id));
        cat_fini(&cs);
        lr_close(lh);
        return rc;
    }
    if (!collapse && v8_class_keys(g) && g->synthetic_root != GRAPH_NONE) {
        rc = path_devtools(&co, g, target);
        cat_fini(&cs);
        lr_close(lh);
        return rc;
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    paths_result r;
    rules_set rs;
    rules_init(&rs);
    double t0 = cli_now_ms();
    paths_policy pol = trace_path_policy(&rs);
    pol.class_hops = 1; /* a class and its loader kept through an instance have a path */
    if ((collapse && cat_bind(&cs, g, &err) != LR_OK) || path_rules(g, &rs, &err) != LR_OK ||
        paths_find(g, &pol, &target, 1, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        rules_fini(&rs);
        cat_fini(&cs);
        lr_close(lh);
        return rc;
    }
    rules_fini(&rs);
    double path_ms = cli_now_ms() - t0;
    uint32_t len = paths_get(&r, target, NULL, NULL, 0);
    node_ix *nodes = err_mallocarray(len ? len : 1, sizeof *nodes);
    edge_ix *edges = err_mallocarray(len ? len : 1, sizeof *edges);
    collapse_line *ln = collapse ? err_mallocarray(len ? len : 1, sizeof *ln) : NULL;
    if (!nodes || !edges || (collapse && !ln)) {
        free(nodes);
        free(edges);
        free(ln);
        paths_free(&r);
        cat_fini(&cs);
        rc = cli_fail(&co, LR_ERR_NOMEM, "path: out of memory for %u hops", len);
        lr_close(lh);
        return rc;
    }
    paths_get(&r, target, nodes, edges, len);
    uint32_t n_ln = collapse ? collapse_path(&cs, nodes, len, ln) : 0;
    uint32_t root_entry = len ? paths_root_of(&r, nodes[0]) : GRAPH_NONE;
    const graph_root *root = root_entry < g->n_roots ? &g->roots[root_entry] : NULL;
    const char *root_kind = root ? graph_root_kind_name(root->kind) : "synthetic root";

    rep_path v = {g, target, id, nodes, edges, len, root, root_kind,
                  paths_via_last(&r, target), collapse, &cs, ln, n_ln};
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_path_json(&w, &v);
        cli_json_end_phase(&co, &w, "paths_ms", path_ms);
    } else {
        rep_path_text(stdout, &v);
        if (len) {
            cli_print_timing(&co, stdout, "load time", co.load_ms);
            cli_print_timing(&co, stdout, "path", path_ms);
        }
    }
    free(nodes);
    free(edges);
    free(ln);
    cat_fini(&cs);
    paths_free(&r);
    lr_close(lh);
    return CLI_EXIT_OK;
}
