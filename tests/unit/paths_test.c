/* SPDX-License-Identifier: Apache-2.0 */
/* paths_test.c: unit tests of src/analysis/paths.c on hand-built graphs: shortest paths,
 * the two-queue priority (a normal path beats a shorter visit-last one), promotion of a node
 * first seen through a visit-last edge, ignored edges, weak/soft/phantom/finalizer edges never
 * followed, targets as leaves, Shark's root order (thread objects first, root kind name
 * descending, class name), dropped Java-frame roots, edge-order ties, paths_get, the root
 * entry of a node rooted twice, an edge source listing virtual entries, and parents on
 * random graphs: named by the edge that reached a node, or kept where no edge names them
 * (a list, or an array past N/8 of them), always the node whose entry reached it; and the
 * whole result (codes, parents, visit-last marks, the targets' order, early stops) equal to
 * a plain two-queue search written out in the test, on random graphs up to 400,000 nodes;
 * each page of the flags is taken by a write (one fault, counted with getrusage). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sys/resource.h>

#include "analysis/paths.h"
#include "test_graph.h"


typedef struct troot {
    uint32_t node;
    uint8_t kind;
    uint32_t thread;
} troot;

#define STRONG GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG)
#define LOCAL GRAPH_EDGE_MAKE(GRAPH_EDGE_LOCAL, GRAPH_STRONG)
#define NO GRAPH_NONE

/* n nodes, each of its own class "C<i>" unless names given; edges kept in order. */
static void build(graph *g, uint32_t n, const tedge *es, uint32_t ne, const troot *roots,
                  uint32_t nr, const char *const *names)
{
    tg_nodes(g, n, names, 1);
    tg_edges(g, es, ne, 1);
    g->roots = calloc(nr ? nr : 1, sizeof *g->roots);
    assert_non_null(g->roots);
    g->n_roots = nr;
    for (uint32_t i = 0; i < nr; i++)
        g->roots[i] = (graph_root){roots[i].node, roots[i].kind, roots[i].thread, -1};
}

static long minflt(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_minflt;
}

static void find(const graph *g, const paths_policy *pol, const node_ix *t, uint32_t nt,
                 paths_result *r)
{
    lr_error err = {0};
    assert_int_equal(paths_find(g, pol, t, nt, r, &err), LR_OK);
    assert_int_equal(r->n, g->n_nodes);
}

/* The path to x as node list; returns its length. */
static uint32_t path(const paths_result *r, node_ix x, node_ix *nodes)
{
    return paths_get(r, x, nodes, NULL, 16);
}

static void test_bfs_shortest(void **state)
{
    (void)state;
    /* 0 -> 1 -> 2 -> 3 and 0 -> 4 -> 3: shortest to 3 is 0,4,3. */
    const tedge es[] = {{0, 1, STRONG}, {0, 4, STRONG}, {1, 2, STRONG}, {2, 3, STRONG},
                        {4, 3, STRONG}};
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0}};
    graph g;
    paths_result r;
    build(&g, 6, es, 5, rs, 1, NULL);
    find(&g, NULL, NULL, 0, &r);
    node_ix p[16];
    edge_ix e[16];
    assert_int_equal(paths_get(&r, 3, p, e, 16), 3);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], 4);
    assert_int_equal(p[2], 3);
    assert_int_equal(g.edge_to[e[0]], 4);
    assert_int_equal(g.edge_to[e[1]], 3);
    assert_int_equal(paths_depth(&r, 3), 2);
    assert_int_equal(paths_edge(&r, 0), PATHS_FROM_ROOT);
    assert_int_equal(paths_root_of(&r, 3), 0);
    assert_int_equal(paths_depth(&r, 5), UINT32_MAX);
    assert_int_equal(paths_get(&r, 5, p, e, 16), 0);
    assert_int_equal(paths_parent(&r, 5), NO);
    /* A short buffer gets the root-first prefix. */
    memset(p, 0xff, sizeof p);
    assert_int_equal(paths_get(&r, 3, p, NULL, 2), 3);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], 4);
    assert_int_equal(p[2], NO);
    paths_free(&r);
    graph_fini(&g);
}

/* Policy marking edges whose label (test order index) is in ctx's list. */
typedef struct marks {
    uint32_t last[4], n_last;
    uint32_t ignore[4], n_ignore;
    uint32_t calls;
} marks;

static enum paths_edge_class mark_edge(const graph *g, node_ix from, edge_ix e, void *ctx)
{
    (void)from;
    marks *m = ctx;
    m->calls++;
    for (uint32_t i = 0; i < m->n_ignore; i++)
        if (graph_edge_name(g, e) == m->ignore[i])
            return PATHS_IGNORE;
    for (uint32_t i = 0; i < m->n_last; i++)
        if (graph_edge_name(g, e) == m->last[i])
            return PATHS_VISIT_LAST;
    return paths_default_edge(g, from, e, NULL);
}

static void test_visit_last_priority(void **state)
{
    (void)state;
    /* 0 -(visit last)-> 1 -> 5 is two hops; 0 -> 2 -> 3 -> 4 -> 5 is four normal hops. The
     * normal queue is drained before 1 is expanded, so 5 gets the normal path. */
    const tedge es[] = {{0, 1, STRONG}, {0, 2, STRONG}, {1, 5, STRONG}, {2, 3, STRONG},
                        {3, 4, STRONG}, {4, 5, STRONG}, {5, 6, STRONG}};
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0}};
    marks m = {.last = {0}, .n_last = 1};
    paths_policy pol = {mark_edge, NULL, &m, NULL, 0, 0};
    graph g;
    paths_result r;
    node_ix p[16];
    build(&g, 7, es, 7, rs, 1, NULL);
    find(&g, &pol, NULL, 0, &r);
    assert_int_equal(path(&r, 5, p), 5);
    assert_int_equal(p[3], 4);
    assert_int_equal(paths_via_last(&r, 5), 0);
    assert_int_equal(paths_via_last(&r, 1), 1);
    assert_int_equal(path(&r, 6, p), 6);
    assert_int_equal(paths_via_last(&r, 6), 0);
    paths_free(&r);
    /* Without the policy the two-hop path wins. */
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(path(&r, 5, p), 3);
    assert_int_equal(p[1], 1);
    paths_free(&r);
    graph_fini(&g);
}

static void test_promotion(void **state)
{
    (void)state;
    /* 0 -(visit last)-> 2 discovers 2 at depth 1 into the last queue; then 1 (normal)
     * reaches it at depth 2 while the normal queue still runs: 2 is promoted, its parent
     * becomes 1, and its child 4 follows. */
    const tedge es[] = {{0, 2, STRONG}, {0, 1, STRONG}, {1, 2, STRONG}, {2, 4, STRONG}};
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0}};
    marks m = {.last = {0}, .n_last = 1};
    paths_policy pol = {mark_edge, NULL, &m, NULL, 0, 0};
    graph g;
    paths_result r;
    node_ix p[16];
    build(&g, 5, es, 4, rs, 1, NULL);
    find(&g, &pol, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 2), 1);
    assert_int_equal(paths_depth(&r, 2), 2);
    assert_int_equal(paths_via_last(&r, 2), 0);
    assert_int_equal(path(&r, 4, p), 4);
    assert_int_equal(p[1], 1);
    paths_free(&r);
    graph_fini(&g);
}

static void test_low_root_promoted_and_last_phase(void **state)
{
    (void)state;
    /* Root 0 is an "unknown" root (visit last) and also reached from root 1 (normal):
     * promoted, its path becomes 1 -> 0. Node 3 only reachable from root 2, a VM-internal
     * (visit last) root: reached in the last phase, marked via_last. */
    const tedge es[] = {{1, 0, STRONG}, {2, 3, STRONG}, {0, 4, STRONG}};
    const troot rs[] = {{0, GRAPH_ROOT_UNKNOWN, 0},
                        {1, GRAPH_ROOT_JNI_GLOBAL, 0},
                        {2, GRAPH_ROOT_VM_INTERNAL, 0}};
    graph g;
    paths_result r;
    build(&g, 5, es, 3, rs, 3, NULL);
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 0), 1);
    assert_int_equal(paths_depth(&r, 0), 1);
    assert_int_equal(paths_root_of(&r, 0), 1);
    assert_int_equal(paths_via_last(&r, 0), 0);
    assert_int_equal(paths_depth(&r, 4), 2);
    assert_int_equal(paths_edge(&r, 2), PATHS_FROM_ROOT);
    assert_int_equal(paths_via_last(&r, 2), 1);
    assert_int_equal(paths_via_last(&r, 3), 1);
    assert_int_equal(paths_parent(&r, 3), 2);
    paths_free(&r);
    graph_fini(&g);
}

static void test_ignore_and_weak(void **state)
{
    (void)state;
    /* 0 -> 1 (ignored), 0 -> 2 -> 1; 0 -weak-> 3, -soft-> 3, -phantom-> 3, -finalizer-> 3,
     * V8 weak -> 3: 3 unreached. 0 -> 4 ignored and nothing else: 4 unreached. */
    const tedge es[] = {
        {0, 1, STRONG},
        {0, 2, STRONG},
        {2, 1, STRONG},
        {0, 3, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_WEAK)},
        {0, 3, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_SOFT)},
        {0, 3, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_PHANTOM)},
        {0, 3, GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_FINALIZER)},
        {0, 3, GRAPH_EDGE_MAKE(GRAPH_EDGE_WEAK, GRAPH_STRONG)},
        {0, 4, STRONG},
    };
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0}};
    marks m = {.ignore = {0, 8}, .n_ignore = 2};
    paths_policy pol = {mark_edge, NULL, &m, NULL, 0, 0};
    graph g;
    paths_result r;
    build(&g, 5, es, 9, rs, 1, NULL);
    find(&g, &pol, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 1), 2);
    assert_int_equal(paths_depth(&r, 3), UINT32_MAX);
    assert_int_equal(paths_depth(&r, 4), UINT32_MAX);
    assert_true(m.calls <= 4); /* weak edges never reach the policy */
    paths_free(&r);
    graph_fini(&g);
}

static enum paths_edge_class ignore_root1(const graph *g, uint32_t r, void *ctx)
{
    (void)ctx;
    return r == 1 ? PATHS_IGNORE : paths_default_root(g, r, NULL);
}

static void test_targets_are_leaves(void **state)
{
    (void)state;
    /* 0 -> 1 (target) -> 2; 0 -> 3 -> 4 -> 5 -> 2 is longer but avoids the target. 1 -> 6
     * only through the target: unreached. Root 7 ignored by the root policy. */
    const tedge es[] = {{0, 1, STRONG}, {0, 3, STRONG}, {1, 2, STRONG}, {1, 6, STRONG},
                        {3, 4, STRONG}, {4, 5, STRONG}, {5, 2, STRONG}};
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0}, {7, GRAPH_ROOT_JNI_GLOBAL, 0}};
    const node_ix targets[] = {1, 2, 99};
    paths_policy pol = {NULL, ignore_root1, NULL, NULL, 0, 0};
    graph g;
    paths_result r;
    build(&g, 8, es, 7, rs, 2, NULL);
    find(&g, &pol, targets, 3, &r);
    assert_int_equal(paths_depth(&r, 1), 1);
    assert_int_equal(paths_depth(&r, 2), 4);
    assert_int_equal(paths_parent(&r, 2), 5);
    assert_int_equal(paths_depth(&r, 6), UINT32_MAX);
    assert_int_equal(paths_depth(&r, 7), UINT32_MAX);
    paths_free(&r);
    graph_fini(&g);
}

static void test_root_order(void **state)
{
    (void)state;
    /* Every root reaches target 9 in one hop; the winner is the first root in Shark's order:
     * thread object first, whatever its place in the dump. */
    const tedge es[] = {{0, 9, STRONG}, {1, 9, STRONG}, {2, 9, STRONG}, {3, 9, STRONG},
                        {4, 9, STRONG}};
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0},
                        {1, GRAPH_ROOT_STICKY_CLASS, 0},
                        {2, GRAPH_ROOT_THREAD_OBJECT, 7},
                        {3, GRAPH_ROOT_NATIVE_STACK, 0},
                        {4, GRAPH_ROOT_THREAD_BLOCK, 0}};
    const char *names[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
    graph g;
    paths_result r;
    build(&g, 10, es, 5, rs, 5, names);
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 9), 2); /* ThreadObject */
    paths_free(&r);
    /* Without the thread: ThreadBlock > StickyClass > NativeStack > JniGlobal. */
    g.roots[2].kind = GRAPH_ROOT_JNI_LOCAL;
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 9), 4);
    paths_free(&r);
    g.roots[4].kind = GRAPH_ROOT_JNI_GLOBAL;
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 9), 1); /* StickyClass */
    paths_free(&r);
    g.roots[1].kind = GRAPH_ROOT_JNI_GLOBAL;
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 9), 3); /* NativeStack */
    paths_free(&r);
    g.roots[3].kind = GRAPH_ROOT_JNI_GLOBAL;
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 9), 2); /* JniLocal > JniGlobal */
    paths_free(&r);
    /* All JNI global: the rooted object's class name decides ("a" < "b" ...). */
    g.roots[2].kind = GRAPH_ROOT_JNI_GLOBAL;
    g.node_class[0] = 4; /* "e" */
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 9), 1);
    paths_free(&r);
    /* Same kind and class: dump order. */
    for (uint32_t i = 0; i < 5; i++)
        g.node_class[i] = 0;
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 9), 0);
    paths_free(&r);
    graph_fini(&g);
}

static void test_java_frames_and_edge_ties(void **state)
{
    (void)state;
    /* Thread 0 (thread object root, serial 7) has local edge -> 1; the Java-frame root of
     * 1 for thread 7 is dropped, so 1 is reached through the (low priority) local edge.
     * A Java-frame root of thread 8 (no thread object) stays, as a visit-last root (2).
     * Edge order tie: 3 has edges -> 4 then -> 5, both -> 6: 6 comes from 4. */
    const tedge es[] = {{0, 1, LOCAL}, {0, 3, STRONG}, {3, 4, STRONG}, {3, 5, STRONG},
                        {5, 6, STRONG}, {4, 6, STRONG}};
    const troot rs[] = {{1, GRAPH_ROOT_JAVA_FRAME, 7},
                        {0, GRAPH_ROOT_THREAD_OBJECT, 7},
                        {2, GRAPH_ROOT_JAVA_FRAME, 8}};
    graph g;
    paths_result r;
    build(&g, 7, es, 6, rs, 3, NULL);
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 1), 0);
    assert_int_equal(paths_via_last(&r, 1), 1);
    assert_int_equal(paths_edge(&r, 2), PATHS_FROM_ROOT);
    assert_int_equal(paths_via_last(&r, 2), 1);
    assert_int_equal(paths_root_of(&r, 2), 2);
    assert_int_equal(paths_parent(&r, 6), 4);
    assert_int_equal(paths_depth(&r, 6), 3);
    paths_free(&r);
    graph_fini(&g);
}

static void test_synthetic_root(void **state)
{
    (void)state;
    const tedge es[] = {{0, 1, STRONG}, {1, 2, STRONG}};
    graph g;
    paths_result r;
    build(&g, 3, es, 2, NULL, 0, NULL);
    g.synthetic_root = 0;
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_depth(&r, 2), 2);
    assert_int_equal(paths_root_of(&r, 2), 0); /* == g.n_roots: the synthetic root */
    paths_free(&r);
    graph_fini(&g);
}

/* A frontier wider than the queues' first allocation, growing while wrapped around: root 0
 * reaches 3000 hubs, each hub two leaves; 5000 more leaves hang off the root through
 * visit-last (local) edges. Every path must come out whole and shortest. */
static void test_wide_frontier(void **state)
{
    (void)state;
    enum { H = 3000, L = 5000, N = 1 + 3 * H + L };
    tedge *es = calloc(3 * H + L, sizeof *es);
    assert_non_null(es);
    uint32_t ne = 0;
    for (uint32_t i = 0; i < H; i++)
        es[ne++] = (tedge){0, 1 + i, STRONG};
    for (uint32_t i = 0; i < L; i++)
        es[ne++] = (tedge){0, 1 + 3 * H + i, LOCAL};
    for (uint32_t i = 0; i < H; i++) {
        es[ne++] = (tedge){1 + i, 1 + H + i, STRONG};
        es[ne++] = (tedge){1 + i, 1 + 2 * H + i, STRONG};
    }
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0}};
    graph g;
    paths_result r;
    build(&g, N, es, ne, rs, 1, NULL);
    find(&g, NULL, NULL, 0, &r);
    node_ix p[16];
    for (uint32_t i = 0; i < H; i++) {
        assert_int_equal(paths_depth(&r, 1 + i), 1);
        assert_int_equal(path(&r, 1 + H + i, p), 3);
        assert_int_equal(p[0], 0);
        assert_int_equal(p[1], 1 + i);
        assert_int_equal(p[2], 1 + H + i);
        assert_int_equal(paths_parent(&r, 1 + 2 * H + i), 1 + i);
        assert_int_equal(paths_depth(&r, 1 + 2 * H + i), 2);
        assert_int_equal(paths_via_last(&r, 1 + 2 * H + i), 0);
    }
    for (uint32_t i = 0; i < L; i++) {
        assert_int_equal(paths_parent(&r, 1 + 3 * H + i), 0);
        assert_int_equal(paths_via_last(&r, 1 + 3 * H + i), 1);
        assert_int_equal(paths_root_of(&r, 1 + 3 * H + i), 0);
    }
    paths_free(&r);
    graph_fini(&g);
    free(es);
}

/* Two root entries of one node: the visit-last one comes first in Shark's order ("Unknown"
 * sorts before "JniGlobal", names descending) and the normal one promotes it: the path
 * starts from the normal entry, not visit-last. */
static void test_root_entry_promoted(void **state)
{
    (void)state;
    const tedge es[] = {{0, 1, STRONG}};
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0}, {0, GRAPH_ROOT_UNKNOWN, 0},
                        {2, GRAPH_ROOT_UNKNOWN, 0}};
    graph g;
    paths_result r;
    build(&g, 3, es, 1, rs, 3, NULL);
    find(&g, NULL, NULL, 0, &r);
    assert_int_equal(paths_edge(&r, 0), PATHS_FROM_ROOT);
    assert_int_equal(paths_root_of(&r, 1), 0);
    assert_int_equal(paths_via_last(&r, 1), 0);
    assert_int_equal(paths_root_of(&r, 2), 2);
    assert_int_equal(paths_via_last(&r, 2), 1);
    assert_int_equal(paths_depth(&r, 1), 1);
    paths_free(&r);
    graph_fini(&g);
}

/* An edge source: node 0 lists a virtual entry to 3 then its real edge to 1; node 1 lists
 * its real edge to 2 then a virtual entry to 4; the others their real edges. */
typedef struct src_ctx {
    const graph *g;
    node_ix to[8];
    uint8_t kind[8];
    edge_ix real[8];
    uint32_t asked[8][2], n_asked; /* (from, position) the policy was asked about */
} src_ctx;

static int src_edges(void *ctx, node_ix x, paths_list *out)
{
    src_ctx *c = ctx;
    uint32_t n = 0;
    const uint8_t elem = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
    if (x == 0) {
        c->to[n] = 3;
        c->kind[n] = elem;
        c->real[n++] = GRAPH_NONE;
    }
    for (edge_ix e = c->g->first_edge[x]; e < c->g->first_edge[x + 1]; e++) {
        c->to[n] = c->g->edge_to[e];
        c->kind[n] = c->g->edge_kind[e];
        c->real[n++] = e;
    }
    if (x == 1) {
        c->to[n] = 4;
        c->kind[n] = elem;
        c->real[n++] = GRAPH_NONE;
    }
    *out = (paths_list){n, c->to, c->kind, c->real};
    return 0;
}

/* With a source the policy gets positions: (0, 0), the virtual entry to 3, is visit last. */
static enum paths_edge_class src_policy(const graph *g, node_ix from, edge_ix pos, void *ctx)
{
    (void)g;
    src_ctx *c = ctx;
    if (c->n_asked < 8) {
        c->asked[c->n_asked][0] = from;
        c->asked[c->n_asked++][1] = pos;
    }
    return from == 0 && pos == 0 ? PATHS_VISIT_LAST : PATHS_FOLLOW;
}

static void test_edge_source(void **state)
{
    (void)state;
    const tedge es[] = {{0, 1, STRONG}, {1, 2, STRONG}, {2, 3, STRONG}, {3, 5, STRONG}};
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0}};
    graph g;
    paths_result r;
    build(&g, 6, es, 4, rs, 1, NULL);
    src_ctx c = {.g = &g};
    paths_source src = {src_edges, &c};
    paths_policy pol = {src_policy, NULL, &c, &src, 0, 0};
    find(&g, &pol, NULL, 0, &r);
    /* 3 was first seen through the visit-last entry, then promoted by 0 -> 1 -> 2 -> 3 */
    assert_int_equal(paths_parent(&r, 3), 2);
    assert_int_equal(paths_edge(&r, 3), 2);
    assert_int_equal(paths_via_last(&r, 3), 0);
    /* 4 hangs off 1 through its second entry, a virtual one */
    assert_int_equal(paths_parent(&r, 4), 1);
    assert_int_equal(paths_edge(&r, 4), PATHS_VIRTUAL | 1);
    node_ix p[16];
    edge_ix e[16];
    assert_int_equal(paths_get(&r, 4, p, e, 16), 3);
    assert_int_equal(p[1], 1);
    assert_int_equal(e[0], 0);
    assert_int_equal(e[1], PATHS_VIRTUAL | 1);
    assert_int_equal(paths_depth(&r, 5), 4);
    assert_int_equal(c.n_asked >= 3, 1);
    assert_int_equal(c.asked[0][0], 0);
    assert_int_equal(c.asked[0][1], 0);
    assert_int_equal(c.asked[1][0], 0);
    assert_int_equal(c.asked[1][1], 1);
    assert_int_equal(c.asked[2][0], 1);
    assert_int_equal(c.asked[2][1], 0);
    paths_free(&r);
    /* The same source without a policy: Shark's defaults on the listed kinds, so the
     * virtual entry wins the race to 3 */
    pol.edge = NULL;
    find(&g, &pol, NULL, 0, &r);
    assert_int_equal(paths_parent(&r, 3), 0);
    assert_int_equal(paths_edge(&r, 3), PATHS_VIRTUAL | 0);
    assert_int_equal(paths_depth(&r, 5), 2);
    paths_free(&r);
    graph_fini(&g);
}

/* ---- parents on random graphs ---- */

static uint32_t rnd_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

/* A source over a random graph: each node lists its real edges, then (for some nodes)
 * virtual entries to pseudo-random nodes, and (for others) a real edge of the next node,
 * out of its own range, as a collection view may list an inner object's field. */
typedef struct rsrc {
    const graph *g;
    uint32_t virt_every; /* nodes x with x % virt_every == 0 list virtual entries */
    node_ix to[600];
    uint8_t kind[600];
    edge_ix real[600];
} rsrc;

static uint32_t mix(uint32_t a, uint32_t b)
{
    uint32_t h = a * 2654435761u ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2));
    h ^= h >> 15;
    return h * 2246822519u;
}

static int rsrc_edges(void *ctx, node_ix x, paths_list *out)
{
    rsrc *c = ctx;
    const graph *g = c->g;
    uint32_t n = 0;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1] && n < 500; e++) {
        c->to[n] = g->edge_to[e];
        c->kind[n] = g->edge_kind[e];
        c->real[n++] = e;
    }
    if (x % c->virt_every == 0)
        for (uint32_t k = 0; k < 1 + mix(x, 7) % 6; k++) {
            c->to[n] = mix(x, k) % g->n_nodes;
            c->kind[n] = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
            c->real[n++] = GRAPH_NONE;
        }
    if (x % 5 == 1 && x + 1 < g->n_nodes && g->first_edge[x + 1] < g->first_edge[x + 2]) {
        edge_ix e = g->first_edge[x + 1];
        c->to[n] = g->edge_to[e];
        c->kind[n] = g->edge_kind[e];
        c->real[n++] = e;
    }
    *out = (paths_list){n, c->to, c->kind, c->real};
    return 0;
}

/* Some entries visit last, so nodes get promoted (a new parent after a first one). */
static enum paths_edge_class rsrc_policy(const graph *g, node_ix from, edge_ix pos, void *ctx)
{
    (void)g;
    (void)ctx;
    return mix(from, pos) % 4 == 0 ? PATHS_VISIT_LAST : PATHS_FOLLOW;
}

/* paths_get of reached y against its parents walked one by one, with room for the whole
 * path, for more, and for less (the first cap entries, root first, and the full length). */
static void check_get(const paths_result *r, node_ix y)
{
    uint32_t len = paths_depth(r, y) + 1;
    node_ix *want = malloc((size_t)len * sizeof *want);
    edge_ix *want_e = malloc((size_t)len * sizeof *want_e);
    node_ix *got = malloc((size_t)(len + 2) * sizeof *got);
    edge_ix *got_e = malloc((size_t)(len + 2) * sizeof *got_e);
    assert_true(want && want_e && got && got_e);
    node_ix x = y;
    for (uint32_t i = len; i-- > 0; x = paths_parent(r, x)) {
        want[i] = x;
        if (i)
            want_e[i - 1] = paths_edge(r, x);
    }
    assert_int_equal(x, GRAPH_NONE);
    uint32_t caps[4] = {len, len + 2, len - 1, 1};
    for (int k = 0; k < 4; k++) {
        uint32_t cap = caps[k];
        if (!cap)
            continue;
        memset(got, 0xff, (size_t)(len + 2) * sizeof *got);
        memset(got_e, 0xff, (size_t)(len + 2) * sizeof *got_e);
        assert_int_equal(paths_get(r, y, got, got_e, cap), len);
        for (uint32_t i = 0; i < len && i < cap; i++)
            assert_int_equal(got[i], want[i]);
        for (uint32_t i = 0; i + 1 < len && i < cap; i++)
            assert_int_equal(got_e[i], want_e[i]);
        assert_int_equal(paths_get(r, y, got, NULL, cap), len);
        assert_int_equal(got[cap < len ? cap - 1 : len - 1], want[cap < len ? cap - 1 : len - 1]);
    }
    free(want);
    free(want_e);
    free(got);
    free(got_e);
}

/* A long path walked up in one step per hop: a linked list whose links lie in node order
 * (the walk guesses each parent from the last step) with steps of 1 to 3 nodes, up then
 * down the node order, chain edges first or second in a link's range, and nodes without
 * edges between: every wrong guess (a neighbour whose range is empty, or ends at or starts
 * after the chain edge) must fall back to the search. */
static void test_long_chain_layout(void **state)
{
    (void)state;
    enum { N = 6000 };
    uint64_t seed = 0x9e3779b97f4a7c15u;
    node_ix *chain = calloc(N, sizeof *chain);
    uint8_t *on = calloc(N, 1);
    tedge *es = calloc(3 * N, sizeof *es);
    assert_true(chain && on && es);
    uint32_t k = 0, ne = 0;
    for (uint32_t x = 0; x < N / 2; x += 1 + rnd_next(&seed) % 3)
        chain[k++] = x;
    for (uint32_t x = N - 1; x >= N / 2; x -= 1 + rnd_next(&seed) % 3)
        chain[k++] = x;
    for (uint32_t i = 0; i < k; i++)
        on[chain[i]] = 1;
    node_ix spare = 0; /* the first node off the chain: a leaf */
    while (on[spare])
        spare++;
    for (uint32_t i = 0; i + 1 < k; i++) {
        uint32_t how = rnd_next(&seed) % 3; /* 0: chain edge alone, 1: second, 2: first */
        if (how == 1)
            es[ne++] = (tedge){chain[i], spare, STRONG};
        es[ne++] = (tedge){chain[i], chain[i + 1], STRONG};
        if (how == 2)
            es[ne++] = (tedge){chain[i], spare, STRONG};
    }
    for (node_ix x = 0; x < N; x++) /* off the chain: edges to the leaf, or none */
        if (!on[x] && x != spare && rnd_next(&seed) % 2)
            es[ne++] = (tedge){x, spare, STRONG};
    const troot rs[] = {{chain[0], GRAPH_ROOT_JNI_GLOBAL, 0}};
    graph g;
    paths_result r;
    build(&g, N, es, ne, rs, 1, NULL);
    find(&g, NULL, NULL, 0, &r);
    node_ix *got = calloc(k, sizeof *got);
    assert_non_null(got);
    assert_int_equal(paths_get(&r, chain[k - 1], got, NULL, k), k);
    for (uint32_t i = 0; i < k; i++)
        assert_int_equal(got[i], chain[i]);
    assert_int_equal(paths_get(&r, chain[k - 1], NULL, NULL, 0), k);
    assert_int_equal(paths_depth(&r, chain[k - 1]), k - 1);
    assert_int_equal(paths_root_of(&r, chain[k - 1]), 0);
    check_get(&r, chain[k - 1]);
    check_get(&r, chain[k / 2]);
    check_get(&r, chain[k / 3]);
    free(got);
    paths_free(&r);
    graph_fini(&g);
    free(es);
    free(on);
    free(chain);
}

/* Every reached node's parent is the node whose entry (or graph edge, without a source)
 * reached it, whatever keeps it; roots have none; paths_parents agrees; depths add up;
 * paths_get gives the parents' chain. */
static void check_parents(const graph *g, const paths_result *r, rsrc *c)
{
    node_ix *all = malloc((size_t)g->n_nodes * sizeof *all);
    assert_non_null(all);
    paths_parents(r, all);
    for (node_ix y = 0; y < g->n_nodes; y++) {
        node_ix p = paths_parent(r, y);
        assert_int_equal(all[y], p);
        if (!paths_reached(r, y)) {
            assert_int_equal(p, GRAPH_NONE);
            continue;
        }
        uint32_t code = paths_edge(r, y);
        if (code == PATHS_FROM_ROOT) {
            assert_int_equal(p, GRAPH_NONE);
            assert_int_equal(paths_depth(r, y), 0);
            continue;
        }
        assert_int_not_equal(p, GRAPH_NONE);
        assert_int_equal(paths_depth(r, y), paths_depth(r, p) + 1);
        check_get(r, y);
        if (!c) {
            assert_true(code >= g->first_edge[p] && code < g->first_edge[p + 1]);
            assert_int_equal(g->edge_to[code], y);
            continue;
        }
        paths_list l;
        assert_int_equal(rsrc_edges(c, p, &l), 0);
        int found = 0;
        for (uint32_t i = 0; i < l.n; i++)
            if (l.to[i] == y && ((code & PATHS_VIRTUAL) && l.real[i] == GRAPH_NONE
                                     ? (code & ~PATHS_VIRTUAL) == i
                                     : l.real[i] == code))
                found = 1;
        assert_true(found);
    }
    free(all);
}

static void test_parents_random(void **state)
{
    (void)state;
    uint64_t seed = 0x5eed1234abcdULL;
    for (int round = 0; round < 60; round++) {
        uint32_t n = 2 + rnd_next(&seed) % 3000;
        uint32_t cap = n * 20 + 1000, ne = 0;
        tedge *es = malloc(cap * sizeof *es);
        assert_non_null(es);
        for (uint32_t x = 0; x < n; x++) {
            uint32_t kind = rnd_next(&seed) % 20, deg = 0;
            /* many nodes without edges, a few with hundreds (an edge block spans both) */
            if (kind >= 19)
                deg = 100 + rnd_next(&seed) % 300;
            else if (kind >= 8)
                deg = 1 + rnd_next(&seed) % 3;
            for (uint32_t k = 0; k < deg && ne < cap; k++)
                es[ne++] = (tedge){x, rnd_next(&seed) % n, STRONG};
        }
        uint32_t nr = 1 + rnd_next(&seed) % 8;
        troot rs[8];
        for (uint32_t i = 0; i < nr; i++)
            rs[i] = (troot){rnd_next(&seed) % n, GRAPH_ROOT_JNI_GLOBAL, 0};
        graph g;
        build(&g, n, es, ne, rs, nr, NULL);
        paths_result r;
        /* the graph's own edges: no parent is kept */
        find(&g, NULL, NULL, 0, &r);
        assert_null(r.parent);
        assert_int_equal(r.n_up, 0);
        check_parents(&g, &r, NULL);
        paths_free(&r);
        /* a source: few virtual entries stay a list, many become an array */
        for (uint32_t every = 1; every <= 64; every *= 8) {
            rsrc c = {.g = &g, .virt_every = every};
            paths_source src = {rsrc_edges, &c};
            paths_policy pol = {rsrc_policy, NULL, &c, &src, 0, 0};
            find(&g, &pol, NULL, 0, &r);
            if (every == 1 && n > 1000)
                assert_non_null(r.parent);
            check_parents(&g, &r, &c);
            paths_free(&r);
        }
        graph_fini(&g);
        free(es);
    }
}

/* ---- the traversal against a plain reference on random graphs ---- */

/* The search written out the plainest way: two queues as arrays of every push, a parent and
 * an edge code per node, the targets still queued found by reading both queues whole. What
 * paths.c does faster (prefetching, stored parents, a block index of the edges, the queued
 * targets found from their pushes) must give exactly this. */
typedef struct ref {
    uint32_t n;
    node_ix *parent;
    uint32_t *code;
    uint8_t *state, *via, *target;
    node_ix *qn, *ql, *order;
    uint32_t hn, tn, hl, tl, n_order;
    int visiting_last;
    uint32_t open, open_last;
} ref;

enum { R_UNSEEN, R_NORMAL, R_LAST, R_DONE };

static void ref_enqueue(ref *f, node_ix x, node_ix from, uint32_t code, int low, int via)
{
    int last = f->visiting_last || low;
    uint8_t s = f->state[x];
    if (s != R_UNSEEN && (s != R_LAST || last))
        return;
    if (f->target[x]) {
        if (s == R_LAST) {
            f->open_last--;
            f->open--;
        } else if (!last) {
            f->open--;
        } else if (!f->visiting_last) {
            f->open_last++;
        } else {
            f->open--;
        }
    }
    f->parent[x] = from;
    f->code[x] = code;
    f->via[x] = (uint8_t)(via || low);
    f->state[x] = last ? R_LAST : R_NORMAL;
    if (last)
        f->ql[f->tl++] = x;
    else
        f->qn[f->tn++] = x;
}

/* Roots: every entry in dump order (the test's roots share one kind and one class name). */
static void ref_run(ref *f, const graph *g, const paths_policy *pol, const node_ix *t,
                    uint32_t nt, int early)
{
    uint32_t n = g->n_nodes;
    memset(f, 0, sizeof *f);
    f->n = n;
    f->parent = malloc(n * sizeof *f->parent);
    f->code = malloc(n * sizeof *f->code);
    f->state = calloc(n, 1);
    f->via = calloc(n, 1);
    f->target = calloc(n, 1);
    f->qn = malloc(2 * (size_t)n * sizeof *f->qn);
    f->ql = malloc(2 * (size_t)n * sizeof *f->ql);
    f->order = malloc((nt + 1) * sizeof *f->order);
    assert_true(f->parent && f->code && f->state && f->via && f->target && f->qn && f->ql &&
                f->order);
    uint32_t n_distinct = 0;
    for (uint32_t i = 0; i < nt; i++)
        if (!f->target[t[i]]) {
            f->target[t[i]] = 1;
            n_distinct++;
        }
    f->open = n_distinct;
    for (uint32_t r = 0; r < g->n_roots; r++) {
        enum paths_edge_class c = pol->root(g, r, pol->ctx);
        if (c != PATHS_IGNORE)
            ref_enqueue(f, g->roots[r].node, GRAPH_NONE, PATHS_FROM_ROOT,
                        c == PATHS_VISIT_LAST, 0);
    }
    for (;;) {
        node_ix x;
        if (early && n_distinct > 0 && f->open == 0)
            break;
        if (f->hn < f->tn) {
            x = f->qn[f->hn++];
        } else if (f->hl < f->tl) {
            if (!f->visiting_last) {
                f->open -= f->open_last;
                f->open_last = 0;
            }
            f->visiting_last = 1;
            x = f->ql[f->hl++];
            if (f->state[x] != R_LAST)
                continue;
        } else {
            break;
        }
        f->state[x] = R_DONE;
        if (f->target[x]) {
            f->order[f->n_order++] = x;
            continue;
        }
        paths_list l;
        assert_int_equal(pol->source->edges(pol->source->ctx, x, &l), 0);
        for (uint32_t i = 0; i < l.n; i++) {
            node_ix y = l.to[i];
            uint8_t k = l.kind[i];
            if (y >= n || GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG ||
                GRAPH_EDGE_KIND(k) == GRAPH_EDGE_WEAK)
                continue;
            enum paths_edge_class c = pol->edge(g, x, i, pol->ctx);
            if (c == PATHS_IGNORE)
                continue;
            ref_enqueue(f, y, x, l.real[i] != GRAPH_NONE ? l.real[i] : PATHS_VIRTUAL | i,
                        c == PATHS_VISIT_LAST, f->via[x]);
        }
    }
    for (uint32_t i = f->hn; i < f->tn; i++)
        if (f->target[f->qn[i]] && f->state[f->qn[i]] != R_DONE) {
            f->order[f->n_order++] = f->qn[i];
            f->state[f->qn[i]] = R_DONE;
        }
    for (uint32_t i = f->hl; i < f->tl; i++)
        if (f->target[f->ql[i]] && f->state[f->ql[i]] != R_DONE) {
            f->order[f->n_order++] = f->ql[i];
            f->state[f->ql[i]] = R_DONE;
        }
}

static void ref_free(ref *f)
{
    free(f->parent);
    free(f->code);
    free(f->state);
    free(f->via);
    free(f->target);
    free(f->qn);
    free(f->ql);
    free(f->order);
}

/* A random graph's view: its real edges (some weak, some Java locals), and at some nodes a
 * run of virtual entries as long as a collection's. */
typedef struct vsrc {
    const graph *g;
    uint32_t virt_every, virt_len;
    node_ix *to;
    uint8_t *kind;
    edge_ix *real;
} vsrc;

static int vsrc_edges(void *ctx, node_ix x, paths_list *out)
{
    vsrc *c = ctx;
    const graph *g = c->g;
    uint32_t n = 0;
    if (c->virt_every && x % c->virt_every == 3)
        for (uint32_t k = 0; k < c->virt_len; k++) {
            c->to[n] = mix(x, k) % g->n_nodes;
            c->kind[n] = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
            c->real[n++] = GRAPH_NONE;
        }
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
        c->to[n] = g->edge_to[e];
        c->kind[n] = g->edge_kind[e];
        c->real[n++] = e;
    }
    *out = (paths_list){n, c->to, c->kind, c->real};
    return 0;
}

static enum paths_edge_class vsrc_policy(const graph *g, node_ix from, edge_ix pos, void *ctx)
{
    (void)g;
    (void)ctx;
    uint32_t h = mix(from, pos) % 16;
    return h == 0 ? PATHS_IGNORE : h < 4 ? PATHS_VISIT_LAST : PATHS_FOLLOW;
}

static enum paths_edge_class vsrc_root(const graph *g, uint32_t r, void *ctx)
{
    (void)g;
    (void)ctx;
    return r % 3 == 1 ? PATHS_VISIT_LAST : PATHS_FOLLOW;
}

/* Plain graph edges through the same reference: a source that lists the CSR. */
static int csr_edges(void *ctx, node_ix x, paths_list *out)
{
    vsrc *c = ctx;
    uint32_t keep = c->virt_every;
    c->virt_every = 0;
    int rc = vsrc_edges(ctx, x, out);
    c->virt_every = keep;
    return rc;
}

static enum paths_edge_class csr_policy(const graph *g, node_ix from, edge_ix e, void *ctx)
{
    return vsrc_policy(g, from, e - g->first_edge[from], ctx);
}

static enum paths_edge_class csr_ref_policy(const graph *g, node_ix from, edge_ix pos, void *ctx)
{
    return vsrc_policy(g, from, pos, ctx);
}

static void same_as_ref(const graph *g, const paths_result *r, const ref *f, int all_found,
                        int early, uint32_t n_targets)
{
    for (node_ix y = 0; y < g->n_nodes; y++) {
        assert_int_equal(paths_reached(r, y), f->state[y] != R_UNSEEN);
        if (f->state[y] == R_UNSEEN)
            continue;
        assert_int_equal(paths_edge(r, y), f->code[y]);
        assert_int_equal(paths_parent(r, y), f->parent[y]);
        assert_int_equal(paths_via_last(r, y) != 0, f->via[y]);
    }
    assert_int_equal(r->n_order, f->n_order);
    for (uint32_t i = 0; i < f->n_order; i++)
        assert_int_equal(r->order[i], f->order[i]);
    if (early && n_targets)
        assert_int_equal(all_found, f->open == 0);
}

static void test_reference_random(void **state)
{
    (void)state;
    uint64_t seed = 0x0dd5eed5ULL;
    for (int round = 0; round < 48; round++) {
        /* the last rounds are big and sparse: edge blocks far apart, two-pass sorts */
        int big = round >= 44;
        uint32_t n = big ? 150000 + rnd_next(&seed) % 250000 : 2 + rnd_next(&seed) % 4000;
        uint32_t cap = n * 4 + 2000, ne = 0;
        tedge *es = malloc(cap * sizeof *es);
        const char **names = malloc(n * sizeof *names);
        assert_true(es && names);
        for (uint32_t x = 0; x < n; x++) {
            names[x] = "C";
            uint32_t kind = rnd_next(&seed) % 40, deg = 0;
            if (kind == 39)
                deg = 50 + rnd_next(&seed) % 200;
            else if (kind >= (big ? 30u : 12u))
                deg = 1 + rnd_next(&seed) % 3;
            for (uint32_t k = 0; k < deg && ne < cap; k++) {
                uint32_t w = rnd_next(&seed) % 32;
                uint8_t ek = w == 0   ? GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_WEAK)
                             : w == 1 ? GRAPH_EDGE_MAKE(GRAPH_EDGE_WEAK, GRAPH_STRONG)
                             : w == 2 ? LOCAL
                                      : STRONG;
                es[ne++] = (tedge){x, rnd_next(&seed) % n, ek};
            }
        }
        uint32_t nr = 1 + rnd_next(&seed) % 12;
        troot rs[12];
        for (uint32_t i = 0; i < nr; i++)
            rs[i] = (troot){rnd_next(&seed) % n, GRAPH_ROOT_JNI_GLOBAL, 0};
        graph g;
        build(&g, n, es, ne, rs, nr, names);
        node_ix tg[40];
        uint32_t nt = rnd_next(&seed) % 40;
        for (uint32_t i = 0; i < nt; i++)
            tg[i] = rnd_next(&seed) % n; /* repeats allowed */
        uint32_t vlen = big ? 20000 : 1 + rnd_next(&seed) % 600;
        vsrc c = {&g, big ? 50000 : 1 + rnd_next(&seed) % 40, vlen, NULL, NULL, NULL};
        size_t most = (size_t)vlen + 260;
        c.to = malloc(most * sizeof *c.to);
        c.kind = malloc(most);
        c.real = malloc(most * sizeof *c.real);
        assert_true(c.to && c.kind && c.real);
        paths_source src = {vsrc_edges, &c}, csr = {csr_edges, &c};
        /* mode 2: the targets' search with the edge block index built beside it */
        for (int mode = 0; mode < 3; mode++) {
            int early = mode != 0;
            for (int with_src = 0; with_src < 2; with_src++) {
                paths_policy pol = {with_src ? vsrc_policy : csr_policy, vsrc_root, &c,
                                    with_src ? &src : NULL, 0, 0};
                paths_policy rpol = {with_src ? vsrc_policy : csr_ref_policy, vsrc_root, &c,
                                     with_src ? &src : &csr, 0, 0};
                paths_result r;
                lr_error err = {0};
                int all = 0;
                if (mode == 2)
                    assert_int_equal(
                        paths_find_targets_split(&g, &pol, tg, nt, 1, &r, &all, &err), LR_OK);
                else if (early)
                    assert_int_equal(paths_find_targets(&g, &pol, tg, nt, &r, &all, &err),
                                     LR_OK);
                else
                    assert_int_equal(paths_find(&g, &pol, tg, nt, &r, &err), LR_OK);
                ref f;
                ref_run(&f, &g, &rpol, tg, nt, early);
                same_as_ref(&g, &r, &f, all, early, nt);
                ref_free(&f);
                paths_free(&r);
            }
        }
        free(c.to);
        free(c.kind);
        free(c.real);
        graph_fini(&g);
        free(es);
        free(names);
    }
}

/* Page faults of one traversal of a graph of SPREAD_N nodes whose root reaches `pages` nodes
 * 4096 apart (so each in a page of flags of its own, and of the edge codes). */
#define SPREAD_N (1600u * 4096u + 2u)
static long spread_faults(uint32_t pages)
{
    lr_error err = {0};
    graph g;
    graph_init(&g);
    assert_int_equal(graph_alloc_nodes(&g, SPREAD_N, 0, &err), LR_OK);
    g.classes = calloc(1, sizeof *g.classes);
    assert_non_null(g.classes);
    g.n_classes = 1;
    assert_int_equal(graph_intern(&g, "C", 1, &g.classes[0].name, &err), LR_OK);
    g.classes[0].node = GRAPH_NONE;
    g.classes[0].super = GRAPH_NONE;
    memset(g.node_class, 0, SPREAD_N * sizeof *g.node_class);
    memset(g.node_kind, GRAPH_KIND_INSTANCE, SPREAD_N);
    memset(g.node_type, 0, SPREAD_N);
    g.node_id[0] = 0x100;
    g.node_size[0] = 16;
    g.node_off[0] = UINT64_MAX;
    g.node_len[0] = 0;
    assert_int_equal(graph_alloc_edges(&g, pages, &err), LR_OK);
    for (uint32_t i = 1; i <= SPREAD_N; i++)
        g.first_edge[i] = pages;
    for (uint32_t k = 0; k < pages; k++) {
        g.edge_to[k] = (k + 1) * 4096u;
        g.edge_name[k] = 0;
        g.edge_kind[k] = STRONG;
    }
    g.roots = calloc(1, sizeof *g.roots);
    assert_non_null(g.roots);
    g.n_roots = 1;
    g.roots[0] = (graph_root){0, GRAPH_ROOT_JNI_GLOBAL, 0, -1};
    paths_result r;
    long f0 = minflt();
    find(&g, NULL, NULL, 0, &r);
    long f = minflt() - f0;
    assert_int_equal(paths_depth(&r, pages * 4096u), 1);
    assert_int_equal(paths_depth(&r, pages * 4096u + 1), UINT32_MAX);
    paths_free(&r);
    graph_fini(&g);
    return f;
}

/* The flags of a node are read (is it seen?) before they are written: each page of the
 * calloc'd array must be taken by a write, one fault, not the shared zero page at the read
 * and a copy-on-write fault at the write. Per reached node here: its flags page and its
 * edge code page, so 2 faults (3 when flags pages are read first; AddressSanitizer's shadow
 * pages, read first, add 5/8). The fixed costs cancel out in the difference of two runs. */
/* ---- stored parents split when the search stops early ---- */

/* A source of virtual entries only: 0 (the root) lists X at visit-last priority, then P,
 * then M; P lists X (which promotes it: its second stored parent); M lists the SPLIT_K
 * nodes E_i = SPLIT_E + i; X lists T, the target. */
enum { SPLIT_P = 1, SPLIT_M = 2, SPLIT_X = 3, SPLIT_T = 4, SPLIT_E = 5, SPLIT_K = 1000 };

typedef struct split_src {
    node_ix to[SPLIT_K];
    uint8_t kind[SPLIT_K];
    edge_ix real[SPLIT_K];
} split_src;

static int split_edges(void *ctx, node_ix x, paths_list *out)
{
    split_src *c = ctx;
    uint32_t n = 0;
    if (x == 0) {
        c->to[n++] = SPLIT_X;
        c->to[n++] = SPLIT_P;
        c->to[n++] = SPLIT_M;
    } else if (x == SPLIT_P) {
        c->to[n++] = SPLIT_X;
    } else if (x == SPLIT_X) {
        c->to[n++] = SPLIT_T;
    } else if (x == SPLIT_M) {
        for (uint32_t i = 0; i < SPLIT_K; i++)
            c->to[n++] = SPLIT_E + i;
    }
    for (uint32_t i = 0; i < n; i++) {
        c->kind[i] = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
        c->real[i] = GRAPH_NONE;
    }
    *out = (paths_list){n, c->to, c->kind, c->real};
    return 0;
}

static enum paths_edge_class split_policy(const graph *g, node_ix from, edge_ix pos, void *ctx)
{
    (void)g;
    (void)ctx;
    return from == 0 && pos == 0 ? PATHS_VISIT_LAST : PATHS_FOLLOW;
}

/* The search stops once T is reached, with M's entries still queued (n_up under N/8): the
 * stored parents of the nodes taken out of the queues (P, M, X) and of the target are split
 * off, the rest sorted at their first lookup. X's parent is its last stored one (P, the
 * promotion), and each E_i still has M and its position. */
static void test_stored_parents_split(void **state)
{
    (void)state;
    const troot rs[] = {{0, GRAPH_ROOT_JNI_GLOBAL, 0}};
    graph g;
    /* nodes never reached after the E_i, so that their stored parents stay a list */
    build(&g, SPLIT_E + 16 * SPLIT_K, NULL, 0, rs, 1, NULL);
    split_src c;
    paths_source src = {split_edges, &c};
    paths_policy pol = {split_policy, NULL, NULL, &src, 0, 0};
    node_ix t = SPLIT_T;
    paths_result r;
    lr_error err = {0};
    int all = 0;
    assert_int_equal(paths_find_targets(&g, &pol, &t, 1, &r, &all, &err), LR_OK);
    assert_true(all);
    assert_int_equal(r.n_hot, 4); /* P, M, X, T */
    assert_true(r.up_cold);
    node_ix p[8];
    edge_ix e[8];
    assert_int_equal(paths_get(&r, SPLIT_T, p, e, 8), 4);
    assert_int_equal(p[1], SPLIT_P);
    assert_int_equal(p[2], SPLIT_X);
    assert_int_equal(e[0], PATHS_VIRTUAL | 1);
    assert_int_equal(e[1], PATHS_VIRTUAL | 0);
    assert_int_equal(e[2], PATHS_VIRTUAL | 0);
    assert_false(paths_via_last(&r, SPLIT_X));
    assert_true(r.up_cold); /* no node outside the split asked yet */
    for (uint32_t i = 0; i < SPLIT_K; i++) {
        assert_int_equal(paths_parent(&r, SPLIT_E + i), SPLIT_M);
        assert_int_equal(paths_edge(&r, SPLIT_E + i), PATHS_VIRTUAL | i);
        assert_int_equal(paths_depth(&r, SPLIT_E + i), 2);
    }
    assert_false(r.up_cold);
    assert_int_equal(paths_parent(&r, SPLIT_X), SPLIT_P);
    paths_free(&r);
    graph_fini(&g);
}

static void test_flags_written_first(void **state)
{
    (void)state;
    long a = spread_faults(400), b = spread_faults(1600);
    double per = (double)(b - a) / 1200;
    if (per < 1.5)
        skip(); /* pages not faulted one at a time (huge pages) */
    assert_true(per < 2.8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bfs_shortest),
        cmocka_unit_test(test_visit_last_priority),
        cmocka_unit_test(test_promotion),
        cmocka_unit_test(test_low_root_promoted_and_last_phase),
        cmocka_unit_test(test_ignore_and_weak),
        cmocka_unit_test(test_targets_are_leaves),
        cmocka_unit_test(test_root_order),
        cmocka_unit_test(test_java_frames_and_edge_ties),
        cmocka_unit_test(test_synthetic_root),
        cmocka_unit_test(test_wide_frontier),
        cmocka_unit_test(test_root_entry_promoted),
        cmocka_unit_test(test_edge_source),
        cmocka_unit_test(test_parents_random),
        cmocka_unit_test(test_long_chain_layout),
        cmocka_unit_test(test_reference_random),
        cmocka_unit_test(test_flags_written_first),
        cmocka_unit_test(test_stored_parents_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
