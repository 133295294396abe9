/* SPDX-License-Identifier: Apache-2.0 */
/* graph.c: storage and queries of the heap graph (graph layer), prefix graph_. Holds the exact-size
 * allocation of node and edge arrays for readers, the string table, the id -> node index (a rank
 * bitmap over the id positions when the ids are unique and dense, with ranks mapped to nodes
 * by the runs of node order id order is made of, else a sorted permutation, by run merge or
 * radix sort, plus a bucket directory; O(1) per lookup, which readers lean on for
 * every reference), reverse edges in CSR form, and the lazy decoding of field
 * values and strings from the mapped input. Every read of input bytes is bounds-checked against
 * data_len: the payload offsets come from a reader, but the bytes remain hostile. */
#include "graph/graph.h"
#include "base/par.h"
#include "base/phase.h"

#include "base/hash.h"
#include "base/search.h"
#include "base/spill.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- lifecycle ---- */

/* Blocks of the rank index: malloc'd, or mapped (mapped bytes, graph_id_bits). */
static void blk_free(graph_id_blk *b, size_t mapped)
{
    if (mapped)
        munmap(b, mapped);
    else
        free(b);
}

void graph_init(graph *g)
{
    memset(g, 0, sizeof *g);
    g->synthetic_root = GRAPH_NONE;
    g->max_nodes = GRAPH_MAX_NODES;
    g->max_edges = GRAPH_MAX_EDGES;
}

lr_status graph_check_size(const graph *g, uint64_t nodes, uint64_t edges,
                           const char *what_edges, lr_error *err)
{
    const char *path = g->path ? g->path : "<memory>";
    if (nodes > g->max_nodes)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: %llu objects, more than the %llu one graph can "
                       "hold (32-bit node indices; docs/limits.md)", path,
                       (unsigned long long)nodes, (unsigned long long)g->max_nodes);
    if (edges > g->max_edges)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: %llu %s, more than the %llu one graph can hold "
                       "(32-bit edge indices; docs/limits.md)", path, (unsigned long long)edges,
                       what_edges ? what_edges : "edges", (unsigned long long)g->max_edges);
    return LR_OK;
}

void graph_settle(const graph *g)
{
    /* not node_native: native sizes are added after the load (analysis/native) */
    const void *a[] = {g->node_id,    g->node_id32,  g->node_class, g->node_class16,
                       g->node_size,  g->node_kind,  g->node_type,  g->node_heap,
                       g->node_name,  g->node_off,   g->node_len,   g->node_value,
                       g->node_dom,   g->first_edge, g->edge_to,    g->edge_name,
                       g->edge_kind,  g->id_sorted,  g->id_dir,     g->id_chunk,
                       g->id_seg,     g->id_seg_dir, g->class_nodes,
                       g->id_blk_mapped ? NULL : g->id_blk};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        spill_cold(a[i]);
}

void graph_fini(graph *g)
{
    if (!g)
        return;
    free((void *)g->path);
    free(g->node_id);
    free(g->node_id32);
    free(g->node_class);
    free(g->node_class16);
    free(g->node_size);
    free(g->node_native);
    free(g->node_birth);
    free(g->node_dom);
    free(g->locs);
    free(g->node_kind);
    if (g->node_type != g->node_kind)
        free(g->node_type); /* HPROF shares one array: its types are its kinds */
    free(g->node_heap);
    free(g->node_name);
    free(g->node_value);
    free(g->class_clear_name);
    free(g->node_off);
    free(g->node_len);
    free(g->first_edge);
    free(g->edge_to);
    free(g->edge_name);
    free(g->edge_kind);
    free(g->rev_first);
    free(g->rev_edge);
    free(g->classes);
    free(g->class_nodes);
    free(g->fields);
    free(g->statics);
    free(g->roots);
    free(g->threads);
    free(g->thread_by_serial);
    free(g->frames);
    free(g->strings.chars);
    free(g->strings.offs);
    hmap_free(&g->strings.index);
    free(g->id_sorted);
    free(g->id_dir);
    blk_free(g->id_blk, g->id_blk_mapped);
    free(g->id_chunk);
    free(g->id_seg);
    free(g->id_seg_dir);
    if (g->fmt_free)
        g->fmt_free(g->fmt_state);
    graph_init(g);
}

lr_status graph_alloc_nodes(graph *g, uint64_t n, unsigned want, lr_error *err)
{
    LR_TRY(graph_check_size(g, n, 0, NULL, err));
    size_t m = (size_t)n;
    g->n_nodes = (uint32_t)n;
    g->node_id = err_mallocarray(m, sizeof *g->node_id);
    g->node_class = err_mallocarray(m, sizeof *g->node_class);
    g->node_size = err_mallocarray(m, sizeof *g->node_size);
    g->node_kind = err_mallocarray(m, 1);
    g->node_type = err_mallocarray(m, 1);
    g->node_off = err_mallocarray(m, sizeof *g->node_off);
    g->node_len = err_mallocarray(m, sizeof *g->node_len);
    int ok = g->node_id && g->node_class && g->node_size && g->node_kind && g->node_type &&
             g->node_off && g->node_len;
    if (want & GRAPH_WANT_NATIVE)
        ok = ok && (g->node_native = err_calloc(m, sizeof *g->node_native));
    if (want & GRAPH_WANT_HEAP)
        ok = ok && (g->node_heap = err_calloc(m, 1));
    if (want & GRAPH_WANT_NAME)
        ok = ok && (g->node_name = err_mallocarray(m, sizeof *g->node_name));
    if (!ok)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory for %llu nodes",
                       g->path ? g->path : "", (unsigned long long)n);
    return LR_OK;
}

lr_status graph_alloc_edges(graph *g, uint64_t n, lr_error *err)
{
    LR_TRY(graph_check_size(g, 0, n, NULL, err));
    size_t m = (size_t)n;
    g->n_edges = (uint32_t)n;
    if (!g->first_edge)
        g->first_edge = err_calloc((size_t)g->n_nodes + 1, sizeof *g->first_edge);
    g->edge_to = err_mallocarray(m, sizeof *g->edge_to);
    g->edge_name = err_mallocarray(m, sizeof *g->edge_name);
    g->edge_kind = err_mallocarray(m, 1);
    if (!g->first_edge || !g->edge_to || !g->edge_name || !g->edge_kind)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory for %llu edges",
                       g->path ? g->path : "", (unsigned long long)n);
    return LR_OK;
}

/* ---- strings ---- */

/* The intern table's hash: FNV-1a over 64 bits from hmap_seed's state, folded to 32 bits.
 * The names come from the dump, and strings chosen to collide in a known hash (a
 * multicollision of FNV-1a-32 is seconds of work) made every insert probe the whole
 * cluster: 131,072 such strings, an 11 MB snapshot, loaded in 58 s. */
static uint32_t strtab_hash(const char *p, size_t n)
{
    uint64_t h = HASH_FNV64_INIT ^ hmap_seed();
    for (size_t i = 0; i < n; i++)
        h = hash_fnv64_step(h, (uint8_t)p[i]);
    return (uint32_t)hash_mix64(h);
}

/* Rebuilds the table dropped by graph_drop_intern_table from the strings themselves. */
static int strtab_rebuild(graph_strtab *t)
{
    uint64_t want = (uint64_t)t->n + 1;
    if (!hmap_reserve(&t->index, want < HMAP_MAX_RESERVE ? want : HMAP_MAX_RESERVE))
        return 0;
    for (uint32_t s = 0; s < t->n; s++) {
        const char *p = t->chars + t->offs[s];
        if (!hmap_add(&t->index, strtab_hash(p, strlen(p)), s))
            return 0;
    }
    t->index_dropped = 0;
    return 1;
}

lr_status graph_reserve_strings(graph *g, uint32_t n, lr_error *err)
{
    graph_strtab *t = &g->strings;
    if (t->index_dropped && !strtab_rebuild(t))
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory interning strings");
    /* a hint, not a promise: past the table's largest reservation it just grows on demand */
    uint64_t want = (uint64_t)n + t->n + 1;
    if (!hmap_reserve(&t->index, want < HMAP_MAX_RESERVE ? want : HMAP_MAX_RESERVE))
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory interning strings");
    return LR_OK;
}

void graph_drop_intern_table(graph *g)
{
    hmap_free(&g->strings.index);
    g->strings.index_dropped = g->strings.n > 0;
}

lr_status graph_intern(graph *g, const char *s, size_t len, str_ix *out, lr_error *err)
{
    graph_strtab *t = &g->strings;
    if (t->index_dropped && !strtab_rebuild(t))
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory interning strings");
    uint32_t h = strtab_hash(s, len);
    hmap_it it;
    for (uint32_t e = hmap_first(&t->index, h, &it); e != HMAP_NONE;
         e = hmap_next(&t->index, &it)) {
        const char *p = t->chars + t->offs[e];
        if (strncmp(p, s, len) == 0 && p[len] == '\0') {
            *out = e;
            return LR_OK;
        }
    }
    if (t->n == UINT32_MAX - 1)
        return LR_FAIL(err, LR_ERR_LIMIT, "too many distinct strings");
    if (t->n_chars + len + 1 > t->cap_chars) {
        size_t cap = t->cap_chars ? t->cap_chars : 65536;
        while (cap < t->n_chars + len + 1)
            cap *= 2;
        char *c = realloc(t->chars, cap);
        if (!c)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory interning strings");
        t->chars = c;
        t->cap_chars = cap;
    }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 1024;
        uint64_t *o = err_reallocarray(t->offs, cap, sizeof *o);
        if (!o)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory interning strings");
        t->offs = o;
        t->cap = cap;
    }
    if (!hmap_add(&t->index, h, t->n))
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory interning strings");
    t->offs[t->n] = t->n_chars;
    memcpy(t->chars + t->n_chars, s, len);
    t->chars[t->n_chars + len] = '\0';
    t->n_chars += len + 1;
    *out = t->n++;
    return LR_OK;
}

const char *graph_str(const graph *g, str_ix s)
{
    if (s == GRAPH_NONE || s >= g->strings.n)
        return "";
    return g->strings.chars + g->strings.offs[s];
}

/* ---- script locations ---- */

const graph_loc *graph_node_loc(const graph *g, node_ix n)
{
    uint32_t lo = 0, hi = g->n_locs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->locs[mid].node < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->n_locs && g->locs[lo].node == n ? &g->locs[lo] : NULL;
}

const char *graph_loc_text(const graph *g, const graph_loc *l, char buf[GRAPH_LOC_MAX])
{
    const char *url = graph_str(g, l->url);
    /* a URL past the buffer keeps its end: the file's name and the line are what is read */
    size_t len = strlen(url), room = GRAPH_LOC_MAX - 40;
    const char *cut = len > room ? "..." : "";
    if (*url)
        snprintf(buf, GRAPH_LOC_MAX, "%s%s:%" PRIu64 ":%" PRIu64, cut,
                 len > room ? url + len - room : url, (uint64_t)l->line + 1,
                 (uint64_t)l->col + 1);
    else
        snprintf(buf, GRAPH_LOC_MAX, "script %" PRIu32 ":%" PRIu64 ":%" PRIu64, l->script,
                 (uint64_t)l->line + 1, (uint64_t)l->col + 1);
    return buf;
}

/* ---- id index ---- */

/* Sorts node indices by node_id. Dumps write objects in ascending runs (HotSpot: one per heap
 * region, a few hundred in a 1 GB dump), so up to MERGE_MAX_RUNS runs are merged in one pass
 * through a binary heap of run heads: O(N log runs) with every run read sequentially and no
 * scratch beyond the heap. More runs fall back to an LSD radix sort over the bits that vary
 * (11-bit digits, 4 bytes/node of scratch). Both are stable: equal ids keep node order (heap
 * ties go to the earlier run). */
#define MERGE_MAX_RUNS 65536u

typedef struct run_head {
    uint64_t key; /* id of the run's next node */
    uint32_t run; /* run index: ties go to the earlier run */
} run_head;

static inline int head_less(const run_head *x, const run_head *y)
{
    return x->key < y->key || (x->key == y->key && x->run < y->run);
}

static void heap_down(run_head *h, uint32_t n, uint32_t i)
{
    run_head v = h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && head_less(&h[c + 1], &h[c]))
            c++;
        if (!head_less(&h[c], &v))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

/* Merges the nr ascending runs starting at starts[0..nr) (starts[nr] = n) into out. */
static void merge_runs(const graph *g, const uint32_t *starts, uint32_t nr, run_head *h,
                       uint32_t *next, uint32_t *out)
{
    uint32_t hn = 0, o = 0;
    for (uint32_t r = 0; r < nr; r++) {
        next[r] = starts[r];
        h[hn++] = (run_head){graph_node_id(g, starts[r]), r};
    }
    for (uint32_t i = hn / 2; i-- > 0;)
        heap_down(h, hn, i);
    while (hn) {
        uint32_t r = h[0].run;
        uint32_t x = next[r]++;
        out[o++] = x;
        if (next[r] < starts[r + 1]) {
            h[0].key = graph_node_id(g, next[r]);
        } else {
            h[0] = h[--hn];
        }
        if (hn)
            heap_down(h, hn, 0);
    }
}

static lr_status sort_ids(graph *g, lr_error *err)
{
    uint32_t n = g->n_nodes;
    uint32_t nr = n ? 1 : 0;
    uint64_t vary = 0;
    for (uint32_t i = 1; i < n; i++) {
        nr += graph_node_id(g, i) < graph_node_id(g, i - 1);
        vary |= graph_node_id(g, i) ^ graph_node_id(g, 0);
    }
    uint32_t *a = err_mallocarray(n ? n : 1, sizeof *a);
    if (!a)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory sorting ids");
    if (nr <= MERGE_MAX_RUNS) {
        uint32_t *starts = err_mallocarray((size_t)nr + 1, sizeof *starts);
        uint32_t *next = err_mallocarray(nr ? nr : 1, sizeof *next);
        run_head *h = err_mallocarray(nr ? nr : 1, sizeof *h);
        if (!starts || !next || !h) {
            free(starts);
            free(next);
            free(h);
            free(a);
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory sorting ids");
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++)
            if (i == 0 || graph_node_id(g, i) < graph_node_id(g, i - 1))
                starts[k++] = i;
        starts[nr] = n;
        merge_runs(g, starts, nr, h, next, a);
        free(starts);
        free(next);
        free(h);
        g->id_sorted = a;
        return LR_OK;
    }
    uint32_t *b = err_mallocarray(n, sizeof *b);
    if (!b) {
        free(a);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory sorting ids");
    }
    for (uint32_t i = 0; i < n; i++)
        a[i] = i;
    enum { BITS = 11, RADIX = 1 << BITS };
    static uint32_t count[RADIX];
    for (unsigned shift = 0; shift < 64; shift += BITS) {
        if (((vary >> shift) & (RADIX - 1)) == 0)
            continue;
        memset(count, 0, sizeof count);
        for (uint32_t i = 0; i < n; i++)
            count[(graph_node_id(g, a[i]) >> shift) & (RADIX - 1)]++;
        uint32_t sum = 0;
        for (unsigned d = 0; d < RADIX; d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            b[count[(graph_node_id(g, a[i]) >> shift) & (RADIX - 1)]++] = a[i];
        uint32_t *t = a;
        a = b;
        b = t;
    }
    free(b);
    g->id_sorted = a;
    return LR_OK;
}

static inline uint64_t sorted_id(const graph *g, uint32_t pos)
{
    return g->ids_sorted ? graph_node_id(g, pos) : graph_node_id(g, g->id_sorted[pos]);
}

/* ---- the rank index, built on two threads ---- */

/* Below this many nodes the index passes run on one thread. */
#define RANK_SPLIT_MIN 1000000u

/* One pass of the rank index over nodes [lo, hi): what it reads and what it found. */
typedef struct rank_pass {
    graph *g;
    uint32_t lo, hi;
    int pass;          /* RANK_SCAN, RANK_CHUNKS, RANK_BITS, RANK_SCATTER */
    uint64_t base;     /* smallest id */
    unsigned align;    /* log2 of the spacing */
    uint32_t *ch;      /* per chunk: 1 if used, then its first block */
    graph_id_blk *blk; /* blocks */
    uint32_t *perm;    /* id_sorted being filled */
    graph_id_scan scan; /* RANK_SCAN's result */
    int repeat;        /* RANK_BITS met an id twice */
} rank_pass;
enum { RANK_SCAN, RANK_CHUNKS, RANK_BITS, RANK_SCATTER };

static void *rank_run(void *arg)
{
    rank_pass *w = arg;
    graph *g = w->g;
    const uint64_t chunk = (uint64_t)GRAPH_ID_BLK_BITS * GRAPH_ID_CHUNK_BLKS;
    switch (w->pass) {
    case RANK_SCAN: {
        /* order, range, and the spacing all ids share (graph_id_scan) */
        graph_id_scan sc;
        graph_id_scan_init(&sc, w->lo, w->scan.cap_desc);
        for (uint32_t i = w->lo; i < w->hi; i++)
            graph_id_scan_add(&sc, graph_node_id(g, i));
        w->scan = sc;
        break;
    }
    case RANK_CHUNKS:
        for (uint32_t i = w->lo; i < w->hi; i++)
            __atomic_store_n(&w->ch[((graph_node_id(g, i) - w->base) >> w->align) / chunk], 1,
                             __ATOMIC_RELAXED);
        break;
    case RANK_BITS: {
        /* Neighbouring nodes' ids mostly share a word (runs of ascending ids: about 20 per
         * word on HotSpot's 8-byte spacing), so the bits gather in acc and reach memory in one
         * atomic OR per word rather than per id; a repeat shows in acc or in what the OR
         * finds (the other thread's bits included). */
        uint64_t *cur = NULL, acc = 0;
        for (uint32_t i = w->lo; i < w->hi; i++) {
            uint64_t p = (graph_node_id(g, i) - w->base) >> w->align;
            uint64_t *word = &w->blk[w->ch[p / chunk] + p % chunk / GRAPH_ID_BLK_BITS]
                                  .w[p % GRAPH_ID_BLK_BITS / 64];
            uint64_t bit = 1ull << (p % 64);
            if (word != cur) {
                if (cur && (__atomic_fetch_or(cur, acc, __ATOMIC_RELAXED) & acc)) {
                    w->repeat = 1;
                    break;
                }
                cur = word;
                acc = 0;
            }
            if (acc & bit) {
                w->repeat = 1;
                break;
            }
            acc |= bit;
        }
        if (!w->repeat && cur && (__atomic_fetch_or(cur, acc, __ATOMIC_RELAXED) & acc))
            w->repeat = 1;
        break;
    }
    case RANK_SCATTER:
        for (uint32_t i = w->lo; i < w->hi; i++)
            w->perm[graph_id_rank(g, graph_node_id(g, i))] = i;
        break;
    }
    return NULL;
}

/* Runs one pass over all nodes, on two threads (halves) from RANK_SPLIT_MIN nodes on. */
static void rank_both(rank_pass w[2], int pass)
{
    uint32_t n = w[0].g->n_nodes, mid = n >= RANK_SPLIT_MIN ? n / 2 : n;
    w[0].pass = w[1].pass = pass;
    w[0].lo = 0;
    w[0].hi = w[1].lo = mid;
    w[1].hi = n;
    par_two(rank_run, &w[0], &w[1], mid < n);
}

/* Steps past the directory's segment a rank lookup may take (graph_rank_node), and the
 * number the directory is made finer for while it stays small (entries per segment). */
#define SEG_STEPS_MAX 8u
#define SEG_STEPS_GOOD 2u
#define SEG_DIR_PER_SEG 64u

typedef struct seg_tmp {
    uint32_t rank, node, len;
} seg_tmp;

static int cmp_seg(const void *a, const void *b)
{
    uint32_t x = ((const seg_tmp *)a)->rank, y = ((const seg_tmp *)b)->rank;
    return x < y ? -1 : x > y;
}

/* Segments of id order over nodes [a, b), a run of strictly ascending ids: the run is one
 * segment when no other id lies between its ends (their ranks are b - a - 1 apart), else
 * its halves are tried. 0 when more than cap segments would be needed. */
static int seg_run(const graph *g, uint32_t a, uint32_t b, seg_tmp *s, uint32_t *n,
                   uint32_t cap)
{
    uint32_t ra = graph_id_rank(g, graph_node_id(g, a));
    uint32_t rb = graph_id_rank(g, graph_node_id(g, b - 1));
    if (rb - ra == b - 1 - a) {
        if (*n == cap)
            return 0;
        s[(*n)++] = (seg_tmp){ra, a, b - a};
        return 1;
    }
    uint32_t m = a + (b - a) / 2;
    return seg_run(g, a, m, s, n, cap) && seg_run(g, m, b, s, n, cap);
}

uint32_t graph_rank_seg_search(const graph *g, uint32_t r)
{
    uint32_t b = r >> g->id_seg_shift, nb = ((g->n_nodes - 1) >> g->id_seg_shift) + 1;
    uint32_t lo = g->id_seg_dir[b] & ~GRAPH_SEG_SEARCH;
    uint32_t hi = b + 1 < nb ? g->id_seg_dir[b + 1] & ~GRAPH_SEG_SEARCH : g->id_seg_n - 1;
    while (lo < hi) { /* the last segment starting at or before r: seg[lo].rank <= r */
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (g->id_seg[mid].rank <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* id order as segments of node order (graph.id_seg) from the runs the scan found, with a
 * directory over the ranks that leaves at most SEG_STEPS_MAX steps per lookup, or a binary
 * search in the buckets it marks GRAPH_SEG_SEARCH. Returns 0 (nothing kept) when the runs
 * were too many or interleave too finely (more than an eighth of the buckets searched):
 * then the permutation is built instead. Costs two rank lookups per segment tried, not a
 * pass over the nodes. */
static int build_segments(graph *g, const graph_id_scan *sc)
{
    uint32_t n = g->n_nodes;
    if (sc->n_desc == UINT32_MAX)
        return 0;
    uint32_t cap = n / 64 + 64, nr = 0, ns = 0;
    uint32_t *starts = err_mallocarray((size_t)sc->n_desc + 2, sizeof *starts);
    seg_tmp *s = err_mallocarray(cap, sizeof *s);
    graph_id_seg *seg = NULL;
    uint32_t *dir = NULL;
    if (!starts || !s)
        goto fail;
    starts[nr++] = 0;
    for (uint32_t k = 0; k < sc->n_desc; k++)
        starts[nr++] = sc->desc[k];
    starts[nr] = n;
    for (uint32_t k = 0; k < nr; k++)
        if (!seg_run(g, starts[k], starts[k + 1], s, &ns, cap))
            goto fail;
    qsort(s, ns, sizeof *s, cmp_seg);
    /* ranks are a bijection onto [0, n): the segments tile them; neighbours in both orders
     * (a run split in halves) join */
    uint32_t m = 0;
    for (uint32_t k = 0; k < ns; k++) {
        if (s[k].rank != (k ? s[k - 1].rank + s[k - 1].len : 0))
            goto fail;
        if (m && s[k].node == s[m - 1].node + s[m - 1].len &&
            s[k].rank == s[m - 1].rank + s[m - 1].len)
            s[m - 1].len += s[k].len;
        else
            s[m++] = s[k];
    }
    if (!ns || s[ns - 1].rank + s[ns - 1].len != n)
        goto fail;
    if (!(seg = err_mallocarray((size_t)m + 1, sizeof *seg)))
        goto fail;
    for (uint32_t k = 0; k < m; k++)
        seg[k] = (graph_id_seg){s[k].rank, s[k].node};
    seg[m] = (graph_id_seg){UINT32_MAX, 0}; /* ranks are below n <= 2^31 */
    /* the directory: about four buckets per segment, finer while a lookup may take more
     * than SEG_STEPS_GOOD steps and it stays within SEG_DIR_PER_SEG entries per segment and
     * n / 8 (in cache, and no more than an eighth of the permutation's bytes); then the few
     * buckets that still span more than SEG_STEPS_MAX segments (class objects among a
     * region's instances: a segment each) are marked GRAPH_SEG_SEARCH and searched */
    unsigned shift = 0;
    uint32_t steps, nb, n_search;
    while (shift < 31 && ((uint64_t)(n - 1) >> shift) + 1 > 4ull * m)
        shift++;
    uint64_t most = (uint64_t)SEG_DIR_PER_SEG * m < n / 8 + 1 ? (uint64_t)SEG_DIR_PER_SEG * m
                                                                : n / 8 + 1;
    for (;; shift--) {
        nb = ((n - 1) >> shift) + 1;
        steps = 0;
        free(dir);
        if (!(dir = err_mallocarray(nb, sizeof *dir)))
            goto fail;
        for (uint32_t b = 0, k = 0; b < nb; b++) {
            uint32_t r = b << shift;
            uint64_t e = (((uint64_t)b + 1) << shift) - 1;
            while (k + 1 < m && seg[k + 1].rank <= r)
                k++;
            dir[b] = k;
            uint32_t last = k; /* the segment of the bucket's last rank */
            while (last + 1 < m && seg[last + 1].rank <= e)
                last++;
            steps = last - k > steps ? last - k : steps;
        }
        uint64_t finer = shift ? ((uint64_t)(n - 1) >> (shift - 1)) + 1 : UINT64_MAX;
        if (steps <= SEG_STEPS_GOOD || finer > most)
            break;
    }
    steps = 0;
    n_search = 0;
    for (uint32_t b = nb; b-- > 0;) {
        uint32_t last = b + 1 < nb ? dir[b + 1] & ~GRAPH_SEG_SEARCH : m - 1;
        if (seg[last].rank > (((uint64_t)b + 1) << shift) - 1)
            last--; /* the next bucket's first rank starts a segment */
        if (last - dir[b] > SEG_STEPS_MAX) {
            dir[b] |= GRAPH_SEG_SEARCH;
            n_search++;
        } else if (last - dir[b] > steps) {
            steps = last - dir[b];
        }
    }
    if (n_search > nb / 8)
        goto fail; /* runs interleave too finely: the permutation serves better */
    g->id_seg = seg;
    g->id_seg_n = m;
    g->id_seg_dir = dir;
    g->id_seg_shift = shift;
    g->id_seg_steps = steps;
    free(starts);
    free(s);
    return 1;
fail:
    free(starts);
    free(s);
    free(seg);
    free(dir);
    return 0;
}

/* RANK_CHUNKS over nodes [i, e) whose ids ascend: the nodes of one chunk are consecutive,
 * so a galloping search from a chunk's first node finds the next chunk's, reading about
 * 2 log2(nodes per chunk) ids per chunk in use instead of every id (ids read back from the
 * records cost a cache line of the dump each). */
static void mark_chunks_run(const graph *g, uint64_t base, unsigned align, uint32_t *ch,
                            uint32_t i, uint32_t e)
{
    const uint64_t chunk = (uint64_t)GRAPH_ID_BLK_BITS * GRAPH_ID_CHUNK_BLKS;
    while (i < e) {
        uint64_t c = ((graph_node_id(g, i) - base) >> align) / chunk;
        ch[c] = 1;
        /* the first node past chunk c: in (i + step / 2, i + step] once i + step is past */
        uint64_t end = (c + 1) * chunk;
        uint32_t step = 1;
        while (step < e - i && ((graph_node_id(g, i + step) - base) >> align) < end)
            step = step < (e - i) / 2 ? 2 * step : e - i;
        uint32_t a = i + step / 2 + 1, b = i + step; /* node b is past, or b == e */
        while (a < b) {
            uint32_t m = a + (b - a) / 2;
            if (((graph_node_id(g, m) - base) >> align) < end)
                a = m + 1;
            else
                b = m;
        }
        i = a;
    }
}

static int rank_finish(graph *g, rank_pass w[2], const graph_id_scan *sc, graph_id_blk *b,
                       uint32_t *ch, size_t mapped);
static int rank_from_bits(graph *g, rank_pass w[2], const graph_id_scan *sc,
                          graph_id_bits *bits);

/* Positions and chunks of an id range whose last position is last: false when they would
 * pass 64 bits (ids spread over the whole space, as only a hostile dump has them; the index
 * then goes another way), where pos and the chunk count wrapped round to a few entries that
 * the positions then overran. */
static int id_positions(uint64_t last, uint64_t *pos, uint64_t *n_chunks)
{
    const uint64_t chunk = (uint64_t)GRAPH_ID_BLK_BITS * GRAPH_ID_CHUNK_BLKS;
    if (last > UINT64_MAX - chunk)
        return 0;
    *pos = last + 1;
    *n_chunks = (*pos + chunk - 1) / chunk;
    return 1;
}

/* The rank index (graph.h, graph_id_blk) over ids in [lo, hi] whose differences are all
 * multiples of 2^align, when it fits in GRAPH_ID_RANK_MAX_BYTES per node and no id repeats;
 * returns 0 (nothing kept) to leave the lookup to the sorted directory. Only chunks of
 * positions that hold an id get blocks (a heap's unused regions cost 4 bytes per chunk). With
 * the ids out of node order, the ranks also give id_sorted directly, one scatter instead of
 * a sort. Passes over the ids: chunks (instead a search per chunk of each run of ascending
 * ids when the scan kept the runs), bits (finding repeats), scatter, each on two threads;
 * O(N + blocks). The first two are skipped when a reader set the bits while reading the ids
 * (graph_id_bits for the same range and spacing, rank_from_bits). */
static int build_rank(graph *g, rank_pass w[2], const graph_id_scan *sc, unsigned align,
                      graph_id_bits *bits)
{
    uint32_t n = g->n_nodes;
    uint64_t lo = sc->min, pos, nch;
    if (!id_positions((graph_id_scan_max(sc) - lo) >> align, &pos, &nch))
        return 0;
    uint64_t budget = (uint64_t)n * GRAPH_ID_RANK_MAX_BYTES + 4096;
    if (nch * sizeof(uint32_t) > budget)
        return 0;
    if (bits->blk && !bits->bad && bits->base == lo && bits->align == align &&
        bits->pos == pos)
        return rank_from_bits(g, w, sc, bits);
    uint32_t *ch = err_calloc(nch, sizeof *ch);
    if (!ch)
        return 0; /* the directory may need less */
    for (int k = 0; k < 2; k++) {
        w[k].base = lo;
        w[k].align = align;
        w[k].ch = ch;
    }
    if (sc->n_desc != UINT32_MAX) {
        /* the runs of ascending ids the scan found */
        for (uint32_t k = 0; k <= sc->n_desc; k++)
            mark_chunks_run(g, lo, align, ch, k ? sc->desc[k - 1] : 0,
                            k < sc->n_desc ? sc->desc[k] : n);
    } else {
        rank_both(w, RANK_CHUNKS);
    }
    uint64_t nblk = 0;
    for (uint64_t c = 0; c < nch; c++) {
        uint32_t used = ch[c];
        ch[c] = used ? (uint32_t)nblk : GRAPH_NONE;
        nblk += used ? GRAPH_ID_CHUNK_BLKS : 0;
        if (nblk * sizeof(graph_id_blk) + nch * sizeof *ch > budget || nblk >= UINT32_MAX) {
            free(ch);
            return 0;
        }
    }
    graph_id_blk *b = aligned_alloc(64, nblk * sizeof *b);
    if (!b) {
        free(ch);
        return 0;
    }
    memset(b, 0, nblk * sizeof *b);
    for (int k = 0; k < 2; k++)
        w[k].blk = b;
    rank_both(w, RANK_BITS);
    if (w[0].repeat || w[1].repeat) { /* a repeated id: the directory answers the first */
        free(ch);
        free(b);
        return 0;
    }
    return rank_finish(g, w, sc, b, ch, 0);
}

/* build_rank's end: the running counts of the blocks b (set bits, chunks ch: the blocks of
 * the chunks in use, wherever they lie in b) and the ranks-to-nodes table; takes b and ch
 * over (b mapped: its bytes, else 0). */
static int rank_finish(graph *g, rank_pass w[2], const graph_id_scan *sc, graph_id_blk *b,
                       uint32_t *ch, size_t mapped)
{
    uint32_t n = g->n_nodes;
    uint64_t lo = sc->min;
    unsigned align = w[0].align;
    uint64_t pos, nch; /* build_rank found the range within 64 bits */
    if (!id_positions((graph_id_scan_max(sc) - lo) >> align, &pos, &nch)) {
        free(ch);
        blk_free(b, mapped);
        return 0;
    }
    uint32_t *perm = NULL;
    uint32_t rank = 0;
    for (uint64_t c = 0; c < nch; c++) {
        if (ch[c] == GRAPH_NONE)
            continue;
        for (uint32_t k = ch[c]; k < ch[c] + GRAPH_ID_CHUNK_BLKS; k++) {
            b[k].rank = rank;
            uint16_t in = 0;
            for (unsigned j = 0; j < GRAPH_ID_BLK_WORDS; j++) {
                b[k].sub[j] = in;
                in = (uint16_t)(in + graph_popcount64(b[k].w[j]));
            }
            rank += in;
        }
    }
    if (rank != n) { /* bits a reader set for other ids than its nodes' (a bug) */
        free(ch);
        blk_free(b, mapped);
        return 0;
    }
    g->id_blk = b;
    g->id_blk_mapped = mapped;
    g->id_chunk = ch;
    g->id_min = lo;
    g->id_align = align;
    g->id_pos = pos;
    if (!g->ids_sorted && !build_segments(g, sc)) {
        if (!(perm = err_mallocarray(n, sizeof *perm))) {
            g->id_blk = NULL;
            g->id_blk_mapped = 0;
            g->id_chunk = NULL;
            free(ch);
            blk_free(b, mapped);
            return 0;
        }
        for (int k = 0; k < 2; k++)
            w[k].perm = perm;
        rank_both(w, RANK_SCATTER);
        g->id_sorted = perm;
    }
    return 1;
}

/* build_rank over the bits the reader set (graph_id_bits, matching sc's range): lane 0's
 * chunk table becomes the index's, a chunk both lanes used gets lane 1's bits ORed into lane
 * 0's blocks (a bit in both is a repeated id: no rank index), and the mapping is cut to the
 * blocks handed out (the pages past them were never touched). */
static int rank_from_bits(graph *g, rank_pass w[2], const graph_id_scan *sc,
                          graph_id_bits *bits)
{
    graph_id_blk *b = bits->blk;
    uint32_t *ch = bits->ch[0];
    for (uint64_t c = 0; c < bits->n_chunks; c++) {
        uint32_t o = bits->ch[1][c];
        if (o == GRAPH_NONE)
            continue;
        if (ch[c] == GRAPH_NONE) {
            ch[c] = o;
            continue;
        }
        for (uint32_t k = 0; k < GRAPH_ID_CHUNK_BLKS; k++)
            for (unsigned j = 0; j < GRAPH_ID_BLK_WORDS; j++) {
                uint64_t *x = &b[ch[c] + k].w[j], y = b[o + k].w[j];
                if (*x & y)
                    return 0; /* graph_id_bits_free unmaps */
                *x |= y;
            }
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t all = (size_t)bits->cap * sizeof(graph_id_blk);
    size_t keep = ((size_t)bits->used * sizeof(graph_id_blk) + page - 1) / page * page;
    if (keep < all) {
        munmap((char *)b + keep, all - keep);
        all = keep;
    }
    bits->blk = NULL;
    bits->ch[0] = NULL;
    for (int k = 0; k < 2; k++) {
        w[k].base = bits->base;
        w[k].align = bits->align;
        w[k].ch = ch;
        w[k].blk = b;
    }
    return rank_finish(g, w, sc, b, ch, all);
}

void graph_id_bits_init(graph_id_bits *b, uint32_t n_nodes, uint64_t min, uint64_t max,
                        uint64_t spread)
{
    memset(b, 0, sizeof *b);
    if (min > max || n_nodes == 0)
        return;
    b->base = min;
    b->align = spread ? (unsigned)__builtin_ctzll(spread) : 0;
    if (!id_positions((max - min) >> b->align, &b->pos, &b->n_chunks)) {
        memset(b, 0, sizeof *b);
        return;
    }
    /* build_rank's budget: the chunk tables and the blocks of the chunks in use */
    uint64_t budget = (uint64_t)n_nodes * GRAPH_ID_RANK_MAX_BYTES + 4096;
    uint64_t tables = b->n_chunks * GRAPH_ID_BITS_LANES * sizeof(uint32_t);
    if (tables >= budget)
        return;
    uint64_t cap = (budget - tables) / sizeof(graph_id_blk);
    cap -= cap % GRAPH_ID_CHUNK_BLKS;
    if (cap > (uint64_t)UINT32_MAX - 2 * GRAPH_ID_CHUNK_BLKS)
        cap = ((uint64_t)UINT32_MAX - 2 * GRAPH_ID_CHUNK_BLKS) / GRAPH_ID_CHUNK_BLKS *
              GRAPH_ID_CHUNK_BLKS;
    if (!cap)
        return;
    for (unsigned l = 0; l < GRAPH_ID_BITS_LANES; l++) {
        if (!(b->ch[l] = err_mallocarray(b->n_chunks, sizeof *b->ch[l]))) {
            graph_id_bits_free(b);
            return;
        }
        memset(b->ch[l], 0xff, b->n_chunks * sizeof *b->ch[l]); /* GRAPH_NONE */
    }
    /* zero pages, taken only where a chunk's blocks are written */
    void *m = mmap(NULL, cap * sizeof(graph_id_blk), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        graph_id_bits_free(b);
        return;
    }
    b->blk = m;
    b->cap = cap;
}

void graph_id_bits_free(graph_id_bits *b)
{
    if (b->blk)
        munmap(b->blk, b->cap * sizeof(graph_id_blk));
    for (unsigned l = 0; l < GRAPH_ID_BITS_LANES; l++) {
        free(b->ch[l]);
        b->ch[l] = NULL;
    }
    b->blk = NULL;
}

uint32_t graph_id_bits_chunk(graph_id_bits *b, unsigned lane, uint64_t k)
{
    uint64_t at = __atomic_fetch_add(&b->used, GRAPH_ID_CHUNK_BLKS, __ATOMIC_RELAXED);
    if (at + GRAPH_ID_CHUNK_BLKS > b->cap) {
        __atomic_store_n(&b->bad, 1, __ATOMIC_RELAXED);
        return GRAPH_NONE;
    }
    /* Writes the chunk's zeros before its words are read (graph_id_bits_flush tests a word
     * before ORing into it): a page of the mapping read first would take the shared zero
     * page and then fault again, copy-on-write with a TLB flush on the other core, at the
     * write. Blocks are never shared between chunks, so the lanes write disjoint bytes. */
    memset(&b->blk[at], 0, GRAPH_ID_CHUNK_BLKS * sizeof *b->blk);
    b->ch[lane][k] = (uint32_t)at;
    return (uint32_t)at;
}

void graph_id_scan_init(graph_id_scan *s, uint32_t lo, uint32_t cap_desc)
{
    memset(s, 0, sizeof *s);
    s->lo = s->hi = lo;
    s->sorted = s->strict = 1;
    s->cap_desc = cap_desc;
}

void graph_id_scan_free(graph_id_scan *s)
{
    free(s->desc);
    s->desc = NULL;
}

void graph_id_scan_turn(graph_id_scan *s, uint64_t id)
{
    s->strict = 0;
    if (id == s->last)
        return;
    s->sorted = 0;
    s->min = id < s->min ? id : s->min;
    s->max = s->last > s->max ? s->last : s->max; /* the run ending here */
    if (s->n_desc == UINT32_MAX)
        return;
    if (s->n_desc == s->cap_desc) {
        s->n_desc = UINT32_MAX;
        return;
    }
    if (!s->desc && !(s->desc = err_mallocarray(s->cap_desc, sizeof *s->desc))) {
        s->n_desc = UINT32_MAX; /* no run table: the permutation serves */
        return;
    }
    s->desc[s->n_desc++] = s->hi;
}

void graph_id_scan_join(graph_id_scan *a, graph_id_scan *b)
{
    if (b->lo == b->hi) {
        graph_id_scan_free(b);
        return;
    }
    if (a->lo == a->hi) {
        uint32_t lo = a->lo;
        graph_id_scan_free(a);
        *a = *b;
        a->lo = lo;
        b->desc = NULL;
        return;
    }
    /* b's own order, and the step between a's last id and b's first */
    int step = b->first < a->last; /* b starts a run */
    a->sorted &= b->sorted && b->first >= a->last;
    a->strict &= b->strict && b->first > a->last;
    uint64_t amax = graph_id_scan_max(a), bmax = graph_id_scan_max(b);
    a->min = b->min < a->min ? b->min : a->min;
    a->max = bmax > amax ? bmax : amax;
    a->spread |= b->spread | (b->first - a->first);
    a->last = b->last;
    uint64_t nd = (uint64_t)a->n_desc + step + b->n_desc;
    if (a->n_desc == UINT32_MAX || b->n_desc == UINT32_MAX || nd > a->cap_desc + b->cap_desc) {
        a->n_desc = UINT32_MAX;
    } else if (nd) {
        uint32_t *d = err_reallocarray(a->desc, nd, sizeof *d);
        if (!d) {
            a->n_desc = UINT32_MAX;
        } else {
            a->desc = d;
            if (step)
                d[a->n_desc++] = b->lo;
            for (uint32_t k = 0; k < b->n_desc; k++)
                d[a->n_desc++] = b->desc[k];
        }
    }
    a->cap_desc += b->cap_desc;
    a->hi = b->hi;
    graph_id_scan_free(b);
}

static lr_status build_index(graph *g, const graph_id_scan *given, graph_id_bits *bits,
                             int keep_ids, lr_error *err)
{
    free(g->id_sorted);
    free(g->id_dir);
    blk_free(g->id_blk, g->id_blk_mapped);
    free(g->id_chunk);
    free(g->id_seg);
    free(g->id_seg_dir);
    g->id_sorted = NULL;
    g->id_dir = NULL;
    g->id_blk = NULL;
    g->id_blk_mapped = 0;
    g->id_chunk = NULL;
    g->id_seg = NULL;
    g->id_seg_dir = NULL;
    g->id_seg_n = 0;
    g->ids_sorted = 1;
    g->ids_strict = 1;
    if (g->n_nodes == 0)
        return LR_OK;
    rank_pass w[2];
    memset(w, 0, sizeof w);
    w[0].g = w[1].g = g;
    graph_id_scan own;
    const graph_id_scan *sc = given;
    if (!sc || sc->lo != 0 || sc->hi != g->n_nodes) {
        /* run starts for build_segments: past n / 128 per half the segments would not pay */
        w[0].scan.cap_desc = w[1].scan.cap_desc = g->n_nodes / 128 + 32;
        rank_both(w, RANK_SCAN);
        own = w[0].scan;
        if (w[1].lo < w[1].hi)
            graph_id_scan_join(&own, &w[1].scan);
        sc = &own;
    }
    g->ids_sorted = sc->sorted;
    g->ids_strict = sc->strict;
    uint64_t spread = sc->spread;
    unsigned align = spread ? (unsigned)__builtin_ctzll(spread) : 0;
    int ranked = build_rank(g, w, sc, align, bits);
    if (sc == &own)
        graph_id_scan_free(&own);
    if (ranked) {
        g->ids_strict = g->ids_sorted; /* a rank index holds no repeated id */
        return LR_OK;
    }
    if (keep_ids && !g->node_id && !g->node_id32 && graph_has_ids(g)) {
        /* the directory's sort and searches read ids many times: one read back each, kept
         * (graph_build_index_scanned); without the memory they are read back each time */
        uint64_t *ids = err_mallocarray(g->n_nodes, sizeof *ids);
        if (ids) {
            for (node_ix i = 0; i < g->n_nodes; i++)
                ids[i] = graph_node_id(g, i);
            g->node_id = ids;
        }
    }
    if (!g->ids_sorted)
        LR_TRY(sort_ids(g, err));
    /* Bucket directory over [min, max]: about four ids per bucket (1 byte of directory per
     * node), so a lookup is one bucket read and a binary search over a few neighbouring ids;
     * skewed id ranges just make that search longer. */
    uint64_t lo = sorted_id(g, 0), hi = sorted_id(g, g->n_nodes - 1);
    uint64_t range = hi - lo;
    unsigned shift = 0;
    while (shift < 63 && (range >> shift) > (uint64_t)g->n_nodes / 4)
        shift++;
    uint64_t nb = (range >> shift) + 2;
    g->id_dir = err_mallocarray(nb, sizeof *g->id_dir);
    if (!g->id_dir)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for the id index");
    g->id_min = lo;
    g->id_shift = shift;
    g->id_dir_n = (uint32_t)nb;
    uint64_t b = 0;
    for (uint32_t pos = 0; pos < g->n_nodes; pos++) {
        uint64_t bk = (sorted_id(g, pos) - lo) >> shift;
        while (b <= bk)
            g->id_dir[b++] = pos;
    }
    while (b < nb)
        g->id_dir[b++] = g->n_nodes;
    return LR_OK;
}

lr_status graph_build_index(graph *g, lr_error *err)
{
    graph_id_bits none = {0};
    return build_index(g, NULL, &none, 0, err);
}

lr_status graph_build_index_scanned(graph *g, const graph_id_scan *s, int keep_ids,
                                    lr_error *err)
{
    graph_id_bits none = {0};
    return build_index(g, s, &none, keep_ids, err);
}

lr_status graph_build_index_bits(graph *g, const graph_id_scan *s, graph_id_bits *bits,
                                 int keep_ids, lr_error *err)
{
    lr_status st = build_index(g, s, bits, keep_ids, err);
    graph_id_bits_free(bits);
    return st;
}

void graph_count_duplicate_ids(graph *g)
{
    if (g->ids_strict || g->id_blk || (!g->id_dir && !g->ids_sorted))
        return; /* a rank index holds unique ids; without an index there is no id order */
    for (uint32_t k = 1; k < g->n_nodes; k++)
        if (sorted_id(g, k - 1) == sorted_id(g, k))
            diag_count(&g->diag, DIAG_DUPLICATE_ID);
}

/* An id and where it was asked, for graph_find_ids. */
typedef struct id_ask {
    uint64_t id;
    uint32_t at;
} id_ask;

static int cmp_id_ask(const void *pa, const void *pb)
{
    const id_ask *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

lr_status graph_find_ids(const graph *g, const uint64_t *ids, uint32_t n, node_ix *out,
                         lr_error *err)
{
    if (g->id_blk || g->id_dir || n < 8 || !graph_has_ids(g)) {
        for (uint32_t i = 0; i < n; i++)
            out[i] = graph_find_id(g, ids[i]);
        return LR_OK;
    }
    id_ask *a = err_mallocarray(n, sizeof *a);
    if (!a)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for %u ids", n);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (id_ask){ids[i], i};
        out[i] = GRAPH_NONE;
    }
    qsort(a, n, sizeof *a, cmp_id_ask);
    for (node_ix x = 0; x < g->n_nodes; x++) {
        uint64_t id = graph_node_id(g, x);
        uint32_t lo;
        SEARCH_LOWER_BOUND(uint32_t, 0, n, a[search_mid].id < id, lo);
        /* the first node of an id answers, as graph_find_id's scan */
        for (; lo < n && a[lo].id == id; lo++)
            if (out[a[lo].at] == GRAPH_NONE)
                out[a[lo].at] = x;
    }
    free(a);
    return LR_OK;
}

node_ix graph_find_id(const graph *g, uint64_t id)
{
    if (g->id_blk)
        return graph_find_id_rank(g, id);
    if (!g->id_dir) {
        /* No index: the reader left it out (V8, whose verbs look up an id or two, so one
         * scan costs less than sorting every id up front). The first match in node order
         * answers, as the index's lower bound does. */
        if (!graph_has_ids(g))
            return GRAPH_NONE;
        for (node_ix i = 0; i < g->n_nodes; i++)
            if (graph_node_id(g, i) == id)
                return i;
        return GRAPH_NONE;
    }
    if (id < g->id_min)
        return GRAPH_NONE;
    uint64_t bk = (id - g->id_min) >> g->id_shift;
    if (bk + 1 >= g->id_dir_n)
        return GRAPH_NONE;
    /* Lower bound: of repeated ids (corrupt dumps) the first in node order answers, whatever
     * the bucket size. */
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, g->id_dir[bk], g->id_dir[bk + 1],
                       sorted_id(g, search_mid) < id, lo);
    if (lo >= g->id_dir[bk + 1] || sorted_id(g, lo) != id)
        return GRAPH_NONE;
    return g->ids_sorted ? lo : g->id_sorted[lo];
}

/* ---- classes ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

lr_status graph_index_class_nodes(graph *g, lr_error *err)
{
    free(g->class_nodes);
    g->class_nodes = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *g->class_nodes);
    g->n_class_nodes = 0;
    if (!g->class_nodes)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory indexing %u classes", g->n_classes);
    for (class_ix c = 0; c < g->n_classes; c++)
        if (g->classes[c].node < g->n_nodes)
            g->class_nodes[g->n_class_nodes++] = (uint64_t)g->classes[c].node << 32 | c;
    qsort(g->class_nodes, g->n_class_nodes, sizeof *g->class_nodes, cmp_u64);
    return LR_OK;
}

class_ix graph_class_of_node(const graph *g, node_ix n)
{
    if (!g->class_nodes) {
        for (class_ix c = 0; c < g->n_classes; c++)
            if (g->classes[c].node == n)
                return c;
        return GRAPH_NONE;
    }
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, g->n_class_nodes, g->class_nodes[search_mid] >> 32 < n, lo);
    if (lo < g->n_class_nodes && g->class_nodes[lo] >> 32 == n)
        return (class_ix)g->class_nodes[lo];
    return GRAPH_NONE;
}

class_ix graph_find_class(const graph *g, const char *name)
{
    for (class_ix c = 0; c < g->n_classes; c++)
        if (strcmp(graph_str(g, g->classes[c].name), name) == 0)
            return c;
    return GRAPH_NONE;
}

class_ix graph_find_nested(const graph *g, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    if (!g->id_size || n >= cap)
        return GRAPH_NONE;
    memcpy(buf, name, n + 1);
    /* from the innermost dot outwards: a.b.Outer.Inner is a.b.Outer$Inner, then a.b$Outer$Inner */
    for (size_t k = n; k-- > 0;) {
        if (buf[k] != '.')
            continue;
        buf[k] = '$';
        class_ix c = graph_find_class(g, buf);
        if (c != GRAPH_NONE)
            return c;
    }
    return GRAPH_NONE;
}

int graph_class_is(const graph *g, class_ix c, class_ix ancestor)
{
    /* Bounded walk: a corrupt dump may declare a superclass cycle. */
    for (uint32_t hops = 0; c != GRAPH_NONE && c < g->n_classes && hops <= g->n_classes; hops++) {
        if (c == ancestor)
            return 1;
        c = g->classes[c].super;
    }
    return 0;
}

int graph_class_is_named(const graph *g, class_ix c, const char *name)
{
    for (uint32_t hops = 0; c != GRAPH_NONE && c < g->n_classes && hops <= g->n_classes; hops++) {
        if (strcmp(graph_str(g, g->classes[c].name), name) == 0)
            return 1;
        c = g->classes[c].super;
    }
    return 0;
}

const char *graph_class_name(const graph *g, node_ix n)
{
    if (n >= g->n_nodes || graph_node_class(g, n) >= g->n_classes) /* GRAPH_NONE too */
        return "";
    return graph_str(g, g->classes[graph_node_class(g, n)].name);
}

/* ---- reverse edges ---- */

static lr_status build_reverse(graph *g, lr_error *err);

lr_status graph_build_reverse(graph *g, lr_error *err)
{
    if (g->rev_first)
        return LR_OK;
    const char *prev = phase_current();
    phase_enter("reverse edges");
    lr_status st = build_reverse(g, err);
    phase_enter(prev);
    return st;
}

static lr_status build_reverse(graph *g, lr_error *err)
{
    edge_ix *first = err_calloc((size_t)g->n_nodes + 1, sizeof *first);
    edge_ix *rev = err_mallocarray(g->n_edges, sizeof *rev);
    if (!first || !rev) {
        free(first);
        free(rev);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for reverse edges");
    }
    for (edge_ix e = 0; e < g->n_edges; e++)
        first[g->edge_to[e] + 1]++;
    for (uint32_t n = 0; n < g->n_nodes; n++)
        first[n + 1] += first[n];
    /* Fill in forward-edge order so each node's referrers come out in source-node order. */
    edge_ix *fill = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *fill);
    if (!fill) {
        free(first);
        free(rev);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for reverse edges");
    }
    memcpy(fill, first, (size_t)g->n_nodes * sizeof *fill);
    for (edge_ix e = 0; e < g->n_edges; e++)
        rev[fill[g->edge_to[e]]++] = e;
    free(fill);
    g->rev_first = first;
    g->rev_edge = rev;
    spill_cold(first);
    spill_cold(rev);
    return LR_OK;
}

uint64_t graph_shallow_total(const graph *g)
{
    if (g->shallow_known)
        return g->shallow_total;
    uint64_t t = 0;
    for (node_ix n = 0; n < g->n_nodes; n++) {
        if (g->n_nodes - n > GRAPH_SIZE_AHEAD)
            graph_node_size_ahead(g, n + GRAPH_SIZE_AHEAD);
        t += graph_node_size(g, n);
    }
    return t;
}

/* Four tables bumped in turn: with one, a run of one kind waits on its counter's last store
 * at every node; a switch on the kind mispredicts on a mixed heap. No table counts more than
 * a quarter of the nodes plus three, so 32 bits hold it. */
void graph_kind_census(const graph *g, uint64_t out[256])
{
    uint32_t t[4][256];
    memset(t, 0, sizeof t);
    const uint8_t *k = g->node_kind;
    uint32_t n = g->n_nodes, i = 0;
    for (; n - i >= 4; i += 4) {
        t[0][k[i]]++;
        t[1][k[i + 1]]++;
        t[2][k[i + 2]]++;
        t[3][k[i + 3]]++;
    }
    for (; i < n; i++)
        t[0][k[i]]++;
    for (unsigned v = 0; v < 256; v++)
        out[v] = (uint64_t)t[0][v] + t[1][v] + t[2][v] + t[3][v];
}

node_ix graph_edge_from(const graph *g, edge_ix e)
{
    /* Binary search in first_edge: the last node whose first edge is <= e. */
    uint32_t lo = 0, hi = g->n_nodes;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->first_edge[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

#define EDGE_IX_BITS 0x7fffffffu

uint32_t graph_edge_ties(const graph *g, const edge_ix *v, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += GRAPH_EDGE_TIES_BY_NAME(GRAPH_EDGE_KIND(g->edge_kind[v[i] & EDGE_IX_BITS]));
    return k;
}

/* Orders (name, edge) pairs of edges out of one node: index names after text ones */
static int pair_cmp(const graph *g, const uint32_t *a, const uint32_t *b)
{
    edge_ix ea = a[1] & EDGE_IX_BITS, eb = b[1] & EDGE_IX_BITS;
    unsigned ka = GRAPH_EDGE_KIND(g->edge_kind[ea]), kb = GRAPH_EDGE_KIND(g->edge_kind[eb]);
    int ia = GRAPH_EDGE_NAME_IS_INDEX(ka), ib = GRAPH_EDGE_NAME_IS_INDEX(kb);
    if (ia != ib)
        return ia ? 1 : -1;
    int c = 0;
    if (ia)
        c = a[0] < b[0] ? -1 : a[0] > b[0];
    else if (a[0] != b[0])
        c = strcmp(graph_str(g, a[0]), graph_str(g, b[0]));
    if (c)
        return c < 0 ? -1 : 1;
    return ea < eb ? -1 : ea > eb;
}

int graph_edge_name_cmp(const graph *g, node_ix from, edge_ix a, edge_ix b)
{
    uint32_t pa[2] = {graph_edge_name_from(g, from, a & EDGE_IX_BITS), a & EDGE_IX_BITS};
    uint32_t pb[2] = {graph_edge_name_from(g, from, b & EDGE_IX_BITS), b & EDGE_IX_BITS};
    return pair_cmp(g, pa, pb);
}

/* Insertion sort below this many pairs: most nodes sorted have a handful of edges */
#define EDGE_SORT_SMALL 16u

/* Sorts the n (name, edge) pairs at p; tmp holds as many */
static void sort_pairs(const graph *g, uint32_t *p, uint32_t n, uint32_t *tmp)
{
    if (n <= EDGE_SORT_SMALL) {
        for (uint32_t i = 1; i < n; i++) {
            uint32_t x[2] = {p[2 * i], p[2 * i + 1]};
            uint32_t j = i;
            for (; j > 0 && pair_cmp(g, p + 2 * (j - 1), x) > 0; j--) {
                p[2 * j] = p[2 * (j - 1)];
                p[2 * j + 1] = p[2 * (j - 1) + 1];
            }
            p[2 * j] = x[0];
            p[2 * j + 1] = x[1];
        }
        return;
    }
    /* bottom-up merge sort: a dictionary may have millions of properties */
    for (uint32_t i = 0; i < n; i += EDGE_SORT_SMALL)
        sort_pairs(g, p + 2 * (size_t)i, n - i < EDGE_SORT_SMALL ? n - i : EDGE_SORT_SMALL, tmp);
    uint32_t *src = p, *dst = tmp;
    for (uint64_t w = EDGE_SORT_SMALL; w < n; w *= 2) {
        for (uint64_t lo = 0; lo < n; lo += 2 * w) {
            uint64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint64_t i = lo, j = mid, k = lo;
            while (i < mid || j < hi) {
                uint64_t f = j >= hi || (i < mid && pair_cmp(g, src + 2 * j, src + 2 * i) >= 0)
                                 ? i++
                                 : j++;
                dst[2 * k] = src[2 * f];
                dst[2 * k + 1] = src[2 * f + 1];
                k++;
            }
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != p)
        memcpy(p, src, 2 * (size_t)n * sizeof *p);
}

void graph_order_ties(const graph *g, node_ix from, edge_ix *v, const uint32_t *names,
                      uint32_t n, edge_ix *tmp)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        edge_ix e = v[i] & EDGE_IX_BITS;
        if (GRAPH_EDGE_TIES_BY_NAME(GRAPH_EDGE_KIND(g->edge_kind[e]))) {
            tmp[2 * k] = names ? names[i] : graph_edge_name_from(g, from, e);
            tmp[2 * k + 1] = v[i]; /* the caller's flag goes with its edge */
            k++;
        }
    }
    sort_pairs(g, tmp, k, tmp + 2 * (size_t)k);
    for (uint32_t i = 0, j = 0; i < n; i++)
        if (GRAPH_EDGE_TIES_BY_NAME(GRAPH_EDGE_KIND(g->edge_kind[v[i] & EDGE_IX_BITS])))
            v[i] = tmp[2 * j++ + 1];
}

void graph_edge_names_of(const graph *g, node_ix n, uint32_t *out)
{
    /* derived names resume where the previous edge's decode stopped, so in order is one pass */
    for (edge_ix e = g->first_edge[n]; e < g->first_edge[n + 1]; e++)
        out[e - g->first_edge[n]] = graph_edge_name_from(g, n, e);
}

/* ---- field values ---- */

unsigned graph_ftype_size(const graph *g, uint8_t type)
{
    switch (type) {
    case GRAPH_FT_OBJECT: return g->id_size;
    case GRAPH_FT_BOOLEAN:
    case GRAPH_FT_BYTE: return 1;
    case GRAPH_FT_CHAR:
    case GRAPH_FT_SHORT: return 2;
    case GRAPH_FT_FLOAT:
    case GRAPH_FT_INT: return 4;
    case GRAPH_FT_DOUBLE:
    case GRAPH_FT_LONG: return 8;
    default: return 0;
    }
}

static uint64_t read_be(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v = (v << 8) | p[i];
    return v;
}

void graph_fields_each(const graph *g, node_ix n, graph_field_fn fn, void *ctx)
{
    if (n >= g->n_nodes || !g->data || graph_node_off(g, n) == UINT64_MAX ||
        g->node_kind[n] != GRAPH_KIND_INSTANCE)
        return;
    uint64_t pos = graph_node_off(g, n);
    uint64_t end = pos + graph_node_len(g, n);
    if (end > g->data_len || end < pos)
        return;
    class_ix c = graph_node_class(g, n);
    for (uint32_t hops = 0; c != GRAPH_NONE && c < g->n_classes && hops <= g->n_classes; hops++) {
        const graph_class *k = &g->classes[c];
        for (uint32_t i = 0; i < k->n_fields; i++) {
            if ((uint64_t)k->first_field + i >= g->n_fields)
                return;
            const graph_field *f = &g->fields[k->first_field + i];
            unsigned sz = graph_ftype_size(g, f->type);
            if (sz == 0 || pos + sz > end)
                return;
            graph_value v;
            v.type = f->type;
            v.raw = read_be(g->data + pos, sz);
            v.ref = GRAPH_NONE;
            if (f->type == GRAPH_FT_OBJECT && v.raw != 0)
                v.ref = graph_find_id(g, v.raw);
            pos += sz;
            if (fn(ctx, c, f, &v))
                return;
        }
        c = k->super;
    }
}

uint32_t graph_elements(const graph *g, node_ix n, uint8_t *type)
{
    if (n >= g->n_nodes || !g->data || !g->id_size ||
        (g->node_kind[n] != GRAPH_KIND_OBJ_ARRAY && g->node_kind[n] != GRAPH_KIND_PRIM_ARRAY))
        return 0;
    uint64_t off = graph_node_off(g, n);
    class_ix c = graph_node_class(g, n);
    int objs = g->node_kind[n] == GRAPH_KIND_OBJ_ARRAY; /* needs no class: ids all */
    if (off == UINT64_MAX || (!objs && c >= g->n_classes))
        return 0;
    uint8_t t = objs ? GRAPH_FT_OBJECT : g->classes[c].elem_type;
    unsigned sz = graph_ftype_size(g, t);
    uint64_t cnt = graph_node_len(g, n);
    if (!sz || off > g->data_len || cnt > (g->data_len - off) / sz)
        return 0;
    *type = t;
    return (uint32_t)cnt;
}

int graph_element(const graph *g, node_ix n, uint32_t i, graph_value *out)
{
    uint8_t t;
    if (i >= graph_elements(g, n, &t))
        return 0;
    unsigned sz = graph_ftype_size(g, t);
    out->type = t;
    out->raw = read_be(g->data + graph_node_off(g, n) + (uint64_t)i * sz, sz);
    out->ref = t == GRAPH_FT_OBJECT && out->raw ? graph_find_id(g, out->raw) : GRAPH_NONE;
    return 1;
}

struct find_ctx {
    const graph *g;
    const char *name;
    graph_value *out;
    int found;
};

static int find_cb(void *ctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    struct find_ctx *fc = ctx;
    (void)decl;
    if (strcmp(graph_str(fc->g, f->name), fc->name) == 0) {
        *fc->out = *v;
        fc->found = 1;
        return 1;
    }
    return 0;
}

struct find_from_ctx {
    const graph *g;
    const char *name;
    class_ix from;
    graph_value *out;
    int found;
};

static int find_from_cb(void *ctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    struct find_from_ctx *fc = ctx;
    if (strcmp(graph_str(fc->g, f->name), fc->name))
        return 0;
    /* fields come most-derived first: the first whose class is from or above it */
    class_ix c = fc->from;
    for (uint32_t d = 0; c < fc->g->n_classes && d <= fc->g->n_classes; d++) {
        if (c == decl) {
            *fc->out = *v;
            fc->found = 1;
            return 1;
        }
        c = fc->g->classes[c].super;
    }
    return 0;
}

int graph_field_find_from(const graph *g, node_ix n, class_ix from, const char *name,
                          graph_value *out)
{
    if (n >= g->n_nodes || from >= g->n_classes || graph_node_off(g, n) == UINT64_MAX ||
        g->node_kind[n] != GRAPH_KIND_INSTANCE || !g->id_size)
        return 0;
    struct find_from_ctx fc = {g, name, from, out, 0};
    graph_fields_each(g, n, find_from_cb, &fc);
    return fc.found;
}

typedef struct holder_ctx {
    const graph *g;
    const char *name;
    node_ix to;
    class_ix decl;
} holder_ctx;

static int holder_fn(void *ctx, class_ix decl, const graph_field *f, const graph_value *v)
{
    holder_ctx *h = ctx;
    if (v->type != GRAPH_FT_OBJECT || v->ref != h->to ||
        strcmp(graph_str(h->g, f->name), h->name))
        return 0;
    h->decl = decl;
    return 1;
}

class_ix graph_field_holder(const graph *g, node_ix n, const char *name, node_ix to)
{
    holder_ctx h = {g, name, to, GRAPH_NONE};
    if (to != GRAPH_NONE)
        graph_fields_each(g, n, holder_fn, &h);
    return h.decl;
}

int graph_field_find(const graph *g, node_ix n, const char *name, graph_value *out)
{
    if (n >= g->n_nodes)
        return 0;
    if (graph_node_off(g, n) != UINT64_MAX && g->node_kind[n] == GRAPH_KIND_INSTANCE &&
        g->id_size) {
        struct find_ctx fc = {g, name, out, 0};
        graph_fields_each(g, n, find_cb, &fc);
        return fc.found;
    }
    if (!g->first_edge)
        return 0;
    for (edge_ix e = g->first_edge[n]; e < g->first_edge[n + 1]; e++) {
        unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
        if (GRAPH_EDGE_NAME_IS_INDEX(k))
            continue;
        if (strcmp(graph_str(g, graph_edge_name_from(g, n, e)), name) == 0) {
            out->type = GRAPH_FT_OBJECT;
            out->ref = g->edge_to[e];
            out->raw = graph_node_id(g, g->edge_to[e]);
            return 1;
        }
    }
    return 0;
}

int graph_static_find(const graph *g, class_ix c, const char *name, graph_value *out)
{
    if (c == GRAPH_NONE || c >= g->n_classes)
        return 0;
    const graph_class *k = &g->classes[c];
    for (uint32_t i = 0; i < k->n_statics; i++) {
        if ((uint64_t)k->first_static + i >= g->n_statics)
            return 0;
        const graph_static *s = &g->statics[k->first_static + i];
        if (strcmp(graph_str(g, s->name), name) == 0) {
            out->type = s->type;
            out->raw = s->value;
            out->ref = (s->type == GRAPH_FT_OBJECT && s->value) ? graph_find_id(g, s->value)
                                                                : GRAPH_NONE;
            return 1;
        }
    }
    return 0;
}

/* ---- string values ---- */

/* Appends code point cp as UTF-8 to buf (bounded); returns bytes it takes in full. */
static size_t put_utf8(char *buf, size_t cap, size_t at, uint32_t cp)
{
    char tmp[4];
    size_t k;
    if (cp < 0x80) {
        tmp[0] = (char)cp;
        k = 1;
    } else if (cp < 0x800) {
        tmp[0] = (char)(0xc0 | (cp >> 6));
        tmp[1] = (char)(0x80 | (cp & 0x3f));
        k = 2;
    } else if (cp < 0x10000) {
        tmp[0] = (char)(0xe0 | (cp >> 12));
        tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        tmp[2] = (char)(0x80 | (cp & 0x3f));
        k = 3;
    } else {
        tmp[0] = (char)(0xf0 | (cp >> 18));
        tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        tmp[3] = (char)(0x80 | (cp & 0x3f));
        k = 4;
    }
    /* Never split a code point: stop writing once one does not fit whole. */
    if (cap && at + k < cap)
        memcpy(buf + at, tmp, k);
    return k;
}

/* The part of V8 concatenated string u named `name` ("first" or "second"), or GRAPH_NONE. */
static node_ix cons_part(const graph *g, node_ix u, const char *name)
{
    for (edge_ix e = g->first_edge[u]; e < g->first_edge[u + 1]; e++) {
        if (GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(g->edge_kind[e])))
            continue;
        if (strcmp(graph_str(g, graph_edge_name_from(g, u, e)), name) == 0)
            return g->edge_to[e] < g->n_nodes ? g->edge_to[e] : GRAPH_NONE;
    }
    return GRAPH_NONE;
}

/* A V8 concatenated string's text, as DevTools rebuilds it: its parts in order (`first`,
 * then `second`), each part that is no concatenation giving its name. V8 names the node
 * "(concatenated string)" and keeps no length, so the walk decides both; it visits at most
 * GRAPH_CONS_PARTS nodes and keeps at most GRAPH_CONS_BYTES bytes, so a hostile snapshot's
 * cycles and shared subtrees cost a bounded walk per call, and two calls agree. */
static int name_partial(const graph *g, node_ix n);

static long cons_value(const graph *g, node_ix n, char *buf, size_t cap, int *partial)
{
    node_ix one[64], *stack = one;
    uint32_t depth = 0, room = 64, steps = 0;
    size_t len = 0;
    stack[depth++] = n;
    int t = g->node_type[n];
    while (depth && steps++ < GRAPH_CONS_PARTS && len < GRAPH_CONS_BYTES) {
        node_ix u = stack[--depth];
        if (g->node_type[u] == t) {
            if (depth + 2 > room) { /* out of memory: the value ends here */
                node_ix *p = stack == one ? malloc((size_t)room * 2 * sizeof *p)
                                          : realloc(stack, (size_t)room * 2 * sizeof *p);
                if (!p)
                    break;
                if (stack == one)
                    memcpy(p, one, sizeof one);
                stack = p;
                room *= 2;
            }
            node_ix a = cons_part(g, u, "first"), b = cons_part(g, u, "second");
            if (b != GRAPH_NONE)
                stack[depth++] = b;
            if (a != GRAPH_NONE)
                stack[depth++] = a;
            continue;
        }
        const char *s = g->node_name ? graph_str(g, g->node_name[u]) : "";
        size_t k = strlen(s);
        if (k > GRAPH_CONS_BYTES - len) {
            k = GRAPH_CONS_BYTES - len;
            *partial = 1;
        }
        /* a part cut at the snapshot's limit, or one that records no text at all */
        const char *ut = g->node_type[u] < g->n_types ? g->type_names[g->node_type[u]] : NULL;
        if (name_partial(g, u) || !ut || strcmp(ut, "string") != 0)
            *partial = 1;
        if (cap && len < cap - 1)
            memcpy(buf + len, s, k < cap - 1 - len ? k : cap - 1 - len);
        len += k;
    }
    if (depth) /* the walk's bounds left parts out */
        *partial = 1;
    if (stack != one)
        free(stack);
    if (cap)
        buf[len < cap - 1 ? len : cap - 1] = '\0';
    return (long)len;
}

int graph_string_partial(const graph *g, node_ix n)
{
    if (n >= g->n_nodes || g->node_kind[n] != GRAPH_KIND_STRING || !g->node_type ||
        !g->node_name || (g->node_value && g->node_value[n] != GRAPH_NONE) ||
        g->node_type[n] >= g->n_types || !g->type_names[g->node_type[n]])
        return 0;
    if (g->first_edge && !strcmp(g->type_names[g->node_type[n]], "concatenated string")) {
        int partial = 0;
        cons_value(g, n, NULL, 0, &partial);
        return partial;
    }
    return !strcmp(g->type_names[g->node_type[n]], "string") && name_partial(g, n);
}

/* Whether flat string n's name, its text, reached V8's cut. */
static int name_partial(const graph *g, node_ix n)
{
    if (!g->node_name)
        return 0;
    const unsigned char *p = (const unsigned char *)graph_str(g, g->node_name[n]);
    uint32_t units = 0;
    for (; *p && units < GRAPH_V8_NAME_LIMIT; p++)
        /* a 4-byte UTF-8 sequence is a surrogate pair */
        units += (*p & 0xc0) == 0x80 ? 0 : *p >= 0xf0 ? 2 : 1;
    return units >= GRAPH_V8_NAME_LIMIT;
}

/* Decodes count units from p + first as UTF-8 into buf (bounded, always terminated):
 * width 0 is bytes already valid UTF-8 (utf8_valid), 1 Latin-1 bytes, 2 UTF-16 in the dump's
 * (big-endian) order, 3 UTF-16 in the VM's little-endian order (a JDK 9+ String's UTF16
 * coder). A lone surrogate reads U+FFFD. Returns the bytes the whole text takes. */
static long units_text(const uint8_t *p, uint64_t first, uint64_t count, unsigned width,
                       char *buf, size_t cap)
{
    size_t at = 0, w = 0; /* w: bytes written, up to the last code point that fit whole */
    for (uint64_t i = first; i < first + count; i++) {
        uint32_t u;
        if (width == 0) { /* valid UTF-8, copied whole code points at a time */
            size_t len = p[i] < 0x80 ? 1 : p[i] < 0xe0 ? 2 : p[i] < 0xf0 ? 3 : 4;
            if (w == at && at + len < cap) {
                memcpy(buf + at, p + i, len);
                w = at + len;
            }
            at += len;
            i += len - 1;
            continue;
        }
        if (width == 1) {
            u = p[i];
        } else {
            u = width == 3 ? (uint32_t)(p[2 * i] | (p[2 * i + 1] << 8))
                           : (uint32_t)((p[2 * i] << 8) | p[2 * i + 1]);
            if (u >= 0xd800 && u < 0xdc00 && i + 1 < first + count) {
                uint32_t u2 = width == 3 ? (uint32_t)(p[2 * i + 2] | (p[2 * i + 3] << 8))
                                         : (uint32_t)((p[2 * i + 2] << 8) | p[2 * i + 3]);
                if (u2 >= 0xdc00 && u2 < 0xe000) {
                    u = 0x10000 + ((u - 0xd800) << 10) + (u2 - 0xdc00);
                    i++;
                }
            }
            if (u >= 0xd800 && u < 0xe000)
                u = 0xfffd;
        }
        size_t k = put_utf8(buf, w == at ? cap : 0, at, u);
        if (w == at && at + k < cap)
            w = at + k;
        at += k;
    }
    if (cap)
        buf[w] = '\0';
    return (long)at;
}

/* Whether p[0..n) is well-formed UTF-8 (no overlong form, no surrogate, at most U+10FFFF). */
static int utf8_valid(const uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n;) {
        uint8_t c = p[i];
        uint64_t len = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3
                     : c >= 0xf0 && c < 0xf5 ? 4 : 0;
        if (!len || len > n - i)
            return 0;
        for (uint64_t b = 1; b < len; b++)
            if ((p[i + b] & 0xc0) != 0x80)
                return 0;
        if ((c == 0xe0 && p[i + 1] < 0xa0) || (c == 0xed && p[i + 1] >= 0xa0) ||
            (c == 0xf0 && p[i + 1] < 0x90) || (c == 0xf4 && p[i + 1] >= 0x90))
            return 0;
        i += len;
    }
    return 1;
}

long graph_chars_text(const graph *g, node_ix a, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (a >= g->n_nodes || g->node_kind[a] != GRAPH_KIND_PRIM_ARRAY ||
        graph_node_off(g, a) == UINT64_MAX || graph_node_class(g, a) >= g->n_classes)
        return -1;
    uint8_t et = g->classes[graph_node_class(g, a)].elem_type;
    unsigned esz = et == GRAPH_FT_CHAR ? 2 : et == GRAPH_FT_BYTE ? 1 : 0;
    uint64_t off = graph_node_off(g, a), alen = graph_node_len(g, a);
    if (!esz || off > g->data_len || alen > (g->data_len - off) / esz)
        return -1;
    /* a byte[] has no declared encoding: UTF-8 where it is that (a payload, a name a program
     * encoded), else Latin-1, one character a byte */
    unsigned width = esz == 2 ? 2 : utf8_valid(g->data + off, alen) ? 0 : 1;
    return units_text(g->data + off, 0, alen, width, buf, cap);
}

long graph_string_value(const graph *g, node_ix n, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (n >= g->n_nodes)
        return -1;
    /* A Ruby string without a value in the dump is no known text, not an empty one; a Dart
     * string's label (cut, its other characters marked) is shown where it has no value. */
    if (g->node_kind[n] == GRAPH_KIND_STRING && g->node_value && g->node_value[n] == GRAPH_NONE &&
        !g->node_name)
        return -1;
    const char *vt = g->node_kind[n] == GRAPH_KIND_STRING && g->node_type &&
                             g->node_type[n] < g->n_types
                         ? g->type_names[g->node_type[n]]
                         : NULL;
    if (vt && g->first_edge && strcmp(vt, "concatenated string") == 0) {
        int partial = 0;
        return cons_value(g, n, buf, cap, &partial);
    }
    /* V8 names a sliced string by its type and records no offset into its parent: the text
     * is unknown ("(sliced string)" read as the value of every one, equal to each other) */
    if (vt && (strcmp(vt, "sliced string") == 0 || strcmp(vt, "slicedstring") == 0))
        return -1;
    if (g->node_kind[n] == GRAPH_KIND_STRING && (g->node_name || g->node_value)) {
        const char *s = graph_str(g, g->node_value && g->node_value[n] != GRAPH_NONE
                                         ? g->node_value[n]
                                         : g->node_name[n]);
        size_t len = strlen(s);
        if (cap) {
            size_t k = len < cap - 1 ? len : cap - 1;
            memcpy(buf, s, k);
            buf[k] = '\0';
        }
        return (long)len;
    }
    if (!g->id_size || strcmp(graph_class_name(g, n), "java.lang.String") != 0)
        return -1;
    graph_value v, off, cnt, coder;
    if (!graph_field_find(g, n, "value", &v) || v.ref == GRAPH_NONE)
        return 0;
    node_ix a = v.ref;
    if (g->node_kind[a] != GRAPH_KIND_PRIM_ARRAY || graph_node_off(g, a) == UINT64_MAX)
        return 0;
    if (graph_node_class(g, a) >= g->n_classes)
        return 0;
    uint8_t et = g->classes[graph_node_class(g, a)].elem_type;
    unsigned esz = graph_ftype_size(g, et);
    uint64_t alen = graph_node_len(g, a);
    if (esz == 0 || graph_node_off(g, a) + alen * esz > g->data_len)
        return 0;
    const uint8_t *p = g->data + graph_node_off(g, a);
    uint64_t first = 0, count = alen;
    /* JDK 6 strings share arrays: offset/count select the slice. */
    if (graph_field_find(g, n, "offset", &off) && graph_field_find(g, n, "count", &cnt) &&
        et == GRAPH_FT_CHAR) {
        if (off.raw <= alen && cnt.raw <= alen - off.raw) {
            first = off.raw;
            count = cnt.raw;
        }
    }
    int utf16le = 0;
    if (et == GRAPH_FT_BYTE && graph_field_find(g, n, "coder", &coder) && coder.raw == 1)
        utf16le = 1; /* JDK 9+ UTF16 strings: chars in the VM's (little-endian) order */
    if (utf16le) {
        first = 0;
        count = alen / 2;
    } else if (et == GRAPH_FT_BYTE) {
        first = 0;
        count = alen;
    } else if (et != GRAPH_FT_CHAR) {
        return 0;
    }
    return units_text(p, first, count, et == GRAPH_FT_BYTE && !utf16le ? 1 : utf16le ? 3 : 2,
                      buf, cap);
}

const char *graph_edge_name_text(const graph *g, edge_ix e, char *buf, size_t cap)
{
    unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
    if (GRAPH_EDGE_NAME_IS_INDEX(k)) {
        snprintf(buf, cap, "[%u]", graph_edge_name(g, e));
        return buf;
    }
    snprintf(buf, cap, "%s", graph_str(g, graph_edge_name(g, e)));
    return buf;
}

/* ---- name tables ---- */

const char *graph_root_kind_name(unsigned kind)
{
    static const char *const names[GRAPH_ROOT_KIND_COUNT] = {
        [GRAPH_ROOT_UNKNOWN] = "unknown",
        [GRAPH_ROOT_JNI_GLOBAL] = "JNI global",
        [GRAPH_ROOT_JNI_LOCAL] = "JNI local",
        [GRAPH_ROOT_JAVA_FRAME] = "Java frame",
        [GRAPH_ROOT_NATIVE_STACK] = "native stack",
        [GRAPH_ROOT_STICKY_CLASS] = "sticky class",
        [GRAPH_ROOT_THREAD_BLOCK] = "thread block",
        [GRAPH_ROOT_MONITOR_USED] = "monitor used",
        [GRAPH_ROOT_THREAD_OBJECT] = "thread object",
        [GRAPH_ROOT_INTERNED_STRING] = "interned string",
        [GRAPH_ROOT_FINALIZING] = "finalizing",
        [GRAPH_ROOT_DEBUGGER] = "debugger",
        [GRAPH_ROOT_REFERENCE_CLEANUP] = "reference cleanup",
        [GRAPH_ROOT_VM_INTERNAL] = "VM internal",
        [GRAPH_ROOT_JNI_MONITOR] = "JNI monitor",
        [GRAPH_ROOT_UNREACHABLE] = "unreachable",
        [GRAPH_ROOT_SYNTHETIC] = "synthetic",
        [GRAPH_ROOT_GLOBAL_DATA] = "global data",
        [GRAPH_ROOT_REGISTERS] = "registers",
        [GRAPH_ROOT_TLS] = "thread-local storage",
        [GRAPH_ROOT_DYNAMIC_LINKER] = "dynamic linker",
        [GRAPH_ROOT_ANON_MEMORY] = "anonymous memory",
    };
    return kind < GRAPH_ROOT_KIND_COUNT ? names[kind] : "?";
}

const char *graph_root_kind_title(unsigned kind)
{
    switch (kind) {
    case GRAPH_ROOT_JNI_GLOBAL: return "Global variable in native code";
    case GRAPH_ROOT_JNI_LOCAL: return "Local variable in native code";
    case GRAPH_ROOT_JAVA_FRAME: return "Java local variable";
    case GRAPH_ROOT_NATIVE_STACK: return "Input or output parameters in native code";
    case GRAPH_ROOT_STICKY_CLASS: return "System class";
    case GRAPH_ROOT_THREAD_BLOCK: return "Thread block";
    case GRAPH_ROOT_MONITOR_USED:
        return "Monitor (anything that called the wait() or notify() methods, or that is "
               "synchronized.)";
    case GRAPH_ROOT_THREAD_OBJECT: return "Thread object";
    case GRAPH_ROOT_JNI_MONITOR: return "Root JNI monitor";
    case GRAPH_ROOT_INTERNED_STRING: return "Interned string";
    case GRAPH_ROOT_FINALIZING: return "Object awaiting finalization";
    case GRAPH_ROOT_DEBUGGER: return "Debugger reference";
    case GRAPH_ROOT_REFERENCE_CLEANUP: return "Reference cleanup";
    case GRAPH_ROOT_VM_INTERNAL: return "VM internal reference";
    case GRAPH_ROOT_UNREACHABLE: return "Unreachable object";
    case GRAPH_ROOT_SYNTHETIC: return "synthetic root";
    case GRAPH_ROOT_GLOBAL_DATA: return "Global or static variable (module data)";
    case GRAPH_ROOT_REGISTERS: return "Thread register";
    case GRAPH_ROOT_TLS: return "Thread-local variable";
    case GRAPH_ROOT_DYNAMIC_LINKER: return "Dynamic linker state";
    case GRAPH_ROOT_ANON_MEMORY: return "Anonymous memory mapping";
    default: return "Unknown GC root type";
    }
}

const char *graph_root_title(const graph *g, unsigned kind)
{
    if (g && g->root_titles && kind < GRAPH_ROOT_KIND_COUNT && g->root_titles[kind])
        return g->root_titles[kind];
    return graph_root_kind_title(kind);
}

const char *graph_edge_kind_name(unsigned kind)
{
    static const char *const names[GRAPH_EDGE_KIND_COUNT] = {
        [GRAPH_EDGE_FIELD] = "field",       [GRAPH_EDGE_STATIC] = "static",
        [GRAPH_EDGE_ELEMENT] = "element",   [GRAPH_EDGE_INTERNAL] = "internal",
        [GRAPH_EDGE_CONTEXT] = "context",   [GRAPH_EDGE_PROPERTY] = "property",
        [GRAPH_EDGE_HIDDEN] = "hidden",     [GRAPH_EDGE_SHORTCUT] = "shortcut",
        [GRAPH_EDGE_WEAK] = "weak",         [GRAPH_EDGE_LOCAL] = "local",
        [GRAPH_EDGE_NATIVE] = "native",     [GRAPH_EDGE_XREF] = "xref",
        [GRAPH_EDGE_ROOT] = "root",
    };
    return kind < GRAPH_EDGE_KIND_COUNT ? names[kind] : "?";
}

const char *graph_node_kind_name(unsigned kind)
{
    static const char *const names[GRAPH_KIND_COUNT] = {
        [GRAPH_KIND_INSTANCE] = "instance",   [GRAPH_KIND_CLASS] = "class",
        [GRAPH_KIND_OBJ_ARRAY] = "object array", [GRAPH_KIND_PRIM_ARRAY] = "primitive array",
        [GRAPH_KIND_STRING] = "string",       [GRAPH_KIND_CLOSURE] = "closure",
        [GRAPH_KIND_CODE] = "code",           [GRAPH_KIND_NATIVE] = "native",
        [GRAPH_KIND_SYNTHETIC] = "synthetic", [GRAPH_KIND_OTHER] = "other",
    };
    return kind < GRAPH_KIND_COUNT ? names[kind] : "?";
}

const char *graph_strength_name(unsigned s)
{
    switch (s) {
    case GRAPH_STRONG: return "strong";
    case GRAPH_WEAK: return "weak";
    case GRAPH_SOFT: return "soft";
    case GRAPH_PHANTOM: return "phantom";
    case GRAPH_FINALIZER: return "finalizer";
    default: return "?";
    }
}

const char *graph_ftype_name(unsigned t)
{
    switch (t) {
    case GRAPH_FT_OBJECT: return "object";
    case GRAPH_FT_BOOLEAN: return "boolean";
    case GRAPH_FT_CHAR: return "char";
    case GRAPH_FT_FLOAT: return "float";
    case GRAPH_FT_DOUBLE: return "double";
    case GRAPH_FT_BYTE: return "byte";
    case GRAPH_FT_SHORT: return "short";
    case GRAPH_FT_INT: return "int";
    case GRAPH_FT_LONG: return "long";
    default: return "?";
    }
}

void graph_hint_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || bytes < 2 * huge)
        return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t b = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}
