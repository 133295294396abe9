/* SPDX-License-Identifier: Apache-2.0 */
/* cluster.c: ArkTS-style clustering by directory rule and shortest chain (analysis layer),
 * prefix cluster_. Three steps, each linear:
 *  1. directories: a node's (type, name) is looked up once per distinct pair in the `dir`
 *     lines; unmapped nodes use their class name (trailing "[N]" written "[]", as ArkTS
 *     array names carry their length);
 *  2. chains: one BFS from the synthetic root (V8/ArkTS) or the GC roots (HPROF) over strong
 *     edges, never weak ones nor shortcuts other than the root's. Among equally short
 *     chains the holder with the largest retained size wins (the article's tie rule), so
 *     a node's parent may change while its level is scanned and its chain id is computed
 *     only when it leaves the queue. Chains, property sets and cluster keys are interned
 *     as tries of 4-word tuples in hash tables (base/hmap.h), so equal ids mean equal chains;
 *  3. sizes: one iterative DFS over the dominator tree keeps, per group, how many members
 *     lie on the current path; a member adds its retained size only when none does (no
 *     double counting), and the nearest member of any other group above it decides
 *     nesting. Memory: ~32 bytes per node plus the tables; nothing recurses. */
#include "analysis/cluster.h"
#include "base/utf8.h"
#include "analysis/devtools.h"
#include "analysis/paths.h"
#include "base/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KEY_CLASS_FLAG 0x80000000u /* holder key from a node name when there is no class */
#define ROOT_KIND 0xffu            /* chain element kind of the root itself */
#define PROMISE_MAX_VISIT 64       /* nodes searched from a promise for its reaction handler */
#define PROMISE_MAX_DEPTH 4
#define TITLE_MAX_PROPS 8
#define NEST_CAND 16 /* groups on the first top member's dominator path tried for nesting */

/* ---- 4-word tuple interning (the one hash table, ids are insertion order) ---- */

typedef struct tuptab {
    hmap index;      /* hash_words of a tuple -> its id */
    uint32_t *tup;   /* 4 words per id */
    uint32_t n;      /* ids handed out */
    uint32_t tcap;   /* tuple capacity */
} tuptab;

static void tup_free(tuptab *t)
{
    hmap_free(&t->index);
    free(t->tup);
    memset(t, 0, sizeof *t);
}

/* Returns the id of tuple k, adding it if new; CLUSTER_NONE when out of memory. */
static uint32_t tup_intern(tuptab *t, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    const uint32_t k[4] = {a, b, c, d};
    uint32_t h = hash_words(k, 4);
    hmap_it it;
    for (uint32_t id = hmap_first(&t->index, h, &it); id != HMAP_NONE;
         id = hmap_next(&t->index, &it)) {
        const uint32_t *x = &t->tup[4 * (size_t)id];
        if (x[0] == a && x[1] == b && x[2] == c && x[3] == d)
            return id;
    }
    if (t->n == t->tcap) {
        uint32_t nc = t->tcap ? t->tcap * 2 : 1024;
        uint32_t *p = err_reallocarray(t->tup, (size_t)nc, 4 * sizeof *p);
        if (!p || t->n >= CLUSTER_NAME_ANY - 1)
            return CLUSTER_NONE;
        t->tup = p;
        t->tcap = nc;
    }
    if (!hmap_add(&t->index, h, t->n))
        return CLUSTER_NONE;
    memcpy(&t->tup[4 * (size_t)t->n], k, sizeof k);
    return t->n++;
}

/* The id of tuple k, or CLUSTER_NONE when it was never added. */
static uint32_t tup_find(const tuptab *t, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    const uint32_t k[4] = {a, b, c, d};
    hmap_it it;
    for (uint32_t id = hmap_first(&t->index, hash_words(k, 4), &it); id != HMAP_NONE;
         id = hmap_next(&t->index, &it)) {
        const uint32_t *x = &t->tup[4 * (size_t)id];
        if (x[0] == a && x[1] == b && x[2] == c && x[3] == d)
            return id;
    }
    return CLUSTER_NONE;
}

/* ---- small helpers ---- */

static const char *type_name(const graph *g, node_ix n)
{
    if (!g->node_type || g->node_type[n] >= g->n_types || !g->type_names[g->node_type[n]])
        return "";
    return g->type_names[g->node_type[n]];
}

static const char *node_name(const graph *g, node_ix n)
{
    if (g->node_name)
        return graph_str(g, g->node_name[n]);
    return graph_class_name(g, n);
}

/* Identity of a node's class for chains and keys: the class index, else its name. */
static uint32_t class_key(const graph *g, node_ix n)
{
    if (graph_node_class(g, n) != GRAPH_NONE)
        return graph_node_class(g, n);
    if (g->node_name)
        return g->node_name[n] | KEY_CLASS_FLAG;
    return CLUSTER_NONE;
}

static uint64_t shallow_of(const graph *g, node_ix n)
{
    return (uint64_t)graph_node_size(g, n) + (g->node_native ? g->node_native[n] : 0);
}

const char *cluster_node_label(const graph *g, node_ix n, char *buf, size_t cap)
{
    if (n == g->synthetic_root)
        return "(root)";
    if (g->node_kind[n] == GRAPH_KIND_CLASS) {
        class_ix k = graph_class_of_node(g, n);
        if (k < g->n_classes) {
            snprintf(buf, cap, "class %s", graph_str(g, g->classes[k].name));
            return buf;
        }
    }
    const char *cls = graph_class_name(g, n);
    if (g->node_kind[n] != GRAPH_KIND_STRING && g->node_name) {
        const char *nm = graph_str(g, g->node_name[n]);
        if (*nm)
            return nm;
    }
    if (*cls)
        return cls;
    const char *t = type_name(g, n);
    return *t ? t : "?";
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static int edge_followed(const graph *g, node_ix from, edge_ix e)
{
    uint8_t k = g->edge_kind[e];
    unsigned kind = GRAPH_EDGE_KIND(k);
    if (GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG || kind == GRAPH_EDGE_WEAK)
        return 0;
    if (kind == GRAPH_EDGE_SHORTCUT && from != g->synthetic_root)
        return 0;
    return g->edge_to[e] != from && g->edge_to[e] < g->n_nodes;
}

/* Length of s without a trailing "[digits]" (ArkTS array names carry their length), or
 * strlen(s) when there is none. */
static size_t name_stem(const char *s)
{
    size_t len = strlen(s);
    if (len < 3 || s[len - 1] != ']')
        return len;
    size_t i = len - 1;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    return i > 0 && i < len - 1 && s[i - 1] == '[' ? i - 1 : len;
}

/* Canonical string for rule 2 keys: names that differ only in a trailing "[N]" share the
 * first such string seen. Open addressing over str_ix + 1; exact (compares the stems). */
typedef struct namemap {
    hmap index; /* FNV-1a of the stem -> str_ix */
} namemap;

/* Returns the canonical str_ix of s, or CLUSTER_NONE when out of memory. */
static uint32_t canon_name(namemap *m, const graph *g, str_ix s)
{
    const char *t = graph_str(g, s);
    size_t stem = name_stem(t);
    if (stem == strlen(t))
        return s;
    uint32_t h = hash_fnv32(t, stem);
    hmap_it it;
    for (uint32_t o = hmap_first(&m->index, h, &it); o != HMAP_NONE;
         o = hmap_next(&m->index, &it)) {
        const char *os = graph_str(g, o);
        if (name_stem(os) == stem && memcmp(os, t, stem) == 0)
            return o;
    }
    if (!hmap_add(&m->index, h, s))
        return CLUSTER_NONE;
    return s;
}

/* ---- directories ---- */

/* Directory index of name (len bytes, copied when new); CLUSTER_NONE when out of memory. */
static uint32_t dir_intern(cluster_ctx *c, const char *name, size_t len)
{
    char tmp[256];
    if (len >= sizeof tmp)
        len = sizeof tmp - 1;
    memcpy(tmp, name, len);
    tmp[len] = '\0';
    uint32_t h = hash_fnv32_str(tmp);
    hmap_it it;
    for (uint32_t d = hmap_first(&c->dir_index, h, &it); d != HMAP_NONE;
         d = hmap_next(&c->dir_index, &it))
        if (strcmp(c->dir_names[d], tmp) == 0)
            return d;
    if (c->n_dirs == c->cap_dirs) {
        uint32_t nc = c->cap_dirs ? c->cap_dirs * 2 : 64;
        char **a = err_reallocarray(c->dir_names, nc, sizeof *a);
        if (!a)
            return CLUSTER_NONE;
        c->dir_names = a;
        uint8_t *b = err_reallocarray(c->dir_by, nc, 1);
        if (!b)
            return CLUSTER_NONE;
        c->dir_by = b;
        uint8_t *li = err_reallocarray(c->dir_leak_ignore, nc, 1);
        if (!li)
            return CLUSTER_NONE;
        c->dir_leak_ignore = li;
        c->cap_dirs = nc;
    }
    char *s = strdup(tmp);
    if (!s)
        return CLUSTER_NONE;
    if (!hmap_add(&c->dir_index, h, c->n_dirs)) {
        free(s);
        return CLUSTER_NONE;
    }
    uint32_t id = c->n_dirs++;
    c->dir_names[id] = s;
    c->dir_by[id] = (uint8_t)crules_by(c->rules, s);
    c->dir_leak_ignore[id] = (uint8_t)crules_leak_ignored(c->rules, s);
    return id;
}

/* Directory name of an unmapped node: class name, else node name, else "(type)"; a
 * trailing "[digits]" becomes "[]". */
static uint32_t dir_of_unmapped(cluster_ctx *c, node_ix n)
{
    const graph *g = c->g;
    const char *s = graph_class_name(g, n);
    char buf[64];
    if (!*s)
        s = node_name(g, n);
    if (!*s) {
        snprintf(buf, sizeof buf, "(%s)", type_name(g, n));
        s = buf;
    }
    size_t len = strlen(s), stem = name_stem(s);
    if (stem < len) {
        char tmp[256];
        size_t keep = stem < sizeof tmp - 3 ? stem : sizeof tmp - 3;
        memcpy(tmp, s, keep);
        memcpy(tmp + keep, "[]", 2);
        return dir_intern(c, tmp, keep + 2);
    }
    return dir_intern(c, s, len);
}

/* u64 -> u32 cache for (type, name) pairs, over the one hash table. */
typedef struct pairmap {
    hmap index;     /* hash_mix64(key) -> entry */
    uint64_t *keys; /* entry -> key */
    uint32_t *vals; /* entry -> value */
    uint32_t cap, n;
} pairmap;

static int pair_get(const pairmap *m, uint64_t key, uint32_t *val)
{
    hmap_it it;
    for (uint32_t e = hmap_first(&m->index, (uint32_t)hash_mix64(key), &it); e != HMAP_NONE;
         e = hmap_next(&m->index, &it)) {
        if (m->keys[e] == key) {
            *val = m->vals[e];
            return 1;
        }
    }
    return 0;
}

/* Adds key (absent) with val; 0 when out of memory. */
static int pair_put(pairmap *m, uint64_t key, uint32_t val)
{
    if (m->n == m->cap) {
        if (m->cap >= (1u << 30))
            return 0;
        uint32_t nc = m->cap ? m->cap * 2 : 1024;
        uint64_t *k = err_reallocarray(m->keys, nc, sizeof *k);
        if (!k)
            return 0;
        m->keys = k;
        uint32_t *v = err_reallocarray(m->vals, nc, sizeof *v);
        if (!v)
            return 0;
        m->vals = v;
        m->cap = nc;
    }
    if (!hmap_add(&m->index, (uint32_t)hash_mix64(key), m->n))
        return 0;
    m->keys[m->n] = key;
    m->vals[m->n++] = val;
    return 1;
}

static lr_status bind_dirs(cluster_ctx *c, lr_error *err)
{
    const graph *g = c->g;
    uint8_t type_has[33] = {0}; /* per type index: 0 unknown, 1 no maps, 2 maps; [32] = "" */
    uint32_t *class_dir = NULL;
    pairmap pm = {0};
    lr_status st = LR_OK;
    if (g->n_classes && !(class_dir = err_mallocarray(g->n_classes, sizeof *class_dir)))
        goto nomem;
    for (uint32_t i = 0; i < g->n_classes; i++)
        class_dir[i] = CLUSTER_NONE;
    uint32_t dom_dir = CLUSTER_NONE;
    if (g->node_dom &&
        (dom_dir = dir_intern(c, CLUSTER_DIR_DETACHED, strlen(CLUSTER_DIR_DETACHED))) ==
            CLUSTER_NONE)
        goto nomem;
    for (node_ix n = 0; n < g->n_nodes; n++) {
        if (graph_node_dom(g, n) == GRAPH_DOM_DETACHED) {
            c->node_dir[n] = dom_dir;
            continue;
        }
        unsigned t = g->node_type && g->node_type[n] < g->n_types && g->node_type[n] < 32
                         ? g->node_type[n]
                         : 32;
        const char *tn = type_name(g, n);
        if (!type_has[t])
            type_has[t] = crules_type_has_maps(c->rules, tn) ? 2 : 1;
        uint32_t d = CLUSTER_NONE;
        if (type_has[t] == 2) {
            uint64_t key = ((uint64_t)t << 32) |
                           (g->node_name ? g->node_name[n] : class_key(g, n));
            uint32_t v;
            if (pair_get(&pm, key, &v)) {
                d = v;
            } else {
                int32_t m = crules_match(c->rules, tn, node_name(g, n));
                if (m >= 0) {
                    const char *dn = c->rules->maps[m].dir;
                    if ((d = dir_intern(c, dn, strlen(dn))) == CLUSTER_NONE)
                        goto nomem;
                } else {
                    d = CLUSTER_NAME_ANY; /* unmapped: decided by class below */
                }
                if (!pair_put(&pm, key, d))
                    goto nomem;
            }
        }
        if (d == CLUSTER_NONE || d == CLUSTER_NAME_ANY) {
            class_ix ci = graph_node_class(g, n);
            if (ci != GRAPH_NONE && ci < g->n_classes && class_dir[ci] != CLUSTER_NONE) {
                d = class_dir[ci];
            } else {
                if ((d = dir_of_unmapped(c, n)) == CLUSTER_NONE)
                    goto nomem;
                if (ci != GRAPH_NONE && ci < g->n_classes)
                    class_dir[ci] = d;
            }
        }
        c->node_dir[n] = d;
    }
    goto out;
nomem:
    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory assigning cluster directories");
out:
    free(class_dir);
    hmap_free(&pm.index);
    free(pm.keys);
    free(pm.vals);
    return st;
}

/* ---- chains ---- */

/* Dictionary test for holder h: its property edges lead, at least dict_min times and for
 * at least three quarters of them, to objects of one class; that class's keys are then
 * written `[]`. */
static uint32_t dict_class_of(const cluster_ctx *c, node_ix h, uint32_t *scratch,
                              uint32_t scratch_cap)
{
    const graph *g = c->g;
    uint32_t m = 0, min = c->rules->dict_min;
    for (edge_ix e = g->first_edge[h]; e < g->first_edge[h + 1]; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_PROPERTY ||
            g->edge_to[e] >= g->n_nodes)
            continue;
        if (m == scratch_cap)
            break;
        scratch[m++] = class_key(g, g->edge_to[e]);
    }
    if (m < min)
        return CLUSTER_NONE;
    for (uint32_t gap = m / 2; gap > 0; gap /= 2) /* shell sort: no allocation, O(m^1.3) */
        for (uint32_t i = gap; i < m; i++) {
            uint32_t v = scratch[i], j = i;
            while (j >= gap && scratch[j - gap] > v) {
                scratch[j] = scratch[j - gap];
                j -= gap;
            }
            scratch[j] = v;
        }
    uint32_t best = CLUSTER_NONE, best_n = 0;
    for (uint32_t i = 0; i < m;) {
        uint32_t j = i;
        while (j < m && scratch[j] == scratch[i])
            j++;
        if (j - i > best_n) {
            best_n = j - i;
            best = scratch[i];
        }
        i = j;
    }
    return best_n >= min && (uint64_t)best_n * 4 >= (uint64_t)m * 3 ? best : CLUSTER_NONE;
}

static uint32_t name_key(const cluster_ctx *c, node_ix from, edge_ix e)
{
    const graph *g = c->g;
    unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
    if (kind == GRAPH_EDGE_ELEMENT)
        return CLUSTER_NAME_ANY;
    if (GRAPH_EDGE_NAME_IS_INDEX(kind))
        return graph_edge_name(g, e);
    const char *nm = graph_str(g, graph_edge_name(g, e));
    if (all_digits(nm))
        return CLUSTER_NAME_ANY;
    /* a WeakMap entry's edge names its index and ids: one name for every entry */
    uint64_t table;
    if (kind == GRAPH_EDGE_INTERNAL && nm[0] >= '0' && nm[0] <= '9' &&
        devtools_weakmap_edge(nm, &table))
        return CLUSTER_NAME_ANY;
    if (kind == GRAPH_EDGE_PROPERTY && c->dict_class[from] != CLUSTER_NONE &&
        c->dict_class[from] == class_key(g, g->edge_to[e]))
        return CLUSTER_NAME_ANY;
    return graph_edge_name(g, e);
}

const char *cluster_edge_label(const cluster_ctx *c, node_ix from, edge_ix e, char *buf,
                               size_t cap)
{
    if (name_key(c, from, e) == CLUSTER_NAME_ANY) {
        snprintf(buf, cap, "[]");
        return buf;
    }
    return graph_edge_name_text(c->g, e, buf, cap);
}

/* Whether v, reached from p by edge e, continues a linked list: p and v are of one class and
 * p was itself reached by an edge of e's kind and name. Such a v shares p's chain, so the
 * nodes of a list (Node's timer list's _idleNext, a parent or next field, a Java queue's
 * Node.next) are one group from one call site rather than one group per position in the
 * list: 8,000 tasks queued in an executor were 32,844 clusters, a 10 M-node list 10 M
 * clusters and 3.1 GB. Every format (analyze's signatures fold such runs on V8 and ArkTS,
 * trace_fingerprint; HPROF's stay Shark's). */
static int linked_run(const cluster_ctx *c, node_ix p, edge_ix e, node_ix v)
{
    const graph *g = c->g;
    node_ix pp = c->parent[p];
    if (pp == GRAPH_NONE || class_key(g, p) != class_key(g, v))
        return 0;
    edge_ix pe = c->parent_edge[p];
    return GRAPH_EDGE_KIND(g->edge_kind[pe]) == GRAPH_EDGE_KIND(g->edge_kind[e]) &&
           name_key(c, pp, pe) == name_key(c, p, e);
}

/* Whether v, reached from p by edge e, continues a chain whose links alternate two kinds of
 * object: v is of its grandparent's class, p of its great-grandparent's, and e is the
 * reference that reached the grandparent (V8's Promise -> PromiseReaction -> Promise of a
 * .then chain; Entry.link -> Link.entry -> Entry). v then shares its grandparent's chain,
 * and so each of the chain's objects one of two chains, as analyze's signatures fold such
 * runs (trace_fingerprint). Every format, as linked_run. */
static int linked_pair_run(const cluster_ctx *c, node_ix p, edge_ix e, node_ix v)
{
    const graph *g = c->g;
    node_ix pp = c->parent[p];
    if (pp == GRAPH_NONE || c->parent[pp] == GRAPH_NONE ||
        class_key(g, v) != class_key(g, pp) || class_key(g, p) != class_key(g, c->parent[pp]) ||
        class_key(g, p) == class_key(g, v))
        return 0;
    edge_ix pe = c->parent_edge[pp];
    return GRAPH_EDGE_KIND(g->edge_kind[pe]) == GRAPH_EDGE_KIND(g->edge_kind[e]) &&
           name_key(c, c->parent[pp], pe) == name_key(c, p, e);
}

/* The longest cycle of classes a chain folds (cycle_run). */
#define CLUSTER_CYCLE_MAX 4

/* Whether v continues a chain that repeats a cycle of k = 3 or 4 objects not all of one
 * class, where linked_run and linked_pair_run fold cycles of 1 and 2: each of the k steps up
 * to v is of the class of, and entered by the reference (kind and name) that entered, the
 * object k steps above it (a closure leak: Object -> someMethod -> its Context ->
 * originalThing -> Object ..., "Meteor"'s, was one cluster per link). Returns the object
 * whose chain v shares, k steps above it, or GRAPH_NONE. O(k) a node. */
static node_ix cycle_run(const cluster_ctx *c, node_ix v)
{
    const graph *g = c->g;
    node_ix a[2 * CLUSTER_CYCLE_MAX + 1]; /* a[i]: v's ancestor i steps up */
    unsigned n = 0;
    for (node_ix x = v; x != GRAPH_NONE && n < 2 * CLUSTER_CYCLE_MAX + 1; x = c->parent[x])
        a[n++] = x;
    for (unsigned k = 3; k <= CLUSTER_CYCLE_MAX && 2 * k + 1 <= n; k++) {
        int ok = 1, one_class = 1;
        for (unsigned i = 0; i < k && ok; i++) {
            edge_ix ei = c->parent_edge[a[i]], ek = c->parent_edge[a[i + k]];
            ok = class_key(g, a[i]) == class_key(g, a[i + k]) &&
                 GRAPH_EDGE_KIND(g->edge_kind[ei]) == GRAPH_EDGE_KIND(g->edge_kind[ek]) &&
                 name_key(c, a[i + 1], ei) == name_key(c, a[i + k + 1], ek);
            one_class &= class_key(g, a[i]) == class_key(g, v);
        }
        if (ok && !one_class)
            return a[k];
    }
    return GRAPH_NONE;
}

/* Whether v, reached from p by edge e, heads a linked list: v holds, by an edge of e's kind
 * and name, an object of its own class. Its chain writes e's name `[]`, so a doubly linked
 * list entered at both ends (_idleNext one way, _idlePrev the other) is still one group.
 * Every format, as linked_run. O(edges of v). */
static int linked_head(const cluster_ctx *c, node_ix p, edge_ix e, node_ix v)
{
    const graph *g = c->g;
    unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
    uint32_t name = name_key(c, p, e), cls = class_key(g, v);
    for (edge_ix f = g->first_edge[v]; f < g->first_edge[v + 1]; f++) {
        node_ix w = g->edge_to[f];
        if (w < g->n_nodes && w != v && GRAPH_EDGE_KIND(g->edge_kind[f]) == kind &&
            class_key(g, w) == cls && name_key(c, v, f) == name)
            return 1;
    }
    return 0;
}

/* The most (class, kind, name in, name out) turns tree_run records: past it, fewer trees
 * fold, nothing else changes. */
#define TURNS_MAX (1u << 22)

/* Whether v, reached from p by edge e, continues a tree of one class whose links have more
 * than one name (a binary tree's left and right, a fiber's child and sibling, a TreeMap's
 * entries): p's parent, p and v are of one class, e and the edge into p of one kind but two
 * names n1 (into p) and n2 (into v), and the class takes all four turns of the two names
 * (each twice at least, and a 64th as often as the most taken): objects of it
 * entered by either name hold others by either (turns, counted in times). v then shares
 * p's chain, as in a list (linked_run): a tree of 8,191 nodes was 34 clusters, one per run
 * of left-right turns, and 5,461 fibers 21. A list link and another self-link (a queue's
 * `next`, each job's `dep` to a finished job) do not take all four, and their objects stay
 * two leaks; nested plain objects
 * (config.db.pool) never turn back either. */
static int tree_run(const cluster_ctx *c, const tuptab *turns, const uint32_t *times, node_ix p,
                    edge_ix e, node_ix v)
{
    const graph *g = c->g;
    node_ix pp = c->parent[p];
    if (turns->n == 0 || pp == GRAPH_NONE || class_key(g, p) != class_key(g, v) ||
        class_key(g, pp) != class_key(g, p))
        return 0;
    edge_ix pe = c->parent_edge[p];
    unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
    if (GRAPH_EDGE_KIND(g->edge_kind[pe]) != kind)
        return 0;
    uint32_t n1 = name_key(c, pp, pe), n2 = name_key(c, p, e);
    if (n1 == n2)
        return 0;
    /* A tree takes each of the four turns of its two names (n1 then n1, n1 then n2, n2 then
     * n1, n2 then n2) about as often: a queue whose finished jobs kept a `next` (once, or as
     * a list of their own) turns one way, or never goes dep then dep. */
    uint32_t cls = class_key(g, v), t[4] = {tup_find(turns, cls, kind, n1, n1),
                                            tup_find(turns, cls, kind, n1, n2),
                                            tup_find(turns, cls, kind, n2, n1),
                                            tup_find(turns, cls, kind, n2, n2)};
    uint64_t lo = UINT32_MAX, hi = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t k = t[i] == CLUSTER_NONE ? 0 : times[t[i]];
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    return lo >= 2 && lo * 64 >= hi;
}

/* Grows the ties' scratch to hold `want` entries; 0 when out of memory. */
static int tie_room(edge_ix **tie, uint32_t *cap, uint64_t want)
{
    if (want <= *cap)
        return 1;
    if (want > UINT32_MAX)
        return 0;
    edge_ix *t = realloc(*tie, want * sizeof *t);
    if (!t)
        return 0;
    *tie = t;
    *cap = (uint32_t)want;
    return 1;
}

/* Of two equally short ways into a node, whether the one from v beats the one from p: a
 * detached DOM node's sibling and parent links lose to any other way (a timer's closure
 * keeping one element of a removed section was chained through its detached siblings, and
 * `leaks` folded it into the cause that kept another: 5 of 9 causes of one page unseen), then
 * the holder that retains more wins. */
static int better_parent(const graph *g, const uint64_t *ret, node_ix v, node_ix p)
{
    int dv = graph_node_dom(g, v) == GRAPH_DOM_DETACHED, dp = graph_node_dom(g, p) ==
                                                               GRAPH_DOM_DETACHED;
    if (dv != dp)
        return dp;
    return ret && ret[v] > ret[p];
}

static lr_status bind_chains(cluster_ctx *c, tuptab *chains, lr_error *err)
{
    const graph *g = c->g;
    uint32_t n = g->n_nodes;
    uint32_t *depth = c->depth;
    node_ix *queue = err_mallocarray(n ? n : 1, sizeof *queue);
    uint32_t scratch_cap = 1u << 16;
    uint32_t *scratch = err_mallocarray(scratch_cap, sizeof *scratch);
    tuptab turns = {0}; /* (class, edge kind, name in, name out) of tree_run */
    uint32_t *times = NULL, times_cap = 0; /* how often each turn was taken */
    edge_ix *tie = NULL;
    uint32_t tie_cap = 0;
    /* the DevTools console's handles, taken after everything else (paths_console_link) */
    edge_ix *late = NULL;
    uint32_t n_late = 0, late_cap = 0;
    lr_status st = LR_OK;
    if (!depth || !queue || !scratch)
        goto nomem;
    for (uint32_t i = 0; i < n; i++) {
        depth[i] = UINT32_MAX;
        c->node_chain[i] = CLUSTER_NONE;
        c->parent[i] = GRAPH_NONE;
        c->parent_edge[i] = GRAPH_NONE;
        c->dict_class[i] = CLUSTER_NONE;
    }
    uint32_t qh = 0, qt = 0;
    if (g->synthetic_root != GRAPH_NONE && g->synthetic_root < n) {
        node_ix r = g->synthetic_root;
        depth[r] = 0;
        if ((c->node_chain[r] = tup_intern(chains, CLUSTER_NONE, ROOT_KIND, 0, 0)) ==
            CLUSTER_NONE)
            goto nomem;
        queue[qt++] = r;
    } else {
        for (uint32_t i = 0; i < g->n_roots; i++) {
            node_ix r = g->roots[i].node;
            if (r >= n || depth[r] != UINT32_MAX)
                continue;
            depth[r] = 0;
            c->node_chain[r] = tup_intern(chains, CLUSTER_NONE, ROOT_KIND, g->roots[i].kind, 0);
            if (c->node_chain[r] == CLUSTER_NONE)
                goto nomem;
            queue[qt++] = r;
        }
    }
    const uint64_t *ret = c->dom ? c->dom->retained : NULL;
    while (qh < qt || n_late) {
        if (qh == qt) {
            /* what only the console holds, chained through its handle, and what it holds */
            for (uint32_t i = 0; i < n_late; i++) {
                edge_ix e = late[i];
                node_ix u = graph_edge_from(g, e), w = g->edge_to[e];
                if (depth[w] != UINT32_MAX)
                    continue;
                depth[w] = depth[u] + 1;
                c->parent[w] = u;
                c->parent_edge[w] = e;
                queue[qt++] = w;
            }
            n_late = 0;
            continue;
        }
        node_ix v = queue[qh++];
        /* v's own keys first: linked_head reads the names of v's edges as its children will */
        if (g->first_edge[v + 1] - g->first_edge[v] >= c->rules->dict_min)
            c->dict_class[v] = dict_class_of(c, v, scratch, scratch_cap);
        c->n_reached++;
        uint32_t d = depth[v] + 1, q0 = qt;
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            if (!edge_followed(g, v, e))
                continue;
            node_ix w = g->edge_to[e];
            if (depth[w] == UINT32_MAX && paths_console_link(g, v, e)) {
                if (n_late == late_cap) {
                    uint32_t nc = late_cap ? 2 * late_cap : 64;
                    edge_ix *q = err_reallocarray(late, nc, sizeof *q);
                    if (!q)
                        goto nomem;
                    late = q;
                    late_cap = nc;
                }
                late[n_late++] = e;
                continue;
            }
            if (depth[w] == UINT32_MAX) {
                depth[w] = d;
                c->parent[w] = v;
                c->parent_edge[w] = e;
                queue[qt++] = w;
            } else if (depth[w] == d && c->parent[w] != v &&
                       better_parent(g, ret, v, c->parent[w])) {
                c->parent[w] = v;
                c->parent_edge[w] = e;
            } else if (depth[w] == d && g->ties_by_name && c->parent[w] == v &&
                       GRAPH_EDGE_TIES_BY_NAME(GRAPH_EDGE_KIND(g->edge_kind[e])) &&
                       GRAPH_EDGE_TIES_BY_NAME(
                           GRAPH_EDGE_KIND(g->edge_kind[c->parent_edge[w]])) &&
                       graph_edge_name_cmp(g, v, e, c->parent_edge[w]) < 0) {
                c->parent_edge[w] = e; /* of v's edges to w, the first by name */
            }
        }
        /* graph.ties_by_name: of the nodes v reached first, those reached through edges listed
         * in a hash's order are queued in name order (graph_order_ties), so equally short ways
         * are chosen the same in every dump of the program */
        if (g->ties_by_name && qt - q0 > 1) {
            uint32_t k = qt - q0;
            if (!tie_room(&tie, &tie_cap, 5 * (uint64_t)k))
                goto nomem;
            for (uint32_t i = 0; i < k; i++)
                tie[i] = c->parent_edge[queue[q0 + i]];
            if (graph_edge_ties(g, tie, k) > 1) {
                graph_order_ties(g, v, tie, NULL, k, tie + k);
                for (uint32_t i = 0; i < k; i++)
                    queue[q0 + i] = g->edge_to[tie[i]];
            }
        }
    }
    /* the turns each class takes (tree_run): an object entered from its class by a name
     * holds another of its class by a name; one pass over the forest, then the chains in the
     * order the nodes were reached, so a parent's chain comes before its children's */
    for (uint32_t i = 0; i < qt && turns.n < TURNS_MAX; i++) {
        node_ix v = queue[i], p = c->parent[v];
        uint32_t cls = class_key(g, v);
        if (p == GRAPH_NONE || class_key(g, p) != cls)
            continue;
        edge_ix e = c->parent_edge[v];
        unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
        uint32_t nin = name_key(c, p, e);
        for (edge_ix f = g->first_edge[v]; f < g->first_edge[v + 1]; f++) {
            node_ix w = g->edge_to[f];
            if (w >= g->n_nodes || w == v || GRAPH_EDGE_KIND(g->edge_kind[f]) != kind ||
                class_key(g, w) != cls)
                continue;
            uint32_t t = tup_intern(&turns, cls, kind, nin, name_key(c, v, f));
            if (t == CLUSTER_NONE)
                goto nomem;
            if (t >= times_cap) {
                uint32_t nc = times_cap ? 2 * times_cap : 1024;
                uint32_t *q = err_reallocarray(times, nc, sizeof *q);
                if (!q)
                    goto nomem;
                memset(q + times_cap, 0, (size_t)(nc - times_cap) * sizeof *q);
                times = q;
                times_cap = nc;
            }
            times[t] += times[t] < UINT32_MAX;
        }
    }
    for (uint32_t i = 0; i < qt; i++) {
        node_ix v = queue[i];
        if (c->parent[v] != GRAPH_NONE) {
            node_ix p = c->parent[v], cyc;
            edge_ix e = c->parent_edge[v];
            if (linked_run(c, p, e, v) || tree_run(c, &turns, times, p, e, v))
                c->node_chain[v] = c->node_chain[p];
            else if (linked_pair_run(c, p, e, v))
                c->node_chain[v] = c->node_chain[c->parent[p]];
            else if ((cyc = cycle_run(c, v)) != GRAPH_NONE)
                c->node_chain[v] = c->node_chain[cyc];
            else
                c->node_chain[v] = tup_intern(
                    chains, c->node_chain[p], GRAPH_EDGE_KIND(g->edge_kind[e]),
                    linked_head(c, p, e, v) ? CLUSTER_NAME_ANY : name_key(c, p, e),
                    class_key(g, p));
            if (c->node_chain[v] == CLUSTER_NONE)
                goto nomem;
        }
    }
    c->n_chains = chains->n;
    goto out;
nomem:
    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building reference chains");
out:
    free(queue);
    free(scratch);
    tup_free(&turns);
    free(times);
    free(tie);
    free(late);
    return st;
}

typedef struct domkids domkids;
static lr_status kids_build(const graph *g, const dom_tree *t, domkids *k, lr_error *err);
static void kids_free(domkids *k);
static lr_status add_native(const graph *g, dom_tree *t, lr_error *err);

/* The tree of cluster_dom_build from DevTools' arrays idom and retained (r's or copies of
 * them), which t takes over. */
static lr_status dom_from_devtools(const graph *g, const devtools_result *r, node_ix *idom,
                                   uint64_t *retained, int with_native, dom_tree *t,
                                   lr_error *err)
{
    /* DevTools hangs every node under its root (unreachable ones too); the root itself is
     * the only child of the super-root. Reachability for clustering comes from the chains;
     * the count of reachable objects is DevTools' (what `top` says), not the tree's size. */
    t->n = r->n;
    t->idom = idom;
    t->retained = retained;
    t->idom[r->root] = DOM_SUPER_ROOT;
    t->total_reachable = r->total;
    t->n_reachable = r->n - r->n_unreachable;
    /* DevTools ignores ArkTS native_size; leakray counts it in shallow sizes, so it must be
     * in retained sizes too or a cluster could retain less than it holds. */
    lr_status st = LR_OK;
    if (with_native && g->node_native && (st = add_native(g, t, err)) != LR_OK)
        dom_free(t);
    return st;
}

lr_status cluster_dom_build(const graph *g, dom_tree *t, lr_error *err)
{
    memset(t, 0, sizeof *t);
    if (g->synthetic_root == GRAPH_NONE || !g->format || strcmp(g->format, "v8") != 0)
        return dom_build(g, NULL, NULL, t, err);
    devtools_result r;
    lr_status st = devtools_build(g, NULL, &r, err);
    if (st != LR_OK)
        return st;
    node_ix *idom = r.idom;
    uint64_t *retained = r.retained;
    r.idom = NULL;
    r.retained = NULL;
    st = dom_from_devtools(g, &r, idom, retained, 1, t, err);
    devtools_free(&r);
    return st;
}

static lr_status dom_copy(const graph *g, const devtools_result *r, int with_native, dom_tree *t,
                          lr_error *err)
{
    memset(t, 0, sizeof *t);
    node_ix *idom = err_mallocarray(r->n ? r->n : 1, sizeof *idom);
    uint64_t *retained = err_mallocarray(r->n ? r->n : 1, sizeof *retained);
    if (!idom || !retained) {
        free(idom);
        free(retained);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for the dominator tree");
    }
    memcpy(idom, r->idom, (size_t)r->n * sizeof *idom);
    memcpy(retained, r->retained, (size_t)r->n * sizeof *retained);
    return dom_from_devtools(g, r, idom, retained, with_native, t, err);
}

lr_status cluster_dom_copy(const graph *g, const devtools_result *r, dom_tree *t, lr_error *err)
{
    if (g->synthetic_root == GRAPH_NONE || !g->format || strcmp(g->format, "v8") != 0)
        return cluster_dom_build(g, t, err);
    return dom_copy(g, r, 1, t, err);
}

lr_status cluster_dom_devtools(const graph *g, const devtools_result *r, dom_tree *t,
                               lr_error *err)
{
    return dom_copy(g, r, 0, t, err);
}

lr_status cluster_bind(cluster_ctx *c, const graph *g, const crules_set *rs, const dom_tree *t,
                       lr_error *err)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->rules = rs;
    c->dom = t;
    size_t n = g->n_nodes ? g->n_nodes : 1;
    c->node_dir = err_mallocarray(n, sizeof *c->node_dir);
    c->node_chain = err_mallocarray(n, sizeof *c->node_chain);
    c->parent = err_mallocarray(n, sizeof *c->parent);
    c->parent_edge = err_mallocarray(n, sizeof *c->parent_edge);
    c->dict_class = err_mallocarray(n, sizeof *c->dict_class);
    c->depth = err_mallocarray(n, sizeof *c->depth);
    if (!c->node_dir || !c->node_chain || !c->parent || !c->parent_edge || !c->dict_class ||
        !c->depth) {
        cluster_fini(c);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory binding cluster rules");
    }
    lr_status st = bind_dirs(c, err);
    tuptab chains = {0};
    if (st == LR_OK)
        st = bind_chains(c, &chains, err);
    tup_free(&chains);
    if (st != LR_OK)
        cluster_fini(c);
    return st;
}

void cluster_fini(cluster_ctx *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->n_dirs; i++)
        free(c->dir_names[i]);
    free(c->dir_names);
    free(c->dir_by);
    free(c->dir_leak_ignore);
    hmap_free(&c->dir_index);
    free(c->node_dir);
    free(c->node_chain);
    free(c->parent);
    free(c->parent_edge);
    free(c->dict_class);
    free(c->depth);
    memset(c, 0, sizeof *c);
}

uint32_t cluster_chain_get(const cluster_ctx *c, node_ix n, node_ix *nodes, edge_ix *edges,
                           uint32_t cap)
{
    if (n >= c->g->n_nodes || c->node_chain[n] == CLUSTER_NONE)
        return 0;
    uint32_t len = 1;
    for (node_ix v = n; c->parent[v] != GRAPH_NONE; v = c->parent[v])
        len++;
    uint32_t i = len;
    for (node_ix v = n;; v = c->parent[v]) {
        i--;
        if (i < cap) {
            nodes[i] = v;
            if (i > 0)
                edges[i - 1] = c->parent_edge[v];
        }
        if (c->parent[v] == GRAPH_NONE)
            break;
    }
    return len;
}

/* ---- rule keys ---- */

/* DOM key of a detached node's name (into buf): an element keeps its tag and its class
 * attribute, so `Detached <div class="panel" id="panel-7">` becomes `Detached <div
 * class="panel">` and the 250 panels of one call site share a key; ids and other attributes
 * are per element. Other names (Text, blink internals) are kept whole. */
static const char *dom_key_text(const char *nm, char *buf, size_t cap)
{
    const char *lt = strchr(nm, '<');
    if (!lt || (lt != nm && strncmp(nm, "Detached <", 10) != 0)) {
        snprintf(buf, cap, "%s", nm);
        return buf;
    }
    size_t tag = strcspn(lt, " >");
    const char *cls = strstr(lt, " class=\"");
    int cl = 0;
    if (cls) {
        const char *q = strchr(cls + 8, '"');
        cl = q ? (int)(q + 1 - cls) : 0;
    }
    snprintf(buf, cap, "%.*s%.*s>", (int)(lt + tag - nm), nm, cl, cl ? cls : "");
    return buf;
}

/* The tag alone: `Detached <div class="row css-1x2y">` -> `Detached <div>`. */
static const char *dom_tag_text(const char *nm, char *buf, size_t cap)
{
    const char *lt = strchr(nm, '<');
    if (!lt || (lt != nm && strncmp(nm, "Detached <", 10) != 0)) {
        snprintf(buf, cap, "%s", nm);
        return buf;
    }
    snprintf(buf, cap, "%.*s>", (int)(lt + strcspn(lt, " >") - nm), nm);
    return buf;
}

/* Exact set of owned strings, ids in insertion order (the DOM keys of one run). */
typedef struct strset {
    char **strs;
    uint32_t n, cap;
    hmap index; /* FNV-1a -> id */
} strset;

static uint32_t strset_get(strset *m, const char *s)
{
    uint32_t h = hash_fnv32_str(s);
    hmap_it it;
    for (uint32_t id = hmap_first(&m->index, h, &it); id != HMAP_NONE;
         id = hmap_next(&m->index, &it))
        if (strcmp(m->strs[id], s) == 0)
            return id;
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 64;
        char **p = err_reallocarray(m->strs, nc, sizeof *p);
        if (!p)
            return CLUSTER_NONE;
        m->strs = p;
        m->cap = nc;
    }
    if (m->n >= CLUSTER_DOM_INSIDE || !(m->strs[m->n] = strdup(s)))
        return CLUSTER_NONE;
    if (!hmap_add(&m->index, h, m->n)) {
        free(m->strs[m->n]);
        return CLUSTER_NONE;
    }
    return m->n++;
}

static void strset_free(strset *m)
{
    for (uint32_t i = 0; i < m->n; i++)
        free(m->strs[i]);
    free(m->strs);
    hmap_free(&m->index);
}

static int is_meta_edge(const graph *g, edge_ix e)
{
    unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
    if (GRAPH_EDGE_NAME_IS_INDEX(kind) || kind == GRAPH_EDGE_ELEMENT)
        return 0;
    const char *s = graph_str(g, graph_edge_name(g, e));
    return strcmp(s, "map") == 0 || strcmp(s, "__proto__") == 0 || strcmp(s, "proto") == 0 ||
           strcmp(s, "constructor") == 0 || strcmp(s, "prototype") == 0;
}

/* Name of the first closure found from a promise or reaction through its own non-meta
 * edges (bounded BFS), or CLUSTER_NONE. */
static uint32_t promise_handler(const cluster_ctx *c, node_ix n)
{
    const graph *g = c->g;
    node_ix seen[PROMISE_MAX_VISIT];
    uint8_t dep[PROMISE_MAX_VISIT];
    uint32_t h = 0, t = 0;
    seen[t] = n;
    dep[t++] = 0;
    while (h < t) {
        node_ix v = seen[h];
        uint8_t d = dep[h++];
        if (d >= PROMISE_MAX_DEPTH)
            continue;
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            if (!edge_followed(g, v, e) || is_meta_edge(g, e))
                continue;
            node_ix w = g->edge_to[e];
            if (g->node_kind[w] == GRAPH_KIND_CLOSURE)
                return g->node_name ? g->node_name[w] : class_key(g, w);
            if (g->node_kind[w] == GRAPH_KIND_CODE || g->node_kind[w] == GRAPH_KIND_STRING ||
                g->node_kind[w] == GRAPH_KIND_SYNTHETIC)
                continue;
            int dup = 0;
            for (uint32_t i = 0; i < t && !dup; i++)
                dup = seen[i] == w;
            if (dup || t == PROMISE_MAX_VISIT)
                continue;
            seen[t] = w;
            dep[t++] = (uint8_t)(d + 1);
        }
    }
    return CLUSTER_NONE;
}

/* Class key of a proxy's target: the edge named "target" (ArkTS, any case) or V8's hidden
 * slot 1 of system / JSProxy. */
static uint32_t proxy_target(const cluster_ctx *c, node_ix n)
{
    const graph *g = c->g;
    node_ix slot1 = GRAPH_NONE;
    for (edge_ix e = g->first_edge[n]; e < g->first_edge[n + 1]; e++) {
        unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
        node_ix w = g->edge_to[e];
        if (w >= g->n_nodes || kind == GRAPH_EDGE_WEAK)
            continue;
        if (GRAPH_EDGE_NAME_IS_INDEX(kind)) {
            if (graph_edge_name(g, e) == 1 && slot1 == GRAPH_NONE)
                slot1 = w;
        } else if (kind != GRAPH_EDGE_ELEMENT &&
                   strcasecmp(graph_str(g, graph_edge_name(g, e)), "target") == 0) {
            return class_key(g, w);
        }
    }
    return slot1 != GRAPH_NONE ? class_key(g, slot1) : CLUSTER_NONE;
}

/* Interned set of (kind, name) of the properties n holds directly: property/field/context
 * names and `[]` for elements, sorted, as a trie in `sets`. */
static uint32_t property_set(const cluster_ctx *c, node_ix n, tuptab *sets, uint64_t *buf,
                             uint32_t cap)
{
    const graph *g = c->g;
    uint32_t m = 0;
    for (edge_ix e = g->first_edge[n]; e < g->first_edge[n + 1] && m < cap; e++) {
        unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
        uint32_t nm;
        if (kind == GRAPH_EDGE_ELEMENT)
            nm = CLUSTER_NAME_ANY;
        else if (kind == GRAPH_EDGE_PROPERTY || kind == GRAPH_EDGE_FIELD ||
                 kind == GRAPH_EDGE_CONTEXT)
            nm = is_meta_edge(g, e) ? CLUSTER_NONE : graph_edge_name(g, e);
        else
            continue;
        if (nm != CLUSTER_NONE)
            buf[m++] = ((uint64_t)kind << 32) | nm;
    }
    for (uint32_t i = 1; i < m; i++) { /* insertion sort: property lists are short */
        uint64_t v = buf[i];
        uint32_t j = i;
        while (j > 0 && buf[j - 1] > v) {
            buf[j] = buf[j - 1];
            j--;
        }
        buf[j] = v;
    }
    uint32_t id = CLUSTER_NONE;
    for (uint32_t i = 0; i < m; i++) {
        if (i > 0 && buf[i] == buf[i - 1])
            continue;
        id = tup_intern(sets, id, (uint32_t)(buf[i] >> 32), (uint32_t)buf[i], 0x50524f50u);
        if (id == CLUSTER_NONE)
            return CLUSTER_NONE - 1; /* out of memory: caller checks */
    }
    return id;
}

/* ---- sizes over the dominator tree ---- */

struct domkids {
    uint32_t *first; /* n + 2: children of node v are kids[first[v] .. first[v+1]); v = n is
                      * the virtual super-root */
    node_ix *kids;
};

static lr_status kids_build(const graph *g, const dom_tree *t, domkids *k, lr_error *err)
{
    uint32_t n = g->n_nodes;
    k->first = err_calloc((size_t)n + 2, sizeof *k->first);
    k->kids = err_mallocarray(n ? n : 1, sizeof *k->kids);
    if (!k->first || !k->kids)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory walking the dominator tree");
    for (node_ix v = 0; v < n; v++) {
        node_ix d = t->idom[v];
        if (d == GRAPH_NONE)
            continue;
        k->first[(d == DOM_SUPER_ROOT || d >= n ? n : d) + 1]++;
    }
    for (uint32_t i = 1; i < n + 2; i++)
        k->first[i] += k->first[i - 1];
    uint32_t *pos = err_mallocarray((size_t)n + 1, sizeof *pos);
    if (!pos)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory walking the dominator tree");
    memcpy(pos, k->first, ((size_t)n + 1) * sizeof *pos);
    for (node_ix v = 0; v < n; v++) {
        node_ix d = t->idom[v];
        if (d == GRAPH_NONE)
            continue;
        k->kids[pos[d == DOM_SUPER_ROOT || d >= n ? n : d]++] = v;
    }
    free(pos);
    return LR_OK;
}

static void kids_free(domkids *k)
{
    free(k->first);
    free(k->kids);
}

/* Adds each node's native bytes to its retained size and to every dominator above it: one
 * iterative post-order walk of the dominator tree. */
static lr_status add_native(const graph *g, dom_tree *t, lr_error *err)
{
    uint32_t n = g->n_nodes;
    domkids k = {0};
    uint64_t *sub = err_calloc((size_t)n + 1, sizeof *sub);
    node_ix *stk = err_mallocarray((size_t)n + 1, sizeof *stk);
    uint32_t *cur = err_mallocarray((size_t)n + 1, sizeof *cur);
    lr_status st = kids_build(g, t, &k, err);
    if (st == LR_OK && (!sub || !stk || !cur))
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory adding native sizes");
    if (st == LR_OK) {
        uint32_t sp = 0;
        stk[0] = n;
        cur[0] = k.first[n];
        for (;;) {
            node_ix v = stk[sp];
            if (cur[sp] < k.first[v + 1]) {
                node_ix w = k.kids[cur[sp]++];
                stk[++sp] = w;
                cur[sp] = k.first[w];
                continue;
            }
            if (sp == 0)
                break;
            sub[v] += g->node_native[v];
            t->retained[v] += sub[v];
            sp--;
            sub[stk[sp]] += sub[v];
        }
        t->total_reachable += sub[n];
    }
    kids_free(&k);
    free(sub);
    free(stk);
    free(cur);
    return st;
}

/* Per-group retained sizes without double counting. group[v] is v's group or CLUSTER_NONE.
 * Fills ret[g] (sum over members with no same-group dominator ancestor), ntop[g], and, when
 * nested is given, nested[g] = the nearest group that has a member among the dominators of
 * every top member of g (CLUSTER_NONE when there is none): the first top member's dominator
 * path offers up to NEST_CAND groups, nearest first, and each further top member keeps only
 * those on its own path (cnt[] counts each group's members on the current path). A group
 * whose members hang under 200 different single-member groups is thus nested in none;
 * under one group of 200 members it is nested in that group. *total = retained size of all
 * members together. */
static lr_status group_sizes(const graph *g, const dom_tree *t, const domkids *k,
                             const uint32_t *group, uint32_t n_groups, uint64_t *ret,
                             uint32_t *ntop, uint32_t *nested, uint64_t *total, lr_error *err)
{
    uint32_t n = g->n_nodes;
    uint32_t *cnt = err_calloc(n_groups ? n_groups : 1, sizeof *cnt);
    node_ix *stk = err_mallocarray((size_t)n + 1, sizeof *stk);
    uint32_t *cur = err_mallocarray((size_t)n + 1, sizeof *cur);
    uint32_t *cand = nested ? err_mallocarray((size_t)(n_groups ? n_groups : 1) * NEST_CAND,
                                              sizeof *cand)
                            : NULL;
    uint8_t *cand_n = nested ? err_calloc(n_groups ? n_groups : 1, 1) : NULL;
    if (!cnt || !stk || !cur || (nested && (!cand || !cand_n))) {
        free(cnt);
        free(stk);
        free(cur);
        free(cand);
        free(cand_n);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory summing cluster sizes");
    }
    memset(ret, 0, (size_t)n_groups * sizeof *ret);
    memset(ntop, 0, (size_t)n_groups * sizeof *ntop);
    uint64_t tot = 0;
    uint32_t members_on_path = 0, sp = 0;
    stk[0] = n; /* the super-root */
    cur[0] = k->first[n];
    for (;;) {
        node_ix v = stk[sp];
        uint32_t end = k->first[v + 1];
        if (cur[sp] < end) {
            node_ix w = k->kids[cur[sp]++];
            uint32_t gw = group[w];
            sp++;
            stk[sp] = w;
            cur[sp] = k->first[w];
            if (gw != CLUSTER_NONE) {
                if (cnt[gw] == 0) {
                    ret[gw] += t->retained[w];
                    ntop[gw]++;
                    uint32_t *cw = nested ? &cand[(size_t)gw * NEST_CAND] : NULL;
                    if (nested && ntop[gw] == 1 && members_on_path) {
                        for (uint32_t i = sp - 1; i >= 1 && cand_n[gw] < NEST_CAND; i--) {
                            uint32_t gi = group[stk[i]];
                            int dup = gi == CLUSTER_NONE;
                            for (uint32_t q = 0; q < cand_n[gw] && !dup; q++)
                                dup = cw[q] == gi;
                            if (!dup)
                                cw[cand_n[gw]++] = gi;
                        }
                    } else if (nested && cand_n[gw]) {
                        uint32_t kept = 0;
                        for (uint32_t q = 0; q < cand_n[gw]; q++)
                            if (cnt[cw[q]])
                                cw[kept++] = cw[q];
                        cand_n[gw] = (uint8_t)kept;
                    }
                }
                if (members_on_path == 0)
                    tot += t->retained[w];
                cnt[gw]++;
                members_on_path++;
            }
            continue;
        }
        if (sp == 0)
            break;
        if (group[v] != CLUSTER_NONE) {
            cnt[group[v]]--;
            members_on_path--;
        }
        sp--;
    }
    for (uint32_t i = 0; nested && i < n_groups; i++)
        nested[i] = cand_n[i] ? cand[(size_t)i * NEST_CAND] : CLUSTER_NONE;
    *total = tot;
    free(cnt);
    free(stk);
    free(cur);
    free(cand);
    free(cand_n);
    return LR_OK;
}

/* ---- cluster_run ---- */

static _Thread_local const cluster_item *sort_items; /* qsort has no context in C11 */
static _Thread_local const cluster_ctx *sort_ctx;
static _Thread_local int sort_by_count;

static int item_cmp(const void *pa, const void *pb)
{
    const cluster_item *a = &sort_items[*(const uint32_t *)pa];
    const cluster_item *b = &sort_items[*(const uint32_t *)pb];
    uint64_t ka = sort_by_count ? a->count : a->retained;
    uint64_t kb = sort_by_count ? b->count : b->retained;
    uint64_t la = sort_by_count ? a->retained : a->count;
    uint64_t lb = sort_by_count ? b->retained : b->count;
    if (ka != kb)
        return ka > kb ? -1 : 1;
    if (la != lb)
        return la > lb ? -1 : 1;
    int s = strcmp(sort_ctx->dir_names[a->dir], sort_ctx->dir_names[b->dir]);
    if (s)
        return s;
    uint64_t ia = graph_node_id(sort_ctx->g, a->rep), ib = graph_node_id(sort_ctx->g, b->rep);
    return ia < ib ? -1 : ia > ib;
}

static _Thread_local const uint64_t *anchor_ret;
static int anchor_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (anchor_ret[a] != anchor_ret[b])
        return anchor_ret[a] > anchor_ret[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

int cluster_resort(const cluster_ctx *c, cluster_result *r, enum cluster_sort sort,
                   uint32_t *old_to_new)
{
    uint32_t m = r->n;
    uint32_t *map = err_mallocarray(m ? m : 1, sizeof *map);
    uint32_t *pos = err_mallocarray(m ? m : 1, sizeof *pos);
    cluster_item *items = err_mallocarray(m ? m : 1, sizeof *items);
    if (!map || !pos || !items) {
        free(map);
        free(pos);
        free(items);
        return -1;
    }
    for (uint32_t i = 0; i < m; i++)
        map[i] = i;
    sort_items = r->items;
    sort_ctx = c;
    sort_by_count = sort == CLUSTER_SORT_COUNT;
    qsort(map, m, sizeof *map, item_cmp);
    for (uint32_t i = 0; i < m; i++)
        pos[map[i]] = i;
    for (uint32_t i = 0; i < m; i++) {
        items[i] = r->items[map[i]];
        if (items[i].nested_in != CLUSTER_NONE && items[i].nested_in < m)
            items[i].nested_in = pos[items[i].nested_in];
    }
    if (r->node_item)
        for (node_ix v = 0; v < c->g->n_nodes; v++)
            if (r->node_item[v] != CLUSTER_NONE && r->node_item[v] < m)
                r->node_item[v] = pos[r->node_item[v]];
    free(r->items);
    r->items = items;
    if (old_to_new)
        memcpy(old_to_new, pos, (size_t)m * sizeof *pos);
    free(map);
    free(pos);
    return 0;
}

void cluster_result_free(cluster_result *r)
{
    if (!r)
        return;
    free(r->items);
    free(r->anchors);
    free(r->node_item);
    memset(r, 0, sizeof *r);
}

/* Chooses the anchor directories; marks them in is_anchor. */
static lr_status pick_anchors(const cluster_ctx *c, const domkids *k, uint8_t *is_anchor,
                              cluster_result *r, lr_error *err)
{
    const graph *g = c->g;
    uint32_t nd = c->n_dirs;
    uint32_t *group = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *group);
    uint64_t *ret = err_mallocarray(nd ? nd : 1, sizeof *ret);
    uint32_t *ntop = err_mallocarray(nd ? nd : 1, sizeof *ntop);
    uint32_t *count = err_calloc(nd ? nd : 1, sizeof *count);
    uint32_t *order = err_mallocarray(nd ? nd : 1, sizeof *order);
    lr_status st = LR_OK;
    if (!group || !ret || !ntop || !count || !order) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory choosing anchors");
        goto out;
    }
    for (node_ix v = 0; v < g->n_nodes; v++) {
        uint32_t d = c->node_dir[v];
        int ok = c->dom->idom[v] != GRAPH_NONE && c->node_chain[v] != CLUSTER_NONE &&
                 c->dir_by[d] != CRULES_BY_NONE &&
                 c->dir_by[d] != CRULES_BY_INTERNAL && g->node_kind[v] != GRAPH_KIND_SYNTHETIC;
        group[v] = ok ? d : CLUSTER_NONE;
        if (ok)
            count[d]++;
    }
    uint64_t tot;
    if ((st = group_sizes(g, c->dom, k, group, nd, ret, ntop, NULL, &tot, err)) != LR_OK)
        goto out;
    uint32_t m = 0;
    for (uint32_t d = 0; d < nd; d++)
        if (count[d])
            order[m++] = d;
    anchor_ret = ret;
    qsort(order, m, sizeof *order, anchor_cmp);
    uint64_t heap = r->heap_total;
    r->anchors = err_calloc(m ? m : 1, sizeof *r->anchors);
    if (!r->anchors) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory choosing anchors");
        goto out;
    }
    for (uint32_t i = 0; i < m; i++) {
        uint32_t d = order[i];
        int big = heap && (long double)ret[d] * 1000.0L > (long double)heap *
                                                              c->rules->anchor_permille;
        if (i < c->rules->anchor_top || big) {
            is_anchor[d] = 1;
            r->anchors[r->n_anchors].dir = d;
            r->anchors[r->n_anchors].count = count[d];
            r->anchors[r->n_anchors].retained = ret[d];
            r->n_anchors++;
        }
    }
out:
    free(group);
    free(ret);
    free(ntop);
    free(count);
    free(order);
    return st;
}

lr_status cluster_run(const cluster_ctx *c, const uint8_t *select, enum cluster_sort sort,
                      cluster_result *r, lr_error *err)
{
    return cluster_run_keep(c, select, sort, 0, r, err);
}

/* The leak-ignored directories that dropped the most objects, most first (ties: the
 * directory seen first), so that "filtered" says which rules took what. */
static void top_skipped_dirs(cluster_result *r, const uint32_t *count, uint32_t n_dirs)
{
    r->n_skip_dirs = 0;
    for (uint32_t d = 0; d < n_dirs; d++) {
        if (!count[d])
            continue;
        uint32_t at = r->n_skip_dirs;
        while (at > 0 && r->skip_dir_count[at - 1] < count[d])
            at--;
        if (at >= CLUSTER_SKIP_DIRS)
            continue;
        uint32_t last = r->n_skip_dirs < CLUSTER_SKIP_DIRS ? r->n_skip_dirs : CLUSTER_SKIP_DIRS - 1;
        for (uint32_t i = last; i > at; i--) {
            r->skip_dir[i] = r->skip_dir[i - 1];
            r->skip_dir_count[i] = r->skip_dir_count[i - 1];
        }
        r->skip_dir[at] = d;
        r->skip_dir_count[at] = count[d];
        if (r->n_skip_dirs < CLUSTER_SKIP_DIRS)
            r->n_skip_dirs++;
    }
}

/* For the leak filter: 2 for the objects that a directory of `leak-ignore ... dominated`
 * dominates (its own objects included), 1 for the others; NULL when no directory says so.
 * Each dominator chain is climbed once, up to the first object already decided. */
static lr_status dominated_ignored(const cluster_ctx *c, uint8_t **out, lr_error *err)
{
    const graph *g = c->g;
    uint32_t n = g->n_nodes;
    *out = NULL;
    int any = 0;
    for (uint32_t d = 0; d < c->n_dirs; d++)
        any |= c->dir_leak_ignore[d] == CRULES_IGNORE_DOMINATED;
    if (!any)
        return LR_OK;
    uint8_t *m = err_calloc(n ? n : 1, 1);
    node_ix *stk = err_mallocarray(n ? n : 1, sizeof *stk);
    if (!m || !stk) {
        free(m);
        free(stk);
        return LR_FAIL(err, LR_ERR_NOMEM, "leaks: out of memory (%u objects)", n);
    }
    for (node_ix v = 0; v < n; v++) {
        uint32_t ns = 0;
        uint8_t res = 1;
        for (node_ix x = v; x < n && ns < n; x = c->dom->idom[x]) {
            if (m[x]) {
                res = m[x];
                break;
            }
            stk[ns++] = x;
            if (c->dir_leak_ignore[c->node_dir[x]] == CRULES_IGNORE_DOMINATED) {
                res = 2;
                break;
            }
        }
        while (ns)
            m[stk[--ns]] = res;
    }
    free(stk);
    *out = m;
    return LR_OK;
}

#define NEAR_UNSET (CLUSTER_NONE - 1)
#define HOLD_NONE CLUSTER_NONE        /* not a member waiting for its holder */
#define HOLD_WAIT (CLUSTER_NONE - 1)  /* no holding referrer seen yet */
#define HOLD_FAIL (CLUSTER_NONE - 2)  /* held from outside every group, or by two groups */
#define HOLD_DOM 0x80000000u          /* the group dominates it (no referrer asked) */

/* Nearest group among x and its dominators (CLUSTER_NONE: none), memoised in near[]. */
static uint32_t near_group(const dom_tree *t, const uint32_t *member, uint32_t *near,
                           uint32_t n, node_ix x)
{
    node_ix y = x;
    while (y < n && near[y] == NEAR_UNSET && member[y] == CLUSTER_NONE)
        y = t->idom[y];
    uint32_t top = y >= n ? CLUSTER_NONE : member[y] != CLUSTER_NONE ? member[y] : near[y];
    for (node_ix z = x; z < n && near[z] == NEAR_UNSET && member[z] == CLUSTER_NONE;
         z = t->idom[z])
        near[z] = top;
    return top;
}

/* Nesting for the groups group_sizes left in none, by what holds them: a group is nested in
 * B when each of its members whose nearest group above is not itself has B as that group,
 * or else is referred to (strong references) only from B's members, the objects B's members
 * dominate, and its own group's. Any path to such a member passes through B, though no one
 * member of B dominates it: a pooled ArrayBuffer two leaked Buffers share is dominated by
 * the array holding both Buffers, which no group dominated, and left the ArrayBuffers'
 * group nested in none beside the Buffers' (the same bytes counted at the top twice). Only
 * a group's nearest group is asked, so this never nests where group_sizes would not have
 * for a dominated member. O(N + E); two uint32 per node, only when a group is left. */
static lr_status nest_by_holders(const graph *g, const dom_tree *t, const uint32_t *member,
                                 uint32_t n_groups, const uint32_t *ntop, uint32_t *nested,
                                 lr_error *err)
{
    uint32_t n = g->n_nodes;
    uint8_t *open = err_calloc(n_groups ? n_groups : 1, 1);
    if (!open)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory nesting clusters");
    uint32_t n_open = 0;
    for (uint32_t i = 0; i < n_groups; i++)
        if (ntop[i] && nested[i] == CLUSTER_NONE && n_groups > 1) {
            open[i] = 1;
            n_open++;
        }
    if (!n_open) {
        free(open);
        return LR_OK;
    }
    uint32_t *near = err_mallocarray(n ? n : 1, sizeof *near);
    uint32_t *hold = err_mallocarray(n ? n : 1, sizeof *hold);
    if (!near || !hold) {
        free(open);
        free(near);
        free(hold);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory nesting clusters");
    }
    for (node_ix v = 0; v < n; v++)
        near[v] = NEAR_UNSET;
    for (node_ix v = 0; v < n; v++) {
        uint32_t a = member[v];
        hold[v] = HOLD_NONE;
        if (a == CLUSTER_NONE || !open[a] || t->idom[v] == GRAPH_NONE)
            continue;
        node_ix d = t->idom[v];
        uint32_t above = d < n ? near_group(t, member, near, n, d) : CLUSTER_NONE;
        if (above == a)
            continue; /* inside a member of its own group */
        if (above != CLUSTER_NONE)
            hold[v] = above | HOLD_DOM;
        else
            hold[v] = d < n ? HOLD_WAIT : HOLD_FAIL; /* a root holds it */
    }
    for (node_ix u = 0; u < n; u++) {
        if (t->idom[u] == GRAPH_NONE)
            continue; /* unreachable: holds nothing */
        for (edge_ix e = g->first_edge[u]; e < g->first_edge[u + 1]; e++) {
            node_ix v = g->edge_to[e];
            if (v >= n || hold[v] == HOLD_NONE || hold[v] == HOLD_FAIL ||
                (hold[v] != HOLD_WAIT && (hold[v] & HOLD_DOM)))
                continue;
            uint8_t k = g->edge_kind[e];
            if (GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG || GRAPH_EDGE_KIND(k) == GRAPH_EDGE_WEAK ||
                dom_gc_link(g, e))
                continue;
            uint32_t gu = near_group(t, member, near, n, u);
            if (gu == member[v])
                continue;
            hold[v] = gu == CLUSTER_NONE                     ? HOLD_FAIL
                      : hold[v] == HOLD_WAIT || hold[v] == gu ? gu
                                                             : HOLD_FAIL;
        }
    }
    /* near[] is free again: the holder each open group agrees on so far */
    for (uint32_t i = 0; i < n_groups; i++)
        near[i] = open[i] ? HOLD_WAIT : HOLD_FAIL;
    for (node_ix v = 0; v < n; v++) {
        uint32_t h = hold[v], a = member[v];
        if (h == HOLD_NONE || near[a] == HOLD_FAIL)
            continue;
        h = h == HOLD_WAIT || h == HOLD_FAIL ? HOLD_FAIL : h & ~HOLD_DOM;
        near[a] = h == HOLD_FAIL ? HOLD_FAIL : near[a] == HOLD_WAIT || near[a] == h ? h
                                                                                : HOLD_FAIL;
    }
    for (uint32_t i = 0; i < n_groups; i++) {
        if (!open[i] || near[i] >= n_groups)
            continue;
        /* no ring: the holder must not end, through the nesting, in this group */
        uint32_t b = near[i], steps = 0;
        while (b != CLUSTER_NONE && b != i && steps++ < n_groups)
            b = nested[b];
        if (b == CLUSTER_NONE)
            nested[i] = near[i];
    }
    free(open);
    free(near);
    free(hold);
    return LR_OK;
}

lr_status cluster_run_keep(const cluster_ctx *c, const uint8_t *select, enum cluster_sort sort,
                           int keep, cluster_result *r, lr_error *err)
{
    const graph *g = c->g;
    uint32_t n = g->n_nodes;
    memset(r, 0, sizeof *r);
    for (node_ix v = 0; v < n; v++)
        if (c->dom->idom[v] == DOM_SUPER_ROOT)
            r->heap_total += c->dom->retained[v];
    domkids k = {0};
    tuptab keys = {0}, sets = {0};
    namemap names = {0};
    strset doms = {0};
    uint8_t *is_anchor = NULL;
    uint32_t *member = NULL, *map = NULL, *ntop = NULL, *nested = NULL, *skipped_in = NULL;
    uint64_t *ret = NULL, *propbuf = NULL;
    cluster_item *items = NULL;
    uint32_t cap_items = 0, n_items = 0;
    const uint32_t PROPBUF = 4096;
    uint8_t *dign = NULL;
    lr_status st = kids_build(g, c->dom, &k, err);
    if (st != LR_OK)
        goto out;
    if (select && (st = dominated_ignored(c, &dign, err)) != LR_OK)
        goto out;
    is_anchor = err_calloc(c->n_dirs ? c->n_dirs : 1, 1);
    skipped_in = err_calloc(c->n_dirs ? c->n_dirs : 1, sizeof *skipped_in);
    member = err_mallocarray(n ? n : 1, sizeof *member);
    propbuf = err_mallocarray(PROPBUF, sizeof *propbuf);
    if (!is_anchor || !skipped_in || !member || !propbuf)
        goto nomem;
    if (!select && (st = pick_anchors(c, &k, is_anchor, r, err)) != LR_OK)
        goto out;

    for (node_ix v = 0; v < n; v++) {
        member[v] = CLUSTER_NONE;
        uint32_t d = c->node_dir[v];
        uint8_t by = c->dir_by[d];
        if (select) {
            if (!select[v])
                continue;
            node_ix up = c->dom->idom[v];
            uint8_t ign = c->dir_leak_ignore[d];
            if (ign == CRULES_IGNORE_OWNED && !(up < n && select[up]))
                ign = 0; /* held by an older object alone: a leak of its own */
            if (up == GRAPH_NONE || c->node_chain[v] == CLUSTER_NONE) {
                r->n_skipped++;
                r->n_skip_unreached++;
                continue;
            }
            if (by == CRULES_BY_NONE || by == CRULES_BY_INTERNAL ||
                g->node_kind[v] == GRAPH_KIND_SYNTHETIC) {
                r->n_skipped++;
                r->n_skip_internal++;
                continue;
            }
            if (ign || (dign && dign[v] == 2) ||
                (up < n && c->dir_leak_ignore[c->node_dir[up]] == CRULES_IGNORE_CONTENTS)) {
                r->n_skipped++;
                r->n_skip_ignored++;
                skipped_in[d]++;
                continue;
            }
        } else if (!is_anchor[d] || c->dom->idom[v] == GRAPH_NONE ||
                   c->node_chain[v] == CLUSTER_NONE || g->node_kind[v] == GRAPH_KIND_SYNTHETIC) {
            continue;
        }
        uint32_t extra = 0;
        switch (by) {
        case CRULES_BY_NAME:
            /* Only the name table can fail; a node without a class (HPROF class objects
             * when java.lang.Class is absent) simply has no name key. A node without a
             * name (Dart's, GRAPH_NONE) is keyed by its class: canon_name would hand
             * GRAPH_NONE back, which reads as CLUSTER_NONE, out of memory. */
            if (g->node_name && g->node_name[v] != GRAPH_NONE) {
                extra = canon_name(&names, g, g->node_name[v]);
                if (extra == CLUSTER_NONE)
                    goto nomem;
            } else {
                extra = class_key(g, v);
            }
            break;
        case CRULES_BY_PROPERTY:
            extra = property_set(c, v, &sets, propbuf, PROPBUF);
            if (extra == CLUSTER_NONE - 1)
                goto nomem;
            break;
        case CRULES_BY_PROMISE:
            extra = promise_handler(c, v);
            break;
        case CRULES_BY_PROXY:
            extra = proxy_target(c, v);
            break;
        case CRULES_BY_DOM: {
            /* What lies inside detached trees: one group per tag and class, no chain. The
             * roots of detached trees (what the page holds): one group per tag and chain,
             * as memlab's similar traces: twenty widgets a listener holds and twenty a
             * registry holds are two leaks, and three hundred rows of CSS-in-JS classes
             * (a hash each) in one cache are one. */
            char kb[256];
            node_ix up = c->dom->idom[v];
            int inside = up < n && graph_node_dom(g, up) == GRAPH_DOM_DETACHED;
            extra = strset_get(&doms, inside ? dom_key_text(node_name(g, v), kb, sizeof kb)
                                             : dom_tag_text(node_name(g, v), kb, sizeof kb));
            if (extra == CLUSTER_NONE)
                goto nomem;
            if (inside)
                extra |= CLUSTER_DOM_INSIDE;
            break;
        }
        default:
            break;
        }
        uint32_t chain = c->node_chain[v];
        if (by == CRULES_BY_DOM && (extra & CLUSTER_DOM_INSIDE))
            chain = 0;
        uint32_t id = tup_intern(&keys, d, chain, extra, by);
        if (id == CLUSTER_NONE)
            goto nomem;
        if (id == n_items) {
            if (n_items == cap_items) {
                uint32_t nc = cap_items ? cap_items * 2 : 256;
                cluster_item *p = err_reallocarray(items, nc, sizeof *p);
                if (!p)
                    goto nomem;
                items = p;
                cap_items = nc;
            }
            cluster_item *it = &items[n_items++];
            memset(it, 0, sizeof *it);
            it->dir = d;
            it->by = by;
            it->chain = c->node_chain[v];
            it->extra = extra;
            it->rep = v;
            it->nested_in = CLUSTER_NONE;
        }
        cluster_item *it = &items[id];
        it->count++;
        it->shallow += shallow_of(g, v);
        /* among equals the member nearest a root: a list's head, not its 200th node */
        if (c->dom->retained[v] > c->dom->retained[it->rep] ||
            (c->dom->retained[v] == c->dom->retained[it->rep] &&
             c->depth[v] < c->depth[it->rep]))
            it->rep = v;
        member[v] = id;
        r->n_members++;
        r->members_shallow += shallow_of(g, v);
    }

    ret = err_mallocarray(n_items ? n_items : 1, sizeof *ret);
    ntop = err_mallocarray(n_items ? n_items : 1, sizeof *ntop);
    nested = err_mallocarray(n_items ? n_items : 1, sizeof *nested);
    map = err_mallocarray(n_items ? n_items : 1, sizeof *map);
    if (!ret || !ntop || !nested || !map)
        goto nomem;
    if ((st = group_sizes(g, c->dom, &k, member, n_items, ret, ntop, nested,
                          &r->members_retained, err)) != LR_OK ||
        (st = nest_by_holders(g, c->dom, member, n_items, ntop, nested, err)) != LR_OK)
        goto out;
    for (uint32_t i = 0; i < n_items; i++) {
        items[i].retained = ret[i];
        items[i].n_top = ntop[i];
        items[i].nested_in = ntop[i] ? nested[i] : CLUSTER_NONE;
        map[i] = i;
    }
    sort_items = items;
    sort_ctx = c;
    sort_by_count = sort == CLUSTER_SORT_COUNT;
    qsort(map, n_items, sizeof *map, item_cmp);
    r->items = err_mallocarray(n_items ? n_items : 1, sizeof *r->items);
    if (!r->items)
        goto nomem;
    for (uint32_t i = 0; i < n_items; i++)
        ntop[map[i]] = i; /* reuse as old -> new position */
    for (uint32_t i = 0; i < n_items; i++) {
        r->items[i] = items[map[i]];
        if (r->items[i].nested_in != CLUSTER_NONE)
            r->items[i].nested_in = ntop[r->items[i].nested_in];
    }
    r->n = n_items;
    top_skipped_dirs(r, skipped_in, c->n_dirs);
    if (keep) {
        /* member[] in the sorted order: the caller's map from a node to its cluster */
        for (node_ix v = 0; v < n; v++)
            if (member[v] != CLUSTER_NONE)
                member[v] = ntop[member[v]];
        r->node_item = member;
        member = NULL;
    }
    goto out;
nomem:
    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory clustering");
out:
    if (st != LR_OK)
        cluster_result_free(r);
    kids_free(&k);
    tup_free(&keys);
    tup_free(&sets);
    strset_free(&doms);
    hmap_free(&names.index);
    free(is_anchor);
    free(skipped_in);
    free(dign);
    free(member);
    free(map);
    free(ntop);
    free(nested);
    free(ret);
    free(propbuf);
    free(items);
    return st;
}

static const char *title_raw(const cluster_ctx *c, const cluster_item *it, char *buf, size_t cap)
{
    const graph *g = c->g;
    const char *dir = c->dir_names[it->dir];
    size_t len = 0;
    buf[0] = '\0';
#define PUT(...)                                                                             \
    do {                                                                                     \
        if (len < cap) {                                                                     \
            int w_ = snprintf(buf + len, cap - len, __VA_ARGS__);                            \
            len += w_ > 0 ? (size_t)w_ : 0;                                                  \
        }                                                                                    \
    } while (0)
    if (it->by == CRULES_BY_DOM) {
        char kb[256];
        PUT("%s (%s)", dom_key_text(node_name(g, it->rep), kb, sizeof kb),
            it->extra & CLUSTER_DOM_INSIDE ? "inside detached trees" : "detached tree roots");
        return buf;
    }
    PUT("%s", dir);
    switch (it->by) {
    case CRULES_BY_NAME: {
        const char *nm = node_name(g, it->rep);
        size_t stem = name_stem(nm), dl = strlen(dir);
        int has_n = stem < strlen(nm);
        int same = has_n ? dl == stem + 2 && memcmp(dir, nm, stem) == 0 &&
                               memcmp(dir + stem, "[]", 2) == 0
                         : strcmp(nm, dir) == 0;
        if (*nm && !same)
            PUT(" %.*s%s", (int)stem, nm, has_n ? "[]" : "");
        break;
    }
    case CRULES_BY_PROPERTY: {
        PUT(" {");
        int k = 0;
        for (edge_ix e = g->first_edge[it->rep]; e < g->first_edge[it->rep + 1]; e++) {
            unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
            if ((kind != GRAPH_EDGE_PROPERTY && kind != GRAPH_EDGE_FIELD &&
                 kind != GRAPH_EDGE_CONTEXT) || is_meta_edge(g, e))
                continue;
            if (k == TITLE_MAX_PROPS) {
                PUT(", ...");
                break;
            }
            PUT("%s%s", k ? ", " : "", graph_str(g, graph_edge_name(g, e)));
            k++;
        }
        PUT("}");
        break;
    }
    case CRULES_BY_PROMISE:
        if (it->extra != CLUSTER_NONE && !(it->extra & KEY_CLASS_FLAG) && g->node_name)
            PUT(" -> %s", *graph_str(g, it->extra) ? graph_str(g, it->extra) : "(anonymous)");
        else
            PUT(" (no reaction)");
        break;
    case CRULES_BY_PROXY:
        if (it->extra == CLUSTER_NONE)
            PUT(" (no target)");
        else if (it->extra & KEY_CLASS_FLAG)
            PUT(" -> %s", graph_str(g, it->extra & ~KEY_CLASS_FLAG));
        else if (it->extra < g->n_classes)
            PUT(" -> %s", graph_str(g, g->classes[it->extra].name));
        break;
    default:
        break;
    }
#undef PUT
    return buf;
}

const char *cluster_title(const cluster_ctx *c, const cluster_item *it, char *buf, size_t cap)
{
    /* twice the most any title keeps: a raw title cut by its own buffer is longer than
     * what utf8_fit lets through, so it is always cut again there, on a character */
    char whole[2 * CLUSTER_TITLE_MAX];
    return utf8_fit(buf, cap < CLUSTER_TITLE_MAX ? cap : CLUSTER_TITLE_MAX,
                    title_raw(c, it, whole, sizeof whole));
}
