/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_leaks.c: `leakray leaks --baseline A --target B --final C` (cli), prefix leaks_cmd_.
 * memlab's three-snapshot method on V8, Node and ArkTS heaps: the leaked set is the objects
 * whose node id is in the target but not in the baseline (allocated during the action) and
 * still present in the final snapshot (survived the cleanup). Only fingerprints (ids and
 * class hashes, analysis/kinship.h) are kept of the baseline and target (loaded without
 * edges, one at a time); the final snapshot is analysed in full.
 * Filters (documented in docs/rules.md): objects unreachable in the final snapshot, VM
 * internals (cluster rule `internal`/`none` directories) and `leak-ignore` directories
 * (strings, backing stores, numbers) are dropped. The rest are clustered by the ArkTS method
 * (the final snapshot's rules: rules/v8.rules or rules/arkts.rules) and reported with exact
 * counts and exact retained sizes: a cluster's retained size, and the total, count each byte
 * once (members dominated by other members add nothing).
 * report/leaks.h renders the result. */
#include "cmd_clusters.h"
#include "base/search.h"
#include "report/leaks.h"

#include "analysis/kinship.h"
#include "analysis/leakfind.h"
#include "format/ruby.h"
#include "format/v8.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Index of the first object of p whose id is id, or p->n_objs (p->objs is sorted by id). */
static uint64_t leaks_cmd_find(const kin_print *p, uint64_t id)
{
    uint64_t lo;
    SEARCH_LOWER_BOUND(uint64_t, 0, p->n_objs, p->objs[search_mid].id < id, lo);
    return lo < p->n_objs && p->objs[lo].id == id ? lo : p->n_objs;
}

/* The fingerprint of path in *kp (free: kin_print_free): its objects sorted by id are all the
 * ids the comparison needs, so no graph outlives this call. Returns 0 or the exit code (error
 * printed). */
static int leaks_cmd_print(cli_common *co, const char *path, kin_print *kp)
{
    lr_heap *h;
    int rc = cli_open(co, path, CLI_OPEN_NO_EDGES, &h);
    if (rc)
        return rc;
    const graph *g = lr_heap_graph(h);
    if (!graph_has_ids(g)) {
        /* The HPROF reader keeps no ids without edges (histo streaming): load it in full. */
        lr_close(h);
        if ((rc = cli_open(co, path, 0, &h)) != 0)
            return rc;
        g = lr_heap_graph(h);
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    lr_status s = kin_print_build(g, lr_heap_format(h), kp, &err);
    lr_close(h);
    return s == LR_OK ? 0 : cli_error(co, &err);
}

/* Whether the object at p->objs[i] is still the object of that id in q. A writer may hand a
 * dead object's id to a new one: V8 for an object allocated where one died, HotSpot for an
 * object allocated over the filler that made a thread's allocation buffer walkable at the
 * dump, Ruby for an object allocated in a freed heap slot. So q must have the id, of the same
 * kind: in an HPROF or Ruby dump of the same class; in a V8
 * snapshot, for a JavaScript object or closure, with the same constructor or function name.
 * Other V8 objects are followed by id alone, as memlab does: their DevTools class follows
 * their state ("{a, b}" their properties, "Detached <div>" a DOM node once removed). */
static int leaks_cmd_kept(const kin_print *p, uint64_t i, const kin_print *q)
{
    uint64_t j = leaks_cmd_find(q, p->objs[i].id);
    if (j == q->n_objs)
        return 0;
    const kin_obj *a = &p->objs[i], *b = &q->objs[j];
    if (!strcmp(p->format, "hprof"))
        return a->cls == b->cls;
    /* Ruby: an object made in the slot one of its class left has another birth, where both
     * dumps tell it (traced allocations) */
    if (!strcmp(p->format, "ruby"))
        return a->cls == b->cls && (!a->js || !b->js || a->js == b->js);
    return a->js == b->js;
}

/* The target's new objects, a bit per object of kt (whose id the baseline kb lacks, or names
 * an object of another class there), and their count in *n_new. A bit per object instead of
 * a sorted copy of the new ids: 8 bytes per object less while the final snapshot loads. NULL
 * when out of memory. */
static uint64_t *leaks_cmd_new(const kin_print *kb, const kin_print *kt, uint64_t *n_new)
{
    uint64_t *bits = err_calloc(kt->n_objs / 64 + 1, sizeof *bits);
    if (!bits)
        return NULL;
    uint64_t n = 0;
    for (uint64_t i = 0; i < kt->n_objs; i++)
        if (!leaks_cmd_kept(kt, i, kb)) {
            bits[i / 64] |= 1ull << (i % 64);
            n++;
        }
    *n_new = n;
    return bits;
}

/* Whether id names one object in p and q: both have it, with one class (leaks_cmd_kept). */
static int leaks_cmd_same(const kin_print *p, const kin_print *q, uint64_t id)
{
    uint64_t i = leaks_cmd_find(p, id);
    return i < p->n_objs && leaks_cmd_kept(p, i, q);
}

/* Objects the later side must have alone (and the earlier side 3) before their ids tell the
 * order. */
#define LEAKS_CMD_ORDER_SAMPLE 20

/* a given as taken before b, which the ids deny (why): refused, or warned under --force.
 * Returns 0 or the exit code (error printed). */
static int leaks_cmd_misordered(cli_common *co, const char *a, const char *b, const char *why,
                                int force)
{
    if (!force)
        return cli_fail(co, LR_ERR_USAGE, "%s looks taken after %s: %s; give the snapshots "
                        "in the order they were taken (--force runs the method anyway)", a, b,
                        why);
    cli_warn(co, "%s looks taken after %s; compared as asked (--force)", a, b);
    return 0;
}

/* The newest JavaScript id of p (objs are sorted by id), 0 when it has none. */
static uint64_t leaks_cmd_max_js(const kin_print *p)
{
    for (uint64_t i = p->n_objs; i-- > 0;)
        if (KIN_IS_JS(&p->objs[i]))
            return p->objs[i].id;
    return 0;
}

/* The order of two snapshots of a program that only grew between them: the earlier one has
 * too few objects of its own (dead by the later) for leaks_cmd_order's median, but the later
 * one's own objects (new) were all numbered after every object the earlier one holds. Given
 * reversed (a the later), most of a's own lie above b's newest id while none of b's own lies
 * above a's. In order that takes b holding no new JavaScript object at all: asked of the
 * baseline and the target only, whose action made the leak (a final snapshot after an undo
 * often has none), and --force is there. own_a: a's own JavaScript objects. */
static int leaks_cmd_order_grown(cli_common *co, const char *a, const kin_print *ka,
                                 const char *b, const kin_print *kb, uint64_t own_a, int force)
{
    uint64_t max_a = leaks_cmd_max_js(ka), max_b = leaks_cmd_max_js(kb), above = 0;
    if (own_a < LEAKS_CMD_ORDER_SAMPLE)
        return 0;
    for (uint64_t i = 0; i < kb->n_objs; i++)
        if (KIN_IS_JS(&kb->objs[i]) && kb->objs[i].id > max_a &&
            leaks_cmd_find(ka, kb->objs[i].id) == ka->n_objs)
            return 0; /* b holds an object numbered after all of a's: b is the later */
    for (uint64_t i = 0; i < ka->n_objs; i++)
        above += KIN_IS_JS(&ka->objs[i]) && ka->objs[i].id > max_b &&
                 leaks_cmd_find(kb, ka->objs[i].id) == kb->n_objs;
    if (above * 2 <= own_a)
        return 0;
    char why[LR_ERROR_MSG_MAX];
    snprintf(why, sizeof why, "%llu of the %llu JavaScript objects only %s has were numbered "
             "after every object %s has (V8 numbers new objects upward)", (unsigned long long)above,
             (unsigned long long)own_a,
             a, b);
    return leaks_cmd_misordered(co, a, b, why, force);
}

/* The final snapshot given where it was taken before the target, for a program that only
 * grew (0 leaked passed a --fail-on-leak gate): the final one then holds none of the target's
 * new objects and nothing numbered after them, as a final snapshot after a perfect undo with
 * nothing new can too. What tells them apart: objects only the final one has, numbered before
 * the target's newest, are objects that died before the target was taken (refused); with
 * none, the user is told what the ids cannot tell (a file's time cannot: a checkout or a copy
 * sets it anew). */
static int leaks_cmd_final_older(cli_common *co, const char *target, const kin_print *kt,
                                 const uint64_t *fresh, const char *final, const kin_print *kf,
                                 int force)
{
    if (strcmp(kt->format, "v8") || strcmp(kf->format, "v8"))
        return 0;
    /* one of the target's new objects (since the baseline) alive in the final snapshot: it
     * was taken after them (Bun numbers objects otherwise, and its ordered snapshots hold
     * dead objects numbered before the target's newest) */
    for (uint64_t i = 0; i < kt->n_objs; i++)
        if ((fresh[i / 64] >> (i % 64) & 1) && leaks_cmd_find(kf, kt->objs[i].id) < kf->n_objs)
            return 0;
    uint64_t own_t = 0, kept = 0, own_f = 0, max_t = leaks_cmd_max_js(kt);
    for (uint64_t i = 0; i < kt->n_objs; i++)
        if (KIN_IS_JS(&kt->objs[i]) && leaks_cmd_find(kf, kt->objs[i].id) == kf->n_objs)
            own_t++;
        else if (KIN_IS_JS(&kt->objs[i]))
            kept++;
    for (uint64_t i = 0; i < kf->n_objs; i++) {
        if (KIN_IS_JS(&kf->objs[i]) && kf->objs[i].id > max_t)
            return 0; /* the final one holds an object numbered after all of the target's */
        /* numbered before the target's newest, absent from the target: dead by then */
        own_f += KIN_IS_JS(&kf->objs[i]) && leaks_cmd_find(kt, kf->objs[i].id) == kt->n_objs;
    }
    if (own_t < LEAKS_CMD_ORDER_SAMPLE || !kept)
        return 0;
    if (own_f) {
        char why[LR_ERROR_MSG_MAX];
        snprintf(why, sizeof why, "%s holds none of the %llu JavaScript objects only %s has "
                 "and nothing numbered after them, but %llu it numbered before them that %s "
                 "no longer has (V8 numbers new objects upward)", final,
                 (unsigned long long)own_t, target,
                 (unsigned long long)own_f, target);
        return leaks_cmd_misordered(co, target, final, why, force);
    }
    cli_warn(co, "%s holds none of the %llu JavaScript objects only %s has and nothing "
             "numbered after them: an undo that freed all of them, or a final snapshot taken "
             "before the target (then give them in order)", final, (unsigned long long)own_t,
             target);
    return 0;
}

/* Mistakes in the arguments that would pass a --fail-on-leak gate with "0 leaks": one
 * snapshot given twice (one file, or a copy), or two given in the wrong order. V8 numbers
 * objects upward as snapshots first see them: the objects only the later snapshot has (new
 * ones) were numbered after those only the earlier one has (dead ones). Measured on Node
 * (5,497 and 492 such objects, 833 and 267): in order, none of the later side's own objects
 * lies below the median id of the earlier side's own; reversed, 86-92 % do. Only JavaScript
 * objects and closures count: embedder objects' ids are hashes of their names, not a
 * sequence. (A few ids pass from a dead object to a new one: a share decides, never the
 * newest id.) A page's action that made and dropped DOM only gives no such object: the order
 * is not told there. Returns 0 or the exit code (error printed). */
static int leaks_cmd_order(cli_common *co, const char *a, const kin_print *ka,
                           const char *b, const kin_print *kb, int grown, int force)
{
    struct stat sa, sb;
    if (strcmp(a, "-") && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
        sa.st_ino == sb.st_ino)
        return cli_fail(co, LR_ERR_USAGE, "%s and %s are the same file: the method compares "
                        "snapshots taken before and after an action", a, b);
    /* a copy of one snapshot given as two: nothing only one of them has (a live page's or
     * process's next snapshot always has new objects; an HPROF dump's too: a copy passed
     * --fail-on-leak with "0 leaks") */
    uint64_t any_a = 0, any_b = 0;
    for (uint64_t i = 0; i < ka->n_objs && !any_a; i++)
        any_a = leaks_cmd_find(kb, ka->objs[i].id) == kb->n_objs;
    for (uint64_t i = 0; i < kb->n_objs && !any_b; i++)
        any_b = leaks_cmd_find(ka, kb->objs[i].id) == ka->n_objs;
    if (ka->n_objs && !any_a && !any_b) {
        if (!force)
            return cli_fail(co, LR_ERR_USAGE, "%s and %s hold the same objects: one snapshot "
                            "twice (a copy)? the method compares snapshots taken before and "
                            "after an action (--force runs it anyway)", a, b);
        cli_warn(co, "%s and %s hold the same objects; compared as asked (--force)", a, b);
        return 0;
    }
    if (ka->births && kb->births) {
        /* Ruby's generation is the GC count when the object was made: the later dump holds
         * the newest (traced dumps; they ran in the wrong order, exit 0 with one "leak") */
        uint32_t ma = 0, mb = 0;
        uint64_t same = 0; /* objects of both (one address, one birth): one process */
        for (uint64_t i = 0; i < ka->n_objs; i++) {
            ma = ka->objs[i].js > ma ? ka->objs[i].js : ma;
            uint64_t j = ka->objs[i].js ? leaks_cmd_find(kb, ka->objs[i].id) : kb->n_objs;
            same += j < kb->n_objs && kb->objs[j].js == ka->objs[i].js;
        }
        for (uint64_t i = 0; i < kb->n_objs; i++)
            mb = kb->objs[i].js > mb ? kb->objs[i].js : mb;
        if (ma <= mb || same < LEAKS_CMD_ORDER_SAMPLE)
            return 0; /* two processes count their collections apart: the process check says */
        char why[LR_ERROR_MSG_MAX];
        snprintf(why, sizeof why, "%s holds objects made at GC %u, after the newest of %s "
                 "(GC %u)", a, ma - 1, b, mb ? mb - 1 : 0);
        return leaks_cmd_misordered(co, a, b, why, force);
    }
    if (strcmp(ka->format, "v8") || strcmp(kb->format, "v8"))
        return 0; /* the order test reads V8's ids, numbered as objects are first seen */
    uint64_t own_a = 0, own_b = 0, older = 0, mid = 0;
    for (uint64_t i = 0; i < ka->n_objs; i++)
        own_a += KIN_IS_JS(&ka->objs[i]) && leaks_cmd_find(kb, ka->objs[i].id) == kb->n_objs;
    for (uint64_t i = 0, k = 0; i < ka->n_objs && own_a; i++)
        if (KIN_IS_JS(&ka->objs[i]) && leaks_cmd_find(kb, ka->objs[i].id) == kb->n_objs &&
            k++ == own_a / 2) {
            mid = ka->objs[i].id; /* objs are sorted by id: the median */
            break;
        }
    for (uint64_t i = 0; i < kb->n_objs; i++)
        if (KIN_IS_JS(&kb->objs[i]) && leaks_cmd_find(ka, kb->objs[i].id) == ka->n_objs) {
            own_b++;
            older += kb->objs[i].id < mid;
        }
    if (own_a < 3 || own_b < LEAKS_CMD_ORDER_SAMPLE || older * 2 <= own_b)
        return grown ? leaks_cmd_order_grown(co, a, ka, b, kb, own_a, force) : 0;
    char why[LR_ERROR_MSG_MAX];
    snprintf(why, sizeof why, "%llu of the %llu JavaScript objects only %s has were numbered "
             "before most of those only %s has (V8 numbers new objects upward)",
             (unsigned long long)older,
             (unsigned long long)own_b, b, a);
    return leaks_cmd_misordered(co, a, b, why, force);
}

/* Whether id is one of the target's new objects (leaks_cmd_new). Equal ids share the bit
 * value (it depends on the id only), so the first object with the id answers. */
static int leaks_cmd_is_new(const kin_print *kt, const uint64_t *bits, uint64_t id)
{
    uint64_t i = leaks_cmd_find(kt, id);
    return i < kt->n_objs && (bits[i / 64] >> (i % 64) & 1);
}

/* The classes whose objects the writer renumbers in every snapshot: the baseline has
 * objects of the class, and not one of the target's is the same object there. Node's
 * embedder objects are so (IsolateData, PrincipalRealm, its AliasedBuffers: new ids in each
 * snapshot), and without a final snapshot every one of them read as leaked: 30 of the 32
 * clusters of a program that leaks nothing. A bit per entry of kt->cls. NULL when out of
 * memory. */
static uint8_t *leaks_cmd_renumbered(const kin_print *kb, const kin_print *kt,
                                     const uint64_t *fresh)
{
    uint8_t *kept = err_calloc(kt->n_cls ? kt->n_cls : 1, 1);
    if (!kept)
        return NULL;
    for (uint64_t i = 0; i < kt->n_objs; i++) {
        if (fresh[i / 64] >> (i % 64) & 1)
            continue;
        uint32_t h = kt->objs[i].cls, k;
        SEARCH_LOWER_BOUND(uint32_t, 0, kt->n_cls, kt->cls[search_mid] < h, k);
        if (k < kt->n_cls && kt->cls[k] == h)
            kept[k] = 1;
    }
    for (uint32_t k = 0; k < kt->n_cls; k++) {
        uint32_t j;
        SEARCH_LOWER_BOUND(uint32_t, 0, kb->n_cls, kb->cls[search_mid] < kt->cls[k], j);
        kept[k] = !kept[k] && j < kb->n_cls && kb->cls[j] == kt->cls[k];
    }
    return kept;
}

/* Whether native object id of kt is of a class renumbered in each snapshot (the bits of
 * leaks_cmd_renumbered). */
static int leaks_cmd_is_renumbered(const kin_print *kt, const uint8_t *renum, uint64_t id)
{
    uint64_t i = leaks_cmd_find(kt, id);
    if (i >= kt->n_objs)
        return 0;
    uint32_t h = kt->objs[i].cls, k;
    SEARCH_LOWER_BOUND(uint32_t, 0, kt->n_cls, kt->cls[search_mid] < h, k);
    return k < kt->n_cls && kt->cls[k] == h && renum[k];
}

/* Whether new object v of the target is left out as renumbered: outside a browser page, a
 * native object of a class leaks_cmd_renumbered found. No id follows such an object, so the
 * final snapshot cannot either: an id it gives another object there (Node's embedder ids
 * come from addresses, which the allocator reuses) kept three of them in one run.
 * Counted in *n. */
static int leaks_cmd_skip_renumbered(const graph *g, node_ix v, int on,
                                     const kin_print *kt, const uint8_t *renum, uint64_t *n)
{
    if (!on || g->node_kind[v] != GRAPH_KIND_NATIVE ||
        !leaks_cmd_is_renumbered(kt, renum, graph_node_id(g, v)))
        return 0;
    ++*n;
    return 1;
}

static int leaks_cmd_u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Where each cluster's objects were made, the REP_CLUSTER_SITES sites of most members per
 * cluster, most first (Ruby dumps taken under trace_object_allocations_start: heapy's view,
 * by file and line, for each leak). *out stays NULL when no member has a site. Returns 0,
 * or -1 when out of memory. */
static int leaks_cmd_sites(const graph *g, const cluster_result *r, rep_cluster_site **out)
{
    *out = NULL;
    if (!r->node_item || !r->n)
        return 0;
    uint64_t m = 0;
    for (node_ix v = 0; v < g->n_nodes; v++)
        m += r->node_item[v] != CLUSTER_NONE && ruby_site_of(g, v) != 0;
    if (!m)
        return 0;
    uint64_t *key = err_mallocarray(m, sizeof *key); /* cluster << 32 | site */
    rep_cluster_site *s = err_calloc((size_t)r->n * REP_CLUSTER_SITES, sizeof *s);
    if (!key || !s) {
        free(key);
        free(s);
        return -1;
    }
    m = 0;
    for (node_ix v = 0; v < g->n_nodes; v++) {
        uint32_t site = r->node_item[v] != CLUSTER_NONE ? ruby_site_of(g, v) : 0;
        if (site)
            key[m++] = (uint64_t)r->node_item[v] << 32 | site;
    }
    qsort(key, m, sizeof *key, leaks_cmd_u64_cmp);
    for (uint64_t i = 0, j; i < m; i = j) {
        for (j = i; j < m && key[j] == key[i]; j++)
            ;
        rep_cluster_site *top = &s[(size_t)(key[i] >> 32) * REP_CLUSTER_SITES];
        const ruby_site *rs = ruby_site_get(g, (uint32_t)key[i]);
        uint64_t count = j - i;
        int k = REP_CLUSTER_SITES;
        while (k > 0 && top[k - 1].count < count) /* ties: the earlier site stays first */
            k--;
        if (!rs || k == REP_CLUSTER_SITES)
            continue;
        memmove(&top[k + 1], &top[k], (REP_CLUSTER_SITES - 1 - k) * sizeof *top);
        top[k] = (rep_cluster_site){rs->file, rs->method, rs->line, count};
    }
    free(key);
    *out = s;
    return 0;
}

/* memlab's method follows each object by its id from one snapshot to the next; a writer
 * that renumbers its objects in every snapshot (Bun) leaves nothing to follow, and the
 * answer would be "no leak" whatever leaked. Returns 0 (ids usable, or --force: warned) or
 * the exit code (error printed). */
static int leaks_cmd_ids(cli_common *co, const char *a, const char *b, const char *format,
                         const kin_stats *ks, int force)
{
    /* An HPROF id is an address, and a collection that moves objects (every default
     * collector of HotSpot and ART) leaves old objects at new ids and new ones at old ids:
     * an id naming an object of another class after it proves it. */
    if (!ks->ids_renumbered && ks->hprof &&
        ks->ids_same_class + ks->ids_refilled < ks->ids_shared) {
        uint64_t moved = ks->ids_shared - ks->ids_same_class - ks->ids_refilled;
        if (!force)
            return cli_fail(co, LR_ERR_USAGE,
                            "%s and %s: %llu of the %llu object ids in both name objects of "
                            "another class: the collector moved objects between the dumps, "
                            "and an HPROF id is an address, so no object can be followed and "
                            "the method would report old objects as new and miss new ones; "
                            "compare them per class with `leakray diff`, or dump under a "
                            "collector that does not move objects (-XX:+UseEpsilonGC) "
                            "(--force runs the method anyway)",
                            a, b, (unsigned long long)moved, (unsigned long long)ks->ids_shared);
        cli_warn(co, "%s and %s: objects moved between the dumps; compared as asked (--force)",
                 a, b);
        return 0;
    }
    if (!ks->ids_renumbered)
        return 0;
    /* a Ruby id is an address, which one process never renumbers */
    if (!force && !strcmp(format, "ruby"))
        return cli_fail(co, LR_ERR_USAGE,
                        "%s and %s: hardly an object of one is at its address in the other: "
                        "dumps of two processes, or GC.compact ran between them, so no "
                        "object can be followed; compare them per class with `leakray diff` "
                        "(--force runs the method anyway)",
                        a, b);
    if (!force)
        return cli_fail(co, LR_ERR_USAGE,
                        "%s and %s: the writer numbers objects afresh in every snapshot "
                        "(Bun does), so no object can be followed from one to the next and "
                        "every leak would go unseen; compare them per class with `leakray "
                        "diff` (--force runs the method anyway)",
                        a, b);
    cli_warn(co, "%s and %s: object ids renumbered, no object can be followed; compared as "
                 "asked (--force)", a, b);
    return 0;
}

/* The new objects present in the final snapshot (sel) that no path from a root reaches and
 * that the filters would otherwise keep (not internal, not `leak-ignore`, not synthetic):
 * their count and bytes, and the REP_LEAKS_UNRETAINED_MAX classes with most of them in
 * out[0..*n_out). A class-indexed tally: O(N + classes). Returns 0 or -1 (out of memory). */
static int leaks_cmd_unretained(const cluster_ctx *c, const uint8_t *sel,
                                rep_leaks_unretained *out, uint32_t *n_out, uint64_t *count,
                                uint64_t *shallow)
{
    const graph *g = c->g;
    uint32_t nc = g->n_classes;
    rep_leaks_unretained *t = err_calloc(nc ? nc : 1, sizeof *t);
    if (!t)
        return -1;
    *count = *shallow = 0;
    for (node_ix v = 0; v < g->n_nodes; v++) {
        uint32_t d = c->node_dir[v];
        if (!sel[v] || c->node_chain[v] != CLUSTER_NONE ||
            g->node_kind[v] == GRAPH_KIND_SYNTHETIC || c->dir_by[d] == CRULES_BY_NONE ||
            c->dir_by[d] == CRULES_BY_INTERNAL || c->dir_leak_ignore[d])
            continue;
        /* as clusters count shallow sizes: ArkTS native sizes included */
        uint64_t sz = (uint64_t)graph_node_size(g, v) + (g->node_native ? g->node_native[v] : 0);
        (*count)++;
        *shallow += sz;
        class_ix k = graph_node_class(g, v);
        if (k < nc) {
            t[k].count++;
            t[k].shallow += sz;
        }
    }
    /* selection of the biggest tallies: a few passes over the classes, no sort */
    *n_out = 0;
    for (uint32_t i = 0; i < REP_LEAKS_UNRETAINED_MAX; i++) {
        uint32_t best = nc;
        for (uint32_t k = 0; k < nc; k++)
            if (t[k].count && (best == nc || t[k].count > t[best].count))
                best = k;
        if (best == nc)
            break;
        out[i] = (rep_leaks_unretained){graph_str(g, g->classes[best].name), t[best].count,
                                        t[best].shallow};
        t[best].count = 0;
        (*n_out)++;
    }
    free(t);
    return 0;
}

#define LEAKS_CMD_UNSET (GRAPH_NONE - 1) /* head[] not computed yet */

/* memlab's trace clustering ends each leaked object's trace at its first detached node or
 * unmounted fiber from the root (stop[]), so every object under a leaked detached tree shares
 * the tree root's trace: here each leaked object whose shortest chain (c->parent) passes
 * through another leaked stop node is folded into the first such node (head[v] = that node,
 * sel[v] cleared); the rest keep head[v] = v or GRAPH_NONE. head and stack have g->n_nodes
 * entries.
 * The chains are walked once each (memo in head, explicit stack): O(N). */
static void leaks_cmd_fold(const cluster_ctx *c, const uint8_t *stop, const uint8_t *leak,
                           uint8_t *sel, node_ix *head, node_ix *stack)
{
    const graph *g = c->g;
    uint32_t n = g->n_nodes;
    /* first pass: head[x] = the first leaked stop node on x's chain, GRAPH_NONE if none */
    for (node_ix x = 0; x < n; x++)
        head[x] = LEAKS_CMD_UNSET;
    for (node_ix v = 0; v < n; v++) {
        if (!leak[v] || head[v] != LEAKS_CMD_UNSET)
            continue;
        uint32_t k = 0;
        node_ix x = v;
        while (x != GRAPH_NONE && head[x] == LEAKS_CMD_UNSET) {
            stack[k++] = x;
            x = c->parent[x];
        }
        node_ix h = x == GRAPH_NONE ? GRAPH_NONE : head[x];
        while (k) {
            node_ix y = stack[--k];
            if (h == GRAPH_NONE && stop[y] && leak[y])
                h = y;
            head[y] = h;
        }
    }
    for (node_ix v = 0; v < n; v++)
        if (leak[v] && head[v] != GRAPH_NONE && head[v] != v)
            sel[v] = 0;
}

/* memlab's retained size of a cluster: the retained sizes of its leaked objects (folded ones
 * included) that no other of them dominates. item[v] is v's cluster (CLUSTER_NONE) for the
 * leaked v; near (g->n_nodes entries, scratch) memoises each node's nearest leaked dominator,
 * so the dominator tree is walked once; a leaked object then looks past the leaked
 * dominators of other clusters only. Overwrites r's retained sizes. */
static void leaks_cmd_memlab_sizes(const graph *g, const dom_tree *t, const uint8_t *leak,
                                   const uint32_t *item, node_ix *near, cluster_result *r)
{
    uint32_t n = g->n_nodes;
    for (node_ix x = 0; x < n; x++)
        near[x] = LEAKS_CMD_UNSET;
    /* near[x]: x itself when leaked, else its nearest leaked dominator (GRAPH_NONE) */
    for (node_ix x = 0; x < n; x++) {
        node_ix y = x, top = GRAPH_NONE;
        while (y < n && near[y] == LEAKS_CMD_UNSET && !leak[y])
            y = t->idom[y];
        top = y < n ? (leak[y] ? y : near[y]) : GRAPH_NONE;
        for (y = x; y < n && near[y] == LEAKS_CMD_UNSET && !leak[y]; y = t->idom[y])
            near[y] = top;
        if (leak[x])
            near[x] = x;
    }
    for (uint32_t i = 0; i < r->n; i++)
        r->items[i].retained = 0;
    r->members_retained = 0;
    for (node_ix v = 0; v < n; v++) {
        if (!leak[v] || item[v] == CLUSTER_NONE)
            continue;
        node_ix d = t->idom[v] < n ? near[t->idom[v]] : GRAPH_NONE;
        int inside = 0, any = 0;
        for (; d != GRAPH_NONE && d < n; d = t->idom[d] < n ? near[t->idom[d]] : GRAPH_NONE) {
            any |= item[d] != CLUSTER_NONE;
            if (item[d] == item[v]) {
                inside = 1;
                break;
            }
        }
        if (!inside)
            r->items[item[v]].retained += t->retained[v];
        if (!any)
            r->members_retained += t->retained[v];
    }
}

int cmd_leaks(int argc, char **argv)
{
    const char *base = NULL, *target = NULL, *final = NULL, *sort = "size";
    uint64_t top = 20;
    int fail_on_leak = 0, detached = 0, force = 0, all = 0, allow_truncated = 0;
    cli_strlist rules = {0};
    const cli_optdef opts[] = {
        {"--baseline", CLI_OPT_STR, &base, "FILE", "snapshot before the action (required)",
         NULL},
        {"--target", CLI_OPT_STR, &target, "FILE", "snapshot after the action (required)",
         NULL},
        {"--final", CLI_OPT_STR, &final, "FILE",
         "snapshot after reverting the action (default: the target)", NULL},
        {"--sort", CLI_OPT_STR, &sort, "KEY",
         "size (retained bytes, the default) or count",
         "size|count"},
        {"--top", CLI_OPT_UINT, &top, "N", "clusters to show (default 20, 0 = all)", NULL},
        {"--fail-on-leak", CLI_OPT_FLAG, &fail_on_leak, NULL, "exit 1 when anything leaked",
         NULL},
        {"--allow-truncated", CLI_OPT_FLAG, &allow_truncated, NULL,
         "with --fail-on-leak, judge snapshots that were cut short like complete ones", NULL},
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "only detached DOM nodes (V8 browser snapshots)", NULL},
        {"--trace-all-objects", CLI_OPT_FLAG, &all, NULL,
         "every new object alive in final, not memlab's leak filter (browser snapshots)", NULL},
        {"--force", CLI_OPT_FLAG, &force, NULL,
         "compare snapshots that look like two processes (formats must still match)", NULL},
        {"--rules", CLI_OPT_LIST, &rules, "FILE",
         "extra cluster rules (docs/rules.md), before the shipped v8.rules, hprof.rules or "
         "arkts.rules",
         NULL},
        {0},
    };
    const cli_spec spec = {
        "leaks", "", "Objects allocated in the target and still alive in the final snapshot.",
        opts, 0, 0,
        "memlab's method: leaked = ids(target) - ids(baseline), present in final. On a\n"
        "browser page's snapshots memlab's default leak filter then applies: detached DOM\n"
        "the page holds, unmounted React fibers, stack trace frames; each object under a\n"
        "leaked detached tree counts on its tree root's trace, and the roots are clustered\n"
        "(memlab's \"similar leaks\"). Elsewhere (Node.js, ArkTS, HPROF), or with\n"
        "--trace-all-objects, every new object is reported but those unreachable in the\n"
        "final snapshot, VM internals, strings, backing stores and numbers (docs/rules.md).\n"
        "Leaks are grouped by origin with the ArkTS clustering method; counts and retained\n"
        "sizes are exact (no sampling, no byte counted twice). Clusters whose objects are\n"
        "held by another cluster's objects are marked \"nested in #N\". The three snapshots\n"
        "must have one format and come from one process, whose writer keeps each\n"
        "object's id (Bun renumbers them in every snapshot), given in the order they\n"
        "were taken; else exit 2. An HPROF id is an address: dumps between which the\n"
        "collector moved objects (any default HotSpot or ART collector) are refused;\n"
        "compare them with `leakray diff`, or dump under -XX:+UseEpsilonGC. A Ruby id is\n"
        "a slot the GC gives again: a new object in the slot one of its class left reads\n"
        "as that one, and counts may be off (said on stderr), unless the dumps were\n"
        "taken under ObjectSpace.trace_object_allocations_start: each object's\n"
        "generation then tells a new object from the one whose slot it took.\n"
        "Example: leakray leaks --baseline s1.heapsnapshot --target s2.heapsnapshot \\\n"
        "             --final s3.heapsnapshot --fail-on-leak"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (!base || !target)
        return cli_usage_error(&co, "--baseline and --target are required");
    struct stat st_t, st_f;
    if (!final || !strcmp(final, target) ||
        (strcmp(final, "-") && stat(target, &st_t) == 0 && stat(final, &st_f) == 0 &&
         st_t.st_dev == st_f.st_dev && st_t.st_ino == st_f.st_ino))
        final = target; /* the target named twice is the default, not a mistake */
    crules_set rs;
    if ((rc = clu_load_rules(&co, &rules, &rs)) != 0)
        return rc;
    uint64_t *fresh = NULL, n_new = 0;
    uint8_t *renum = NULL; /* leaks_cmd_renumbered */
    lr_heap *lh = NULL;
    uint8_t *sel = NULL, *stop = NULL, *leak = NULL;
    node_ix *head = NULL, *stack = NULL;
    uint64_t *similar = NULL, n_leaked = 0, n_reported = 0, reported_shallow = 0;
    rep_cluster_site *sites = NULL; /* leaks_cmd_sites */
    dom_tree t = {0};
    cluster_ctx c = {0};
    cluster_result r = {0};
    lr_error err = {.offset = LR_NO_OFFSET};
    kin_print kb = {0}, kt = {0}, kf = {0};
    kin_stats ks = {0}, ks2;
    int related = 1, related2 = 1;
    /* One snapshot loaded at a time, and what was compared is freed before the next load:
     * the final snapshot's analysis is the peak. */
    /* the baseline again as the final snapshot: every new object is absent from it by
     * construction, and the gate passes whatever leaked */
    struct stat s_base, s_final;
    if (final != target && strcmp(base, "-") && stat(base, &s_base) == 0 &&
        stat(final, &s_final) == 0 && s_base.st_dev == s_final.st_dev &&
        s_base.st_ino == s_final.st_ino) {
        rc = cli_fail(&co, LR_ERR_USAGE, "%s and %s are the same file: the final snapshot is "
                      "taken after the target, never the baseline", base, final);
        goto out;
    }
    if ((rc = leaks_cmd_print(&co, base, &kb)) != 0 ||
        (rc = leaks_cmd_print(&co, target, &kt)) != 0 ||
        (rc = leaks_cmd_order(&co, base, &kb, target, &kt, 1, force)) != 0 ||
        (rc = cli_check_related(&co, base, &kb, target, &kt, 1, force, 0, &ks, &related)) != 0 ||
        (rc = leaks_cmd_ids(&co, base, target, kb.format, &ks, force)) != 0)
        goto out;
    /* An id is a Ruby object's slot, and the GC gives a freed slot to the next object: one of
     * the same class made there reads as the old one (docs/formats/ruby.md), unless both
     * dumps give each object's GC generation (taken under trace_object_allocations_start).
     * Said: a leak's objects in slots the baseline's had were missed (36 % of a leak of
     * Items), and a freed batch's slots refilled before the final dump read as leaked. */
    if (!strcmp(kb.format, "ruby") && !(kb.births && kt.births))
        cli_warn(&co, "%s and %s: a Ruby object made in the slot an object of its class left is "
                 "taken for that one, so counts may be too low or too high (dumps taken under "
                 "ObjectSpace.trace_object_allocations_start give each object's generation, "
                 "which tells them apart)", base, target);
    if (!(fresh = leaks_cmd_new(&kb, &kt, &n_new)) ||
        !(renum = leaks_cmd_renumbered(&kb, &kt, fresh))) {
        rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
        goto out;
    }
    kin_print_free(&kb);
    if ((rc = cli_open(&co, final, 0, &lh)) != 0)
        goto out;
    const graph *g = lr_heap_graph(lh);
    if (detached && (rc = cli_need_dom(&co, g, final)) != 0) /* as histo: no DOM elsewhere */
        goto out;
    if ((rc = clu_load_shipped(&co, g, &rs)) != 0)
        goto out;
    if (final != target) {
        if (kin_print_build(g, lr_heap_format(lh), &kf, &err) != LR_OK) {
            rc = cli_error(&co, &err);
            goto out;
        }
        if ((rc = leaks_cmd_order(&co, target, &kt, final, &kf, 0, force)) != 0 ||
            (rc = leaks_cmd_final_older(&co, target, &kt, fresh, final, &kf, force)) != 0 ||
            (rc = cli_check_related(&co, target, &kt, final, &kf, 1, force, 0, &ks2,
                                    &related2)) != 0 ||
            (rc = leaks_cmd_ids(&co, target, final, kt.format, &ks2, force)) != 0)
            goto out;
    }
    double t0 = cli_now_ms();
    sel = err_calloc(g->n_nodes ? g->n_nodes : 1, 1);
    if (!sel) {
        rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
        goto out;
    }
    uint64_t n_alive = 0, n_renum = 0;
    /* a page's DOM nodes keep their ids (V8 tracks Blink's objects by address): a class of
     * them all replaced between the snapshots is no renumbering, and its detached ones leak.
     * Only V8 renumbers its embedder objects: a Ruby C-extension object (StringIO, a
     * Thread::Queue) keeps its slot, and a class whose first objects leak between the dumps
     * was dropped whole as renumbered. */
    int browser = leak_is_browser(g);
    int renumbers = !browser && !strcmp(kt.format, "v8");
    for (node_ix v = 0; v < g->n_nodes; v++)
        if (leaks_cmd_is_new(&kt, fresh, graph_node_id(g, v)) &&
            (final == target || leaks_cmd_same(&kt, &kf, graph_node_id(g, v))) &&
            !leaks_cmd_skip_renumbered(g, v, renumbers, &kt, renum, &n_renum) &&
            (!detached || graph_node_dom(g, v) == GRAPH_DOM_DETACHED)) {
            sel[v] = 1;
            n_alive++;
        }
    if (n_renum && final == target) /* with a final snapshot none would have passed it */
        cli_warn(&co, "%s: %llu native objects of classes whose every object has a new id in "
                 "each snapshot (Node's embedder objects) are not taken for new", target,
                 (unsigned long long)n_renum);
    kin_print_free(&kt); /* sel holds what the target told */
    free(renum);
    renum = NULL;
    kin_print_free(&kf);
    free(fresh);
    fresh = NULL;
    int memlab = !all && leak_is_browser(g);
    if (memlab && (!(stop = err_malloc(g->n_nodes ? g->n_nodes : 1)) ||
                   !(head = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *head)) ||
                   !(stack = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *stack)))) {
        rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
        goto out;
    }
    if (cluster_dom_build(g, &t, &err) != LR_OK ||
        (memlab && leak_memlab_filter(g, &t, sel, stop, &n_leaked, &err) != LR_OK) ||
        cluster_bind(&c, g, &rs, &t, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    if (memlab) {
        if (!(leak = err_malloc(g->n_nodes ? g->n_nodes : 1))) {
            rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
            goto out;
        }
        memcpy(leak, sel, g->n_nodes);
        leaks_cmd_fold(&c, stop, leak, sel, head, stack);
    }
    /* a Ruby dump's clusters name where their objects were made: each object's cluster */
    int ruby = !strcmp(lr_heap_format(lh), "ruby");
    if (cluster_run_keep(&c, sel,
                         strcmp(sort, "count") == 0 ? CLUSTER_SORT_COUNT : CLUSTER_SORT_SIZE,
                         memlab || ruby, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    if (memlab) {
        /* memlab's "similar leaks": every leaked object counts in its trace head's cluster */
        if (!(similar = err_calloc(r.n ? r.n : 1, sizeof *similar))) {
            rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
            goto out;
        }
        for (node_ix v = 0; v < g->n_nodes; v++) {
            if (!leak[v])
                continue;
            node_ix h = head[v] != GRAPH_NONE && head[v] != v ? head[v] : v;
            head[v] = r.node_item[h]; /* from here on: v's cluster */
            if (head[v] != CLUSTER_NONE) {
                similar[head[v]]++;
                n_reported++;
                reported_shallow += graph_node_size(g, v);
            }
        }
        leaks_cmd_memlab_sizes(g, &t, leak, head, stack, &r);
        /* in the order of the sizes printed: a 72 kB cluster came after one of 560 B, and
         * --top hid it, ordered by what its representative alone retained */
        uint32_t *pos = err_mallocarray(r.n ? r.n : 1, sizeof *pos);
        uint64_t *sim = err_mallocarray(r.n ? r.n : 1, sizeof *sim);
        enum cluster_sort how = strcmp(sort, "count") == 0 ? CLUSTER_SORT_COUNT
                                                            : CLUSTER_SORT_SIZE;
        if (!pos || !sim || cluster_resort(&c, &r, how, pos) != 0) {
            free(pos);
            free(sim);
            rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
            goto out;
        }
        for (uint32_t i = 0; i < r.n; i++)
            sim[pos[i]] = similar[i];
        memcpy(similar, sim, (size_t)r.n * sizeof *sim);
        free(pos);
        free(sim);
    }
    rep_leaks_unretained unret[REP_LEAKS_UNRETAINED_MAX];
    uint32_t n_unret = 0;
    uint64_t unret_count = 0, unret_shallow = 0;
    /* Only V8-format writers dump live objects alone; an HPROF dump holds garbage too. */
    if (!memlab && strcmp(lr_heap_format(lh), "v8") == 0 &&
        leaks_cmd_unretained(&c, sel, unret, &n_unret, &unret_count, &unret_shallow) != 0) {
        rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
        goto out;
    }
    if (!memlab && ruby && leaks_cmd_sites(g, &r, &sites) != 0) {
        rc = cli_fail(&co, LR_ERR_NOMEM, "out of memory");
        goto out;
    }
    double ms = cli_now_ms() - t0;
    rep_leaks v = {base,  target, final, n_new,    n_alive, &c,     &r,
                   top,   &ks,    related && related2, force, memlab, n_leaked, similar,
                   n_reported, reported_shallow, unret_count, unret_shallow, unret, n_unret,
                   sites};
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_leaks_json(&w, &v);
        /* a verdict on part of a heap: the document says why the exit is 3 */
        if (co.n_truncated)
            jsonw_kv_bool(&w, "truncated", 1);
        cli_json_end_phase(&co, &w, "analysis_ms", ms);
    } else {
        rep_leaks_text(stdout, &v);
        cli_print_timing(&co, stdout, "load", co.load_ms_total);
        cli_print_timing(&co, stdout, "analysis", ms);
    }
    if (fail_on_leak && r.n > 0)
        rc = CLI_EXIT_FINDINGS;
    /* a verdict on part of a heap proves nothing: a CI gate must not rely on it */
    if (fail_on_leak && co.n_truncated && !allow_truncated) {
        fprintf(stderr, "leakray: a snapshot is truncated, --fail-on-leak cannot pass on it "
                        "(--allow-truncated to judge it anyway)\n");
        rc = CLI_EXIT_INPUT;
    }
out:
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    kin_print_free(&kb);
    kin_print_free(&kt);
    kin_print_free(&kf);
    cluster_result_free(&r);
    cluster_fini(&c);
    dom_free(&t);
    free(renum);
    free(sel);
    free(stop);
    free(leak);
    free(head);
    free(stack);
    free(similar);
    free(sites);
    free(fresh);
    lr_close(lh);
    crules_fini(&rs);
    return rc;
}
