/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_store.c: `leakray store ingest|leaks|show|trend|diff|prune|export` (cli), the leak
 * store's verbs: options, calls into src/store/store.h, and the results handed to
 * src/report/store.c, which writes every line and key. A dump given to `ingest` is analysed
 * on the way in by running this same program's `analyze --json` in a child process: the
 * analysis then never shares an address space (or a crash) with the database writer, and the
 * stored document is exactly what `analyze --json` prints. The store is `--db URL`, else
 * $LEAKRAY_DB, else $XDG_DATA_HOME/leakray/store.db (~/.local/share/leakray/store.db). */
#define _GNU_SOURCE /* pipe2 */
#include "cli_store.h"

#include "base/mfile.h"
#include "format/fmt.h"
#include "format/nscan.h"
#include "report/store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* Reports larger than this are refused: an analyze document holds every trace, and a million
 * traces stay far below it. */
#define STORE_MAX_REPORT (1ULL << 30)
/* Bytes of an input the dump readers' sniffs see (they read the first line at most). */
#define STORE_SNIFF_BYTES 4096

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

/* Runs `<self> analyze --json --no-timing [extra...] path` under co's resource options
 * (cli_run_self); on success *doc holds its output. Returns 0 ok, or the analysis' exit
 * code with msg filled. */
static int analyze_dump(const cli_common *co, const char *path, const cli_strlist *rules,
                        char **doc, size_t *len, char *msg, size_t cap)
{
    const char *argv[CLI_RUN_ARGS + 1];
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
    if (co->mapping) {
        argv[a++] = "--mapping";
        argv[a++] = co->mapping;
    }
    argv[a++] = "--";
    argv[a++] = path;
    argv[a] = NULL;
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        snprintf(msg, cap, "pipe: %s", strerror(errno));
        return CLI_EXIT_IO;
    }
    pid_t pid = cli_run_self(co, argv, pfd[1], NULL, msg, cap);
    close(pfd[1]);
    if (pid < 0) {
        close(pfd[0]);
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
    else if (code == 127 && !*len)
        snprintf(msg, cap, "%s: cannot run the analysis", path);
    else
        cli_json_error_message(*doc, msg, cap);
    free(*doc);
    *doc = NULL;
    return code ? code : CLI_EXIT_LIMIT;
}

/* A leakray report (analyze --json, a native scan's JSON) is a JSON document; so are V8
 * snapshots, Ruby heap dumps and JSON-lines graphs, which the readers' sniffs recognise on
 * their first bytes: those are dumps, analysed like any other. */
/* A standard input or a pipe read once: its bytes into an unnamed file of the temporary
 * folder (mfile_spool: capped as any piped dump), so that sniffing it and analysing it read
 * the same bytes. The file is named /proc/self/fd/N in out, in this process and in the
 * analysis it starts (which inherits N); nothing is left behind however the process ends.
 * Returns its descriptor (the caller closes it), or -1 with the exit code in *rc and msg set. */
static int spool_input(const char *path, char *out, size_t cap, uint64_t max_inflate, int *rc,
                       char *msg, size_t mcap)
{
    int in = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
    if (in < 0) {
        snprintf(msg, mcap, "%s: %s", path, strerror(errno));
        *rc = CLI_EXIT_IO;
        return -1;
    }
    int fd = -1;
    lr_error err = {.offset = LR_NO_OFFSET};
    lr_status st = mfile_spool(in, path, max_inflate, &fd, &err);
    close(in);
    if (st == LR_OK && fcntl(fd, F_SETFD, 0) != 0) { /* the analysis inherits it */
        err = (lr_error){.offset = LR_NO_OFFSET};
        snprintf(err.msg, sizeof err.msg, "%s: %s", path, strerror(errno));
        close(fd);
        st = LR_ERR_IO;
    }
    if (st != LR_OK) {
        snprintf(msg, mcap, "%s", err.msg);
        *rc = lr_exit_code(st);
        return -1;
    }
    snprintf(out, cap, "/proc/self/fd/%d", fd);
    return fd;
}

/* msg with every "from" replaced by "to" (a spooled input's /proc name by the name given). */
static void msg_rename(char *msg, size_t cap, const char *from, const char *to)
{
    char out[LR_ERROR_MSG_MAX];
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = msg; *p && n + 1 < sizeof out;) {
        if (lf && !strncmp(p, from, lf) && n + lt + 1 < sizeof out) {
            memcpy(out + n, to, lt);
            n += lt;
            p += lf;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = 0;
    snprintf(msg, cap, "%s", out);
}

/* The first bytes of path into head (STORE_SNIFF_BYTES); how many, 0 when unreadable. */
static size_t read_head(const char *path, uint8_t *head)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(head, 1, STORE_SNIFF_BYTES, f);
    fclose(f);
    return n;
}

/* Whether path holds JSON rather than a dump: an object (a report), or any other JSON value
 * no dump format claims (an array, a string, null...: refused as no report, where it was
 * recorded as a failed dump). A byte-order mark is skipped (an editor's save). */
static int looks_like_report(const char *path)
{
    uint8_t head[STORE_SNIFF_BYTES];
    size_t n = read_head(path, head), i = 0;
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF)
        i = 3;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        i++;
    if (i >= n || fmt_find(head, n))
        return 0;
    uint8_t c = head[i];
    return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') ||
           ((c == 'n' || c == 't' || c == 'f') && n - i >= 4 &&
            (!memcmp(head + i, "null", 4) || !memcmp(head + i, "true", 4) ||
             !memcmp(head + i, "fals", 4)));
}

/* Whether path is analyze's text report (the agent writes NAME.txt beside NAME.hprof and
 * NAME.json): neither a dump nor a report the store reads, and no failed dump either. */
static int looks_like_text_report(const char *path)
{
    static const char mark[] = "====================================\nHEAP ANALYSIS RESULT\n";
    uint8_t head[STORE_SNIFF_BYTES];
    size_t n = read_head(path, head);
    return n >= sizeof mark - 1 && !memcmp(head, mark, sizeof mark - 1);
}

/* Whether path is a native scan report (the monitor's .lrn file). */
static int looks_like_scan(const char *path)
{
    uint8_t head[STORE_SNIFF_BYTES];
    return nscan_sniff(head, read_head(path, head));
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
    if (*len >= 3 && !memcmp(*doc, "\xEF\xBB\xBF", 3)) { /* a byte-order mark: no JSON */
        memmove(*doc, *doc + 3, *len - 3);
        *len -= 3;
        (*doc)[*len] = 0;
    }
    return 0;
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
         "when the dump was taken (default: the time an HPROF dump records, else the "
         "input file's modification time)", NULL},
        {"--rules", CLI_OPT_LIST, &rules, "FILE", "extra rules for analysing dumps", NULL},
        {0}};
    const cli_spec spec = {
        "store ingest", "INPUT...",
        "Store dumps (analysed on the way in), analyze --json reports and native scan reports.",
        opts, 1, CLI_MAX_POS,
        "A dump is any file leakray reads (HPROF, .heapsnapshot, ...); a JSON file no\n"
        "dump reader recognises is taken for a report. INPUT may be - (standard input) or a\n"
        "pipe: its bytes are copied to --tmpdir first.\n"
        "The same input with the same --app/--version/--device/--at is stored once.\n"
        "A dump that cannot be analysed is recorded as a failed ingest (exit 3).\n"
        "TIME: YYYY-MM-DD[THH:MM[:SS]] (UTC) or @unix-seconds.\n"};
    cli_common co;
    store *s;
    int64_t at = 0;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, NULL);
    if (rc == CLI_CONTINUE && o.at && !cli_store_parse_time(o.at, &at))
        return cli_usage_error(&co, "--at '%s' is not a time (YYYY-MM-DD[THH:MM[:SS]] "
                               "UTC or @unix-seconds, from 1970 to 9999)", o.at);
    if (rc != CLI_CONTINUE || (rc = cli_store_open(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    jsonw w;
    if (co.json) {
        cli_json_begin(&w);
        rep_store_ingested_begin(&w);
    }
    int worst = CLI_EXIT_OK;
    for (int i = 0; i < co.n_pos; i++) {
        const char *path = co.pos[i];
        store_meta m = {path, o.app, o.version, o.device, at, 0};
        struct stat st;
        char spooled[64] = "";
        int spool_fd = -1;
        if (strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
                                       !S_ISDIR(st.st_mode))) {
            char smsg[LR_ERROR_MSG_MAX];
            int sc = 0;
            spool_fd = spool_input(path, spooled, sizeof spooled, co.max_inflate, &sc, smsg,
                                   sizeof smsg);
            if (spool_fd < 0) {
                fprintf(stderr, "leakray: %s\n", smsg);
                if (sc > worst)
                    worst = sc;
                continue;
            }
            path = spooled; /* the bytes; the report keeps the name given (m.source) */
        }
        if (!o.at && stat(path, &st) == 0)
            m.at_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
        if (looks_like_text_report(path)) {
            fprintf(stderr, "leakray: %s: skipped, a text report (the store reads its .json)\n",
                    co.pos[i]);
            if (spool_fd >= 0)
                close(spool_fd);
            continue;
        }
        char *doc = NULL;
        size_t len = 0;
        char msg[LR_ERROR_MSG_MAX] = "";
        store_ingest_result r = {0};
        lr_error err = {0};
        int code;
        int is_report = looks_like_report(path);
        if (is_report)
            code = read_file(path, &doc, &len, msg, sizeof msg);
        else if ((is_report = looks_like_scan(path)) != 0) /* as `native report --store` */
            code = cli_native_scan_json(path, co.max_inflate, &doc, &len, msg, sizeof msg);
        else
            code = analyze_dump(&co, path, &rules, &doc, &len, msg, sizeof msg);
        if (spool_fd >= 0)
            msg_rename(msg, sizeof msg, spooled, co.pos[i]);
        lr_status ls = LR_OK;
        const char *error = NULL;
        int64_t dumped = code == 0 && !o.at ? cli_store_doc_time(doc, len) : 0;
        if (dumped > 0) { /* the dump's own time: a copy, a re-fetch, its report are one ingest */
            m.also_at_ms = m.at_ms; /* the file's, by which older versions dated it */
            m.at_ms = dumped;
        }
        if (code == 0) {
            /* messages name the input as given ("-"), not the spooled copy's /proc name */
            ls = store_ingest_json(s, spool_fd >= 0 ? co.pos[i] : path, doc, len, &m, &r, &err);
            if (ls == LR_ERR_TRUNCATED && !is_report) {
                /* a dump cut short is a bad dump: recorded as failed, like any other */
                snprintf(msg, sizeof msg, "%s", err.msg);
                ls = store_ingest_failure(s, &m, msg, &r, &err);
                code = ls == LR_OK ? CLI_EXIT_INPUT : lr_exit_code(ls);
                error = ls == LR_OK ? msg : err.msg;
            } else if (ls != LR_OK) {
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
        const char *given = co.pos[i];
        char shown[LR_ERROR_MSG_MAX];
        if (error && spool_fd >= 0) {
            snprintf(shown, sizeof shown, "%s", error);
            msg_rename(shown, sizeof shown, spooled, given);
            error = shown;
        }
        if (co.json)
            rep_store_ingest_json(&w, given, &r, error);
        else if (error && !r.failed && (strstr(error, path) || strstr(error, given)))
            fprintf(stderr, "leakray: %s\n", error); /* refused: nothing was stored */
        else if (error && !r.failed) /* the store's own failure: say which input it lost */
            fprintf(stderr, "leakray: %s: not stored: %s\n", given, error);
        else
            rep_store_ingest_text(stdout, given, &r, error);
        if (spool_fd >= 0)
            close(spool_fd);
    }
    if (co.json) {
        rep_store_ingested_end(&w);
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
    const cli_spec spec = {"store leaks", "", "One row per leak signature over stored reports.",
                           opts, 0, 0,
                           "Columns: occurrences (reports it appears in), dumps (distinct "
                           "analyses), instances\n(leaking objects), retained median and max "
                           "per report.\n"};
    cli_common co;
    store_filter f;
    store *s;
    int rc = cli_store_begin(argc, argv, &spec, &o, &co, &f, &s);
    if (rc != CLI_CONTINUE)
        return rc;
    store_leak *v = NULL;
    size_t n = 0;
    lr_error err = {0};
    if (store_leaks(s, &f, &v, &n, &err) != LR_OK)
        return cli_store_fail(&co, s, &err);
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_store_leaks_json(&w, v, n);
        cli_json_end(&co, &w);
    } else {
        rep_store_leaks_text(stdout, v, n);
    }
    store_leaks_free(v, n);
    store_close(s);
    return CLI_EXIT_OK;
}

/* ---- show ---- */

static int cmd_store_show(int argc, char **argv)
{
    store_opts o = {0};
    const cli_optdef opts[] = {STORE_DB_OPT(&o), {0}};
    const cli_spec spec = {"store show", "SIGNATURE",
                           "One leak: its newest trace and every report it appeared in.",
                           opts, 1, 1, "SIGNATURE may be any unique prefix (4+ hex digits).\n"};
    cli_common co;
    store *s;
    int rc = cli_store_begin(argc, argv, &spec, &o, &co, NULL, &s);
    if (rc != CLI_CONTINUE)
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
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_store_show_json(&w, &d);
        cli_json_end(&co, &w);
    } else {
        rep_store_show_text(stdout, &d, &t);
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
        "store trend", "", "Per day or per version: new, recurring and fixed leaks.", opts, 0,
        0,
        "new: first seen in that bucket; recurring: seen before too; fixed: seen in the "
        "previous\nbucket, not in this one. Versions sort as versions (3.10 after 3.9).\n"};
    cli_common co;
    store_filter f;
    store *s;
    int rc = cli_store_begin(argc, argv, &spec, &o, &co, &f, &s);
    if (rc != CLI_CONTINUE)
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
        rep_store_trend_json(&w, v, n, tb, by);
        cli_json_end(&co, &w);
    } else {
        rep_store_trend_text(stdout, v, n, tb);
    }
    store_buckets_free(v, n);
    store_close(s);
    return CLI_EXIT_OK;
}

/* ---- diff ---- */

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
    const cli_spec spec = {"store diff", "", "Leaks new, fixed, grown or shrunk from V1 to V2.",
                           opts, 0, 0, NULL};
    cli_common co;
    store_filter f;
    store *s;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, &f);
    if (rc == CLI_CONTINUE && (!from || !to))
        return cli_usage_error(&co, "--from V1 and --to V2 are required");
    if (rc != CLI_CONTINUE || (rc = cli_store_open_existing(&co, &o, &s)) != CLI_CONTINUE)
        return rc;
    store_delta *v = NULL;
    size_t n = 0;
    lr_error err = {0};
    size_t untracked = 0;
    if (store_diff(s, &f, from, to, (double)threshold, &v, &n, &untracked, &err) != LR_OK)
        return cli_store_fail(&co, s, &err);
    int any_new = 0;
    for (size_t i = 0; i < n; i++)
        any_new |= v[i].change == STORE_NEW;
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_store_diff_json(&w, from, to, v, n);
        if (untracked)
            jsonw_kv_uint(&w, "untracked_suspects", untracked);
        cli_json_end(&co, &w);
    } else {
        rep_store_diff_text(stdout, from, to, v, n);
    }
    if (untracked && !co.json)
        fprintf(stderr, "leakray: %zu suspect%s not compared: one of the versions stored no "
                "suspects (they are stored for dumps without leaking objects only)\n",
                untracked, untracked == 1 ? "" : "s");
    store_deltas_free(v, n);
    store_close(s);
    return fail_on_new && any_new ? CLI_EXIT_FINDINGS : CLI_EXIT_OK;
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
        {"--keep-dumps", CLI_OPT_INT, &keep_dumps, "N",
         "keep only the newest N reports (ingests: one dump ingested twice is two)", NULL},
        {0}};
    const cli_spec spec = {"store prune", "", "Delete old reports and the leaks only they had.",
                           opts, 0, 0, NULL};
    cli_common co;
    store *s;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, NULL);
    if (rc == CLI_CONTINUE && keep_days < 0 && keep_dumps < 0)
        return cli_usage_error(&co, "give --keep-days N and/or --keep-dumps N");
    if (rc != CLI_CONTINUE || (rc = cli_store_open_existing(&co, &o, &s)) != CLI_CONTINUE)
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
        rep_store_prune_json(&w, rr, rl);
        cli_json_end(&co, &w);
    } else {
        rep_store_prune_text(stdout, rr, rl);
    }
    store_close(s);
    return CLI_EXIT_OK;
}

/* ---- export ---- */

static int cmd_store_export(int argc, char **argv)
{
    store_opts o = {0};
    const cli_optdef opts[] = {STORE_DB_OPT(&o), {0}};
    const cli_spec spec = {"store export", "",
                           "The whole store as one JSON document (reports, leaks, occurrences).",
                           opts, 0, 0, "Always JSON; --json is accepted and changes nothing.\n"};
    cli_common co;
    store *s;
    int rc = cli_store_parse(argc, argv, &spec, NULL, &o, &co, NULL);
    co.json = 1;
    if (rc != CLI_CONTINUE || (rc = cli_store_open_existing(&co, &o, &s)) != CLI_CONTINUE)
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
    rep_store_export_begin(&w, CLI_SCHEMA_VERSION, store_schema_version(s));
    static const char *const tables[] = {"report", "leak", "occurrence"};
    lr_error err = {0};
    lr_status st = LR_OK;
    for (int t = 0; t < 3 && st == LR_OK; t++) {
        rep_store_export x;
        rep_store_export_table(&x, &w, tables[t], store_export_columns(tables[t]));
        st = store_export(s, tables[t], rep_store_export_row, &x, &err);
        rep_store_export_table_end(&x);
    }
    rep_store_export_end(&w);
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
        /* a usage error is one line, as every verb's (the commands: --help) */
        fputs("leakray store: missing command (expected ingest, leaks, show, trend, diff, prune "
              "or export) (see leakray store --help)\n", stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        store_usage(stdout);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof SUBS / sizeof SUBS[0]; i++)
        if (strcmp(argv[1], SUBS[i].name) == 0)
            return SUBS[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "leakray store: unknown command '%s' (see leakray store --help)\n", argv[1]);
    return CLI_EXIT_USAGE;
}
