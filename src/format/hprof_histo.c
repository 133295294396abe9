/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_histo.c: streaming class histogram of an HPROF dump (format layer), prefix hprof_.
 * `histo` needs instances and shallow bytes per class, not a graph: one walk over the chosen
 * dump's heap records sums, per class id, what the node sizes depend on, and only then are
 * the sizes resolved. Keeping the sums independent of the size model matters because the
 * model (VisualVM's header and reference sizes, the Shark sizes) is known only once every
 * CLASS_DUMP has been seen: instances are counted per class id, arrays keep their element
 * count, their largest length and how many have each length modulo 8, which together give
 * the exact 8-byte-aligned total. The walk runs on two threads over the dump's
 * HEAP_DUMP_SEGMENT records split into two byte-balanced runs; every sum is a plain addition,
 * so the result does not depend on the split or the scheduling, and of two failing halves
 * the first one's error is reported, as a single walk would. Header, top-level records,
 * CLASS_DUMP checks, class building and the size models are the reader's own
 * (hprof_internal.h), so rows and errors equal the reader's: the per-class count and bytes
 * are what cmd_histo sums over a graph loaded without edges. Dumps whose sums could meet the
 * reader's 32-bit size saturation, or with more heaps than the graph holds, are declined with
 * LR_ERR_LIMIT (callers fall back to the graph). Memory: a few hundred bytes per class. */
#define _GNU_SOURCE
#include "format/hprof_internal.h"
#include "base/par.h"
#include "base/hash.h"
#include "base/hmap.h"
#include "base/search.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Below this many heap-record bytes a second thread costs more than it saves. */
#define SPLIT_MIN_BYTES (1u << 20)

/* Model-independent sums for one class id (or one primitive element type). */
typedef struct hstat {
    uint64_t n_inst;
    uint64_t n_arr, len_sum, len_max;
    uint64_t len_mod[8]; /* arrays by length modulo 8 */
} hstat;

/* Class id -> sums over the one hash table; entries in first-seen order. Id 0 (the null
 * class id of a corrupt record) has its own slot, outside the table. */
typedef struct ctab {
    hmap index;     /* hash_mix64(id ^ seed) -> entry */
    uint64_t seed;  /* hmap_seed(): ids come from the dump */
    uint64_t *keys; /* entry -> class id */
    hstat *st;      /* entry -> sums */
    uint32_t n, cap;
    hstat zero;
} ctab;

static int ctab_init(ctab *t, uint32_t cap)
{
    memset(t, 0, sizeof *t);
    t->keys = err_mallocarray(cap, sizeof *t->keys);
    t->st = err_mallocarray(cap, sizeof *t->st);
    t->cap = cap;
    t->seed = hmap_seed();
    return t->keys && t->st && hmap_reserve(&t->index, cap);
}

static void ctab_free(ctab *t)
{
    hmap_free(&t->index);
    free(t->keys);
    free(t->st);
    t->keys = NULL;
    t->st = NULL;
}

static int ctab_grow(ctab *t)
{
    if (t->cap >= (1u << 29))
        return 0;
    uint32_t cap = t->cap * 2;
    uint64_t *k = err_reallocarray(t->keys, cap, sizeof *k);
    if (!k)
        return 0;
    t->keys = k;
    hstat *st = err_reallocarray(t->st, cap, sizeof *st);
    if (!st)
        return 0;
    t->st = st;
    t->cap = cap;
    return 1;
}

/* The sums of class id `id`, created on first use; NULL when out of memory. The pointer
 * stays valid until the next call that creates an entry. */
static inline hstat *ctab_get(ctab *t, uint64_t id)
{
    if (!id)
        return &t->zero;
    uint32_t h = (uint32_t)hash_mix64(id ^ t->seed);
    hmap_it it;
    for (uint32_t e = hmap_first(&t->index, h, &it); e != HMAP_NONE;
         e = hmap_next(&t->index, &it))
        if (t->keys[e] == id)
            return &t->st[e];
    if ((t->n == t->cap && !ctab_grow(t)) || !hmap_add(&t->index, h, t->n))
        return NULL;
    t->keys[t->n] = id;
    memset(&t->st[t->n], 0, sizeof t->st[t->n]);
    return &t->st[t->n++];
}

/* One thread's share: a run of segments and everything summed over it. */
typedef struct part {
    const uint8_t *d;
    uint64_t n;
    const char *name;
    unsigned ids;
    const uint64_t *segs; /* body start, end pairs */
    uint32_t seg_lo, seg_hi;
    const uint8_t *root_body; /* fixed size of each root sub-record body, 0 if not a root */

    ctab tab;
    hstat prim[12];
    uint64_t prim_first[12]; /* offset of the first array of each element type */
    hprof_cls_pos *cls;
    uint32_t n_cls, cap_cls;
    uint64_t class_bytes_shark; /* sum of the Shark sizes of the class objects */
    uint64_t n_objects;
    uint64_t id_or; /* every object id ORed: the heap's object alignment (rd.obj_align) */
    uint32_t heap_ids[GRAPH_MAX_HEAPS + 1];
    uint32_t n_heap_ids;
    lr_status st;
    lr_error err;
} part;

#define NEED(pos, need, end, what) HPROF_NEED(&w->err, w->name, w->n, pos, need, end, what)

static inline void add_arr(hstat *s, uint32_t len)
{
    s->n_arr++;
    s->len_sum += len;
    s->len_max = len > s->len_max ? len : s->len_max;
    s->len_mod[len & 7]++;
}

static lr_status walk_nomem(part *w)
{
    return LR_FAIL(&w->err, LR_ERR_NOMEM, "%s: out of memory", w->name);
}

/* Walks the records of [p, end) with the reader's checks, in the reader's order. `ids` is a
 * constant at each call site so the id reads specialise. */
static inline __attribute__((always_inline)) lr_status walk_seg(part *w, uint64_t p, uint64_t end,
                                                                const unsigned ids)
{
    const uint8_t *d = w->d;
    while (p < end) {
        unsigned tag = d[p];
        uint64_t at = p++;
        if (tag == SUB_INSTANCE_DUMP) {
            NEED(p, 2 * ids + 8, end, "INSTANCE_DUMP");
            uint64_t cid = rd_id(d + p + ids + 4, ids);
            uint32_t nb = be32(d + p + 2 * ids + 4);
            w->id_or |= rd_id(d + p, ids);
            p += 2 * ids + 8;
            NEED(p, nb, end, "INSTANCE_DUMP field bytes");
            p += nb;
            hstat *s = ctab_get(&w->tab, cid);
            if (!s)
                return walk_nomem(w);
            s->n_inst++;
            w->n_objects++;
            continue;
        }
        unsigned rb = w->root_body[tag];
        if (rb) {
            NEED(p, rb, end, "GC root record");
            p += rb;
            continue;
        }
        switch (tag) {
        case SUB_OBJ_ARRAY_DUMP: {
            NEED(p, 2 * ids + 8, end, "OBJECT_ARRAY_DUMP");
            uint32_t len = be32(d + p + ids + 4);
            uint64_t cid = rd_id(d + p + ids + 8, ids);
            w->id_or |= rd_id(d + p, ids);
            p += 2 * ids + 8;
            NEED(p, (uint64_t)len * ids, end, "OBJECT_ARRAY_DUMP elements");
            p += (uint64_t)len * ids;
            hstat *s = ctab_get(&w->tab, cid);
            if (!s)
                return walk_nomem(w);
            add_arr(s, len);
            w->n_objects++;
            break;
        }
        case SUB_PRIM_ARRAY_DUMP:
        case SUB_PRIM_ARRAY_NODATA: {
            NEED(p, ids + 9, end, "PRIMITIVE_ARRAY_DUMP");
            uint32_t len = be32(d + p + ids + 4);
            unsigned t = d[p + ids + 8];
            unsigned sz = t == GRAPH_FT_OBJECT ? 0 : type_size(t, ids);
            w->id_or |= rd_id(d + p, ids);
            if (!sz)
                return LR_CORRUPT(&w->err, w->name, p + ids + 8,
                                  "primitive array of bad element type %u", t);
            p += ids + 9;
            if (tag == SUB_PRIM_ARRAY_DUMP) {
                NEED(p, (uint64_t)len * sz, end, "PRIMITIVE_ARRAY_DUMP elements");
                p += (uint64_t)len * sz;
            }
            if (!w->prim[t].n_arr)
                w->prim_first[t] = at;
            add_arr(&w->prim[t], len);
            w->n_objects++;
            break;
        }
        case SUB_CLASS_DUMP: {
            uint64_t ce = p;
            uint32_t nst = 0, nf = 0;
            lr_status st = hprof_class_dump_skip(d, w->n, ids, w->name, p, end, &ce, &nst, &nf,
                                                 &w->err);
            if (st != LR_OK)
                return st;
            if (w->n_cls == w->cap_cls) {
                uint32_t nc = w->cap_cls ? w->cap_cls * 2 : 256;
                void *q = nc > w->cap_cls ? err_reallocarray(w->cls, nc, sizeof *w->cls) : NULL;
                if (!q)
                    return walk_nomem(w);
                w->cls = q;
                w->cap_cls = nc;
            }
            w->cls[w->n_cls++] = (hprof_cls_pos){p, ce, nst, nf};
            w->class_bytes_shark += ce - p + 1 > UINT32_MAX ? UINT32_MAX : ce - p + 1;
            p = ce;
            break;
        }
        case SUB_HEAP_DUMP_INFO: {
            NEED(p, 4 + ids, end, "HEAP_DUMP_INFO");
            uint32_t hid = be32(d + p), i = 0;
            while (i < w->n_heap_ids && w->heap_ids[i] != hid)
                i++;
            if (i == w->n_heap_ids) {
                if (w->n_heap_ids == GRAPH_MAX_HEAPS)
                    return LR_FAIL(&w->err, LR_ERR_LIMIT, "%s: offset 0x%llx: more than %d heaps",
                                   w->name, (unsigned long long)at, GRAPH_MAX_HEAPS);
                w->heap_ids[w->n_heap_ids++] = hid;
            }
            p += 4 + ids;
            break;
        }
        default:
            return LR_CORRUPT(&w->err, w->name, at, "unknown heap dump sub-record tag 0x%02x",
                              tag);
        }
    }
    return LR_OK;
}

static lr_status walk_part(part *w)
{
    if (!ctab_init(&w->tab, 1024))
        return walk_nomem(w);
    for (uint32_t s = w->seg_lo; s < w->seg_hi; s++) {
        uint64_t p = w->segs[2 * s], end = w->segs[2 * s + 1];
        LR_TRY(w->ids == 8 ? walk_seg(w, p, end, 8) : walk_seg(w, p, end, 4));
    }
    return LR_OK;
}

static void *walk_thread(void *arg)
{
    part *w = arg;
    w->st = walk_part(w);
    return NULL;
}

/* Everything the walk leaves for the finishing step. */
typedef struct hctx {
    unsigned threads;
    part parts[2];
    uint32_t n_parts;
    uint8_t root_body[256];
} hctx;

static void root_sizes(uint8_t *rb, unsigned ids)
{
    for (unsigned tag = 0; tag < 256; tag++)
        rb[tag] = (uint8_t)root_body(tag, ids);
}

/* The hprof_walk_fn: lists the dump's segments, splits them, walks both halves. */
static lr_status histo_walk(void *ctx, hprof_walk *hw, lr_error *err)
{
    hctx *c = ctx;
    const uint8_t *d = hw->d;
    root_sizes(c->root_body, hw->ids);
    uint64_t lo = hw->dump.offset, hi = hw->dump.offset + hw->dump.length;
    uint32_t n_seg = 0;
    for (uint64_t t = lo; t < hi; t = t + 9 + be32(d + t + 5))
        n_seg += d[t] == TAG_HEAP_DUMP || d[t] == TAG_HEAP_DUMP_SEGMENT;
    uint64_t *segs = err_mallocarray(2 * (size_t)n_seg + 2, sizeof *segs);
    if (!segs)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", hw->name);
    uint32_t k = 0;
    uint64_t total = 0;
    for (uint64_t t = lo; t < hi; t = t + 9 + be32(d + t + 5)) {
        if (d[t] != TAG_HEAP_DUMP && d[t] != TAG_HEAP_DUMP_SEGMENT)
            continue;
        segs[2 * k] = t + 9;
        segs[2 * k + 1] = t + 9 + be32(d + t + 5);
        total += segs[2 * k + 1] - segs[2 * k];
        k++;
    }
    /* First half: the shortest run of segments holding at least half of the bytes. */
    uint32_t split = n_seg;
    if (n_seg > 1 && (c->threads >= 2 || (c->threads == 0 && total >= SPLIT_MIN_BYTES))) {
        uint64_t acc = 0;
        for (split = 0; split < n_seg && acc < total / 2; split++)
            acc += segs[2 * split + 1] - segs[2 * split];
        if (split == n_seg)
            split = n_seg - 1;
    }
    c->n_parts = split < n_seg ? 2 : 1;
    for (uint32_t i = 0; i < c->n_parts; i++) {
        part *w = &c->parts[i];
        w->d = d;
        w->n = hw->n;
        w->name = hw->name;
        w->ids = hw->ids;
        w->segs = segs;
        w->seg_lo = i ? split : 0;
        w->seg_hi = i || c->n_parts == 1 ? n_seg : split;
        w->root_body = c->root_body;
        w->err.offset = LR_NO_OFFSET;
    }
    par_two(walk_thread, &c->parts[0], &c->parts[1], c->n_parts == 2);
    free(segs);
    for (uint32_t i = 0; i < c->n_parts; i++) {
        c->parts[i].segs = NULL;
        if (c->parts[i].st != LR_OK) {
            *err = c->parts[i].err;
            return c->parts[i].st;
        }
    }
    /* Class dumps in file order, heaps over the whole dump. */
    part *a = &c->parts[0];
    uint32_t heaps = a->n_heap_ids;
    if (c->n_parts == 2) {
        part *b = &c->parts[1];
        for (uint32_t i = 0; i < b->n_heap_ids; i++) {
            uint32_t j = 0;
            while (j < a->n_heap_ids && a->heap_ids[j] != b->heap_ids[i])
                j++;
            heaps += j == a->n_heap_ids;
        }
        if (b->n_cls) {
            uint64_t nc = (uint64_t)a->n_cls + b->n_cls;
            void *q = nc < UINT32_MAX ? err_reallocarray(a->cls, nc, sizeof *a->cls) : NULL;
            if (!q)
                return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", hw->name);
            a->cls = q;
            memcpy(a->cls + a->n_cls, b->cls, b->n_cls * sizeof *b->cls);
            a->n_cls = a->cap_cls = (uint32_t)nc;
        }
        a->n_objects += b->n_objects;
        a->id_or |= b->id_or;
    }
    /* The reader also names a "default" heap when objects precede the first HEAP_DUMP_INFO;
     * near the ceiling that is a difference this walk does not model. */
    if (heaps >= GRAPH_MAX_HEAPS)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: %u heaps: too many for the streaming histogram",
                       hw->name, heaps);
    hw->cls = a->cls;
    hw->n_cls = a->n_cls;
    hw->n_objects = a->n_objects;
    a->cls = NULL;
    a->n_cls = a->cap_cls = 0;
    return LR_OK;
}

/* Summed bytes of the arrays in s with elements of elsize bytes; 0 when one of them could
 * reach the reader's 32-bit saturation (the sums would then differ). */
static int arr_bytes(const hprof_model *md, const hstat *s, unsigned elsize, uint64_t *out)
{
    *out = 0;
    if (!s->n_arr)
        return 1;
    if (md->android) {
        if ((uint64_t)elsize * s->len_max > UINT32_MAX)
            return 0;
        *out = (uint64_t)elsize * s->len_sum;
        return 1;
    }
    uint64_t c = md->arr_base;
    if (c + (uint64_t)elsize * s->len_max + 7 > UINT32_MAX)
        return 0;
    uint64_t b = s->n_arr * c + (uint64_t)elsize * s->len_sum;
    for (unsigned m = 0; m < 8; m++)
        b += s->len_mod[m] * ((8 - ((c + (uint64_t)elsize * m) & 7)) & 7);
    *out = b;
    return 1;
}

typedef struct idix {
    uint64_t id;
    class_ix ix;
} idix;

static int cmp_idix(const void *pa, const void *pb)
{
    const idix *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->ix < b->ix ? -1 : a->ix > b->ix;
}

/* The class a class id resolves to: its first CLASS_DUMP, as the reader's lookup. */
static class_ix find_class(const idix *v, uint32_t n, uint64_t id)
{
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, n, v[search_mid].id < id, lo);
    return lo < n && v[lo].id == id ? v[lo].ix : GRAPH_NONE;
}

static const char *const PRIM_ARRAY_NAMES[12] = {NULL,      NULL,      NULL,    NULL,
                                                 "boolean[]", "char[]", "float[]", "double[]",
                                                 "byte[]",  "short[]", "int[]", "long[]"};

static lr_status declined(const char *name, lr_error *err)
{
    return LR_FAIL(err, LR_ERR_LIMIT,
                   "%s: array sizes reach 4 GiB: beyond the streaming histogram", name);
}

static void merge_stat(hstat *x, const hstat *y)
{
    x->n_inst += y->n_inst;
    x->n_arr += y->n_arr;
    x->len_sum += y->len_sum;
    x->len_max = y->len_max > x->len_max ? y->len_max : x->len_max;
    for (unsigned m = 0; m < 8; m++)
        x->len_mod[m] += y->len_mod[m];
}

/* Adds the sums of one class id (or of the classless id) to its row. */
static int add_id(const hprof_model *md, const idix *ix, uint32_t nc, uint64_t id,
                  const hstat *s, hprof_histo *h)
{
    class_ix c = find_class(ix, nc, id);
    /* a StackChunk's size is in its record (hprof_chunk), which the walk does not keep, and
     * the arrays' sums are kept for 8-byte alignment only: the graph's histogram reads them */
    if ((c != GRAPH_NONE && c == md->chunk.cls && s->n_inst) ||
        (!md->android && md->obj_align != 8))
        return 0;
    hprof_histo_row *r = &h->rows[c == GRAPH_NONE ? h->n_classes + 1 : c];
    uint64_t each = c != GRAPH_NONE ? md->inst_size[c]
                    : md->android   ? 0
                                    : (uint32_t)((md->min_inst + 7u) & ~7u);
    uint64_t ab;
    if (!arr_bytes(md, s, md->android ? md->ids : md->oop, &ab))
        return 0;
    r->count += s->n_inst + s->n_arr;
    r->bytes += s->n_inst * each + ab;
    return 1;
}

static lr_status finish(hctx *c, const hprof_model *md, hprof_histo *h, const char *name,
                        lr_error *err)
{
    const graph *g = &h->g;
    uint32_t nc = g->n_classes;
    part *a = &c->parts[0];
    /* objects aligned to 16 bytes or more (-XX:ObjectAlignmentInBytes, as the reader's size
     * model finds it): the arrays' sums here are kept for 8; the graph's histogram reads them */
    uint64_t ids_or = 0;
    for (uint32_t i = 0; i < c->n_parts; i++)
        ids_or |= c->parts[i].id_or;
    if (!md->android && md->ids == 8 && a->n_objects >= 1024 && ids_or &&
        __builtin_ctzll(ids_or) >= 4)
        return declined(name, err);
    for (uint32_t i = 1; i < c->n_parts; i++) {
        part *b = &c->parts[i];
        for (uint32_t s = 0; s < b->tab.n; s++) {
            hstat *x = ctab_get(&a->tab, b->tab.keys[s]);
            if (!x)
                return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
            merge_stat(x, &b->tab.st[s]);
        }
        merge_stat(&a->tab.zero, &b->tab.zero);
        for (unsigned t = 0; t < 12; t++) {
            if (b->prim[t].n_arr && !a->prim[t].n_arr)
                a->prim_first[t] = b->prim_first[t];
            merge_stat(&a->prim[t], &b->prim[t]);
        }
        a->class_bytes_shark += b->class_bytes_shark;
    }
    /* Primitive array types without a class of the dump get one, numbered after the dump's
     * classes in the order their first array appears (the reader's pass 2 order). */
    class_ix prim_row[12];
    uint32_t n_synth = 0;
    for (unsigned t = 0; t < 12; t++)
        prim_row[t] = md->prim_class[t];
    for (;;) {
        int best = -1;
        for (unsigned t = 4; t < 12; t++)
            if (a->prim[t].n_arr && prim_row[t] == GRAPH_NONE &&
                (best < 0 || a->prim_first[t] < a->prim_first[best]))
                best = (int)t;
        if (best < 0)
            break;
        prim_row[best] = nc + n_synth++;
    }
    h->n_classes = nc + n_synth;
    h->rows = err_calloc((size_t)h->n_classes + 2, sizeof *h->rows);
    idix *ix = err_mallocarray(nc ? nc : 1, sizeof *ix);
    if (!h->rows || !ix) {
        free(ix);
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
    }
    for (class_ix k = 0; k < nc; k++) {
        h->rows[k].name = graph_str(g, g->classes[k].name);
        ix[k] = (idix){g->classes[k].id, k};
    }
    for (unsigned t = 4; t < 12; t++)
        if (prim_row[t] >= nc && prim_row[t] != GRAPH_NONE)
            h->rows[prim_row[t]].name = PRIM_ARRAY_NAMES[t];
    qsort(ix, nc, sizeof *ix, cmp_idix);
    int ok = 1;
    for (uint32_t s = 0; ok && s < a->tab.n; s++)
        ok = add_id(md, ix, nc, a->tab.keys[s], &a->tab.st[s], h);
    if (ok)
        ok = add_id(md, ix, nc, 0, &a->tab.zero, h);
    free(ix);
    for (unsigned t = 4; ok && t < 12; t++) {
        if (!a->prim[t].n_arr)
            continue;
        uint64_t ab;
        ok = arr_bytes(md, &a->prim[t], type_size(t, md->ids), &ab);
        h->rows[prim_row[t]].count += a->prim[t].n_arr;
        h->rows[prim_row[t]].bytes += ab;
    }
    if (!ok)
        return declined(name, err);
    hprof_histo_row *co = &h->rows[h->n_classes];
    co->count = nc;
    co->bytes = md->android ? a->class_bytes_shark : (uint64_t)nc * md->class_obj_size;
    return LR_OK;
}

static void hctx_free(hctx *c)
{
    for (uint32_t i = 0; i < 2; i++) {
        ctab_free(&c->parts[i].tab);
        free(c->parts[i].cls);
    }
}

lr_status hprof_histo_build(const mfile *m, const char *name, int dump_index, unsigned threads,
                            hprof_histo *h, lr_error *err)
{
    memset(h, 0, sizeof *h);
    graph_init(&h->g);
    h->g.path = strdup(name ? name : "<memory>");
    if (!h->g.path)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name ? name : "<memory>");
    if (m->map && m->map_len)
        madvise(m->map, m->map_len, MADV_WILLNEED);
    hctx c;
    memset(&c, 0, sizeof c);
    c.threads = threads;
    hprof_model md;
    lr_status st = hprof_model_load(&h->g, m, dump_index, histo_walk, &c, &md, err);
    if (st == LR_OK)
        st = finish(&c, &md, h, h->g.path, err);
    free(md.inst_size);
    hctx_free(&c);
    if (st != LR_OK)
        hprof_histo_free(h);
    return st;
}

void hprof_histo_free(hprof_histo *h)
{
    free(h->rows);
    h->rows = NULL;
    h->n_classes = 0;
    graph_fini(&h->g); /* frees g.path too */
}
