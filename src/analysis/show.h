/* SPDX-License-Identifier: Apache-2.0 */
/* show.h: one object in full (analysis layer), prefix show_. What `leakray show` prints, as
 * data: the object's kind, heap, sizes, GC roots, allocation site or stack, string value, its
 * retained size and dominator in the dump's model, the class it is the object of (super,
 * layout, statics with their values), its instance fields decoded, its array elements, its
 * outgoing edges (formats without field bytes) and the objects referring to it, each list cut
 * at the caller's limit. Values are raw bits plus the node a reference resolves to; names,
 * ids and string previews are read from the graph by the renderer (report/show.h). Array
 * elements are decoded on demand (show_element) from the mapped input, every offset checked
 * against its end, so a long array costs no memory. Allocation sites and stacks come from the
 * format layer, which lies above this one: the caller passes hooks. */
#ifndef LR_ANALYSIS_SHOW_H
#define LR_ANALYSIS_SHOW_H

#include "analysis/devtools.h"
#include "analysis/retained.h"
#include "analysis/top.h"
#include "graph/graph.h"

#define SHOW_STRING_PREVIEW 200 /* bytes of a referenced string's value shown inline */
#define SHOW_PRIM_ELEMENTS 16   /* primitive array elements listed */
#define SHOW_FULL_STRING 4096   /* bytes of the shown object's own string value */
#define SHOW_MAX_FRAMES 64      /* allocation-stack frames kept */
#define SHOW_THREAD_ROOTS 8     /* roots a thread holds the object by, listed */

/* One frame of an allocation stack (V8 snapshots with allocation tracking). */
typedef struct show_frame {
    str_ix name;        /* function name ("" anonymous), GRAPH_NONE unknown */
    str_ix script;      /* script name or URL, GRAPH_NONE unknown */
    uint32_t script_id; /* V8 script id */
    uint32_t line;      /* 1-based, 0 unknown */
    uint32_t column;    /* 1-based, 0 unknown */
} show_frame;

/* Writes up to cap frames of n's allocation stack, innermost first, and its full depth into
 * *depth (0: none). Returns LR_OK or fills err. */
typedef lr_status (*show_stack_fn)(const graph *g, node_ix n, show_frame *out, uint32_t cap,
                                   uint32_t *depth, lr_error *err);

/* Where the retained size and dominator come from. */
enum show_ret {
    SHOW_RET_NONE,     /* no edges: no tree */
    SHOW_RET_DEVTOOLS, /* DevTools' numbers (V8/Node/ArkTS) */
    SHOW_RET_TREE      /* the dump's retained-size model (analysis/retained.h) */
};

/* What the caller supplies beyond the graph. */
typedef struct show_opts {
    uint64_t limit;            /* rows per list (referrers, elements, edges); 0 = all */
    const devtools_result *dt; /* V8-like snapshots: DevTools' numbers, else NULL */
    const ret_model *rt;       /* other dumps with edges: `top`'s default tree, else NULL */
    int has_traces;            /* with dt: the snapshot records allocation stacks */
    show_stack_fn stack_of;    /* with dt: reads a stack, or NULL */
    top_site_fn site_of;       /* allocation sites (Ruby), or NULL */
} show_opts;

/* A decoded field or static: raw bits (primitives) or the referenced id, and its node. */
typedef struct show_value {
    uint64_t raw; /* bits zero-extended, or the id a reference holds (0: null) */
    node_ix ref;  /* references: the object, GRAPH_NONE for null or not in the dump */
} show_value;

/* One instance field. */
typedef struct show_field {
    class_ix decl;        /* declaring class (GRAPH_NONE unknown) */
    const graph_field *f; /* name and type (graph's) */
    show_value v;         /* its value */
} show_field;

typedef struct show_result {
    const graph *g;         /* the graph everything points into (outlives the result) */
    node_ix node;           /* the object shown */
    class_ix as_class;      /* node is this class's object, or GRAPH_NONE */
    const char *type;       /* the format's own type name of node (graph type_names), or NULL */
    const char *heap;       /* heap name, or NULL */
    const char *name;       /* V8 node name when it says more than the class, else "" */
    uint8_t roots[GRAPH_ROOT_KIND_COUNT + 1]; /* nonzero: a root of that kind holds node
                                               * (the last slot: kinds unknown here) */
    const graph_root *thread_roots[SHOW_THREAD_ROOTS]; /* roots by which a thread holds node
                                                         * (a local, a native frame, a lock),
                                                         * one per thread and frame */
    uint32_t n_thread_roots; /* kept in thread_roots */
    int thread_roots_more;   /* node has such roots besides those kept */
    int has_site;           /* site is set */
    top_site site;          /* allocation site (Ruby) */
    long string_len;        /* UTF-8 bytes of node's string value, -1 when it is no string */
    size_t string_shown;    /* bytes of it in string (may hold NULs) */
    char string[SHOW_FULL_STRING + 1]; /* its first bytes */

    enum show_ret ret;      /* where the next four come from */
    const char *model;      /* SHOW_RET_TREE: the model's name ("visualvm", "strong") */
    uint64_t retained;      /* retained bytes */
    int32_t distance;       /* SHOW_RET_DEVTOOLS: distance from the root */
    node_ix dominator;      /* immediate dominator; GRAPH_NONE for none or unreachable,
                             * SHOW_DOM_ROOTS when only the GC roots hold it alone */

    int has_traces;         /* SHOW_RET_DEVTOOLS: the snapshot records allocation stacks */
    uint32_t stack_depth;   /* frames of node's allocation stack (may exceed n_stack) */
    uint32_t n_stack;       /* frames kept in stack */
    show_frame stack[SHOW_MAX_FRAMES]; /* innermost first */

    show_value *statics;    /* as_class: one per static of the class (graph statics order) */
    uint32_t n_statics;

    int has_fields;         /* node is an instance whose field bytes are in the dump */
    show_field *fields;     /* its fields, most-derived class first (graph_fields_each) */
    uint32_t n_fields;

    int is_array;           /* node is an object or primitive array */
    int have_elements;      /* its contents are in the dump (elements can be read) */
    uint8_t elem_type;      /* enum graph_ftype of the elements (with have_elements) */
    uint64_t length;        /* elements it has */
    uint64_t n_elements;    /* elements to show (show_element 0 .. n_elements - 1) */
    const uint8_t *payload; /* private: the elements' bytes */
    unsigned elem_size;     /* private: bytes per element */

    int has_edges;          /* outgoing edges are listed (no field bytes: V8-like graphs) */
    edge_ix first_edge;     /* edges first_edge .. first_edge + n_edges - 1 are shown */
    uint64_t edges_total;   /* edges node has */
    uint64_t n_edges;       /* edges shown */

    int has_referrers;      /* the graph has edges, so referrers are known */
    const edge_ix *referrers; /* the edges into node (reverse index), n_referrers shown */
    uint64_t referrers_total; /* edges into node */
    uint64_t n_referrers;   /* edges shown */
} show_result;

#define SHOW_DOM_ROOTS (GRAPH_NONE - 1) /* dominator: the GC roots (the tree's super root) */

/* Fills *out for node n (< g->n_nodes). Builds g's reverse edges when it has edges (hence g
 * is not const). Returns LR_OK (free: show_free), LR_ERR_NOMEM, or the stack hook's error. */
lr_status show_build(graph *g, node_ix n, const show_opts *o, show_result *out, lr_error *err);

/* Element i (< r->n_elements) of the shown array: its bits or id, and for references the
 * node. O(1) for primitives, one id lookup for references. */
show_value show_element(const show_result *r, uint64_t i);

/* Class index whose class object is node n, or GRAPH_NONE. O(classes). */
class_ix show_class_of_node(const graph *g, node_ix n);

void show_free(show_result *r);

#endif
