/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_path.c: `leakray path FILE 0xID` (cli), prefix path_. The shortest strong reference
 * path from a GC root to one object, found by src/analysis/paths.c with Shark's priorities
 * (Java locals and unusual root kinds only when nothing else reaches the object; weak, soft,
 * phantom and finalizer referents never followed). Prints the root kind, then each hop:
 * the reference taken (kind and field name or index), the object id and its class. An
 * object no strong path reaches is reported as unreachable (exit 0: an answer, not an
 * error); an id that names no object is LR_ERR_NOT_FOUND (exit 2). With --collapse, runs of
 * one category (src/rules/categories.h, default set rules/flutter.rules) print as one line
 * (src/analysis/collapse.c); --json then adds a "collapsed" array beside the full path. */
#include "analysis/collapse.h"
#include "analysis/devtools.h"
#include "analysis/paths.h"
#include "cli.h"
#include "format/v8.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Class name of node x; a class object shows the class it describes ("class Foo"). */
static const char *path_label(const graph *g, node_ix x, char *buf, size_t cap)
{
    if (g->node_kind[x] == GRAPH_KIND_CLASS) {
        for (class_ix c = 0; c < g->n_classes; c++)
            if (g->classes[c].node == x) {
                snprintf(buf, cap, "class %s", graph_str(g, g->classes[c].name));
                return buf;
            }
    }
    /* V8 synthetic nodes are all class "(synthetic)"; name them as the other verbs do:
     * "(root)", "(GC roots)", "(Global handles)", ... */
    if (g->node_name && g->node_kind[x] == GRAPH_KIND_SYNTHETIC) {
        const char *nm = graph_str(g, g->node_name[x]);
        if (x == g->synthetic_root)
            return "(root)";
        if (*nm)
            return nm;
    }
    const char *s = graph_class_name(g, x);
    return s && s[0] ? s : "<no class>";
}

/* --collapse: the reference into a line and its ends ("N x category: first ... last"). */
static void path_print_collapsed(const graph *g, const cat_set *cs, const node_ix *nodes,
                                 const edge_ix *edges, const collapse_line *ln, uint32_t n_ln)
{
    char b1[CLI_FMT_MAX], lab[512], ename[256];
    for (uint32_t i = 0; i < n_ln; i++) {
        const collapse_line *l = &ln[i];
        if (l->first > 0) {
            edge_ix e = edges[l->first - 1];
            printf("      --[%s %s]-->\n", graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[e])),
                   graph_edge_name_text(g, e, ename, sizeof ename));
        }
        node_ix a = nodes[l->first], z = nodes[l->last];
        if (l->first == l->last) {
            printf("  %s %s", cli_fmt_id(b1, g, graph_node_id(g, a)),
                   path_label(g, a, lab, sizeof lab));
            if (l->cat != CAT_NONE)
                printf("  [%s]", cat_name(cs, l->cat));
            printf("\n");
            continue;
        }
        printf("  %u x %s: %s %s", collapse_count(l), cat_name(cs, l->cat),
               cli_fmt_id(b1, g, graph_node_id(g, a)), path_label(g, a, lab, sizeof lab));
        printf(" ... %s %s", cli_fmt_id(b1, g, graph_node_id(g, z)),
               path_label(g, z, lab, sizeof lab));
        if (l->collections)
            printf(" (through %u collection node%s)", l->collections,
                   l->collections == 1 ? "" : "s");
        printf("\n");
    }
}

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
    char b1[CLI_FMT_MAX], lab[512], ename[256];
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "model", "devtools");
        jsonw_kv_obj_begin(&w, "object");
        jsonw_kv_str(&w, "id", cli_fmt_id(b1, g, graph_node_id(g, target)));
        jsonw_kv_str(&w, "class", path_label(g, target, lab, sizeof lab));
        jsonw_kv_int(&w, "distance", r.distance[target]);
        jsonw_kv_uint(&w, "retained", r.retained[target]);
        jsonw_obj_end(&w);
        jsonw_kv_bool(&w, "reachable", reachable);
        if (reachable) {
            jsonw_kv_obj_begin(&w, "root");
            jsonw_kv_str(&w, "kind", "synthetic root");
            jsonw_obj_end(&w);
            jsonw_kv_bool(&w, "low_priority", 0);
            jsonw_kv_arr_begin(&w, "path");
            for (uint32_t i = 0; i <= len; i++) {
                jsonw_obj_begin(&w);
                if (i > 0) {
                    unsigned k = GRAPH_EDGE_KIND(g->edge_kind[edges[i - 1]]);
                    jsonw_kv_str(&w, "reference", graph_edge_kind_name(k));
                    jsonw_kv_str(&w, "name",
                                 graph_edge_name_text(g, edges[i - 1], ename, sizeof ename));
                }
                jsonw_kv_str(&w, "id", cli_fmt_id(b1, g, graph_node_id(g, nodes[i])));
                jsonw_kv_str(&w, "class", path_label(g, nodes[i], lab, sizeof lab));
                jsonw_kv_int(&w, "distance", r.distance[nodes[i]]);
                jsonw_kv_uint(&w, "retained", r.retained[nodes[i]]);
                jsonw_obj_end(&w);
            }
            jsonw_arr_end(&w);
        }
        cli_json_end_phase(co, &w, "paths_ms", path_ms);
    } else if (!reachable) {
        printf("%s %s is unreachable: DevTools gives it no distance (no path from the root "
               "without weak edges)\n",
               cli_fmt_id(b1, g, graph_node_id(g, target)), path_label(g, target, lab, sizeof lab));
    } else {
        printf("GC root: synthetic root (DevTools retaining path by distance, weak edges "
               "hidden)\n");
        for (uint32_t i = 0; i <= len; i++) {
            if (i > 0) {
                unsigned k = GRAPH_EDGE_KIND(g->edge_kind[edges[i - 1]]);
                printf("      --[%s %s]-->\n", graph_edge_kind_name(k),
                       graph_edge_name_text(g, edges[i - 1], ename, sizeof ename));
            }
            char dd[CLI_FMT_MAX], rr[CLI_FMT_MAX];
            printf("  %s %s  (distance %s, retained %s)\n",
                   cli_fmt_id(b1, g, graph_node_id(g, nodes[i])),
                   path_label(g, nodes[i], lab, sizeof lab),
                   cli_fmt_distance(dd, r.distance[nodes[i]]),
                   cli_fmt_bytes(rr, r.retained[nodes[i]]));
        }
        printf("%" PRIu32 " reference%s\n", len, len == 1 ? "" : "s");
        cli_print_timing(co, stdout, "load time", co->load_ms);
        cli_print_timing(co, stdout, "path", path_ms);
    }
    free(edges);
    free(nodes);
    devtools_free(&r);
    return CLI_EXIT_OK;
}

int path_merged(cli_common *co, const char *cls, int subclasses, uint64_t limit);

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
        "Breadth-first from all GC roots in Shark's root order; Java locals and unusual root\n"
        "kinds are used only when no other path exists. Weak, soft, phantom and finalizer\n"
        "references are never followed. Example: leakray path app.hprof 0x7f00ab10\n"
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
    char b1[CLI_FMT_MAX], lab[512], ename[256];
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
    double t0 = cli_now_ms();
    if ((collapse && cat_bind(&cs, g, &err) != LR_OK) ||
        paths_find(g, NULL, &target, 1, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        cat_fini(&cs);
        lr_close(lh);
        return rc;
    }
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

    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_obj_begin(&w, "object");
        jsonw_kv_str(&w, "id", cli_fmt_id(b1, g, id));
        jsonw_kv_str(&w, "class", path_label(g, target, lab, sizeof lab));
        jsonw_obj_end(&w);
        jsonw_kv_bool(&w, "reachable", len > 0);
        if (len) {
            jsonw_kv_obj_begin(&w, "root");
            jsonw_kv_str(&w, "kind", root_kind);
            if (root && root->thread)
                jsonw_kv_uint(&w, "thread_serial", root->thread);
            jsonw_obj_end(&w);
            jsonw_kv_bool(&w, "low_priority", paths_via_last(&r, target));
            jsonw_kv_arr_begin(&w, "path");
            for (uint32_t i = 0; i < len; i++) {
                jsonw_obj_begin(&w);
                if (i > 0) {
                    unsigned k = GRAPH_EDGE_KIND(g->edge_kind[edges[i - 1]]);
                    jsonw_kv_str(&w, "reference", graph_edge_kind_name(k));
                    jsonw_kv_str(&w, "name",
                                 graph_edge_name_text(g, edges[i - 1], ename, sizeof ename));
                }
                jsonw_kv_str(&w, "id", cli_fmt_id(b1, g, graph_node_id(g, nodes[i])));
                jsonw_kv_str(&w, "class", path_label(g, nodes[i], lab, sizeof lab));
                jsonw_obj_end(&w);
            }
            jsonw_arr_end(&w);
        }
        if (collapse && len) {
            jsonw_kv_arr_begin(&w, "collapsed");
            for (uint32_t i = 0; i < n_ln; i++) {
                const collapse_line *l = &ln[i];
                jsonw_obj_begin(&w);
                jsonw_kv_str(&w, "category", cat_name(&cs, l->cat));
                jsonw_kv_uint(&w, "count", collapse_count(l));
                jsonw_kv_uint(&w, "collections", l->collections);
                jsonw_kv_uint(&w, "from", l->first); /* indexes into "path" */
                jsonw_kv_uint(&w, "to", l->last);
                if (l->first > 0) {
                    edge_ix e = edges[l->first - 1];
                    jsonw_kv_str(&w, "reference",
                                 graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[e])));
                    jsonw_kv_str(&w, "name", graph_edge_name_text(g, e, ename, sizeof ename));
                }
                jsonw_kv_str(&w, "first_class", path_label(g, nodes[l->first], lab, sizeof lab));
                jsonw_kv_str(&w, "last_class", path_label(g, nodes[l->last], lab, sizeof lab));
                jsonw_obj_end(&w);
            }
            jsonw_arr_end(&w);
        }
        cli_json_end_phase(&co, &w, "paths_ms", path_ms);
    } else if (!len) {
        printf("%s %s is unreachable: no strong reference path from a GC root\n",
               cli_fmt_id(b1, g, id), path_label(g, target, lab, sizeof lab));
    } else {
        printf("GC root: %s", root ? graph_root_kind_title(root->kind) : root_kind);
        if (root && root->thread)
            printf(" (thread serial %" PRIu32 ")", root->thread);
        printf("\n");
        if (collapse)
            path_print_collapsed(g, &cs, nodes, edges, ln, n_ln);
        for (uint32_t i = 0; !collapse && i < len; i++) {
            if (i > 0) {
                unsigned k = GRAPH_EDGE_KIND(g->edge_kind[edges[i - 1]]);
                printf("      --[%s %s]-->\n", graph_edge_kind_name(k),
                       graph_edge_name_text(g, edges[i - 1], ename, sizeof ename));
            }
            printf("  %s %s\n", cli_fmt_id(b1, g, graph_node_id(g, nodes[i])),
                   path_label(g, nodes[i], lab, sizeof lab));
        }
        int low = paths_via_last(&r, target);
        printf("%" PRIu32 " reference%s%s\n", len - 1, len == 2 ? "" : "s",
               low ? " (through a low-priority reference or root)" : "");
        if (collapse)
            printf("collapsed: %" PRIu32 " objects on %" PRIu32 " line%s\n", len, n_ln,
                   n_ln == 1 ? "" : "s");
        cli_print_timing(&co, stdout, "load time", co.load_ms);
        cli_print_timing(&co, stdout, "path", path_ms);
    }
    free(nodes);
    free(edges);
    free(ln);
    cat_fini(&cs);
    paths_free(&r);
    lr_close(lh);
    return CLI_EXIT_OK;
}
