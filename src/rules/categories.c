/* SPDX-License-Identifier: Apache-2.0 */
/* categories.c: category rules (rules layer), prefix cat_. A small line parser of its own
 * (the grammar is one keyword and words, no expressions), a '*'-only glob matcher (class
 * names contain '$' and "[]", which fnmatch would read as syntax), and a per-class binding
 * that walks each superclass chain at most once per class, cycle-safe for corrupt dumps. */
#include "rules/categories.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAT_MAX_FILE (16u << 20) /* a category file is a few KB; refuse anything huge */
#define CAT_MAX_DEPTH 4096       /* superclass steps followed per class */

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

static int is_word_char(char c)
{
    return c > ' ' && c != '#' && c != 0x7f;
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
    const char *p = text, *end = text + len;
    name = name ? name : "<categories>";
    for (uint32_t line = 1; p < end; line++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if (memchr(p, 0, (size_t)(eol - p)))
            return LR_FAIL(err, LR_ERR_RULES, "%s:%u: NUL byte in rules text", name, line);
        /* Split into words; '#' at a word start begins a comment. */
        int nw = 0; /* words seen: 1 keyword, 2 name, 3 patterns */
        uint32_t cat = CAT_NONE;
        const char *q = p;
        while (q < eol) {
            while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
                q++;
            if (q >= eol || *q == '#')
                break;
            const char *s = q;
            while (q < eol && is_word_char(*q))
                q++;
            if (q == s)
                return LR_FAIL(err, LR_ERR_RULES, "%s:%u: control character in rules text",
                               name, line);
            size_t n = (size_t)(q - s);
            if (nw == 0) {
                if (n != 8 || memcmp(s, "category", 8) != 0)
                    return LR_FAIL(err, LR_ERR_RULES,
                                   "%s:%u: expected 'category NAME CLASS...', got '%.*s'",
                                   name, line, (int)(n > 40 ? 40 : n), s);
                nw = 1;
            } else if (nw == 1) {
                if (!valid_name(s, n))
                    return LR_FAIL(err, LR_ERR_RULES,
                                   "%s:%u: bad category name '%.*s' (letters, digits, _ -)",
                                   name, line, (int)(n > 40 ? 40 : n), s);
                LR_TRY(category_index(cs, s, n, &cat, name, line, err));
                nw = 2;
            } else {
                if (n > 1024)
                    return LR_FAIL(err, LR_ERR_RULES, "%s:%u: class pattern too long", name,
                                   line);
                LR_TRY(add_rule(cs, s, n, cat, line, err));
                nw = 3;
            }
        }
        if (nw == 1 || nw == 2)
            return LR_FAIL(err, LR_ERR_RULES, "%s:%u: %s", name, line,
                           nw == 1 ? "missing category name and class patterns"
                                   : "missing class patterns");
        p = eol + (eol < end);
    }
    return LR_OK;
}

lr_status cat_load_file(cat_set *cs, const char *path, lr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return LR_FAIL(err, LR_ERR_IO, "%s: %s", path, strerror(errno));
    char *buf = err_malloc(CAT_MAX_FILE);
    if (!buf) {
        fclose(f);
        return LR_FAIL(err, LR_ERR_NOMEM, "categories: out of memory");
    }
    size_t n = fread(buf, 1, CAT_MAX_FILE, f);
    int bad = ferror(f);
    int more = !bad && n == CAT_MAX_FILE && fgetc(f) != EOF;
    fclose(f);
    lr_status st;
    if (bad)
        st = LR_FAIL(err, LR_ERR_IO, "%s: read error", path);
    else if (more)
        st = LR_FAIL(err, LR_ERR_RULES, "%s: larger than %u bytes", path, CAT_MAX_FILE);
    else
        st = cat_parse(cs, path, buf, n, err);
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
        snprintf(path, sizeof path, "%s/%s.rules", dirs[i], what);
        if (access(path, R_OK) == 0)
            return cat_load_file(cs, path, err);
    }
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
    class_ix c = g->node_class[n];
    if (c >= g->n_classes || g->node_kind[n] == GRAPH_KIND_CLASS)
        return CAT_NONE;
    return cs->of_class[c];
}

const char *cat_name(const cat_set *cs, uint32_t c)
{
    return c < cs->n_names ? cs->names[c] : "other";
}
