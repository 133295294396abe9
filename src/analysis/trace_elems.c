/* SPDX-License-Identifier: Apache-2.0 */
/* trace_elems.c: the objects of a trace (analysis layer), prefix trace_. What one path object
 * becomes in a trace: its display class, the inspectors' verdicts and labels (plus the
 * KeyedWeakReference inspector), the reference leaving it with its owner's simple name; the
 * order the traces come out in (Shark's: its trie of paths read depth first); and the
 * dominator subtree object counts of the few nodes the traces show, charged each to its
 * nearest shown ancestor (one array of N, a byte a node when they are few). trace.c calls
 * these while it walks the path tree and completes the traces. */
#include "analysis/trace_internal.h"
#include "analysis/devtools.h"
#include "base/search.h"

#include <stdlib.h>
#include <string.h>

static void elem_free(trace_elem *e)
{
    free(e->class_name);
    free(e->reason);
    free(e->labels);
    free(e->ref_name);
    free(e->owner);
}

void trace_result_free(trace_result *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_traces; i++) {
        for (uint32_t j = 0; j < r->traces[i].n; j++)
            elem_free(&r->traces[i].el[j]);
        free(r->traces[i].el);
    }
    for (uint32_t i = 0; i < r->n_groups; i++)
        free(r->groups[i].traces);
    for (uint32_t i = 0; i < r->n_unreachable; i++)
        elem_free(&r->unreachable[i].el);
    for (uint32_t i = 0; i < r->n_root_names; i++)
        free(r->root_names[i]);
    free(r->root_names);
    free(r->traces);
    free(r->groups);
    free(r->unreachable);
    memset(r, 0, sizeof *r);
}

char *trace_node_class_name(const graph *g, const rules_set *rs, node_ix n)
{
    if (g->node_kind[n] == GRAPH_KIND_CLASS) {
        class_ix c = graph_class_of_node(rs->g, n);
        if (c != GRAPH_NONE)
            return sdup(graph_str(g, g->classes[c].name));
    }
    return sdup(graph_class_name(g, n));
}

/* Declaring class of instance field `name` of node n that holds `to`: a subclass may declare
 * a field of the name again (it hides the superclass's, and both are in the object), so the
 * field is the one whose value is `to`, as Shark names it. Without field bytes (V8) or a
 * match, the first field of the name, most-derived first. */
static const char *declaring_class(const graph *g, node_ix n, const char *name, node_ix to)
{
    class_ix decl = g->node_kind[n] == GRAPH_KIND_INSTANCE ? graph_field_holder(g, n, name, to)
                                                          : GRAPH_NONE;
    if (decl != GRAPH_NONE && decl < g->n_classes)
        return graph_str(g, g->classes[decl].name);
    class_ix c = graph_node_class(g, n);
    for (int d = 0; d < 64 && c != GRAPH_NONE && c < g->n_classes; d++) {
        const graph_class *k = &g->classes[c];
        for (uint32_t f = 0; f < k->n_fields && k->first_field + f < g->n_fields; f++)
            if (!strcmp(graph_str(g, g->fields[k->first_field + f].name), name))
                return graph_str(g, k->name);
        c = k->super;
    }
    return graph_class_name(g, n);
}

char *trace_owner_simple(const char *cls, int strip_array)
{
    const char *s = rules_simple_name(cls);
    char *o = sdup(s);
    if (o && strip_array) {
        size_t l = strlen(o);
        if (l >= 2 && !strcmp(o + l - 2, "[]"))
            o[l - 2] = 0;
    }
    return o;
}

/* Appends to a '\n'-separated label list (realloc'd). */
int trace_add_label(char **labels, const char *s)
{
    if (!*s)
        return 0;
    char *r = *labels && **labels ? joinf(*labels, "\n", s) : sdup(s);
    if (!r)
        return -1;
    free(*labels);
    *labels = r;
    return 0;
}

int trace_class_of_leaking_loader(const graph *g, const rules_set *rs, const leak_set *ls,
                                  node_ix n)
{
    if (n >= g->n_nodes || g->node_kind[n] != GRAPH_KIND_CLASS)
        return 0;
    edge_ix end = g->first_edge[n + 1] < g->n_edges ? g->first_edge[n + 1] : g->n_edges;
    for (edge_ix e = g->first_edge[n]; e < end; e++) {
        node_ix l = g->edge_to[e];
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_INTERNAL || l >= g->n_nodes ||
            strcmp(graph_str(g, graph_edge_name_from(g, n, e)), "<classloader>"))
            continue;
        uint32_t first;
        char why[256];
        return leak_kwrs_of(ls, l, &first) > 0 ||
               (rs && rules_is_leaking_object(rs, l, why, sizeof why));
    }
    return 0;
}

/* Inspector verdicts plus the KeyedWeakReference inspector for node n. */
int trace_inspect(const graph *g, const rules_set *rs, const leak_set *ls, node_ix n,
                  char **leaking, char **not_leaking, char **labels)
{
    rules_verdicts *v = err_calloc(1, sizeof *v);
    if (!v)
        return -1;
    rules_inspect_node(rs, n, v);
    if (trace_class_of_leaking_loader(g, rs, ls, n)) {
        /* replaces "a class is never leaking": true of the classes of loaders that live */
        v->not_leaking[0] = 0;
        size_t l = strlen(v->leaking);
        snprintf(v->leaking + l, sizeof v->leaking - l, "%sits class loader is leaking",
                 l ? " and " : "");
    }
    uint32_t first, k = leak_kwrs_of(ls, n, &first);
    char buf[512];
    char kwr_reason[1024] = "";
    for (uint32_t i = 0; i < k; i++) {
        const leak_kwr *w = &ls->kwrs[first + i];
        if (w->description[0])
            snprintf(buf, sizeof buf, "ObjectWatcher was watching this because %s",
                     w->description);
        else
            snprintf(buf, sizeof buf, "ObjectWatcher was watching this");
        size_t l = strlen(kwr_reason);
        snprintf(kwr_reason + l, sizeof kwr_reason - l, "%s%s", l ? " and " : "", buf);
    }
    int rc = 0;
    /* Shark runs the KeyedWeakReference inspector before the others */
    if (*kwr_reason && v->leaking[0])
        *leaking = joinf(kwr_reason, " and ", v->leaking);
    else
        *leaking = sdup(*kwr_reason ? kwr_reason : v->leaking);
    *not_leaking = sdup(v->not_leaking);
    *labels = sdup("");
    if (!*leaking || !*not_leaking || !*labels)
        rc = -1;
    for (uint32_t i = 0; i < k && rc == 0; i++) {
        const leak_kwr *w = &ls->kwrs[first + i];
        snprintf(buf, sizeof buf, "key = %s", w->key);
        rc |= trace_add_label(labels, buf);
        if (w->watch_ms != LEAK_MS_UNKNOWN) {
            snprintf(buf, sizeof buf, "watchDurationMillis = %lld", (long long)w->watch_ms);
            rc |= trace_add_label(labels, buf);
        }
        if (w->retain_ms != LEAK_MS_UNKNOWN) {
            snprintf(buf, sizeof buf, "retainedDurationMillis = %lld", (long long)w->retain_ms);
            rc |= trace_add_label(labels, buf);
        }
    }
    if (rc == 0 && v->labels[0])
        rc = trace_add_label(labels, v->labels);
    free(v);
    return rc;
}

/* Dominator subtree object counts of the nodes of `want` (sorted, distinct), into cnt (one
 * per entry of want; uint32: a subtree never holds more than N nodes). Only these few nodes
 * need a count, so instead of counting every subtree (two arrays of N) each node is charged to
 * its nearest ancestor-or-self in `want` (one array of N: near[x], the position in want of the
 * nearest proper ancestor of x in want, found by climbing until a known answer and then
 * writing it along the climbed chain, so every node is climbed over once; positions, not
 * nodes, so charging a node costs no search in want), and the counts then pass up the small
 * forest that `want` forms under near[]. O(N + |want| log |want|). Returns 0, or -1 when out
 * of memory.
 * near[] is the one array of N here, and it is allocated while the traces' dominator tree is
 * still whole and the suspects' tree may be at its peak on the other core: its entries take
 * the fewest bytes that hold a position in want plus the two marks (a byte for up to
 * NEAR_MAX(1) positions: the traces show a few dozen nodes), a quarter of 4 bytes a node. */
#define NEAR_UNKNOWN UINT32_MAX
#define NEAR_NONE (UINT32_MAX - 2) /* no ancestor in want */
#define SUB_AHEAD 16 /* nodes between a fetch and its use */
/* Entries of w bytes: all ones is NEAR_UNKNOWN (memset 0xff), all ones - 2 NEAR_NONE, the
 * values below them (NEAR_MAX(w) of them) positions in want. */
#define NEAR_TOP(w) ((uint32_t)((UINT64_C(1) << (8 * (w))) - 1))
#define NEAR_MAX(w) (NEAR_TOP(w) - 2)

uint32_t trace_want_index(const node_ix *want, uint32_t nw, node_ix x)
{
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, nw, want[search_mid] < x, lo);
    return lo < nw && want[lo] == x ? lo : UINT32_MAX;
}

static inline uint32_t near_get(const void *near, unsigned w, node_ix x)
{
    uint32_t v = w == 1   ? ((const uint8_t *)near)[x]
                 : w == 2 ? ((const uint16_t *)near)[x]
                          : ((const uint32_t *)near)[x];
    /* the marks are the top values of each width */
    return v >= NEAR_MAX(w) ? v + (UINT32_MAX - NEAR_TOP(w)) : v;
}

static inline void near_set(void *near, unsigned w, node_ix x, uint32_t r)
{
    uint32_t v = r >= NEAR_MAX(w) ? r - (UINT32_MAX - NEAR_TOP(w)) : r;
    if (w == 1)
        ((uint8_t *)near)[x] = (uint8_t)v;
    else if (w == 2)
        ((uint16_t *)near)[x] = (uint16_t)v;
    else
        ((uint32_t *)near)[x] = v;
}

/* The charging pass of trace_subtree_counts over entries of w bytes (a constant where it is
 * called, so each width gets its own loop). */
static inline __attribute__((always_inline)) void
charge_nodes(const dom_tree *t, const node_ix *want, uint32_t nw, const uint8_t *in,
             void *near, unsigned w, uint32_t *cnt)
{
    uint32_t n = t->n;
    for (uint32_t x = 0; x < n; x++) {
        /* x's idom is anywhere in the tree: the first step up of the node SUB_AHEAD on is
         * fetched now so its misses overlap this one's walk (the order is unchanged) */
        if (n - x > SUB_AHEAD) {
            node_ix a = t->idom[x + SUB_AHEAD];
            if (a < n) {
                __builtin_prefetch((const uint8_t *)near + (size_t)a * w);
                __builtin_prefetch(&in[a / 8]);
                __builtin_prefetch(&t->idom[a]);
            }
        }
        if (t->idom[x] == GRAPH_NONE)
            continue;
        if (near_get(near, w, x) == NEAR_UNKNOWN) {
            node_ix y = t->idom[x];
            while (y < n && !(in[y / 8] >> (y % 8) & 1) && near_get(near, w, y) == NEAR_UNKNOWN)
                y = t->idom[y];
            uint32_t r = y >= n                      ? NEAR_NONE
                         : (in[y / 8] >> (y % 8) & 1) ? trace_want_index(want, nw, y)
                                                      : near_get(near, w, y);
            for (node_ix z = x; z != y; z = t->idom[z])
                near_set(near, w, z, r);
        }
        /* near[x] is final now (each entry is written once): x is charged in this pass */
        uint32_t a = (in[x / 8] >> (x % 8) & 1) ? trace_want_index(want, nw, x)
                                                 : near_get(near, w, x);
        if (a < nw)
            cnt[a]++;
    }
}

int trace_subtree_counts(const dom_tree *t, const node_ix *want, uint32_t nw, uint32_t *cnt)
{
    uint32_t n = t->n;
    unsigned w = nw <= NEAR_MAX(1) ? 1 : nw <= NEAR_MAX(2) ? 2 : 4;
    void *near = err_mallocarray(n ? n : 1, w);
    uint8_t *in = err_calloc(n / 8 + 1, 1);
    uint32_t *pend = err_calloc(nw ? nw : 1, sizeof *pend);
    uint32_t *queue = err_mallocarray(nw ? nw : 1, sizeof *queue);
    if (!near || !in || !pend || !queue) {
        free(near);
        free(in);
        free(pend);
        free(queue);
        return -1;
    }
    for (uint32_t k = 0; k < nw; k++) {
        in[want[k] / 8] |= (uint8_t)(1u << (want[k] % 8));
        cnt[k] = 0;
    }
    memset(near, 0xff, (size_t)n * w); /* NEAR_UNKNOWN */
    if (w == 1)
        charge_nodes(t, want, nw, in, near, 1, cnt);
    else if (w == 2)
        charge_nodes(t, want, nw, in, near, 2, cnt);
    else
        charge_nodes(t, want, nw, in, near, 4, cnt);
    /* pass the counts up the forest of want: children first, by pending-children counts */
    uint32_t qn = 0;
    for (uint32_t k = 0; k < nw; k++)
        if (near_get(near, w, want[k]) < nw)
            pend[near_get(near, w, want[k])]++;
    for (uint32_t k = 0; k < nw; k++)
        if (!pend[k])
            queue[qn++] = k;
    for (uint32_t q = 0; q < qn; q++) {
        uint32_t k = queue[q];
        uint32_t p = near_get(near, w, want[k]);
        if (p >= nw)
            continue;
        cnt[p] += cnt[k];
        if (--pend[p] == 0)
            queue[qn++] = p;
    }
    free(near);
    free(in);
    free(pend);
    free(queue);
    return 0;
}

int trace_cmp_node(const void *a, const void *b)
{
    node_ix x = *(const node_ix *)a, y = *(const node_ix *)b;
    return x < y ? -1 : x > y;
}

int trace_cmp_order(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->via_last != y->via_last)
        return x->via_last < y->via_last ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return (x->leak > y->leak) - (x->leak < y->leak);
}

/* ---- Shark's trace order ----
 * Shark 2.14 records leaking objects as its traversal takes them out of its queues, then
 * de-duplicates their paths in a trie whose children keep insertion order and reads the trie
 * depth first: traces sharing a prefix come together, in the order their first member was
 * found. Groups (first-seen order) and each group's shown trace follow from that order. Here:
 * rank(node) = position, in dequeue order, of the first trace through it; traces sort by the
 * ranks along their paths. A node sits at one depth of one prefix in the path forest, so its
 * rank names its trie node. A Java local's path starts at its frame root here, but in Shark's
 * trie at the thread object (the local is one of the thread's references): such a path is
 * keyed with its thread object first, so a thread's locals come with the thread's other
 * traces (two virtual threads' locals found in the visit-last phase, one of them also a
 * ThreadLocal's owner found earlier). Cost: O(T log T + sum of path lengths * log). */
typedef struct rank_pair {
    node_ix node;
    uint32_t rank;
} rank_pair;

static int cmp_rank_pair(const void *a, const void *b)
{
    const rank_pair *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static _Thread_local const uint32_t *so_keys;     /* ranks along each trace's path */
static _Thread_local const uint32_t *so_first;    /* start of trace i's ranks */

static int cmp_shark(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const uint32_t *ka = so_keys + so_first[a], *kb = so_keys + so_first[b];
    uint32_t na = so_first[a + 1] - so_first[a], nb = so_first[b + 1] - so_first[b];
    for (uint32_t i = 0; i < na && i < nb; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    if (na != nb)
        return na < nb ? -1 : 1;
    return (a > b) - (a < b); /* same prefix as far as compared: dequeue order */
}


lr_status trace_shark_order(const graph *g, const paths_result *pr, const leak_set *ls,
                            order_key *ord, uint32_t n, lr_error *err)
{
    if (n < 2 || !pr->order)
        return LR_OK;
    lr_status st = LR_OK;
    uint32_t *pos = err_mallocarray(n, sizeof *pos), *first = NULL, *keys = NULL, *idx = NULL;
    uint32_t *first_of = NULL;
    node_ix *nodes = NULL;
    order_key *tmp = NULL;
    if (!pos)
        goto nomem;
    /* dequeue position of each found leaking object (binary search in a sorted copy) */
    rank_pair *dq = err_mallocarray(pr->n_order ? pr->n_order : 1, sizeof *dq);
    if (!dq)
        goto nomem;
    for (uint32_t i = 0; i < pr->n_order; i++)
        dq[i] = (rank_pair){pr->order[i], i};
    qsort(dq, pr->n_order, sizeof *dq, cmp_rank_pair);
    for (uint32_t t = 0; t < n; t++) {
        node_ix x = ls->v[ord[t].leak].node;
        uint32_t lo;
        SEARCH_LOWER_BOUND(uint32_t, 0, pr->n_order, dq[search_mid].node < x, lo);
        pos[t] = lo < pr->n_order && dq[lo].node == x ? dq[lo].rank : UINT32_MAX;
    }
    free(dq);
    /* paths, in dequeue order */
    idx = err_mallocarray(n, sizeof *idx);
    first = err_mallocarray((size_t)n + 1, sizeof *first);
    if (!idx || !first)
        goto nomem;
    for (uint32_t t = 0; t < n; t++)
        idx[t] = t;
    so_keys = pos; /* sort idx by dequeue position: a one-element key per trace */
    for (uint32_t t = 0; t <= n; t++)
        first[t] = t;
    so_first = first;
    qsort(idx, n, sizeof *idx, cmp_shark);
    size_t total = 0;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t d = ord[idx[t]].depth;
        total += (d < TRACE_ORDER_DEPTH ? d : TRACE_ORDER_DEPTH) + 2; /* + its thread */
    }
    nodes = err_mallocarray(total ? total : 1, sizeof *nodes);
    keys = err_mallocarray(total ? total : 1, sizeof *keys);
    first_of = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *first_of);
    if (!nodes || !keys || !first_of)
        goto nomem;
    memset(first_of, 0xff, (size_t)g->n_nodes * sizeof *first_of);
    size_t at = 0;
    for (uint32_t t = 0; t < n; t++) {
        first[t] = (uint32_t)at;
        /* walked from the deepest node compared, not from the leaking object: a path's
         * length is walked once per trace only up to TRACE_ORDER_DEPTH */
        uint32_t len = paths_get(pr, ord[idx[t]].top, nodes + at + 1, NULL,
                                 TRACE_ORDER_DEPTH + 1);
        if (len > TRACE_ORDER_DEPTH + 1)
            len = TRACE_ORDER_DEPTH + 1;
        uint32_t root = len ? paths_root_of(pr, nodes[at + 1]) : GRAPH_NONE;
        node_ix th = GRAPH_NONE;
        if (root < g->n_roots && g->roots[root].kind == GRAPH_ROOT_JAVA_FRAME)
            th = rules_thread_of_serial(g, g->roots[root].thread);
        if (th != GRAPH_NONE && th != nodes[at + 1]) {
            nodes[at] = th;
            len++;
        } else {
            memmove(nodes + at, nodes + at + 1, len * sizeof *nodes);
        }
        /* each node's key: the first trace (in dequeue order) whose path holds it. A table
         * by node, not a sort of (node, trace) pairs: a queue of 20,000 leaking tasks gives
         * 20 M such pairs, and sorting them took most of the analysis */
        for (uint32_t i = 0; i < len; i++) {
            node_ix x = nodes[at + i];
            if (x < g->n_nodes && first_of[x] == UINT32_MAX)
                first_of[x] = t;
            keys[at + i] = x < g->n_nodes ? first_of[x] : t;
        }
        at += len;
    }
    first[n] = (uint32_t)at;
    /* the trie order over the dequeue-ordered traces */
    uint32_t *perm = pos; /* reused: positions are no longer needed */
    for (uint32_t t = 0; t < n; t++)
        perm[t] = t;
    so_keys = keys;
    so_first = first;
    qsort(perm, n, sizeof *perm, cmp_shark);
    tmp = err_mallocarray(n, sizeof *tmp);
    if (!tmp)
        goto nomem;
    for (uint32_t t = 0; t < n; t++)
        tmp[t] = ord[idx[perm[t]]];
    memcpy(ord, tmp, n * sizeof *ord);
    goto done;
nomem:
    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory ordering leak traces");
done:
    free(pos);
    free(first);
    free(keys);
    free(idx);
    free(nodes);
    free(first_of);
    free(tmp);
    return st;
}

/* Numbered slots: Shark names an array entry [x] in a signature, whatever its index, so that
 * one array holding a thousand leaking objects is one leak. V8 numbers more than its
 * elements: a hidden edge (a context's or a code object's slot) and an internal edge named by
 * a number (a FixedArray's slot, such as the backing store of a Map or a Set, whose entries
 * move as the table grows) are slots too. Digits only, up to TRACE_SLOT_DIGITS of them, so a
 * name like "<super>" or "2nd" stays a name. */
#define TRACE_SLOT_DIGITS 9

int trace_ref_slot(const graph *g, unsigned k, uint32_t name, uint32_t *ix)
{
    if (GRAPH_EDGE_NAME_IS_INDEX(k)) {
        *ix = name;
        return 1;
    }
    if (k != GRAPH_EDGE_INTERNAL)
        return 0;
    const char *s = graph_str(g, name);
    uint32_t v = 0, d = 0;
    for (; s[d]; d++) {
        if (d == TRACE_SLOT_DIGITS || s[d] < '0' || s[d] > '9')
            return 0;
        v = v * 10 + (uint32_t)(s[d] - '0');
    }
    if (!d)
        return 0;
    *ix = v;
    return 1;
}

const char *trace_ref_text(const graph *g, unsigned k, uint32_t name)
{
    const char *s = graph_str(g, name);
    uint64_t table;
    if (k == GRAPH_EDGE_INTERNAL && s[0] >= '0' && s[0] <= '9' &&
        devtools_weakmap_edge(s, &table))
        return TRACE_WEAKMAP_REF;
    return s;
}

/* The reference leaving el: an edge of kind k named `name` in the view the paths walked. */
lr_status trace_build_elem_ref(const graph *g, trace_elem *el, uint8_t k8, uint32_t name,
                               node_ix to)
{
    char buf[256];
    unsigned k = GRAPH_EDGE_KIND(k8);
    node_ix n = el->node;
    uint32_t slot;
    if (k != GRAPH_EDGE_ELEMENT && trace_ref_slot(g, k, name, &slot)) {
        k = GRAPH_EDGE_ELEMENT;
        name = slot;
    }
    switch (k) {
    case GRAPH_EDGE_STATIC:
        el->ref_type = TRACE_REF_STATIC;
        el->ref_name = sdup(graph_str(g, name));
        el->owner = trace_owner_simple(el->class_name, 0);
        break;
    case GRAPH_EDGE_ELEMENT:
        el->ref_type = TRACE_REF_ARRAY;
        snprintf(buf, sizeof buf, "%u", name);
        el->ref_name = sdup(buf);
        el->owner = trace_owner_simple(el->class_name, 1);
        break;
    case GRAPH_EDGE_LOCAL:
        el->ref_type = TRACE_REF_LOCAL;
        el->ref_name = sdup("");
        el->owner = trace_owner_simple(el->class_name, 0);
        break;
    case GRAPH_EDGE_FIELD:
        el->ref_type = TRACE_REF_INSTANCE;
        el->ref_name = sdup(graph_str(g, name));
        el->owner =
            el->ref_name ? trace_owner_simple(declaring_class(g, n, el->ref_name, to), 0) : NULL;
        break;
    default:
        el->ref_type = TRACE_REF_INSTANCE;
        el->ref_name = sdup(trace_ref_text(g, k, name));
        el->owner = trace_owner_simple(el->class_name, 0);
        break;
    }
    return el->ref_name && el->owner ? LR_OK : LR_ERR_NOMEM;
}
