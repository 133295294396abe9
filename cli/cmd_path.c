/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_path.c: `leakray path FILE 0xID` (cli), prefix path_. The shortest strong reference
 * path from a GC root to one object, found by src/analysis/paths.c with Shark's priorities
 * (Java locals and unusual root kinds only when nothing else reaches the object; weak, soft,
 * phantom and finalizer referents never followed). Prints the root kind, then each hop:
 * the reference taken (kind and field name or index), the object id and its class. An
 * object no strong path reaches is reported as unreachable (exit 0: an answer, not an
 * error); an id that names no object is LR_ERR_NOT_FOUND (exit 2). */
#include "analysis/paths.h"
#include "cli.h"

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
    const char *s = graph_class_name(g, x);
    return s && s[0] ? s : "<no class>";
}

int cmd_path(int argc, char **argv)
{
    const cli_spec spec = {
        "path", "FILE 0xID", "Shortest strong reference path from a GC root to an object.",
        NULL, 2, 2,
        "Breadth-first from all GC roots in Shark's root order; Java locals and unusual root\n"
        "kinds are used only when no other path exists. Weak, soft, phantom and finalizer\n"
        "references are never followed. Example: leakray path app.hprof 0x7f00ab10"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    uint64_t id;
    if (!cli_parse_id(co.pos[1], &id))
        return cli_usage_error(&co, "'%s' is not an object id (0x1f, @123 or 123)", co.pos[1]);

    lr_heap *lh;
    if ((rc = cli_open(&co, co.pos[0], 0, &lh)) != 0)
        return rc;
    const graph *g = lr_heap_graph(lh);
    node_ix target = graph_find_id(g, id);
    char b1[CLI_FMT_MAX], lab[512], ename[256];
    if (target == GRAPH_NONE) {
        rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no object with id %s", co.pos[0],
                      cli_fmt_id(b1, g, id));
        lr_close(lh);
        return rc;
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    paths_result r;
    double t0 = cli_now_ms();
    if (paths_find(g, NULL, &target, 1, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        lr_close(lh);
        return rc;
    }
    double path_ms = cli_now_ms() - t0;
    uint32_t len = paths_get(&r, target, NULL, NULL, 0);
    node_ix *nodes = err_mallocarray(len ? len : 1, sizeof *nodes);
    edge_ix *edges = err_mallocarray(len ? len : 1, sizeof *edges);
    if (!nodes || !edges) {
        free(nodes);
        free(edges);
        paths_free(&r);
        rc = cli_fail(&co, LR_ERR_NOMEM, "path: out of memory for %u hops", len);
        lr_close(lh);
        return rc;
    }
    paths_get(&r, target, nodes, edges, len);
    const graph_root *root = len ? (r.root_of[nodes[0]] < g->n_roots
                                        ? &g->roots[r.root_of[nodes[0]]]
                                        : NULL)
                                 : NULL;
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
            jsonw_kv_bool(&w, "low_priority", r.via_last[target] != 0);
            jsonw_kv_arr_begin(&w, "path");
            for (uint32_t i = 0; i < len; i++) {
                jsonw_obj_begin(&w);
                if (i > 0) {
                    unsigned k = GRAPH_EDGE_KIND(g->edge_kind[edges[i - 1]]);
                    jsonw_kv_str(&w, "reference", graph_edge_kind_name(k));
                    jsonw_kv_str(&w, "name",
                                 graph_edge_name_text(g, edges[i - 1], ename, sizeof ename));
                }
                jsonw_kv_str(&w, "id", cli_fmt_id(b1, g, g->node_id[nodes[i]]));
                jsonw_kv_str(&w, "class", path_label(g, nodes[i], lab, sizeof lab));
                jsonw_obj_end(&w);
            }
            jsonw_arr_end(&w);
        }
        if (!co.no_timing) {
            jsonw_kv_obj_begin(&w, "analysis_timing");
            jsonw_kv_uint(&w, "paths_ms", (uint64_t)(path_ms + 0.5));
            jsonw_obj_end(&w);
        }
        cli_json_end(&co, &w);
    } else if (!len) {
        printf("%s %s is unreachable: no strong reference path from a GC root\n",
               cli_fmt_id(b1, g, id), path_label(g, target, lab, sizeof lab));
    } else {
        printf("GC root: %s", root_kind);
        if (root && root->thread)
            printf(" (thread serial %" PRIu32 ")", root->thread);
        printf("\n");
        for (uint32_t i = 0; i < len; i++) {
            if (i > 0) {
                unsigned k = GRAPH_EDGE_KIND(g->edge_kind[edges[i - 1]]);
                printf("      --[%s %s]-->\n", graph_edge_kind_name(k),
                       graph_edge_name_text(g, edges[i - 1], ename, sizeof ename));
            }
            printf("  %s %s\n", cli_fmt_id(b1, g, g->node_id[nodes[i]]),
                   path_label(g, nodes[i], lab, sizeof lab));
        }
        printf("%" PRIu32 " reference%s%s\n", len - 1, len == 2 ? "" : "s",
               r.via_last[target] ? " (through a low-priority reference or root)" : "");
        cli_print_timing(&co, stdout, "load time", co.load_ms);
        cli_print_timing(&co, stdout, "path", path_ms);
    }
    free(nodes);
    free(edges);
    paths_free(&r);
    lr_close(lh);
    return CLI_EXIT_OK;
}
