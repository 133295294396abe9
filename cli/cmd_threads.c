/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_threads.c: `leakray threads FILE` (cli). Every thread of the dump with its frames, the
 * objects its locals hold and MAT's Thread Overview retained size: analysis/threads.h
 * computes, report/threads.h renders; each local's retained size is `leakray top`'s
 * (cli_retained), so one object has one retained size in every verb. */
#include "cli.h"

#include "analysis/threads.h"
#include "report/threads.h"

#include <string.h>

int cmd_threads(int argc, char **argv)
{
    uint64_t top = 0;
    const cli_optdef opts[] = {
        {"--top", CLI_OPT_UINT, &top, "N",
         "the N threads that retain most, most first (default 0: all, in the dump's order)",
         NULL},
        {0}};
    const cli_spec spec = {
        "threads", "FILE", "Threads, their stack frames and what their local variables retain.",
        opts, 1, 1,
        "A thread's retained size counts what its local variables hold (Eclipse MAT's Thread\n"
        "Overview); each local's is `leakray top`'s. State and daemon flag come from the\n"
        "Thread object when the dump has them (threadStatus: HotSpot only)."};
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
    cli_retained dt;
    memset(&dt, 0, sizeof dt);
    threads_result tr;
    lr_status st = cli_retained_build(g, &dt, &err);
    if (st == LR_OK)
        st = threads_build(g, dt.retained, dt.n, &tr, &err);
    if (st != LR_OK) {
        rc = cli_error(&co, &err);
        cli_retained_free(&dt);
        lr_close(h);
        return rc;
    }
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_threads_json(&w, &tr, co.pos[0], top > UINT32_MAX ? 0 : (uint32_t)top);
        cli_json_end(&co, &w);
    } else {
        rep_threads_text(stdout, &tr, top > UINT32_MAX ? 0 : (uint32_t)top);
    }
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return CLI_EXIT_OK;
    threads_free(&tr);
    cli_retained_free(&dt);
    lr_close(h);
    return CLI_EXIT_OK;
}
