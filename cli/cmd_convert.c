/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_convert.c: `leakray convert FILE -o OUT.heapsnapshot` (cli). Loads any dump leakray
 * reads (HPROF included) and writes it as a V8 heap snapshot through v8w_write
 * (src/format/v8_write.c), so Chrome DevTools' Memory panel and memlab open Java heaps with
 * the per-class counts and retained sizes `leakray top --by class --model strong` prints.
 * OUT is written beside its final name and renamed only when complete; what was written is
 * reported by report/status.h. */
#include "analysis/dominators.h"
#include "cli.h"
#include "format/gtext.h"
#include "format/v8_write.h"
#include "report/status.h"

#include <string.h>

/* `convert -o OUT.jsonl`: the generic graph format. Takes over lh (closes it). */
static int convert_jsonl(cli_common *co, lr_heap *lh, const char *out)
{
    const graph *g = lr_heap_graph(lh);
    lr_error err = {.offset = LR_NO_OFFSET};
    gtext_stats st;
    double t0 = cli_now_ms();
    lr_status s = gtext_write(g, out, &st, &err);
    double ms = cli_now_ms() - t0;
    /* the process exits next and takes the graph back sooner than freeing would */
    if (s != LR_OK || !cli_exit_keeps_heap())
        lr_close(lh);
    if (s != LR_OK)
        return cli_error(co, &err);
    if (cli_out_stdout(out)) /* stdout holds the graph alone */
        return CLI_EXIT_OK;
    rep_convert r = {.input = co->pos[0],
                     .output = out,
                     .jsonl = 1,
                     .nodes = st.nodes,
                     .classes = st.classes,
                     .edges = st.edges,
                     .roots = st.roots,
                     .out_bytes = st.out_bytes};
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        rep_status_convert_json(&w, &r);
        cli_json_end(co, &w);
        return CLI_EXIT_OK;
    }
    rep_status_convert_text(stdout, &r);
    cli_print_timing(co, stdout, "load time", co->load_ms);
    cli_print_timing(co, stdout, "convert", ms);
    return CLI_EXIT_OK;
}

int cmd_convert(int argc, char **argv)
{
    const char *out = NULL;
    const cli_optdef opts[] = {
        CLI_OPTS_OUTPUT(&out, "output .heapsnapshot or .jsonl (gzip when it ends in .gz)"),
        {0}};
    const cli_spec spec = {
        "convert", "FILE", "Write a dump as a V8 .heapsnapshot (Chrome DevTools, memlab).", opts,
        1, 1,
        "Only objects strongly reachable from the GC roots are written; weak, soft, phantom\n"
        "and finalizer referents become weak edges. Java objects are `object` nodes named by\n"
        "their class (class objects \"class Foo\"), fields and statics are properties, array\n"
        "slots elements; GC roots hang under \"(GC roots)\" by root kind. DevTools' Summary\n"
        "then shows the counts and retained sizes of `leakray top --by class --model strong`.\n"
        CLI_OUTPUT_NOTE CLI_STDOUT_NOTE
        "OUT ending in .jsonl (or .jsonl.gz) is written as leakray's generic graph format\n"
        "instead (docs/formats/jsonl.md): every object, class, reference and root.\n"
        "Example: leakray convert app.hprof -o app.heapsnapshot"};
    cli_common co;
    int rc = cli_parse_output(argc, argv, &spec, &co, &out);
    if (rc != CLI_CONTINUE)
        return rc;

    size_t ol = strlen(out);
    /* a name another format's readers claim would hold V8 JSON: refused before any work */
    static const char *const other[] = {".hprof", ".hprof.gz", ".android-hprof"};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        size_t el = strlen(other[i]);
        if (ol > el && strcmp(out + ol - el, other[i]) == 0)
            return cli_usage_error(&co, "-o %s: convert writes a V8 .heapsnapshot or a .jsonl "
                                   "graph, not %s (an HPROF dump is rewritten by `leakray "
                                   "strip`)", out, other[i]);
    }
    lr_heap *lh;
    if ((rc = cli_open(&co, co.pos[0], 0, &lh)) != 0)
        return rc;
    const graph *g = lr_heap_graph(lh);
    lr_error err = {.offset = LR_NO_OFFSET};
    if ((ol > 6 && strcmp(out + ol - 6, ".jsonl") == 0) ||
        (ol > 9 && strcmp(out + ol - 9, ".jsonl.gz") == 0))
        return convert_jsonl(&co, lh, out);
    v8w_stats st;
    double t0 = cli_now_ms();
    /* what the strong model skips (the GC's pending-list links) owns nothing there either */
    if (v8w_write(g, out, dom_gc_link, &st, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        lr_close(lh);
        return rc;
    }
    double ms = cli_now_ms() - t0;
    uint32_t in_nodes = g->n_nodes;
    if (!cli_exit_keeps_heap())
        lr_close(lh);
    if (cli_out_stdout(out)) /* stdout holds the snapshot alone */
        return CLI_EXIT_OK;

    rep_convert r = {.input = co.pos[0],
                     .output = out,
                     .in_nodes = in_nodes,
                     .nodes = st.nodes,
                     .synthetic = st.synthetic,
                     .edges = st.edges,
                     .weak_edges = st.weak_edges,
                     .dropped_nodes = st.dropped_nodes,
                     .dropped_edges = st.dropped_edges,
                     .strings = st.strings,
                     .self_bytes = st.self_bytes,
                     .out_bytes = st.out_bytes,
                     .kept_ids = st.kept_ids};
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_status_convert_json(&w, &r);
        cli_json_end_phase(&co, &w, "convert_ms", ms);
        return CLI_EXIT_OK;
    }
    rep_status_convert_text(stdout, &r);
    cli_print_timing(&co, stdout, "load time", co.load_ms);
    cli_print_timing(&co, stdout, "convert", ms);
    return CLI_EXIT_OK;
}
