/* SPDX-License-Identifier: Apache-2.0 */
/* query_printf.c: printf() and format() for heap queries (query layer), prefix qpf_. The
 * SQLite this project builds on (3.40) writes a %c with a precision one character at a time
 * and only stops at the connection's length limit after the whole count: printf('%.2147483647c',
 * 'y') spends 6-9 s of CPU to return NULL, and a query calling it once per object multiplies
 * that inside single VM steps, which the progress handler (max_steps) never sees. Both names
 * are registered over the built-in functions: a %c whose precision, written or taken from a
 * `*` argument, passes the length limit gives NULL at once, which is what SQLite returns for
 * it; every other call is SQLite's own printf, run in a private in-memory connection with the
 * same limit, so each conversion keeps SQLite's meaning. The format is read the way SQLite
 * reads it: flags, a width and a precision of digits (accumulated in 32 bits, the top bit
 * dropped) or `*` (the next argument as a 32-bit int), length modifiers, the conversion (%n
 * and %% take no argument; an unknown one ends the output). */
#include "query/query_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Statements kept prepared, by argument count; calls with more prepare their own. */
#define QPF_KEPT 16

typedef struct qpf_state {
    sqlite3 *db;                  /* private connection whose printf is SQLite's own */
    sqlite3_stmt *st[QPF_KEPT + 1]; /* "SELECT printf(?1, ..., ?n)" at index n */
} qpf_state;

static void qpf_free(void *p)
{
    qpf_state *s = p;
    if (!s)
        return;
    for (int i = 0; i <= QPF_KEPT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close_v2(s->db);
    free(s);
}

/* Argument i as SQLite's printf reads a `*`: its integer value cut to 32 bits; 0 past the
 * last argument. */
static int qpf_int_arg(int argc, sqlite3_value **argv, int i)
{
    return i < argc ? (int)(unsigned)sqlite3_value_int64(argv[i]) : 0;
}

/* Whether the format asks for a %c longer than limit characters: its result is then NULL
 * however long SQLite would take to find out. */
static int qpf_too_long(const unsigned char *f, int argc, sqlite3_value **argv, int limit)
{
    int arg = 1;
    for (; *f; f++) {
        if (*f != '%')
            continue;
        if (*++f == '\0')
            return 0;
        if (*f == '%')
            continue;
        while (*f && strchr("-+ #!0,", *f))
            f++;
        if (*f == '*') {
            arg++;
            f++;
        } else {
            while (*f >= '0' && *f <= '9')
                f++;
        }
        long long precision = -1;
        if (*f == '.') {
            f++;
            if (*f == '*') {
                int p = qpf_int_arg(argc, argv, arg++);
                /* SQLite takes a negative one's magnitude (INT_MIN's it leaves to itself) */
                precision = p >= 0 ? p : p > INT_MIN ? -(long long)p : -1;
                f++;
            } else {
                unsigned px = 0;
                for (; *f >= '0' && *f <= '9'; f++)
                    px = px * 10u + (unsigned)(*f - '0');
                precision = px & 0x7fffffffu;
            }
        }
        while (*f == 'l')
            f++;
        /* SQLite's SQL conversions; at any other character (its internal %T and %S among
         * them) it stops formatting, so nothing after it counts */
        if (*f == '\0' || !strchr("dsgzqQwcouxXfeEGinp%r", *f))
            return 0;
        if (*f == 'c' && precision > limit)
            return 1;
        arg += *f != 'n' && *f != '%'; /* those two take no argument */
    }
    return 0;
}

/* The statement calling SQLite's printf with n arguments: kept, or *fresh set when the
 * caller must finalize it. NULL when SQLite refuses (out of memory). */
static sqlite3_stmt *qpf_stmt(qpf_state *s, int n, int *fresh)
{
    *fresh = n > QPF_KEPT;
    if (!*fresh && s->st[n])
        return s->st[n];
    if (!s->db && sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY,
                                  NULL) != SQLITE_OK)
        return NULL;
    sqlite3_str *sql = sqlite3_str_new(NULL);
    sqlite3_str_appendall(sql, "SELECT printf(");
    for (int i = 1; i <= n; i++)
        sqlite3_str_appendf(sql, i > 1 ? ", ?%d" : "?%d", i);
    sqlite3_str_appendall(sql, ")");
    char *text = sqlite3_str_finish(sql);
    sqlite3_stmt *st = NULL;
    if (!text || sqlite3_prepare_v2(s->db, text, -1, &st, NULL) != SQLITE_OK)
        st = NULL;
    sqlite3_free(text);
    if (st && !*fresh)
        s->st[n] = st;
    return st;
}

static void qpf_call(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    qpf_state *s = sqlite3_user_data(ctx);
    int limit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
    const unsigned char *f = argc > 0 ? sqlite3_value_text(argv[0]) : NULL;
    if (f && qpf_too_long(f, argc, argv, limit)) {
        sqlite3_result_null(ctx);
        return;
    }
    int fresh;
    sqlite3_stmt *st = qpf_stmt(s, argc, &fresh);
    if (!st) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, limit);
    for (int i = 0; i < argc; i++)
        sqlite3_bind_value(st, i + 1, argv[i]);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
    else if (rc == SQLITE_TOOBIG)
        sqlite3_result_error_toobig(ctx);
    else if (rc == SQLITE_NOMEM)
        sqlite3_result_error_nomem(ctx);
    else
        sqlite3_result_error(ctx, sqlite3_errmsg(s->db), -1);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (fresh)
        sqlite3_finalize(st);
}

int query_printf_register(sqlite3 *db)
{
    qpf_state *s = calloc(1, sizeof *s);
    if (!s)
        return SQLITE_NOMEM;
    const int fl = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
    /* the state goes with the last of the two names to go */
    int rc = sqlite3_create_function_v2(db, "format", -1, fl, s, qpf_call, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        qpf_free(s);
        return rc;
    }
    return sqlite3_create_function_v2(db, "printf", -1, fl, s, qpf_call, NULL, NULL, qpf_free);
}
