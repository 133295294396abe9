/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_report.c: `leakray report FILE -o OUT.html` (cli), prefix report_. Runs the leak
 * analysis `analyze` runs (same rules options) through the public API (lr_analyze) and
 * writes its self-contained HTML page, or with --format json the report model the page
 * embeds (docs/json.md "report"). The page needs no network and opens from file://. The
 * line (or JSON) saying what was written is report/export.h's; with -o - the page goes to
 * stdout and that line is left out, so the output can be piped. */
#include "cmd_report.h"

#include "cmd_dashboard.h"

#include "base/outfile.h"
#include "format/v8.h"
#include "report/export.h"
#include "rules/mapping.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int report_write(const cli_common *co, const char *path, const char *buf, size_t len)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    outfile *of = NULL;
    if (outfile_open(path, &of, &err) != LR_OK)
        return cli_error(co, &err);
    outfile_write(of, buf, len);
    if (outfile_commit(of, &err) != LR_OK) /* commit releases it, failed or not */
        return cli_error(co, &err);
    return 0;
}

int report_write_file(const cli_common *co, lr_analysis *an, lr_render_format fmt,
                      const char *path, const char *dump_path, uint64_t *bytes)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    lr_render_opts ro = {co->no_timing, dump_path};
    char *buf = NULL;
    size_t len = 0;
    if (lr_render_buffer(an, fmt, &ro, &buf, &len, &err) != LR_OK) {
        free(buf);
        return cli_error(co, &err);
    }
    int rc = report_write(co, path, buf, len);
    free(buf);
    *bytes = len;
    return rc;
}

int cmd_report(int argc, char **argv)
{
    if (dashboard_wanted(argc, argv))
        return cmd_dashboard(argc, argv);
    const char *out = NULL, *format = "html";
    cli_strlist rules_files = {{0}, 0, {0}}, watches = {{0}, 0, {0}}, ifs = {{0}, 0, {0}};
    int no_shipped = 0, no_suspects = 0, detached = 0, no_detached = 0;
    const cli_optdef opts[] = {
        CLI_OPTS_OUTPUT(&out, "output file (.html); - writes to stdout"),
        {"--format", CLI_OPT_STR, &format, "html|json",
         "html (default): the page; json: the report model it embeds", NULL},
        {"--rules", CLI_OPT_LIST, &rules_files, "FILE", "extra rules file (repeatable)", NULL},
        {"--watch", CLI_OPT_LIST, &watches, "CLASS",
         "treat instances of CLASS as leaking (when a --leaking-if follows it: those it holds for)",
         NULL},
        {"--leaking-if", CLI_OPT_LIST, &ifs, "EXPR", "condition for the --watch before it",
         NULL},
        {"--no-shipped-rules", CLI_OPT_FLAG, &no_shipped, NULL,
         "do not load jdk.rules / android.rules / browser.rules", NULL},
        {"--no-suspects", CLI_OPT_FLAG, &no_suspects, NULL,
         "leave out the LARGEST RETAINERS (leak suspects as `analyze` finds them)", NULL},
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "browser snapshots: detached DOM nodes still retained are leaks (default without "
         "--watch), as `analyze`", NULL},
        {"--no-detached", CLI_OPT_FLAG, &no_detached, NULL, "do not trace detached DOM nodes",
         NULL},
        {0}};
    const cli_spec spec = {
        "report", "FILE", "Self-contained HTML report: leaks, dominator treemap, tables.", opts, 1,
        1,
        "One HTML file with inline script and styles, no network access, opening from\n"
        "file://: a summary, the leak groups with their traces (suspect references\n"
        "highlighted), analyze's LARGEST RETAINERS (leak suspects, never traces), a\n"
        "zoomable treemap of the dominator tree `top` shows, by object and by class,\n"
        "sortable tables of the biggest objects and classes, and where the dump has them\n"
        "DevTools' Summary with retainers and clusters (V8), duplicate bitmaps shown inline,\n"
        "duplicate arrays and strings, threads (HPROF). Large heaps stay small: the page holds\n"
        "the biggest subtrees only, the rest folded into \"(other)\".\n"
        "With --db URL instead of FILE: the leak store's dashboard (report --db URL --help).\n"
        CLI_OUTPUT_NOTE CLI_STDOUT_NOTE
        "Example: leakray report app.hprof -o app.html"};
    cli_common co;
    int rc = cli_parse_output(argc, argv, &spec, &co, &out);
    if (rc != CLI_CONTINUE)
        return rc;
    lr_render_format fmt;
    if (strcmp(format, "html") == 0)
        fmt = LR_RENDER_HTML;
    else if (strcmp(format, "json") == 0)
        fmt = LR_RENDER_JSON;
    else
        return cli_usage_error(&co, "--format must be html or json, not '%s'", format);
    const char *conds[CLI_MAX_LIST];
    if ((rc = cli_pair_watches(&co, &watches, &ifs, conds)) != CLI_CONTINUE)
        return rc;
    if (detached && no_detached)
        return cli_usage_error(&co, "--detached and --no-detached exclude each other");
    double t0 = cli_now_ms();
    lr_heap *h;
    /* as analyze: with --mapping, array classes keep their obfuscated names (Shark's traces) */
    co.mapping_flags = MAPPING_KEEP_ARRAYS;
    if ((rc = cli_open(&co, co.pos[0], 0, &h)) != 0)
        return rc;
    if (detached && (rc = cli_need_dom(&co, lr_heap_graph(h), co.pos[0])) != 0) {
        lr_close(h); /* as histo and leaks */
        return rc;
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    lr_analyze_opts ao = {rules_files.v, rules_files.n, watches.v, conds, watches.n, no_shipped,
                          no_suspects, detached ? 1 : no_detached ? -1 : 0};
    lr_analysis *an = NULL;
    /* the page is made from the suspects' tree: kept, not built twice */
    if (lr_analyze_keep(h, &ao, 1, &an, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        lr_close(h);
        return rc;
    }
    double t1 = cli_now_ms();
    char abs[PATH_MAX];
    const char *shown = realpath(co.pos[0], abs) ? abs : co.pos[0];
    uint64_t bytes = 0;
    rc = report_write_file(&co, an, fmt, out, shown, &bytes);
    double t2 = cli_now_ms();
    if (rc == 0 && !cli_out_stdout(out)) { /* stdout holds the page alone */
        rep_export_file f = {co.pos[0], out, format, bytes, lr_analysis_group_count(an)};
        if (co.json) {
            jsonw w;
            cli_json_begin(&w);
            rep_export_file_json(&w, &f);
            cli_json_end_phase(&co, &w, "report_ms", t2 - t1);
        } else {
            rep_export_file_text(stdout, &f);
            cli_print_timing(&co, stdout, "analysis", t1 - t0);
            cli_print_timing(&co, stdout, "report", t2 - t1);
        }
    }
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    lr_analysis_free(an);
    lr_close(h);
    return rc;
}
