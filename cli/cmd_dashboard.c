/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_dashboard.c: `leakray report --db URL -o OUT.html` (cli), prefix dashboard_. Parses the
 * options, has the store read what the page shows (store_dashboard_build: leaks, their days,
 * trends by day and by version, the comparison of two versions, the first leaks' newest trace
 * and history, within src/report/dashboard.h's bounds), and has the report layer write the
 * model (docs/json.md "dashboard") and the page around it (src/report/dashboard.c), or with
 * --format json the model itself. The output file is replaced atomically (-o - writes the
 * page to stdout: cmd_report.h). */
#include "cmd_dashboard.h"

#include "cli_store.h"
#include "cmd_report.h"

#include "report/dashboard.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int dashboard_wanted(int argc, char **argv)
{
    /* report's options that take a value: their values are not dumps */
    static const char *const valued[] = {"-o", "--output", "--format", "--rules", "--watch",
                                         "--leaking-if", "--mapping", "--max-inflate",
                                         "--dump", "--app", "--version", "--kind", "--since",
                                         "--from", "--to", "--threshold", NULL};
    int dumps = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            dumps += argc - i - 1;
            break;
        }
        if (strcmp(a, "--db") == 0 || strncmp(a, "--db=", 5) == 0 || strcmp(a, "--store") == 0 ||
            strncmp(a, "--store=", 8) == 0)
            return 1;
        if (a[0] != '-') {
            dumps++;
            continue;
        }
        for (int k = 0; valued[k]; k++)
            if (strcmp(a, valued[k]) == 0) {
                i++;
                break;
            }
    }
    const char *env = getenv("LEAKRAY_DB");
    return dumps == 0 && env && *env;
}

int cmd_dashboard(int argc, char **argv)
{
    store_opts o = {0};
    const char *out = NULL, *format = "html", *from = NULL, *to = NULL;
    uint64_t threshold = 10;
    const cli_optdef opts[] = {
        STORE_DB_OPT(&o),
        CLI_OPTS_OUTPUT(&out, "output file (.html); - writes to stdout"),
        {"--format", CLI_OPT_STR, &format, "html|json",
         "html (default): the page; json: the dashboard model it embeds", NULL},
        STORE_FILTER_OPTS(&o),
        {"--from", CLI_OPT_STR, &from, "V1", "version comparison: the older version", NULL},
        {"--to", CLI_OPT_STR, &to, "V2",
         "version comparison: the newer version (default: the two newest versions of the "
         "one app, or of --app; none for a store of several apps)", NULL},
        {"--threshold", CLI_OPT_UINT, &threshold, "PCT",
         "median retained change that counts as grown/shrunk (default 10)", NULL},
        {0}};
    const cli_spec spec = {
        "report", "--db URL -o OUT.html", "the leak store as a self-contained HTML dashboard",
        opts, 0, 0,
        "One HTML file with inline script and styles, no network access, opening from\n"
        "file://: every leak signature with its occurrences, dumps, apps, versions, first\n"
        "and last seen, retained median and max and a sparkline of the days it was seen;\n"
        "a click shows its newest trace (LeakCanary's layout) and its latest reports. The\n"
        "Versions tab compares two versions (new, fixed, grown, shrunk leaks) and lists\n"
        "new / recurring / fixed leaks per version; Trend does the same per day.\n"
        "Without --db and without a dump, $LEAKRAY_DB names the store.\n" CLI_OUTPUT_NOTE
        CLI_STDOUT_NOTE
        "Example: leakray report --db leaks.db -o leaks.html"};
    cli_common co;
    store_filter f;
    store *s = NULL;
    int rc = cli_store_parse(argc, argv, &spec, &out, &o, &co, &f);
    if (rc != CLI_CONTINUE)
        return rc;
    int json = strcmp(format, "json") == 0;
    if (!json && strcmp(format, "html") != 0)
        return cli_usage_error(&co, "--format must be html or json, not '%s'", format);
    if (!from != !to)
        return cli_usage_error(&co, "give both --from V1 and --to V2, or neither");
    /* it only reads: a mistyped --db made a store and published an empty page, exit 0 */
    if ((rc = cli_store_open_existing(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    store_expect_bulk_reads(s);
    double t0 = cli_now_ms();
    char url[1024], def[4096];
    rep_dashboard_url(cli_store_url(o.db, def, sizeof def), url, sizeof url);
    lr_error err = {.offset = LR_NO_OFFSET};
    store_dashboard d;
    lr_status st = store_dashboard_build(s, &f, REP_DASH_MAX_LEAKS, REP_DASH_DETAILED,
                                         REP_DASH_HISTORY, from, to, (double)threshold, &d, &err);
    store_close(s);
    if (st != LR_OK)
        return cli_error(&co, &err);
    rep_dash_view view = {url, o.app, o.version, o.kind, o.since, -1};
    if (!co.no_timing) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        view.generated_ms = (int64_t)ts.tv_sec * 1000;
    }
    char *model = NULL, *page = NULL;
    size_t model_len = 0, page_len = 0;
    FILE *mem = open_memstream(&model, &model_len);
    if (!mem) {
        store_dashboard_fini(&d);
        return cli_fail(&co, LR_ERR_NOMEM, "out of memory");
    }
    jsonw w;
    jsonw_init(&w, mem, 0);
    rep_dashboard_json(&w, &d, &view);
    jsonw_finish(&w);
    fclose(mem);
    store_dashboard_fini(&d);
    const char *body = model;
    size_t len = model_len;
    if (!json) {
        mem = open_memstream(&page, &page_len);
        if (!mem || rep_dashboard_html(mem, model, model_len) != 0) {
            if (mem)
                fclose(mem);
            free(model);
            free(page);
            return cli_fail(&co, LR_ERR_NOMEM, "out of memory");
        }
        fclose(mem);
        body = page;
        len = page_len;
    }
    rc = report_write(&co, out, body, len);
    free(model);
    free(page);
    if (rc != 0)
        return rc;
    double t1 = cli_now_ms();
    if (cli_out_stdout(out)) /* stdout holds the page alone */
        return CLI_EXIT_OK;
    if (co.json) {
        cli_json_begin(&w);
        rep_dashboard_written_json(&w, out, format, len);
        cli_json_end_phase(&co, &w, "report_ms", t1 - t0);
    } else {
        rep_dashboard_written_text(stdout, url, out, len);
        cli_print_timing(&co, stdout, "report", t1 - t0);
    }
    return CLI_EXIT_OK;
}
