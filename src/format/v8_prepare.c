/* SPDX-License-Identifier: Apache-2.0 */
/* v8_prepare.c: the DevTools preparation passes of the V8 snapshot reader (format layer),
 * prefix v8p_. Run once the records are in the graph, in DevTools' order: detached-DOM
 * state (propagateDOMState), shallow-size re-attribution (calculateShallowSizes, on the
 * helper thread), class names with interface inference (calculateObjectNames,
 * inferInterfaceDefinitions, applyInterfaceDefinitions) and class keys with locations; and
 * the Comparison view's naming of a base snapshot (v8_apply_interfaces). The behaviour copied
 * is HeapSnapshot.ts as shipped in heap-snapshot-toolkit 1.1.3; its visiting orders are kept
 * because the numbers depend on them. See v8_internal.h. */
#define _GNU_SOURCE /* qsort_r */
#include "format/v8_internal.h"
#include "base/hash.h"
#include "base/hmap.h"

#include <stdlib.h>
#include <string.h>

/* ---- DevTools preparation: detached DOM state (propagateDOMState) ---- */

static inline int edge_kind_is(const graph *g, edge_ix e, unsigned kind)
{
    return GRAPH_EDGE_KIND(g->edge_kind[e]) == kind;
}

/* Attached state spreads from every attached native node to the native nodes it reaches;
 * detached state then spreads to the rest. Hidden and weak edges do not propagate, nor does
 * any non-native node. Detached nodes are renamed "Detached <name>". */
lr_status v8p_propagate_dom_state(ctx *x)
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
            s = v8j_scratch_fit(&x->sc, l_ + 10, x->c.err);                                        \
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
lr_status v8p_keep_dom_state(ctx *x)
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
 * of the others. v8p_reattribute_sizes does the rest on the helper, beside
 * v8p_assign_classes, which interns strings but never reads or writes sizes. */
lr_status v8p_reattribute_prepare(ctx *x)
{
    graph *g = x->g;
    uint32_t n = g->n_nodes;
    if (!has_user_roots(x)) {
        g->size_model = GRAPH_SIZES_DEVTOOLS_RAW; /* so `info` does not claim a re-attribution */
        return LR_OK;
    }
    uint32_t *owners = err_mallocarray(n, sizeof *owners);
    uint32_t cap = 1024;
    uint32_t *work = err_mallocarray(cap, sizeof *work);
    if (!owners || !work) {
        free(owners);
        free(work);
        return LR_FAIL(x->c.err, LR_ERR_NOMEM, "%s: out of memory", x->c.name);
    }
    graph_hint_huge(owners, (size_t)n * sizeof *owners);
    for (uint32_t i = 0; i < n; i++) {
        int unowned = is_type(g, i, x->r.hidden) || is_type(g, i, x->r.array) ||
                      (is_type(g, i, x->r.native) &&
                       strcmp(graph_str(g, g->node_name[i]), "system / ExternalStringData") == 0);
        owners[i] = unowned ? OWN_UNVISITED : i;
    }
    x->own = owners;
    x->own_work = work;
    x->own_len = 0;
    x->own_cap = cap;
    return LR_OK;
}

lr_status v8p_reattribute_sizes(ctx *x, cur *c)
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
    /* DevTools pushes every owner node in order, then pops: the last one first, each drained
     * before the one below it is popped. Pushing them one at a time from the last down gives
     * the same order with only the drain on the stack (not an entry per node). An owner
     * keeps owners[i] == i: no pass overwrites it. */
    for (uint32_t i0 = n; i0-- > 0;) {
        if (owners[i0] != i0)
            continue;
        work[len++] = i0; /* len is 0 here: the stack has room */
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
    }
    free(work);
    work = NULL;
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
    LR_TRY(v8j_scratch_fit(&x->sc, *len + 6 * l + 8, x->c.err));
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
    LR_TRY(v8j_scratch_fit(&x->sc, 8, x->c.err));
    x->sc.buf[0] = '{';
    for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
        if (!edge_kind_is(g, e, GRAPH_EDGE_PROPERTY))
            continue;
        str_ix pn = graph_edge_name_from(g, v, e);
        if (pn == s_proto)
            continue;
        const char *nm = graph_str(g, pn);
        size_t before = len;
        LR_TRY(append_prop(x, &len, nm));
        x->sc.buf[len] = 0;
        size_t fu = u16len((const char *)x->sc.buf + before);
        len = before;
        if (ulen > 1 && ulen + fu > 120)
            break;
        if (ulen != 1) {
            LR_TRY(v8j_scratch_fit(&x->sc, len + 3, x->c.err));
            x->sc.buf[len++] = ',';
            x->sc.buf[len++] = ' ';
            ulen += 2;
        }
        LR_TRY(append_prop(x, &len, nm));
        ulen += fu;
        np++;
    }
    LR_TRY(v8j_scratch_fit(&x->sc, len + 2, x->c.err));
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
        str_ix pn = graph_edge_name_from(g, v, e);
        if (as_def) {
            if (pn == s_proto)
                continue;
            size_t len = 0;
            LR_TRY(append_prop(x, &len, graph_str(g, pn)));
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
        (*buf)[k++] = pn;
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
lr_status v8p_assign_classes(ctx *x)
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
    uint8_t *node_ns = err_mallocarray(n, sizeof *node_ns); /* NS_* per node */
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
                    if ((s = v8j_scratch_fit(&x->sc, l + 2, x->c.err)))
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
        node_ns[i] = (uint8_t)ns;
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
            l = v8_loc_next(x, i, &loc_at);
        if (l) {
            key[0] = NS_LOC | (node_cn[i] << 2);
            key[1] = l->script;
            key[2] = l->line;
            key[3] = l->col;
        } else {
            key[0] = (uint32_t)node_ns[i] | (node_cn[i] << 2);
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
            if ((s = v8j_scratch_fit(&x->sc, hl + nl + 1, x->c.err)))
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

/* ---- where closures are written ---- */

/* The target of v's first edge named nm, GRAPH_NONE when it has none. */
static node_ix edge_named(const graph *g, node_ix v, const char *nm)
{
    for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++)
        if (!strcmp(graph_str(g, graph_edge_name_from(g, v, e)), nm))
            return g->edge_to[e] < g->n_nodes ? g->edge_to[e] : GRAPH_NONE;
    return GRAPH_NONE;
}

/* Interns the len bytes at p (copied first: interning may move the table p points into);
 * GRAPH_NONE when out of memory, which costs the name only: the load's error stays unset. */
static str_ix intern_copy(graph *g, const char *p, size_t len)
{
    char *c = len ? err_malloc(len) : NULL;
    str_ix u = GRAPH_NONE;
    if (c) {
        lr_error quiet = {.offset = LR_NO_OFFSET};
        memcpy(c, p, len);
        if (graph_intern(g, c, len, &u, &quiet) != LR_OK)
            u = GRAPH_NONE;
        free(c);
    }
    return u;
}

/* The URL a `//# sourceURL=` comment (or the older `//@ `) gives source text: the last one,
 * as V8 takes it; its span in *len, NULL when the text has none. */
static const char *source_url_comment(const char *src, size_t *len)
{
    const char *hit = NULL;
    for (const char *p = src; (p = strstr(p, "sourceURL=")) != NULL; p += 10) {
        if (p - src < 4 || p[-1] != ' ' || p[-4] != '/' || p[-3] != '/' ||
            (p[-2] != '#' && p[-2] != '@'))
            continue;
        size_t n = strcspn(p + 10, " \t\r\n\"'");
        if (n) {
            hit = p + 10;
            *len = n;
        }
    }
    return hit;
}

/* The name of nameless Script s (eval'd code, new Function): V8 keeps the URL of a
 * `//# sourceURL=` comment in a slot the snapshot writes as an unnamed hidden edge, so the
 * comment in the source string comes first, and when the snapshot cut that string before
 * it, the first hidden string that reads as a URL or path (not the source map's: a `.map`
 * file or a data: URL). Bundlers' development builds name every module so. */
static str_ix script_source_url(ctx *x, node_ix s)
{
    graph *g = x->g;
    node_ix src = edge_named(g, s, "source");
    size_t len = 0;
    const char *u;
    if (src != GRAPH_NONE && is_type(g, src, x->r.string) &&
        (u = source_url_comment(graph_str(g, g->node_name[src]), &len)) != NULL)
        return intern_copy(g, u, len);
    for (edge_ix e = g->first_edge[s]; e < g->first_edge[s + 1]; e++) {
        node_ix t = g->edge_to[e];
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_HIDDEN || t >= g->n_nodes ||
            !is_type(g, t, x->r.string))
            continue;
        const char *nm = graph_str(g, g->node_name[t]);
        size_t n = strlen(nm);
        if (n && n < 1024 && !nm[strcspn(nm, " \t\r\n")] && strncmp(nm, "data:", 5) &&
            !(n > 4 && !strcmp(nm + n - 4, ".map")))
            return g->node_name[t];
    }
    return GRAPH_NONE;
}

/* The name of closure f's script: V8 writes closure -shared-> its function's shared info
 * -script_or_debug_info (some versions: script)-> the Script, a code node named by the
 * script's URL or path (Node), or "system / Script / URL" (Chrome); nameless for eval'd
 * code, named then by its sourceURL when it has one (script_source_url). */
static str_ix script_url(ctx *x, node_ix f, int *reached)
{
    graph *g = x->g;
    node_ix sfi = edge_named(g, f, "shared");
    if (sfi == GRAPH_NONE)
        return GRAPH_NONE;
    node_ix s = edge_named(g, sfi, "script_or_debug_info");
    if (s == GRAPH_NONE)
        s = edge_named(g, sfi, "script");
    if (s == GRAPH_NONE || !is_type(g, s, x->r.code) || !g->node_name)
        return GRAPH_NONE;
    *reached = 1;
    const char *nm = graph_str(g, g->node_name[s]);
    if (!strncmp(nm, "system / Script / ", 18) && nm[18]) /* Chrome 120 on: URL after type */
        return intern_copy(g, nm + 18, strlen(nm + 18));
    if (*nm && strncmp(nm, "system / ", 9))
        return g->node_name[s];
    return script_source_url(x, s);
}

/* graph.locs: each closure's `locations` entry (the last one where a writer gave several),
 * with its script's name. A script's name is looked up through the first of its closures
 * that reaches it (script ids are small: V8 numbers scripts from 1 as it compiles them). */
#define SCRIPT_IDS_MAX (1u << 20)

lr_status v8p_closure_locations(ctx *x)
{
    graph *g = x->g;
    if (!x->n_locs || x->r.closure < 0)
        return LR_OK;
    uint32_t n = 0, max_script = 0;
    for (uint32_t i = 0; i < x->n_locs; i++) {
        const loc *l = &x->locs[i];
        int last = i + 1 == x->n_locs || x->locs[i + 1].node != l->node;
        if (last && l->node < g->n_nodes && is_type(g, l->node, x->r.closure)) {
            n++;
            if (l->script > max_script)
                max_script = l->script;
        }
    }
    if (!n)
        return LR_OK;
    graph_loc *out = err_mallocarray(n, sizeof *out);
    /* per script id: its name + 1 once looked up (0: not yet, UINT32_MAX: it has none) */
    uint32_t ns = max_script < SCRIPT_IDS_MAX ? max_script + 1 : 0;
    uint32_t *url_of = ns ? err_calloc(ns, sizeof *url_of) : NULL;
    if (!out || (ns && !url_of)) {
        free(out);
        free(url_of);
        return LR_FAIL(x->c.err, LR_ERR_NOMEM, "%s: out of memory for closure locations",
                       x->c.name);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < x->n_locs; i++) {
        const loc *l = &x->locs[i];
        int last = i + 1 == x->n_locs || x->locs[i + 1].node != l->node;
        if (!last || l->node >= g->n_nodes || !is_type(g, l->node, x->r.closure))
            continue;
        str_ix url;
        if (url_of && url_of[l->script])
            url = url_of[l->script] == UINT32_MAX ? GRAPH_NONE : url_of[l->script] - 1;
        else {
            /* a nameless script is remembered too (its lookup reads its source), once
             * reached: another closure may reach the Script where this one did not */
            int reached = 0;
            url = script_url(x, l->node, &reached);
            if (url_of && (url != GRAPH_NONE || reached))
                url_of[l->script] = url == GRAPH_NONE ? UINT32_MAX : url + 1;
        }
        out[k++] = (graph_loc){l->node, l->script, url, l->line, l->col};
    }
    free(url_of);
    g->locs = out;
    g->n_locs = k;
    return LR_OK;
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
        class_ix c = graph_node_class(g, i);
        str_ix nm = best[i] ? names[best[i] - 1] : s_object;
        if (c >= g->n_classes || g->classes[c].name == nm)
            continue;
        /* Same key prefix ("," or "script,line,column,"), the new name after it. */
        const char *ok = graph_str(g, st->class_keys[c]), *on = graph_str(g, g->classes[c].name);
        size_t kl = strlen(ok), ol = strlen(on);
        size_t pl = kl >= ol ? kl - ol : 0;
        const char *nn = graph_str(g, nm);
        size_t nl = strlen(nn);
        if ((s = v8j_scratch_fit(&y.sc, pl + nl + 1, err)))
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
