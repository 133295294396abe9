/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_threads.c: `leakray threads FILE` (cli), prefix threads_. Every thread of the dump
 * (g->threads, from THREAD_OBJECT roots and STACK_TRACE records): its name read from
 * Thread.name, its stack frames innermost first, and under each frame the objects its
 * local variables hold (JAVA_FRAME roots carrying that thread serial and frame number) with
 * their retained sizes from the exact dominator tree. Locals whose frame is unknown are
 * listed after the frames. Android dumps carry no frames; their locals still show. */
#include "cli.h"

#include "analysis/dominators.h"
#include "rules/rules.h"

#include <stdlib.h>
#include <string.h>

static void frame_text(const graph *g, const graph_frame *f, char *buf, size_t cap)
{
    char where[600];
    const char *src = f->source != GRAPH_NONE ? graph_str(g, f->source) : "";
    if (f->line > 0)
        snprintf(where, sizeof where, "%s:%d", *src ? src : "Unknown Source", f->line);
    else if (f->line == -2)
        snprintf(where, sizeof where, "Compiled method");
    else if (f->line == -3)
        snprintf(where, sizeof where, "Native Method");
    else
        snprintf(where, sizeof where, "%s", *src ? src : "Unknown Source");
    const char *cls = f->class_name != GRAPH_NONE ? graph_str(g, f->class_name) : "";
    if (snprintf(buf, cap, "%s%s%s(%s)", cls, *cls ? "." : "", graph_str(g, f->method), where) <
        0)
        buf[0] = 0;
}

static void put_local(const cli_common *co, jsonw *w, const graph *g, const dom_tree *dt,
                      node_ix n, const char *indent)
{
    char id[CLI_FMT_MAX], sz[CLI_FMT_MAX];
    uint64_t ret = n < dt->n ? dt->retained[n] : 0;
    if (co->json) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "id", cli_fmt_id(id, g, graph_node_id(g, n)));
        jsonw_kv_str(w, "class", graph_class_name(g, n));
        jsonw_kv_uint(w, "shallow_bytes", graph_node_size(g, n));
        jsonw_kv_uint(w, "retained_bytes", ret);
        jsonw_obj_end(w);
    } else {
        printf("%slocal %s %s, retained %s\n", indent, graph_class_name(g, n),
               cli_fmt_id(id, g, graph_node_id(g, n)), cli_fmt_bytes(sz, ret));
    }
}

int cmd_threads(int argc, char **argv)
{
    const cli_spec spec = {"threads", "FILE",
                           "threads, their stack frames and what their local variables retain",
                           NULL, 1, 1, NULL};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    lr_heap *h;
    if ((rc = cli_open(&co, co.pos[0], 0, &h)) != 0)
        return rc;
    graph *g = lr_heap_graph(h);
    lr_error err;
    memset(&err, 0, sizeof err);
    dom_tree dt;
    memset(&dt, 0, sizeof dt);
    lr_status st = dom_build(g, NULL, NULL, &dt, &err);
    if (st != LR_OK) {
        rc = cli_error(&co, &err);
        lr_close(h);
        return rc;
    }
    jsonw w;
    if (co.json) {
        cli_json_begin(&w);
        jsonw_kv_str(&w, "file", co.pos[0]);
        jsonw_kv_arr_begin(&w, "threads");
    }
    char name[256], id[CLI_FMT_MAX], sz[CLI_FMT_MAX], fr[1400];
    for (uint32_t t = 0; t < g->n_threads; t++) {
        const graph_thread *th = &g->threads[t];
        node_ix tn = th->node < g->n_nodes ? th->node : GRAPH_NONE;
        rules_thread_name(g, tn, name, sizeof name);
        uint64_t ret = tn != GRAPH_NONE && tn < dt.n ? dt.retained[tn] : 0;
        if (co.json) {
            jsonw_obj_begin(&w);
            jsonw_kv_uint(&w, "serial", th->serial);
            jsonw_kv_str(&w, "name", name);
            if (tn != GRAPH_NONE) {
                jsonw_kv_str(&w, "id", cli_fmt_id(id, g, graph_node_id(g, tn)));
                jsonw_kv_str(&w, "class", graph_class_name(g, tn));
            } else {
                jsonw_kv_null(&w, "id");
                jsonw_kv_null(&w, "class");
            }
            jsonw_kv_uint(&w, "retained_bytes", ret);
            jsonw_kv_arr_begin(&w, "frames");
        } else {
            printf("%sThread \"%s\" serial %u", t ? "\n" : "", name, th->serial);
            if (tn != GRAPH_NONE)
                printf(" (%s %s, retained %s)", graph_class_name(g, tn),
                       cli_fmt_id(id, g, graph_node_id(g, tn)), cli_fmt_bytes(sz, ret));
            printf("\n");
        }
        for (uint32_t f = 0; f < th->n_frames; f++) {
            uint32_t fi = th->first_frame + f;
            if (fi >= g->n_frames)
                break;
            frame_text(g, &g->frames[fi], fr, sizeof fr);
            if (co.json) {
                jsonw_obj_begin(&w);
                jsonw_kv_str(&w, "frame", fr);
                jsonw_kv_str(&w, "method", graph_str(g, g->frames[fi].method));
                jsonw_kv_int(&w, "line", g->frames[fi].line);
                jsonw_kv_arr_begin(&w, "locals");
            } else {
                printf("    at %s\n", fr);
            }
            for (uint32_t r = 0; r < g->n_roots; r++) {
                const graph_root *ro = &g->roots[r];
                if (ro->kind == GRAPH_ROOT_JAVA_FRAME && ro->thread == th->serial &&
                    ro->frame == (int32_t)f && ro->node < g->n_nodes)
                    put_local(&co, &w, g, &dt, ro->node, "        ");
            }
            if (co.json) {
                jsonw_arr_end(&w);
                jsonw_obj_end(&w);
            }
        }
        if (co.json) {
            jsonw_arr_end(&w);
            jsonw_kv_arr_begin(&w, "locals_without_frame");
        }
        for (uint32_t r = 0; r < g->n_roots; r++) {
            const graph_root *ro = &g->roots[r];
            if (ro->kind == GRAPH_ROOT_JAVA_FRAME && ro->thread == th->serial &&
                (ro->frame < 0 || (uint32_t)ro->frame >= th->n_frames) && ro->node < g->n_nodes)
                put_local(&co, &w, g, &dt, ro->node, "    ");
        }
        if (co.json) {
            jsonw_arr_end(&w);
            jsonw_obj_end(&w);
        }
    }
    if (co.json) {
        jsonw_arr_end(&w);
        cli_json_end(&co, &w);
    } else if (g->n_threads == 0) {
        printf("no threads in this dump\n");
    }
    dom_free(&dt);
    lr_close(h);
    return CLI_EXIT_OK;
}
