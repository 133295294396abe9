/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_histo.c: `leakray histo FILE` (cli), prefix histo_cmd_. Instances and shallow bytes per
 * class, laid out like `jmap -histo`, from a load without edges (the fast path), or from the
 * streaming HPROF histogram when nothing needs the graph. The rows come from
 * analysis/histo.h, the table, CSV and JSON from report/histo.h; this file picks the path,
 * turns options into the analysis' inputs (--class/--package as its name predicate,
 * --retained as per-node retained sizes from the dominator tree) and the output form. */
#include "analysis/devtools.h"
#include "analysis/dominators.h"
#include "analysis/histo.h"
#include "cli.h"
#include "cli_filter.h"
#include "format/fmt.h"
#include "format/hprof.h"
#include "format/v8.h"
#include "report/histo.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --class/--package and --csv, set once by cmd_histo. */
static const cli_filter *histo_cmd_filter;
static int histo_cmd_csv;

static int histo_cmd_keep(const char *name, void *arg)
{
    return cli_filter_match(arg, name);
}

#define HISTO_CMD_KEEP histo_cmd_filter ? histo_cmd_keep : NULL, (void *)histo_cmd_filter

/* The result in the chosen form, then (text) the load time. */
static void histo_cmd_emit(const cli_common *co, const histo_result *h, uint64_t top,
                           const char *heap, const char *sort)
{
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        rep_histo_json(&w, h, top, heap, sort);
        cli_json_end(co, &w);
    } else if (histo_cmd_csv) {
        rep_histo_csv(stdout, h, top);
    } else {
        rep_histo_text(stdout, h, top);
        cli_print_timing(co, stdout, "load time", co->load_ms);
    }
}

static int histo_cmd_devtools(const cli_common *co, const graph *g, enum histo_sort sort,
                              const char *sort_name, uint64_t top, int ret, int detached_only)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    devtools_result r;
    double t0 = cli_now_ms();
    if (devtools_build(g, v8_class_keys(g), &r, &err) != LR_OK)
        return cli_error(co, &err);
    double dt_ms = cli_now_ms() - t0;
    histo_dt_result h;
    if (histo_dt_select(g, &r, sort, detached_only, HISTO_CMD_KEEP, &h, &err) != LR_OK) {
        devtools_free(&r);
        return cli_error(co, &err);
    }
    h.heap_total = r.total + v8_extra_native_bytes(g);
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        rep_histo_dt_json(&w, g, &h, top, ret, sort_name);
        cli_json_end_phase(co, &w, "devtools_ms", dt_ms);
    } else if (histo_cmd_csv) {
        rep_histo_dt_csv(stdout, g, &h, top, ret);
    } else {
        rep_histo_dt_text(stdout, g, &h, top, ret);
        cli_print_timing(co, stdout, "load time", co->load_ms);
        cli_print_timing(co, stdout, "devtools", dt_ms);
    }
    if (cli_exit_keeps_heap())
        return CLI_EXIT_OK;
    histo_dt_free(&h);
    devtools_free(&r);
    return CLI_EXIT_OK;
}

/* Heap index by name, or -1; lists the heaps on failure. */
static int histo_cmd_heap(const graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_heaps && i < GRAPH_MAX_HEAPS; i++)
        if (strcmp(graph_str(g, g->heap_names[i]), name) == 0)
            return (int)i;
    return -1;
}

/* HPROF without --retained and --heap: the streaming histogram (format/hprof.h) gives the
 * rows the graph would, in one walk without building it. Whatever it declines or fails on
 * (other formats, damaged input, sizes near 4 GiB) is left to the graph load, so errors are
 * printed by one code path. Returns an exit code, or -1 for "load the graph". */
static int histo_cmd_stream(cli_common *co, enum histo_sort sort, const char *sort_name,
                            uint64_t top)
{
    /* A pipe is read once: bytes taken to sniff them would be gone for the graph load. */
    struct stat st;
    if (strcmp(co->pos[0], "-") == 0 || stat(co->pos[0], &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    double t0 = cli_now_ms();
    mfile m;
    lr_error err = {.offset = LR_NO_OFFSET};
    if (mfile_open_dump(&m, co->pos[0], co->max_inflate, fmt_head_known, &err) != LR_OK)
        return -1;
    hprof_histo hh;
    if (!hprof_sniff(m.data, m.len) ||
        hprof_histo_build(&m, co->pos[0], (int)co->dump_index, 0, &hh, &err) != LR_OK) {
        mfile_close(&m);
        return -1;
    }
    co->load_ms = cli_now_ms() - t0;
    co->load_ms_total += co->load_ms;
    if (hh.g.diag.n[DIAG_TRUNCATED]) /* as cli_open says it of a graph */
        fprintf(stderr, "leakray: %s: warning: %s\n", co->pos[0],
                diag_description(DIAG_TRUNCATED));
    int rc = CLI_EXIT_OK;
    histo_result h = {0};
    histo_row *all = err_calloc((size_t)hh.n_classes + 2, sizeof *all);
    if (!all) {
        rc = cli_fail(co, LR_ERR_NOMEM, "histo: out of memory for %u classes", hh.n_classes);
    } else {
        for (uint32_t c = 0; c < hh.n_classes + 2; c++) {
            all[c].name = hh.rows[c].name;
            all[c].count = hh.rows[c].count;
            all[c].shallow = hh.rows[c].bytes;
        }
        histo_rank(all, hh.n_classes, sort, HISTO_CMD_KEEP, &h);
        histo_cmd_emit(co, &h, top, NULL, sort_name);
        /* the verb returns rc next: the mapping goes at the process's exit */
        if (cli_exit_keeps_heap())
            return rc;
        histo_free(&h);
    }
    hprof_histo_free(&hh);
    mfile_close(&m);
    return rc;
}

int cmd_histo(int argc, char **argv)
{
    uint64_t top = 0;
    const char *sort = NULL;
    const char *heap = NULL;
    int want_retained = 0, detached = 0;
    cli_filter flt = {0};
    const cli_optdef opts[] = {
        CLI_FILTER_OPTS(&flt),
        {"--csv", CLI_OPT_FLAG, &histo_cmd_csv, NULL, "comma-separated values", NULL},
        {"--retained", CLI_OPT_FLAG, &want_retained, NULL,
         "add retained bytes per class, no byte counted twice (loads references)", NULL},
        {"--top", CLI_OPT_UINT, &top, "N", "show only the first N rows (the total covers all)",
         NULL},
        {"--sort", CLI_OPT_STR, &sort, "KEY",
         "row order: shallow (default; V8: retained), count, name or retained",
         "shallow|count|name|retained"},
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "V8 browser snapshots: only detached DOM classes", NULL},
        {"--heap", CLI_OPT_STR, &heap, "NAME", "only objects of this heap (Android: app, "
                                               "zygote, image)", NULL},
        {0},
    };
    const cli_spec spec = {
        "histo", "FILE", "Instances and shallow bytes per class, like jmap -histo.", opts, 1, 1,
        "Columns: rank, instances, shallow bytes, class name; the Total line sums every class.\n"
        "Ties are ordered by class name. Example: leakray histo --top 20 app.hprof\n"
        "V8/Node/ArkTS snapshots: DevTools' Summary (per class key, objects of nonzero size,\n"
        "retained bytes and distance, sorted by retained size), docs/formats/v8.md."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    histo_cmd_filter = cli_filter_active(&flt) ? &flt : NULL;

    lr_heap *lh;
    int sort_given = sort != NULL;
    if (!sort)
        sort = "shallow";
    if (!want_retained && !heap && !detached && !co.mapping && strcmp(sort, "retained") != 0) {
        enum histo_sort hs = strcmp(sort, "count") == 0  ? HISTO_BY_COUNT
                             : strcmp(sort, "name") == 0 ? HISTO_BY_NAME
                                                         : HISTO_BY_SHALLOW;
        if ((rc = histo_cmd_stream(&co, hs, sort, top)) >= 0)
            return rc;
    }
    if ((rc = cli_open(&co, co.pos[0], want_retained ? 0 : CLI_OPEN_NO_EDGES, &lh)) != 0)
        return rc;
    const graph *g = lr_heap_graph(lh);
    if (detached && (rc = cli_need_dom(&co, g, co.pos[0])) != 0) {
        lr_close(lh);
        return rc;
    }
    if (v8_class_keys(g) && g->synthetic_root != GRAPH_NONE && !heap) {
        /* DevTools' Summary shows retained sizes and sorts by them. */
        if (!sort_given)
            sort = "retained";
        want_retained = 1;
        enum histo_sort hs = strcmp(sort, "retained") == 0 ? HISTO_BY_RETAINED
                             : strcmp(sort, "count") == 0  ? HISTO_BY_COUNT
                             : strcmp(sort, "name") == 0   ? HISTO_BY_NAME
                                                           : HISTO_BY_SHALLOW;
        rc = histo_cmd_devtools(&co, g, hs, sort, top, want_retained, detached);
        if (cli_exit_keeps_heap())
            return rc;
        lr_close(lh);
        return rc;
    }
    if (detached) {
        lr_close(lh);
        return cli_usage_error(&co, "--detached needs a V8 snapshot of a browser page");
    }
    if (strcmp(sort, "retained") == 0 && !want_retained) {
        lr_close(lh);
        return cli_usage_error(&co, "--sort retained needs --retained");
    }
    int heap_ix = -1;
    enum histo_sort hsort = strcmp(sort, "retained") == 0 ? HISTO_BY_RETAINED
             : strcmp(sort, "count") == 0 ? HISTO_BY_COUNT
             : strcmp(sort, "name") == 0 ? HISTO_BY_NAME
                                         : HISTO_BY_SHALLOW;
    if (heap) {
        heap_ix = histo_cmd_heap(g, heap);
        if (heap_ix < 0) {
            char names[256] = "";
            size_t used = 0;
            for (uint32_t i = 0; i < g->n_heaps && i < GRAPH_MAX_HEAPS; i++) {
                int k = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 graph_str(g, g->heap_names[i]));
                if (k < 0 || (size_t)k >= sizeof names - used)
                    break;
                used += (size_t)k;
            }
            rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no heap named '%s' (heaps: %s)", co.pos[0],
                          heap, used ? names : "none, the dump has no heap tags");
            lr_close(lh);
            return rc;
        }
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    histo_result h;
    /* --retained: an instance's retained size counts for its class only when no dominator
     * ancestor has the same class (dom_class_top); VisualVM's model for HotSpot dumps. */
    lr_status st = want_retained
                       ? histo_build_retained(g, heap_ix, hsort, HISTO_CMD_KEEP, &h, &err)
                       : histo_build(g, NULL, heap_ix, hsort, HISTO_CMD_KEEP, &h, &err);
    if (st != LR_OK) {
        rc = cli_error(&co, &err);
        lr_close(lh);
        return rc;
    }
    histo_cmd_emit(&co, &h, top, heap, sort);
    /* the process exits next and takes the graph and the mapping back sooner than freeing */
    if (cli_exit_keeps_heap())
        return CLI_EXIT_OK;
    histo_free(&h);
    lr_close(lh);
    return CLI_EXIT_OK;
}
