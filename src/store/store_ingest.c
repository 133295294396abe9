/* SPDX-License-Identifier: Apache-2.0 */
/* store_ingest.c: reports into the leak store (store layer), prefix store_. Reports are read
 * with SQLite's JSON functions on a private in-memory connection, whatever the backend: no
 * JSON tree is built here, and the same code parses for SQLite and PostgreSQL stores. A
 * report's groups of one signature are merged first, then written in chunks of STORE_CHUNK.
 * Costs: an ingest is one transaction of 2 + 2 x (leak groups) statements. */
#define _GNU_SOURCE /* strdup, clock_gettime, asprintf */
#include "store/store_internal.h"

#include "analysis/trace.h"
#include "graph/classname.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/utf8.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- reading reports (SQLite JSON functions on the private connection) ---- */

/* Runs sql with the report bound as ?1 (and an optional text ?2); rows to fn. */
lr_status store_json_query(store *s, const char *sql, const char *json, size_t len,
                           const char *arg2, sdb_row_fn fn, void *ctx, lr_error *err)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(s->json, sql, -1, &stmt, NULL) != SQLITE_OK)
        return LR_FAIL(err, LR_ERR_INTERNAL, "store: %s", sqlite3_errmsg(s->json));
    sqlite3_bind_text(stmt, 1, json, (int)len, SQLITE_STATIC);
    if (arg2)
        sqlite3_bind_text(stmt, 2, arg2, -1, SQLITE_STATIC);
    int rc;
    const char *vals[16];
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int nc = sqlite3_column_count(stmt);
        if (nc > 16)
            nc = 16;
        for (int c = 0; c < nc; c++)
            vals[c] = (const char *)sqlite3_column_text(stmt, c);
        if (fn && fn(ctx, nc, vals))
            break;
    }
    lr_status st = LR_OK;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        st = LR_FAIL(err, LR_ERR_FORMAT, "store: reading report: %s", sqlite3_errmsg(s->json));
    sqlite3_finalize(stmt);
    return st;
}

typedef struct report_head {
    int valid;            /* json_valid */
    int64_t schema;       /* schema_version, or -1 when absent */
    int has_traces;       /* analyze report */
    int has_native;       /* native scan report */
    char mode[16];        /* analyze: "leaks" / "suspects" */
    char canon_sha[41];   /* SHA-1 of the report without file path and timings */
    int v8_snapshot;      /* a V8 heap snapshot (snapshot.meta), a dump and not a report */
    int truncated;        /* the analysed dump was cut short ("truncated": true) */
    int has_leaks;        /* analyze report: application_leaks is a list */
    int has_summary;      /* the report page's model (report --format json) has a summary */
} report_head;

/* The largest figure a report may give: 2^48 bytes or objects, past any heap, so that the
 * store's sums over 32,768 reports of it still fit 64 bits (one report of 5e18 bytes, twice,
 * made every later `store trend` and dashboard of that store fail with an overflow). */
#define STORE_COUNT_MAX ((int64_t)1 << 48)

/* s, a number as json_extract gives it, into *out when it is a whole number from 0 to
 * STORE_COUNT_MAX (dflt when s is NULL); -1 otherwise: a negative, a fraction, a number
 * SQLite read as a real ("9.2e+18", once read as 9), a string. */
static int count_of(const char *s, int64_t dflt, int64_t *out)
{
    if (!s) {
        *out = dflt;
        return 0;
    }
    int64_t x = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || (x = x * 10 + (*s - '0')) > STORE_COUNT_MAX)
            return -1;
    }
    *out = x;
    return 0;
}

static int read_head(void *ctx, int n, const char *const *v)
{
    report_head *h = ctx;
    h->valid = n > 0 && v[0] && strcmp(v[0], "1") == 0;
    if (!h->valid)
        return 1;
    if (count_of(v[1], -1, &h->schema))
        h->schema = -2; /* present, but no version number */
    h->has_traces = v[2] && strcmp(v[2], "array") == 0;
    h->has_native = v[3] && strcmp(v[3], "object") == 0 && v[4] && strcmp(v[4], "array") == 0;
    snprintf(h->mode, sizeof h->mode, "%s", v[5] ? v[5] : "");
    if (v[6])
        trace_sha1_hex(v[6], strlen(v[6]), h->canon_sha);
    h->v8_snapshot = n > 7 && v[7] && strcmp(v[7], "object") == 0;
    h->truncated = n > 8 && v[8] && strcmp(v[8], "true") == 0;
    h->has_leaks = n > 9 && v[9] && strcmp(v[9], "array") == 0;
    h->has_summary = n > 10 && v[10] && strcmp(v[10], "object") == 0;
    return 1;
}

/* One leak group read out of a report. */
typedef struct group {
    char kind[16];
    char *signature, *description, *pattern, *explanation, *trace;
    int64_t instances, retained, objects;
    size_t order;    /* position in the report: the first of one signature stays */
} group;

typedef struct group_list {
    group *v;
    size_t n, cap;
    const char *kind; /* kind of the groups being read */
    int oom;
    const char *bad;  /* the figure a group gave that is no count (count_of), else NULL */
    char bad_text[48];
    char **traces;    /* an analyze report's traces[] as JSON text, by index (else NULL) */
    size_t n_traces;
} group_list;

/* A copy of s (NULL stays NULL) in valid UTF-8: each byte that starts no valid sequence
 * becomes U+FFFD. A report may carry anything JSON escapes can say (a lone surrogate, from
 * a hostile dump's class name); PostgreSQL refuses such text where SQLite keeps it, and both
 * backends must store the same. */
static char *dup_text(const char *s);

char *store_text_dup(const char *s)
{
    return dup_text(s);
}

static char *dup_text(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s), bad = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
        bad += k == 0;
        i += k ? k : 1;
    }
    if (!bad)
        return strdup(s);
    char *out = malloc(n + 2 * bad + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
        if (k) {
            memcpy(o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    *o = 0;
    return out;
}

/* A figure that is no count, kept to name it: printable ASCII, at most 40 bytes. */
static void note_bad(group_list *l, const char *key, const char *v)
{
    if (l->bad)
        return;
    l->bad = key;
    size_t i = 0;
    for (; v && v[i] && i < 40; i++)
        l->bad_text[i] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
    l->bad_text[i] = 0;
}

/* A signature is a hex digest: LeakCanary's SHA-1 (40 digits), the native monitor's frame
 * hash (16). Anything else in a report (escape sequences a terminal would obey, text past the
 * stored column, a number) is a report made by hand or by an attacker. */
static int signature_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 40)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
              (s[i] >= 'A' && s[i] <= 'F')))
            return 0;
    return 1;
}

static int read_group(void *ctx, int n, const char *const *v)
{
    group_list *l = ctx;
    if (n < 8 || !v[0])
        return 0; /* a group without a signature cannot be deduplicated: skip it */
    if (!signature_ok(v[0])) {
        note_bad(l, "signature", v[0]);
        return 0;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        group *nv = err_reallocarray(l->v, nc, sizeof *nv);
        if (!nv) {
            l->oom = 1;
            return 1;
        }
        l->v = nv;
        l->cap = nc;
    }
    group *g = &l->v[l->n];
    memset(g, 0, sizeof *g);
    g->order = l->n++;
    snprintf(g->kind, sizeof g->kind, "%s", l->kind);
    g->signature = dup_text(v[0]);
    g->description = dup_text(v[1] ? v[1] : "");
    if (count_of(v[2], 0, &g->retained))
        note_bad(l, "retained bytes", v[2]);
    if (count_of(v[3], 0, &g->objects))
        note_bad(l, "retained objects", v[3]);
    if (count_of(v[4], 1, &g->instances))
        note_bad(l, "instance count", v[4]);
    if (l->traces) { /* v[5] is the index of the group's first trace */
        char *end;
        long long t = v[5] ? strtoll(v[5], &end, 10) : -1;
        const char *tj = v[5] && !*end && t >= 0 && (size_t)t < l->n_traces ? l->traces[t] : NULL;
        g->trace = dup_text(tj);
        if (tj && !g->trace)
            l->oom = 1;
        /* a trace is one group's (analyze writes each once): a report whose groups all
         * cite one big trace was stored once per group (607 kB -> a 265 MB store) */
        if (tj) {
            free(l->traces[t]);
            l->traces[t] = NULL;
        }
    } else {
        g->trace = dup_text(v[5]);
    }
    g->pattern = dup_text(v[6]);
    g->explanation = dup_text(v[7]);
    if (!g->signature || !g->description || (!l->traces && v[5] && !g->trace) ||
        (v[6] && !g->pattern) || (v[7] && !g->explanation))
        l->oom = 1;
    return 0;
}

static void groups_free(group_list *l)
{
    for (size_t i = 0; i < l->n_traces; i++)
        free(l->traces[i]);
    free(l->traces);
    l->traces = NULL;
    l->n_traces = 0;
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].signature);
        free(l->v[i].description);
        free(l->v[i].pattern);
        free(l->v[i].explanation);
        free(l->v[i].trace);
    }
    free(l->v);
}

/* Groups of an `analyze --json` report (application_leaks[], library_leaks[], and leak
 * suspects when the report has them), each with its first trace as the representative. A
 * leak is known by its stable signature where the report gives one (a lambda's, a proxy's
 * class among the suspects: their names change from run to run), so that the same leak in
 * the next run's dump is the same leak here. */
static const char SQL_ANALYZE_GROUPS[] =
    "SELECT coalesce(json_extract(g.value, '$.stable_signature'),"
    " json_extract(g.value, '$.signature')), json_extract(g.value, '$.short_description'),"
    " json_extract(g.value, '$.retained_bytes'), json_extract(g.value, '$.retained_objects'),"
    " json_array_length(g.value, '$.traces'), json_extract(g.value, '$.traces[0]'),"
    " json_extract(g.value, '$.pattern'), json_extract(g.value, '$.description')"
    " FROM json_each(?1, ?2) AS g";

/* Groups of a native scan report: groups[] keyed by their frame signature; bytes and blocks
 * stand for retained bytes and instances, the top frame for the description: its function
 * (the one the code is in, not a function inlined there: `make_shared` and the allocator
 * calls inlined into every C++ allocation would name them all alike), else its module and
 * offset ("libcache.so.1+0x1cb3", a binary without symbols), else, for code unloaded before
 * the scan, the first caller with a name ("?? from load_plugin": its address changes from
 * run to run), else its address. Blocks allocated with no backtrace (sampling, a frame-less
 * allocator) have no signature in the report: the text shows them as 0000000000000000, and
 * so are they kept, as one leak "no backtrace". */
#define STORE_NO_BACKTRACE_SIG "0000000000000000"
static const char SQL_NATIVE_GROUPS[] =
    "SELECT coalesce(json_extract(g.value, '$.signature'),"
    "                CASE WHEN json_array_length(g.value, '$.frames') > 0 THEN NULL"
    "                     ELSE '" STORE_NO_BACKTRACE_SIG "' END),"
    " coalesce(json_extract(g.value, '$.short_description'),"
    "          (SELECT json_extract(f.value, '$.function') FROM json_each(g.value, '$.frames')"
    "           AS f WHERE NOT coalesce(json_extract(f.value, '$.inlined'), 0) LIMIT 1),"
    "          json_extract(g.value, '$.frames[0].symbol'),"
    "          json_extract(g.value, '$.frames[0].module') || '+' ||"
    "          json_extract(g.value, '$.frames[0].offset'),"
    "          '?? from ' || (SELECT json_extract(f.value, '$.function')"
    "           FROM json_each(g.value, '$.frames') AS f"
    "           WHERE json_extract(f.value, '$.function') IS NOT NULL"
    "           AND NOT coalesce(json_extract(f.value, '$.inlined'), 0) LIMIT 1),"
    "          json_extract(g.value, '$.frames[0].ip'),"
    "          CASE WHEN json_array_length(g.value, '$.frames') > 0 THEN ''"
    "               ELSE 'no backtrace' END),"
    " coalesce(json_extract(g.value, '$.bytes'), json_extract(g.value, '$.total_bytes')),"
    " coalesce(json_extract(g.value, '$.blocks'), json_extract(g.value, '$.count')),"
    " coalesce(json_extract(g.value, '$.blocks'), json_extract(g.value, '$.count')),"
    " g.value, json_extract(g.value, '$.kind'), NULL"
    " FROM json_each(?1, ?2) AS g";

/* A native scan's thread leaks: its creation stack's signature, and the frame it was made in. */
static const char SQL_NATIVE_THREADS[] =
    "SELECT json_extract(g.value, '$.signature'), json_extract(g.value, '$.kind'),"
    " coalesce((SELECT json_extract(f.value, '$.function') FROM json_each(g.value, '$.frames')"
    "           AS f WHERE NOT coalesce(json_extract(f.value, '$.inlined'), 0) LIMIT 1),"
    "          json_extract(g.value, '$.frames[0].module') || '+' ||"
    "          json_extract(g.value, '$.frames[0].offset'), '?'),"
    " g.value"
    " FROM json_each(?1, ?2) AS g";

/* One thread leak as a leak of the store: keyed apart from the scan's block groups (a block
 * allocated where a thread was created has the same frames), one thread an instance. */
static int read_thread(void *ctx, int n, const char *const *v)
{
    group_list *l = ctx;
    if (n < 4 || !v[0] || !*v[0])
        return 0;
    char *key = NULL, *desc = NULL;
    if (asprintf(&key, "native-thread\x1f%s", v[0]) < 0) {
        l->oom = 1;
        return 1;
    }
    char sha[41];
    trace_sha1_hex(key, strlen(key), sha);
    free(key);
    sha[16] = 0; /* native signatures are 16 digits */
    const char *what = v[1] && !strcmp(v[1], "running") ? "thread running past its age limit"
                                                          : "thread ended, never joined";
    if (asprintf(&desc, "%s, created in %s", what, v[2] ? v[2] : "?") < 0) {
        l->oom = 1;
        return 1;
    }
    const char *row[8] = {sha, desc, "0", "1", "1", v[3], NULL, NULL};
    int r = read_group(l, 8, row);
    free(desc);
    return r;
}

static int read_trace(void *ctx, int n, const char *const *v)
{
    group_list *l = ctx;
    char *end;
    long long k = n > 1 && v[0] ? strtoll(v[0], &end, 10) : -1;
    if (k < 0 || *end || (size_t)k != l->n_traces)
        return 0; /* json_each gives the keys in order: 0, 1, ... */
    char **nt = err_reallocarray(l->traces, l->n_traces + 1, sizeof *nt);
    if (!nt) {
        l->oom = 1;
        return 1;
    }
    l->traces = nt;
    l->traces[l->n_traces] = v[1] ? strdup(v[1]) : NULL;
    if (v[1] && !l->traces[l->n_traces]) {
        l->oom = 1;
        return 1;
    }
    l->n_traces++;
    return 0;
}

/* An analyze report's traces[], read once: a group's representative trace is looked up by
 * index there. Extracting it per group from the whole report made SQLite compare (3.40: its
 * parse cache) or parse the document once per group, quadratic in the report (30,000
 * groups: 30 s). */
static lr_status read_traces(store *s, const char *json, size_t len, group_list *l,
                             lr_error *err)
{
    l->traces = err_malloc(sizeof *l->traces);
    if (!l->traces)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory reading a report");
    LR_TRY(store_json_query(s, "SELECT key, value FROM json_each(?1, '$.traces')", json, len,
                            NULL, read_trace, l, err));
    if (l->oom)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory reading a report");
    return LR_OK;
}

/* Leak suspects of a report without leaking objects (mode "suspects"): the biggest retainers,
 * as `analyze` lists them (docs/json.md, "suspects"). A suspect has no signature of its
 * own in the report: it is keyed here by what stays from one dump of the program to the
 * next: its kind, class (or the thread, for a thread's locals) and its own path from the GC
 * root, element indices as [x] and the links of a JDK collection's chain of one class (a
 * HashMap bucket's next nodes, a LinkedList's) left out (an application's own links, a
 * tree's left and right, and JavaScript's Object to Object, tell suspects apart); not by
 * sizes or counts, which the description carries, nor by where its memory accumulates:
 * that moves as a leak grows (a class's statics pass the accumulation share once one of them
 * holds most), and the way below the suspect to it runs through collection internals that
 * change from run to run (a HashMap bucket with or without a chain, a LinkedList position, a
 * V8 Map's table slot, an object's property named after a session). */
#define SUSPECT_AT                                                                            \
    "coalesce((SELECT min(q.key) FROM json_each(g.value, '$.path') AS q"                     \
    " WHERE json_extract(q.value, '$.id') = json_extract(g.value, '$.id')), 1000000000)"
static const char SQL_SUSPECT_GROUPS[] =
    "SELECT json_extract(g.value, '$.kind'), json_extract(g.value, '$.class'),"
    " json_extract(g.value, '$.instances_of'), json_extract(g.value, '$.thread.name'),"
    " json_extract(g.value, '$.accumulation_point.class'),"
    " json_extract(g.value, '$.retained_bytes'), json_extract(g.value, '$.count'),"
    " (SELECT group_concat(json_extract(p.value, '$.class') || '.' ||"
    "   CASE WHEN p.key = " SUSPECT_AT " THEN ''"
    "   WHEN json_extract(p.value, '$.reference.kind') = 'element' THEN '[x]'"
    "   ELSE coalesce(json_extract(p.value, '$.reference.name'), '') END, char(31))"
    "  FROM json_each(g.value, '$.path') AS p"
    "  WHERE p.key <= " SUSPECT_AT " AND NOT (p.key < " SUSPECT_AT " AND"
    "   json_extract(p.value, '$.class') LIKE 'java.util.%$%' AND"
    "   json_extract(p.value, '$.class') ="
    "   json_extract(g.value, '$.path[' || (p.key + 1) || '].class'))),"
    " g.value"
    " FROM json_each(?1, '$.suspects') AS g";
#undef SUSPECT_AT

/* s through classname_stable ("" for NULL), malloc'd; NULL when out of memory. */
static char *stable_text(const char *s)
{
    size_t n = s ? strlen(s) + 1 : 1;
    char *out = malloc(n);
    if (out)
        classname_stable(s ? s : "", out, n);
    return out;
}

/* s with each run of digits as one '#' ("" for NULL), malloc'd; NULL when out of memory. */
static char *counters_out(const char *s)
{
    size_t n = s ? strlen(s) + 1 : 1;
    char *out = malloc(n), *o = out;
    if (!out)
        return NULL;
    for (const char *p = s ? s : ""; *p;) {
        if (*p >= '0' && *p <= '9') {
            *o++ = '#';
            while (*p >= '0' && *p <= '9')
                p++;
        } else {
            *o++ = *p++;
        }
    }
    *o = 0;
    return out;
}

static int read_suspect(void *ctx, int n, const char *const *v)
{
    group_list *l = ctx;
    if (n < 9 || !v[0] || !v[1])
        return 0;
    /* the key keeps what stays from one run to the next: class names without what the JVM
     * or a code generator draws anew (classname_stable), a thread's name without its
     * counters (pool-1-thread-2 and pool-1-thread-3 are one pool's) */
    char *cls = stable_text(v[1]), *of = stable_text(v[2]);
    /* "N instances of C" shows the path of one of them, the biggest, which among equals is
     * any (global.sess_1774 in one run, sess_2551 in the next): the class is the key */
    char *path = stable_text(strcmp(v[0], "instances") && strcmp(v[0], "classes") ? v[7] : NULL);
    char *thr = counters_out(v[3]);
    char *key = NULL;
    int kr = cls && of && path && thr
                 ? asprintf(&key, "suspect\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", v[0], cls, of, thr,
                            path)
                 : -1;
    free(cls);
    free(of);
    free(path);
    free(thr);
    if (kr < 0) {
        l->oom = 1;
        return 1;
    }
    char sig[41];
    trace_sha1_hex(key, strlen(key), sig);
    free(key);
    /* what the suspect is, in words that do not change with its size */
    char *desc = NULL;
    const char *acc = v[4] && strcmp(v[4], v[1]) ? v[4] : NULL;
    int k = !strcmp(v[0], "instances")       ? asprintf(&desc, "instances of %s", v[1])
            : !strcmp(v[0], "classes")       ? asprintf(&desc, "classes %s", v[1])
            : !strcmp(v[0], "thread_locals") ? asprintf(&desc, "locals of thread %s",
                                                        v[3] ? v[3] : "?")
            : !strcmp(v[0], "class")         ? asprintf(&desc, "class %s", v[1])
                                             : asprintf(&desc, "one %s", v[1]);
    if (k >= 0 && acc) {
        char *d2 = NULL;
        k = asprintf(&d2, "%s, memory in %s", desc, acc);
        free(desc);
        desc = k >= 0 ? d2 : NULL;
    }
    if (k < 0) {
        l->oom = 1;
        return 1;
    }
    const char *row[8] = {sig, desc, v[5], NULL, v[6] ? v[6] : "1", v[8], NULL, NULL};
    int r = read_group(l, 8, row);
    free(desc);
    return r;
}

/* What reading groups into l came to: out of memory, a figure that is no count, or LR_OK. */
static lr_status groups_status(const group_list *l, lr_error *err)
{
    if (l->oom)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory reading a report");
    if (l->bad && !strcmp(l->bad, "signature"))
        return LR_FAIL(err, LR_ERR_FORMAT, "store: a leak's signature is \"%s\", not a hex "
                       "digest (LeakCanary's 40 digits, the native monitor's 16)", l->bad_text);
    if (l->bad)
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "store: a leak's %s is \"%s\", not a whole number from 0 to 2^48",
                       l->bad, l->bad_text);
    return LR_OK;
}

static lr_status read_groups(store *s, const char *json, size_t len, const char *sql,
                             const char *path, const char *kind, group_list *l, lr_error *err)
{
    l->kind = kind;
    LR_TRY(store_json_query(s, sql, json, len, path, read_group, l, err));
    return groups_status(l, err);
}

/* ---- ingest ---- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* SHA-1 over the analysis hash and who/when: the identity of one ingest. */
void store_ingest_hash(const char *content, const store_meta *m, char out[41])
{
    /* every byte of every field counts: a long --app must not hide the time after it */
    char small[2048], *buf = small;
    int k = snprintf(small, sizeof small, "%s\x1f%s\x1f%s\x1f%s\x1f%" PRId64, content,
                     m->app ? m->app : "", m->version ? m->version : "",
                     m->device ? m->device : "", m->at_ms);
    if (k < 0)
        k = 0;
    if ((size_t)k >= sizeof small && (buf = malloc((size_t)k + 1)) != NULL)
        snprintf(buf, (size_t)k + 1, "%s\x1f%s\x1f%s\x1f%s\x1f%" PRId64, content,
                 m->app ? m->app : "", m->version ? m->version : "",
                 m->device ? m->device : "", m->at_ms);
    if (!buf) { /* no memory for the long form: the fields' own hashes, chained */
        char h[3][41];
        trace_sha1_hex(m->app ? m->app : "", m->app ? strlen(m->app) : 0, h[0]);
        trace_sha1_hex(m->version ? m->version : "", m->version ? strlen(m->version) : 0, h[1]);
        trace_sha1_hex(m->device ? m->device : "", m->device ? strlen(m->device) : 0, h[2]);
        k = snprintf(small, sizeof small, "%s\x1f%s\x1f%s\x1f%s\x1f%" PRId64, content, h[0],
                     h[1], h[2], m->at_ms);
        buf = small;
    }
    trace_sha1_hex(buf, (size_t)k, out);
    if (buf != small)
        free(buf);
}

/* Inserts the report row; *id = 0 when the same ingest is already stored (then *existing
 * holds its id). */
static lr_status insert_report(store *s, const char *ihash, const char *chash,
                               const char *kind, const char *status, const char *error,
                               const store_meta *m, int64_t leaks, int64_t retained,
                               int64_t *id, int64_t *existing, lr_error *err)
{
    /* a file name is bytes, and so may be what a script passes as --app: valid UTF-8 for
     * both backends alike */
    char *t[5] = {dup_text(error), dup_text(m->source ? m->source : ""),
                  dup_text(m->app ? m->app : ""), dup_text(m->version ? m->version : ""),
                  dup_text(m->device ? m->device : "")};
    sdb_val p[13] = {SDB_TEXT(ihash),  SDB_TEXT(chash), SDB_TEXT(kind),
                     SDB_TEXT(status), SDB_TEXT(t[0]),  SDB_TEXT(t[1]),
                     SDB_TEXT(t[2]),   SDB_TEXT(t[3]),  SDB_TEXT(t[4]),
                     SDB_INT(m->at_ms), SDB_INT(now_ms()), SDB_INT(leaks),
                     SDB_INT(retained)};
    *id = 0;
    *existing = 0;
    lr_status st = LR_OK;
    if ((error && !t[0]) || !t[1] || !t[2] || !t[3] || !t[4])
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    /* Looked up first: an INSERT that finds the row there already still takes a number
     * from PostgreSQL's sequence, and the next report's id would skip it (SQLite's would
     * not): the same ingests give the same ids on both. */
    if (st == LR_OK)
        st = sdb_exec(s->db, "SELECT id FROM report WHERE ingest_hash = $1", 1, p, read_id,
                      existing, err);
    if (st == LR_OK && !*existing && m->also_at_ms && m->also_at_ms != m->at_ms) {
        /* the same ingest stored by a version that dated it otherwise: one ingest still */
        store_meta alt = *m;
        alt.at_ms = m->also_at_ms;
        char ahash[41];
        store_ingest_hash(chash, &alt, ahash);
        sdb_val ap[1] = {SDB_TEXT(ahash)};
        st = sdb_exec(s->db, "SELECT id FROM report WHERE ingest_hash = $1", 1, ap, read_id,
                      existing, err);
    }
    if (st == LR_OK && !*existing)
        st = sdb_exec(s->db,
                      "INSERT INTO report(ingest_hash, content_hash, kind, status, error,"
                      " source, app, version, device, at, ingested_at, leak_count,"
                      " retained_bytes, tool_version)"
                      " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, '"
                      LR_VERSION_STRING "')"
                      " ON CONFLICT (ingest_hash) DO NOTHING RETURNING id",
                      13, p, read_id, id, err);
    if (st == LR_OK && !*existing && *id == 0) /* another ingest stored it meanwhile */
        st = sdb_exec(s->db, "SELECT id FROM report WHERE ingest_hash = $1", 1, p, read_id,
                      existing, err);
    for (int i = 0; i < 5; i++)
        free(t[i]);
    return st;
}

/* Groups written per statement: an ingest is 4 statements per STORE_CHUNK groups (plus the
 * report row and the transaction), not 4 per group, which over PostgreSQL is a round trip
 * each. 6 parameters a group keeps a chunk far below both databases' parameter limits. */
#define STORE_CHUNK 64
#define STORE_INGEST_TRIES 8 /* runs of one ingest's transaction lost to other ingests */

/* A growable SQL text; on allocation failure it stays NULL and the caller fails. */
typedef struct sqlbuf {
    char *s;
    size_t n, cap;
} sqlbuf;

static void sql_add(sqlbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sql_add(sqlbuf *b, const char *fmt, ...)
{
    if (b->cap && !b->s)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            free(b->s);
            b->s = NULL;
            b->cap = 1;
            return;
        }
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = (b->cap ? b->cap * 2 : 1024) + (size_t)k;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            free(b->s);
            b->s = NULL;
            b->cap = 1;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
}

/* What the chunk's statements return: which leaks are new, and which (leak, app / version /
 * dump) pairs were seen for the first time. */
typedef struct chunk_seen {
    const group *g;  /* the chunk's groups */
    size_t n;
    int *is_new;     /* per group */
    int (*dims)[3];  /* per group: app, version, dump first seen */
} chunk_seen;

static size_t chunk_find(const chunk_seen *c, const char *sig)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->g[i].signature, sig) == 0)
            return i;
    return c->n;
}

static int read_new_leak(void *ctx, int n, const char *const *v)
{
    chunk_seen *c = ctx;
    size_t i = n > 0 && v[0] ? chunk_find(c, v[0]) : c->n;
    if (i < c->n)
        c->is_new[i] = 1;
    return 0;
}

static int read_dims(void *ctx, int n, const char *const *v)
{
    chunk_seen *c = ctx;
    size_t i = n > 1 && v[0] && v[1] ? chunk_find(c, v[0]) : c->n;
    if (i < c->n)
        c->dims[i][v[1][0] == 'a' ? 0 : v[1][0] == 'v' ? 1 : 2] = 1;
    return 0;
}

/* Stores n (<= STORE_CHUNK) groups of a report and moves their leaks' running totals (schema
 * step 2), inside the caller's transaction; *n_new counts leaks this store had not seen. */
static lr_status insert_chunk(store *s, int64_t report_id, const group *g, size_t n,
                              const store_meta *m, const char *content_hash, int *n_new,
                              lr_error *err)
{
    sdb_val p[1 + 6 * STORE_CHUNK];
    int is_new[STORE_CHUNK] = {0}, dims[STORE_CHUNK][3];
    memset(dims, 0, sizeof dims);
    chunk_seen c = {g, n, is_new, dims};
    sqlbuf q = {0};
    lr_status st = LR_OK;
    /* 1. the leaks; RETURNING yields the rows this ingest created: those are "new" */
    sql_add(&q, "INSERT INTO leak(signature, kind, short_description, pattern, description)"
                " VALUES");
    for (size_t i = 0; i < n; i++) {
        sql_add(&q, "%s($%zu, $%zu, $%zu, $%zu, $%zu)", i ? ", " : " ", 5 * i + 1, 5 * i + 2,
                5 * i + 3, 5 * i + 4, 5 * i + 5);
        p[5 * i] = SDB_TEXT(g[i].signature);
        p[5 * i + 1] = SDB_TEXT(g[i].kind);
        p[5 * i + 2] = SDB_TEXT(g[i].description);
        p[5 * i + 3] = SDB_TEXT(g[i].pattern);
        p[5 * i + 4] = SDB_TEXT(g[i].explanation);
    }
    sql_add(&q, " ON CONFLICT (signature) DO NOTHING RETURNING signature");
    if (!q.s)
        return LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    st = sdb_exec(s->db, q.s, (int)(5 * n), p, read_new_leak, &c, err);
    /* 2. the occurrences */
    q.n = 0;
    sql_add(&q, "INSERT INTO occurrence(report_id, signature, instances, retained_bytes,"
                " retained_objects, trace) VALUES");
    p[0] = SDB_INT(report_id);
    for (size_t i = 0; i < n; i++) {
        sql_add(&q, "%s($1, $%zu, $%zu, $%zu, $%zu, $%zu)", i ? ", " : " ", 5 * i + 2,
                5 * i + 3, 5 * i + 4, 5 * i + 5, 5 * i + 6);
        p[5 * i + 1] = SDB_TEXT(g[i].signature);
        p[5 * i + 2] = SDB_INT(g[i].instances);
        p[5 * i + 3] = SDB_INT(g[i].retained);
        p[5 * i + 4] = SDB_INT(g[i].objects);
        p[5 * i + 5] = SDB_TEXT(g[i].trace);
    }
    if (st == LR_OK && q.s)
        st = sdb_exec(s->db, q.s, (int)(1 + 5 * n), p, NULL, NULL, err);
    /* 3. the distinct apps, versions and dumps each leak was seen in */
    q.n = 0;
    sql_add(&q, "INSERT INTO leak_seen(signature, dim, value) VALUES");
    p[0] = SDB_TEXT(m->app ? m->app : "");
    p[1] = SDB_TEXT(m->version ? m->version : "");
    p[2] = SDB_TEXT(content_hash);
    for (size_t i = 0; i < n; i++) {
        sql_add(&q, "%s($%zu, 'app', $1), ($%zu, 'version', $2), ($%zu, 'dump', $3)",
                i ? ", " : " ", i + 4, i + 4, i + 4);
        p[3 + i] = SDB_TEXT(g[i].signature);
    }
    sql_add(&q, " ON CONFLICT DO NOTHING RETURNING signature, dim");
    if (st == LR_OK && q.s)
        st = sdb_exec(s->db, q.s, (int)(3 + n), p, read_dims, &c, err);
    /* 4. the running totals. Every SET expression sees the row before the update, so
     * "occurrences = 0" is the first occurrence. CASE rather than MIN/MAX: the dialects name
     * those differently; SELECT ... UNION ALL rather than VALUES: SQLite cannot name the
     * columns of a VALUES list. */
    q.n = 0;
    sql_add(&q, "UPDATE leak SET occurrences = leak.occurrences + 1,"
                " instances = leak.instances + v.i,"
                " retained_max = CASE WHEN v.r > leak.retained_max THEN v.r"
                "  ELSE leak.retained_max END,"
                " first_at = CASE WHEN leak.occurrences = 0 OR $1 < leak.first_at THEN $1"
                "  ELSE leak.first_at END,"
                " last_at = CASE WHEN leak.occurrences = 0 OR $1 > leak.last_at THEN $1"
                "  ELSE leak.last_at END,"
                " apps = leak.apps + v.a, versions = leak.versions + v.vs,"
                " dumps = leak.dumps + v.d FROM (");
    p[0] = SDB_INT(m->at_ms);
    for (size_t i = 0; i < n; i++) {
        size_t k = 6 * i + 2;
        sql_add(&q, "%sSELECT CAST($%zu AS TEXT) AS sig, CAST($%zu AS BIGINT) AS i,"
                    " CAST($%zu AS BIGINT) AS r, CAST($%zu AS BIGINT) AS a,"
                    " CAST($%zu AS BIGINT) AS vs, CAST($%zu AS BIGINT) AS d",
                i ? " UNION ALL " : "", k, k + 1, k + 2, k + 3, k + 4, k + 5);
        p[k - 1] = SDB_TEXT(g[i].signature);
        p[k] = SDB_INT(g[i].instances);
        p[k + 1] = SDB_INT(g[i].retained);
        p[k + 2] = SDB_INT(dims[i][0]);
        p[k + 3] = SDB_INT(dims[i][1]);
        p[k + 4] = SDB_INT(dims[i][2]);
    }
    sql_add(&q, ") AS v WHERE leak.signature = v.sig");
    if (st == LR_OK && q.s)
        st = sdb_exec(s->db, q.s, (int)(1 + 6 * n), p, NULL, NULL, err);
    if (st == LR_OK && !q.s)
        st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    free(q.s);
    for (size_t i = 0; i < n; i++)
        *n_new += is_new[i];
    return st;
}

static int cmp_group_sig(const void *a, const void *b)
{
    const group *x = a, *y = b;
    int c = strcmp(x->signature, y->signature);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* One group per signature: a report may list a signature twice (an application and a
 * library group can share a path); their sizes add up, the first listed stays. Groups are
 * then in signature order (see lock_signatures for what keeps concurrent ingests apart). */
static void merge_same_signature(group_list *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, cmp_group_sig);
    size_t out = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (out && strcmp(l->v[out - 1].signature, l->v[i].signature) == 0) {
            group *j = &l->v[out - 1];
            j->instances += l->v[i].instances;
            j->retained += l->v[i].retained;
            j->objects += l->v[i].objects;
            free(l->v[i].signature);
            free(l->v[i].description);
            free(l->v[i].pattern);
            free(l->v[i].explanation);
            free(l->v[i].trace);
            continue;
        }
        l->v[out++] = l->v[i];
    }
    l->n = out;
}

/* Buckets the signatures' advisory locks fall into: an ingest holds at most this many. A
 * lock per signature ran PostgreSQL's shared lock table out (max_locks_per_transaction x
 * max_connections, 6,400 slots by default): 16 concurrent ingests of 1,000 leaks each, or one
 * of 20,000, failed with "out of shared memory". */
#define LOCK_BUCKETS 64
/* The buckets' namespace: the first key of the two-key form ("leak" in ASCII), a space of
 * its own beside the one-key locks of store_db.c. */
#define LOCK_SPACE 1818585451

/* PostgreSQL: takes a transaction-scoped advisory lock per bucket of the report's
 * signatures, all of them, in one order every ingest shares, before the first leak row is
 * touched. Rows alone cannot be taken in one order: each chunk's statements meet its rows
 * several times (a new row, a foreign key's share lock, the totals' update), so two ingests
 * of overlapping leaks would wait for each other crosswise (a deadlock every few of 24
 * concurrent ingests of 400 leaks each); with the locks, those with leaks in common take
 * turns (and those whose leaks share a bucket), the others run side by side. */
static lr_status lock_signatures(store *s, const group_list *l, lr_error *err)
{
    if (sdb_kind_of(s->db) != SDB_POSTGRES || !l->n)
        return LR_OK;
    uint8_t want[LOCK_BUCKETS] = {0};
    for (size_t i = 0; i < l->n; i++) /* any hash every ingest computes the same */
        want[hash_fnv64_str(l->v[i].signature) % LOCK_BUCKETS] = 1;
    sqlbuf q = {0};
    sql_add(&q, "SELECT 0");
    for (unsigned k = 0; k < LOCK_BUCKETS; k++) /* a select list runs left to right */
        if (want[k])
            sql_add(&q, ", pg_advisory_xact_lock(%d, %u)", LOCK_SPACE, k);
    lr_status st = q.s ? sdb_exec(s->db, q.s, 0, NULL, NULL, NULL, err)
                       : LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
    free(q.s);
    return st;
}

static const char SQL_HEAD[] =
    "SELECT 1, json_extract(?1, '$.schema_version'), json_type(?1, '$.traces'),"
    " json_type(?1, '$.direct'), json_type(?1, '$.groups'), json_extract(?1, '$.mode'),"
    " json(json_remove(?1, '$.timing', '$.analysis_ms', '$.file', '$.timestamp_ms',"
    " '$.elapsed_ms')),"
    " json_type(?1, '$.snapshot.meta'), json_type(?1, '$.truncated'),"
    " json_type(?1, '$.application_leaks'), json_type(?1, '$.summary')";

static int read_valid(void *ctx, int n, const char *const *v)
{
    *(int *)ctx = n > 0 && v[0] && strcmp(v[0], "1") == 0;
    return 1;
}

lr_status store_ingest_json(store *s, const char *name, const char *json, size_t len,
                            const store_meta *m, store_ingest_result *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    if (len > (size_t)INT32_MAX)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: report of %zu bytes is too large", name, len);
    int valid = 0;
    LR_TRY(store_json_query(s, "SELECT json_valid(?1)", json, len, NULL, read_valid, &valid, err));
    if (!valid)
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: not a complete JSON document (truncated or malformed report)", name);
    report_head h = {0};
    LR_TRY(store_json_query(s, SQL_HEAD, json, len, NULL, read_head, &h, err));
    if (h.schema < 1 && h.v8_snapshot) /* a dump handed over as a report: say what to do */
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: a V8 heap snapshot, not a leakray report: store the file itself "
                       "(leakray store ingest FILE analyses it)", name);
    if (h.schema == -2)
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: schema_version is not a version number: not a leakray report",
                       name);
    if (h.schema < 1)
        return LR_FAIL(err, LR_ERR_FORMAT, "%s: no schema_version: not a leakray report", name);
    if (h.schema > STORE_REPORT_SCHEMA_MAX)
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: report schema_version %" PRId64 " is newer than this leakray "
                       "understands (%d); upgrade leakray",
                       name, h.schema, STORE_REPORT_SCHEMA_MAX);
    /* Part of a heap: its leaks would read as fixed, and the dump's story ends there. */
    if (h.truncated)
        return LR_FAIL(err, LR_ERR_TRUNCATED,
                       "%s: the dump was cut short: its report holds part of the heap, and its "
                       "missing leaks would read as fixed", name);
    /* The page's model lists its traces too, its leaks under groups: read as an analyze
     * report it had none, and every leak of that version read as fixed. */
    if (h.has_traces && !h.has_leaks && h.has_summary)
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: the report page's model (report --format json), not a leak report: "
                       "store the dump itself or its analyze --json report", name);
    group_list l = {0};
    lr_status st;
    const char *kind;
    if (h.has_traces) {
        kind = "analyze";
        int suspects = strcmp(h.mode, "suspects") == 0;
        st = read_traces(s, json, len, &l, err);
        if (st == LR_OK)
            st = read_groups(s, json, len, SQL_ANALYZE_GROUPS, "$.application_leaks",
                             suspects ? "suspect" : "application", &l, err);
        if (st == LR_OK)
            st = read_groups(s, json, len, SQL_ANALYZE_GROUPS, "$.library_leaks", "library",
                             &l, err);
        if (st == LR_OK && suspects) {
            /* read_group takes the trace as given: the suspect's own JSON */
            char **traces = l.traces;
            size_t n_traces = l.n_traces;
            l.traces = NULL;
            l.kind = "suspect";
            st = store_json_query(s, SQL_SUSPECT_GROUPS, json, len, NULL, read_suspect, &l,
                                  err);
            if (st == LR_OK)
                st = groups_status(&l, err);
            l.traces = traces;
            l.n_traces = n_traces;
        }
    } else if (h.has_native) {
        kind = "native";
        st = read_groups(s, json, len, SQL_NATIVE_GROUPS, "$.groups", "native", &l, err);
        /* thread leaks: a scan --fail-on-leak fails on them was stored as clean */
        if (st == LR_OK)
            st = store_json_query(s, SQL_NATIVE_THREADS, json, len, "$.threads", read_thread,
                                  &l, err);
        if (st == LR_OK)
            st = groups_status(&l, err);
    } else {
        return LR_FAIL(err, LR_ERR_FORMAT,
                       "%s: JSON but not a leakray leak report (analyze or native scan)", name);
    }
    if (st != LR_OK) {
        groups_free(&l);
        /* a shape SQLite's JSON functions refuse (a trace index that is no index, a list
         * that is no list): name the report, as every other refusal here does */
        if (st == LR_ERR_FORMAT && err && strncmp(err->msg, "store: ", 7) == 0) {
            char m2[sizeof err->msg];
            snprintf(m2, sizeof m2, "%s: %s (a report leakray did not write?)", name,
                     err->msg + 7);
            snprintf(err->msg, sizeof err->msg, "%s", m2);
        }
        return st;
    }
    merge_same_signature(&l);
    int64_t retained = 0;
    for (size_t i = 0; i < l.n; i++)
        retained += l.v[i].retained;
    char ihash[41];
    store_ingest_hash(h.canon_sha, m, ihash);
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    r->n_leaks = (int)l.n;
    r->retained = retained;

    int64_t id = 0, existing = 0;
    for (int attempt = 1;; attempt++) {
        r->n_new = 0;
        st = sdb_begin(s->db, err);
        if (st == LR_OK)
            st = sdb_lock_writes(s->db, 0, err);
        if (st == LR_OK)
            st = insert_report(s, ihash, h.canon_sha, kind, "ok", NULL, m, (int64_t)l.n,
                               retained, &id, &existing, err);
        if (st == LR_OK && id == 0) {
            r->duplicate = 1;
            r->report_id = existing;
            sdb_rollback(s->db);
            groups_free(&l);
            return LR_OK;
        }
        if (st == LR_OK && id != 0)
            st = lock_signatures(s, &l, err);
        /* the app and version as the report row keeps them (valid UTF-8): leak_seen
         * counted another spelling, and PostgreSQL refused the raw bytes */
        store_meta vm = *m;
        char *vapp = dup_text(m->app), *vver = dup_text(m->version);
        vm.app = vapp;
        vm.version = vver;
        if (st == LR_OK && ((m->app && !vapp) || (m->version && !vver)))
            st = LR_FAIL(err, LR_ERR_NOMEM, "store: out of memory");
        for (size_t i = 0; st == LR_OK && i < l.n; i += STORE_CHUNK)
            st = insert_chunk(s, id, l.v + i, l.n - i < STORE_CHUNK ? l.n - i : STORE_CHUNK,
                              &vm, h.canon_sha, &r->n_new, err);
        free(vapp);
        free(vver);
        if (st == LR_OK)
            st = sdb_commit(s->db, err);
        else
            sdb_rollback(s->db);
        /* Another ingest's transaction won a conflict (a PostgreSQL deadlock between
         * statements outside the leak rows' order, a serialisation failure): the whole
         * ingest runs again, after a pause that grows and differs between processes. */
        if (st == LR_OK || !sdb_retryable(s->db) || attempt >= STORE_INGEST_TRIES)
            break;
        struct timespec ts = {0, (long)(attempt * 20 + (now_ms() + getpid()) % 37) * 1000000L};
        nanosleep(&ts, NULL);
    }
    groups_free(&l);
    if (st == LR_OK)
        r->report_id = id;
    return st;
}

lr_status store_ingest_failure(store *s, const store_meta *m, const char *error,
                               store_ingest_result *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    snprintf(r->kind, sizeof r->kind, "failed");
    r->failed = 1;
    char chash[41], ihash[41];
    char buf[1024];
    int k = snprintf(buf, sizeof buf, "failed\x1f%s\x1f%s", m->source ? m->source : "",
                     error ? error : "");
    if (k < 0)
        k = 0;
    if ((size_t)k >= sizeof buf)
        k = (int)sizeof buf - 1;
    trace_sha1_hex(buf, (size_t)k, chash);
    store_ingest_hash(chash, m, ihash);
    LR_TRY(sdb_begin(s->db, err));
    int64_t id = 0, existing = 0;
    lr_status st = insert_report(s, ihash, chash, "failed", "failed", error, m, 0, 0, &id,
                                 &existing, err);
    if (st != LR_OK || id == 0) {
        sdb_rollback(s->db);
        r->duplicate = st == LR_OK;
        r->report_id = existing;
        return st;
    }
    LR_TRY(sdb_commit(s->db, err));
    r->report_id = id;
    return LR_OK;
}
