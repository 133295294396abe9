/* SPDX-License-Identifier: Apache-2.0 */
/* v8_internal.h: what the three parts of the V8 snapshot reader share (format layer),
 * prefixes v8j_ (v8_json.c: the JSON tokenizer and the snapshot header), v8_ (v8_read.c: the
 * records into the graph, loading, the public calls of v8.h) and v8p_ (v8_prepare.c: the
 * DevTools preparation passes). The load context `ctx` is one struct all three fill, so each
 * pass keeps its state where the others can reach it without copies. Never included outside
 * src/format/v8_*.c. */
#ifndef LR_FORMAT_V8_INTERNAL_H
#define LR_FORMAT_V8_INTERNAL_H

#include "format/v8.h"

#include <pthread.h>
#include <stdint.h>

/* ---- limits ---- */

#define V8_MAX_FIELDS 64      /* node_fields / edge_fields / location_fields entries kept */
#define V8_MAX_TYPES 31       /* declared node types kept; slot 31 is "unknown" */
#define V8_MAX_EDGE_TYPES 64  /* declared edge types kept */
#define V8_NAME_MAX 48        /* bytes kept of a field / type name */
#define V8_UNKNOWN_TYPE 31u   /* node_type of nodes whose type index meta does not declare */
#define V8_MAX_DEPTH 256      /* nesting accepted while skipping unknown values */

/* ---- the tokenizer (v8_json.c) ---- */

typedef struct cur {
    const uint8_t *base; /* first byte of the input */
    const uint8_t *p;    /* next byte */
    const uint8_t *end;  /* one past the last byte */
    const char *name;    /* input name for messages */
    lr_error *err;
} cur;

static inline uint64_t off_of(const cur *c, const uint8_t *p) { return (uint64_t)(p - c->base); }

static inline int is_ws(uint8_t ch) { return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t'; }

static inline void skip_ws(cur *c)
{
    while (c->p < c->end && is_ws(*c->p))
        c->p++;
}

/* Scratch buffer for decoded strings, grown to the longest escaped string seen. */
typedef struct scratch {
    uint8_t *buf;
    size_t cap;
} scratch;

typedef struct namelist {
    char names[V8_MAX_EDGE_TYPES][V8_NAME_MAX];
    uint32_t n;     /* entries kept (at most the array size) */
    uint32_t total; /* entries in the file */
} namelist;

typedef struct header {
    namelist node_fields, edge_fields, location_fields;
    namelist node_types, edge_types;
    uint32_t node_types_pos, edge_types_pos; /* position + 1 of the kept type list, 0: none */
    namelist trace_fi_fields, trace_node_fields; /* allocation-trace layouts (may be absent) */
    int has_meta, has_node_fields, has_edge_fields, has_location_fields;
    int has_trace_fi_fields, has_trace_node_fields;
    int has_node_count, has_edge_count, has_root_index;
    uint64_t node_count, edge_count, root_index, extra_native_bytes;
} header;

/* Called by v8j_parse_object for each key, with c->p at the value; must consume it. */
typedef lr_status (*member_fn)(cur *c, scratch *sc, const char *key, void *ctx);

lr_status v8j_trunc_at(cur *c, const char *what);
lr_status v8j_expect(cur *c, uint8_t ch, const char *what);
/* Finds the end of the string whose opening quote is at c->p. On return *s / *e bound the
 * raw content, c->p is past the closing quote, and *plain is 1 when the content has no
 * backslash and no byte below 0x20 (it can be used as is). Escapes are validated later. */
lr_status v8j_scan_string(cur *c, const uint8_t **s, const uint8_t **e, int *plain);
/* Decodes raw string content [s, e) into out (capacity >= 2 * (e - s) + 2: escapes only
 * shrink, a raw NUL byte doubles). Returns LR_OK and *len, or LR_ERR_FORMAT at the bad
 * escape. */
lr_status v8j_decode_string(cur *c, const uint8_t *s, const uint8_t *e, uint8_t *out,
                            size_t *len);
lr_status v8j_scratch_fit(scratch *sc, size_t need, lr_error *err);
/* Skips one JSON value of any kind without building it. Iterative; nesting is capped. */
lr_status v8j_skip_value(cur *c);
/* Index of s in l, or -1. */
int v8j_nl_find(const namelist *l, const char *s);
/* Calls fn for every key of the object at c->p, with c->p at the value; fn must consume it. */
lr_status v8j_parse_object(cur *c, scratch *sc, member_fn fn, void *ctx);
/* member_fn of the "snapshot" object: fills the header (ctx) from meta and the counts. */
lr_status v8j_snapshot_member(cur *c, scratch *sc, const char *key, void *ctx);
/* Reads a string value into the scratch buffer (decoded, NUL-terminated). */
lr_status v8j_read_string(cur *c, scratch *sc, const uint8_t **out, size_t *len);
/* Parses an unsigned integer (JSON number without sign, fraction or exponent). */
lr_status v8j_read_uint(cur *c, uint64_t *out, const char *what);

/* ---- the load context (v8_read.c) ---- */

typedef struct v8_state {
    str_ix *class_keys;          /* DevTools public class key per class */
    uint64_t extra_native_bytes; /* snapshot.extra_native_bytes */
    /* Allocation traces (snapshots taken while allocations were tracked): each node's
     * trace_node_id, the decoded trace_function_infos, and where trace_tree lies in the
     * input, decoded on demand by v8_alloc_stack. trace_node is NULL when there are none. */
    uint32_t *trace_node;        /* per node, 0 = no trace */
    v8_frame *trace_funcs;       /* trace_function_infos entries */
    uint32_t n_trace_funcs;
    const uint8_t *tree_open;    /* trace_tree's '[' and its matching ']' in g->data */
    const uint8_t *tree_close;
    uint32_t tn_fields, tn_id, tn_func, tn_children; /* trace_node_fields layout */
    char type_names[V8_MAX_TYPES + 1][V8_NAME_MAX]; /* backing store of g->type_names */
    /* Interface definitions (inferInterfaceDefinitions), in DevTools' order: name and the
     * properties of each, UTF-16 sorted; v8_apply_interfaces hands them to another graph. */
    uint32_t n_ifaces;
    str_ix *iface_names;         /* "{a, b}" per definition */
    uint32_t *iface_off;         /* n_ifaces + 1 offsets into iface_props */
    str_ix *iface_props;
    /* Edge names are read back from the input (graph.derive), not kept: 4 bytes per edge.
     * ecks[k] is where the record of graph edge k * V8_ECK_STRIDE starts, as an offset from
     * the edges array's '['; the name is its name_or_index, through smap for string names.
     * Records whose target is no node made no edge and are skipped again on the way. */
    uint64_t serial;             /* unique per loaded graph: the decode cursor's key */
    const uint8_t *e_open;       /* the edges array's '[' and ']' in g->data */
    const uint8_t *e_close;
    uint32_t *ecks32;            /* checkpoint offsets when the array is under 4 GiB */
    uint64_t *ecks64;            /* else these */
    uint32_t e_nf, e_ef;         /* node and edge field counts */
    uint32_t e_to, e_name;       /* edge field offsets of to_node and name_or_index */
    uint64_t e_span;             /* node_count * node fields: to_node values below it */
    str_ix *smap;                /* snapshot string index -> graph string; NULL: identity but */
    uint32_t n_smap;             /* for the pairs in smap_exc; strings in the snapshot */
    uint32_t *smap_exc;          /* (index, string) pairs, ascending, where smap is NULL */
    uint32_t n_smap_exc;
    str_ix empty_str;            /* "", for names past the string table */
    /* Node ids without an array while they mostly step by V8_ID_STEP (V8 numbers objects
     * 1, 3, 5, ...): per block of 64 nodes the first id, a bit per node whose id does not
     * follow its predecessor's, and where the block's such ids start in id_exc. About 0.3
     * bytes per node instead of 4 (g->node_id32) or 8; ids that do not follow the pattern
     * often enough go to those arrays instead (ids_widen). */
    uint64_t *id_base;           /* per block, NULL when the ids are in an array */
    uint64_t *id_mask;
    uint32_t *id_exc_first;
    uint64_t *id_exc;            /* the ids that do not follow, in node order */
    uint32_t n_id_exc, cap_id_exc;
} v8_state;

#define V8_ECK_STRIDE 32u /* edges per name checkpoint: 4 bytes per 32 edges */
#define V8_ID_STEP 2u      /* the usual distance between consecutive node ids */

/* A top-level numeric array located but not yet parsed: '[' at open, ']' at close. */
typedef struct span {
    const uint8_t *open;
    const uint8_t *close;
} span;

/* DevTools' node-type roles: index of the first meta entry with each name, or -1. */
typedef struct roles {
    int hidden, array, string, object, code, closure, regexp, native, synthetic, cons, sliced;
} roles;

typedef struct loc {
    uint32_t node;   /* node ordinal */
    uint32_t seq;    /* position in the locations array (the last entry for a node wins) */
    uint32_t script; /* script id */
    uint32_t line;   /* 0-based line */
    uint32_t col;    /* 0-based column */
} loc;

typedef struct ctx {
    graph *g;
    cur c;
    scratch sc;
    header h;
    v8_state *st;
    span nodes, edges, locations;
    span trace_fi, trace_tree;  /* allocation-trace sections, when present */
    int have_header, have_strings;
    str_ix *smap;        /* snapshot string index -> graph string */
    uint32_t n_smap;
    uint32_t cap_smap;
    str_ix empty_str;    /* "" */
    uint8_t *detached;   /* detachedness per node (low 2 bits), NULL if no such field */
    loc *locs;           /* object locations */
    uint32_t n_locs;
    roles r;
    int fo_type, fo_name, fo_id, fo_size, fo_ec, fo_det, fo_native; /* node field offsets */
    int fo_trace;                                                    /* trace_node_id, or -1 */
    int eo_type, eo_name, eo_to;                                     /* edge field offsets */
    uint32_t nf, ef;                                                 /* field counts */
    uint8_t edge_kind_of[V8_MAX_EDGE_TYPES]; /* graph edge kind per declared edge type */
    uint32_t n_edge_types;
    int meta_done;       /* setup_meta ran */
    uint64_t n_unknown_type, n_size_saturated; /* parse_nodes' anomalies, for g->diag */
    int locs_done;       /* the locations are parsed (by whichever thread claimed them) */
    int locs_claim;      /* set (atomically) by the thread that parses the locations */
    uint32_t *own, *own_work; /* v8p_reattribute_prepare's owners and work list */
    uint32_t own_len, own_cap;
    uint64_t own_saturated;   /* sizes v8p_reattribute_sizes saturated */
    uint64_t e_bad;      /* edges with a target that is no node (dropped) */
    uint64_t e_unknown;  /* edges with an undeclared type */
    uint64_t e_max_sname; /* largest string index an edge names (anomaly check after load) */
    pthread_t th;        /* helper thread: edges + locations, later the sizes */
    int th_running;      /* th started and not joined */
    lr_status th_status; /* its result */
    lr_error th_err;     /* its error */
    cur thc;             /* its cursor */
} ctx;

/* The location DevTools uses for node n (the last one listed), or NULL. Nodes are asked in
 * ascending order, so *at walks the sorted list once. */
const loc *v8_loc_next(const ctx *x, uint32_t n, uint32_t *at);

/* ---- the DevTools preparation passes (v8_prepare.c) ---- */

/* Attached state spreads from every attached native node to the native nodes it reaches;
 * detached state then spreads to the rest. Hidden and weak edges do not propagate, nor does
 * any non-native node. Detached nodes are renamed "Detached <name>". */
lr_status v8p_propagate_dom_state(ctx *x);
/* Hands the DOM link state to the graph (g->node_dom), so analyses can filter and group on
 * it: the propagated `detachedness` when the snapshot has the field, else the "Detached "
 * name prefix of native nodes (older Chrome writes detached DOM nodes that way, and DevTools
 * reads them so). Left NULL when no node is attached or detached (Node.js, ArkTS). */
lr_status v8p_keep_dom_state(ctx *x);
/* The part that reads strings, on this thread: which nodes can be owned, and the work list
 * of the others. v8p_reattribute_sizes does the rest on the helper, beside
 * v8p_assign_classes, which interns strings but never reads or writes sizes. */
lr_status v8p_reattribute_prepare(ctx *x);
/* The rest of calculateShallowSizes, on the helper thread with its own cursor: node_size
 * only, so it runs beside v8p_assign_classes. */
lr_status v8p_reattribute_sizes(ctx *x, cur *c);
/* Computes every node's DevTools class (calculateObjectNames + interface definitions +
 * classKeyInternal) and creates one graph class per distinct key, in node order. */
lr_status v8p_assign_classes(ctx *x);
/* Where each closure's function is written (graph.locs), once the edges are read. */
lr_status v8p_closure_locations(ctx *x);

#endif
