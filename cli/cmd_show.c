/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_show.c: `leakray show FILE ID` (cli), prefix show_cmd_. One object in full: class, kind,
 * heap, shallow size, GC roots, fields, statics, array contents, outgoing edges (formats
 * without field bytes) and referrers. ID is "0x..." / decimal (HPROF object id) or "@N" (V8
 * node id); a class name shows that class's object. The verb finds the node, builds the
 * dump's retained-size model (DevTools' for V8-like snapshots), gathers the object
 * (analysis/show.h) and hands it to its renderer (report/show.h). */
#include "analysis/devtools.h"
#include "analysis/show.h"
#include "cli.h"
#include "format/ruby.h"
#include "format/v8.h"
#include "report/show.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A V8 allocation stack as analysis/show.h wants it (it cannot include the format layer). */
static lr_status show_cmd_stack(const graph *g, node_ix n, show_frame *out, uint32_t cap,
                                uint32_t *depth, lr_error *err)
{
    v8_frame f[SHOW_MAX_FRAMES];
    if (cap > SHOW_MAX_FRAMES)
        cap = SHOW_MAX_FRAMES;
    LR_TRY(v8_alloc_stack(g, n, f, cap, depth, err));
    for (uint32_t i = 0; i < cap && i < *depth; i++)
        out[i] = (show_frame){f[i].name, f[i].script, f[i].script_id, f[i].line, f[i].column};
    return LR_OK;
}

/* A Ruby dump's allocation site of n. */
static int show_cmd_site(const graph *g, node_ix n, top_site *out)
{
    const ruby_site *s = ruby_site_get(g, ruby_site_of(g, n));
    if (!s)
        return 0;
    *out = (top_site){s->file, s->line, s->method};
    return 1;
}

int cmd_show(int argc, char **argv)
{
    uint64_t limit = 20;
    const cli_optdef opts[] = {
        {"--limit", CLI_OPT_UINT, &limit, "N",
         "rows per list: referrers, elements, edges (default 20; 0 = all)", NULL},
        {0},
    };
    const cli_spec spec = {
        "show", "FILE ID",
        "One object: class, kind, heap, size, GC roots, fields, statics, array contents and\n"
        "the objects referring to it.",
        opts, 2, 2,
        "ID is an object id as other commands print it: 0x7f3a10 (hex), 123 (decimal) or @123\n"
        "(V8 node id). A class name (java.util.HashMap) shows that class's object, with\n"
        "its static fields."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *path = co.pos[0], *arg = co.pos[1];
    uint64_t id = 0;
    int by_id = cli_parse_id(arg, &id);
    /* Anything starting like a number must be one; everything else names a class. */
    if (!by_id && (!arg[0] || arg[0] == '@' || (arg[0] >= '0' && arg[0] <= '9')))
        return cli_usage_error(&co, "'%s' is not an object id (0x1f, 31 or @31) or a class name",
                               arg);

    lr_heap *lh;
    if ((rc = cli_open(&co, path, 0, &lh)) != 0)
        return rc;
    graph *g = lr_heap_graph(lh);

    node_ix n = GRAPH_NONE;
    if (by_id) {
        n = graph_find_id(g, id);
    } else {
        class_ix c = graph_find_class(g, arg);
        if (c != GRAPH_NONE && c < g->n_classes)
            n = g->classes[c].node;
        /* one name, several classes (one per class loader: a redeployed webapp's): say so
         * and how to see the others, rather than show one as if it were the only one */
        uint32_t same = 0;
        char ids[256] = "";
        size_t il = 0;
        for (class_ix k = 0; n != GRAPH_NONE && k < g->n_classes; k++)
            if (g->classes[k].node < g->n_nodes &&
                !strcmp(graph_str(g, g->classes[k].name), arg)) {
                same++;
                if (k != c && il < sizeof ids - 24)
                    il += (size_t)snprintf(ids + il, sizeof ids - il, "%s0x%" PRIx64,
                                           il ? ", " : "",
                                           graph_node_id(g, g->classes[k].node));
            }
        if (same > 1)
            cli_warn(&co, "%u classes are named %s (one per class loader); this is 0x%" PRIx64
                     ", the others: %s%s (show takes their ids)",
                     same, arg, graph_node_id(g, n), ids, il >= sizeof ids - 24 ? ", ..." : "");
    }
    if (n == GRAPH_NONE || n >= g->n_nodes) {
        rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no %s %s in the dump", path,
                      by_id ? "object with id" : "class named", arg);
        lr_close(lh);
        return rc;
    }

    show_opts o = {.limit = limit, .site_of = show_cmd_site};
    lr_error err = {.offset = LR_NO_OFFSET};
    /* V8/Node/ArkTS: DevTools' numbers and the allocation stack; other dumps with edges:
     * `top`'s default tree. All computed before any output, so a failure prints a clean
     * error. */
    devtools_result dt;
    memset(&dt, 0, sizeof dt);
    cli_retained rt;
    memset(&rt, 0, sizeof rt);
    lr_status s = LR_OK;
    if (v8_class_keys(g) && g->synthetic_root != GRAPH_NONE) {
        s = devtools_build(g, v8_class_keys(g), &dt, &err);
        o.dt = &dt;
        o.has_traces = v8_has_traces(g);
        o.stack_of = show_cmd_stack;
    } else if (g->first_edge) {
        s = cli_retained_build(g, &rt, &err);
        o.rt = &rt;
    }
    show_result *r = NULL;
    if (s == LR_OK && !(r = err_malloc(sizeof *r)))
        s = LR_FAIL(&err, LR_ERR_NOMEM, "show: out of memory");
    if (s == LR_OK && (s = show_build(g, n, &o, r, &err)) == LR_OK) {
        if (co.json) {
            jsonw w;
            cli_json_begin(&w);
            rep_show_json(&w, r);
            cli_json_end(&co, &w);
        } else {
            rep_show_text(stdout, r);
            cli_print_timing(&co, stdout, "load time", co.load_ms);
        }
        show_free(r);
    }
    rc = s == LR_OK ? CLI_EXIT_OK : cli_error(&co, &err);
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    free(r);
    devtools_free(&dt);
    cli_retained_free(&rt);
    lr_close(lh);
    return rc;
}
