/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_top.c: `leakray top FILE` (cli), prefix top_cmd_. The biggest objects by retained size,
 * or with --by class the classes by retained size counted without double counting. The verb
 * parses options, builds the tree (exact dominators, src/analysis/dominators.c, or DevTools',
 * src/analysis/devtools.c; docs/design.md says which peer each model matches), picks the rows
 * (analysis/top.h) and hands them to their renderer (report/top.h). */
#include "analysis/devtools.h"
#include "analysis/top.h"
#include "cli.h"
#include "cli_filter.h"
#include "format/ruby.h"
#include "format/v8.h"
#include "report/top.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

/* A Ruby dump's allocation site of n (the analysis layer cannot ask the format layer). */
static int top_cmd_site(const graph *g, node_ix n, top_site *out)
{
    const ruby_site *s = ruby_site_get(g, ruby_site_of(g, n));
    if (!s)
        return 0;
    *out = (top_site){s->file, s->line, s->method};
    return 1;
}

/* Writes r as the user asked, with the dominators' time; returns the exit code. */
static int top_cmd_emit(const cli_common *co, const top_result *r, int csv, double dom_ms)
{
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        rep_top_json(&w, r);
        cli_json_end_phase(co, &w, "dominators_ms", dom_ms);
    } else if (csv) {
        rep_top_csv(stdout, r);
    } else {
        rep_top_text(stdout, r);
        cli_print_timing(co, stdout, "load time", co->load_ms);
        cli_print_timing(co, stdout, "dominators", dom_ms);
    }
    return CLI_EXIT_OK;
}

static int top_cmd_devtools(const cli_common *co, const graph *g, const top_opts *o, int csv)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    devtools_result r;
    double t0 = cli_now_ms();
    if (devtools_build(g, v8_class_keys(g), &r, &err) != LR_OK)
        return cli_error(co, &err);
    double dt_ms = cli_now_ms() - t0;
    top_result tr;
    int rc;
    if (top_dt_build(g, &r, o, &tr, &err) != LR_OK) {
        rc = cli_error(co, &err);
    } else {
        tr.heap_total = r.total + v8_extra_native_bytes(g);
        rc = top_cmd_emit(co, &tr, csv, dt_ms);
        if (cli_exit_keeps_heap())
            return rc;
        top_free(&tr);
    }
    devtools_free(&r);
    return rc;
}

int cmd_top(int argc, char **argv)
{
    uint64_t top = 20;
    const char *by = "object";
    const char *model = NULL;
    int detached = 0, csv = 0;
    cli_filter flt = {0};
    const cli_optdef opts[] = {
        CLI_FILTER_OPTS(&flt),
        {"--csv", CLI_OPT_FLAG, &csv, NULL, "comma-separated values", NULL},
        {"--model", CLI_OPT_STR, &model, "M",
         "retained-size conventions: visualvm (default for HotSpot dumps), devtools (default "
         "for V8/Node/ArkTS snapshots) or strong",
         "visualvm|strong|devtools"},
        {"--by", CLI_OPT_STR, &by, "WHAT", "rank by object (default) or by class", "object|class"},
        {"--top", CLI_OPT_UINT, &top, "N", "rows to show (default 20)", NULL},
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "only detached DOM nodes (V8 browser snapshots)", NULL},
        {0},
    };
    const cli_spec spec = {
        "top", "FILE", "Biggest objects or classes by retained size (exact dominator tree).",
        opts, 1, 1,
        "Retained size = the bytes freed if the object were collected: its shallow size\n"
        "(plus native bytes where known) summed over the objects it dominates, following\n"
        "strong references only. --by class counts an instance only when no object above\n"
        "it in the dominator tree has the same class, so no byte is counted twice.\n"
        "--model strong: exact dominators over strong references from the GC roots.\n"
        "--model visualvm: VisualVM's conventions (weak referents and unreachable objects\n"
        "still take dominance away; class objects weigh only in VisualVM's tree sums);\n"
        "see docs/design.md.\n"
        "--model devtools (default for V8/Node/ArkTS snapshots): Chrome DevTools' retained\n"
        "sizes and distances; synthetic nodes are not ranked (docs/formats/v8.md).\n"
        "Example: leakray top --top 10 app.hprof"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (top > UINT32_MAX)
        top = UINT32_MAX;
    int by_class = strcmp(by, "class") == 0;

#ifdef __GLIBC__
    /* as in analyze: each phase's freed arrays go back to the system, so the peak is one
     * phase's scratch on top of the graph, not what the heap kept from earlier phases */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    lr_heap *lh;
    if ((rc = cli_open(&co, co.pos[0], 0, &lh)) != 0)
        return rc;
    const graph *g = lr_heap_graph(lh);
    uint8_t *keep = cli_filter_active(&flt) ? cli_filter_classes(&flt, g) : NULL;
    if (cli_filter_active(&flt) && !keep) {
        lr_close(lh);
        return cli_fail(&co, LR_ERR_NOMEM, "top: out of memory for %u classes", g->n_classes);
    }
    top_opts o = {.by_class = by_class,
                  .limit = top,
                  .keep = keep,
                  .keep_none = cli_filter_match(&flt, TOP_NO_CLASS_NAME),
                  .detached = detached,
                  .site_of = top_cmd_site};
    int is_v8 = v8_class_keys(g) && g->synthetic_root != GRAPH_NONE;
    if (model && strcmp(model, "devtools") == 0 && !is_v8) {
        free(keep);
        lr_close(lh);
        return cli_usage_error(&co, "--model devtools needs a V8/Node/ArkTS heap snapshot");
    }
    /* VisualVM's model is a Java heap's (fields, array elements, statics): on a snapshot it
     * followed almost nothing (33 of 39,219 objects reachable) */
    if (model && strcmp(model, "visualvm") == 0 && !(g->format && !strcmp(g->format, "hprof"))) {
        free(keep);
        lr_close(lh);
        return cli_usage_error(&co, "--model visualvm needs an HPROF dump");
    }
    if (detached && (!is_v8 || (model && strcmp(model, "devtools") != 0))) {
        free(keep);
        lr_close(lh);
        return cli_usage_error(&co, "--detached needs a V8 snapshot and the devtools model");
    }
    if (detached && (rc = cli_need_dom(&co, g, co.pos[0])) != 0) {
        free(keep);
        lr_close(lh);
        return rc;
    }
    if (is_v8 && (!model || strcmp(model, "devtools") == 0)) {
        rc = top_cmd_devtools(&co, g, &o, csv);
        if (cli_exit_keeps_heap())
            return rc;
        free(keep);
        lr_close(lh);
        return rc;
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    dom_tree t;
    double t0 = cli_now_ms();
    /* HotSpot dumps default to VisualVM's conventions, the peer their numbers must equal;
     * everything else (and --model strong) uses plain strong-reference dominators, leaving out
     * the Android dumper's own references unless the model was asked for. */
    int vvm = model ? strcmp(model, "visualvm") == 0 : g->size_model == GRAPH_SIZES_VISUALVM;
    if (top_tree_build(g, vvm, !model, &t, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        free(keep);
        lr_close(lh);
        return rc;
    }
    double dom_ms = cli_now_ms() - t0;
    top_result tr;
    if (top_build(g, &t, vvm ? TOP_MODEL_VISUALVM : TOP_MODEL_STRONG, &o, &tr, &err) != LR_OK) {
        rc = cli_error(&co, &err);
    } else {
        rc = top_cmd_emit(&co, &tr, csv, dom_ms);
        /* the process exits next and takes all this back sooner than freeing would */
        if (cli_exit_keeps_heap())
            return rc;
        top_free(&tr);
    }
    dom_free(&t);
    free(keep);
    lr_close(lh);
    return rc;
}
