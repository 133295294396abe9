/* SPDX-License-Identifier: Apache-2.0 */
/* paths.c: shortest strong reference paths from GC roots (analysis layer), prefix paths_.
 * One breadth-first traversal from all roots with two FIFO queues, the semantics of Shark's
 * PrioritizingShortestPathFinder (docs/design.md, "Shortest paths"): the normal queue is
 * drained first; once it is empty the traversal is in its "visit last" phase for good. A
 * node first seen through a visit-last edge or root and later reached normally (before that
 * phase) is promoted: its parent becomes the normal one. Discovery happens at enqueue, so
 * the first discovery wins; ties follow root order (Shark's GC-root sort) then edge order
 * (with graph.ties_by_name, a node's property edges in name order: ties_by_name below).
 * Weak/soft/phantom/finalizer and V8 weak edges are never followed, nor PATHS_IGNORE ones.
 * A node's edges come from the graph's CSR or, one node at a time, from an edge source.
 * Cost O(N+E) time; memory: 5 bytes per node (edge code, a byte of flags that also holds the
 * traversal state), written only where reached, plus two growable ring-buffer queues holding
 * the frontier (never more than N each) and the root entry of each rooted node. A graph edge
 * names its parent, so parents are kept only for nodes reached by a virtual entry (12 bytes
 * each with the code, an array of N past N/8 of them); nothing reads a parent during the
 * traversal, and after an early stop only those of the nodes taken out of a queue are sorted
 * for lookups at once, the rest at the first lookup of one of them (up_split). Depths
 * and root entries of other nodes are found by walking up the parents: no ordering decision
 * needs them (FIFO order keeps each queue in depth order by itself).
 * paths_find_targets stops once no target's path can change: a target reached at normal
 * priority is final (first discovery wins and only visit-last discoveries get promoted), one
 * reached at visit-last priority is final once that phase begins. Nearly every visit misses
 * the cache on a per-node array, so the traversal fetches the arrays of the nodes a few
 * places behind the queue's head ahead of time (prefetch_ahead): the order of the work, and
 * so every result, is that of the plain traversal. The edge block index the walks up read
 * needs the graph only: a caller whose other core is idle has it built there beside the
 * traversal (paths_find_targets_split). */
#include "analysis/paths.h"
#include "base/phase.h"
#include "base/search.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Per-node traversal state, in the low bits of the flags byte. */
enum { ST_UNSEEN = 0, ST_NORMAL = 1, ST_LAST = 2, ST_DONE = 3, ST_MASK = PATHS_F_STATE };
#define ST_TARGET PATHS_F_TARGET

/* A stored parent (PATHS_F_UP), appended at each enqueue that sets one: the last counts
 * (a stable sort by node keeps them in that order). It holds the edge code too: such nodes
 * are mostly a collection's entries, spread over the whole node range, whose codes in the
 * per-node array would each fault a page in (22 k pages on the 1 GB bench dump). */
struct paths_up {
    node_ix node;
    node_ix parent;
    uint32_t code; /* edge code into node (paths_result.edge's, which stays unwritten) */
};

/* The root entry a rooted node's path starts from. */
struct paths_rooted {
    node_ix node;
    uint32_t entry; /* index into g->roots, g->n_roots for the synthetic root */
    uint32_t seq;   /* order of the enqueue that set it: the last one counts */
};

/* ---- default policy (Shark) ---- */

enum paths_edge_class paths_default_root(const graph *g, uint32_t r, void *ctx)
{
    (void)ctx;
    switch (g->roots[r].kind) {
    case GRAPH_ROOT_JAVA_FRAME: /* only orphan frames remain: see order_roots */
    case GRAPH_ROOT_UNKNOWN:
    case GRAPH_ROOT_INTERNED_STRING:
    case GRAPH_ROOT_FINALIZING:
    case GRAPH_ROOT_DEBUGGER:
    case GRAPH_ROOT_REFERENCE_CLEANUP:
    case GRAPH_ROOT_VM_INTERNAL:
    case GRAPH_ROOT_UNREACHABLE:
        return PATHS_VISIT_LAST;
    default:
        return PATHS_FOLLOW;
    }
}

enum paths_edge_class paths_default_edge(const graph *g, node_ix from, edge_ix e, void *ctx)
{
    (void)ctx;
    return GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_LOCAL || paths_console_link(g, from, e)
               ? PATHS_VISIT_LAST
               : PATHS_FOLLOW;
}

int paths_console_link(const graph *g, node_ix from, edge_ix e)
{
    static const char tail[] = "/ DevTools console";
    /* only V8's synthetic sub-roots hold such handles: one load for every other node */
    if (from >= g->n_nodes || g->node_kind[from] != GRAPH_KIND_SYNTHETIC ||
        GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(g->edge_kind[e])))
        return 0;
    const char *nm = graph_str(g, graph_edge_name_from(g, from, e));
    size_t l = strlen(nm), k = sizeof tail - 1;
    return l >= k && memcmp(nm + l - k, tail, k) == 0;
}

/* ---- root order ---- */

/* Shark's GcRoot subclass simple names (the sort key), by enum graph_root_kind. */
static const char *shark_root_name(unsigned kind)
{
    static const char *const names[GRAPH_ROOT_KIND_COUNT] = {
        [GRAPH_ROOT_UNKNOWN] = "Unknown",
        [GRAPH_ROOT_JNI_GLOBAL] = "JniGlobal",
        [GRAPH_ROOT_JNI_LOCAL] = "JniLocal",
        [GRAPH_ROOT_JAVA_FRAME] = "JavaFrame",
        [GRAPH_ROOT_NATIVE_STACK] = "NativeStack",
        [GRAPH_ROOT_STICKY_CLASS] = "StickyClass",
        [GRAPH_ROOT_THREAD_BLOCK] = "ThreadBlock",
        [GRAPH_ROOT_MONITOR_USED] = "MonitorUsed",
        [GRAPH_ROOT_THREAD_OBJECT] = "ThreadObject",
        [GRAPH_ROOT_INTERNED_STRING] = "InternedString",
        [GRAPH_ROOT_FINALIZING] = "Finalizing",
        [GRAPH_ROOT_DEBUGGER] = "Debugger",
        [GRAPH_ROOT_REFERENCE_CLEANUP] = "ReferenceCleanup",
        [GRAPH_ROOT_VM_INTERNAL] = "VmInternal",
        [GRAPH_ROOT_JNI_MONITOR] = "JniMonitor",
        [GRAPH_ROOT_UNREACHABLE] = "Unreachable",
        [GRAPH_ROOT_SYNTHETIC] = "Synthetic",
        [GRAPH_ROOT_GLOBAL_DATA] = "GlobalData",
        [GRAPH_ROOT_REGISTERS] = "Registers",
        [GRAPH_ROOT_TLS] = "ThreadLocal",
        [GRAPH_ROOT_DYNAMIC_LINKER] = "DynamicLinker",
        [GRAPH_ROOT_ANON_MEMORY] = "AnonymousMemory",
    };
    return kind < GRAPH_ROOT_KIND_COUNT ? names[kind] : "Unknown";
}

typedef struct root_key {
    uint32_t r;       /* index into g->roots; g->n_roots = the synthetic root */
    int thread_obj;   /* 1 for THREAD_OBJECT roots (sorted first) */
    const char *kind; /* Shark root class name */
    const char *cls;  /* class name of the rooted object (a class object: its own name) */
} root_key;

static int cmp_root(const void *pa, const void *pb)
{
    const root_key *a = pa, *b = pb;
    if (a->thread_obj != b->thread_obj)
        return b->thread_obj - a->thread_obj;
    int c = strcmp(b->kind, a->kind); /* descending */
    if (c)
        return c;
    c = strcmp(a->cls, b->cls);
    if (c)
        return c;
    return a->r < b->r ? -1 : a->r > b->r; /* stable: dump order */
}

typedef struct pair {
    uint32_t key;
    uint32_t val;
} pair;

static int cmp_pair(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->val < b->val ? -1 : a->val > b->val;
}

static const pair *pair_find(const pair *p, uint32_t n, uint32_t key)
{
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, n, p[search_mid].key < key, lo);
    return lo < n && p[lo].key == key ? &p[lo] : NULL;
}

/* Whether thread node t has a local edge to x (the Java-frame root came back as an edge). */
static int has_local_edge(const graph *g, node_ix t, node_ix x)
{
    for (edge_ix e = g->first_edge[t]; e < g->first_edge[t + 1]; e++)
        if (g->edge_to[e] == x && GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_LOCAL)
            return 1;
    return 0;
}

/* Fills keys with the root entries to start from, in Shark's order (MatchingGcRootProvider):
 * entries naming no node are dropped, Java-frame roots of a thread that has a thread-object
 * root are dropped when that thread carries them as local edges; THREAD_OBJECT first, then
 * root kind name descending, then the rooted object's class name ascending, then dump
 * order. Returns the number of entries, or UINT32_MAX when out of memory. */
static uint32_t order_roots(const graph *g, root_key *keys)
{
    pair *cls = NULL, *thr = NULL;
    uint32_t n_cls = 0, n_thr = 0, k = 0;
    cls = err_mallocarray(g->n_classes ? g->n_classes : 1, sizeof *cls);
    thr = err_mallocarray(g->n_roots ? g->n_roots : 1, sizeof *thr);
    if (!cls || !thr) {
        free(cls);
        free(thr);
        return UINT32_MAX;
    }
    for (uint32_t c = 0; c < g->n_classes; c++)
        if (g->classes[c].node < g->n_nodes)
            cls[n_cls++] = (pair){g->classes[c].node, c};
    qsort(cls, n_cls, sizeof *cls, cmp_pair);
    for (uint32_t r = 0; r < g->n_roots; r++)
        if (g->roots[r].kind == GRAPH_ROOT_THREAD_OBJECT && g->roots[r].node < g->n_nodes)
            thr[n_thr++] = (pair){g->roots[r].thread, g->roots[r].node};
    qsort(thr, n_thr, sizeof *thr, cmp_pair);

    for (uint32_t r = 0; r <= g->n_roots; r++) {
        node_ix x = r < g->n_roots ? g->roots[r].node : g->synthetic_root;
        if (x >= g->n_nodes)
            continue;
        unsigned kind = r < g->n_roots ? g->roots[r].kind : GRAPH_ROOT_SYNTHETIC;
        if (kind == GRAPH_ROOT_JAVA_FRAME && g->first_edge) {
            const pair *t = pair_find(thr, n_thr, g->roots[r].thread);
            if (t && has_local_edge(g, t->val, x))
                continue;
        }
        const pair *c = pair_find(cls, n_cls, x);
        const char *name = c ? graph_str(g, g->classes[c->val].name) : graph_class_name(g, x);
        keys[k++] = (root_key){r, kind == GRAPH_ROOT_THREAD_OBJECT, shark_root_name(kind),
                               name ? name : ""};
    }
    qsort(keys, k, sizeof *keys, cmp_root);
    free(cls);
    free(thr);
    return k;
}

/* ---- traversal ---- */

void paths_free(paths_result *r)
{
    if (!r)
        return;
    free(r->parent);
    free(r->edge);
    free(r->flags);
    free(r->eblock);
    free(r->up);
    free(r->hot);
    free(r->rooted);
    free(r->order);
    memset(r, 0, sizeof *r);
}

/* A FIFO ring buffer of node indices that grows (doubling, capped at N: each node enters
 * each queue at most once) so it only holds the frontier, not every node. */
typedef struct queue {
    uint32_t *v;
    uint32_t cap, head, len, max;
    uint64_t pushed; /* pushes so far: the next push's sequence number */
} queue;

static int q_push(queue *q, uint32_t x)
{
    if (q->len == q->cap) {
        uint64_t nc = q->cap ? (uint64_t)q->cap * 2 : 4096;
        if (nc > q->max)
            nc = q->max;
        if (nc <= q->cap)
            return -1;
        uint32_t *v = err_reallocarray(q->v, nc, sizeof *v);
        if (!v)
            return -1;
        /* Unwrap: the wrapped part [0, head) moves after the old end. */
        uint32_t wrap = q->head + q->len > q->cap ? q->head + q->len - q->cap : 0;
        if (wrap) {
            uint32_t room = (uint32_t)nc - q->cap;
            uint32_t k = wrap < room ? wrap : room;
            memcpy(v + q->cap, v, (size_t)k * sizeof *v);
            memmove(v, v + k, (size_t)(wrap - k) * sizeof *v);
        }
        q->v = v;
        q->cap = (uint32_t)nc;
    }
    uint32_t at = q->head + q->len;
    q->v[at >= q->cap ? at - q->cap : at] = x;
    q->len++;
    q->pushed++;
    return 0;
}

static uint32_t q_pop(queue *q)
{
    uint32_t x = q->v[q->head];
    q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
    q->len--;
    return x;
}

/* The node i places behind the head of q; q->len > i. */
static inline uint32_t q_peek(const queue *q, uint32_t i)
{
    uint32_t at = q->head + i;
    return q->v[at >= q->cap ? at - q->cap : at];
}

/* How far ahead of the node being expanded its successors' data is fetched: the CSR bounds
 * PF_BOUNDS nodes ahead, their edges PF_EDGES ahead, the state of the nodes those edges lead
 * to PF_TARGETS ahead (at most PF_FANOUT edges per node), so that each of the three
 * dependent misses of a visit has been waited for by the time the node is taken out. */
#define PF_BOUNDS 24
#define PF_EDGES 12
#define PF_TARGETS 4
#define PF_FANOUT 8
#define PF_LIST 32 /* entries ahead within one long list (a collection's elements) */

/* Prefetches for the nodes that follow the head of the queue the traversal takes from. */
static inline void prefetch_ahead(const graph *g, const uint8_t *flags, const uint32_t *code,
                                  const queue *q)
{
    uint32_t n = g->n_nodes;
    if (q->len > PF_BOUNDS) {
        node_ix z = q_peek(q, PF_BOUNDS);
        __builtin_prefetch(&g->first_edge[z]);
        __builtin_prefetch(&g->node_kind[z]);
    }
    if (q->len > PF_EDGES) {
        node_ix z = q_peek(q, PF_EDGES);
        edge_ix e = g->first_edge[z];
        __builtin_prefetch(&g->edge_to[e]);
        __builtin_prefetch(&g->edge_kind[e]);
    }
    if (q->len > PF_TARGETS) {
        node_ix z = q_peek(q, PF_TARGETS);
        edge_ix e = g->first_edge[z], e1 = g->first_edge[z + 1];
        if (e1 - e > PF_FANOUT)
            e1 = e + PF_FANOUT;
        for (; e < e1; e++) {
            node_ix y = g->edge_to[e];
            if (y < n) {
                __builtin_prefetch(&flags[y]);
                __builtin_prefetch(&code[y], 1);
            }
        }
    }
}

/* A target's place in a queue: which queue (0 normal, 1 last) and its push's number. */
typedef struct queued {
    node_ix x;
    uint32_t last;
    uint64_t seq;
} queued;

static int cmp_queued(const void *pa, const void *pb)
{
    const queued *a = pa, *b = pb;
    if (a->last != b->last)
        return a->last < b->last ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Pages are tracked at this size; bigger hardware pages only make some first writes
 * unneeded. */
#define PAGE_BYTES 4096u

#define TIE_LAST 0x80000000u /* ties_by_name: the edge is visit-last */

typedef struct bfs {
    paths_result *r;
    uint8_t *flags;       /* = r->flags */
    /* a bit per page of flags (PAGE_BYTES, from the array's page-aligned start below it): set
     * at the first access to the page, which is then a write (flag_at) */
    uint64_t *page_seen;
    uintptr_t page_off;   /* flags' offset in its first page */
    queue qn, ql;         /* normal and visit-last queues (each node enters each once) */
    int nomem;            /* a queue or the stored parents could not grow */
    int src;              /* edges come from a source: parents may need storing */
    int visiting_last;    /* the normal queue ran dry once: everything is "last" now */
    uint32_t open;        /* targets whose path may still change */
    queued *tq;           /* every push of a target (at most two per target: a promotion) */
    uint32_t n_tq;
    uint32_t open_last;   /* of those, targets first seen at visit-last priority */
    uint8_t *loader;      /* class_hops: per class, 0 not asked yet, 1 a loader's, 2 boot */
    node_ix *taken;       /* the nodes with a stored parent taken out of a queue (up_split) */
    uint32_t n_taken, cap_taken;
    int taken_off;        /* too many to note (TAKEN_MAX): up is sorted whole */
    edge_ix *tie;         /* graph.ties_by_name: one node's edges to enqueue, then scratch */
    uint32_t cap_tie;
} bfs;

/* The flags byte of node x. The array is calloc'd and mostly read before it is written (a
 * node's flags are read for every edge into it): a fresh page read first maps the shared
 * zero page and its first write faults again, copy-on-write with a TLB flush on the other
 * core. So the first access to each page writes the zero it holds (no write goes around
 * flag_at, so a page not seen yet holds only zeros); pages never accessed stay unbacked. */
static inline uint8_t *flag_at(bfs *b, node_ix x)
{
    uintptr_t pg = ((uintptr_t)x + b->page_off) / PAGE_BYTES;
    if (!(b->page_seen[pg / 64] >> (pg % 64) & 1)) {
        b->page_seen[pg / 64] |= 1ull << (pg % 64);
        b->flags[x] = 0;
    }
    return &b->flags[x];
}

/* Whether an edge of kind k to y could still change y's path: weak edges are never followed,
 * and a node already final (or reached at the priority this edge would give) cannot improve,
 * so the policy is not even asked. */
static inline int worth_asking(bfs *b, uint8_t k, node_ix y, uint32_t n)
{
    if (y >= n || GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG || GRAPH_EDGE_KIND(k) == GRAPH_EDGE_WEAK)
        return 0;
    uint8_t s = *flag_at(b, y) & ST_MASK;
    return !(s == ST_DONE || s == ST_NORMAL || (s == ST_LAST && b->visiting_last));
}

static inline int names_parent(const graph *g, node_ix from, uint32_t code);
static int store_parent(paths_result *r, node_ix x, node_ix from, uint32_t code);

/* Shark's enqueue: first discovery wins, except that a node waiting in the last queue is
 * promoted when reached at normal priority before the visit-last phase. Returns whether x
 * took this parent. */
static int enqueue(bfs *b, node_ix x, node_ix from, uint32_t code, int low, int via_last)
{
    int last = b->visiting_last || low;
    uint8_t f = *flag_at(b, x), s = f & ST_MASK;
    if (s != ST_UNSEEN && (s != ST_LAST || last))
        return 0;
    if (f & ST_TARGET) {
        queue *q = last ? &b->ql : &b->qn;
        b->tq[b->n_tq++] = (queued){x, (uint32_t)last, q->pushed};
        /* a target's path is final once it is reached normally; one reached at
         * visit-last priority may still be promoted until that phase starts */
        if (s == ST_LAST) {
            b->open_last--;
            b->open--;
        } else if (!last) {
            b->open--;
        } else if (!b->visiting_last) {
            b->open_last++;
        } else {
            b->open--;
        }
    }
    f = (uint8_t)(f & ST_TARGET);
    if (b->src && from != GRAPH_NONE && !names_parent(b->r->g, from, code)) {
        f |= PATHS_F_UP;
        if (store_parent(b->r, x, from, code))
            b->nomem = 1;
    } else {
        b->r->edge[x] = code;
    }
    if (via_last || low)
        f |= PATHS_F_VIA_LAST;
    b->flags[x] = (uint8_t)(f | (last ? ST_LAST : ST_NORMAL));
    if (q_push(last ? &b->ql : &b->qn, x))
        b->nomem = 1;
    return 1;
}

/* Whether code is a graph edge out of from (its parent can be found from the code). */
static inline int names_parent(const graph *g, node_ix from, uint32_t code)
{
    return !(code & PATHS_VIRTUAL) && code >= g->first_edge[from] &&
           code < g->first_edge[from + 1];
}

/* Keeps x's parent and edge code: appended to up, or into the array of N parents (the code
 * into the per-node array) once up would pass N/8 entries (it then costs less). Returns -1
 * when out of memory. */
static int store_parent(paths_result *r, node_ix x, node_ix from, uint32_t code)
{
    if (r->parent) {
        r->parent[x] = from;
        r->edge[x] = code;
        return 0;
    }
    uint32_t most = r->n / 8 + 64;
    if (r->n_up == r->cap_up) {
        if (r->n_up >= most) {
            r->parent = err_mallocarray(r->n, sizeof *r->parent);
            if (!r->parent)
                return -1;
            for (uint32_t i = 0; i < r->n_up; i++) {
                /* a node promoted since through a graph edge has its code there */
                r->parent[r->up[i].node] = r->up[i].parent;
                if (r->flags[r->up[i].node] & PATHS_F_UP)
                    r->edge[r->up[i].node] = r->up[i].code;
            }
            free(r->up);
            r->up = NULL;
            r->n_up = r->cap_up = 0;
            r->parent[x] = from;
            r->edge[x] = code;
            return 0;
        }
        /* room for the most at once: pages never written are never touched, and no
         * smaller blocks are left behind in the heap by growing */
        uint32_t nc = most;
        struct paths_up *u = err_reallocarray(r->up, nc, sizeof *u);
        if (!u)
            return -1;
        r->up = u;
        r->cap_up = nc;
    }
    r->up[r->n_up] = (struct paths_up){x, from, code};
    r->n_up++;
    return 0;
}

#define UP_DIGIT_MAX 13 /* most bits of a node index sorted per pass (a 32 KB count) */

/* Sorts r->up by node, stably (equal nodes stay in enqueue order), and keeps the last entry
 * of each node. LSD radix sort: O(n_up) per pass, as few passes of at most UP_DIGIT_MAX bits
 * as the largest node index needs (two up to 2^26 nodes), with a scratch copy of the list.
 * Returns -1 when out of memory. */
static int sort_up(paths_result *r)
{
    uint32_t n = r->n_up, bits = 0;
    while (bits < 32 && ((uint64_t)(r->n - 1) >> bits))
        bits++;
    uint32_t passes = (bits + UP_DIGIT_MAX - 1) / UP_DIGIT_MAX;
    uint32_t digit = passes ? (bits + passes - 1) / passes : 1, mask = (1u << digit) - 1;
    struct paths_up *a = r->up, *tmp = err_mallocarray(n, sizeof *tmp);
    uint32_t *count = err_calloc((size_t)1 << digit, sizeof *count);
    if (!tmp || !count) {
        free(tmp);
        free(count);
        return -1;
    }
    for (uint32_t shift = 0; shift < bits; shift += digit) {
        memset(count, 0, ((size_t)1 << digit) * sizeof *count);
        for (uint32_t i = 0; i < n; i++)
            count[(a[i].node >> shift) & mask]++;
        for (uint32_t d = 0, at = 0; d <= mask; d++) {
            uint32_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (uint32_t i = 0; i < n; i++)
            tmp[count[(a[i].node >> shift) & mask]++] = a[i];
        struct paths_up *t = a;
        a = tmp;
        tmp = t;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (k && a[k - 1].node == a[i].node)
            k--;
        a[k++] = a[i];
    }
    free(tmp);
    free(count);
    r->up = a;
    r->n_up = k;
    return 0;
}

#define TAKEN_MAX(n) ((n) / 64 + 1024) /* nodes noted at most (1/16 byte per node) */

/* Notes node x, which has a stored parent, as taken out of a queue. -1 when out of memory. */
static int taken_add(bfs *b, node_ix x)
{
    if (b->taken_off)
        return 0;
    if (b->n_taken >= TAKEN_MAX(b->r->n)) {
        b->taken_off = 1;
        return 0;
    }
    if (b->n_taken == b->cap_taken) {
        uint32_t nc = b->cap_taken ? 2 * b->cap_taken : 1024;
        node_ix *t = err_reallocarray(b->taken, nc, sizeof *t);
        if (!t)
            return -1;
        b->taken = t;
        b->cap_taken = nc;
    }
    b->taken[b->n_taken++] = x;
    return 0;
}

static int cmp_up_node(const void *pa, const void *pb)
{
    const struct paths_up *a = pa, *b = pb;
    return (a->node > b->node) - (a->node < b->node);
}

#define UP_SPLIT_MAX 8 /* the taken nodes' entries are split off below 1/UP_SPLIT_MAX of up */

/* Readies the stored parents for lookups. A search that stopped early leaves most of them
 * on nodes still queued (2.4 M keys and values of the 1 GB bench dump's session map), which
 * no path of a target passes through: those paths run through nodes taken out of a queue,
 * and end at targets. So when those nodes are few, their last entries are copied out of
 * the list in one pass (a small hash of them) into `hot`, sorted by node, and the list is
 * sorted (sort_up) only when a lookup first asks for another node; else it is sorted now.
 * Returns -1 when out of memory. */
static int up_split(paths_result *r, bfs *b)
{
    for (uint32_t i = 0; i < r->n_order; i++)
        if ((r->flags[r->order[i]] & PATHS_F_UP) && taken_add(b, r->order[i]))
            return -1;
    uint32_t nt = b->n_taken;
    if (b->taken_off || nt > r->n_up / UP_SPLIT_MAX)
        return sort_up(r);
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)nt)
        cap *= 2;
    /* open addressing: slot -> 1 + index into hot, 0 empty */
    uint32_t *slot = err_calloc(cap, sizeof *slot);
    struct paths_up *hot = err_mallocarray(nt ? nt : 1, sizeof *hot);
    if (!slot || !hot) {
        free(slot);
        free(hot);
        return -1;
    }
    uint32_t nh = 0;
    for (uint32_t i = 0; i < nt; i++) {
        node_ix x = b->taken[i];
        uint32_t h = (x * 2654435761u) & (cap - 1);
        while (slot[h] && hot[slot[h] - 1].node != x)
            h = (h + 1) & (cap - 1);
        if (!slot[h]) {
            hot[nh] = (struct paths_up){x, GRAPH_NONE, GRAPH_NONE};
            slot[h] = ++nh;
        }
    }
    for (uint32_t i = 0; i < r->n_up; i++) {
        const struct paths_up *u = &r->up[i];
        uint32_t h = (u->node * 2654435761u) & (cap - 1);
        while (slot[h] && hot[slot[h] - 1].node != u->node)
            h = (h + 1) & (cap - 1);
        if (slot[h])
            hot[slot[h] - 1] = *u; /* the last entry of the node counts */
    }
    free(slot);
    qsort(hot, nh, sizeof *hot, cmp_up_node);
    r->hot = hot;
    r->n_hot = nh;
    r->up_cold = 1;
    return 0;
}

/* The block index of the edges: eblock[b] is the node whose range holds edge
 * b * PATHS_EBLOCK (the last node whose first edge is at or before it). Each block's node
 * is found from the previous one by a galloping search, so nodes without edges between
 * them cost nothing each. Returns -1 when out of memory. O(E / PATHS_EBLOCK * log N). */
static int build_eblock(paths_result *r)
{
    const graph *g = r->g;
    const edge_ix *fe = g->first_edge;
    uint32_t nb = (uint32_t)(((uint64_t)g->n_edges + PATHS_EBLOCK - 1) / PATHS_EBLOCK);
    r->eblock = err_mallocarray(nb ? nb : 1, sizeof *r->eblock);
    if (!r->eblock)
        return -1;
    r->n_eblock = nb;
    node_ix x = 0; /* fe[x] <= the block's first edge (fe[0] = 0) */
    for (uint32_t b = 0; b < nb; b++) {
        uint64_t t = (uint64_t)b * PATHS_EBLOCK;
        /* gallop: the first step that passes the edge bounds the search */
        uint32_t lo = x, step = 1;
        uint64_t hi = (uint64_t)g->n_nodes;
        while ((uint64_t)lo + step < g->n_nodes) {
            if (fe[lo + step] > t) {
                hi = (uint64_t)lo + step;
                break;
            }
            lo += step;
            step *= 2;
        }
        /* the last node in [lo, hi) whose first edge is <= t */
        while (hi - lo > 1) {
            uint32_t mid = lo + (uint32_t)((hi - lo) / 2);
            if (fe[mid] <= t)
                lo = mid;
            else
                hi = mid;
        }
        r->eblock[b] = x = lo;
    }
    return 0;
}

/* build_eblock on a thread of its own (paths_find_targets_split): it reads the graph only and
 * writes r->eblock and r->n_eblock, which the traversal leaves alone. */
typedef struct eblock_job {
    paths_result *r;
    int rc;
    int on; /* the thread runs: join it before r is read or freed */
    pthread_t th;
} eblock_job;

static void *eblock_run(void *arg)
{
    eblock_job *j = arg;
    j->rc = build_eblock(j->r);
    return NULL;
}

/* The index's status (build_eblock's), built here if no thread builds it. */
static int eblock_join(eblock_job *j)
{
    if (!j->on)
        return build_eblock(j->r);
    pthread_join(j->th, NULL);
    j->on = 0;
    return j->rc;
}

static int cmp_rooted(const void *pa, const void *pb)
{
    const struct paths_rooted *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static lr_status find(const graph *g, const paths_policy *pol, const node_ix *targets,
                      uint32_t n_targets, paths_result *r, int early, uint32_t split_min,
                      int *all_found, lr_error *err);

/* find() as the phase "paths" (base/phase), then back to the caller's phase. */
static lr_status find_phase(const graph *g, const paths_policy *pol, const node_ix *targets,
                            uint32_t n_targets, paths_result *r, int stop,
                            uint32_t split_min, int *all, lr_error *err)
{
    const char *prev = phase_current();
    phase_enter("paths");
    lr_status st = find(g, pol, targets, n_targets, r, stop, split_min, all, err);
    phase_enter(prev);
    return st;
}

lr_status paths_find(const graph *g, const paths_policy *pol, const node_ix *targets,
                     uint32_t n_targets, paths_result *r, lr_error *err)
{
    int all;
    return find_phase(g, pol, targets, n_targets, r, 0, 0, &all, err);
}

lr_status paths_find_targets(const graph *g, const paths_policy *pol, const node_ix *targets,
                             uint32_t n_targets, paths_result *r, int *all_found,
                             lr_error *err)
{
    return find_phase(g, pol, targets, n_targets, r, 1, 0, all_found, err);
}

lr_status paths_find_targets_split(const graph *g, const paths_policy *pol,
                                   const node_ix *targets, uint32_t n_targets,
                                   uint32_t split_min, paths_result *r, int *all_found,
                                   lr_error *err)
{
    return find_phase(g, pol, targets, n_targets, r, 1, split_min, all_found, err);
}

int paths_class_has_loader(const graph *g, node_ix y)
{
    if (y >= g->n_nodes)
        return 0;
    edge_ix end = g->first_edge[y + 1] < g->n_edges ? g->first_edge[y + 1] : g->n_edges;
    for (edge_ix e = g->first_edge[y]; e < end; e++)
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_INTERNAL &&
            g->edge_to[e] < g->n_nodes &&
            !strcmp(graph_str(g, graph_edge_name_from(g, y, e)), "<classloader>"))
            return 1;
    return 0;
}

/* The class hop out of x (paths_policy.class_hops): x's class object, queued at visit-last
 * priority with its parent stored (the code names no edge). Class objects have no class.
 * As in the dominators, only into a class a loader defined: the boot loader's classes are
 * never unloaded, so no instance keeps them (a rooted class is reached as a root first). */
static void class_hop(bfs *b, const graph *g, node_ix x, int via_last)
{
    class_ix c = graph_node_class(g, x);
    node_ix y = c < g->n_classes ? g->classes[c].node : GRAPH_NONE;
    if (y >= g->n_nodes || y == x || g->node_kind[y] != GRAPH_KIND_CLASS)
        return;
    if (worth_asking(b, GRAPH_EDGE_MAKE(GRAPH_EDGE_INTERNAL, GRAPH_STRONG), y, g->n_nodes) &&
        (b->flags[y] & ST_MASK) == ST_UNSEEN) {
        if (!b->loader[c])
            b->loader[c] = paths_class_has_loader(g, y) ? 1 : 2;
        if (b->loader[c] != 1)
            return;
        int src = b->src;
        b->src = 1; /* the parent is stored whatever the edges come from */
        enqueue(b, y, x, PATHS_CLASS_HOP, 1, via_last);
        b->src = src;
    }
}

/* Node x's edges with those listed in a hash's order put in name order (graph.ties_by_name,
 * graph_order_ties): the queues then hold each level's nodes in an order that does not
 * depend on the hash, so the first of equally short ways in is the same in every dump of
 * the program. Only the edges that may enqueue are ordered; bit 31 of each marks a
 * visit-last one. Returns -1 when out of memory. */
static int ties_by_name(bfs *b, const graph *g, node_ix x,
                        enum paths_edge_class (*edge_cls)(const graph *, node_ix, edge_ix,
                                                          void *),
                        void *ctx, int vl)
{
    uint32_t n = g->n_nodes, deg = g->first_edge[x + 1] - g->first_edge[x];
    if (5 * (uint64_t)deg > b->cap_tie) {
        uint64_t want = 5 * (uint64_t)deg < 640 ? 640 : 5 * (uint64_t)deg;
        edge_ix *t = want <= UINT32_MAX ? realloc(b->tie, want * sizeof *t) : NULL;
        if (!t)
            return -1;
        b->tie = t;
        b->cap_tie = (uint32_t)want;
    }
    uint32_t k = 0, ties = 0;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
        if (!worth_asking(b, g->edge_kind[e], g->edge_to[e], n))
            continue;
        enum paths_edge_class c = edge_cls(g, x, e, ctx);
        if (c == PATHS_IGNORE)
            continue;
        ties += GRAPH_EDGE_TIES_BY_NAME(GRAPH_EDGE_KIND(g->edge_kind[e]));
        b->tie[k++] = e | (c == PATHS_VISIT_LAST ? TIE_LAST : 0);
    }
    if (ties > 1) /* names read only for the few nodes that need them */
        graph_order_ties(g, x, b->tie, NULL, k, b->tie + deg);
    for (uint32_t i = 0; i < k; i++) {
        edge_ix e = b->tie[i] & ~TIE_LAST;
        enqueue(b, g->edge_to[e], x, e, (b->tie[i] & TIE_LAST) != 0, vl);
    }
    return 0;
}

static lr_status find(const graph *g, const paths_policy *pol, const node_ix *targets,
                      uint32_t n_targets, paths_result *r, int early, uint32_t split_min,
                      int *all_found, lr_error *err)
{
    *all_found = 0;
    memset(r, 0, sizeof *r);
    uint32_t n = g->n_nodes;
    size_t m = n ? n : 1;
    lr_status st = LR_OK;
    bfs b = {.r = r};
    eblock_job ej = {r, 0, 0, 0};
    root_key *keys = NULL;
    const paths_source *src = pol ? pol->source : NULL;
    if (n > 0 && (!g->first_edge || !g->edge_to || !g->edge_kind))
        return LR_FAIL(err, LR_ERR_USAGE, "paths: graph was loaded without edges");
    if (src && g->n_edges >= PATHS_VIRTUAL)
        return LR_FAIL(err, LR_ERR_LIMIT, "paths: too many edges (%u) for an edge source",
                       g->n_edges);
    r->n = n;
    r->g = g;
    b.src = src != NULL;
    /* edge codes are written only where a node is reached: pages of nodes never reached
     * are never touched */
    r->edge = err_mallocarray(m, sizeof *r->edge);
    r->flags = b.flags = err_calloc(m, 1);
    b.page_off = (uintptr_t)b.flags % PAGE_BYTES;
    b.page_seen = err_calloc((m + b.page_off) / PAGE_BYTES / 64 + 1, sizeof *b.page_seen);
    b.qn.max = b.ql.max = n;
    keys = err_mallocarray((size_t)g->n_roots + 1, sizeof *keys);
    r->rooted = err_mallocarray((size_t)g->n_roots + 1, sizeof *r->rooted);
    if (!r->edge || !r->flags || !b.page_seen || !keys || !r->rooted) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "paths: out of memory (%u nodes)", n);
        goto done;
    }
    for (uint32_t i = 0; i < n_targets; i++)
        if (targets[i] < n && !*flag_at(&b, targets[i])) {
            b.flags[targets[i]] = ST_TARGET;
            b.open++;
        }
    uint32_t n_distinct = b.open;
    r->order = err_mallocarray(n_distinct ? n_distinct : 1, sizeof *r->order);
    b.tq = err_mallocarray(n_distinct ? 2 * (size_t)n_distinct : 1, sizeof *b.tq);
    if (!r->order || !b.tq) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "paths: out of memory (%u targets)", n_distinct);
        goto done;
    }

    enum paths_edge_class (*root_cls)(const graph *, uint32_t, void *) =
        pol && pol->root ? pol->root : paths_default_root;
    enum paths_edge_class (*edge_cls)(const graph *, node_ix, edge_ix, void *) =
        pol ? pol->edge : NULL;
    void *ctx = pol ? pol->ctx : NULL;
    int hops = pol && pol->class_hops && g->format && !strcmp(g->format, "hprof");
    int through = pol && pol->through_targets;
    if (hops && !(b.loader = err_calloc(g->n_classes ? g->n_classes : 1, 1))) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "paths: out of memory (%u classes)", g->n_classes);
        goto done;
    }

    uint32_t nk = order_roots(g, keys);
    if (nk == UINT32_MAX) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "paths: out of memory (%u roots)", g->n_roots);
        goto done;
    }
    /* Roots are all enqueued before any edge is walked; a rooted node keeps the entry of the
     * last enqueue that took it (a visit-last root promoted by a normal one) */
    uint32_t n_rooted = 0;
    for (uint32_t i = 0; i < nk; i++) {
        uint32_t ri = keys[i].r;
        node_ix x = ri < g->n_roots ? g->roots[ri].node : g->synthetic_root;
        enum paths_edge_class c = ri < g->n_roots ? root_cls(g, ri, ctx) : PATHS_FOLLOW;
        if (c == PATHS_IGNORE)
            continue;
        if (enqueue(&b, x, GRAPH_NONE, PATHS_FROM_ROOT, c == PATHS_VISIT_LAST, 0)) {
            r->rooted[n_rooted] = (struct paths_rooted){x, ri, n_rooted};
            n_rooted++;
        }
    }
    qsort(r->rooted, n_rooted, sizeof *r->rooted, cmp_rooted);
    uint32_t u = 0;
    for (uint32_t i = 0; i < n_rooted; i++) {
        if (u && r->rooted[u - 1].node == r->rooted[i].node)
            u--;
        r->rooted[u++] = r->rooted[i];
    }
    r->n_rooted = u;
    free(keys);
    keys = NULL;
    /* the index needs the graph only: beside the traversal when the other core is idle
     * (24 of the 120 ms this search takes on the 1 GB bench dump) */
    if (split_min && n >= split_min)
        ej.on = pthread_create(&ej.th, NULL, eblock_run, &ej) == 0;

    for (;;) {
        node_ix x;
        if (b.nomem) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "paths: out of memory (%u nodes)", n);
            goto done;
        }
        if (early && n_distinct > 0 && b.open == 0)
            break; /* every target's path is final */
        if (b.qn.len) {
            prefetch_ahead(g, b.flags, r->edge, &b.qn);
            x = q_pop(&b.qn);
        } else if (b.ql.len) {
            prefetch_ahead(g, b.flags, r->edge, &b.ql);
            if (!b.visiting_last) {
                /* no promotion any more: targets waiting at visit-last priority are final */
                b.open -= b.open_last;
                b.open_last = 0;
            }
            b.visiting_last = 1;
            x = q_pop(&b.ql);
            if ((b.flags[x] & ST_MASK) != ST_LAST) /* promoted: handled as normal */
                continue;
        } else {
            break;
        }
        uint8_t fx = b.flags[x];
        b.flags[x] = (uint8_t)(fx | ST_DONE);
        if ((fx & PATHS_F_UP) && !r->parent && taken_add(&b, x))
            b.nomem = 1;
        if (fx & ST_TARGET) {
            r->order[r->n_order++] = x;
            if (!through)
                continue;
        }
        int vl = (fx & PATHS_F_VIA_LAST) != 0;
        if (src) {
            paths_list l;
            if (src->edges(src->ctx, x, &l)) {
                st = LR_FAIL(err, LR_ERR_NOMEM, "paths: out of memory listing edges");
                goto done;
            }
            if (l.n >= PATHS_VIRTUAL - 2) {
                st = LR_FAIL(err, LR_ERR_LIMIT, "paths: %u edges out of one node", l.n);
                goto done;
            }
            for (uint32_t i = 0; i < l.n; i++) {
                if (i + PF_LIST < l.n && l.to[i + PF_LIST] < n) {
                    __builtin_prefetch(&b.flags[l.to[i + PF_LIST]]);
                    /* a virtual entry's code goes with its stored parent */
                    if (l.real[i + PF_LIST] != GRAPH_NONE)
                        __builtin_prefetch(&r->edge[l.to[i + PF_LIST]], 1);
                }
                uint8_t k = l.kind[i];
                node_ix y = l.to[i];
                if (!worth_asking(&b, k, y, n))
                    continue;
                enum paths_edge_class c =
                    edge_cls ? edge_cls(g, x, i, ctx)
                             : GRAPH_EDGE_KIND(k) == GRAPH_EDGE_LOCAL ? PATHS_VISIT_LAST
                                                                      : PATHS_FOLLOW;
                if (c == PATHS_IGNORE)
                    continue;
                edge_ix re = l.real[i];
                enqueue(&b, y, x, re != GRAPH_NONE ? re : PATHS_VIRTUAL | i,
                        c == PATHS_VISIT_LAST, vl);
            }
            if (hops)
                class_hop(&b, g, x, vl);
            continue;
        }
        if (!edge_cls)
            edge_cls = paths_default_edge;
        if (g->ties_by_name && g->first_edge[x + 1] - g->first_edge[x] > 1) {
            if (ties_by_name(&b, g, x, edge_cls, ctx, vl))
                b.nomem = 1;
            if (hops)
                class_hop(&b, g, x, vl);
            continue;
        }
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            uint8_t k = g->edge_kind[e];
            node_ix y = g->edge_to[e];
            if (!worth_asking(&b, k, y, n))
                continue;
            enum paths_edge_class c = edge_cls(g, x, e, ctx);
            if (c == PATHS_IGNORE)
                continue;
            enqueue(&b, y, x, e, c == PATHS_VISIT_LAST, vl);
        }
        if (hops)
            class_hop(&b, g, x, vl);
    }
    *all_found = b.open == 0;
    /* targets still queued (early stop): in the order they would have been taken out,
     * normal queue first. The queues may hold millions of nodes: the targets' pushes say
     * where they are (those from the last len pushes of a queue are still in it) */
    uint32_t nq = 0;
    for (uint32_t i = 0; i < b.n_tq; i++) {
        const queue *q = b.tq[i].last ? &b.ql : &b.qn;
        if (b.tq[i].seq >= q->pushed - q->len)
            b.tq[nq++] = b.tq[i];
    }
    qsort(b.tq, nq, sizeof *b.tq, cmp_queued);
    for (uint32_t i = 0; i < nq; i++) {
        node_ix x = b.tq[i].x;
        if ((b.flags[x] & ST_MASK) != ST_DONE && r->n_order < n_distinct) {
            r->order[r->n_order++] = x;
            b.flags[x] = (uint8_t)(b.flags[x] | ST_DONE);
        }
    }
    /* the last stored parent of each node counts, the others go; the queues go first */
    free(b.qn.v);
    free(b.ql.v);
    b.qn.v = b.ql.v = NULL;
    if (r->n_up && up_split(r, &b)) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "paths: out of memory (%u parents)", r->n_up);
        goto done;
    }
    if (eblock_join(&ej))
        st = LR_FAIL(err, LR_ERR_NOMEM, "paths: out of memory (%u edges)", g->n_edges);
done:
    if (ej.on)
        pthread_join(ej.th, NULL);
    free(b.page_seen);
    free(b.loader);
    free(b.tq);
    free(b.taken);
    free(b.tie);
    free(b.qn.v);
    free(b.ql.v);
    free(keys);
    if (st != LR_OK)
        paths_free(r);
    return st;
}

int paths_reached(const paths_result *r, node_ix n)
{
    return n < r->n && r->flags && (r->flags[n] & ST_MASK) != ST_UNSEEN;
}

int paths_via_last(const paths_result *r, node_ix n)
{
    return paths_reached(r, n) && (r->flags[n] & PATHS_F_VIA_LAST);
}

/* The node whose CSR range holds edge e: a search among the nodes of e's block. */
static node_ix edge_source(const paths_result *r, edge_ix e)
{
    const edge_ix *fe = r->g->first_edge;
    uint32_t b = e / PATHS_EBLOCK;
    uint32_t lo = r->eblock[b];
    uint32_t hi = b + 1 < r->n_eblock ? r->eblock[b + 1] : r->n - 1;
    /* the last node in [lo, hi] whose first edge is <= e */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (fe[mid] <= e)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The stored parent entry of reached node n with PATHS_F_UP while they are listed (no
 * parent array); NULL if none. The first lookup of a node up_split left in the unsorted
 * list sorts it (the result is written: see paths_result.up_cold); if that runs out of
 * memory, the list is read backwards instead (the last entry counts). */
static const struct paths_up *up_find(const paths_result *r, node_ix n)
{
    uint32_t lo;
    if (r->n_hot) {
        SEARCH_LOWER_BOUND(uint32_t, 0, r->n_hot, r->hot[search_mid].node < n, lo);
        if (lo < r->n_hot && r->hot[lo].node == n)
            return &r->hot[lo];
    }
    if (r->up_cold) {
        paths_result *w = (paths_result *)r; /* never a const object: paths_find made it */
        if (sort_up(w)) {
            for (uint32_t i = r->n_up; i-- > 0;)
                if (r->up[i].node == n)
                    return &r->up[i];
            return NULL;
        }
        w->up_cold = 0;
    }
    SEARCH_LOWER_BOUND(uint32_t, 0, r->n_up, r->up[search_mid].node < n, lo);
    return lo < r->n_up && r->up[lo].node == n ? &r->up[lo] : NULL;
}

/* The edge code into reached node n. */
static uint32_t code_of(const paths_result *r, node_ix n)
{
    if ((r->flags[n] & PATHS_F_UP) && !r->parent) {
        const struct paths_up *u = up_find(r, n);
        return u ? u->code : GRAPH_NONE;
    }
    return r->edge[n];
}

/* n's parent; n is reached. guess is a node that may be it (GRAPH_NONE: none): the one
 * node whose edge range holds the code, so a right guess gives what the search would. */
static node_ix parent_near(const paths_result *r, node_ix n, node_ix guess)
{
    if (r->flags[n] & PATHS_F_UP) {
        if (r->parent)
            return r->parent[n];
        const struct paths_up *u = up_find(r, n);
        return u ? u->parent : GRAPH_NONE;
    }
    uint32_t code = r->edge[n];
    if (code == PATHS_FROM_ROOT)
        return GRAPH_NONE;
    const edge_ix *fe = r->g->first_edge;
    if (guess < r->n && fe[guess] <= code && code < fe[guess + 1])
        return guess;
    return edge_source(r, code);
}

static node_ix parent_of(const paths_result *r, node_ix n)
{
    return parent_near(r, n, GRAPH_NONE);
}

/* The guess for the parent of the next node up a walk, p, after the step from x to p: as
 * far from p as p was from x. A long path is mostly a linked list whose links the heap
 * laid out one after the other, so that each hop costs a check instead of the search
 * through the edge block (its branches cannot be predicted): 5 M hops on the 1 GB bench
 * dump. Wraps to a node past the end (no guess) when the step does not apply. */
static inline node_ix walk_guess(node_ix x, node_ix p)
{
    return p == GRAPH_NONE ? GRAPH_NONE : p + (p - x);
}

node_ix paths_parent(const paths_result *r, node_ix n)
{
    return paths_reached(r, n) ? parent_of(r, n) : GRAPH_NONE;
}

void paths_parents(const paths_result *r, node_ix *out)
{
    const graph *g = r->g;
    for (node_ix x = 0; x < r->n; x++)
        out[x] = paths_reached(r, x) && (r->flags[x] & PATHS_F_UP) ? parent_of(r, x)
                                                                      : GRAPH_NONE;
    for (node_ix x = 0; x < r->n; x++)
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y < r->n && paths_reached(r, y) && !(r->flags[y] & PATHS_F_UP) &&
                r->edge[y] == e)
                out[y] = x;
        }
}

uint32_t paths_edge(const paths_result *r, node_ix n)
{
    return paths_reached(r, n) ? code_of(r, n) : GRAPH_NONE;
}

/* The root node of n's path and its depth; GRAPH_NONE when unreached. A parent is always a
 * node taken out of a queue before its child was reached, and such a node's parent never
 * changes again, so the chain ends; the bound only guards against a damaged result. */
static node_ix walk_up(const paths_result *r, node_ix n, uint32_t *depth)
{
    *depth = UINT32_MAX;
    if (!paths_reached(r, n))
        return GRAPH_NONE;
    uint32_t d = 0;
    node_ix guess = GRAPH_NONE;
    for (node_ix p; (p = parent_near(r, n, guess)) != GRAPH_NONE && d < r->n; n = p) {
        guess = walk_guess(n, p);
        d++;
    }
    *depth = d;
    return n;
}

uint32_t paths_depth(const paths_result *r, node_ix n)
{
    uint32_t d;
    walk_up(r, n, &d);
    return d;
}

uint32_t paths_root_of(const paths_result *r, node_ix n)
{
    uint32_t d;
    node_ix x = walk_up(r, n, &d);
    if (x == GRAPH_NONE)
        return GRAPH_NONE;
    uint32_t lo;
    SEARCH_LOWER_BOUND(uint32_t, 0, r->n_rooted, r->rooted[search_mid].node < x, lo);
    return lo < r->n_rooted && r->rooted[lo].node == x ? r->rooted[lo].entry : GRAPH_NONE;
}

/* The path of reached node n in one walk, written child first then turned round, when it
 * fits cap entries; returns its length, or 0 when it does not fit (nodes and edges are then
 * scratch). Each hop of a walk is a few cache misses, and a suspect's path on a big heap
 * can be millions of hops long: one walk instead of a walk for the length and one to fill. */
static uint32_t get_one_walk(const paths_result *r, node_ix n, node_ix *nodes, edge_ix *edges,
                             uint32_t cap)
{
    uint32_t k = 0;
    node_ix x = n, guess = GRAPH_NONE;
    while (x != GRAPH_NONE && k < cap && k <= r->n) {
        node_ix p = parent_near(r, x, guess);
        guess = walk_guess(x, p);
        if (nodes)
            nodes[k] = x;
        if (edges && p != GRAPH_NONE)
            edges[k] = code_of(r, x);
        k++;
        x = p;
    }
    if (x != GRAPH_NONE)
        return 0;
    for (uint32_t i = 0, j = k - 1; nodes && i < j; i++, j--) {
        node_ix t = nodes[i];
        nodes[i] = nodes[j];
        nodes[j] = t;
    }
    for (uint32_t i = 0, j = k - 2; edges && k >= 2 && i < j; i++, j--) {
        edge_ix t = edges[i];
        edges[i] = edges[j];
        edges[j] = t;
    }
    return k;
}

uint32_t paths_get(const paths_result *r, node_ix n, node_ix *nodes, edge_ix *edges,
                   uint32_t cap)
{
    uint32_t depth;
    if (!paths_reached(r, n))
        return 0;
    if (nodes || edges) {
        uint32_t k = get_one_walk(r, n, nodes, edges, cap);
        if (k)
            return k;
    }
    if (walk_up(r, n, &depth) == GRAPH_NONE)
        return 0;
    uint32_t len = depth + 1, i = len;
    node_ix x = n, guess = GRAPH_NONE;
    /* Walks from n up; nodes[i] is x, and the edge into x is edges[i - 1]. */
    while (i > 0 && x != GRAPH_NONE) {
        i--;
        if (nodes && i < cap)
            nodes[i] = x;
        if (edges && i > 0 && i - 1 < cap)
            edges[i - 1] = code_of(r, x);
        node_ix p = parent_near(r, x, guess);
        guess = walk_guess(x, p);
        x = p;
    }
    return len;
}
