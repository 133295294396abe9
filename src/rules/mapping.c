/* SPDX-License-Identifier: Apache-2.0 */
/* mapping.c: ProGuard/R8 deobfuscation of a loaded graph (rules layer), prefix mapping_.
 * Parse: one entry per "orig -> obf:" line, members as (orig, obf) pairs, sorted by
 * obfuscated class name for binary search. Apply: field and static edges are renamed first
 * (their lookup needs the obfuscated class and field names), then declared fields, statics
 * and classes. graph_intern may move the string pool, so names are copied out before any
 * intern. Cost O(E log C) for the edges, static edges included. */
#include "rules/mapping.h"
#include "rules/lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mfield {
    char *orig, *obf;
} mfield;

typedef struct mclass {
    char *orig, *obf;
    mfield *f;
    uint32_t n, cap;
} mclass;

typedef struct mapping {
    mclass *c;
    uint32_t n, cap;
} mapping;

static void mapping_free(mapping *m)
{
    for (uint32_t i = 0; i < m->n; i++) {
        for (uint32_t j = 0; j < m->c[i].n; j++) {
            free(m->c[i].f[j].orig);
            free(m->c[i].f[j].obf);
        }
        free(m->c[i].f);
        free(m->c[i].orig);
        free(m->c[i].obf);
    }
    free(m->c);
}

static char *trimdup(const char *a, const char *b)
{
    while (a < b && (*a == ' ' || *a == '\t'))
        a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r' || b[-1] == ':'))
        b--;
    char *p = err_malloc((size_t)(b - a) + 1);
    if (p) {
        memcpy(p, a, (size_t)(b - a));
        p[b - a] = 0;
    }
    return p;
}

static int cmp_class(const void *a, const void *b)
{
    return strcmp(((const mclass *)a)->obf, ((const mclass *)b)->obf);
}

static lr_status parse(mapping *m, const char *name, const char *text, size_t len,
                       lr_error *err)
{
    mclass *cur = NULL;
    lex_lines l;
    lex_lines_init(&l, text, len, 1);
    while (lex_next_line(&l)) {
        const char *p = l.p, *eol = l.eol;
        const char *q = lex_skip_blanks(p, eol);
        int indented = q > p;
        const char *arrow = NULL;
        for (const char *s = q; s + 3 < eol; s++)
            if (s[0] == ' ' && s[1] == '-' && s[2] == '>' && s[3] == ' ') {
                arrow = s;
                break;
            }
        if (q < eol && *q != '#' && arrow) {
            if (!indented) {
                if (eol[-1 - (eol > p && eol[-1] == '\r')] != ':')
                    return LEX_FAIL(err, name, l.line, "class line must end with ':'");
                if (m->n == m->cap) {
                    uint32_t nc = m->cap ? m->cap * 2 : 64;
                    mclass *v = err_reallocarray(m->c, nc, sizeof *v);
                    if (!v)
                        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
                    m->c = v;
                    m->cap = nc;
                }
                cur = &m->c[m->n++];
                memset(cur, 0, sizeof *cur);
                cur->orig = trimdup(q, arrow);
                cur->obf = trimdup(arrow + 4, eol);
                if (!cur->orig || !cur->obf)
                    return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
            } else if (cur && !memchr(q, '(', (size_t)(arrow - q))) {
                /* "type name -> obf": the original name is the last word before the arrow */
                const char *ns = arrow;
                while (ns > q && ns[-1] != ' ')
                    ns--;
                if (cur->n == cur->cap) {
                    uint32_t nc = cur->cap ? cur->cap * 2 : 8;
                    mfield *v = err_reallocarray(cur->f, nc, sizeof *v);
                    if (!v)
                        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
                    cur->f = v;
                    cur->cap = nc;
                }
                mfield *f = &cur->f[cur->n++];
                f->orig = trimdup(ns, arrow);
                f->obf = trimdup(arrow + 4, eol);
                if (!f->orig || !f->obf)
                    return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
            }
        }
    }
    if (m->n)
        qsort(m->c, m->n, sizeof *m->c, cmp_class);
    return LR_OK;
}

static const mclass *find_class(const mapping *m, const char *obf)
{
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        int c = strcmp(m->c[mid].obf, obf);
        if (c == 0)
            return &m->c[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const char *find_field(const mclass *c, const char *obf)
{
    for (uint32_t i = 0; c && i < c->n; i++)
        if (!strcmp(c->f[i].obf, obf))
            return c->f[i].orig;
    return NULL;
}

/* Original name of a class name, arrays included ("a[][]" -> "Foo[][]"). */
static int map_class_name(const mapping *m, const char *name, char *out, size_t cap)
{
    size_t len = strlen(name), base = len;
    while (base >= 2 && name[base - 2] == '[' && name[base - 1] == ']')
        base -= 2;
    char tmp[1024];
    if (base >= sizeof tmp)
        return 0;
    memcpy(tmp, name, base);
    tmp[base] = 0;
    const mclass *c = find_class(m, tmp);
    if (!c)
        return 0;
    int k = snprintf(out, cap, "%s%s", c->orig, name + base);
    return k > 0 && (size_t)k < cap;
}

static lr_status intern(graph *g, const char *s, str_ix *out, lr_error *err)
{
    return graph_intern(g, s, strlen(s), out, err);
}

lr_status mapping_apply_text(graph *g, const char *name, const char *text, size_t len,
                             lr_error *err)
{
    return mapping_apply_text_ex(g, name, text, len, 0, err);
}

lr_status mapping_apply_text_ex(graph *g, const char *name, const char *text, size_t len,
                                unsigned flags, lr_error *err)
{
    mapping m;
    memset(&m, 0, sizeof m);
    lr_status st = parse(&m, name, text, len, err);
    const mclass **of = NULL;
    if (st != LR_OK || m.n == 0)
        goto done;
    /* mapping class of every graph class, by its (obfuscated) name */
    of = err_calloc(g->n_classes ? g->n_classes : 1, sizeof *of);
    if (!of) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
        goto done;
    }
    for (class_ix c = 0; c < g->n_classes; c++)
        of[c] = find_class(&m, graph_str(g, g->classes[c].name));
    char buf[1024];
    /* edges first: their lookup needs the obfuscated names. A graph whose edge names are read
     * back from field descriptors (graph.derive) follows the descriptor renames below. */
    for (node_ix n = 0; n < g->n_nodes && st == LR_OK && g->first_edge && g->edge_name; n++) {
        for (edge_ix e = g->first_edge[n]; e < g->first_edge[n + 1] && st == LR_OK; e++) {
            unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
            const char *orig = NULL;
            if (k == GRAPH_EDGE_FIELD) {
                const char *fname = graph_str(g, graph_edge_name_from(g, n, e));
                class_ix c = g->node_class[n];
                for (int d = 0; d < 64 && c < g->n_classes && !orig; d++) {
                    const graph_class *gc = &g->classes[c];
                    for (uint32_t f = 0; f < gc->n_fields && gc->first_field + f < g->n_fields;
                         f++)
                        if (!strcmp(graph_str(g, g->fields[gc->first_field + f].name), fname)) {
                            orig = of[c] ? find_field(of[c], fname) : NULL;
                            if (!orig)
                                orig = fname;
                            break;
                        }
                    c = gc->super;
                }
            } else if (k == GRAPH_EDGE_STATIC && g->node_kind[n] == GRAPH_KIND_CLASS) {
                class_ix c = graph_class_of_node(g, n);
                if (c != GRAPH_NONE)
                    orig = of[c] ? find_field(of[c], graph_str(g, graph_edge_name_from(g, n, e)))
                                 : NULL;
            }
            if (orig && strcmp(orig, graph_str(g, graph_edge_name_from(g, n, e)))) {
                snprintf(buf, sizeof buf, "%s", orig);
                str_ix s;
                st = intern(g, buf, &s, err);
                g->edge_name[e] = s;
            }
        }
    }
    for (class_ix c = 0; c < g->n_classes && st == LR_OK; c++) {
        graph_class *gc = &g->classes[c];
        if (of[c]) {
            for (uint32_t f = 0; f < gc->n_fields && gc->first_field + f < g->n_fields; f++) {
                str_ix fname = g->fields[gc->first_field + f].name;
                const char *o = find_field(of[c], graph_str(g, fname));
                if (o && st == LR_OK) {
                    snprintf(buf, sizeof buf, "%s", o);
                    st = intern(g, buf, &g->fields[gc->first_field + f].name, err);
                }
            }
            for (uint32_t f = 0; f < gc->n_statics && gc->first_static + f < g->n_statics; f++) {
                const char *o =
                    find_field(of[c], graph_str(g, g->statics[gc->first_static + f].name));
                if (o && st == LR_OK) {
                    snprintf(buf, sizeof buf, "%s", o);
                    st = intern(g, buf, &g->statics[gc->first_static + f].name, err);
                }
            }
        }
        const char *cn = graph_str(g, gc->name);
        size_t cl = strlen(cn);
        int is_array = cl >= 2 && cn[cl - 1] == ']';
        if (st == LR_OK && !(is_array && (flags & MAPPING_KEEP_ARRAYS)) &&
            map_class_name(&m, cn, buf, sizeof buf))
            st = intern(g, buf, &gc->name, err);
    }
done:
    free(of);
    mapping_free(&m);
    return st;
}

lr_status mapping_apply_file(graph *g, const char *path, lr_error *err)
{
    return mapping_apply_file_ex(g, path, 0, err);
}

lr_status mapping_apply_file_ex(graph *g, const char *path, unsigned flags, lr_error *err)
{
    char *buf;
    size_t n;
    LR_TRY(lex_read_file(path, "mapping", 256, &buf, &n, err));
    lr_status st = mapping_apply_text_ex(g, path, buf, n, flags, err);
    free(buf);
    return st;
}
