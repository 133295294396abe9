/* SPDX-License-Identifier: Apache-2.0 */
/* rules_internal.h: what the three parts of the rules language share (rules layer), prefix
 * rules_: the expression pool's node layout, written by the parser (rules_parse.c) and read by
 * the evaluator (rules_eval.c), and the few helpers each calls in the other. rules.c keeps the
 * lifecycle, the typo checks and the per-edge queries. Never included outside src/rules/. */
#ifndef LR_RULES_RULES_INTERNAL_H
#define LR_RULES_RULES_INTERNAL_H

#include "rules/rules.h"

#include <stddef.h>
#include <stdint.h>

/* Nesting of '(' and '!' in one expression: the parser and the evaluator recurse once per
 * level, so the cap bounds their stack (a hostile file could nest hundreds of thousands deep). */
#define RULES_MAX_NEST 64

/* ---------------------------------------------------------------- expressions */

enum { EX_OR, EX_AND, EX_NOT, EX_CMP, EX_ISNULL, EX_NOTNULL, EX_INSTANCEOF, EX_TRUTHY, EX_IN,
       EX_NOTIN };
enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };
enum { OPD_PATH, OPD_INT, OPD_STR, OPD_BOOL, OPD_NULL, OPD_FLOAT };

typedef struct operand {
    uint8_t kind;
    int64_t i;
    double d;  /* OPD_FLOAT */
    char *s;   /* path (dotted) or string literal */
    char *ctx; /* path: the class of the rule whose object it starts from (its first field is
                * that class's, or a superclass's, before a subclass's of the same name) */
} operand;

struct rules_expr {
    uint8_t op;
    uint8_t cmp;
    int32_t a, b; /* children for OR/AND/NOT */
    operand l, r; /* CMP: l op r; ISNULL/NOTNULL/TRUTHY: l; INSTANCEOF: l, r.s = class;
                   * IN/NOTIN: l, r.s = "CLASS#static.path" */
    uint8_t have_set; /* IN/NOTIN: the collection was found by rules_bind */
    uint8_t set_lent; /* set is an earlier expression's, of the same collection object */
    node_ix *set;     /* IN/NOTIN: its members, sorted (bound state) */
    uint32_t n_set;
    node_ix coll;     /* IN/NOTIN: the collection object, when have_set */
};

/* Frees what an operand owns (its path or string). */
void rules_free_operand(operand *o);
/* A NUL-terminated copy of s[0..n), or NULL when out of memory. */
char *rules_dupn(const char *s, size_t n);
/* Grows *p (elements of elem bytes) to hold need, doubling; 0, or -1 when out of memory. */
int rules_grow(void **p, uint32_t *cap, uint32_t need, size_t elem);

/* `length` of a Java array, as Java spells it: when node n of an HPROF graph is an array and
 * name is "length", sets *out to its element count and returns 1; 0 otherwise (arrays have no
 * fields, so no field is hidden by it). */
int rules_array_length(const graph *g, node_ix n, const char *name, int64_t *out);

/* Parses one expression (a --leaking-if or --where text) into rs's pool: LR_OK and *out, or
 * the parse error (file "<expr>"). */
lr_status rules_parse_expr(rules_set *rs, const char *expr, int32_t *out, lr_error *err);

/* Evaluates expression e (-1: true) on node n; fld names the field being tested, for
 * field-scoped rules (NULL otherwise). Never allocates; depth bounds the recursion. */
int rules_eval_expr(const rules_set *rs, int32_t e, node_ix n, const char *fld, int depth);

/* Whether the '{' at p opens a template's {PATH}: a '}' follows with something between and
 * no '{' in it (a JavaScript property's name may hold a space: {first name}). "{}" is text
 * as written; "{{" and "}}" a brace. */
int rules_template_path(const char *p);

/* Renders a label template: {path} becomes the value. Returns 0 when a value is missing. */
int rules_render(const rules_set *rs, node_ix n, const char *fld, const char *tpl, char *out,
                 size_t cap);
/* The same, a missing value written "?": the reason of a leaking verdict, which applies
 * whatever a value its text names (it printed its template, "{field}" and all). */
void rules_render_lax(const rules_set *rs, node_ix n, const char *tpl, char *out, size_t cap);

#endif
