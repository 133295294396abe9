/* SPDX-License-Identifier: Apache-2.0 */
/* cluster_rules.c: parser and matchers of the cluster rules (rules layer), prefix crules_.
 * One line at a time: comments from an unquoted '#', tokens split on blanks, a token may hold
 * double-quoted parts so globs can contain spaces (name="system / Context"). Every string is
 * copied (the text may be freed after parsing). Matching uses fnmatch(3) without flags, so
 * '*', '?' and '[...]' are the only special characters. Costs: crules_match is linear in the
 * `dir` lines; callers cache per (type, name). Grammar: docs/rules.md, "Cluster rules". */
#include "rules/cluster_rules.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 8
#define MAX_LINE 1024 /* longer lines are rejected: no rule needs them */

static const char *const BY_NAMES[CRULES_BY_COUNT] = {
    "name", "chain", "property", "promise", "proxy", "none", "internal",
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

/* Splits one line (NUL-terminated, modifiable) into tokens in place, removing quotes.
 * Returns the token count, or -1 for an unterminated quote / too many tokens. */
static int tokenize(char *s, char **tok)
{
    int n = 0;
    char *r = s;
    for (;;) {
        while (*r == ' ' || *r == '\t' || *r == '\r')
            r++;
        if (!*r || *r == '#')
            return n;
        if (n == MAX_TOKENS)
            return -1;
        char *w = r;
        tok[n++] = w;
        while (*r && *r != ' ' && *r != '\t' && *r != '\r') {
            if (*r == '"') {
                r++;
                while (*r && *r != '"') {
                    if (*r == '\\' && (r[1] == '"' || r[1] == '\\'))
                        r++;
                    *w++ = *r++;
                }
                if (*r != '"')
                    return -1;
                r++;
            } else if (*r == '#') {
                break;
            } else {
                *w++ = *r++;
            }
        }
        int end = !*r || *r == '#';
        if (*r && *r != '#')
            r++;
        *w = '\0';
        if (end)
            return n;
    }
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

#define BAD(...) err_set(err, LR_ERR_RULES, LR_NO_OFFSET, __FILE__, __LINE__, __VA_ARGS__)

static lr_status parse_line(crules_set *rs, const char *name, uint32_t ln, char **t, int n,
                            lr_error *err)
{
    if (strcmp(t[0], "dir") == 0) {
        if (n < 3)
            return BAD("%s:%u: `dir` needs a directory and type=/name= globs", name, ln);
        const char *type = NULL, *nm = NULL;
        for (int i = 2; i < n; i++) {
            const char *v;
            if ((v = kv(t[i], "type")) && !type)
                type = v;
            else if ((v = kv(t[i], "name")) && !nm)
                nm = v;
            else
                return BAD("%s:%u: unexpected `%s` (want type=GLOB or name=GLOB)", name, ln,
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
            return BAD("%s:%u: want `cluster DIRGLOB by=KIND`", name, ln);
        int k = -1;
        for (int i = 0; i < CRULES_BY_COUNT; i++)
            if (strcmp(by, BY_NAMES[i]) == 0)
                k = i;
        if (k < 0)
            return BAD("%s:%u: unknown cluster kind `%s` (name, chain, property, promise, "
                       "proxy, none, internal)",
                       name, ln, by);
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
        if (n != 2)
            return BAD("%s:%u: want `leak-ignore DIRGLOB`", name, ln);
        if (!grow((void **)&rs->leak_ignore, &rs->cap_leak_ignore, rs->n_leak_ignore,
                  sizeof *rs->leak_ignore))
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading %s", name);
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
                return BAD("%s:%u: want `anchors top=N percent=P` (P in 0..100), got `%s`",
                           name, ln, t[i]);
            }
        }
        return LR_OK;
    }
    if (strcmp(t[0], "dictionary") == 0) {
        uint32_t x;
        const char *v = n == 2 ? kv(t[1], "min") : NULL;
        if (!v || !parse_u32(v, 1000000, &x) || x < 2)
            return BAD("%s:%u: want `dictionary min=N` with N >= 2", name, ln);
        if (!rs->set_dict)
            rs->dict_min = x;
        rs->set_dict = 1;
        return LR_OK;
    }
    return BAD("%s:%u: unknown cluster rule `%s` (dir, cluster, leak-ignore, anchors, "
               "dictionary)",
               name, ln, t[0]);
}

lr_status crules_parse(crules_set *rs, const char *name, const char *text, size_t len,
                       lr_error *err)
{
    char buf[MAX_LINE + 1];
    uint32_t ln = 0;
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        ln++;
        size_t l = j - i;
        if (l > MAX_LINE)
            return BAD("%s:%u: line longer than %d bytes", name, ln, MAX_LINE);
        memcpy(buf, text + i, l);
        buf[l] = '\0';
        if (memchr(buf, '\0', l))
            return BAD("%s:%u: NUL byte in rules text", name, ln);
        char *t[MAX_TOKENS];
        int n = tokenize(buf, t);
        if (n < 0)
            return BAD("%s:%u: unterminated quote or too many fields", name, ln);
        if (n > 0)
            LR_TRY(parse_line(rs, name, ln, t, n, err));
        i = j + 1;
    }
    return LR_OK;
}

lr_status crules_load_file(crules_set *rs, const char *path, lr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return LR_FAIL(err, LR_ERR_IO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *text = err_malloc(cap);
    lr_status st = LR_OK;
    while (text) {
        size_t got = fread(text + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        if (cap >= (64u << 20)) { /* a rules file is text written by people */
            st = LR_FAIL(err, LR_ERR_LIMIT, "%s: rules file larger than 64 MiB", path);
            break;
        }
        char *p = realloc(text, cap * 2);
        if (!p) {
            free(text);
            text = NULL;
            break;
        }
        text = p;
        cap *= 2;
    }
    if (!text)
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading %s", path);
    else if (st == LR_OK && ferror(f))
        st = LR_FAIL(err, LR_ERR_IO, "%s: read error", path);
    fclose(f);
    if (st == LR_OK)
        st = crules_parse(rs, path, text, n, err);
    free(text);
    return st;
}

lr_status crules_load_shipped(crules_set *rs, lr_error *err)
{
    const char *dirs[3] = {getenv("LEAKRAY_RULES_DIR"), NULL, NULL};
#ifdef LEAKRAY_SOURCE_RULES_DIR
    dirs[1] = LEAKRAY_SOURCE_RULES_DIR;
#endif
#ifdef LEAKRAY_RULES_DIR
    dirs[2] = LEAKRAY_RULES_DIR;
#endif
    char path[4096];
    for (int i = 0; i < 3; i++) {
        if (!dirs[i] || !*dirs[i])
            continue;
        snprintf(path, sizeof path, "%s/%s", dirs[i], CRULES_FILE);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            return crules_load_file(rs, path, err);
        }
    }
    return LR_FAIL(err, LR_ERR_IO, "shipped rules file %s not found (set LEAKRAY_RULES_DIR)",
                   CRULES_FILE);
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
            return 1;
    return 0;
}
