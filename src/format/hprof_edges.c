/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_edges.c: an HPROF graph's references and what it reads back later (format layer),
 * prefix hprof_. Every reference slot (instance fields through the class layouts, array
 * elements, a class's super/loader/signers/protection domain and static fields) becomes a CSR
 * edge to the node its id names, on two threads over disjoint node ranges; nulls and dangling
 * ids make no edge. Then the graph keeps only each node's record offset and the class tables:
 * ids, payload lengths, shallow sizes and edge names are a pure function of the record, read
 * back on demand (graph.derive), which halves the graph's memory; only the arrays' lengths, 4
 * bytes an array, are kept from pass 2 (the trees ask every node's size). Edge names are found by
 * walking the slots again in the same order as the edges were built. See hprof_internal.h. */
#define _GNU_SOURCE /* qsort_r */
#include "format/hprof_internal.h"
#include "base/mem.h"
#include "base/par.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* What a loaded HPROF graph keeps to read node ids, lengths, sizes and edge names back from
 * the records instead of storing them per node and per edge (graph.derive): the offset of
 * each node's record (just past its sub-tag; the id comes first in every kind), in 32 bits
 * when the input allows, and the per-class tables the reader computed anyway. */
typedef struct hp_state {
    unsigned ids;             /* identifier size */
    int shark;                /* Android size model */
    int nodata;               /* the dump has PRIMITIVE_ARRAY_NODATA records */
    /* Record offsets in blocks of HP_REC_BLOCK nodes: a block's smallest offset plus a
     * 16-bit delta per node, 2.3 bytes a node instead of 4 (2.6 instead of 8 for an input of
     * 4 GB or more, whose bases and wide offsets are 64-bit: rec_base64, rec_wide64 in place
     * of rec_base, rec_wide). A block whose offsets lie 64 kB or more apart (a large array,
     * a class node merged among the objects) is wide: its offsets are kept whole in rec_wide
     * from rec_base[block] on. */
    uint32_t *rec_base;       /* per block: smallest offset, or first rec_wide index if wide */
    uint16_t *rec_delta;      /* per node: offset - rec_base of its block (narrow blocks) */
    uint64_t *rec_wide_bits;  /* bit per block: wide */
    uint32_t *rec_wide;       /* offsets of the wide blocks' nodes */
    uint64_t *rec_base64;     /* inputs of 4 GB or more: rec_base, 64-bit (else NULL) */
    uint64_t *rec_wide64;     /* inputs of 4 GB or more: rec_wide, 64-bit (else NULL) */
    uint32_t *first_ref;      /* per class: index into refs (n_classes + 1 entries) */
    ref_slot *refs;           /* reference slots of every class layout */
    uint32_t *inst_size;      /* per class: instance size in the graph's size model */
    hprof_chunk chunk;        /* StackChunk instances: a size of their own (rd.chunk) */
    unsigned obj_align;       /* rd.obj_align */
    uint32_t unknown_size;    /* instance of a class missing from the dump */
    unsigned oop, min_inst;   /* VisualVM array model */
    unsigned arr_base;        /* an array's elements start here (rd.arr_base) */
    uint32_t class_obj_size;  /* VisualVM: size of a class object */
    uint32_t *cls_len;        /* CLASS_DUMP body length per dumped class */
    uint32_t n_cls;           /* dumped classes (the only ones with a class-object node) */
    str_ix inames[4];         /* <super>, <classloader>, <signers>, <protection_domain> */
    uint64_t serial;          /* unique per loaded graph (edge-name cursor key) */
    /* The arrays' lengths (rd.arr_len), found by rank: per 64 nodes a bit per array node and
     * the arrays before them. A quarter of a byte per node and 4 per array, where a length
     * or size read back was a miss into the dump per array and, once the dump no longer fits
     * in the page cache, a read from disk. A primitive array's element size is its class's
     * (cls_el). NULL: read back. */
    uint32_t *arr_len;
    struct hp_arank {
        uint64_t bits, before;
    } *arr_rank;
    uint8_t *cls_el;          /* per class: a primitive array's element bytes, else 0 */
} hp_state;

/* Nodes per block of packed record offsets (hp_state): a 4-byte base per block beside 2
 * bytes a node; small enough that few blocks hold a record of 64 kB or more. */
#define HP_REC_BLOCK 16u

/* ---- edges ---- */

static int cmp_by_node(const void *a, const void *b, void *ctx)
{
    const graph_class *cl = ctx;
    node_ix x = cl[*(const class_ix *)a].node, y = cl[*(const class_ix *)b].node;
    return x < y ? -1 : x > y;
}

/* A piece of hprof_build_edges: nodes [lo, hi), edges written from `at` on (the census's
 * bound on the edges before lo); then `at` is one past the last edge written. */
typedef struct edge_chunk {
    node_ix lo, hi;
    uint32_t next_class;     /* by_node index of the first class node in [lo, hi) */
    edge_ix at;
    uint64_t dangling;
    uint64_t short_inst; /* instance records shorter than their class's reference fields */
} edge_chunk;

/* One thread's share: chunks ck[0..n), walked last to first when backward. */
typedef struct edge_part {
    rd *r;
    const class_ix *by_node; /* classes ordered by their node */
    edge_chunk *ck;
    uint32_t n;
    int backward;
    int failed;              /* a class node out of order (a bug, not bad input) */
} edge_part;

/* The edge walk's per-reference steps (emit, pop_a, pop_b, add_edge): gcc 12 left them as
 * calls, the pipeline's ring state going through memory on every reference (perf: pushes
 * and reloads among the hottest instructions); inlined into the walk they stay in
 * registers. */
#define HP_INLINE __attribute__((always_inline)) static inline

/* Lookups in flight per stage of the rank-index pipeline (edge_out). */
#define HP_PIPE 16u

/* Where one thread's references go. A reference becomes an edge to the node its id names
 * (kind: GRAPH_EDGE_MAKE) written at e, or a dangling one counted; edge names are read back
 * from the records later (hp_edge_name). With the rank index, lookups are pipelined so the
 * memory reads of several overlap: stage a holds references whose index block is being
 * fetched, stage b those whose id_sorted entry, or segment directory entry, is (ids out of
 * node order, graph_rank_node); both are FIFO,
 * so edges come out in slot order, as one lookup at a time writes them. first_edge is
 * written as edges come out: a node's entry is the edge count when its first edge (or a
 * later node's) comes out. */
typedef struct edge_out {
    const graph *g;
    node_ix *to;       /* g->edge_to, NULL when only counting */
    uint8_t *kind;     /* g->edge_kind */
    edge_ix *first;    /* g->first_edge, NULL when only counting */
    edge_ix e;         /* next slot */
    node_ix unset;     /* first node whose first_edge is not written yet */
    node_ix cur;       /* node whose slots are being read */
    uint64_t dangling; /* references to no object */
    uint32_t ha, na, hb, nb; /* ring heads and fills */
    uint32_t seg;            /* the id_seg segment of the last rank resolved */
    struct {
        const graph_id_blk *blk; /* NULL: no such id */
        uint32_t at;             /* position in the block */
        node_ix from;
        uint8_t kind;
    } a[HP_PIPE];
    struct {
        uint32_t rank; /* GRAPH_NONE: no such id */
        node_ix from;
        uint8_t kind;
    } b[HP_PIPE];
} edge_out;

HP_INLINE void emit(edge_out *o, node_ix from, node_ix t, uint8_t kind)
{
    if (t == GRAPH_NONE) {
        o->dangling++;
        return;
    }
    if (o->first)
        while (o->unset <= from)
            o->first[o->unset++] = o->e;
    if (o->to) {
        o->to[o->e] = t;
        o->kind[o->e] = kind;
    }
    o->e++; /* counted only when the graph keeps no edges (rd.count_edges) */
}

/* graph_rank_node, first trying the segment of the previous reference: an object's
 * references mostly lead to the same region of the heap, so the directory is read for few. */
static inline node_ix rank_node(edge_out *o, uint32_t rank)
{
    const graph *g = o->g;
    const graph_id_seg *sg = g->id_seg;
    if (!sg)
        return graph_rank_node(g, rank);
    uint32_t s = o->seg;
    if (rank < sg[s].rank || rank >= sg[s + 1].rank) {
        s = g->id_seg_dir[rank >> g->id_seg_shift];
        if (s & GRAPH_SEG_SEARCH)
            s = graph_rank_seg_search(g, rank);
        else
            while (sg[s + 1].rank <= rank)
                s++;
        o->seg = s;
    }
    return sg[s].node + (rank - sg[s].rank);
}

HP_INLINE void pop_b(edge_out *o)
{
    const graph *g = o->g;
    uint32_t h = o->hb;
    uint32_t rank = o->b[h].rank;
    o->hb = (h + 1) % HP_PIPE;
    o->nb--;
    emit(o, o->b[h].from, rank == GRAPH_NONE || g->ids_sorted ? rank : rank_node(o, rank),
         o->b[h].kind);
}

HP_INLINE void pop_a(edge_out *o)
{
    const graph *g = o->g;
    uint32_t h = o->ha, rank = GRAPH_NONE;
    const graph_id_blk *blk = o->a[h].blk;
    o->ha = (h + 1) % HP_PIPE;
    o->na--;
    if (blk) {
        unsigned k = o->a[h].at / 64, bit = o->a[h].at % 64;
        uint64_t w = blk->w[k];
        if (w >> bit & 1)
            rank = blk->rank + blk->sub[k] + graph_popcount64(w & ((1ull << bit) - 1));
    }
    if (o->nb == HP_PIPE)
        pop_b(o);
    uint32_t t = (o->hb + o->nb++) % HP_PIPE;
    o->b[t].rank = rank;
    o->b[t].from = o->a[h].from;
    o->b[t].kind = o->a[h].kind;
    if (rank == GRAPH_NONE || g->ids_sorted)
        return;
    if (g->id_sorted)
        __builtin_prefetch(&g->id_sorted[rank]);
    else if (g->id_seg_dir) /* ~64 entries per segment (330 kB on 22 M objects) */
        __builtin_prefetch(&g->id_seg_dir[rank >> g->id_seg_shift]);
}

/* One reference slot's id (non-zero) of node o->cur. */
HP_INLINE void add_edge(edge_out *o, uint64_t id, uint8_t kind)
{
    const graph *g = o->g;
    if (!g->id_blk) {
        emit(o, o->cur, graph_find_id(g, id), kind);
        return;
    }
    /* graph_id_rank in two halves: the block here, the bits when it has arrived */
    const graph_id_blk *blk = NULL;
    uint64_t x = id - g->id_min, p = x >> g->id_align;
    if (id >= g->id_min && (x & ((1ull << g->id_align) - 1)) == 0 && p < g->id_pos) {
        uint32_t c = g->id_chunk[p / (GRAPH_ID_BLK_BITS * GRAPH_ID_CHUNK_BLKS)];
        if (c != GRAPH_NONE) {
            blk = &g->id_blk[c + p % (GRAPH_ID_BLK_BITS * GRAPH_ID_CHUNK_BLKS) /
                                     GRAPH_ID_BLK_BITS];
            __builtin_prefetch(blk);
        }
    }
    if (o->na == HP_PIPE)
        pop_a(o);
    uint32_t t = (o->ha + o->na++) % HP_PIPE;
    o->a[t].blk = blk;
    o->a[t].at = (uint32_t)(p % GRAPH_ID_BLK_BITS);
    o->a[t].from = o->cur;
    o->a[t].kind = kind;
}

/* Every reference in flight out, and first_edge up to node hi. */
static void drain(edge_out *o, node_ix hi)
{
    while (o->na)
        pop_a(o);
    while (o->nb)
        pop_b(o);
    if (o->first)
        while (o->unset < hi)
            o->first[o->unset++] = o->e;
}

/* Nodes ahead whose record the edge walk fetches: the records lie in node
 * order but scattered over the file (~45 bytes apart on average, arrays far more), so
 * without it each node's first read of its record waits for memory. Always inlined: gcc
 * finds a void function that only reads and prefetches pure and drops the call as dead. */
#define HP_REC_AHEAD 16u
__attribute__((always_inline)) static inline void rec_fetch(const rd *r, node_ix i,
                                                            node_ix hi)
{
    if (i >= hi)
        return;
    /* its id; a length is 4 + id bytes on (each array's fetch spelt out: gcc 12 drops a
     * prefetch whose address joins the two) */
    if (r->rec_hi)
        __builtin_prefetch(r->d + ((uint64_t)r->rec_hi[i] << 32 | r->rec32[i]));
    else
        __builtin_prefetch(r->d + r->rec32[i]);
}

/* The references of one chunk's nodes; 0 when a class node is out of order. */
static int edge_chunk_run(rd *r, const class_ix *by_node, edge_chunk *ep)
{
    graph *g = r->g;
    const uint8_t *d = r->d;
    const unsigned ids = r->ids;
    const uint8_t k_elem = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
    const uint8_t k_int = GRAPH_EDGE_MAKE(GRAPH_EDGE_INTERNAL, GRAPH_STRONG);
    const uint8_t k_static = GRAPH_EDGE_MAKE(GRAPH_EDGE_STATIC, GRAPH_STRONG);
    edge_out o = {.g = g, .to = g->edge_to, .kind = g->edge_kind, .first = g->first_edge,
                  .e = ep->at, .unset = ep->lo};
    uint32_t next_class = ep->next_class;
    uint64_t short_inst = 0;
    for (node_ix i = ep->lo; i < ep->hi; i++) {
        o.cur = i;
        rec_fetch(r, i + HP_REC_AHEAD, ep->hi);
        switch (g->node_kind[i]) {
        case GRAPH_KIND_INSTANCE: {
            class_ix c = graph_node_class(g, i);
            if (c == GRAPH_NONE)
                break;
            const uint8_t *fb = d + rec_get(r, i) + 2 * ids + 8;
            uint32_t len = be32(d + rec_get(r, i) + 2 * ids + 4);
            for (uint32_t k = r->first_ref[c], ke = r->first_ref[c + 1]; k < ke; k++) {
                const ref_slot *s = &r->refs[k];
                if ((uint64_t)s->off + ids > len) {
                    short_inst++; /* the missing fields read as absent, and are counted */
                    break;
                }
                uint64_t id = rd_id(fb + s->off, ids);
                if (id)
                    add_edge(&o, id, s->kind);
            }
            break;
        }
        case GRAPH_KIND_OBJ_ARRAY: {
            const uint8_t *el = d + rec_get(r, i) + 2 * ids + 8;
            uint32_t len = be32(d + rec_get(r, i) + ids + 4);
            for (uint32_t k = 0; k < len; k++) {
                uint64_t id = rd_id(el + (uint64_t)k * ids, ids);
                if (id)
                    add_edge(&o, id, k_elem);
            }
            break;
        }
        case GRAPH_KIND_CLASS: {
            /* Class nodes appear in the order of by_node. */
            class_ix ci = by_node[next_class++];
            if (g->classes[ci].node != i)
                return 0;
            const uint8_t *cb = d + rec_get(r, i);
            /* super, loader, signers, protection domain follow the id and stack serial */
            for (int k = 0; k < 4; k++) {
                uint64_t id = rd_id(cb + ids + 4 + (uint64_t)k * ids, ids);
                if (id)
                    add_edge(&o, id, k_int);
            }
            const graph_class *gc = &g->classes[ci];
            for (uint32_t k = 0; k < gc->n_statics; k++) {
                const graph_static *s = &g->statics[gc->first_static + k];
                if (s->type == GRAPH_FT_OBJECT && s->value)
                    add_edge(&o, s->value, k_static);
            }
            break;
        }
        }
    }
    drain(&o, ep->hi);
    ep->at = o.e;
    ep->dangling = o.dangling;
    ep->short_inst = short_inst;
    return 1;
}

static void *edge_part_run(void *arg)
{
    edge_part *p = arg;
    for (uint32_t k = 0; k < p->n && !p->failed; k++)
        p->failed = !edge_chunk_run(p->r, p->by_node, &p->ck[p->backward ? p->n - 1 - k : k]);
    return NULL;
}

/* Resolving every reference to a node index is most of the load time of a large dump (one
 * id lookup each), so two threads take half the reference slots each, writing into disjoint
 * ranges of the edge arrays sized for the worst case; the second range then moves down. The
 * worst case comes from pass 2's census of the slots per block of its nodes (rd.blk_slots)
 * and the class nodes' own (four internal references and the statics). Where the class nodes
 * went is known from their nodes: class k in node order came right before the object pass 2
 * numbered g->classes[..].node - k + n_cls (hprof_read.c, merge_class_nodes), so a block
 * boundary J of pass 2's order is node J - n_cls + (classes before it) now.
 *
 * A dump larger than half the memory available is walked backward, in chunks of about
 * HP_EDGE_CHUNK_BYTES each read forward, each with its own range. Passes 1 and 2 leave the
 * page cache holding what they read last; the edges' arrays then take memory, and the
 * kernel evicts the pages read longest ago: the start of each half, which a forward walk
 * reads first, so every page it needs has just been evicted and the whole dump is read from
 * the disk again (21.6 GB read in 20-23 s on the 21.6 GB dump). Backward, the walk reads
 * what is still cached first and the disk only for what was evicted (8.4 GB there). Every
 * chunk's range would then move down, not only the second half's (5 s there: the edges are
 * spilled by then), so pass 2 counts the non-null slots for such a walk (rd.exact_slots):
 * the ranges start where their edges go, and only dangling ids leave gaps to close. */
int hprof_edges_backward_for(uint64_t bytes)
{
    uint64_t min = hprof_edges_back_min;
    if (!min) {
        uint64_t avail = mem_available_now();
        min = avail ? avail / 2 : UINT64_MAX;
    }
    return bytes >= min;
}

/* A class node's reference slots: its four internal references and its object statics,
 * the non-null ones only when the census is exact. */
static uint64_t class_slots(const rd *r, class_ix c)
{
    const graph *g = r->g;
    const graph_class *gc = &g->classes[c];
    if (!r->exact_slots)
        return 4 + (uint64_t)gc->n_statics;
    uint64_t k = 0;
    const uint8_t *cb = r->d + rec_get(r, gc->node);
    for (int j = 0; j < 4; j++)
        k += rd_id(cb + r->ids + 4 + (uint64_t)j * r->ids, r->ids) != 0;
    for (uint32_t j = 0; j < gc->n_statics; j++) {
        const graph_static *st = &g->statics[gc->first_static + j];
        k += st->type == GRAPH_FT_OBJECT && st->value;
    }
    return k;
}

uint32_t hprof_edge_split_min = 100000;
uint64_t hprof_edges_back_min;
uint32_t hprof_edge_chunks;
unsigned hprof_edges_backward;
unsigned hprof_edges_last_chunks;
unsigned hprof_edges_moved;

lr_status hprof_build_edges(rd *r)
{
    graph *g = r->g;
    uint32_t n = g->n_nodes, nb = n / HP_SLOT_BLOCK + 1, nc = r->n_cls;
    class_ix *by_node = err_mallocarray(nc + 1, sizeof *by_node);
    if (!by_node)
        return hprof_nomem(r);
    for (class_ix c = 0; c < nc; c++)
        by_node[c] = c;
    qsort_r(by_node, nc, sizeof *by_node, cmp_by_node, g->classes);
    /* Upper bound: every reference slot, null or not (or, exact census, the non-null ones:
     * only dangling ids then leave a gap); a class adds its four internal references and
     * its object statics, in the order of its node. */
    uint64_t bound = 0;
    for (uint32_t b = 0; b < nb; b++)
        bound += r->blk_slots[b];
    for (uint32_t j = 0; j < nc; j++)
        bound += class_slots(r, by_node[j]);
    lr_status st = graph_check_size(g, 0, bound, "reference slots (null or not)", r->err);
    /* Counting only (info): every reference is resolved as below, nothing is stored, and the
     * graph is left without edges (first_edge NULL), 9 bytes per edge and 4 per node less. */
    if (st == LR_OK && !r->count_edges) {
        g->edge_to = err_mallocarray(bound ? bound : 1, sizeof *g->edge_to);
        g->first_edge = err_mallocarray((size_t)n + 1, sizeof *g->first_edge);
        g->edge_kind = err_mallocarray(bound ? bound : 1, sizeof *g->edge_kind);
        if (!g->first_edge || !g->edge_to || !g->edge_kind)
            st = hprof_nomem(r);
    }
    static const char *const INTERNAL[4] = {"<super>", "<classloader>", "<signers>",
                                            "<protection_domain>"};
    for (int k = 0; k < 4 && st == LR_OK; k++)
        st = graph_intern(g, INTERNAL[k], strlen(INTERNAL[k]), &r->inames[k], r->err);

    /* The chunks: cut at the first block boundary of pass 2's order past each k / nk of
     * the slots; two (one per thread) unless the walk goes backward. */
    uint32_t nk = 1;
    int back = 0;
    if (n > hprof_edge_split_min) {
        nk = 2;
        if (r->edges_back) {
            back = 1;
            uint64_t want = hprof_edge_chunks ? hprof_edge_chunks
                                              : (r->n + HP_EDGE_CHUNK_BYTES - 1) /
                                                    HP_EDGE_CHUNK_BYTES;
            nk = want < 2 ? 2 : want > HP_EDGE_CHUNKS_MAX ? HP_EDGE_CHUNKS_MAX : (uint32_t)want;
        }
    }
    edge_chunk *ck = st == LR_OK ? err_calloc(nk, sizeof *ck) : NULL;
    if (st == LR_OK && !ck)
        st = hprof_nomem(r);
    if (st != LR_OK) {
        free(by_node);
        return st;
    }
    uint32_t got = 1; /* chunks cut so far: ck[0] starts at node 0, slot 0 */
    if (nk > 1) {
        uint64_t acc = 0;
        uint32_t k = 0, j = 1; /* class nodes before the boundary; next cut wanted */
        for (uint32_t b = 0; b + 1 < nb && j < nk; b++) {
            uint32_t at = (b + 1) * HP_SLOT_BLOCK; /* pass 2's number of the next object */
            acc += r->blk_slots[b];
            if (at <= nc)
                continue; /* class nodes only, in pass 2's order */
            while (k < nc && g->classes[by_node[k]].node - k <= at - nc)
                acc += class_slots(r, by_node[k++]);
            if (acc < bound * j / nk)
                continue;
            ck[got++] = (edge_chunk){.lo = at - nc + k, .next_class = k, .at = (edge_ix)acc};
            while (j < nk && acc >= bound * j / nk)
                j++;
        }
    }
    for (uint32_t c = 0; c < got; c++)
        ck[c].hi = c + 1 < got ? ck[c + 1].lo : n;
    /* the threads' halves: the first chunk from half the slots on is the second's */
    uint32_t half = got;
    for (uint32_t c = 1; c < got && half == got; c++)
        if (ck[c].at >= bound / 2)
            half = c;
    edge_part parts[2] = {{r, by_node, ck, half, back, 0},
                          {r, by_node, ck + half, got - half, back, 0}};
    edge_ix start[HP_EDGE_CHUNKS_MAX];
    for (uint32_t c = 0; c < got; c++)
        start[c] = ck[c].at;
    if (back)
        __atomic_add_fetch(&hprof_edges_backward, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&hprof_edges_last_chunks, got, __ATOMIC_RELAXED);
    par_two(edge_part_run, &parts[0], &parts[1], half < got);
    free(by_node);
    uint64_t dangling = 0, short_inst = 0;
    for (uint32_t c = 0; c < got; c++) {
        dangling += ck[c].dangling;
        short_inst += ck[c].short_inst;
    }
    diag_add(&g->diag, DIAG_SHORT_INSTANCE, short_inst);
    int failed = parts[0].failed || parts[1].failed, under = 0;
    for (uint32_t c = 0; c + 1 < got; c++)
        under |= ck[c].at > start[c + 1];
    if (failed || under) {
        free(ck);
        return LR_FAIL(r->err, LR_ERR_INTERNAL, "%s: %s", r->name,
                       failed ? "class nodes out of order" : "reference census too small");
    }
    edge_ix e = ck[0].at;
    unsigned moved = 0;
    for (uint32_t c = 1; c < got && !r->count_edges; c++) {
        /* close the gap the chunks before left (nulls, dangling ids, the census's slack) */
        edge_ix from = start[c], cnt = ck[c].at - from, shift = from - e;
        if (shift) {
            moved++;
            memmove(g->edge_to + e, g->edge_to + from, (size_t)cnt * sizeof *g->edge_to);
            memmove(g->edge_kind + e, g->edge_kind + from, cnt);
            for (node_ix i = ck[c].lo; i < ck[c].hi; i++)
                g->first_edge[i] -= shift;
        }
        e += cnt;
    }
    __atomic_store_n(&hprof_edges_moved, moved, __ATOMIC_RELAXED);
    if (r->count_edges) {
        for (uint32_t c = 1; c < got; c++)
            e += ck[c].at - start[c];
        free(ck);
        g->n_edges = e;
        diag_add(&g->diag, DIAG_DANGLING_REFERENCE, dangling);
        return LR_OK;
    }
    free(ck);
    g->first_edge[n] = e;
    g->n_edges = e;
    diag_add(&g->diag, DIAG_DANGLING_REFERENCE, dangling);
    /* Give back what nulls and dangling references did not use. */
    if (e < bound) {
        size_t k = e ? e : 1;
        void *p;
        if ((p = realloc(g->edge_to, k * sizeof *g->edge_to)))
            g->edge_to = p;
        if ((p = realloc(g->edge_kind, k * sizeof *g->edge_kind)))
            g->edge_kind = p;
    }
    return LR_OK;
}

/* ---- values read back from the records (graph.derive) ----
 * Ids, payload lengths, shallow sizes and edge names are a pure function of a node's record
 * and the class tables, so an HPROF graph stores only where each record starts: that halves
 * the graph's memory, and every read below is a few loads from the mapped input. */

static inline uint64_t hp_rec(const hp_state *st, node_ix n)
{
    uint32_t b = n / HP_REC_BLOCK;
    int wide = st->rec_wide_bits[b / 64] >> (b % 64) & 1;
    if (st->rec_base64)
        return wide ? st->rec_wide64[st->rec_base64[b] + n % HP_REC_BLOCK]
                    : st->rec_base64[b] + st->rec_delta[n];
    if (wide)
        return st->rec_wide[st->rec_base[b] + n % HP_REC_BLOCK];
    return (uint64_t)st->rec_base[b] + st->rec_delta[n];
}

static uint64_t hp_node_id(const graph *g, node_ix n)
{
    const hp_state *st = g->fmt_state;
    return rd_id(g->data + hp_rec(st, n), st->ids);
}

/* Array n's length from the table (hp_state.arr_len). */
static inline uint32_t arr_len(const hp_state *st, node_ix n)
{
    const struct hp_arank *b = &st->arr_rank[n >> 6];
    uint64_t below = b->bits & ((1ull << (n & 63)) - 1);
    return st->arr_len[b->before + (uint64_t)graph_popcount64(below)];
}

static uint32_t hp_node_len(const graph *g, node_ix n)
{
    const hp_state *st = g->fmt_state;
    unsigned k = g->node_kind[n];
    if (st->arr_len && (k == GRAPH_KIND_OBJ_ARRAY || k == GRAPH_KIND_PRIM_ARRAY))
        return arr_len(st, n); /* no record read */
    const uint8_t *p = g->data + hp_rec(st, n);
    switch (k) {
    case GRAPH_KIND_INSTANCE: return be32(p + 2 * st->ids + 4);
    case GRAPH_KIND_OBJ_ARRAY:
    case GRAPH_KIND_PRIM_ARRAY: return be32(p + st->ids + 4);
    default: {
        class_ix c = graph_class_of_node(g, n);
        return c < st->n_cls ? st->cls_len[c] : 0;
    }
    }
}

static uint64_t hp_node_off(const graph *g, node_ix n)
{
    const hp_state *st = g->fmt_state;
    uint64_t rec = hp_rec(st, n);
    switch (g->node_kind[n]) {
    case GRAPH_KIND_INSTANCE:
    case GRAPH_KIND_OBJ_ARRAY: return rec + 2 * st->ids + 8;
    case GRAPH_KIND_PRIM_ARRAY:
        /* only a dump that has arrays without data reads the tag: elsewhere the answer
         * needs no byte of the record, so a caller fetching the record ahead by its offset
         * (info) waits for nothing */
        if (st->nodata && g->data[rec - 1] == SUB_PRIM_ARRAY_NODATA)
            return UINT64_MAX;
        return rec + st->ids + 9;
    default: return rec; /* a class: its CLASS_DUMP body */
    }
}

static uint32_t hp_sat(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

/* The same values pass 2 computes (it counts the saturations once, at load). */
static uint32_t hp_node_size(const graph *g, node_ix n)
{
    const hp_state *st = g->fmt_state;
    unsigned ids = st->ids;
    switch (g->node_kind[n]) {
    case GRAPH_KIND_INSTANCE: {
        /* the class alone: no record offset to unpack (most nodes are instances) */
        class_ix c = graph_node_class(g, n);
        if (c == GRAPH_NONE)
            return st->unknown_size;
        if (c == st->chunk.cls) {
            const uint8_t *p = g->data + hp_rec(st, n);
            return hprof_chunk_size(&st->chunk, p + 2 * ids + 8, be32(p + 2 * ids + 4),
                                    st->inst_size[c]);
        }
        return st->inst_size[c];
    }
    case GRAPH_KIND_OBJ_ARRAY:
    case GRAPH_KIND_PRIM_ARRAY: {
        uint32_t len;
        unsigned el;
        if (st->arr_len) {
            len = arr_len(st, n);
            el = g->node_kind[n] == GRAPH_KIND_OBJ_ARRAY ? (st->shark ? ids : st->oop)
                                                          : st->cls_el[graph_node_class(g, n)];
        } else {
            const uint8_t *p = g->data + hp_rec(st, n);
            len = be32(p + ids + 4);
            el = g->node_kind[n] == GRAPH_KIND_OBJ_ARRAY ? (st->shark ? ids : st->oop)
                                                          : type_size(p[ids + 8], ids);
        }
        if (st->shark)
            return hp_sat((uint64_t)len * el);
        uint64_t am = st->obj_align - 1;
        return hp_sat(((uint64_t)st->arr_base + (uint64_t)el * len + am) & ~am);
    }
    default: {
        if (!st->shark)
            return st->class_obj_size;
        class_ix c = graph_class_of_node(g, n);
        return c < st->n_cls ? hp_sat((uint64_t)st->cls_len[c] + 1) : 0;
    }
    }
}

/* Fetches the bytes of an array's record that hp_node_size reads: its length and, for a
 * primitive array, its element type (ids + 4 .. ids + 8, one cache line or two). Walks in
 * node order skip from array to array through the mapped dump, each record a miss of its own,
 * so without this the size loops wait on every one (graph.size_read_kinds: arrays only). */
static void hp_node_size_ahead(const graph *g, node_ix n)
{
    const hp_state *st = g->fmt_state;
    if (st->arr_len) {
        /* the lengths themselves follow in node order: walks that ask ahead go that way */
        __builtin_prefetch(&st->arr_rank[n >> 6]);
        return;
    }
    const uint8_t *p = g->data + hp_rec(st, n) + st->ids + 4;
    __builtin_prefetch(p);
    __builtin_prefetch(p + 4);
}

/* Name of edge e out of `from`: its slots are walked again in hprof_build_edges' order, each
 * non-null one matched against the next edge's target (a slot whose id names no object made
 * no edge). Callers mostly ask for a node's edges one after another, so the walk resumes
 * where the previous call stopped instead of starting over (one cursor per thread). */
typedef struct hp_cursor {
    uint64_t serial; /* hp_state.serial: a graph at a reused address is another graph */
    node_ix from;
    edge_ix next; /* the edge the walk reaches next */
    uint32_t slot;  /* and the slot it resumes at */
} hp_cursor;
static _Thread_local hp_cursor hp_cur;

/* Marks of one object array's walk, every `stride` edges the slot the walk reaches that edge
 * from, so a read behind the cursor (a join's order, a column read twice) resumes near its
 * edge instead of at slot 0: each read out of order cost the whole array up to it, and a
 * query over a 100,000-element array's referrers took 39 s. Fixed in size (no allocation
 * that outlives a thread), the stride grown to cover the largest arrays. */
#define HP_MARKS 1024u
#define HP_MARK_STRIDE_MIN 64u
typedef struct hp_marks {
    uint64_t serial;
    node_ix from;
    uint32_t stride, n;       /* marks[k] for edge first + k * stride, k < n */
    uint32_t slot[HP_MARKS];
} hp_marks;
static _Thread_local hp_marks hp_mk;
/* the last answer: a column read twice in one row asks for one edge twice */
static _Thread_local struct {
    uint64_t serial;
    edge_ix e;
    uint32_t name;
    int valid;
} hp_last;

static uint32_t hp_edge_name(const graph *g, node_ix from, edge_ix e)
{
    const hp_state *st = g->fmt_state;
    const uint8_t *d = g->data;
    unsigned ids = st->ids;
    if (hp_last.valid && hp_last.serial == st->serial && hp_last.e == e)
        return hp_last.name;
    uint64_t rec = hp_rec(st, from);
    edge_ix first = g->first_edge[from], deg = g->first_edge[from + 1] - first;
    hp_cursor c = {st->serial, from, first, 0};
    unsigned kind = g->node_kind[from];
    int marking = kind == GRAPH_KIND_OBJ_ARRAY && deg >= 2 * HP_MARK_STRIDE_MIN;
    if (marking && (hp_mk.serial != st->serial || hp_mk.from != from)) {
        hp_mk.serial = st->serial;
        hp_mk.from = from;
        hp_mk.stride = (deg + HP_MARKS - 1) / HP_MARKS;
        if (hp_mk.stride < HP_MARK_STRIDE_MIN)
            hp_mk.stride = HP_MARK_STRIDE_MIN;
        hp_mk.n = 0;
    }
    if (marking && e >= first && (e - first) / hp_mk.stride < hp_mk.n) {
        uint32_t k = (e - first) / hp_mk.stride;
        c.next = first + k * hp_mk.stride;
        c.slot = hp_mk.slot[k];
    }
    if (hp_cur.serial == st->serial && hp_cur.from == from && hp_cur.next <= e &&
        hp_cur.next >= c.next)
        c = hp_cur;
    uint32_t n_slots;
    class_ix cls = GRAPH_NONE;
    const uint8_t *base;
    switch (kind) {
    case GRAPH_KIND_INSTANCE: {
        cls = graph_node_class(g, from);
        if (cls == GRAPH_NONE)
            return GRAPH_NONE;
        n_slots = st->first_ref[cls + 1] - st->first_ref[cls];
        base = d + rec + 2 * ids + 8;
        break;
    }
    case GRAPH_KIND_OBJ_ARRAY:
        n_slots = be32(d + rec + ids + 4);
        base = d + rec + 2 * ids + 8;
        break;
    case GRAPH_KIND_CLASS:
        cls = graph_class_of_node(g, from);
        if (cls >= st->n_cls)
            return GRAPH_NONE;
        n_slots = 4 + g->classes[cls].n_statics;
        base = d + rec;
        break;
    default: return GRAPH_NONE;
    }
    uint32_t len = kind == GRAPH_KIND_INSTANCE ? be32(d + rec + 2 * ids + 4) : 0;
    for (; c.slot < n_slots && c.next < g->first_edge[from + 1]; c.slot++) {
        uint64_t id;
        uint32_t name;
        if (marking && hp_mk.n < HP_MARKS && c.next - first == hp_mk.n * hp_mk.stride)
            hp_mk.slot[hp_mk.n++] = c.slot; /* the walk reaches edge c.next from here */
        if (kind == GRAPH_KIND_INSTANCE) {
            const ref_slot *s = &st->refs[st->first_ref[cls] + c.slot];
            if ((uint64_t)s->off + ids > len)
                break;
            id = rd_id(base + s->off, ids);
            name = g->fields[s->field].name;
        } else if (kind == GRAPH_KIND_OBJ_ARRAY) {
            id = rd_id(base + (uint64_t)c.slot * ids, ids);
            name = c.slot;
        } else if (c.slot < 4) {
            id = rd_id(base + ids + 4 + (uint64_t)c.slot * ids, ids);
            name = st->inames[c.slot];
        } else {
            const graph_static *sf = &g->statics[g->classes[cls].first_static + c.slot - 4];
            id = sf->type == GRAPH_FT_OBJECT ? sf->value : 0;
            name = sf->name;
        }
        if (!id || rd_id(d + hp_rec(st, g->edge_to[c.next]), ids) != id)
            continue; /* null, or dangling: no edge */
        if (c.next++ == e) {
            c.slot++;
            hp_cur = c;
            hp_last.serial = st->serial;
            hp_last.e = e;
            hp_last.name = name;
            hp_last.valid = 1;
            return name;
        }
    }
    return GRAPH_NONE;
}

static const graph_derive HP_DERIVE = {hp_node_id, hp_node_len, hp_node_size, hp_node_off,
                                       hp_edge_name};

static void hp_state_free(void *p)
{
    hp_state *st = p;
    if (!st)
        return;
    free(st->rec_base);
    free(st->rec_delta);
    free(st->rec_wide_bits);
    free(st->rec_wide);
    free(st->rec_base64);
    free(st->rec_wide64);
    free(st->first_ref);
    free(st->refs);
    free(st->inst_size);
    free(st->cls_len);
    free(st->arr_len);
    free(st->arr_rank);
    free(st->cls_el);
    free(st);
}

uint32_t hprof_pack_split_min = HPROF_PACK_SPLIT_MIN;

/* One thread's share of pack_offsets: blocks [b_lo, b_hi). The forward part packs in block
 * order and writes delta i at byte 2i of the offsets' array (delta's), which lies in offsets
 * at or below i: all read already. The backward part packs the last blocks, last first, and
 * writes delta i at byte w(n) - 2(n - i) (w: bytes of an offset), which lies in offsets at or
 * above i: read already too, and above the forward part's nodes, so neither part writes what
 * the other reads; its deltas move down after the join. Each part keeps its wide blocks'
 * offsets in a mapping of its own, numbered as found (the backward part's are renumbered
 * after the forward part's when they join, into one array of their size): room for every
 * block of the part, of which only the pages written are taken (few blocks are wide; an
 * array grown by doubling left its old copies in the heap, 2 MB on the 115 MB dump). */
typedef struct pack_part {
    rd *r;
    hp_state *st;
    unsigned char *delta; /* the offsets' array */
    uint32_t b_lo, b_hi;
    int backward;
    void *wide;           /* uint32_t or uint64_t (input of 4 GB or more) offsets, mapped */
    size_t n_wide;        /* blocks */
} pack_part;

static void *pack_run(void *arg)
{
    pack_part *pp = arg;
    rd *r = pp->r;
    hp_state *st = pp->st;
    uint32_t n = r->g->n_nodes;
    const int big = r->rec_hi != NULL;
    uint64_t top = (uint64_t)n * 4; /* bytes of rec32, where the deltas go */
    for (uint32_t k = 0; k < pp->b_hi - pp->b_lo; k++) {
        uint32_t b = pp->backward ? pp->b_hi - 1 - k : pp->b_lo + k;
        uint32_t lo = b * HP_REC_BLOCK, hi = n - lo < HP_REC_BLOCK ? n : lo + HP_REC_BLOCK;
        uint64_t o[HP_REC_BLOCK], min = UINT64_MAX, max = 0, base;
        for (uint32_t i = lo; i < hi; i++) {
            o[i - lo] = rec_get(r, i);
            min = o[i - lo] < min ? o[i - lo] : min;
            max = o[i - lo] > max ? o[i - lo] : max;
        }
        int wide = lo < hi && max - min > UINT16_MAX;
        if (wide) {
            base = (uint64_t)pp->n_wide++ * HP_REC_BLOCK;
            for (uint32_t i = lo; i < hi; i++) {
                if (big)
                    ((uint64_t *)pp->wide)[base + i - lo] = o[i - lo];
                else
                    ((uint32_t *)pp->wide)[base + i - lo] = (uint32_t)o[i - lo];
            }
            st->rec_wide_bits[b / 64] |= 1ull << (b % 64); /* parts split on a word */
        } else {
            base = lo < hi ? min : 0;
        }
        if (big)
            st->rec_base64[b] = base;
        else
            st->rec_base[b] = (uint32_t)base; /* offsets of an input under 4 GB */
        for (uint32_t i = lo; i < hi; i++) {
            uint16_t v = wide ? 0 : (uint16_t)(o[i - lo] - base);
            uint64_t at = pp->backward ? top - 2 * ((uint64_t)n - i) : 2 * (uint64_t)i;
            memcpy(pp->delta + at, &v, sizeof v);
        }
    }
    return NULL;
}

/* Packs r->rec32 (with r->rec_hi) into st's blocks (see hp_state), in one pass over the
 * offsets, on two threads for a large graph (pack_part): a block's offsets are read into
 * registers, its kind (narrow or wide) and base decided, and its deltas written. The deltas
 * take the offsets' own array over, so it then shrinks to 2 bytes a node, with no fresh
 * pages for the kernel to zero. */
static lr_status pack_offsets(rd *r, hp_state *st)
{
    uint32_t n = r->g->n_nodes, nb = n / HP_REC_BLOCK + 1;
    const int big = r->rec_hi != NULL;
    if (big)
        st->rec_base64 = err_mallocarray(nb, sizeof *st->rec_base64);
    else
        st->rec_base = err_mallocarray(nb, sizeof *st->rec_base);
    st->rec_wide_bits = err_calloc(nb / 64 + 1, sizeof *st->rec_wide_bits);
    if ((!st->rec_base && !st->rec_base64) || !st->rec_wide_bits)
        return hprof_nomem(r);
    unsigned char *delta = (unsigned char *)r->rec32;
    /* the backward part starts on a word of rec_wide_bits */
    uint32_t mid = n >= hprof_pack_split_min ? nb / 2 / 64 * 64 : nb;
    pack_part pp[2] = {{r, st, delta, 0, mid, 0, NULL, 0}, {r, st, delta, mid, nb, 1, NULL, 0}};
    size_t wsz = big ? 8 : 4, room[2];
    for (int k = 0; k < 2; k++) {
        room[k] = ((size_t)(pp[k].b_hi - pp[k].b_lo) * HP_REC_BLOCK + 1) * wsz;
        void *m = mmap(NULL, room[k], PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        pp[k].wide = m == MAP_FAILED ? NULL : m;
    }
    /* the wide offsets: the forward part's, then the backward part's (renumbered), and one
     * entry more (one entry when no block is wide) */
    size_t nw = 0, shift = 0;
    void *q = NULL;
    if (pp[0].wide && pp[1].wide) {
        par_two(pack_run, &pp[0], &pp[1], mid < nb);
        nw = (pp[0].n_wide + pp[1].n_wide) * HP_REC_BLOCK + 1;
        shift = pp[0].n_wide * HP_REC_BLOCK;
        if ((q = err_mallocarray(nw, wsz))) {
            memcpy(q, pp[0].wide, shift * wsz);
            memcpy((char *)q + shift * wsz, pp[1].wide, pp[1].n_wide * HP_REC_BLOCK * wsz);
        }
    }
    for (int k = 0; k < 2; k++)
        if (pp[k].wide)
            munmap(pp[k].wide, room[k]);
    if (!q)
        return hprof_nomem(r);
    if (big)
        st->rec_wide64 = q;
    else
        st->rec_wide = q;
    for (uint32_t b = mid; shift && b < nb; b++)
        if (st->rec_wide_bits[b / 64] >> (b % 64) & 1) {
            if (big)
                st->rec_base64[b] += shift;
            else
                st->rec_base[b] += (uint32_t)shift;
        }
    if (mid < nb) { /* the backward part's deltas down after the forward part's */
        uint64_t lo = (uint64_t)mid * HP_REC_BLOCK < n ? (uint64_t)mid * HP_REC_BLOCK : n;
        uint64_t top = (uint64_t)n * 4;
        memmove(delta + 2 * lo, delta + top - 2 * (n - lo), 2 * (n - lo));
    }
    r->rec32 = NULL;
    free(r->rec_hi);
    r->rec_hi = NULL;
    /* a smaller size: a failed realloc leaves the larger block, as good */
    q = err_reallocarray(delta, n ? n : 1, sizeof *st->rec_delta);
    st->rec_delta = q ? q : (void *)delta;
    return LR_OK;
}

/* A bit per byte of k[0..64) that is an array's kind (2 or 3: the kinds ORed with 1 equal
 * 3), bit i for k[i]. With SSE2 sixteen bytes are compared at once; elsewhere eight, as the
 * high bits of an exact zero-byte test gathered by one multiply. A byte at a time, the rank
 * blocks took 11 ms of a 1 GB dump's load. */
static inline uint64_t arr_bits64(const uint8_t *k)
{
    uint64_t bits = 0;
#if defined(__SSE2__)
    const __m128i one = _mm_set1_epi8(1), three = _mm_set1_epi8(3);
    for (unsigned j = 0; j < 4; j++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(k + 16 * j));
        __m128i eq = _mm_cmpeq_epi8(_mm_or_si128(v, one), three);
        bits |= (uint64_t)(uint32_t)_mm_movemask_epi8(eq) << (16 * j);
    }
#else
    for (unsigned j = 0; j < 8; j++) {
        uint64_t x = 0;
        for (unsigned i = 0; i < 8; i++)
            x |= (uint64_t)k[8 * j + i] << (8 * i);
        uint64_t z = (x | 0x0101010101010101ull) ^ 0x0303030303030303ull;
        uint64_t t = ((z & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | z;
        uint64_t m = ~t & 0x8080808080808080ull;
        bits |= (((m >> 7) * 0x0102040810204080ull) >> 56) << (8 * j);
    }
#endif
    return bits;
}
_Static_assert(GRAPH_KIND_OBJ_ARRAY == 2 && GRAPH_KIND_PRIM_ARRAY == 3, "arr_bits64");

/* The rank blocks over the arrays' lengths pass 2 took (hp_state.arr_len), in the final node
 * order: the class nodes merged in since moved no object past another, so the arrays' order
 * is pass 2's. Without room for them the lengths are read back. */
static void arr_rank(rd *r, hp_state *st)
{
    const graph *g = r->g;
    uint32_t n = g->n_nodes;
    if (!r->arr_len)
        return;
    size_t nb = (size_t)n / 64 + 1;
    struct hp_arank *b = err_mallocarray(nb, sizeof *b);
    uint8_t *el = err_calloc(g->n_classes + 1, 1);
    if (!b || !el) {
        free(b);
        free(el);
        return;
    }
    for (class_ix c = 0; c < g->n_classes; c++)
        if ((g->classes[c].flags & GRAPH_CLASS_ARRAY) &&
            g->classes[c].elem_type != GRAPH_FT_OBJECT)
            el[c] = (uint8_t)type_size(g->classes[c].elem_type, r->ids);
    const uint8_t *k = g->node_kind;
    uint64_t before = 0;
    for (size_t i = 0; i < nb; i++) {
        uint64_t bits = 0;
        uint32_t lo = (uint32_t)(i * 64), hi = n - lo < 64 ? n : lo + 64;
        if (hi - lo == 64)
            bits = arr_bits64(k + lo);
        else
            for (uint32_t x = lo; x < hi; x++)
                bits |= (uint64_t)((k[x] | 1) == 3) << (x - lo);
        b[i] = (struct hp_arank){bits, before};
        before += (uint64_t)graph_popcount64(bits);
    }
    if (before != r->n_oarr + r->n_parr) {
        free(b);
        free(el);
        return;
    }
    st->arr_rank = b;
    st->cls_el = el;
    st->arr_len = r->arr_len;
    r->arr_len = NULL;
    __atomic_add_fetch(&hprof_arr_tables, 1, __ATOMIC_RELAXED);
}

/* Hands the per-class tables and the record offsets over to the graph: from here on
 * graph.derive reads ids, sizes and names back (while loading, hprof_read.c's reader did). */
lr_status hprof_compact(rd *r)
{
    graph *g = r->g;
    uint32_t nc = g->n_classes;
    hp_state *st = err_calloc(1, sizeof *st);
    if (!st)
        return hprof_nomem(r);
    g->derive = NULL; /* the loader's id reader (hprof_read.c) ends here: fmt_state changes */
    g->size_read_kinds = 0;
    g->size_ahead = NULL;
    g->fmt_state = st;
    g->fmt_free = hp_state_free;
    static uint64_t serials;
    st->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
    st->ids = r->ids;
    st->shark = r->android;
    st->nodata = g->diag.n[DIAG_PRIM_ARRAY_NODATA] != 0; /* pass 1 counts them */
    st->oop = r->oop;
    st->min_inst = r->min_inst;
    st->arr_base = r->arr_base;
    st->class_obj_size = r->class_obj_size;
    st->chunk = r->chunk;
    if (r->android)
        st->chunk.cls = GRAPH_NONE;
    st->obj_align = r->obj_align ? r->obj_align : 8;
    st->unknown_size =
        r->android ? 0 : ((r->min_inst + st->obj_align - 1) & ~(st->obj_align - 1));
    memcpy(st->inames, r->inames, sizeof st->inames);
    st->first_ref = r->first_ref;
    st->refs = r->refs;
    r->first_ref = NULL;
    r->refs = NULL;
    if (!(st->inst_size = err_mallocarray(nc + 1, sizeof *st->inst_size)))
        return hprof_nomem(r);
    for (class_ix c = 0; c < nc; c++)
        st->inst_size[c] = r->android ? g->classes[c].instance_size : r->vv_size[c];
    st->n_cls = r->n_cls;
    if (!(st->cls_len = err_mallocarray(r->n_cls ? r->n_cls : 1, sizeof *st->cls_len)))
        return hprof_nomem(r);
    for (class_ix c = 0; c < r->n_cls; c++)
        st->cls_len[c] = sat32(r, r->cls[c].end - r->cls[c].off);
    LR_TRY(graph_index_class_nodes(g, r->err));
    free(g->node_id); /* kept by a directory index (graph_build_index_scanned) */
    g->node_id = NULL;
    LR_TRY(pack_offsets(r, st));
    arr_rank(r, st);
    g->derive = &HP_DERIVE;
    g->size_read_kinds = 1u << GRAPH_KIND_OBJ_ARRAY | 1u << GRAPH_KIND_PRIM_ARRAY;
    g->size_ahead = hp_node_size_ahead;
    return LR_OK;
}
