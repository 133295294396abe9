/* SPDX-License-Identifier: Apache-2.0 */
/* rules_parse.c: the rules language's tokenizer and parser (rules layer), prefix rules_. A
 * per-line tokenizer feeds a recursive-descent parser that appends rules (references,
 * inspectors, watches) to the set and expression nodes to its pool; nesting is capped
 * (RULES_MAX_NEST) so a hostile file cannot exhaust the stack, and every error names the
 * file and line. Loading: one file, the shipped files by name, a --watch/--leaking-if pair,
 * one expression text. Grammar: docs/rules.md. */
#include "rules/rules_internal.h"
#include "rules/lex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- tokenizer */

enum { T_END, T_IDENT, T_STR, T_INT, T_FLOAT, T_OP };

typedef struct lexer {
    const char *p, *end;
    const char *file;
    uint32_t line;
    int tk;          /* current token kind */
    char text[512];  /* identifier / string / op text */
    int64_t num;
    double dnum;     /* T_FLOAT */
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
    /* a number: 12, -3, 2.5, .5, 1e-3 (a Java literal's forms but suffixes) */
    const char *m = p + (c == '-');
    int lead_dot = m + 1 < lx->end && *m == '.' && isdigit((unsigned char)m[1]);
    if (m < lx->end && (isdigit((unsigned char)*m) || lead_dot)) {
        const char *q = m;
        /* the magnitude, up to a Java long's: Long.MAX_VALUE and Long.MIN_VALUE included */
        uint64_t v = 0, most = c == '-' ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        int over = 0;
        while (q < lx->end && isdigit((unsigned char)*q)) {
            unsigned d = (unsigned)(*q - '0');
            if (v > (most - d) / 10)
                over = 1;
            else
                v = v * 10 + d;
            q++;
        }
        /* a fraction, an exponent, or both make a decimal (strtod needs a NUL) */
        const char *e = q;
        if (e + 1 < lx->end && *e == '.' && isdigit((unsigned char)e[1]))
            for (e++; e < lx->end && isdigit((unsigned char)*e); e++)
                ;
        if (e + 1 < lx->end && (*e == 'e' || *e == 'E')) {
            const char *x = e + 1 + (e[1] == '+' || e[1] == '-');
            if (x < lx->end && isdigit((unsigned char)*x))
                for (e = x; e < lx->end && isdigit((unsigned char)*e); e++)
                    ;
        }
        if (e != q) {
            char buf[64];
            if ((size_t)(e - p) >= sizeof buf) {
                fail(lx, "number too long", NULL);
                lx->tk = T_END;
                lx->p = lx->end;
                return;
            }
            memcpy(buf, p, (size_t)(e - p));
            buf[e - p] = 0;
            lx->dnum = strtod(buf, NULL);
            lx->p = e;
            lx->tk = T_FLOAT;
            return;
        }
        if (over) {
            fail(lx, "number out of range", NULL);
            lx->tk = T_END;
            lx->p = lx->end;
            return;
        }
        lx->num = c != '-' ? (int64_t)v : v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
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
    char tmp[8];
    unsigned char u = (unsigned char)c;
    if (u >= 0x20 && u < 0x7f) /* a byte of a multi-byte character, or a control, in hex */
        snprintf(tmp, sizeof tmp, "%c", c);
    else
        snprintf(tmp, sizeof tmp, "\\x%02x", u);
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

typedef struct parser {
    lexer lx;
    rules_set *rs;
    int nest;        /* parse_unary frames active */
    const char *ctx; /* the class of the inspect or watch rule being parsed, or NULL */
} parser;

static int32_t new_expr(parser *ps)
{
    rules_set *rs = ps->rs;
    if (rs->n_exprs >= (1u << 24))
        return fail(&ps->lx, "too many expressions", NULL);
    if (rules_grow((void **)&rs->exprs, &rs->cap_exprs, rs->n_exprs + 1, sizeof *rs->exprs)) {
        if (ps->lx.st == LR_OK)
            ps->lx.st = LR_FAIL(ps->lx.err, LR_ERR_NOMEM, "out of memory parsing rules");
        return -1;
    }
    memset(&rs->exprs[rs->n_exprs], 0, sizeof *rs->exprs);
    rs->exprs[rs->n_exprs].a = rs->exprs[rs->n_exprs].b = -1;
    return (int32_t)rs->n_exprs++;
}

/* The '@' names rules_eval.c knows (docs/rules.md). A misspelt one read as missing data, so
 * its condition was quietly false, where a misspelt field is warned of. */
static const char *const AT_NAMES[] = {"@anonymous", "@class", "@component", "@dom",
                                       "@field",     "@id",    "@location",  "@name",
                                       "@simple",    "@size",  "@super"};

/* 0, or fails on the first '@' component of path that names nothing. */
static int check_at_names(lexer *lx, const char *path)
{
    for (const char *p = path; (p = strchr(p, '@')) != NULL; p++) {
        if (p != path && p[-1] != '.')
            continue;
        size_t len = strcspn(p, ".");
        int known = 0;
        for (size_t i = 0; i < sizeof AT_NAMES / sizeof *AT_NAMES && !known; i++)
            known = strlen(AT_NAMES[i]) == len && !memcmp(AT_NAMES[i], p, len);
        if (!known) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(len < 60 ? len : 60), p);
            return fail(lx, "unknown name '%s' (the names: @anonymous @class @component @dom "
                        "@field @id @location @name @simple @size @super)", name);
        }
    }
    return 0;
}

int rules_template_path(const char *p)
{
    const char *end = strchr(p, '}');
    if (!end || end == p + 1)
        return 0;
    for (const char *c = p + 1; c < end; c++)
        if (*c == '{')
            return 0;
    return 1;
}

/* 0, or fails on the first '@' name of a {PATH} in template t that names nothing: the
 * whole label was dropped at each object, silently, as its value read as missing. */
static int check_template(lexer *lx, const char *t)
{
    for (const char *p = t; (p = strchr(p, '{')) != NULL; p++) {
        if (p[1] == '{') { /* "{{": a brace */
            p++;
            continue;
        }
        if (!rules_template_path(p))
            continue;
        const char *end = strchr(p, '}');
        if (!end)
            break;
        char path[256];
        size_t len = (size_t)(end - p - 1);
        if (len < sizeof path && memchr(p + 1, '@', len)) {
            memcpy(path, p + 1, len);
            path[len] = '\0';
            if (check_at_names(lx, path))
                return -1;
        }
        p = end;
    }
    return 0;
}

/* A path's steps may name the class whose field they read, `Activity#mDestroyed` (a simple
 * or nested name: dots separate steps): one '#' a step, a name on both sides, and not in an
 * '@' name. */
static int check_qualified(lexer *lx, const char *path)
{
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, ".");
        const char *h = memchr(p, '#', len);
        if (h && (h == p || h + 1 == p + len || memchr(h + 1, '#', (size_t)(p + len - h - 1)) ||
                  *p == '@'))
            return fail(lx, "expected CLASS#field as a step of a field path, got '%s'", path);
        p += len + (p[len] == '.');
    }
    return 0;
}

static int parse_operand(parser *ps, operand *o)
{
    lexer *lx = &ps->lx;
    memset(o, 0, sizeof *o);
    if (lx->tk == T_INT) {
        o->kind = OPD_INT;
        o->i = lx->num;
    } else if (lx->tk == T_FLOAT) {
        o->kind = OPD_FLOAT;
        o->d = lx->dnum;
    } else if (lx->tk == T_STR) {
        o->kind = OPD_STR;
        o->s = rules_dupn(lx->text, strlen(lx->text));
        if (!o->s)
            return fail(lx, "out of memory", NULL);
    } else if (is_kw(lx, "true") || is_kw(lx, "false")) {
        o->kind = OPD_BOOL;
        o->i = is_kw(lx, "true");
    } else if (is_kw(lx, "null")) {
        o->kind = OPD_NULL;
    } else if (lx->tk == T_IDENT) {
        if (check_qualified(lx, lx->text) || check_at_names(lx, lx->text))
            return -1;
        o->kind = OPD_PATH;
        o->s = rules_dupn(lx->text, strlen(lx->text));
        if (!o->s)
            return fail(lx, "out of memory", NULL);
        if (ps->ctx && !(o->ctx = rules_dupn(ps->ctx, strlen(ps->ctx))))
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
        rules_free_operand(&l);
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
        char *s = rules_dupn(lx->text, strlen(lx->text));
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
        char *s = rules_dupn(lx->text, strlen(lx->text));
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
 * leaning right, OR(a, OR(b, c)): the same left-to-right short-circuit order, and rules_eval_expr
 * walks the right spine in a loop, so a long chain costs no stack. */
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

/* The first name a `when` condition reads that is no build fact, or NULL. A `when` asks
 * about the device, not an object: any other name (a typo, `APi`) read as missing, so the
 * condition was quietly false and the rule never applied. */
static const char *when_unknown(const rules_set *rs, int32_t e, int depth)
{
    if (e < 0 || (uint32_t)e >= rs->n_exprs || depth > 4 * RULES_MAX_NEST)
        return NULL;
    const rules_expr *x = &rs->exprs[e];
    if (x->op == EX_OR || x->op == EX_AND || x->op == EX_NOT) {
        const char *a = when_unknown(rs, x->a, depth + 1);
        return a ? a : when_unknown(rs, x->b, depth + 1);
    }
    const operand *ops[2] = {&x->l, x->op == EX_CMP ? &x->r : NULL};
    for (int i = 0; i < 2; i++)
        if (ops[i] && ops[i]->kind == OPD_PATH && ops[i]->s && strcmp(ops[i]->s, "API") &&
            strcmp(ops[i]->s, "sdk") && strcmp(ops[i]->s, "manufacturer") &&
            strcmp(ops[i]->s, "build_id"))
            return ops[i]->s;
    return NULL;
}

/* Parses a `when` condition (the keyword read): its expression index, or -1 (failed). */
static int32_t parse_when(parser *ps)
{
    int32_t w = parse_or(ps);
    const char *bad = w >= 0 ? when_unknown(ps->rs, w, 0) : NULL;
    if (bad)
        return fail(&ps->lx, "when: '%s' is no build fact (API, sdk, manufacturer, build_id)",
                    bad);
    return w;
}

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
        if (lx->tk == T_STR && lx->text[0]) {
            /* a class name a snapshot has with spaces: "system / Context"#f (a scope's
             * variable), or the whole reference quoted, "system / Context#f" */
            char cls[sizeof lx->text];
            snprintf(cls, sizeof cls, "%s", lx->text);
            char *h = strrchr(cls, '#');
            if (h && h != cls && h[1]) {
                *h = 0;
                r.field = rules_dupn(h + 1, strlen(h + 1));
            } else {
                /* '#' starts no token: the field follows it at once */
                if (lx->p >= lx->end || *lx->p != '#')
                    return fail(lx, "expected #FIELD after the quoted class \"%s\"", cls);
                lx->p++;
                next(lx);
                if (lx->tk != T_IDENT || strchr(lx->text, '#'))
                    return fail(lx, "expected #FIELD after the quoted class \"%s\"", cls);
                r.field = rules_dupn(lx->text, strlen(lx->text));
            }
            r.cls = rules_dupn(cls, strlen(cls));
        } else {
            if (lx->tk != T_IDENT)
                return fail(lx, "expected CLASS#FIELD", NULL);
            char *h = strrchr(lx->text, '#');
            if (!h || h == lx->text || !h[1])
                return fail(lx, "expected CLASS#FIELD, got '%s'", lx->text);
            *h = 0;
            if (!valid_class_name(lx->text))
                return fail(lx, "bad class name '%s'", lx->text);
            r.cls = rules_dupn(lx->text, strlen(lx->text));
            r.field = rules_dupn(h + 1, strlen(h + 1));
        }
        snprintf(pat, sizeof pat, "%s field %s#%s",
                 r.kind == RULES_REF_INSTANCE ? "instance" : "static", r.cls ? r.cls : "",
                 r.field ? r.field : "");
        next(lx);
    } else if (is_kw(lx, "native-global")) {
        r.kind = RULES_REF_NATIVE_GLOBAL;
        next(lx);
        if (lx->tk != T_IDENT || !valid_class_name(lx->text))
            return fail(lx, "expected a class name after native-global", NULL);
        r.cls = rules_dupn(lx->text, strlen(lx->text));
        snprintf(pat, sizeof pat, "native global variable referencing %s", lx->text);
        next(lx);
    } else if (is_kw(lx, "java-local")) {
        r.kind = RULES_REF_JAVA_LOCAL;
        next(lx);
        if (lx->tk != T_STR)
            return fail(lx, "expected a quoted thread name after java-local", NULL);
        r.cls = rules_dupn(lx->text, strlen(lx->text));
        snprintf(pat, sizeof pat, "local variable on thread %s", lx->text);
        next(lx);
    } else {
        return fail(lx, "expected instance, static, native-global or java-local, got '%s'",
                    lx->tk == T_END ? "end of line" : lx->text);
    }
    r.pattern = rules_dupn(pat, strlen(pat));
    int ok = r.cls && r.pattern && (r.kind > RULES_REF_STATIC || r.field);
    if (ok && is_kw(lx, "when")) {
        next(lx);
        r.when = parse_when(ps);
        if (r.when < 0)
            ok = 0;
    }
    if (ok && action == RULES_LIBRARY_LEAK && is_kw(lx, "description")) {
        next(lx);
        if (lx->tk != T_STR) {
            fail(lx, "expected a quoted description", NULL);
            ok = 0;
        } else {
            r.description = rules_dupn(lx->text, strlen(lx->text));
            next(lx);
        }
    }
    if (ok && !r.description)
        r.description = rules_dupn("", 0);
    if (ok && lx->tk != T_END) {
        fail(lx, "unexpected '%s' at end of rule", lx->text);
        ok = 0;
    }
    if (ok && (!r.description ||
               rules_grow((void **)&rs->refs, &rs->cap_refs, rs->n_refs + 1, sizeof *rs->refs))) {
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

static int add_inspect_in(parser *ps, int watch);

/* The rule's class is where its conditions' field paths start (parser.ctx). */
static int add_inspect(parser *ps, int watch)
{
    int r = add_inspect_in(ps, watch);
    ps->ctx = NULL;
    return r;
}

static int add_inspect_in(parser *ps, int watch)
{
    lexer *lx = &ps->lx;
    rules_set *rs = ps->rs;
    rules_inspect in;
    memset(&in, 0, sizeof in);
    in.cond = in.when = in.find_if = -1;
    in.line = lx->line;
    in.watch = (uint8_t)watch;
    if (is_op(lx, "*") && !watch) {
        in.subject = RULES_SUBJ_ANY;
    } else if (is_kw(lx, "class-object") && !watch) {
        in.subject = RULES_SUBJ_CLASS_OBJECT;
    } else if ((lx->tk == T_IDENT && valid_class_name(lx->text)) ||
               (lx->tk == T_STR && lx->text[0])) {
        /* quoted: any class name a snapshot has, such as DevTools' `Detached <tr>` */
        in.subject = RULES_SUBJ_CLASS;
        in.cls = rules_dupn(lx->text, strlen(lx->text));
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
        in.fields_of = rules_dupn(lx->text, strlen(lx->text));
        if (!in.fields_of) {
            free(in.cls);
            return fail(lx, "out of memory", NULL);
        }
        next(lx);
    }
    if (in.subject == RULES_SUBJ_CLASS && !in.fields_of)
        ps->ctx = in.cls;
    if (is_kw(lx, "if")) {
        next(lx);
        in.cond = parse_or(ps);
        ok = in.cond >= 0;
    }
    if (ok && is_kw(lx, "when")) {
        next(lx);
        in.when = parse_when(ps);
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
            if (ok && check_template(lx, lx->text))
                ok = 0;
            if (ok) {
                in.text = rules_dupn(lx->text, strlen(lx->text));
                next(lx);
            }
            if (ok && is_kw(lx, "find-if")) {
                if (in.verdict != RULES_LEAKING || watch) {
                    ok = 0;
                    fail(lx, "'find-if' follows a 'leaking' inspector's reason only", NULL);
                } else {
                    next(lx);
                    in.find_if = parse_or(ps);
                    ok = in.find_if >= 0;
                }
            }
        } else if (watch) {
            char t[64];
            snprintf(t, sizeof t, "matches the watch rule on line %u", (unsigned)in.line);
            in.verdict = RULES_LEAKING;
            in.text = rules_dupn(t, strlen(t));
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
               rules_grow((void **)&rs->insp, &rs->cap_insp, rs->n_insp + 1, sizeof *rs->insp))) {
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
        if (ps.lx.st != LR_OK) /* a line whose first token fails to lex */
            return ps.lx.st;
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
    const char *name, *text;
    size_t n;
    if (lex_find_rules(file, path, sizeof path))
        return rules_load_file(rs, path, err);
    if (lex_builtin_rules_file(file, &name, &text, &n))
        return rules_parse(rs, name, text, n, err);
    return LR_FAIL(err, LR_ERR_IO, "shipped rules file %s not found (set LEAKRAY_RULES_DIR)",
                   file);
}

lr_status rules_load_defaults(rules_set *rs, const graph *g, lr_error *err)
{
    LR_TRY(rules_load_shipped(rs, "jdk.rules", err));
    if (graph_find_class(g, "android.os.Build") != GRAPH_NONE)
        LR_TRY(rules_load_shipped(rs, "android.rules", err));
    if (g->synthetic_root != GRAPH_NONE && g->node_name) /* V8, Node, Chromium, ArkTS */
        LR_TRY(rules_load_shipped(rs, "js.rules", err));
    for (node_ix x = 0; g->node_dom && x < g->n_nodes; x++)
        if (graph_node_dom(g, x) != GRAPH_DOM_UNKNOWN)
            return rules_load_shipped(rs, "browser.rules", err);
    return LR_OK;
}

lr_status rules_add_watch(rules_set *rs, const char *cls, const char *expr, lr_error *err)
{
    char line[2048], qcls[600], shown[300];
    int n;
    /* A name the rules grammar cannot take bare (V8 and DOM class names have spaces, angle
     * brackets, slashes) is written quoted, its quotes and backslashes escaped; the reason
     * then shows it whole, quotes made harmless. */
    size_t qn = 0, sn = 0;
    if (valid_class_name(cls) && !strpbrk(cls, "<>")) { /* a bare word stops at '<' */
        qn = (size_t)snprintf(qcls, sizeof qcls, "%s", cls);
        snprintf(shown, sizeof shown, "%s", rules_simple_name(cls));
    } else if (*cls && !strchr(cls, '\n') && strlen(cls) < sizeof shown) {
        qcls[qn++] = '"';
        for (const char *p = cls; *p; p++) {
            if (*p == '"' || *p == '\\')
                qcls[qn++] = '\\';
            qcls[qn++] = *p;
            shown[sn++] = (*p == '"' || *p == '\\') ? '\'' : *p;
        }
        qcls[qn++] = '"';
        qcls[qn] = 0;
        shown[sn] = 0;
    }
    if (!qn || qn >= sizeof qcls)
        return LR_FAIL(err, LR_ERR_RULES, "--watch: bad class name '%s'", cls);
    if (expr && strchr(expr, '\n'))
        return LR_FAIL(err, LR_ERR_RULES, "--leaking-if: newline in expression");
    char reason[900];
    if (expr) {
        /* a string left open would run on into the rule written around the expression and
         * be reported in that rule's words: said here, in the user's */
        int open = 0;
        for (const char *p = expr; *p; p++) {
            if (open && *p == '\\' && p[1])
                p++;
            else if (*p == '"')
                open = !open;
        }
        if (open)
            return LR_FAIL(err, LR_ERR_RULES, "--leaking-if '%.200s': unterminated string",
                           expr);
        /* the reason names the user's own condition, quotes made harmless */
        size_t k = 0;
        for (const char *p = expr; *p && k + 2 < 400; p++)
            line[k++] = (*p == '"' || *p == '\\') ? '\'' : *p;
        line[k] = 0;
        char q[420];
        memcpy(q, line, k + 1);
        if (snprintf(reason, sizeof reason, "%s matches %s", shown, q) < 0)
            reason[0] = 0;
        n = snprintf(line, sizeof line, "watch %s if %s -> \"%s\"", qcls, expr, reason);
    } else {
        if (snprintf(reason, sizeof reason, "%s is watched", shown) < 0)
            reason[0] = 0;
        n = snprintf(line, sizeof line, "watch %s -> \"%s\"", qcls, reason);
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

lr_status rules_parse_expr(rules_set *rs, const char *expr, int32_t *out, lr_error *err)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.rs = rs;
    ps.lx.file = "<expr>";
    ps.lx.line = 1;
    ps.lx.err = err;
    ps.lx.p = expr;
    ps.lx.end = expr + strlen(expr);
    next(&ps.lx);
    int32_t e = parse_or(&ps);
    if (e >= 0 && ps.lx.tk != T_END)
        fail(&ps.lx, "unexpected '%s' after expression", ps.lx.text);
    *out = e;
    return ps.lx.st;
}
