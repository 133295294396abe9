/* SPDX-License-Identifier: Apache-2.0 */
/* cluster_rules.c: parser and matchers of the cluster rules (rules layer), prefix crules_.
 * One line at a time through lex_word (rules/lex.h): comments from an unquoted '#', tokens
 * split on blanks, a token may hold double-quoted parts so globs can contain spaces
 * (name="system / Context"). Every string is copied (the text may be freed after parsing).
 * Matching uses fnmatch(3) without flags, so '*', '?' and '[...]' are the only special
 * characters. Costs: crules_match is linear in the `dir` lines; callers cache per (type,
 * name). Grammar: docs/rules.md, "Cluster rules". */
#include "rules/cluster_rules.h"
#include "rules/lex.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 8
#define MAX_LINE 1024 /* longer lines are rejected: no rule needs them */

static const char *const BY_NAMES[CRULES_BY_COUNT] = {
    "name", "chain", "property", "promise", "proxy", "none", "internal", "dom",
};

const char *crules_by_name(unsigned by)
{
    return by < CRULES_BY_COUNT ? BY_NAMES[by] : "?";
}

void crules_init(crules_set *rs)
{
    memset(rs, 0, sizeof *rs);
    rs->anchor_top = CRULES_DEFAULT_TOP;
    rs->anchor_permille = CRULES_DEFAULT_PERMILLE;
    rs->dict_min = CRULES_DEFAULT_DICT_MIN;
}

void crules_fini(crules_set *rs)
{
    if (!rs)
        return;
    for (uint32_t i = 0; i < rs->n_maps; i++) {
        free(rs->maps[i].dir);
        free(rs->maps[i].type_glob);
        free(rs->maps[i].name_glob);
    }
    for (uint32_t i = 0; i < rs->n_rules; i++)
        free(rs->rules[i].dir_glob);
    for (uint32_t i = 0; i < rs->n_leak_ignore; i++)
        free(rs->leak_ignore[i]);
    free(rs->maps);
    free(rs->rules);
    free(rs->leak_ignore);
    free(rs->leak_contents);
    crules_init(rs);
}

/* Grows an array of elements of size sz to hold n+1; returns 0 on overflow/NOMEM. */
static int grow(void **arr, uint32_t *cap, uint32_t n, size_t sz)
{
    if (n < *cap)
        return 1;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *p = err_reallocarray(*arr, nc, sz);
    if (!p)
        return 0;
    *arr = p;
    *cap = nc;
    return 1;
}

/* The value of "key=value" when tok starts with key=, else NULL. */
static const char *kv(const char *tok, const char *key)
{
    size_t k = strlen(key);
    return strncmp(tok, key, k) == 0 && tok[k] == '=' ? tok + k + 1 : NULL;
}

static int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
    if (!s || !*s)
        return 0;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > max)
            return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

#define BAD(fmt, ...) LEX_FAIL(err, name, ln, fmt, ##__VA_ARGS__)

static lr_status parse_line(crules_set *rs, const char *name, uint32_t ln, char **t, int n,
                            lr_error *err)
{
    if (strcmp(t[0], "dir") == 0) {
        if (n < 3)
            return BAD("`dir` needs a directory and type=/name= globs");
        const char *type = NULL, *nm = NULL;
        for (int i = 2; i < n; i++) {
            const char *v;
            if ((v = kv(t[i], "type")) && !type)
                type = v;
            else if ((v = kv(t[i], "name")) && !nm)
                nm = v;
            else
                return BAD("unexpected `%s` (want type=GLOB or name=GLOB)",
                           t[i]);
        }
        if (!grow((void **)&rs->maps, &rs->cap_maps, rs->n_maps, sizeof *rs->maps))
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading %s", name);
        crules_map *m = &rs->maps[rs->n_maps];
        m->dir = strdup(t[1]);
        m->type_glob = dup_or_null(type);
        m->name_glob = dup_or_null(nm);
        m->line = ln;
        if (!m->dir || (type && !m->type_glob) || (nm && !m->name_glob)) {
            free(m->dir);
            free(m->type_glob);
            free(m->name_glob);
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading %s", name);
        }
        rs->n_maps++;
        return LR_OK;
    }
    if (strcmp(t[0], "cluster") == 0) {
        const char *by = n == 3 ? kv(t[2], "by") : NULL;
        if (!by)
            return BAD("want `cluster DIRGLOB by=KIND`");
        int k = -1;
        for (int i = 0; i < CRULES_BY_COUNT; i++)
            if (strcmp(by, BY_NAMES[i]) == 0)
                k = i;
        if (k < 0)
            return BAD("unknown cluster kind `%s` (name, chain, property, promise, "
                       "proxy, none, internal, dom)", by);
        if (!grow((void **)&rs->rules, &rs->cap_rules, rs->n_rules, sizeof *rs->rules))
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading %s", name);
        crules_rule *r = &rs->rules[rs->n_rules];
        if (!(r->dir_glob = strdup(t[1])))
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading %s", name);
        r->by = (uint8_t)k;
        r->line = ln;
        rs->n_rules++;
        return LR_OK;
    }
    if (strcmp(t[0], "leak-ignore") == 0) {
        if (n != 2 && (n != 3 || (strcmp(t[2], "contents") && strcmp(t[2], "dominated") &&
                                  strcmp(t[2], "owned"))))
            return BAD("want `leak-ignore DIRGLOB [contents|dominated|owned]`");
        uint32_t cap = rs->cap_leak_ignore;
        if (!grow((void **)&rs->leak_ignore, &rs->cap_leak_ignore, rs->n_leak_ignore,
                  sizeof *rs->leak_ignore))
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading %s", name);
        if (rs->cap_leak_ignore != cap) {
            uint8_t *c = err_reallocarray(rs->leak_contents, rs->cap_leak_ignore, 1);
            if (!c)
                return LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading %s", name);
            rs->leak_contents = c;
        }
        uint8_t how = CRULES_IGNORE_DOMINATED;
        if (n < 3)
            how = 1;
        else if (!strcmp(t[2], "contents"))
            how = CRULES_IGNORE_CONTENTS;
        else if (!strcmp(t[2], "owned"))
            how = CRULES_IGNORE_OWNED;
        rs->leak_contents[rs->n_leak_ignore] = how;
        if (!(rs->leak_ignore[rs->n_leak_ignore] = strdup(t[1])))
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading %s", name);
        rs->n_leak_ignore++;
        return LR_OK;
    }
    if (strcmp(t[0], "anchors") == 0) {
        for (int i = 1; i < n; i++) {
            const char *v;
            uint32_t x;
            if ((v = kv(t[i], "top")) && parse_u32(v, 1000000, &x)) {
                if (!rs->set_top)
                    rs->anchor_top = x;
                rs->set_top = 1;
            } else if ((v = kv(t[i], "percent")) && parse_u32(v, 100, &x)) {
                if (!rs->set_permille)
                    rs->anchor_permille = x * 10;
                rs->set_permille = 1;
            } else {
                return BAD("want `anchors top=N percent=P` (P in 0..100), got `%s`", t[i]);
            }
        }
        return LR_OK;
    }
    if (strcmp(t[0], "dictionary") == 0) {
        uint32_t x;
        const char *v = n == 2 ? kv(t[1], "min") : NULL;
        if (!v || !parse_u32(v, 1000000, &x) || x < 2)
            return BAD("want `dictionary min=N` with N >= 2");
        if (!rs->set_dict)
            rs->dict_min = x;
        rs->set_dict = 1;
        return LR_OK;
    }
    return BAD("unknown cluster rule `%s` (dir, cluster, leak-ignore, anchors, "
               "dictionary)", t[0]);
}

lr_status crules_parse(crules_set *rs, const char *name, const char *text, size_t len,
                       lr_error *err)
{
    /* tokens are NUL-terminated copies side by side; quotes only shrink them */
    char buf[MAX_LINE + MAX_TOKENS + 1];
    lex_lines l;
    lex_lines_init(&l, text, len, 1);
    while (lex_next_line(&l)) {
        uint32_t ln = l.line;
        if (l.eol - l.p > MAX_LINE)
            return BAD("line longer than %d bytes", MAX_LINE);
        if (lex_line_has_nul(&l))
            return BAD("NUL byte in rules text");
        char *t[MAX_TOKENS];
        int n = 0;
        size_t used = 0;
        for (const char *p = l.p;; n++) {
            long k = lex_word(&p, l.eol, buf + used, sizeof buf - used);
            if (k == LEX_END)
                break;
            if (k < 0 || n == MAX_TOKENS)
                return BAD("unterminated quote or too many fields");
            t[n] = buf + used;
            used += (size_t)k + 1;
        }
        if (n > 0)
            LR_TRY(parse_line(rs, name, ln, t, n, err));
    }
    return LR_OK;
}

lr_status crules_load_file(crules_set *rs, const char *path, lr_error *err)
{
    char *text;
    size_t n;
    /* a rules file is text written by people */
    LR_TRY(lex_read_file(path, "rules file", 64, &text, &n, err));
    lr_status st = crules_parse(rs, path, text, n, err);
    free(text);
    return st;
}

const char *crules_shipped_file(const char *format, const char *version)
{
    /* One reader loads V8 and ArkTS snapshots (format "v8") and writes "V8 heap snapshot, ..."
     * or "ArkTS heap snapshot, ..." (src/format/v8_read.c): the names follow the runtime. */
    if (format && version && strcmp(format, "v8") == 0 && strncmp(version, "V8 ", 3) == 0)
        return CRULES_V8_FILE;
    if (format && strcmp(format, "hprof") == 0)
        return CRULES_HPROF_FILE;
    if (format && strcmp(format, "ruby") == 0)
        return CRULES_RUBY_FILE;
    return CRULES_FILE;
}

lr_status crules_load_shipped(crules_set *rs, const char *file, lr_error *err)
{
    char path[4096];
    const char *name, *text;
    size_t n;
    if (lex_find_rules(file, path, sizeof path))
        return crules_load_file(rs, path, err);
    if (lex_builtin_rules_file(file, &name, &text, &n))
        return crules_parse(rs, name, text, n, err);
    return LR_FAIL(err, LR_ERR_IO, "shipped rules file %s not found (set LEAKRAY_RULES_DIR)",
                   file);
}

static int glob_ok(const char *glob, const char *s)
{
    return !glob || fnmatch(glob, s, 0) == 0;
}

int32_t crules_match(const crules_set *rs, const char *type, const char *name)
{
    for (uint32_t i = 0; i < rs->n_maps; i++) {
        const crules_map *m = &rs->maps[i];
        if (glob_ok(m->type_glob, type) && glob_ok(m->name_glob, name))
            return (int32_t)i;
    }
    return -1;
}

int crules_type_has_maps(const crules_set *rs, const char *type)
{
    for (uint32_t i = 0; i < rs->n_maps; i++)
        if (glob_ok(rs->maps[i].type_glob, type))
            return 1;
    return 0;
}

enum crules_by crules_by(const crules_set *rs, const char *dir)
{
    for (uint32_t i = 0; i < rs->n_rules; i++)
        if (fnmatch(rs->rules[i].dir_glob, dir, 0) == 0)
            return (enum crules_by)rs->rules[i].by;
    return CRULES_BY_NAME;
}

int crules_leak_ignored(const crules_set *rs, const char *dir)
{
    for (uint32_t i = 0; i < rs->n_leak_ignore; i++)
        if (fnmatch(rs->leak_ignore[i], dir, 0) == 0)
            return rs->leak_contents[i];
    return 0;
}
