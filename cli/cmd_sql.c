/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_sql.c: `leakray sql FILE "SELECT ..."` (cli), prefix sql_. Runs SQL statements (given
 * as an argument, with --sql-file, or on stdin) against the virtual tables of src/query/
 * over the loaded dump and hands each statement's rows (query/result.h) to the report
 * layer (report/table.h): an aligned table on a terminal, tab-separated values otherwise,
 * --csv (RFC 4180) or --json. Rows are kept until the statement ends so the table can be
 * aligned and a cap can be reported before any row of the statement is printed: past
 * --max-rows the statement fails with one line and exit 2, never a silently partial answer.
 * --max-rows 0 streams rows without keeping them. Bad SQL and unknown tables or columns are
 * SQLite's one-line message, exit 2. This file keeps the options, the statement loop, the
 * errors and the JSON envelope. docs/sql.md. */
#include "cli.h"
#include "format/ruby.h"
#include "format/v8.h"
#include "query/query.h"
#include "query/result.h"
#include "report/table.h"

#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define SQL_DEFAULT_MAX_ROWS 100000
#define SQL_MAX_TEXT (64u << 20) /* bytes of SQL read from a file or stdin */
#define SQL_STREAM_COLS 64       /* columns of a streamed row held on the stack */

/* One run's output: the renderer's state and the JSON document, opened at the first result
 * (an error before any result is then the CLI's own error document). */
typedef struct sql_out {
    rep_table t;    /* mode, blank lines, the "results" array */
    jsonw w;        /* the JSON document (REP_TABLE_JSON) */
    int json_begun; /* the document and its "results" array are open */
} sql_out;

static void sql_json_begin(sql_out *o)
{
    if (o->json_begun)
        return;
    cli_json_begin(&o->w);
    o->t.w = &o->w;
    rep_table_json_open(&o->t);
    o->json_begun = 1;
}

/* ---- errors ---- */

/* Prints a failed statement's message (SQLite's, or leakray's own for a lazy analysis) and
 * returns the exit code: 2 for the query's fault, 5 for memory or an interrupt. Under --json
 * after a first result, the error closes the document's "results". */
static int sql_fail(const cli_common *co, sql_out *o, query_db *q, int rc, const char *msg,
                    int offset)
{
    const lr_error *le = query_last_error(q);
    lr_status code = le->code != LR_OK ? le->code
                     : rc == SQLITE_NOMEM || rc == SQLITE_INTERRUPT ? LR_ERR_LIMIT
                                                                     : LR_ERR_USAGE;
    char text[LR_ERROR_MSG_MAX + 64];
    if (le->code != LR_OK)
        snprintf(text, sizeof text, "%s", le->msg);
    else if (offset >= 0)
        snprintf(text, sizeof text, "sql: %s (at byte %d of the SQL)", msg, offset);
    else
        snprintf(text, sizeof text, "sql: %s", msg);
    if (o->t.mode == REP_TABLE_JSON && o->json_begun) {
        rep_table_json_error(&o->t, cli_status_key(code), lr_exit_code(code), text);
        cli_json_end(co, &o->w);
        o->json_begun = 0;
        return lr_exit_code(code);
    }
    return cli_fail(co, code, "%s", text);
}

/* SQLite gives no offset for an unknown table or function: the first place the statement
 * names it as a word (case-insensitively, outside no quoting rules: a hint, not a parse), or
 * -1. */
static int sql_name_offset(const char *stmt, const char *msg)
{
    static const char *const pre[] = {"no such table: ", "no such function: "};
    for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++) {
        size_t pl = strlen(pre[k]);
        if (strncmp(msg, pre[k], pl) != 0)
            continue;
        const char *name = msg + pl, *dot = strrchr(name, '.');
        if (dot) /* "main.nope": the statement may name it without its schema */
            name = dot + 1;
        size_t nl = strlen(name);
        for (const char *q = stmt; nl && *q; q++) {
            int word_start = q == stmt || !(isalnum((unsigned char)q[-1]) || q[-1] == '_');
            if (word_start && strncasecmp(q, name, nl) == 0 &&
                !(isalnum((unsigned char)q[nl]) || q[nl] == '_'))
                return (int)(q - stmt);
        }
    }
    return -1;
}

/* ---- one statement ---- */

/* Rows as they come, nothing kept (--max-rows 0). Returns 0 or the exit code. */
static int sql_stream(const cli_common *co, sql_out *o, query_db *q, sqlite3_stmt *st,
                      query_result *r, double t0)
{
    query_cell row_stack[SQL_STREAM_COLS];
    query_cell *row = r->n_cols <= SQL_STREAM_COLS ? row_stack
                                                   : malloc(r->n_cols * sizeof *row);
    if (!row)
        return cli_fail(co, LR_ERR_NOMEM, "sql: out of memory");
    if (o->t.mode == REP_TABLE_ALIGNED) /* widths need every row: TSV on a terminal too */
        o->t.mode = REP_TABLE_TSV;
    if (o->t.mode == REP_TABLE_JSON)
        sql_json_begin(o);
    rep_table_begin(&o->t, r);
    int rc, how;
    while ((how = query_next(r, st, row, &rc)) == QUERY_STEP_ROW)
        rep_table_row(&o->t, r, row);
    rep_table_end(&o->t, r, how == QUERY_STEP_DONE, cli_now_ms() - t0);
    if (row != row_stack)
        free(row);
    return how == QUERY_STEP_DONE ? 0
                                  : sql_fail(co, o, q, rc, sqlite3_errmsg(query_sqlite(q)), -1);
}

/* Runs st and prints its rows. Returns 0 or the exit code after printing the error. */
static int sql_run(const cli_common *co, sql_out *o, query_db *q, sqlite3_stmt *st,
                   uint64_t max_rows)
{
    sqlite3 *db = query_sqlite(q);
    double t0 = cli_now_ms();
    int rc, how;
    if (sqlite3_column_count(st) == 0) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            ;
        return rc == SQLITE_DONE ? 0 : sql_fail(co, o, q, rc, sqlite3_errmsg(db), -1);
    }
    query_result r;
    if (query_result_init(&r, st) != 0)
        return cli_fail(co, LR_ERR_NOMEM, "sql: out of memory");
    if (max_rows == 0) {
        rc = sql_stream(co, o, q, st, &r, t0);
        query_result_free(&r);
        return rc;
    }
    how = query_collect(&r, st, max_rows, &rc);
    uint64_t n = r.n_rows;
    if (how == QUERY_STEP_DONE) {
        if (o->t.mode == REP_TABLE_JSON)
            sql_json_begin(o);
        rep_table_result(&o->t, &r, cli_now_ms() - t0);
    }
    query_result_free(&r);
    if (how == QUERY_STEP_CAP) {
        char msg[200];
        snprintf(msg, sizeof msg, "the result has more than %" PRIu64 " rows (--max-rows; "
                 "raise it, 0 = no cap, or add LIMIT)", max_rows);
        return sql_fail(co, o, q, SQLITE_ERROR, msg, -1);
    }
    if (how == QUERY_STEP_NOMEM && rc == 0)
        return cli_fail(co, LR_ERR_NOMEM, "sql: out of memory for %" PRIu64 " rows", n);
    if (how == QUERY_STEP_NOMEM)
        return cli_fail(co, LR_ERR_NOMEM, "sql: out of memory for row %" PRIu64, n + 1);
    if (how == QUERY_STEP_FAILED)
        return sql_fail(co, o, q, rc, sqlite3_errmsg(db), -1);
    return 0;
}

/* ---- V8 allocation stacks for the stacks table (format/v8.h, which src/query/ cannot
 * include) ---- */

static int sql_has_stack(const graph *g, node_ix v)
{
    return v8_trace_node(g, v) != 0;
}

static int sql_get_stack(const graph *g, node_ix v, query_frame *out, uint32_t cap, uint32_t *n)
{
    v8_frame fr[64];
    lr_error err = {.offset = LR_NO_OFFSET};
    uint32_t k = cap < 64 ? cap : 64;
    if (v8_alloc_stack(g, v, fr, k, n, &err) != LR_OK)
        return -1;
    if (*n > k)
        *n = k; /* the deepest frames beyond 64 are left out */
    for (uint32_t i = 0; i < *n; i++)
        out[i] = (query_frame){fr[i].name, fr[i].script, fr[i].script_id, fr[i].line,
                               fr[i].column};
    return 0;
}

static const query_stacks sql_stacks = {sql_has_stack, sql_get_stack};

/* A Ruby dump's allocation site (trace_object_allocations_start) as a stack of one frame:
 * `SELECT script, line, count(*) FROM stacks GROUP BY 1, 2` is heapy's view. */
static int sql_has_site(const graph *g, node_ix v)
{
    return ruby_site_of(g, v) != 0;
}

static int sql_get_site(const graph *g, node_ix v, query_frame *out, uint32_t cap, uint32_t *n)
{
    const ruby_site *s = ruby_site_get(g, ruby_site_of(g, v));
    *n = 0;
    if (s && cap) {
        out[0] = (query_frame){s->method, s->file, 0, s->line, 0};
        *n = 1;
    }
    return 0;
}

static const query_stacks sql_sites = {sql_has_site, sql_get_site};

/* ---- the verb ---- */

/* Reads all of f (at most SQL_MAX_TEXT bytes) into a NUL-terminated buffer (free: caller). */
static char *sql_slurp(FILE *f)
{
    size_t n = 0, cap = 4096;
    char *s = malloc(cap);
    while (s) {
        n += fread(s + n, 1, cap - 1 - n, f);
        if (n < cap - 1 || cap > SQL_MAX_TEXT)
            break;
        char *t = realloc(s, cap * 2);
        if (!t) {
            free(s);
            return NULL;
        }
        s = t;
        cap *= 2;
    }
    if (s)
        s[n] = 0;
    return s;
}

/* --timeout's bound where SQLite's interrupt is not asked (inside one function call):
 * async-signal-safe, so a message by write(2) and _exit. */
static char sql_timeout_msg[200];

static void sql_hard_timeout(int sig)
{
    (void)sig;
    ssize_t w = write(STDERR_FILENO, sql_timeout_msg, strlen(sql_timeout_msg));
    (void)w;
    _exit(5);
}

int cmd_sql(int argc, char **argv)
{
    const char *sql_file = NULL, *model = NULL;
    int csv = 0;
    uint64_t max_rows = SQL_DEFAULT_MAX_ROWS, timeout = 0;
    const cli_optdef opts[] = {
        {"--sql-file", CLI_OPT_STR, &sql_file, "F", "read the statements from file F", NULL},
        {"--csv", CLI_OPT_FLAG, &csv, NULL, "comma-separated values (RFC 4180)", NULL},
        {"--max-rows", CLI_OPT_UINT, &max_rows, "N",
         "fail a statement returning more than N rows (default 100000; 0 = no cap, streamed)",
         NULL},
        {"--timeout", CLI_OPT_UINT, &timeout, "S",
         "stop the statements after S seconds of running, exit 5 (default 0: no limit)", NULL},
        {"--model", CLI_OPT_STR, &model, "M",
         "retained sizes and dominators as `top --model`: visualvm, strong or devtools",
         "visualvm|strong|devtools"},
        {0}};
    const cli_spec spec = {
        "sql", "FILE [SQL]", "SQL over the heap: objects, classes, edges, roots, strings, fields, "
        "elements.",
        opts, 1, 2,
        "Statements come from SQL, --sql-file F, or stdin. Tables (docs/sql.md):\n"
        "  objects(id, class, kind, shallow, retained, dominator, distance, heap, reachable,\n"
        "          location, dom, name, native, class_id, length)\n"
        "  classes(id, name, super, loader, instances, shallow, retained, location)\n"
        "  edges(src, dst, name, kind, strength)   roots(id, kind, thread, frame, title)\n"
        "  strings(id, value, complete)   fields(id, name, type, value, ref)\n"
        "  elements(id, idx, type, value, ref)   (arrays' contents)\n"
        "  stacks(id, depth, function, script, line, column)   (V8 allocation stacks; a Ruby\n"
        "      dump's allocation sites: one frame, the method, file and line)\n"
        "Functions: isa(class, ancestor), field(id, 'a.b[2]'). Ids are integers: write 0x1f.\n"
        "Lookups, not scans: objects.id, objects.class, edges.src, edges.dst (referrers).\n"
        "Example: leakray sql app.hprof \"SELECT class, count(*), sum(retained) FROM objects\n"
        "         GROUP BY class ORDER BY 3 DESC LIMIT 20\""};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (co.n_pos == 2 && sql_file)
        return cli_usage_error(&co, "give the SQL either as an argument or with --sql-file");
    if (co.n_pos == 1 && !sql_file && strcmp(co.pos[0], "-") == 0)
        return cli_usage_error(&co, "the dump is read from standard input: give the SQL as an "
                                    "argument or with --sql-file");
    char *text = NULL;
    if (co.n_pos == 2) {
        text = strdup(co.pos[1]);
    } else {
        FILE *f = sql_file ? fopen(sql_file, "r") : stdin;
        if (!f)
            return cli_fail(&co, LR_ERR_IO, "%s: cannot open", sql_file);
        text = sql_slurp(f);
        if (f != stdin)
            fclose(f);
    }
    if (!text)
        return cli_fail(&co, LR_ERR_NOMEM, "sql: out of memory for the statements");

    lr_heap *lh;
    if ((rc = cli_open(&co, co.pos[0], 0, &lh)) != 0) {
        free(text);
        return rc;
    }
    graph *g = lr_heap_graph(lh);
    lr_error err = {.offset = LR_NO_OFFSET};
    query_opts qo = {0};
    int is_v8 = v8_class_keys(g) && g->synthetic_root != GRAPH_NONE;
    query_db *q = NULL;
    sqlite3_stmt *st = NULL;
    if (model && strcmp(model, "devtools") == 0 && !is_v8) {
        rc = cli_usage_error(&co, "--model devtools needs a V8/Node/ArkTS heap snapshot");
        goto out;
    }
    /* VisualVM's model is a Java heap's (fields, array elements, statics): on a snapshot it
     * followed almost nothing (33 of 39,219 objects reachable) */
    if (model && strcmp(model, "visualvm") == 0 && !(g->format && !strcmp(g->format, "hprof"))) {
        rc = cli_usage_error(&co, "--model visualvm needs an HPROF dump");
        goto out;
    }
    qo.max_ms = timeout > UINT64_MAX / 1000 ? UINT64_MAX : timeout * 1000;
    qo.class_keys = v8_class_keys(g);
    if (v8_has_traces(g))
        qo.stacks = &sql_stacks;
    else if (g->format && !strcmp(g->format, "ruby"))
        qo.stacks = &sql_sites;
    if (is_v8 && (!model || strcmp(model, "devtools") == 0)) {
        qo.model = QUERY_MODEL_DEVTOOLS;
    } else {
        /* as `top`: HotSpot dumps follow VisualVM, the peer their numbers must equal */
        int vvm = model ? strcmp(model, "visualvm") == 0
                        : g->size_model == GRAPH_SIZES_VISUALVM;
        qo.model = vvm ? QUERY_MODEL_VISUALVM : QUERY_MODEL_STRONG;
    }
    if (query_open(g, &qo, &q, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    sql_out o = {.t = {.mode = co.json ? REP_TABLE_JSON
                               : csv ? REP_TABLE_CSV
                               : isatty(STDOUT_FILENO) ? REP_TABLE_ALIGNED : REP_TABLE_TSV,
                       .out = stdout,
                       .no_timing = co.no_timing}};
    sqlite3 *db = query_sqlite(q);
    const char *p = text;
    double t0 = cli_now_ms();
    /* SQLite's interrupt is asked between its steps: one function call over a large value
     * (instr() of two hex()'d blobs) ran 30 s under --timeout 2. A second late, the process
     * stops itself. */
    if (timeout) {
        snprintf(sql_timeout_msg, sizeof sql_timeout_msg, "leakray sql: the statements ran "
                 "past the time limit (%llu s), in one call SQLite could not interrupt: "
                 "stopped\n", (unsigned long long)timeout);
        signal(SIGALRM, sql_hard_timeout);
        alarm(timeout > 86400 ? 86401 : (unsigned)timeout + 1);
    }
    int n_stmt = 0;
    while (*p) {
        const char *tail = NULL;
        int prc = sqlite3_prepare_v2(db, p, -1, &st, &tail);
        if (prc != SQLITE_OK) {
            int off = sqlite3_error_offset(db);
            if (off < 0)
                off = sql_name_offset(p, sqlite3_errmsg(db));
            /* SQLite names no token when the statement stops early: the SQL ended there */
            if (off < 0 && strcmp(sqlite3_errmsg(db), "incomplete input") == 0)
                off = (int)strlen(p);
            if (off >= 0)
                off += (int)(p - text);
            rc = sql_fail(&co, &o, q, prc, sqlite3_errmsg(db), off);
            goto out;
        }
        p = tail;
        if (!st) /* whitespace or a comment */
            continue;
        n_stmt++;
        if ((rc = sql_run(&co, &o, q, st, max_rows)) != 0)
            goto out;
        sqlite3_finalize(st);
        st = NULL;
    }
    if (n_stmt == 0) {
        rc = cli_usage_error(&co, "no SQL statement given");
        goto out;
    }
    double q_ms = cli_now_ms() - t0;
    if (o.t.mode == REP_TABLE_JSON) {
        sql_json_begin(&o);
        rep_table_json_close(&o.t);
        cli_json_end(&co, &o.w);
    } else if (o.t.mode == REP_TABLE_ALIGNED) {
        cli_print_timing(&co, stdout, "load time", co.load_ms);
        cli_print_timing(&co, stdout, "query", q_ms);
    }
    rc = CLI_EXIT_OK;
out:
    if (timeout)
        alarm(0);
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    sqlite3_finalize(st);
    query_close(q);
    lr_close(lh);
    free(text);
    return rc;
}
