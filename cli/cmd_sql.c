/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_sql.c: `leakray sql FILE "SELECT ..."` (cli), prefix sql_. Runs SQL statements (given
 * as an argument, with --sql-file, or on stdin) against the virtual tables of src/query/
 * over the loaded dump, and prints each statement's rows: an aligned table on a terminal,
 * tab-separated values otherwise, --csv (RFC 4180) or --json. Rows are kept until the
 * statement ends so the table can be aligned and a cap can be reported before any row of
 * the statement is printed: past --max-rows the statement fails with one line and exit 2,
 * never a silently partial answer. --max-rows 0 streams rows without keeping them. Bad SQL
 * and unknown tables or columns are SQLite's one-line message, exit 2. docs/sql.md. */
#include "cli.h"
#include "format/v8.h"
#include "query/query.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SQL_DEFAULT_MAX_ROWS 100000
#define SQL_MAX_TEXT (64u << 20) /* bytes of SQL read from a file or stdin */
#define SQL_CELL_SHOW 200        /* bytes of one text value shown in a table cell */

enum sql_fmt { SQL_TABLE, SQL_TSV, SQL_CSV, SQL_JSON };

/* One kept value (a copy: SQLite's memory changes at the next step). */
typedef struct sql_cell {
    int type;    /* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL */
    int64_t i;   /* integer value */
    double d;    /* real value */
    char *s;     /* text/blob bytes (owned), NULL otherwise */
    size_t len;  /* bytes in s */
} sql_cell;

typedef struct sql_out {
    enum sql_fmt fmt;
    jsonw w;           /* JSON document (SQL_JSON) */
    int json_begun;    /* the document and its "results" array are open */
    uint64_t shown;    /* statements with columns printed so far */
    double t0;         /* when the current statement started (cli_now_ms) */
} sql_out;

/* Under --json with --timing: the statement's wall time, sub-millisecond. */
static void sql_json_time(const cli_common *co, sql_out *o)
{
    if (co->no_timing)
        return;
    jsonw_key(&o->w, "time_ms");
    jsonw_double(&o->w, (double)(int64_t)((cli_now_ms() - o->t0) * 1000 + 0.5) / 1000);
}

/* ---- rendering one value ---- */

/* Text of a non-text cell into buf ("" for NULL under CSV, "NULL" otherwise). */
static const char *sql_scalar(const sql_cell *c, enum sql_fmt fmt, char *buf, size_t cap)
{
    switch (c->type) {
    case SQLITE_INTEGER:
        snprintf(buf, cap, "%" PRId64, c->i);
        return buf;
    case SQLITE_FLOAT:
        snprintf(buf, cap, "%.15g", c->d);
        return buf;
    case SQLITE_NULL:
        return fmt == SQL_CSV ? "" : "NULL";
    default:
        return NULL;
    }
}

/* A text cell for a table or TSV: control characters escaped, at most SQL_CELL_SHOW bytes
 * (then "..."), into buf (cap >= 4 * SQL_CELL_SHOW + 8). Returns its display width. */
static size_t sql_escape(const sql_cell *c, int hex, char *buf, size_t cap)
{
    size_t k = 0, width = 0;
    for (size_t i = 0; i < c->len && k + 8 < cap; i++) {
        unsigned char ch = (unsigned char)c->s[i];
        if (i >= SQL_CELL_SHOW) {
            memcpy(buf + k, "...", 3);
            k += 3;
            width += 3;
            break;
        }
        if (hex) {
            k += (size_t)snprintf(buf + k, cap - k, "%02x", ch);
            width += 2;
        } else if (ch < 0x20 || ch == 0x7f) {
            k += (size_t)snprintf(buf + k, cap - k, ch == '\n' ? "\\n" : ch == '\t' ? "\\t"
                                                                                : "\\x%02x",
                                  ch);
            width += ch == '\n' || ch == '\t' ? 2 : 4;
        } else {
            buf[k++] = (char)ch;
            if ((ch & 0xc0) != 0x80) /* count UTF-8 lead bytes only */
                width++;
        }
    }
    buf[k] = 0;
    return width;
}

static size_t sql_render(const sql_cell *c, enum sql_fmt fmt, char *buf, size_t cap)
{
    const char *s = sql_scalar(c, fmt, buf, cap);
    if (s) {
        if (s != buf)
            snprintf(buf, cap, "%s", s);
        return strlen(buf);
    }
    return sql_escape(c, c->type == SQLITE_BLOB, buf, cap);
}

static void sql_csv_cell(const sql_cell *c)
{
    char buf[64];
    const char *s = sql_scalar(c, SQL_CSV, buf, sizeof buf);
    if (s) {
        fputs(s, stdout);
        return;
    }
    if (c->type == SQLITE_BLOB) {
        for (size_t i = 0; i < c->len; i++)
            printf("%02x", (unsigned char)c->s[i]);
        return;
    }
    int quote = 0;
    for (size_t i = 0; i < c->len && !quote; i++)
        quote = c->s[i] == ',' || c->s[i] == '"' || c->s[i] == '\n' || c->s[i] == '\r';
    if (!quote) {
        fwrite(c->s, 1, c->len, stdout);
        return;
    }
    putchar('"');
    for (size_t i = 0; i < c->len; i++) {
        if (c->s[i] == '"')
            putchar('"');
        putchar(c->s[i]);
    }
    putchar('"');
}

static void sql_json_cell(jsonw *w, const sql_cell *c)
{
    switch (c->type) {
    case SQLITE_INTEGER:
        jsonw_int(w, c->i);
        break;
    case SQLITE_FLOAT:
        jsonw_double(w, c->d);
        break;
    case SQLITE_NULL:
        jsonw_null(w);
        break;
    case SQLITE_BLOB: {
        char *hex = malloc(c->len * 2 + 1);
        if (!hex) {
            jsonw_null(w);
            break;
        }
        for (size_t i = 0; i < c->len; i++)
            snprintf(hex + 2 * i, 3, "%02x", (unsigned char)c->s[i]);
        jsonw_strn(w, hex, c->len * 2);
        free(hex);
        break;
    }
    default:
        jsonw_strn(w, c->s, c->len);
    }
}

/* ---- rows ---- */

/* Reads column i of the current row. copy: keep the bytes (else they are SQLite's until the
 * next step). Returns 0, or -1 when out of memory. */
static int sql_read(sqlite3_stmt *st, int i, int copy, sql_cell *c)
{
    memset(c, 0, sizeof *c);
    c->type = sqlite3_column_type(st, i);
    if (c->type == SQLITE_INTEGER) {
        c->i = sqlite3_column_int64(st, i);
    } else if (c->type == SQLITE_FLOAT) {
        c->d = sqlite3_column_double(st, i);
    } else if (c->type != SQLITE_NULL) {
        const void *p = c->type == SQLITE_BLOB ? sqlite3_column_blob(st, i)
                                               : (const void *)sqlite3_column_text(st, i);
        c->len = (size_t)sqlite3_column_bytes(st, i);
        if (!p) {
            c->type = SQLITE_NULL;
            return 0;
        }
        if (!copy) {
            c->s = (char *)p;
            return 0;
        }
        c->s = malloc(c->len + 1);
        if (!c->s)
            return -1;
        memcpy(c->s, p, c->len);
        c->s[c->len] = 0;
    }
    return 0;
}

static void sql_json_begin(const cli_common *co, sql_out *o)
{
    if (o->json_begun)
        return;
    cli_json_begin(&o->w);
    jsonw_kv_arr_begin(&o->w, "results");
    o->json_begun = 1;
}

/* Prints one statement's result: ncol names, nrows rows of cells (row-major). */
static void sql_print(const cli_common *co, sql_out *o, sqlite3_stmt *st, int ncol,
                      const sql_cell *cells, uint64_t nrows)
{
    if (o->fmt == SQL_JSON) {
        sql_json_begin(co, o);
        jsonw_obj_begin(&o->w);
        jsonw_kv_arr_begin(&o->w, "columns");
        for (int j = 0; j < ncol; j++)
            jsonw_str(&o->w, sqlite3_column_name(st, j));
        jsonw_arr_end(&o->w);
        jsonw_kv_arr_begin(&o->w, "rows");
        for (uint64_t r = 0; r < nrows; r++) {
            jsonw_arr_begin(&o->w);
            for (int j = 0; j < ncol; j++)
                sql_json_cell(&o->w, &cells[r * (uint64_t)ncol + (uint64_t)j]);
            jsonw_arr_end(&o->w);
        }
        jsonw_arr_end(&o->w);
        jsonw_kv_uint(&o->w, "row_count", nrows);
        sql_json_time(co, o);
        jsonw_obj_end(&o->w);
        return;
    }
    if (o->shown++ && o->fmt != SQL_CSV)
        putchar('\n');
    if (o->fmt == SQL_CSV) {
        for (int j = 0; j < ncol; j++) {
            sql_cell h = {SQLITE_TEXT, 0, 0, (char *)sqlite3_column_name(st, j), 0};
            h.len = strlen(h.s);
            if (j)
                putchar(',');
            sql_csv_cell(&h);
        }
        putchar('\n');
        for (uint64_t r = 0; r < nrows; r++) {
            for (int j = 0; j < ncol; j++) {
                if (j)
                    putchar(',');
                sql_csv_cell(&cells[r * (uint64_t)ncol + (uint64_t)j]);
            }
            putchar('\n');
        }
        return;
    }
    static char buf[4 * SQL_CELL_SHOW + 16];
    size_t *width = calloc((size_t)ncol, sizeof *width);
    int align = o->fmt == SQL_TABLE && width;
    for (int j = 0; align && j < ncol; j++) {
        width[j] = strlen(sqlite3_column_name(st, j));
        for (uint64_t r = 0; r < nrows; r++) {
            size_t w = sql_render(&cells[r * (uint64_t)ncol + (uint64_t)j], o->fmt, buf,
                                  sizeof buf);
            if (w > width[j])
                width[j] = w;
        }
    }
    for (int j = 0; j < ncol; j++) {
        const char *name = sqlite3_column_name(st, j);
        if (j)
            fputs(align ? "  " : "\t", stdout);
        printf("%-*s", align && j + 1 < ncol ? (int)width[j] : 0, name);
    }
    putchar('\n');
    if (align) {
        for (int j = 0; j < ncol; j++)
            for (size_t k = 0; k < width[j] + (j ? 2 : 0); k++)
                putchar(k < 2 && j ? ' ' : '-');
        putchar('\n');
    }
    for (uint64_t r = 0; r < nrows; r++) {
        for (int j = 0; j < ncol; j++) {
            const sql_cell *c = &cells[r * (uint64_t)ncol + (uint64_t)j];
            size_t w = sql_render(c, o->fmt, buf, sizeof buf);
            if (j)
                fputs(align ? "  " : "\t", stdout);
            /* numbers right-aligned, text left-aligned, as people read tables */
            int num = c->type == SQLITE_INTEGER || c->type == SQLITE_FLOAT;
            if (align && num)
                for (size_t k = w; k < width[j]; k++)
                    putchar(' ');
            fputs(buf, stdout);
            if (align && !num && j + 1 < ncol)
                for (size_t k = w; k < width[j]; k++)
                    putchar(' ');
        }
        putchar('\n');
    }
    if (o->fmt == SQL_TABLE)
        printf("(%" PRIu64 " row%s)\n", nrows, nrows == 1 ? "" : "s");
    free(width);
}

static void sql_free_cells(sql_cell *cells, uint64_t n)
{
    for (uint64_t i = 0; cells && i < n; i++)
        free(cells[i].s);
    free(cells);
}

/* ---- errors ---- */

/* Prints a failed statement's message (SQLite's, or leakray's own for a lazy analysis) and
 * returns the exit code: 2 for the query's fault, 5 for memory or an interrupt. */
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
    if (o->fmt == SQL_JSON && o->json_begun) {
        jsonw_arr_end(&o->w);
        jsonw_kv_obj_begin(&o->w, "error");
        jsonw_kv_str(&o->w, "code", cli_status_key(code));
        jsonw_kv_int(&o->w, "exit", lr_exit_code(code));
        jsonw_kv_str(&o->w, "message", text);
        jsonw_obj_end(&o->w);
        cli_json_end(co, &o->w);
        o->json_begun = 0;
        return lr_exit_code(code);
    }
    return cli_fail(co, code, "%s", text);
}

/* ---- one statement ---- */

/* Runs st and prints its rows. Returns 0 or the exit code after printing the error. */
static int sql_run(const cli_common *co, sql_out *o, query_db *q, sqlite3_stmt *st,
                   uint64_t max_rows)
{
    sqlite3 *db = query_sqlite(q);
    int ncol = sqlite3_column_count(st);
    int rc;
    o->t0 = cli_now_ms();
    if (ncol == 0) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            ;
        return rc == SQLITE_DONE ? 0 : sql_fail(co, o, q, rc, sqlite3_errmsg(db), -1);
    }
    sql_cell *cells = NULL, row_stream[64];
    uint64_t nrows = 0, cap = 0;
    int stream = max_rows == 0;
    sql_cell *row = NULL;
    if (stream) {
        /* No cap: rows go out as they come, nothing kept (TSV on a terminal too). */
        row = ncol <= 64 ? row_stream : malloc((size_t)ncol * sizeof *row);
        if (!row)
            return cli_fail(co, LR_ERR_NOMEM, "sql: out of memory");
        if (o->fmt == SQL_TABLE)
            o->fmt = SQL_TSV;
        if (o->fmt == SQL_JSON) {
            sql_json_begin(co, o);
            jsonw_obj_begin(&o->w);
            jsonw_kv_arr_begin(&o->w, "columns");
            for (int j = 0; j < ncol; j++)
                jsonw_str(&o->w, sqlite3_column_name(st, j));
            jsonw_arr_end(&o->w);
            jsonw_kv_arr_begin(&o->w, "rows");
        } else {
            sql_print(co, o, st, ncol, NULL, 0); /* header only */
        }
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (stream) {
            for (int j = 0; j < ncol; j++)
                sql_read(st, j, 0, &row[j]);
            if (o->fmt == SQL_JSON) {
                jsonw_arr_begin(&o->w);
                for (int j = 0; j < ncol; j++)
                    sql_json_cell(&o->w, &row[j]);
                jsonw_arr_end(&o->w);
            } else {
                for (int j = 0; j < ncol; j++) {
                    char buf[4 * SQL_CELL_SHOW + 16];
                    if (j)
                        putchar(o->fmt == SQL_CSV ? ',' : '\t');
                    if (o->fmt == SQL_CSV) {
                        sql_csv_cell(&row[j]);
                    } else {
                        sql_render(&row[j], o->fmt, buf, sizeof buf);
                        fputs(buf, stdout);
                    }
                }
                putchar('\n');
            }
            nrows++;
            continue;
        }
        if (nrows == max_rows) {
            sql_free_cells(cells, nrows * (uint64_t)ncol);
            char msg[200];
            snprintf(msg, sizeof msg, "the result has more than %" PRIu64 " rows (--max-rows; "
                     "raise it, 0 = no cap, or add LIMIT)", max_rows);
            return sql_fail(co, o, q, SQLITE_ERROR, msg, -1);
        }
        if (nrows == cap) {
            uint64_t ncap = cap ? cap * 2 : 64;
            if (ncap > max_rows)
                ncap = max_rows;
            sql_cell *v = err_reallocarray(cells, ncap * (uint64_t)ncol, sizeof *v);
            if (!v) {
                sql_free_cells(cells, nrows * (uint64_t)ncol);
                return cli_fail(co, LR_ERR_NOMEM, "sql: out of memory for %" PRIu64 " rows",
                                nrows);
            }
            cells = v;
            cap = ncap;
        }
        for (int j = 0; j < ncol; j++) {
            if (sql_read(st, j, 1, &cells[nrows * (uint64_t)ncol + (uint64_t)j])) {
                sql_free_cells(cells, nrows * (uint64_t)ncol + (uint64_t)j);
                return cli_fail(co, LR_ERR_NOMEM, "sql: out of memory for row %" PRIu64,
                                nrows + 1);
            }
        }
        nrows++;
    }
    if (stream) {
        if (row != row_stream)
            free(row);
        if (o->fmt == SQL_JSON && rc == SQLITE_DONE) {
            jsonw_arr_end(&o->w);
            jsonw_kv_uint(&o->w, "row_count", nrows);
            sql_json_time(co, o);
            jsonw_obj_end(&o->w);
        } else if (o->fmt == SQL_JSON) {
            jsonw_arr_end(&o->w);
            jsonw_obj_end(&o->w);
        }
    }
    if (rc != SQLITE_DONE) {
        sql_free_cells(cells, nrows * (uint64_t)ncol);
        return sql_fail(co, o, q, rc, sqlite3_errmsg(db), -1);
    }
    if (!stream)
        sql_print(co, o, st, ncol, cells, nrows);
    sql_free_cells(cells, nrows * (uint64_t)ncol);
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

int cmd_sql(int argc, char **argv)
{
    const char *sql_file = NULL, *model = NULL;
    int csv = 0;
    uint64_t max_rows = SQL_DEFAULT_MAX_ROWS;
    const cli_optdef opts[] = {
        {"--sql-file", CLI_OPT_STR, &sql_file, "F", "read the statements from file F", NULL},
        {"--csv", CLI_OPT_FLAG, &csv, NULL, "comma-separated values (RFC 4180)", NULL},
        {"--max-rows", CLI_OPT_UINT, &max_rows, "N",
         "fail a statement returning more than N rows (default 100000; 0 = no cap, streamed)",
         NULL},
        {"--model", CLI_OPT_STR, &model, "M",
         "retained sizes and dominators as `top --model`: visualvm, strong or devtools",
         "visualvm|strong|devtools"},
        {0}};
    const cli_spec spec = {
        "sql", "FILE [SQL]", "SQL over the heap: objects, classes, edges, roots, strings, fields.",
        opts, 1, 2,
        "Statements come from SQL, --sql-file F, or stdin. Tables (docs/sql.md):\n"
        "  objects(id, class, kind, shallow, retained, dominator, distance, heap, reachable)\n"
        "  classes(id, name, super, loader, instances, shallow, retained)\n"
        "  edges(src, dst, name, kind, strength)   roots(id, kind, thread, frame)\n"
        "  strings(id, value)   fields(id, name, type, value, ref)\n"
        "  stacks(id, depth, function, script, line, column)   (V8 allocation stacks)\n"
        "Functions: isa(class, ancestor), field(id, 'a.b'). Ids are integers: write 0x1f.\n"
        "Lookups, not scans: objects.id, objects.class, edges.src, edges.dst (referrers).\n"
        "Example: leakray sql app.hprof \"SELECT class, count(*), sum(retained) FROM objects\n"
        "         GROUP BY class ORDER BY 3 DESC LIMIT 20\""};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (co.n_pos == 2 && sql_file)
        return cli_usage_error(&co, "give the SQL either as an argument or with --sql-file");
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
    qo.class_keys = v8_class_keys(g);
    if (v8_has_traces(g))
        qo.stacks = &sql_stacks;
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
    sql_out o = {.fmt = co.json ? SQL_JSON : csv ? SQL_CSV
                        : isatty(STDOUT_FILENO) ? SQL_TABLE : SQL_TSV};
    sqlite3 *db = query_sqlite(q);
    const char *p = text;
    double t0 = cli_now_ms();
    int n_stmt = 0;
    while (*p) {
        const char *tail = NULL;
        int prc = sqlite3_prepare_v2(db, p, -1, &st, &tail);
        if (prc != SQLITE_OK) {
            int off = sqlite3_error_offset(db);
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
    if (o.fmt == SQL_JSON) {
        sql_json_begin(&co, &o);
        jsonw_arr_end(&o.w);
        cli_json_end(&co, &o.w);
    } else if (o.fmt == SQL_TABLE) {
        cli_print_timing(&co, stdout, "load time", co.load_ms);
        cli_print_timing(&co, stdout, "query", q_ms);
    }
    rc = CLI_EXIT_OK;
out:
    sqlite3_finalize(st);
    query_close(q);
    lr_close(lh);
    free(text);
    return rc;
}
