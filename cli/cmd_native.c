/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_native.c: `leakray native run|check|report` (cli), the front end of the native malloc
 * monitor libleakray_native.so (agents/native/). `run` starts a program with the monitor
 * preloaded and configured through LEAKRAY_NATIVE_* variables, waits for it and renders its
 * at-exit scan; `check PID` asks a running monitored process for a scan over its abstract
 * socket (or sends it the scan signal with --signal) and renders the result; `report FILE`
 * renders a saved scan. Each parses the scan file and symbolises its frames (nscan_parse,
 * nscan_symbolize: src/format/nscan.c), then hands it to the report layer (src/report/
 * native.c: text like LeakSanitizer's, or --json per docs/json.md). */
#include "base/url.h"
#include "cli.h"
#include "format/nscan.h"
#include "report/native.h"
#include "report/status.h"
#include "store/store.h"

#include <dirent.h>
#include <elf.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define NATIVE_LIB "libleakray_native.so"
#define NATIVE_MAX_ARGS 256 /* program arguments `run` passes on */

/* The scan's --json document: the envelope (schema_version) around the report layer's keys.
 * The store ingests this same document (with timings). */
static void native_json(FILE *out, const nscan_report *r, int exit_code, int no_timing)
{
    jsonw w;
    jsonw_init(&w, out, 1);
    jsonw_obj_begin(&w);
    jsonw_kv_int(&w, "schema_version", CLI_SCHEMA_VERSION);
    rep_native_json(&w, r, exit_code, no_timing);
    jsonw_obj_end(&w);
    jsonw_finish(&w);
}

int cli_native_scan_json(const char *path, uint64_t max_inflate, char **doc, size_t *len,
                         char *msg, size_t cap)
{
    lr_error err = {0};
    mfile m;
    nscan_report r;
    *doc = NULL;
    *len = 0;
    if (mfile_open(&m, path, max_inflate, &err) != LR_OK) {
        snprintf(msg, cap, "%s", err.msg);
        return lr_exit_code(err.code);
    }
    lr_status s = nscan_parse(&m, path, &r, &err);
    mfile_close(&m);
    if (s != LR_OK) {
        snprintf(msg, cap, "%s", err.msg);
        return lr_exit_code(s);
    }
    nscan_symbolize(&r);
    FILE *f = open_memstream(doc, len);
    if (f)
        native_json(f, &r, -1, 0);
    nscan_free(&r);
    if (!f || fclose(f) != 0) {
        free(*doc);
        *doc = NULL;
        snprintf(msg, cap, "%s: out of memory rendering the scan", path);
        return CLI_EXIT_LIMIT;
    }
    return CLI_EXIT_OK;
}

/* Where and how a rendered scan also goes into the leak store (docs/store.md). */
typedef struct native_store {
    const char *url;     /* NULL: no store; "default": $LEAKRAY_DB or the per-user store */
    const char *app;     /* --app (NULL: the program's file name) */
    const char *version; /* --version */
    int quiet;           /* no "stored" line on stderr */
} native_store;

/* Ingests the scan as its --json form (what `store ingest` takes from a file). The report
 * file's modification time is when the scan was taken, so ingesting one file twice is one
 * report, and two scans of one process are two reports of the same leaks. A failure is
 * reported and returned; the rendering on stdout has happened either way. */
static int to_store(const cli_common *co, const native_store *ns, const char *path,
                    const nscan_report *r, int exit_code)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return cli_fail(co, LR_ERR_NOMEM, "out of memory rendering %s for the store", path);
    native_json(f, r, exit_code, 0);
    if (fclose(f) != 0) {
        free(text);
        return cli_fail(co, LR_ERR_NOMEM, "out of memory rendering %s for the store", path);
    }
    char buf[4096];
    const char *url = strcmp(ns->url, "default") == 0 ? cli_store_default(buf, sizeof buf)
                                                      : ns->url;
    const char *app = ns->app;
    if (!app && r->exe) {
        const char *slash = strrchr(r->exe, '/');
        app = slash ? slash + 1 : r->exe;
    }
    store_meta m = {path, app, ns->version, NULL, 0, 0};
    struct stat sb;
    if (stat(path, &sb) == 0)
        m.at_ms = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
    lr_error err = {0};
    store *s = NULL;
    store_ingest_result res = {0};
    const char *why = cli_store_no_file(url);
    lr_status st = why ? LR_FAIL(&err, LR_ERR_USAGE, "'%s' %s", url, why)
                       : store_open(url, &s, &err);
    if (st == LR_OK)
        st = store_ingest_json(s, path, text, len, &m, &res, &err);
    store_close(s);
    free(text);
    char shown[512]; /* the store as messages name it: no password */
    url_hide_password(url, shown, sizeof shown);
    if (st != LR_OK) {
        fprintf(stderr, "leakray: storing %s in %s: %s\n", path, shown, err.msg);
        return lr_exit_code(st);
    }
    rep_stored sr = {1, path, shown, (long long)res.report_id, res.n_leaks, res.n_new,
                     res.duplicate};
    if (!ns->quiet)
        rep_status_stored_text(stderr, &sr);
    return CLI_EXIT_OK;
}

/* Loads, symbolises and renders one report (and stores it when ns names a store); -1 for
 * exit_code means "not a run". */
static int render_file(const cli_common *co, const char *path, int exit_code, int killed,
                       int fail_on_leak, const native_store *ns)
{
    lr_error err = {0};
    mfile m;
    if (mfile_open(&m, path, co->max_inflate, &err) != LR_OK)
        return cli_error(co, &err);
    nscan_report r;
    lr_status s = nscan_parse(&m, path, &r, &err);
    mfile_close(&m);
    if (s != LR_OK)
        return cli_error(co, &err);
    nscan_symbolize(&r);
    if (co->json)
        native_json(stdout, &r, exit_code, co->no_timing);
    else
        rep_native_text(stdout, &r, exit_code, co->no_timing);
    int rc = CLI_EXIT_OK;
    if (ns && ns->url) {
        fflush(stdout);
        rc = to_store(co, ns, path, &r, exit_code);
    }
    int leaked = r.n_groups > 0 || r.n_threads_leaked > 0;
    /* A program killed before its at-exit scan (a crash) leaves an earlier scan: shown, but
     * the run did not end as one that was watched to its end, and a script must see that. */
    int stale = killed && !(r.reason && !strcmp(r.reason, "exit"));
    if (stale)
        fprintf(stderr, "leakray: %s: the program was killed by signal %d before its at-exit "
                "scan; the report above is its last scan before that (%s)\n", path,
                exit_code - 128, r.reason ? r.reason : "unknown");
    nscan_free(&r);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (stale)
        return CLI_EXIT_IO;
    return fail_on_leak && leaked ? CLI_EXIT_FINDINGS : CLI_EXIT_OK;
}

#define NATIVE_STORE_OPTS(ns)                                                                   \
    {"--store", CLI_OPT_STR, &(ns)->url, "URL",                                                \
     "also record the scan in the leak store: a SQLite file, postgres://..., or 'default'",    \
     NULL},                                                                                     \
        {"--app", CLI_OPT_STR, &(ns)->app, "NAME",                                             \
         "application name in the store (default: the program's file name)", NULL},            \
        {"--version", CLI_OPT_STR, &(ns)->version, "V", "application version in the store",    \
         NULL},                                                                                 \
        {"--quiet", CLI_OPT_FLAG, &(ns)->quiet, NULL, "no line on stderr once stored", NULL}

/* ---- native report ---- */

static int native_report(int argc, char **argv)
{
    int fail = 0;
    native_store ns = {0};
    const cli_optdef opts[] = {
        {"--fail-on-leak", CLI_OPT_FLAG, &fail, NULL, "exit 1 when the scan found leaks", NULL},
        NATIVE_STORE_OPTS(&ns),
        {0}};
    const cli_spec spec = {"native report", "FILE",
                           "Render a saved native leak scan (and record it in the leak store).",
                           opts, 1, 1, NULL};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    return render_file(&co, co.pos[0], -1, 0, fail, &ns);
}

/* ---- native run ---- */

/* The monitor library: $LEAKRAY_NATIVE_LIB, else beside the leakray binary (build tree),
 * else in the configured install libdir's leakray/ folder, else ../lib/leakray/ relative to
 * the binary (a moved install). */
static int find_lib(char *out, size_t n)
{
    const char *env = getenv("LEAKRAY_NATIVE_LIB");
    if (env && access(env, R_OK) == 0) {
        snprintf(out, n, "%s", env);
        return 1;
    }
    char exe[2048];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return 0;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = 0;
    snprintf(out, n, "%s/%s", exe, NATIVE_LIB);
    if (access(out, R_OK) == 0)
        return 1;
#ifdef LEAKRAY_NATIVE_LIBDIR
    snprintf(out, n, "%s/%s", LEAKRAY_NATIVE_LIBDIR, NATIVE_LIB);
    if (access(out, R_OK) == 0)
        return 1;
#endif
    snprintf(out, n, "%s/../lib/leakray/%s", exe, NATIVE_LIB);
    return access(out, R_OK) == 0;
}

static void set_env_u64(const char *name, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    setenv(name, buf, 1);
}

/* The highest-numbered report of pid in dir (the at-exit scan is the last one). */
/* The monitor's mark beside a scan its store did not take (agents/native/nm.h) */
#define NOSTORE_SUFFIX ".nostore"
#define FORKED_SUFFIX ".forked" /* a forked child's mark beside its reports (nm.h) */

/* Whether the monitor left that mark in dir for any of its scans. */
static int store_failed(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    size_t sl = strlen(NOSTORE_SUFFIX);
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        size_t el = strlen(e->d_name);
        found = el > sl && strcmp(e->d_name + el - sl, NOSTORE_SUFFIX) == 0;
    }
    closedir(d);
    return found;
}

static int last_report(const char *dir, long pid, char *out, size_t n)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "scan.%ld.", pid);
    long best = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t pl = strlen(prefix), el = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, pl) || el < pl + 5 || strcmp(e->d_name + el - 4, ".lrn"))
            continue;
        long k = strtol(e->d_name + pl, NULL, 10);
        if (k > best) {
            best = k;
            snprintf(out, n, "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    return best >= 0;
}

/* The processes other than pid whose scan reports dir holds (a --children run's exec'd and
 * forked children), in increasing pid order: at most max. */
static int other_pids(const char *dir, long pid, long *out, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, "scan.", 5))
            continue;
        long p = strtol(e->d_name + 5, &end, 10);
        size_t el = strlen(e->d_name);
        if (p <= 0 || p == pid || *end != '.' || el < 4 || strcmp(e->d_name + el - 4, ".lrn"))
            continue;
        int i = 0;
        while (i < n && out[i] != p)
            i++;
        if (i < n || n == max)
            continue;
        i = n++;
        while (i > 0 && out[i - 1] > p) { /* insertion: a few children */
            out[i] = out[i - 1];
            i--;
        }
        out[i] = p;
    }
    closedir(d);
    return n;
}

static int pid_cmp(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The forked children whose mark (agents/native/nm.h: NM_FORKED_SUFFIX) dir holds but no
 * report: they ended with _exit() or by a signal. Returns how many, the lowest pids in out
 * (at most max); -1 when out of memory. */
static long unscanned_forks(const char *dir, long *out, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    long *marks = NULL, *scans = NULL;
    size_t n_marks = 0, n_scans = 0, cap_marks = 0, cap_scans = 0;
    int oom = 0;
    struct dirent *e;
    while (!oom && (e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, "scan.", 5))
            continue;
        long p = strtol(e->d_name + 5, &end, 10);
        size_t el = strlen(e->d_name), sl = strlen(FORKED_SUFFIX);
        int mark = el > sl && !strcmp(e->d_name + el - sl, FORKED_SUFFIX);
        if (p <= 0 || *end != '.' ||
            (!mark && (el < 4 || strcmp(e->d_name + el - 4, ".lrn"))))
            continue;
        long **arr = mark ? &marks : &scans;
        size_t *n = mark ? &n_marks : &n_scans, *cap = mark ? &cap_marks : &cap_scans;
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 64;
            long *grown = realloc(*arr, nc * sizeof **arr);
            if (!grown) {
                oom = 1;
                break;
            }
            *arr = grown;
            *cap = nc;
        }
        (*arr)[(*n)++] = p;
    }
    closedir(d);
    long count = 0;
    if (!oom && n_marks) {
        qsort(marks, n_marks, sizeof *marks, pid_cmp);
        if (n_scans)
            qsort(scans, n_scans, sizeof *scans, pid_cmp);
        for (size_t i = 0, k = 0; i < n_marks; i++) {
            while (k < n_scans && scans[k] < marks[i])
                k++;
            if (k < n_scans && scans[k] == marks[i])
                continue;
            if (count < max)
                out[count] = marks[i];
            count++;
        }
    }
    free(marks);
    free(scans);
    return oom ? -1 : count;
}

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return -1;
    /* 0600 as the monitor's own reports: a report quotes the first bytes of every leaked
     * block, and a graph every block's pointers. An existing file keeps its mode, as cp's. */
    int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FILE *out = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!out) {
        if (fd >= 0)
            close(fd);
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t k;
    int rc = 0;
    while ((k = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, k, out) != k)
            rc = -1;
    fclose(in);
    if (fclose(out) != 0)
        rc = -1;
    return rc;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[4200];
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') {
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(dir);
}

static volatile pid_t native_child;

static void native_forward(int sig)
{
    if (native_child > 0)
        kill(native_child, sig);
}

/* Whether prog (a path, or a name looked up in $PATH as execvp does) is an ELF executable
 * without a program interpreter: a static one, which LD_PRELOAD never reaches. 0 when it is
 * no ELF file (a script) or cannot be read. */
static int static_executable(const char *prog)
{
    char path[PATH_MAX];
    const char *p = prog;
    if (!strchr(prog, '/')) {
        const char *env = getenv("PATH");
        p = NULL;
        for (const char *d = env ? env : ""; d && *d && !p;) {
            const char *e = strchr(d, ':');
            size_t n = e ? (size_t)(e - d) : strlen(d);
            if (n + strlen(prog) + 2 <= sizeof path) {
                snprintf(path, sizeof path, "%.*s/%s", (int)n, d, prog);
                if (access(path, X_OK) == 0)
                    p = path;
            }
            d = e ? e + 1 : NULL;
        }
        if (!p)
            return 0;
    }
    FILE *f = fopen(p, "rb");
    if (!f)
        return 0;
    Elf64_Ehdr eh;
    int st = 0;
    if (fread(&eh, sizeof eh, 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) &&
        eh.e_phnum > 0 && eh.e_phnum < 4096 && fseek(f, (long)eh.e_phoff, SEEK_SET) == 0) {
        st = 1;
        Elf64_Phdr ph;
        for (int i = 0; i < eh.e_phnum && st; i++) {
            if (fread(&ph, sizeof ph, 1, f) != 1)
                st = 0; /* cut short: say nothing */
            else if (ph.p_type == PT_INTERP)
                st = 0;
        }
    }
    fclose(f);
    return st;
}

static int native_run(int argc, char **argv)
{
    int dash = 0;
    for (int i = 1; i < argc && !dash; i++)
        if (strcmp(argv[i], "--") == 0)
            dash = i;
    const char *bt = "fp", *out = NULL, *keep = NULL;
    uint64_t depth = 16, sample = 0, interval = 0, signo = SIGUSR2, thread_age = 0;
    int children = 0, graph = 0, fail = 0, small_pages = 0, no_zero = 0;
    native_store ns = {0};
    const cli_optdef opts[] = {
        {"--backtrace", CLI_OPT_STR, &bt, "MODE", "allocation backtraces (default fp)",
         "fp|libunwind|none"},
        {"--depth", CLI_OPT_UINT, &depth, "N", "frames per backtrace, 1..64 (default 16)", NULL},
        {"--sample", CLI_OPT_SIZE, &sample, "BYTES",
         "backtrace one block per BYTES allocated on a thread (default 0: every block)", NULL},
        {"--interval", CLI_OPT_UINT, &interval, "S", "also scan every S seconds", NULL},
        {"--signal", CLI_OPT_UINT, &signo, "SIG", "scan on this signal (default SIGUSR2; 0 off)",
         NULL},
        {"--thread-age", CLI_OPT_UINT, &thread_age, "MS",
         "report threads running longer than MS (default 0: off)", NULL},
        {"--children", CLI_OPT_FLAG, &children, NULL,
         "monitor exec'd and forked children too, and show each one's report", NULL},
        {"--graph", CLI_OPT_FLAG, &graph, NULL,
         "write every block and pointer (the report then loads as a heap graph)", NULL},
        {"--keep", CLI_OPT_STR, &keep, "DIR", "write every scan into DIR and keep them", NULL},
        {"--no-huge-pages", CLI_OPT_FLAG, &small_pages, NULL,
         "leave glibc's heap on 4 KiB pages (a scan's pause then grows with the heap)", NULL},
        {"--no-zero", CLI_OPT_FLAG, &no_zero, NULL,
         "hand out blocks unzeroed (faster; stale pointers in them can hide leaks)", NULL},
        {"--fail-on-leak", CLI_OPT_FLAG, &fail, NULL, "exit 1 when the scan found leaks", NULL},
        CLI_OPTS_OUTPUT(&out, "also save the at-exit scan report to OUT"),
        NATIVE_STORE_OPTS(&ns),
        {0}};
    const cli_spec spec = {
        "native run", "-- PROGRAM [ARGS...]",
        "Run PROGRAM with the native malloc monitor and report its leaks at exit.", opts, 0, 0,
        "The program's own output is passed through; the report follows it on stdout.\n"
        "While it runs, `leakray native check PID` asks for a scan.\n"
        "With --store every scan of the program (signal, timer, check, exit) is recorded.\n"
        "Exit status: 1 under --fail-on-leak when the scan found leaks; else the program's\n"
        "own when it was not 0 (as under valgrind; 128 + N when signal N ended it, after\n"
        "a last scan for SIGINT, SIGTERM, SIGHUP); 4 when the program was killed before\n"
        "any last scan (its last earlier scan is printed).\n"};
    cli_common co;
    int rc = cli_parse(dash ? dash : argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (!dash || dash + 1 >= argc)
        return cli_usage_error(&co, "missing -- PROGRAM");
    if (depth < 1 || depth > 64)
        return cli_usage_error(&co, "--depth must be 1..64");
    /* a signal no handler can take (SIGKILL, SIGSTOP), or none at all, would end or stop the
     * program at the first `check --signal` */
    if (signo && (signo >= NSIG || signo == SIGKILL || signo == SIGSTOP))
        return cli_usage_error(&co, "--signal must be a signal a handler can take, 1 to %d "
                               "but SIGKILL (9) and SIGSTOP (19); 0 turns it off", NSIG - 1);
    if (static_executable(argv[dash + 1]))
        return cli_usage_error(&co, "%s is a static executable: the monitor is a preloaded "
                               "library, and a static program loads none (link it "
                               "dynamically)", argv[dash + 1]);
    char lib[4096];
    if (!find_lib(lib, sizeof lib))
        return cli_fail(&co, LR_ERR_IO, "cannot find %s (set LEAKRAY_NATIVE_LIB)", NATIVE_LIB);
    char dir[4096];
    if (keep) {
        mkdir(keep, 0700); /* reports quote the leaked blocks' first bytes */
        snprintf(dir, sizeof dir, "%s", keep);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/leakray-native.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir))
            return cli_fail(&co, LR_ERR_IO, "cannot create a directory in %s: %s",
                            tmp && *tmp ? tmp : "/tmp", strerror(errno));
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return cli_fail(&co, LR_ERR_IO, "fork: %s", strerror(errno));
    if (pid == 0) {
        const char *pre = getenv("LD_PRELOAD");
        char preload[8192];
        snprintf(preload, sizeof preload, "%s%s%s", lib, pre && *pre ? ":" : "",
                 pre ? pre : "");
        setenv("LD_PRELOAD", preload, 1);
        char tmpl[4200];
        snprintf(tmpl, sizeof tmpl, "%s/scan.%%p.%%n.lrn", dir);
        setenv("LEAKRAY_NATIVE_OUT", tmpl, 1);
        setenv("LEAKRAY_NATIVE_BACKTRACE", bt, 1);
        set_env_u64("LEAKRAY_NATIVE_DEPTH", depth);
        set_env_u64("LEAKRAY_NATIVE_SAMPLE", sample);
        set_env_u64("LEAKRAY_NATIVE_INTERVAL", interval);
        set_env_u64("LEAKRAY_NATIVE_SIGNAL", signo);
        set_env_u64("LEAKRAY_NATIVE_THREAD_AGE_MS", thread_age);
        set_env_u64("LEAKRAY_NATIVE_CHILDREN", (uint64_t)children);
        set_env_u64("LEAKRAY_NATIVE_FORK_MARKS", (uint64_t)children);
        set_env_u64("LEAKRAY_NATIVE_GRAPH", (uint64_t)graph);
        if (no_zero)
            set_env_u64("LEAKRAY_NATIVE_ZERO", 0);
        if (small_pages) /* the library would otherwise advise huge pages before a scan */
            set_env_u64("LEAKRAY_NATIVE_HUGE_PAGES", 0);
        /* fork copies the page tables while the threads are stopped: ~8 bytes per 4 KiB
         * page, 300 ms per GiB of heap on a loaded machine. glibc's transparent huge pages
         * for its heap make that one entry per 2 MiB. A tunable the user set stays. */
        const char *tun = getenv("GLIBC_TUNABLES");
        if (!small_pages && !(tun && strstr(tun, "glibc.malloc.hugetlb"))) {
            char t[4096];
            snprintf(t, sizeof t, "%s%sglibc.malloc.hugetlb=1", tun && *tun ? tun : "",
                     tun && *tun ? ":" : "");
            setenv("GLIBC_TUNABLES", t, 1);
        }
        if (ns.url) {
            /* The monitor records each scan itself, through this very leakray. */
            char self[4096];
            ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
            if (sl > 0) {
                self[sl] = 0;
                setenv("LEAKRAY_NATIVE_LEAKRAY", self, 1);
            }
            setenv("LEAKRAY_NATIVE_REPORT", "db", 1);
            /* a relative SQLite path names a file where it was typed: the program may
             * chdir before its scans, and they went into a store of its new folder */
            char abs[PATH_MAX + 16];
            const char *url = ns.url;
            if (strcmp(url, "default") != 0 && !store_url_is_pg(url) && url[0] != '/' &&
                getcwd(abs, PATH_MAX)) {
                size_t al = strlen(abs);
                snprintf(abs + al, sizeof abs - al, "/%s", url);
                url = abs;
            }
            setenv("LEAKRAY_NATIVE_STORE", url, 1);
            if (ns.app)
                setenv("LEAKRAY_NATIVE_APP", ns.app, 1);
            if (ns.version)
                setenv("LEAKRAY_NATIVE_VERSION", ns.version, 1);
        }
        /* --json prints one document on stdout (with -o too: -o keeps the scan): the
         * program's own output goes to stderr */
        if (co.json && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            _exit(127);
        if (cli_xfsz_default) /* the program's own, not this process's */
            signal(SIGXFSZ, SIG_DFL);
        execvp(argv[dash + 1], argv + dash + 1);
        fprintf(stderr, "leakray: cannot run %s: %s\n", argv[dash + 1], strerror(errno));
        _exit(127);
    }
    /* Ctrl-C reaches the program too (one process group): this process stays to print the
     * report of the program's last scan; a SIGTERM or SIGHUP sent to it alone goes on to the
     * program, which scans and ends (docs/native.md). */
    struct sigaction ign, fwd, old_int, old_quit, old_term, old_hup;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    memset(&fwd, 0, sizeof fwd);
    fwd.sa_handler = native_forward;
    fwd.sa_flags = SA_RESTART;
    native_child = pid;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    sigaction(SIGTERM, &fwd, &old_term);
    sigaction(SIGHUP, &fwd, &old_hup);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    char report[4400];
    /* --children: each process that ran the monitor left its own reports (a wrapper script
     * that forks the program, a server's forked workers): all are shown, the top process's
     * first; in JSON, one document: the top process's, else its first child's. */
    enum { MAX_CHILD_REPORTS = 256 };
    long kids[MAX_CHILD_REPORTS];
    int n_kids = children ? other_pids(dir, (long)pid, kids, MAX_CHILD_REPORTS) : 0;
    int top = last_report(dir, (long)pid, report, sizeof report);
    int first_kid = 0;
    if (!top && n_kids > 0 && last_report(dir, kids[0], report, sizeof report)) {
        top = 1;
        first_kid = 1;
    }
    if (!top) {
        if (!keep)
            remove_dir(dir);
        if (code == 127) /* the child said why */
            return CLI_EXIT_USAGE;
        if (WIFSIGNALED(status))
            return cli_fail(&co, LR_ERR_IO, "%s was killed by signal %d (%s) before any scan "
                            "report", argv[dash + 1], WTERMSIG(status),
                            strsignal(WTERMSIG(status)));
        return cli_fail(&co, LR_ERR_IO, "%s exited with status %d and wrote no scan report: it "
                        "ended with _exit, turned the exit scan off, or exec'd another "
                        "program (a script or wrapper that does: --children, or run the "
                        "program itself)", argv[dash + 1], code);
    }
    if (out && copy_file(report, out) != 0) {
        if (!keep)
            remove_dir(dir);
        return cli_fail(&co, LR_ERR_IO, "cannot write %s: %s", out, strerror(errno));
    }
    /* The monitor stored its scans already (the at-exit one before the program ended). */
    rc = render_file(&co, report, code, WIFSIGNALED(status), fail, NULL);
    for (int i = first_kid; i < n_kids && !co.json; i++) {
        char kr[4400];
        if (!last_report(dir, kids[i], kr, sizeof kr))
            continue;
        fputc('\n', stdout);
        int krc = render_file(&co, kr, -1, 0, fail, NULL);
        if (krc != CLI_EXIT_OK && (rc == CLI_EXIT_OK || krc != CLI_EXIT_FINDINGS))
            rc = krc;
    }
    if (co.json && n_kids > first_kid)
        fprintf(stderr, "leakray: %d more process(es) ran the monitor (their reports: the text "
                "report, or --keep DIR and `leakray native report`)\n", n_kids - first_kid);
    long unscanned[8];
    long n_unscanned = children ? unscanned_forks(dir, unscanned, 8) : 0;
    if (n_unscanned > 0) {
        fprintf(stderr, "leakray: %ld forked child process(es) wrote no scan report (each "
                "ended with _exit() or by a signal, SIGTERM too, exec'd a program without the "
                "monitor, or still runs): pid", n_unscanned);
        for (long i = 0; i < n_unscanned && i < 8; i++)
            fprintf(stderr, "%s %ld", i ? "," : "", unscanned[i]);
        fprintf(stderr, "%s\n", n_unscanned > 8 ? ", ..." : "");
    }
    /* a store that did not take a scan exits 4 after the report, as `native report --store`
     * does (the monitor said why on stderr) */
    int unstored = ns.url && store_failed(dir);
    if (!keep)
        remove_dir(dir);
    if (unstored && (rc == CLI_EXIT_OK || rc == CLI_EXIT_FINDINGS) && code == 0)
        return CLI_EXIT_IO;
    /* A program that failed fails the run, as under valgrind: a test suite run through the
     * monitor must not pass because its leaks were reported. */
    if (rc == CLI_EXIT_OK && code != 0)
        return code; /* 128 + N for a program a signal ended after its last scan */
    return rc;
}

/* ---- native check ---- */

/* A number field of /proc/PID/status ("TracerPid:", "PPid:"), or -1. */
static long status_field(long pid, const char *key)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long v = -1;
    size_t kl = strlen(key);
    while (v < 0 && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl))
            v = strtol(line + kl, NULL, 10);
    fclose(f);
    return v;
}

/* The state letter of pid in /proc/PID/stat ('R', 'S', 'T', 'Z', ...), or 0. */
static char process_state(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = 0;
    const char *e = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    return e && e[1] == ' ' ? e[2] : 0;
}

/* Whether process pid is stopped, so its monitor thread cannot answer until it runs again:
 * 0 running, 1 stopped by a signal (SIGSTOP, ^Z), 2 held by a tracer (*tracer: its pid). A
 * tracing stop of the monitor's own tracer, a task of the process, is a scan another check
 * asked for: it ends by itself, and the monitor takes the next request after it. */
static int process_stopped(long pid, long *tracer)
{
    char state = process_state(pid);
    if (state != 'T' && state != 't')
        return 0;
    if (state == 'T')
        return 1;
    *tracer = status_field(pid, "TracerPid:");
    if (*tracer <= 0 || status_field(*tracer, "PPid:") == pid)
        return 0;
    /* a tracer that has let go since (the monitor's, ended before its parent was read) */
    return status_field(pid, "TracerPid:") == *tracer ? 2 : 0;
}

/* The monitor's thread in process pid (named "leakray-native" by the monitor), or 0. */
static long monitor_thread(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    long tid = 0;
    struct dirent *e;
    while (!tid && (e = readdir(d)) != NULL) {
        char cp[320], name[32] = {0};
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(cp, sizeof cp, "/proc/%ld/task/%s/comm", pid, e->d_name);
        FILE *f = fopen(cp, "r");
        if (!f)
            continue;
        if (fgets(name, sizeof name, f) && strcmp(name, "leakray-native\n") == 0)
            tid = strtol(e->d_name, NULL, 10);
        fclose(f);
    }
    closedir(d);
    return tid;
}

/* Whether process pid has a handler for signal signo (SigCgt of /proc/PID/status). */
static int catches_signal(long pid, unsigned signo)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int yes = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "SigCgt:", 7) == 0) {
            unsigned long long mask = strtoull(line + 7, NULL, 16);
            yes = signo >= 1 && signo <= 64 && (mask >> (signo - 1) & 1);
            break;
        }
    }
    fclose(f);
    return yes;
}

/* Whether process pid has the monitor library mapped (0 when its maps cannot be read). */
static int has_monitor_lib(long pid)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int yes = 0;
    while (!yes && fgets(line, sizeof line, f))
        yes = strstr(line, "/" NATIVE_LIB) != NULL;
    fclose(f);
    return yes;
}

/* Why process pid has no monitor thread or socket to ask, for the message that says so. A
 * forked child keeps the monitor library, but not its thread: threads do not cross fork. */
static void no_monitor_why(long pid, char *buf, size_t n)
{
    long ppid = status_field(pid, "PPid:");
    if (!has_monitor_lib(pid))
        snprintf(buf, n, "not started with libleakray_native.so?");
    else if (ppid > 1 && has_monitor_lib(ppid))
        snprintf(buf, n, "it is a forked child of the monitored process %ld, whose monitor "
                 "thread stayed in the parent: a forked child cannot be checked while it "
                 "runs; under `native run --children` it is scanned when it calls exit()",
                 ppid);
    else
        snprintf(buf, n, "it has the monitor loaded, with LEAKRAY_NATIVE_SOCKET=0 or a "
                 "monitor thread that could not start");
}

static ssize_t ask_monitor(long pid, const char *req, int timeout_s, char *line, size_t cap);

/* Sends the scan signal to the monitor's thread alone: sent to the process, it would reach
 * a thread the kernel picks, usually main, and cut its sleep() or poll() short. A process
 * without the monitor, or whose monitor waits for another signal, is sent nothing: the
 * signal's default action would end it. */
static int send_scan_signal(const cli_common *co, long pid, unsigned signo)
{
    if (kill((pid_t)pid, 0) != 0)
        return cli_fail(co, errno == ESRCH ? LR_ERR_NOT_FOUND : LR_ERR_IO, "process %ld: %s",
                        pid, strerror(errno));
    long tid = monitor_thread(pid);
    if (!tid) {
        char why[400];
        no_monitor_why(pid, why, sizeof why);
        return cli_fail(co, LR_ERR_NOT_FOUND, "process %ld has no native monitor thread (%s); "
                        "no signal sent", pid, why);
    }
    if (!catches_signal(pid, signo))
        return cli_fail(co, LR_ERR_USAGE, "process %ld does not catch signal %u (its "
                        "monitor scans on LEAKRAY_NATIVE_SIGNAL, or on no signal); no signal "
                        "sent", pid, signo);
    /* Catching it is not enough: a program that installs its own handler for the signal
     * (a daemon's reload) takes the monitor's place, and the signal would run that handler
     * and no scan. The monitor says whose handler is there; without a socket (or an answer
     * within 2 s: a scan is running) the signal goes as asked. */
    char line[256];
    unsigned mon = 0;
    char whose[16] = "";
    if (ask_monitor(pid, "signal\n", 2, line, sizeof line) > 0 &&
        sscanf(line, "ok signal %u %15s", &mon, whose) == 2) {
        if (mon != signo) {
            char on[32] = "no signal";
            if (mon)
                snprintf(on, sizeof on, "signal %u", mon);
            return cli_fail(co, LR_ERR_USAGE, "process %ld catches signal %u, but its monitor "
                            "scans on %s (LEAKRAY_NATIVE_SIGNAL); no signal sent", pid, signo,
                            on);
        }
        if (!strcmp(whose, "replaced"))
            return cli_fail(co, LR_ERR_USAGE, "process %ld has put its own handler on signal "
                            "%u, in the monitor's place: unless that handler calls the "
                            "monitor's, the signal would run the program's handler and no "
                            "scan; no signal sent (`leakray native check %ld` asks by the "
                            "socket)", pid, signo, pid);
    }
    if (syscall(SYS_tgkill, (pid_t)pid, (pid_t)tid, (int)signo) != 0)
        return cli_fail(co, errno == ESRCH ? LR_ERR_NOT_FOUND : LR_ERR_IO, "tgkill %ld/%ld: %s",
                        pid, tid, strerror(errno));
    return 0;
}

#define ASK_TIMEOUT_S 600 /* a scan of a large heap takes seconds; a stuck one, forever */

/* Sends request req to process pid's monitor socket and reads its one-line answer into line
 * (without the newline), waiting timeout_s at most. Returns the answer's length, 0 when none
 * came, or -1 when there is no socket to connect to (errno kept). */
static ssize_t ask_monitor(long pid, const char *req, int timeout_s, char *line, size_t cap)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    int len = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "leakray-native.%ld", pid);
    socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
    if (connect(fd, (struct sockaddr *)&a, alen) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    struct timeval tv = {timeout_s, 0};
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    size_t got = 0, rl = strlen(req);
    /* A monitor that refuses the caller answers at once and closes: the request may then
     * find the socket closed (EPIPE, no SIGPIPE), and the answer is still there to read. */
    if (send(fd, req, rl, MSG_NOSIGNAL) != (ssize_t)rl && errno != EPIPE) {
        close(fd);
        return 0;
    }
    for (;;) {
        ssize_t k = read(fd, line + got, cap - 1 - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
        if (memchr(line, '\n', got) || got == cap - 1)
            break;
    }
    close(fd);
    line[got] = 0;
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = 0;
    return (ssize_t)strlen(line);
}

static int ask_scan(const cli_common *co, long pid, char *path, size_t n)
{
    long tracer = 0;
    int stopped = process_stopped(pid, &tracer);
    if (stopped == 1)
        return cli_fail(co, LR_ERR_IO, "process %ld is stopped: a scan needs it running "
                        "(kill -CONT %ld)", pid, pid);
    if (stopped == 2)
        return cli_fail(co, LR_ERR_IO, "process %ld is held by the tracer %ld (a debugger?): "
                        "a scan needs it running; detach the tracer and retry", pid, tracer);
    char line[8192];
    ssize_t got = ask_monitor(pid, "scan\n", ASK_TIMEOUT_S, line, sizeof line);
    if (got < 0) {
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            return cli_fail(co, LR_ERR_NOT_FOUND, "no process %ld", pid);
        /* what `top -H` and `ps -L` list are threads; /proc answers for them too */
        long tgid = status_field(pid, "Tgid:");
        if (tgid > 0 && tgid != pid)
            return cli_fail(co, LR_ERR_USAGE, "%ld is a thread of process %ld: check the "
                            "process (leakray native check %ld)", pid, tgid, tgid);
        if (process_state(pid) == 'Z')
            return cli_fail(co, LR_ERR_NOT_FOUND, "process %ld has ended (its parent has not "
                            "reaped it yet): nothing is left to scan", pid);
        char why[400];
        no_monitor_why(pid, why, sizeof why);
        return cli_fail(co, LR_ERR_NOT_FOUND, "process %ld has no native monitor socket (%s)",
                        pid, why);
    }
    if (strncmp(line, "ok ", 3) != 0)
        return cli_fail(co, LR_ERR_IO, "process %ld: scan failed: %s", pid,
                        got ? line + (strncmp(line, "error ", 6) ? 0 : 6)
                            : "no answer (within 600 s, or the process ended)");
    snprintf(path, n, "%s", line + 3);
    return 0;
}

static int native_check(int argc, char **argv)
{
    int by_signal = 0, fail = 0;
    uint64_t signo = SIGUSR2;
    native_store ns = {0};
    const cli_optdef opts[] = {
        {"--signal", CLI_OPT_FLAG, &by_signal, NULL,
         "only send the scan signal, to the monitor's thread; the report goes where the "
         "process writes its scans", NULL},
        {"--signo", CLI_OPT_UINT, &signo, "SIG", "signal for --signal (default SIGUSR2)", NULL},
        {"--fail-on-leak", CLI_OPT_FLAG, &fail, NULL, "exit 1 when the scan found leaks", NULL},
        NATIVE_STORE_OPTS(&ns),
        {0}};
    const cli_spec spec = {"native check", "PID",
                           "Scan a running process started with the native monitor.", opts, 1, 1,
                           NULL};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    char *end;
    long pid = strtol(co.pos[0], &end, 10);
    if (*end || pid <= 0)
        return cli_usage_error(&co, "PID must be a process id");
    if (by_signal) {
        if (signo == 0 || signo >= NSIG || signo == SIGKILL || signo == SIGSTOP)
            return cli_usage_error(&co, "--signo must be a signal a handler can take, 1 to %d "
                                   "but SIGKILL (9) and SIGSTOP (19)", NSIG - 1);
        if ((rc = send_scan_signal(&co, pid, (unsigned)signo)) != 0)
            return rc;
        if (co.json) {
            jsonw w;
            cli_json_begin(&w);
            rep_native_signal_json(&w, pid, (int)signo);
            jsonw_obj_end(&w);
            jsonw_finish(&w);
        } else {
            rep_native_signal_text(stdout, pid, (int)signo);
        }
        return CLI_EXIT_OK;
    }
    char path[8192];
    if ((rc = ask_scan(&co, pid, path, sizeof path)) != 0)
        return rc;
    return render_file(&co, path, -1, 0, fail, &ns);
}

int cmd_native(int argc, char **argv)
{
    static const char usage[] =
        "usage: leakray native <command> [options]\n"
        "Unreachable malloc blocks (leaks) of a running program, found from a forked copy by\n"
        "libleakray_native.so (docs/native.md).\n"
        "\n"
        "commands:\n"
        "  run      run a program with the monitor; its leaks at exit (-- PROGRAM ARGS...)\n"
        "  check    scan a running monitored process now (PID)\n"
        "  report   render a saved scan (FILE)\n"
        "\n"
        "`leakray native <command> --help` describes each command.\n";
    if (argc < 2) {
        /* a usage error is one line, as every verb's (the commands: --help) */
        fputs("leakray native: missing command (expected run, check or report) "
              "(see leakray native --help)\n", stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "run"))
        return native_run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "check"))
        return native_check(argc - 1, argv + 1);
    if (!strcmp(argv[1], "report"))
        return native_report(argc - 1, argv + 1);
    /* --help wins over everything else on the line, as for every verb. */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        }
    fprintf(stderr, "leakray native: unknown command '%s' (see leakray native --help)\n",
            argv[1]);
    return CLI_EXIT_USAGE;
}
