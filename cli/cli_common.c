/* SPDX-License-Identifier: Apache-2.0 */
/* cli_common.c: option parsing, input opening, error printing, timing and number formatting
 * shared by every verb (cli), prefix cli_. The usage text is generated from each verb's
 * option table, so --help and the parser never disagree. Errors surface in exactly one
 * place: stderr as text, or stdout as the JSON error object under --json (docs/json.md). */
#include "cli.h"

#include "analysis/devtools.h"
#include "analysis/kinship.h"
#include "analysis/leakfind.h"
#include "analysis/native.h"
#include "base/mem.h"
#include "base/mfile.h"
#include "base/outfile.h"
#include "base/phase.h"
#include "base/spill.h"
#include "format/v8.h"
#include "rules/categories.h"
#include "report/fmt.h"
#include "rules/mapping.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- status keys ---- */

const char *cli_status_key(lr_status s)
{
    switch (s) {
    case LR_OK: return "ok";
    case LR_ERR_USAGE: return "usage";
    case LR_ERR_IO: return "io";
    case LR_ERR_NOMEM: return "nomem";
    case LR_ERR_FORMAT: return "format";
    case LR_ERR_TRUNCATED: return "truncated";
    case LR_ERR_LIMIT: return "limit";
    case LR_ERR_NOT_FOUND: return "not_found";
    case LR_ERR_RULES: return "rules";
    case LR_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}

/* ---- errors ---- */

static void json_error(lr_status code, uint64_t offset, const char *msg)
{
    jsonw w;
    jsonw_init(&w, stdout, 1);
    jsonw_obj_begin(&w);
    jsonw_kv_int(&w, "schema_version", CLI_SCHEMA_VERSION);
    jsonw_kv_obj_begin(&w, "error");
    jsonw_kv_str(&w, "code", cli_status_key(code));
    jsonw_kv_int(&w, "exit", lr_exit_code(code));
    if (offset == LR_NO_OFFSET)
        jsonw_kv_null(&w, "offset");
    else
        jsonw_kv_uint(&w, "offset", offset);
    jsonw_kv_str(&w, "message", msg);
    jsonw_obj_end(&w);
    jsonw_obj_end(&w);
    jsonw_finish(&w);
}

static int mem_reported; /* the --max-memory refusal was printed */

/* "memory limit: ..." for the first refused allocation into buf; 0 when none was refused. */
static int mem_message(char *buf, size_t cap, const char *cause)
{
    const char *phase, *dir;
    uint64_t asked, in_use;
    char a[CLI_FMT_MAX], u[CLI_FMT_MAX], l[CLI_FMT_MAX], t[CLI_FMT_MAX];
    int e;
    /* A block past the limit found no disk room to spill to: that is what to fix. */
    if (spill_failed(&dir, &asked, &e)) {
        snprintf(buf, cap, "no room in %s to spill %s past --max-memory %s (%s); --tmpdir "
                 "chooses another folder", dir, cli_fmt_human(a, asked),
                 cli_fmt_human(l, mem_limit()), strerror(e));
        return 1;
    }
    if (!mem_refused(&phase, &asked, &in_use))
        return 0;
    /* in bytes where rounding would show the total and the limit alike ("1.1 GB in all,
     * over --max-memory 1.1 GB" told nobody how far to raise it) */
    cli_fmt_human(t, asked + in_use);
    cli_fmt_human(l, mem_limit());
    if (!strcmp(t, l)) {
        cli_fmt_bytes(t, asked + in_use);
        cli_fmt_bytes(l, mem_limit());
    }
    snprintf(buf, cap, "memory limit: phase \"%s\" needed %s more with %s in use (%s in all), "
             "over --max-memory %s; raise --max-memory or free memory%s%s", phase,
             cli_fmt_human(a, asked), cli_fmt_human(u, in_use), t, l,
             cause ? " (" : "", cause ? cause : "");
    if (cause)
        snprintf(buf + strlen(buf), cap - strlen(buf), ")");
    /* past the limit, large arrays go to files: a folder where none can be made ($TMPDIR
     * missing or read-only) is why this stopped, not the limit alone */
    if (spill_create_failed(&dir, &e))
        snprintf(buf + strlen(buf), cap - strlen(buf), "; spilling past it failed: no file can "
                 "be made in %s (%s; --tmpdir or $TMPDIR chooses the folder)", dir,
                 strerror(e));
    return 1;
}

static int timing_text; /* --timing without --json: phase table on stderr at the end */

int cli_mem_finish(int rc)
{
    if (timing_text) {
        phase_print(stderr);
        char pk[CLI_FMT_MAX], sp[CLI_FMT_MAX], lim[CLI_FMT_MAX], nb[CLI_FMT_MAX];
        char mv[CLI_FMT_MAX];
        fprintf(stderr, "memory: peak %s allocated (--max-memory %s), %s spilled to files in "
                "%s blocks (%s moved)\n", cli_fmt_human(pk, mem_peak()),
                cli_fmt_human(lim, mem_limit()), cli_fmt_human(sp, spill_peak()),
                cli_fmt_count(nb, spill_blocks()), cli_fmt_count(mv, spill_moved_blocks()));
    }
    char msg[LR_ERROR_MSG_MAX];
    if (mem_reported || !mem_message(msg, sizeof msg, NULL))
        return rc;
    mem_reported = 1;
    fprintf(stderr, "leakray: %s\n", msg);
    return CLI_EXIT_LIMIT;
}

int cli_error(const cli_common *co, const lr_error *err)
{
    lr_status code = err->code != LR_OK ? err->code : LR_ERR_INTERNAL;
    const char *msg = err->msg[0] ? err->msg : lr_strerror(code);
    /* An allocation refused under --max-memory surfaces as "out of memory" (or a limit) in
     * whichever code met it: say which limit, in which phase, for how much. */
    char mbuf[LR_ERROR_MSG_MAX + 64];
    if ((code == LR_ERR_NOMEM || code == LR_ERR_LIMIT) && !mem_reported &&
        mem_message(mbuf, sizeof mbuf, msg)) {
        mem_reported = 1;
        code = LR_ERR_LIMIT;
        msg = mbuf;
    }
    if (co && co->json)
        json_error(code, err->offset, msg);
    else
        fprintf(stderr, "leakray: %s\n", msg);
    return lr_exit_code(code);
}

int cli_fail(const cli_common *co, lr_status code, const char *fmt, ...)
{
    lr_error err = {.code = code, .offset = LR_NO_OFFSET};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.msg, sizeof err.msg, fmt, ap);
    va_end(ap);
    return cli_error(co, &err);
}

/* ---- usage ---- */

#define CLI_HELP_COL 24 /* column where option descriptions start */

static void print_opt(FILE *out, const char *name, const char *metavar, const char *help)
{
    char left[128];
    snprintf(left, sizeof left, "  %s%s%s", name, metavar ? " " : "", metavar ? metavar : "");
    if (strlen(left) + 2 > CLI_HELP_COL)
        fprintf(out, "%s\n%*s%s\n", left, CLI_HELP_COL, "", help);
    else
        fprintf(out, "%-*s%s\n", CLI_HELP_COL, left, help);
}

void cli_usage(const cli_spec *spec, FILE *out)
{
    int args = spec->args && spec->args[0];
    fprintf(out, "usage: leakray %s [options]%s%s\n", spec->verb, args ? " " : "",
            args ? spec->args : "");
    fprintf(out, "%s\n", spec->summary);
    if (spec->opts && spec->opts[0].name) {
        fputs("\noptions:\n", out);
        for (const cli_optdef *o = spec->opts; o->name; o++)
            print_opt(out, o->name, o->metavar, o->help);
    }
    fputs("\ncommon options:\n", out);
    print_opt(out, "--json", NULL, "print one JSON document on stdout (docs/json.md)");
    print_opt(out, "--no-timing", NULL, "omit timings so output is byte-stable (JSON: default)");
    print_opt(out, "--timing", NULL, "add timings to --json output (under \"timing\")");
    print_opt(out, "--no-progress", NULL, "never draw a progress bar on stderr");
    print_opt(out, "--max-inflate", "N",
              "cap decompressed gzip/bzip2 input at N bytes (K/M/G suffixes; default: the "
              "free space of --tmpdir, at most 64G)");
    print_opt(out, "--max-memory", "N",
              "allocate at most N bytes (K/M/G suffixes; default: 90% of the memory "
              "available); past it, large arrays spill to files in --tmpdir, and what "
              "cannot stops with exit 5");
    print_opt(out, "--tmpdir", "DIR",
              "inflate gzip/bzip2 input into an unnamed file there (default: $TMPDIR or /tmp); "
              "large arrays past --max-memory spill into unnamed files there too");
    print_opt(out, "--no-spill", NULL,
              "never spill: past --max-memory, stop with exit 5 instead");
    print_opt(out, "--dump", "N", "heap dump to load from a multi-dump HPROF (0-based; "
                                  "default: the last)");
    print_opt(out, "--mapping", "FILE",
              "ProGuard/R8 mapping: deobfuscated names (two dumps: once, or once each)");
    print_opt(out, "-h, --help", NULL, "show this help and exit");
    fputs("\nexit codes: 0 ok, 1 findings, 2 usage, 3 bad input, 4 I/O error, "
          "5 resource limit\n",
          out);
    if (spec->more)
        fprintf(out, "\n%s\n", spec->more);
}

static int vusage_error(const cli_spec *spec, int json, const char *fmt, va_list ap)
{
    char msg[LR_ERROR_MSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* One line: the problem, and where the usage is (a page of usage would bury it). */
    fprintf(stderr, "leakray %s: %s (see leakray %s --help)\n", spec->verb, msg, spec->verb);
    if (json)
        json_error(LR_ERR_USAGE, LR_NO_OFFSET, msg);
    return CLI_EXIT_USAGE;
}

static int usage_error(const cli_spec *spec, int json, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int usage_error(const cli_spec *spec, int json, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vusage_error(spec, json, fmt, ap);
    va_end(ap);
    return rc;
}

pid_t cli_run_self(const cli_common *co, const char *const *args, int out_fd,
                   const char *out_path, char *msg, size_t cap)
{
    char self[PATH_MAX], num[3][24];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        snprintf(msg, cap, "cannot find the leakray executable: %s", strerror(errno));
        return -1;
    }
    self[k] = 0;
    /* the child analyses what this process was asked to, within the same bounds: its memory,
     * its temporary folder and its input caps are the user's, not the defaults */
    const char *argv[CLI_RUN_ARGS + 12];
    int a = 0, n = 0;
    argv[a++] = args[0];
    argv[a++] = args[1];
    if (co->max_memory) {
        snprintf(num[n], sizeof num[n], "%" PRIu64, co->max_memory);
        argv[a++] = "--max-memory";
        argv[a++] = num[n++];
    }
    if (co->max_inflate) {
        snprintf(num[n], sizeof num[n], "%" PRIu64, co->max_inflate);
        argv[a++] = "--max-inflate";
        argv[a++] = num[n++];
    }
    if (co->dump_index >= 0) {
        snprintf(num[n], sizeof num[n], "%" PRId64, co->dump_index);
        argv[a++] = "--dump";
        argv[a++] = num[n++];
    }
    if (co->no_spill)
        argv[a++] = "--no-spill";
    if (co->tmpdir) {
        argv[a++] = "--tmpdir";
        argv[a++] = co->tmpdir;
    }
    for (int i = 2; args[i]; i++) {
        if (i >= CLI_RUN_ARGS) { /* never cut: a command without its last words is another */
            snprintf(msg, cap, "cannot run %s: more than %d arguments", args[1],
                     CLI_RUN_ARGS);
            return -1;
        }
        argv[a++] = args[i];
    }
    argv[a] = NULL;
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        snprintf(msg, cap, "cannot run %s: %s", args[1], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* the child ends with this process, however it ends (kill -9 too): an analysis
         * nobody waits for would hold the CPU, the memory and the caller's stderr */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        int fd = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : out_fd;
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
            _exit(127);
        execv(self, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* The "message" of an analyze --json error document, unescaped enough to read. */
void cli_json_error_message(const char *doc, char *out, size_t cap)
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

int cli_warn_subclasses(cli_common *co, const graph *g, const char *cls)
{
    for (class_ix c = 0; c < g->n_classes; c++)
        if (g->classes[c].super != GRAPH_NONE)
            return 0;
    cli_warn(co, "--subclasses: this dump records no class hierarchy (a V8 snapshot names an "
             "object's constructor, not its superclasses): only %s itself is counted", cls);
    return 1;
}

int cli_need_dom(const cli_common *co, const graph *g, const char *path)
{
    if (!v8_class_keys(g))
        return cli_usage_error(co, "--detached needs a V8 snapshot of a browser page");
    if (!leak_is_browser(g))
        return cli_usage_error(co,
                               "--detached needs a V8 snapshot of a browser page; no object in "
                               "%s is attached to a document (Node.js and workers have no DOM)",
                               path);
    return 0;
}

int cli_usage_error(const cli_common *co, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vusage_error(co->spec, co->json, fmt, ap);
    va_end(ap);
    return rc;
}

int cli_out_stdout(const char *out)
{
    return strcmp(out, OUTFILE_STDOUT) == 0;
}

int cli_out_is(const char *out, const char *path)
{
    struct stat a, b;
    return !cli_out_stdout(out) && stat(out, &a) == 0 && stat(path, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int cli_parse_output(int argc, char **argv, const cli_spec *spec, cli_common *co,
                     const char *const *out)
{
    int rc = cli_parse(argc, argv, spec, co);
    if (rc == CLI_CONTINUE && !*out)
        return cli_usage_error(co, "missing -o OUT");
    for (int i = 0; rc == CLI_CONTINUE && i < co->n_pos; i++)
        if (cli_out_is(*out, co->pos[i]))
            return cli_usage_error(co, "-o %s is the input file; write to another path", *out);
    return rc;
}

/* ---- number parsing ---- */

/* Strict decimal: digits only, no sign, no overflow. */
static int parse_u64(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return 0;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    if (*s)
        return 0;
    *out = v;
    return 1;
}

int cli_parse_size(const char *s, uint64_t *out)
{
    char digits[32];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof digits)
        return 0;
    memcpy(digits, s, n + 1);
    unsigned shift = 0;
    char last = (char)toupper((unsigned char)digits[n - 1]);
    if (last == 'B' && n >= 2) { /* accept "64KB", "2MB" */
        digits[--n] = '\0';
        last = (char)toupper((unsigned char)digits[n - 1]);
    }
    switch (last) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        if (n < 2)
            return 0;
        digits[n - 1] = '\0';
    }
    uint64_t v;
    if (!parse_u64(digits, &v) || v > (UINT64_MAX >> shift))
        return 0;
    *out = v << shift;
    return 1;
}

int cli_parse_id(const char *s, uint64_t *out)
{
    if (s[0] == '@') /* @0x...: the native graph's block addresses, written as ids */
        return s[1] != '@' && cli_parse_id(s + 1, out);
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        const char *p = s + 2;
        if (!*p || strlen(p) > 16)
            return 0;
        uint64_t v = 0;
        for (; *p; p++) {
            if (!isxdigit((unsigned char)*p))
                return 0;
            int d = isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10;
            v = v << 4 | (uint64_t)d;
        }
        *out = v;
        return 1;
    }
    return parse_u64(s, out);
}

static int parse_i64(const char *s, int64_t *out)
{
    int neg = *s == '-';
    uint64_t v;
    if (!parse_u64(s + neg, &v) || v > (uint64_t)INT64_MAX)
        return 0;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 1;
}

static int in_choices(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0)
            return 1;
        if (!bar)
            break;
        p = bar + 1;
    }
    return 0;
}

/* ---- argv parsing ---- */

int cli_parse(int argc, char **argv, const cli_spec *spec, cli_common *co)
{
    memset(co, 0, sizeof *co);
    co->dump_index = -1;
    co->spec = spec;

    /* Known before parsing so that even an early usage error honours --json, and --help
     * answers whatever else is on the line. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--json") == 0)
            co->json = 1;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_usage(spec, stdout);
            return CLI_EXIT_OK;
        }
    }

    uint64_t dump = UINT64_MAX;
    cli_strlist mappings = {0};
    const cli_optdef common[] = {
        {"--json", CLI_OPT_FLAG, &co->json, NULL, NULL, NULL},
        {"--no-timing", CLI_OPT_FLAG, &co->no_timing, NULL, NULL, NULL},
        {"--timing", CLI_OPT_FLAG, &co->timing, NULL, NULL, NULL},
        {"--no-progress", CLI_OPT_FLAG, &co->no_progress, NULL, NULL, NULL},
        {"--max-inflate", CLI_OPT_SIZE, &co->max_inflate, "N", NULL, NULL},
        {"--tmpdir", CLI_OPT_STR, &co->tmpdir, "DIR", NULL, NULL},
        {"--no-spill", CLI_OPT_FLAG, &co->no_spill, NULL, NULL, NULL},
        {"--max-memory", CLI_OPT_SIZE, &co->max_memory, "N", NULL, NULL},
        {"--dump", CLI_OPT_UINT, &dump, "N", NULL, NULL},
        {"--mapping", CLI_OPT_LIST, &mappings, "FILE", NULL, NULL},
        {0},
    };


    int only_pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || a[1] == '\0') {
            if ((co->n_pos >= spec->max_pos || co->n_pos >= CLI_MAX_POS) &&
                !strcmp(spec->verb, "attach") && strchr(a, '='))
                return usage_error(spec, co->json, "unexpected argument '%s': the agent's "
                                   "options are one word, comma-separated "
                                   "(dump-dir=DIR,threshold=3)", a);
            if ((co->n_pos >= spec->max_pos || co->n_pos >= CLI_MAX_POS) &&
                !strcmp(spec->verb, "path"))
                return usage_error(spec, co->json, "unexpected argument '%s': at most %d ids "
                                   "after FILE (--ids FILE takes any number)", a,
                                   spec->max_pos - 1);
            if ((co->n_pos >= spec->max_pos || co->n_pos >= CLI_MAX_POS) && spec->max_pos > 2)
                return usage_error(spec, co->json, "unexpected argument '%s': at most %d "
                                   "arguments (xargs -n %d runs more in batches)", a,
                                   spec->max_pos, spec->max_pos);
            if (co->n_pos >= spec->max_pos || co->n_pos >= CLI_MAX_POS)
                return usage_error(spec, co->json, "unexpected argument '%s'", a);
            co->pos[co->n_pos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        /* Split "--name=value". */
        char name[64];
        const char *eq = strchr(a, '=');
        size_t name_len = eq ? (size_t)(eq - a) : strlen(a);
        if (name_len >= sizeof name)
            return usage_error(spec, co->json, "unknown option '%s'", a);
        memcpy(name, a, name_len);
        name[name_len] = '\0';

        const cli_optdef *o = NULL;
        for (const cli_optdef *c = common; c->name && !o; c++)
            if (strcmp(c->name, name) == 0)
                o = c;
        for (const cli_optdef *c = spec->opts; c && c->name && !o; c++)
            if (strcmp(c->name, name) == 0)
                o = c;
        if (!o)
            return usage_error(spec, co->json, "unknown option '%s'", name);

        if (o->type == CLI_OPT_FLAG) {
            if (eq)
                return usage_error(spec, co->json, "option %s takes no value", name);
            *(int *)o->dest = 1;
            continue;
        }
        const char *v;
        if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            return usage_error(spec, co->json, "option %s needs a value (%s)", name,
                               o->metavar ? o->metavar : "VALUE");
        }
        int ok = 1;
        switch (o->type) {
        case CLI_OPT_UINT: ok = parse_u64(v, (uint64_t *)o->dest); break;
        case CLI_OPT_SIZE: ok = cli_parse_size(v, (uint64_t *)o->dest); break;
        case CLI_OPT_INT: ok = parse_i64(v, (int64_t *)o->dest); break;
        case CLI_OPT_STR:
            ok = !o->choices || in_choices(o->choices, v);
            if (ok)
                *(const char **)o->dest = v;
            else
                return usage_error(spec, co->json, "invalid value '%s' for %s (one of %s)", v,
                                   name, o->choices);
            break;
        case CLI_OPT_LIST: {
            cli_strlist *l = o->dest;
            if (l->n >= CLI_MAX_LIST)
                return usage_error(spec, co->json, "option %s given more than %d times", name,
                                   CLI_MAX_LIST);
            l->at[l->n] = i;
            l->v[l->n++] = v;
            break;
        }
        default: ok = 0; break;
        }
        if (!ok)
            return usage_error(spec, co->json, "invalid value '%s' for %s", v, name);
    }
    if (co->timing && co->no_timing)
        return usage_error(spec, co->json, "--timing and --no-timing exclude each other");
    /* One mapping for every dump, or one per dump where a command compares two builds (each
     * obfuscated its own way): the last of two given silently decoded both, and named the
     * wrong class as the one that grew. */
    if (mappings.n > 2 || (mappings.n == 2 && (spec->max_pos < 2 || co->n_pos != 2)))
        return usage_error(spec, co->json, "--mapping given %d times: give one for every "
                           "dump, or (with two dumps) one for each, in their order", mappings.n);
    co->mapping = mappings.n ? mappings.v[0] : NULL;
    co->mapping2 = mappings.n == 2 ? mappings.v[1] : NULL;
    /* Clock readings make JSON differ from run to run: opt in. */
    if (co->json && !co->timing)
        co->no_timing = 1;
    timing_text = co->timing && !co->json;
    /* a folder that cannot take a file: said now, not as a memory limit once a spill fails */
    if (co->tmpdir) {
        struct stat tds;
        const char *why = NULL;
        if (stat(co->tmpdir, &tds) != 0)
            why = strerror(errno);
        else if (!S_ISDIR(tds.st_mode))
            why = "not a folder";
        else if (access(co->tmpdir, W_OK | X_OK) != 0)
            why = strerror(errno);
        if (why)
            return usage_error(spec, co->json, "--tmpdir %s: %s", co->tmpdir, why);
    }
    mfile_set_tmpdir(co->tmpdir);
    mfile_set_progress(!co->json && !co->no_progress && isatty(STDERR_FILENO));
    spill_set_dir(co->no_spill ? NULL : mfile_tmpdir());
    mem_set_limit(co->max_memory ? co->max_memory : mem_default_limit());
    /* half of what memory holds beside the limit: the spilled blocks are written ahead while
     * they fit there beside the dump's own pages */
    uint64_t avail = mem_available_now(), lim = mem_limit();
    spill_set_prefill(avail > lim ? (avail - lim) / 2 : 0);
    /* blocks read only move out past the kernel's background write-back threshold
     * (base/spill); LEAKRAY_SPILL_COOL_AFTER=BYTES sets another threshold */
    const char *ca = getenv("LEAKRAY_SPILL_COOL_AFTER");
    char *ca_end = NULL;
    unsigned long long ca_v = ca && *ca ? strtoull(ca, &ca_end, 10) : 0;
    spill_set_cool_after(ca_end && !*ca_end ? (uint64_t)ca_v : mem_dirty_background());
    if (dump != UINT64_MAX) {
        if (dump > INT32_MAX)
            return usage_error(spec, co->json, "invalid value for --dump");
        co->dump_index = (int64_t)dump;
    }
    if (co->n_pos < spec->min_pos)
        return usage_error(spec, co->json, "missing argument (expected %s)",
                           spec->args ? spec->args : "more arguments");
    return CLI_CONTINUE;
}

/* ---- opening inputs ---- */

int cli_exit_keeps_heap(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return 0;
#else
    const char *e = getenv("LEAKRAY_EXIT_FREES");
    return !(e && *e && strcmp(e, "0") != 0);
#endif
}

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int cli_open(cli_common *co, const char *path, unsigned flags, lr_heap **out)
{
    *out = NULL;
    lr_open_opts o = {
        .max_inflate = co->max_inflate,
        .dump_index = (int)co->dump_index,
        .progress = !co->json && !co->no_progress && isatty(STDERR_FILENO),
        .no_edges = (flags & CLI_OPEN_NO_EDGES) != 0,
        .count_edges = (flags & CLI_OPEN_COUNT_EDGES) != 0,
    };
    lr_error err = {.code = LR_OK, .offset = LR_NO_OFFSET};
    double t0 = cli_now_ms();
    /* the native bytes a Cleaner frees join shallow sizes for every verb (info, show, top,
     * histo --retained, analyze), as for every program linked against the library */
    lr_status s = lr_open_ex(path, &o, co->registry_native_only ? NATIVE_REGISTRY : NATIVE_ALL,
                             out, &err);
    phase_enter(co->spec ? co->spec->verb : "verb");
    /* After native_assign, which finds framework classes by their unobfuscated names. A
     * mapping's errors name the mapping file, not the dump. */
    const char *mapping = co->mapping2 && co->n_opened == 1 ? co->mapping2 : co->mapping;
    co->n_opened++;
    if (s == LR_OK && *out && mapping &&
        mapping_apply_file_ex(lr_heap_graph(*out), mapping, co->mapping_flags, &err) !=
            LR_OK) {
        lr_close(*out);
        *out = NULL;
        return cli_error(co, &err);
    }
    co->load_ms = cli_now_ms() - t0;
    co->load_ms_total += co->load_ms;
    if (s == LR_OK && *out) {
        /* A dump cut at a record boundary loads, but every answer on it is partial: say so
         * on stderr whatever the output format (info and --json carry the diagnostic too). */
        const graph *lg = lr_heap_graph(*out);
        if (lg->diag.n[DIAG_TRUNCATED]) {
            fprintf(stderr, "leakray: %s: warning: %s\n", path,
                    diag_description(DIAG_TRUNCATED));
            co->n_truncated++;
        }
        /* a size past 4 GiB read as 4 GiB: every sum over it is short, which only `info`
         * said */
        if (lg->diag.n[DIAG_SIZE_SATURATED])
            fprintf(stderr, "leakray: %s: warning: %llu %s\n", path,
                    (unsigned long long)lg->diag.n[DIAG_SIZE_SATURATED],
                    diag_description(DIAG_SIZE_SATURATED));
        /* references a record lacks are missing from every path and size */
        if (lg->diag.n[DIAG_SHORT_INSTANCE])
            fprintf(stderr, "leakray: %s: warning: %llu %s\n", path,
                    (unsigned long long)lg->diag.n[DIAG_SHORT_INSTANCE],
                    diag_description(DIAG_SHORT_INSTANCE));
        return 0;
    }
    if (*out) {
        lr_close(*out);
        *out = NULL;
    }
    if (err.code == LR_OK)
        err.code = s != LR_OK ? s : LR_ERR_INTERNAL;
    /* Every message must name the input, whoever produced it. */
    if (!strstr(err.msg, path)) {
        char tmp[LR_ERROR_MSG_MAX];
        const char *what = err.msg[0] ? err.msg : lr_strerror(err.code);
        size_t k = (size_t)snprintf(tmp, sizeof tmp, "%s: ", path);
        if (k < sizeof tmp) {
            size_t n = strnlen(what, sizeof tmp - 1 - k);
            memcpy(tmp + k, what, n);
            tmp[k + n] = '\0';
        }
        memcpy(err.msg, tmp, sizeof tmp);
    }
    return cli_error(co, &err);
}

/* ---- JSON documents and timing ---- */

void cli_json_begin(jsonw *w)
{
    jsonw_init(w, stdout, 1);
    jsonw_obj_begin(w);
    jsonw_kv_int(w, "schema_version", CLI_SCHEMA_VERSION);
}

/* Tenths of a millisecond: finer digits are noise. */
static void json_ms(jsonw *w, const char *key, double ms)
{
    jsonw_key(w, key);
    jsonw_double(w, (double)(int64_t)(ms * 10 + 0.5) / 10);
}

static void json_timing(const cli_common *co, jsonw *w, const char *phase_key, double ms)
{
    if (co->no_timing)
        return;
    jsonw_kv_obj_begin(w, "timing");
    json_ms(w, "load_ms", co->load_ms_total);
    if (phase_key)
        json_ms(w, phase_key, ms);
    phase_stat st[48];
    unsigned n = phase_stats(st, 48);
    jsonw_kv_arr_begin(w, "phases");
    for (unsigned i = 0; i < n && i < 48; i++) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", st[i].name);
        json_ms(w, "wall_ms", st[i].wall_ms);
        json_ms(w, "cpu_ms", st[i].cpu_ms);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    /* Allocated bytes as --max-memory counts them, and what spilled past it to files. */
    jsonw_kv_obj_begin(w, "memory");
    jsonw_kv_uint(w, "limit", mem_limit());
    jsonw_kv_uint(w, "peak", mem_peak());
    jsonw_kv_uint(w, "spilled_peak", spill_peak());
    jsonw_kv_uint(w, "spilled_blocks", spill_blocks());
    jsonw_kv_uint(w, "moved_blocks", spill_moved_blocks());
    jsonw_obj_end(w);
    jsonw_obj_end(w);
}

void cli_json_timing(const cli_common *co, jsonw *w)
{
    json_timing(co, w, NULL, 0);
}

void cli_warn(cli_common *co, const char *fmt, ...)
{
    char msg[CLI_WARN_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "leakray: warning: %s\n", msg);
    if (co->n_warn < CLI_MAX_WARN)
        memcpy(co->warn[co->n_warn], msg, sizeof msg);
    co->n_warn++;
}

void cli_json_end_phase(const cli_common *co, jsonw *w, const char *phase_key, double ms)
{
    /* An allocation refused under --max-memory that the run recovered from exits 5 after
     * this document (cli_mem_finish): the document says why, for a consumer keying on it */
    char mem[LR_ERROR_MSG_MAX];
    int refused = !mem_reported && mem_message(mem, sizeof mem, NULL);
    if (co->n_warn || refused) {
        jsonw_kv_arr_begin(w, "warnings");
        for (int i = 0; i < co->n_warn && i < CLI_MAX_WARN; i++)
            jsonw_str(w, co->warn[i]);
        if (refused)
            jsonw_str(w, mem);
        jsonw_arr_end(w);
    }
    json_timing(co, w, phase_key, ms);
    jsonw_obj_end(w);
    jsonw_finish(w);
}

void cli_json_end(const cli_common *co, jsonw *w)
{
    cli_json_end_phase(co, w, NULL, 0);
}

void cli_print_timing(const cli_common *co, FILE *out, const char *what, double ms)
{
    rep_fmt_timing(out, co->no_timing, what, ms);
}

/* ---- formatting: the report layer's (report/fmt.h) under the verbs' names ---- */

const char *cli_fmt_count(char *buf, uint64_t n)
{
    return rep_fmt_count(buf, n);
}

const char *cli_fmt_human(char *buf, uint64_t bytes)
{
    return rep_fmt_human(buf, bytes);
}

const char *cli_fmt_bytes(char *buf, uint64_t bytes)
{
    return rep_fmt_bytes(buf, bytes);
}

const char *cli_fmt_pct(char *buf, uint64_t part, uint64_t whole)
{
    return rep_fmt_pct(buf, part, whole);
}

const char *cli_fmt_distance(char *buf, int32_t distance)
{
    return rep_fmt_distance(buf, distance);
}

const char *cli_fmt_id(char *buf, const graph *g, uint64_t id)
{
    return rep_fmt_id(buf, g, id);
}

void cli_put_text(FILE *out, const char *s, size_t len, size_t max_bytes)
{
    rep_fmt_text(out, s, len, max_bytes);
}

int cli_categories(const cli_common *co, int collapse, const char *categories, cat_set *cs)
{
    if (categories && !collapse)
        return cli_usage_error(co, "--categories needs --collapse");
    cat_init(cs);
    if (!collapse)
        return 0;
    lr_error err = {.offset = LR_NO_OFFSET};
    if (cat_load(cs, categories ? categories : "flutter", &err) != LR_OK) {
        cat_fini(cs);
        return cli_error(co, &err);
    }
    return 0;
}

/* ---- comparisons ---- */

int cli_check_related(cli_common *co, const char *path_a, const kin_print *a,
                      const char *path_b, const kin_print *b, int by_id, int force,
                      int by_class_too, kin_stats *ks, int *related)
{
    if (related)
        *related = 0;
    memset(ks, 0, sizeof *ks);
    if (!kin_same_format(a, b))
        return cli_fail(co, LR_ERR_USAGE,
                        "%s is %s, %s is %s: only snapshots of one format can be compared",
                        path_a, a->format, path_b, b->format);
    char why[256];
    int ok = kin_compare(a, b, by_id, ks, why, sizeof why);
    if (related)
        *related = ok;
    if (ok) {
        if (kin_v8_opts_differ(a, b, why, sizeof why)) /* in --json's warnings too */
            cli_warn(co, "%s and %s: %s; take both the same way", path_a, path_b, why);
        return 0;
    }
    if (!force)
        return cli_fail(co, LR_ERR_USAGE, "%s and %s: %s (%s--force compares them anyway)",
                        path_a, path_b, why,
                        by_class_too ? "--by-class compares them class by class; " : "");
    cli_warn(co, "%s and %s: %s; compared as asked (--force)", path_a, path_b, why);
    return 0;
}

int cli_pair_watches(const cli_common *co, const cli_strlist *watches, const cli_strlist *ifs,
                     const char **conds)
{
    for (int w = 0; w < watches->n; w++)
        conds[w] = NULL;
    for (int k = 0; k < ifs->n; k++) {
        int w = -1;
        while (w + 1 < watches->n && watches->at[w + 1] < ifs->at[k])
            w++;
        if (w < 0)
            return cli_usage_error(co, "--leaking-if needs a --watch CLASS before it");
        if (conds[w])
            return cli_usage_error(co, "--watch %s has two --leaking-if: join them with && "
                                   "(each --leaking-if goes with the --watch before it)",
                                   watches->v[w]);
        conds[w] = ifs->v[k];
    }
    return CLI_CONTINUE;
}

void cli_mkdirs(const char *dir)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
        return;
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

const char *cli_hidden_hint(const graph *g, char *buf, size_t cap, const char *cls)
{
    const char *slash = strstr(cls, "/0x");
    char nested[256];
    if (!slash && graph_find_nested(g, cls, nested, sizeof nested) != GRAPH_NONE)
        snprintf(buf, cap, " (a nested class is written with '$': %s)", nested);
    else if (!slash)
        snprintf(buf, cap, "%s", "");
    else
        snprintf(buf, cap, " (a heap dump writes a hidden class's name with '+' where the "
                 "JVM's has '/': %.*s+0x...)", (int)(slash - cls), cls);
    return buf;
}

const char *cli_dump_class(const graph *g, const char *name, char *buf, size_t cap)
{
    const char *slash = strstr(name, "/0x");
    if (!slash || strlen(name) >= cap || graph_find_class(g, name) != GRAPH_NONE)
        return name;
    snprintf(buf, cap, "%s", name);
    buf[slash - name] = '+';
    return graph_find_class(g, buf) != GRAPH_NONE ? buf : name;
}
