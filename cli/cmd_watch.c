/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_watch.c: `leakray watch status PID` and `leakray watch analyze DUMP` (cli), the JVM
 * agent's two helpers. `status` reads the file the agent keeps (/tmp/leakray-watch-PID.status,
 * key: value lines) and hands each line to report/status.h (text or JSON). `analyze` is what
 * the agent starts, in its own process, after each dump: it runs `leakray analyze --json
 * --text` on the dump (a child process of this binary: one analysis, both reports), renames
 * NAME.json / NAME.txt into place only when complete, has report/status.h print the one-line
 * summary, and keeps at most --max-dumps dumps (with their reports) in the dump's folder.
 * Docs: docs/agent.md. */
#define _GNU_SOURCE /* O_TMPFILE */
#include "cli.h"

#include "report/status.h"
#include "base/outfile.h"
#include "base/url.h"
#include "store/store.h"
#include "watch/watch_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


#define WATCH_STATUS_FMT "/tmp/leakray-watch-%s.status" /* agents/jvmti/agent.c writes it */

/* ---- status ---- */

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* Whether process pid runs the agent: it has libleakray_agent.so mapped. 1 yes, 0 no (no
 * such process, or one without it: the PID was reused), -1 unknown (its maps are not ours to
 * read). */
static int runs_agent(const char *pid)
{
    char maps[64], line[4096];
    snprintf(maps, sizeof maps, "/proc/%s/maps", pid);
    FILE *m = fopen(maps, "r");
    if (!m) {
        snprintf(maps, sizeof maps, "/proc/%s", pid);
        return access(maps, F_OK) != 0 ? 0 : -1;
    }
    int found = 0;
    while (!found && fgets(line, sizeof line, m))
        found = strstr(line, "libleakray_agent") != NULL;
    fclose(m);
    return found;
}

static int watch_status(cli_common *co, const char *pid)
{
    if (!all_digits(pid))
        return cli_usage_error(co, "PID must be a process id, got '%s'", pid);
    char path[128];
    snprintf(path, sizeof path, WATCH_STATUS_FMT, pid);
    FILE *f = fopen(path, "r");
    /* a JVM that ended without the VM's death event (an OutOfMemoryError exit, a crash,
     * kill -9) leaves its file: the process, or one that reused its PID, says whether it is
     * the agent's; a stale file is removed */
    if (f && runs_agent(pid) == 0) {
        fclose(f);
        f = NULL;
        unlink(path);
    }
    if (!f) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/%s", pid);
        if (access(proc, F_OK) != 0)
            return cli_fail(co, LR_ERR_NOT_FOUND, "no process %s", pid);
        return cli_fail(co, LR_ERR_NOT_FOUND,
                        "process %s is not running the leakray agent (no %s); "
                        "start it with -agentpath or `leakray attach %s`",
                        pid, path, pid);
    }
    jsonw w;
    if (co->json)
        cli_json_begin(&w);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *sep = strstr(line, ": ");
        if (!sep)
            continue;
        *sep = 0;
        const char *v = sep + 2;
        if (co->json)
            rep_status_pair_json(&w, line, v);
        else
            rep_status_pair_text(stdout, line, v);
    }
    fclose(f);
    if (co->json) {
        jsonw_obj_end(&w);
        jsonw_finish(&w);
    }
    return CLI_EXIT_OK;
}

/* ---- analyze ---- */

static int wait_exit(pid_t pid)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 128;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Counts the groups of one top-level array of analyze's JSON ("application_leaks") and sums
 * their retained_bytes. A small scanner over our own output: strings are skipped whole, and
 * only keys directly inside a group object (depth 2 below the array) are read. */
static void scan_groups(const char *js, const char *key, uint64_t *count, uint64_t *bytes)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(js, pat);
    if (!p)
        return;
    p = strchr(p + strlen(pat), '[');
    if (!p)
        return;
    int depth = 0;
    for (; *p; p++) {
        if (*p == '"') {
            const char *s = ++p;
            while (*p && *p != '"')
                p += (*p == '\\' && p[1]) ? 2 : 1;
            if (!*p)
                return;
            if (depth == 2 && (size_t)(p - s) == 14 && memcmp(s, "retained_bytes", 14) == 0) {
                const char *v = p + 1;
                while (*v == ' ' || *v == ':')
                    v++;
                *bytes += strtoull(v, NULL, 10);
            }
        } else if (*p == '[' || *p == '{') {
            depth++;
            if (*p == '{' && depth == 2)
                (*count)++;
        } else if (*p == ']' || *p == '}') {
            if (--depth == 0)
                return;
        }
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b)
        b[n] = 0;
    return b;
}

/* Records the report in the leak store (store.h); a failure is reported, not fatal: the
 * report is on disk either way. */
static void to_store(const char *url, const char *dump, const char *json_path, int quiet,
                     const store_meta *who)
{
    char buf[PATH_MAX + 16];
    if (strcmp(url, "default") == 0)
        url = cli_store_default(buf, sizeof buf);
    char *text = slurp(json_path);
    store *s = NULL;
    lr_error err = {0};
    struct stat sb;
    store_meta m = {dump, who->app, who->version, who->device, 0, 0};
    if (stat(dump, &sb) == 0)
        m.at_ms = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
    /* dated as `store ingest` dates the dump (its header's time): a collector ingesting the
     * agent's folder again finds it stored */
    int64_t dumped = text ? cli_store_doc_time(text, strlen(text)) : 0;
    if (dumped > 0) {
        m.also_at_ms = m.at_ms;
        m.at_ms = dumped;
    }
    store_ingest_result r;
    char shown[512]; /* the store as messages name it: no password */
    url_hide_password(url, shown, sizeof shown);
    const char *why = cli_store_no_file(url);
    if (why)
        snprintf(err.msg, sizeof err.msg, "'%.200s' %s", url, why);
    else if (!text)
        snprintf(err.msg, sizeof err.msg, "%.400s: cannot read the report", json_path);
    else if (store_open(url, &s, &err) == LR_OK &&
             store_ingest_json(s, json_path, text, strlen(text), &m, &r, &err) == LR_OK) {
        rep_stored sr = {.url = shown, .report_id = (long long)r.report_id, .n_new = r.n_new};
        if (!quiet)
            rep_status_stored_text(stderr, &sr);
    }
    if (err.msg[0])
        fprintf(stderr, "leakray: storing the report in %s: %s\n", shown, err.msg);
    store_close(s);
    free(text);
}

static int watch_analyze(cli_common *co, const char *dump, uint64_t max_dumps,
                         uint64_t pause_ms, uint64_t retained, int quiet, const char *store_url,
                         const store_meta *who)
{
    size_t l = strlen(dump);
    if (l < 7 || strcmp(dump + l - 6, ".hprof") != 0)
        return cli_usage_error(co, "DUMP must end in .hprof, got '%s'", dump);
    char base[PATH_MAX], jpart[PATH_MAX + 16], tpart[PATH_MAX + 16], jfin[PATH_MAX + 16],
        tfin[PATH_MAX + 16], dir[PATH_MAX];
    snprintf(base, sizeof base, "%.*s", (int)(l - 6), dump);
    snprintf(jpart, sizeof jpart, "%s.json.part", base);
    snprintf(tpart, sizeof tpart, "%s.txt.part", base);
    snprintf(jfin, sizeof jfin, "%s.json", base);
    snprintf(tfin, sizeof tfin, "%s.txt", base);
    snprintf(dir, sizeof dir, "%s", dump);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    struct stat sb;
    if (stat(dump, &sb) != 0)
        return cli_fail(co, LR_ERR_IO, "%s: %s", dump, strerror(errno));

    double t0 = cli_now_ms();
    char a0[] = "leakray", an[] = "analyze", js[] = "--json", np[] = "--no-progress",
         nt[] = "--no-timing", tx[] = "--text";
    /* one analysis writes both reports (two processes, side by side, each loaded the dump
     * and built its trees: twice the memory and the CPU on the watched program's host);
     * --no-timing reaches the reports too: then no clock reading is written anywhere */
    char mp[] = "--mapping";
    const char *jargs[12] = {a0, an, dump, js, np, tx, tpart};
    int na = 7;
    if (co->no_timing)
        jargs[na++] = nt;
    if (co->mapping) {
        jargs[na++] = mp;
        jargs[na++] = co->mapping;
    }
    jargs[na] = NULL;
    /* The JSON report is written into an unnamed file of the dump's folder (read back for a
     * failed analysis' message), named once complete: a kill -9 of this process leaves
     * nothing. A signal that ends it ends the analysis too (cli_run_self), and the guards
     * take the partial reports with them. */
    int jfd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
    outfile_guard(jpart);
    outfile_guard(tpart);
    /* NAME.json.part names the dump as being analysed from the start, and by whom
     * (watch_prune_dumps keeps it while this process lives): written only at the end, a
     * slow analysis lost its dump to the next one's pruning, and its leaks went unreported */
    if (jfd >= 0) {
        FILE *mark = fopen(jpart, "we");
        if (mark) {
            char m[160];
            watch_analysis_mark(m, sizeof m);
            fputs(m, mark);
            fclose(mark);
        }
    }
    char msg[256];
    pid_t pj = cli_run_self(co, jargs, jfd, jfd >= 0 ? NULL : jpart, msg, sizeof msg);
    int rj = pj > 0 ? wait_exit(pj) : 127;
    double ms = cli_now_ms() - t0;
    int named = rj == 0;
    if (named && jfd >= 0) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", jfd);
        unlink(jpart); /* a crashed run's */
        named = linkat(AT_FDCWD, proc, AT_FDCWD, jpart, AT_SYMLINK_FOLLOW) == 0;
    }
    int renamed = named && rename(jpart, jfin) == 0 && rename(tpart, tfin) == 0;
    int e = errno;
    char why_msg[512] = "";
    if (rj != 0 && pj > 0) { /* under --json the analysis said why on its stdout: the report */
        char doc[8192];
        int fd = jfd >= 0 ? jfd : open(jpart, O_RDONLY | O_CLOEXEC);
        ssize_t k = fd >= 0 ? pread(fd, doc, sizeof doc - 1, 0) : -1;
        if (k > 0) {
            doc[k] = 0;
            cli_json_error_message(doc, why_msg, sizeof why_msg);
        }
        if (fd >= 0 && fd != jfd)
            close(fd);
    }
    if (jfd >= 0)
        close(jfd);
    if (!renamed) {
        unlink(jpart);
        unlink(tpart);
    }
    outfile_unguard(jpart);
    outfile_unguard(tpart);
    if (rj != 0) {
        /* the analysis' own message is on stderr above; its exit code is this one's (a
         * --max-memory the user gave is a limit, exit 5, not a fault of leakray's) */
        lr_status why = rj == CLI_EXIT_USAGE   ? LR_ERR_USAGE
                        : rj == CLI_EXIT_INPUT ? LR_ERR_FORMAT
                        : rj == CLI_EXIT_IO    ? LR_ERR_IO
                        : rj == CLI_EXIT_LIMIT ? LR_ERR_LIMIT
                                               : LR_ERR_INTERNAL;
        return cli_fail(co, why, "analysing %s failed (leakray analyze exit %d%s%s)", dump, rj,
                        pj < 0 || why_msg[0] ? ": " : "", pj < 0 ? msg : why_msg);
    }
    if (!renamed)
        return cli_fail(co, LR_ERR_IO, "writing the report of %s: %s", dump, strerror(e));
    uint64_t n_app = 0, n_lib = 0, bytes = 0, held = 0;
    char *text = slurp(jfin);
    if (text) {
        scan_groups(text, "application_leaks", &n_app, &bytes);
        scan_groups(text, "library_leaks", &n_lib, &bytes);
        for (const char *p = text; (p = strstr(p, "\"held_by_ignored_references\": true"));
             p++)
            held++;
        free(text);
    }
    if (store_url)
        to_store(store_url, dump, jfin, quiet, who);
    unsigned pruned =
        watch_prune_dumps(dir, max_dumps > UINT_MAX ? UINT_MAX : (unsigned)max_dumps, dump);
    rep_watch_report r = {.dump = dump,
                          .dump_bytes = (uint64_t)sb.st_size,
                          .report_text = tfin,
                          .report_json = jfin,
                          .retained_objects = retained,
                          .application_leaks = n_app,
                          .library_leaks = n_lib,
                          .retained_bytes = bytes,
                          .held_ignored = held,
                          .pruned_dumps = pruned,
                          .pause_ms = pause_ms,
                          .analysis_ms = ms,
                          .no_timing = co->no_timing};
    if (co->json) {
        jsonw w;
        cli_json_begin(&w);
        rep_status_watch_json(&w, &r);
        cli_json_end_phase(co, &w, "analysis_ms", ms);
    }
    if (!quiet) /* the summary line, on stderr: the agent forwards it to the JVM's */
        rep_status_watch_text(stderr, &r);
    return CLI_EXIT_OK;
}

static int watch_status_cmd(int argc, char **argv)
{
    const cli_spec spec = {
        "watch status", "PID",
        "Retained count, state and next action of a JVM running the agent.", NULL, 1, 1,
        "Reads /tmp/leakray-watch-PID.status, kept by libleakray_agent.so (docs/agent.md;\n"
        "load it with -agentpath or `leakray attach`).\n"
        "Example: leakray watch status 4242"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    return watch_status(&co, co.pos[0]);
}

static int watch_analyze_cmd(int argc, char **argv)
{
    uint64_t max_dumps = 7, pause_ms = 0, retained = 0;
    int quiet = 0;
    const char *store_url = NULL;
    store_meta who = {0};
    const cli_optdef opts[] = {
        {"--store", CLI_OPT_STR, &store_url, "URL",
         "also record the report in the leak store (\"default\": leakray store's)", NULL},
        {"--app", CLI_OPT_STR, &who.app, "NAME", "with --store: the app (store ingest's)", NULL},
        {"--version", CLI_OPT_STR, &who.version, "V", "with --store: its version", NULL},
        {"--device", CLI_OPT_STR, &who.device, "D", "with --store: the device or host", NULL},
        {"--max-dumps", CLI_OPT_UINT, &max_dumps, "N",
         "dumps kept in the dump's folder, oldest deleted first (default 7)", NULL},
        {"--pause-ms", CLI_OPT_UINT, &pause_ms, "MS", "the dump's pause, reported", NULL},
        {"--retained", CLI_OPT_UINT, &retained, "N", "retained objects, reported", NULL},
        {"--quiet", CLI_OPT_FLAG, &quiet, NULL, "no summary line on stderr", NULL},
        {0}};
    const cli_spec spec = {
        "watch analyze", "DUMP",
        "What the agent runs after a dump: the report beside it, the summary line.", opts, 1, 1,
        "Writes DUMP's report as NAME.txt and NAME.json beside it (leakray analyze --json\n"
        "--text: one analysis), prints `leakray: 3 leaks, 1.3 MB retained, report at\n"
        "NAME.txt` on stderr, and keeps at most --max-dumps leakray-*.hprof dumps there.\n"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (max_dumps < 1)
        return cli_usage_error(&co, "--max-dumps must be at least 1");
    return watch_analyze(&co, co.pos[0], max_dumps, pause_ms, retained, quiet, store_url, &who);
}

static void watch_usage(FILE *out)
{
    fputs("usage: leakray watch <command> [options]\n"
          "The JVM agent's helpers (docs/agent.md).\n"
          "\ncommands:\n"
          "  status   retained count, state and next action of a JVM running the agent\n"
          "  analyze  what the agent runs after a dump: report beside it, summary line\n"
          "\n`leakray watch <command> --help` describes a command.\n",
          out);
}

int cmd_watch(int argc, char **argv)
{
    if (argc < 2) {
        /* a usage error is one line, as every verb's (the commands: --help) */
        fputs("leakray watch: missing command (expected status or analyze) "
              "(see leakray watch --help)\n", stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        watch_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "status") == 0)
        return watch_status_cmd(argc - 1, argv + 1);
    if (strcmp(argv[1], "analyze") == 0)
        return watch_analyze_cmd(argc - 1, argv + 1);
    fprintf(stderr, "leakray watch: unknown command '%s' (see leakray watch --help)\n", argv[1]);
    return CLI_EXIT_USAGE;
}
