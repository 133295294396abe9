/* SPDX-License-Identifier: Apache-2.0 */
/* mapping.c: ProGuard/R8 deobfuscation of a loaded graph (rules layer), prefix mapping_.
 * Parse: one entry per "orig -> obf:" line, fields as (orig, obf) pairs, methods as
 * "[a:b:]type name(args)[:c[:d]] -> obf" with their line ranges (obfuscated a..b maps to
 * original c..d, or to c alone; R8 lists an inlined chain as several entries for one range,
 * innermost first), and R8's `# {"id":"sourceFile","fileName":...}` header under a class;
 * other `#` lines are comments. Classes are sorted by obfuscated name for binary search.
 * Apply: field and static edges are renamed first (their lookup needs the obfuscated class
 * and field names), then declared fields, statics, stack frames (class, method, line, source
 * file, as ReTrace reads a stack trace) and classes. graph_intern may move the string pool,
 * so names are copied out before any intern. Cost O(E log C) for the edges. */
#include "rules/mapping.h"
#include "rules/lex.h"

#include "base/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mfield {
    char *orig, *obf;
} mfield;

/* One method entry. Lines are 0 when absent (a0 == 0: no obfuscated range). */
typedef struct mmethod {
    char *orig;     /* original name, "pkg.Class.name" when inlined from another class */
    char *obf;      /* obfuscated name */
    int32_t a0, a1; /* obfuscated line range */
    int32_t o0, o1; /* original lines: o0..o1 (o1 0 = o0 alone), o0 0 = same as obfuscated */
} mmethod;

typedef struct mclass {
    char *orig, *obf;
    char *source; /* R8 sourceFile header, or NULL */
    mfield *f;
    uint32_t n, cap;
    mmethod *m;
    uint32_t n_m, cap_m;
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
        for (uint32_t j = 0; j < m->c[i].n_m; j++) {
            free(m->c[i].m[j].orig);
            free(m->c[i].m[j].obf);
        }
        free(m->c[i].m);
        free(m->c[i].source);
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

/* Decimal at *pp (advanced), or -1 when there is none or it is out of range. */
static int32_t read_line_no(const char **pp, const char *end)
{
    const char *p = *pp;
    int64_t v = 0;
    if (p >= end || *p < '0' || *p > '9')
        return -1;
    for (; p < end && *p >= '0' && *p <= '9'; p++)
        if ((v = v * 10 + (*p - '0')) > INT32_MAX)
            return -1;
    *pp = p;
    return (int32_t)v;
}

/* "[a:b:]type name(args)[:c[:d]]" in [q, arrow), obfuscated name after the arrow. A line
 * the grammar does not fit is skipped like a comment: mappings carry members we ignore. */
static lr_status parse_method(mclass *cur, const char *name, const char *q, const char *arrow,
                              const char *eol, lr_error *err)
{
    mmethod e = {0};
    const char *p = q, *save = q;
    int32_t a0 = read_line_no(&p, arrow);
    if (a0 >= 0 && p < arrow && *p == ':') {
        p++;
        int32_t a1 = read_line_no(&p, arrow);
        if (a1 < 0 || p >= arrow || *p != ':')
            return LR_OK;
        e.a0 = a0;
        e.a1 = a1;
        save = ++p;
    }
    const char *open = memchr(save, '(', (size_t)(arrow - save));
    const char *close = open ? memchr(open, ')', (size_t)(arrow - open)) : NULL;
    if (!close)
        return LR_OK;
    const char *ns = open;
    while (ns > save && ns[-1] != ' ')
        ns--;
    p = close + 1;
    if (p < arrow && *p == ':') {
        p++;
        e.o0 = read_line_no(&p, arrow);
        if (e.o0 >= 0 && p < arrow && *p == ':') {
            p++;
            e.o1 = read_line_no(&p, arrow);
        }
        if (e.o0 < 0 || e.o1 < 0)
            e.o0 = e.o1 = 0;
    }
    if (cur->n_m == cur->cap_m) {
        uint32_t nc = cur->cap_m ? cur->cap_m * 2 : 8;
        mmethod *v = err_reallocarray(cur->m, nc, sizeof *v);
        if (!v)
            return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
        cur->m = v;
        cur->cap_m = nc;
    }
    e.orig = trimdup(ns, open);
    e.obf = trimdup(arrow + 4, eol);
    if (!e.orig || !e.obf) {
        free(e.orig);
        free(e.obf);
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
    }
    cur->m[cur->n_m++] = e;
    return LR_OK;
}

/* R8's header `# {"id":"sourceFile","fileName":"Foo.kt"}` names the class's source file. */
static lr_status parse_header(mclass *cur, const char *name, const char *q, const char *eol,
                              lr_error *err)
{
    static const char id[] = "\"id\":\"sourceFile\"", key[] = "\"fileName\":\"";
    size_t n = (size_t)(eol - q);
    const char *hit = NULL;
    for (size_t i = 0; i + sizeof id - 1 <= n && !hit; i++)
        if (memcmp(q + i, id, sizeof id - 1) == 0)
            hit = q + i;
    if (!cur || !hit)
        return LR_OK;
    for (const char *s = q; s + sizeof key - 1 <= eol; s++)
        if (memcmp(s, key, sizeof key - 1) == 0) {
            const char *v = s + sizeof key - 1, *e = memchr(v, '"', (size_t)(eol - v));
            if (!e || e == v)
                return LR_OK;
            free(cur->source);
            cur->source = trimdup(v, e);
            if (!cur->source)
                return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
            return LR_OK;
        }
    return LR_OK;
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
        if (q < eol && *q == '#') {
            lr_status st = parse_header(cur, name, q, eol, err);
            if (st != LR_OK)
                return st;
        } else if (q < eol && arrow) {
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
            } else if (cur && memchr(q, '(', (size_t)(arrow - q))) {
                lr_status st = parse_method(cur, name, q, arrow, eol, err);
                if (st != LR_OK)
                    return st;
            } else if (cur) {
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

/* ---- stack frames ---- */

/* The entry for a frame at obfuscated line `line` (<= 0: unknown) of method obf: the one whose
 * range holds the line (the innermost of an inlined chain), else one without a range, else,
 * when every entry of that name has one original name, the first. NULL when ambiguous. */
static const mmethod *find_method(const mclass *c, const char *obf, int32_t line)
{
    const mmethod *first = NULL, *unranged = NULL;
    int one_name = 1;
    for (uint32_t i = 0; i < c->n_m; i++) {
        const mmethod *m = &c->m[i];
        if (strcmp(m->obf, obf) != 0)
            continue;
        if (m->a0 || m->a1) {
            if (line > 0 && line >= m->a0 && line <= m->a1)
                return m;
        } else if (!unranged) {
            unranged = m;
        }
        if (!first)
            first = m;
        else if (strcmp(first->orig, m->orig) != 0)
            one_name = 0;
    }
    return unranged ? unranged : one_name ? first : NULL;
}

/* Original line of an obfuscated one through entry m (unchanged when m maps no lines). */
static int32_t map_line(const mmethod *m, int32_t line)
{
    if (line <= 0 || !(m->a0 || m->a1) || line < m->a0 || line > m->a1 || m->o0 == 0)
        return line;
    if (m->o1 && m->o1 - m->o0 == m->a1 - m->a0)
        return m->o0 + (line - m->a0);
    return m->o0;
}

static const mclass *find_class_by_orig(const mapping *m, const char *orig)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (strcmp(m->c[i].orig, orig) == 0)
            return &m->c[i];
    return NULL;
}

/* Renames each frame of a mapped class: class, method, line, and the source file (the class's
 * sourceFile header, else "Outer.java" for R8's placeholder "SourceFile" or none). */
static lr_status map_frames(graph *g, const mapping *m, lr_error *err)
{
    char cls[1024], meth[1024], src[1024];
    for (uint32_t i = 0; i < g->n_frames; i++) {
        graph_frame *f = &g->frames[i];
        if (f->class_name == GRAPH_NONE)
            continue;
        const mclass *c = find_class(m, graph_str(g, f->class_name));
        if (!c)
            continue;
        const mmethod *mm = find_method(c, graph_str(g, f->method), f->line);
        snprintf(cls, sizeof cls, "%s", c->orig);
        const mclass *owner = c;
        if (mm) {
            /* "pkg.Other.name": a method R8 inlined from another class */
            const char *dot = strrchr(mm->orig, '.');
            if (dot && (size_t)(dot - mm->orig) < sizeof cls) {
                memcpy(cls, mm->orig, (size_t)(dot - mm->orig));
                cls[dot - mm->orig] = 0;
                owner = find_class_by_orig(m, cls);
            }
            snprintf(meth, sizeof meth, "%s", dot ? dot + 1 : mm->orig);
            f->line = map_line(mm, f->line);
        } else {
            snprintf(meth, sizeof meth, "%s", graph_str(g, f->method));
        }
        const char *old_src = f->source != GRAPH_NONE ? graph_str(g, f->source) : "";
        src[0] = 0;
        if (owner && owner->source) {
            snprintf(src, sizeof src, "%s", owner->source);
        } else if (!*old_src || strcmp(old_src, "SourceFile") == 0 || owner != c) {
            const char *simple = strrchr(cls, '.');
            simple = simple ? simple + 1 : cls;
            size_t n = strcspn(simple, "$");
            snprintf(src, sizeof src, "%.*s.java", (int)n, simple);
        }
        LR_TRY(intern(g, cls, &f->class_name, err));
        LR_TRY(intern(g, meth, &f->method, err));
        if (src[0])
            LR_TRY(intern(g, src, &f->source, err));
    }
    return LR_OK;
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
                class_ix c = graph_node_class(g, n);
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
    if (st == LR_OK)
        st = map_frames(g, &m, err);
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
        if (st != LR_OK || !map_class_name(&m, cn, buf, sizeof buf))
            continue;
        if (!(is_array && (flags & MAPPING_KEEP_ARRAYS))) {
            st = intern(g, buf, &gc->name, err);
            continue;
        }
        /* kept for the traces; tables list the array under its clear name */
        if (!g->class_clear_name) {
            g->class_clear_name = err_mallocarray(g->n_classes, sizeof *g->class_clear_name);
            if (!g->class_clear_name) {
                st = LR_FAIL(err, LR_ERR_NOMEM, "mapping: out of memory for %u classes",
                             g->n_classes);
                break;
            }
            for (class_ix k = 0; k < g->n_classes; k++)
                g->class_clear_name[k] = GRAPH_NONE;
        }
        st = intern(g, buf, &g->class_clear_name[c], err);
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
