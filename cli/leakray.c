/* SPDX-License-Identifier: Apache-2.0 */
/* leakray.c: the `leakray` command's entry point and verb table (cli), prefix cli_. main
 * picks the verb named by argv[1] and hands it argv[1..]; everything else (options, opening
 * dumps, output) happens in the verb and cli_common.c. Adding a verb is one file
 * cli/cmd_<verb>.c defining `int cmd_<verb>(int argc, char **argv)` plus one LR_VERB line in
 * CLI_VERBS below; the macro declares the function and builds the table from that line.
 * Exit codes are those of cli.h (0 ok, 1 findings, 2 usage, 3 bad input, 4 I/O, 5 limit). */
#include "cli.h"

#include "base/mem.h"
#include "base/mfile.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

/* ---- The verb table: one line per verb, in the order `leakray --help` lists them ---- */
#define CLI_VERBS                                                                            \
    LR_VERB(info, "format, counts, roots, heaps and diagnostics of a dump")                  \
    LR_VERB(histo, "instances and shallow bytes per class, like jmap -histo")               \
    LR_VERB(show, "one object: fields, statics, elements, referrers and GC roots")           \
    LR_VERB(clusters, "group same-type objects by origin (ArkTS clustering rules)")       \
    LR_VERB(diff, "compare two snapshots per class: new, deleted, size delta (DevTools)")   \
    LR_VERB(leaks, "three-snapshot leaks: allocated in target, alive in final, clustered")  \
    LR_VERB(strip, "zero (sanitize) or drop (shrink) primitive arrays of an HPROF dump") \
    LR_VERB(top, "biggest objects or classes by retained size (dominator tree)")          \
    LR_VERB(path, "shortest strong reference path from a GC root to an object")            \
    LR_VERB(dupes, "identical primitive arrays, bitmaps and strings, with owners and paths") \
    LR_VERB(analyze, "LeakCanary-style leak traces: watched objects, rules, leak suspects") \
    LR_VERB(threads, "threads with their stack frames and the objects their locals hold") \
    LR_VERB(cycles, "retain cycles and strongly connected objects, grouped by signature") \
    LR_VERB(convert, "write a dump as a V8 .heapsnapshot for Chrome DevTools and memlab") \
    LR_VERB(sql, "SQL over the heap: objects, classes, edges, roots, strings, fields") \
    LR_VERB(instances, "the instances of a class, filtered by field expressions, sorted") \
    LR_VERB(report, "self-contained HTML report: leaks, dominator treemap, tables")     \
    /* append new verbs above this line: LR_VERB(name, "summary") \ */

/* Commands that do not read a dump (they take subcommands of their own); listed apart in
 * `leakray --help`, since every verb above accepts FILE and the common dump options. */
#define CLI_TOOLS                                                                            \
    LR_VERB(store, "the leak store: ingest dumps and reports, leaks by signature, trends")  \
    LR_VERB(attach, "load the leak-watching JVM agent into a running JVM (jcmd)")       \
    LR_VERB(watch, "status of a JVM running the agent; the analysis it runs after a dump") \
    LR_VERB(native, "malloc leaks of a running program: run, check PID, report FILE")    \
    /* append new tools above this line: LR_VERB(name, "summary") \ */

#define LR_VERB(name, summary) int cmd_##name(int argc, char **argv);
CLI_VERBS
CLI_TOOLS
#undef LR_VERB

#define LR_VERB(name, summary) {#name, cmd_##name, summary},
static const cli_verb VERBS[] = {CLI_VERBS};
static const cli_verb TOOLS[] = {CLI_TOOLS};
#undef LR_VERB

#define N_VERBS (sizeof VERBS / sizeof VERBS[0])
#define N_TOOLS (sizeof TOOLS / sizeof TOOLS[0])

static void usage(FILE *out)
{
    fputs("usage: leakray <command> [options] FILE...\n"
          "Finds memory leaks in heap dumps (HPROF, V8 .heapsnapshot; gzip/bzip2 accepted).\n"
          "\ncommands:\n",
          out);
    for (size_t i = 0; i < N_VERBS; i++)
        fprintf(out, "  %-10s %s\n", VERBS[i].name, VERBS[i].summary);
    fputs("\ntools (no dump argument; `leakray <tool> --help` lists their commands):\n", out);
    for (size_t i = 0; i < N_TOOLS; i++)
        fprintf(out, "  %-10s %s\n", TOOLS[i].name, TOOLS[i].summary);
    fputs("\n`leakray <command> --help` describes a command and its options.\n"
          "Every command takes --json, --timing/--no-timing, --no-progress, --dump N,\n"
          "--mapping FILE, --max-inflate N, --max-memory N, --no-spill, --tmpdir DIR.\n"
          "FILE may be - (standard input) or a pipe: its bytes are copied to --tmpdir first.\n"
          "exit codes: 0 ok, 1 findings, 2 usage, 3 bad input, 4 I/O error, 5 resource limit\n",
          out);
}

static const cli_verb *find_verb(const char *name)
{
    for (size_t i = 0; i < N_VERBS; i++)
        if (strcmp(VERBS[i].name, name) == 0)
            return &VERBS[i];
    for (size_t i = 0; i < N_TOOLS; i++)
        if (strcmp(TOOLS[i].name, name) == 0)
            return &TOOLS[i];
    return NULL;
}

/* Output that never reached its destination (full disk, closed pipe) must not look like
 * success: a report silently cut short is worse than an error. */
static int finish(int rc)
{
    rc = cli_mem_finish(rc);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "leakray: writing output: %s\n", strerror(errno ? errno : EIO));
        return rc ? rc : CLI_EXIT_IO;
    }
    return rc;
}

int cli_xfsz_default;

int main(int argc, char **argv)
{
    mfile_catch_sigbus();
    mem_set_tuning(1); /* this process is leakray: malloc's settings are its own to choose */
    /* A file-size limit (ulimit -f) ends a write with EFBIG and its message, exit 4, not the
     * process with SIGXFSZ and no word; the temporary goes as on any failed write. The
     * disposition found is given back to programs this process runs (native run). */
    struct sigaction ign, found;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    cli_xfsz_default = sigaction(SIGXFSZ, &ign, &found) == 0 && found.sa_handler == SIG_DFL;
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *verb = argv[1];
    if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "help") == 0) {
        if (argc > 2 && strcmp(verb, "help") == 0) {
            const cli_verb *v = find_verb(argv[2]);
            if (v) {
                char help[] = "--help";
                char *sub[] = {argv[2], help, NULL};
                return finish(v->fn(2, sub));
            }
            fprintf(stderr, "leakray: unknown command '%s' (see leakray --help)\n", argv[2]);
            return CLI_EXIT_USAGE;
        }
        usage(stdout);
        return finish(CLI_EXIT_OK);
    }
    if (strcmp(verb, "--version") == 0 || strcmp(verb, "version") == 0) {
        printf("leakray %s\n", LR_VERSION_STRING);
        return finish(CLI_EXIT_OK);
    }
    const cli_verb *v = find_verb(verb);
    if (!v) {
        fprintf(stderr, "leakray: unknown command '%s' (see leakray --help)\n", verb);
        return CLI_EXIT_USAGE;
    }
    return finish(v->fn(argc - 1, argv + 1));
}
