/* SPDX-License-Identifier: Apache-2.0 */
/* trace.c: leak traces, statuses, fingerprints and grouping (analysis layer), prefix trace_.
 * One path traversal (paths_find_targets) with every leaking object as a leaf, the rules deciding
 * which references are dropped or visited last; then per trace: inspectors on each object,
 * Shark's status propagation (section 8.1: everything above the last NO is NO, everything
 * between the first YES after it and the leaking object is YES), suspects (section 9), and a
 * SHA-1 over className + generic reference name of the suspects (section 10). Leaking
 * objects left unreached are searched from each found one over the unreached subgraph
 * ("also retains"); the rest are unreachable. All of that needs no dominator tree
 * (trace_paths), and its per-node arrays (the path forest, bitmaps, queues) are gone when it
 * returns; retained sizes come after (trace_finish). Group sizes are exact: what the group's
 * leaking objects reach, minus what stays alive without them. This file holds the path tree,
 * its walk and grouping; the statuses and signatures are in trace_status.c, a trace's objects
 * and order in trace_elems.c, the rules as policy in trace_policy.c, group sizes in
 * trace_groups.c (shared: trace_internal.h). */
#include "analysis/trace_internal.h"
#include "graph/classname.h"
#include "base/hash.h"
#include "base/hmap.h"
#include "base/search.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_EXACT_GROUPS 64 /* groups sized exactly (one O(N+E) traversal each) */
#define TRACE_TOP_WALK 65536u /* dominators group_tops climbs from a leaking object */

/* ---------------------------------------------------------------- the path tree */

/* The paths of all leaking objects, merged where they share a prefix, form a forest (one tree
 * per root object): the path tree. Whatever belongs to one path object (its inspector
 * verdict, the reference into it) is worked out once per tree node, and whatever depends on
 * the path above a node (where the status window opens and closes, the SHA-1 of its suspect
 * references, the first library match) is carried from parent to child during a depth-first
 * walk. So N traces along one chain of N objects cost O(N), not O(N^2), and a trace of a
 * million steps costs its length once. Only the objects a trace keeps (both ends, see
 * trace_opts) are turned into trace_elem. Budget: about 44 bytes per tree node plus 3 bits
 * per graph node (which nodes the tree holds, and a rank directory that numbers them); the
 * walk's stacks hold one path. */

#define SLOT_MARK (GRAPH_NONE - 1) /* counted, not yet numbered */
#define ELEM_THREAD GRAPH_NONE     /* a path element standing for a Java-frame root's thread */

typedef struct ptree {
    uint32_t n;        /* slots */
    node_ix *node;     /* graph node of each slot */
    uint32_t *parent;  /* parent slot, GRAPH_NONE for a root object */
    uint32_t *depth;   /* references from the root object */
    uint32_t *cfirst;  /* children of s: kids[cfirst[s] .. cfirst[s + 1]) */
    uint32_t *kids;    /* child slots */
    uint8_t *verdict;  /* TRACE_* of the object inside a path (inspectors only) */
    uint8_t *in_kind;  /* reference from the parent: GRAPH_EDGE_MAKE kind, 0 for roots */
    uint32_t *in_name; /* its name (string id or position) */
    edge_ix *in_real;  /* the real edge behind it, GRAPH_NONE for virtual entries and roots */
    char **in_label;   /* a virtual entry's label (malloc'd), NULL when none */
    uint64_t *in_tree; /* bit per graph node: the tree holds it */
    uint32_t *rank;    /* tree nodes below graph node 64 * w, for each word w of in_tree */
    uint32_t *slot_at; /* slot of the tree node of each rank, SLOT_MARK until numbered */
} ptree;

/* Whether graph node x is in the tree. */
static inline int ptree_has(const ptree *t, node_ix x)
{
    return (t->in_tree[x / 64] >> (x % 64)) & 1;
}

/* Where the slot of tree node x is kept. */
static inline uint32_t *ptree_slot_ref(const ptree *t, node_ix x)
{
    uint64_t below = t->in_tree[x / 64] & ((UINT64_C(1) << (x % 64)) - 1);
    return &t->slot_at[t->rank[x / 64] + (uint32_t)__builtin_popcountll(below)];
}

/* Slot of graph node x, GRAPH_NONE outside the tree. */
static inline uint32_t ptree_slot(const ptree *t, node_ix x)
{
    return x != GRAPH_NONE && ptree_has(t, x) ? *ptree_slot_ref(t, x) : GRAPH_NONE;
}

static void ptree_free(ptree *t)
{
    if (t->in_label)
        for (uint32_t s = 0; s < t->n; s++)
            free(t->in_label[s]);
    free(t->node);
    free(t->parent);
    free(t->depth);
    free(t->cfirst);
    free(t->kids);
    free(t->verdict);
    free(t->in_kind);
    free(t->in_name);
    free(t->in_real);
    free(t->in_label);
    free(t->in_tree);
    free(t->rank);
    free(t->slot_at);
    memset(t, 0, sizeof *t);
}

/* Status of an object inside a path from its inspectors: NO when any says not leaking (a
 * conflicting leaking reason does not change that, trace_statuses), else YES when any says
 * leaking or it is watched, else UNKNOWN. v is scratch. */
static uint8_t verdict_of(const graph *g, const rules_set *rs, const leak_set *ls, node_ix n,
                          rules_verdicts *v)
{
    v->leaking[0] = v->not_leaking[0] = v->labels[0] = 0;
    if (trace_class_of_leaking_loader(g, rs, ls, n))
        return TRACE_YES; /* as trace_inspect says */
    rules_inspect_node(rs, n, v);
    uint32_t first;
    if (v->not_leaking[0])
        return TRACE_NO;
    return v->leaking[0] || leak_kwrs_of(ls, n, &first) ? TRACE_YES : TRACE_UNKNOWN;
}

typedef struct vref {
    node_ix parent; /* graph node whose list holds the entry */
    uint32_t pos;   /* position in that list */
    uint32_t slot;  /* the slot it leads to */
} vref;

static int cmp_vref(const void *pa, const void *pb)
{
    const vref *a = pa, *b = pb;
    if (a->parent != b->parent)
        return a->parent < b->parent ? -1 : 1;
    return (a->slot > b->slot) - (a->slot < b->slot);
}

/* Builds the tree of the reached targets' paths. O(tree + N). */
static lr_status ptree_build(const graph *g, const rules_set *rs, const leak_set *ls,
                             const paths_result *pr, virt_gen *vg, ptree *t, lr_error *err)
{
    uint32_t nn = g->n_nodes, n = 0, nw = nn / 64 + 1;
    memset(t, 0, sizeof *t);
    t->in_tree = err_calloc(nw, sizeof *t->in_tree);
    t->rank = err_mallocarray(nw, sizeof *t->rank);
    if (!t->in_tree || !t->rank)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
    /* count: climb from each target until the tree already holds the node */
    for (uint32_t i = 0; i < ls->n; i++) {
        node_ix y = ls->v[i].node;
        if (y >= nn || !paths_reached(pr, y))
            continue;
        for (; y != GRAPH_NONE && !ptree_has(t, y); y = paths_parent(pr, y)) {
            t->in_tree[y / 64] |= UINT64_C(1) << (y % 64);
            n++;
        }
    }
    for (uint32_t w = 0, below = 0; w < nw; w++) {
        t->rank[w] = below;
        below += (uint32_t)__builtin_popcountll(t->in_tree[w]);
    }
    t->slot_at = err_mallocarray(n ? n : 1, sizeof *t->slot_at);
    if (!t->slot_at)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
    for (uint32_t k = 0; k < n; k++)
        t->slot_at[k] = SLOT_MARK;
    t->node = err_mallocarray(n ? n : 1, sizeof *t->node);
    t->parent = err_mallocarray(n ? n : 1, sizeof *t->parent);
    t->depth = err_mallocarray(n ? n : 1, sizeof *t->depth);
    t->cfirst = err_calloc((size_t)n + 2, sizeof *t->cfirst);
    t->kids = err_mallocarray(n ? n : 1, sizeof *t->kids);
    t->verdict = err_malloc(n ? n : 1);
    t->in_kind = err_calloc(n ? n : 1, 1);
    t->in_name = err_calloc(n ? n : 1, sizeof *t->in_name);
    t->in_real = err_mallocarray(n ? n : 1, sizeof *t->in_real);
    t->in_label = err_calloc(n ? n : 1, sizeof *t->in_label);
    rules_verdicts *rv = err_calloc(1, sizeof *rv);
    if (!t->node || !t->parent || !t->depth || !t->cfirst || !t->kids || !t->verdict ||
        !t->in_kind || !t->in_name || !t->in_real || !t->in_label || !rv) {
        free(rv);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
    }
    /* number each new chain top-down: slots [base, base + k) from its top to the target */
    for (uint32_t i = 0; i < ls->n; i++) {
        node_ix y = ls->v[i].node;
        if (y >= nn || ptree_slot(t, y) != SLOT_MARK)
            continue;
        uint32_t k = 0;
        node_ix top = y;
        for (node_ix z = y; ptree_slot(t, z) == SLOT_MARK; z = paths_parent(pr, z)) {
            k++;
            top = z;
        }
        node_ix above = paths_parent(pr, top);
        uint32_t base = t->n, ps = ptree_slot(t, above);
        uint32_t d0 = ps == GRAPH_NONE ? 0 : t->depth[ps] + 1;
        uint32_t s = base + k;
        for (node_ix z = y; s > base; z = paths_parent(pr, z)) {
            s--;
            *ptree_slot_ref(t, z) = s;
            t->node[s] = z;
            t->depth[s] = d0 + (s - base);
            t->parent[s] = s == base ? ps : s - 1;
        }
        t->n += k;
    }
    /* children, in slot order */
    for (uint32_t s = 0; s < n; s++)
        if (t->parent[s] != GRAPH_NONE)
            t->cfirst[t->parent[s] + 2]++;
    for (uint32_t s = 0; s < n; s++)
        t->cfirst[s + 2] += t->cfirst[s + 1];
    for (uint32_t s = 0; s < n; s++)
        if (t->parent[s] != GRAPH_NONE)
            t->kids[t->cfirst[t->parent[s] + 1]++] = s;
    /* verdicts, and the reference into each slot; virtual entries are read from their
     * parent's list, made once per parent */
    uint32_t n_v = 0;
    for (uint32_t s = 0; s < n; s++) {
        node_ix x = t->node[s];
        t->verdict[s] = verdict_of(g, rs, ls, x, rv);
        uint32_t code = paths_edge(pr, x);
        t->in_real[s] = GRAPH_NONE;
        if (code == PATHS_FROM_ROOT || code == GRAPH_NONE || t->parent[s] == GRAPH_NONE)
            continue;
        if (code == PATHS_CLASS_HOP) { /* an object's class: no edge, a label */
            t->in_kind[s] = GRAPH_EDGE_MAKE(GRAPH_EDGE_INTERNAL, GRAPH_STRONG);
            if (!(t->in_label[s] = sdup("<class>"))) {
                free(rv);
                return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            }
            continue;
        }
        if (vg && (code & PATHS_VIRTUAL)) {
            n_v++;
            continue;
        }
        node_ix p = t->node[t->parent[s]];
        t->in_real[s] = code;
        t->in_kind[s] = g->edge_kind[code];
        t->in_name[s] = vg ? virt_real_name(vg, p, code) : graph_edge_name_from(g, p, code);
    }
    free(rv);
    if (!n_v)
        return LR_OK;
    vref *v = err_mallocarray(n_v, sizeof *v);
    if (!v)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
    n_v = 0;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t code = paths_edge(pr, t->node[s]);
        if (t->parent[s] != GRAPH_NONE && code != PATHS_FROM_ROOT && code != GRAPH_NONE &&
            code != PATHS_CLASS_HOP && (code & PATHS_VIRTUAL))
            v[n_v++] = (vref){t->node[t->parent[s]], code & ~PATHS_VIRTUAL, s};
    }
    /* every list a step needs was made during the traversal under what was left of the
     * shared budget; a full one makes at least those entries, the same way */
    virt_budget_reset(vg);
    qsort(v, n_v, sizeof *v, cmp_vref);
    lr_status st = LR_OK;
    for (uint32_t i = 0; i < n_v && st == LR_OK; i++) {
        const virt_list *l = virt_edges(vg, v[i].parent);
        uint32_t s = v[i].slot, p = v[i].pos;
        if (!l) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        } else if (p < l->n) {
            t->in_kind[s] = l->kind[p];
            t->in_name[s] = l->name[p];
            t->in_real[s] = l->real[p];
            char buf[VIRT_LABEL_MAX];
            const char *lb = virt_edge_label(vg, v[i].parent, p, buf, sizeof buf);
            if (lb && !(t->in_label[s] = sdup(lb)))
                st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        } else {
            /* not made again (a walk cut short): an element named by its position */
            t->in_kind[s] = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
            t->in_name[s] = p;
        }
    }
    free(v);
    return st;
}

/* One element of the path being walked: a slot, or the thread a Java-frame root stands for
 * (slot ELEM_THREAD; its reference is the <Java Local> into the next element). */
typedef struct pelem {
    node_ix node;
    uint32_t slot;
    uint8_t verdict;
} pelem;

/* Reference type and name of the reference leaving element i of path p (to p[i + 1]), as
 * trace_build_elem_ref names it; name written into buf. */
static uint8_t ref_text(const graph *g, const ptree *t, const pelem *p, uint32_t i, char *buf,
                        size_t cap)
{
    if (p[i].slot == ELEM_THREAD) {
        buf[0] = 0;
        return TRACE_REF_LOCAL;
    }
    uint32_t s = p[i + 1].slot;
    unsigned k = GRAPH_EDGE_KIND(t->in_kind[s]);
    uint32_t name = t->in_name[s], slot;
    uint8_t type = TRACE_REF_INSTANCE;
    if (k != GRAPH_EDGE_ELEMENT && trace_ref_slot(g, k, name, &slot)) {
        k = GRAPH_EDGE_ELEMENT;
        name = slot;
    }
    switch (k) {
    case GRAPH_EDGE_STATIC:
        type = TRACE_REF_STATIC;
        snprintf(buf, cap, "%s", graph_str(g, name));
        break;
    case GRAPH_EDGE_ELEMENT:
        type = TRACE_REF_ARRAY;
        snprintf(buf, cap, "%u", name);
        break;
    case GRAPH_EDGE_LOCAL:
        type = TRACE_REF_LOCAL;
        buf[0] = 0;
        break;
    case GRAPH_EDGE_FIELD:
        snprintf(buf, cap, "%s", graph_str(g, name));
        break;
    default:
        snprintf(buf, cap, "%s", trace_ref_text(g, k, name));
        break;
    }
    if (t->in_label[s])
        snprintf(buf, cap, "%s", t->in_label[s]);
    return type;
}

/* Class name a trace shows for node n, without allocating (trace_node_class_name's text). */
static const char *class_text(const graph *g, const rules_set *rs, node_ix n)
{
    if (g->node_kind[n] == GRAPH_KIND_CLASS) {
        class_ix c = graph_class_of_node(rs->g, n);
        if (c != GRAPH_NONE)
            return graph_str(g, g->classes[c].name);
    }
    return graph_class_name(g, n);
}

/* ---- V8's synthetic roots ----
 * A V8 snapshot has one root, a synthetic node (graph.synthetic_root), whose sub-roots
 * ("(GC roots)", then "(Stack roots)", "(Global handles)" ...) are synthetic nodes too. As
 * in DevTools' retainers view they name the root a path starts at, not objects of it: a
 * trace whose root entry is synthetic starts at its first real object, the synthetic nodes
 * before it give the GC Root line its name, and their references enter neither statuses
 * nor the signature. */

/* Whether p[0..i] are all synthetic nodes (p[i] first: a real object ends the test). */
static int lead_synth(const graph *g, const pelem *p, uint32_t i)
{
    for (uint32_t j = i + 1; j-- > 0;)
        if (p[j].slot == ELEM_THREAD || g->node_kind[p[j].node] != GRAPH_KIND_SYNTHETIC)
            return 0;
    return 1;
}

/* Dictionary-like holders (V8, ArkTS): an object whose property edges, at least DICT_MIN
 * (the cluster rules' `dictionary min`) and three in four of them, lead to objects of one
 * class is a map keyed by its property names (`users[id] = user`): a reference out of it to
 * an object of that class is hashed `[x]`, as its clusters write such keys `[]`. One vote
 * over the edges per holder, memoised: a holder on many paths is read once. */
#define DICT_MIN 8u

typedef struct dictmemo {
    hmap ix;       /* hash of a holder -> its entry */
    node_ix *node; /* holders seen */
    node_ix *rep;  /* an object of the holder's majority class, GRAPH_NONE: no dictionary */
    uint32_t n, cap;
} dictmemo;

static void dictmemo_free(dictmemo *m)
{
    hmap_free(&m->ix);
    free(m->node);
    free(m->rep);
    memset(m, 0, sizeof *m);
}

static node_ix dict_vote(const graph *g, const rules_set *rs, node_ix h)
{
    node_ix cand = GRAPH_NONE;
    uint32_t m = 0, votes = 0, same = 0;
    const char *cc = "";
    for (edge_ix e = g->first_edge[h]; e < g->first_edge[h + 1]; e++) {
        node_ix x = g->edge_to[e];
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_PROPERTY || x >= g->n_nodes)
            continue;
        m++;
        const char *xc = class_text(g, rs, x);
        if (!votes) {
            cand = x;
            cc = xc;
            votes = 1;
        } else {
            votes += strcmp(xc, cc) ? (uint32_t)-1 : 1u;
        }
    }
    if (m < DICT_MIN)
        return GRAPH_NONE;
    for (edge_ix e = g->first_edge[h]; e < g->first_edge[h + 1]; e++) {
        node_ix x = g->edge_to[e];
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_PROPERTY && x < g->n_nodes &&
            !strcmp(class_text(g, rs, x), cc))
            same++;
    }
    return (uint64_t)same * 4 >= (uint64_t)m * 3 ? cand : GRAPH_NONE;
}

/* Whether edge e out of holder h is a dictionary key (above). Out of memory, the vote is
 * simply not kept: the answer stays the same. */
static int dict_key(const graph *g, const rules_set *rs, dictmemo *m, node_ix h, edge_ix e)
{
    if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_PROPERTY ||
        g->first_edge[h + 1] - g->first_edge[h] < DICT_MIN)
        return 0;
    uint32_t hh = hash_words(&h, 1);
    hmap_it it;
    node_ix rep = GRAPH_NONE;
    uint32_t i;
    for (i = hmap_first(&m->ix, hh, &it); i != HMAP_NONE; i = hmap_next(&m->ix, &it))
        if (m->node[i] == h)
            break;
    if (i != HMAP_NONE) {
        rep = m->rep[i];
    } else {
        rep = dict_vote(g, rs, h);
        if (m->n == m->cap) {
            uint32_t nc = m->cap ? m->cap * 2 : 64;
            node_ix *a = err_reallocarray(m->node, nc, sizeof *a);
            if (a)
                m->node = a;
            node_ix *b = a ? err_reallocarray(m->rep, nc, sizeof *b) : NULL;
            if (b) {
                m->rep = b;
                m->cap = nc;
            }
        }
        if (m->n < m->cap && hmap_add(&m->ix, hh, m->n)) {
            m->node[m->n] = h;
            m->rep[m->n++] = rep;
        }
    }
    return rep != GRAPH_NONE && g->edge_to[e] < g->n_nodes &&
           !strcmp(class_text(g, rs, g->edge_to[e]), class_text(g, rs, rep));
}

/* Whether the reference leaving p[i] enters a linked list: its target holds, by a real edge
 * of the same kind and name, another object of the target's class. O(edges of the
 * target). */
static int list_link(const graph *g, const rules_set *rs, const ptree *t, const pelem *p,
                     uint32_t i)
{
    if (p[i].slot == ELEM_THREAD)
        return 0;
    edge_ix e = t->in_real[p[i + 1].slot];
    if (e == GRAPH_NONE)
        return 0;
    node_ix v = p[i + 1].node;
    unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[e]);
    uint32_t name = graph_edge_name(g, e);
    const char *cn = NULL;
    for (edge_ix f = g->first_edge[v]; f < g->first_edge[v + 1]; f++) {
        node_ix w = g->edge_to[f];
        if (w >= g->n_nodes || w == v || GRAPH_EDGE_KIND(g->edge_kind[f]) != kind ||
            graph_edge_name(g, f) != name)
            continue;
        if (!cn)
            cn = class_text(g, rs, v);
        if (!strcmp(cn, class_text(g, rs, w)))
            return 1;
    }
    return 0;
}

/* Whether the reference leaving p[i] is hashed `[x]` on a V8 or ArkTS trace: it enters a
 * linked list or is a dictionary key (trace_elem.as_slot). */
static int as_slot(const graph *g, const rules_set *rs, const ptree *t, dictmemo *dm,
                   const pelem *p, uint32_t i)
{
    if (p[i].slot == ELEM_THREAD)
        return 0;
    edge_ix e = t->in_real[p[i + 1].slot];
    return e != GRAPH_NONE &&
           (list_link(g, rs, t, p, i) || dict_key(g, rs, dm, p[i].node, e));
}

/* The two SHA-1 states of a fingerprint: [0] the signature, over the class names as the
 * dump gives them (Shark's), [1] the stable signature, over the names classname_stable
 * makes of them. */
typedef struct fpctx {
    EVP_MD_CTX *m[2];
    unsigned hashed; /* references that put bytes into m so far */
} fpctx;

static void fpctx_free(fpctx *c)
{
    EVP_MD_CTX_free(c->m[0]);
    EVP_MD_CTX_free(c->m[1]);
    c->m[0] = c->m[1] = NULL;
}

static int fpctx_new(fpctx *c)
{
    c->m[0] = EVP_MD_CTX_new();
    c->m[1] = EVP_MD_CTX_new();
    if (c->m[0] && c->m[1])
        return 0;
    fpctx_free(c);
    return -1;
}

static void fpctx_init(fpctx *c)
{
    EVP_DigestInit_ex(c->m[0], EVP_sha1(), NULL);
    EVP_DigestInit_ex(c->m[1], EVP_sha1(), NULL);
    c->hashed = 0;
}

static int fpctx_copy(fpctx *d, const fpctx *s)
{
    d->hashed = s->hashed;
    return EVP_MD_CTX_copy_ex(d->m[0], s->m[0]) && EVP_MD_CTX_copy_ex(d->m[1], s->m[1]);
}

/* Fingerprint state at a path position: SHA-1 over className + generic reference name of
 * the suspects so far, and whether the suspect window is still open. */
typedef struct fpstate {
    fpctx c;
    int open;
} fpstate;

static void fp_put(void *ctx, const void *p, size_t n)
{
    EVP_DigestUpdate((EVP_MD_CTX *)ctx, p, n);
}

/* The generic reference leaving p[i] (trace_ref_generic) into gen. */
static void ref_generic(const graph *g, const ptree *t, const pelem *p, uint32_t i, char *gen,
                        size_t cap)
{
    char name[512];
    trace_elem e = {.ref_type = ref_text(g, t, p, i, name, sizeof name), .ref_name = name};
    trace_ref_generic(&e, gen, cap);
}

/* Whether p[a] and p[b] are the same link: one class, left by the same generic reference. */
static int same_link(const graph *g, const rules_set *rs, const ptree *t, const pelem *p,
                     uint32_t a, uint32_t b)
{
    char ga[520], gb[520];
    if (strcmp(class_text(g, rs, p[a].node), class_text(g, rs, p[b].node)))
        return 0;
    ref_generic(g, t, p, a, ga, sizeof ga);
    ref_generic(g, t, p, b, gb, sizeof gb);
    return !strcmp(ga, gb);
}

/* Moves the state from element i to i + 1 (trace_statuses's window: it restarts at every NO,
 * and the first YES after the last NO closes it). */
static void fp_step(const graph *g, const rules_set *rs, const ptree *t, dictmemo *dm,
                    const pelem *p, uint32_t i, int synth, fpstate *f)
{
    char name[512], gen[520];
    if (p[i].verdict == TRACE_NO) {
        fpctx_init(&f->c);
        f->open = 1;
    } else if (!f->open || p[i].verdict == TRACE_YES) {
        f->open = 0;
        return;
    }
    if (synth && lead_synth(g, p, i))
        return; /* a synthetic root's reference: left out of the trace */
    uint8_t type = ref_text(g, t, p, i, name, sizeof name);
    trace_elem e = {.ref_type = type, .ref_name = name};
    trace_ref_generic(&e, gen, sizeof gen);
    const char *cn = class_text(g, rs, p[i].node);
    if (synth && i > 0 && p[i].verdict != TRACE_NO && !lead_synth(g, p, i - 1) &&
        !strcmp(cn, class_text(g, rs, p[i + 1].node))) {
        /* a linked list's next link, as trace_fingerprint folds it */
        char pname[512], pgen[520];
        trace_elem pe = {.ref_type = ref_text(g, t, p, i - 1, pname, sizeof pname),
                         .ref_name = pname};
        trace_ref_generic(&pe, pgen, sizeof pgen);
        if (!strcmp(gen, pgen))
            return;
    }
    /* a chain whose links alternate two kinds of object (V8's Promise -> PromiseReaction
     * -> Promise of a .then chain, a list of entries joined by link objects): past its
     * first pair of links, as a linked list's next links, folded; inside the window only */
    if (synth && i >= 3 && p[i - 1].verdict != TRACE_NO && p[i - 2].verdict != TRACE_NO &&
        !lead_synth(g, p, i - 3) && same_link(g, rs, t, p, i, i - 2) &&
        same_link(g, rs, t, p, i - 1, i - 3))
        return;
    if (synth && as_slot(g, rs, t, dm, p, i))
        snprintf(gen, sizeof gen, "[x]");
    /* a name too long for the buffer (no JVM writes one) is hashed as it is, never cut */
    char scn[512];
    const char *sn = cn;
    if (strlen(cn) < sizeof scn) {
        classname_stable(cn, scn, sizeof scn);
        sn = scn;
    }
    if (synth) {
        EVP_DigestUpdate(f->c.m[0], cn, strlen(cn));
        EVP_DigestUpdate(f->c.m[0], gen, strlen(gen));
    } else { /* Shark's signature: its reading of the names (trace_shark_bytes) */
        trace_shark_bytes(cn, fp_put, f->c.m[0]);
        trace_shark_bytes(gen, fp_put, f->c.m[0]);
    }
    EVP_DigestUpdate(f->c.m[1], sn, strlen(sn));
    EVP_DigestUpdate(f->c.m[1], gen, strlen(gen));
    if (sn != cn && strcmp(sn, cn) != 0) {
        /* The class lost what the runtime draws (two lambdas of one class both read
         * `Foo$$Lambda`, two proxies `$Proxy`): what told two paths apart in the signature
         * is gone from the stable one, so it names what the reference holds too (a lambda
         * capturing a Session, another a Subscription: two leaks in every run, as they are
         * two groups in each). What a reference holds is fixed by the code, where the
         * leaking objects of one group may come in any order. */
        char tn[512];
        classname_stable(class_text(g, rs, p[i + 1].node), tn, sizeof tn);
        EVP_DigestUpdate(f->c.m[1], "\x1f", 1);
        EVP_DigestUpdate(f->c.m[1], tn, strlen(tn));
    }
    f->c.hashed += (unsigned)(strlen(cn) + strlen(gen) > 0); /* bytes, as trace_fingerprint */
}

static void fp_hex(EVP_MD_CTX *md, char *out)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(md, d, &len);
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < len && i < 20; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[40] = 0;
}

/* Per-trace results of the first walk, before the trace_elem are made. */
typedef struct tinfo {
    uint32_t len;      /* path objects (thread included) */
    uint32_t sd_slot;  /* slot after the first suspect reference, GRAPH_NONE: none */
    node_ix sd_node;   /* object the first suspect reference leaves */
    uint8_t sd_thread; /* that object is a Java-frame root's thread */
    uint8_t keep;      /* make its path objects (else the leaking object only) */
} tinfo;

/* The depth-first walk over the path tree (walk_run), and what it needs. */
typedef struct walker {
    const graph *g;
    const rules_set *rs;
    const leak_set *ls;
    const paths_result *pr;
    const ptree *t;
    const trace_opts *o;
    trace_result *out;
    tinfo *ti;
    const uint32_t *tslot; /* trace positions sorted by target slot ... */
    const uint32_t *tpos;  /* ... and the positions */
    uint32_t n_t;
    int pass;              /* 1: fingerprints and groups' data; 2: trace_elem */
    pelem *p;              /* the path, root first */
    uint32_t *nos, n_no;   /* positions of NO objects on the path */
    uint32_t *yes, n_yes;  /* positions of YES objects on the path */
    int32_t *lib;          /* first library match of the path up to each position */
    uint32_t root;         /* root entry shown for the tree being walked */
    int synth;             /* that root is graph.synthetic_root (V8, ArkTS) */
    node_ix rn_node;       /* last synthetic node named by rn_ix (a cache), GRAPH_NONE */
    const char *rn_name;   /* its trace.root_name */
    fpctx tmp;             /* scratch for finishing a fingerprint */
    dictmemo dm;           /* dictionary-like holders met (V8, ArkTS) */
    rules_verdicts *rv;
    uint64_t *thr_root;    /* thread-object roots as node << 32 | root, sorted (made when a
                            * Java-frame root is first shown), n_thr_root of them */
    uint32_t n_thr_root;
    int thr_built;
    lr_error *err;
} walker;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The first thread-object root of thread node tn, or UINT32_MAX. A search, where a scan of
 * every root per trace made 50,000 watched locals of parked virtual threads take 30 s. */
static uint32_t thread_root_of(walker *w, node_ix tn)
{
    const graph *g = w->g;
    if (!w->thr_built) {
        w->thr_built = 1;
        uint32_t n = 0;
        for (uint32_t r = 0; r < g->n_roots; r++)
            n += g->roots[r].kind == GRAPH_ROOT_THREAD_OBJECT;
        w->thr_root = n ? malloc((size_t)n * sizeof *w->thr_root) : NULL;
        if (w->thr_root) {
            for (uint32_t r = 0; r < g->n_roots; r++)
                if (g->roots[r].kind == GRAPH_ROOT_THREAD_OBJECT)
                    w->thr_root[w->n_thr_root++] = (uint64_t)g->roots[r].node << 32 | r;
            qsort(w->thr_root, w->n_thr_root, sizeof *w->thr_root, cmp_u64);
        }
    }
    if (!w->thr_root) { /* out of memory: the scan */
        for (uint32_t r = 0; r < g->n_roots; r++)
            if (g->roots[r].node == tn && g->roots[r].kind == GRAPH_ROOT_THREAD_OBJECT)
                return r;
        return UINT32_MAX;
    }
    uint64_t key = (uint64_t)tn << 32;
    uint32_t lo = 0, hi = w->n_thr_root;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (w->thr_root[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->n_thr_root && (w->thr_root[lo] >> 32) == tn ? (uint32_t)w->thr_root[lo]
                                                               : UINT32_MAX;
}

/* Path positions before the first real object of the path p[0..d] (never d itself). */
static uint32_t synth_lead(const walker *w, uint32_t d)
{
    uint32_t i = 0;
    while (w->synth && i < d && w->p[i].slot != ELEM_THREAD &&
           w->g->node_kind[w->p[i].node] == GRAPH_KIND_SYNTHETIC)
        i++;
    return i;
}

/* trace.root_name of a path whose first `lead` nodes are synthetic: their names joined by
 * " / " (the unnamed snapshot root left out), kept once in out->root_names. When the leaking
 * object hangs right under them (d == lead: the trace shows no reference at all), the name
 * of that reference follows in parentheses: it is all that tells who holds the object
 * (`(GC roots) / (Global handles) (17 / DevTools console)`: a page logged it to the console). */
#define TRACE_ROOT_NAME_MAX 320

static lr_status root_name_of(walker *w, uint32_t lead, uint32_t d, const char **out)
{
    const graph *g = w->g;
    trace_result *r = w->out;
    *out = NULL;
    if (!lead || !g->node_name)
        return LR_OK;
    int by_ref = lead == d;
    if (!by_ref && w->p[lead - 1].node == w->rn_node) {
        *out = w->rn_name;
        return LR_OK;
    }
    char buf[TRACE_ROOT_NAME_MAX];
    size_t l = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < lead; i++) {
        node_ix x = w->p[i].node;
        const char *nm = g->node_name[x] != GRAPH_NONE ? graph_str(g, g->node_name[x]) : "";
        if (x == g->synthetic_root || !*nm)
            continue;
        int n = snprintf(buf + l, sizeof buf - l, "%s%s", l ? " / " : "", nm);
        if (n > 0 && (size_t)n < sizeof buf - l)
            l += (size_t)n;
    }
    /* Straight from the unnamed snapshot root to an object: one of what DevTools calls user
     * roots, which V8 makes of its global objects (Node's global, a page's Window). */
    if (!l && w->p[lead - 1].node == g->synthetic_root)
        l = (size_t)snprintf(buf, sizeof buf, "%s", TRACE_ROOT_GLOBAL);
    if (by_ref && l && l < sizeof buf) {
        char ref[256];
        ref_text(g, w->t, w->p, lead - 1, ref, sizeof ref);
        int n = ref[0] ? snprintf(buf + l, sizeof buf - l, " (%s)", ref) : 0;
        if (n > 0 && (size_t)n < sizeof buf - l)
            l += (size_t)n;
        else
            buf[l] = 0;
    }
    uint32_t k = 0;
    while (l && k < r->n_root_names && strcmp(r->root_names[k], buf))
        k++;
    if (l && k == r->n_root_names) {
        char **v = realloc(r->root_names, (k + 1) * sizeof *v);
        if (!v)
            return LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
        r->root_names = v;
        if (!(v[k] = sdup(buf)))
            return LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
        r->n_root_names = k + 1;
    }
    *out = l ? r->root_names[k] : NULL;
    if (!by_ref) {
        w->rn_node = w->p[lead - 1].node;
        w->rn_name = *out;
    }
    return LR_OK;
}

static uint32_t first_above(const uint32_t *v, uint32_t n, uint32_t x)
{
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, n, v[search_mid] <= x, lo);
    return lo; /* index of the first entry > x, n when none */
}

/* Makes trace tp's elements from the path p[0..d] (d = the leaking object): all of them, or
 * the first `head` and last `tail` with the middle counted in tr->elided. Statuses follow
 * trace_statuses over the whole path, worked out from the positions of the path's NO and YES
 * objects instead of a pass over it. */
static lr_status make_elems(walker *w, uint32_t tp, uint32_t d)
{
    const graph *g = w->g;
    const rules_set *rs = w->rs;
    trace *tr = &w->out->traces[tp];
    const leak_object *lo = &w->ls->v[tr->leak];
    const pelem *p = w->p;
    uint32_t base = synth_lead(w, d); /* synthetic root nodes left out */
    uint32_t n = d + 1 - base, head = n, tail = 0;
    if (!w->ti[tp].keep) {
        head = 0;
        tail = 1;
    } else if (w->o->max_steps && n > w->o->max_steps) {
        head = w->o->max_steps / 2;
        tail = w->o->max_steps - head;
    }
    uint32_t m = head + tail;
    tr->el = err_calloc(m, sizeof *tr->el);
    char **lk = err_calloc(m, sizeof *lk), **nlk = err_calloc(m, sizeof *nlk);
    if (!tr->el || !lk || !nlk) {
        free(tr->el);
        tr->el = NULL;
        free(lk);
        free(nlk);
        return LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
    }
    tr->n = m;
    tr->n_head = head;
    tr->elided = n - m;
    lr_status st = LR_OK;
    for (uint32_t k = 0; k < m && st == LR_OK; k++) {
        uint32_t i = base + (k < head ? k : n - (m - k));
        trace_elem *el = &tr->el[k];
        el->node = p[i].node;
        el->edge = GRAPH_NONE;
        el->class_name = trace_node_class_name(g, rs, p[i].node);
        if (!el->class_name ||
            trace_inspect(g, rs, w->ls, p[i].node, &lk[k], &nlk[k], &el->labels)) {
            st = LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
            break;
        }
        if (i == d && lo->source != LEAK_SRC_WATCHED && lo->reason[0] &&
            !strstr(lk[k], lo->reason)) {
            char *r = *lk[k] ? joinf(lk[k], " and ", lo->reason) : sdup(lo->reason);
            free(lk[k]);
            if (!(lk[k] = r)) {
                st = LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
                break;
            }
        }
        if (i == d)
            continue;
        if (p[i].slot == ELEM_THREAD) {
            el->ref_type = TRACE_REF_LOCAL;
            el->ref_name = sdup("");
            el->owner = trace_owner_simple(el->class_name, 0);
            if (!el->ref_name || !el->owner)
                st = LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
            continue;
        }
        uint32_t s = p[i + 1].slot;
        const char *vl = w->t->in_label[s];
        if (trace_build_elem_ref(g, el, w->t->in_kind[s], w->t->in_name[s],
                                 p[i + 1].node) != LR_OK ||
            (vl && (free(el->ref_name), !(el->ref_name = sdup(vl))))) {
            st = LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
            break;
        }
        el->edge = w->t->in_real[s];
        el->as_slot = (uint8_t)(w->synth && as_slot(g, rs, w->t, &w->dm, p, i));
        int32_t lib = -1;
        if (el->edge != GRAPH_NONE)
            rules_edge_class(rs, p[i].node, el->edge, &lib);
        if (lib >= 0) {
            char lbl[800];
            snprintf(lbl, sizeof lbl, "Library leak match: %s", rs->refs[lib].pattern);
            if (trace_add_label(&el->labels, lbl))
                st = LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
        }
    }
    if (st == LR_OK && m == n) {
        st = trace_statuses(tr->el, m, lk, nlk, w->err);
#ifndef NDEBUG
        char fp[41];
        trace_fingerprint(tr->el, tr->n, w->synth, tr->root_name, fp);
        LR_ASSERT(st != LR_OK || !strcmp(fp, tr->fingerprint));
#endif
    } else if (st == LR_OK) {
        /* last NO above the leaking object, first YES after it (else the leaking object) */
        int64_t L = w->n_no ? (int64_t)w->nos[w->n_no - 1] : -1;
        uint32_t fy = first_above(w->yes, w->n_yes, L < 0 ? 0 : (uint32_t)L);
        if (L < 0 && w->n_yes && w->yes[0] == 0)
            fy = 0;
        uint32_t F = fy < w->n_yes ? w->yes[fy] : d;
        for (uint32_t k = 0; k < m && st == LR_OK; k++) {
            uint32_t i = base + (k < head ? k : n - (m - k));
            trace_elem *el = &tr->el[k];
            uint8_t rst;
            char *reason = trace_raw_status(lk[k], nlk[k], i == d, &rst), *r = reason;
            char hd[600];
            if (reason && (int64_t)i < L) {
                uint32_t nx = w->nos[first_above(w->nos, w->n_no, i)];
                snprintf(hd, sizeof hd, "%s\xe2\x86\x93 is not leaking",
                         rules_simple_name(class_text(g, rs, p[nx].node)));
                r = rst == TRACE_UNKNOWN ? sdup(hd)
                    : joinf(hd, rst == TRACE_NO ? " and " : ". Conflicts with ", reason);
                rst = TRACE_NO;
            } else if (reason && i > F && i < d) {
                uint32_t pv = w->yes[first_above(w->yes, w->n_yes, i - 1) - 1];
                snprintf(hd, sizeof hd, "%s\xe2\x86\x91 is leaking",
                         rules_simple_name(class_text(g, rs, p[pv].node)));
                r = rst == TRACE_UNKNOWN ? sdup(hd) : joinf(hd, " and ", reason);
                rst = TRACE_YES;
            }
            if (r != reason)
                free(reason);
            if (!r) {
                st = LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
                break;
            }
            el->reason = r;
            el->status = rst;
            el->suspect = (uint8_t)(i < d && (int64_t)i >= (L < 0 ? 0 : L) && i < F);
        }
    }
    for (uint32_t k = 0; k < m; k++) {
        free(lk[k]);
        free(nlk[k]);
    }
    free(lk);
    free(nlk);
    return st;
}

/* The traces ending at slot s, reached as position d of the path; f is the fingerprint
 * state there (pass 1). */
static lr_status at_targets(walker *w, uint32_t s, uint32_t d, fpstate *f)
{
    uint32_t k = first_above(w->tslot, w->n_t, s - 1);
    if (s == 0)
        k = 0;
    for (; k < w->n_t && w->tslot[k] == s; k++) {
        uint32_t tp = w->tpos[k];
        trace *tr = &w->out->traces[tp];
        if (w->pass == 2) {
            LR_TRY(make_elems(w, tp, d));
            continue;
        }
        tr->root = w->root;
        tr->lib = w->lib[d];
        uint32_t lead = synth_lead(w, d);
        LR_TRY(root_name_of(w, lead, d, &tr->root_name));
        if (!fpctx_copy(&w->tmp, &f->c))
            return LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
        if (w->synth && !w->tmp.hashed) {
            /* no suspect reference between a synthetic root and the object (a console.log'd
             * element, held by "(Global handles) / DevTools console"): the object's class
             * and that root name the leak, where every such trace had one signature, the
             * SHA-1 of nothing, and unrelated leaks were one group. (Shark's rule for a JVM
             * object that is itself a root stays: its traces never come here.) */
            const char *cn = class_text(w->g, w->rs, w->p[d].node);
            char rn[512], scn[512];
            trace_root_generic(tr->root_name, rn, sizeof rn);
            classname_stable(cn, scn, sizeof scn);
            EVP_DigestUpdate(w->tmp.m[0], cn, strlen(cn));
            EVP_DigestUpdate(w->tmp.m[0], rn, strlen(rn));
            EVP_DigestUpdate(w->tmp.m[1], scn, strlen(scn));
            EVP_DigestUpdate(w->tmp.m[1], rn, strlen(rn));
        }
        fp_hex(w->tmp.m[0], tr->fingerprint);
        fp_hex(w->tmp.m[1], tr->stable);
        tinfo *ti = &w->ti[tp];
        ti->len = d + 1 - lead;
        /* the first suspect reference: at the last NO (else the root), unless the window
         * is empty */
        int64_t L = w->n_no ? (int64_t)w->nos[w->n_no - 1] : -1;
        uint32_t W = L < (int64_t)lead ? lead : (uint32_t)L;
        uint32_t fy = first_above(w->yes, w->n_yes, W);
        if (L < 0 && w->n_yes && w->yes[0] == 0)
            fy = 0;
        uint32_t F = fy < w->n_yes ? w->yes[fy] : d;
        ti->sd_slot = GRAPH_NONE;
        if (W < F && W < d) {
            ti->sd_node = w->p[W].node;
            ti->sd_thread = w->p[W].slot == ELEM_THREAD;
            ti->sd_slot = w->p[W + 1].slot;
        }
    }
    return LR_OK;
}

static int cmp_stable(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A group's stable signature: its traces' one, or when they differ (a lambda holding
 * objects of several classes, each trace naming what its reference holds), the SHA-1 of
 * their distinct values in order: the same set gives the same key whichever trace came
 * first (allocation order, a HashMap's order). */
static lr_status group_stable(trace_result *out, trace_group *gr, lr_error *err)
{
    uint32_t n = gr->n, i, u = 0;
    for (i = 1; i < n && !strcmp(out->traces[gr->traces[i]].stable,
                                 out->traces[gr->traces[0]].stable); i++)
        ;
    if (i >= n)
        return LR_OK;
    const char **v = err_mallocarray(n, sizeof *v);
    char *cat = err_malloc((size_t)n * 40 + 1);
    if (!v || !cat) {
        free(v);
        free(cat);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
    }
    for (i = 0; i < n; i++)
        v[i] = out->traces[gr->traces[i]].stable;
    qsort(v, n, sizeof *v, cmp_stable);
    for (i = 0; i < n; i++)
        if (!i || strcmp(v[i], v[i - 1]))
            memcpy(cat + 40 * (size_t)u++, v[i], 40);
    trace_sha1_hex(cat, 40 * (size_t)u, gr->stable);
    free(v);
    free(cat);
    return LR_OK;
}

/* Pushes element (node, slot, verdict) at position k and what the path gains with it. */
static void walk_push(walker *w, uint32_t k, node_ix x, uint32_t slot, uint8_t verdict)
{
    w->p[k] = (pelem){x, slot, verdict};
    int32_t lib = k ? w->lib[k - 1] : -1;
    if (k && lib < 0 && slot != ELEM_THREAD && w->t->in_real[slot] != GRAPH_NONE &&
        w->p[k - 1].slot != ELEM_THREAD)
        rules_edge_class(w->rs, w->p[k - 1].node, w->t->in_real[slot], &lib);
    if (k)
        w->lib[k] = lib;
}

static void walk_mark(walker *w, uint32_t k)
{
    if (w->p[k].verdict == TRACE_NO)
        w->nos[w->n_no++] = k;
    else if (w->p[k].verdict == TRACE_YES)
        w->yes[w->n_yes++] = k;
}

static void walk_unmark(walker *w, uint32_t k)
{
    if (w->n_no && w->nos[w->n_no - 1] == k)
        w->n_no--;
    if (w->n_yes && w->yes[w->n_yes - 1] == k)
        w->n_yes--;
}

/* Walks the tree below root slot r0. Leaf children are finished from a copy of the state;
 * the state is saved only where two or more children lead further, so a chain with one
 * leaf per link (a list holding watched objects) keeps no copies. */
typedef struct wframe {
    uint32_t slot;
    uint32_t it;         /* next child to look at */
    uint32_t inner_left; /* children with children of their own not yet walked */
    uint8_t first_done;  /* the first such child has been walked */
    fpctx saved;         /* state at this element when more than one inner child */
    int saved_open;
} wframe;

static lr_status walk_tree(walker *w, uint32_t r0, wframe *fr)
{
    const ptree *t = w->t;
    const graph *g = w->g;
    lr_status st = LR_OK;
    int fp = w->pass == 1;
    fpstate cur = {{{NULL, NULL}, 0}, 1};
    fpctx leafmd = {{NULL, NULL}, 0};
    if (fp) {
        if (fpctx_new(&cur.c) != 0 || fpctx_new(&leafmd) != 0) {
            fpctx_free(&cur.c);
            return LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
        }
        fpctx_init(&cur.c);
    }
    w->n_no = w->n_yes = 0;
    /* the root entry, and the thread a Java-frame root stands for (shown first, as Shark
     * does: "Thread<Java Local>") when the reader made no local edges */
    node_ix x0 = t->node[r0];
    uint32_t root = paths_root_of(w->pr, x0), k = 0;
    int32_t lib0 = -1;
    if (root < g->n_roots)
        rules_root_class(w->rs, root, &lib0);
    w->root = root;
    /* V8's root (a Dart snapshot's root node is no graph.synthetic_root: its Isolate holds
     * the program's state by named fields, which a trace shows) */
    w->synth = root < g->n_roots && g->roots[root].kind == GRAPH_ROOT_SYNTHETIC &&
               g->synthetic_root != GRAPH_NONE && g->roots[root].node == g->synthetic_root;
    w->rn_node = GRAPH_NONE;
    if (root < g->n_roots && g->roots[root].kind == GRAPH_ROOT_JAVA_FRAME &&
        !w->rs->has_local_edges) {
        node_ix tn = rules_thread_of_serial(g, g->roots[root].thread);
        if (tn != GRAPH_NONE && tn != x0) {
            w->p[0] = (pelem){tn, ELEM_THREAD, verdict_of(w->g, w->rs, w->ls, tn, w->rv)};
            w->lib[0] = lib0;
            walk_mark(w, 0);
            if (fp)
                fp_step(g, w->rs, t, &w->dm, (pelem[]){w->p[0], {x0, r0, t->verdict[r0]}},
                        0, 0, &cur);
            uint32_t tr = thread_root_of(w, tn);
            if (tr != UINT32_MAX)
                w->root = tr;
            k = 1;
        }
    }
    w->p[k] = (pelem){x0, r0, t->verdict[r0]};
    w->lib[k] = lib0;
    /* enter(s at k): targets, mark, leaves, then inner children one at a time */
    uint32_t s = r0;
    for (;;) {
        /* entering s at position k with cur = state at k */
        if ((st = at_targets(w, s, k, &cur)) != LR_OK)
            break;
        walk_mark(w, k);
        wframe *f = &fr[k];
        f->slot = s;
        f->it = t->cfirst[s];
        f->inner_left = 0;
        f->first_done = 0;
        f->saved = (fpctx){{NULL, NULL}, 0};
        for (uint32_t e = t->cfirst[s]; e < t->cfirst[s + 1] && st == LR_OK; e++) {
            uint32_t c = t->kids[e];
            if (t->cfirst[c] != t->cfirst[c + 1]) {
                f->inner_left++;
                continue;
            }
            walk_push(w, k + 1, t->node[c], c, t->verdict[c]);
            fpstate lf = {leafmd, cur.open}; /* leafmd's digests, the count copied below */
            if (fp) {
                if (!fpctx_copy(&lf.c, &cur.c)) {
                    st = LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
                    break;
                }
                fp_step(g, w->rs, t, &w->dm, w->p, k, w->synth, &lf);
            }
            st = at_targets(w, c, k + 1, &lf);
        }
        if (st != LR_OK)
            break;
        if (fp && f->inner_left >= 2) {
            f->saved_open = cur.open;
            if (fpctx_new(&f->saved) != 0 || !fpctx_copy(&f->saved, &cur.c)) {
                st = LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
                break;
            }
        }
        /* next inner child, climbing while a frame has none left */
        uint32_t next = GRAPH_NONE;
        for (;;) {
            f = &fr[k];
            while (f->it < t->cfirst[f->slot + 1]) {
                uint32_t c = t->kids[f->it++];
                if (t->cfirst[c] != t->cfirst[c + 1]) {
                    next = c;
                    break;
                }
            }
            if (next != GRAPH_NONE)
                break;
            fpctx_free(&f->saved);
            walk_unmark(w, k);
            if (k == 0 || w->p[k - 1].slot == ELEM_THREAD)
                break;
            k--;
        }
        if (next == GRAPH_NONE)
            break;
        f->inner_left--;
        if (fp && f->first_done && f->saved.m[0]) {
            if (!fpctx_copy(&cur.c, &f->saved)) {
                st = LR_FAIL(w->err, LR_ERR_NOMEM, "out of memory building leak traces");
                break;
            }
            cur.open = f->saved_open;
        }
        f->first_done = 1;
        walk_push(w, k + 1, t->node[next], next, t->verdict[next]);
        if (fp)
            fp_step(g, w->rs, t, &w->dm, w->p, k, w->synth, &cur);
        k++;
        s = next;
    }
    /* on failure, the frames still holding a copy */
    for (uint32_t j = 0; st != LR_OK && j <= k; j++)
        fpctx_free(&fr[j].saved);
    fpctx_free(&cur.c);
    fpctx_free(&leafmd);
    return st;
}

typedef struct gkey {
    const char *fp; /* fingerprint or pattern hash */
    uint32_t tp;    /* trace position */
    uint8_t lib;    /* library leak */
} gkey;

static int cmp_gkey(const void *pa, const void *pb)
{
    const gkey *a = pa, *b = pb;
    if (a->lib != b->lib)
        return a->lib < b->lib ? -1 : 1;
    int c = strcmp(a->fp, b->fp);
    if (c)
        return c;
    return (a->tp > b->tp) - (a->tp < b->tp);
}

typedef struct grun {
    uint8_t lib;
    uint32_t first; /* first trace position of the group */
    uint32_t k0;    /* its keys: gkey[k0 .. k0 + n) */
    uint32_t n;
} grun;

static int cmp_grun(const void *pa, const void *pb)
{
    const grun *a = pa, *b = pb;
    if (a->lib != b->lib)
        return a->lib < b->lib ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

/* Groups: application leaks by fingerprint, library leaks by pattern, each in the order of
 * its first trace; by sorting, so a million one-trace groups cost n log n. */
static lr_status make_groups(const graph *g, const rules_set *rs, const ptree *t,
                             const tinfo *ti, trace_result *out, lr_error *err)
{
    uint32_t nt = out->n_traces;
    gkey *key = err_mallocarray(nt ? nt : 1, sizeof *key);
    char (*pat)[41] = err_mallocarray(rs->n_refs ? rs->n_refs : 1, sizeof *pat);
    grun *run = err_mallocarray(nt ? nt : 1, sizeof *run);
    out->groups = err_calloc(nt ? nt : 1, sizeof *out->groups);
    lr_status st = LR_OK;
    if (!key || !pat || !run || !out->groups) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    for (uint32_t r = 0; r < rs->n_refs; r++)
        trace_sha1_hex(rs->refs[r].pattern, strlen(rs->refs[r].pattern), pat[r]);
    for (uint32_t tp = 0; tp < nt; tp++) {
        const trace *tr = &out->traces[tp];
        int lib = tr->lib >= 0 && (uint32_t)tr->lib < rs->n_refs;
        key[tp] = (gkey){lib ? pat[tr->lib] : tr->fingerprint, tp, (uint8_t)lib};
    }
    qsort(key, nt, sizeof *key, cmp_gkey);
    uint32_t nr = 0;
    for (uint32_t k = 0; k < nt; k++) {
        if (k == 0 || key[k].lib != key[k - 1].lib || strcmp(key[k].fp, key[k - 1].fp))
            run[nr++] = (grun){key[k].lib, key[k].tp, k, 0};
        run[nr - 1].n++;
    }
    qsort(run, nr, sizeof *run, cmp_grun);
    for (uint32_t gi = 0; gi < nr && st == LR_OK; gi++) {
        trace_group *gr = &out->groups[gi];
        const trace *tr = &out->traces[run[gi].first];
        gr->library = run[gi].lib;
        gr->lib = gr->library ? tr->lib : -1;
        memcpy(gr->fingerprint, key[run[gi].k0].fp, 41);
        /* one fingerprint, one stable one (a function of the same hashed text); a library
         * leak's pattern is stable as it is */
        memcpy(gr->stable, gr->library ? gr->fingerprint : tr->stable, 41);
        gr->traces = err_mallocarray(run[gi].n, sizeof *gr->traces);
        if (!gr->traces) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            break;
        }
        out->n_groups = gi + 1;
        if (!gr->library)
            out->n_app_groups = gi + 1;
        for (uint32_t k = 0; k < run[gi].n; k++) {
            uint32_t tp = key[run[gi].k0 + k].tp;
            gr->traces[gr->n++] = tp;
            out->traces[tp].group = gi;
        }
        if (!gr->library && (st = group_stable(out, gr, err)) != LR_OK)
            break;
        /* short description: first suspect reference, else the leaking class; Shark puts a
         * dot before a local too ("Thread.<Java Local>") */
        const tinfo *f = &ti[run[gi].first];
        node_ix leak_node = tr->el[tr->n - 1].node;
        snprintf(gr->short_desc, sizeof gr->short_desc, "%s",
                 rules_simple_name(class_text(g, rs, leak_node)));
        if (f->sd_slot != GRAPH_NONE) {
            pelem two[2] = {{f->sd_node, f->sd_thread ? ELEM_THREAD : 0, 0},
                            {t->node[f->sd_slot], f->sd_slot, 0}};
            char name[300], d[310];
            trace_elem e = {.ref_name = name};
            e.ref_type = ref_text(g, t, two, 0, name, sizeof name);
            trace_ref_display(&e, d, sizeof d);
            if (snprintf(gr->short_desc, sizeof gr->short_desc, "%s%s%s",
                         rules_simple_name(class_text(g, rs, f->sd_node)),
                         e.ref_type != TRACE_REF_ARRAY ? "." : "", d) < 0)
                gr->short_desc[0] = 0;
        }
    }
done:
    free(key);
    free(pat);
    free(run);
    return st;
}

typedef struct tkey {
    uint32_t slot;
    uint32_t tp;
} tkey;

static int cmp_tkey(const void *pa, const void *pb)
{
    const tkey *a = pa, *b = pb;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    return (a->tp > b->tp) - (a->tp < b->tp);
}

typedef struct lkey {
    node_ix node;
    uint32_t leak;
} lkey;

static int cmp_lkey(const void *pa, const void *pb)
{
    const lkey *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return (a->leak > b->leak) - (a->leak < b->leak);
}

typedef struct idkey {
    uint64_t id;
    uint32_t leak;
} idkey;

static int cmp_idkey(const void *pa, const void *pb)
{
    const idkey *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return (a->leak > b->leak) - (a->leak < b->leak);
}

void trace_reach(const graph *g, uint8_t *seen, node_ix *queue, int kept)
{
    uint32_t n = g->n_nodes, qt = 0;
    for (uint32_t r = 0; r <= g->n_roots; r++) {
        node_ix x = r < g->n_roots ? g->roots[r].node : g->synthetic_root;
        if (x < n && !(seen[x / 8] >> (x % 8) & 1)) {
            seen[x / 8] |= (uint8_t)(1u << (x % 8));
            queue[qt++] = x;
        }
    }
    int hops = kept && g->format && !strcmp(g->format, "hprof");
    for (uint32_t qh = 0; qh < qt; qh++) {
        node_ix x = queue[qh];
        class_ix c = hops && g->node_kind[x] != GRAPH_KIND_CLASS ? graph_node_class(g, x)
                                                                : GRAPH_NONE;
        node_ix k = c < g->n_classes ? g->classes[c].node : GRAPH_NONE;
        if (k < n && !(seen[k / 8] >> (k % 8) & 1)) {
            seen[k / 8] |= (uint8_t)(1u << (k % 8));
            queue[qt++] = k;
        }
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            unsigned str = GRAPH_EDGE_STRENGTH(g->edge_kind[e]);
            if (y >= n || !(str == GRAPH_STRONG || (kept && str == GRAPH_SOFT)) ||
                (seen[y / 8] >> (y % 8) & 1))
                continue;
            seen[y / 8] |= (uint8_t)(1u << (y % 8));
            queue[qt++] = y;
        }
    }
}

/* Which unreachable objects a root still reaches over strong references when the rules'
 * ignores are not applied: an object a local of thread main holds (jdk.rules ignores those,
 * as Shark does) is in memory for a reason the text must not call "no strong path". And
 * which only weak references reach, or none: garbage, which a dump written without a GC first
 * (`jmap -dump` without `live`, Android's) still holds, and which --fail-on-leak must not
 * fail on (a server whose stopped applications' class loaders were all collectable failed).
 * Two traversals from every root, O(N+E), only when some leaking object has no path. */
static lr_status mark_unreachable_kinds(const graph *g, trace_result *out, lr_error *err)
{
    uint32_t n = g->n_nodes;
    uint8_t *seen = err_calloc(n / 8 + 1, 1);
    node_ix *queue = err_mallocarray(n ? n : 1, sizeof *queue);
    if (!seen || !queue) {
        free(seen);
        free(queue);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
    }
    for (int any = 0; any < 2; any++) {
        memset(seen, 0, n / 8 + 1);
        trace_reach(g, seen, queue, any);
        for (uint32_t i = 0; i < out->n_unreachable; i++) {
            node_ix x = out->unreachable[i].el.node;
            int reached = x < n && (seen[x / 8] >> (x % 8) & 1);
            if (!any)
                out->unreachable[i].ignored_only = (uint8_t)reached;
            else if ((out->unreachable[i].garbage = (uint8_t)!reached))
                out->n_garbage++;
        }
    }
    free(seen);
    free(queue);
    return LR_OK;
}

/* Traces of the reached leaking objects in ord[0..n_found), made from the path tree: pass 1
 * walks it for fingerprints and library matches, the groups follow, and pass 2 makes the
 * path objects of the traces kept (o->max_traces: the first traces and each group's first). */
static lr_status traces_from_tree(const graph *g, const rules_set *rs, const leak_set *ls,
                                  const paths_result *pr, virt_gen *vg, const trace_opts *o,
                                  uint8_t *reached, trace_result *out, lr_error *err)
{
    ptree t;
    walker w;
    memset(&w, 0, sizeof w);
    tkey *tk = NULL;
    wframe *fr = NULL;
    order_key *ord = NULL;
    uint32_t n_found = 0;
    lr_status st = ptree_build(g, rs, ls, pr, vg, &t, err);
    if (st != LR_OK)
        goto done;
    /* output order: normal paths first, then by depth, then leak order */
    ord = err_mallocarray(ls->n ? ls->n : 1, sizeof *ord);
    out->traces = err_calloc(ls->n ? ls->n : 1, sizeof *out->traces);
    if (!ord || !out->traces) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    /* each slot's ancestor at depth TRACE_ORDER_DEPTH (itself when shallower): a parent's
     * slot is below its child's, so one pass in slot order */
    uint32_t *cut = err_mallocarray(t.n ? t.n : 1, sizeof *cut);
    if (!cut) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    for (uint32_t s = 0; s < t.n; s++)
        cut[s] = t.depth[s] <= TRACE_ORDER_DEPTH ? s : cut[t.parent[s]];
    for (uint32_t i = 0; i < ls->n; i++) {
        node_ix x = ls->v[i].node;
        if (x < g->n_nodes && paths_reached(pr, x)) {
            uint32_t s = ptree_slot(&t, x);
            ord[n_found].leak = i;
            ord[n_found].via_last = paths_via_last(pr, x) ? 1 : 0;
            ord[n_found].depth = t.depth[s];
            ord[n_found].top = t.node[cut[s]];
            n_found++;
            reached[i] = 1;
        }
    }
    free(cut);
    qsort(ord, n_found, sizeof *ord, trace_cmp_order);
    if ((st = trace_shark_order(g, pr, ls, ord, n_found, err)) != LR_OK)
        goto done;
    uint32_t maxd = 0;
    for (uint32_t s = 0; s < t.n; s++)
        if (t.depth[s] > maxd)
            maxd = t.depth[s];
    uint32_t cap = maxd + 3; /* positions: the thread, then depth + 1 objects, one spare */
    w.g = g;
    w.rs = rs;
    w.ls = ls;
    w.pr = pr;
    w.t = &t;
    w.o = o;
    w.out = out;
    w.n_t = n_found;
    w.err = err;
    w.ti = err_calloc(n_found ? n_found : 1, sizeof *w.ti);
    tk = err_mallocarray(n_found ? n_found : 1, sizeof *tk);
    uint32_t *tslot = err_mallocarray(n_found ? n_found : 1, sizeof *tslot);
    uint32_t *tpos = err_mallocarray(n_found ? n_found : 1, sizeof *tpos);
    w.tslot = tslot;
    w.tpos = tpos;
    w.p = err_mallocarray(cap, sizeof *w.p);
    w.nos = err_mallocarray(cap, sizeof *w.nos);
    w.yes = err_mallocarray(cap, sizeof *w.yes);
    w.lib = err_mallocarray(cap, sizeof *w.lib);
    fr = err_calloc(cap, sizeof *fr);
    int tmp_ok = fpctx_new(&w.tmp) == 0;
    w.rv = err_calloc(1, sizeof *w.rv);
    if (!w.ti || !tk || !tslot || !tpos || !w.p || !w.nos || !w.yes || !w.lib || !fr ||
        !tmp_ok || !w.rv) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    for (uint32_t tp = 0; tp < n_found; tp++) {
        trace *tr = &out->traces[tp];
        tr->leak = ord[tp].leak;
        tr->lib = -1;
        tk[tp] = (tkey){ptree_slot(&t, ls->v[ord[tp].leak].node), tp};
    }
    out->n_traces = n_found;
    qsort(tk, n_found, sizeof *tk, cmp_tkey);
    for (uint32_t k = 0; k < n_found; k++) {
        tslot[k] = tk[k].slot;
        tpos[k] = tk[k].tp;
    }
    for (int pass = 1; pass <= 2 && st == LR_OK; pass++) {
        w.pass = pass;
        for (uint32_t s = 0; s < t.n && st == LR_OK; s++)
            if (t.parent[s] == GRAPH_NONE)
                st = walk_tree(&w, s, fr);
        if (st != LR_OK || pass == 2)
            break;
        /* the traces to make in full: the first ones and the first of each group shown */
        uint32_t mt = o->max_traces ? o->max_traces : UINT32_MAX;
        for (uint32_t tp = 0; tp < n_found && tp < mt; tp++)
            w.ti[tp].keep = 1;
        /* groups need the leaking object of each trace: a one-object placeholder until
         * pass 2 makes the trace */
        for (uint32_t tp = 0; tp < n_found && st == LR_OK; tp++) {
            trace *tr = &out->traces[tp];
            tr->el = err_calloc(1, sizeof *tr->el);
            if (!tr->el) {
                st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                break;
            }
            tr->n = 1;
            tr->el[0].node = ls->v[tr->leak].node;
        }
        if (st == LR_OK)
            st = make_groups(g, rs, &t, w.ti, out, err);
        for (uint32_t gi = 0; gi < out->n_groups && gi < mt; gi++)
            w.ti[out->groups[gi].traces[0]].keep = 1;
        for (uint32_t tp = 0; tp < n_found; tp++) {
            free(out->traces[tp].el);
            out->traces[tp].el = NULL;
            out->traces[tp].n = 0;
        }
    }
done:
    ptree_free(&t);
    free(ord);
    free(w.ti);
    free(tk);
    free((void *)w.tslot);
    free((void *)w.tpos);
    free(w.p);
    free(w.nos);
    free(w.yes);
    free(w.thr_root);
    free(w.lib);
    free(fr);
    fpctx_free(&w.tmp);
    dictmemo_free(&w.dm);
    free(w.rv);
    return st;
}

lr_status trace_paths(const graph *g, const rules_set *rs, const leak_set *ls,
                      trace_result *out, lr_error *err)
{
    return trace_paths_opts(g, rs, ls, NULL, out, err);
}

lr_status trace_paths_opts(const graph *g, const rules_set *rs, const leak_set *ls,
                           const trace_opts *opts, trace_result *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    trace_opts o = opts ? *opts : (trace_opts){TRACE_DEFAULT_STEPS, TRACE_DEFAULT_TRACES, 0};
    lr_status st = LR_OK;
    uint32_t nl = ls->n, nn = g->n_nodes;
    node_ix *targets = err_mallocarray(nl ? nl : 1, sizeof *targets);
    uint8_t *reached = err_calloc(nl ? nl : 1, 1);
    uint8_t *vis = NULL, *stop = NULL;
    uint32_t *queue = NULL;
    lkey *lk = NULL;
    paths_result pr;
    memset(&pr, 0, sizeof pr);
    virt_gen *vg = NULL;
    if (!targets || !reached) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    for (uint32_t i = 0; i < nl; i++)
        targets[i] = ls->v[i].node;
    if ((st = virt_gen_new(g, &vg, err)) != LR_OK)
        goto done;
    vpol_ctx vctx = {rs, vg, o.shark_refs};
    paths_source src = {trace_vsource, &vctx};
    int hops = !o.shark_refs;
    /* a leaking object another one holds is retained by it: targets end paths; Shark's
     * references take neither an instance's hop to its class nor a class's to its loader
     * (a loader a class object in an MBean held read "261 bytes retained" there) */
    paths_policy pol =
        vg ? (paths_policy){trace_pol_vedge, trace_pol_vroot, &vctx, &src, hops, 0}
           : (paths_policy){o.shark_refs ? trace_pol_edge_shark : trace_pol_edge,
                            trace_pol_root, (void *)rs, NULL, hops, 0};
    /* Stops once every leaking object's path is final; when one is never reached the
     * traversal runs to the end, which phase 2 below needs (it searches the unreached part) */
    int all_found = 0;
    if ((st = paths_find_targets(g, &pol, targets, nl, &pr, &all_found, err)) != LR_OK)
        goto done;
    st = traces_from_tree(g, rs, ls, &pr, vg, &o, reached, out, err);
    virt_gen_free(vg);
    vg = NULL;
    if (st != LR_OK)
        goto done;

    /* phase 2: leaking objects reachable only through a found one; nothing to find when
     * every leaking object has a path */
    if (!all_found && out->n_traces) {
        vis = err_calloc(nn / 8 + 1, 1);
        stop = err_calloc(nn / 8 + 1, 1);
        queue = err_mallocarray(nn ? nn : 1, sizeof *queue);
        if (!vis || !stop || !queue) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            goto done;
        }
        /* leak index by node for the unreached ones */
        uint32_t n_lk = 0;
        lk = err_mallocarray(nl ? nl : 1, sizeof *lk);
        if (!lk) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            goto done;
        }
        for (uint32_t i = 0; i < nl; i++)
            if (!reached[i] && ls->v[i].node < nn) {
                stop[ls->v[i].node / 8] |= (uint8_t)(1u << (ls->v[i].node % 8));
                lk[n_lk++] = (lkey){ls->v[i].node, i};
            }
        qsort(lk, n_lk, sizeof *lk, cmp_lkey);
        for (uint32_t t = 0; t < out->n_traces && st == LR_OK; t++) {
            trace *tr = &out->traces[t];
            node_ix s0 = tr->el[tr->n - 1].node;
            uint32_t qh = 0, qt = 0, found = 0;
            uint32_t first_leak = GRAPH_NONE;
            int same_class = 1;
            queue[qt++] = s0;
            vis[s0 / 8] |= (uint8_t)(1u << (s0 % 8));
            while (qh < qt) {
                node_ix x = queue[qh++];
                if (x != s0 && (stop[x / 8] >> (x % 8) & 1)) {
                    uint32_t lo;
                    SEARCH_LOWER_BOUND(uint32_t, 0, n_lk, lk[search_mid].node < x, lo);
                    for (uint32_t k = lo; k < n_lk && lk[k].node == x; k++)
                        if (!reached[lk[k].leak]) {
                            uint32_t i = lk[k].leak;
                            reached[i] = 2;
                            if (first_leak == GRAPH_NONE)
                                first_leak = i;
                            else if (graph_node_class(g, ls->v[i].node) !=
                                     graph_node_class(g, ls->v[first_leak].node))
                                same_class = 0;
                            found++;
                        }
                }
                for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
                    node_ix y = g->edge_to[e];
                    if (y >= nn || (vis[y / 8] >> (y % 8) & 1) ||
                        (pr.flags[y] & PATHS_F_STATE))
                        continue;
                    if (GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG ||
                        !follow(rs, x, e))
                        continue;
                    vis[y / 8] |= (uint8_t)(1u << (y % 8));
                    queue[qt++] = y;
                }
            }
            if (found) {
                char lbl[600];
                node_ix f = ls->v[first_leak].node;
                if (found == 1)
                    snprintf(lbl, sizeof lbl, "Also retains leaking object 0x%llx (%s)",
                             (unsigned long long)graph_node_id(g, f), graph_class_name(g, f));
                else if (same_class)
                    snprintf(lbl, sizeof lbl, "Also retains %u leaking %s objects", found,
                             graph_class_name(g, f));
                else
                    snprintf(lbl, sizeof lbl, "Also retains %u leaking objects", found);
                if (trace_add_label(&tr->el[tr->n - 1].labels, lbl))
                    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                out->n_also_retained += found;
            }
        }
    }
    /* the paths are in the traces now: no per-node array outlives this point */
    paths_free(&pr);
    free(vis);
    free(stop);
    free(queue);
    vis = stop = NULL;
    queue = NULL;
    if (st != LR_OK)
        goto done;

    /* unreachable leaking objects */
    {
        uint32_t nu = 0;
        for (uint32_t i = 0; i < nl; i++)
            nu += !reached[i];
        out->unreachable = err_calloc(nu ? nu : 1, sizeof *out->unreachable);
        if (!out->unreachable) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            goto done;
        }
        /* by object id, as Shark lists them (a ZGC dump's order is not its ids') */
        uint32_t nk = 0;
        idkey *ord = err_mallocarray(nu ? nu : 1, sizeof *ord);
        if (!ord) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            goto done;
        }
        for (uint32_t i = 0; i < nl; i++)
            if (!reached[i] && ls->v[i].node < nn)
                ord[nk++] = (idkey){graph_node_id(g, ls->v[i].node), i};
        qsort(ord, nk, sizeof *ord, cmp_idkey);
        for (uint32_t k = 0; k < nk && st == LR_OK; k++) {
            uint32_t i = ord[k].leak;
            trace_unreachable *u = &out->unreachable[out->n_unreachable++];
            u->leak = i;
            u->el.node = ls->v[i].node;
            u->el.edge = GRAPH_NONE;
            u->el.class_name = trace_node_class_name(g, rs, u->el.node);
            char *lk = NULL, *nlk = NULL;
            if (!u->el.class_name ||
                trace_inspect(g, rs, ls, u->el.node, &lk, &nlk, &u->el.labels)) {
                free(lk);
                free(nlk);
                st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                break;
            }
            if (!*lk && ls->v[i].reason[0]) {
                free(lk);
                lk = sdup(ls->v[i].reason);
            }
            if (lk && *lk && *nlk)
                u->el.reason = joinf(lk, ". Conflicts with ", nlk);
            else if (lk && *lk)
                u->el.reason = sdup(lk);
            else if (nlk && *nlk)
                u->el.reason = joinf("This is a leaking object. Conflicts with ", "", nlk);
            else
                u->el.reason = sdup("This is a leaking object");
            u->el.status = TRACE_YES;
            free(lk);
            free(nlk);
            if (!u->el.reason)
                st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        }
        free(ord);
    }
    if (st == LR_OK && out->n_unreachable)
        st = mark_unreachable_kinds(g, out, err);
    if (st != LR_OK)
        goto done;

done:
    paths_free(&pr);
    virt_gen_free(vg);
    free(targets);
    free(lk);
    free(reached);
    free(vis);
    free(stop);
    free(queue);
    if (st != LR_OK)
        trace_result_free(out);
    return st;
}

/* Every class object with its defining loader (its <classloader> link): (loader << 32 |
 * class) pairs, sorted, into *out (free). 0, or -1 when out of memory. */
static int class_loads(const graph *g, uint64_t **out, uint32_t *n_out)
{
    uint32_t n = 0;
    uint64_t *v = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *v);
    if (!v)
        return -1;
    for (class_ix c = 0; c < g->n_classes && g->first_edge; c++) {
        node_ix x = g->classes[c].node;
        if (x >= g->n_nodes || g->node_kind[x] != GRAPH_KIND_CLASS)
            continue;
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1] && e < g->n_edges; e++) {
            node_ix l = g->edge_to[e];
            if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_INTERNAL && l < g->n_nodes &&
                !strcmp(graph_str(g, graph_edge_name_from(g, x, e)), "<classloader>")) {
                v[n++] = (uint64_t)l << 32 | x;
                break;
            }
        }
    }
    qsort(v, n, sizeof *v, cmp_u64);
    *out = v;
    *n_out = n;
    return 0;
}

/* The leaking objects of group gr that none of the others dominates: tops[0..return).
 * A group's leaking objects are every node its traces mark Leaking: YES (the suffix of
 * each trace from its first YES, by Shark's propagation), not only the objects at the ends:
 * the classes of a leaking class loader are YES above the loader and hold its statics,
 * which the loader alone does not dominate (an instance also reaches its class). What a set
 * retains together is what its tops do, as anything a top dominates goes with it; one top
 * retains exactly its dominator subtree, which the tree already sums (a traversal per group
 * took 0.5 s on a 209 MB dump: 64 one-object groups, 38 s). stop is all zeros on entry and
 * on return. */
static uint32_t group_tops(const trace_result *out, const trace_group *gr, const dom_tree *dt,
                           const uint64_t *loads, uint32_t n_loads, uint8_t *stop, node_ix *set,
                           node_ix *tops)
{
    uint32_t ns = 0, nt = 0;
    for (uint32_t k = 0; k < gr->n; k++) {
        const trace *t = &out->traces[gr->traces[k]];
        for (uint32_t j = 0; j < t->n; j++) {
            node_ix x = t->el[j].node;
            if (x >= dt->n || (t->el[j].status != TRACE_YES && j + 1 < t->n) ||
                (stop[x / 8] >> (x % 8) & 1))
                continue;
            stop[x / 8] |= (uint8_t)(1u << (x % 8));
            set[ns++] = x;
        }
    }
    /* a leaking class loader's classes are leaking too, on the path or not: a thread whose
     * class the loader defined reaches the loader through a field (JDK 17's
     * inheritedAccessControlContext) or through its class (JDK 25), and the class's statics
     * counted only in the second (2.5 kB against 2.0 MB for one leak) */
    for (uint32_t i = 0, n0 = ns; i < n0 && n_loads; i++) {
        uint32_t lo;
        uint64_t key = (uint64_t)set[i] << 32;
        SEARCH_LOWER_BOUND(uint32_t, 0, n_loads, loads[search_mid] < key, lo);
        for (; lo < n_loads && loads[lo] >> 32 == set[i]; lo++) {
            node_ix y = (node_ix)(loads[lo] & 0xffffffffu);
            if (y >= dt->n || (stop[y / 8] >> (y % 8) & 1))
                continue;
            stop[y / 8] |= (uint8_t)(1u << (y % 8));
            set[ns++] = y;
        }
    }
    for (uint32_t i = 0; i < ns; i++) {
        node_ix d = dt->idom[set[i]];
        int nested = 0;
        /* a walk cut short keeps a nested node as a top: the traversal that sizes several
         * tops is exact with it, and a long chain of leaking objects costs no N^2 */
        for (uint32_t guard = 0; d < dt->n && guard < TRACE_TOP_WALK && !nested; guard++) {
            nested = stop[d / 8] >> (d % 8) & 1;
            d = dt->idom[d];
        }
        if (!nested)
            tops[nt++] = set[i];
    }
    for (uint32_t i = 0; i < ns; i++)
        stop[set[i] / 8] = 0;
    return nt;
}

lr_status trace_finish(const graph *g, const rules_set *rs, const leak_set *ls,
                       const dom_tree *dt, trace_result *out, lr_error *err)
{
    return trace_finish_ex(g, rs, ls, dt, NULL, out, err);
}

lr_status trace_finish_ex(const graph *g, const rules_set *rs, const leak_set *ls,
                          const dom_tree *dt, const dom_opts *o, trace_result *out,
                          lr_error *err)
{
    (void)ls;
    if (!dt)
        return LR_OK;
    lr_status st = LR_OK;
    uint32_t nn = g->n_nodes;
    uint8_t *vis = NULL, *stop = NULL, *live = NULL;
    uint32_t *queue = NULL, *cnt = NULL;
    node_ix *want = NULL;
    trace_tog_base base = {0};
    uint64_t n_all = 0;
    uint32_t *top_first = NULL;
    node_ix *tops = NULL, *set = NULL;
    uint64_t *loads = NULL, tops_cap = 0;
    uint32_t n_loads = 0;
    /* subtree object counts of the nodes the traces show, and of the classes of the class
     * loaders among them: a group past TRACE_EXACT_GROUPS counts its tops one by one, and a
     * leaking loader's classes are tops (group_tops) */
    if (class_loads(g, &loads, &n_loads) != 0) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    uint64_t nw64 = 0;
    for (uint32_t t = 0; t < out->n_traces; t++)
        for (uint32_t j = 0; j < out->traces[t].n; j++) {
            uint64_t key = (uint64_t)out->traces[t].el[j].node << 32, lo;
            nw64++;
            SEARCH_LOWER_BOUND(uint64_t, 0, n_loads, loads[search_mid] < key, lo);
            for (; lo < n_loads && loads[lo] >> 32 == key >> 32; lo++)
                nw64++;
        }
    if (nw64 >= UINT32_MAX ||
        !(want = err_mallocarray(nw64 ? (size_t)nw64 : 1, sizeof *want))) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    uint32_t nw = 0;
    for (uint32_t t = 0; t < out->n_traces; t++)
        for (uint32_t j = 0; j < out->traces[t].n; j++) {
            node_ix x = out->traces[t].el[j].node;
            if (x >= dt->n)
                continue;
            want[nw++] = x;
            uint64_t key = (uint64_t)x << 32, lo;
            SEARCH_LOWER_BOUND(uint64_t, 0, n_loads, loads[search_mid] < key, lo);
            for (; lo < n_loads && loads[lo] >> 32 == x; lo++)
                if ((node_ix)(loads[lo] & 0xffffffffu) < dt->n)
                    want[nw++] = (node_ix)(loads[lo] & 0xffffffffu);
        }
    qsort(want, nw, sizeof *want, trace_cmp_node);
    uint32_t nu = 0;
    for (uint32_t k = 0; k < nw; k++)
        if (nu == 0 || want[nu - 1] != want[k])
            want[nu++] = want[k];
    nw = nu;
    cnt = err_mallocarray(nw ? nw : 1, sizeof *cnt);
    if (!cnt || trace_subtree_counts(dt, want, nw, cnt) != 0) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    for (uint32_t t = 0; t < out->n_traces; t++)
        for (uint32_t j = 0; j < out->traces[t].n; j++) {
            trace_elem *el = &out->traces[t].el[j];
            /* a path through a class's loader link (visited last) goes where the tree,
             * which keeps Shark's references, does not: no size rather than a false 0 B */
            if (el->node < dt->n && dt->idom[el->node] != GRAPH_NONE) {
                el->has_retained = 1;
                el->retained = dom_retained(dt, el->node);
                el->retained_count = cnt[trace_want_index(want, nw, el->node)];
            }
        }
    if (!out->n_groups)
        goto done;
    vis = err_calloc(nn / 8 + 1, 1);
    stop = err_calloc(nn / 8 + 1, 1);
    live = err_calloc(nn / 8 + 1, 1);
    queue = err_mallocarray(nn ? nn : 1, sizeof *queue);
    if (!vis || !stop || !live || !queue) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    /* each group's tops (group_tops); those of the groups sized by a traversal are marked
     * for what the groups share */
    uint64_t nel = 0;
    for (uint32_t t = 0; t < out->n_traces; t++)
        nel += out->traces[t].n;
    top_first = err_mallocarray((size_t)out->n_groups + 1, sizeof *top_first);
    tops_cap = nel + n_loads;
    tops = err_mallocarray(tops_cap ? tops_cap : 1, sizeof *tops);
    set = err_mallocarray(nel + n_loads ? nel + n_loads : 1, sizeof *set);
    if (!top_first || !tops || !set) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    int shark = o && o->weight == trace_shark_weight;
    top_first[0] = 0;
    for (uint32_t gi = 0; gi < out->n_groups; gi++) {
        /* room for this group's tops: its traces' objects and its loaders' classes */
        uint64_t gel = n_loads;
        for (uint32_t k = 0; k < out->groups[gi].n; k++)
            gel += out->traces[out->groups[gi].traces[k]].n;
        if (top_first[gi] + gel > tops_cap) {
            uint64_t cap = tops_cap * 2 > top_first[gi] + gel ? tops_cap * 2 : top_first[gi] + gel;
            node_ix *tq = err_reallocarray(tops, cap, sizeof *tops);
            if (!tq) {
                st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                goto done;
            }
            tops = tq;
            tops_cap = cap;
        }
        uint32_t nt = shark ? 0
                            : group_tops(out, &out->groups[gi], dt, loads, n_loads, stop,
                                         set, tops + top_first[gi]);
        top_first[gi + 1] = top_first[gi] + nt;
        if (nt < 2 || gi >= TRACE_EXACT_GROUPS)
            continue;
        for (uint32_t k = 0; k < nt; k++) {
            node_ix x = tops[top_first[gi] + k];
            vis[x / 8] |= (uint8_t)(1u << (x % 8));
        }
        n_all += nt;
    }
    if (n_all && (st = trace_tog_base_build(g, rs, o, dt, vis, queue, &base, err)) != LR_OK)
        goto done;
    memset(vis, 0, nn / 8 + 1);
    for (uint32_t gi = 0; gi < out->n_groups; gi++) {
        trace_group *gr = &out->groups[gi];
        gr->retained = gr->retained_count = 0;
        if (shark) {
            /* Shark's group total: per trace the most any of its leaking objects retains
             * (LeakTrace.retainedHeapByteSize), summed over the group's traces, so what two
             * leaking objects share and neither dominates counts in neither */
            for (uint32_t k = 0; k < gr->n; k++) {
                const trace *t = &out->traces[gr->traces[k]];
                uint64_t b = 0, c = 0;
                for (uint32_t j = 0; j < t->n; j++)
                    if (t->el[j].status == TRACE_YES && t->el[j].has_retained) {
                        b = t->el[j].retained > b ? t->el[j].retained : b;
                        c = t->el[j].retained_count > c ? t->el[j].retained_count : c;
                    }
                gr->retained += b;
                gr->retained_count += c;
            }
            continue;
        }
        /* One top: its dominator subtree. Past TRACE_EXACT_GROUPS groups, several tops:
         * the sum of their subtrees (disjoint, as no top dominates another), a lower bound
         * of the exact value. */
        const node_ix *tp = tops + top_first[gi];
        uint32_t nt = top_first[gi + 1] - top_first[gi];
        if (nt < 2 || gi >= TRACE_EXACT_GROUPS) {
            for (uint32_t k = 0; k < nt; k++) {
                uint32_t wi = trace_want_index(want, nw, tp[k]);
                gr->retained += dom_retained(dt, tp[k]);
                gr->retained_count += wi < nw ? cnt[wi] : 0;
            }
            continue;
        }
        for (uint32_t k = 0; k < nt; k++)
            stop[tp[k] / 8] |= (uint8_t)(1u << (tp[k] % 8));
        trace_together_base(g, rs, o, dt, &base, stop, vis, live, queue, &gr->retained,
                            &gr->retained_count);
        for (uint32_t k = 0; k < nt; k++)
            stop[tp[k] / 8] = 0;
    }
done:
    trace_tog_base_free(&base);
    free(loads);
    free(top_first);
    free(tops);
    free(set);
    free(cnt);
    free(want);
    free(live);
    free(vis);
    free(stop);
    free(queue);
    if (st != LR_OK)
        trace_result_free(out);
    return st;
}

lr_status trace_build(const graph *g, const rules_set *rs, const leak_set *ls,
                      const dom_tree *dt, trace_result *out, lr_error *err)
{
    lr_status st = trace_paths(g, rs, ls, out, err);
    return st == LR_OK ? trace_finish(g, rs, ls, dt, out, err) : st;
}
