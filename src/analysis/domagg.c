/* SPDX-License-Identifier: Apache-2.0 */
/* domagg.c: bounded views of the dominator tree (analysis layer), prefix domagg_. Input: an
 * idom array and retained sizes (dominators.c or devtools.c); output: a few thousand view
 * nodes, parents before children. Both views expand best-first: a max-heap of expandable view
 * nodes keyed by retained bytes, so the budget goes to the subtrees that hold the memory.
 * Selecting k of a node's c children costs O(c log k) with a min-heap; the classes view
 * groups children through one slot per class (reset after each expansion), so the whole
 * build is O(N log k) and never recurses. */
#include "analysis/domagg.h"

#include <stdlib.h>
#include <string.h>

void domagg_kids_free(domagg_kids *k)
{
    if (!k)
        return;
    free(k->first);
    free(k->kids);
    memset(k, 0, sizeof *k);
}

void domagg_view_free(domagg_view *v)
{
    if (!v)
        return;
    free(v->v);
    memset(v, 0, sizeof *v);
}

/* Slot of x's parent in the children lists, or UINT32_MAX when x is outside the tree. */
static uint32_t parent_slot(const domagg_input *in, uint32_t n, node_ix x)
{
    node_ix d = in->idom[x];
    if (d == in->top_mark && d != x)
        return n;
    if (d == GRAPH_NONE || d == x || d >= n)
        return UINT32_MAX;
    return d;
}

lr_status domagg_kids_build(const graph *g, const domagg_input *in, domagg_kids *k,
                            lr_error *err)
{
    uint32_t n = g->n_nodes;
    memset(k, 0, sizeof *k);
    k->n = n;
    k->first = calloc((size_t)n + 2, sizeof *k->first);
    if (!k->first)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (dominator children)", g->path);
    uint32_t total = 0;
    for (node_ix x = 0; x < n; x++) {
        uint32_t p = parent_slot(in, n, x);
        if (p != UINT32_MAX) {
            k->first[p + 1]++;
            total++;
        }
    }
    for (uint32_t i = 0; i <= n; i++)
        k->first[i + 1] += k->first[i];
    k->kids = malloc((size_t)(total ? total : 1) * sizeof *k->kids);
    uint32_t *cur = malloc(((size_t)n + 1) * sizeof *cur);
    if (!k->kids || !cur) {
        free(cur);
        domagg_kids_free(k);
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (dominator children)", g->path);
    }
    memcpy(cur, k->first, ((size_t)n + 1) * sizeof *cur);
    for (node_ix x = 0; x < n; x++) {
        uint32_t p = parent_slot(in, n, x);
        if (p != UINT32_MAX)
            k->kids[cur[p]++] = x;
    }
    free(cur);
    return LR_OK;
}

/* ---- a small binary heap of (key, value), min or max by `max` ---- */

typedef struct kheap {
    uint64_t *key;
    uint32_t *val;
    uint32_t n, cap;
    int max;
} kheap;

static int kh_before(const kheap *h, uint32_t a, uint32_t b)
{
    if (h->key[a] != h->key[b])
        return h->max ? h->key[a] > h->key[b] : h->key[a] < h->key[b];
    /* ties: larger value first out of a min-heap keeps smaller indexes (determinism) */
    return h->max ? h->val[a] < h->val[b] : h->val[a] > h->val[b];
}

static void kh_swap(kheap *h, uint32_t a, uint32_t b)
{
    uint64_t k = h->key[a];
    uint32_t v = h->val[a];
    h->key[a] = h->key[b], h->val[a] = h->val[b];
    h->key[b] = k, h->val[b] = v;
}

static void kh_down(kheap *h, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && kh_before(h, l, m))
            m = l;
        if (r < h->n && kh_before(h, r, m))
            m = r;
        if (m == i)
            return;
        kh_swap(h, i, m);
        i = m;
    }
}

static int kh_push(kheap *h, uint64_t key, uint32_t val)
{
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 64;
        uint64_t *k = realloc(h->key, (size_t)cap * sizeof *k);
        if (!k)
            return -1;
        h->key = k;
        uint32_t *v = realloc(h->val, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        h->val = v, h->cap = cap;
    }
    uint32_t i = h->n++;
    h->key[i] = key, h->val[i] = val;
    while (i > 0 && kh_before(h, i, (i - 1) / 2)) {
        kh_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    return 0;
}

static void kh_pop(kheap *h)
{
    h->n--;
    if (h->n) {
        h->key[0] = h->key[h->n], h->val[0] = h->val[h->n];
        kh_down(h, 0);
    }
}

static void kh_free(kheap *h) { free(h->key), free(h->val); }

/* Offers (key, val) to a min-heap holding the k largest; returns -1 when out of memory. */
static int kh_offer(kheap *h, uint32_t k, uint64_t key, uint32_t val)
{
    if (h->n < k)
        return kh_push(h, key, val);
    if (key > h->key[0] || (key == h->key[0] && val < h->val[0])) {
        h->key[0] = key, h->val[0] = val;
        kh_down(h, 0);
    }
    return 0;
}

/* Drains a min-heap into out[] largest first; returns the count. */
static uint32_t kh_drain_desc(kheap *h, uint64_t *keys, uint32_t *vals)
{
    uint32_t n = h->n;
    for (uint32_t i = n; i-- > 0;) {
        keys[i] = h->key[0], vals[i] = h->val[0];
        kh_pop(h);
    }
    return n;
}

uint32_t domagg_top(const graph *g, const uint64_t *retained, uint32_t n, node_ix *out)
{
    kheap h = {0};
    for (node_ix x = 0; x < g->n_nodes && n; x++)
        if (retained[x] && kh_offer(&h, n, retained[x], x) < 0)
            break;
    uint64_t *keys = malloc((size_t)(h.n ? h.n : 1) * sizeof *keys);
    uint32_t got = keys ? kh_drain_desc(&h, keys, out) : 0;
    free(keys);
    kh_free(&h);
    return got;
}

/* ---- the views ---- */

typedef struct vbuild {
    domagg_view *out;
    uint32_t cap;
    uint16_t *depth;   /* per view node */
} vbuild;

static int v_add(vbuild *b, uint32_t parent, node_ix node, class_ix cls, uint32_t count,
                 uint64_t retained, int other)
{
    domagg_view *v = b->out;
    if (v->n == b->cap)
        return -1;
    domagg_node *d = &v->v[v->n];
    d->parent = parent, d->node = node, d->cls = cls, d->count = count;
    d->retained = retained, d->other = (uint8_t)other, d->expanded = 0;
    b->depth[v->n] = parent == DOMAGG_NO_PARENT ? 0 : (uint16_t)(b->depth[parent] + 1);
    return (int)v->n++;
}

static lr_status v_init(vbuild *b, const graph *g, const domagg_opts *o, domagg_view *out,
                        lr_error *err)
{
    memset(out, 0, sizeof *out);
    b->out = out;
    b->cap = o->max_nodes < 2 ? 2 : o->max_nodes;
    out->v = calloc(b->cap, sizeof *out->v);
    b->depth = calloc(b->cap, sizeof *b->depth);
    if (!out->v || !b->depth) {
        free(b->depth);
        domagg_view_free(out);
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (tree view)", g->path);
    }
    return LR_OK;
}

lr_status domagg_objects(const graph *g, const domagg_input *in, const domagg_kids *k,
                         const domagg_opts *o, domagg_view *out, lr_error *err)
{
    vbuild b;
    lr_status st = v_init(&b, g, o, out, err);
    if (st != LR_OK)
        return st;
    out->total = in->total;
    uint32_t kk = o->k ? o->k : 1;
    uint64_t min_bytes = (uint64_t)(o->min_share * (double)in->total);
    kheap frontier = {.max = 1}, sel = {0};
    uint64_t *keys = malloc((size_t)kk * sizeof *keys);
    uint32_t *vals = malloc((size_t)kk * sizeof *vals);
    uint32_t n = k->n;
    if (!keys || !vals)
        goto nomem;
    v_add(&b, DOMAGG_NO_PARENT, GRAPH_NONE, GRAPH_NONE, k->first[n + 1] - k->first[n],
          in->total, 0);
    if (kh_push(&frontier, in->total, 0) < 0)
        goto nomem;
    while (frontier.n && out->n + kk + 1 <= b.cap) {
        uint32_t vi = frontier.val[0];
        kh_pop(&frontier);
        node_ix slot = vi == 0 ? n : out->v[vi].node;
        uint64_t rest = 0;
        uint32_t n_rest = 0;
        for (uint32_t e = k->first[slot]; e < k->first[slot + 1]; e++) {
            node_ix c = k->kids[e];
            uint64_t r = in->retained[c];
            if (r < min_bytes || r == 0) {
                rest += r, n_rest++;
                continue;
            }
            if (sel.n == kk && (r < sel.key[0] || (r == sel.key[0] && c > sel.val[0]))) {
                rest += r, n_rest++;
                continue;
            }
            if (sel.n == kk) { /* the smallest kept one moves to the rest */
                rest += sel.key[0], n_rest++;
            }
            if (kh_offer(&sel, kk, r, c) < 0)
                goto nomem;
        }
        uint32_t m = kh_drain_desc(&sel, keys, vals);
        out->v[vi].expanded = 1;
        for (uint32_t i = 0; i < m; i++) {
            int ci = v_add(&b, vi, vals[i], GRAPH_NONE, 1, keys[i], 0);
            node_ix c = vals[i];
            if (ci >= 0 && b.depth[ci] < o->max_depth && k->first[c + 1] > k->first[c] &&
                kh_push(&frontier, keys[i], (uint32_t)ci) < 0)
                goto nomem;
        }
        if (n_rest)
            v_add(&b, vi, GRAPH_NONE, GRAPH_NONE, n_rest, rest, 1);
    }
    /* Nodes left in the frontier keep expanded = 0: the page says their subtree is cut. */
    free(keys), free(vals), free(b.depth);
    kh_free(&frontier), kh_free(&sel);
    return LR_OK;
nomem:
    free(keys), free(vals), free(b.depth);
    kh_free(&frontier), kh_free(&sel);
    domagg_view_free(out);
    return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (tree view)", g->path);
}

/* Grouping key of node x: its class, or one pseudo-class per kind for class-less nodes. */
static uint32_t class_key(const graph *g, node_ix x)
{
    class_ix c = graph_node_class(g, x);
    return c < g->n_classes ? c : g->n_classes + (g->node_kind[x] % GRAPH_KIND_COUNT);
}

typedef struct group_acc {
    uint32_t key;
    uint32_t count;
    uint64_t retained;
    node_ix sample;   /* biggest member */
    uint32_t fill;    /* members filled so far (second pass) */
    uint32_t view;    /* view index when kept, UINT32_MAX when folded */
} group_acc;

lr_status domagg_classes(const graph *g, const domagg_input *in, const domagg_kids *k,
                         const domagg_opts *o, domagg_view *out, lr_error *err)
{
    vbuild b;
    lr_status st = v_init(&b, g, o, out, err);
    if (st != LR_OK)
        return st;
    out->total = in->total;
    uint32_t kk = o->k ? o->k : 1, n = k->n;
    uint32_t n_keys = g->n_classes + GRAPH_KIND_COUNT;
    uint64_t min_bytes = (uint64_t)(o->min_share * (double)in->total);
    /* Members of every kept group, back to back: each object is in at most one group. */
    uint32_t *mfirst = calloc(b.cap, sizeof *mfirst), *mcount = calloc(b.cap, sizeof *mcount);
    uint32_t *slot_of = malloc((size_t)n_keys * sizeof *slot_of);
    node_ix *pool = NULL;
    uint32_t n_pool = 0, cap_pool = 0;
    group_acc *acc = NULL;
    uint32_t n_acc = 0, cap_acc = 0;
    kheap frontier = {.max = 1}, sel = {0};
    uint64_t *keys = malloc((size_t)kk * sizeof *keys);
    uint32_t *vals = malloc((size_t)kk * sizeof *vals);
    if (!mfirst || !mcount || !slot_of || !keys || !vals)
        goto nomem;
    memset(slot_of, 0xff, (size_t)n_keys * sizeof *slot_of);
    v_add(&b, DOMAGG_NO_PARENT, GRAPH_NONE, GRAPH_NONE, k->first[n + 1] - k->first[n],
          in->total, 0);
    if (kh_push(&frontier, in->total, 0) < 0)
        goto nomem;
    while (frontier.n && out->n + kk + 1 <= b.cap) {
        uint32_t vi = frontier.val[0];
        kh_pop(&frontier);
        /* The root's only member is the first-level slot n. */
        node_ix root_member = n;
        const node_ix *mem = vi == 0 ? &root_member : pool + mfirst[vi];
        uint32_t n_mem = vi == 0 ? 1 : mcount[vi];
        n_acc = 0;
        for (uint32_t i = 0; i < n_mem; i++) {
            node_ix m = mem[i];
            for (uint32_t e = k->first[m]; e < k->first[m + 1]; e++) {
                node_ix c = k->kids[e];
                uint32_t key = class_key(g, c);
                if (slot_of[key] == UINT32_MAX) {
                    if (n_acc == cap_acc) {
                        uint32_t cap = cap_acc ? cap_acc * 2 : 64;
                        group_acc *a = realloc(acc, (size_t)cap * sizeof *a);
                        if (!a)
                            goto nomem;
                        acc = a, cap_acc = cap;
                    }
                    slot_of[key] = n_acc;
                    acc[n_acc++] = (group_acc){key, 0, 0, c, 0, UINT32_MAX};
                }
                group_acc *a = &acc[slot_of[key]];
                a->count++;
                a->retained += in->retained[c];
                if (in->retained[c] > in->retained[a->sample])
                    a->sample = c;
            }
        }
        uint64_t rest = 0;
        uint32_t n_rest = 0;
        for (uint32_t i = 0; i < n_acc; i++) {
            slot_of[acc[i].key] = UINT32_MAX;
            if (acc[i].retained < min_bytes || acc[i].retained == 0) {
                rest += acc[i].retained, n_rest += acc[i].count;
                continue;
            }
            if (sel.n == kk) {
                uint32_t low = sel.val[0];
                if (acc[i].retained <= sel.key[0]) {
                    rest += acc[i].retained, n_rest += acc[i].count;
                    continue;
                }
                rest += acc[low].retained, n_rest += acc[low].count;
            }
            if (kh_offer(&sel, kk, acc[i].retained, i) < 0)
                goto nomem;
        }
        uint32_t m = kh_drain_desc(&sel, keys, vals);
        out->v[vi].expanded = 1;
        uint32_t need = 0;
        for (uint32_t i = 0; i < m; i++)
            need += acc[vals[i]].count;
        if (n_pool + need > cap_pool) {
            uint32_t cap = cap_pool ? cap_pool : 1024;
            while (cap < n_pool + need)
                cap *= 2;
            node_ix *p = realloc(pool, (size_t)cap * sizeof *p);
            if (!p)
                goto nomem;
            pool = p, cap_pool = cap;
            mem = vi == 0 ? &root_member : pool + mfirst[vi];
        }
        for (uint32_t i = 0; i < m; i++) {
            group_acc *a = &acc[vals[i]];
            class_ix cls = a->key < g->n_classes ? a->key : GRAPH_NONE;
            int ci = v_add(&b, vi, a->sample, cls, a->count, a->retained, 0);
            if (ci < 0)
                continue;
            a->view = (uint32_t)ci;
            mfirst[ci] = n_pool, mcount[ci] = a->count;
            n_pool += a->count;
            slot_of[a->key] = vals[i];
        }
        /* Second pass: place each kept child in its group's range. */
        for (uint32_t i = 0; i < n_mem; i++) {
            node_ix mm = mem[i];
            for (uint32_t e = k->first[mm]; e < k->first[mm + 1]; e++) {
                node_ix c = k->kids[e];
                uint32_t s = slot_of[class_key(g, c)];
                if (s == UINT32_MAX || acc[s].view == UINT32_MAX)
                    continue;
                pool[mfirst[acc[s].view] + acc[s].fill++] = c;
            }
        }
        for (uint32_t i = 0; i < m; i++) {
            group_acc *a = &acc[vals[i]];
            slot_of[a->key] = UINT32_MAX;
            if (a->view == UINT32_MAX)
                continue;
            int has_kids = 0;
            for (uint32_t j = 0; j < mcount[a->view] && !has_kids; j++) {
                node_ix c = pool[mfirst[a->view] + j];
                has_kids = k->first[c + 1] > k->first[c];
            }
            if (has_kids && b.depth[a->view] < o->max_depth &&
                kh_push(&frontier, a->retained, a->view) < 0)
                goto nomem;
        }
        if (n_rest)
            v_add(&b, vi, GRAPH_NONE, GRAPH_NONE, n_rest, rest, 1);
    }
    st = LR_OK;
    goto done;
nomem:
    domagg_view_free(out);
    st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory (class tree view)", g->path);
done:
    free(mfirst), free(mcount), free(slot_of), free(pool), free(acc);
    free(keys), free(vals), free(b.depth);
    kh_free(&frontier), kh_free(&sel);
    return st;
}
