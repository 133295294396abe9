/* SPDX-License-Identifier: Apache-2.0 */
/* trace.c: leak traces, statuses, fingerprints and grouping (analysis layer), prefix trace_.
 * One path traversal (paths_find_targets) with every leaking object as a leaf, the rules deciding
 * which references are dropped or visited last; then per trace: inspectors on each object,
 * Shark's status propagation (section 8.1: everything above the last NO is NO, everything
 * between the first YES after it and the leaking object is YES), suspects (section 9), and a
 * SHA-1 over className + generic reference name of the suspects (section 10). Leaking
 * objects left unreached are searched from each found one over the unreached subgraph
 * ("also retains"); the rest are unreachable. All of that needs no dominator tree
 * (trace_paths), and its per-node arrays (the path forest, bitmaps, queues) are gone when it
 * returns; retained sizes come after (trace_finish). Group sizes are exact: what the group's
 * leaking objects reach, minus what stays alive without them (see together()). */
#include "analysis/trace.h"

#include "analysis/paths.h"
#include "analysis/virtual.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_MAX_DEPTH 4096 /* longest path kept; longer ones are cut at the root side */
#define TRACE_EXACT_GROUPS 64 /* groups sized exactly (one O(N+E) traversal each) */

static char *sdup(const char *s)
{
    size_t n = strlen(s);
    char *p = err_malloc(n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

void trace_sha1_hex(const char *s, size_t len, char *out)
{
    unsigned char md[SHA_DIGEST_LENGTH];
    SHA1((const unsigned char *)s, len, md);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < SHA_DIGEST_LENGTH; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[40] = 0;
}

const char *trace_root_description(unsigned kind)
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
    default: return "Unknown GC root type";
    }
}

void trace_ref_display(const trace_elem *el, char *buf, size_t cap)
{
    switch (el->ref_type) {
    case TRACE_REF_ARRAY: snprintf(buf, cap, "[%s]", el->ref_name ? el->ref_name : ""); break;
    case TRACE_REF_LOCAL: snprintf(buf, cap, "<Java Local>"); break;
    default: snprintf(buf, cap, "%s", el->ref_name ? el->ref_name : ""); break;
    }
}

void trace_ref_generic(const trace_elem *el, char *buf, size_t cap)
{
    switch (el->ref_type) {
    case TRACE_REF_ARRAY: snprintf(buf, cap, "[x]"); break;
    case TRACE_REF_LOCAL: snprintf(buf, cap, "<Java Local>"); break;
    default: snprintf(buf, cap, "%s", el->ref_name ? el->ref_name : ""); break;
    }
}

void trace_fingerprint(const trace_elem *el, uint32_t n, char *out)
{
    size_t cap = 1024, len = 0;
    char *s = err_malloc(cap);
    char gen[512];
    for (uint32_t i = 0; s && i + 1 < n; i++) {
        if (!el[i].suspect)
            continue;
        trace_ref_generic(&el[i], gen, sizeof gen);
        const char *cn = el[i].class_name ? el[i].class_name : "";
        size_t need = len + strlen(cn) + strlen(gen) + 1;
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            char *t = realloc(s, cap);
            if (!t) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
        }
        memcpy(s + len, cn, strlen(cn));
        len += strlen(cn);
        memcpy(s + len, gen, strlen(gen));
        len += strlen(gen);
    }
    trace_sha1_hex(s ? s : "", s ? len : 0, out);
    free(s);
}

/* ---------------------------------------------------------------- statuses (8.1, 9) */

static char *joinf(const char *a, const char *mid, const char *b)
{
    size_t n = strlen(a) + strlen(mid) + strlen(b) + 1;
    char *p = err_malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", a, mid, b);
    return p;
}

/* Simple name used in propagated reasons. */
static const char *simple_of(const trace_elem *e)
{
    return rules_simple_name(e->class_name ? e->class_name : "");
}

lr_status trace_statuses(trace_elem *el, uint32_t n, char *const *leaking,
                         char *const *not_leaking, lr_error *err)
{
    if (n == 0)
        return LR_OK;
    uint32_t last = n - 1;
    int32_t last_no = -1;
    uint32_t first_yes = last;
    for (uint32_t i = 0; i < n; i++) {
        const char *lk = leaking[i] ? leaking[i] : "", *nl = not_leaking[i] ? not_leaking[i] : "";
        uint8_t st = TRACE_UNKNOWN;
        char *reason = NULL;
        if (*nl) {
            st = TRACE_NO;
            reason = sdup(nl);
        }
        if (*lk) {
            if (st == TRACE_NO) {
                char *r2;
                if (i == last) {
                    st = TRACE_YES;
                    r2 = joinf(lk, ". Conflicts with ", reason ? reason : "");
                } else {
                    r2 = joinf(reason ? reason : "", ". Conflicts with ", lk);
                }
                free(reason);
                reason = r2;
            } else {
                st = TRACE_YES;
                reason = sdup(lk);
            }
        }
        if (i == last) {
            if (st == TRACE_UNKNOWN) {
                free(reason);
                reason = sdup("This is the leaking object");
            } else if (st == TRACE_NO) {
                char *r2 = joinf("This is the leaking object. Conflicts with ", "",
                                 reason ? reason : "");
                free(reason);
                reason = r2;
            }
            st = TRACE_YES;
        }
        if (!reason)
            reason = sdup("");
        if (!reason)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        free(el[i].reason);
        el[i].reason = reason;
        el[i].status = st;
        if (st == TRACE_NO) {
            last_no = (int32_t)i;
            first_yes = last;
        } else if (st == TRACE_YES && first_yes == last) {
            first_yes = i;
        }
    }
    /* everything above the last NO is NO */
    for (int32_t i = 0; i < last_no; i++) {
        int32_t nx = i + 1;
        while (nx < last_no && el[nx].status != TRACE_NO)
            nx++;
        char head[600];
        snprintf(head, sizeof head, "%s\xe2\x86\x93 is not leaking", simple_of(&el[nx]));
        char *r;
        if (el[i].status == TRACE_UNKNOWN)
            r = sdup(head);
        else if (el[i].status == TRACE_NO)
            r = joinf(head, " and ", el[i].reason);
        else
            r = joinf(head, ". Conflicts with ", el[i].reason);
        if (!r)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        free(el[i].reason);
        el[i].reason = r;
        el[i].status = TRACE_NO;
    }
    /* everything between the first YES and the leaking object is YES */
    if (first_yes + 1 < last) {
        for (uint32_t i = last - 1; i > first_yes; i--) {
            uint32_t pv = i - 1;
            while (pv > first_yes && el[pv].status != TRACE_YES)
                pv--;
            char head[600];
            snprintf(head, sizeof head, "%s\xe2\x86\x91 is leaking", simple_of(&el[pv]));
            char *r = el[i].status == TRACE_UNKNOWN ? sdup(head)
                                                    : joinf(head, " and ", el[i].reason);
            if (!r)
                return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            free(el[i].reason);
            el[i].reason = r;
            el[i].status = TRACE_YES;
        }
    }
    for (uint32_t i = 0; i + 1 < n; i++)
        el[i].suspect = (uint8_t)(el[i].status == TRACE_UNKNOWN ||
                                  (el[i].status == TRACE_NO &&
                                   (i + 2 == n || el[i + 1].status != TRACE_NO)));
    el[last].suspect = 0;
    return LR_OK;
}

/* ---------------------------------------------------------------- policy */

static enum paths_edge_class pol_edge(const graph *g, node_ix from, edge_ix e, void *ctx)
{
    int32_t lib;
    (void)g;
    return (enum paths_edge_class)rules_edge_class(ctx, from, e, &lib);
}

/* The path search walks Shark's reference view (virtual.h), one node's list at a time: rules
 * judge the real edge behind an entry; collection entries have none and are followed, as
 * Shark matches no pattern on them; the few entries whose priority a Shark reader fixes keep
 * it. */
typedef struct vpol_ctx {
    const rules_set *rs;
    virt_gen *vg;
} vpol_ctx;

static int vsource(void *ctx, node_ix x, paths_list *out)
{
    const virt_list *l = virt_edges(((vpol_ctx *)ctx)->vg, x);
    if (!l)
        return -1;
    *out = (paths_list){l->n, l->to, l->kind, l->real};
    return 0;
}

static enum paths_edge_class pol_vedge(const graph *g, node_ix from, edge_ix pos, void *ctx)
{
    const vpol_ctx *c = ctx;
    int prio = virt_edge_priority(c->vg, from, pos);
    if (prio == VIRT_PRIO_LOW)
        return PATHS_VISIT_LAST;
    edge_ix re = virt_real_edge(c->vg, from, pos);
    if (re == GRAPH_NONE)
        return PATHS_FOLLOW;
    enum paths_edge_class k = pol_edge(g, from, re, (void *)c->rs);
    return prio == VIRT_PRIO_NORMAL && k == PATHS_VISIT_LAST ? PATHS_FOLLOW : k;
}

static enum paths_edge_class pol_root(const graph *g, uint32_t r, void *ctx)
{
    int32_t lib;
    (void)g;
    if (r >= g->n_roots)
        return PATHS_FOLLOW;
    return (enum paths_edge_class)rules_root_class(ctx, r, &lib);
}

static enum paths_edge_class pol_vroot(const graph *g, uint32_t r, void *ctx)
{
    return pol_root(g, r, (void *)((const vpol_ctx *)ctx)->rs);
}

/* Source node of edge e (binary search over first_edge). */
static node_ix edge_source(const graph *g, edge_ix e)
{
    uint32_t lo = 0, hi = g->n_nodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->first_edge[mid + 1] <= e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int trace_dom_filter(const graph *g, edge_ix e, void *ctx)
{
    /* Callers ask edge after edge in CSR order (dom_build does), so the source of the
     * previous edge almost always answers without a search. */
    static _Thread_local const graph *last_g;
    static _Thread_local node_ix last_src;
    int32_t lib;
    uint8_t k = g->edge_kind[e];
    if (GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG)
        return 0;
    node_ix x = last_src;
    if (last_g != g || x >= g->n_nodes || e < g->first_edge[x] || e >= g->first_edge[x + 1]) {
        /* a few steps forward (nodes without edges in between), else a search */
        int steps = 0;
        if (last_g == g && x < g->n_nodes && e >= g->first_edge[x])
            while (++steps < 32 && x + 1 < g->n_nodes && e >= g->first_edge[x + 1])
                x++;
        if (steps == 0 || steps >= 32 || e < g->first_edge[x] || e >= g->first_edge[x + 1])
            x = edge_source(g, e);
        last_g = g;
        last_src = x;
    }
    return rules_edge_class(ctx, x, e, &lib) != RULES_DROP;
}

static int follow(const rules_set *rs, node_ix from, edge_ix e)
{
    int32_t lib;
    return rules_edge_class(rs, from, e, &lib) != RULES_DROP;
}

/* ---------------------------------------------------------------- building */

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
    free(r->traces);
    free(r->groups);
    free(r->unreachable);
    memset(r, 0, sizeof *r);
}

static char *node_class_name(const graph *g, const rules_set *rs, node_ix n)
{
    if (g->node_kind[n] == GRAPH_KIND_CLASS) {
        class_ix c = graph_class_of_node(rs->g, n);
        if (c != GRAPH_NONE)
            return sdup(graph_str(g, g->classes[c].name));
    }
    return sdup(graph_class_name(g, n));
}

/* Declaring class of instance field `name` seen from node n (most-derived first). */
static const char *declaring_class(const graph *g, node_ix n, const char *name)
{
    class_ix c = g->node_class[n];
    for (int d = 0; d < 64 && c != GRAPH_NONE && c < g->n_classes; d++) {
        const graph_class *k = &g->classes[c];
        for (uint32_t f = 0; f < k->n_fields && k->first_field + f < g->n_fields; f++)
            if (!strcmp(graph_str(g, g->fields[k->first_field + f].name), name))
                return graph_str(g, k->name);
        c = k->super;
    }
    return graph_class_name(g, n);
}

static char *owner_simple(const char *cls, int strip_array)
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
static int add_label(char **labels, const char *s)
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

/* Inspector verdicts plus the KeyedWeakReference inspector for node n. */
static int inspect(const graph *g, const rules_set *rs, const leak_set *ls, node_ix n,
                   char **leaking, char **not_leaking, char **labels)
{
    rules_verdicts *v = err_calloc(1, sizeof *v);
    if (!v)
        return -1;
    rules_inspect_node(rs, n, v);
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
        rc |= add_label(labels, buf);
        if (w->watch_ms >= 0) {
            snprintf(buf, sizeof buf, "watchDurationMillis = %lld", (long long)w->watch_ms);
            rc |= add_label(labels, buf);
        }
        if (w->retain_ms >= 0) {
            snprintf(buf, sizeof buf, "retainedDurationMillis = %lld", (long long)w->retain_ms);
            rc |= add_label(labels, buf);
        }
    }
    if (rc == 0 && v->labels[0])
        rc = add_label(labels, v->labels);
    free(v);
    return rc;
}

/* Dominator subtree object counts of the nodes of `want` (sorted, distinct), into cnt (one
 * per entry of want; uint32: a subtree never holds more than N nodes). Only these few nodes
 * need a count, so instead of counting every subtree (two arrays of N) each node is charged to
 * its nearest ancestor-or-self in `want` (one array of N: near[x], the nearest proper
 * ancestor of x in want, found by climbing until a known answer and then writing it along
 * the climbed chain, so every node is climbed over once), and the counts then pass up the
 * small forest that `want` forms under near[]. O(N + |want| log |want|). Returns 0, or -1 when
 * out of memory. */
#define NEAR_UNKNOWN UINT32_MAX
#define NEAR_NONE (UINT32_MAX - 2) /* no ancestor in want (DOM_SUPER_ROOT is UINT32_MAX - 1) */

static uint32_t want_index(const node_ix *want, uint32_t nw, node_ix x)
{
    uint32_t lo = 0, hi = nw;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (want[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nw && want[lo] == x ? lo : UINT32_MAX;
}

static int subtree_counts(const dom_tree *t, const node_ix *want, uint32_t nw, uint32_t *cnt)
{
    uint32_t n = t->n;
    uint32_t *near = err_mallocarray(n ? n : 1, sizeof *near);
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
    for (uint32_t x = 0; x < n; x++)
        near[x] = NEAR_UNKNOWN;
    for (uint32_t x = 0; x < n; x++) {
        if (near[x] != NEAR_UNKNOWN || t->idom[x] == GRAPH_NONE)
            continue;
        node_ix y = t->idom[x];
        while (y < n && !(in[y / 8] >> (y % 8) & 1) && near[y] == NEAR_UNKNOWN)
            y = t->idom[y];
        uint32_t r = y >= n ? NEAR_NONE : (in[y / 8] >> (y % 8) & 1) ? y : near[y];
        for (node_ix z = x; z != y; z = t->idom[z])
            near[z] = r;
    }
    for (uint32_t x = 0; x < n; x++) {
        if (t->idom[x] == GRAPH_NONE)
            continue;
        node_ix a = (in[x / 8] >> (x % 8) & 1) ? x : near[x];
        if (a < n)
            cnt[want_index(want, nw, a)]++;
    }
    /* pass the counts up the forest of want: children first, by pending-children counts */
    uint32_t qn = 0;
    for (uint32_t k = 0; k < nw; k++)
        if (near[want[k]] < n)
            pend[want_index(want, nw, near[want[k]])]++;
    for (uint32_t k = 0; k < nw; k++)
        if (!pend[k])
            queue[qn++] = k;
    for (uint32_t q = 0; q < qn; q++) {
        uint32_t k = queue[q];
        if (near[want[k]] >= n)
            continue;
        uint32_t p = want_index(want, nw, near[want[k]]);
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

static int cmp_node(const void *a, const void *b)
{
    node_ix x = *(const node_ix *)a, y = *(const node_ix *)b;
    return x < y ? -1 : x > y;
}

typedef struct order_key {
    uint32_t leak;
    uint8_t via_last;
    uint32_t depth;
} order_key;

static int cmp_order(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->via_last != y->via_last)
        return x->via_last < y->via_last ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return (x->leak > y->leak) - (x->leak < y->leak);
}

/* The reference leaving el: an edge of kind k named `name` in the view the paths walked. */
static lr_status build_elem_ref(const graph *g, trace_elem *el, uint8_t k8, uint32_t name)
{
    char buf[256];
    unsigned k = GRAPH_EDGE_KIND(k8);
    node_ix n = el->node;
    switch (k) {
    case GRAPH_EDGE_STATIC:
        el->ref_type = TRACE_REF_STATIC;
        el->ref_name = sdup(graph_str(g, name));
        el->owner = owner_simple(el->class_name, 0);
        break;
    case GRAPH_EDGE_ELEMENT:
        el->ref_type = TRACE_REF_ARRAY;
        snprintf(buf, sizeof buf, "%u", name);
        el->ref_name = sdup(buf);
        el->owner = owner_simple(el->class_name, 1);
        break;
    case GRAPH_EDGE_LOCAL:
        el->ref_type = TRACE_REF_LOCAL;
        el->ref_name = sdup("");
        el->owner = owner_simple(el->class_name, 0);
        break;
    case GRAPH_EDGE_FIELD:
        el->ref_type = TRACE_REF_INSTANCE;
        el->ref_name = sdup(graph_str(g, name));
        el->owner = el->ref_name ? owner_simple(declaring_class(g, n, el->ref_name), 0) : NULL;
        break;
    default:
        el->ref_type = TRACE_REF_INSTANCE;
        if (GRAPH_EDGE_NAME_IS_INDEX(k))
            snprintf(buf, sizeof buf, "[%u]", name);
        else
            snprintf(buf, sizeof buf, "%s", graph_str(g, name));
        el->ref_name = sdup(buf);
        el->owner = owner_simple(el->class_name, 0);
        break;
    }
    return el->ref_name && el->owner ? LR_OK : LR_ERR_NOMEM;
}

static inline int bit_get(const uint8_t *m, node_ix x)
{
    return m[x / 8] >> (x % 8) & 1;
}

static inline void bit_set(uint8_t *m, node_ix x)
{
    m[x / 8] |= (uint8_t)(1u << (x % 8));
}

/* Bytes and objects the reachable nodes marked in `stop` (S) retain together: what the roots
 * no longer reach once S is gone. Only nodes S reaches (R, S included) can be lost, and a
 * reachable node outside R never is (a path to it through S would put it in R). So: R by a
 * traversal from S; then the nodes of R \ S kept alive are those rooted, or referenced
 * from a reachable node outside R, and what they reach inside R \ S; the rest of R is
 * retained. The outside references are found by one scan of the edges that only tests a
 * bit per target, which costs far less than a traversal from the roots. Same answer as
 * "total reachable minus a traversal from the roots that never enters S". inr and live are
 * bitmaps of N bits; queue has N entries (it holds R, then the live part of R \ S). */
static void together(const graph *g, const rules_set *rs, const dom_tree *dt, const uint8_t *stop,
                     uint8_t *inr, uint8_t *live, uint32_t *queue, uint64_t *bytes,
                     uint64_t *count)
{
    uint32_t n = g->n_nodes, qt = 0;
    memset(inr, 0, n / 8 + 1);
    memset(live, 0, n / 8 + 1);
    /* R: everything S reaches (S itself included), over the followed edges */
    for (node_ix x = 0; x < n; x++)
        if (bit_get(stop, x) && x < dt->n && dt->idom[x] != GRAPH_NONE) {
            bit_set(inr, x);
            queue[qt++] = x;
        }
    for (uint32_t qh = 0; qh < qt; qh++) {
        node_ix x = queue[qh];
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y >= n || bit_get(inr, y))
                continue;
            if (GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG || !follow(rs, x, e))
                continue;
            bit_set(inr, y);
            queue[qt++] = y;
        }
    }
    uint64_t rb = 0, rc = qt;
    for (uint32_t i = 0; i < qt; i++) {
        node_ix x = queue[i];
        rb += graph_node_size(g, x) + (g->node_native ? g->node_native[x] : 0);
    }
    /* seeds: rooted nodes of R \ S, and targets of references from reachable nodes
     * outside R; then what they keep alive inside R \ S. The queue starts over: R is
     * still marked in inr. */
    qt = 0;
    for (uint32_t r = 0; r <= g->n_roots; r++) {
        node_ix x = r < g->n_roots ? g->roots[r].node : g->synthetic_root;
        if (x >= n || !bit_get(inr, x) || bit_get(stop, x) || bit_get(live, x))
            continue;
        bit_set(live, x);
        queue[qt++] = x;
    }
    for (node_ix x = 0; x < n; x++) {
        edge_ix e0 = g->first_edge[x], e1 = g->first_edge[x + 1];
        if (e0 == e1 || bit_get(inr, x) || x >= dt->n || dt->idom[x] == GRAPH_NONE)
            continue;
        for (edge_ix e = e0; e < e1; e++) {
            node_ix y = g->edge_to[e];
            if (y >= n || !bit_get(inr, y) || bit_get(stop, y) || bit_get(live, y))
                continue;
            if (GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG || !follow(rs, x, e))
                continue;
            bit_set(live, y);
            queue[qt++] = y;
        }
    }
    for (uint32_t qh = 0; qh < qt; qh++) {
        node_ix x = queue[qh];
        for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
            node_ix y = g->edge_to[e];
            if (y >= n || !bit_get(inr, y) || bit_get(stop, y) || bit_get(live, y))
                continue;
            if (GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG || !follow(rs, x, e))
                continue;
            bit_set(live, y);
            queue[qt++] = y;
        }
    }
    for (uint32_t i = 0; i < qt; i++) {
        node_ix x = queue[i];
        rb -= graph_node_size(g, x) + (g->node_native ? g->node_native[x] : 0);
    }
    rc -= qt;
    *bytes = rb;
    *count = rc;
}

/* A path step through a virtual entry: which one, and what it is, read from its parent's
 * list once for all the steps out of that parent. */
typedef struct vstep {
    node_ix parent;
    uint32_t pos;   /* position in the parent's list */
    uint32_t trace; /* index into ord */
    uint32_t j;     /* step index along the path as paths_get gives it */
    uint8_t kind;
    uint32_t name;
    edge_ix real;
    char *label;    /* malloc'd, NULL when the entry is named by its index */
} vstep;

static int cmp_vstep_parent(const void *pa, const void *pb)
{
    const vstep *a = pa, *b = pb;
    if (a->parent != b->parent)
        return a->parent < b->parent ? -1 : 1;
    if (a->trace != b->trace)
        return a->trace < b->trace ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

static int cmp_vstep_trace(const void *pa, const void *pb)
{
    const vstep *a = pa, *b = pb;
    if (a->trace != b->trace)
        return a->trace < b->trace ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

/* The virtual steps of the paths of ord[0..n_found), each read from its parent's list; made
 * in parent order so a collection on many paths is walked once. *out sorted by (trace, j). */
static lr_status virtual_steps(virt_gen *vg, const paths_result *pr, const leak_set *ls,
                               const order_key *ord, uint32_t n_found, node_ix *pn, edge_ix *pe,
                               vstep **out, uint32_t *n_out, lr_error *err)
{
    vstep *v = NULL;
    uint32_t n = 0, cap = 0;
    *out = NULL;
    *n_out = 0;
    for (uint32_t t = 0; t < n_found; t++) {
        uint32_t len = paths_get(pr, ls->v[ord[t].leak].node, pn, pe, TRACE_MAX_DEPTH);
        if (len > TRACE_MAX_DEPTH)
            len = TRACE_MAX_DEPTH;
        for (uint32_t j = 0; j + 1 < len; j++) {
            if (pe[j] == PATHS_FROM_ROOT || pe[j] == GRAPH_NONE || !(pe[j] & PATHS_VIRTUAL))
                continue;
            if (n == cap) {
                uint32_t nc = cap ? cap * 2 : 64;
                vstep *t2 = err_reallocarray(v, nc, sizeof *v);
                if (!t2) {
                    free(v);
                    return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                }
                v = t2;
                cap = nc;
            }
            v[n++] = (vstep){pn[j], pe[j] & ~PATHS_VIRTUAL, t, j, 0, 0, GRAPH_NONE, NULL};
        }
    }
    if (n) {
        /* every list a step needs was made during the traversal under what was left of the
         * shared budget; a full one makes at least those entries, the same way */
        virt_budget_reset(vg);
        qsort(v, n, sizeof *v, cmp_vstep_parent);
    }
    for (uint32_t i = 0; i < n; i++) {
        const virt_list *l = virt_edges(vg, v[i].parent);
        if (!l) {
            for (uint32_t k = 0; k < i; k++)
                free(v[k].label);
            free(v);
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        }
        if (v[i].pos < l->n) {
            uint32_t p = v[i].pos;
            v[i].kind = l->kind[p];
            v[i].name = l->name[p];
            v[i].real = l->real[p];
            char buf[VIRT_LABEL_MAX];
            const char *lb = virt_edge_label(vg, v[i].parent, p, buf, sizeof buf);
            if (lb && !(v[i].label = sdup(lb))) {
                for (uint32_t k = 0; k < i; k++)
                    free(v[k].label);
                free(v);
                return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            }
        } else {
            /* not made again (a walk cut short): an element named by its position */
            v[i].kind = GRAPH_EDGE_MAKE(GRAPH_EDGE_ELEMENT, GRAPH_STRONG);
            v[i].name = v[i].pos;
        }
    }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_vstep_trace);
    *out = v;
    *n_out = n;
    return LR_OK;
}

lr_status trace_paths(const graph *g, const rules_set *rs, const leak_set *ls,
                      trace_result *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    lr_status st = LR_OK;
    uint32_t nl = ls->n, nn = g->n_nodes;
    node_ix *targets = err_mallocarray(nl ? nl : 1, sizeof *targets);
    node_ix *pn = err_mallocarray(TRACE_MAX_DEPTH, sizeof *pn);
    edge_ix *pe = err_mallocarray(TRACE_MAX_DEPTH, sizeof *pe);
    order_key *ord = err_mallocarray(nl ? nl : 1, sizeof *ord);
    uint8_t *reached = err_calloc(nl ? nl : 1, 1);
    uint8_t *vis = NULL, *stop = NULL;
    uint32_t *queue = NULL;
    vstep *vs = NULL;
    uint32_t n_vs = 0;
    paths_result pr;
    memset(&pr, 0, sizeof pr);
    virt_gen *vg = NULL;
    if (!targets || !pn || !pe || !ord || !reached) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    for (uint32_t i = 0; i < nl; i++)
        targets[i] = ls->v[i].node;
    if ((st = virt_gen_new(g, &vg, err)) != LR_OK)
        goto done;
    vpol_ctx vctx = {rs, vg};
    paths_source src = {vsource, &vctx};
    paths_policy pol = vg ? (paths_policy){pol_vedge, pol_vroot, &vctx, &src}
                          : (paths_policy){pol_edge, pol_root, (void *)rs, NULL};
    /* Stops once every leaking object's path is final; when one is never reached the
     * traversal runs to the end, which phase 2 below needs (it searches the unreached part) */
    int all_found = 0;
    if ((st = paths_find_targets(g, &pol, targets, nl, &pr, &all_found, err)) != LR_OK)
        goto done;

    uint32_t n_found = 0;
    for (uint32_t i = 0; i < nl; i++) {
        node_ix x = ls->v[i].node;
        if (paths_reached(&pr, x)) {
            ord[n_found].leak = i;
            ord[n_found].via_last = paths_via_last(&pr, x) ? 1 : 0;
            ord[n_found].depth = paths_depth(&pr, x);
            n_found++;
            reached[i] = 1;
        }
    }
    qsort(ord, n_found, sizeof *ord, cmp_order);
    out->traces = err_calloc(n_found ? n_found : 1, sizeof *out->traces);
    if (!out->traces) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    if (vg && (st = virtual_steps(vg, &pr, ls, ord, n_found, pn, pe, &vs, &n_vs, err)) != LR_OK)
        goto done;
    uint32_t vi = 0; /* next virtual step */
    for (uint32_t t = 0; t < n_found && st == LR_OK; t++) {
        uint32_t li = ord[t].leak;
        node_ix x = ls->v[li].node;
        uint32_t len = paths_get(&pr, x, pn, pe, TRACE_MAX_DEPTH);
        if (len == 0 || len > TRACE_MAX_DEPTH)
            len = len > TRACE_MAX_DEPTH ? TRACE_MAX_DEPTH : len;
        while (vi < n_vs && vs[vi].trace < t)
            vi++;
        if (len == 0)
            continue;
        /* A Java-frame root stands for a local of its thread when the reader made no
         * local edges: show the thread first, as Shark does ("Thread<Java Local>"). */
        int vlocal = 0;
        uint32_t root = paths_root_of(&pr, pn[0]), path_root = root;
        if (root < g->n_roots && g->roots[root].kind == GRAPH_ROOT_JAVA_FRAME && len > 0 &&
            len < TRACE_MAX_DEPTH && !rs->has_local_edges) {
            node_ix tn = rules_thread_of_serial(g, g->roots[root].thread);
            if (tn != GRAPH_NONE && tn != pn[0]) {
                memmove(pn + 1, pn, len * sizeof *pn);
                memmove(pe + 1, pe, len * sizeof *pe);
                pn[0] = tn;
                pe[0] = GRAPH_NONE;
                len++;
                vlocal = 1;
                for (uint32_t r = 0; r < g->n_roots; r++)
                    if (g->roots[r].node == tn && g->roots[r].kind == GRAPH_ROOT_THREAD_OBJECT) {
                        root = r;
                        break;
                    }
            }
        }
        trace *tr = &out->traces[out->n_traces];
        tr->leak = li;
        tr->lib = -1;
        tr->root = root;
        tr->el = err_calloc(len, sizeof *tr->el);
        char **lk = err_calloc(len, sizeof *lk), **nlk = err_calloc(len, sizeof *nlk);
        if (!tr->el || !lk || !nlk) {
            free(tr->el);
            free(lk);
            free(nlk);
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            break;
        }
        tr->n = len;
        out->n_traces++;
        if (path_root < g->n_roots) {
            int32_t lib;
            rules_root_class(rs, path_root, &lib);
            tr->lib = lib;
        }
        for (uint32_t j = 0; j < len && st == LR_OK; j++) {
            trace_elem *el = &tr->el[j];
            el->node = pn[j];
            el->edge = GRAPH_NONE;
            el->class_name = node_class_name(g, rs, pn[j]);
            if (!el->class_name ||
                inspect(g, rs, ls, pn[j], &lk[j], &nlk[j], &el->labels)) {
                st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                break;
            }
            if (j + 1 == len && ls->v[li].source != LEAK_SRC_WATCHED && ls->v[li].reason[0] &&
                !strstr(lk[j], ls->v[li].reason)) {
                char *r = *lk[j] ? joinf(lk[j], " and ", ls->v[li].reason)
                                 : sdup(ls->v[li].reason);
                free(lk[j]);
                lk[j] = r;
                if (!r) {
                    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                    break;
                }
            }
            if (j == 0 && vlocal) {
                el->ref_type = TRACE_REF_LOCAL;
                el->ref_name = sdup("");
                el->owner = owner_simple(el->class_name, 0);
                if (!el->ref_name || !el->owner) {
                    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                    break;
                }
            } else if (j + 1 < len) {
                uint32_t code = pe[j], sj = j - (uint32_t)vlocal; /* step as paths_get gave */
                uint8_t kind;
                uint32_t name;
                edge_ix re;
                const char *vl = NULL;
                if (vg && (code & PATHS_VIRTUAL)) {
                    while (vi < n_vs && vs[vi].trace == t && vs[vi].j < sj)
                        vi++;
                    if (vi >= n_vs || vs[vi].trace != t || vs[vi].j != sj) {
                        st = LR_FAIL(err, LR_ERR_INTERNAL, "leak traces: path step lost");
                        break;
                    }
                    kind = vs[vi].kind;
                    name = vs[vi].name;
                    re = vs[vi].real;
                    vl = vs[vi].label;
                } else {
                    re = code;
                    kind = g->edge_kind[re];
                    name = vg ? virt_real_name(vg, pn[j], re) : graph_edge_name_from(g, pn[j], re);
                }
                if (build_elem_ref(g, el, kind, name) != LR_OK ||
                    (vl && (free(el->ref_name), !(el->ref_name = sdup(vl))))) {
                    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                    break;
                }
                el->edge = re;
                int32_t lib = -1;
                if (re != GRAPH_NONE)
                    rules_edge_class(rs, pn[j], re, &lib);
                if (lib >= 0) {
                    char lbl[800];
                    snprintf(lbl, sizeof lbl, "Library leak match: %s", rs->refs[lib].pattern);
                    if (add_label(&el->labels, lbl))
                        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                    if (tr->lib < 0)
                        tr->lib = lib;
                }
            }
        }
        if (st == LR_OK)
            st = trace_statuses(tr->el, len, lk, nlk, err);
        for (uint32_t j = 0; j < len; j++) {
            free(lk[j]);
            free(nlk[j]);
        }
        free(lk);
        free(nlk);
        if (st == LR_OK)
            trace_fingerprint(tr->el, tr->n, tr->fingerprint);
    }
    virt_gen_free(vg);
    vg = NULL;
    if (st != LR_OK)
        goto done;

    /* phase 2: leaking objects reachable only through a found one; nothing to find when
     * every leaking object has a path */
    if (!all_found && out->n_traces) {
        vis = err_calloc(nn / 8 + 1, 1);
        stop = err_calloc(nn / 8 + 1, 1);
        queue = err_mallocarray(nn ? nn : 1, sizeof *queue);
        if (!vis || !stop || !queue) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            goto done;
        }
        /* leak index by node for the unreached ones */
        for (uint32_t i = 0; i < nl; i++)
            if (!reached[i] && ls->v[i].node < nn)
                stop[ls->v[i].node / 8] |= (uint8_t)(1u << (ls->v[i].node % 8));
        for (uint32_t t = 0; t < out->n_traces && st == LR_OK; t++) {
            trace *tr = &out->traces[t];
            node_ix s0 = tr->el[tr->n - 1].node;
            uint32_t qh = 0, qt = 0, found = 0;
            uint32_t first_leak = GRAPH_NONE;
            int same_class = 1;
            queue[qt++] = s0;
            vis[s0 / 8] |= (uint8_t)(1u << (s0 % 8));
            while (qh < qt) {
                node_ix x = queue[qh++];
                if (x != s0 && (stop[x / 8] >> (x % 8) & 1)) {
                    for (uint32_t i = 0; i < nl; i++)
                        if (!reached[i] && ls->v[i].node == x) {
                            reached[i] = 2;
                            if (first_leak == GRAPH_NONE)
                                first_leak = i;
                            else if (g->node_class[ls->v[i].node] !=
                                     g->node_class[ls->v[first_leak].node])
                                same_class = 0;
                            found++;
                        }
                }
                for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
                    node_ix y = g->edge_to[e];
                    if (y >= nn || (vis[y / 8] >> (y % 8) & 1) ||
                        (pr.flags[y] & PATHS_F_STATE))
                        continue;
                    if (GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG ||
                        !follow(rs, x, e))
                        continue;
                    vis[y / 8] |= (uint8_t)(1u << (y % 8));
                    queue[qt++] = y;
                }
            }
            if (found) {
                char lbl[600];
                node_ix f = ls->v[first_leak].node;
                if (found == 1)
                    snprintf(lbl, sizeof lbl, "Also retains leaking object 0x%llx (%s)",
                             (unsigned long long)graph_node_id(g, f), graph_class_name(g, f));
                else if (same_class)
                    snprintf(lbl, sizeof lbl, "Also retains %u leaking %s objects", found,
                             graph_class_name(g, f));
                else
                    snprintf(lbl, sizeof lbl, "Also retains %u leaking objects", found);
                if (add_label(&tr->el[tr->n - 1].labels, lbl))
                    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                out->n_also_retained += found;
            }
        }
    }
    /* the paths are in the traces now: no per-node array outlives this point */
    paths_free(&pr);
    free(vis);
    free(stop);
    free(queue);
    vis = stop = NULL;
    queue = NULL;
    if (st != LR_OK)
        goto done;

    /* unreachable leaking objects */
    {
        uint32_t nu = 0;
        for (uint32_t i = 0; i < nl; i++)
            nu += !reached[i];
        out->unreachable = err_calloc(nu ? nu : 1, sizeof *out->unreachable);
        if (!out->unreachable) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            goto done;
        }
        for (uint32_t i = 0; i < nl && st == LR_OK; i++) {
            if (reached[i] || ls->v[i].node >= nn)
                continue;
            trace_unreachable *u = &out->unreachable[out->n_unreachable++];
            u->leak = i;
            u->el.node = ls->v[i].node;
            u->el.edge = GRAPH_NONE;
            u->el.class_name = node_class_name(g, rs, u->el.node);
            char *lk = NULL, *nlk = NULL;
            if (!u->el.class_name ||
                inspect(g, rs, ls, u->el.node, &lk, &nlk, &u->el.labels)) {
                free(lk);
                free(nlk);
                st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                break;
            }
            if (!*lk && ls->v[i].reason[0]) {
                free(lk);
                lk = sdup(ls->v[i].reason);
            }
            if (lk && *lk && *nlk)
                u->el.reason = joinf(lk, ". Conflicts with ", nlk);
            else if (lk && *lk)
                u->el.reason = sdup(lk);
            else if (nlk && *nlk)
                u->el.reason = joinf("This is a leaking object. Conflicts with ", "", nlk);
            else
                u->el.reason = sdup("This is a leaking object");
            u->el.status = TRACE_YES;
            free(lk);
            free(nlk);
            if (!u->el.reason)
                st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        }
    }
    if (st != LR_OK)
        goto done;

    /* groups: application leaks by fingerprint, library leaks by pattern */
    out->groups = err_calloc(out->n_traces ? out->n_traces : 1, sizeof *out->groups);
    if (!out->groups) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    for (int pass = 0; pass < 2 && st == LR_OK; pass++) {
        for (uint32_t t = 0; t < out->n_traces; t++) {
            trace *tr = &out->traces[t];
            int lib = tr->lib >= 0;
            if (lib != pass)
                continue;
            char fp[41];
            if (lib)
                trace_sha1_hex(rs->refs[tr->lib].pattern, strlen(rs->refs[tr->lib].pattern), fp);
            else
                memcpy(fp, tr->fingerprint, 41);
            uint32_t gi;
            for (gi = pass ? out->n_app_groups : 0; gi < out->n_groups; gi++)
                if (!strcmp(out->groups[gi].fingerprint, fp))
                    break;
            if (gi == out->n_groups) {
                trace_group *gr = &out->groups[out->n_groups++];
                gr->library = lib;
                gr->lib = tr->lib;
                memcpy(gr->fingerprint, fp, 41);
                gr->traces = err_mallocarray(out->n_traces, sizeof *gr->traces);
                if (!gr->traces) {
                    st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
                    break;
                }
                /* short description: first suspect reference, else the leaking class */
                snprintf(gr->short_desc, sizeof gr->short_desc, "%s",
                         rules_simple_name(tr->el[tr->n - 1].class_name));
                for (uint32_t j = 0; j + 1 < tr->n; j++)
                    if (tr->el[j].suspect) {
                        char d[300];
                        trace_ref_display(&tr->el[j], d, sizeof d);
                        if (snprintf(gr->short_desc, sizeof gr->short_desc, "%s%s%s",
                                     rules_simple_name(tr->el[j].class_name),
                                     tr->el[j].ref_type <= TRACE_REF_STATIC ? "." : "", d) < 0)
                            gr->short_desc[0] = 0;
                        break;
                    }
            }
            trace_group *gr = &out->groups[gi];
            gr->traces[gr->n++] = t;
            tr->group = gi;
        }
        if (pass == 0)
            out->n_app_groups = out->n_groups;
    }
done:
    paths_free(&pr);
    virt_gen_free(vg);
    for (uint32_t i = 0; i < n_vs; i++)
        free(vs[i].label);
    free(vs);
    free(targets);
    free(pn);
    free(pe);
    free(ord);
    free(reached);
    free(vis);
    free(stop);
    free(queue);
    if (st != LR_OK)
        trace_result_free(out);
    return st;
}

lr_status trace_finish(const graph *g, const rules_set *rs, const leak_set *ls,
                       const dom_tree *dt, trace_result *out, lr_error *err)
{
    (void)ls;
    if (!dt)
        return LR_OK;
    lr_status st = LR_OK;
    uint32_t nn = g->n_nodes;
    uint8_t *vis = NULL, *stop = NULL, *live = NULL;
    uint32_t *queue = NULL, *cnt = NULL;
    node_ix *want = NULL;
    /* subtree object counts of the nodes the traces show */
    uint32_t nw = 0;
    for (uint32_t t = 0; t < out->n_traces; t++)
        nw += out->traces[t].n;
    want = err_mallocarray(nw ? nw : 1, sizeof *want);
    if (!want) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    nw = 0;
    for (uint32_t t = 0; t < out->n_traces; t++)
        for (uint32_t j = 0; j < out->traces[t].n; j++)
            if (out->traces[t].el[j].node < dt->n)
                want[nw++] = out->traces[t].el[j].node;
    qsort(want, nw, sizeof *want, cmp_node);
    uint32_t nu = 0;
    for (uint32_t k = 0; k < nw; k++)
        if (nu == 0 || want[nu - 1] != want[k])
            want[nu++] = want[k];
    nw = nu;
    cnt = err_mallocarray(nw ? nw : 1, sizeof *cnt);
    if (!cnt || subtree_counts(dt, want, nw, cnt) != 0) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    for (uint32_t t = 0; t < out->n_traces; t++)
        for (uint32_t j = 0; j < out->traces[t].n; j++) {
            trace_elem *el = &out->traces[t].el[j];
            if (el->node < dt->n) {
                el->has_retained = 1;
                el->retained = dt->retained[el->node];
                el->retained_count = cnt[want_index(want, nw, el->node)];
            }
        }
    if (!out->n_groups)
        goto done;
    vis = err_calloc(nn / 8 + 1, 1);
    stop = err_calloc(nn / 8 + 1, 1);
    live = err_calloc(nn / 8 + 1, 1);
    queue = err_mallocarray(nn ? nn : 1, sizeof *queue);
    if (!vis || !stop || !live || !queue) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        goto done;
    }
    for (uint32_t gi = 0; gi < out->n_groups; gi++) {
        trace_group *gr = &out->groups[gi];
        gr->retained = gr->retained_count = 0;
        if (gi >= TRACE_EXACT_GROUPS) {
            /* many groups: sum the dominator sizes of leaking objects no other leaking
             * object of the group dominates (a lower bound of the exact value) */
            memset(stop, 0, nn / 8 + 1);
            for (uint32_t k = 0; k < gr->n; k++) {
                const trace *t = &out->traces[gr->traces[k]];
                node_ix x = t->el[t->n - 1].node;
                stop[x / 8] |= (uint8_t)(1u << (x % 8));
            }
            for (uint32_t k = 0; k < gr->n; k++) {
                const trace *t = &out->traces[gr->traces[k]];
                node_ix x = t->el[t->n - 1].node, d = x < dt->n ? dt->idom[x] : GRAPH_NONE;
                int nested = 0;
                for (uint32_t guard = 0; d < dt->n && guard < dt->n && !nested; guard++) {
                    nested = stop[d / 8] >> (d % 8) & 1;
                    d = dt->idom[d];
                }
                if (!nested && x < dt->n) {
                    gr->retained += dt->retained[x];
                    gr->retained_count += cnt[want_index(want, nw, x)];
                }
            }
            continue;
        }
        memset(stop, 0, nn / 8 + 1);
        for (uint32_t k = 0; k < gr->n; k++) {
            node_ix x = out->traces[gr->traces[k]].el[out->traces[gr->traces[k]].n - 1].node;
            stop[x / 8] |= (uint8_t)(1u << (x % 8));
        }
        together(g, rs, dt, stop, vis, live, queue, &gr->retained, &gr->retained_count);
    }
done:
    free(cnt);
    free(want);
    free(live);
    free(vis);
    free(stop);
    free(queue);
    if (st != LR_OK)
        trace_result_free(out);
    return st;
}

lr_status trace_build(const graph *g, const rules_set *rs, const leak_set *ls,
                      const dom_tree *dt, trace_result *out, lr_error *err)
{
    lr_status st = trace_paths(g, rs, ls, out, err);
    return st == LR_OK ? trace_finish(g, rs, ls, dt, out, err) : st;
}
