/* SPDX-License-Identifier: Apache-2.0 */
/* v8_read.c: V8 / Node / Chrome / ArkTS `.heapsnapshot` reader (format layer), prefix v8_.
 * Input: the mapped JSON. A hand-written scanner walks the top-level object once; the
 * snapshot header is parsed into a small struct, the `strings` array is interned as it is
 * met, and `nodes` / `edges` / `locations` are located (memchr for their closing bracket) and
 * then parsed straight into exactly-sized graph arrays, so no JSON tree and no raw copy of the
 * integer arrays ever exists. Every count from the header is checked against the bytes of its
 * array before anything is allocated. After loading, the DevTools preparation passes run:
 * detached-DOM renaming (propagateDOMState), shallow-size re-attribution
 * (calculateShallowSizes), class names with interface inference (calculateObjectNames,
 * inferInterfaceDefinitions, applyInterfaceDefinitions) and class keys with locations.
 * Two threads: while this one interns the strings and parses the nodes, a helper parses the
 * edges and then the locations (names stay raw string indexes until remap_names, anomalies
 * are counted in the context until the join); later the helper re-attributes sizes while
 * this thread names classes (which reads no size). No id index is built (graph_find_id
 * scans), ids are 32-bit while they fit, node_off is left NULL (no payloads), and the intern
 * table is dropped at the end: 16 bytes per node and 4 per string less to hold.
 * Budget: graph arrays plus a few temporary uint32 per node; nothing per object is malloc'd.
 * Spec: docs/formats/v8.md; the DevTools behaviour copied is HeapSnapshot.ts as shipped in
 * heap-snapshot-toolkit 1.1.3. */
#define _GNU_SOURCE /* qsort_r */
#include "format/v8.h"
#include "base/hash.h"
#include "base/hmap.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- limits ---- */

#define V8_MAX_FIELDS 64      /* node_fields / edge_fields / location_fields entries kept */
#define V8_MAX_TYPES 31       /* declared node types kept; slot 31 is "unknown" */
#define V8_MAX_EDGE_TYPES 64  /* declared edge types kept */
#define V8_NAME_MAX 48        /* bytes kept of a field / type name */
#define V8_UNKNOWN_TYPE 31u   /* node_type of nodes whose type index meta does not declare */
#define V8_MAX_DEPTH 256      /* nesting accepted while skipping unknown values */

/* ---- cursor and errors ---- */

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

static lr_status trunc_at(cur *c, const char *what)
{
    return LR_TRUNC(c->err, c->name, off_of(c, c->p), "input ends inside %s", what);
}

static lr_status expect(cur *c, uint8_t ch, const char *what)
{
    skip_ws(c);
    if (c->p >= c->end)
        return trunc_at(c, what);
    if (*c->p != ch)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "expected '%c' in %s, found 0x%02x",
                          ch, what, *c->p);
    c->p++;
    return LR_OK;
}

/* ---- strings ---- */

#define ONES8 0x0101010101010101ull
#define HIGH8 0x8080808080808080ull

/* Finds the end of the string whose opening quote is at c->p. On return *s / *e bound the
 * raw content, c->p is past the closing quote, and *plain is 1 when the content has no
 * backslash and no byte below 0x20 (it can be used as is). Escapes are validated later. */
static lr_status scan_string(cur *c, const uint8_t **s, const uint8_t **e, int *plain)
{
    const uint8_t *p = c->p + 1, *end = c->end;
    int pl = 1;
    *s = p;
    for (;;) {
        /* Eight bytes at a time while they are all ordinary (no quote, backslash or control
         * byte); the byte loop below finds which one stopped the word. */
        while (end - p >= 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            uint64_t q = v ^ 0x2222222222222222ull, b = v ^ 0x5c5c5c5c5c5c5c5cull;
            uint64_t ctl = v - 0x2020202020202020ull;
            uint64_t hit = ((q - ONES8) & ~q) | ((b - ONES8) & ~b) | (ctl & ~v);
            if (hit & HIGH8)
                break;
            p += 8;
        }
        while (p < end && *p != '"' && *p != '\\' && *p >= 0x20)
            p++;
        if (p >= end) {
            c->p = end;
            return LR_TRUNC(c->err, c->name, off_of(c, *s - 1), "unterminated string");
        }
        if (*p == '"')
            break;
        pl = 0;
        if (*p == '\\') {
            if (p + 1 >= end) {
                c->p = end;
                return LR_TRUNC(c->err, c->name, off_of(c, *s - 1), "unterminated string");
            }
            p += 2;
        } else {
            p++;
        }
    }
    *e = p;
    *plain = pl;
    c->p = p + 1;
    return LR_OK;
}

static int hex4(const uint8_t *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t h = p[i];
        v <<= 4;
        if (h >= '0' && h <= '9')
            v |= (uint32_t)(h - '0');
        else if (h >= 'a' && h <= 'f')
            v |= (uint32_t)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
            v |= (uint32_t)(h - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* Appends code point cp as UTF-8. U+0000 becomes the two bytes C0 80 so that strings stay
 * NUL-terminated; lone surrogates arrive here already replaced by U+FFFD. */
static size_t put_cp(uint8_t *o, uint32_t cp)
{
    if (cp == 0) {
        o[0] = 0xc0;
        o[1] = 0x80;
        return 2;
    }
    if (cp < 0x80) {
        o[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (uint8_t)(0xc0 | (cp >> 6));
        o[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (uint8_t)(0xe0 | (cp >> 12));
        o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (uint8_t)(0xf0 | (cp >> 18));
    o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decodes raw string content [s, e) into out (capacity >= 2 * (e - s) + 2: escapes only
 * shrink, a raw NUL byte doubles). Returns LR_OK and *len, or LR_ERR_FORMAT at the bad
 * escape. */
static lr_status decode_string(cur *c, const uint8_t *s, const uint8_t *e, uint8_t *out,
                               size_t *len)
{
    size_t n = 0;
    const uint8_t *p = s;
    while (p < e) {
        uint8_t ch = *p;
        if (ch != '\\') {
            if (ch == 0)
                n += put_cp(out + n, 0);
            else
                out[n++] = ch;
            p++;
            continue;
        }
        if (p + 1 >= e)
            return LR_CORRUPT(c->err, c->name, off_of(c, p), "bad escape at end of string");
        uint8_t x = p[1];
        uint32_t cp;
        switch (x) {
        case '"': out[n++] = '"'; p += 2; continue;
        case '\\': out[n++] = '\\'; p += 2; continue;
        case '/': out[n++] = '/'; p += 2; continue;
        case 'b': out[n++] = '\b'; p += 2; continue;
        case 'f': out[n++] = '\f'; p += 2; continue;
        case 'n': out[n++] = '\n'; p += 2; continue;
        case 'r': out[n++] = '\r'; p += 2; continue;
        case 't': out[n++] = '\t'; p += 2; continue;
        case 'u':
            if (e - p < 6 || !hex4(p + 2, &cp))
                return LR_CORRUPT(c->err, c->name, off_of(c, p), "bad \\u escape in string");
            p += 6;
            if (cp >= 0xd800 && cp < 0xdc00) {
                uint32_t lo;
                if (e - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, &lo) &&
                    lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p += 6;
                } else {
                    cp = 0xfffd;
                }
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                cp = 0xfffd;
            }
            n += put_cp(out + n, cp);
            continue;
        default:
            return LR_CORRUPT(c->err, c->name, off_of(c, p), "bad escape '\\%c' in string",
                              x >= 0x20 && x < 0x7f ? x : '?');
        }
    }
    *len = n;
    return LR_OK;
}

/* Scratch buffer for decoded strings, grown to the longest escaped string seen. */
typedef struct scratch {
    uint8_t *buf;
    size_t cap;
} scratch;

static lr_status scratch_fit(scratch *sc, size_t need, lr_error *err)
{
    if (need <= sc->cap)
        return LR_OK;
    size_t cap = sc->cap ? sc->cap : 256;
    while (cap < need)
        cap *= 2;
    uint8_t *b = realloc(sc->buf, cap);
    if (!b)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory decoding a string");
    sc->buf = b;
    sc->cap = cap;
    return LR_OK;
}

/* Reads a string value into the scratch buffer (decoded, NUL-terminated). */
static lr_status read_string(cur *c, scratch *sc, const uint8_t **out, size_t *len)
{
    skip_ws(c);
    if (c->p >= c->end)
        return trunc_at(c, "a string");
    if (*c->p != '"')
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "expected a string");
    const uint8_t *s, *e;
    int plain;
    LR_TRY(scan_string(c, &s, &e, &plain));
    LR_TRY(scratch_fit(sc, 2 * (size_t)(e - s) + 2, c->err));
    if (plain) {
        memcpy(sc->buf, s, (size_t)(e - s));
        *len = (size_t)(e - s);
    } else {
        LR_TRY(decode_string(c, s, e, sc->buf, len));
    }
    sc->buf[*len] = 0;
    *out = sc->buf;
    return LR_OK;
}

/* ---- numbers and skipping ---- */

/* Parses an unsigned integer (JSON number without sign, fraction or exponent). */
static lr_status read_uint(cur *c, uint64_t *out, const char *what)
{
    skip_ws(c);
    if (c->p >= c->end)
        return trunc_at(c, what);
    const uint8_t *p = c->p;
    if (*p < '0' || *p > '9')
        return LR_CORRUPT(c->err, c->name, off_of(c, p), "expected an unsigned integer in %s",
                          what);
    uint64_t v = 0;
    int nd = 0;
    while (p < c->end && *p >= '0' && *p <= '9') {
        if (++nd > 19)
            return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "integer too large in %s", what);
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
    }
    c->p = p;
    *out = v;
    return LR_OK;
}

/* Skips one JSON value of any kind without building it. Iterative; nesting is capped. */
static lr_status skip_value(cur *c)
{
    int depth = 0;
    for (;;) {
        skip_ws(c);
        if (c->p >= c->end)
            return trunc_at(c, "a value");
        uint8_t ch = *c->p;
        if (ch == '"') {
            const uint8_t *s, *e;
            int plain;
            LR_TRY(scan_string(c, &s, &e, &plain));
        } else if (ch == '[' || ch == '{') {
            if (++depth > V8_MAX_DEPTH)
                return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "values nested too deeply");
            c->p++;
            continue;
        } else if (ch == ']' || ch == '}') {
            if (depth == 0)
                return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "unexpected '%c'", ch);
            depth--;
            c->p++;
        } else if (ch == ',' || ch == ':') {
            if (depth == 0)
                return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "unexpected '%c'", ch);
            c->p++;
            continue;
        } else {
            const uint8_t *s = c->p;
            while (c->p < c->end && !is_ws(*c->p) && *c->p != ',' && *c->p != ']' &&
                   *c->p != '}' && *c->p != ':')
                c->p++;
            if (c->p == s)
                return LR_CORRUPT(c->err, c->name, off_of(c, s), "unexpected byte 0x%02x", *s);
        }
        if (depth == 0)
            return LR_OK;
    }
}

/* ---- the header (snapshot object) ---- */

typedef struct namelist {
    char names[V8_MAX_EDGE_TYPES][V8_NAME_MAX];
    uint32_t n;     /* entries kept (at most the array size) */
    uint32_t total; /* entries in the file */
} namelist;

typedef struct header {
    namelist node_fields, edge_fields, location_fields;
    namelist node_types, edge_types;
    namelist trace_fi_fields, trace_node_fields; /* allocation-trace layouts (may be absent) */
    int has_meta, has_node_fields, has_edge_fields, has_location_fields;
    int has_trace_fi_fields, has_trace_node_fields;
    int has_node_count, has_edge_count, has_root_index;
    uint64_t node_count, edge_count, root_index, extra_native_bytes;
} header;

static int nl_find(const namelist *l, const char *s)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->names[i], s) == 0)
            return (int)i;
    return -1;
}

/* Parses a JSON array of strings into l (names longer than V8_NAME_MAX - 1 are cut, which only
 * makes them unknown). */
static lr_status parse_namelist(cur *c, scratch *sc, namelist *l, uint32_t keep)
{
    LR_TRY(expect(c, '[', "a name list"));
    l->n = l->total = 0;
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return LR_OK;
    }
    for (;;) {
        const uint8_t *s;
        size_t len;
        LR_TRY(read_string(c, sc, &s, &len));
        if (l->n < keep) {
            size_t k = len < V8_NAME_MAX - 1 ? len : V8_NAME_MAX - 1;
            memcpy(l->names[l->n], s, k);
            l->names[l->n][k] = 0;
            l->n++;
        }
        l->total++;
        skip_ws(c);
        if (c->p >= c->end)
            return trunc_at(c, "a name list");
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        return expect(c, ']', "a name list");
    }
}

/* node_types / edge_types: [[type names...], "string", "number", ...]; only the first
 * element (the list of the `type` field's values) matters. */
static lr_status parse_typelist(cur *c, scratch *sc, namelist *l, uint32_t keep)
{
    LR_TRY(expect(c, '[', "a type list"));
    skip_ws(c);
    if (c->p < c->end && *c->p == '[')
        LR_TRY(parse_namelist(c, sc, l, keep));
    else if (c->p < c->end && *c->p != ']')
        LR_TRY(skip_value(c));
    for (;;) {
        skip_ws(c);
        if (c->p >= c->end)
            return trunc_at(c, "a type list");
        if (*c->p == ']') {
            c->p++;
            return LR_OK;
        }
        LR_TRY(expect(c, ',', "a type list"));
        LR_TRY(skip_value(c));
    }
}

/* Calls fn for every key of the object at c->p, with c->p at the value; fn must consume it. */
typedef lr_status (*member_fn)(cur *c, scratch *sc, const char *key, void *ctx);

static lr_status parse_object(cur *c, scratch *sc, member_fn fn, void *ctx)
{
    LR_TRY(expect(c, '{', "an object"));
    skip_ws(c);
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return LR_OK;
    }
    for (;;) {
        const uint8_t *k;
        size_t klen;
        LR_TRY(read_string(c, sc, &k, &klen));
        char key[V8_NAME_MAX];
        size_t kk = klen < V8_NAME_MAX - 1 ? klen : V8_NAME_MAX - 1;
        memcpy(key, k, kk);
        key[kk] = 0;
        if (klen != kk)
            key[0] = 0; /* long keys are never ones we know */
        LR_TRY(expect(c, ':', "an object"));
        skip_ws(c);
        LR_TRY(fn(c, sc, key, ctx));
        skip_ws(c);
        if (c->p >= c->end)
            return trunc_at(c, "an object");
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        return expect(c, '}', "an object");
    }
}

static lr_status meta_member(cur *c, scratch *sc, const char *key, void *ctx)
{
    header *h = ctx;
    if (strcmp(key, "node_fields") == 0) {
        h->has_node_fields = 1;
        return parse_namelist(c, sc, &h->node_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "edge_fields") == 0) {
        h->has_edge_fields = 1;
        return parse_namelist(c, sc, &h->edge_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "location_fields") == 0) {
        h->has_location_fields = 1;
        return parse_namelist(c, sc, &h->location_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "trace_function_info_fields") == 0) {
        h->has_trace_fi_fields = 1;
        return parse_namelist(c, sc, &h->trace_fi_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "trace_node_fields") == 0) {
        h->has_trace_node_fields = 1;
        return parse_namelist(c, sc, &h->trace_node_fields, V8_MAX_FIELDS);
    }
    if (strcmp(key, "node_types") == 0)
        return parse_typelist(c, sc, &h->node_types, V8_MAX_TYPES);
    if (strcmp(key, "edge_types") == 0)
        return parse_typelist(c, sc, &h->edge_types, V8_MAX_EDGE_TYPES);
    return skip_value(c);
}

static lr_status snapshot_member(cur *c, scratch *sc, const char *key, void *ctx)
{
    header *h = ctx;
    if (strcmp(key, "meta") == 0) {
        h->has_meta = 1;
        return parse_object(c, sc, meta_member, h);
    }
    if (strcmp(key, "node_count") == 0) {
        h->has_node_count = 1;
        return read_uint(c, &h->node_count, "node_count");
    }
    if (strcmp(key, "edge_count") == 0) {
        h->has_edge_count = 1;
        return read_uint(c, &h->edge_count, "edge_count");
    }
    if (strcmp(key, "root_index") == 0) {
        h->has_root_index = 1;
        return read_uint(c, &h->root_index, "root_index");
    }
    if (strcmp(key, "extra_native_bytes") == 0 && c->p < c->end && *c->p >= '0' && *c->p <= '9')
        return read_uint(c, &h->extra_native_bytes, "extra_native_bytes");
    return skip_value(c);
}

/* ---- reader state kept with the graph ---- */

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
} v8_state;

static void state_free(void *p)
{
    v8_state *s = p;
    if (!s)
        return;
    free(s->class_keys);
    free(s->iface_names);
    free(s->iface_off);
    free(s->iface_props);
    free(s->trace_node);
    free(s->trace_funcs);
    free(s);
}

static const char *V8_FORMAT = "v8";

const str_ix *v8_class_keys(const graph *g)
{
    if (!g || g->format != V8_FORMAT || !g->fmt_state)
        return NULL;
    return ((const v8_state *)g->fmt_state)->class_keys;
}

uint64_t v8_extra_native_bytes(const graph *g)
{
    if (!g || g->format != V8_FORMAT || !g->fmt_state)
        return 0;
    return ((const v8_state *)g->fmt_state)->extra_native_bytes;
}

/* ---- load context ---- */

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
    uint32_t *own, *own_work; /* reattribute_prepare's owners and work list */
    uint32_t own_len, own_cap;
    uint64_t own_saturated;   /* sizes reattribute_sizes saturated */
    uint64_t e_bad;      /* edges with a target that is no node (dropped) */
    uint64_t e_unknown;  /* edges with an undeclared type */
    pthread_t th;        /* helper thread: edges + locations, later the sizes */
    int th_running;      /* th started and not joined */
    lr_status th_status; /* its result */
    lr_error th_err;     /* its error */
    cur thc;             /* its cursor */
} ctx;

/* ---- strings section ---- */

static lr_status intern_bytes(ctx *x, const uint8_t *s, size_t len, str_ix *out)
{
    return graph_intern(x->g, (const char *)s, len, out, x->c.err);
}

static lr_status parse_strings(ctx *x)
{
    cur *c = &x->c;
    if (x->have_strings)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "second \"strings\" array");
    x->have_strings = 1;
    LR_TRY(expect(c, '[', "strings"));
    /* Each string takes at least 3 bytes ("" and a comma), which bounds the table. */
    uint64_t limit = (uint64_t)(c->end - c->p) / 3 + 1;
    /* The pool will hold about the bytes that follow (V8 writes strings last); reserving them
     * up front saves the copies of repeated doubling. Untouched pages cost nothing. */
    graph_strtab *t = &x->g->strings;
    uint64_t want = (uint64_t)(c->end - c->p) + 4096;
    if (want > t->cap_chars && want < ((uint64_t)1 << 34)) {
        char *nc = realloc(t->chars, (size_t)want);
        if (nc) {
            t->chars = nc;
            t->cap_chars = (size_t)want;
            graph_hint_huge(nc, (size_t)want);
        }
    }
    /* Every string has two unescaped quotes: half the quotes bound the count, so the intern
     * table is sized once instead of doubling (and rehashing) about twenty times. The
     * reservation stays within 2 table bytes per input byte (escaped quotes inflate the
     * count); beyond it the table doubles as usual. */
    uint64_t quotes = 0;
    for (const uint8_t *q = c->p; q < c->end; q++)
        quotes += *q == '"';
    uint64_t guess = quotes / 2, most = (uint64_t)(c->end - c->p) / 8;
    if (guess > most)
        guess = most;
    if (guess < UINT32_MAX / 4) {
        LR_TRY(graph_reserve_strings(x->g, (uint32_t)guess, c->err));
        /* Fresh (only "" is in): the table is probed all over, a dense array. */
        graph_hint_huge(t->index.slot, (size_t)t->index.cap * sizeof *t->index.slot);
        graph_hint_huge(t->index.hv, (size_t)t->index.cap * sizeof *t->index.hv);
    }
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return LR_OK;
    }
    for (;;) {
        skip_ws(c);
        if (c->p >= c->end)
            return trunc_at(c, "strings");
        if (*c->p != '"')
            return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "expected a string in strings");
        const uint8_t *s, *e;
        int plain;
        LR_TRY(scan_string(c, &s, &e, &plain));
        str_ix ix;
        if (plain) {
            LR_TRY(intern_bytes(x, s, (size_t)(e - s), &ix));
        } else {
            size_t len;
            LR_TRY(scratch_fit(&x->sc, 2 * (size_t)(e - s) + 2, c->err));
            LR_TRY(decode_string(c, s, e, x->sc.buf, &len));
            LR_TRY(intern_bytes(x, x->sc.buf, len, &ix));
        }
        if (x->n_smap == x->cap_smap) {
            uint64_t cap = x->cap_smap ? (uint64_t)x->cap_smap * 2 : 4096;
            if (cap > limit)
                cap = limit;
            if (cap > UINT32_MAX - 1)
                cap = UINT32_MAX - 1;
            if (cap <= x->n_smap)
                return LR_FAIL(c->err, LR_ERR_LIMIT, "%s: too many strings", c->name);
            str_ix *m = err_reallocarray(x->smap, cap, sizeof *m);
            if (!m)
                return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for strings", c->name);
            x->smap = m;
            x->cap_smap = (uint32_t)cap;
        }
        x->smap[x->n_smap++] = ix;
        skip_ws(c);
        if (c->p >= c->end)
            return trunc_at(c, "strings");
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        return expect(c, ']', "strings");
    }
}

/* ---- numeric arrays ---- */

/* Records where a numeric array lies; its content is parsed later. */
static lr_status locate_array(ctx *x, span *sp, const char *what)
{
    cur *c = &x->c;
    if (sp->open)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "second \"%s\" array", what);
    skip_ws(c);
    if (c->p >= c->end)
        return trunc_at(c, what);
    if (*c->p != '[')
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "\"%s\" is not an array", what);
    const uint8_t *close = memchr(c->p, ']', (size_t)(c->end - c->p));
    if (!close)
        return LR_TRUNC(c->err, c->name, off_of(c, c->end), "input ends inside \"%s\"", what);
    sp->open = c->p;
    sp->close = close;
    c->p = close + 1;
    return LR_OK;
}

/* Streaming reader of one numeric array. The closing ']' bounds every loop, so the hot path
 * needs no end-of-input checks. */
typedef struct numrd {
    const uint8_t *p;     /* next byte */
    const uint8_t *close; /* the array's ']' */
    int first;            /* no number read yet */
} numrd;

static void numrd_init(numrd *r, const span *sp)
{
    r->p = sp->open + 1;
    r->close = sp->close;
    r->first = 1;
}

/* Next number: 1 with *v, 0 at the end of the array, -1 on a syntax error (r->p at it). */
static inline int numrd_next(numrd *r, uint64_t *v)
{
    const uint8_t *p = r->p;
    if (*p == ',' && (unsigned)p[1] - '0' <= 9 && !r->first) {
        p++; /* the usual separator, a bare comma: a quarter of the parse time saved */
        goto digits;
    }
    while (is_ws(*p))
        p++;
    if (!r->first) {
        if (*p == ',') {
            p++;
            while (is_ws(*p))
                p++;
        } else if (p == r->close) {
            r->p = p;
            return 0;
        } else {
            r->p = p;
            return -1;
        }
    } else if (p == r->close) {
        r->p = p;
        return 0;
    }
digits:;
    unsigned d = (unsigned)*p - '0';
    if (d > 9) {
        r->p = p;
        return -1;
    }
    uint64_t n = d;
    const uint8_t *s = p++;
    while ((d = (unsigned)*p - '0') <= 9) {
        n = n * 10 + d;
        p++;
    }
    if (p - s > 19) {
        r->p = s;
        return -1;
    }
    r->first = 0;
    r->p = p;
    *v = n;
    return 1;
}

static lr_status num_error(cur *c, const numrd *r, int rc, const char *what)
{
    if (rc == 0)
        return LR_CORRUPT(c->err, c->name, off_of(c, r->p), "\"%s\" array ends early", what);
    return LR_CORRUPT(c->err, c->name, off_of(c, r->p), "bad number in \"%s\"", what);
}

/* Fails unless the reader is at the end of its array. */
static lr_status numrd_end(cur *c, numrd *r, const char *what)
{
    uint64_t v;
    int rc = numrd_next(r, &v);
    if (rc == 0)
        return LR_OK;
    if (rc > 0)
        return LR_CORRUPT(c->err, c->name, off_of(c, r->p),
                          "\"%s\" holds more values than the header's count", what);
    return num_error(c, r, rc, what);
}

/* Upper bound of the numbers an array can hold: each needs a digit and a separator. */
static uint64_t span_capacity(const span *sp) { return (uint64_t)(sp->close - sp->open) / 2 + 1; }

static inline uint32_t raw_ix(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

static inline str_ix map_str(ctx *x, uint64_t s)
{
    if (s < x->n_smap)
        return x->smap[s];
    diag_count(&x->g->diag, DIAG_MISSING_STRING);
    return x->empty_str;
}

/* ---- meta -> roles and kinds ---- */

static uint8_t node_kind_of(const char *t)
{
    static const struct {
        const char *name;
        uint8_t kind;
    } K[] = {
        {"hidden", GRAPH_KIND_OTHER},       {"array", GRAPH_KIND_OBJ_ARRAY},
        {"string", GRAPH_KIND_STRING},      {"object", GRAPH_KIND_INSTANCE},
        {"code", GRAPH_KIND_CODE},          {"closure", GRAPH_KIND_CLOSURE},
        {"regexp", GRAPH_KIND_INSTANCE},    {"number", GRAPH_KIND_OTHER},
        {"native", GRAPH_KIND_NATIVE},      {"synthetic", GRAPH_KIND_SYNTHETIC},
        {"concatenated string", GRAPH_KIND_STRING}, {"sliced string", GRAPH_KIND_STRING},
        {"slicedstring", GRAPH_KIND_STRING}, {"symbol", GRAPH_KIND_OTHER},
        {"bigint", GRAPH_KIND_OTHER},       {"object shape", GRAPH_KIND_CODE},
        {"wasm object", GRAPH_KIND_INSTANCE}, {"class", GRAPH_KIND_CODE},
        {"framework", GRAPH_KIND_INSTANCE}, {"handle", GRAPH_KIND_SYNTHETIC},
    };
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++)
        if (strcmp(K[i].name, t) == 0)
            return K[i].kind;
    return GRAPH_KIND_OTHER;
}

static lr_status setup_meta(ctx *x)
{
    header *h = &x->h;
    cur *c = &x->c;
    graph *g = x->g;
    if (!h->has_meta || !h->has_node_fields || !h->has_edge_fields)
        return LR_CORRUPT(c->err, c->name, 0, "snapshot.meta lacks node_fields or edge_fields");
    if (h->node_fields.total > V8_MAX_FIELDS || h->edge_fields.total > V8_MAX_FIELDS)
        return LR_CORRUPT(c->err, c->name, 0, "snapshot.meta declares over %d fields",
                          V8_MAX_FIELDS);
    if (!h->has_node_count || !h->has_edge_count)
        return LR_CORRUPT(c->err, c->name, 0, "snapshot lacks node_count or edge_count");
    x->meta_done = 1;
    x->nf = h->node_fields.total;
    x->ef = h->edge_fields.total;
    x->fo_type = nl_find(&h->node_fields, "type");
    x->fo_name = nl_find(&h->node_fields, "name");
    x->fo_id = nl_find(&h->node_fields, "id");
    x->fo_size = nl_find(&h->node_fields, "self_size");
    x->fo_ec = nl_find(&h->node_fields, "edge_count");
    x->fo_det = nl_find(&h->node_fields, "detachedness");
    x->fo_native = nl_find(&h->node_fields, "native_size");
    x->fo_trace = nl_find(&h->node_fields, "trace_node_id");
    if (x->fo_type < 0 || x->fo_name < 0 || x->fo_id < 0 || x->fo_size < 0 || x->fo_ec < 0)
        return LR_CORRUPT(c->err, c->name, 0,
                          "node_fields lacks one of type, name, id, self_size, edge_count");
    x->eo_type = nl_find(&h->edge_fields, "type");
    x->eo_name = nl_find(&h->edge_fields, "name_or_index");
    x->eo_to = nl_find(&h->edge_fields, "to_node");
    if (x->eo_type < 0 || x->eo_name < 0 || x->eo_to < 0)
        return LR_CORRUPT(c->err, c->name, 0,
                          "edge_fields lacks one of type, name_or_index, to_node");

    /* Node types: declared order, first occurrence of a name decides its DevTools role. */
    const namelist *nt = &h->node_types;
    for (uint32_t i = 0; i < nt->n; i++) {
        memcpy(x->st->type_names[i], nt->names[i], V8_NAME_MAX);
        g->type_names[i] = x->st->type_names[i];
    }
    strcpy(x->st->type_names[V8_UNKNOWN_TYPE], "(unknown)");
    g->type_names[V8_UNKNOWN_TYPE] = x->st->type_names[V8_UNKNOWN_TYPE];
    g->n_types = V8_UNKNOWN_TYPE + 1;
    for (uint32_t i = nt->n; i < V8_UNKNOWN_TYPE; i++)
        g->type_names[i] = x->st->type_names[V8_UNKNOWN_TYPE];
    x->r.hidden = nl_find(nt, "hidden");
    x->r.array = nl_find(nt, "array");
    x->r.string = nl_find(nt, "string");
    x->r.object = nl_find(nt, "object");
    x->r.code = nl_find(nt, "code");
    x->r.closure = nl_find(nt, "closure");
    x->r.regexp = nl_find(nt, "regexp");
    x->r.native = nl_find(nt, "native");
    x->r.synthetic = nl_find(nt, "synthetic");
    x->r.cons = nl_find(nt, "concatenated string");
    x->r.sliced = nl_find(nt, "sliced string");

    /* Edge types: kinds by name; a repeated name and unknown names are plain `field` edges,
     * which DevTools treats like any other non-special edge. */
    const namelist *et = &h->edge_types;
    x->n_edge_types = et->n;
    for (uint32_t i = 0; i < et->n; i++) {
        const char *t = et->names[i];
        uint8_t k = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
        if (nl_find(et, t) != (int)i)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
        else if (strcmp(t, "context") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_CONTEXT, GRAPH_STRONG);
        else if (strcmp(t, "element") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
        else if (strcmp(t, "property") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_PROPERTY, GRAPH_STRONG);
        else if (strcmp(t, "internal") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_INTERNAL, GRAPH_STRONG);
        else if (strcmp(t, "hidden") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_HIDDEN, GRAPH_STRONG);
        else if (strcmp(t, "shortcut") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_SHORTCUT, GRAPH_STRONG);
        else if (strcmp(t, "weak") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_WEAK, GRAPH_WEAK);
        else if (strcmp(t, "native") == 0 || strcmp(t, "native_string") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_NATIVE, GRAPH_STRONG);
        else if (strcmp(t, "xref") == 0)
            k = GRAPH_EDGE_MAKE(GRAPH_EDGE_XREF, GRAPH_STRONG);
        x->edge_kind_of[i] = k;
    }
    return LR_OK;
}

/* ---- nodes ---- */

/* Runs on the helper thread while the main thread interns strings: it touches only node and
 * edge arrays, and its own cursor and error; names stay raw string indexes until
 * remap_names. */
/* The header's counts against the bytes of their arrays, before anything is allocated. */
static lr_status check_counts(ctx *x, cur *c)
{
    uint64_t n = x->h.node_count;
    if (n == 0)
        return LR_CORRUPT(c->err, c->name, off_of(c, x->nodes.open), "snapshot has no nodes");
    if (n >= UINT32_MAX || n * x->nf > span_capacity(&x->nodes))
        return LR_CORRUPT(c->err, c->name, off_of(c, x->nodes.open),
                          "node_count %llu exceeds what the nodes array can hold",
                          (unsigned long long)n);
    if (x->h.edge_count >= UINT32_MAX || x->h.edge_count * x->ef > span_capacity(&x->edges))
        return LR_CORRUPT(c->err, c->name, off_of(c, x->edges.open),
                          "edge_count %llu exceeds what the edges array can hold",
                          (unsigned long long)x->h.edge_count);
    return LR_OK;
}

/* sat32 for parse_nodes: counted in x and added to g->diag once the helper is joined. */
static inline uint32_t nsat32(ctx *x, uint64_t v)
{
    if (v > UINT32_MAX) {
        x->n_size_saturated++;
        return UINT32_MAX;
    }
    return (uint32_t)v;
}

/* Moves the first n ids from node_id32 to a 64-bit node_id: an id past 32 bits was met. */
static lr_status widen_ids(ctx *x, cur *c, uint32_t n)
{
    graph *g = x->g;
    g->node_id = err_mallocarray(g->n_nodes, sizeof *g->node_id);
    if (!g->node_id)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %u node ids", c->name,
                       g->n_nodes);
    for (uint32_t i = 0; i < n; i++)
        g->node_id[i] = g->node_id32[i];
    free(g->node_id32);
    g->node_id32 = NULL;
    return LR_OK;
}

/* The loop of parse_nodes, inlined once per common field count (the inner loop unrolls). */
static inline __attribute__((always_inline)) lr_status nodes_loop(ctx *x, cur *c,
                                                                  const uint8_t *kind_of,
                                                                  uint32_t nf)
{
    graph *g = x->g;
    uint64_t n = x->h.node_count;
    uint32_t n_types = x->h.node_types.n;
    numrd r;
    numrd_init(&r, &x->nodes);
    uint64_t f[V8_MAX_FIELDS];
    uint64_t esum = 0, unknown = 0;
    /* Locals, not x->...: the byte stores below may alias anything, which would reload every
     * field of x at each node. */
    const int fo_type = x->fo_type, fo_name = x->fo_name, fo_id = x->fo_id, fo_size = x->fo_size;
    const int fo_ec = x->fo_ec, fo_det = x->fo_det, fo_native = x->fo_native;
    const int fo_trace = x->fo_trace;
    uint8_t *const detached = x->detached, *const node_type = g->node_type;
    uint8_t *const node_kind = g->node_kind;
    uint32_t *const trace_node = x->st->trace_node, *const node_native = g->node_native;
    str_ix *const node_name = g->node_name;
    uint32_t *id32 = g->node_id32;
    uint64_t *id64 = g->node_id;
    uint32_t *const node_size = g->node_size;
    class_ix *const node_class = g->node_class;
    edge_ix *const first_edge = g->first_edge;
    const uint64_t edge_count = x->h.edge_count;
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        for (uint32_t j = 0; j < nf; j++) {
            int rc = numrd_next(&r, &f[j]);
            if (rc <= 0)
                return num_error(c, &r, rc, "nodes");
        }
        uint64_t t = f[fo_type];
        uint8_t ty;
        if (t < n_types) {
            ty = (uint8_t)t;
        } else {
            ty = V8_UNKNOWN_TYPE;
            unknown++;
        }
        node_type[i] = ty;
        node_kind[i] = kind_of[ty];
        node_name[i] = raw_ix(f[fo_name]);
        uint64_t id = f[fo_id];
        if (id64) {
            id64[i] = id;
        } else if (id <= UINT32_MAX) {
            id32[i] = (uint32_t)id;
        } else {
            LR_TRY(widen_ids(x, c, i));
            id64 = g->node_id;
            id64[i] = id;
        }
        node_size[i] = nsat32(x, f[fo_size]);
        node_class[i] = GRAPH_NONE;
        if (fo_native >= 0 && f[fo_native])
            node_native[i] = nsat32(x, f[fo_native]);
        if (detached && (f[fo_det] & 3u))
            detached[i] = (uint8_t)(f[fo_det] & 3u);
        if (trace_node && f[fo_trace])
            trace_node[i] = raw_ix(f[fo_trace]);
        first_edge[i] = (edge_ix)esum;
        esum += f[fo_ec];
        if (esum > edge_count) {
            x->n_unknown_type += unknown;
            return LR_CORRUPT(c->err, c->name, off_of(c, r.p),
                              "node edge counts exceed edge_count %llu at node %u",
                              (unsigned long long)x->h.edge_count, i);
        }
    }
    x->n_unknown_type += unknown;
    if (esum != x->h.edge_count)
        return LR_CORRUPT(c->err, c->name, off_of(c, r.p),
                          "node edge counts sum to %llu, header edge_count is %llu",
                          (unsigned long long)esum, (unsigned long long)x->h.edge_count);
    g->first_edge[n] = (edge_ix)esum;
    return numrd_end(c, &r, "nodes");
}

static lr_status parse_nodes(ctx *x, cur *c)
{
    graph *g = x->g;
    uint64_t n = x->h.node_count;
    LR_TRY(check_counts(x, c));
    unsigned want = GRAPH_WANT_NAME | (x->fo_native >= 0 ? GRAPH_WANT_NATIVE : 0);
    LR_TRY(graph_alloc_nodes(g, (uint32_t)n, want, c->err));
    /* V8 nodes have no payload (graph_node_off answers UINT64_MAX when node_off is NULL),
     * and their ids are small: 32 bits each until one is not (widen_ids). Together that is
     * 12 bytes less per node. */
    free(g->node_off);
    g->node_off = NULL;
    free(g->node_id);
    g->node_id = NULL;
    g->node_id32 = err_mallocarray((size_t)n, sizeof *g->node_id32);
    if (!g->node_id32)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %llu nodes", c->name,
                       (unsigned long long)n);
    /* The arrays written for every node; the sparse ones below stay on small pages. */
    graph_hint_huge(g->node_id32, (size_t)n * sizeof *g->node_id32);
    graph_hint_huge(g->node_class, (size_t)n * sizeof *g->node_class);
    graph_hint_huge(g->node_size, (size_t)n * sizeof *g->node_size);
    graph_hint_huge(g->node_name, (size_t)n * sizeof *g->node_name);
    graph_hint_huge(g->node_kind, (size_t)n);
    graph_hint_huge(g->node_type, (size_t)n);
    /* V8 nodes have no payload, so node_len stays all zero: a fresh calloc'd array whose
     * pages are never written costs no memory. The same holds for the optional per-node
     * arrays below, which are written only where a value is nonzero. */
    free(g->node_len);
    g->node_len = err_calloc((size_t)n, sizeof *g->node_len);
    if (!g->node_len)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %llu nodes", c->name,
                       (unsigned long long)n);
    g->first_edge = err_mallocarray((size_t)n + 1, sizeof *g->first_edge);
    graph_hint_huge(g->first_edge, (size_t)n * sizeof *g->first_edge);
    if (!g->first_edge)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %llu nodes", c->name,
                       (unsigned long long)n);
    if (x->fo_trace >= 0) {
        x->st->trace_node = err_calloc((size_t)n, sizeof *x->st->trace_node);
        if (!x->st->trace_node)
            return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
    }
    if (x->fo_det >= 0) {
        x->detached = err_calloc((size_t)n, 1);
        if (!x->detached)
            return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
    }
    uint32_t n_types = x->h.node_types.n;
    uint8_t kind_of[V8_MAX_TYPES + 1];
    for (uint32_t t = 0; t < n_types; t++)
        kind_of[t] = node_kind_of(x->h.node_types.names[t]);
    kind_of[V8_UNKNOWN_TYPE] = GRAPH_KIND_OTHER;

    if (x->nf == 7)
        return nodes_loop(x, c, kind_of, 7);
    if (x->nf == 6)
        return nodes_loop(x, c, kind_of, 6);
    return nodes_loop(x, c, kind_of, x->nf);
}

/* ---- edges ---- */

/* The loop of parse_edges_raw, inlined once per common field layout: with the counts known
 * at compile time, the division of to_node by the node field count becomes a multiply. */
static inline __attribute__((always_inline)) lr_status edges_loop(ctx *x, cur *c, uint32_t nf,
                                                                  uint32_t ef)
{
    graph *g = x->g;
    uint32_t m = (uint32_t)x->h.edge_count;
    numrd r;
    numrd_init(&r, &x->edges);
    uint64_t f[V8_MAX_FIELDS];
    uint32_t n_et = x->n_edge_types;
    uint64_t node_span = x->h.node_count * nf;
    uint64_t bad = 0, unknown = 0;
    for (uint32_t k = 0; k < m; k++) {
        for (uint32_t j = 0; j < ef; j++) {
            int rc = numrd_next(&r, &f[j]);
            if (rc <= 0)
                return num_error(c, &r, rc, "edges");
        }
        uint64_t to = f[x->eo_to];
        if (to >= node_span || to % nf != 0) {
            bad++;
            g->edge_to[k] = GRAPH_NONE;
            continue;
        }
        uint64_t t = f[x->eo_type];
        uint8_t kind;
        if (t < n_et) {
            kind = x->edge_kind_of[t];
        } else {
            kind = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
            unknown++;
        }
        g->edge_kind[k] = kind;
        g->edge_to[k] = (node_ix)(to / nf);
        g->edge_name[k] = raw_ix(f[x->eo_name]);
    }
    x->e_bad = bad;
    x->e_unknown = unknown;
    return numrd_end(c, &r, "edges");
}

/* Parses every edge into slot k, its position in the file: only the header is needed, so
 * this runs beside parse_nodes. Edges whose target is no node are marked (edge_to
 * GRAPH_NONE) for finish_edges, and the anomalies are counted in x, not in g->diag, which the
 * other thread writes. */
static lr_status parse_edges_raw(ctx *x, cur *c)
{
    graph *g = x->g;
    uint32_t m = (uint32_t)x->h.edge_count; /* check_counts bounded it */
    g->edge_to = err_mallocarray(m ? m : 1, sizeof *g->edge_to);
    g->edge_name = err_mallocarray(m ? m : 1, sizeof *g->edge_name);
    g->edge_kind = err_mallocarray(m ? m : 1, 1);
    if (!g->edge_to || !g->edge_name || !g->edge_kind)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for %u edges", c->name, m);
    graph_hint_huge(g->edge_to, (size_t)m * sizeof *g->edge_to);
    graph_hint_huge(g->edge_name, (size_t)m * sizeof *g->edge_name);
    graph_hint_huge(g->edge_kind, (size_t)m);
    /* V8 writes 7 node fields (6 before detachedness, 5 in old versions) and 3 edge fields. */
    if (x->ef == 3) {
        if (x->nf == 7)
            return edges_loop(x, c, 7, 3);
        if (x->nf == 6)
            return edges_loop(x, c, 6, 3);
        if (x->nf == 5)
            return edges_loop(x, c, 5, 3);
    }
    return edges_loop(x, c, x->nf, x->ef);
}

/* After both parses: counts the anomalies and, when edges were dropped, closes the gaps
 * (first_edge holds the file's offsets until then). */
static void finish_edges(ctx *x)
{
    graph *g = x->g;
    uint32_t n = g->n_nodes;
    diag_add(&g->diag, DIAG_BAD_EDGE_TARGET, x->e_bad);
    diag_add(&g->diag, DIAG_UNKNOWN_EDGE_TYPE, x->e_unknown);
    uint32_t m = (uint32_t)x->h.edge_count;
    g->n_edges = m;
    if (!x->e_bad)
        return;
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t beg = g->first_edge[i], end = g->first_edge[i + 1];
        g->first_edge[i] = w;
        for (uint32_t k = beg; k < end; k++) {
            if (g->edge_to[k] == GRAPH_NONE)
                continue;
            g->edge_to[w] = g->edge_to[k];
            g->edge_kind[w] = g->edge_kind[k];
            g->edge_name[w] = g->edge_name[k];
            w++;
        }
    }
    g->first_edge[n] = w;
    g->n_edges = w;
}

/* Turns the raw string indexes of node and edge names into graph strings. */
static void remap_names(ctx *x)
{
    graph *g = x->g;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        g->node_name[i] = map_str(x, g->node_name[i]);
    for (uint32_t e = 0; e < g->n_edges; e++)
        if (!GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(g->edge_kind[e])))
            g->edge_name[e] = map_str(x, g->edge_name[e]);
}

/* ---- locations ---- */

static int loc_cmp(const void *a, const void *b)
{
    const loc *p = a, *q = b;
    if (p->node != q->node)
        return p->node < q->node ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* Stable LSD radix sort of the locations by node, two 16-bit digits: entries are appended in
 * seq order, so equal nodes keep it and the result is in loc_cmp order, without qsort's
 * comparisons (Node snapshots list hundreds of thousands of locations out of node order). */
static lr_status sort_locs(ctx *x)
{
    uint32_t n = x->n_locs;
    loc *tmp = err_mallocarray(n, sizeof *tmp);
    graph_hint_huge(tmp, (size_t)n * sizeof *tmp);
    uint32_t *count = err_calloc(1u << 16, sizeof *count);
    if (!tmp || !count) {
        free(tmp);
        free(count);
        qsort(x->locs, n, sizeof *x->locs, loc_cmp); /* no scratch: sort in place */
        return LR_OK;
    }
    loc *src = x->locs, *dst = tmp;
    for (unsigned shift = 0; shift < 32; shift += 16) {
        memset(count, 0, (1u << 16) * sizeof *count);
        for (uint32_t i = 0; i < n; i++)
            count[(src[i].node >> shift) & 0xffffu]++;
        uint32_t sum = 0;
        for (uint32_t d = 0; d < (1u << 16); d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            dst[count[(src[i].node >> shift) & 0xffffu]++] = src[i];
        loc *t = src;
        src = dst;
        dst = t;
    }
    free(tmp); /* after an even number of passes the result is back in x->locs */
    free(count);
    return LR_OK;
}

/* The body of parse_locations, inlined once per common node field count: the division by it
 * becomes a multiply. */
static inline __attribute__((always_inline)) lr_status locs_loop(ctx *x, cur *c, uint32_t nf)
{
    const namelist *lf = &x->h.location_fields;
    int lo_obj = nl_find(lf, "object_index"), lo_script = nl_find(lf, "script_id");
    int lo_line = nl_find(lf, "line"), lo_col = nl_find(lf, "column");
    uint32_t k = lf->total;
    if (!x->locations.open || !x->h.has_location_fields || k == 0 || k > V8_MAX_FIELDS)
        return LR_OK;
    uint64_t cap = span_capacity(&x->locations) / k + 1;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    numrd r;
    numrd_init(&r, &x->locations);
    uint64_t f[V8_MAX_FIELDS];
    /* node_count, not g->n_nodes: this may run on the helper while the nodes are parsed */
    uint64_t node_span = x->h.node_count * nf;
    uint32_t capn = 0;
    for (uint32_t seq = 0;; seq++) {
        int rc = numrd_next(&r, &f[0]);
        if (rc == 0)
            break;
        if (rc < 0)
            return num_error(c, &r, rc, "locations");
        for (uint32_t j = 1; j < k; j++) {
            rc = numrd_next(&r, &f[j]);
            if (rc <= 0)
                return num_error(c, &r, rc, "locations");
        }
        if (lo_obj < 0)
            continue;
        uint64_t ni = f[lo_obj];
        if (ni >= node_span || ni % nf != 0)
            continue; /* DevTools keys locations by node index; this one matches no node */
        if (x->n_locs == capn) {
            uint64_t nc = capn ? (uint64_t)capn * 2 : 1024;
            if (nc > cap)
                nc = cap;
            loc *l = err_reallocarray(x->locs, nc, sizeof *l);
            if (!l)
                return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for locations", c->name);
            x->locs = l;
            capn = (uint32_t)nc;
        }
        loc *l = &x->locs[x->n_locs++];
        l->node = (uint32_t)(ni / nf);
        l->seq = seq;
        l->script = lo_script >= 0 ? (uint32_t)f[lo_script] : 0;
        l->line = lo_line >= 0 ? (uint32_t)f[lo_line] : 0;
        l->col = lo_col >= 0 ? (uint32_t)f[lo_col] : 0;
    }
    /* Sort by (node, seq) only when the writer did not list them in node order. */
    for (uint32_t i = 1; i < x->n_locs; i++) {
        if (x->locs[i].node < x->locs[i - 1].node)
            return sort_locs(x);
    }
    return LR_OK;
}

static lr_status parse_locations(ctx *x, cur *c)
{
    if (x->nf == 7)
        return locs_loop(x, c, 7);
    if (x->nf == 6)
        return locs_loop(x, c, 6);
    return locs_loop(x, c, x->nf);
}

/* The location DevTools uses for node n (the last one listed), or NULL. Nodes are asked in
 * ascending order, so *at walks the sorted list once. */
static const loc *loc_next(const ctx *x, uint32_t n, uint32_t *at)
{
    while (*at < x->n_locs && x->locs[*at].node < n)
        (*at)++;
    const loc *l = NULL;
    while (*at < x->n_locs && x->locs[*at].node == n)
        l = &x->locs[(*at)++];
    return l;
}

/* ---- the helper thread ---- */

/* Edges, then locations: together they take about as long as the strings and nodes that
 * this thread parses meanwhile. */
static void *helper_edges(void *p)
{
    ctx *x = p;
    x->th_status = parse_edges_raw(x, &x->thc);
    if (x->th_status == LR_OK && !__atomic_exchange_n(&x->locs_claim, 1, __ATOMIC_ACQ_REL)) {
        x->th_status = parse_locations(x, &x->thc);
        x->locs_done = 1;
    }
    return NULL;
}

static lr_status reattribute_sizes(ctx *x, cur *c);

/* The size re-attribution (node_size only). No id index is built: the verbs look up an id
 * or two (graph_find_id scans), which costs less than sorting 4 bytes per node and keeping
 * them. */
static void *helper_sizes(void *p)
{
    ctx *x = p;
    x->th_status = reattribute_sizes(x, &x->thc);
    return NULL;
}

static lr_status start_helper(ctx *x, void *(*fn)(void *))
{
    x->thc = x->c;
    x->thc.err = &x->th_err;
    memset(&x->th_err, 0, sizeof x->th_err);
    x->th_status = LR_OK;
    if (pthread_create(&x->th, NULL, fn, x) != 0) {
        fn(x); /* no thread to be had: do the work here */
        return LR_OK;
    }
    x->th_running = 1;
    return LR_OK;
}

/* Waits for the helper; its failure becomes ours (its input comes earlier in the file). */
static lr_status join_helper(ctx *x)
{
    if (x->th_running) {
        pthread_join(x->th, NULL);
        x->th_running = 0;
    }
    if (x->th_status != LR_OK) {
        if (x->c.err->code == LR_OK || x->th_err.offset < x->c.err->offset)
            *x->c.err = x->th_err;
        lr_status s = x->th_status;
        x->th_status = LR_OK;
        return s;
    }
    return LR_OK;
}

/* ---- allocation traces ---- */

/* Records where trace_tree (nested arrays of numbers) lies: only digits, ',', brackets and
 * whitespace are accepted, and the nesting depth is only counted, so no recursion and no
 * depth limit are needed here. */
static lr_status locate_tree(ctx *x)
{
    cur *c = &x->c;
    if (x->trace_tree.open)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "second \"trace_tree\"");
    skip_ws(c);
    if (c->p >= c->end || *c->p != '[')
        return c->p >= c->end ? trunc_at(c, "trace_tree")
                              : LR_CORRUPT(c->err, c->name, off_of(c, c->p),
                                           "\"trace_tree\" is not an array");
    const uint8_t *p = c->p;
    uint64_t depth = 0;
    for (; p < c->end; p++) {
        uint8_t ch = *p;
        if (ch == '[') {
            depth++;
        } else if (ch == ']') {
            if (--depth == 0)
                break;
        } else if (!(ch >= '0' && ch <= '9') && ch != ',' && !is_ws(ch)) {
            return LR_CORRUPT(c->err, c->name, off_of(c, p), "unexpected byte 0x%02x in "
                              "\"trace_tree\"", ch);
        }
    }
    if (p >= c->end)
        return LR_TRUNC(c->err, c->name, off_of(c, c->end), "input ends inside \"trace_tree\"");
    x->trace_tree.open = c->p;
    x->trace_tree.close = p;
    c->p = p + 1;
    return LR_OK;
}

static int nl_find_or(const namelist *l, int present, const char *s, int dflt)
{
    return present ? nl_find(l, s) : dflt;
}

/* Decodes trace_function_infos (names through the string map, which only lives during the
 * load) and keeps trace_tree's place for v8_alloc_stack. Traces are optional: a snapshot
 * whose trace sections are missing, empty or unusable loads without them. */
static lr_status parse_traces(ctx *x)
{
    v8_state *st = x->st;
    cur *c = &x->c;
    int any = 0;
    for (uint32_t i = 0; st->trace_node && i < x->g->n_nodes && !any; i++)
        any = st->trace_node[i] != 0;
    const header *h = &x->h;
    uint32_t nf = h->has_trace_fi_fields ? h->trace_fi_fields.total : 6;
    int fo_name = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "name", 1);
    int fo_script = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "script_name", 2);
    int fo_sid = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "script_id", 3);
    int fo_line = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "line", 4);
    int fo_col = nl_find_or(&h->trace_fi_fields, h->has_trace_fi_fields, "column", 5);
    uint32_t tf = h->has_trace_node_fields ? h->trace_node_fields.total : 5;
    int tn_id = nl_find_or(&h->trace_node_fields, h->has_trace_node_fields, "id", 0);
    int tn_fn = nl_find_or(&h->trace_node_fields, h->has_trace_node_fields,
                           "function_info_index", 1);
    int tn_ch = nl_find_or(&h->trace_node_fields, h->has_trace_node_fields, "children", 4);
    if (!any || !x->trace_fi.open || !x->trace_tree.open || nf == 0 || nf > V8_MAX_FIELDS ||
        fo_name < 0 || tf == 0 || tf > V8_MAX_FIELDS || tn_id < 0 || tn_fn < 0 || tn_ch < 0) {
        free(st->trace_node);
        st->trace_node = NULL;
        return LR_OK;
    }
    uint64_t cap = span_capacity(&x->trace_fi) / nf + 1;
    if (cap > UINT32_MAX / 2)
        cap = UINT32_MAX / 2;
    st->trace_funcs = err_mallocarray((size_t)cap, sizeof *st->trace_funcs);
    if (!st->trace_funcs)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory for trace_function_infos",
                       c->name);
    numrd r;
    numrd_init(&r, &x->trace_fi);
    uint64_t f[V8_MAX_FIELDS];
    for (;;) {
        int rc = numrd_next(&r, &f[0]);
        if (rc == 0)
            break;
        for (uint32_t j = 1; rc > 0 && j < nf; j++)
            rc = numrd_next(&r, &f[j]);
        if (rc <= 0 || st->n_trace_funcs >= cap) {
            /* Unusable (negative numbers, a cut entry): the snapshot loads without traces. */
            free(st->trace_node);
            free(st->trace_funcs);
            st->trace_node = NULL;
            st->trace_funcs = NULL;
            st->n_trace_funcs = 0;
            return LR_OK;
        }
        v8_frame *fr = &st->trace_funcs[st->n_trace_funcs++];
        fr->name = map_str(x, f[fo_name]);
        fr->script = fo_script >= 0 ? map_str(x, f[fo_script]) : x->empty_str;
        fr->script_id = fo_sid >= 0 ? raw_ix(f[fo_sid]) : 0;
        fr->line = fo_line >= 0 ? raw_ix(f[fo_line]) : 0;
        fr->column = fo_col >= 0 ? raw_ix(f[fo_col]) : 0;
    }
    st->tree_open = x->trace_tree.open;
    st->tree_close = x->trace_tree.close;
    st->tn_fields = tf;
    st->tn_id = (uint32_t)tn_id;
    st->tn_func = (uint32_t)tn_fn;
    st->tn_children = (uint32_t)tn_ch;
    return LR_OK;
}

int v8_has_traces(const graph *g)
{
    if (!g || g->format != V8_FORMAT || !g->fmt_state)
        return 0;
    const v8_state *st = g->fmt_state;
    return st->trace_node && st->trace_funcs;
}

uint32_t v8_trace_node(const graph *g, node_ix v)
{
    if (!g || g->format != V8_FORMAT || !g->fmt_state || v >= g->n_nodes)
        return 0;
    const v8_state *st = g->fmt_state;
    return st->trace_node && st->trace_funcs ? st->trace_node[v] : 0;
}

/* One open array of trace_tree while v8_alloc_stack scans it. */
typedef struct tlevel {
    uint64_t pos;  /* values read in this array */
    uint64_t id;   /* id of the trace node being read */
    uint64_t func; /* its function_info_index */
} tlevel;

lr_status v8_alloc_stack(const graph *g, node_ix v, v8_frame *out, uint32_t cap, uint32_t *n,
                         lr_error *err)
{
    *n = 0;
    uint32_t want = v8_trace_node(g, v);
    if (!want)
        return LR_OK;
    const v8_state *st = g->fmt_state;
    const char *name = g->path ? g->path : "<input>";
    const uint8_t *p = st->tree_open, *end = st->tree_close + 1;
    uint32_t tf = st->tn_fields;
    tlevel *lv = NULL;
    uint64_t depth = 0, lcap = 0;
    lr_status s = LR_OK;
    int found = 0;
    while (p < end && !found) {
        uint8_t ch = *p;
        if (is_ws(ch) || ch == ',') {
            p++;
        } else if (ch == '[') {
            if (depth > 0 && lv[depth - 1].pos % tf != st->tn_children) {
                s = LR_CORRUPT(err, name, (uint64_t)(p - g->data),
                               "nested array outside \"children\" in \"trace_tree\"");
                break;
            }
            if (depth == lcap) {
                uint64_t nc = lcap ? lcap * 2 : 64;
                tlevel *t = err_reallocarray(lv, (size_t)nc, sizeof *t);
                if (!t) {
                    s = LR_FAIL(err, LR_ERR_NOMEM, "out of memory decoding \"trace_tree\"");
                    break;
                }
                lv = t;
                lcap = nc;
            }
            lv[depth++] = (tlevel){0, 0, 0};
            p++;
        } else if (ch == ']') {
            depth--;
            if (depth > 0)
                lv[depth - 1].pos++; /* the children array was that node's value */
            p++;
            if (depth == 0)
                break;
        } else { /* a digit: locate_tree admitted nothing else */
            uint64_t val = 0;
            while (p < end && *p >= '0' && *p <= '9') {
                val = val > UINT64_MAX / 10 - 10 ? UINT64_MAX : val * 10 + (uint64_t)(*p - '0');
                p++;
            }
            if (depth == 0) {
                s = LR_CORRUPT(err, name, (uint64_t)(p - g->data), "number outside "
                               "\"trace_tree\"");
                break;
            }
            tlevel *l = &lv[depth - 1];
            uint64_t field = l->pos % tf;
            if (field == st->tn_id)
                l->id = val;
            else if (field == st->tn_func)
                l->func = val;
            l->pos++;
            /* Both the id and the function are known once the later of the two is read. */
            uint64_t last = st->tn_id > st->tn_func ? st->tn_id : st->tn_func;
            if (field == last && l->id == want)
                found = 1;
        }
    }
    if (found) {
        /* Innermost first; level 0 is the tree's root, "(root)", which DevTools omits. */
        uint32_t k = 0;
        for (uint64_t d = depth; d > 1; d--) {
            if (k < cap) {
                uint64_t fi = lv[d - 1].func;
                if (fi < st->n_trace_funcs)
                    out[k] = st->trace_funcs[fi];
                else
                    out[k] = (v8_frame){GRAPH_NONE, GRAPH_NONE, 0, 0, 0};
            }
            k++;
        }
        *n = k;
    }
    free(lv);
    return s;
}

/* ---- top level ---- */

static lr_status top_member(cur *c, scratch *sc, const char *key, void *vx)
{
    ctx *x = vx;
    (void)sc;
    if (strcmp(key, "snapshot") == 0) {
        if (x->have_header)
            return LR_CORRUPT(c->err, c->name, off_of(c, c->p), "second \"snapshot\" header");
        x->have_header = 1;
        return parse_object(c, &x->sc, snapshot_member, &x->h);
    }
    if (strcmp(key, "nodes") == 0)
        return locate_array(x, &x->nodes, "nodes");
    if (strcmp(key, "edges") == 0)
        return locate_array(x, &x->edges, "edges");
    if (strcmp(key, "locations") == 0)
        return locate_array(x, &x->locations, "locations");
    if (strcmp(key, "trace_function_infos") == 0)
        return locate_array(x, &x->trace_fi, "trace_function_infos");
    if (strcmp(key, "trace_tree") == 0)
        return locate_tree(x);
    if (strcmp(key, "strings") == 0) {
        /* V8 writes strings last: the integer arrays are located by now, so a second core
         * parses the edges (the biggest array) while this one interns the strings and then
         * parses the nodes; the locations go to the first one done (a third thread for them
         * gains nothing on two cores). */
        if (x->have_header && x->nodes.open && x->edges.open && !x->meta_done) {
            LR_TRY(setup_meta(x));
            LR_TRY(check_counts(x, c));
            LR_TRY(start_helper(x, helper_edges));
            LR_TRY(parse_strings(x));
            LR_TRY(parse_nodes(x, c));
            /* The locations (located by now in V8's order) go to whichever thread is done
             * first. */
            if (x->locations.open && !__atomic_exchange_n(&x->locs_claim, 1, __ATOMIC_ACQ_REL)) {
                LR_TRY(parse_locations(x, c));
                x->locs_done = 1;
            }
            return LR_OK;
        }
        return parse_strings(x);
    }
    return skip_value(c);
}

/* ---- DevTools preparation: detached DOM state (propagateDOMState) ---- */

static inline int edge_kind_is(const graph *g, edge_ix e, unsigned kind)
{
    return GRAPH_EDGE_KIND(g->edge_kind[e]) == kind;
}

/* Attached state spreads from every attached native node to the native nodes it reaches;
 * detached state then spreads to the rest. Hidden and weak edges do not propagate, nor does
 * any non-native node. Detached nodes are renamed "Detached <name>". */
static lr_status propagate_dom_state(ctx *x)
{
    graph *g = x->g;
    uint32_t n = g->n_nodes;
    uint8_t *visited = err_calloc(n, 1);
    uint32_t *att = err_mallocarray(n, sizeof *att);
    uint32_t *det = err_mallocarray(n, sizeof *det);
    lr_status s = LR_OK;
    if (!visited || !att || !det) {
        s = LR_FAIL(x->c.err, LR_ERR_NOMEM, "%s: out of memory", x->c.name);
        goto out;
    }
    uint32_t n_att = 0, n_det = 0;
    int native = x->r.native;
#define PROCESS(o, state)                                                                      \
    do {                                                                                       \
        uint32_t o_ = (o);                                                                     \
        if (visited[o_])                                                                       \
            break;                                                                             \
        visited[o_] = 1;                                                                       \
        if (g->node_type[o_] != (uint8_t)native || native < 0)                                 \
            break;                                                                             \
        x->detached[o_] = (uint8_t)(state);                                                    \
        if ((state) == 1) {                                                                    \
            att[n_att++] = o_;                                                                 \
        } else if ((state) == 2) {                                                             \
            const char *old_ = graph_str(g, g->node_name[o_]);                                 \
            size_t l_ = strlen(old_);                                                          \
            s = scratch_fit(&x->sc, l_ + 10, x->c.err);                                        \
            if (s != LR_OK)                                                                    \
                goto out;                                                                      \
            memcpy(x->sc.buf, "Detached ", 9);                                                 \
            memcpy(x->sc.buf + 9, old_, l_);                                                   \
            s = graph_intern(g, (const char *)x->sc.buf, l_ + 9, &g->node_name[o_], x->c.err); \
            if (s != LR_OK)                                                                    \
                goto out;                                                                      \
            det[n_det++] = o_;                                                                 \
        }                                                                                      \
    } while (0)
    for (uint32_t i = 0; i < n; i++) {
        uint8_t st = x->detached[i];
        if (st != 0)
            PROCESS(i, st);
    }
    while (n_att) {
        uint32_t v = att[--n_att];
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            if (edge_kind_is(g, e, GRAPH_EDGE_HIDDEN) || edge_kind_is(g, e, GRAPH_EDGE_WEAK))
                continue;
            PROCESS(g->edge_to[e], 1);
        }
    }
    while (n_det) {
        uint32_t v = det[--n_det];
        if (x->detached[v] == 1)
            continue;
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            if (edge_kind_is(g, e, GRAPH_EDGE_HIDDEN) || edge_kind_is(g, e, GRAPH_EDGE_WEAK))
                continue;
            PROCESS(g->edge_to[e], 2);
        }
    }
#undef PROCESS
out:
    free(visited);
    free(att);
    free(det);
    return s;
}

/* Hands the DOM link state to the graph (g->node_dom), so analyses can filter and group on
 * it: the propagated `detachedness` when the snapshot has the field, else the "Detached "
 * name prefix of native nodes (older Chrome writes detached DOM nodes that way, and DevTools
 * reads them so). Left NULL when no node is attached or detached (Node.js, ArkTS). */
static lr_status keep_dom_state(ctx *x)
{
    graph *g = x->g;
    uint32_t n = g->n_nodes;
    if (!x->detached && x->r.native >= 0) {
        for (uint32_t i = 0; i < n; i++) {
            if (g->node_type[i] != (uint8_t)x->r.native ||
                strncmp(graph_str(g, g->node_name[i]), "Detached ", 9) != 0)
                continue;
            if (!x->detached && !(x->detached = err_calloc(n, 1)))
                return LR_FAIL(x->c.err, LR_ERR_NOMEM, "%s: out of memory", x->c.name);
            x->detached[i] = GRAPH_DOM_DETACHED;
        }
    }
    int any = 0;
    for (uint32_t i = 0; x->detached && i < n && !any; i++)
        any = x->detached[i] != 0;
    if (any) {
        g->node_dom = x->detached;
        x->detached = NULL;
    }
    return LR_OK;
}

/* ---- DevTools preparation: shallow sizes (JSHeapSnapshot.calculateShallowSizes) ---- */

static int is_type(const graph *g, node_ix v, int t) { return t >= 0 && g->node_type[v] == t; }

/* Whether the root has a child DevTools calls a user root (a non-synthetic node, or the
 * synthetic "(Document DOM trees)"). Without one the snapshot exposes internals and DevTools
 * keeps raw sizes. */
static int has_user_roots(const ctx *x)
{
    const graph *g = x->g;
    node_ix root = g->synthetic_root;
    for (edge_ix e = g->first_edge[root]; e < g->first_edge[root + 1]; e++) {
        node_ix t = g->edge_to[e];
        if (!is_type(g, t, x->r.synthetic))
            return 1;
        if (strcmp(graph_str(g, g->node_name[t]), "(Document DOM trees)") == 0)
            return 1;
    }
    return 0;
}

#define OWN_UNVISITED 0xffffffffu
#define OWN_MULTIPLE 0xfffffffeu

/* Hidden and array nodes (and native "system / ExternalStringData") owned by exactly one other
 * node, through non-weak edges, have their size moved to that owner, unless the owner is the
 * root or synthetic. Sizes add with saturation (DevTools wraps at 2^32). */
/* The part that reads strings, on this thread: which nodes can be owned, and the work list
 * of the others. reattribute_sizes does the rest on the helper, beside assign_classes, which
 * interns strings but never reads or writes sizes. */
static lr_status reattribute_prepare(ctx *x)
{
    graph *g = x->g;
    uint32_t n = g->n_nodes;
    if (!has_user_roots(x))
        return LR_OK;
    uint32_t *owners = err_mallocarray(n, sizeof *owners);
    uint32_t cap = n < 1024 ? 1024 : n, len = 0;
    uint32_t *work = err_mallocarray(cap, sizeof *work);
    if (!owners || !work) {
        free(owners);
        free(work);
        return LR_FAIL(x->c.err, LR_ERR_NOMEM, "%s: out of memory", x->c.name);
    }
    graph_hint_huge(owners, (size_t)n * sizeof *owners);
    graph_hint_huge(work, (size_t)cap * sizeof *work);
    for (uint32_t i = 0; i < n; i++) {
        int unowned = is_type(g, i, x->r.hidden) || is_type(g, i, x->r.array) ||
                      (is_type(g, i, x->r.native) &&
                       strcmp(graph_str(g, g->node_name[i]), "system / ExternalStringData") == 0);
        if (unowned) {
            owners[i] = OWN_UNVISITED;
        } else {
            owners[i] = i;
            work[len++] = i;
        }
    }
    x->own = owners;
    x->own_work = work;
    x->own_len = len;
    x->own_cap = cap;
    return LR_OK;
}

static lr_status reattribute_sizes(ctx *x, cur *c)
{
    graph *g = x->g;
    uint32_t n = g->n_nodes;
    uint32_t *owners = x->own, *work = x->own_work;
    uint32_t len = x->own_len, cap = x->own_cap;
    uint64_t saturated = 0;
    lr_status s = LR_OK;
    x->own = x->own_work = NULL;
    if (!owners)
        return LR_OK;
    while (len) {
        uint32_t id = work[--len];
        uint32_t owner = owners[id];
        for (edge_ix e = g->first_edge[id]; e < g->first_edge[id + 1]; e++) {
            if (edge_kind_is(g, e, GRAPH_EDGE_WEAK))
                continue;
            uint32_t t = g->edge_to[e];
            uint32_t o = owners[t];
            if (o == OWN_UNVISITED) {
                owners[t] = owner;
            } else if (o == t || o == owner || o == OWN_MULTIPLE) {
                continue;
            } else {
                owners[t] = OWN_MULTIPLE;
            }
            if (len == cap) {
                /* Each node enters at most twice (unvisited -> owner -> multiple). */
                uint64_t nc = (uint64_t)cap * 2;
                if (nc > 2ull * n + 1024)
                    nc = 2ull * n + 1024;
                uint32_t *w2 = err_reallocarray(work, nc, sizeof *w2);
                if (!w2) {
                    s = LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
                    goto out;
                }
                work = w2;
                cap = (uint32_t)nc;
            }
            work[len++] = t;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t o = owners[i];
        if (o == OWN_UNVISITED || o == OWN_MULTIPLE || o == i)
            continue;
        if (is_type(g, o, x->r.synthetic) || o == g->synthetic_root)
            continue;
        uint64_t sum = (uint64_t)g->node_size[o] + g->node_size[i];
        g->node_size[i] = 0;
        if (sum > UINT32_MAX) { /* sat32's count, kept apart from g->diag until the join */
            saturated++;
            sum = UINT32_MAX;
        }
        g->node_size[o] = (uint32_t)sum;
    }
out:
    x->own_saturated = saturated;
    free(owners);
    free(work);
    return s;
}

/* ---- DevTools preparation: class names and keys ---- */

/* UTF-16 length of a UTF-8 string (what JavaScript's .length counts). */
static size_t u16len(const char *s)
{
    size_t n = 0;
    for (const uint8_t *p = (const uint8_t *)s; *p; p++) {
        if ((*p & 0xc0) != 0x80)
            n++;
        if (*p >= 0xf0)
            n++;
    }
    return n;
}

/* Next UTF-16 code unit of a UTF-8 string; *pend holds a pending low surrogate. */
static uint32_t next_u16(const uint8_t **pp, uint32_t *pend)
{
    if (*pend) {
        uint32_t u = *pend;
        *pend = 0;
        return u;
    }
    const uint8_t *p = *pp;
    uint32_t cp = *p++;
    if (cp >= 0xf0 && p[0] && p[1] && p[2]) {
        cp = ((cp & 0x07) << 18) | ((uint32_t)(p[0] & 0x3f) << 12) |
             ((uint32_t)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
        p += 3;
    } else if (cp >= 0xe0 && p[0] && p[1]) {
        cp = ((cp & 0x0f) << 12) | ((uint32_t)(p[0] & 0x3f) << 6) | (p[1] & 0x3f);
        p += 2;
    } else if (cp >= 0xc0 && p[0]) {
        cp = ((cp & 0x1f) << 6) | (p[0] & 0x3f); /* C0 80 decodes to U+0000 */
        p += 1;
    }
    *pp = p;
    if (cp >= 0x10000) {
        cp -= 0x10000;
        *pend = 0xdc00 | (cp & 0x3ff);
        return 0xd800 | (cp >> 10);
    }
    return cp;
}

/* Compares two strings the way JavaScript's default sort and < do (by UTF-16 code units). */
static int js_strcmp(const char *a, const char *b)
{
    const uint8_t *p = (const uint8_t *)a, *q = (const uint8_t *)b;
    uint32_t pa = 0, pb = 0;
    for (;;) {
        int ea = !*p && !pa, eb = !*q && !pb;
        if (ea || eb)
            return ea && eb ? 0 : ea ? -1 : 1;
        uint32_t ua = next_u16(&p, &pa), ub = next_u16(&q, &pb);
        if (ua != ub)
            return ua < ub ? -1 : 1;
    }
}

/* Appends a property name as DevTools' formatPropertyName shows it: names holding , ' " { }
 * are JSON-quoted. */
static lr_status append_prop(ctx *x, size_t *len, const char *name)
{
    size_t l = strlen(name);
    int quote = strpbrk(name, ",'\"{}") != NULL;
    LR_TRY(scratch_fit(&x->sc, *len + 6 * l + 8, x->c.err));
    uint8_t *o = x->sc.buf + *len;
    if (!quote) {
        memcpy(o, name, l);
        *len += l;
        return LR_OK;
    }
    size_t k = 0;
    o[k++] = '"';
    for (const uint8_t *p = (const uint8_t *)name; *p; p++) {
        uint8_t ch = *p;
        if (ch == '"' || ch == '\\') {
            o[k++] = '\\';
            o[k++] = ch;
        } else if (ch < 0x20) {
            static const char *ESC = "btn?fr";
            if (ch >= 8 && ch <= 13 && ch != 11) {
                o[k++] = '\\';
                o[k++] = (uint8_t)ESC[ch - 8];
            } else {
                static const char HEX[] = "0123456789abcdef";
                o[k++] = '\\';
                o[k++] = 'u';
                o[k++] = '0';
                o[k++] = '0';
                o[k++] = (uint8_t)HEX[ch >> 4];
                o[k++] = (uint8_t)HEX[ch & 15];
            }
        } else {
            o[k++] = ch;
        }
    }
    o[k++] = '"';
    *len += k;
    return LR_OK;
}

/* Interface-name candidate text of plain object v (inferInterfaceDefinitions): "{p1, p2}"
 * from its property edges in order, skipping __proto__, cut near 120 UTF-16 units. Leaves
 * the text in x->sc.buf (NUL-terminated) and returns its byte length, 0 if no property. */
static lr_status iface_text(ctx *x, node_ix v, str_ix s_proto, size_t *out, uint32_t *n_props)
{
    graph *g = x->g;
    size_t len = 1, ulen = 1;
    uint32_t np = 0;
    LR_TRY(scratch_fit(&x->sc, 8, x->c.err));
    x->sc.buf[0] = '{';
    for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
        if (!edge_kind_is(g, e, GRAPH_EDGE_PROPERTY) || g->edge_name[e] == s_proto)
            continue;
        const char *nm = graph_str(g, g->edge_name[e]);
        size_t before = len;
        LR_TRY(append_prop(x, &len, nm));
        x->sc.buf[len] = 0;
        size_t fu = u16len((const char *)x->sc.buf + before);
        len = before;
        if (ulen > 1 && ulen + fu > 120)
            break;
        if (ulen != 1) {
            LR_TRY(scratch_fit(&x->sc, len + 3, x->c.err));
            x->sc.buf[len++] = ',';
            x->sc.buf[len++] = ' ';
            ulen += 2;
        }
        LR_TRY(append_prop(x, &len, nm));
        ulen += fu;
        np++;
    }
    LR_TRY(scratch_fit(&x->sc, len + 2, x->c.err));
    x->sc.buf[len++] = '}';
    x->sc.buf[len] = 0;
    *out = np ? len : 0;
    *n_props = np;
    return LR_OK;
}

/* Map from a 4-word key to a uint32 value, over the one hash table: entries keep their
 * key and value in insertion order. */
typedef struct kmap {
    hmap index;     /* hash_words of the key -> entry */
    uint32_t *keys; /* 4 words per entry */
    uint32_t *vals; /* value per entry */
    uint32_t cap;   /* entries allocated */
    uint32_t n;
} kmap;

static uint32_t kmap_find(const kmap *m, const uint32_t k[4])
{
    hmap_it it;
    for (uint32_t e = hmap_first(&m->index, hash_words(k, 4), &it); e != HMAP_NONE;
         e = hmap_next(&m->index, &it))
        if (memcmp(&m->keys[4 * (size_t)e], k, 4 * sizeof *k) == 0)
            return m->vals[e];
    return UINT32_MAX;
}

/* Finds key; when absent inserts it with value `fresh`. Returns the value, or UINT32_MAX when
 * out of memory. *added tells whether it was inserted. */
static uint32_t kmap_get(kmap *m, const uint32_t k[4], uint32_t fresh, int *added)
{
    *added = 0;
    uint32_t v = kmap_find(m, k);
    if (v != UINT32_MAX)
        return v;
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 1024;
        uint32_t *nk = err_reallocarray(m->keys, cap, 4 * sizeof *nk);
        if (!nk)
            return UINT32_MAX;
        m->keys = nk;
        uint32_t *nv = err_reallocarray(m->vals, cap, sizeof *nv);
        if (!nv)
            return UINT32_MAX;
        m->vals = nv;
        m->cap = cap;
    }
    if (!hmap_add(&m->index, hash_words(k, 4), m->n))
        return UINT32_MAX;
    memcpy(&m->keys[4 * (size_t)m->n], k, 4 * sizeof *k);
    m->vals[m->n++] = fresh;
    *added = 1;
    return fresh;
}

static void kmap_free(kmap *m)
{
    hmap_free(&m->index);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* One interface candidate / definition. */
typedef struct iface {
    str_ix name;     /* "{a, b}" */
    uint32_t count;  /* plain objects whose candidate text it is */
    uint32_t first;  /* first such object (its properties define the interface) */
    uint32_t order;  /* insertion order, for a stable sort */
} iface;

static int iface_cmp(const void *a, const void *b)
{
    const iface *p = a, *q = b;
    if (p->count != q->count)
        return p->count > q->count ? -1 : 1;
    return p->order < q->order ? -1 : p->order > q->order;
}

/* Property tree of applyInterfaceDefinitions: tree nodes, edges in a kmap keyed
 * (parent, property string). */
typedef struct ptree {
    kmap next;         /* (parent, prop, 0, 0) -> child */
    uint32_t *greatest; /* per tree node: greatest property leaving it, GRAPH_NONE if none */
    uint32_t *match;    /* per tree node: definition index + 1, 0 if none */
    uint32_t n, cap;
} ptree;

static int ptree_add(ptree *t)
{
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 256;
        uint32_t *g2 = err_reallocarray(t->greatest, cap, sizeof *g2);
        if (!g2)
            return -1;
        t->greatest = g2;
        uint32_t *m2 = err_reallocarray(t->match, cap, sizeof *m2);
        if (!m2)
            return -1;
        t->match = m2;
        t->cap = cap;
    }
    t->greatest[t->n] = GRAPH_NONE;
    t->match[t->n] = 0;
    return (int)t->n++;
}

static int prop_cmp(const void *a, const void *b, void *gv)
{
    const graph *g = gv;
    str_ix p = *(const str_ix *)a, q = *(const str_ix *)b;
    if (p == q)
        return 0;
    return js_strcmp(graph_str(g, p), graph_str(g, q));
}

/* Collects the property-edge names of v (all of them, as applyInterfaceDefinitions does, or
 * without __proto__ and cut like the candidate text when `as_def`), sorted by UTF-16 order. */
static lr_status sorted_props(ctx *x, node_ix v, int as_def, str_ix s_proto, str_ix **buf,
                              uint32_t *cap, uint32_t *n)
{
    graph *g = x->g;
    uint32_t k = 0;
    size_t ulen = 1;
    for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
        if (!edge_kind_is(g, e, GRAPH_EDGE_PROPERTY))
            continue;
        if (as_def) {
            if (g->edge_name[e] == s_proto)
                continue;
            size_t len = 0;
            LR_TRY(append_prop(x, &len, graph_str(g, g->edge_name[e])));
            x->sc.buf[len] = 0;
            size_t fu = u16len((const char *)x->sc.buf);
            if (ulen > 1 && ulen + fu > 120)
                break;
            ulen += (ulen != 1 ? 2 : 0) + fu;
        }
        if (k == *cap) {
            uint32_t nc = *cap ? *cap * 2 : 64;
            str_ix *b2 = err_reallocarray(*buf, nc, sizeof *b2);
            if (!b2)
                return LR_FAIL(x->c.err, LR_ERR_NOMEM, "out of memory");
            *buf = b2;
            *cap = nc;
        }
        (*buf)[k++] = g->edge_name[e];
    }
    if (k > 1)
        qsort_r(*buf, k, sizeof **buf, prop_cmp, g);
    *n = k;
    return LR_OK;
}

/* Namespaces of DevTools' internal class keys. Raw names keep the snapshot's string; names
 * DevTools adds ("(system)", "Function", "<div>", ...) are new strings even when an object
 * already carries the same text, and interface names are a third set. */
enum { NS_RAW = 0, NS_ADDED = 1, NS_IFACE = 2, NS_LOC = 3 };

static lr_status intern_str(ctx *x, const char *s, str_ix *out)
{
    return graph_intern(x->g, s, strlen(s), out, x->c.err);
}

/* applyInterfaceDefinitions: every plain object of the graph (type object, name "Object")
 * matched against the definitions d = 0..n_defs-1, each the properties
 * def_props[def_off[d] .. def_off[d+1]) in UTF-16 order. *best gets, per node, the index + 1
 * of the definition DevTools picks (most properties, then the earliest), 0 for none and for
 * nodes that are no plain object (owned by the caller, n_nodes entries). Property tree walk:
 * O(sum of plain objects' properties x live tree states). */
static lr_status apply_ifaces(ctx *x, uint32_t n_defs, const uint32_t *def_off,
                              const str_ix *def_props, str_ix s_proto, str_ix s_object,
                              uint32_t **best_out)
{
    graph *g = x->g;
    uint32_t n = g->n_nodes;
    lr_status s = LR_OK;
    ptree pt = {0};
    str_ix *props = NULL;
    uint32_t cap_props = 0, n_props = 0;
    uint32_t *states = NULL, *nstates = NULL, *mark = NULL;
    uint32_t *best_of = err_calloc(n ? n : 1, sizeof *best_of);
    if (!best_of || ptree_add(&pt) < 0)
        goto nomem;
    for (uint32_t d = 0; d < n_defs; d++) {
        uint32_t cur_node = 0;
        for (uint32_t k = def_off[d]; k < def_off[d + 1]; k++) {
            uint32_t key[4] = {cur_node, def_props[k], 0, 0};
            uint32_t child = kmap_find(&pt.next, key);
            if (child == UINT32_MAX) {
                int c2 = ptree_add(&pt);
                if (c2 < 0)
                    goto nomem;
                int added;
                if (kmap_get(&pt.next, key, (uint32_t)c2, &added) == UINT32_MAX)
                    goto nomem;
                str_ix gn = pt.greatest[cur_node];
                if (gn == GRAPH_NONE || js_strcmp(graph_str(g, gn), graph_str(g, def_props[k])) < 0)
                    pt.greatest[cur_node] = def_props[k];
                child = (uint32_t)c2;
            }
            cur_node = child;
        }
        if (!pt.match[cur_node])
            pt.match[cur_node] = d + 1;
    }
    states = err_mallocarray(pt.n, sizeof *states);
    nstates = err_mallocarray(pt.n, sizeof *nstates);
    mark = err_calloc(pt.n, sizeof *mark);
    if (!states || !nstates || !mark)
        goto nomem;
    uint32_t stamp = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!is_type(g, i, x->r.object) || g->node_name[i] != s_object)
            continue;
        if ((s = sorted_props(x, i, 0, s_proto, &props, &cap_props, &n_props)))
            goto out;
        uint32_t ns = 1;
        states[0] = 0;
        uint32_t best = pt.match[0]; /* definition + 1; 0 = plain "Object" */
        for (uint32_t k = 0; k < n_props && ns; k++) {
            str_ix pr = props[k];
            uint32_t nn = 0;
            stamp++;
            for (uint32_t q = 0; q < ns; q++) {
                uint32_t st = states[q];
                str_ix gn = pt.greatest[st];
                /* a state stays only while a greater property could still leave it */
                int keep = gn != GRAPH_NONE && gn != pr &&
                           js_strcmp(graph_str(g, pr), graph_str(g, gn)) < 0;
                if (keep && mark[st] != stamp) {
                    mark[st] = stamp;
                    nstates[nn++] = st;
                }
                uint32_t key[4] = {st, pr, 0, 0};
                uint32_t child = kmap_find(&pt.next, key);
                if (child == UINT32_MAX)
                    continue;
                if (mark[child] != stamp) {
                    mark[child] = stamp;
                    nstates[nn++] = child;
                }
                /* selectBetterMatch: more properties wins, then the earlier definition */
                uint32_t m = pt.match[child];
                uint32_t npm = m ? def_off[m] - def_off[m - 1] : 0;
                uint32_t npb = best ? def_off[best] - def_off[best - 1] : 0;
                if (m && (!best || npm > npb || (npm == npb && m < best)))
                    best = m;
            }
            uint32_t *tmp = states;
            states = nstates;
            nstates = tmp;
            ns = nn;
        }
        best_of[i] = best;
    }
    *best_out = best_of;
    best_of = NULL;
    goto out;
nomem:
    s = LR_FAIL(x->c.err, LR_ERR_NOMEM, "%s: out of memory", x->c.name);
out:
    free(best_of);
    kmap_free(&pt.next);
    free(pt.greatest);
    free(pt.match);
    free(props);
    free(states);
    free(nstates);
    free(mark);
    return s;
}

/* Computes every node's DevTools class (calculateObjectNames + interface definitions +
 * classKeyInternal) and creates one graph class per distinct key, in node order. */
static lr_status assign_classes(ctx *x)
{
    graph *g = x->g;
    uint32_t n = g->n_nodes;
    lr_status s = LR_OK;
    kmap cls = {0}, cand = {0};
    iface *ifs = NULL;
    uint32_t n_ifs = 0, cap_ifs = 0;
    str_ix *props = NULL;
    uint32_t cap_props = 0, n_props = 0;
    uint32_t *def_off = NULL, *best_def = NULL;
    str_ix *def_names = NULL, *def_props = NULL;
    uint32_t *by_name[3] = {NULL, NULL, NULL};
    uint32_t cap_classes = 0;
    str_ix *keys = NULL;
    str_ix *name_cn = NULL; /* per node name: its class name, GRAPH_NONE until seen */
    uint8_t *name_added = NULL; /* per node name: NS_ADDED rather than NS_RAW */
    uint32_t *node_ns = err_mallocarray(n, sizeof *node_ns);
    str_ix *node_cn = err_mallocarray(n, sizeof *node_cn);
    if (!node_ns || !node_cn) {
        s = LR_FAIL(x->c.err, LR_ERR_NOMEM, "%s: out of memory", x->c.name);
        goto out;
    }
    graph_hint_huge(node_ns, (size_t)n * sizeof *node_ns);
    graph_hint_huge(node_cn, (size_t)n * sizeof *node_cn);
    str_ix s_system, s_code, s_function, s_regexp, s_object, s_proto;
    if ((s = intern_str(x, "(system)", &s_system)) || (s = intern_str(x, "(compiled code)",
                                                                        &s_code)) ||
        (s = intern_str(x, "Function", &s_function)) || (s = intern_str(x, "RegExp", &s_regexp)) ||
        (s = intern_str(x, "Object", &s_object)) || (s = intern_str(x, "__proto__", &s_proto)))
        goto out;
    str_ix type_cn[V8_MAX_TYPES + 1];
    for (uint32_t t = 0; t <= V8_UNKNOWN_TYPE; t++) {
        char buf[V8_NAME_MAX + 4];
        if (t < x->h.node_types.n)
            snprintf(buf, sizeof buf, "(%s)", x->h.node_types.names[t]);
        else
            strcpy(buf, "(undefined)");
        if ((s = intern_str(x, buf, &type_cn[t])))
            goto out;
    }

    /* calculateObjectNames. The class name of an object or native node depends only on its
     * name, so it is computed once per name (every node name is interned by now). */
    uint32_t n_named = g->strings.n;
    name_cn = err_mallocarray(n_named ? n_named : 1, sizeof *name_cn);
    name_added = err_mallocarray(n_named ? n_named : 1, 1);
    if (!name_cn || !name_added)
        goto nomem;
    memset(name_cn, 0xff, (size_t)n_named * sizeof *name_cn);
    for (uint32_t i = 0; i < n; i++) {
        int t = g->node_type[i];
        uint32_t ns = NS_ADDED;
        str_ix cn;
        if (t == x->r.hidden) {
            cn = s_system;
        } else if ((t == x->r.object || t == x->r.native) && g->node_name[i] < n_named &&
                   name_cn[g->node_name[i]] != GRAPH_NONE) {
            /* The name was seen before: the same answer, without reading it again. */
            cn = name_cn[g->node_name[i]];
            ns = name_added[g->node_name[i]] ? NS_ADDED : NS_RAW;
        } else if (t == x->r.object || t == x->r.native) {
            const char *nm = graph_str(g, g->node_name[i]);
            const char *sp = NULL;
            if (nm[0] == '<')
                sp = strchr(nm, ' ');
            else if (strncmp(nm, "Detached <", 10) == 0)
                sp = strchr(nm + 10, ' ');
            if (nm[0] == '<' || strncmp(nm, "Detached <", 10) == 0) {
                if (sp) {
                    size_t l = (size_t)(sp - nm);
                    if ((s = scratch_fit(&x->sc, l + 2, x->c.err)))
                        goto out;
                    memcpy(x->sc.buf, nm, l);
                    x->sc.buf[l] = '>';
                    if ((s = graph_intern(g, (const char *)x->sc.buf, l + 1, &cn, x->c.err)))
                        goto out;
                } else {
                    cn = g->node_name[i];
                }
            } else {
                cn = g->node_name[i];
                ns = NS_RAW;
            }
        } else if (t == x->r.code) {
            cn = s_code;
        } else if (t == x->r.closure) {
            cn = s_function;
        } else if (t == x->r.regexp) {
            cn = s_regexp;
        } else {
            cn = type_cn[t];
        }
        if ((t == x->r.object || t == x->r.native) && g->node_name[i] < n_named) {
            name_cn[g->node_name[i]] = cn;
            name_added[g->node_name[i]] = ns == NS_ADDED;
        }
        node_ns[i] = ns;
        node_cn[i] = cn;
    }

    /* inferInterfaceDefinitions */
    uint32_t total_plain = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!is_type(g, i, x->r.object) || g->node_name[i] != s_object)
            continue;
        total_plain++;
        size_t len;
        uint32_t np;
        if ((s = iface_text(x, i, s_proto, &len, &np)))
            goto out;
        if (!len)
            continue;
        str_ix nm;
        if ((s = graph_intern(g, (const char *)x->sc.buf, len, &nm, x->c.err)))
            goto out;
        uint32_t k[4] = {nm, 0, 0, 0};
        int added;
        uint32_t ix = kmap_get(&cand, k, n_ifs, &added);
        if (ix == UINT32_MAX) {
            s = LR_FAIL(x->c.err, LR_ERR_NOMEM, "out of memory");
            goto out;
        }
        if (added) {
            if (n_ifs == cap_ifs) {
                uint32_t nc = cap_ifs ? cap_ifs * 2 : 256;
                iface *f2 = err_reallocarray(ifs, nc, sizeof *f2);
                if (!f2) {
                    s = LR_FAIL(x->c.err, LR_ERR_NOMEM, "out of memory");
                    goto out;
                }
                ifs = f2;
                cap_ifs = nc;
            }
            ifs[n_ifs] = (iface){.name = nm, .count = 0, .first = i, .order = n_ifs};
            n_ifs++;
        }
        ifs[ix].count++;
    }
    if (n_ifs > 1)
        qsort(ifs, n_ifs, sizeof *ifs, iface_cmp);
    double min_count = (double)total_plain / 1000.0;
    if (min_count < 2)
        min_count = 2;
    uint32_t n_defs = 0;
    while (n_defs < n_ifs && (double)ifs[n_defs].count >= min_count)
        n_defs++;

    /* applyInterfaceDefinitions, with the definitions kept for other snapshots' use (the
     * Comparison view names a base snapshot's objects with the compared one's). */
    if (n_defs) {
        uint32_t total_props = 0;
        if (!(def_off = err_mallocarray((size_t)n_defs + 1, sizeof *def_off)) ||
            !(def_names = err_mallocarray(n_defs, sizeof *def_names)))
            goto nomem;
        for (uint32_t d = 0; d < n_defs; d++) {
            if ((s = sorted_props(x, ifs[d].first, 1, s_proto, &props, &cap_props, &n_props)))
                goto out;
            str_ix *dp2 = err_reallocarray(def_props, (size_t)total_props + n_props + 1,
                                           sizeof *dp2);
            if (!dp2)
                goto nomem;
            def_props = dp2;
            def_off[d] = total_props;
            memcpy(def_props + total_props, props, (size_t)n_props * sizeof *props);
            total_props += n_props;
            def_names[d] = ifs[d].name;
        }
        def_off[n_defs] = total_props;
        if ((s = apply_ifaces(x, n_defs, def_off, def_props, s_proto, s_object, &best_def)))
            goto out;
        for (uint32_t i = 0; i < n; i++) {
            if (best_def[i]) {
                node_ns[i] = NS_IFACE;
                node_cn[i] = def_names[best_def[i] - 1];
            }
        }
        x->st->n_ifaces = n_defs;
        x->st->iface_names = def_names;
        x->st->iface_off = def_off;
        x->st->iface_props = def_props;
        def_names = NULL;
        def_off = NULL;
        def_props = NULL;
    }

    /* classKeyInternal, one graph class per key. Name-only keys go through a direct table
     * per namespace (every class name is interned by now); location keys through a map. */
    uint32_t n_str = g->strings.n;
    for (int k = 0; k < 3; k++) {
        by_name[k] = err_mallocarray(n_str ? n_str : 1, sizeof *by_name[k]);
        if (!by_name[k])
            goto nomem;
        memset(by_name[k], 0xff, (size_t)n_str * sizeof *by_name[k]);
    }
    uint32_t loc_at = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t key[4];
        const loc *l = NULL;
        if (is_type(g, i, x->r.object) && x->n_locs)
            l = loc_next(x, i, &loc_at);
        if (l) {
            key[0] = NS_LOC | (node_cn[i] << 2);
            key[1] = l->script;
            key[2] = l->line;
            key[3] = l->col;
        } else {
            key[0] = node_ns[i] | (node_cn[i] << 2);
            key[1] = node_cn[i] >> 30;
            key[2] = 0;
            key[3] = 0;
        }
        int added;
        uint32_t c;
        if (!l && node_cn[i] < n_str) {
            uint32_t *slot = &by_name[node_ns[i]][node_cn[i]];
            added = *slot == UINT32_MAX;
            if (added)
                *slot = g->n_classes;
            c = *slot;
        } else {
            c = kmap_get(&cls, key, g->n_classes, &added);
            if (c == UINT32_MAX)
                goto nomem;
        }
        if (added) {
            if (g->n_classes == cap_classes) {
                uint32_t nc = cap_classes ? cap_classes * 2 : 1024;
                graph_class *c2 = err_reallocarray(g->classes, nc, sizeof *c2);
                str_ix *k2 = err_reallocarray(keys, nc, sizeof *k2);
                if (c2)
                    g->classes = c2;
                if (k2)
                    keys = k2;
                if (!c2 || !k2)
                    goto nomem;
                cap_classes = nc;
            }
            graph_class *gc = &g->classes[g->n_classes];
            memset(gc, 0, sizeof *gc);
            gc->name = node_cn[i];
            gc->super = GRAPH_NONE;
            gc->node = GRAPH_NONE;
            char head[40];
            if (l)
                snprintf(head, sizeof head, "%u,%u,%u,", l->script, l->line, l->col);
            else
                strcpy(head, ",");
            const char *nm = graph_str(g, node_cn[i]);
            size_t hl = strlen(head), nl = strlen(nm);
            if ((s = scratch_fit(&x->sc, hl + nl + 1, x->c.err)))
                goto out;
            memcpy(x->sc.buf, head, hl);
            memcpy(x->sc.buf + hl, nm, nl);
            if ((s = graph_intern(g, (const char *)x->sc.buf, hl + nl, &keys[g->n_classes],
                                  x->c.err)))
                goto out;
            g->n_classes++;
        }
        g->node_class[i] = c;
    }
    x->st->class_keys = keys;
    keys = NULL;
    goto out;
nomem:
    s = LR_FAIL(x->c.err, LR_ERR_NOMEM, "%s: out of memory", x->c.name);
out:
    free(keys);
    free(name_cn);
    free(name_added);
    free(node_ns);
    free(node_cn);
    kmap_free(&cls);
    kmap_free(&cand);
    free(ifs);
    free(props);
    free(def_off);
    free(def_names);
    free(def_props);
    free(best_def);
    for (int k = 0; k < 3; k++)
        free(by_name[k]);
    return s;
}

/* ---- the Comparison view's naming of a base snapshot (aggregatesForDiff) ---- */

lr_status v8_apply_interfaces(graph *g, const graph *from, lr_error *err)
{
    if (!v8_class_keys(g) || !v8_class_keys(from))
        return LR_FAIL(err, LR_ERR_USAGE, "interface definitions need two V8 snapshots");
    v8_state *st = g->fmt_state;
    const v8_state *fs = from->fmt_state;
    uint32_t n = g->n_nodes, nd = fs->n_ifaces;
    uint32_t total = nd ? fs->iface_off[nd] : 0;
    lr_status s = LR_OK;
    ctx y;
    memset(&y, 0, sizeof y);
    y.g = g;
    y.c.err = err;
    y.c.name = g->path ? g->path : "<input>";
    y.r.object = -1;
    for (uint32_t t = 0; t < g->n_types; t++)
        if (g->type_names[t] && strcmp(g->type_names[t], "object") == 0 && y.r.object < 0)
            y.r.object = (int)t;
    uint32_t *off = err_mallocarray((size_t)nd + 1, sizeof *off);
    str_ix *props = err_mallocarray(total ? total : 1, sizeof *props);
    str_ix *names = err_mallocarray(nd ? nd : 1, sizeof *names);
    uint32_t *best = NULL;
    kmap bykey = {0};
    str_ix s_proto, s_object;
    if (!off || !props || !names)
        goto nomem;
    /* The definitions' strings, interned in g (the property tree compares string indexes). */
    for (uint32_t d = 0; d < nd; d++) {
        off[d] = fs->iface_off[d];
        if ((s = intern_str(&y, graph_str(from, fs->iface_names[d]), &names[d])))
            goto out;
    }
    off[nd] = total;
    for (uint32_t k = 0; k < total; k++)
        if ((s = intern_str(&y, graph_str(from, fs->iface_props[k]), &props[k])))
            goto out;
    if ((s = intern_str(&y, "__proto__", &s_proto)) || (s = intern_str(&y, "Object", &s_object)))
        goto out;
    if (y.r.object < 0)
        goto out;
    if ((s = apply_ifaces(&y, nd, off, props, s_proto, s_object, &best)))
        goto out;
    for (class_ix c = 0; c < g->n_classes; c++) {
        uint32_t key[4] = {st->class_keys[c], 0, 0, 0};
        int added;
        if (kmap_get(&bykey, key, c, &added) == UINT32_MAX)
            goto nomem;
    }
    uint32_t cap = g->n_classes;
    for (uint32_t i = 0; i < n; i++) {
        if (!is_type(g, i, y.r.object) || g->node_name[i] != s_object)
            continue;
        class_ix c = g->node_class[i];
        str_ix nm = best[i] ? names[best[i] - 1] : s_object;
        if (c >= g->n_classes || g->classes[c].name == nm)
            continue;
        /* Same key prefix ("," or "script,line,column,"), the new name after it. */
        const char *ok = graph_str(g, st->class_keys[c]), *on = graph_str(g, g->classes[c].name);
        size_t kl = strlen(ok), ol = strlen(on);
        size_t pl = kl >= ol ? kl - ol : 0;
        const char *nn = graph_str(g, nm);
        size_t nl = strlen(nn);
        if ((s = scratch_fit(&y.sc, pl + nl + 1, err)))
            goto out;
        memcpy(y.sc.buf, ok, pl);
        memcpy(y.sc.buf + pl, nn, nl);
        str_ix ks;
        if ((s = graph_intern(g, (const char *)y.sc.buf, pl + nl, &ks, err)))
            goto out;
        uint32_t key[4] = {ks, 0, 0, 0};
        uint32_t found = kmap_find(&bykey, key);
        if (found == UINT32_MAX) {
            if (g->n_classes == cap) {
                uint32_t nc = cap + cap / 2 + 16;
                graph_class *c2 = err_reallocarray(g->classes, nc, sizeof *c2);
                if (c2)
                    g->classes = c2;
                str_ix *k2 = err_reallocarray(st->class_keys, nc, sizeof *k2);
                if (k2)
                    st->class_keys = k2;
                if (!c2 || !k2)
                    goto nomem;
                cap = nc;
            }
            found = g->n_classes++;
            graph_class *gc = &g->classes[found];
            memset(gc, 0, sizeof *gc);
            gc->name = nm;
            gc->super = GRAPH_NONE;
            gc->node = GRAPH_NONE;
            st->class_keys[found] = ks;
            int added;
            if (kmap_get(&bykey, key, found, &added) == UINT32_MAX)
                goto nomem;
        }
        g->node_class[i] = found;
    }
    goto out;
nomem:
    s = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", y.c.name);
out:
    free(off);
    free(props);
    free(names);
    free(best);
    kmap_free(&bykey);
    free(y.sc.buf);
    return s;
}

/* ---- load ---- */

static void describe(ctx *x)
{
    graph *g = x->g;
    int ark = x->fo_native >= 0 || nl_find(&x->h.node_types, "framework") >= 0 ||
              nl_find(&x->h.node_types, "slicedstring") >= 0;
    snprintf(g->version, sizeof g->version, "%s heap snapshot, %u node fields",
             ark ? "ArkTS" : "V8", x->nf);
}

static lr_status load(ctx *x)
{
    graph *g = x->g;
    cur *c = &x->c;
    str_ix empty;
    LR_TRY(graph_intern(g, "", 0, &empty, c->err));
    x->empty_str = empty;
    lr_status s = parse_object(c, &x->sc, top_member, x);
    lr_status hs = join_helper(x);
    LR_TRY(hs ? hs : s);
    if (!x->have_header)
        return LR_CORRUPT(c->err, c->name, 0, "no \"snapshot\" header");
    if (!x->nodes.open || !x->edges.open || !x->have_strings)
        return LR_CORRUPT(c->err, c->name, off_of(c, c->p),
                          "missing \"nodes\", \"edges\" or \"strings\"");
    if (!x->meta_done) {
        LR_TRY(setup_meta(x));
        LR_TRY(parse_nodes(x, c));
        LR_TRY(parse_edges_raw(x, c));
    }
    diag_add(&g->diag, DIAG_UNKNOWN_NODE_TYPE, x->n_unknown_type);
    diag_add(&g->diag, DIAG_SIZE_SATURATED, x->n_size_saturated);
    finish_edges(x);
    remap_names(x);
    if (!x->locs_done)
        LR_TRY(parse_locations(x, c));
    LR_TRY(parse_traces(x));
    uint64_t root = 0;
    if (x->h.has_root_index) {
        if (x->h.root_index % x->nf || x->h.root_index / x->nf >= g->n_nodes)
            return LR_CORRUPT(c->err, c->name, 0, "root_index %llu is not a node",
                              (unsigned long long)x->h.root_index);
        root = x->h.root_index / x->nf;
    }
    g->synthetic_root = (node_ix)root;
    g->roots = err_calloc(1, sizeof *g->roots);
    if (!g->roots)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "%s: out of memory", c->name);
    g->roots[0] = (graph_root){.node = (node_ix)root, .kind = GRAPH_ROOT_SYNTHETIC,
                               .thread = 0, .frame = -1};
    g->n_roots = 1;
    /* The size re-attribution is computed beside the naming passes. */
    if (x->detached)
        LR_TRY(propagate_dom_state(x));
    LR_TRY(keep_dom_state(x));
    LR_TRY(reattribute_prepare(x));
    LR_TRY(start_helper(x, helper_sizes));
    s = assign_classes(x);
    hs = join_helper(x);
    diag_add(&g->diag, DIAG_SIZE_SATURATED, x->own_saturated);
    LR_TRY(s ? s : hs);
    LR_TRY(graph_index_class_nodes(g, c->err));
    /* Loading interned every name; what interns later (rules, interface names of another
     * snapshot) is rare enough to rebuild the table then. */
    graph_drop_intern_table(g);
    describe(x);
    return LR_OK;
}

static lr_status v8_load(graph *g, const mfile *m, const fmt_opts *o, lr_error *err)
{
    (void)o; /* edges are always read: DevTools class names need them */
#ifdef __GLIBC__
    /* The load and the analyses after it allocate and free arrays of N entries one after
     * another. glibc's adaptive mmap threshold would move them into the heap after the first
     * free, where freed space stays resident; a fixed threshold hands each back when freed,
     * so the peak is the live arrays, not their history (process-wide and harmless). */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    ctx *x = err_calloc(1, sizeof *x);
    v8_state *st = err_calloc(1, sizeof *st);
    if (!x || !st) {
        free(x);
        free(st);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory");
    }
    g->fmt_state = st;
    g->fmt_free = state_free;
    g->format = V8_FORMAT;
    g->data = m->data;
    g->data_len = m->len;
    g->size_model = GRAPH_SIZES_DEVTOOLS;
    g->synthetic_root = GRAPH_NONE;
    x->g = g;
    x->st = st;
    x->c.base = x->c.p = m->data;
    x->c.end = m->data + m->len;
    x->c.name = g->path ? g->path : "<input>";
    x->c.err = err;
    lr_status s = load(x);
    lr_status hs = join_helper(x); /* an early failure may leave the helper running */
    if (s == LR_OK)
        s = hs;
    st->extra_native_bytes = x->h.extra_native_bytes;
    free(x->own);
    free(x->own_work);
    free(x->smap);
    free(x->detached);
    free(x->locs);
    free(x->sc.buf);
    free(x);
    return s;
}

int v8_sniff(const uint8_t *p, uint64_t n)
{
    uint64_t i = 0;
    while (i < n && is_ws(p[i]))
        i++;
    if (i >= n || p[i] != '{')
        return 0;
    i++;
    while (i < n && is_ws(p[i]))
        i++;
    static const char T[] = "\"snapshot\"";
    if (n - i < sizeof T - 1 || memcmp(p + i, T, sizeof T - 1) != 0)
        return 0;
    i += sizeof T - 1;
    while (i < n && is_ws(p[i]))
        i++;
    return i < n && p[i] == ':';
}

const fmt_reader fmt_v8_reader = {"v8", v8_sniff, v8_load};
