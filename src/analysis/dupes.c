/* SPDX-License-Identifier: Apache-2.0 */
/* dupes.c: duplicate primitive arrays, bitmaps and strings (analysis layer), prefix dupes_.
 * Each section builds a candidate list (member node, content bytes in the mapped input),
 * sorts it by (element type, byte length, 64-bit content hash, member), and splits each run
 * of equal keys into clusters by memcmp against the cluster's first member: hashing only
 * orders the work, equality is always decided on the bytes. At most DUPES_MAX_REPS distinct
 * contents are told apart inside one hash run (a deliberate collision flood cannot make the
 * compare quadratic); anything beyond is left ungrouped. Memory: 32 bytes per candidate. */
#include "analysis/dupes.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#define DUPES_MAX_REPS 64 /* distinct contents compared within one (type, length, hash) run */
/* Arrays below --min-bytes each still make a group when one content, repeated, wastes this
 * much: 787,928 copies of one zeroed byte[200] filled an OutOfMemoryError's heap (170 MB)
 * while the 1,024-byte floor listed two groups of 16 kB. */
#define DUPES_SMALL_WASTE ((uint64_t)1 << 20)
#define DUPES_SMALL_MIN 8           /* smaller arrays are never compared */
#define DUPES_SMALL_MAX (1u << 20)  /* nor are arrays this big by the small arrays' pass */
#define DUMPDATA_KEY 0x40 /* element-type bit of bitmap candidates read from dumpData */

typedef struct cand {
    uint64_t h;      /* content hash */
    uint64_t off;    /* content offset in g->data */
    uint64_t nbytes; /* content bytes */
    node_ix member;  /* array, Bitmap or String */
    uint32_t nelem;  /* elements */
    uint8_t et;      /* element type */
} cand;

typedef struct cvec {
    cand *v;
    uint64_t n, cap;
} cvec;

static int cvec_push(cvec *c, cand x)
{
    if (c->n == c->cap) {
        uint64_t nc = c->cap ? c->cap * 2 : 1024;
        cand *p = err_reallocarray(c->v, nc, sizeof *p);
        if (!p)
            return -1;
        c->v = p;
        c->cap = nc;
    }
    c->v[c->n++] = x;
    return 0;
}

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->et != y->et)
        return x->et < y->et ? -1 : 1;
    if (x->nbytes != y->nbytes)
        return x->nbytes < y->nbytes ? -1 : 1;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->member < y->member ? -1 : x->member > y->member;
}

/* Content of primitive array a: 1 and its offset, byte count and element type, or 0 if it
 * has no content inside the input. */
static int array_bytes(const graph *g, node_ix a, uint64_t *off, uint64_t *nbytes, uint8_t *et)
{
    if (a >= g->n_nodes || g->node_kind[a] != GRAPH_KIND_PRIM_ARRAY ||
        graph_node_off(g, a) == UINT64_MAX || graph_node_class(g, a) == GRAPH_NONE)
        return 0;
    uint8_t t = g->classes[graph_node_class(g, a)].elem_type;
    unsigned es = graph_ftype_size(g, t);
    uint64_t nb = (uint64_t)graph_node_len(g, a) * es;
    if (!es || graph_node_off(g, a) > g->data_len || nb > g->data_len - graph_node_off(g, a))
        return 0;
    *off = graph_node_off(g, a);
    *nbytes = nb;
    *et = t;
    return 1;
}

/* Big-endian unsigned value of n bytes (HPROF stores array contents big-endian). */
static uint64_t be_uint(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* An int field as a non-negative count (0 when absent or negative). */
static uint32_t int_field(const graph *g, node_ix n, const char *name)
{
    graph_value v;
    if (!graph_field_find(g, n, name, &v) || v.type != GRAPH_FT_INT || (int32_t)v.raw < 0)
        return 0;
    return (uint32_t)v.raw;
}

/* Bitmap.dumpData of bitmap class c or a superclass, or GRAPH_NONE. */
static node_ix dump_data_of(const graph *g, class_ix c)
{
    for (uint32_t depth = 0; c < g->n_classes && depth < 64; depth++) {
        graph_value v;
        if (graph_static_find(g, c, "dumpData", &v) && v.type == GRAPH_FT_OBJECT &&
            v.ref < g->n_nodes)
            return g->node_kind[v.ref] == GRAPH_KIND_INSTANCE ? v.ref : GRAPH_NONE;
        c = g->classes[c].super;
    }
    return GRAPH_NONE;
}

/* Element i of object array a, or GRAPH_NONE (null, dangling or out of range). Element
 * edges are written in index order, so the scan stops at the first larger index. */
static node_ix obj_element(const graph *g, node_ix a, uint32_t i)
{
    if (a >= g->n_nodes || g->node_kind[a] != GRAPH_KIND_OBJ_ARRAY || !g->first_edge)
        return GRAPH_NONE;
    for (edge_ix e = g->first_edge[a]; e < g->first_edge[a + 1]; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_ELEMENT)
            continue;
        if (graph_edge_name_from(g, a, e) == i)
            return g->edge_to[e];
        if (graph_edge_name_from(g, a, e) > i)
            break;
    }
    return GRAPH_NONE;
}

int dupes_bitmap_pixels(const graph *g, node_ix bm, dupes_pixels *px)
{
    memset(px, 0, sizeof *px);
    px->array = GRAPH_NONE;
    px->format = DUPES_FMT_RAW;
    if (bm >= g->n_nodes || g->node_kind[bm] != GRAPH_KIND_INSTANCE ||
        graph_node_class(g, bm) >= g->n_classes ||
        !graph_class_is_named(g, graph_node_class(g, bm), "android.graphics.Bitmap"))
        return 0;
    px->width = int_field(g, bm, "mWidth");
    px->height = int_field(g, bm, "mHeight");
    uint8_t et;
    graph_value buf, ptr;
    if (graph_field_find(g, bm, "mBuffer", &buf) && buf.type == GRAPH_FT_OBJECT &&
        buf.ref != GRAPH_NONE && array_bytes(g, buf.ref, &px->off, &px->len, &et)) {
        px->source = DUPES_PIX_BUFFER;
        px->array = buf.ref;
        return 1;
    }
    /* Android 8+: the pixels are native; a dump taken with bitmap data carries a copy per
     * native bitmap in the static dumpData, keyed by the native pointer. */
    if (!graph_field_find(g, bm, "mNativePtr", &ptr) || ptr.type != GRAPH_FT_LONG)
        return 1;
    node_ix dd = dump_data_of(g, graph_node_class(g, bm));
    if (dd == GRAPH_NONE)
        return 1;
    graph_value nat, bufs, fmt;
    uint64_t noff, nlen;
    if (!graph_field_find(g, dd, "natives", &nat) || nat.type != GRAPH_FT_OBJECT ||
        !graph_field_find(g, dd, "buffers", &bufs) || bufs.type != GRAPH_FT_OBJECT ||
        !array_bytes(g, nat.ref, &noff, &nlen, &et) || et != GRAPH_FT_LONG)
        return 1;
    uint64_t count = int_field(g, dd, "count");
    if (count > nlen / 8)
        count = nlen / 8;
    for (uint64_t i = 0; i < count; i++) {
        if (be_uint(g->data + noff + 8 * i, 8) != ptr.raw)
            continue;
        node_ix b = obj_element(g, bufs.ref, (uint32_t)i);
        if (b == GRAPH_NONE || !array_bytes(g, b, &px->off, &px->len, &et))
            return 1;
        px->source = DUPES_PIX_DUMPDATA;
        px->array = b;
        px->format = graph_field_find(g, dd, "format", &fmt) && fmt.type == GRAPH_FT_INT
                         ? (int32_t)fmt.raw
                         : DUPES_FMT_PNG;
        return 1;
    }
    return 1;
}

typedef struct gvec {
    dupes_group *v;
    uint32_t n, cap;
} gvec;

typedef struct state {
    const graph *g;
    node_ix *members;
    uint32_t n_members, cap_members;
} state;

static int push_member(state *s, node_ix m)
{
    if (s->n_members == s->cap_members) {
        uint32_t nc = s->cap_members ? s->cap_members * 2 : 1024;
        node_ix *p = err_reallocarray(s->members, nc, sizeof *p);
        if (!p)
            return -1;
        s->members = p;
        s->cap_members = nc;
    }
    s->members[s->n_members++] = m;
    return 0;
}

static int push_group(gvec *v, dupes_group x)
{
    if (v->n == v->cap) {
        uint32_t nc = v->cap ? v->cap * 2 : 64;
        dupes_group *p = err_reallocarray(v->v, nc, sizeof *p);
        if (!p)
            return -1;
        v->v = p;
        v->cap = nc;
    }
    v->v[v->n++] = x;
    return 0;
}

/* Bytes one copy of a member costs. kind: 0 arrays, 1 bitmaps (the buffer), 2 strings. */
typedef uint64_t (*copy_bytes_fn)(const graph *g, node_ix member);

static uint64_t string_copy_bytes(const graph *g, node_ix m);
static uint64_t string_group_waste(const graph *g, const node_ix *members, uint32_t n);

/* Drops the candidates whose key (element type, bytes, hash) no other candidate has: they
 * join no group, and most of a heap's arrays and strings are such (on the 1 GB benchmark
 * dump sorting them all was most of the grouping). Two bits per slot of a table indexed by a
 * mix of the key count 0, 1, 2+; slots shared by different keys only keep candidates that
 * then form runs of one, which group() skips, so the groups are the same. Keeps the order
 * of the rest; without memory for the table, keeps all. */
static void drop_singles(cvec *c)
{
    uint64_t slots = 64;
    while (slots < 2 * c->n)
        slots *= 2;
    uint64_t *t = err_calloc(slots / 32, sizeof *t);
    if (!t)
        return;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t k = 0;
        for (uint64_t i = 0; i < c->n; i++) {
            const cand *x = &c->v[i];
            uint64_t h = (x->h ^ x->nbytes * 0x9E3779B97F4A7C15u ^ (uint64_t)x->et << 56) *
                         0xD6E8FEB86659FD93u;
            h = (h ^ h >> 32) & (slots - 1);
            uint64_t *w = &t[h / 32];
            unsigned sh = (unsigned)(h % 32) * 2, v = (unsigned)(*w >> sh) & 3;
            if (pass == 0) {
                if (v < 2)
                    *w += (uint64_t)1 << sh;
            } else if (v >= 2) {
                c->v[k++] = *x;
            }
        }
        if (pass == 1)
            c->n = k;
    }
    free(t);
}

/* Sorts cands and appends every cluster of >= 2 identical contents that wastes bytes to out. */
static lr_status group(state *s, cvec *c, copy_bytes_fn bytes_of, uint64_t small_below,
                       gvec *out, uint64_t *wasted, lr_error *err)
{
    const graph *g = s->g;
    if (c->n < 2)
        return LR_OK;
    drop_singles(c);
    qsort(c->v, c->n, sizeof *c->v, cand_cmp);
    uint8_t *cl = err_malloc(c->n); /* cluster number of each candidate in the current run */
    if (!cl)
        goto nomem;
    uint64_t i = 0;
    while (i < c->n) {
        uint64_t j = i + 1;
        while (j < c->n && c->v[j].et == c->v[i].et && c->v[j].nbytes == c->v[i].nbytes &&
               c->v[j].h == c->v[i].h)
            j++;
        if (j - i >= 2) {
            uint64_t reps[DUPES_MAX_REPS];
            uint32_t cnt[DUPES_MAX_REPS];
            int nr = 0;
            for (uint64_t k = i; k < j; k++) {
                int r = 0;
                for (; r < nr; r++)
                    if (memcmp(g->data + c->v[reps[r]].off, g->data + c->v[k].off,
                               c->v[k].nbytes) == 0)
                        break;
                if (r == nr) {
                    if (nr == DUPES_MAX_REPS) {
                        cl[k - i] = 0xff;
                        continue;
                    }
                    reps[nr] = k;
                    cnt[nr++] = 0;
                }
                cnt[r]++;
                cl[k - i] = (uint8_t)r;
            }
            for (int r = 0; r < nr; r++) {
                if (cnt[r] < 2)
                    continue;
                const cand *rc = &c->v[reps[r]];
                dupes_group gr = {0};
                gr.elem_type = rc->et;
                gr.length = rc->nelem;
                gr.bytes = bytes_of(g, rc->member);
                gr.count = cnt[r];
                gr.wasted = (uint64_t)(cnt[r] - 1) * gr.bytes;
                gr.first_member = s->n_members;
                for (uint64_t k = i; k < j; k++)
                    if (cl[k - i] == r && push_member(s, c->v[k].member) != 0)
                        goto nomem;
                if (bytes_of == string_copy_bytes)
                    gr.wasted = string_group_waste(g, s->members + gr.first_member, gr.count);
                /* Copies that cost nothing are no finding: dropping them frees no byte.
                 * V8 states 0 bytes for the strings of its read-only space (shared by every
                 * isolate) and for the names its snapshot writer adds (a number's value, a
                 * map's instance type), so a d8 snapshot would list a hundred such groups. */
                if (gr.wasted == 0 || (rc->nbytes < small_below && gr.wasted < DUPES_SMALL_WASTE)) {
                    s->n_members = gr.first_member;
                    continue;
                }
                if (push_group(out, gr) != 0)
                    goto nomem;
                *wasted += gr.wasted;
            }
        }
        i = j;
    }
    free(cl);
    return LR_OK;
nomem:
    free(cl);
    return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
}

static uint64_t array_copy_bytes(const graph *g, node_ix m) { return graph_node_size(g, m); }

/* mBuffer: the buffer array. dumpData: the native pixel memory (the registry's size when
 * known, else 4 bytes a pixel), since the dumped buffer is only a compressed copy. */
static uint64_t bitmap_copy_bytes(const graph *g, node_ix m)
{
    dupes_pixels px;
    if (!dupes_bitmap_pixels(g, m, &px) || px.source == DUPES_PIX_NONE)
        return 0;
    if (px.source == DUPES_PIX_BUFFER)
        return graph_node_size(g, px.array);
    if (g->node_native && g->node_native[m])
        return g->node_native[m];
    return (uint64_t)px.width * px.height * 4;
}

/* The value array of String m and whether m uses all of it (JDK 6 and old Android strings
 * may be a slice, offset/count, of an array other strings share). */
static node_ix string_array(const graph *g, node_ix m, int *whole)
{
    graph_value v, so, sn;
    *whole = 0;
    if (!graph_field_find(g, m, "value", &v) || v.type != GRAPH_FT_OBJECT ||
        v.ref >= g->n_nodes)
        return GRAPH_NONE;
    uint64_t nelem = graph_node_len(g, v.ref);
    *whole = !(graph_field_find(g, m, "offset", &so) && graph_field_find(g, m, "count", &sn)) ||
             (so.raw == 0 && sn.raw == nelem);
    return v.ref;
}

/* What deduplicating String m saves: the String, plus its array only when m uses the whole
 * array (a slice's array stays alive for the strings sharing it). */
static uint64_t string_copy_bytes(const graph *g, node_ix m)
{
    int whole;
    uint64_t b = graph_node_size(g, m);
    node_ix a = string_array(g, m, &whole);
    if (a != GRAPH_NONE && whole)
        b += graph_node_size(g, a);
    return b;
}

/* Waste of a string group: every member but the first costs its String, and its array when
 * it uses all of it and no earlier member of the group already points at the same array
 * (identical strings sharing one array save only the String). Earlier arrays are compared
 * among the last DUPES_MAX_REPS only, so a huge group stays linear. */
static uint64_t string_group_waste(const graph *g, const node_ix *members, uint32_t n)
{
    node_ix seen[DUPES_MAX_REPS];
    uint32_t n_seen = 0;
    uint64_t w = 0;
    for (uint32_t i = 0; i < n; i++) {
        int whole, dup = 0;
        node_ix a = string_array(g, members[i], &whole);
        uint64_t cost = graph_node_size(g, members[i]);
        for (uint32_t k = 0; k < n_seen && k < DUPES_MAX_REPS; k++)
            dup |= seen[k] == a;
        if (a != GRAPH_NONE && whole && !dup)
            cost += graph_node_size(g, a);
        if (a != GRAPH_NONE && !dup)
            seen[n_seen++ % DUPES_MAX_REPS] = a;
        if (i)
            w += cost;
    }
    return w;
}

/* Wasted bytes first, then the first member: a total, deterministic order. */
static _Thread_local const node_ix *sort_members; /* qsort has no context */
static int group_cmp(const void *a, const void *b)
{
    const dupes_group *x = a, *y = b;
    if (x->wasted != y->wasted)
        return x->wasted > y->wasted ? -1 : 1;
    node_ix mx = sort_members[x->first_member], my = sort_members[y->first_member];
    return mx < my ? -1 : mx > my;
}

/* ---- the three candidate lists ---- */

/* Android dumps describe each class's static and class overhead as a byte[] held by a
 * static named $staticOverhead or $classOverhead: the VM's own bytes, never the app's copy
 * of anything, so they are no duplicates. Marks them in skip (one byte per node). */
static void mark_overhead(const graph *g, uint8_t *skip)
{
    char name[32];
    for (class_ix c = 0; c < g->n_classes; c++) {
        node_ix x = g->classes[c].node;
        if (x >= g->n_nodes)
            continue;
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix t = g->edge_to[e];
            if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_STATIC || t >= g->n_nodes ||
                g->node_kind[t] != GRAPH_KIND_PRIM_ARRAY)
                continue;
            graph_edge_name_text(g, e, name, sizeof name);
            if (!strcmp(name, "$staticOverhead") || !strcmp(name, "$classOverhead"))
                skip[t] = 1;
        }
    }
}

/* The small arrays' pass keys a content by its hash, byte length and element type in one
 * word: equal keys are the only possible copies. */
static uint64_t small_key(uint64_t h, uint64_t nb, uint8_t et)
{
    return (h & ~(((uint64_t)1 << 25) - 1)) | nb << 4 | (et & 15u);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Whether small array n (below min_bytes) is a candidate: by its key, when keys is set (the
 * first pass, which only collects them), else by its key's presence in hot[0..nh). */
static int small_array(const graph *g, node_ix n, uint64_t min_bytes, uint64_t *key,
                       uint64_t *h, uint64_t *off, uint64_t *nb, uint8_t *et)
{
    uint64_t lim = min_bytes < DUPES_SMALL_MAX ? min_bytes : DUPES_SMALL_MAX;
    if (!array_bytes(g, n, off, nb, et) || *nb < DUPES_SMALL_MIN || *nb >= lim)
        return 0;
    *h = hash_bytes64(g->data + *off, *nb);
    *key = small_key(*h, *nb, *et);
    return 1;
}

/* The keys of small arrays whose one content could waste DUPES_SMALL_WASTE bytes: a sorted
 * array (*hot, *nh; NULL when none). 8 bytes per small array while it runs. */
static lr_status small_hot(const graph *g, const uint8_t *skip, uint64_t min_bytes,
                           uint64_t **hot, uint64_t *nh, lr_error *err)
{
    *hot = NULL;
    *nh = 0;
    uint64_t n_small = 0;
    uint64_t *keys = NULL, off, nb, key, h;
    uint8_t et;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t k = 0;
        for (node_ix n = 0; n < g->n_nodes; n++) {
            if (g->node_kind[n] != GRAPH_KIND_PRIM_ARRAY || skip[n])
                continue;
            if (pass == 0) { /* only counted: no byte read */
                uint64_t lim = min_bytes < DUPES_SMALL_MAX ? min_bytes : DUPES_SMALL_MAX;
                if (array_bytes(g, n, &off, &nb, &et) && nb >= DUPES_SMALL_MIN && nb < lim)
                    k++;
                continue;
            }
            if (!small_array(g, n, min_bytes, &key, &h, &off, &nb, &et))
                continue;
            if (pass == 1)
                keys[k] = key;
            k++;
        }
        if (pass == 0) {
            if (k < 2)
                return LR_OK;
            n_small = k;
            if (!(keys = err_mallocarray(n_small, sizeof *keys)))
                return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory (%llu arrays)",
                               (unsigned long long)n_small);
        }
    }
    qsort(keys, n_small, sizeof *keys, cmp_u64);
    uint64_t out = 0;
    for (uint64_t i = 0, j; i < n_small; i = j) {
        for (j = i + 1; j < n_small && keys[j] == keys[i]; j++)
            ;
        uint64_t bytes = keys[i] >> 4 & (((uint64_t)1 << 21) - 1);
        if ((j - i - 1) * bytes >= DUPES_SMALL_WASTE)
            keys[out++] = keys[i]; /* sorted still: out <= i */
    }
    if (out == 0) {
        free(keys);
        return LR_OK;
    }
    *hot = keys;
    *nh = out;
    return LR_OK;
}

static lr_status arrays_cands(const graph *g, uint64_t min_bytes, cvec *c, lr_error *err)
{
    uint8_t *skip = err_calloc(g->n_nodes ? g->n_nodes : 1, 1);
    if (!skip)
        return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
    if (g->first_edge)
        mark_overhead(g, skip);
    uint64_t *hot = NULL, nh = 0;
    lr_status st = small_hot(g, skip, min_bytes, &hot, &nh, err);
    if (st != LR_OK) {
        free(skip);
        return st;
    }
    for (node_ix n = 0; n < g->n_nodes; n++) {
        if (g->node_kind[n] != GRAPH_KIND_PRIM_ARRAY || skip[n])
            continue;
        uint64_t off, nb, key, h;
        uint8_t et;
        if (nh && small_array(g, n, min_bytes, &key, &h, &off, &nb, &et)) {
            if (!bsearch(&key, hot, nh, sizeof *hot, cmp_u64))
                continue;
        } else if (!array_bytes(g, n, &off, &nb, &et) || nb < min_bytes || nb == 0) {
            continue;
        } else {
            h = hash_bytes64(g->data + off, nb);
        }
        cand x = {h, off, nb, n, graph_node_len(g, n), et};
        if (cvec_push(c, x) != 0) {
            free(skip);
            free(hot);
            return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
        }
    }
    free(skip);
    free(hot);
    return LR_OK;
}

static lr_status bitmap_cands(const graph *g, uint64_t min_bytes, cvec *c, lr_error *err)
{
    class_ix bc = graph_find_class(g, "android.graphics.Bitmap");
    if (bc == GRAPH_NONE)
        return LR_OK;
    /* Bitmaps sharing one buffer array waste nothing: only the first user of an array is a
     * candidate (a shrunk dump points duplicates at one kept copy). */
    uint8_t *seen = err_calloc(g->n_nodes ? g->n_nodes : 1, 1);
    if (!seen)
        return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
    lr_status rc = LR_OK;
    for (node_ix n = 0; n < g->n_nodes && rc == LR_OK; n++) {
        if (graph_node_class(g, n) != bc || g->node_kind[n] != GRAPH_KIND_INSTANCE)
            continue;
        graph_value rec;
        dupes_pixels px;
        if (graph_field_find(g, n, "mRecycled", &rec) && rec.raw != 0)
            continue;
        if (!dupes_bitmap_pixels(g, n, &px) || px.source == DUPES_PIX_NONE || px.len == 0)
            continue;
        uint8_t et = g->classes[graph_node_class(g, px.array)].elem_type;
        if (px.source == DUPES_PIX_BUFFER) {
            if (seen[px.array] || px.len < min_bytes)
                continue;
            seen[px.array] = 1;
        } else {
            /* Each native pointer is its own allocation, even if two share a dumped array;
             * the key bit keeps them apart from mBuffer groups. */
            if (bitmap_copy_bytes(g, n) < min_bytes)
                continue;
            et |= DUMPDATA_KEY;
        }
        cand x = {hash_bytes64(g->data + px.off, px.len), px.off, px.len, n,
                  graph_node_len(g, px.array), et};
        if (cvec_push(c, x) != 0)
            rc = LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
    }
    free(seen);
    return rc;
}

/* Flat strings of a V8 snapshot (node type "string"; a concatenated or sliced string is named
 * by its type, not its text). The text is the node's name, which the reader interned: equal
 * texts have one name index, so the key is that index and the size, exact rather than a hash,
 * and no bytes are compared (nbytes 0). */
static lr_status v8_string_cands(const graph *g, cvec *c, lr_error *err)
{
    int st = -1;
    for (uint32_t t = 0; t < g->n_types && t < 32; t++)
        if (g->type_names[t] && strcmp(g->type_names[t], "string") == 0)
            st = (int)t;
    if (st < 0 || !g->node_name || !g->node_type)
        return LR_OK;
    for (node_ix n = 0; n < g->n_nodes; n++) {
        if (g->node_type[n] != st || g->node_kind[n] != GRAPH_KIND_STRING)
            continue;
        /* two strings V8 cut with one prefix would look equal: left out */
        if (graph_string_partial(g, n))
            continue;
        const unsigned char *p = (const unsigned char *)graph_str(g, g->node_name[n]);
        uint32_t chars = 0;
        for (uint32_t bytes = 0; p[bytes]; bytes++)
            /* UTF-16 units, as V8 counts: a 4-byte UTF-8 sequence is a surrogate pair */
            chars += (p[bytes] & 0xc0) == 0x80 ? 0 : p[bytes] >= 0xf0 ? 2 : 1;
        uint64_t size = graph_node_size(g, n);
        cand x = {((uint64_t)g->node_name[n] << 32) | (size > UINT32_MAX ? UINT32_MAX : size), 0,
                  0, n, chars, 0};
        if (cvec_push(c, x) != 0)
            return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
    }
    return LR_OK;
}

/* Strings whose value the dump states in their record (g->node_value: Ruby). The reader
 * interned the values, so, as for V8, the key is the value's index and the string's size,
 * exact, and no bytes are compared. The size is the record's (Ruby's memsize: slot plus
 * buffer), so what a group wastes is what its copies beyond one cost. Strings without a value
 * (shared ones, whose bytes are another string's buffer, and non-ASCII ones) are no
 * candidates: a shared string costs its slot only and removing it frees no copy. An interned
 * string (Ruby's fstring) is one object however many literals name it, so it is at most one
 * member of its group: the copy the others could have been. */
static lr_status value_string_cands(const graph *g, cvec *c, lr_error *err)
{
    for (node_ix n = 0; n < g->n_nodes; n++) {
        if (g->node_kind[n] != GRAPH_KIND_STRING || g->node_value[n] == GRAPH_NONE)
            continue;
        uint64_t size = graph_node_size(g, n);
        size_t len = strlen(graph_str(g, g->node_value[n]));
        cand x = {((uint64_t)g->node_value[n] << 32) | (size > UINT32_MAX ? UINT32_MAX : size),
                  0, 0, n, len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, 0};
        if (cvec_push(c, x) != 0)
            return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
    }
    return LR_OK;
}

static lr_status string_cands(const graph *g, cvec *c, lr_error *err)
{
    class_ix sc = graph_find_class(g, "java.lang.String");
    if (sc == GRAPH_NONE && g->node_value)
        return value_string_cands(g, c, err);
    if (sc == GRAPH_NONE)
        return g->format && strcmp(g->format, "v8") == 0 ? v8_string_cands(g, c, err) : LR_OK;
    for (node_ix n = 0; n < g->n_nodes; n++) {
        if (graph_node_class(g, n) != sc || g->node_kind[n] != GRAPH_KIND_INSTANCE)
            continue;
        graph_value v, so, sn, coder;
        if (!graph_field_find(g, n, "value", &v) || v.ref == GRAPH_NONE)
            continue;
        uint64_t off, nb;
        uint8_t et;
        if (!array_bytes(g, v.ref, &off, &nb, &et))
            continue;
        unsigned es = graph_ftype_size(g, et);
        uint64_t nelem = graph_node_len(g, v.ref);
        /* JDK 6 strings share arrays: offset/count select the slice. */
        if (graph_field_find(g, n, "offset", &so) && graph_field_find(g, n, "count", &sn) &&
            so.raw <= nelem && sn.raw <= nelem - so.raw) {
            off += so.raw * es;
            nelem = sn.raw;
            nb = nelem * es;
        }
        /* JDK 9+ compact strings: the same text may be Latin-1 or UTF-16; key on the coder
         * too so only identical encodings group (the JDK never mixes them for one text). */
        uint8_t key = et;
        if (graph_field_find(g, n, "coder", &coder) && coder.raw == 1)
            key = (uint8_t)(et | 0x80);
        /* the length in characters: a UTF-16 value's bytes hold two per character */
        if (key & 0x80 && es == 1)
            nelem /= 2;
        cand x = {hash_bytes64(g->data + off, nb), off, nb, n, (uint32_t)nelem, key};
        if (cvec_push(c, x) != 0)
            return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
    }
    return LR_OK;
}

/* Sort key of a large bitmap: pixels (desc), then node. */
typedef struct large_key {
    uint64_t pixels;
    node_ix n;
} large_key;

static int large_cmp(const void *a, const void *b)
{
    const large_key *x = a, *y = b;
    if (x->pixels != y->pixels)
        return x->pixels > y->pixels ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* KOOM's large-bitmap list: every non-recycled Bitmap with mWidth x mHeight >= min_pixels,
 * whether or not its pixels are in the dump. */
static lr_status large_bitmaps(const graph *g, uint64_t min_pixels, dupes_result *r,
                               lr_error *err)
{
    class_ix bc = graph_find_class(g, "android.graphics.Bitmap");
    if (bc == GRAPH_NONE)
        return LR_OK;
    large_key *v = NULL;
    uint32_t n = 0, cap = 0;
    for (node_ix x = 0; x < g->n_nodes; x++) {
        if (graph_node_class(g, x) != bc || g->node_kind[x] != GRAPH_KIND_INSTANCE)
            continue;
        graph_value rec;
        if (graph_field_find(g, x, "mRecycled", &rec) && rec.raw != 0)
            continue;
        uint64_t px = (uint64_t)int_field(g, x, "mWidth") * int_field(g, x, "mHeight");
        if (px < min_pixels || px == 0)
            continue;
        if (n == cap) {
            uint32_t nc = cap ? cap * 2 : 16;
            large_key *p = err_reallocarray(v, nc, sizeof *p);
            if (!p) {
                free(v);
                return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
            }
            v = p;
            cap = nc;
        }
        v[n++] = (large_key){px, x};
    }
    if (n == 0)
        return LR_OK;
    qsort(v, n, sizeof *v, large_cmp);
    r->large = err_mallocarray(n, sizeof *r->large);
    if (!r->large) {
        free(v);
        return LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
        r->large[i] = v[i].n;
    r->n_large = n;
    free(v);
    return LR_OK;
}

static lr_status find(graph *g, const dupes_opts *o, int owners, dupes_result *r,
                      lr_error *err)
{
    memset(r, 0, sizeof *r);
    state s = {g, NULL, 0, 0};
    cvec c = {0};
    gvec ga = {0}, gb = {0}, gs = {0};
    lr_status rc;

    if ((rc = arrays_cands(g, o->min_bytes, &c, err)) != LR_OK ||
        (rc = group(&s, &c, array_copy_bytes, o->min_bytes, &ga, &r->wasted_arrays, err)) !=
            LR_OK)
        goto out;
    c.n = 0;
    if ((rc = bitmap_cands(g, o->min_bitmap_bytes, &c, err)) != LR_OK ||
        (rc = group(&s, &c, bitmap_copy_bytes, 0, &gb, &r->wasted_bitmaps, err)) != LR_OK)
        goto out;
    c.n = 0;
    if ((rc = string_cands(g, &c, err)) != LR_OK ||
        (rc = group(&s, &c, string_copy_bytes, 0, &gs, &r->wasted_strings, err)) != LR_OK)
        goto out;

    sort_members = s.members;
    if (ga.n)
        qsort(ga.v, ga.n, sizeof *ga.v, group_cmp);
    if (gb.n)
        qsort(gb.v, gb.n, sizeof *gb.v, group_cmp);
    if (gs.n)
        qsort(gs.v, gs.n, sizeof *gs.v, group_cmp);
    for (uint32_t i = 0; i < gb.n; i++) {
        graph_value w, h;
        node_ix m = s.members[gb.v[i].first_member];
        if (graph_field_find(g, m, "mWidth", &w))
            gb.v[i].width = (uint32_t)w.raw;
        if (graph_field_find(g, m, "mHeight", &h))
            gb.v[i].height = (uint32_t)h.raw;
        gb.v[i].pix_source = (gb.v[i].elem_type & DUMPDATA_KEY) ? DUPES_PIX_DUMPDATA
                                                                 : DUPES_PIX_BUFFER;
        gb.v[i].elem_type &= (uint8_t)~DUMPDATA_KEY;
    }
    if ((rc = large_bitmaps(g, o->large_pixels ? o->large_pixels : DUPES_DEFAULT_LARGE_PIXELS,
                            r, err)) != LR_OK)
        goto out;

    r->members = s.members;
    r->n_members = s.n_members;
    s.members = NULL;
    r->arrays = ga.v, r->n_arrays = ga.n, ga.v = NULL;
    r->bitmaps = gb.v, r->n_bitmaps = gb.n, gb.v = NULL;
    r->strings = gs.v, r->n_strings = gs.n, gs.v = NULL;

    if (!owners)
        goto out;
    /* Owners: arrays -> first referrer; bitmaps/strings -> themselves. */
    r->owner = err_mallocarray(r->n_members ? r->n_members : 1, sizeof *r->owner);
    r->owner_edge = err_mallocarray(r->n_members ? r->n_members : 1, sizeof *r->owner_edge);
    if (!r->owner || !r->owner_edge) {
        rc = LR_FAIL(err, LR_ERR_NOMEM, "dupes: out of memory");
        goto out;
    }
    if ((rc = graph_build_reverse(g, err)) != LR_OK)
        goto out;
    uint32_t n_arr_members = 0;
    for (uint32_t i = 0; i < r->n_arrays; i++)
        n_arr_members += r->arrays[i].count;
    for (uint32_t i = 0; i < r->n_members; i++) {
        node_ix m = r->members[i];
        r->owner[i] = GRAPH_NONE;
        r->owner_edge[i] = GRAPH_NONE;
        /* Members are appended section by section, arrays first. */
        if (i < n_arr_members) {
            if (g->rev_first[m] < g->rev_first[m + 1]) {
                edge_ix e = g->rev_edge[g->rev_first[m]];
                r->owner_edge[i] = e;
                r->owner[i] = graph_edge_from(g, e);
            }
        } else {
            r->owner[i] = m;
        }
    }
    /* Every owner's path, through other owners too (a list holding both a duplicated array
     * and strings with duplicated values): the owners are no leaves of the search. */
    rc = paths_find(g, NULL, NULL, 0, &r->paths, err);

out:
    free(c.v);
    free(s.members);
    free(ga.v);
    free(gb.v);
    free(gs.v);
    if (rc != LR_OK)
        dupes_free(r);
    return rc;
}

lr_status dupes_find(graph *g, const dupes_opts *o, dupes_result *r, lr_error *err)
{
    return find(g, o, 1, r, err);
}

lr_status dupes_find_groups(graph *g, const dupes_opts *o, dupes_result *r, lr_error *err)
{
    return find(g, o, 0, r, err);
}

void dupes_free(dupes_result *r)
{
    if (!r)
        return;
    free(r->arrays);
    free(r->bitmaps);
    free(r->strings);
    free(r->members);
    free(r->owner);
    free(r->owner_edge);
    free(r->large);
    paths_free(&r->paths);
    memset(r, 0, sizeof *r);
}
