/* SPDX-License-Identifier: Apache-2.0 */
/* watch_opts.c: parser of the JVM agent's option string and of the run-time rules in
 * rules/jvm.rules (watch layer), prefix watch_opts_ / watch_rule_ / watch_rules_. Strict:
 * an unknown key, a missing or non-numeric value, a zero threshold or a rule without
 * CLASS#METHOD is an error naming the option, because the agent must stop the JVM at start
 * rather than watch something other than what was asked. Grammar: watch_opts.h. */
#include "watch/watch_opts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void watch_opts_default(watch_opts *o)
{
    memset(o, 0, sizeof *o);
    o->threshold = 5;
    o->delay_ms = 5000;
    o->max_dumps = WATCH_OPTS_MAX_DUMPS;
    o->max_watched = 100000;
    o->report = WATCH_REPORT_TEXT;
}

/* A Java identifier run with dots/dollars (class) or without (method). */
static int ident_ok(const char *s, size_t n, int dots)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c) || c == '_' || c == '$' || c >= 0x80 || (dots && c == '.'))
            continue;
        return 0; /* includes '<': constructors cannot be watched by name */
    }
    return s[0] != '.' && s[n - 1] != '.';
}

int watch_rule_parse(const char *s, size_t len, watch_rule *r)
{
    const char *hash = memchr(s, '#', len);
    if (!hash)
        return -1;
    size_t cl = (size_t)(hash - s), ml = len - cl - 1;
    if (!ident_ok(s, cl, 1) || !ident_ok(hash + 1, ml, 0) || cl >= sizeof r->cls ||
        ml >= sizeof r->method)
        return -1;
    memcpy(r->cls, s, cl);
    r->cls[cl] = 0;
    memcpy(r->method, hash + 1, ml);
    r->method[ml] = 0;
    return 0;
}

/* Decimal in [min, max]; the whole value must be digits. */
/* Whether v (vl bytes) starts with a URL scheme no store speaks: a store is a SQLite file
 * (a file: URI too) or postgres:// / postgresql://. */
static int unknown_scheme(const char *v, size_t vl)
{
    size_t k = 0;
    while (k < vl && (isalpha((unsigned char)v[k]) ||
                      (k && (isdigit((unsigned char)v[k]) || strchr("+.-", v[k])))))
        k++;
    if (!k || k >= vl || v[k] != ':')
        return 0;
    int slashes = vl - k >= 3 && memcmp(v + k, "://", 3) == 0;
    return !(k == 4 && strncasecmp(v, "file", 4) == 0) &&
           !(slashes && k == 8 && strncasecmp(v, "postgres", 8) == 0) &&
           !(slashes && k == 10 && strncasecmp(v, "postgresql", 10) == 0);
}

static int parse_num(const char *v, size_t n, uint64_t min, uint64_t max, uint64_t *out)
{
    if (n == 0 || n > 19)
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    if (x < min || x > max)
        return -1;
    *out = x;
    return 0;
}

static int copy_path(char *dst, const char *v, size_t n)
{
    if (n == 0 || n >= WATCH_OPTS_PATH_MAX)
        return -1;
    memcpy(dst, v, n);
    dst[n] = 0;
    return 0;
}

/* One KEY[=VALUE] item. Returns 0, or -1 (the caller names the item). */
static int parse_item(const char *s, size_t len, watch_opts *o, const char **why)
{
    const char *eq = memchr(s, '=', len);
    size_t kl = eq ? (size_t)(eq - s) : len;
    const char *v = eq ? eq + 1 : NULL;
    size_t vl = eq ? len - kl - 1 : 0;
    uint64_t x;
#define KEY(k) (kl == sizeof(k) - 1 && memcmp(s, k, kl) == 0)
    if (KEY("quiet")) {
        if (eq) {
            *why = "agent option takes no value";
            return -1;
        }
        o->quiet = 1;
        return 0;
    }
    if (!KEY("dump-dir") && !KEY("threshold") && !KEY("delay-ms") && !KEY("watch") &&
        !KEY("report") && !KEY("store") && !KEY("max-dumps") && !KEY("max-watched") &&
        !KEY("rules") && !KEY("leakray") && !KEY("app") && !KEY("version") &&
        !KEY("device")) {
        *why = "unknown agent option";
        return -1;
    }
    if (!eq) {
        *why = "agent option needs a value";
        return -1;
    }
    *why = "malformed agent option";
    if (KEY("dump-dir"))
        return copy_path(o->dump_dir, v, vl);
    if (KEY("rules"))
        return copy_path(o->rules, v, vl);
    if (KEY("leakray"))
        return copy_path(o->leakray, v, vl);
    if (KEY("threshold")) {
        if (parse_num(v, vl, 1, 1000000, &x))
            return -1;
        o->threshold = (unsigned)x;
        return 0;
    }
    if (KEY("delay-ms")) {
        if (parse_num(v, vl, 0, 86400000, &x))
            return -1;
        o->delay_ms = x;
        return 0;
    }
    if (KEY("max-dumps")) {
        if (parse_num(v, vl, 1, 100000, &x))
            return -1;
        o->max_dumps = (unsigned)x;
        return 0;
    }
    if (KEY("max-watched")) {
        if (parse_num(v, vl, 1, 100000000, &x))
            return -1;
        o->max_watched = (uint32_t)x;
        return 0;
    }
    if (KEY("app") || KEY("version") || KEY("device")) {
        char *dst = KEY("app") ? o->app : KEY("version") ? o->version : o->device;
        if (vl == 0 || vl >= WATCH_OPTS_META_MAX)
            return -1;
        memcpy(dst, v, vl);
        dst[vl] = 0;
        return 0;
    }
    if (KEY("store")) {
        if (vl == 0 || vl >= sizeof o->store)
            return -1;
        /* a URL of a scheme no store speaks ("pg:leaks", "postgress://"): refused at start,
         * as `store ingest` refuses it, not at the first dump, days later */
        if (unknown_scheme(v, vl))
            return -1;
        memcpy(o->store, v, vl);
        o->store[vl] = 0;
        o->report = WATCH_REPORT_DB;
        return 0;
    }
    if (KEY("report")) {
        if (vl == 4 && strncasecmp(v, "text", 4) == 0)
            o->report = WATCH_REPORT_TEXT;
        else if (vl == 4 && strncasecmp(v, "json", 4) == 0)
            o->report = WATCH_REPORT_JSON;
        else if (vl == 2 && strncasecmp(v, "db", 2) == 0)
            o->report = WATCH_REPORT_DB;
        else
            return -1;
        return 0;
    }
    /* watch= */
    if (o->n_watch >= WATCH_OPTS_MAX_RULES) {
        *why = "too many watch= agent options";
        return -1;
    }
    if (watch_rule_parse(v, vl, &o->watch[o->n_watch]) != 0) {
        *why = "agent option expects CLASS#METHOD";
        return -1;
    }
    o->n_watch++;
    return 0;
#undef KEY
}

int watch_opts_parse(const char *s, watch_opts *o, char *err, size_t n)
{
    watch_opts_default(o);
    if (!s)
        return 0;
    const char *p = s;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        const char *why = "empty agent option";
        if (len == 0 || parse_item(p, len, o, &why) != 0) {
            snprintf(err, n, "%s '%.*s'", why, (int)(len > 200 ? 200 : len), p);
            return -1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

int watch_rules_load(const char *path, watch_opts *o, char *err, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    /* a directory opens for reading and reads as nothing: no rules, silently */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, n, "%s: not a rules file (%s)", path,
                 S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        fclose(f);
        return -1;
    }
    char line[1024];
    int ln = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            snprintf(err, n, "%s:%d: line too long", path, ln);
            rc = -1;
            break;
        }
        /* comment: '#' at the start or after a blank (CLASS#METHOD has none before it) */
        for (size_t i = 0; i < len; i++)
            if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
                line[i] = 0;
                len = i;
                break;
            }
        char *tok[3];
        int nt = 0;
        for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
            if (nt == 3) {
                nt = 4;
                break;
            }
            tok[nt++] = t;
        }
        if (nt == 0)
            continue;
        if (nt == 2 && strcmp(tok[0], "unwatch") == 0) {
            size_t cl = strlen(tok[1]);
            if (cl == 0 || cl >= WATCH_OPTS_CLASS_MAX || strchr(tok[1], '#') ||
                strchr(tok[1], '/')) {
                snprintf(err, n, "%s:%d: expected `unwatch CLASS`, got '%s'", path, ln, tok[1]);
                rc = -1;
                break;
            }
            if (o->n_unwatch >= WATCH_OPTS_MAX_UNWATCH) {
                snprintf(err, n, "%s:%d: more than %d unwatch rules", path, ln,
                         WATCH_OPTS_MAX_UNWATCH);
                rc = -1;
                break;
            }
            memcpy(o->unwatch[o->n_unwatch++], tok[1], cl + 1);
            continue;
        }
        if (nt != 2 || strcmp(tok[0], "watch") != 0) {
            snprintf(err, n, "%s:%d: expected `watch CLASS#METHOD` or `unwatch CLASS`", path,
                     ln);
            rc = -1;
            break;
        }
        if (o->n_watch >= WATCH_OPTS_MAX_RULES) {
            snprintf(err, n, "%s:%d: more than %d watch rules", path, ln, WATCH_OPTS_MAX_RULES);
            rc = -1;
            break;
        }
        if (watch_rule_parse(tok[1], strlen(tok[1]), &o->watch[o->n_watch]) != 0) {
            snprintf(err, n, "%s:%d: expected CLASS#METHOD, got '%s'", path, ln, tok[1]);
            rc = -1;
            break;
        }
        o->n_watch++;
    }
    fclose(f);
    return rc;
}
