/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_info.c: `leakray info FILE` (cli), prefix info_cmd_. What a dump is and what it holds. The
 * counts come from one pass over the loaded graph (analysis/info.h), loaded without its edges
 * (an HPROF reader resolves and counts every reference but keeps none: the edge count and the
 * dangling references are all info shows of them, at about half the memory of a full load);
 * this file adds what only the input tells (size and compression on disk, the heap dumps of a
 * multi-dump HPROF file) and hands the result to report/info.h for text or JSON. */
#include "analysis/info.h"
#include "cli.h"
#include "format/hprof.h"
#include "report/info.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The heap dumps of an HPROF file, read from the bytes the graph already maps. */
static lr_status info_cmd_dumps(const graph *g, hprof_dump *out, uint32_t *n, lr_error *err)
{
    *n = 0;
    if (!g->format || strcmp(g->format, "hprof") != 0 || !g->data)
        return LR_OK;
    mfile m;
    memset(&m, 0, sizeof m);
    m.data = g->data;
    m.len = g->data_len;
    m.file_len = g->data_len;
    return hprof_list_dumps(&m, g->path ? g->path : "", out, INFO_MAX_DUMPS, n, err);
}

/* Index of the dump the loader picked: --dump N, or the last one. */
static int64_t info_cmd_loaded(const cli_common *co, uint32_t n_dumps)
{
    return co->dump_index >= 0 ? co->dump_index : (int64_t)n_dumps - 1;
}

int cmd_info(int argc, char **argv)
{
    const cli_spec spec = {
        "info", "FILE",
        "Format, counts, roots, heaps and load diagnostics of a heap dump.", NULL, 1, 1,
        "Diagnostics count anomalies the loader tolerated (dangling references, duplicate\n"
        "roots, ...), each with its severity: info, data-loss or error."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *path = co.pos[0];
    lr_heap *lh;
    if ((rc = cli_open(&co, path, CLI_OPEN_COUNT_EDGES, &lh)) != 0)
        return rc;
    const graph *g = lr_heap_graph(lh);

    info_result *c = err_malloc(sizeof *c);
    if (!c) {
        lr_close(lh);
        return cli_fail(&co, LR_ERR_NOMEM, "info: out of memory");
    }
    info_count(g, path, c);
    lr_error rerr = {.offset = LR_NO_OFFSET};
    /* a graph with a synthetic root has one root entry: what its categories hold is shown */
    if (info_synthetic_root(g) != GRAPH_NONE) {
        if (info_root_cats(g, &c->root_cats, &rerr) != LR_OK) {
            free(c);
            lr_close(lh);
            return cli_fail(&co, LR_ERR_NOMEM, "info: out of memory");
        }
        c->has_root_cats = 1;
    }
    /* as the loader met the input: a pipe's bytes were copied, a compressed file inflated */
    c->file_size = lh->input.file_len;
    c->compress = mfile_compression_name(lh->input.compression);
    hprof_dump dumps[INFO_MAX_DUMPS];
    uint32_t n_dumps = 0;
    lr_error err = {.offset = LR_NO_OFFSET};
    /* The loader accepted the file, so listing its dumps cannot fail short of a bug; if it
     * does, the list is left out rather than failing the whole report. */
    if (info_cmd_dumps(g, dumps, &n_dumps, &err) != LR_OK)
        n_dumps = 0;
    for (uint32_t d = 0; d < n_dumps && d < INFO_MAX_DUMPS; d++)
        c->dumps[d] = (info_dump){dumps[d].offset, dumps[d].length, dumps[d].n_records};
    c->n_dumps = n_dumps;
    c->loaded = info_cmd_loaded(&co, n_dumps);

    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_info_json(&w, c);
        cli_json_end(&co, &w);
    } else {
        rep_info_text(stdout, c);
        cli_print_timing(&co, stdout, "load time", co.load_ms);
    }
    /* the process exits next and takes the graph and the mapping back sooner than freeing */
    if (cli_exit_keeps_heap())
        return CLI_EXIT_OK;
    free(c);
    lr_close(lh);
    return CLI_EXIT_OK;
}
