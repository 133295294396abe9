/* SPDX-License-Identifier: Apache-2.0 */
/* categories.c: category rules (rules layer), prefix cat_. Lines are split into words by
 * lex_word (rules/lex.h; the grammar is one keyword and words, no expressions), a '*'-only
 * glob matcher (class names contain '$' and "[]", which fnmatch would read as syntax), and a
 * per-class binding that walks each superclass chain at most once per class, cycle-safe for
 * corrupt dumps. */
#include "rules/categories.h"
#include "rules/lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT_MAX_FILE_MIB 16  /* a category file is a few KB; refuse anything huge */
#define CAT_MAX_PATTERN 1024 /* bytes of one class pattern */
#define CAT_MAX_DEPTH 4096   /* superclass steps followed per class */

void cat_init(cat_set *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->collection = CAT_NONE;
}

void cat_fini(cat_set *cs)
{
    for (uint32_t i = 0; i < cs->n_names; i++)
        free(cs->names[i]);
    for (uint32_t i = 0; i < cs->n_rules; i++)
        free(cs->rules[i].pattern);
    free(cs->rules);
    free(cs->of_class);
    cat_init(cs);
}

int cat_match(const char *p, const char *s)
{
    /* Greedy '*' with one backtrack point: linear for the patterns used here. */
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            resume = s;
        } else if (*p == *s) {
            p++;
            s++;
        } else if (star) {
            p = star + 1;
            s = ++resume;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == 0;
}

/* Bytes of UTF-8 class names are fine; ASCII control characters are not. */
static int has_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < ' ' || s[i] == 0x7f)
            return 1;
    return 0;
}

static int valid_name(const char *s, size_t n)
{
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

static lr_status add_rule(cat_set *cs, const char *pat, size_t n, uint32_t cat, uint32_t line,
                          lr_error *err)
{
    if (cs->n_rules == cs->cap_rules) {
        uint32_t nc = cs->cap_rules ? cs->cap_rules * 2 : 32;
        if (nc > (1u << 20))
            return LR_FAIL(err, LR_ERR_LIMIT, "categories: too many rules");
        cat_rule *nr = err_reallocarray(cs->rules, nc, sizeof *nr);
        if (!nr)
            return LR_FAIL(err, LR_ERR_NOMEM, "categories: out of memory");
        cs->rules = nr;
        cs->cap_rules = nc;
    }
    char *p = err_malloc(n + 1);
    if (!p)
        return LR_FAIL(err, LR_ERR_NOMEM, "categories: out of memory");
    memcpy(p, pat, n);
    p[n] = 0;
    cs->rules[cs->n_rules++] = (cat_rule){p, cat, line};
    return LR_OK;
}

static lr_status category_index(cat_set *cs, const char *s, size_t n, uint32_t *out,
                                const char *name, uint32_t line, lr_error *err)
{
    for (uint32_t i = 0; i < cs->n_names; i++)
        if (strlen(cs->names[i]) == n && memcmp(cs->names[i], s, n) == 0) {
            *out = i;
            return LR_OK;
        }
    if (n == 5 && memcmp(s, "other", 5) == 0)
        return LR_FAIL(err, LR_ERR_RULES,
                       "%s:%u: 'other' is what no rule matches; it cannot be assigned", name,
                       line);
    if (cs->n_names == CAT_MAX)
        return LR_FAIL(err, LR_ERR_RULES, "%s:%u: more than %d categories", name, line,
                       CAT_MAX);
    char *c = err_malloc(n + 1);
    if (!c)
        return LR_FAIL(err, LR_ERR_NOMEM, "categories: out of memory");
    memcpy(c, s, n);
    c[n] = 0;
    if (strcmp(c, "collection") == 0)
        cs->collection = cs->n_names;
    cs->names[cs->n_names] = c;
    *out = cs->n_names++;
    return LR_OK;
}

lr_status cat_parse(cat_set *cs, const char *name, const char *text, size_t len,
                    lr_error *err)
{
    name = name ? name : "<categories>";
    char s[CAT_MAX_PATTERN + 2]; /* one more byte than a pattern may hold: "too long" */
    lex_lines l;
    lex_lines_init(&l, text, len, 1);
    while (lex_next_line(&l)) {
        uint32_t line = l.line;
        if (lex_line_has_nul(&l))
            return LEX_FAIL(err, name, line, "NUL byte in rules text");
        int nw = 0; /* words seen: 1 keyword, 2 name, 3 patterns */
        uint32_t cat = CAT_NONE;
        for (const char *q = l.p;;) {
            long k = lex_word(&q, l.eol, s, sizeof s);
            if (k == LEX_END)
                break;
            if (k == LEX_EQUOTE)
                return LEX_FAIL(err, name, line, "unterminated quote");
            size_t n = strlen(s);
            if (has_control(s, n))
                return LEX_FAIL(err, name, line, "control character in rules text");
            if (nw == 0) {
                if (n != 8 || memcmp(s, "category", 8) != 0)
                    return LEX_FAIL(err, name, line,
                                    "expected 'category NAME CLASS...', got '%.*s'",
                                    (int)(n > 40 ? 40 : n), s);
                nw = 1;
            } else if (nw == 1) {
                if (!valid_name(s, n))
                    return LEX_FAIL(err, name, line,
                                    "bad category name '%.*s' (letters, digits, _ -)",
                                    (int)(n > 40 ? 40 : n), s);
                LR_TRY(category_index(cs, s, n, &cat, name, line, err));
                nw = 2;
            } else {
                if (n > CAT_MAX_PATTERN)
                    return LEX_FAIL(err, name, line, "class pattern too long");
                LR_TRY(add_rule(cs, s, n, cat, line, err));
                nw = 3;
            }
        }
        if (nw == 1 || nw == 2)
            return LEX_FAIL(err, name, line, "%s",
                            nw == 1 ? "missing category name and class patterns"
                                    : "missing class patterns");
    }
    return LR_OK;
}

lr_status cat_load_file(cat_set *cs, const char *path, lr_error *err)
{
    char *buf;
    size_t n;
    LR_TRY(lex_read_file(path, "rules file", CAT_MAX_FILE_MIB, &buf, &n, err));
    lr_status st = cat_parse(cs, path, buf, n, err);
    free(buf);
    return st;
}

lr_status cat_load(cat_set *cs, const char *what, lr_error *err)
{
    size_t wl = strlen(what);
    if (strchr(what, '/') || (wl > 6 && strcmp(what + wl - 6, ".rules") == 0))
        return cat_load_file(cs, what, err);
    if (!valid_name(what, wl))
        return LR_FAIL(err, LR_ERR_USAGE, "categories: '%s' is neither a file nor a set name",
                       what);
    char file[80], path[4096];
    snprintf(file, sizeof file, "%s.rules", what);
    const char *name, *text;
    size_t n;
    if (lex_find_rules(file, path, sizeof path))
        return cat_load_file(cs, path, err);
    if (lex_builtin_rules_file(file, &name, &text, &n))
        return cat_parse(cs, name, text, n, err);
    return LR_FAIL(err, LR_ERR_NOT_FOUND,
                   "categories: no shipped set '%s' (rules/%s.rules; set LEAKRAY_RULES_DIR)",
                   what, what);
}

lr_status cat_bind(cat_set *cs, const graph *g, lr_error *err)
{
    uint32_t nc = g->n_classes;
    free(cs->of_class);
    cs->g = g;
    cs->of_class = err_mallocarray(nc ? nc : 1, sizeof *cs->of_class);
    uint32_t *own = err_mallocarray(nc ? nc : 1, sizeof *own);
    if (!cs->of_class || !own) {
        free(own);
        return LR_FAIL(err, LR_ERR_NOMEM, "categories: out of memory (%u classes)", nc);
    }
    for (class_ix c = 0; c < nc; c++) {
        own[c] = CAT_NONE;
        const char *name = graph_str(g, g->classes[c].name);
        for (uint32_t r = 0; r < cs->n_rules; r++)
            if (cat_match(cs->rules[r].pattern, name)) {
                own[c] = cs->rules[r].cat;
                break;
            }
    }
    /* The nearest class up the chain with a rule decides; the walk is capped so a superclass
     * cycle in a corrupt dump ends (real hierarchies are a few dozen deep). */
    for (class_ix c = 0; c < nc; c++) {
        uint32_t cat = CAT_NONE;
        class_ix k = c;
        for (uint32_t steps = 0; k < nc && steps < CAT_MAX_DEPTH; steps++) {
            if (own[k] != CAT_NONE) {
                cat = own[k];
                break;
            }
            k = g->classes[k].super;
        }
        cs->of_class[c] = cat;
    }
    free(own);
    return LR_OK;
}

uint32_t cat_of_node(const cat_set *cs, node_ix n)
{
    const graph *g = cs->g;
    if (!g || !cs->of_class || n >= g->n_nodes)
        return CAT_NONE;
    class_ix c = graph_node_class(g, n);
    if (c >= g->n_classes || g->node_kind[n] == GRAPH_KIND_CLASS)
        return CAT_NONE;
    return cs->of_class[c];
}

const char *cat_name(const cat_set *cs, uint32_t c)
{
    return c < cs->n_names ? cs->names[c] : "other";
}
