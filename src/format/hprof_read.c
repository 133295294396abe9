/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_read.c: HPROF reader (format layer), prefix hprof_: the load itself. After the
 * top-level scan (hprof_scan.c), two passes over the chosen dump: pass 1 counts objects, roots
 * and class dumps and sizes every graph array exactly (two threads over the segments of the
 * two halves of a dump of several segments), the classes are built (hprof_class.c), pass 2
 * fills nodes and roots (two threads over the two halves of a dump of
 * HPROF_SPLIT_MIN_BYTES or more); then the id index, roots resolved to nodes,
 * threads with their stack frames, edges and the compact read-back form (hprof_edges.c). No
 * per-object malloc: nodes point at their records in the mapped input. Knows 1.0-1.0.3,
 * 4/8-byte ids and Android heap tags, nothing about leaks. Every length read from the file is
 * checked against the bytes left before it is used; errors carry the absolute offset (in the
 * inflated bytes for compressed input). docs/formats/hprof.md is the spec, including the
 * VisualVM 2.1.5 (HotSpot) and Shark (Android) size models. */
#define _GNU_SOURCE /* qsort_r */
#include "format/hprof_internal.h"
#include "base/par.h"
#include "base/phase.h"
#include "base/search.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- growable arrays (ceiling: counts are bounded by the file size) ---- */

lr_status hprof_grow(void **p, uint32_t *cap, size_t elem, rd *r)
{
    uint32_t nc = *cap ? *cap * 2 : 64;
    if (nc < *cap)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: too many records", r->name);
    void *q = err_reallocarray(*p, nc, elem);
    if (!q)
        return LR_FAIL(r->err, LR_ERR_NOMEM, "%s: out of memory", r->name);
    *p = q;
    *cap = nc;
    return LR_OK;
}
lr_status hprof_nomem(rd *r)
{
    return LR_FAIL(r->err, LR_ERR_NOMEM, "%s: out of memory", r->name);
}

/* ---- ids while loading ---- */

/* While loading, a node's id is read back from its record (at the offset pass 2 stores; the
 * id comes first in every kind) instead of kept 8 bytes a node: the id index, the class-node
 * merge and the lookups of a dump without the rank index read ids through graph_node_id().
 * g->fmt_state is the reader until hprof_compact hands the graph its read-back state. */
static uint64_t load_node_id(const graph *g, node_ix n)
{
    const rd *r = g->fmt_state;
    /* the index reads ids in node order (file order, mostly): the record
     * HPROF_PREFETCH_NODES nodes on is asked for now, so its miss overlaps this one */
    if ((uint64_t)n + HPROF_PREFETCH_NODES < g->n_nodes)
        __builtin_prefetch(r->d + rec_get(r, n + HPROF_PREFETCH_NODES));
    return rd_id(r->d + rec_get(r, n), r->ids);
}
static const graph_derive LOAD_DERIVE = {.node_id = load_node_id};

/* ---- class nodes in id order ---- */

typedef struct cnode {
    uint64_t id, off;
    uint8_t heap;
    class_ix cls;
    node_ix at; /* the first object whose id is above this class's */
} cnode;

static int cmp_cnode(const void *a, const void *b)
{
    uint64_t x = ((const cnode *)a)->id, y = ((const cnode *)b)->id;
    return x < y ? -1 : x > y;
}

/* Moves the per-node arrays of nodes [src, src + len) down to dst (dst <= src). */
static void move_nodes(rd *r, node_ix dst, node_ix src, uint32_t len)
{
    graph *g = r->g;
    if (dst == src || len == 0)
        return;
    memmove(r->rec32 + dst, r->rec32 + src, (size_t)len * sizeof *r->rec32);
    if (r->rec_hi)
        memmove(r->rec_hi + dst, r->rec_hi + src, (size_t)len * sizeof *r->rec_hi);
    if (g->node_class16)
        memmove(g->node_class16 + dst, g->node_class16 + src, (size_t)len * 2);
    else
        memmove(g->node_class + dst, g->node_class + src, (size_t)len * sizeof *g->node_class);
    memmove(g->node_kind + dst, g->node_kind + src, len); /* node_type is the same array */
    if (g->node_heap)
        memmove(g->node_heap + dst, g->node_heap + src, len);
}

/* HotSpot writes every CLASS_DUMP first and then the objects in address order, so with the
 * class nodes merged in by id the whole node order is id order, graph_build_index needs no
 * sort and id lookups walk memory forwards. Done only when the objects are ascending (pass
 * 2's scan of their ids, r->obj_ids, says so): a binary search over the objects' ids (read
 * back from their records: no id is kept per node) places each class after the objects
 * whose ids are not above its own, and the objects between two classes move down as one
 * run. *out: the scan of every node's id in the final order, for graph_build_index. */
static lr_status merge_class_nodes(rd *r, graph_id_scan *out)
{
    graph *g = r->g;
    uint32_t c = r->n_cls, n = g->n_nodes;
    graph_id_scan *obj = &r->obj_ids; /* nodes [c, n) */
    LR_ASSERT(obj->lo == c && obj->hi == n);
    if (c == 0 || c == n || !obj->sorted) {
        /* node order stays: the class nodes' ids, then the objects' */
        graph_id_scan_init(out, 0, n / 128 + 32);
        for (uint32_t i = 0; i < c; i++)
            graph_id_scan_add(out, g->classes[i].id);
        graph_id_scan_join(out, obj);
        return LR_OK;
    }
    graph_id_scan_init(out, 0, 0);
    LR_ASSERT(g->node_type == g->node_kind);
    cnode *t = err_mallocarray(c, sizeof *t);
    if (!t)
        return hprof_nomem(r);
    for (uint32_t i = 0; i < c; i++)
        t[i] = (cnode){g->classes[i].id, rec_get(r, i), g->node_heap ? g->node_heap[i] : 0, i,
                       0};
    qsort(t, c, sizeof *t, cmp_cnode);
    int strict = obj->strict;
    uint64_t spread = obj->spread | (t[0].id - obj->first);
    for (uint32_t k = 0; k < c; k++) {
        uint32_t lo = k ? t[k - 1].at : c, hi = n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (load_node_id(g, mid) <= t[k].id)
                lo = mid + 1;
            else
                hi = mid;
        }
        t[k].at = lo;
        if ((k && t[k - 1].id == t[k].id) || (lo > c && load_node_id(g, lo - 1) == t[k].id))
            strict = 0;
        spread |= t[k].id - t[0].id;
    }
    /* Objects [from, t[k].at) move down by the c - k classes not yet placed, class k follows
     * them; every move goes to lower nodes whose old contents have moved already. */
    uint32_t from = c;
    for (uint32_t k = 0; k <= c; k++) {
        uint32_t to = k < c ? t[k].at : n;
        move_nodes(r, from - (c - k), from, to - from);
        from = to;
        if (k == c)
            break;
        node_ix w = to - (c - k);
        rec_set(r, w, t[k].off);
        cls_put(g->node_class, g->node_class16, w, GRAPH_NONE);
        g->node_kind[w] = GRAPH_KIND_CLASS;
        if (g->node_heap)
            g->node_heap[w] = t[k].heap;
        g->classes[t[k].cls].node = w;
    }
    out->hi = n;
    out->sorted = 1;
    out->strict = strict;
    out->first = out->min = t[0].id < obj->min ? t[0].id : obj->min;
    uint64_t omax = graph_id_scan_max(obj);
    out->last = out->max = t[c - 1].id > omax ? t[c - 1].id : omax;
    out->spread = spread;
    graph_id_scan_free(obj);
    free(t);
    return LR_OK;
}

/* ---- pass 1 over the chosen dump ---- */

/* HPROF_NEED over the load context r. */
#define NEED(pos, need, end, what) HPROF_NEED(r->err, r->name, r->n, pos, need, end, what)

static lr_status heap_index(rd *r, uint32_t heap_id, uint64_t name_id, uint64_t at)
{
    for (uint32_t i = 0; i < r->n_heap_ids; i++)
        if (r->heaps[i].heap_id == heap_id)
            return LR_OK;
    if (r->n_heap_ids == GRAPH_MAX_HEAPS)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: offset 0x%llx: more than %d heaps", r->name,
                       (unsigned long long)at, GRAPH_MAX_HEAPS);
    graph *g = r->g;
    str_ix nm;
    LR_TRY(hprof_intern_id(r, name_id, &nm));
    uint32_t ix = 0;
    while (ix < g->n_heaps && g->heap_names[ix] != nm)
        ix++;
    if (ix == g->n_heaps) {
        if (g->n_heaps == GRAPH_MAX_HEAPS)
            return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: more than %d heaps", r->name,
                           GRAPH_MAX_HEAPS);
        g->heap_names[g->n_heaps++] = nm;
    }
    r->heaps[r->n_heap_ids++] = (heap_map){heap_id, (uint8_t)ix};
    return LR_OK;
}

static uint8_t heap_of(const rd *r, uint32_t heap_id)
{
    for (uint32_t i = 0; i < r->n_heap_ids; i++)
        if (r->heaps[i].heap_id == heap_id)
            return r->heaps[i].ix;
    return 0;
}

/* Default heap for objects before any HEAP_DUMP_INFO in a dump that has some. */
static lr_status default_heap(rd *r, uint8_t *out)
{
    graph *g = r->g;
    str_ix nm;
    LR_TRY(graph_intern(g, "default", 7, &nm, r->err));
    for (uint32_t i = 0; i < g->n_heaps; i++)
        if (g->heap_names[i] == nm) {
            *out = (uint8_t)i;
            return LR_OK;
        }
    if (g->n_heaps == GRAPH_MAX_HEAPS)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: more than %d heaps", r->name, GRAPH_MAX_HEAPS);
    g->heap_names[g->n_heaps] = nm;
    *out = (uint8_t)g->n_heaps++;
    return LR_OK;
}

/* Steps *top through top-level records up to `stop`; returns 1 with the body range of the
 * next HEAP_DUMP / HEAP_DUMP_SEGMENT record, 0 at stop. Record headers were bounds-checked
 * by the top-level scan. */
static int next_segment(const rd *r, uint64_t stop, uint64_t *top, uint64_t *seg,
                        uint64_t *end)
{
    while (*top < stop) {
        unsigned tag = r->d[*top];
        uint64_t body = *top + 9;
        *top = body + be32(r->d + *top + 5);
        if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT) {
            *seg = body;
            *end = *top;
            return 1;
        }
    }
    return 0;
}

uint64_t hprof_split_min_bytes = HPROF_SPLIT_MIN_BYTES;
unsigned hprof_splits;
int hprof_arr_table = 1;
unsigned hprof_arr_tables;

/* Pass 1 notes where pass 2's second thread starts: the first heap sub-record at or past half
 * the dump's bytes (inside its segment), with the node, root and class counts before it and
 * the heap its objects are in. */
static void note_split(rd *r, uint64_t at, uint64_t end, uint64_t top, uint8_t heap)
{
    r->split.pos = at;
    r->split.end = end;
    r->split.top = top;
    r->split.node = (node_ix)(r->n_inst + r->n_oarr + r->n_parr); /* before the class nodes */
    r->split.root = (uint32_t)r->n_roots;
    r->split.cls = r->n_cls;
    r->split.heap = heap;
}

/* One walk of pass 1 over the heap records of the top-level records [top, stop) with the
 * load context r, which it counts into. The walk's state is kept here so that the second half
 * of a split pass 1 can run on a copy of r and be added to the first half's after the join. */
typedef struct p1walk {
    uint64_t top, stop;     /* top-level records to walk */
    uint64_t split_at;      /* note pass 2's split at the first sub-record at or past it */
    uint8_t heap;           /* heap of the objects until the next HEAP_DUMP_INFO (in and out) */
    int objects_before_info; /* an object or class dump met while heap was NO_HEAP */
    int stop_at_info;       /* second half: give up at a HEAP_DUMP_INFO (heap names are shared) */
    int met_info;           /* gave up there: the first half's context walks the rest */
    progress *prog;         /* NULL: the other thread moves the bar */
    uint64_t nodata;        /* DIAG_PRIM_ARRAY_NODATA */
} p1walk;

/* An object's id met by pass 1 (rd.oid). */
static inline void oid_note(rd *r, uint64_t id)
{
    if (!r->oid.n++)
        r->oid.first = r->oid.min = r->oid.max = id;
    r->oid.min = id < r->oid.min ? id : r->oid.min;
    r->oid.max = id > r->oid.max ? id : r->oid.max;
    r->oid.spread |= id - r->oid.first;
}

static lr_status pass1_walk(rd *r, p1walk *w)
{
    const uint8_t *d = r->d;
    unsigned ids = r->ids;
    uint8_t heap = w->heap;
    uint64_t top = w->top, seg, end;
    while (next_segment(r, w->stop, &top, &seg, &end)) {
        uint64_t p = seg;
        while (p < end) {
            hprof_prefetch(d, r->n, p);
            if (w->prog)
                progress_update(w->prog, p);
            if (p >= w->split_at) {
                note_split(r, p, end, top, heap);
                w->split_at = UINT64_MAX;
            }
            unsigned tag = d[p];
            uint64_t at = p++;
            unsigned rb = root_body(tag, ids);
            if (rb) {
                NEED(p, rb, end, "GC root record");
                p += rb;
                r->n_roots++;
                continue;
            }
            switch (tag) {
            case SUB_INSTANCE_DUMP: {
                NEED(p, 2 * ids + 8, end, "INSTANCE_DUMP");
                oid_note(r, rd_id(d + p, ids));
                uint32_t nb = be32(d + p + 2 * ids + 4);
                p += 2 * ids + 8;
                NEED(p, nb, end, "INSTANCE_DUMP field bytes");
                p += nb;
                r->n_inst++;
                if (heap == NO_HEAP)
                    w->objects_before_info = 1;
                break;
            }
            case SUB_OBJ_ARRAY_DUMP: {
                NEED(p, 2 * ids + 8, end, "OBJECT_ARRAY_DUMP");
                oid_note(r, rd_id(d + p, ids));
                uint32_t len = be32(d + p + ids + 4);
                p += 2 * ids + 8;
                NEED(p, (uint64_t)len * ids, end, "OBJECT_ARRAY_DUMP elements");
                p += (uint64_t)len * ids;
                r->n_oarr++;
                if (heap == NO_HEAP)
                    w->objects_before_info = 1;
                break;
            }
            case SUB_PRIM_ARRAY_DUMP:
            case SUB_PRIM_ARRAY_NODATA: {
                NEED(p, ids + 9, end, "PRIMITIVE_ARRAY_DUMP");
                oid_note(r, rd_id(d + p, ids));
                uint32_t len = be32(d + p + ids + 4);
                unsigned t = d[p + ids + 8], sz = type_size(t, ids);
                if (!sz || t == GRAPH_FT_OBJECT)
                    return LR_CORRUPT(r->err, r->name, p + ids + 8,
                                      "primitive array of bad element type %u", t);
                p += ids + 9;
                if (tag == SUB_PRIM_ARRAY_DUMP) {
                    NEED(p, (uint64_t)len * sz, end, "PRIMITIVE_ARRAY_DUMP elements");
                    p += (uint64_t)len * sz;
                } else {
                    w->nodata++;
                }
                if (!(r->prim_seen & 1u << t)) {
                    r->prim_seen |= 1u << t;
                    r->prim_order[r->n_prim_order++] = (uint8_t)t;
                }
                r->n_parr++;
                if (heap == NO_HEAP)
                    w->objects_before_info = 1;
                break;
            }
            case SUB_CLASS_DUMP: {
                uint64_t ce = p;
                uint32_t nst = 0, nf = 0;
                LR_TRY(hprof_class_dump_end(r, p, end, &ce, &nst, &nf));
                PUSH(r, r->cls, r->n_cls, r->cap_cls);
                r->cls[r->n_cls++] = (cls_rec){p, ce, heap};
                r->n_statics += nst;
                r->n_fields += nf;
                if (heap == NO_HEAP)
                    w->objects_before_info = 1;
                p = ce;
                break;
            }
            case SUB_HEAP_DUMP_INFO: {
                if (w->stop_at_info) {
                    w->met_info = 1;
                    return LR_OK;
                }
                NEED(p, 4 + ids, end, "HEAP_DUMP_INFO");
                uint32_t hid = be32(d + p);
                LR_TRY(heap_index(r, hid, rd_id(d + p + 4, ids), at));
                heap = heap_of(r, hid);
                r->have_heap_info = 1;
                p += 4 + ids;
                break;
            }
            default:
                return LR_CORRUPT(r->err, r->name, at, "unknown heap dump sub-record tag 0x%02x",
                                  tag);
            }
        }
    }
    w->heap = heap;
    return LR_OK;
}

unsigned hprof_pass1_splits;

/* The top-level record where a split pass 1's second half starts: the first HEAP_DUMP or
 * HEAP_DUMP_SEGMENT at or past half the dump's bytes, if one is and it is not the first;
 * else 0. HotSpot writes segments of about 1 MB, so the halves differ by about that much.
 * Record headers were bounds-checked by the top-level scan. */
static uint64_t pass1_split_top(const rd *r, const hprof_dump *dd)
{
    if (dd->length < hprof_split_min_bytes || dd->length < 2)
        return 0;
    uint64_t mid = dd->offset + dd->length / 2, stop = dd->offset + dd->length;
    int first = 1;
    for (uint64_t t = dd->offset; t < stop; t += 9 + (uint64_t)be32(r->d + t + 5)) {
        if (r->d[t] != TAG_HEAP_DUMP && r->d[t] != TAG_HEAP_DUMP_SEGMENT)
            continue;
        if (t >= mid)
            return first ? 0 : t;
        first = 0;
    }
    return 0;
}

typedef struct p1half {
    rd r;        /* a copy of the load context with its own counters, classes and error */
    p1walk w;
    lr_error err;
    lr_status st;
} p1half;

static void *pass1_thread(void *arg)
{
    p1half *h = arg;
    h->st = pass1_walk(&h->r, &h->w);
    return NULL;
}

/* Adds the second half's counts, classes and primitive array types to r's, as one walk over
 * both halves would have counted them. The second half met no HEAP_DUMP_INFO, so its
 * objects are in the heap the first half ended in. */
static lr_status pass1_merge(rd *r, const p1half *h, p1walk *w)
{
    const rd *b = &h->r;
    r->n_roots += b->n_roots;
    r->n_inst += b->n_inst;
    r->n_oarr += b->n_oarr;
    r->n_parr += b->n_parr;
    r->n_statics += b->n_statics;
    r->n_fields += b->n_fields;
    if (!r->oid.n) {
        r->oid = b->oid;
    } else if (b->oid.n) {
        r->oid.min = b->oid.min < r->oid.min ? b->oid.min : r->oid.min;
        r->oid.max = b->oid.max > r->oid.max ? b->oid.max : r->oid.max;
        r->oid.spread |= b->oid.spread | (b->oid.first - r->oid.first);
        r->oid.n += b->oid.n;
    }
    w->nodata += h->w.nodata;
    if (w->heap == NO_HEAP && h->w.objects_before_info)
        w->objects_before_info = 1;
    for (uint32_t i = 0; i < b->n_cls; i++) {
        PUSH(r, r->cls, r->n_cls, r->cap_cls);
        r->cls[r->n_cls++] = (cls_rec){b->cls[i].off, b->cls[i].end, w->heap};
    }
    for (uint32_t k = 0; k < b->n_prim_order; k++) {
        unsigned t = b->prim_order[k];
        if (!(r->prim_seen & 1u << t)) {
            r->prim_seen |= 1u << t;
            r->prim_order[r->n_prim_order++] = (uint8_t)t;
        }
    }
    return LR_OK;
}

/* Counts objects, roots and class dumps of the chosen dump. A dump of
 * HPROF_SPLIT_MIN_BYTES or more with several segments is walked on two threads, split
 * at a segment boundary (pass1_split_top), where pass 2 then splits too. The second half runs
 * on a copy of the load context and is added after the join; its first error counts only if
 * the first half has none, so errors are the ones one walk in file order reports. A second
 * half that meets a HEAP_DUMP_INFO (Android) stops there and the first half's context walks
 * it again after the first half. */
static lr_status pass1(rd *r, const hprof_dump *dd)
{
    uint64_t stop = dd->offset + dd->length;
    /* pass 2's split point: half the dump, when the dump is big enough to gain from two
     * threads; noted by the walk when pass 1 runs whole */
    uint64_t split_at = dd->length >= hprof_split_min_bytes && dd->length >= 2
                            ? dd->offset + dd->length / 2
                            : UINT64_MAX;
    p1walk w = {.top = dd->offset, .stop = stop, .split_at = split_at, .heap = NO_HEAP,
                .prog = &r->prog};
    uint64_t bt = pass1_split_top(r, dd);
    p1half *h = bt ? err_calloc(1, sizeof *h) : NULL;
    pthread_t th;
    int threaded = 0;
    if (h) {
        h->r = *r;
        h->r.cls = NULL;
        h->r.n_cls = h->r.cap_cls = 0;
        h->r.n_roots = h->r.n_inst = h->r.n_oarr = h->r.n_parr = 0;
        h->r.n_statics = h->r.n_fields = 0;
        memset(&h->r.oid, 0, sizeof h->r.oid);
        h->r.prim_seen = 0;
        h->r.n_prim_order = 0;
        h->r.err = &h->err;
        h->w = (p1walk){.top = bt, .stop = stop, .split_at = UINT64_MAX, .heap = NO_HEAP,
                        .stop_at_info = 1};
        threaded = pthread_create(&th, NULL, pass1_thread, h) == 0;
        if (threaded) {
            w.stop = bt;
            w.split_at = UINT64_MAX;
        }
    }
    lr_status st = pass1_walk(r, &w);
    if (threaded) {
        pthread_join(th, NULL);
        __atomic_add_fetch(&hprof_pass1_splits, 1, __ATOMIC_RELAXED);
        if (st == LR_OK && h->st != LR_OK) {
            *r->err = h->err;
            st = h->st;
        }
        if (st == LR_OK && h->w.met_info) {
            w.top = bt; /* walk the second half again, in order, with the heap names */
            w.stop = stop;
            w.split_at = split_at;
            st = pass1_walk(r, &w);
        } else if (st == LR_OK) {
            /* pass 2 splits where pass 1 did: the counts before bt are the first half's */
            uint64_t seg = bt + 9, end = seg + be32(r->d + bt + 5);
            if (split_at != UINT64_MAX)
                note_split(r, seg, end, end, w.heap);
            st = pass1_merge(r, h, &w);
        }
    }
    if (h)
        free(h->r.cls);
    free(h);
    LR_TRY(st);
    diag_add(&r->g->diag, DIAG_PRIM_ARRAY_NODATA, w.nodata);
    if (r->have_heap_info && w.objects_before_info) {
        uint8_t dh = 0;
        LR_TRY(default_heap(r, &dh));
        r->default_heap = dh;
        for (uint32_t i = 0; i < r->n_cls; i++)
            if (r->cls[i].heap == NO_HEAP)
                r->cls[i].heap = dh;
    }
    return LR_OK;
}

/* ---- pass 2: fill nodes and roots ---- */

/* One thread's share of pass 2: the heap records of top-level records [top, stop), filling
 * nodes from ni and roots from root on. Diagnostics are counted here and added after the
 * join, so the two threads share no counter. */
typedef struct p2part {
    rd *r;
    uint64_t pos, end;     /* a first record range inside a segment, or 0, 0 */
    uint64_t top, stop;    /* then the top-level records [top, stop) */
    uint64_t cut;          /* stop at this heap sub-record (UINT64_MAX: none) */
    node_ix ni;            /* next node */
    uint32_t root;         /* next root */
    uint32_t next_cls;     /* CLASS_DUMPs passed */
    uint8_t heap;          /* heap of the objects until the next HEAP_DUMP_INFO */
    int progress;          /* this part moves the progress bar */
    unsigned lane;         /* its lane of the rank index's bits (graph_id_bits) */
    uint64_t unknown_class; /* DIAG_UNKNOWN_CLASS */
    uint64_t saturated;     /* DIAG_SIZE_SATURATED */
    uint64_t shallow;       /* sizes of the nodes filled (graph.shallow_total) */
    /* rd.arr_len: the first part writes its arrays' lengths from the start on, the second
     * (whose first rank is not known until the first ends) from the end down, reversed
     * after the join; arr_n counts them, arr_bad stops a part that would pass the end */
    uint64_t arr_n;
    int arr_down, arr_bad;
    graph_id_scan ids;      /* the ids of the nodes filled, with edges (rd.obj_ids) */
    lr_error err;
    lr_status st;
} p2part;

static inline uint32_t sat32_part(p2part *w, uint64_t v)
{
    if (v > UINT32_MAX) {
        w->saturated++;
        return UINT32_MAX;
    }
    return (uint32_t)v;
}

/* Notes an array's length (rd.arr_len); ok 0 drops the table (a primitive array whose
 * class names another element type: its size could not be told from its length). */
static inline void arr_note(p2part *w, uint32_t len, int ok)
{
    rd *r = w->r;
    uint64_t n = r->n_oarr + r->n_parr;
    if (!r->arr_len || w->arr_bad)
        return;
    if (w->arr_n >= n || !ok) {
        w->arr_bad = 1;
        return;
    }
    r->arr_len[w->arr_down ? n - 1 - w->arr_n : w->arr_n] = len;
    w->arr_n++;
}

static inline uint32_t vv_array(p2part *w, unsigned elsize, uint32_t len)
{
    uint64_t am = w->r->obj_align - 1;
    return sat32_part(w, ((uint64_t)w->r->arr_base + (uint64_t)elsize * len + am) & ~am);
}

static uint8_t root_kind(unsigned tag)
{
    switch (tag) {
    case SUB_ROOT_JNI_GLOBAL: return GRAPH_ROOT_JNI_GLOBAL;
    case SUB_ROOT_JNI_LOCAL: return GRAPH_ROOT_JNI_LOCAL;
    case SUB_ROOT_JAVA_FRAME: return GRAPH_ROOT_JAVA_FRAME;
    case SUB_ROOT_NATIVE_STACK: return GRAPH_ROOT_NATIVE_STACK;
    case SUB_ROOT_STICKY_CLASS: return GRAPH_ROOT_STICKY_CLASS;
    case SUB_ROOT_THREAD_BLOCK: return GRAPH_ROOT_THREAD_BLOCK;
    case SUB_ROOT_MONITOR_USED: return GRAPH_ROOT_MONITOR_USED;
    case SUB_ROOT_THREAD_OBJECT: return GRAPH_ROOT_THREAD_OBJECT;
    case SUB_ROOT_INTERNED_STRING: return GRAPH_ROOT_INTERNED_STRING;
    case SUB_ROOT_FINALIZING: return GRAPH_ROOT_FINALIZING;
    case SUB_ROOT_DEBUGGER: return GRAPH_ROOT_DEBUGGER;
    case SUB_ROOT_REFERENCE_CLEANUP: return GRAPH_ROOT_REFERENCE_CLEANUP;
    case SUB_ROOT_VM_INTERNAL: return GRAPH_ROOT_VM_INTERNAL;
    case SUB_ROOT_JNI_MONITOR: return GRAPH_ROOT_JNI_MONITOR;
    case SUB_ROOT_UNREACHABLE: return GRAPH_ROOT_UNREACHABLE;
    }
    return GRAPH_ROOT_UNKNOWN;
}

/* What pass 2 notes of each object record when it fills the nodes' identities (full): its
 * offset, and its id (read by the caller) for the scan and, when pass 1 set them up, the
 * rank index's bits. */
static inline __attribute__((always_inline)) void obj_note(uint32_t *rec32, uint16_t *rec_hi,
                                                           graph_id_scan *sc,
                                                           graph_id_bits *bits,
                                                           graph_id_bits_cur *bcur,
                                                           node_ix ni, uint64_t p,
                                                           uint64_t id)
{
    rec32[ni] = (uint32_t)p; /* rec_set, with the arrays in registers */
    if (rec_hi)
        rec_hi[ni] = (uint16_t)(p >> 32);
    graph_id_scan_add(sc, id);
    if (bits)
        graph_id_bits_add(bits, bcur, id);
}

/* The census (rd.blk_slots) of one thread: slots add up in *acc while the nodes stay in
 * block *blk and reach the shared table once per block; the two threads may share the block
 * their ranges meet in, hence the atomic add. */
static inline void slots_add(rd *r, uint32_t *blk, uint64_t *acc, node_ix ni, uint64_t k)
{
    uint32_t b = ni / HP_SLOT_BLOCK;
    if (b != *blk) {
        if (*acc)
            __atomic_add_fetch(&r->blk_slots[*blk], *acc, __ATOMIC_RELAXED);
        *blk = b;
        *acc = 0;
    }
    *acc += k;
}

/* The exact census (rd.exact_slots): an instance's non-null reference fields, as the edge
 * walk reads them (a short instance's missing fields are absent), and an object array's
 * non-null elements. Pass 2 has the record in cache; the walk reads it again later. */
static uint32_t inst_refs(const rd *r, class_ix c, const uint8_t *fb, uint32_t len)
{
    uint32_t k = 0;
    for (uint32_t j = r->first_ref[c], je = r->first_ref[c + 1]; j < je; j++) {
        uint32_t off = r->refs[j].off;
        if ((uint64_t)off + r->ids > len)
            break;
        k += rd_id(fb + off, r->ids) != 0;
    }
    return k;
}

static uint64_t arr_refs(const uint8_t *el, uint32_t len, unsigned ids)
{
    uint64_t k = 0;
    for (uint32_t j = 0; j < len; j++)
        k += rd_id(el + (uint64_t)j * ids, ids) != 0;
    return k;
}

static lr_status pass2_run(p2part *w)
{
    rd *r = w->r;
    graph *g = r->g;
    const uint8_t *d = r->d;
    const unsigned ids = r->ids;
    const int shark = r->android;
    const int full = !r->no_edges;
    graph_id_scan *sc = &w->ids;
    uint32_t *nsize = g->node_size; /* only without edges: otherwise read back (hp_node_size) */
    class_ix *ncls = g->node_class;
    uint16_t *ncls16 = g->node_class16;
    uint8_t *nkind = g->node_kind, *ntype = g->node_type, *nheap = g->node_heap;
    uint32_t *rec32 = r->rec32;
    uint16_t *rec_hi = r->rec_hi;
    uint8_t heap = w->heap;
    node_ix ni = w->ni;
    uint32_t nroot = w->root, next_cls = w->next_cls;
    uint64_t last_cid = 0;
    class_ix last_c = GRAPH_NONE;
    uint32_t last_size = 0, last_slots = 0;
    uint64_t shallow = 0;
    int have_last = 0;
    const uint32_t *cls_slots = r->cls_slots;
    const int exact = r->exact_slots;
    uint32_t sblk = w->ni / HP_SLOT_BLOCK;
    uint64_t sacc = 0;
    graph_id_bits *bits = r->bits.blk ? &r->bits : NULL;
    graph_id_bits_cur bcur = GRAPH_ID_BITS_CUR(w->lane);
    uint64_t top = w->top, seg = w->pos, end = w->end;
    for (int first = seg != 0;; first = 0) {
        if (!first && !next_segment(r, w->stop, &top, &seg, &end))
            break;
        if (seg >= w->cut)
            break;
        if (end > w->cut)
            end = w->cut; /* the first part ends inside this segment */
        uint64_t p = seg;
        while (p < end) {
            hprof_prefetch(d, r->n, p);
            if (w->progress)
                progress_update(&r->prog, r->n + p);
            unsigned tag = d[p];
            p++;
            unsigned rb = root_body(tag, ids);
            if (rb) {
                if (full) {
                    graph_root *rt = &g->roots[nroot];
                    r->root_ids[nroot] = rd_id(d + p, ids);
                    rt->kind = root_kind(tag);
                    rt->thread = 0;
                    rt->frame = -1;
                    if (tag == SUB_ROOT_JNI_LOCAL || tag == SUB_ROOT_JAVA_FRAME ||
                        tag == SUB_ROOT_JNI_MONITOR) {
                        rt->thread = be32(d + p + ids);
                        rt->frame = (int32_t)be32(d + p + ids + 4);
                    } else if (tag == SUB_ROOT_NATIVE_STACK || tag == SUB_ROOT_THREAD_BLOCK ||
                               tag == SUB_ROOT_THREAD_OBJECT) {
                        rt->thread = be32(d + p + ids);
                        if (tag == SUB_ROOT_THREAD_OBJECT)
                            rt->frame = (int32_t)be32(d + p + ids + 4); /* trace serial, kept
                                                                         * until threads */
                    }
                    nroot++;
                }
                p += rb;
                continue;
            }
            switch (tag) {
            case SUB_INSTANCE_DUMP: {
                uint64_t cid = rd_id(d + p + ids + 4, ids);
                uint32_t nb = be32(d + p + 2 * ids + 4);
                if (!have_last || cid != last_cid) {
                    last_cid = cid;
                    have_last = 1;
                    last_c = class_find(r, cid);
                    if (last_c == GRAPH_NONE)
                        last_size = shark ? 0
                                          : ((r->min_inst + r->obj_align - 1) &
                                             ~(r->obj_align - 1));
                    else
                        last_size = shark ? g->classes[last_c].instance_size : r->vv_size[last_c];
                    last_slots = full && last_c != GRAPH_NONE ? cls_slots[last_c] : 0;
                }
                if (last_c == GRAPH_NONE)
                    w->unknown_class++;
                if (full) {
                    obj_note(rec32, rec_hi, sc, bits, &bcur, ni, p, rd_id(d + p, ids));
                    /* no more slots than the record's bytes hold references: a class of
                     * 65,535 reference fields and 30,000 empty records of it asked 7.9 GB of
                     * a 1.3 MB file */
                    uint32_t k = exact && last_slots
                                     ? inst_refs(r, last_c, d + p + 2 * ids + 8, nb)
                                 : (uint64_t)last_slots * ids > nb ? nb / ids
                                                                   : last_slots;
                    slots_add(r, &sblk, &sacc, ni, k);
                }
                cls_put(ncls, ncls16, ni, last_c);
                uint32_t isz = last_size;
                if (last_c == r->chunk.cls && last_c != GRAPH_NONE && !shark)
                    isz = hprof_chunk_size(&r->chunk, d + p + 2 * ids + 8, nb, last_size);
                if (nsize)
                    nsize[ni] = isz;
                shallow += isz;
                nkind[ni] = GRAPH_KIND_INSTANCE;
                ntype[ni] = GRAPH_KIND_INSTANCE;
                if (nheap)
                    nheap[ni] = heap;
                ni++;
                p += 2 * ids + 8 + nb;
                break;
            }
            case SUB_OBJ_ARRAY_DUMP: {
                uint32_t len = be32(d + p + ids + 4);
                uint64_t cid = rd_id(d + p + ids + 8, ids);
                class_ix c = class_find(r, cid);
                if (c == GRAPH_NONE)
                    w->unknown_class++;
                if (full) {
                    obj_note(rec32, rec_hi, sc, bits, &bcur, ni, p, rd_id(d + p, ids));
                    slots_add(r, &sblk, &sacc, ni,
                              exact ? arr_refs(d + p + 2 * ids + 8, len, ids) : len);
                }
                cls_put(ncls, ncls16, ni, c);
                uint32_t sz = shark ? sat32_part(w, (uint64_t)len * ids) : vv_array(w, r->oop, len);
                if (nsize)
                    nsize[ni] = sz;
                else
                    arr_note(w, len, 1);
                shallow += sz;
                nkind[ni] = GRAPH_KIND_OBJ_ARRAY;
                ntype[ni] = GRAPH_KIND_OBJ_ARRAY;
                if (nheap)
                    nheap[ni] = heap;
                ni++;
                p += 2 * ids + 8 + (uint64_t)len * ids;
                break;
            }
            case SUB_PRIM_ARRAY_DUMP:
            case SUB_PRIM_ARRAY_NODATA: {
                uint32_t len = be32(d + p + ids + 4);
                unsigned t = d[p + ids + 8], sz = type_size(t, ids);
                class_ix c = r->prim_class[t]; /* made before pass 2 (pass2) */
                if (full) {
                    obj_note(rec32, rec_hi, sc, bits, &bcur, ni, p, rd_id(d + p, ids));
                }
                cls_put(ncls, ncls16, ni, c);
                uint32_t size = shark ? sat32_part(w, (uint64_t)len * sz) : vv_array(w, sz, len);
                if (nsize)
                    nsize[ni] = size;
                else
                    arr_note(w, len, c < g->n_classes &&
                                         type_size(g->classes[c].elem_type, ids) == sz);
                shallow += size;
                nkind[ni] = GRAPH_KIND_PRIM_ARRAY;
                ntype[ni] = GRAPH_KIND_PRIM_ARRAY;
                if (nheap)
                    nheap[ni] = heap;
                ni++;
                p += ids + 9;
                if (tag == SUB_PRIM_ARRAY_DUMP)
                    p += (uint64_t)len * sz;
                break;
            }
            case SUB_CLASS_DUMP: {
                LR_ASSERT(next_cls < r->n_cls && r->cls[next_cls].off == p);
                p = r->cls[next_cls].end;
                next_cls++;
                break;
            }
            case SUB_HEAP_DUMP_INFO:
                heap = heap_of(r, be32(d + p));
                p += 4 + ids;
                break;
            default:
                return LR_CORRUPT(&w->err, r->name, p - 1,
                                  "unknown heap dump sub-record tag 0x%02x", tag);
            }
        }
    }
    LR_ASSERT(!full || sc->hi == ni);
    if (sacc)
        __atomic_add_fetch(&r->blk_slots[sblk], sacc, __ATOMIC_RELAXED);
    if (bits)
        graph_id_bits_flush(bits, &bcur);
    w->ni = ni;
    w->root = nroot;
    w->shallow = shallow;
    return LR_OK;
}

static void *pass2_thread(void *arg)
{
    p2part *w = arg;
    w->st = pass2_run(w);
    return NULL;
}

/* The tables of pass 2's census (rd.cls_slots, rd.blk_slots): each class's reference slots
 * counted as hprof_build_layouts lays them out (object fields of the class and its supers),
 * and the per-block sums zeroed. */
static lr_status slot_tables(rd *r)
{
    graph *g = r->g;
    uint32_t nc = g->n_classes;
    r->cls_slots = err_mallocarray(nc + 1, sizeof *r->cls_slots);
    r->blk_slots = err_calloc(g->n_nodes / HP_SLOT_BLOCK + 1, sizeof *r->blk_slots);
    if (!r->cls_slots || !r->blk_slots)
        return hprof_nomem(r);
    for (class_ix c = 0; c < nc; c++) {
        uint64_t nref = 0;
        for (class_ix k = c; k != GRAPH_NONE; k = g->classes[k].super)
            for (uint32_t f = 0; f < g->classes[k].n_fields; f++)
                nref += g->fields[g->classes[k].first_field + f].type == GRAPH_FT_OBJECT;
        r->cls_slots[c] = nref > UINT32_MAX ? UINT32_MAX : (uint32_t)nref;
    }
    return LR_OK;
}

/* The rank index's bits for pass 2 to set (rd.bits): the range and spacing of the ids pass 1
 * met, the class nodes' included, whose bits are set here. */
static void id_bits_init(rd *r)
{
    const graph *g = r->g;
    uint64_t first = r->oid.n ? r->oid.first : r->n_cls ? g->classes[0].id : 0;
    uint64_t min = r->oid.n ? r->oid.min : UINT64_MAX, max = r->oid.n ? r->oid.max : 0;
    uint64_t spread = r->oid.n ? r->oid.spread : 0;
    for (uint32_t i = 0; i < r->n_cls; i++) {
        uint64_t id = g->classes[i].id;
        min = id < min ? id : min;
        max = id > max ? id : max;
        spread |= id - first;
    }
    graph_id_bits_init(&r->bits, g->n_nodes, min, max, spread);
    if (!r->bits.blk)
        return;
    graph_id_bits_cur c = GRAPH_ID_BITS_CUR(0);
    for (uint32_t i = 0; i < r->n_cls; i++)
        graph_id_bits_add(&r->bits, &c, g->classes[i].id);
    graph_id_bits_flush(&r->bits, &c);
}

/* Fills nodes and roots. A large dump is split where pass 1 noted (note_split): the two
 * halves start from known node, root and class positions and write disjoint ranges, on two
 * threads; primitive array classes the dump lacks are made first, in the order of their first
 * array, which is the order one sequential pass made them in. */
static lr_status pass2(rd *r, const hprof_dump *dd)
{
    graph *g = r->g;
    const int shark = r->android;
    const int full = !r->no_edges;
    for (uint32_t k = 0; k < r->n_prim_order; k++) {
        class_ix c;
        LR_TRY(hprof_synth_prim_class(r, r->prim_order[k], &c));
    }
    /* load's choice of 16-bit classes left room for these (at most 8: types 4..11) */
    LR_ASSERT(!g->node_class16 || g->n_classes <= GRAPH_CLASS16_MAX);
    if (full) {
        LR_TRY(slot_tables(r));
        id_bits_init(r);
        r->edges_back = hprof_edges_backward_for(r->n);
        if (r->edges_back && !r->count_edges) {
            /* the census counts the slots that will be edges: it reads them through the
             * layouts, made now rather than after the roots */
            LR_TRY(hprof_build_layouts(r));
            r->exact_slots = 1;
        }
    }
    uint64_t stop = dd->offset + dd->length;
    p2part parts[2];
    memset(parts, 0, sizeof parts);
    parts[0] = (p2part){.r = r, .top = dd->offset, .stop = stop, .cut = UINT64_MAX,
                        .ni = r->n_cls, .heap = r->default_heap, .progress = 1};
    uint32_t n_parts = 1;
    if (r->split.pos) {
        parts[0].cut = r->split.pos;
        parts[1] = (p2part){.r = r, .lane = 1, .pos = r->split.pos, .end = r->split.end,
                            .top = r->split.top, .stop = stop, .cut = UINT64_MAX,
                            .ni = r->n_cls + r->split.node, .root = r->split.root,
                            .next_cls = r->split.cls,
                            .heap = r->split.heap == NO_HEAP ? r->default_heap : r->split.heap};
        n_parts = 2;
        __atomic_add_fetch(&hprof_splits, 1, __ATOMIC_RELAXED);
    }
    uint64_t n_arr = r->n_oarr + r->n_parr;
    if (full && n_arr && hprof_arr_table)
        r->arr_len = err_mallocarray(n_arr, sizeof *r->arr_len); /* else read back */
    parts[1].arr_down = 1;
    uint32_t cap = g->n_nodes / 128 + 32; /* run starts (graph_id_scan) */
    for (uint32_t k = 0; k < 2; k++)
        graph_id_scan_init(&parts[k].ids, parts[k].ni, cap);
    par_two(pass2_thread, &parts[0], &parts[1], n_parts == 2);
    r->obj_ids = parts[0].ids;
    if (n_parts == 2)
        graph_id_scan_join(&r->obj_ids, &parts[1].ids);
    else
        graph_id_scan_free(&parts[1].ids);
    if (r->arr_len) {
        uint64_t n0 = parts[0].arr_n, n1 = parts[1].arr_n;
        if (parts[0].arr_bad || parts[1].arr_bad || n0 + n1 != n_arr) {
            free(r->arr_len);
            r->arr_len = NULL;
        } else {
            for (uint64_t i = n0, j = n_arr - 1; i < j; i++, j--) {
                uint32_t t = r->arr_len[i];
                r->arr_len[i] = r->arr_len[j];
                r->arr_len[j] = t;
            }
        }
    }
    uint64_t shallow = 0;
    for (uint32_t k = 0; k < n_parts; k++) {
        diag_add(&g->diag, DIAG_UNKNOWN_CLASS, parts[k].unknown_class);
        diag_add(&g->diag, DIAG_SIZE_SATURATED, parts[k].saturated);
        shallow += parts[k].shallow;
    }
    for (uint32_t k = 0; k < n_parts; k++)
        if (parts[k].st != LR_OK) {
            *r->err = parts[k].err;
            return parts[k].st;
        }
    LR_ASSERT(n_parts == 1 || parts[0].ni == r->n_cls + r->split.node);
    node_ix ni = parts[n_parts - 1].ni;
    uint32_t nroot = parts[n_parts - 1].root;
    uint32_t *nsize = g->node_size;
    class_ix *ncls = g->node_class;
    uint16_t *ncls16 = g->node_class16;
    uint8_t *nkind = g->node_kind, *ntype = g->node_type, *nheap = g->node_heap;
    LR_ASSERT(ni == g->n_nodes);
    /* Class nodes. */
    for (uint32_t i = 0; i < r->n_cls; i++) {
        if (full)
            rec_set(r, i, r->cls[i].off);
        cls_put(ncls, ncls16, i, GRAPH_NONE);
        uint32_t sz = shark ? sat32(r, r->cls[i].end - r->cls[i].off + 1) : r->class_obj_size;
        if (nsize)
            nsize[i] = sz;
        shallow += sz;
        nkind[i] = GRAPH_KIND_CLASS;
        ntype[i] = GRAPH_KIND_CLASS;
        if (nheap)
            nheap[i] = r->cls[i].heap == NO_HEAP ? 0 : r->cls[i].heap;
    }
    if (full)
        g->n_roots = nroot;
    g->shallow_total = shallow;
    g->shallow_known = 1;
    return LR_OK;
}

/* ---- roots and threads ---- */

static int cmp_frame(const void *a, const void *b)
{
    uint64_t x = ((const frame_ent *)a)->id, y = ((const frame_ent *)b)->id;
    return x < y ? -1 : x > y;
}
static int cmp_trace(const void *a, const void *b)
{
    uint32_t x = ((const trace_ent *)a)->serial, y = ((const trace_ent *)b)->serial;
    return x < y ? -1 : x > y;
}

static int cmp_root(const void *a, const void *b, void *ctx)
{
    const graph_root *roots = ctx;
    const graph_root *x = &roots[*(const uint32_t *)a], *y = &roots[*(const uint32_t *)b];
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Threads come from THREAD_OBJECT roots (dangling ones included, node GRAPH_NONE). */
/* A LOAD_CLASS record's serial and index, for the frames' class lookup. */
typedef struct lc_serial {
    uint32_t serial, ix;
} lc_serial;

static int cmp_lc_serial(const void *pa, const void *pb)
{
    const lc_serial *a = pa, *b = pb;
    if (a->serial != b->serial)
        return a->serial < b->serial ? -1 : 1;
    return a->ix < b->ix ? -1 : a->ix > b->ix; /* the first record of a serial wins */
}

static int cmp_thread_serial(const void *pa, const void *pb, void *ctx)
{
    const graph_thread *th = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (th[a].serial != th[b].serial)
        return th[a].serial < th[b].serial ? -1 : 1;
    return a < b ? -1 : a > b; /* the first thread of a serial, as the scan found */
}

/* The frames of one STACK_TRACE record, interned into g->frames[fo..fo+cnt). */
static lr_status trace_frames(rd *r, const trace_ent *tr, const lc_serial *ls, uint32_t fo)
{
    graph *g = r->g;
    const uint8_t *d = r->d;
    unsigned ids = r->ids;
    uint32_t cnt = be32(d + tr->off + 8);
    for (uint32_t k = 0; k < cnt; k++) {
        uint64_t fid = rd_id(d + tr->off + 12 + (uint64_t)k * ids, ids);
        frame_ent fk = {fid, 0};
        frame_ent *fr =
            r->n_frames ? bsearch(&fk, r->frames, r->n_frames, sizeof fk, cmp_frame) : NULL;
        graph_frame *gf = &g->frames[fo + k];
        gf->method = gf->signature = gf->source = gf->class_name = GRAPH_NONE;
        gf->line = -1;
        if (!fr)
            continue;
        const uint8_t *b = d + fr->off;
        LR_TRY(hprof_intern_id(r, rd_id(b + ids, ids), &gf->method));
        LR_TRY(hprof_intern_id(r, rd_id(b + 2 * ids, ids), &gf->signature));
        uint64_t src = rd_id(b + 3 * ids, ids);
        if (src && hprof_find_str(r, src))
            LR_TRY(hprof_intern_id(r, src, &gf->source));
        uint32_t cser = be32(b + 4 * ids);
        gf->line = (int32_t)be32(b + 4 * ids + 4);
        uint32_t lo;
        SEARCH_LOWER_BOUND(uint32_t, 0, r->n_lcs, ls[search_mid].serial < cser, lo);
        if (lo < r->n_lcs && ls[lo].serial == cser)
            LR_TRY(hprof_intern_class_name(r, r->lcs[ls[lo].ix].name_id, &gf->class_name));
    }
    return LR_OK;
}

/* The threads and their frames. The frames of a STACK_TRACE record are interned once and
 * shared by every thread naming it (a thread's frames are a range of g->frames): per thread,
 * 4,000 threads naming one 1,000,000-frame trace of an 8 MB file asked for 80 GB. A frame's
 * class is found by its serial in a sorted index of the LOAD_CLASS records, not by a scan of
 * them per frame (100,000 records and 3,000,000 frames were a hang on a 3.5 MB file). */
static lr_status build_threads(rd *r, const uint32_t *thr_serial, const uint32_t *thr_trace,
                               const node_ix *thr_node, uint32_t n_thr)
{
    graph *g = r->g;
    const uint8_t *d = r->d;
    if (!n_thr)
        return LR_OK;
    if (r->n_frames)
        qsort(r->frames, r->n_frames, sizeof *r->frames, cmp_frame);
    if (r->n_traces)
        qsort(r->traces, r->n_traces, sizeof *r->traces, cmp_trace);
    lr_status st = LR_OK;
    lc_serial *ls = err_mallocarray(r->n_lcs ? r->n_lcs : 1, sizeof *ls);
    uint32_t *first = err_mallocarray(r->n_traces ? r->n_traces : 1, sizeof *first);
    if (!ls || !first) {
        st = hprof_nomem(r);
        goto out;
    }
    for (uint32_t l = 0; l < r->n_lcs; l++)
        ls[l] = (lc_serial){r->lcs[l].serial, l};
    if (r->n_lcs)
        qsort(ls, r->n_lcs, sizeof *ls, cmp_lc_serial);
    /* Frames to allocate: the distinct traces the threads name. */
    for (uint32_t i = 0; i < r->n_traces; i++)
        first[i] = UINT32_MAX;
    uint64_t nf = 0;
    for (uint32_t t = 0; t < n_thr; t++) {
        trace_ent key = {thr_trace[t], 0};
        trace_ent *tr =
            r->n_traces ? bsearch(&key, r->traces, r->n_traces, sizeof key, cmp_trace) : NULL;
        if (tr && first[tr - r->traces] == UINT32_MAX) {
            first[tr - r->traces] = 0;
            nf += be32(d + tr->off + 8);
        }
    }
    if (nf > UINT32_MAX) {
        st = LR_FAIL(r->err, LR_ERR_LIMIT, "%s: too many stack frames", r->name);
        goto out;
    }
    g->threads = err_calloc(n_thr, sizeof *g->threads);
    g->frames = err_calloc(nf ? nf : 1, sizeof *g->frames);
    if (!g->threads || !g->frames) {
        st = hprof_nomem(r);
        goto out;
    }
    uint32_t fo = 0;
    for (uint32_t i = 0; i < r->n_traces; i++)
        first[i] = UINT32_MAX;
    for (uint32_t t = 0; t < n_thr; t++) {
        graph_thread *th = &g->threads[t];
        th->node = thr_node[t];
        th->serial = thr_serial[t];
        th->trace_serial = thr_trace[t];
        th->first_frame = fo;
        trace_ent key = {thr_trace[t], 0};
        trace_ent *tr =
            r->n_traces ? bsearch(&key, r->traces, r->n_traces, sizeof key, cmp_trace) : NULL;
        if (!tr)
            continue;
        uint32_t *f = &first[tr - r->traces];
        if (*f == UINT32_MAX) {
            *f = fo;
            if ((st = trace_frames(r, tr, ls, fo)) != LR_OK)
                goto out;
            fo += be32(d + tr->off + 8);
        }
        th->first_frame = *f;
        th->n_frames = be32(d + tr->off + 8);
    }
    g->n_threads = n_thr;
    g->n_frames = fo;
    /* the threads by serial, for rules_thread_of_serial (roots name threads by serial) */
    if ((g->thread_by_serial = err_mallocarray(n_thr, sizeof *g->thread_by_serial))) {
        for (uint32_t t = 0; t < n_thr; t++)
            g->thread_by_serial[t] = t;
        qsort_r(g->thread_by_serial, n_thr, sizeof *g->thread_by_serial, cmp_thread_serial,
                g->threads);
    }
out:
    free(ls);
    free(first);
    return st;
}

static lr_status resolve_roots(rd *r)
{
    graph *g = r->g;
    uint32_t n = g->n_roots, k = 0;
    uint32_t n_thr = 0;
    for (uint32_t i = 0; i < n; i++)
        n_thr += g->roots[i].kind == GRAPH_ROOT_THREAD_OBJECT;
    uint32_t *thr_serial = err_mallocarray(n_thr + 1, sizeof *thr_serial);
    uint32_t *thr_trace = err_mallocarray(n_thr + 1, sizeof *thr_trace);
    node_ix *thr_node = err_mallocarray(n_thr + 1, sizeof *thr_node);
    uint32_t *order = err_mallocarray(n + 1, sizeof *order);
    lr_status st = LR_OK;
    if (!thr_serial || !thr_trace || !thr_node || !order) {
        st = hprof_nomem(r);
        goto out;
    }
    uint32_t t = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_root rt = g->roots[i];
        uint64_t id = r->root_ids[i];
        node_ix node = id ? node_find(r, id) : GRAPH_NONE;
        if (rt.kind == GRAPH_ROOT_THREAD_OBJECT) {
            thr_serial[t] = rt.thread;
            thr_trace[t] = (uint32_t)rt.frame;
            thr_node[t] = node;
            t++;
            rt.frame = -1;
        }
        if (!id) {
            diag_count(&g->diag, DIAG_NULL_ROOT);
            continue;
        }
        if (node == GRAPH_NONE) {
            diag_count(&g->diag, DIAG_DANGLING_ROOT);
            continue;
        }
        rt.node = node;
        g->roots[k++] = rt;
    }
    g->n_roots = k;
    /* Repeated (node, kind) pairs stay (docs/graph.md) and are counted. */
    for (uint32_t i = 0; i < k; i++)
        order[i] = i;
    if (k)
        qsort_r(order, k, sizeof *order, cmp_root, g->roots);
    for (uint32_t i = 1; i < k; i++) {
        const graph_root *a = &g->roots[order[i - 1]], *b = &g->roots[order[i]];
        if (a->node == b->node && a->kind == b->kind)
            diag_count(&g->diag, DIAG_DUPLICATE_ROOT);
    }
    st = build_threads(r, thr_serial, thr_trace, thr_node, n_thr);
out:
    free(thr_serial);
    free(thr_trace);
    free(thr_node);
    free(order);
    return st;
}

/* ---- entry ---- */

static void rd_free(rd *r)
{
    free(r->strs);
    free(r->lcs);
    free(r->frames);
    free(r->traces);
    free(r->dumps);
    free(r->cls);
    hmap_free(&r->chash);
    free(r->layout_bytes);
    free(r->first_ref);
    free(r->refs);
    free(r->vv_size);
    free(r->root_ids);
    free(r->rec32);
    free(r->rec_hi);
    free(r->scratch);
    free(r->cls_slots);
    free(r->blk_slots);
    free(r->arr_len);
    graph_id_bits_free(&r->bits);
    graph_id_scan_free(&r->obj_ids);
}

/* Header, top-level scan, the sorted tables, and the dump numbered dump_index (negative:
 * the last one) in *dd; a file without heap records gives an empty dump after the header.
 * radix: sort the strings with the radix sort (hprof_sort_tables). */
static lr_status open_dump(rd *r, int dump_index, int radix, hprof_dump *dd, int *version,
                           uint64_t *ts)
{
    graph *g = r->g;
    uint64_t start;
    LR_TRY(hprof_parse_header(r->d, r->n, r->name, &r->ids, &start, version, ts, r->err));
    r->android = *version == 3;
    g->id_size = r->ids;
    g->size_model = r->android ? GRAPH_SIZES_SHARK : GRAPH_SIZES_VISUALVM;
    uint32_t nd;
    phase_enter("hprof scan");
    /* The scan reads one header per heap-dump segment (about one per megabyte): with
     * sequential readahead each of those faults reads far ahead, and on a dump larger than
     * the page cache the scan alone read the whole file from disk (189 s of 1,043 on a
     * 21.6 GB dump; 4 s with readahead off). The passes after it read every byte in order. */
    mfile_advise(r->d, r->n, 1);
    lr_status sc = hprof_scan_top(r->d, r->n, start, r->ids, r->name, r, NULL, 0, &nd, r->err);
    mfile_advise(r->d, r->n, 0);
    LR_TRY(sc);
    hprof_sort_tables(r, radix);
    *dd = (hprof_dump){start, 0, 0};
    if (r->n_dumps) {
        int ix = dump_index >= 0 ? dump_index : (int)r->n_dumps - 1;
        if ((uint32_t)ix >= r->n_dumps)
            return LR_FAIL(r->err, LR_ERR_NOT_FOUND, "%s: heap dump #%d requested, file has %u",
                           r->name, ix, r->n_dumps);
        *dd = r->dumps[ix];
    }
    return LR_OK;
}

static lr_status load(rd *r, const fmt_opts *o)
{
    graph *g = r->g;
    int version;
    uint64_t ts;
    hprof_dump dump;
    const hprof_dump *dd = &dump;
    LR_TRY(open_dump(r, o ? o->dump_index : -1, 0, &dump, &version, &ts));
    g->timestamp_ms = ts;
    snprintf(g->version, sizeof g->version, "%s", hprof_versions[version]);
    g->format = "hprof";
    g->data = r->d;
    g->data_len = r->n;
    g->synthetic_root = GRAPH_NONE;
    g->type_names[GRAPH_KIND_INSTANCE] = "instance";
    g->type_names[GRAPH_KIND_CLASS] = "class";
    g->type_names[GRAPH_KIND_OBJ_ARRAY] = "object array";
    g->type_names[GRAPH_KIND_PRIM_ARRAY] = "primitive array";
    g->n_types = 4;
    if (r->n_dumps)
        diag_add(&g->diag, DIAG_EXTRA_DUMPS, r->n_dumps - 1);

    progress_init(&r->prog, "loading", 2 * r->n, o && o->progress);
    phase_enter("hprof pass1");
    LR_TRY(pass1(r, dd));
    phase_enter("hprof classes");
    LR_TRY(hprof_build_classes(r));
    uint64_t nn = (uint64_t)r->n_cls + r->n_inst + r->n_oarr + r->n_parr;
    LR_TRY(graph_check_size(g, nn, 0, NULL, r->err));
    if (r->n_roots >= UINT32_MAX)
        return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: more than 4G GC roots", r->name);
    r->vv_size = err_mallocarray(g->n_classes + 8, sizeof *r->vv_size);
    if (!r->vv_size)
        return hprof_nomem(r);
    if (!r->android)
        hprof_size_model_visualvm(r);
    hprof_set_ref_strengths(g);

    uint32_t n = (uint32_t)nn;
    g->n_nodes = n;
    size_t m = n ? n : 1;
    /* Class indices in 16 bits when they fit, the primitive-array classes pass 2 may still
     * add (at most 8) included: 2 bytes per node instead of 4. */
    if (g->n_classes <= GRAPH_CLASS16_MAX - 8u)
        g->node_class16 = err_mallocarray(m, sizeof *g->node_class16);
    else
        g->node_class = err_mallocarray(m, sizeof *g->node_class);
    g->node_kind = err_mallocarray(m, 1);
    g->node_type = g->node_kind; /* HPROF types are the kinds: one shared array */
    if (!graph_has_node_classes(g) || !g->node_kind || !g->node_type)
        return hprof_nomem(r);
    if (r->have_heap_info && !(g->node_heap = err_mallocarray(m, 1)))
        return hprof_nomem(r);
    r->no_edges = o && o->no_edges;
    r->count_edges = o && o->count_edges;
    if (r->no_edges) {
        /* no records to read back from later: sizes are kept */
        if (!(g->node_size = err_mallocarray(m, sizeof *g->node_size)))
            return hprof_nomem(r);
    } else {
        /* ids are read back from the records while references resolve (load_node_id),
         * then through the graph's read-back state (hprof_compact) */
        g->fmt_state = r;
        g->derive = &LOAD_DERIVE;
        if (r->n >= HPROF_REC_MAX)
            return LR_FAIL(r->err, LR_ERR_LIMIT, "%s: %llu bytes: larger than 2^48",
                           r->name, (unsigned long long)r->n);
        r->rec32 = err_mallocarray(m, sizeof *r->rec32);
        if (r->n > UINT32_MAX && !(r->rec_hi = err_mallocarray(m, sizeof *r->rec_hi)))
            return hprof_nomem(r);
        g->roots = err_calloc(r->n_roots ? r->n_roots : 1, sizeof *g->roots);
        r->root_ids = err_mallocarray(r->n_roots ? r->n_roots : 1, sizeof *r->root_ids);
        if (!r->rec32 || !g->roots || !r->root_ids)
            return hprof_nomem(r);
    }
    phase_enter("hprof pass2");
    LR_TRY(pass2(r, dd));
    /* every JVM dump has GC roots (sticky classes at least); none means they were cut off */
    if (r->n_roots == 0 && !g->diag.n[DIAG_TRUNCATED])
        diag_count(&g->diag, DIAG_TRUNCATED);
    if (r->no_edges)
        return LR_OK;

    phase_enter("hprof index");
    graph_id_scan all;
    lr_status st = merge_class_nodes(r, &all);
    if (st == LR_OK)
        st = graph_build_index_bits(g, &all, &r->bits, 1, r->err); /* node_id: compact */
    graph_id_scan_free(&all);
    LR_TRY(st);
    graph_count_duplicate_ids(g);
    phase_enter("hprof roots");
    LR_TRY(resolve_roots(r));
    if (!r->first_ref)
        LR_TRY(hprof_build_layouts(r));
    phase_enter("hprof edges");
    LR_TRY(hprof_build_edges(r));
    phase_enter("hprof compact");
    return hprof_compact(r);
}

static lr_status hprof_load(graph *g, const mfile *m, const fmt_opts *o, lr_error *err)
{
    rd r;
    memset(&r, 0, sizeof r);
    r.chunk.cls = GRAPH_NONE;
    r.obj_align = 8;
    r.g = g;
    r.d = m->data;
    r.n = m->len;
    r.name = g->path ? g->path : "<memory>";
    r.err = err;
    lr_status st = load(&r, o);
    if (g->derive == &LOAD_DERIVE) { /* stopped before hprof_compact: r is going away */
        g->derive = NULL;
        g->fmt_state = NULL;
    }
    progress_done(&r.prog);
    rd_free(&r);
    return st;
}

static int hprof_sniff_reader(const uint8_t *p, uint64_t n)
{
    /* Accept a bare "JAVA PROFILE 1.0" prefix too, so a truncated header reaches the reader
     * and gets a precise error instead of "unknown format". */
    return hprof_sniff(p, n) || (n >= 16 && memcmp(p, "JAVA PROFILE 1.0", 16) == 0);
}

const fmt_reader fmt_hprof_reader = {"hprof", hprof_sniff_reader, hprof_load};

/* ---- internals for other walkers over the heap records (hprof_internal.h) ---- */

/* load() with pass 1 done by the caller's walk and without pass 2. */
static lr_status model_load(rd *r, int dump_index, hprof_walk_fn walk, void *ctx,
                            hprof_model *out)
{
    graph *g = r->g;
    int version;
    uint64_t ts;
    hprof_dump dump;
    const hprof_dump *dd = &dump;
    LR_TRY(open_dump(r, dump_index, 1, &dump, &version, &ts));
    hprof_walk w = {.d = r->d, .n = r->n, .name = r->name, .ids = r->ids,
                    .android = r->android, .dump = *dd};
    lr_status st = walk(ctx, &w, r->err);
    if (st == LR_OK && w.n_cls && !(r->cls = err_mallocarray(w.n_cls, sizeof *r->cls)))
        st = hprof_nomem(r);
    if (st == LR_OK) {
        for (uint32_t i = 0; i < w.n_cls; i++) {
            r->cls[i] = (cls_rec){w.cls[i].off, w.cls[i].end, NO_HEAP};
            r->n_statics += w.cls[i].n_statics;
            r->n_fields += w.cls[i].n_fields;
        }
        r->n_cls = r->cap_cls = w.n_cls;
    }
    free(w.cls);
    LR_TRY(st);
    LR_TRY(hprof_build_classes(r));
    LR_TRY(graph_check_size(g, (uint64_t)r->n_cls + w.n_objects, 0, NULL, r->err));
    r->vv_size = err_mallocarray(g->n_classes + 8, sizeof *r->vv_size);
    if (!r->vv_size)
        return hprof_nomem(r);
    if (!r->android)
        hprof_size_model_visualvm(r);
    else
        for (class_ix c = 0; c < g->n_classes; c++)
            r->vv_size[c] = g->classes[c].instance_size;
    if (r->android)
        r->arr_base = r->min_inst + 4;
    out->android = r->android;
    out->ids = r->ids;
    out->min_inst = r->min_inst;
    out->arr_base = r->arr_base;
    out->oop = r->oop;
    out->class_obj_size = r->class_obj_size;
    out->chunk = r->chunk;
    out->obj_align = r->obj_align;
    if (r->android)
        out->chunk.cls = GRAPH_NONE;
    out->inst_size = r->vv_size;
    r->vv_size = NULL;
    memcpy(out->prim_class, r->prim_class, sizeof out->prim_class);
    return LR_OK;
}

lr_status hprof_model_load(graph *g, const mfile *m, int dump_index, hprof_walk_fn walk,
                           void *ctx, hprof_model *out, lr_error *err)
{
    rd r;
    memset(&r, 0, sizeof r);
    r.chunk.cls = GRAPH_NONE;
    r.obj_align = 8;
    memset(out, 0, sizeof *out);
    r.g = g;
    r.d = m->data;
    r.n = m->len;
    r.name = g->path ? g->path : "<memory>";
    r.err = err;
    lr_status st = model_load(&r, dump_index, walk, ctx, out);
    rd_free(&r);
    return st;
}
