/* SPDX-License-Identifier: Apache-2.0 */
/* rules.c: the rules language (rules layer), prefix rules_: the set's lifecycle, the typo
 * checks of --watch/--leaking-if, and the per-edge and per-object queries; the parser is
 * rules_parse.c, the evaluator and binding rules_eval.c. A per-line tokenizer and a
 * recursive-descent parser build rules and a pool of expression nodes; rules_bind reads
 * android.os.Build facts from the dump and indexes instance-field rules and inspectors per
 * class (closest class first, as Shark's InstanceFieldPattern wants); queries then cost a few
 * string compares per edge. Expressions never allocate: field chains are walked with
 * graph_field_find and strings decoded into fixed buffers, so a hostile dump can only make a
 * condition false. The one exception is bound state: the members of each `in static`
 * collection are gathered once by rules_bind (a bounded walk) into a sorted array. Grammar:
 * docs/rules.md. */
#include "rules/rules_internal.h"
#include "graph/classname.h"
#include "rules/lex.h"
#include "base/search.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

/* ---------------------------------------------------------------- lifecycle */

void rules_init(rules_set *rs) { memset(rs, 0, sizeof *rs); }

void rules_free_operand(operand *o)
{
    free(o->s);
    free(o->ctx);
}

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
        rules_free_operand(&rs->exprs[i].l);
        rules_free_operand(&rs->exprs[i].r);
        if (!rs->exprs[i].set_lent)
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
    free(rs->dom_of);
    memset(rs, 0, sizeof *rs);
}

char *rules_dupn(const char *s, size_t n)
{
    char *p = err_malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

int rules_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
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
        if (graph_node_class(g, v) != c)
            continue;
        seen++;
        if (graph_field_find(g, v, name, &gv))
            return 1;
    }
    return 0;
}

/* Instances of class c (or a subclass) looked at by path_rest_missing. */
#define RULES_CHECK_SAMPLE 1000

/* The first field of dotted path `path` after its first one (that one is checked against the
 * class) that no sampled instance of c could read where the path reached an object: the walk
 * follows each step as the evaluator does (statics of class objects, fields, V8 properties,
 * an array's `length`) and stops at null, at a value that is no object, and at '@' names, which
 * are no fields. Returns 1 with that field in *bad and the class of an object that lacks it in
 * *owner, or 0 when every step was read at least once (or never reached). */
static int path_rest_missing(const graph *g, class_ix c, const char *path, char *bad,
                             size_t cap, class_ix *owner)
{
    enum { MAX_STEPS = 32 };
    char comp[MAX_STEPS][128];
    uint32_t nc = 0;
    for (const char *p = path; *p && nc < MAX_STEPS;) {
        size_t len = strcspn(p, ".");
        if (len == 0 || len >= sizeof comp[0])
            return 0;
        memcpy(comp[nc], p, len);
        comp[nc++][len] = 0;
        p += len + (p[len] == '.');
    }
    uint32_t start = nc && !strcmp(comp[0], "this") ? 1 : 0;
    uint8_t read[MAX_STEPS] = {0}, lacked[MAX_STEPS] = {0};
    class_ix lacked_by[MAX_STEPS];
    uint32_t seen = 0;
    for (node_ix v = 0; v < g->n_nodes && seen < RULES_CHECK_SAMPLE; v++) {
        class_ix vc = graph_node_class(g, v);
        if (vc >= g->n_classes || (vc != c && !graph_class_is(g, vc, c)))
            continue;
        seen++;
        node_ix cur = v;
        for (uint32_t k = start; k < nc && comp[k][0] != '@'; k++) {
            graph_value gv;
            int64_t len;
            int found = 0;
            if (g->node_kind[cur] == GRAPH_KIND_CLASS) {
                class_ix cc = graph_class_of_node(g, cur);
                found = cc != GRAPH_NONE && graph_static_find(g, cc, comp[k], &gv);
            }
            if (!found && rules_array_length(g, cur, comp[k], &len)) {
                read[k] = 1;
                break; /* a number: nothing further to follow */
            }
            const char *h = strchr(comp[k], '#'); /* Class#field: the field's name */
            if (!found && !graph_field_find(g, cur, h ? h + 1 : comp[k], &gv)) {
                if (!lacked[k])
                    lacked_by[k] = graph_node_class(g, cur);
                lacked[k] = 1;
                break;
            }
            read[k] = 1;
            if (gv.type != GRAPH_FT_OBJECT || gv.ref >= g->n_nodes)
                break;
            cur = gv.ref;
        }
    }
    for (uint32_t k = start + 1; k < nc; k++)
        if (lacked[k] && !read[k]) {
            snprintf(bad, cap, "%s", comp[k]);
            *owner = lacked_by[k];
            return 1;
        }
    return 0;
}

/* The primitive type class c (or its nearest superclass declaring it) gives instance field
 * `name`, as a word for a message, or NULL for a reference field, an unknown one, or none
 * (the declarations say it: no object is read). */
static const char *field_kind(const graph *g, class_ix c, const char *name)
{
    static const char *const prim[] = {
        [GRAPH_FT_BOOLEAN] = "boolean", [GRAPH_FT_CHAR] = "char", [GRAPH_FT_FLOAT] = "float",
        [GRAPH_FT_DOUBLE] = "double",   [GRAPH_FT_BYTE] = "byte", [GRAPH_FT_SHORT] = "short",
        [GRAPH_FT_INT] = "int",         [GRAPH_FT_LONG] = "long"};
    for (uint32_t hops = 0, k = c; k < g->n_classes && hops < 4096; hops++) {
        const graph_class *gc = &g->classes[k];
        for (uint32_t f = 0; f < gc->n_fields && gc->first_field + f < g->n_fields; f++) {
            const graph_field *fd = &g->fields[gc->first_field + f];
            if (strcmp(graph_str(g, fd->name), name))
                continue;
            return fd->type < sizeof prim / sizeof *prim ? prim[fd->type] : NULL;
        }
        k = gc->super;
    }
    return NULL;
}

/* Characters of UTF-8 text s. */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* A comparison of primitive field `f` (HPROF, no dotted path) with a literal no value of
 * its type equals: a string of more than one character against a number or a char (a
 * one-character string compares its code point), any string against a boolean. Java would
 * not compile it; the evaluator says false. */
static int cmp_mismatch(const graph *g, class_ix c, const char *f, const operand *lit,
                        char *msg, size_t cap, const char *cls)
{
    const char *k = field_kind(g, c, f);
    if (!k || lit->kind != OPD_STR || !lit->s)
        return 0;
    int boolean = !strcmp(k, "boolean");
    if (!boolean && utf8_chars(lit->s) <= 1)
        return 0;
    snprintf(msg, cap, "--leaking-if: %s's %s is %s %s, compared with the string \"%.256s\"%s: "
             "never true", cls, f, strcmp(k, "int") ? "a" : "an", k, lit->s,
             boolean ? " (write true or false without quotes)"
             : !strcmp(k, "char") ? " (a char equals a one-character string)"
                                  : " (write the number without quotes)");
    return 1;
}

static const char *near_class(const graph *g, const char *cls);
static int class_below(const graph *g, class_ix k, class_ix c);

/* Field paths of expression e whose first field class c lacks, or whose later fields no
 * object the path reaches has: reported once each. */
/* Which classes have an instance: one pass over the nodes, made the first time a check asks
 * (n_classes bytes; NULL when out of memory, and then nothing is said). */
typedef struct inst_cache {
    uint8_t *has;
    int tried;
    int v8_numbers; /* v8_without_numbers' answer once asked: -1 not yet */
} inst_cache;

static const uint8_t *classes_with_instances(const graph *g, inst_cache *ic)
{
    if (!ic->tried) {
        ic->tried = 1;
        ic->has = calloc(g->n_classes ? g->n_classes : 1, 1);
        for (node_ix v = 0; ic->has && v < g->n_nodes; v++) {
            class_ix k = graph_node_class(g, v);
            if (k < g->n_classes)
                ic->has[k] = 1;
        }
    }
    return ic->has;
}

/* Whether class k looks like an interface: no field, no size, no array, no instance, and no
 * class below it (a heap dump records superclasses, not interfaces). */
static int interface_like(const graph *g, class_ix k, inst_cache *ic)
{
    const graph_class *kc = &g->classes[k];
    const uint8_t *has = kc->n_fields || kc->instance_size || (kc->flags & GRAPH_CLASS_ARRAY) ||
                                 !kc->id
                             ? NULL
                             : classes_with_instances(g, ic);
    if (!has || has[k])
        return 0;
    for (class_ix d = 0; d < g->n_classes; d++)
        if (d != k && class_below(g, d, k))
            return 0;
    return 1;
}

/* Whether g is a V8 snapshot written without numeric values: no "smi number" node, so no
 * property holding a small integer is in it, and a condition on one finds no field. O(N)
 * once per check (ic), asked only when a field is missing. */
static int v8_without_numbers(const graph *g, inst_cache *ic)
{
    if (ic->v8_numbers >= 0)
        return ic->v8_numbers;
    ic->v8_numbers = 0;
    if (strcmp(g->format ? g->format : "", "v8") || !g->node_name)
        return 0;
    for (node_ix v = 0; v < g->n_nodes; v++)
        if (!strcmp(graph_str(g, g->node_name[v]), "smi number"))
            return 0;
    return ic->v8_numbers = 1;
}

static uint32_t check_paths(const rules_set *rs, int32_t e, const graph *g, class_ix c,
                            const char *cls, void (*report)(void *, const char *), void *ctx,
                            int depth, int neg, inst_cache *ic)
{
    if (e < 0 || (uint32_t)e >= rs->n_exprs || depth > 4 * RULES_MAX_NEST)
        return 0;
    const rules_expr *x = &rs->exprs[e];
    /* under `!` a test that is never true makes the rule hold: no "never true" said there */
    if (x->op == EX_OR || x->op == EX_AND || x->op == EX_NOT) {
        int n2 = neg ^ (x->op == EX_NOT);
        return check_paths(rs, x->a, g, c, cls, report, ctx, depth + 1, n2, ic) +
               check_paths(rs, x->b, g, c, cls, report, ctx, depth + 1, n2, ic);
    }
    uint32_t n = 0;
    if (x->op == EX_INSTANCEOF && x->r.s && !neg && !strcmp(g->format ? g->format : "", "hprof")) {
        /* a class a typo away from one the dump has, or an interface (a heap dump records
         * superclasses, not interfaces): the test is never true, and said so */
        char msg[700];
        class_ix k = graph_find_class(g, x->r.s);
        const char *near = k == GRAPH_NONE ? near_class(g, x->r.s) : NULL;
        if (near) {
            snprintf(msg, sizeof msg, "--leaking-if: the dump has no class %s (%s?): instanceof "
                     "it is never true", x->r.s, near);
            report(ctx, msg);
            n++;
        } else if (k != GRAPH_NONE && interface_like(g, k, ic)) {
            snprintf(msg, sizeof msg, "--leaking-if: %s has no instance and no subclass in this "
                     "dump (an interface, or a class nothing loaded extends): instanceof follows "
                     "superclasses, not interfaces, which a heap dump does not record (name the "
                     "classes that implement it): never true", x->r.s);
            report(ctx, msg);
            n++;
        }
    }
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
        char msg[700];
        /* an array's length reads as in Java (rules_array_length): a number, ending the path */
        if (!strcmp(first, "length") && c < g->n_classes &&
            (g->classes[c].flags & GRAPH_CLASS_ARRAY)) {
            if (!strchr(o->s, '.'))
                continue;
            snprintf(msg, sizeof msg, "--leaking-if: %s's length is a number: nothing follows "
                     "it (in '%s')", cls, o->s);
            report(ctx, msg);
            n++;
            continue;
        }
        const char *h = strchr(first, '#');
        if (h)
            memmove(first, h + 1, strlen(h + 1) + 1); /* Class#field: the field's name */
        if (class_has_field(g, c, first)) {
            const operand *lit = x->op == EX_CMP ? (i ? &x->l : &x->r) : NULL;
            if (lit && !neg && lit->kind != OPD_PATH && lit->kind != OPD_NULL &&
                !strchr(o->s, '.') && !strchr(o->s, '#') &&
                !strcmp(g->format ? g->format : "", "hprof") &&
                cmp_mismatch(g, c, first, lit, msg, sizeof msg, cls)) {
                report(ctx, msg);
                n++;
                continue;
            }
            char bad[128];
            class_ix owner = GRAPH_NONE;
            if (!strchr(o->s, '.') || !path_rest_missing(g, c, o->s, bad, sizeof bad, &owner))
                continue;
            snprintf(msg, sizeof msg, "--leaking-if: %s has no field '%s' (in '%s')",
                     owner < g->n_classes ? graph_str(g, g->classes[owner].name) : "?", bad,
                     o->s);
            report(ctx, msg);
            n++;
            continue;
        }
        if (strchr(o->s, '.'))
            snprintf(msg, sizeof msg, "--leaking-if: %s has no field '%s' (in '%s')", cls,
                     first, o->s);
        else
            snprintf(msg, sizeof msg, "--leaking-if: %s has no field '%s'", cls, first);
        if (v8_without_numbers(g, ic)) {
            size_t l = strlen(msg);
            snprintf(msg + l, sizeof msg - l, "; a V8 snapshot lists a property that holds a "
                     "small integer only when written with numeric values (Node: "
                     "writeHeapSnapshot's exposeNumericValues)");
        }
        report(ctx, msg);
        n++;
    }
    return n;
}

/* Whether class k is c or below it (depth-bounded: a hostile dump's chain may loop). */
static int class_below(const graph *g, class_ix k, class_ix c)
{
    for (uint32_t d = 0; k < g->n_classes && d < 4096; d++, k = g->classes[k].super)
        if (k == c)
            return 1;
    return 0;
}

/* Whether the dump has an object of class c or of a subclass; *subclasses says whether c has
 * any. One pass over the nodes, stopping at the first such object. */
static int class_has_instances(const graph *g, class_ix c, int *subclasses)
{
    *subclasses = 0;
    uint8_t *below = calloc(g->n_classes ? g->n_classes : 1, 1);
    if (!below)
        return 1; /* no memory for the note: say nothing */
    for (class_ix k = 0; k < g->n_classes; k++) {
        below[k] = (uint8_t)class_below(g, k, c);
        if (below[k] && k != c)
            *subclasses = 1;
    }
    int found = 0;
    for (node_ix n = 0; n < g->n_nodes && !found; n++) {
        class_ix k = graph_node_class(g, n);
        found = k < g->n_classes && below[k];
    }
    free(below);
    return found;
}

/* A class nested in cls (named cls$...) that has instances, or NULL; HPROF only. */
static const char *nested_with_instances(const graph *g, const char *cls)
{
    size_t n = strlen(cls);
    if (!g->id_size)
        return NULL;
    uint8_t *hit = calloc(g->n_classes ? g->n_classes : 1, 1);
    if (!hit)
        return NULL;
    int any = 0;
    for (class_ix k = 0; k < g->n_classes; k++) {
        const char *nm = graph_str(g, g->classes[k].name);
        hit[k] = (uint8_t)(strncmp(nm, cls, n) == 0 && nm[n] == '$');
        any |= hit[k];
    }
    const char *found = NULL;
    for (node_ix x = 0; any && x < g->n_nodes && !found; x++) {
        class_ix k = graph_node_class(g, x);
        if (k < g->n_classes && hit[k] && g->node_kind[x] == GRAPH_KIND_INSTANCE)
            found = graph_str(g, g->classes[k].name);
    }
    free(hit);
    return found;
}

/* The first class whose stable name is name (classname_stable_is), or GRAPH_NONE. */
static class_ix find_stable_class(const graph *g, const char *name)
{
    for (class_ix k = 0; k < g->n_classes; k++)
        if (classname_stable_is(graph_str(g, g->classes[k].name), name))
            return k;
    return GRAPH_NONE;
}

/* Whether any class whose stable name is name (find_stable_class: every lambda class of
 * `Foo$$Lambda`, every copy of a hidden class) has an instance. */
static int stable_has_instances(const graph *g, const char *name)
{
    uint8_t *hit = calloc(g->n_classes ? g->n_classes : 1, 1);
    if (!hit)
        return 1; /* no memory for the note: say nothing */
    int any = 0, found = 0;
    for (class_ix k = 0; k < g->n_classes; k++)
        any |= hit[k] = (uint8_t)classname_stable_is(graph_str(g, g->classes[k].name), name);
    for (node_ix x = 0; any && x < g->n_nodes && !found; x++) {
        class_ix k = graph_node_class(g, x);
        found = k < g->n_classes && hit[k] && g->node_kind[x] == GRAPH_KIND_INSTANCE;
    }
    free(hit);
    return found;
}

/* Whether g has a function named name (a JavaScript constructor). */
static int has_constructor(const graph *g, const char *name)
{
    if (!g->node_name)
        return 0;
    for (node_ix n = 0; n < g->n_nodes; n++)
        if (g->node_kind[n] == GRAPH_KIND_CLOSURE && !strcmp(graph_str(g, g->node_name[n]), name))
            return 1;
    return 0;
}

uint32_t rules_watch_check(const rules_set *rs, uint32_t first_insp, const graph *g,
                           void (*report)(void *ctx, const char *msg), void *ctx)
{
    inst_cache ic = {NULL, 0, -1};
    uint32_t n = 0;
    char msg[600];
    for (uint32_t i = first_insp; i < rs->n_insp; i++) {
        const rules_inspect *in = &rs->insp[i];
        if (!in->watch || in->subject != RULES_SUBJ_CLASS || !in->cls)
            continue;
        class_ix c = graph_find_class(g, in->cls);
        if (c == GRAPH_NONE && has_constructor(g, in->cls)) {
            /* A JavaScript heap names a class after the constructor of its instances: with
             * none left (the leak fixed) the class is gone, the constructor is not. */
            snprintf(msg, sizeof msg, "--watch %s: the dump holds no instance of it", in->cls);
            report(ctx, msg);
            continue;
        }
        char nested[256];
        if (c == GRAPH_NONE && graph_find_nested(g, in->cls, nested, sizeof nested) !=
                                   GRAPH_NONE) {
            snprintf(msg, sizeof msg, "--watch %s: the dump has no class of that name (a "
                     "nested class is written with '$': %s)", in->cls, nested);
            report(ctx, msg);
            n++;
            continue;
        }
        int by_stable = 0;
        if (c == GRAPH_NONE)
            by_stable = (c = find_stable_class(g, in->cls)) != GRAPH_NONE;
        if (c == GRAPH_NONE) {
            /* a hidden class as the JVM names it (Class.getName(), jmap -histo: Foo/0x12) */
            const char *slash = strstr(in->cls, "/0x");
            int head = slash ? (int)(slash - in->cls) : 0;
            snprintf(msg, sizeof msg, "--watch %s: the dump has no class of that name%s%.*s%s",
                     in->cls, slash ? " (a heap dump writes a hidden class's name with '+' "
                                      "where the JVM's has '/': " : "",
                     head, in->cls, slash ? "+0x...)" : "");
            report(ctx, msg);
            n++;
            continue;
        }
        int subclasses = 0;
        /* a stable name (`Foo$$Lambda`) names every class it stands for, not the first */
        if (by_stable ? !stable_has_instances(g, in->cls)
                      : !class_has_instances(g, c, &subclasses)) {
            /* Not counted: a dump without the watched objects is a dump without the leak. An
             * interface, though, has no instances by definition, and its implementations
             * are not its subclasses in a heap dump. */
            const graph_class *k = &g->classes[c];
            int interface_like = !subclasses && !k->n_fields && !k->instance_size &&
                                 !(k->flags & GRAPH_CLASS_ARRAY) && k->id;
            /* `--watch app.Repo$Companion` unquoted reaches us as app.Repo: the shell took
             * $Companion for a variable */
            const char *inner = nested_with_instances(g, in->cls);
            char also[400] = "";
            if (inner)
                snprintf(also, sizeof also, " (%s has instances: quote a name with '$', which "
                         "a shell reads as a variable)", inner);
            int ruby = g->format && !strcmp(g->format, "ruby");
            snprintf(msg, sizeof msg, "--watch %s: the dump holds no instance of it%s%s%s",
                     in->cls, subclasses ? " or of a subclass" : "",
                     !interface_like || inner ? ""
                     : ruby ? " (for a module: watch follows superclasses, not included "
                              "modules; name the class that includes it)"
                            : " (for an interface: watch follows superclasses, not interfaces; "
                              "name the class that implements it)",
                     also);
            report(ctx, msg);
        }
        n += check_paths(rs, in->cond, g, c, in->cls, report, ctx, 0, 0, &ic);
    }
    free(ic.has);
    return n;
}

/* Whether a and b are at most 2 edits apart (insertions, deletions, substitutions). */
static int near_name(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > lb + 2 || lb > la + 2 || la > 250 || lb > 250)
        return 0;
    uint8_t row[2][256];
    for (size_t j = 0; j <= lb; j++)
        row[0][j] = (uint8_t)(j < 3 ? j : 3);
    for (size_t i = 1; i <= la; i++) {
        uint8_t *p = row[(i - 1) & 1], *c = row[i & 1], best = 3;
        c[0] = (uint8_t)(i < 3 ? i : 3);
        for (size_t j = 1; j <= lb; j++) {
            unsigned v = p[j - 1] + (a[i - 1] != b[j - 1]);
            if (p[j] + 1u < v)
                v = p[j] + 1u;
            if (c[j - 1] + 1u < v)
                v = c[j - 1] + 1u;
            c[j] = (uint8_t)(v < 3 ? v : 3);
            if (c[j] < best)
                best = c[j];
        }
        if (c[0] < best)
            best = c[0];
        if (best > 2)
            return 0;
    }
    return row[la & 1][lb] <= 2;
}

/* Rules naming a class the dump lacks that are searched for a near name: past them, a file
 * of generated rules (every vendor class of a big app) is no source of typos, and the search
 * (classes x rules) took 16 % of 40,000 rules' binding. */
#define RULES_NEAR_MAX 1024u

/* A class of the dump whose name is a typo's distance from cls, or NULL. */
static const char *near_class(const graph *g, const char *cls)
{
    for (class_ix c = 0; c < g->n_classes; c++) {
        const char *nm = graph_str(g, g->classes[c].name);
        if (strcmp(nm, cls) && near_name(nm, cls))
            return nm;
    }
    return NULL;
}

/* Whether class c (or a superclass, or a subclass) declares an instance field `name`; with
 * statics, whether c itself declares a static one. */
static int declares_ref_field(const graph *g, class_ix c, const char *name, int statics)
{
    if (statics) {
        const graph_class *gc = &g->classes[c];
        for (uint32_t f = 0; f < gc->n_statics && gc->first_static + f < g->n_statics; f++)
            if (!strcmp(graph_str(g, g->statics[gc->first_static + f].name), name))
                return 1;
        return 0;
    }
    for (class_ix d = 0; d < g->n_classes; d++) {
        if (d != c && !graph_class_is(g, c, d) && !graph_class_is(g, d, c))
            continue;
        const graph_class *gc = &g->classes[d];
        for (uint32_t f = 0; f < gc->n_fields && gc->first_field + f < g->n_fields; f++)
            if (!strcmp(graph_str(g, g->fields[gc->first_field + f].name), name))
                return 1;
    }
    return 0;
}

/* One reference rule edge_named_refs looks for: its class and its index. */
typedef struct ref_want {
    class_ix cls;
    uint32_t i;
} ref_want;

static int cmp_ref_want(const void *a, const void *b)
{
    const ref_want *x = a, *y = b;
    return x->cls != y->cls ? (x->cls > y->cls) - (x->cls < y->cls) : (x->i > y->i) - (x->i < y->i);
}

/* For a dump whose classes declare no fields (V8, a generic graph): one flag per instance rule
 * from first_ref on, set when some object of its class has a reference of its field's name
 * (a property, a scope's variable), in one pass over the nodes. NULL when out of memory (no
 * rule is then said to never apply). */
static uint8_t *edge_named_refs(const rules_set *rs, uint32_t first_ref, const graph *g)
{
    uint32_t k = rs->n_refs - first_ref, nw = 0;
    uint8_t *seen = calloc(k ? k : 1, 1);
    ref_want *w = malloc((k ? k : 1) * sizeof *w);
    if (!seen || !w || !g->first_edge) {
        free(w);
        free(seen);
        return NULL;
    }
    for (uint32_t i = first_ref; i < rs->n_refs; i++) {
        const rules_ref *r = &rs->refs[i];
        class_ix c = r->kind == RULES_REF_INSTANCE && r->field ? graph_find_class(g, r->cls)
                                                               : GRAPH_NONE;
        if (c != GRAPH_NONE)
            w[nw++] = (ref_want){c, i - first_ref};
    }
    qsort(w, nw, sizeof *w, cmp_ref_want);
    char name[256];
    for (node_ix x = 0; nw && x < g->n_nodes; x++) {
        class_ix c = graph_node_class(g, x);
        uint32_t lo;
        SEARCH_LOWER_BOUND(uint32_t, 0, nw, w[search_mid].cls < c, lo);
        for (uint32_t j = lo; j < nw && w[j].cls == c; j++) {
            if (seen[w[j].i])
                continue;
            const char *f = rs->refs[first_ref + w[j].i].field;
            for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1] && !seen[w[j].i]; e++)
                seen[w[j].i] = !strcmp(graph_edge_name_text(g, e, name, sizeof name), f);
        }
    }
    free(w);
    return seen;
}

/* check_paths' messages said of an inspector's condition, by its line */
typedef struct line_report {
    void (*report)(void *ctx, const char *msg);
    void *ctx;
    uint32_t line;
} line_report;

static void report_at_line(void *ctx, const char *msg)
{
    const line_report *lr = ctx;
    char m[800];
    if (!strncmp(msg, "--leaking-if: ", 14))
        msg += 14;
    /* "never true" (a comparison's type) says what "the rule never applies" says after it */
    size_t n = strlen(msg), t = sizeof ": never true" - 1;
    int cut = n > t && !strcmp(msg + n - t, ": never true");
    snprintf(m, sizeof m, "line %u: %.*s: the rule never applies", (unsigned)lr->line,
             (int)(cut ? n - t : n), msg);
    lr->report(lr->ctx, m);
}

static uint32_t file_check(const rules_set *rs, uint32_t first_insp, uint32_t first_ref,
                           const graph *g, void (*report)(void *ctx, const char *msg), void *ctx)
{
    inst_cache ic = {NULL, 0, -1};
    /* Only where the dump has the class: a team's rules file names classes of many apps,
     * and one this dump lacks is no typo. A field the class lacks is: the rule never applies
     * (a library leak stays an application leak, an inspector never speaks). */
    uint32_t n = 0, searched = 0;
    char msg[700];
    for (uint32_t i = first_insp; i < rs->n_insp; i++) {
        const rules_inspect *in = &rs->insp[i];
        if (in->watch || in->subject != RULES_SUBJ_CLASS || !in->cls)
            continue;
        class_ix c = graph_find_class(g, in->cls);
        line_report lr = {report, ctx, in->line};
        const char *near = c == GRAPH_NONE && searched++ < RULES_NEAR_MAX
                               ? near_class(g, in->cls)
                               : NULL;
        if (near) {
            snprintf(msg, sizeof msg, "line %u: the dump has no class %s (%s?): the rule never "
                     "applies", (unsigned)in->line, in->cls, near);
            report(ctx, msg);
            n++;
        }
        /* an interface: its implementations are no subclasses in a heap dump (the same shape
         * of class as --watch's note; one census of the classes with instances for all) */
        if (c != GRAPH_NONE && !strcmp(g->format ? g->format : "", "hprof") &&
            interface_like(g, c, &ic)) {
            snprintf(msg, sizeof msg, "line %u: %s has no instance and no subclass in this dump "
                     "(an interface, or a class nothing loaded extends): inspect follows "
                     "superclasses, not interfaces (name the classes that implement it): the "
                     "rule never applies", (unsigned)in->line, in->cls);
            report(ctx, msg);
            n++;
        }
        if (c != GRAPH_NONE) {
            n += check_paths(rs, in->cond, g, c, in->cls, report_at_line, &lr, 0, 0, &ic);
            /* find-if's paths too: a typo there found nothing, silently */
            n += check_paths(rs, in->find_if, g, c, in->cls, report_at_line, &lr, 0, 0, &ic);
        }
    }
    int fielded = !strcmp(g->format ? g->format : "", "hprof");
    uint8_t *seen = fielded ? NULL : edge_named_refs(rs, first_ref, g);
    /* a java-local or native-global rule where the dump has no such root (a V8 or Ruby heap):
     * it matches nothing, and the path it meant to excuse stays a leak */
    int locals = g->n_threads > 0, jni = 0;
    for (uint32_t k = 0; k < g->n_roots && !(locals && jni); k++) {
        locals |= g->roots[k].kind == GRAPH_ROOT_JAVA_FRAME;
        jni |= g->roots[k].kind == GRAPH_ROOT_JNI_GLOBAL;
    }
    for (uint32_t i = first_ref; i < rs->n_refs; i++) {
        const rules_ref *r = &rs->refs[i];
        if ((r->kind == RULES_REF_JAVA_LOCAL && !locals) ||
            (r->kind == RULES_REF_NATIVE_GLOBAL && !jni)) {
            snprintf(msg, sizeof msg, "line %u: %s rules match %s, which this dump has none "
                     "of: the rule never applies", (unsigned)r->line,
                     r->kind == RULES_REF_JAVA_LOCAL ? "java-local" : "native-global",
                     r->kind == RULES_REF_JAVA_LOCAL ? "a Java thread's local variables"
                                                     : "JNI global references");
            report(ctx, msg);
            n++;
            continue;
        }
        if ((r->kind != RULES_REF_INSTANCE && r->kind != RULES_REF_STATIC) || !r->field)
            continue;
        class_ix c = graph_find_class(g, r->cls);
        const char *near = c == GRAPH_NONE && searched++ < RULES_NEAR_MAX
                               ? near_class(g, r->cls)
                               : NULL;
        int statics = r->kind == RULES_REF_STATIC;
        if (near)
            snprintf(msg, sizeof msg, "line %u: the dump has no class %s (%s?): the rule never "
                     "applies", (unsigned)r->line, r->cls, near);
        else if (c == GRAPH_NONE)
            continue;
        else if (!fielded && statics)
            snprintf(msg, sizeof msg, "line %u: static %s#%s: this dump's objects have no "
                     "static fields (write instance %s#%s): the rule never applies",
                     (unsigned)r->line, r->cls, r->field, r->cls, r->field);
        else if (!fielded && seen && !seen[i - first_ref])
            snprintf(msg, sizeof msg, "line %u: no %s of the dump has a reference named %s: "
                     "the rule never applies", (unsigned)r->line, r->cls, r->field);
        else if (!fielded || declares_ref_field(g, c, r->field, statics))
            continue;
        else if (declares_ref_field(g, c, r->field, !statics))
            snprintf(msg, sizeof msg, "line %u: %s#%s is %s field, not %s one: the rule never "
                     "applies", (unsigned)r->line, r->cls, r->field,
                     statics ? "an instance" : "a static", statics ? "a static" : "an instance");
        else
            snprintf(msg, sizeof msg, "line %u: %s has no %s field %s: the rule never applies",
                     (unsigned)r->line, r->cls, statics ? "static" : "instance", r->field);
        report(ctx, msg);
        n++;
    }
    free(seen);
    free(ic.has);
    return n;
}

/* The warnings of one file, kept to be said in line order (the inspect rules are checked
 * before the reference rules, whatever their lines). */
typedef struct said_msg {
    unsigned line; /* the rule's line ("line N: ..."), 0 for a message that names none */
    uint32_t seq;  /* the order it was said in, among those of one line */
    char *text;
} said_msg;

typedef struct said {
    said_msg *v;
    uint32_t n, cap;
    int oom;
} said;

static void keep_said(void *ctx, const char *msg)
{
    said *k = ctx;
    if (k->oom)
        return;
    if (k->n == k->cap) {
        uint32_t cap = k->cap ? k->cap * 2 : 16;
        said_msg *p = realloc(k->v, cap * sizeof *p);
        if (!p) {
            k->oom = 1;
            return;
        }
        k->v = p;
        k->cap = cap;
    }
    said_msg *m = &k->v[k->n];
    m->line = !strncmp(msg, "line ", 5) ? (unsigned)strtoul(msg + 5, NULL, 10) : 0;
    m->seq = k->n;
    if (!(m->text = strdup(msg)))
        k->oom = 1;
    else
        k->n++;
}

static int cmp_said(const void *a, const void *b)
{
    const said_msg *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

uint32_t rules_file_check(const rules_set *rs, uint32_t first_insp, uint32_t first_ref,
                          const graph *g, void (*report)(void *ctx, const char *msg), void *ctx)
{
    said k = {0};
    uint32_t n = file_check(rs, first_insp, first_ref, g, keep_said, &k);
    if (k.n)
        qsort(k.v, k.n, sizeof *k.v, cmp_said);
    for (uint32_t i = 0; i < k.n; i++) {
        if (!k.oom)
            report(ctx, k.v[i].text);
        free(k.v[i].text);
    }
    free(k.v);
    if (k.oom) /* no memory to keep them: checked again, said as found */
        n = file_check(rs, first_insp, first_ref, g, report, ctx);
    return n;
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
    if (g->thread_by_serial) {
        /* asked per Java-frame root: 20,000 threads and 600,000 locals were 30 s by scan */
        const uint32_t *ix = g->thread_by_serial;
        uint32_t lo;
        SEARCH_LOWER_BOUND(uint32_t, 0, g->n_threads, g->threads[ix[search_mid]].serial < serial,
                           lo);
        if (lo == g->n_threads || g->threads[ix[lo]].serial != serial)
            return GRAPH_NONE;
        node_ix x = g->threads[ix[lo]].node;
        return x < g->n_nodes ? x : GRAPH_NONE;
    }
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

/* Whether edge e of `from` (of class c), named `name`, is a field that a class below the
 * rule's class `rule_cls` declares and that holds the edge's target: a field of the same name
 * as the one the rule names, but not that field. `WeakReference#referent` names
 * Reference.referent, not the strong `referent` a subclass declares of its own. The walk
 * stops at the first class that declares no such field, so a dump without shadowing pays a
 * hierarchy walk. */
static int shadowed_below(const graph *g, class_ix c, const char *rule_cls, node_ix from,
                          edge_ix e, const char *name)
{
    int any = 0;
    uint32_t depth = 0;
    for (class_ix k = c; k < g->n_classes && depth < 4096; k = g->classes[k].super, depth++) {
        if (!strcmp(graph_str(g, g->classes[k].name), rule_cls))
            break;
        for (uint32_t f = 0; f < g->classes[k].n_fields && !any; f++)
            any = !strcmp(graph_str(g, g->fields[g->classes[k].first_field + f].name), name);
    }
    if (!any)
        return 0;
    /* the field that holds the edge's target: declared below the rule's class? */
    class_ix decl = graph_field_holder(g, from, name, g->edge_to[e]);
    depth = 0;
    for (class_ix k = c; k < g->n_classes && depth < 4096; k = g->classes[k].super, depth++) {
        if (!strcmp(graph_str(g, g->classes[k].name), rule_cls))
            return 0;
        if (k == decl)
            return 1;
    }
    return 0;
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
    case GRAPH_EDGE_FIELD:
    case GRAPH_EDGE_PROPERTY: /* a V8 object's named property, as a field (Registry#listeners) */
    case GRAPH_EDGE_CONTEXT: { /* a V8 scope's variable, a field of its Context */
        class_ix c = graph_node_class(g, from);
        if (c == GRAPH_NONE || c >= g->n_classes || !rs->cls_first)
            return RULES_FOLLOW;
        const char *fname = NULL; /* read back from the record only when a rule asks */
        for (uint32_t k = rs->cls_first[c]; k < rs->cls_first[c + 1]; k++) {
            uint32_t it = rs->cls_items[k];
            if (it & RULES_ITEM_INSP)
                break;
            if (!fname)
                fname = graph_str(g, graph_edge_name_from(g, from, e));
            if (!strcmp(rs->refs[it].field, fname)) {
                if (kind == GRAPH_EDGE_FIELD &&
                    shadowed_below(g, c, rs->refs[it].cls, from, e, fname))
                    return RULES_FOLLOW;
                return ref_verdict(rs, (int32_t)it, lib);
            }
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
        /* a class's internals (super class, loader, signers, protection domain) are no
         * references to Shark; a V8 object's internal edges (a closure's context, a Map's
         * table) are how it holds what it holds */
        return g->node_kind[from] == GRAPH_KIND_CLASS ? RULES_DROP : RULES_FOLLOW;
    case GRAPH_EDGE_WEAK:
        return RULES_DROP;
    default:
        return RULES_FOLLOW;
    }
}

/* Mirrors rules_edge_class: only an `ignore` rule's match gives RULES_DROP (a library leak's
 * gives RULES_VISIT_LAST, no match RULES_FOLLOW), so a class no ignore rule can match keeps
 * every such edge whatever its name. */
int rules_drop_classes(const rules_set *rs, uint8_t *out)
{
    const graph *g = rs->g;
    for (class_ix c = 0; c < g->n_classes; c++) {
        out[c] = 0;
        if (!rs->cls_first)
            continue;
        for (uint32_t k = rs->cls_first[c]; k < rs->cls_first[c + 1]; k++) {
            uint32_t it = rs->cls_items[k];
            if (it & RULES_ITEM_INSP)
                break;
            if (rs->refs[it].action == RULES_IGNORE)
                out[c] |= RULES_MAY_DROP_FIELD;
        }
    }
    int locals = 0;
    for (uint32_t i = 0; i < rs->n_refs; i++) {
        const rules_ref *r = &rs->refs[i];
        if (!r->active || r->action != RULES_IGNORE)
            continue;
        if (r->kind == RULES_REF_JAVA_LOCAL)
            locals = 1;
        if (r->kind != RULES_REF_STATIC)
            continue;
        for (class_ix c = 0; c < g->n_classes; c++)
            if (!strcmp(r->cls, graph_str(g, g->classes[c].name)))
                out[c] |= RULES_MAY_DROP_STATIC;
    }
    return locals;
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

/* Appends s to the sep-separated list dst unless it is in it already: Shark keeps reasons and
 * labels in sets, so a rule given twice (a copy of a shipped one, one file read twice, two
 * fields a wrapper chain reaches) says its text once, not "... is true and ... is true". */
static void append(char *dst, size_t cap, const char *sep, const char *s)
{
    size_t sl = strlen(s), pl = strlen(sep);
    for (const char *p = strstr(dst, s); sl && p; p = strstr(p + 1, s))
        if ((p == dst || (p - dst >= (ptrdiff_t)pl && !memcmp(p - pl, sep, pl))) &&
            (!p[sl] || !strncmp(p + sl, sep, pl)))
            return;
    size_t k = strlen(dst);
    if (k && k < cap)
        k += (size_t)snprintf(dst + k, cap - k, "%s", sep);
    if (k < cap)
        snprintf(dst + k, cap - k, "%s", s);
}

/* Inspector indices applying to n, in rule order: a merge of the generic inspectors and the
 * class's own, both already in rule order (this runs on every object of the dump). */
static uint32_t kind_inspectors(const rules_set *rs, int is_class, class_ix c, uint32_t *out,
                                uint32_t cap)
{
    const graph *g = rs->g;
    uint32_t k = 0;
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

static uint32_t node_inspectors(const rules_set *rs, node_ix n, uint32_t *out, uint32_t cap)
{
    const graph *g = rs->g;
    return kind_inspectors(rs, g->node_kind[n] == GRAPH_KIND_CLASS, graph_node_class(g, n), out,
                           cap);
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
        g->node_kind[gv->ref] != GRAPH_KIND_INSTANCE || graph_node_class(g, gv->ref) == GRAPH_NONE)
        return 0;
    const char *fname = graph_str(g, f->name);
    char text[1024];
    for (uint32_t j = 0; j < w->k; j++) {
        const rules_inspect *in = &w->rs->insp[w->idx[j]];
        if (!graph_class_is_named(g, graph_node_class(g, gv->ref), in->fields_of) ||
            !rules_eval_expr(w->rs, in->cond, gv->ref, fname, 0) ||
            !rules_render(w->rs, gv->ref, fname, in->text, text, sizeof text))
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
        if (!rules_eval_expr(rs, in->cond, n, NULL, 0) ||
            !rules_render(rs, n, NULL, in->text, text, sizeof text))
            continue;
        if (in->verdict == RULES_LABEL)
            append(v->labels, sizeof v->labels, "\n", text);
        else if (in->verdict == RULES_LEAKING)
            append(v->leaking, sizeof v->leaking, " and ", text);
        else
            append(v->not_leaking, sizeof v->not_leaking, " and ", text);
    }
}

void rules_leaking_classes(const rules_set *rs, uint8_t *out)
{
    uint32_t idx[256];
    for (class_ix c = 0; c <= rs->g->n_classes; c++) {
        uint32_t k = kind_inspectors(rs, 0, c < rs->g->n_classes ? c : GRAPH_NONE, idx, 256);
        out[c] = 0;
        for (uint32_t j = 0; j < k && !out[c]; j++)
            out[c] = rs->insp[idx[j]].verdict == RULES_LEAKING && !rs->insp[idx[j]].fields_of;
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
        if (in->verdict != RULES_LEAKING || in->fields_of ||
            !rules_eval_expr(rs, in->cond, n, NULL, 0) ||
            (in->find_if >= 0 && !rules_eval_expr(rs, in->find_if, n, NULL, 0)))
            continue;
        if (!rules_render(rs, n, NULL, in->text, buf, cap))
            rules_render_lax(rs, n, in->text, buf, cap); /* a verdict is never skipped */
        return 1;
    }
    return 0;
}
