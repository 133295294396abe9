/* SPDX-License-Identifier: Apache-2.0 */
/* cli_store.c: what the leak store's verbs share (cli), prefix cli_store_; see cli_store.h.
 * The store is `--db URL`, else $LEAKRAY_DB, else $XDG_DATA_HOME/leakray/store.db
 * (~/.local/share/leakray/store.db). */
#include "cli_store.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

/* ---- time ---- */

/* 9999-12-31T23:59:59Z: the last time the date form can write */
#define CLI_STORE_TIME_MAX 253402300799LL

int cli_store_parse_time(const char *s, int64_t *ms)
{
    char *end;
    const char *p = s[0] == '@' ? s + 1 : s;
    errno = 0;
    long long secs = strtoll(p, &end, 10);
    if (*p && !*end && !errno && (s[0] == '@' || strlen(p) > 8)) {
        if (secs < 0 || secs > CLI_STORE_TIME_MAX)
            return 0;
        *ms = (int64_t)secs * 1000;
        return 1;
    }
    struct tm tm = {0};
    int n = 0, y, mo, d, h = 0, mi = 0, sec = 0;
    if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3)
        return 0;
    const char *r = s + n;
    if (*r == 'T' || *r == ' ') {
        int m2 = 0;
        if (sscanf(r + 1, "%2d:%2d%n", &h, &mi, &m2) != 2)
            return 0;
        r += 1 + m2;
        if (*r == ':') {
            if (sscanf(r + 1, "%2d%n", &sec, &m2) != 1)
                return 0;
            r += 1 + m2;
        }
    }
    if (*r == 'Z')
        r++;
    if (*r || y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 ||
        h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
        return 0;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    time_t t = timegm(&tm);
    /* timegm moves 2026-02-30 to March 2: a date that does not come back is no date */
    struct tm back;
    if (!gmtime_r(&t, &back) || back.tm_year != y - 1900 || back.tm_mon != mo - 1 ||
        back.tm_mday != d)
        return 0;
    *ms = (int64_t)t * 1000;
    return 1;
}

/* ---- opening ---- */

const char *cli_store_default(char *buf, size_t cap)
{
    const char *e = getenv("LEAKRAY_DB");
    if (e && *e)
        return e;
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    char dir[PATH_MAX];
    if (xdg && *xdg)
        snprintf(dir, sizeof dir, "%s/leakray", xdg);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.local/share/leakray", home);
    else
        snprintf(dir, sizeof dir, ".");
    /* Create the folder (and ~/.local/share on a fresh account) like any XDG program. */
    cli_mkdirs(dir);
    snprintf(buf, cap, "%s/store.db", dir);
    return buf;
}

const char *cli_store_url(const char *db, char *buf, size_t cap)
{
    return db && strcmp(db, "default") != 0 ? db : cli_store_default(buf, cap);
}

static int make_filter(const cli_common *co, const store_opts *o, store_filter *f)
{
    store_filter_init(f);
    /* as the store keeps them: bytes of no valid UTF-8 as U+FFFD (the copies live as long
     * as the process: one filter per command) */
    static char *app, *version;
    free(app);
    free(version);
    f->app = app = o->app ? store_text_dup(o->app) : NULL;
    f->version = version = o->version ? store_text_dup(o->version) : NULL;
    f->kind = o->kind;
    if ((o->app && !f->app) || (o->version && !f->version))
        return cli_fail(co, LR_ERR_NOMEM, "out of memory");
    if (o->since && !cli_store_parse_time(o->since, &f->since_ms))
        return cli_usage_error(co, "--since '%s' is not a time (YYYY-MM-DD[THH:MM[:SS]] "
                               "UTC or @unix-seconds, from 1970 to 9999)", o->since);
    return 0;
}

int cli_store_parse(int argc, char **argv, const cli_spec *spec, const char *const *out,
                    store_opts *o, cli_common *co, store_filter *f)
{
    int rc = out ? cli_parse_output(argc, argv, spec, co, out) : cli_parse(argc, argv, spec, co);
    char buf[PATH_MAX + 16];
    if (rc == CLI_CONTINUE && out && *out &&
        cli_out_is(*out, cli_store_url(o->db, buf, sizeof buf)))
        return cli_usage_error(co, "-o %s is the leak store; write to another path", *out);
    if (rc == CLI_CONTINUE && f && (rc = make_filter(co, o, f)) == 0)
        rc = CLI_CONTINUE;
    return rc;
}

const char *cli_store_no_file(const char *url)
{
    /* SQLite's names for a database that is no file (a program's own test store, through
     * the library): from the command line, whatever was stored would be gone at exit */
    if (!url[0] || strcmp(url, ":memory:") == 0 ||
        (strncmp(url, "file:", 5) == 0 && (strstr(url, ":memory:") || strstr(url, "mode=memory"))))
        return "names no file: a store is a SQLite file or a postgres:// URL";
    /* "postgress://host/db", "pg:leaks": a URL of a scheme no store speaks, which SQLite
     * would take for a file name and make, in the working folder, with exit 0 */
    size_t n = 0;
    while ((url[n] >= 'a' && url[n] <= 'z') || (url[n] >= 'A' && url[n] <= 'Z') ||
           (n && ((url[n] >= '0' && url[n] <= '9') || url[n] == '+' || url[n] == '.' ||
                  url[n] == '-')))
        n++;
    if (n && url[n] == ':' && strncmp(url, "file:", 5) != 0 && !store_url_is_pg(url))
        return "has a scheme no store speaks (postgres:// or postgresql:// for PostgreSQL; a "
               "SQLite file otherwise, ./NAME for a file whose name has a colon)";
    return NULL;
}

static int open_store(const cli_common *co, const store_opts *o, int existing, store **s)
{
    char buf[PATH_MAX + 16];
    const char *url = cli_store_url(o->db, buf, sizeof buf);
    const char *why = cli_store_no_file(url);
    if (why)
        return cli_usage_error(co, "--db '%s' %s", url, why);
    lr_error err = {0};
    if ((existing ? store_open_existing(url, s, &err) : store_open(url, s, &err)) != LR_OK)
        return cli_error(co, &err);
    return CLI_CONTINUE;
}

int cli_store_open(const cli_common *co, const store_opts *o, store **s)
{
    return open_store(co, o, 0, s);
}

int cli_store_open_existing(const cli_common *co, const store_opts *o, store **s)
{
    /* A store that only reads (leaks, show, trend, diff, prune, export) opens what exists: a
     * mistyped --db made an empty SQLite file and answered "0 leaks". */
    char buf[PATH_MAX + 16];
    const char *url = cli_store_url(o->db, buf, sizeof buf);
    if (!cli_store_no_file(url) && !store_url_is_pg(url) && access(url, F_OK) != 0)
        return cli_fail(co, LR_ERR_IO, "no leak store at %s (`leakray store ingest` makes one)",
                        url);
    return open_store(co, o, 1, s);
}

int cli_store_begin(int argc, char **argv, const cli_spec *spec, store_opts *o, cli_common *co,
                    store_filter *f, store **s)
{
    int rc = cli_store_parse(argc, argv, spec, NULL, o, co, f);
    return rc != CLI_CONTINUE ? rc : cli_store_open_existing(co, o, s);
}

int cli_store_fail(const cli_common *co, store *s, const lr_error *err)
{
    store_close(s);
    return cli_error(co, err);
}

/* The dump time an analysis names (analyze --json's top-level "timestamp_ms", among its
 * first keys), or 0 when it names none. */
int64_t cli_store_doc_time(const char *doc, size_t len)
{
    static const char key[] = "\"timestamp_ms\":";
    size_t lim = len < 4096 ? len : 4096;
    for (size_t i = 0; i + sizeof key - 1 <= lim; i++) {
        if (memcmp(doc + i, key, sizeof key - 1) != 0)
            continue;
        size_t j = i + sizeof key - 1;
        while (j < len && (doc[j] == ' ' || doc[j] == '\n'))
            j++;
        int64_t t = 0;
        for (; j < len && doc[j] >= '0' && doc[j] <= '9' && t < INT64_MAX / 10 - 9; j++)
            t = t * 10 + (doc[j] - '0');
        return t;
    }
    return 0;
}
