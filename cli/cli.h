/* SPDX-License-Identifier: Apache-2.0 */
/* cli.h: shared plumbing of the `leakray` command (cli), prefix cli_. Each verb lives in
 * cli/cmd_<verb>.c as `int cmd_<verb>(int argc, char **argv)` (argv[0] is the verb name) and
 * is listed by one line, LR_VERB(name, "summary"), in the CLI_VERBS table of cli/leakray.c.
 * A verb declares its options in a cli_optdef table and calls cli_parse, which also handles
 * the options every verb shares (--json, --no-timing, --max-inflate, --dump, --no-progress,
 * --mapping, --help) and prints a usage text generated from the table; it then opens inputs with
 * cli_open, which prints load errors in the text or JSON form and returns the exit code.
 * Output contracts (docs/json.md):
 * - exit codes CLI_EXIT_*: 0 ok, 1 findings, 2 usage, 3 bad input, 4 I/O, 5 resource limit;
 * - errors: "leakray: <message>" on stderr, or under --json the error object on stdout:
 *   {"schema_version":1,"error":{"code":"format","exit":3,"offset":123,"message":"..."}};
 * - numbers in text output use the cli_fmt_* helpers so every verb prints sizes alike;
 * - timings appear only through cli_print_timing / cli_json_timing, silent under --no-timing,
 *   which is what makes output byte-stable for golden tests.
 * A typical verb:
 *
 *   int cmd_top(int argc, char **argv)
 *   {
 *       uint64_t n = 10;
 *       const cli_optdef opts[] = {
 *           {"--top", CLI_OPT_UINT, &n, "N", "rows to show (default 10)", NULL},
 *           {0}};
 *       const cli_spec spec = {"top", "FILE", "largest retained sizes", opts, 1, 1, NULL};
 *       cli_common co;
 *       int rc = cli_parse(argc, argv, &spec, &co);
 *       if (rc != CLI_CONTINUE)
 *           return rc;
 *       lr_heap *h;
 *       if ((rc = cli_open(&co, co.pos[0], 0, &h)) != 0)
 *           return rc;
 *       graph *g = lr_heap_graph(h);
 *       ...
 *       lr_close(h);
 *       return CLI_EXIT_OK;
 *   } */
#ifndef LR_CLI_H
#define LR_CLI_H

#include "analysis/retained.h"
#include "base/jsonw.h"
#include "graph/graph.h"
#include "leakray/leakray.h"
#include "lr_internal.h"
#include "report/fmt.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>

/* "schema_version" of every JSON document. 2: every clock reading moved under "timing"
 * (docs/json.md), which --json prints only with --timing. Otherwise keys are only added. */
#define CLI_SCHEMA_VERSION 2

/* Exit codes (stable; docs/json.md). */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FINDINGS = 1, /* --fail-on-... asked and something was found */
    CLI_EXIT_USAGE = 2,
    CLI_EXIT_INPUT = 3,    /* malformed/truncated input, invalid rules */
    CLI_EXIT_IO = 4,
    CLI_EXIT_LIMIT = 5,    /* resource limit, out of memory, internal error */
};

/* cli_parse's "keep going" answer (any other value is the exit code to return). */
#define CLI_CONTINUE (-1)

#define CLI_MAX_POS 4096 /* positional arguments a verb may take (store ingest's inputs) */
#define CLI_MAX_LIST 16 /* values of one repeatable option */
#define CLI_MAX_WARN 16 /* warnings kept for JSON */
#define CLI_WARN_MAX 512 /* bytes of one warning */

/* Option value kinds. dest points to: FLAG int (set to 1), UINT uint64_t (decimal),
 * SIZE uint64_t (decimal with optional K/M/G/T suffix, powers of 1024), INT int64_t (may be
 * negative), STR const char * (argv string, not copied), LIST cli_strlist (repeatable). */
enum cli_opt_type { CLI_OPT_FLAG, CLI_OPT_UINT, CLI_OPT_SIZE, CLI_OPT_INT, CLI_OPT_STR,
                    CLI_OPT_LIST };

typedef struct cli_strlist {
    const char *v[CLI_MAX_LIST]; /* values in command-line order (argv strings) */
    int n;                       /* values given */
    int at[CLI_MAX_LIST];        /* where each was given: its option's index in argv */
} cli_strlist;

/* One verb-specific option. Tables end with an all-zero entry. */
typedef struct cli_optdef {
    const char *name;    /* "--top" (long form; "--top=N" is accepted too) */
    int type;            /* enum cli_opt_type */
    void *dest;          /* where the value goes, see enum cli_opt_type */
    const char *metavar; /* value placeholder in usage ("N"), NULL for flags */
    const char *help;    /* one line for the usage text */
    const char *choices; /* STR only: allowed values "a|b|c", or NULL for any */
} cli_optdef;

/* A verb's command-line shape, from which cli_parse checks argv and prints usage. */
typedef struct cli_spec {
    const char *verb;       /* "histo" */
    const char *args;       /* positional synopsis, "FILE [0xID]" */
    const char *summary;    /* one line: what the verb does */
    const cli_optdef *opts; /* verb options (may be NULL) */
    int min_pos;            /* positional arguments required */
    int max_pos;            /* positional arguments accepted (<= CLI_MAX_POS) */
    const char *more;       /* extra usage paragraph (examples, notes), or NULL */
} cli_spec;

/* The options every verb shares, plus the positionals, filled by cli_parse. */
typedef struct cli_common {
    int json;                   /* --json: one JSON document on stdout */
    int no_timing;              /* omit timings: --no-timing, or --json without --timing */
    int timing;                 /* --timing: timings in JSON too */
    int no_progress;            /* --no-progress: never draw the progress bar */
    uint64_t max_inflate;       /* --max-inflate N: cap on decompressed bytes (0 = default) */
    const char *tmpdir;         /* --tmpdir DIR: folder for inflated gzip/bzip2 input */
    uint64_t max_memory;        /* --max-memory N: bound on allocated bytes (0 = default) */
    int no_spill;               /* --no-spill: no large array spills past --max-memory */
    int64_t dump_index;         /* --dump N: heap dump of a multi-dump HPROF (-1 = default) */
    const char *mapping;        /* --mapping FILE: ProGuard/R8 mapping cli_open applies */
    const char *mapping2;       /* a second --mapping: the second dump's (diff of two builds,
                                 * each with its own mapping); mapping is then the first's */
    unsigned n_opened;          /* dumps cli_open loaded: which mapping the next one takes */
    unsigned mapping_flags;     /* MAPPING_* flags for it (analyze: MAPPING_KEEP_ARRAYS) */
    int registry_native_only;   /* cli_open credits Android's registry sizes but not direct
                                 * buffers' (analyze --size-model shark: Shark's rule) */
    const char *pos[CLI_MAX_POS]; /* positional arguments (argv strings) */
    int n_pos;                  /* positional arguments given */
    const cli_spec *spec;       /* the verb's spec (for cli_usage_error) */
    double load_ms;             /* wall time of the last cli_open, milliseconds */
    double load_ms_total;       /* sum over all cli_open calls */
    int n_truncated;            /* inputs cli_open found cut short (DIAG_TRUNCATED) */
    char warn[CLI_MAX_WARN][CLI_WARN_MAX]; /* warnings given (cli_warn), for JSON */
    int n_warn;                 /* warnings given (those past CLI_MAX_WARN are only printed) */
} cli_common;

/* Prints "leakray: warning: <message>" on stderr and keeps the message for the "warnings"
 * array cli_json_end writes. A warning is something the user most likely mistyped (a class
 * the dump does not have...): verbs turn warnings into exit 2 under --strict. */
void cli_warn(cli_common *co, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses argv (argv[0] = verb name) against spec plus the common options. Options and
 * positionals may be interleaved; "--" ends options. Returns CLI_CONTINUE when the verb
 * should run, CLI_EXIT_OK after printing usage for --help/-h (stdout), or CLI_EXIT_USAGE
 * after printing the problem on stderr in one line ending "(see leakray VERB --help)" (plus,
 * when --json was given, the JSON error object on stdout). */
int cli_parse(int argc, char **argv, const cli_spec *spec, cli_common *co);

/* Prints the verb's usage text to out. */
void cli_usage(const cli_spec *spec, FILE *out);

/* Runs this executable (/proc/self/exe) as args[0] args[1] (the verb) with co's resource
 * options (--max-memory, --max-inflate, --dump, --no-spill, --tmpdir) and then args[2..]
 * (NULL-terminated, fewer than CLI_RUN_ARGS: more is refused), its stdout on out_fd or, with
 * out_path, that file created. The child gets SIGTERM when this process ends, however it
 * ends. Returns its pid, or -1 with msg set. */
#define CLI_RUN_ARGS (16 + 2 * CLI_MAX_LIST)
pid_t cli_run_self(const cli_common *co, const char *const *args, int out_fd,
                   const char *out_path, char *msg, size_t cap);

/* The "message" of a --json error document doc (a child leakray's), unescaped enough to
 * read, into out; "analysis failed" when doc holds none. */
void cli_json_error_message(const char *doc, char *out, size_t cap);

/* With --subclasses on a dump whose classes have no superclass at all (V8, Ruby): says on
 * stderr that only cls itself is counted ("N instances of C and subclasses" claimed more) and
 * returns 1, for the caller to drop "and subclasses" from its title; else 0. */
int cli_warn_subclasses(cli_common *co, const graph *g, const char *cls);

/* --detached's check: 0 when g (read from path) is a browser page's snapshot, which alone
 * holds DOM nodes, else a usage error. Node's snapshots mark some of their own binding objects
 * detached; listing them as detached DOM would mislead. */
int cli_need_dom(const cli_common *co, const graph *g, const char *path);

/* Reports a usage problem found by the verb after parsing (bad combination of options,
 * malformed object id...): one line on stderr, JSON error under --json. Returns
 * CLI_EXIT_USAGE. fmt is printf-style. */
int cli_usage_error(const cli_common *co, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* --watch CLASS [--leaking-if EXPR] pairs: each --leaking-if goes with the --watch given last
 * before it, so conds[i] (watches->n entries) is watches->v[i]'s condition or NULL. A
 * --leaking-if before any --watch, or a second one for the same --watch, is a usage error
 * (returned as the exit code; CLI_CONTINUE when the pairs are fine). */
/* Makes folder dir and the folders above it that are missing (mkdir -p); what cannot be
 * made is left for the write into it to report. */
void cli_mkdirs(const char *dir);
int cli_pair_watches(const cli_common *co, const cli_strlist *watches, const cli_strlist *ifs,
                     const char **conds);

/* Verbs that write one file OUT (strip, convert) through base/outfile.h: the -o/--output
 * option pair for their cli_optdef table, the sentence their usage text shares, and
 * cli_parse plus the "missing -o OUT" check (same return values as cli_parse). */
#define CLI_OPTS_OUTPUT(dest, help)                             \
    {"-o", CLI_OPT_STR, (dest), "OUT", (help), NULL},           \
    {"--output", CLI_OPT_STR, (dest), "OUT", "same as -o", NULL}
#define CLI_OUTPUT_NOTE \
    "OUT is written to a temporary file beside it and renamed only on success.\n"
int cli_parse_output(int argc, char **argv, const cli_spec *spec, cli_common *co,
                     const char *const *out);
/* -o - means standard output (base/outfile.h): the written data is then the verb's only
 * output, and the line (or JSON) saying what was written is left out. */
#define CLI_STDOUT_NOTE "OUT - writes it to stdout instead, and nothing else goes there.\n"
int cli_out_stdout(const char *out);
/* Whether writing the output out would replace the file at path (the same file, through
 * another name or a link too): the output replaces its target at the end, so naming an
 * input there would destroy it. */
int cli_out_is(const char *out, const char *path);

/* A native scan report (`native run --keep`) as its --json document, what the store ingests
 * of it (*doc malloc'd, *len bytes); CLI_EXIT_OK, else the exit code and msg. */
int cli_native_scan_json(const char *path, uint64_t max_inflate, char **doc, size_t *len,
                         char *msg, size_t cap);

/* Flags for cli_open. */
/* NO_EDGES: nodes and classes only (fast path for histo-like verbs); COUNT_EDGES: references
 * counted and checked, not kept (info) */
enum { CLI_OPEN_NO_EDGES = 1, CLI_OPEN_COUNT_EDGES = 2 };

/* Loads path with the common options (--max-inflate, --dump, --mapping, progress when stderr
 * is a TTY and neither --json nor --no-progress). On success returns 0 and *out (free:
 * lr_close) and records co->load_ms. On failure prints the error (cli_error) and returns its
 * exit code. */
int cli_open(cli_common *co, const char *path, unsigned flags, lr_heap **out);

/* Prints err ("leakray: <msg>" on stderr, or the JSON error object on stdout under --json)
 * and returns lr_exit_code(err->code). */
int cli_error(const cli_common *co, const lr_error *err);

/* When an allocation was refused under --max-memory (base/mem) and no error said so yet:
 * prints the limit's message on stderr (phase, size asked for, bytes in use) and returns
 * CLI_EXIT_LIMIT; otherwise returns rc. main calls it last, so a run that went on after a
 * refusal never exits 0 with output computed short of memory. */
int cli_mem_finish(int rc);

/* Same for a failure the verb detects itself (e.g. LR_ERR_NOT_FOUND for a missing object). */
int cli_fail(const cli_common *co, lr_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Stable lowercase key of a status for JSON ("format", "io", "not_found", ...). */
const char *cli_status_key(lr_status s);

/* ---- JSON documents ---- */

/* Starts a JSON document on stdout: opens the top object and writes "schema_version".
 * The verb then writes its keys and calls cli_json_end. */
void cli_json_begin(jsonw *w);
/* Writes "warnings" (when cli_warn gave any), "timing" (under --timing), closes the top
 * object and ends the line. */
void cli_json_end(const cli_common *co, jsonw *w);
/* Same, with the verb's own phase in "timing" too: {"load_ms": .., "<phase_key>": ms}. */
void cli_json_end_phase(const cli_common *co, jsonw *w, const char *phase_key, double ms);

/* ---- timing ---- */

/* Monotonic milliseconds, for measuring phases. */
/* Nonzero when a verb about to return its exit code may leave its big arrays and the input's
 * mapping to the process's exit, which takes them back anyway and sooner (freeing them first
 * is an munmap per array). 0 under AddressSanitizer or ThreadSanitizer (LeakSanitizer reports
 * whatever is not freed) and when LEAKRAY_EXIT_FREES is set (valgrind, heap profilers). The
 * library (lr_close) frees everything in any build. */
int cli_exit_keeps_heap(void);
double cli_now_ms(void);
/* Prints "<what>: 1.234 s" (or ms below 1 s) on its own line to out, unless --no-timing. */
void cli_print_timing(const cli_common *co, FILE *out, const char *what, double ms);
/* Under --json --timing: writes "timing": {"load_ms": ...} (cli_json_end does it). */
void cli_json_timing(const cli_common *co, jsonw *w);

/* ---- formatting (all write into buf and return it; buf needs CLI_FMT_MAX bytes) ----
 * The report layer's formatters (report/fmt.h, rep_fmt_*) under the names the verbs use; the
 * convention for sizes is described there. */

#define CLI_FMT_MAX REP_FMT_MAX

/* 1234567 -> "1,234,567". */
const char *cli_fmt_count(char *buf, uint64_t n);
/* Bytes for people: below 1 kB "512 B", else one decimal with SI units: "1.2 kB",
 * "3.4 MB", "5.6 GB" (1 kB = 1000 B). */
const char *cli_fmt_human(char *buf, uint64_t bytes);
/* "1,234,567 bytes (1.2 MB)" as info/show print sizes; just "512 bytes" below 1 kB. */
const char *cli_fmt_bytes(char *buf, uint64_t bytes);
/* part of whole as "12.3%" ("-" when whole is 0). */
const char *cli_fmt_pct(char *buf, uint64_t part, uint64_t whole);
/* A DevTools distance as DevTools shows it: the number, or U+2212 (minus sign) for objects
 * unreachable or reached only through the synthetic root (distance >= 100000000). */
const char *cli_fmt_distance(char *buf, int32_t distance);
/* An object id as users type it back to `show`: "0x7f00ab" for HPROF (id_size != 0),
 * "@1234" for V8-like graphs whose ids are node numbers. */
const char *cli_fmt_id(char *buf, const graph *g, uint64_t id);
/* "" or, for a class name the JVM gives a hidden class (Foo$$Lambda/0x12: Class.getName(),
 * jmap -histo), " (a heap dump writes ...: Foo$$Lambda+0x...)", or for a nested class named
 * as source code names it (app.Repo.Companion) the dump's name (app.Repo$Companion), into
 * buf: what a "no class named" message adds */
const char *cli_hidden_hint(const graph *g, char *buf, size_t cap, const char *cls);
/* The dump's name of class `name`: name itself, or, when the dump has no class of that name
 * but has the hidden class the JVM names so (Foo$$Lambda/0x12, which a heap dump writes
 * Foo$$Lambda+0x12), that one, in buf. */
const char *cli_dump_class(const graph *g, const char *name, char *buf, size_t cap);
/* Parses an id typed by a user: "0x1f", "@123" (V8 node id), "123" (decimal). Returns 1 and
 * *out, or 0 if s is not a number. */
int cli_parse_id(const char *s, uint64_t *out);
/* Parses "123", "64K", "2M", "1G", "1T" (powers of 1024) into *out. Returns 1, or 0 on
 * garbage or overflow. */
int cli_parse_size(const char *s, uint64_t *out);

/* Writes s for a terminal: printable ASCII and valid UTF-8 as is, control characters and
 * stray bytes as \n, \t, \xNN. At most max_bytes of s are shown, then "..." is added. */
void cli_put_text(FILE *out, const char *s, size_t len, size_t max_bytes);

/* --collapse [--categories NAME|FILE] of analyze and path: initialises *cs and, when collapse
 * is set, loads the categories (flutter by default). Returns 0, or the exit code after printing
 * the error (cs is then finalised). */
struct cat_set;
int cli_categories(const cli_common *co, int collapse, const char *categories,
                   struct cat_set *cs);

/* ---- retained sizes as `top` computes them by default (analysis/retained.h) ---- */

/* The dump's one retained-size model, the same in top, show, analyze's suspects and threads'
 * totals (ret_build with the snapshot's class keys). Returns LR_OK (free: cli_retained_free)
 * or fills err. */
typedef ret_model cli_retained;
lr_status cli_retained_build(const graph *g, cli_retained *r, lr_error *err);
void cli_retained_free(cli_retained *r);

/* The leak store used without --db: $LEAKRAY_DB, else $XDG_DATA_HOME/leakray/store.db
 * (~/.local/share/leakray/store.db; the folder is created). Returns buf or the variable. */
const char *cli_store_default(char *buf, size_t cap);
/* Why url names no store file ("" or SQLite's ":memory:": gone at exit), or NULL. */
const char *cli_store_no_file(const char *url);
/* The dump time an analysis names (analyze --json's top-level "timestamp_ms", among its
 * first keys), or 0 when it names none: what the store dates a dump by. */
int64_t cli_store_doc_time(const char *doc, size_t len);

/* ---- comparisons (diff, leaks) ---- */

struct kin_print;
struct kin_stats;
/* Refuses to compare two snapshots that cannot be compared: formats differ (always), or they
 * do not plausibly come from one process (analysis/kinship.h), unless force. Prints the reason
 * ("leakray: A and B: ...") and returns CLI_EXIT_USAGE; returns 0 when the comparison may go
 * on, after a warning on stderr when force overrode the process check. *related (may be NULL)
 * is set to whether the process check passed. by_id: the comparison will follow objects by
 * id (else two runs of one program compare per class, and only the program is checked).
 * by_class_too: the verb can compare per class instead (`diff --by-class`), and the refusal
 * says so: between two processes --force matches ids that coincide by chance. */
int cli_check_related(cli_common *co, const char *path_a, const struct kin_print *a,
                      const char *path_b, const struct kin_print *b, int by_id, int force,
                      int by_class_too, struct kin_stats *ks, int *related);

/* Whether SIGXFSZ was at its default action when the process started (leakray.c ignores
 * it): a program `native run` starts gets the default back. */
extern int cli_xfsz_default;

/* ---- the verb table (cli/leakray.c) ---- */

typedef int (*cli_verb_fn)(int argc, char **argv);

typedef struct cli_verb {
    const char *name;    /* "histo" */
    cli_verb_fn fn;      /* cmd_histo */
    const char *summary; /* one line for `leakray --help` */
} cli_verb;

#endif
