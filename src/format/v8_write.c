/* SPDX-License-Identifier: Apache-2.0 */
/* v8_write.c: graph -> V8 `.heapsnapshot` JSON (format layer), prefix v8w_. Implements
 * v8w_write (v8_write.h) in four steps: mark the strongly reachable nodes (iterative DFS from
 * the roots) and number them in output order; decide ids; write nodes then edges in one
 * streamed pass each, interning every name into a content-deduplicated string table as it is
 * first used; write the string table last (the format puts `strings` at the end, which is
 * what lets names be numbered on the fly). Layout and DevTools reasoning: v8_write.h. */
#define _GNU_SOURCE
#include "format/v8_write.h"

#include "base/hash.h"
#include "base/hmap.h"
#include "base/outfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V8W_FIELDS 7u         /* node fields written */
#define V8W_NO UINT32_MAX     /* "not written" / "no string yet" */

/* Node types in the order of the meta table (Node 20's list). */
enum { T_HIDDEN, T_ARRAY, T_STRING, T_OBJECT, T_CODE, T_CLOSURE, T_REGEXP, T_NUMBER, T_NATIVE,
       T_SYNTHETIC, T_CONS, T_SLICED, T_SYMBOL, T_BIGINT, T_SHAPE, T_WASM, T_COUNT };
static const char *const NODE_TYPES[T_COUNT] = {
    "hidden", "array", "string", "object", "code", "closure", "regexp", "number", "native",
    "synthetic", "concatenated string", "sliced string", "symbol", "bigint", "object shape",
    "wasm object"};
enum { E_CONTEXT, E_ELEMENT, E_PROPERTY, E_INTERNAL, E_HIDDEN, E_SHORTCUT, E_WEAK };

/* ---- JSON text on the output (base/outfile.h buffers, compresses and commits) ---- */

static inline void w_str(outfile *w, const char *s) { outfile_write(w, s, strlen(s)); }

static inline void w_u64(outfile *w, uint64_t v)
{
    char t[24];
    int i = 24;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    outfile_write(w, t + i, (size_t)(24 - i));
}

static void w_hex4(outfile *w, unsigned cp)
{
    static const char hx[] = "0123456789abcdef";
    char t[6] = {'\\', 'u', hx[(cp >> 12) & 15], hx[(cp >> 8) & 15], hx[(cp >> 4) & 15],
                 hx[cp & 15]};
    outfile_write(w, t, 6);
}

/* A JSON string as V8 writes them: ASCII as is (escaped where JSON demands), everything else
 * \uXXXX from the UTF-8 (surrogate pairs above the BMP); bytes that are not UTF-8 (HPROF
 * names are modified UTF-8, dumps are untrusted) become U+FFFD. */
static void w_json_str(outfile *w, const char *s, size_t len)
{
    const uint8_t *p = (const uint8_t *)s, *end = p + len;
    outfile_putc(w, '"');
    while (p < end) {
        uint8_t c = *p;
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            const uint8_t *q = p;
            while (q < end && *q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
                q++;
            outfile_write(w, p, (size_t)(q - p));
            p = q;
            continue;
        }
        if (c == '"' || c == '\\') {
            outfile_putc(w, '\\');
            outfile_putc(w, (char)c);
            p++;
            continue;
        }
        if (c < 0x80) {
            if (c == '\n')
                outfile_write(w, "\\n", 2);
            else if (c == '\t')
                outfile_write(w, "\\t", 2);
            else if (c == '\r')
                outfile_write(w, "\\r", 2);
            else
                w_hex4(w, c);
            p++;
            continue;
        }
        unsigned need = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : 0;
        if (c >= 0xf5)
            need = 0;
        unsigned cp = need == 3 ? c & 7u : need == 2 ? c & 15u : c & 31u;
        unsigned i = 1;
        for (; need && i <= need; i++) {
            if (p + i >= end || (p[i] & 0xc0) != 0x80)
                break;
            cp = cp << 6 | (p[i] & 0x3fu);
        }
        if (!need || i <= need || (need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
            cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) {
            w_hex4(w, 0xfffd);
            p++;
            continue;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            w_hex4(w, 0xd800 + (cp >> 10));
            w_hex4(w, 0xdc00 + (cp & 0x3ff));
        } else {
            w_hex4(w, cp);
        }
        p += need + 1;
    }
    outfile_putc(w, '"');
}

/* ---- output string table (deduplicated by content) ---- */

typedef struct sent {
    const char *s; /* graph string, or owned copy when `own` */
    uint32_t len;
    uint8_t own;
} sent;

typedef struct stab {
    sent *v;
    uint32_t n, cap;
    hmap index;     /* FNV-1a of the text -> table position */
    uint32_t *gmap; /* graph str_ix -> output index, 0 = not yet */
    uint32_t gn;
} stab;

static void stab_free(stab *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->v[i].own)
            free((char *)t->v[i].s);
    free(t->v);
    hmap_free(&t->index);
    free(t->gmap);
    memset(t, 0, sizeof *t);
}

/* Output index of s[0..len) (table position + 1: strings[0] is V8's "<dummy>"), adding it
 * (copied when `copy`) if new. */
static lr_status stab_add(stab *t, const char *s, size_t len, int copy, uint32_t *out,
                          lr_error *err)
{
    if (len > UINT32_MAX)
        len = UINT32_MAX; /* graph strings never get here; keeps the cast honest */
    uint32_t h = hash_fnv32(s, len);
    hmap_it it;
    for (uint32_t i = hmap_first(&t->index, h, &it); i != HMAP_NONE;
         i = hmap_next(&t->index, &it)) {
        const sent *e = &t->v[i];
        if (e->len == len && memcmp(e->s, s, len) == 0) {
            *out = i + 1;
            return LR_OK;
        }
    }
    if (t->n >= (1u << 30))
        return LR_FAIL(err, LR_ERR_LIMIT, "v8 write: too many strings");
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 1024;
        sent *nv = err_reallocarray(t->v, nc, sizeof *nv);
        if (!nv)
            return LR_FAIL(err, LR_ERR_NOMEM, "v8 write: out of memory for strings");
        t->v = nv;
        t->cap = nc;
    }
    const char *p = s;
    if (copy) {
        char *c = err_malloc(len + 1);
        if (!c)
            return LR_FAIL(err, LR_ERR_NOMEM, "v8 write: out of memory for strings");
        memcpy(c, s, len);
        c[len] = 0;
        p = c;
    }
    if (!hmap_add(&t->index, h, t->n)) {
        if (copy)
            free((char *)p);
        return LR_FAIL(err, LR_ERR_NOMEM, "v8 write: out of memory for strings");
    }
    t->v[t->n] = (sent){p, (uint32_t)len, (uint8_t)(copy != 0)};
    ++t->n;
    *out = t->n;
    return LR_OK;
}

/* Output index of graph string s (cached per str_ix). */
static lr_status stab_graph(stab *t, const graph *g, str_ix s, uint32_t *out, lr_error *err)
{
    if (s < t->gn && t->gmap[s]) {
        *out = t->gmap[s];
        return LR_OK;
    }
    const char *c = graph_str(g, s);
    LR_TRY(stab_add(t, c, strlen(c), 0, out, err));
    if (s < t->gn)
        t->gmap[s] = *out;
    return LR_OK;
}

/* ---- conversion state ---- */

typedef struct conv {
    const graph *g;
    lr_error *err;
    uint32_t *ord;       /* per graph node: output ordinal, V8W_NO when not written */
    uint32_t n_out;      /* output nodes */
    uint32_t first_obj;  /* ordinal of the first graph node after the synthetic ones */
    int own_root;        /* node 0 is g->synthetic_root */
    uint32_t n_extra;    /* root entries other than the synthetic root, naming a node */
    uint32_t kind_n[GRAPH_ROOT_KIND_COUNT]; /* extra root entries per kind */
    uint32_t n_kinds;    /* kinds with entries (= sub-roots) */
    uint32_t *cls_name;  /* per class: string index of "class <name>", V8W_NO until used */
    node_ix *hop;        /* HPROF, per class: its class object, which each instance refers
                          * to as in the JVM (an internal edge "<class>"; the analyses' hop,
                          * analysis/dominators.h), or GRAPH_NONE: a class of the boot loader
                          * or a root entry, which no instance keeps; NULL when none */
    int v8_types[32];    /* graph node_type -> T_*, -1 when the type is not a V8 one */
    int kept_ids;
    stab st;
    outfile *w;          /* the output, open while writing */
    v8w_stats s;
    int (*owns_nothing)(const graph *g, edge_ix e); /* strong edges written weak */
} conv;

static int strong(const conv *c, edge_ix e)
{
    const graph *g = c->g;
    uint8_t k = g->edge_kind[e];
    return GRAPH_EDGE_STRENGTH(k) == GRAPH_STRONG && GRAPH_EDGE_KIND(k) != GRAPH_EDGE_WEAK &&
           !(c->owns_nothing && c->owns_nothing(g, e));
}

static int is_extra_root(const graph *g, uint32_t r)
{
    node_ix x = g->roots[r].node;
    return x < g->n_nodes && x != g->synthetic_root && g->roots[r].kind < GRAPH_ROOT_KIND_COUNT;
}

/* Whether class object y has a loader (its internal <classloader> edge). */
static int has_loader(const graph *g, node_ix y)
{
    for (edge_ix e = g->first_edge[y]; e < g->first_edge[y + 1]; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_INTERNAL && g->edge_to[e] < g->n_nodes &&
            !strcmp(graph_str(g, graph_edge_name_from(g, y, e)), "<classloader>"))
            return 1;
    return 0;
}

/* Fills c->hop (HPROF dumps; the classes whose instances keep them). */
static lr_status hops(conv *c)
{
    const graph *g = c->g;
    uint32_t n = g->n_nodes;
    if (!g->format || strcmp(g->format, "hprof") != 0 || !g->n_classes)
        return LR_OK;
    c->hop = err_mallocarray(g->n_classes, sizeof *c->hop);
    uint8_t *root = err_calloc(n / 8 + 1, 1);
    if (!c->hop || !root) {
        free(root);
        return LR_FAIL(c->err, LR_ERR_NOMEM, "v8 write: out of memory (%u classes)",
                       g->n_classes);
    }
    for (uint32_t r = 0; r < g->n_roots; r++)
        if (g->roots[r].node < n)
            root[g->roots[r].node / 8] |= (uint8_t)(1u << (g->roots[r].node % 8));
    for (class_ix k = 0; k < g->n_classes; k++) {
        node_ix y = g->classes[k].node;
        int ok = y < n && g->node_kind[y] == GRAPH_KIND_CLASS && !(root[y / 8] >> (y % 8) & 1);
        c->hop[k] = ok && has_loader(g, y) ? y : GRAPH_NONE;
    }
    free(root);
    return LR_OK;
}

/* x's class object when x refers to it (c->hop), else GRAPH_NONE. */
static inline node_ix hop_of(const conv *c, node_ix x)
{
    class_ix k = c->hop ? graph_node_class(c->g, x) : GRAPH_NONE;
    return k < c->g->n_classes ? c->hop[k] : GRAPH_NONE;
}

/* Marks everything strongly reachable from the roots (ord[x] = 0 marks, numbering follows). */
static lr_status mark(conv *c)
{
    const graph *g = c->g;
    uint32_t n = g->n_nodes;
    node_ix *stk = err_mallocarray(n ? n : 1, sizeof *stk);
    if (!stk)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "v8 write: out of memory (%u nodes)", n);
    uint32_t sp = 0;
    for (uint32_t i = 0; i <= g->n_roots; i++) {
        node_ix r = i < g->n_roots ? g->roots[i].node : g->synthetic_root;
        if (r >= n || c->ord[r] != V8W_NO)
            continue;
        c->ord[r] = 0;
        stk[sp++] = r;
        while (sp > 0) {
            node_ix x = stk[--sp];
            for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
                node_ix y = g->edge_to[e];
                if (y < n && c->ord[y] == V8W_NO && strong(c, e)) {
                    c->ord[y] = 0;
                    stk[sp++] = y;
                }
            }
            node_ix y = hop_of(c, x);
            if (y != GRAPH_NONE && c->ord[y] == V8W_NO) {
                c->ord[y] = 0;
                stk[sp++] = y;
            }
        }
    }
    free(stk);
    return LR_OK;
}

/* Numbers the output: node 0, then (GC roots) and sub-roots if needed, then graph nodes. */
static lr_status number(conv *c)
{
    const graph *g = c->g;
    c->own_root = g->synthetic_root < g->n_nodes;
    for (uint32_t r = 0; r < g->n_roots; r++)
        if (is_extra_root(g, r)) {
            c->n_extra++;
            if (c->kind_n[g->roots[r].kind]++ == 0)
                c->n_kinds++;
        }
    uint64_t next = 1 + (c->n_extra ? 1 + c->n_kinds : 0);
    c->s.synthetic = (uint32_t)next - (c->own_root ? 1 : 0);
    c->first_obj = (uint32_t)next;
    if (c->own_root)
        c->ord[g->synthetic_root] = 0;
    uint64_t max_id = 0;
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (c->ord[x] == V8W_NO) {
            c->s.dropped_nodes++;
            continue;
        }
        if (graph_has_ids(g) && graph_node_id(g, x) > max_id)
            max_id = graph_node_id(g, x);
        if (c->own_root && x == g->synthetic_root)
            continue;
        c->ord[x] = (uint32_t)next++;
    }
    if (next * V8W_FIELDS > UINT32_MAX)
        return LR_FAIL(c->err, LR_ERR_LIMIT,
                       "v8 write: %llu nodes exceed the format's 32-bit node indexes",
                       (unsigned long long)next);
    c->n_out = (uint32_t)next;
    /* Synthetic nodes take ids 1, 3, 5, ...; the dump's ids stay when none collides with
     * those and all fit DevTools' Uint32 storage. */
    uint64_t synth_top = 2ull * c->first_obj;
    c->kept_ids = graph_has_ids(g) && max_id <= UINT32_MAX;
    for (node_ix x = 0; c->kept_ids && c->s.synthetic && x < g->n_nodes; x++)
        if (c->ord[x] != V8W_NO && x != g->synthetic_root && graph_node_id(g, x) < synth_top)
            c->kept_ids = 0;
    return LR_OK;
}

static uint64_t node_out_id(const conv *c, node_ix x)
{
    return c->kept_ids ? graph_node_id(c->g, x) : 2ull * c->ord[x] + 1;
}

static lr_status class_nodes(conv *c)
{
    const graph *g = c->g;
    c->cls_name = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *c->cls_name);
    if (!c->cls_name)
        return LR_FAIL(c->err, LR_ERR_NOMEM, "v8 write: out of memory (%u classes)",
                       g->n_classes);
    for (class_ix i = 0; i < g->n_classes; i++)
        c->cls_name[i] = V8W_NO;
    return LR_OK;
}

static void type_table(conv *c)
{
    const graph *g = c->g;
    for (int i = 0; i < 32; i++) {
        c->v8_types[i] = -1;
        if ((uint32_t)i >= g->n_types || !g->type_names[i] || !g->node_name)
            continue;
        const char *t = g->type_names[i];
        if (strcmp(t, "slicedstring") == 0)
            t = "sliced string";
        for (int k = 0; k < T_COUNT; k++)
            if (strcmp(t, NODE_TYPES[k]) == 0)
                c->v8_types[i] = k;
    }
}

static int node_type(const conv *c, node_ix x)
{
    const graph *g = c->g;
    if (g->node_type && g->node_type[x] < 32 && c->v8_types[g->node_type[x]] >= 0)
        return c->v8_types[g->node_type[x]];
    switch (g->node_kind[x]) {
    case GRAPH_KIND_CLOSURE: return T_CLOSURE;
    case GRAPH_KIND_CODE: return T_CODE;
    case GRAPH_KIND_NATIVE: return T_NATIVE;
    case GRAPH_KIND_SYNTHETIC: return T_SYNTHETIC;
    case GRAPH_KIND_STRING: return g->node_name ? T_STRING : T_OBJECT;
    default: return T_OBJECT; /* instances, classes, arrays: never hidden/array */
    }
}

static lr_status node_name(conv *c, node_ix x, uint32_t *out)
{
    const graph *g = c->g;
    /* A generic graph's name is a label beside the class ("checkout"), where V8's is what
     * DevTools groups objects by: the class names them there, but a string's text */
    int labels = g->format && (!strcmp(g->format, "graph") || !strcmp(g->format, "builder"));
    if (g->node_name && g->node_name[x] != GRAPH_NONE &&
        (!labels || g->node_kind[x] == GRAPH_KIND_STRING))
        return stab_graph(&c->st, g, g->node_name[x], out, c->err);
    if (g->node_kind[x] == GRAPH_KIND_CLASS) {
        class_ix k = graph_class_of_node(c->g, x);
        if (k != GRAPH_NONE) {
            if (c->cls_name[k] == V8W_NO) {
                const char *nm = graph_str(g, g->classes[k].name);
                size_t l = strlen(nm);
                char *b = err_malloc(l + 7);
                if (!b)
                    return LR_FAIL(c->err, LR_ERR_NOMEM, "v8 write: out of memory");
                memcpy(b, "class ", 6);
                memcpy(b + 6, nm, l + 1);
                lr_status st = stab_add(&c->st, b, l + 6, 1, &c->cls_name[k], c->err);
                free(b);
                LR_TRY(st);
            }
            *out = c->cls_name[k];
            return LR_OK;
        }
    }
    class_ix k = graph_node_class(g, x);
    if (k < g->n_classes)
        return stab_graph(&c->st, g, g->classes[k].name, out, c->err);
    return stab_add(&c->st, "(no class)", 10, 0, out, c->err);
}

static void w_node(conv *c, int type, uint32_t name, uint64_t id, uint64_t self,
                   uint64_t n_edges, int first)
{
    outfile *w = c->w;
    if (!first)
        outfile_putc(w, ',');
    w_u64(w, (uint64_t)type);
    outfile_putc(w, ',');
    w_u64(w, name);
    outfile_putc(w, ',');
    w_u64(w, id);
    outfile_putc(w, ',');
    w_u64(w, self);
    outfile_putc(w, ',');
    w_u64(w, n_edges);
    outfile_write(w, ",0,0\n", 5);
    c->s.self_bytes += self;
}

static void w_edge(conv *c, int type, uint64_t name, uint32_t to_ord, int *first)
{
    outfile *w = c->w;
    if (!*first)
        outfile_putc(w, ',');
    *first = 0;
    w_u64(w, (uint64_t)type);
    outfile_putc(w, ',');
    w_u64(w, name);
    outfile_putc(w, ',');
    w_u64(w, (uint64_t)to_ord * V8W_FIELDS);
    outfile_putc(w, '\n');
    c->s.edges++;
}

/* Written edges of graph node x (targets that are written). */
static uint64_t out_degree(const conv *c, node_ix x)
{
    const graph *g = c->g;
    uint64_t k = 0;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++)
        if (g->edge_to[e] < g->n_nodes && c->ord[g->edge_to[e]] != V8W_NO)
            k++;
    node_ix y = hop_of(c, x);
    return k + (y != GRAPH_NONE && c->ord[y] != V8W_NO);
}

static const char *sub_root_name(unsigned kind, char *buf, size_t cap)
{
    snprintf(buf, cap, "(%s)", graph_root_kind_name(kind));
    return buf;
}

/* Synthetic node ids: 1, 3, 5, ... in ordinal order (ordinals 0..first_obj-1). */
static uint64_t synth_id(uint32_t ord) { return 2ull * ord + 1; }

static lr_status write_nodes(conv *c)
{
    const graph *g = c->g;
    uint32_t nm;
    char buf[64];
    int first = 1;
    if (!c->own_root) {
        LR_TRY(stab_add(&c->st, "", 0, 0, &nm, c->err));
        w_node(c, T_SYNTHETIC, nm, synth_id(0), 0, c->n_extra ? 1 : 0, first);
        first = 0;
    } else {
        node_ix r = g->synthetic_root;
        LR_TRY(node_name(c, r, &nm));
        uint64_t self = (uint64_t)graph_node_size(g, r) + (g->node_native ? g->node_native[r] : 0);
        if (self > UINT32_MAX)
            self = UINT32_MAX;
        w_node(c, node_type(c, r), nm, node_out_id(c, r), self,
               out_degree(c, r) + (c->n_extra ? 1 : 0), first);
        first = 0;
    }
    if (c->n_extra) {
        LR_TRY(stab_add(&c->st, "(GC roots)", 10, 0, &nm, c->err));
        w_node(c, T_SYNTHETIC, nm, synth_id(1), 0, c->n_kinds, 0);
        uint32_t o = 2;
        for (unsigned k = 0; k < GRAPH_ROOT_KIND_COUNT; k++) {
            if (!c->kind_n[k])
                continue;
            const char *s = sub_root_name(k, buf, sizeof buf);
            LR_TRY(stab_add(&c->st, s, strlen(s), 1, &nm, c->err));
            w_node(c, T_SYNTHETIC, nm, synth_id(o), 0, c->kind_n[k], 0);
            o++;
        }
    }
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (c->ord[x] == V8W_NO || (c->own_root && x == g->synthetic_root))
            continue;
        LR_TRY(node_name(c, x, &nm));
        uint64_t self = (uint64_t)graph_node_size(g, x) + (g->node_native ? g->node_native[x] : 0);
        if (self > UINT32_MAX)
            self = UINT32_MAX;
        w_node(c, node_type(c, x), nm, node_out_id(c, x), self, out_degree(c, x), 0);
    }
    return LR_OK;
}

static lr_status write_graph_edges(conv *c, node_ix x, int *first)
{
    const graph *g = c->g;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
        node_ix y = g->edge_to[e];
        if (y >= g->n_nodes || c->ord[y] == V8W_NO) {
            if (y < g->n_nodes)
                c->s.dropped_edges++;
            continue;
        }
        unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
        int named = !GRAPH_EDGE_NAME_IS_INDEX(kind);
        int t;
        if (!strong(c, e)) {
            t = E_WEAK;
            c->s.weak_edges++;
        } else {
            switch (kind) {
            case GRAPH_EDGE_FIELD:
            case GRAPH_EDGE_STATIC:
            case GRAPH_EDGE_PROPERTY: t = E_PROPERTY; break;
            case GRAPH_EDGE_ELEMENT:
            case GRAPH_EDGE_ROOT: t = E_ELEMENT; break;
            case GRAPH_EDGE_CONTEXT:
            case GRAPH_EDGE_LOCAL: t = E_CONTEXT; break;
            case GRAPH_EDGE_HIDDEN: t = E_HIDDEN; break;
            case GRAPH_EDGE_SHORTCUT: t = E_SHORTCUT; break;
            default: t = E_INTERNAL; break;
            }
        }
        uint64_t name;
        if (t == E_ELEMENT || t == E_HIDDEN) {
            /* An index; a string-named root edge gets its position. */
            name = named ? (uint64_t)(e - g->first_edge[x]) : graph_edge_name_from(g, x, e);
        } else if (named) {
            uint32_t s;
            LR_TRY(stab_graph(&c->st, g, graph_edge_name_from(g, x, e), &s, c->err));
            name = s;
        } else {
            /* A weak element: weak edges carry string names in DevTools. */
            char b[16];
            int l = snprintf(b, sizeof b, "%u", graph_edge_name_from(g, x, e));
            uint32_t s;
            LR_TRY(stab_add(&c->st, b, (size_t)l, 1, &s, c->err));
            name = s;
        }
        w_edge(c, t, name, c->ord[y], first);
    }
    node_ix y = hop_of(c, x);
    if (y != GRAPH_NONE && c->ord[y] != V8W_NO) {
        uint32_t s;
        LR_TRY(stab_add(&c->st, "<class>", 7, 0, &s, c->err));
        w_edge(c, E_INTERNAL, s, c->ord[y], first);
    }
    return LR_OK;
}

static lr_status write_edges(conv *c)
{
    const graph *g = c->g;
    int first = 1;
    uint32_t own = c->own_root ? g->first_edge[g->synthetic_root + 1] -
                                     g->first_edge[g->synthetic_root]
                               : 0;
    if (c->own_root)
        LR_TRY(write_graph_edges(c, g->synthetic_root, &first));
    if (c->n_extra) {
        w_edge(c, E_ELEMENT, own + 1, 1, &first);
        uint32_t o = 2;
        for (unsigned k = 0; k < GRAPH_ROOT_KIND_COUNT; k++)
            if (c->kind_n[k]) {
                w_edge(c, E_ELEMENT, o - 1, o, &first);
                o++;
            }
        for (unsigned k = 0; k < GRAPH_ROOT_KIND_COUNT; k++) {
            if (!c->kind_n[k])
                continue;
            uint32_t i = 0;
            for (uint32_t r = 0; r < g->n_roots; r++)
                if (is_extra_root(g, r) && g->roots[r].kind == k)
                    w_edge(c, E_ELEMENT, i++, c->ord[g->roots[r].node], &first);
        }
    }
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (c->ord[x] == V8W_NO || (c->own_root && x == g->synthetic_root))
            continue;
        LR_TRY(write_graph_edges(c, x, &first));
    }
    return LR_OK;
}

static void write_meta(conv *c, uint64_t n_edges)
{
    outfile *w = c->w;
    w_str(w, "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
             "\"edge_count\",\"trace_node_id\",\"detachedness\"],\"node_types\":[[");
    for (int k = 0; k < T_COUNT; k++) {
        if (k)
            outfile_putc(w, ',');
        w_json_str(w, NODE_TYPES[k], strlen(NODE_TYPES[k]));
    }
    w_str(w, "],\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"],"
             "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\"edge_types\":[["
             "\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\","
             "\"weak\"],\"string_or_number\",\"node\"],"
             "\"trace_function_info_fields\":[\"function_id\",\"name\",\"script_name\","
             "\"script_id\",\"line\",\"column\"],\"trace_node_fields\":[\"id\","
             "\"function_info_index\",\"count\",\"size\",\"children\"],\"sample_fields\":["
             "\"timestamp_us\",\"last_assigned_id\"],\"location_fields\":[\"object_index\","
             "\"script_id\",\"line\",\"column\"]},\"node_count\":");
    w_u64(w, c->n_out);
    w_str(w, ",\"edge_count\":");
    w_u64(w, n_edges);
    w_str(w, ",\"trace_function_count\":0},\n\"nodes\":[");
}

/* Counts the edges that will be written (the header needs the total first). */
static uint64_t count_edges(const conv *c)
{
    const graph *g = c->g;
    uint64_t n = c->n_extra ? 1 + c->n_kinds + c->n_extra : 0;
    for (node_ix x = 0; x < g->n_nodes; x++)
        if (c->ord[x] != V8W_NO)
            n += out_degree(c, x);
    return n;
}

static lr_status convert(conv *c)
{
    const graph *g = c->g;
    uint64_t n_edges = count_edges(c);
    c->s.edges = 0;
    write_meta(c, n_edges);
    LR_TRY(write_nodes(c));
    w_str(c->w, "],\n\"edges\":[");
    LR_TRY(write_edges(c));
    if (c->s.edges != n_edges)
        return LR_FAIL(c->err, LR_ERR_INTERNAL, "v8 write: %llu edges written, %llu counted",
                       (unsigned long long)c->s.edges, (unsigned long long)n_edges);
    w_str(c->w, "],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n"
                 "\"locations\":[],\n\"strings\":[\"<dummy>\"");
    /* strings[0] is V8's "<dummy>" placeholder; table entry i is strings[i+1]. */
    for (uint32_t i = 0; i < c->st.n; i++) {
        outfile_write(c->w, ",\n", 2);
        w_json_str(c->w, c->st.v[i].s, c->st.v[i].len);
    }
    w_str(c->w, "]}\n");
    c->s.nodes = c->n_out;
    c->s.strings = c->st.n + 1;
    (void)g;
    return LR_OK;
}

lr_status v8w_write(const graph *g, const char *out_path,
                    int (*owns_nothing)(const graph *g, edge_ix e), v8w_stats *st,
                    lr_error *err)
{
    if (g->n_nodes > 0 && (!g->first_edge || !g->edge_to || !g->edge_kind))
        return LR_FAIL(err, LR_ERR_USAGE, "v8 write: graph was loaded without edges");
    conv *c = err_calloc(1, sizeof *c);
    if (!c)
        return LR_FAIL(err, LR_ERR_NOMEM, "v8 write: out of memory");
    c->g = g;
    c->err = err;
    c->owns_nothing = owns_nothing;
    lr_status rc = LR_OK;
    c->ord = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *c->ord);
    c->st.gn = g->strings.n;
    c->st.gmap = err_calloc(c->st.gn ? c->st.gn : 1, sizeof *c->st.gmap);
    if (!c->ord || !c->st.gmap) {
        rc = LR_FAIL(err, LR_ERR_NOMEM, "v8 write: out of memory (%u nodes)", g->n_nodes);
        goto done;
    }
    for (node_ix x = 0; x < g->n_nodes; x++)
        c->ord[x] = V8W_NO;
    type_table(c);
    if ((rc = hops(c)) != LR_OK || (rc = mark(c)) != LR_OK || (rc = number(c)) != LR_OK ||
        (rc = class_nodes(c)) != LR_OK)
        goto done;

    if ((rc = outfile_open(out_path, &c->w, err)) != LR_OK)
        goto done;
    rc = convert(c);
    c->s.out_bytes = outfile_bytes(c->w);
    if (rc == LR_OK)
        rc = outfile_commit(c->w, err);
    else
        outfile_abort(c->w);
    c->w = NULL;
    c->s.kept_ids = c->kept_ids;
done:
    if (st)
        *st = c->s;
    stab_free(&c->st);
    free(c->ord);
    free(c->cls_name);
    free(c->hop);
    free(c);
    return rc;
}
