/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_store.c: `leakray store ingest|leaks|show|trend|diff|prune|export` (cli), the leak
 * store's verbs over src/store/store.h. A dump given to `ingest` is analysed on the way in by
 * running this same program's `analyze --json` in a child process: the analysis then never
 * shares an address space (or a crash) with the database writer, and the stored document is
 * exactly what `analyze --json` prints. The store is `--db URL`, else $LEAKRAY_DB, else
 * $XDG_DATA_HOME/leakray/store.db (~/.local/share/leakray/store.db). */
#include "cli_store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Reports larger than this are refused: an analyze document holds every trace, and a million
 * traces stay far below it. */
#define STORE_MAX_REPORT (1ULL << 30)
#define SIG_SHORT 12 /* signature digits shown in tables (show takes any unique prefix) */

/* ---- ingest ---- */

static int read_all(int fd, char **out, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return ENOMEM;
    for (;;) {
        if (n == cap) {
            if (cap >= STORE_MAX_REPORT) {
                free(buf);
                return EFBIG;
            }
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                return ENOMEM;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            free(buf);
            return e;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

/* The "message" of an analyze --json error document, unescaped enough to read. */
static void error_message(const char *doc, char *out, size_t cap)
{
    const char *m = strstr(doc, "\"message\": \"");
    if (!m) {
        snprintf(out, cap, "analysis failed");
        return;
    }
    m += 12;
    size_t n = 0;
    for (; *m && *m != '"' && n + 1 < cap; m++) {
        if (*m == '\\' && m[1])
            m++;
        out[n++] = *m;
    }
    out[n] = 0;
}

/* Runs `<self> analyze --json --no-timing [extra...] path`; on success *doc holds its
 * output. Returns 0 ok, or the analysis' exit code with msg filled. */
static int analyze_dump(const char *path, const cli_strlist *rules, const char *mapping,
                        char **doc, size_t *len, char *msg, size_t cap)
{
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        snprintf(msg, cap, "cannot find the leakray executable: %s", strerror(errno));
        return CLI_EXIT_IO;
    }
    self[k] = 0;
    const char *argv[8 + 2 * CLI_MAX_LIST];
    int a = 0;
    argv[a++] = "leakray";
    argv[a++] = "analyze";
    argv[a++] = "--json";
    argv[a++] = "--no-timing";
    argv[a++] = "--no-progress";
    for (int i = 0; i < rules->n; i++) {
        argv[a++] = "--rules";
        argv[a++] = rules->v[i];
    }
    if (mapping) {
        argv[a++] = "--mapping";
        argv[a++] = mapping;
    }
    argv[a++] = "--";
    argv[a++] = path;
    argv[a] = NULL;
    int pfd[2];
    if (pipe(pfd) != 0) {
        snprintf(msg, cap, "pipe: %s", strerror(errno));
        return CLI_EXIT_IO;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, pfd[0]);
    posix_spawn_file_actions_addclose(&fa, pfd[1]);
    pid_t pid;
    int rc = posix_spawn(&pid, self, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        snprintf(msg, cap, "cannot run analyze: %s", strerror(rc));
        return CLI_EXIT_IO;
    }
    int e = read_all(pfd[0], doc, len);
    close(pfd[0]);
    if (e)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (e) {
        snprintf(msg, cap, "reading the analysis: %s", strerror(e));
        return e == ENOMEM ? CLI_EXIT_LIMIT : CLI_EXIT_IO;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : CLI_EXIT_LIMIT;
    if (code == CLI_EXIT_OK || code == CLI_EXIT_FINDINGS)
        return 0;
    if (WIFSIGNALED(status))
        snprintf(msg, cap, "%s: analysis killed by signal %d", path, WTERMSIG(status));
    else
        error_message(*doc, msg, cap);
    free(*doc);
    *doc = NULL;
    return code ? code : CLI_EXIT_LIMIT;
}

static int looks_like_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int c;
    while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\r' || c == '\t')
        ;
    fclose(f);
    return c == '{';
}

static int read_file(const char *path, char **doc, size_t *len, char *msg, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(msg, cap, "%s: %s", path, strerror(errno));
        return CLI_EXIT_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(msg, cap, "%s: not a regular file", path);
        return CLI_EXIT_IO;
    }
    int e = read_all(fd, doc, len);
    close(fd);
    if (e) {
        snprintf(msg, cap, "%s: %s", path, e == EFBIG ? "report too large" : strerror(e));
        return e == ENOMEM || e == EFBIG ? CLI_EXIT_LIMIT : CLI_EXIT_IO;
    }
    return 0;
}

static void ingest_json_out(jsonw *w, const char *path, const store_ingest_result *r,
                            const char *error)
{
    jsonw_obj_begin(w);
    jsonw_kv_str(w, "input", path);
    jsonw_kv_str(w, "status", error && !r->failed ? "refused"
                              : r->failed         ? "failed"
                              : r->duplicate      ? "duplicate"
                                                  : "stored");
    if (r->report_id)
        jsonw_kv_int(w, "report", r->report_id);
    else
        jsonw_kv_null(w, "report");
    jsonw_kv_str(w, "kind", r->kind[0] ? r->kind : NULL);
    jsonw_kv_int(w, "leaks", r->n_leaks);
    jsonw_kv_int(w, "new_leaks", r->n_new);
    jsonw_kv_int(w, "retained_bytes", r->retained);
    jsonw_kv_str(w, "error", error);
    jsonw_obj_end(w);
}

static int cmd_store_ingest(int argc, char **argv)
{
    store_opts o = {0};
    cli_strlist rules = {0};
    const cli_optdef opts[] = {
        STORE_DB_OPT(&o),
        {"--app", CLI_OPT_STR, &o.app, "NAME", "the app the inputs come from", NULL},
        {"--version", CLI_OPT_STR, &o.version, "V", "its version", NULL},
        {"--device", CLI_OPT_STR, &o.device, "D", "the device or host", NULL},
        {"--at", CLI_OPT_STR, &o.at, "TIME",
         "when the dump was taken (default: the input file's modification time)", NULL},
        {"--rules", CLI_OPT_LIST, &rules, "FILE", "extra rules for analysing dumps", NULL},
        {0}};
    const cli_spec spec = {
        "store ingest", "INPUT...",
        "store dumps (analysed on the way in), analyze --json reports and native scan reports",
        opts, 1, CLI_MAX_POS,
        "The same input with the same --app/--version/--device/--at is stored once.\n"
        "A dump that cannot be analysed is recorded as a failed ingest (exit 3).\n"
        "TIME: YYYY-MM-DD[THH:MM[:SS]] (UTC) or @unix-seconds.\n"};
    cli_common co;
    store *s;
    int64_t at = 0;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, NULL);
    if (rc == CLI_CONTINUE && o.at && !cli_store_parse_time(o.at, &at))
        return cli_usage_error(&co, "--at '%s' is not a time (YYYY-MM-DD[THH:MM[:SS]] or "
                                    "@unix-seconds)", o.at);
    if (rc != CLI_CONTINUE || (rc = cli_store_open(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    jsonw w;
    if (co.json) {
        cli_json_begin(&w);
        jsonw_kv_arr_begin(&w, "ingested");
    }
    int worst = CLI_EXIT_OK;
    for (int i = 0; i < co.n_pos; i++) {
        const char *path = co.pos[i];
        store_meta m = {path, o.app, o.version, o.device, at};
        struct stat st;
        if (!o.at && stat(path, &st) == 0)
            m.at_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
        char *doc = NULL;
        size_t len = 0;
        char msg[LR_ERROR_MSG_MAX] = "";
        store_ingest_result r = {0};
        lr_error err = {0};
        int code;
        int is_report = looks_like_json(path);
        if (is_report)
            code = read_file(path, &doc, &len, msg, sizeof msg);
        else
            code = analyze_dump(path, &rules, co.mapping, &doc, &len, msg, sizeof msg);
        lr_status ls = LR_OK;
        const char *error = NULL;
        if (code == 0) {
            ls = store_ingest_json(s, path, doc, len, &m, &r, &err);
            if (ls != LR_OK) {
                code = lr_exit_code(ls);
                error = err.msg;
            }
        } else if (!is_report && (code == CLI_EXIT_INPUT || code == CLI_EXIT_LIMIT)) {
            /* The dump itself is bad: remember that it came and why it failed. */
            error = msg;
            ls = store_ingest_failure(s, &m, msg, &r, &err);
            if (ls != LR_OK) {
                code = lr_exit_code(ls);
                error = err.msg;
            }
        } else {
            error = msg;
        }
        free(doc);
        if (code > worst)
            worst = code;
        if (co.json) {
            ingest_json_out(&w, path, &r, error);
            continue;
        }
        char h[CLI_FMT_MAX];
        if (r.failed)
            printf("failed: %s (recorded as report #%" PRId64 ")\n", error, r.report_id);
        else if (error)
            fprintf(stderr, "leakray: %s\n", error);
        else if (r.duplicate)
            printf("already stored: %s (report #%" PRId64 ")\n", path, r.report_id);
        else
            printf("stored %s: report #%" PRId64 ", %d leak%s (%d new), %s retained\n", path,
                   r.report_id, r.n_leaks, r.n_leaks == 1 ? "" : "s", r.n_new,
                   cli_fmt_human(h, (uint64_t)r.retained));
    }
    if (co.json) {
        jsonw_arr_end(&w);
        cli_json_end(&co, &w);
    }
    store_close(s);
    return worst;
}

/* ---- leaks ---- */

static int cmd_store_leaks(int argc, char **argv)
{
    store_opts o = {0};
    const cli_optdef opts[] = {STORE_DB_OPT(&o), STORE_FILTER_OPTS(&o), {0}};
    const cli_spec spec = {"store leaks", "", "one row per leak signature over stored reports",
                           opts, 0, 0,
                           "Columns: occurrences (reports it appears in), dumps (distinct "
                           "analyses), instances\n(leaking objects), retained median and max "
                           "per report.\n"};
    cli_common co;
    store_filter f;
    store *s;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, &f);
    if (rc != CLI_CONTINUE || (rc = cli_store_open(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    store_leak *v = NULL;
    size_t n = 0;
    lr_error err = {0};
    if (store_leaks(s, &f, &v, &n, &err) != LR_OK)
        return cli_store_fail(&co, s, &err);
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_arr_begin(&w, "leaks");
        for (size_t i = 0; i < n; i++) {
            jsonw_obj_begin(&w);
            cli_store_leak_json(&w, &v[i]);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        cli_json_end(&co, &w);
    } else {
        printf("%zu distinct leak%s\n", n, n == 1 ? "" : "s");
        if (n)
            printf("%-12s  %-11s  %11s  %5s  %9s  %-16s  %-16s  %8s  %10s  %10s  %s\n",
                   "signature", "kind", "occurrences", "dumps", "instances", "first seen",
                   "last seen", "versions", "median", "max", "description");
        for (size_t i = 0; i < n; i++) {
            char a[CLI_FMT_MAX], b[CLI_FMT_MAX], c[CLI_FMT_MAX], d[CLI_FMT_MAX];
            char e[CLI_FMT_MAX], g[CLI_FMT_MAX], h[CLI_FMT_MAX];
            printf("%-12.*s  %-11s  %11s  %5s  %9s  %-16s  %-16s  %8" PRId64 "  %10s  %10s  ",
                   SIG_SHORT, v[i].signature, v[i].kind,
                   cli_fmt_count(a, (uint64_t)v[i].occurrences),
                   cli_fmt_count(b, (uint64_t)v[i].dumps),
                   cli_fmt_count(c, (uint64_t)v[i].instances), cli_store_time(d, v[i].first_ms),
                   cli_store_time(e, v[i].last_ms), v[i].versions,
                   cli_fmt_human(g, (uint64_t)v[i].retained_median),
                   cli_fmt_human(h, (uint64_t)v[i].retained_max));
            cli_put_text(stdout, v[i].description, strlen(v[i].description), 200);
            putchar('\n');
        }
    }
    store_leaks_free(v, n);
    store_close(s);
    return CLI_EXIT_OK;
}

/* ---- show ---- */

/* The trace in LeakCanary's layout (root at the top, leaking object last). */
static void print_trace(const store_trace *t)
{
    printf("┬───\n│ GC Root: %s\n│\n", t->root);
    for (size_t i = 0; i < t->n; i++) {
        const store_trace_elem *e = &t->v[i];
        int last = i + 1 == t->n;
        const char *bar = last ? " " : "│";
        printf("%s %s %s\n", last ? "╰→" : "├─", e->cls,
               strcmp(e->type, "class") == 0 ? "class" : e->type);
        printf("%s    Leaking: %s%s%s%s\n", bar, e->leaking, e->reason[0] ? " (" : "",
               e->reason, e->reason[0] ? ")" : "");
        if (e->retained >= 0 && e->objects >= 0) {
            char h[CLI_FMT_MAX];
            printf("%s    Retaining %s in %" PRId64 " objects\n", bar,
                   cli_fmt_human(h, (uint64_t)e->retained), e->objects);
        }
        if (last)
            break;
        const char *owner = e->ref_owner;
        int is_array = strcmp(e->ref_type, "array_entry") == 0;
        int is_static = strcmp(e->ref_type, "static_field") == 0;
        int n_pre = printf("%s    ↓ %s%s%s", bar, is_static ? "static " : "", owner,
                           is_array ? "" : ".");
        printf("%s\n", e->ref_display);
        if (e->suspect) {
            /* "↓" and "│" are three bytes each but one column wide. */
            int cols = n_pre - 4;
            printf("%s", bar);
            for (int k = 1; k < cols; k++)
                putchar(' ');
            for (size_t k = 0; k < strlen(e->ref_display); k++)
                putchar('~');
            putchar('\n');
        }
    }
}

static int cmd_store_show(int argc, char **argv)
{
    store_opts o = {0};
    const cli_optdef opts[] = {STORE_DB_OPT(&o), {0}};
    const cli_spec spec = {"store show", "SIGNATURE",
                           "one leak: its newest trace and every report it appeared in",
                           opts, 1, 1, "SIGNATURE may be any unique prefix (4+ hex digits).\n"};
    cli_common co;
    store *s;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, NULL);
    if (rc != CLI_CONTINUE || (rc = cli_store_open(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    store_detail d;
    lr_error err = {0};
    if (store_show(s, co.pos[0], &d, &err) != LR_OK)
        return cli_store_fail(&co, s, &err);
    store_trace t = {0};
    if (d.trace_json && store_trace_parse(s, d.trace_json, &t, &err) != LR_OK) {
        store_detail_fini(&d);
        store_close(s);
        return cli_error(&co, &err);
    }
    char a[CLI_FMT_MAX], b[CLI_FMT_MAX];
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_obj_begin(&w, "leak");
        cli_store_leak_json(&w, &d.leak);
        jsonw_kv_str(&w, "pattern", d.pattern);
        jsonw_kv_str(&w, "description", d.explanation);
        jsonw_obj_end(&w);
        jsonw_kv_arr_begin(&w, "occurrences");
        for (size_t i = 0; i < d.n_seen; i++) {
            const store_seen *x = &d.seen[i];
            jsonw_obj_begin(&w);
            jsonw_kv_int(&w, "report", x->report_id);
            jsonw_kv_str(&w, "at", cli_store_time_iso(a, x->at_ms));
            jsonw_kv_str(&w, "app", x->app);
            jsonw_kv_str(&w, "version", x->version);
            jsonw_kv_str(&w, "device", x->device);
            jsonw_kv_str(&w, "source", x->source);
            jsonw_kv_int(&w, "instances", x->instances);
            jsonw_kv_int(&w, "retained_bytes", x->retained);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        /* The trace exactly as the newest report stored it. */
        jsonw_kv_str(&w, "trace_json", d.trace_json);
        cli_json_end(&co, &w);
    } else {
        printf("Leak %s (%s)\n", d.leak.signature, d.leak.kind);
        printf("  %s\n", d.leak.description);
        if (d.pattern)
            printf("  library leak pattern: %s\n  %s\n", d.pattern,
                   d.explanation ? d.explanation : "");
        printf("  seen in %" PRId64 " report%s (%" PRId64 " distinct dump%s), %" PRId64
               " leaking object%s, from %s to %s\n",
               d.leak.occurrences, d.leak.occurrences == 1 ? "" : "s", d.leak.dumps,
               d.leak.dumps == 1 ? "" : "s", d.leak.instances,
               d.leak.instances == 1 ? "" : "s", cli_store_time(a, d.leak.first_ms),
               cli_store_time(b, d.leak.last_ms));
        if (t.n) {
            printf("\nNewest trace:\n");
            print_trace(&t);
        }
        printf("\n%-8s  %-16s  %-12s  %-10s  %-12s  %9s  %12s  %s\n", "report", "taken",
               "app", "version", "device", "instances", "retained", "source");
        for (size_t i = 0; i < d.n_seen; i++) {
            const store_seen *x = &d.seen[i];
            char c[CLI_FMT_MAX];
            printf("#%-7" PRId64 "  %-16s  %-12s  %-10s  %-12s  %9" PRId64 "  %12s  %s\n",
                   x->report_id, cli_store_time(a, x->at_ms), x->app, x->version, x->device,
                   x->instances, cli_fmt_human(c, (uint64_t)x->retained), x->source);
        }
    }
    store_trace_fini(&t);
    store_detail_fini(&d);
    store_close(s);
    return CLI_EXIT_OK;
}

/* ---- trend ---- */

static int cmd_store_trend(int argc, char **argv)
{
    store_opts o = {0};
    const char *by = "day";
    const cli_optdef opts[] = {STORE_DB_OPT(&o), STORE_FILTER_OPTS(&o),
                               {"--by", CLI_OPT_STR, &by, "WHAT", "bucket by (default day)",
                                "day|version"},
                               {0}};
    const cli_spec spec = {
        "store trend", "", "per day or per version: new, recurring and fixed leaks", opts, 0,
        0,
        "new: first seen in that bucket; recurring: seen before too; fixed: seen in the "
        "previous\nbucket, not in this one. Versions sort as versions (3.10 after 3.9).\n"};
    cli_common co;
    store_filter f;
    store *s;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, &f);
    if (rc != CLI_CONTINUE || (rc = cli_store_open(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    store_bucket *v = NULL;
    size_t n = 0;
    lr_error err = {0};
    store_trend_by tb = strcmp(by, "version") == 0 ? STORE_BY_VERSION : STORE_BY_DAY;
    if (store_trend(s, &f, tb, &v, &n, &err) != LR_OK)
        return cli_store_fail(&co, s, &err);
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "by", by);
        jsonw_kv_arr_begin(&w, "buckets");
        for (size_t i = 0; i < n; i++) {
            jsonw_obj_begin(&w);
            jsonw_kv_str(&w, tb == STORE_BY_DAY ? "day" : "version", v[i].label);
            jsonw_kv_int(&w, "reports", v[i].reports);
            jsonw_kv_int(&w, "failed", v[i].failed);
            jsonw_kv_int(&w, "leaks", v[i].leaks);
            jsonw_kv_int(&w, "new", v[i].new_leaks);
            jsonw_kv_int(&w, "recurring", v[i].recurring);
            jsonw_kv_int(&w, "fixed", v[i].fixed);
            jsonw_kv_int(&w, "retained_bytes", v[i].retained);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        cli_json_end(&co, &w);
    } else {
        printf("%-12s  %7s  %6s  %5s  %5s  %9s  %5s  %12s\n",
               tb == STORE_BY_DAY ? "day" : "version", "reports", "failed", "leaks", "new",
               "recurring", "fixed", "retained");
        for (size_t i = 0; i < n; i++) {
            char h[CLI_FMT_MAX];
            printf("%-12s  %7" PRId64 "  %6" PRId64 "  %5" PRId64 "  %5" PRId64 "  %9" PRId64
                   "  %5" PRId64 "  %12s\n",
                   v[i].label, v[i].reports, v[i].failed, v[i].leaks, v[i].new_leaks,
                   v[i].recurring, v[i].fixed, cli_fmt_human(h, (uint64_t)v[i].retained));
        }
    }
    free(v);
    store_close(s);
    return CLI_EXIT_OK;
}

/* ---- diff ---- */

static const char *const CHANGE[] = {[STORE_NEW] = "new", [STORE_FIXED] = "fixed",
                                     [STORE_GROWN] = "grown", [STORE_SHRUNK] = "shrunk",
                                     [STORE_SAME] = "same"};

static int cmd_store_diff(int argc, char **argv)
{
    store_opts o = {0};
    const char *from = NULL, *to = NULL;
    uint64_t threshold = 10;
    int fail_on_new = 0;
    const cli_optdef opts[] = {
        STORE_DB_OPT(&o),
        {"--from", CLI_OPT_STR, &from, "V1", "the older version (required)", NULL},
        {"--to", CLI_OPT_STR, &to, "V2", "the newer version (required)", NULL},
        STORE_APP_OPT(&o),
        STORE_KIND_OPT(&o),
        {"--threshold", CLI_OPT_UINT, &threshold, "PCT",
         "median retained change that counts as grown/shrunk (default 10)", NULL},
        {"--fail-on-new", CLI_OPT_FLAG, &fail_on_new, NULL,
         "exit 1 when V2 has a leak V1 did not have", NULL},
        {0}};
    const cli_spec spec = {"store diff", "", "leaks new, fixed, grown or shrunk from V1 to V2",
                           opts, 0, 0, NULL};
    cli_common co;
    store_filter f;
    store *s;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, &f);
    if (rc == CLI_CONTINUE && (!from || !to))
        return cli_usage_error(&co, "--from V1 and --to V2 are required");
    if (rc != CLI_CONTINUE || (rc = cli_store_open(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    store_delta *v = NULL;
    size_t n = 0;
    lr_error err = {0};
    if (store_diff(s, &f, from, to, (double)threshold, &v, &n, &err) != LR_OK)
        return cli_store_fail(&co, s, &err);
    int64_t count[STORE_SAME + 1] = {0};
    for (size_t i = 0; i < n; i++)
        count[v[i].change]++;
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "from", from);
        jsonw_kv_str(&w, "to", to);
        jsonw_kv_obj_begin(&w, "counts");
        for (int c = 0; c <= STORE_SAME; c++)
            jsonw_kv_int(&w, CHANGE[c], count[c]);
        jsonw_obj_end(&w);
        jsonw_kv_arr_begin(&w, "leaks");
        for (size_t i = 0; i < n; i++) {
            jsonw_obj_begin(&w);
            jsonw_kv_str(&w, "signature", v[i].signature);
            jsonw_kv_str(&w, "kind", v[i].kind);
            jsonw_kv_str(&w, "short_description", v[i].description);
            jsonw_kv_str(&w, "change", CHANGE[v[i].change]);
            jsonw_kv_int(&w, "from_reports", v[i].from_reports);
            jsonw_kv_int(&w, "to_reports", v[i].to_reports);
            jsonw_kv_int(&w, "from_retained_median", v[i].from_median);
            jsonw_kv_int(&w, "to_retained_median", v[i].to_median);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        cli_json_end(&co, &w);
    } else {
        printf("Leaks from version %s to %s: %" PRId64 " new, %" PRId64 " fixed, %" PRId64
               " grown, %" PRId64 " shrunk, %" PRId64 " unchanged\n",
               from, to, count[STORE_NEW], count[STORE_FIXED], count[STORE_GROWN],
               count[STORE_SHRUNK], count[STORE_SAME]);
        for (size_t i = 0; i < n; i++) {
            char a[CLI_FMT_MAX], b[CLI_FMT_MAX];
            printf("  %-7s %-12.*s  %-11s  %10s -> %-10s  ", CHANGE[v[i].change], SIG_SHORT,
                   v[i].signature, v[i].kind,
                   v[i].from_reports ? cli_fmt_human(a, (uint64_t)v[i].from_median) : "-",
                   v[i].to_reports ? cli_fmt_human(b, (uint64_t)v[i].to_median) : "-");
            cli_put_text(stdout, v[i].description, strlen(v[i].description), 200);
            putchar('\n');
        }
    }
    store_deltas_free(v, n);
    store_close(s);
    return fail_on_new && count[STORE_NEW] ? CLI_EXIT_FINDINGS : CLI_EXIT_OK;
}

/* ---- prune ---- */

static int cmd_store_prune(int argc, char **argv)
{
    store_opts o = {0};
    int64_t keep_days = -1, keep_dumps = -1;
    const cli_optdef opts[] = {
        STORE_DB_OPT(&o),
        {"--keep-days", CLI_OPT_INT, &keep_days, "N", "delete reports taken over N days ago",
         NULL},
        {"--keep-dumps", CLI_OPT_INT, &keep_dumps, "N", "keep only the newest N reports", NULL},
        {0}};
    const cli_spec spec = {"store prune", "", "delete old reports and the leaks only they had",
                           opts, 0, 0, NULL};
    cli_common co;
    store *s;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, NULL);
    if (rc == CLI_CONTINUE && keep_days < 0 && keep_dumps < 0)
        return cli_usage_error(&co, "give --keep-days N and/or --keep-dumps N");
    if (rc != CLI_CONTINUE || (rc = cli_store_open(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    int64_t rr = 0, rl = 0;
    lr_error err = {0};
    if (store_prune(s, now, keep_days, keep_dumps, &rr, &rl, &err) != LR_OK)
        return cli_store_fail(&co, s, &err);
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_int(&w, "removed_reports", rr);
        jsonw_kv_int(&w, "removed_leaks", rl);
        cli_json_end(&co, &w);
    } else {
        printf("removed %" PRId64 " report%s and %" PRId64 " leak%s\n", rr, rr == 1 ? "" : "s",
               rl, rl == 1 ? "" : "s");
    }
    store_close(s);
    return CLI_EXIT_OK;
}

/* ---- export ---- */

typedef struct export_ctx {
    jsonw *w;
    const char *const *cols;
} export_ctx;

/* Columns written as JSON numbers; the rest are strings (or null). */
static int numeric_col(const char *c)
{
    static const char *const nums[] = {"id", "at", "ingested_at", "leak_count",
                                       "retained_bytes", "report_id", "instances",
                                       "retained_objects", "occurrences", "dumps", "apps",
                                       "versions", "first_at", "last_at", "retained_max",
                                       NULL};
    for (int i = 0; nums[i]; i++)
        if (strcmp(c, nums[i]) == 0)
            return 1;
    return 0;
}

static int export_row(void *ctx, int n, const char *const *vals)
{
    export_ctx *x = ctx;
    jsonw_obj_begin(x->w);
    for (int i = 0; i < n && x->cols[i]; i++) {
        if (!vals[i])
            jsonw_kv_null(x->w, x->cols[i]);
        else if (numeric_col(x->cols[i]))
            jsonw_kv_int(x->w, x->cols[i], strtoll(vals[i], NULL, 10));
        else
            jsonw_kv_str(x->w, x->cols[i], vals[i]);
    }
    jsonw_obj_end(x->w);
    return 0;
}

static int cmd_store_export(int argc, char **argv)
{
    store_opts o = {0};
    const cli_optdef opts[] = {STORE_DB_OPT(&o), {0}};
    const cli_spec spec = {"store export", "",
                           "the whole store as one JSON document (reports, leaks, occurrences)",
                           opts, 0, 0, "Always JSON; --json is accepted and changes nothing.\n"};
    cli_common co;
    store *s;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, NULL);
    co.json = 1;
    if (rc != CLI_CONTINUE || (rc = cli_store_open(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    /* Written to a buffer first, so an error half-way never leaves a partial document. */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) {
        store_close(s);
        return cli_fail(&co, LR_ERR_NOMEM, "out of memory");
    }
    jsonw w;
    jsonw_init(&w, mem, 1);
    jsonw_obj_begin(&w);
    jsonw_kv_int(&w, "schema_version", CLI_SCHEMA_VERSION);
    jsonw_kv_int(&w, "store_schema_version", store_schema_version(s));
    static const char *const tables[] = {"report", "leak", "occurrence"};
    static const char *const keys[] = {"reports", "leaks", "occurrences"};
    lr_error err = {0};
    lr_status st = LR_OK;
    for (int t = 0; t < 3 && st == LR_OK; t++) {
        export_ctx x = {&w, store_export_columns(tables[t])};
        jsonw_kv_arr_begin(&w, keys[t]);
        st = store_export(s, tables[t], export_row, &x, &err);
        jsonw_arr_end(&w);
    }
    jsonw_obj_end(&w);
    jsonw_finish(&w);
    fclose(mem);
    store_close(s);
    if (st != LR_OK) {
        free(buf);
        return cli_error(&co, &err);
    }
    fwrite(buf, 1, len, stdout);
    free(buf);
    return CLI_EXIT_OK;
}

/* ---- dispatch ---- */

typedef struct store_sub {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} store_sub;

static const store_sub SUBS[] = {
    {"ingest", cmd_store_ingest, "store dumps and reports (idempotent)"},
    {"leaks", cmd_store_leaks, "one row per leak signature: seen, dumps, versions, sizes"},
    {"show", cmd_store_show, "one leak: newest trace and its history"},
    {"trend", cmd_store_trend, "new / recurring / fixed leaks per day or version"},
    {"diff", cmd_store_diff, "leaks new, fixed, grown or shrunk between two versions"},
    {"prune", cmd_store_prune, "delete old reports (--keep-days N, --keep-dumps N)"},
    {"export", cmd_store_export, "the whole store as JSON"},
};

static void store_usage(FILE *out)
{
    fputs("usage: leakray store <command> [options]\n"
          "The leak store: every analysed dump and report, leaks grouped by signature.\n"
          "The store is --db URL (a SQLite file, or postgres://user@host/db), else $LEAKRAY_DB,\n"
          "else ~/.local/share/leakray/store.db.\n\ncommands:\n",
          out);
    for (size_t i = 0; i < sizeof SUBS / sizeof SUBS[0]; i++)
        fprintf(out, "  %-8s %s\n", SUBS[i].name, SUBS[i].summary);
    fputs("\n`leakray store <command> --help` describes a command.\n", out);
}

int cmd_store(int argc, char **argv)
{
    if (argc < 2) {
        store_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        store_usage(stdout);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof SUBS / sizeof SUBS[0]; i++)
        if (strcmp(argv[1], SUBS[i].name) == 0)
            return SUBS[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "leakray store: unknown command '%s'; see leakray store --help\n", argv[1]);
    return CLI_EXIT_USAGE;
}
