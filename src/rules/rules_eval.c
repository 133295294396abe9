/* SPDX-License-Identifier: Apache-2.0 */
/* rules_eval.c: the rules language's evaluator and binding (rules layer), prefix rules_.
 * Expressions never allocate: field chains are walked with graph_field_find and strings
 * decoded into fixed buffers, so a hostile dump can only make a condition false. The one
 * exception is bound state: rules_bind reads android.os.Build facts from the dump, gathers
 * the members of each `in static` collection once (a bounded walk) into a sorted array, and
 * indexes instance-field rules and inspectors per class (closest class first, as Shark's
 * InstanceFieldPattern wants), so the queries of rules.c cost a few string compares per
 * edge. */
#include "rules/rules_internal.h"
#include "graph/classname.h"
#include "rules/lex.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { V_MISSING, V_NULL, V_BOOL, V_INT, V_FLOAT, V_OBJ, V_STR };
/* How a V_INT prints in a template; compared, it is a number all the same */
enum { VF_NUM, VF_CHAR, VF_ID };
typedef struct val {
    uint8_t k;
    uint8_t fmt; /* VF_*: a char field prints as its character, an id as the dump's ids do */
    int64_t i;
    double d;
    node_ix n;
    char s[256];
    /* V_STR: where the whole text is when s holds only its first bytes (len >= sizeof s): a
     * literal's (full) or a string object's (text_of); compare() reads it then */
    long len;
    const char *full;
    node_ix text_of;
} val;

/* ---------------------------------------------------------------- values */

const char *rules_simple_name(const char *cls)
{
    /* a JVM name loses its package; a name no JVM writes (V8's "Window / https://app.example
     * .com:8080", "{email, profile}") is kept whole: cut at its last dot it read
     * "com:8080". A JVM name never holds ':', '/', '<' or '>' but may hold a space or a comma
     * (Kotlin's `activity should not leak` test classes), and loses its package too */
    if (strpbrk(cls, ":/<>{}"))
        return cls;
    const char *d = strrchr(cls, '.');
    return d ? d + 1 : cls;
}

int rules_array_length(const graph *g, node_ix n, const char *name, int64_t *out)
{
    if (!g->id_size || n >= g->n_nodes || strcmp(name, "length") ||
        (g->node_kind[n] != GRAPH_KIND_OBJ_ARRAY && g->node_kind[n] != GRAPH_KIND_PRIM_ARRAY))
        return 0;
    *out = graph_node_len(g, n);
    return 1;
}

/* Decodes a String (or a char[] / byte[] of old JDKs' Thread.name) into buf. */
static long obj_string(const graph *g, node_ix n, char *buf, size_t cap)
{
    if (n == GRAPH_NONE || n >= g->n_nodes || cap == 0)
        return -1;
    long r = graph_string_value(g, n, buf, cap);
    if (r >= 0)
        return r;
    r = graph_chars_text(g, n, buf, cap);
    /* a label is one line, and a C string: a control character or a NUL (which cut the text
     * there, and made `chars == "nul"` match "nul\0after") reads '?' */
    for (long k = 0; k < r && (size_t)k + 1 < cap; k++)
        if ((unsigned char)buf[k] < 0x20 || buf[k] == 0x7f)
            buf[k] = '?';
    return r;
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

/* A JavaScript primitive a heap snapshot keeps as a node: the oddballs true, false, null
 * and undefined, and a number whose value the snapshot records
 * ("smi number", "heap number": an internal `value` string). Sets out and returns 1 when n
 * is one: `destroyed` is a boolean and `count > 5` a number comparison there, not "a
 * non-null object" true for every Widget. */
static int js_primitive(const graph *g, node_ix n, val *out)
{
    if (!g->node_name || n >= g->n_nodes || g->node_kind[n] == GRAPH_KIND_STRING)
        return 0;
    const char *nm = graph_str(g, g->node_name[n]);
    char text[64];
    /* Node's snapshots name every oddball "system / Oddball"; its first hidden reference is
     * its to_string, "true" or "null" (Chromium's name it so, and class it so, outright) */
    if (!strcmp(nm, "system / Oddball")) {
        edge_ix e = g->first_edge[n];
        while (e < g->first_edge[n + 1] && GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_HIDDEN)
            e++;
        nm = e < g->first_edge[n + 1] && obj_string(g, g->edge_to[e], text, sizeof text) > 0
                 ? text : "";
    } else if (strcmp(graph_class_name(g, n), nm) != 0) {
        nm = "";
    }
    int is_bool = !strcmp(nm, "true") || !strcmp(nm, "false");
    if (is_bool || !strcmp(nm, "null") || !strcmp(nm, "undefined")) {
        out->k = is_bool ? V_BOOL : V_NULL;
        out->i = nm[0] == 't';
        return 1;
    }
    if (g->node_type[n] >= g->n_types || !g->type_names[g->node_type[n]] ||
        strcmp(g->type_names[g->node_type[n]], "number") != 0)
        return 0;
    for (edge_ix e = g->first_edge[n]; e < g->first_edge[n + 1]; e++) {
        char en[16];
        if (strcmp(graph_edge_name_text(g, e, en, sizeof en), "value") != 0 ||
            obj_string(g, g->edge_to[e], text, sizeof text) <= 0)
            continue;
        char *end;
        errno = 0;
        long long i = strtoll(text, &end, 10);
        if (!*end && !errno) {
            out->k = V_INT;
            out->i = i;
            return 1;
        }
        double d = strtod(text, &end);
        if (*end)
            return 0;
        out->k = V_FLOAT;
        out->d = d;
        return 1;
    }
    return 0;
}

int rules_js_primitive(const graph *g, node_ix n, rules_js *out)
{
    val v = {0};
    if (!js_primitive(g, n, &v))
        return 0;
    out->kind = v.k == V_BOOL ? RULES_JS_BOOL : v.k == V_NULL ? RULES_JS_NULL
              : v.k == V_INT ? RULES_JS_INT : RULES_JS_FLOAT;
    out->i = v.i;
    out->d = v.d;
    return 1;
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
        else if (!js_primitive(g, gv->ref, out)) {
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
        out->fmt = VF_CHAR;
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
    class_ix c = graph_node_class(g, n);
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
        if (graph_node_class(g, cur) != GRAPH_NONE &&
            graph_class_is_named(g, graph_node_class(g, cur),
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

/* The DOM state of n for @dom: DevTools' detachedness where the snapshot gives n one, else
 * the state of the object n is the global object of (rules.dom_of). */
static unsigned dom_state(const rules_set *rs, node_ix n)
{
    unsigned d = graph_node_dom(rs->g, n);
    if (d != GRAPH_DOM_UNKNOWN || !rs->n_dom_of)
        return d;
    uint32_t lo = 0, hi = rs->n_dom_of;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((rs->dom_of[mid] >> 8) < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rs->n_dom_of && (rs->dom_of[lo] >> 8) == n ? (unsigned)(rs->dom_of[lo] & 3)
                                                            : GRAPH_DOM_UNKNOWN;
}

/* One '@' name applied to object n (fld: the field a `fields` inspector is looking at). */
static void special(const rules_set *rs, node_ix n, const char *fld, const char *name, val *out)
{
    const graph *g = rs->g;
    class_ix c = graph_node_class(g, n);
    const char *cn = graph_class_name(g, n);
    /* a class object's names are the class it stands for, as its trace line shows it
     * ("com.acme.Holder class"), as Shark's HeapClass.name: its own read "" */
    if (g->node_kind[n] == GRAPH_KIND_CLASS) {
        class_ix k = graph_class_of_node(g, n);
        if (k != GRAPH_NONE && k < g->n_classes) {
            c = k;
            cn = graph_str(g, g->classes[k].name);
        }
    }
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
        /* an anonymous class's instances; its class object is none (as in Shark) */
        out->k = V_BOOL;
        out->i = g->node_kind[n] != GRAPH_KIND_CLASS && is_anonymous(cn);
    } else if (!strcmp(name, "@id")) {
        out->k = V_INT;
        out->fmt = VF_ID;
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
    } else if (!strcmp(name, "@name")) {
        /* the object's own name where the snapshot gives one apart from its class (a V8
         * closure's function name); null when it has none */
        const char *nm = g->node_name && n < g->n_nodes ? graph_str(g, g->node_name[n]) : "";
        out->k = *nm && strcmp(nm, cn) ? V_STR : V_NULL;
        snprintf(out->s, sizeof out->s, "%s", nm);
    } else if (!strcmp(name, "@location")) {
        /* where the object's code is written (a V8 closure's function), as an editor takes
         * it; null when the dump records none */
        const graph_loc *l = graph_node_loc(g, n);
        if (l) {
            char b[GRAPH_LOC_MAX];
            out->k = V_STR;
            snprintf(out->s, sizeof out->s, "%s", graph_loc_text(g, l, b));
        }
    } else if (!strcmp(name, "@dom")) {
        if (!g->node_dom)
            return; /* no DOM states in this dump: missing, never true */
        unsigned d = dom_state(rs, n);
        out->k = d == GRAPH_DOM_UNKNOWN ? V_NULL : V_STR;
        snprintf(out->s, sizeof out->s, "%s", d == GRAPH_DOM_ATTACHED ? "attached" : "detached");
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether x's edge e hands x's DOM state on to its target: a V8 context or window proxy
 * DevTools marks attached or detached reaches its page's global object (the `window` scripts
 * see) through an edge named global_object, and its script context table lists the contexts
 * of the page's top-level `let`, `const` and `class` bindings. Those have no state of their
 * own in the snapshot and take the state of what reaches them so. */
static int dom_passes(const graph *g, node_ix x, edge_ix e)
{
    unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
    node_ix y = g->edge_to[e];
    if (y >= g->n_nodes || graph_node_dom(g, y) != GRAPH_DOM_UNKNOWN)
        return 0;
    if (k == GRAPH_EDGE_INTERNAL || k == GRAPH_EDGE_SHORTCUT)
        if (!strcmp(graph_str(g, graph_edge_name_from(g, x, e)), "global_object"))
            return 1;
    return (k == GRAPH_EDGE_ELEMENT || k == GRAPH_EDGE_HIDDEN || k == GRAPH_EDGE_INTERNAL) &&
           !strcmp(graph_class_name(g, x), "system / ScriptContextTable") &&
           !strncmp(graph_class_name(g, y), "system / Context", 16);
}

/* The objects that take their DOM state from another (dom_passes): pairs (node << 8 |
 * state), sorted; a conflict (one attached, one detached) keeps attached. */
static lr_status bind_dom_of(rules_set *rs, const graph *g, lr_error *err)
{
    free(rs->dom_of);
    rs->dom_of = NULL;
    rs->n_dom_of = 0;
    if (!g->node_dom || !g->first_edge || !g->edge_to)
        return LR_OK;
    uint32_t n = 0, cap = 0;
    uint64_t *v = NULL;
    for (node_ix x = 0; x < g->n_nodes; x++) {
        unsigned d = graph_node_dom(g, x);
        if (d == GRAPH_DOM_UNKNOWN)
            continue;
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (!dom_passes(g, x, e))
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                uint64_t *w = realloc(v, cap * sizeof *v);
                if (!w) {
                    free(v);
                    return LR_FAIL(err, LR_ERR_NOMEM, "out of memory binding rules");
                }
                v = w;
            }
            v[n++] = (uint64_t)y << 8 | d;
        }
    }
    if (n) /* v is NULL when nothing passes: qsort takes no null pointer, even for 0 */
        qsort(v, n, sizeof *v, cmp_u64);
    uint32_t u = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (u && v[u - 1] >> 8 == v[i] >> 8) {
            if ((v[i] & 3) == GRAPH_DOM_ATTACHED)
                v[u - 1] = v[i];
            continue;
        }
        v[u++] = v[i];
    }
    rs->dom_of = v;
    rs->n_dom_of = u;
    return LR_OK;
}

/* A path that ends on a java.lang.Boolean, Integer, Long, Short, Byte, Character, Float or
 * Double compares, tests and prints as its value, as Java's unboxing does: a Boolean.FALSE
 * is no "true", and `count > 5` compares the number (`is null`, `instanceof` and `box.value`
 * still see the object). So does an AtomicBoolean, AtomicInteger or AtomicLong, as its
 * get() would: lifecycle flags are often atomics (a Spring context's `closed`), and a bare
 * object is true whenever it is there, so `--leaking-if closed` named every live context. */
static void unbox(const graph *g, val *v)
{
    static const char *const boxes[] = {"java.lang.Boolean", "java.lang.Integer",
                                        "java.lang.Long", "java.lang.Short", "java.lang.Byte",
                                        "java.lang.Character", "java.lang.Float",
                                        "java.lang.Double",
                                        "java.util.concurrent.atomic.AtomicBoolean",
                                        "java.util.concurrent.atomic.AtomicInteger",
                                        "java.util.concurrent.atomic.AtomicLong"};
    if (v->k != V_OBJ || v->n >= g->n_nodes || g->node_kind[v->n] != GRAPH_KIND_INSTANCE)
        return;
    class_ix c = graph_node_class(g, v->n);
    if (c >= g->n_classes)
        return;
    const char *cn = graph_str(g, g->classes[c].name);
    for (size_t i = 0; i < sizeof boxes / sizeof *boxes; i++) {
        graph_value gv;
        if (!strcmp(cn, boxes[i]) && graph_field_find(g, v->n, "value", &gv) &&
            gv.type != GRAPH_FT_OBJECT) {
            from_field(g, &gv, v);
            if (i == 8 && v->k == V_INT) { /* AtomicBoolean holds an int, 0 or 1 */
                v->k = V_BOOL;
                v->i = v->i != 0;
            }
            return;
        }
    }
}

/* The class of n's hierarchy named q (its full name; also, when simple_ok, its name without
 * the package, or its simple name, the part after the last '$'), or GRAPH_NONE. */
static class_ix chain_class(const graph *g, node_ix n, const char *q, int simple_ok)
{
    class_ix c = graph_node_class(g, n);
    for (uint32_t d = 0; c < g->n_classes && d <= g->n_classes; d++) {
        const char *cn = graph_str(g, g->classes[c].name);
        const char *dot = strrchr(cn, '.'), *dollar = strrchr(cn, '$');
        if (!strcmp(cn, q) || (simple_ok && ((dot && !strcmp(dot + 1, q)) ||
                                             (dollar && !strcmp(dollar + 1, q)))))
            return c;
        c = g->classes[c].super;
    }
    return GRAPH_NONE;
}

/* Instance field `comp` of cur, a step of a path: `Class#field` reads the field that class
 * (or its nearest superclass) declares, as Java code of that class would, and nothing else;
 * a plain name on the path's first step reads the rule class ctx's field first, then the
 * most-derived one (a subclass may declare a field of the same name again). */
static int step_field(const graph *g, node_ix cur, const char *comp, const char *ctx,
                      graph_value *gv)
{
    const char *h = strchr(comp, '#');
    if (h) {
        char q[256];
        size_t len = (size_t)(h - comp);
        if (len >= sizeof q)
            return 0;
        memcpy(q, comp, len);
        q[len] = 0;
        class_ix c = chain_class(g, cur, q, 1);
        return c != GRAPH_NONE && graph_field_find_from(g, cur, c, h + 1, gv);
    }
    if (ctx) {
        class_ix c = chain_class(g, cur, ctx, 0);
        if (c != GRAPH_NONE && graph_field_find_from(g, cur, c, comp, gv))
            return 1;
    }
    return graph_field_find(g, cur, comp, gv);
}

static void resolve(const rules_set *rs, node_ix n, const char *fld, const char *path,
                    const char *ctx, val *out)
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
        /* a fact the dump lacks (no android.os.Build, a null MANUFACTURER) makes every
         * comparison false: read as "", `when manufacturer != "samsung"` filed a JVM
         * server's application leak as a library leak */
        int m = path[0] == 'm';
        if (m ? rs->build.has_manufacturer : rs->build.has_build_id) {
            out->k = V_STR;
            snprintf(out->s, sizeof out->s, "%s",
                     m ? rs->build.manufacturer : rs->build.build_id);
        }
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
        /* Every step starts from "missing": a step that finds nothing must not leave the
         * previous step's object standing for the whole path (a misspelt last field read as
         * "the object before it", so "is not null" held). */
        memset(out, 0, sizeof *out);
        out->k = V_MISSING;
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
                found = step_field(g, cur, comp, depth == 0 ? ctx : NULL, &gv);
            if (!found && rules_array_length(g, cur, comp, &out->i)) {
                out->k = V_INT;
            } else {
                if (!found)
                    return;
                from_field(g, &gv, out);
            }
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

/* Object v as its String / enum name (obj_text) into a V_STR value, noting where the whole
 * text is. 0 when it has none. */
static int obj_to_str(const graph *g, val *v)
{
    node_ix n = v->n;
    long len = obj_string(g, n, v->s, sizeof v->s);
    graph_value f;
    if (len < 0 && graph_field_find(g, n, "name", &f) && f.type == GRAPH_FT_OBJECT &&
        f.ref != GRAPH_NONE) {
        n = f.ref;
        len = obj_string(g, n, v->s, sizeof v->s);
    }
    if (len < 0)
        return 0;
    v->k = V_STR;
    v->len = len;
    v->text_of = n;
    return 1;
}

/* The whole text of V_STR value v: s, the literal, or the string decoded into *heap (free'd
 * by the caller), NULL when out of memory. */
static const char *whole_text(const graph *g, const val *v, char **heap)
{
    *heap = NULL;
    if (v->len < (long)sizeof v->s)
        return v->s;
    if (v->full)
        return v->full;
    if (v->text_of == GRAPH_NONE)
        return v->s;
    /* the length came from the dump's own record, bounded by its bytes */
    *heap = malloc((size_t)v->len + 1);
    if (*heap)
        obj_string(g, v->text_of, *heap, (size_t)v->len + 1);
    return *heap;
}

/* strcmp of two V_STR values over their whole texts: the first 255 bytes made every two
 * routes or URLs with one long prefix equal. */
static int str_cmp(const graph *g, const val *a, const val *b)
{
    if (a->len < (long)sizeof a->s && b->len < (long)sizeof b->s)
        return strcmp(a->s, b->s);
    char *ha, *hb;
    const char *x = whole_text(g, a, &ha), *y = whole_text(g, b, &hb);
    int c = x && y ? strcmp(x, y) : strcmp(a->s, b->s);
    free(ha);
    free(hb);
    return c;
}

static void opnd_val(const rules_set *rs, node_ix n, const char *fld, const operand *o, val *v)
{
    memset(v, 0, sizeof *v);
    switch (o->kind) {
    case OPD_PATH: resolve(rs, n, fld, o->s, o->ctx, v); break;
    case OPD_INT: v->k = V_INT; v->i = o->i; break;
    case OPD_FLOAT: v->k = V_FLOAT; v->d = o->d; break;
    case OPD_BOOL: v->k = V_BOOL; v->i = o->i; break;
    case OPD_NULL: v->k = V_NULL; break;
    case OPD_STR:
        v->k = V_STR;
        snprintf(v->s, sizeof v->s, "%s", o->s);
        v->len = (long)strlen(o->s);
        v->full = o->s;
        break;
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

/* Whether string value v is one character (UTF-8); if so it becomes its code point. */
static int one_char(val *v)
{
    const unsigned char *p = (const unsigned char *)v->s;
    unsigned n = p[0] < 0x80 ? 1 : (p[0] >> 5) == 6 ? 2 : (p[0] >> 4) == 14 ? 3
                                 : (p[0] >> 3) == 30 ? 4 : 0;
    if (!p[0] || !n || strlen(v->s) != n)
        return 0;
    int64_t cp = n == 1 ? p[0] : p[0] & (0x7f >> n);
    for (unsigned i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    v->k = V_INT;
    v->i = cp;
    return 1;
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
    if (a->k == V_OBJ && b->k == V_STR && !obj_to_str(rs->g, a))
        return 0;
    if (b->k == V_OBJ && a->k == V_STR && !obj_to_str(rs->g, b))
        return 0;
    if (a->k == V_STR && b->k == V_STR)
        return cmp_result(str_cmp(rs->g, a, b), op);
    /* a char field (a number) against a one-character string: their code points */
    if (a->k == V_INT && b->k == V_STR)
        return one_char(b) && cmp_result(a->i < b->i ? -1 : a->i > b->i, op);
    if (b->k == V_INT && a->k == V_STR)
        return one_char(a) && cmp_result(a->i < b->i ? -1 : a->i > b->i, op);
    if (a->k == V_OBJ && b->k == V_OBJ)
        return (op == CMP_EQ || op == CMP_NE) ? cmp_result(a->n != b->n, op) : 0;
    int an = a->k == V_INT || a->k == V_BOOL, bn = b->k == V_INT || b->k == V_BOOL;
    if (an && bn)
        return cmp_result(a->i < b->i ? -1 : a->i > b->i, op);
    if ((an || a->k == V_FLOAT) && (bn || b->k == V_FLOAT)) {
        double x = a->k == V_FLOAT ? a->d : (double)a->i, y = b->k == V_FLOAT ? b->d : (double)b->i;
        /* NaN is unordered, as in Java: only != holds (it read as equal to every number) */
        if (x != x || y != y)
            return op == CMP_NE;
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
    for (class_ix k = graph_node_class(g, c); k != GRAPH_NONE && k < g->n_classes && nh < 64;
         k = g->classes[k].super)
        if (strcmp(graph_str(g, g->classes[k].name), "java.lang.Object"))
            hier[nh++] = graph_str(g, g->classes[k].name);
    class_ix cc = graph_node_class(g, c);
    int c_array = cc < g->n_classes && (g->classes[cc].flags & GRAPH_CLASS_ARRAY);
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
    if (!seen || rules_grow((void **)&stack, &cap_stack, 1, sizeof *stack))
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
                if (rules_grow((void **)&stack, &cap_stack, n_stack + 1, sizeof *stack))
                    st = LR_ERR_NOMEM;
                else
                    stack[n_stack++] = y;
            } else if (x != c || (c_array && kind == GRAPH_EDGE_ELEMENT)) {
                /* an array's elements are its members (Listener[] sListeners), where a
                 * collection object's own fields are not */
                if (rules_grow((void **)&mem, &cap_mem, n_mem + 1, sizeof *mem))
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
    /* all unbound first: a set lent on must not outlive its owner */
    for (uint32_t i = from; i < rs->n_exprs; i++) {
        rules_expr *x = &rs->exprs[i];
        if (!x->set_lent)
            free(x->set);
        x->set = NULL;
        x->n_set = 0;
        x->have_set = 0;
        x->set_lent = 0;
    }
    for (uint32_t i = from; i < rs->n_exprs; i++) {
        rules_expr *x = &rs->exprs[i];
        if (x->op != EX_IN && x->op != EX_NOTIN)
            continue;
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
            resolve(rs, coll, NULL, rest + 1, NULL, &r);
            if (r.k != V_OBJ || r.n >= g->n_nodes)
                continue;
            coll = r.n;
        }
        /* rules naming one collection share its members: each walked it anew, and 300
         * rules over a static map of 120,000 sessions took 18 s and 500 MB */
        x->coll = coll;
        for (uint32_t j = 0; j < i && !x->have_set; j++) {
            const rules_expr *y = &rs->exprs[j];
            if ((y->op == EX_IN || y->op == EX_NOTIN) && y->have_set && y->coll == coll) {
                x->set = y->set;
                x->n_set = y->n_set;
                x->set_lent = 1;
                x->have_set = 1;
            }
        }
        if (x->have_set)
            continue;
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

int rules_eval_expr(const rules_set *rs, int32_t e, node_ix n, const char *fld, int depth)
{
    /* "||" and "&&" chains lean right (parse_binary): their b side is a loop, not a call */
    for (;;) {
        if (e < 0)
            return 1;
        if ((uint32_t)e >= rs->n_exprs || depth > 4 * RULES_MAX_NEST)
            return 0;
        const rules_expr *x = &rs->exprs[e];
        if (x->op == EX_OR) {
            if (rules_eval_expr(rs, x->a, n, fld, depth + 1))
                return 1;
        } else if (x->op == EX_AND) {
            if (!rules_eval_expr(rs, x->a, n, fld, depth + 1))
                return 0;
        } else {
            break;
        }
        e = x->b;
    }
    const rules_expr *x = &rs->exprs[e];
    val a, b;
    switch (x->op) {
    case EX_NOT: return !rules_eval_expr(rs, x->a, n, fld, depth + 1);
    case EX_CMP:
        opnd_val(rs, n, fld, &x->l, &a);
        opnd_val(rs, n, fld, &x->r, &b);
        if (rs->g) {
            unbox(rs->g, &a);
            unbox(rs->g, &b);
        }
        return compare(rs, &a, &b, x->cmp);
    case EX_ISNULL:
        opnd_val(rs, n, fld, &x->l, &a);
        return a.k == V_NULL;
    case EX_NOTNULL:
        opnd_val(rs, n, fld, &x->l, &a);
        return a.k == V_OBJ || a.k == V_STR;
    case EX_INSTANCEOF:
        opnd_val(rs, n, fld, &x->l, &a);
        return a.k == V_OBJ && rs->g && graph_node_class(rs->g, a.n) != GRAPH_NONE &&
               graph_class_is_named(rs->g, graph_node_class(rs->g, a.n), x->r.s);
    case EX_TRUTHY:
        opnd_val(rs, n, fld, &x->l, &a);
        if (rs->g)
            unbox(rs->g, &a);
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
    uint32_t first = rs->n_exprs;
    int32_t e;
    lr_status st = rules_parse_expr(rs, expr, &e, err);
    if (st == LR_OK)
        st = bind_sets(rs, first, err);
    if (st != LR_OK)
        return -(int)st;
    return rules_eval_expr(rs, e, n, NULL, 0);
}

static int render(const rules_set *rs, node_ix n, const char *fld, const char *tpl, char *out,
                  size_t cap, int lax);

/* An object id as the dump's own listings give it: HPROF addresses in hex, V8 and Dart
 * snapshot ids in decimal */
static const char *id_text(const graph *g, uint64_t id, char *buf, size_t cap)
{
    if (g && g->id_size == 0 && !g->hex_ids)
        snprintf(buf, cap, "%" PRIu64, id);
    else
        snprintf(buf, cap, "0x%" PRIx64, id);
    return buf;
}

/* A whole number as a template prints it: a char field as its character (its code where it
 * is a control character or half of a surrogate pair), an @id as the dump's ids print */
static void int_text(const graph *g, const val *v, char *buf, size_t cap)
{
    uint64_t c = (uint64_t)v->i;
    if (v->fmt == VF_ID) {
        id_text(g, c, buf, cap);
    } else if (v->fmt == VF_CHAR && c >= 0x20 && c != 0x7f && (c < 0xd800 || c > 0xdfff)) {
        if (c < 0x80)
            snprintf(buf, cap, "%c", (char)c);
        else if (c < 0x800)
            snprintf(buf, cap, "%c%c", (char)(0xc0 | c >> 6), (char)(0x80 | (c & 0x3f)));
        else
            snprintf(buf, cap, "%c%c%c", (char)(0xe0 | c >> 12),
                     (char)(0x80 | ((c >> 6) & 0x3f)), (char)(0x80 | (c & 0x3f)));
    } else {
        snprintf(buf, cap, "%lld", (long long)v->i);
    }
}

/* Renders a label template: {path} becomes the value. Returns 0 when a value is missing. */
int rules_render(const rules_set *rs, node_ix n, const char *fld, const char *tpl, char *out,
                 size_t cap)
{
    return render(rs, n, fld, tpl, out, cap, 0);
}

void rules_render_lax(const rules_set *rs, node_ix n, const char *tpl, char *out, size_t cap)
{
    render(rs, n, NULL, tpl, out, cap, 1);
}

static int render(const rules_set *rs, node_ix n, const char *fld, const char *tpl, char *out,
                  size_t cap, int lax)
{
    size_t k = 0;
    out[0] = 0;
    for (const char *p = tpl; *p;) {
        /* "{{" and "}}" are a brace; "{}" is text as written */
        if ((*p == '{' || *p == '}') && p[1] == *p) {
            if (k + 1 < cap)
                out[k++] = *p;
            p += 2;
            continue;
        }
        if (*p == '{' && !rules_template_path(p)) {
            if (k + 1 < cap)
                out[k++] = *p;
            p++;
            continue;
        }
        if (*p == '{') {
            const char *q = strchr(p, '}');
            if (q && q - p - 1 < 255) {
                char path[256];
                memcpy(path, p + 1, (size_t)(q - p - 1));
                path[q - p - 1] = 0;
                val v;
                resolve(rs, n, fld, path, NULL, &v);
                if (rs->g)
                    unbox(rs->g, &v);
                char tmp[300], idb[32];
                switch (v.k) {
                case V_MISSING:
                    if (!lax)
                        return 0;
                    snprintf(tmp, sizeof tmp, "?");
                    break;
                case V_NULL: snprintf(tmp, sizeof tmp, "null"); break;
                case V_BOOL: snprintf(tmp, sizeof tmp, "%s", v.i ? "true" : "false"); break;
                case V_INT: int_text(rs->g, &v, tmp, sizeof tmp); break;
                case V_FLOAT: snprintf(tmp, sizeof tmp, "%g", v.d); break;
                case V_STR: snprintf(tmp, sizeof tmp, "%s", v.s); break;
                case V_OBJ:
                    if (!obj_text(rs->g, v.n, tmp, sizeof tmp))
                        snprintf(tmp, sizeof tmp, "%s@%s", graph_class_name(rs->g, v.n),
                                 id_text(rs->g, graph_node_id(rs->g, v.n), idb, sizeof idb));
                    break;
                }
                /* a label is one line: a String's newline (a thread's name) would split it */
                for (const char *t = tmp; *t && k + 1 < cap; t++)
                    out[k++] = (unsigned char)*t < 0x20 || *t == 0x7f ? '?' : *t;
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
    char stable[512];
    for (int depth = 0; depth < 64 && cur != GRAPH_NONE && cur < g->n_classes; depth++) {
        /* its name, and a hidden class's without the address the JVM gives it in each run
         * (`Hid+0x0000000036047c00` is watched as Hid, a lambda's as Foo$$Lambda) */
        const char *nm = graph_str(g, g->classes[cur].name);
        classname_stable(nm, stable, sizeof stable);
        for (int pass = 0; pass < 1 + (strcmp(stable, nm) != 0); pass++) {
            name_item key = {pass ? stable : nm, 0};
            uint32_t lo = 0, hi = n_ni; /* lower bound */
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (cmp_name_item(&ni[mid], &key) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < n_ni && !strcmp(ni[lo].name, key.name) && k < cap; lo++)
                out[k++] = ni[lo].item;
        }
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
            b->has_manufacturer =
                obj_string(g, v.ref, b->manufacturer, sizeof b->manufacturer) >= 0;
        if (graph_static_find(g, bc, "ID", &v) && v.type == GRAPH_FT_OBJECT)
            b->has_build_id = obj_string(g, v.ref, b->build_id, sizeof b->build_id) >= 0;
        if (!b->has_manufacturer)
            b->manufacturer[0] = 0;
        if (!b->has_build_id)
            b->build_id[0] = 0;
    }
    if (vc != GRAPH_NONE && graph_static_find(g, vc, "SDK_INT", &v) && v.type == GRAPH_FT_INT) {
        b->has_sdk = 1;
        b->sdk = (int32_t)(uint32_t)v.raw;
    }
}

/* Whether the graph has GRAPH_EDGE_LOCAL edges. The HPROF reader never makes one (a Java
 * local is a JAVA_FRAME root there, attributed to its thread through the frame's serial), so
 * an HPROF graph skips the scan of every edge's kind: ~20 ms of one core on 22 M objects,
 * for an answer known from the format. Other readers (the JSON-lines graph names the kind
 * "local") are scanned. */
static int has_local_edges(const graph *g)
{
    if (g->format && !strcmp(g->format, "hprof"))
        return 0;
    for (uint32_t e = 0; e < g->n_edges; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_LOCAL)
            return 1;
    return 0;
}

/* Whether two reference rules name the same reference (kind, class, field). */
static int same_ref_target(const rules_ref *a, const rules_ref *b)
{
    return a->kind == b->kind && !strcmp(a->cls, b->cls) &&
           (a->field == b->field || (a->field && b->field && !strcmp(a->field, b->field)));
}

static _Thread_local const rules_set *ref_sort_set; /* qsort has no context in C11 */

/* Rule indices by what they name, then by their order in the files. */
static int cmp_ref_target(const void *pa, const void *pb)
{
    uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
    const rules_ref *a = &ref_sort_set->refs[i], *b = &ref_sort_set->refs[j];
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int c = strcmp(a->cls, b->cls);
    if (c)
        return c;
    if (a->field != b->field && (!a->field || !b->field))
        return a->field ? 1 : -1;
    if (a->field && (c = strcmp(a->field, b->field)) != 0)
        return c;
    return (i > j) - (i < j);
}

/* Whether `when` expression e names a build fact the dump lacks. Such a `when` is false as
 * a whole, under `!` too: `when !(API >= 29)` is about Android versions, and a JVM or V8
 * dump, which has none, filed an application's own leak as that rule's library leak. */
static int names_missing_fact(const rules_set *rs, int32_t e, int depth)
{
    if (e < 0 || (uint32_t)e >= rs->n_exprs || depth > 4 * RULES_MAX_NEST)
        return 0;
    const rules_expr *x = &rs->exprs[e];
    if (x->op == EX_OR || x->op == EX_AND || x->op == EX_NOT)
        return names_missing_fact(rs, x->a, depth + 1) || names_missing_fact(rs, x->b, depth + 1);
    const operand *ops[2] = {&x->l, x->op == EX_CMP ? &x->r : NULL};
    for (int i = 0; i < 2; i++) {
        const char *p = ops[i] && ops[i]->kind == OPD_PATH ? ops[i]->s : NULL;
        if (!p)
            continue;
        if (((!strcmp(p, "API") || !strcmp(p, "sdk")) && !rs->build.has_sdk) ||
            (!strcmp(p, "manufacturer") && !rs->build.has_manufacturer) ||
            (!strcmp(p, "build_id") && !rs->build.has_build_id))
            return 1;
    }
    return 0;
}

static int when_holds(const rules_set *rs, int32_t when)
{
    return !names_missing_fact(rs, when, 0) && rules_eval_expr(rs, when, GRAPH_NONE, NULL, 0);
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
        rs->refs[i].active = (uint8_t)when_holds(rs, rs->refs[i].when);
    /* Two rules on one reference: the later one decides, as the last of Shark's matchers
     * for a field does. The user's files are read after the shipped ones, so their rule
     * overrides a shipped `ignore` or library leak (the shipped one won, and the user's
     * could not be told from one that matched nothing). */
    /* (one sort of the active rules by what they name, not each rule against every earlier
     * one: 100,000 generated library leaks took 83 s) */
    uint32_t *ord = err_mallocarray(rs->n_refs ? rs->n_refs : 1, sizeof *ord), n_ord = 0;
    if (!ord)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory binding rules");
    for (uint32_t i = 0; i < rs->n_refs; i++)
        if (rs->refs[i].active)
            ord[n_ord++] = i;
    ref_sort_set = rs;
    qsort(ord, n_ord, sizeof *ord, cmp_ref_target);
    for (uint32_t k = 0; k + 1 < n_ord; k++)
        if (same_ref_target(&rs->refs[ord[k]], &rs->refs[ord[k + 1]]))
            rs->refs[ord[k]].active = 0; /* a later rule names the same reference */
    free(ord);
    for (uint32_t i = 0; i < rs->n_insp; i++)
        rs->insp[i].active = (uint8_t)when_holds(rs, rs->insp[i].when);

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
    rs->has_local_edges = has_local_edges(g);
    LR_TRY(bind_dom_of(rs, g, err));

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
            if (rules_grow((void **)&rs->cls_items, &cap, total + k, sizeof *rs->cls_items)) {
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
