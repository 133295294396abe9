/* SPDX-License-Identifier: Apache-2.0 */
/* rules.h: leak rules as data (rules layer), prefix rules_. Parses the line-oriented rules
 * language of docs/rules.md (inspectors, library-leak and ignored references, watch rules)
 * into a rules_set, binds it to one graph (reads android.os.Build statics, indexes rule
 * classes over the class hierarchy) and answers the questions the leak analysis asks: how to
 * treat an edge or a root (follow / visit last / ignore, and which library-leak pattern it
 * matched), what inspectors say about an object (reasons and labels), and whether an object
 * is a leaking object. Every parse error is LR_ERR_RULES "file:line: message". Expressions
 * read field chains lazily through graph_field_find; nothing here allocates per object.
 * Semantics follow Shark (docs/research/hprof-leakcanary-shark.md sections 6.2, 8.2, 13). */
#ifndef LR_RULES_RULES_H
#define LR_RULES_RULES_H

#include "graph/graph.h"

#include <stddef.h>
#include <stdint.h>

/* Reference patterns (Shark's ReferencePattern). */
enum rules_ref_kind {
    RULES_REF_INSTANCE = 0,      /* instance field C#f of C or a subclass (closest class wins) */
    RULES_REF_STATIC = 1,        /* static field C#f */
    RULES_REF_NATIVE_GLOBAL = 2, /* JNI global root whose object's class is C */
    RULES_REF_JAVA_LOCAL = 3,    /* Java locals of the thread named N */
};

enum rules_ref_action { RULES_IGNORE = 0, RULES_LIBRARY_LEAK = 1 };

/* One ignored / library-leak reference rule. */
typedef struct rules_ref {
    uint8_t kind;       /* enum rules_ref_kind */
    uint8_t action;     /* enum rules_ref_action */
    char *cls;          /* class name, or the thread name for RULES_REF_JAVA_LOCAL */
    char *field;        /* field name (instance/static), NULL otherwise */
    char *description;  /* library leaks: text for the report ("" if none) */
    char *pattern;      /* Shark's pattern text, e.g. "instance field C#f" */
    int32_t when;       /* condition over the build (expression index), -1 = always */
    uint32_t line;      /* line in its file, for messages */
    uint8_t active;     /* set by rules_bind: the `when` condition holds for this dump */
} rules_ref;

enum rules_verdict { RULES_LABEL = 0, RULES_LEAKING = 1, RULES_NOT_LEAKING = 2 };
enum rules_subject {
    RULES_SUBJ_CLASS = 0,        /* instances (and arrays) of a class or its subclasses */
    RULES_SUBJ_ANY = 1,          /* every object ("*") */
    RULES_SUBJ_CLASS_OBJECT = 2, /* class objects ("class-object") */
};

/* One inspector (or watch) rule: subject [if cond] [when build-cond] -> verdict "text". */
typedef struct rules_inspect {
    uint8_t subject; /* enum rules_subject */
    uint8_t verdict; /* enum rules_verdict */
    uint8_t watch;   /* nonzero: a `watch` rule (only finds leaking objects, reason = text) */
    uint8_t active;  /* set by rules_bind */
    char *cls;       /* class name for RULES_SUBJ_CLASS */
    int32_t cond;    /* expression over the object, -1 = always */
    int32_t when;    /* expression over the build, -1 = always */
    int32_t find_if; /* a `leaking` inspector's `find-if EXPR`: it finds only the objects for
                      * which EXPR holds too (Shark's root views), -1 = every one it matches */
    char *text;      /* reason or label template ({field.path}, {@class}, ...) */
    char *fields_of; /* `fields CLASS` form: runs once per instance field whose value is a
                      * CLASS (or subclass) instance, on that value; NULL otherwise */
    uint32_t line;
} rules_inspect;

typedef struct rules_expr rules_expr; /* private AST node */

/* Build facts read from the dump by rules_bind. */
typedef struct rules_build {
    int has_sdk;           /* android.os.Build$VERSION.SDK_INT was found */
    int64_t sdk;           /* SDK_INT */
    char manufacturer[64]; /* Build.MANUFACTURER ("" if absent) */
    char build_id[64];     /* Build.ID ("" if absent) */
    int has_manufacturer, has_build_id; /* ... those were strings in the dump */
    int is_android;        /* android.os.Build class present */
} rules_build;

typedef struct rules_set {
    rules_ref *refs;
    uint32_t n_refs, cap_refs;
    rules_inspect *insp;
    uint32_t n_insp, cap_insp;
    rules_expr *exprs;       /* expression node pool */
    uint32_t n_exprs, cap_exprs;
    char **files;            /* file names of loaded sources (for messages) */
    uint32_t n_files;

    /* ---- bound state (rules_bind) ---- */
    const graph *g;
    rules_build build;
    uint32_t *cls_first;     /* per class: start in cls_items, n_classes+1 entries */
    uint32_t *cls_items;     /* instance-ref and inspector indices applying to a class; refs
                              * are stored as idx, inspectors as idx | RULES_ITEM_INSP */
    uint32_t n_cls_items;
    uint32_t *thread_serials; /* sorted serials of threads with a THREAD_OBJECT root */
    uint32_t n_thread_serials;
    int has_local_edges;     /* the graph has GRAPH_EDGE_LOCAL edges */
    uint32_t *generic;       /* active inspectors with subject "*" or class-object */
    uint32_t n_generic;
    /* @dom of the objects that take it from another (a page's global object, from its
     * context): pairs (node, GRAPH_DOM_*) sorted by node; n_dom_of of them */
    uint64_t *dom_of;
    uint32_t n_dom_of;
} rules_set;

#define RULES_ITEM_INSP 0x80000000u

void rules_init(rules_set *rs);
void rules_fini(rules_set *rs);

/* Parses rules text (len bytes, need not be NUL-terminated) named `name` for messages and
 * appends its rules to rs. Returns LR_OK or LR_ERR_RULES ("name:line: message") /
 * LR_ERR_NOMEM. On error rs keeps the rules of earlier lines (callers discard it). */
lr_status rules_parse(rules_set *rs, const char *name, const char *text, size_t len,
                      lr_error *err);
/* Reads and parses a rules file. LR_ERR_IO when it cannot be read. */
lr_status rules_load_file(rules_set *rs, const char *path, lr_error *err);
/* Loads a shipped rules file ("jdk.rules") from LEAKRAY_RULES_DIR (env), the source tree (a
 * binary running from its build tree only), beside the executable, or the install dir,
 * whichever exists first (lex_find_rules). */
lr_status rules_load_shipped(rules_set *rs, const char *file, lr_error *err);
/* The shipped rules `analyze` loads for g: jdk.rules always, android.rules for an Android
 * dump (android.os.Build), browser.rules for a snapshot whose objects DevTools marks attached
 * or detached (a browser page). */
lr_status rules_load_defaults(rules_set *rs, const graph *g, lr_error *err);
/* Adds a watch rule: instances of cls (or subclasses) for which expr holds are leaking
 * objects. expr may be NULL (every instance). Errors name the source "--leaking-if". */
lr_status rules_add_watch(rules_set *rs, const char *cls, const char *expr, lr_error *err);

/* Typos in watch rules, checked against g (rules_bind not needed): for each watch rule from
 * index first_insp on, a class g does not have, and a field path of its condition whose first
 * field neither the class (or a superclass) declares nor any instance has (V8 properties).
 * Calls report(ctx, message) once per problem, message naming the class or field as typed;
 * returns the number of problems. O(classes + instances of the watched classes). */
uint32_t rules_watch_check(const rules_set *rs, uint32_t first_insp, const graph *g,
                           void (*report)(void *ctx, const char *msg), void *ctx);

/* The same check for the other rules of a user's file, from inspector first_insp and
 * reference rule first_ref on: an inspector's condition reading a field its class (present
 * in the dump) lacks, a library-leak or ignore rule naming a field its class (present)
 * lacks. Classes the dump lacks are not reported (a shared file covers many programs).
 * Returns the number of problems. */
uint32_t rules_file_check(const rules_set *rs, uint32_t first_insp, uint32_t first_ref,
                          const graph *g, void (*report)(void *ctx, const char *msg), void *ctx);

/* Binds rs to g: reads the build facts, evaluates `when` conditions, indexes rules per class.
 * Must be called before the queries below; g must outlive the binding. */
lr_status rules_bind(rules_set *rs, const graph *g, lr_error *err);

/* Edge/root classification (values of enum paths_edge_class: 0 follow, 1 visit last,
 * 2 ignore). *lib receives the matched library-leak rule index or -1. */
enum { RULES_FOLLOW = 0, RULES_VISIT_LAST = 1, RULES_DROP = 2 };
int rules_edge_class(const rules_set *rs, node_ix from, edge_ix e, int32_t *lib);
int rules_root_class(const rules_set *rs, uint32_t root, int32_t *lib);
/* Which edges rules_edge_class may drop for a rule (RULES_DROP for a reason beyond the edge's
 * kind and strength and whether its source is a class object): per class c (out[c],
 * c < n_classes), RULES_MAY_DROP_FIELD when an instance field edge out of an object of
 * class c may be (an `ignore instance` rule applies to c), RULES_MAY_DROP_STATIC when a
 * static edge out of c's class object may be (an active `ignore static` rule names c).
 * Returns 1 when a local variable edge may be (an active `ignore java-local` rule), else 0.
 * Every other strong field, static or local edge gets a verdict other than RULES_DROP.
 * Needs rules_bind. O(classes x static rules). */
#define RULES_MAY_DROP_FIELD 1u
#define RULES_MAY_DROP_STATIC 2u
int rules_drop_classes(const rules_set *rs, uint8_t *out);

/* Inspection result for one object. Reasons are joined with " and ". */
typedef struct rules_verdicts {
    char leaking[1024];     /* leaking reasons ("" if none) */
    char not_leaking[1024]; /* not-leaking reasons */
    char labels[2048];      /* labels separated by '\n' ("" if none) */
} rules_verdicts;

/* Runs every applicable inspector on n and appends to *v (which the caller zeroes). */
void rules_inspect_node(const rules_set *rs, node_ix n, rules_verdicts *v);
/* Whether a finder (watch rule or leaking inspector) declares n a leaking object; writes the
 * reason into buf. */
int rules_is_leaking_object(const rules_set *rs, node_ix n, char *buf, size_t cap);
/* Per class (out[c], c < n_classes; out[n_classes] for objects of no known class): 1 when
 * rules_is_leaking_object may say yes for an object of that class that is not a class
 * object, 0 when it says no for all of them (no leaking inspector applies), so a caller
 * asking about every object reads one byte for most. Needs rules_bind. */
void rules_leaking_classes(const rules_set *rs, uint8_t *out);

/* Members of a collection named by `in static C#f.path` (docs/rules.md, "Collections"):
 * every object held by the collection's internal structure, sorted. Returns the count
 * (0 when the collection is missing or empty) and sets *out to storage owned by rs; expr is the
 * index of an `in` expression, else 0 is returned. For tests and diagnostics. */
uint32_t rules_in_members(const rules_set *rs, int32_t expr, const node_ix **out);

/* Evaluates expression text against object n (for tests and the CLI). Returns 1 true, 0
 * false, or an LR_ERR_RULES status as a negative number when the text does not parse. */
int rules_eval_text(rules_set *rs, node_ix n, const char *expr, lr_error *err);

/* Name of a thread object (Thread.name), into buf; "" if none. */
const char *rules_thread_name(const graph *g, node_ix thread, char *buf, size_t cap);

/* The java.lang.Thread node of a thread serial number (g->threads), or GRAPH_NONE. */
node_ix rules_thread_of_serial(const graph *g, uint32_t serial);

/* Simple name: text after the last '.' of a JVM class name; a name with a space, colon, brace or
 * comma (V8's "Window / https://host:port", "{a, b}") whole. */
const char *rules_simple_name(const char *cls);

/* A JavaScript primitive a heap snapshot keeps as a node, as conditions read it: the
 * oddballs true and false (RULES_JS_BOOL, i 1 or 0), null and undefined (RULES_JS_NULL), a
 * number whose value the snapshot records (RULES_JS_INT in i, RULES_JS_FLOAT in d). Returns
 * 1 and fills *out when node n is one, else 0. */
enum { RULES_JS_BOOL, RULES_JS_NULL, RULES_JS_INT, RULES_JS_FLOAT };
typedef struct rules_js {
    int kind;
    int64_t i;
    double d;
} rules_js;
int rules_js_primitive(const graph *g, node_ix n, rules_js *out);

#endif
