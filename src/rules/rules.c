/* SPDX-License-Identifier: Apache-2.0 */
/* rules.c: the rules language (rules layer), prefix rules_. A per-line tokenizer and a
 * recursive-descent parser build rules and a pool of expression nodes; rules_bind reads
 * android.os.Build facts from the dump and indexes instance-field rules and inspectors per
 * class (closest class first, as Shark's InstanceFieldPattern wants); queries then cost a few
 * string compares per edge. Expressions never allocate: field chains are walked with
 * graph_field_find and strings decoded into fixed buffers, so a hostile dump can only make a
 * condition false. The one exception is bound state: the members of each `in static`
 * collection are gathered once by rules_bind (a bounded walk) into a sorted array. Grammar:
 * docs/rules.md. */
#include "rules/rules.h"
#include "rules/lex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- expressions */

enum { EX_OR, EX_AND, EX_NOT, EX_CMP, EX_ISNULL, EX_NOTNULL, EX_INSTANCEOF, EX_TRUTHY, EX_IN,
       EX_NOTIN };
enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };
enum { OPD_PATH, OPD_INT, OPD_STR, OPD_BOOL, OPD_NULL };

typedef struct operand {
    uint8_t kind;
    int64_t i;
    char *s; /* path (dotted) or string literal */
} operand;

struct rules_expr {
    uint8_t op;
    uint8_t cmp;
    int32_t a, b; /* children for OR/AND/NOT */
    operand l, r; /* CMP: l op r; ISNULL/NOTNULL/TRUTHY: l; INSTANCEOF: l, r.s = class;
                   * IN/NOTIN: l, r.s = "CLASS#static.path" */
    uint8_t have_set; /* IN/NOTIN: the collection was found by rules_bind */
    node_ix *set;     /* IN/NOTIN: its members, sorted (bound state) */
    uint32_t n_set;
};

enum { V_MISSING, V_NULL, V_BOOL, V_INT, V_FLOAT, V_OBJ, V_STR };
typedef struct val {
    uint8_t k;
    int64_t i;
    double d;
    node_ix n;
    char s[256];
} val;

/* ---------------------------------------------------------------- lifecycle */

void rules_init(rules_set *rs) { memset(rs, 0, sizeof *rs); }

static void free_operand(operand *o) { free(o->s); }

void rules_fini(rules_set *rs)
{
    if (!rs)
        return;
    for (uint32_t i = 0; i < rs->n_refs; i++) {
        free(rs->refs[i].cls);
        free(rs->refs[i].field);
        free(rs->refs[i].description);
        free(rs->refs[i].pattern);
    }
    for (uint32_t i = 0; i < rs->n_insp; i++) {
        free(rs->insp[i].cls);
        free(rs->insp[i].text);
        free(rs->insp[i].fields_of);
    }
    for (uint32_t i = 0; i < rs->n_exprs; i++) {
        free_operand(&rs->exprs[i].l);
        free_operand(&rs->exprs[i].r);
        free(rs->exprs[i].set);
    }
    for (uint32_t i = 0; i < rs->n_files; i++)
        free(rs->files[i]);
    free(rs->files);
    free(rs->refs);
    free(rs->insp);
    free(rs->exprs);
    free(rs->cls_first);
    free(rs->cls_items);
    free(rs->thread_serials);
    free(rs->generic);
    memset(rs, 0, sizeof *rs);
}

static char *dupn(const char *s, size_t n)
{
    char *p = err_malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    void *q = err_reallocarray(*p, nc, elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* ---------------------------------------------------------------- tokenizer */

enum { T_END, T_IDENT, T_STR, T_INT, T_OP };

typedef struct lexer {
    const char *p, *end;
    const char *file;
    uint32_t line;
    int tk;          /* current token kind */
    char text[512];  /* identifier / string / op text */
    int64_t num;
    lr_error *err;
    lr_status st;    /* first failure */
} lexer;

static int fail(lexer *lx, const char *fmt, const char *arg)
{
    if (lx->st == LR_OK) {
        char m[700];
        if (snprintf(m, sizeof m, fmt, arg ? arg : "") < 0) /* long names are cut */
            m[0] = 0;
        lx->st = LEX_FAIL(lx->err, lx->file, lx->line, "%s", m);
    }
    return -1;
}

static int ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '$' || c == '.' || c == '[' || c == ']' || c == '@' ||
           c == '<' || c == '>' || c == '#';
}

static void next(lexer *lx)
{
    const char *p = lex_skip_blanks(lx->p, lx->end);
    lx->text[0] = 0;
    if (p >= lx->end || *p == '#') { /* '#' after blank = comment */
        lx->p = lx->end;
        lx->tk = T_END;
        return;
    }
    char c = *p;
    if (c == '"') {
        long k = lex_quoted(&p, lx->end, LEX_ESC_C, lx->text, sizeof lx->text);
        if (k < 0) {
            fail(lx, k == LEX_ELONG ? "string literal too long" : "unterminated string", NULL);
            lx->tk = T_END;
            lx->p = lx->end;
            return;
        }
        lx->p = p;
        lx->tk = T_STR;
        return;
    }
    if (isdigit((unsigned char)c) ||
        (c == '-' && p + 1 < lx->end && isdigit((unsigned char)p[1]))) {
        const char *q = p + (c == '-');
        int64_t v = 0;
        int over = 0;
        while (q < lx->end && isdigit((unsigned char)*q)) {
            if (v > (INT64_MAX - 9) / 10)
                over = 1;
            else
                v = v * 10 + (*q - '0');
            q++;
        }
        if (over) {
            fail(lx, "number out of range", NULL);
            lx->tk = T_END;
            lx->p = lx->end;
            return;
        }
        lx->num = c == '-' ? -v : v;
        lx->p = q;
        lx->tk = T_INT;
        return;
    }
    /* two-char operators first, so "->" never becomes an identifier */
    static const char *ops2[] = {"==", "!=", "<=", ">=", "&&", "||", "->"};
    for (size_t i = 0; i < sizeof ops2 / sizeof *ops2; i++) {
        if (p + 1 < lx->end && p[0] == ops2[i][0] && p[1] == ops2[i][1]) {
            memcpy(lx->text, ops2[i], 3);
            lx->p = p + 2;
            lx->tk = T_OP;
            return;
        }
    }
    if (strchr("<>!()*", c)) {
        lx->text[0] = c;
        lx->text[1] = 0;
        lx->p = p + 1;
        lx->tk = T_OP;
        return;
    }
    if (ident_char((unsigned char)c) && c != '#' && c != '<' && c != '>') {
        size_t n = 0;
        while (p < lx->end) {
            int ch = (unsigned char)*p;
            /* '-' joins keywords like not-leaking; '<' '>' join names like <init> only
             * after '$' or '.', so `a<3` still lexes as a comparison */
            int ok = ident_char(ch) && ch != '<' && ch != '>';
            if (ch == '-' && n > 0 && p + 1 < lx->end && isalpha((unsigned char)p[1]) &&
                isalpha((unsigned char)lx->text[n - 1]))
                ok = 1;
            if ((ch == '<' || ch == '>') && n > 0 &&
                (lx->text[n - 1] == '$' || lx->text[n - 1] == '.' ||
                 (ch == '>' && strchr(lx->text, '<'))))
                ok = 1;
            if (!ok)
                break;
            if (n + 1 >= sizeof lx->text) {
                fail(lx, "name too long", NULL);
                lx->tk = T_END;
                lx->p = lx->end;
                return;
            }
            lx->text[n++] = (char)ch;
            p++;
        }
        lx->text[n] = 0;
        lx->p = p;
        lx->tk = T_IDENT;
        return;
    }
    char tmp[2] = {c, 0};
    fail(lx, "unexpected character '%s'", tmp);
    lx->tk = T_END;
    lx->p = lx->end;
}

static int is_op(const lexer *lx, const char *op)
{
    return lx->tk == T_OP && !strcmp(lx->text, op);
}
static int is_kw(const lexer *lx, const char *kw)
{
    return lx->tk == T_IDENT && !strcmp(lx->text, kw);
}

/* ---------------------------------------------------------------- parser */

/* Nesting of '(' and '!' in one expression: the parser and eval recurse once per level, so
 * the cap bounds their stack (a hostile file could nest hundreds of thousands deep). */
#define RULES_MAX_NEST 64

typedef struct parser {
    lexer lx;
    rules_set *rs;
    int nest; /* parse_unary frames active */
} parser;

static int32_t new_expr(parser *ps)
{
    rules_set *rs = ps->rs;
    if (rs->n_exprs >= (1u << 24))
        return fail(&ps->lx, "too many expressions", NULL);
    if (grow((void **)&rs->exprs, &rs->cap_exprs, rs->n_exprs + 1, sizeof *rs->exprs)) {
        if (ps->lx.st == LR_OK)
            ps->lx.st = LR_FAIL(ps->lx.err, LR_ERR_NOMEM, "out of memory parsing rules");
        return -1;
    }
    memset(&rs->exprs[rs->n_exprs], 0, sizeof *rs->exprs);
    rs->exprs[rs->n_exprs].a = rs->exprs[rs->n_exprs].b = -1;
    return (int32_t)rs->n_exprs++;
}

static int parse_operand(parser *ps, operand *o)
{
    lexer *lx = &ps->lx;
    memset(o, 0, sizeof *o);
    if (lx->tk == T_INT) {
        o->kind = OPD_INT;
        o->i = lx->num;
    } else if (lx->tk == T_STR) {
        o->kind = OPD_STR;
        o->s = dupn(lx->text, strlen(lx->text));
        if (!o->s)
            return fail(lx, "out of memory", NULL);
    } else if (is_kw(lx, "true") || is_kw(lx, "false")) {
        o->kind = OPD_BOOL;
        o->i = is_kw(lx, "true");
    } else if (is_kw(lx, "null")) {
        o->kind = OPD_NULL;
    } else if (lx->tk == T_IDENT) {
        if (strchr(lx->text, '#'))
            return fail(lx, "'#' is not allowed in a field path: %s", lx->text);
        o->kind = OPD_PATH;
        o->s = dupn(lx->text, strlen(lx->text));
        if (!o->s)
            return fail(lx, "out of memory", NULL);
    } else {
        return fail(lx, "expected a field path or a value, got '%s'",
                    lx->tk == T_END ? "end of line" : lx->text);
    }
    next(lx);
    return 0;
}

static int32_t parse_or(parser *ps);
static int valid_class_name(const char *s);

static int32_t parse_unary_in(parser *ps);

static int32_t parse_unary(parser *ps)
{
    if (ps->nest >= RULES_MAX_NEST)
        return fail(&ps->lx, "expression nested too deeply", NULL);
    ps->nest++;
    int32_t e = parse_unary_in(ps);
    ps->nest--;
    return e;
}

static int32_t parse_unary_in(parser *ps)
{
    lexer *lx = &ps->lx;
    if (is_op(lx, "!")) {
        next(lx);
        int32_t a = parse_unary(ps);
        if (a < 0)
            return -1;
        int32_t e = new_expr(ps);
        if (e < 0)
            return -1;
        ps->rs->exprs[e].op = EX_NOT;
        ps->rs->exprs[e].a = a;
        return e;
    }
    if (is_op(lx, "(")) {
        next(lx);
        int32_t a = parse_or(ps);
        if (a < 0)
            return -1;
        if (!is_op(lx, ")"))
            return fail(lx, "expected ')'", NULL);
        next(lx);
        return a;
    }
    operand l;
    if (parse_operand(ps, &l) < 0)
        return -1;
    int32_t e = new_expr(ps);
    if (e < 0) {
        free_operand(&l);
        return -1;
    }
    rules_expr *x = &ps->rs->exprs[e];
    x->l = l;
    static const char *cmps[] = {"==", "!=", "<", "<=", ">", ">="};
    for (int i = 0; i < 6; i++) {
        if (is_op(lx, cmps[i])) {
            next(lx);
            operand r;
            if (parse_operand(ps, &r) < 0)
                return -1;
            x = &ps->rs->exprs[e];
            x->op = EX_CMP;
            x->cmp = (uint8_t)i;
            x->r = r;
            return e;
        }
    }
    if (is_kw(lx, "is")) {
        next(lx);
        int neg = 0;
        if (is_kw(lx, "not")) {
            neg = 1;
            next(lx);
        }
        if (!is_kw(lx, "null"))
            return fail(lx, "expected 'null' after 'is'", NULL);
        next(lx);
        ps->rs->exprs[e].op = neg ? EX_NOTNULL : EX_ISNULL;
        return e;
    }
    if (is_kw(lx, "instanceof")) {
        next(lx);
        if (lx->tk != T_IDENT)
            return fail(lx, "expected a class name after 'instanceof'", NULL);
        char *s = dupn(lx->text, strlen(lx->text));
        if (!s)
            return fail(lx, "out of memory", NULL);
        x = &ps->rs->exprs[e];
        x->op = EX_INSTANCEOF;
        x->r.kind = OPD_STR;
        x->r.s = s;
        next(lx);
        return e;
    }
    int neg = is_kw(lx, "not");
    if (neg || is_kw(lx, "in")) {
        next(lx);
        if (neg && !is_kw(lx, "in"))
            return fail(lx, "expected 'in' after 'not'", NULL);
        if (neg)
            next(lx);
        if (!is_kw(lx, "static"))
            return fail(lx, "expected 'static CLASS#FIELD' after 'in'", NULL);
        next(lx);
        const char *h = lx->tk == T_IDENT ? strchr(lx->text, '#') : NULL;
        if (!h || h == lx->text || !h[1] || strchr(h + 1, '#') || h[1] == '.' ||
            h[strlen(h) - 1] == '.' || strstr(h, ".."))
            return fail(lx, "expected CLASS#FIELD[.path] after 'in static', got '%s'",
                        lx->tk == T_END ? "end of line" : lx->text);
        char cls[512];
        memcpy(cls, lx->text, (size_t)(h - lx->text));
        cls[h - lx->text] = 0;
        if (!valid_class_name(cls))
            return fail(lx, "bad class name '%s'", cls);
        char *s = dupn(lx->text, strlen(lx->text));
        if (!s)
            return fail(lx, "out of memory", NULL);
        x = &ps->rs->exprs[e];
        x->op = neg ? EX_NOTIN : EX_IN;
        x->r.kind = OPD_STR;
        x->r.s = s;
        next(lx);
        return e;
    }
    ps->rs->exprs[e].op = EX_TRUTHY;
    return e;
}

/* One level: level 0 is "||" over level 1, "&&" over unary. A chain a || b || c is built
 * leaning right, OR(a, OR(b, c)): the same left-to-right short-circuit order, and eval walks
 * the right spine in a loop, so a long chain costs no stack. */
static int32_t parse_binary(parser *ps, int level)
{
    static const char *const ops[2] = {"||", "&&"};
    static const uint8_t kinds[2] = {EX_OR, EX_AND};
    int32_t root = level ? parse_unary(ps) : parse_binary(ps, 1);
    int32_t pend = -1; /* last chain node: its b is the chain's current last term */
    while (root >= 0 && is_op(&ps->lx, ops[level])) {
        next(&ps->lx);
        int32_t b = level ? parse_unary(ps) : parse_binary(ps, 1);
        if (b < 0)
            return -1;
        int32_t e = new_expr(ps);
        if (e < 0)
            return -1;
        rules_expr *x = ps->rs->exprs;
        x[e].op = kinds[level];
        x[e].b = b;
        if (pend < 0) {
            x[e].a = root;
            root = e;
        } else {
            x[e].a = x[pend].b;
            x[pend].b = e;
        }
        pend = e;
    }
    return root;
}

static int32_t parse_or(parser *ps) { return parse_binary(ps, 0); }

static int valid_class_name(const char *s)
{
    if (!*s || strchr(s, '#'))
        return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || strchr("_$.[]<>", *p)))
            return 0;
    return 1;
}

static int add_ref(parser *ps, uint8_t action)
{
    lexer *lx = &ps->lx;
    rules_set *rs = ps->rs;
    rules_ref r;
    memset(&r, 0, sizeof r);
    r.action = action;
    r.when = -1;
    r.line = lx->line;
    char pat[700];
    if (is_kw(lx, "instance") || is_kw(lx, "static")) {
        r.kind = is_kw(lx, "instance") ? RULES_REF_INSTANCE : RULES_REF_STATIC;
        next(lx);
        if (lx->tk != T_IDENT)
            return fail(lx, "expected CLASS#FIELD", NULL);
        char *h = strrchr(lx->text, '#');
        if (!h || h == lx->text || !h[1])
            return fail(lx, "expected CLASS#FIELD, got '%s'", lx->text);
        *h = 0;
        if (!valid_class_name(lx->text))
            return fail(lx, "bad class name '%s'", lx->text);
        r.cls = dupn(lx->text, strlen(lx->text));
        r.field = dupn(h + 1, strlen(h + 1));
        snprintf(pat, sizeof pat, "%s field %s#%s",
                 r.kind == RULES_REF_INSTANCE ? "instance" : "static", r.cls ? r.cls : "",
                 r.field ? r.field : "");
        next(lx);
    } else if (is_kw(lx, "native-global")) {
        r.kind = RULES_REF_NATIVE_GLOBAL;
        next(lx);
        if (lx->tk != T_IDENT || !valid_class_name(lx->text))
            return fail(lx, "expected a class name after native-global", NULL);
        r.cls = dupn(lx->text, strlen(lx->text));
        snprintf(pat, sizeof pat, "native global variable referencing %s", lx->text);
        next(lx);
    } else if (is_kw(lx, "java-local")) {
        r.kind = RULES_REF_JAVA_LOCAL;
        next(lx);
        if (lx->tk != T_STR)
            return fail(lx, "expected a quoted thread name after java-local", NULL);
        r.cls = dupn(lx->text, strlen(lx->text));
        snprintf(pat, sizeof pat, "local variable on thread %s", lx->text);
        next(lx);
    } else {
        return fail(lx, "expected instance, static, native-global or java-local, got '%s'",
                    lx->tk == T_END ? "end of line" : lx->text);
    }
    r.pattern = dupn(pat, strlen(pat));
    int ok = r.cls && r.pattern && (r.kind > RULES_REF_STATIC || r.field);
    if (ok && is_kw(lx, "when")) {
        next(lx);
        r.when = parse_or(ps);
        if (r.when < 0)
            ok = 0;
    }
    if (ok && action == RULES_LIBRARY_LEAK && is_kw(lx, "description")) {
        next(lx);
        if (lx->tk != T_STR) {
            fail(lx, "expected a quoted description", NULL);
            ok = 0;
        } else {
            r.description = dupn(lx->text, strlen(lx->text));
            next(lx);
        }
    }
    if (ok && !r.description)
        r.description = dupn("", 0);
    if (ok && lx->tk != T_END) {
        fail(lx, "unexpected '%s' at end of rule", lx->text);
        ok = 0;
    }
    if (ok && (!r.description ||
               grow((void **)&rs->refs, &rs->cap_refs, rs->n_refs + 1, sizeof *rs->refs))) {
        fail(lx, "out of memory", NULL);
        ok = 0;
    }
    if (!ok) {
        if (lx->st == LR_OK)
            fail(lx, "out of memory", NULL);
        free(r.cls);
        free(r.field);
        free(r.pattern);
        free(r.description);
        return -1;
    }
    rs->refs[rs->n_refs++] = r;
    return 0;
}

static int add_inspect(parser *ps, int watch)
{
    lexer *lx = &ps->lx;
    rules_set *rs = ps->rs;
    rules_inspect in;
    memset(&in, 0, sizeof in);
    in.cond = in.when = -1;
    in.line = lx->line;
    in.watch = (uint8_t)watch;
    if (is_op(lx, "*") && !watch) {
        in.subject = RULES_SUBJ_ANY;
    } else if (is_kw(lx, "class-object") && !watch) {
        in.subject = RULES_SUBJ_CLASS_OBJECT;
    } else if (lx->tk == T_IDENT && valid_class_name(lx->text)) {
        in.subject = RULES_SUBJ_CLASS;
        in.cls = dupn(lx->text, strlen(lx->text));
        if (!in.cls)
            return fail(lx, "out of memory", NULL);
    } else {
        return fail(lx, "expected a class name, '*' or class-object, got '%s'",
                    lx->tk == T_END ? "end of line" : lx->text);
    }
    next(lx);
    int ok = 1;
    if (is_kw(lx, "fields") && !watch) {
        next(lx);
        if (lx->tk != T_IDENT || !valid_class_name(lx->text)) {
            free(in.cls);
            return fail(lx, "expected a class name after 'fields', got '%s'",
                        lx->tk == T_END ? "end of line" : lx->text);
        }
        in.fields_of = dupn(lx->text, strlen(lx->text));
        if (!in.fields_of) {
            free(in.cls);
            return fail(lx, "out of memory", NULL);
        }
        next(lx);
    }
    if (is_kw(lx, "if")) {
        next(lx);
        in.cond = parse_or(ps);
        ok = in.cond >= 0;
    }
    if (ok && is_kw(lx, "when")) {
        next(lx);
        in.when = parse_or(ps);
        ok = in.when >= 0;
    }
    if (ok) {
        if (is_op(lx, "->")) {
            next(lx);
            if (watch) {
                in.verdict = RULES_LEAKING;
            } else if (is_kw(lx, "leaking")) {
                in.verdict = RULES_LEAKING;
                next(lx);
            } else if (is_kw(lx, "not-leaking")) {
                in.verdict = RULES_NOT_LEAKING;
                next(lx);
            } else if (is_kw(lx, "label")) {
                in.verdict = RULES_LABEL;
                next(lx);
            } else {
                ok = 0;
                fail(lx, "expected leaking, not-leaking or label after '->', got '%s'",
                     lx->tk == T_END ? "end of line" : lx->text);
            }
            if (ok && lx->tk != T_STR) {
                ok = 0;
                fail(lx, "expected a quoted reason or label", NULL);
            }
            if (ok) {
                in.text = dupn(lx->text, strlen(lx->text));
                next(lx);
            }
        } else if (watch) {
            char t[64];
            snprintf(t, sizeof t, "matches the watch rule on line %u", (unsigned)in.line);
            in.verdict = RULES_LEAKING;
            in.text = dupn(t, strlen(t));
        } else {
            ok = 0;
            fail(lx, "expected '->', got '%s'", lx->tk == T_END ? "end of line" : lx->text);
        }
    }
    if (ok && lx->tk != T_END) {
        ok = 0;
        fail(lx, "unexpected '%s' at end of rule", lx->text);
    }
    if (ok && in.fields_of && in.verdict != RULES_LABEL) {
        ok = 0;
        fail(lx, "a 'fields' inspector can only add labels", NULL);
    }
    if (ok && (!in.text ||
               grow((void **)&rs->insp, &rs->cap_insp, rs->n_insp + 1, sizeof *rs->insp))) {
        ok = 0;
        fail(lx, "out of memory", NULL);
    }
    if (!ok) {
        free(in.cls);
        free(in.text);
        free(in.fields_of);
        return -1;
    }
    rs->insp[rs->n_insp++] = in;
    return 0;
}

static lr_status parse_text(rules_set *rs, const char *name, const char *text, size_t len,
                            uint32_t first_line, lr_error *err)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.rs = rs;
    ps.lx.file = name;
    ps.lx.err = err;
    lex_lines l;
    lex_lines_init(&l, text, len, first_line);
    while (lex_next_line(&l)) {
        ps.lx.p = l.p;
        ps.lx.end = l.eol;
        ps.lx.line = l.line;
        if (lex_line_has_nul(&l)) {
            fail(&ps.lx, "NUL byte in rules text", NULL);
            return ps.lx.st;
        }
        next(&ps.lx);
        if (ps.lx.tk != T_END) {
            if (ps.lx.tk != T_IDENT) {
                fail(&ps.lx, "expected a rule keyword, got '%s'", ps.lx.text);
            } else if (!strcmp(ps.lx.text, "inspect")) {
                next(&ps.lx);
                add_inspect(&ps, 0);
            } else if (!strcmp(ps.lx.text, "watch")) {
                next(&ps.lx);
                add_inspect(&ps, 1);
            } else if (!strcmp(ps.lx.text, "ignore")) {
                next(&ps.lx);
                add_ref(&ps, RULES_IGNORE);
            } else if (!strcmp(ps.lx.text, "library-leak")) {
                next(&ps.lx);
                add_ref(&ps, RULES_LIBRARY_LEAK);
            } else {
                fail(&ps.lx, "unknown rule keyword '%s'", ps.lx.text);
            }
            if (ps.lx.st != LR_OK)
                return ps.lx.st;
        }
    }
    return LR_OK;
}

lr_status rules_parse(rules_set *rs, const char *name, const char *text, size_t len,
                      lr_error *err)
{
    return parse_text(rs, name ? name : "<rules>", text, len, 1, err);
}

lr_status rules_load_file(rules_set *rs, const char *path, lr_error *err)
{
    char *buf;
    size_t n;
    LR_TRY(lex_read_file(path, "rules file", 64, &buf, &n, err));
    lr_status st = rules_parse(rs, path, buf, n, err);
    free(buf);
    return st;
}

lr_status rules_load_shipped(rules_set *rs, const char *file, lr_error *err)
{
    char path[4096];
    if (lex_find_rules(file, path, sizeof path))
        return rules_load_file(rs, path, err);
    return LR_FAIL(err, LR_ERR_IO, "shipped rules file %s not found (set LEAKRAY_RULES_DIR)",
                   file);
}

lr_status rules_add_watch(rules_set *rs, const char *cls, const char *expr, lr_error *err)
{
    char line[2048];
    int n;
    if (!valid_class_name(cls))
        return LR_FAIL(err, LR_ERR_RULES, "--watch: bad class name '%s'", cls);
    if (expr && strchr(expr, '\n'))
        return LR_FAIL(err, LR_ERR_RULES, "--leaking-if: newline in expression");
    char reason[900];
    if (expr) {
        /* the reason names the user's own condition, quotes made harmless */
        size_t k = 0;
        for (const char *p = expr; *p && k + 2 < 400; p++)
            line[k++] = (*p == '"' || *p == '\\') ? '\'' : *p;
        line[k] = 0;
        char q[420];
        memcpy(q, line, k + 1);
        if (snprintf(reason, sizeof reason, "%s matches %s", rules_simple_name(cls), q) < 0)
            reason[0] = 0;
        n = snprintf(line, sizeof line, "watch %s if %s -> \"%s\"", cls, expr, reason);
    } else {
        if (snprintf(reason, sizeof reason, "%s is watched", rules_simple_name(cls)) < 0)
            reason[0] = 0;
        n = snprintf(line, sizeof line, "watch %s -> \"%s\"", cls, reason);
    }
    if (n < 0 || (size_t)n >= sizeof line)
        return LR_FAIL(err, LR_ERR_RULES, "--leaking-if: expression too long");
    lr_status st = parse_text(rs, "--leaking-if", line, (size_t)n, 1, err);
    if (st == LR_ERR_RULES) {
        /* The parser saw the rule this function wrote: say it in the user's words, with the
         * expression as typed, and call the "->" it ends with the end of the expression. */
        static const char pre[] = "--leaking-if:1: ", arrow[] = "got '->'";
        char msg[sizeof err->msg];
        const char *m = strncmp(err->msg, pre, sizeof pre - 1) ? err->msg
                                                                 : err->msg + sizeof pre - 1;
        const char *at = expr && !strstr(expr, "->") ? strstr(m, arrow) : NULL;
        if (at)
            snprintf(msg, sizeof msg, "--leaking-if '%.200s': %.*sgot the end of the expression",
                     expr, (int)(at - m < 200 ? at - m : 200), m);
        else
            snprintf(msg, sizeof msg, "--%s '%.200s': %.280s", expr ? "leaking-if" : "watch",
                     expr ? expr : cls, m);
        memcpy(err->msg, msg, sizeof msg);
    }
    return st;
}

/* ---------------------------------------------------------------- typo checks */

static int declares(const graph *g, const graph_class *gc, const char *name)
{
    for (uint32_t f = 0; f < gc->n_fields && gc->first_field + f < g->n_fields; f++)
        if (!strcmp(graph_str(g, g->fields[gc->first_field + f].name), name))
            return 1;
    for (uint32_t f = 0; f < gc->n_statics && gc->first_static + f < g->n_statics; f++)
        if (!strcmp(graph_str(g, g->statics[gc->first_static + f].name), name))
            return 1;
    return 0;
}

/* Whether class c, a superclass or a subclass (whose instances a watch also matches)
 * declares `name`, or one of the first instances of c has a field or property of that name
 * (V8 classes declare none). */
static int class_has_field(const graph *g, class_ix c, const char *name)
{
    for (uint32_t hops = 0, k = c; k < g->n_classes && hops <= g->n_classes; hops++) {
        if (declares(g, &g->classes[k], name))
            return 1;
        k = g->classes[k].super;
    }
    for (class_ix d = 0; d < g->n_classes; d++)
        if (d != c && graph_class_is(g, d, c) && declares(g, &g->classes[d], name))
            return 1;
    uint32_t seen = 0;
    graph_value gv;
    for (node_ix v = 0; v < g->n_nodes && seen < 1000; v++) {
        if (g->node_class[v] != c)
            continue;
        seen++;
        if (graph_field_find(g, v, name, &gv))
            return 1;
    }
    return 0;
}

/* Field paths of expression e whose first field class c lacks: reported once each. */
static uint32_t check_paths(const rules_set *rs, int32_t e, const graph *g, class_ix c,
                            const char *cls, void (*report)(void *, const char *), void *ctx,
                            int depth)
{
    if (e < 0 || (uint32_t)e >= rs->n_exprs || depth > 4 * RULES_MAX_NEST)
        return 0;
    const rules_expr *x = &rs->exprs[e];
    if (x->op == EX_OR || x->op == EX_AND || x->op == EX_NOT)
        return check_paths(rs, x->a, g, c, cls, report, ctx, depth + 1) +
               check_paths(rs, x->b, g, c, cls, report, ctx, depth + 1);
    uint32_t n = 0;
    const operand *ops[2] = {&x->l, x->op == EX_CMP ? &x->r : NULL};
    for (int i = 0; i < 2; i++) {
        const operand *o = ops[i];
        if (!o || o->kind != OPD_PATH || !o->s)
            continue;
        char first[256];
        size_t len = strcspn(o->s, ".");
        if (len == 0 || len >= sizeof first)
            continue;
        memcpy(first, o->s, len);
        first[len] = 0;
        /* build facts, `this` and @specials are not fields */
        if (first[0] == '@' || !strcmp(first, "this") || !strcmp(first, "API") ||
            !strcmp(first, "sdk") || !strcmp(first, "manufacturer") ||
            !strcmp(first, "build_id"))
            continue;
        if (class_has_field(g, c, first))
            continue;
        char msg[700];
        if (strchr(o->s, '.'))
            snprintf(msg, sizeof msg, "--leaking-if: %s has no field '%s' (in '%s')", cls,
                     first, o->s);
        else
            snprintf(msg, sizeof msg, "--leaking-if: %s has no field '%s'", cls, first);
        report(ctx, msg);
        n++;
    }
    return n;
}

uint32_t rules_watch_check(const rules_set *rs, uint32_t first_insp, const graph *g,
                           void (*report)(void *ctx, const char *msg), void *ctx)
{
    uint32_t n = 0;
    char msg[600];
    for (uint32_t i = first_insp; i < rs->n_insp; i++) {
        const rules_inspect *in = &rs->insp[i];
        if (!in->watch || in->subject != RULES_SUBJ_CLASS || !in->cls)
            continue;
        class_ix c = graph_find_class(g, in->cls);
        if (c == GRAPH_NONE) {
            snprintf(msg, sizeof msg, "--watch %s: the dump has no class of that name", in->cls);
            report(ctx, msg);
            n++;
            continue;
        }
        n += check_paths(rs, in->cond, g, c, in->cls, report, ctx, 0);
    }
    return n;
}

/* ---------------------------------------------------------------- values */

const char *rules_simple_name(const char *cls)
{
    const char *d = strrchr(cls, '.');
    return d ? d + 1 : cls;
}

/* Decodes a String (or a char[] / byte[] of old JDKs' Thread.name) into buf. */
static long obj_string(const graph *g, node_ix n, char *buf, size_t cap)
{
    if (n == GRAPH_NONE || n >= g->n_nodes || cap == 0)
        return -1;
    long r = graph_string_value(g, n, buf, cap);
    if (r >= 0)
        return r;
    if (g->node_kind[n] != GRAPH_KIND_PRIM_ARRAY || g->node_class[n] == GRAPH_NONE ||
        g->node_class[n] >= g->n_classes)
        return -1;
    const graph_class *c = &g->classes[g->node_class[n]];
    uint64_t off = graph_node_off(g, n);
    uint64_t cnt = g->node_len || g->derive ? graph_node_len(g, n) : 0;
    unsigned es = c->elem_type == GRAPH_FT_CHAR ? 2 : c->elem_type == GRAPH_FT_BYTE ? 1 : 0;
    if (!es || off == UINT64_MAX || off > g->data_len || cnt > (g->data_len - off) / es)
        return -1;
    size_t k = 0;
    for (uint64_t i = 0; i < cnt && k + 1 < cap; i++) {
        unsigned ch = es == 2 ? (unsigned)(g->data[off + 2 * i] << 8 | g->data[off + 2 * i + 1])
                              : g->data[off + i];
        buf[k++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    buf[k] = 0;
    return (long)cnt;
}

const char *rules_thread_name(const graph *g, node_ix thread, char *buf, size_t cap)
{
    graph_value v;
    if (cap)
        buf[0] = 0;
    if (thread != GRAPH_NONE && graph_field_find(g, thread, "name", &v) &&
        v.type == GRAPH_FT_OBJECT && v.ref != GRAPH_NONE)
        if (obj_string(g, v.ref, buf, cap) < 0 && cap)
            buf[0] = 0;
    return buf;
}

static void from_field(const graph *g, const graph_value *gv, val *out)
{
    unsigned sz = graph_ftype_size(g, gv->type);
    switch (gv->type) {
    case GRAPH_FT_OBJECT:
        if (gv->raw == 0)
            out->k = V_NULL;
        else if (gv->ref == GRAPH_NONE)
            out->k = V_MISSING;
        else {
            out->k = V_OBJ;
            out->n = gv->ref;
        }
        break;
    case GRAPH_FT_BOOLEAN:
        out->k = V_BOOL;
        out->i = gv->raw != 0;
        break;
    case GRAPH_FT_FLOAT: {
        uint32_t b = (uint32_t)gv->raw;
        float f;
        memcpy(&f, &b, 4);
        out->k = V_FLOAT;
        out->d = f;
        break;
    }
    case GRAPH_FT_DOUBLE: {
        double d;
        memcpy(&d, &gv->raw, 8);
        out->k = V_FLOAT;
        out->d = d;
        break;
    }
    case GRAPH_FT_CHAR:
        out->k = V_INT;
        out->i = (int64_t)(gv->raw & 0xffff);
        break;
    default: {
        out->k = V_INT;
        uint64_t r = gv->raw;
        if (sz > 0 && sz < 8 && (r >> (sz * 8 - 1)) & 1)
            r |= ~0ull << (sz * 8);
        out->i = (int64_t)r;
        break;
    }
    }
}

static int is_anonymous(const char *cls)
{
    const char *d = strrchr(cls, '$');
    if (!d || !d[1])
        return 0;
    for (const char *p = d + 1; *p; p++)
        if (!isdigit((unsigned char)*p))
            return 0;
    return 1;
}

/* The component a Context stands for, as Shark's unwrapComponentContext finds it: an
 * Activity, Service or Application itself, or what a ContextWrapper wraps (through mBase, and
 * a DecorContext's window context), else GRAPH_NONE. Which of the four classes comes first in
 * the hierarchy decides what an object is. */
enum { CTX_NONE, CTX_WRAPPER, CTX_ACTIVITY, CTX_COMPONENT };

static int context_kind(const graph *g, node_ix n)
{
    if (n == GRAPH_NONE || n >= g->n_nodes || g->node_kind[n] != GRAPH_KIND_INSTANCE)
        return CTX_NONE;
    class_ix c = g->node_class[n];
    for (int depth = 0; depth < 64 && c != GRAPH_NONE && c < g->n_classes; depth++) {
        const char *cn = graph_str(g, g->classes[c].name);
        if (!strcmp(cn, "android.content.ContextWrapper"))
            return CTX_WRAPPER;
        if (!strcmp(cn, "android.app.Activity"))
            return CTX_ACTIVITY;
        if (!strcmp(cn, "android.app.Service") || !strcmp(cn, "android.app.Application"))
            return CTX_COMPONENT;
        c = g->classes[c].super;
    }
    return CTX_NONE;
}

static node_ix obj_field(const graph *g, node_ix n, const char *name)
{
    graph_value v;
    if (n != GRAPH_NONE && n < g->n_nodes && graph_field_find(g, n, name, &v) &&
        v.type == GRAPH_FT_OBJECT && v.ref < g->n_nodes)
        return v.ref;
    return GRAPH_NONE;
}

static node_ix component_context(const graph *g, node_ix n)
{
    int k = context_kind(g, n);
    if (k != CTX_WRAPPER)
        return k == CTX_NONE ? GRAPH_NONE : n;
    node_ix seen[64], cur = n;
    for (uint32_t steps = 0; steps < 64; steps++) {
        seen[steps] = cur;
        node_ix base = obj_field(g, cur, "mBase");
        if (base == GRAPH_NONE)
            return GRAPH_NONE;
        int bk = context_kind(g, base);
        if (bk == CTX_ACTIVITY)
            return base;
        int wrapper = bk == CTX_WRAPPER;
        if (g->node_class[cur] != GRAPH_NONE &&
            graph_class_is_named(g, g->node_class[cur],
                                 "com.android.internal.policy.DecorContext")) {
            node_ix window = obj_field(g, cur, "mPhoneWindow");
            if (window != GRAPH_NONE) {
                base = obj_field(g, window, "mContext");
                if (base == GRAPH_NONE)
                    return GRAPH_NONE;
                if (context_kind(g, base) == CTX_ACTIVITY)
                    return base;
                wrapper = context_kind(g, base) == CTX_WRAPPER;
            }
        }
        if (bk == CTX_COMPONENT)
            return base;
        int again = wrapper;
        for (uint32_t i = 0; i <= steps && again; i++)
            again = seen[i] != base;
        if (!again)
            return GRAPH_NONE;
        cur = base;
    }
    return GRAPH_NONE;
}

/* One '@' name applied to object n (fld: the field a `fields` inspector is looking at). */
static void special(const rules_set *rs, node_ix n, const char *fld, const char *name, val *out)
{
    const graph *g = rs->g;
    class_ix c = g->node_class[n];
    const char *cn = graph_class_name(g, n);
    if (!strcmp(name, "@class")) {
        out->k = V_STR;
        snprintf(out->s, sizeof out->s, "%s", cn);
    } else if (!strcmp(name, "@simple")) {
        out->k = V_STR;
        snprintf(out->s, sizeof out->s, "%s", rules_simple_name(cn));
    } else if (!strcmp(name, "@super")) {
        if (c != GRAPH_NONE && c < g->n_classes && g->classes[c].super < g->n_classes) {
            out->k = V_STR;
            snprintf(out->s, sizeof out->s, "%s",
                     graph_str(g, g->classes[g->classes[c].super].name));
        }
    } else if (!strcmp(name, "@anonymous")) {
        out->k = V_BOOL;
        out->i = is_anonymous(cn);
    } else if (!strcmp(name, "@id")) {
        out->k = V_INT;
        out->i = (int64_t)graph_node_id(g, n);
    } else if (!strcmp(name, "@size")) {
        out->k = V_INT;
        out->i = graph_node_size(g, n);
    } else if (!strcmp(name, "@field")) {
        if (fld) {
            out->k = V_STR;
            snprintf(out->s, sizeof out->s, "%s", fld);
        }
    } else if (!strcmp(name, "@component")) {
        node_ix k = component_context(g, n);
        out->k = k == GRAPH_NONE ? V_NULL : V_OBJ;
        out->n = k;
    }
}

static void resolve(const rules_set *rs, node_ix n, const char *fld, const char *path, val *out)
{
    const graph *g = rs->g;
    memset(out, 0, sizeof *out);
    out->k = V_MISSING;
    if (!strcmp(path, "API") || !strcmp(path, "sdk")) {
        if (rs->build.has_sdk) {
            out->k = V_INT;
            out->i = rs->build.sdk;
        }
        return;
    }
    if (!strcmp(path, "manufacturer") || !strcmp(path, "build_id")) {
        out->k = V_STR;
        snprintf(out->s, sizeof out->s, "%s",
                 path[0] == 'm' ? rs->build.manufacturer : rs->build.build_id);
        return;
    }
    if (!g || n == GRAPH_NONE || n >= g->n_nodes)
        return;
    node_ix cur = n;
    const char *p = path;
    if (!strncmp(p, "this", 4) && (p[4] == 0 || p[4] == '.')) {
        p += 4;
        if (*p == '.')
            p++;
        if (!*p) {
            out->k = V_OBJ;
            out->n = n;
            return;
        }
    }
    char comp[256];
    for (int depth = 0; depth < 32; depth++) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len == 0 || len >= sizeof comp)
            return;
        memcpy(comp, p, len);
        comp[len] = 0;
        if (comp[0] == '@') {
            special(rs, cur, fld, comp, out);
        } else {
            graph_value gv;
            int found = 0;
            if (g->node_kind[cur] == GRAPH_KIND_CLASS) {
                class_ix c = graph_class_of_node(rs->g, cur);
                if (c != GRAPH_NONE)
                    found = graph_static_find(g, c, comp, &gv);
            }
            if (!found)
                found = graph_field_find(g, cur, comp, &gv);
            if (!found)
                return;
            from_field(g, &gv, out);
        }
        if (!dot)
            return;
        if (out->k != V_OBJ || out->n >= g->n_nodes) {
            memset(out, 0, sizeof *out);
            out->k = V_MISSING;
            return;
        }
        cur = out->n;
        p = dot + 1;
    }
    out->k = V_MISSING;
}

/* Text of an object value for comparisons: the String itself, or an enum's name. */
static int obj_text(const graph *g, node_ix n, char *buf, size_t cap)
{
    if (obj_string(g, n, buf, cap) >= 0)
        return 1;
    graph_value v;
    if (graph_field_find(g, n, "name", &v) && v.type == GRAPH_FT_OBJECT && v.ref != GRAPH_NONE &&
        obj_string(g, v.ref, buf, cap) >= 0)
        return 1;
    return 0;
}

static void opnd_val(const rules_set *rs, node_ix n, const char *fld, const operand *o, val *v)
{
    memset(v, 0, sizeof *v);
    switch (o->kind) {
    case OPD_PATH: resolve(rs, n, fld, o->s, v); break;
    case OPD_INT: v->k = V_INT; v->i = o->i; break;
    case OPD_BOOL: v->k = V_BOOL; v->i = o->i; break;
    case OPD_NULL: v->k = V_NULL; break;
    case OPD_STR: v->k = V_STR; snprintf(v->s, sizeof v->s, "%s", o->s); break;
    }
}

static int cmp_result(int c, int op)
{
    switch (op) {
    case CMP_EQ: return c == 0;
    case CMP_NE: return c != 0;
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

static int compare(const rules_set *rs, val *a, val *b, int op)
{
    if (a->k == V_MISSING || b->k == V_MISSING)
        return 0;
    if (a->k == V_NULL || b->k == V_NULL) {
        if (op != CMP_EQ && op != CMP_NE)
            return 0;
        int eq = a->k == b->k;
        return op == CMP_EQ ? eq : !eq;
    }
    /* objects compared with text become their String / enum name */
    if (a->k == V_OBJ && b->k == V_STR) {
        if (!obj_text(rs->g, a->n, a->s, sizeof a->s))
            return 0;
        a->k = V_STR;
    }
    if (b->k == V_OBJ && a->k == V_STR) {
        if (!obj_text(rs->g, b->n, b->s, sizeof b->s))
            return 0;
        b->k = V_STR;
    }
    if (a->k == V_STR && b->k == V_STR)
        return cmp_result(strcmp(a->s, b->s), op);
    if (a->k == V_OBJ && b->k == V_OBJ)
        return (op == CMP_EQ || op == CMP_NE) ? cmp_result(a->n != b->n, op) : 0;
    int an = a->k == V_INT || a->k == V_BOOL, bn = b->k == V_INT || b->k == V_BOOL;
    if (an && bn)
        return cmp_result(a->i < b->i ? -1 : a->i > b->i, op);
    if ((an || a->k == V_FLOAT) && (bn || b->k == V_FLOAT)) {
        double x = a->k == V_FLOAT ? a->d : (double)a->i, y = b->k == V_FLOAT ? b->d : (double)b->i;
        return cmp_result(x < y ? -1 : x > y, op);
    }
    return 0;
}

/* ---------------------------------------------------------------- collections */

static int set_has(const node_ix *set, uint32_t n, node_ix x)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (set[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && set[lo] == x;
}

/* Whether object x belongs to the internal structure of a collection whose class hierarchy
 * is hier[0..nh): an object array, or an instance of a class nested in one of those classes
 * (HashMap$Node, LinkedList$Node, ArrayMap$1, ...). */
static int coll_internal(const graph *g, node_ix x, const char *const *hier, uint32_t nh)
{
    if (g->node_kind[x] == GRAPH_KIND_OBJ_ARRAY)
        return 1;
    if (g->node_kind[x] != GRAPH_KIND_INSTANCE)
        return 0;
    const char *cn = graph_class_name(g, x);
    for (uint32_t i = 0; i < nh; i++) {
        size_t k = strlen(hier[i]);
        if (!strncmp(cn, hier[i], k) && cn[k] == '$')
            return 1;
    }
    return 0;
}

#define COLL_MAX_INTERNAL (1u << 22) /* internal objects walked per collection */

static int cmp_node(const void *a, const void *b)
{
    node_ix x = *(const node_ix *)a, y = *(const node_ix *)b;
    return (x > y) - (x < y);
}

/* Members of collection object c: every object that an internal object other than c refers
 * to through a field or an array element and that is not internal itself. The walk starts
 * at c, enters only internal objects, and stops after COLL_MAX_INTERNAL of them. */
static lr_status coll_members(const graph *g, node_ix c, node_ix **out, uint32_t *n_out)
{
    const char *hier[64];
    uint32_t nh = 0;
    for (class_ix k = g->node_class[c]; k != GRAPH_NONE && k < g->n_classes && nh < 64;
         k = g->classes[k].super)
        if (strcmp(graph_str(g, g->classes[k].name), "java.lang.Object"))
            hier[nh++] = graph_str(g, g->classes[k].name);
    uint8_t *seen = err_calloc((size_t)g->n_nodes / 8 + 1, 1);
    node_ix *stack = NULL, *mem = NULL;
    uint32_t n_stack = 0, cap_stack = 0, n_mem = 0, cap_mem = 0, walked = 0;
    lr_status st = LR_OK;
    if (!g->first_edge) {
        free(seen);
        *out = NULL;
        *n_out = 0;
        return seen ? LR_OK : LR_ERR_NOMEM;
    }
    if (!seen || grow((void **)&stack, &cap_stack, 1, sizeof *stack))
        st = LR_ERR_NOMEM;
    if (st == LR_OK) {
        stack[n_stack++] = c;
        seen[c / 8] |= (uint8_t)(1u << (c % 8));
    }
    while (st == LR_OK && n_stack && walked < COLL_MAX_INTERNAL) {
        node_ix x = stack[--n_stack];
        walked++;
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1] && st == LR_OK; e++) {
            unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
            node_ix y = g->edge_to[e];
            if ((kind != GRAPH_EDGE_FIELD && kind != GRAPH_EDGE_ELEMENT) || y >= g->n_nodes ||
                (seen[y / 8] >> (y % 8) & 1))
                continue;
            if (coll_internal(g, y, hier, nh)) {
                seen[y / 8] |= (uint8_t)(1u << (y % 8));
                if (grow((void **)&stack, &cap_stack, n_stack + 1, sizeof *stack))
                    st = LR_ERR_NOMEM;
                else
                    stack[n_stack++] = y;
            } else if (x != c) {
                if (grow((void **)&mem, &cap_mem, n_mem + 1, sizeof *mem))
                    st = LR_ERR_NOMEM;
                else
                    mem[n_mem++] = y;
            }
        }
    }
    free(seen);
    free(stack);
    if (st != LR_OK) {
        free(mem);
        return st;
    }
    if (n_mem > 1)
        qsort(mem, n_mem, sizeof *mem, cmp_node);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n_mem; i++)
        if (!k || mem[k - 1] != mem[i])
            mem[k++] = mem[i];
    *out = mem;
    *n_out = k;
    return LR_OK;
}

/* Resolves the collections of `in` expressions from index `from` on (once per dump). */
static lr_status bind_sets(rules_set *rs, uint32_t from, lr_error *err)
{
    const graph *g = rs->g;
    for (uint32_t i = from; i < rs->n_exprs; i++) {
        rules_expr *x = &rs->exprs[i];
        if (x->op != EX_IN && x->op != EX_NOTIN)
            continue;
        free(x->set);
        x->set = NULL;
        x->n_set = 0;
        x->have_set = 0;
        if (!g)
            continue;
        char cls[512];
        const char *h = strchr(x->r.s, '#');
        if (!h || (size_t)(h - x->r.s) >= sizeof cls)
            continue;
        memcpy(cls, x->r.s, (size_t)(h - x->r.s));
        cls[h - x->r.s] = 0;
        class_ix c = graph_find_class(g, cls);
        if (c == GRAPH_NONE)
            continue;
        const char *rest = strchr(h + 1, '.');
        char first[256];
        size_t fl = rest ? (size_t)(rest - h - 1) : strlen(h + 1);
        if (fl >= sizeof first)
            continue;
        memcpy(first, h + 1, fl);
        first[fl] = 0;
        graph_value v;
        if (!graph_static_find(g, c, first, &v) || v.type != GRAPH_FT_OBJECT ||
            v.ref >= g->n_nodes)
            continue;
        node_ix coll = v.ref;
        if (rest) {
            val r;
            resolve(rs, coll, NULL, rest + 1, &r);
            if (r.k != V_OBJ || r.n >= g->n_nodes)
                continue;
            coll = r.n;
        }
        if (coll_members(g, coll, &x->set, &x->n_set) != LR_OK)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory reading a rules collection");
        x->have_set = 1;
    }
    return LR_OK;
}

uint32_t rules_in_members(const rules_set *rs, int32_t expr, const node_ix **out)
{
    *out = NULL;
    if (expr < 0 || (uint32_t)expr >= rs->n_exprs)
        return 0;
    const rules_expr *x = &rs->exprs[expr];
    if ((x->op != EX_IN && x->op != EX_NOTIN) || !x->have_set)
        return 0;
    *out = x->set;
    return x->n_set;
}

static int eval(const rules_set *rs, int32_t e, node_ix n, const char *fld, int depth)
{
    /* "||" and "&&" chains lean right (parse_binary): their b side is a loop, not a call */
    for (;;) {
        if (e < 0)
            return 1;
        if ((uint32_t)e >= rs->n_exprs || depth > 4 * RULES_MAX_NEST)
            return 0;
        const rules_expr *x = &rs->exprs[e];
        if (x->op == EX_OR) {
            if (eval(rs, x->a, n, fld, depth + 1))
                return 1;
        } else if (x->op == EX_AND) {
            if (!eval(rs, x->a, n, fld, depth + 1))
                return 0;
        } else {
            break;
        }
        e = x->b;
    }
    const rules_expr *x = &rs->exprs[e];
    val a, b;
    switch (x->op) {
    case EX_NOT: return !eval(rs, x->a, n, fld, depth + 1);
    case EX_CMP:
        opnd_val(rs, n, fld, &x->l, &a);
        opnd_val(rs, n, fld, &x->r, &b);
        return compare(rs, &a, &b, x->cmp);
    case EX_ISNULL:
        opnd_val(rs, n, fld, &x->l, &a);
        return a.k == V_NULL;
    case EX_NOTNULL:
        opnd_val(rs, n, fld, &x->l, &a);
        return a.k == V_OBJ || a.k == V_STR;
    case EX_INSTANCEOF:
        opnd_val(rs, n, fld, &x->l, &a);
        return a.k == V_OBJ && rs->g && rs->g->node_class[a.n] != GRAPH_NONE &&
               graph_class_is_named(rs->g, rs->g->node_class[a.n], x->r.s);
    case EX_TRUTHY:
        opnd_val(rs, n, fld, &x->l, &a);
        return (a.k == V_BOOL || a.k == V_INT) ? a.i != 0 : (a.k == V_OBJ || a.k == V_STR);
    case EX_IN:
    case EX_NOTIN:
        /* a missing collection or operand makes both forms false */
        opnd_val(rs, n, fld, &x->l, &a);
        if (!x->have_set || a.k != V_OBJ)
            return 0;
        return set_has(x->set, x->n_set, a.n) == (x->op == EX_IN);
    }
    return 0;
}

int rules_eval_text(rules_set *rs, node_ix n, const char *expr, lr_error *err)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.rs = rs;
    ps.lx.file = "<expr>";
    ps.lx.line = 1;
    ps.lx.err = err;
    ps.lx.p = expr;
    ps.lx.end = expr + strlen(expr);
    uint32_t first = rs->n_exprs;
    next(&ps.lx);
    int32_t e = parse_or(&ps);
    if (e >= 0 && ps.lx.tk != T_END)
        fail(&ps.lx, "unexpected '%s' after expression", ps.lx.text);
    if (ps.lx.st != LR_OK)
        return -(int)ps.lx.st;
    lr_status st = bind_sets(rs, first, err);
    if (st != LR_OK)
        return -(int)st;
    return eval(rs, e, n, NULL, 0);
}

/* Renders a label template: {path} becomes the value. Returns 0 when a value is missing. */
static int render(const rules_set *rs, node_ix n, const char *fld, const char *tpl, char *out,
                  size_t cap)
{
    size_t k = 0;
    out[0] = 0;
    for (const char *p = tpl; *p;) {
        if (*p == '{') {
            const char *q = strchr(p, '}');
            if (q && q - p - 1 < 255) {
                char path[256];
                memcpy(path, p + 1, (size_t)(q - p - 1));
                path[q - p - 1] = 0;
                val v;
                resolve(rs, n, fld, path, &v);
                char tmp[300];
                switch (v.k) {
                case V_MISSING: return 0;
                case V_NULL: snprintf(tmp, sizeof tmp, "null"); break;
                case V_BOOL: snprintf(tmp, sizeof tmp, "%s", v.i ? "true" : "false"); break;
                case V_INT: snprintf(tmp, sizeof tmp, "%lld", (long long)v.i); break;
                case V_FLOAT: snprintf(tmp, sizeof tmp, "%g", v.d); break;
                case V_STR: snprintf(tmp, sizeof tmp, "%s", v.s); break;
                case V_OBJ:
                    if (!obj_text(rs->g, v.n, tmp, sizeof tmp))
                        snprintf(tmp, sizeof tmp, "%s@%llu", graph_class_name(rs->g, v.n),
                                 (unsigned long long)graph_node_id(rs->g, v.n));
                    break;
                }
                for (const char *t = tmp; *t && k + 1 < cap; t++)
                    out[k++] = *t;
                p = q + 1;
                continue;
            }
        }
        if (k + 1 < cap)
            out[k++] = *p;
        p++;
    }
    out[k] = 0;
    return 1;
}

/* ---------------------------------------------------------------- binding */

typedef struct name_item {
    const char *name;
    uint32_t item;
} name_item;

static int cmp_name_item(const void *a, const void *b)
{
    const name_item *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->item > y->item) - (x->item < y->item);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Items (refs first, closest class first; then inspectors in rule order) for class c. */
static uint32_t class_items(const name_item *ni, uint32_t n_ni, const graph *g, class_ix c,
                            uint32_t *out, uint32_t cap)
{
    uint32_t k = 0, n_insp0;
    class_ix cur = c;
    for (int depth = 0; depth < 64 && cur != GRAPH_NONE && cur < g->n_classes; depth++) {
        name_item key = {graph_str(g, g->classes[cur].name), 0};
        /* lower bound */
        uint32_t lo = 0, hi = n_ni;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (cmp_name_item(&ni[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < n_ni && !strcmp(ni[lo].name, key.name) && k < cap; lo++)
            out[k++] = ni[lo].item;
        cur = g->classes[cur].super;
    }
    /* stable partition: refs keep closest-first order; inspectors sorted by rule index */
    uint32_t tmp[256];
    uint32_t nr = 0, ninsp = 0;
    for (uint32_t i = 0; i < k; i++)
        if (!(out[i] & RULES_ITEM_INSP))
            tmp[nr++] = out[i];
    n_insp0 = nr;
    for (uint32_t i = 0; i < k; i++)
        if (out[i] & RULES_ITEM_INSP)
            tmp[n_insp0 + ninsp++] = out[i];
    qsort(tmp + n_insp0, ninsp, sizeof *tmp, cmp_u32);
    memcpy(out, tmp, k * sizeof *out);
    return k;
}

static void read_build(rules_set *rs)
{
    const graph *g = rs->g;
    rules_build *b = &rs->build;
    memset(b, 0, sizeof *b);
    class_ix bc = graph_find_class(g, "android.os.Build");
    class_ix vc = graph_find_class(g, "android.os.Build$VERSION");
    graph_value v;
    if (bc != GRAPH_NONE) {
        b->is_android = 1;
        if (graph_static_find(g, bc, "MANUFACTURER", &v) && v.type == GRAPH_FT_OBJECT)
            if (obj_string(g, v.ref, b->manufacturer, sizeof b->manufacturer) < 0)
                b->manufacturer[0] = 0;
        if (graph_static_find(g, bc, "ID", &v) && v.type == GRAPH_FT_OBJECT)
            if (obj_string(g, v.ref, b->build_id, sizeof b->build_id) < 0)
                b->build_id[0] = 0;
    }
    if (vc != GRAPH_NONE && graph_static_find(g, vc, "SDK_INT", &v) && v.type == GRAPH_FT_INT) {
        b->has_sdk = 1;
        b->sdk = (int32_t)(uint32_t)v.raw;
    }
}

lr_status rules_bind(rules_set *rs, const graph *g, lr_error *err)
{
    rs->g = g;
    free(rs->cls_first);
    free(rs->cls_items);
    free(rs->thread_serials);
    free(rs->generic);
    rs->generic = NULL;
    rs->cls_first = rs->cls_items = rs->thread_serials = NULL;
    rs->n_cls_items = rs->n_thread_serials = 0;
    read_build(rs);
    for (uint32_t i = 0; i < rs->n_refs; i++)
        rs->refs[i].active = (uint8_t)eval(rs, rs->refs[i].when, GRAPH_NONE, NULL, 0);
    for (uint32_t i = 0; i < rs->n_insp; i++)
        rs->insp[i].active = (uint8_t)eval(rs, rs->insp[i].when, GRAPH_NONE, NULL, 0);

    /* inspectors not tied to a class (every object, class objects) */
    rs->generic = err_mallocarray(rs->n_insp ? rs->n_insp : 1, sizeof *rs->generic);
    if (!rs->generic)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory binding rules");
    rs->n_generic = 0;
    for (uint32_t i = 0; i < rs->n_insp; i++)
        if (rs->insp[i].active && rs->insp[i].subject != RULES_SUBJ_CLASS)
            rs->generic[rs->n_generic++] = i;

    /* threads that have a THREAD_OBJECT root: their JAVA_FRAME roots come back as locals */
    uint32_t nt = 0;
    for (uint32_t r = 0; r < g->n_roots; r++)
        nt += g->roots[r].kind == GRAPH_ROOT_THREAD_OBJECT;
    rs->thread_serials = err_mallocarray(nt ? nt : 1, sizeof *rs->thread_serials);
    if (!rs->thread_serials)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory binding rules");
    nt = 0;
    for (uint32_t r = 0; r < g->n_roots; r++)
        if (g->roots[r].kind == GRAPH_ROOT_THREAD_OBJECT)
            rs->thread_serials[nt++] = g->roots[r].thread;
    qsort(rs->thread_serials, nt, sizeof *rs->thread_serials, cmp_u32);
    rs->n_thread_serials = nt;
    rs->has_local_edges = 0;
    for (uint32_t e = 0; e < g->n_edges && !rs->has_local_edges; e++)
        rs->has_local_edges = GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_LOCAL;

    /* per-class items: instance-field refs and class-subject inspectors over the hierarchy */
    uint32_t n_ni = 0;
    for (uint32_t i = 0; i < rs->n_refs; i++)
        n_ni += rs->refs[i].kind == RULES_REF_INSTANCE && rs->refs[i].active;
    for (uint32_t i = 0; i < rs->n_insp; i++)
        n_ni += rs->insp[i].subject == RULES_SUBJ_CLASS && rs->insp[i].active;
    name_item *ni = err_mallocarray(n_ni ? n_ni : 1, sizeof *ni);
    rs->cls_first = err_mallocarray((size_t)g->n_classes + 1, sizeof *rs->cls_first);
    if (!ni || !rs->cls_first) {
        free(ni);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory binding rules");
    }
    n_ni = 0;
    for (uint32_t i = 0; i < rs->n_refs; i++)
        if (rs->refs[i].kind == RULES_REF_INSTANCE && rs->refs[i].active)
            ni[n_ni++] = (name_item){rs->refs[i].cls, i};
    for (uint32_t i = 0; i < rs->n_insp; i++)
        if (rs->insp[i].subject == RULES_SUBJ_CLASS && rs->insp[i].active)
            ni[n_ni++] = (name_item){rs->insp[i].cls, i | RULES_ITEM_INSP};
    qsort(ni, n_ni, sizeof *ni, cmp_name_item);
    uint32_t buf[256], total = 0, cap = 0;
    for (uint32_t c = 0; c < g->n_classes; c++) {
        rs->cls_first[c] = total;
        uint32_t k = n_ni ? class_items(ni, n_ni, g, c, buf, 256) : 0;
        if (k) {
            if (grow((void **)&rs->cls_items, &cap, total + k, sizeof *rs->cls_items)) {
                free(ni);
                return LR_FAIL(err, LR_ERR_NOMEM, "out of memory binding rules");
            }
            memcpy(rs->cls_items + total, buf, k * sizeof *buf);
            total += k;
        }
    }
    rs->cls_first[g->n_classes] = total;
    rs->n_cls_items = total;
    free(ni);
    return bind_sets(rs, 0, err);
}

/* ---------------------------------------------------------------- queries */

static int thread_has_object_root(const rules_set *rs, uint32_t serial)
{
    uint32_t lo = 0, hi = rs->n_thread_serials;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (rs->thread_serials[mid] < serial)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rs->n_thread_serials && rs->thread_serials[lo] == serial;
}

node_ix rules_thread_of_serial(const graph *g, uint32_t serial)
{
    if (serial == 0)
        return GRAPH_NONE;
    for (uint32_t i = 0; i < g->n_threads; i++)
        if (g->threads[i].serial == serial)
            return g->threads[i].node < g->n_nodes ? g->threads[i].node : GRAPH_NONE;
    return GRAPH_NONE;
}

static int ref_verdict(const rules_set *rs, int32_t i, int32_t *lib)
{
    if (rs->refs[i].action == RULES_IGNORE)
        return RULES_DROP;
    *lib = i;
    return RULES_VISIT_LAST;
}

/* A local variable of thread node t: the first active java-local rule naming the thread
 * decides, else the local is visited last. The name is decoded only when such rules exist. */
static int local_verdict(const rules_set *rs, node_ix t, int32_t *lib)
{
    int any = 0;
    for (uint32_t i = 0; i < rs->n_refs; i++)
        any |= rs->refs[i].kind == RULES_REF_JAVA_LOCAL && rs->refs[i].active;
    if (any && t != GRAPH_NONE) {
        char tn[256];
        rules_thread_name(rs->g, t, tn, sizeof tn);
        for (uint32_t i = 0; i < rs->n_refs; i++) {
            const rules_ref *r = &rs->refs[i];
            if (r->kind == RULES_REF_JAVA_LOCAL && r->active && !strcmp(r->cls, tn))
                return ref_verdict(rs, (int32_t)i, lib);
        }
    }
    return RULES_VISIT_LAST;
}

int rules_edge_class(const rules_set *rs, node_ix from, edge_ix e, int32_t *lib)
{
    const graph *g = rs->g;
    *lib = -1;
    uint8_t ek = g->edge_kind[e];
    unsigned kind = GRAPH_EDGE_KIND(ek);
    if (GRAPH_EDGE_STRENGTH(ek) != GRAPH_STRONG)
        return RULES_DROP;
    switch (kind) {
    case GRAPH_EDGE_FIELD: {
        class_ix c = g->node_class[from];
        if (c == GRAPH_NONE || c >= g->n_classes || !rs->cls_first)
            return RULES_FOLLOW;
        const char *fname = NULL; /* read back from the record only when a rule asks */
        for (uint32_t k = rs->cls_first[c]; k < rs->cls_first[c + 1]; k++) {
            uint32_t it = rs->cls_items[k];
            if (it & RULES_ITEM_INSP)
                break;
            if (!fname)
                fname = graph_str(g, graph_edge_name_from(g, from, e));
            if (!strcmp(rs->refs[it].field, fname))
                return ref_verdict(rs, (int32_t)it, lib);
        }
        return RULES_FOLLOW;
    }
    case GRAPH_EDGE_STATIC: {
        class_ix c = graph_class_of_node(rs->g, from);
        if (c == GRAPH_NONE)
            return RULES_FOLLOW;
        const char *cn = graph_str(g, g->classes[c].name);
        const char *fname = NULL;
        for (uint32_t i = 0; i < rs->n_refs; i++) {
            const rules_ref *r = &rs->refs[i];
            if (r->kind != RULES_REF_STATIC || !r->active || strcmp(r->cls, cn))
                continue;
            if (!fname)
                fname = graph_str(g, graph_edge_name_from(g, from, e));
            if (!strcmp(r->field, fname))
                return ref_verdict(rs, (int32_t)i, lib);
        }
        return RULES_FOLLOW;
    }
    case GRAPH_EDGE_LOCAL:
        return local_verdict(rs, from, lib);
    case GRAPH_EDGE_INTERNAL:
    case GRAPH_EDGE_WEAK:
        return RULES_DROP;
    default:
        return RULES_FOLLOW;
    }
}

int rules_root_class(const rules_set *rs, uint32_t root, int32_t *lib)
{
    const graph *g = rs->g;
    const graph_root *r = &g->roots[root];
    *lib = -1;
    if (r->node == GRAPH_NONE || r->node >= g->n_nodes)
        return RULES_DROP;
    switch (r->kind) {
    case GRAPH_ROOT_JAVA_FRAME: {
        if (rs->has_local_edges && thread_has_object_root(rs, r->thread))
            return RULES_DROP;
        /* without local edges the frame root stands for the thread's local: the java-local
         * rules of that thread apply to it */
        return local_verdict(rs, rules_thread_of_serial(g, r->thread), lib);
    }
    case GRAPH_ROOT_UNKNOWN:
    case GRAPH_ROOT_INTERNED_STRING:
    case GRAPH_ROOT_FINALIZING:
    case GRAPH_ROOT_DEBUGGER:
    case GRAPH_ROOT_REFERENCE_CLEANUP:
    case GRAPH_ROOT_VM_INTERNAL:
    case GRAPH_ROOT_UNREACHABLE:
        return RULES_VISIT_LAST;
    case GRAPH_ROOT_JNI_GLOBAL: {
        const char *cn = graph_class_name(g, r->node);
        for (uint32_t i = 0; i < rs->n_refs; i++) {
            const rules_ref *x = &rs->refs[i];
            if (x->kind == RULES_REF_NATIVE_GLOBAL && x->active && !strcmp(x->cls, cn))
                return ref_verdict(rs, (int32_t)i, lib);
        }
        return RULES_FOLLOW;
    }
    default:
        return RULES_FOLLOW;
    }
}

static void append(char *dst, size_t cap, const char *sep, const char *s)
{
    size_t k = strlen(dst);
    if (k && k < cap)
        k += (size_t)snprintf(dst + k, cap - k, "%s", sep);
    if (k < cap)
        snprintf(dst + k, cap - k, "%s", s);
}

/* Inspector indices applying to n, in rule order: a merge of the generic inspectors and the
 * class's own, both already in rule order (this runs on every object of the dump). */
static uint32_t node_inspectors(const rules_set *rs, node_ix n, uint32_t *out, uint32_t cap)
{
    const graph *g = rs->g;
    uint32_t k = 0;
    int is_class = g->node_kind[n] == GRAPH_KIND_CLASS;
    class_ix c = g->node_class[n];
    uint32_t ci = 0, ce = 0;
    if (!is_class && c != GRAPH_NONE && c < g->n_classes && rs->cls_first) {
        ci = rs->cls_first[c];
        ce = rs->cls_first[c + 1];
        while (ci < ce && !(rs->cls_items[ci] & RULES_ITEM_INSP)) /* refs come first */
            ci++;
    }
    uint32_t j = 0;
    while (k < cap) {
        while (j < rs->n_generic && !is_class &&
               rs->insp[rs->generic[j]].subject != RULES_SUBJ_ANY)
            j++;
        int has_g = j < rs->n_generic, has_c = ci < ce;
        if (!has_g && !has_c)
            break;
        uint32_t cv = has_c ? rs->cls_items[ci] & ~RULES_ITEM_INSP : 0;
        if (has_g && (!has_c || rs->generic[j] < cv))
            out[k++] = rs->generic[j++];
        else {
            out[k++] = cv;
            ci++;
        }
    }
    return k;
}

typedef struct field_walk {
    const rules_set *rs;
    const uint32_t *idx; /* the `fields` inspectors, in rule order */
    uint32_t k;
    rules_verdicts *v;
} field_walk;

/* One instance field: every `fields` inspector whose class the value is runs on the value. */
static int field_labels(void *ctx, class_ix decl, const graph_field *f, const graph_value *gv)
{
    field_walk *w = ctx;
    const graph *g = w->rs->g;
    (void)decl;
    if (f->type != GRAPH_FT_OBJECT || gv->ref >= g->n_nodes ||
        g->node_kind[gv->ref] != GRAPH_KIND_INSTANCE || g->node_class[gv->ref] == GRAPH_NONE)
        return 0;
    const char *fname = graph_str(g, f->name);
    char text[1024];
    for (uint32_t j = 0; j < w->k; j++) {
        const rules_inspect *in = &w->rs->insp[w->idx[j]];
        if (!graph_class_is_named(g, g->node_class[gv->ref], in->fields_of) ||
            !eval(w->rs, in->cond, gv->ref, fname, 0) ||
            !render(w->rs, gv->ref, fname, in->text, text, sizeof text))
            continue;
        append(w->v->labels, sizeof w->v->labels, "\n", text);
    }
    return 0;
}

void rules_inspect_node(const rules_set *rs, node_ix n, rules_verdicts *v)
{
    if (!rs->g || n >= rs->g->n_nodes)
        return;
    uint32_t idx[256], fidx[256], nf = 0;
    uint32_t k = node_inspectors(rs, n, idx, 256);
    for (uint32_t j = 0; j < k; j++)
        if (rs->insp[idx[j]].fields_of)
            fidx[nf++] = idx[j];
    int fields_done = 0;
    char text[1024];
    for (uint32_t j = 0; j < k; j++) {
        const rules_inspect *in = &rs->insp[idx[j]];
        if (in->fields_of) {
            /* all `fields` inspectors run together at the first one's place, field by field
             * (most-derived class first), so each field's labels stay together */
            if (!fields_done && rs->g->node_kind[n] == GRAPH_KIND_INSTANCE) {
                field_walk w = {rs, fidx, nf, v};
                graph_fields_each(rs->g, n, field_labels, &w);
            }
            fields_done = 1;
            continue;
        }
        if (!eval(rs, in->cond, n, NULL, 0) || !render(rs, n, NULL, in->text, text, sizeof text))
            continue;
        if (in->verdict == RULES_LABEL)
            append(v->labels, sizeof v->labels, "\n", text);
        else if (in->verdict == RULES_LEAKING)
            append(v->leaking, sizeof v->leaking, " and ", text);
        else
            append(v->not_leaking, sizeof v->not_leaking, " and ", text);
    }
}

int rules_is_leaking_object(const rules_set *rs, node_ix n, char *buf, size_t cap)
{
    if (!rs->g || n >= rs->g->n_nodes)
        return 0;
    uint32_t idx[256];
    uint32_t k = node_inspectors(rs, n, idx, 256);
    for (uint32_t j = 0; j < k; j++) {
        const rules_inspect *in = &rs->insp[idx[j]];
        if (in->verdict != RULES_LEAKING || in->fields_of || !eval(rs, in->cond, n, NULL, 0))
            continue;
        if (!render(rs, n, NULL, in->text, buf, cap))
            snprintf(buf, cap, "%s", in->text);
        return 1;
    }
    return 0;
}
