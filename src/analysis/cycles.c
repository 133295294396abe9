/* SPDX-License-Identifier: Apache-2.0 */
/* cycles.c: retain cycles (analysis layer), prefix cycles_. Implements cycles.h in four
 * steps over object edges (cycles_edge_ok): a BFS for the scope; Tarjan's SCC algorithm with
 * an explicit call stack (index/lowlink per node, O(N+E), no recursion); a bounded DFS per
 * start node that finds each elementary cycle once, from its smallest node index, never
 * leaving the start's component; and canonical grouping by signature text in a hash table.
 * Memory: five uint32 arrays and two byte arrays of N, plus 8 bytes per enumerated member.
 * Retained size of a group: the members of all its instances are marked, and a member adds
 * its dominator-tree retained size unless a marked node dominates it (walk up idom, bounded
 * by CYCLES_IDOM_WALK steps), so shared subtrees are counted once. */
#include "analysis/cycles.h"
#include "analysis/devtools.h"
#include "analysis/trace.h"
#include "graph/classname.h"
#include "base/hash.h"
#include "base/hmap.h"

#include <stdlib.h>
#include <string.h>

#define CYCLES_IDOM_WALK 1000000 /* idom steps per member before giving up (counts it) */
#define STEP_MAX 512             /* bytes of one "Class.field" step */

/* V8's internal edges that hold a JavaScript value's own data no other edge shows: a
 * closure's `context` (its captured variables; a generator's and a suspended async
 * function's too, with their `receiver`; not their saved registers, where V8 keeps the
 * generator itself: every generator would be a cycle), a context's
 * `previous` (a closure in a nested block reaches the outer scope's variables through it) and
 * `extension`, a bound function's `bound_this` and `bound_arguments`, a promise's
 * `reactions_or_result` and a reaction's handlers and next reaction, a Map's or Set's `table`.
 * The VM's other internal edges hold maps, code, feedback and the native context: every
 * function reaches the whole realm through those. */
static const char *const V8_DATA_EDGES[] = {
    "context", "previous", "extension", "receiver", "bound_this",
    "bound_arguments", "reactions_or_result", "fulfill_handler", "reject_handler",
    "promise_or_capability", "next", "table"};

/* Whether V8 edge e (internal or property) takes part in cycles. Internal: V8_DATA_EDGES, and
 * the numbered slots of a table ("(array)" names them by number), but not a WeakMap table's
 * slot for an entry's value, which lives only while its key does (an ephemeron: the map
 * keeps neither). A closure stored on the object it captures (`this.cb = () => this.x`) is
 * JavaScript's most common cycle, and it runs through `context`. Property: not the prototype
 * links, `__proto__` and a function's `prototype`, where every class and function makes a
 * cycle with its constructor that no program built. */
/* Whether x is a context below a function's or block's (`system / Context` whose `previous`
 * is no native context): the outermost function context of a script or CommonJS module holds
 * its top-level names, `require` among them, and past it lies the whole realm. */
/* Whether V8 names x's class as a function's or block's context: "system / Context", which
 * Chromium follows with its scope, "system / Context / scope @46581" (not a NativeContext). */
static int v8_context(const graph *g, node_ix x)
{
    static const char ctx[] = "system / Context";
    const char *nm = graph_class_name(g, x);
    return !strncmp(nm, ctx, sizeof ctx - 1) &&
           (!nm[sizeof ctx - 1] || !strncmp(nm + sizeof ctx - 1, " / ", 3));
}

static int v8_inner_context(const graph *g, node_ix x)
{
    if (x >= g->n_nodes || !v8_context(g, x))
        return 0;
    for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_INTERNAL ||
            strcmp(graph_str(g, graph_edge_name_from(g, x, e)), "previous") != 0)
            continue;
        node_ix y = g->edge_to[e];
        return y < g->n_nodes && v8_context(g, y);
    }
    return 0;
}

/* Whether context variable ctx -> fn names a function whose own context is ctx: a class in
 * its class scope, a function declared in the scope it closes over. The language makes that
 * cycle for every class and function, as their prototypes do; no program built it. */
static int own_binding(const graph *g, node_ix ctx, node_ix fn)
{
    if (fn >= g->n_nodes || g->node_kind[fn] != GRAPH_KIND_CLOSURE || !g->node_name)
        return 0;
    for (edge_ix e = g->first_edge[fn]; e < g->first_edge[fn + 1]; e++)
        if (g->edge_to[e] == ctx && GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_INTERNAL &&
            strcmp(graph_str(g, graph_edge_name_from(g, fn, e)), "context") == 0)
            return 1;
    return 0;
}

static int v8_edge_ok(const graph *g, node_ix from, edge_ix e, unsigned kind)
{
    const char *s = graph_str(g, graph_edge_name_from(g, from, e));
    if (kind == GRAPH_EDGE_PROPERTY)
        return strcmp(s, "__proto__") != 0 &&
               !(g->node_kind[from] == GRAPH_KIND_CLOSURE && strcmp(s, "prototype") == 0);
    if (g->node_kind[from] == GRAPH_KIND_OBJ_ARRAY && s[0] >= '0' && s[0] <= '9') {
        uint64_t table;
        return !devtools_weakmap_edge(s, &table); /* a table's slot, unless an ephemeron's */
    }
    for (size_t i = 0; i < sizeof V8_DATA_EDGES / sizeof *V8_DATA_EDGES; i++)
        if (strcmp(s, V8_DATA_EDGES[i]) == 0) {
            if (i == 1) /* previous: between a function's contexts only */
                return v8_inner_context(g, from) && v8_inner_context(g, g->edge_to[e]);
            if (i == 2) /* extension: a function context's (a suspended async function's
                         * generator), not a script's (its global object) */
                return v8_context(g, from);
            return 1;
        }
    return 0;
}

/* A generic graph (JSON lines, the builder): its writer chose each edge's kind to describe
 * the reference, not the VM's bookkeeping as V8's internal and property kinds mix in, so every
 * strong one between objects counts (a Lua table's `property`, a scanner's `internal`). */
static int generic_graph(const graph *g)
{
    return g->format && (!strcmp(g->format, "graph") || !strcmp(g->format, "builder"));
}

int cycles_gc_frees(const graph *g)
{
    return g->format && !generic_graph(g) && strcmp(g->format, "native") != 0;
}

int cycles_edge_ok(const graph *g, node_ix from, edge_ix e)
{
    uint8_t k = g->edge_kind[e];
    if (GRAPH_EDGE_STRENGTH(k) != GRAPH_STRONG)
        return 0;
    uint8_t to = g->node_kind[g->edge_to[e]];
    if (to == GRAPH_KIND_CLASS || to == GRAPH_KIND_CODE || to == GRAPH_KIND_SYNTHETIC)
        return 0;
    /* Last the V8 name checks: a V8 edge's name is read back from the snapshot's text. An
     * internal edge can only be a closure's context, a table or a table's slot. */
    unsigned kind = GRAPH_EDGE_KIND(k);
    switch (kind) {
    case GRAPH_EDGE_CONTEXT:
        return !own_binding(g, from, g->edge_to[e]);
    case GRAPH_EDGE_FIELD:
    case GRAPH_EDGE_ELEMENT:
    case GRAPH_EDGE_NATIVE:
    case GRAPH_EDGE_XREF:
        return 1;
    case GRAPH_EDGE_STATIC:
    case GRAPH_EDGE_ROOT:
        return 0;
    case GRAPH_EDGE_INTERNAL:
        if (generic_graph(g))
            return 1;
        return g->node_name && v8_edge_ok(g, from, e, kind);
    case GRAPH_EDGE_PROPERTY:
        return generic_graph(g) || (g->node_name && v8_edge_ok(g, from, e, kind));
    case GRAPH_EDGE_HIDDEN:
        /* a V8 struct's slots (a promise reaction's handler and promise): reached only
         * through the data edges above; Chromium types a reaction native */
        return generic_graph(g) || g->node_kind[from] == GRAPH_KIND_OTHER ||
               (g->node_kind[from] == GRAPH_KIND_NATIVE && g->node_name &&
                !strncmp(graph_class_name(g, from), "system / PromiseReaction", 24));
    default:
        return generic_graph(g);
    }
}

/* ---- growable vectors ---- */

typedef struct u32vec {
    uint32_t *v;
    uint64_t n, cap;
} u32vec;

static int push32(u32vec *a, uint32_t x)
{
    if (a->n == a->cap) {
        uint64_t nc = a->cap ? a->cap * 2 : 1024;
        uint32_t *p = err_reallocarray(a->v, nc, sizeof *p);
        if (!p)
            return -1;
        a->v = p;
        a->cap = nc;
    }
    a->v[a->n++] = x;
    return 0;
}

/* ---- state ---- */

typedef struct cst {
    const graph *g;
    const cycles_opts *o;
    const dom_tree *dom;/* NULL: reachability unknown, every cycle taken as reachable */
    uint8_t *kept;      /* with dom: bits of what no GC frees while memory lasts (trace_reach:
                         * strong and soft references, an instance's class); the rest is
                         * garbage in a traced heap */
    cycles_result *r;
    lr_error *err;
    uint8_t *scope;     /* 1 = in scope */
    uint32_t *comp;     /* component id, UINT32_MAX = none */
    uint32_t *comp_size;/* nodes per component */
    u32vec pairs;       /* (group, member) pairs, interleaved */
    u32vec ex_nodes;    /* example nodes/edges of groups (appended per new group) */
    u32vec ex_edges;
    cycles_cycle *grp;  /* groups */
    uint32_t n_grp, cap_grp;
    hmap index;         /* FNV-1a of a group's signature -> group */
    char *steps;        /* record's scratch for the longest cycle: STEP_MAX per member */
    char *sig;          /* (STEP_MAX + 4) per member */
    size_t sig_cap;
    uint8_t *dict;      /* dictionary_like's verdicts per node */
    node_ix *rn;        /* a cycle in its canonical rotation */
    edge_ix *re;
} cst;

static lr_status nomem(cst *s) { return LR_FAIL(s->err, LR_ERR_NOMEM, "cycles: out of memory"); }

/* ---- scope ---- */

static lr_status build_scope(cst *s)
{
    const graph *g = s->g;
    const cycles_opts *o = s->o;
    if (!o->from || !o->n_from) {
        memset(s->scope, 1, g->n_nodes);
        s->r->n_scope = g->n_nodes;
        return LR_OK;
    }
    uint32_t *q = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *q);
    if (!q)
        return nomem(s);
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < o->n_from; i++) {
        node_ix n = o->from[i];
        if (n < g->n_nodes && !s->scope[n]) {
            s->scope[n] = 1;
            q[tail++] = n;
        }
    }
    while (head < tail) {
        node_ix v = q[head++];
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            if (!cycles_edge_ok(g, v, e))
                continue;
            node_ix w = g->edge_to[e];
            if (!s->scope[w]) {
                s->scope[w] = 1;
                q[tail++] = w;
            }
        }
    }
    s->r->n_scope = tail;
    free(q);
    return LR_OK;
}

/* ---- Tarjan, iterative ---- */

static int class_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int scc_cmp(const void *a, const void *b)
{
    const cycles_scc *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->example < y->example ? -1 : x->example > y->example;
}

static lr_status tarjan(cst *s)
{
    const graph *g = s->g;
    uint32_t n = g->n_nodes;
    lr_status rc = LR_OK;
    uint32_t *idx = err_calloc(n ? n : 1, sizeof *idx); /* 0 = unvisited, else index + 1 */
    uint32_t *low = err_mallocarray(n ? n : 1, sizeof *low);
    uint32_t *stk = err_mallocarray(n ? n : 1, sizeof *stk);
    uint32_t *cs_node = err_mallocarray(n ? n : 1, sizeof *cs_node);
    edge_ix *cs_edge = err_mallocarray(n ? n : 1, sizeof *cs_edge);
    uint8_t *on = err_calloc(n ? n : 1, 1);
    u32vec sccs = {0}; /* (size, example, top class, top count) quadruples */
    uint32_t *tmp = NULL;
    if (!idx || !low || !stk || !cs_node || !cs_edge || !on) {
        rc = nomem(s);
        goto out;
    }
    uint32_t counter = 0, sp = 0, n_comp = 0;
    for (node_ix root = 0; root < n; root++) {
        if (!s->scope[root] || idx[root])
            continue;
        uint32_t csp = 0;
        idx[root] = low[root] = ++counter;
        stk[sp++] = root;
        on[root] = 1;
        cs_node[csp] = root;
        cs_edge[csp++] = g->first_edge[root];
        while (csp) {
            node_ix v = cs_node[csp - 1];
            edge_ix e = cs_edge[csp - 1];
            if (e < g->first_edge[v + 1]) {
                cs_edge[csp - 1] = e + 1;
                if (!cycles_edge_ok(g, v, e))
                    continue;
                node_ix w = g->edge_to[e];
                if (!s->scope[w])
                    continue;
                if (!idx[w]) {
                    idx[w] = low[w] = ++counter;
                    stk[sp++] = w;
                    on[w] = 1;
                    cs_node[csp] = w;
                    cs_edge[csp++] = g->first_edge[w];
                } else if (on[w] && idx[w] < low[v]) {
                    low[v] = idx[w];
                }
                continue;
            }
            csp--;
            if (csp && low[v] < low[cs_node[csp - 1]])
                low[cs_node[csp - 1]] = low[v];
            if (low[v] != idx[v])
                continue;
            /* v is a component root: pop its members. */
            uint32_t start = sp;
            do {
                start--;
            } while (stk[start] != v);
            uint32_t size = sp - start, c = n_comp++;
            node_ix ex = UINT32_MAX;
            for (uint32_t i = start; i < sp; i++) {
                on[stk[i]] = 0;
                s->comp[stk[i]] = c;
                if (stk[i] < ex)
                    ex = stk[i];
            }
            int nontrivial = size > 1;
            if (!nontrivial)
                for (edge_ix f = g->first_edge[v]; f < g->first_edge[v + 1]; f++)
                    if (g->edge_to[f] == v && cycles_edge_ok(g, v, f))
                        nontrivial = 1;
            if (nontrivial) {
                /* most common class among the members */
                tmp = realloc(tmp, (size_t)size * sizeof *tmp);
                if (!tmp) {
                    rc = nomem(s);
                    goto out;
                }
                for (uint32_t i = 0; i < size; i++)
                    tmp[i] = graph_node_class(g, stk[start + i]);
                qsort(tmp, size, sizeof *tmp, class_cmp);
                uint32_t best = tmp[0], bc = 0;
                for (uint32_t i = 0; i < size;) {
                    uint32_t j = i;
                    while (j < size && tmp[j] == tmp[i])
                        j++;
                    if (j - i > bc) {
                        bc = j - i;
                        best = tmp[i];
                    }
                    i = j;
                }
                if (push32(&sccs, size) || push32(&sccs, ex) || push32(&sccs, best) ||
                    push32(&sccs, bc)) {
                    rc = nomem(s);
                    goto out;
                }
                s->r->n_sccs++;
                s->r->scc_nodes += size;
            } else {
                s->comp[v] = UINT32_MAX; /* trivial: never part of a cycle */
            }
            sp = start;
        }
    }
    uint64_t ns = sccs.n / 4;
    cycles_scc *all = err_mallocarray(ns ? ns : 1, sizeof *all);
    if (!all) {
        rc = nomem(s);
        goto out;
    }
    for (uint64_t i = 0; i < ns; i++)
        all[i] = (cycles_scc){sccs.v[4 * i], sccs.v[4 * i + 1], sccs.v[4 * i + 2],
                              sccs.v[4 * i + 3]};
    qsort(all, ns, sizeof *all, scc_cmp);
    s->r->sccs = all;
    s->r->n_listed_sccs = ns < CYCLES_MAX_SCCS ? (uint32_t)ns : CYCLES_MAX_SCCS;
out:
    free(idx);
    free(low);
    free(stk);
    free(cs_node);
    free(cs_edge);
    free(on);
    free(sccs.v);
    free(tmp);
    return rc;
}

/* ---- canonical signatures ---- */

#define DICT_MIN 8   /* rules' `dictionary min` default (docs/rules.md) */
#define DICT_MANY 32 /* properties past which no class's named fields are taken for keys */

/* Whether V8 keeps object h in dictionary mode: its shape (`map`) has no `descriptors`, the
 * layout a fast object's named properties share. An instance of a class with eight named
 * hooks of one type is fast: its field names say which hook holds what. */
static int v8_dictionary_mode(const graph *g, node_ix h)
{
    for (edge_ix e = g->first_edge[h]; e < g->first_edge[h + 1]; e++) {
        node_ix m = g->edge_to[e];
        if (m >= g->n_nodes || GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_INTERNAL ||
            strcmp(graph_str(g, graph_edge_name_from(g, h, e)), "map") != 0)
            continue;
        for (edge_ix f = g->first_edge[m]; f < g->first_edge[m + 1]; f++)
            if (GRAPH_EDGE_KIND(g->edge_kind[f]) == GRAPH_EDGE_INTERNAL &&
                !strcmp(graph_str(g, graph_edge_name_from(g, m, f)), "descriptors"))
                return 0;
        return 1;
    }
    return 0;
}

/* Whether V8 object h is a plain object, no class's instance: `Object`, or named by its
 * properties as DevTools names an object without a constructor (`{a, b, c}`). */
static int plain_object(const graph *g, node_ix h)
{
    const char *cn = graph_class_name(g, h);
    return cn[0] == '{' || !strcmp(cn, "Object");
}

/* Whether V8 object h is used as a dictionary: at least DICT_MIN of its property edges, and
 * three quarters of them, lead to objects of one class, as `clusters` tells a dictionary (a
 * registry `byId[id] = new Handler(...)`: 1,000 cycles through it read as 1,000 signatures,
 * one per key), and either V8 keeps it in dictionary mode or it is a plain object with
 * DICT_MANY properties (a registry JSON.parse or a literal made is a fast object; Bun writes
 * no shapes). A class's named hooks of one type stay fields, 8 or 60. Kept per node in
 * s->dict (0 not asked, 1 no, 2 yes); false when that is missing. */
static int dictionary_like(cst *s, node_ix h)
{
    const graph *g = s->g;
    if (!s->dict && !(s->dict = calloc(g->n_nodes ? g->n_nodes : 1, 1)))
        return 0;
    if (s->dict[h])
        return s->dict[h] == 2;
    uint32_t m = 0, votes = 0, n_best = 0;
    class_ix best = GRAPH_NONE;
    for (edge_ix e = g->first_edge[h]; e < g->first_edge[h + 1]; e++) /* majority vote */
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_PROPERTY && g->edge_to[e] < g->n_nodes) {
            class_ix c = graph_node_class(g, g->edge_to[e]);
            m++;
            if (!votes)
                best = c;
            votes += c == best ? 1 : -1u;
        }
    for (edge_ix e = g->first_edge[h]; m >= DICT_MIN && e < g->first_edge[h + 1]; e++)
        n_best += GRAPH_EDGE_KIND(g->edge_kind[e]) == GRAPH_EDGE_PROPERTY &&
                  g->edge_to[e] < g->n_nodes && graph_node_class(g, g->edge_to[e]) == best;
    /* DICT_MANY for a plain object alone: an instance of a class keeps its declared fields
     * (a container's 35 services, each holding it back, read as one `[]` and hid a new one
     * from --baseline), unless V8 made it a dictionary */
    int yes = m >= DICT_MIN && n_best >= DICT_MIN && (uint64_t)n_best * 4 >= (uint64_t)m * 3 &&
              ((m >= DICT_MANY && plain_object(g, h)) || v8_dictionary_mode(g, h));
    s->dict[h] = yes ? 2 : 1;
    return yes;
}

/* "Class.field" for member n leaving through edge e; an element is "Class.[]" (the index
 * left out, as `path` writes ".[3]": "Object[][]" would read as a two-dimensional array).
 * The class as classname_stable names it: a lambda's hidden class carries an address the JVM
 * picks anew in each run, Chromium names a closure's context after its scope's node ("system
 * / Context / scope @40519"), and a baseline from another run must find the same cycle. */
static void step_text(cst *s, node_ix n, edge_ix e, char *buf, size_t cap)
{
    const graph *g = s->g;
    char nm[STEP_MAX], cn[STEP_MAX];
    unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
    const char *f = GRAPH_EDGE_NAME_IS_INDEX(k) ? "[]" : graph_edge_name_text(g, e, nm, sizeof nm);
    if (k == GRAPH_EDGE_INTERNAL && f[0] >= '0' && f[0] <= '9')
        f = "[]"; /* a V8 table's numbered slot: its number moves with the table's layout */
    if (k == GRAPH_EDGE_PROPERTY && !generic_graph(g) && dictionary_like(s, n))
        f = "[]"; /* an object used as a dictionary: its keys are data, as a Map's are */
    classname_stable(graph_class_name(g, n), cn, sizeof cn);
    size_t len = strlen(cn);
    if (len > cap - 2)
        len = cap - 2;
    memcpy(buf, cn, len);
    buf[len] = '.';
    snprintf(buf + len + 1, cap - len - 1, "%s", f);
}

/* The group of signature sig whose instances a GC root reaches (unreachable 0) or not. */
static int grp_find_or_add(cst *s, const char *sig, int unreachable, uint32_t len,
                           const node_ix *nodes, const edge_ix *edges, uint32_t *out)
{
    uint32_t h = hash_fnv32_str(sig) ^ (uint32_t)unreachable;
    hmap_it it;
    for (uint32_t g = hmap_first(&s->index, h, &it); g != HMAP_NONE;
         g = hmap_next(&s->index, &it)) {
        if (s->grp[g].unreachable == unreachable && strcmp(s->grp[g].signature, sig) == 0) {
            *out = g;
            return 0;
        }
    }
    if (s->n_grp == s->cap_grp) {
        uint32_t nc = s->cap_grp ? s->cap_grp * 2 : 64;
        cycles_cycle *p = err_reallocarray(s->grp, nc, sizeof *p);
        if (!p)
            return -1;
        s->grp = p;
        s->cap_grp = nc;
    }
    cycles_cycle *c = &s->grp[s->n_grp];
    memset(c, 0, sizeof *c);
    c->signature = strdup(sig);
    if (!c->signature || !hmap_add(&s->index, h, s->n_grp))
        return -1;
    c->length = len;
    c->unreachable = unreachable;
    c->first = (uint32_t)s->ex_nodes.n;
    for (uint32_t i = 0; i < len; i++)
        if (push32(&s->ex_nodes, nodes[i]) || push32(&s->ex_edges, edges[i]))
            return -1;
    *out = s->n_grp++;
    return 0;
}

/* Records the cycle nodes[0..len) with edges[i] from nodes[i] to nodes[(i+1) % len]. */
static lr_status record(cst *s, const node_ix *nodes, const edge_ix *edges, uint32_t len)
{
#define STEP(i) (s->steps + (size_t)(i) * STEP_MAX)
    for (uint32_t i = 0; i < len; i++)
        step_text(s, nodes[i], edges[i], STEP(i), STEP_MAX);
    /* smallest rotation, compared step by step */
    uint32_t best = 0;
    for (uint32_t r = 1; r < len; r++) {
        for (uint32_t i = 0; i < len; i++) {
            int c = strcmp(STEP((r + i) % len), STEP((best + i) % len));
            if (c < 0) {
                best = r;
                break;
            }
            if (c > 0)
                break;
        }
    }
    char *sig = s->sig;
    size_t p = 0;
    node_ix *rn = s->rn;
    edge_ix *re = s->re;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t k = (best + i) % len;
        rn[i] = nodes[k];
        re[i] = edges[k];
        p += (size_t)snprintf(sig + p, s->sig_cap - p, "%s%s", i ? " -> " : "", STEP(k));
        if (p >= s->sig_cap)
            p = s->sig_cap - 1;
    }
#undef STEP
    uint32_t gi;
    /* the members reach each other over strong edges: one root reaches all or none */
    node_ix m0 = nodes[0];
    int unreachable = s->kept ? !(s->kept[m0 / 8] >> (m0 % 8) & 1)
                              : s->dom && s->dom->idom && s->dom->idom[m0] == GRAPH_NONE;
    if (grp_find_or_add(s, sig, unreachable, len, rn, re, &gi) != 0)
        return nomem(s);
    s->grp[gi].count++;
    for (uint32_t i = 0; i < len; i++)
        if (push32(&s->pairs, gi) || push32(&s->pairs, nodes[i]))
            return nomem(s);
    s->r->n_found++;
    return LR_OK;
}

/* ---- bounded enumeration ---- */

/* One pass of the bounded DFS: the elementary cycles of at most L members, recording those
 * of more than min (a pass before found the rest), with *steps counting the edge visits of
 * every pass. pn, pe and cur hold L entries. */
static lr_status dfs_pass(cst *s, uint32_t L, uint32_t min, node_ix *pn, edge_ix *pe,
                          edge_ix *cur, uint64_t *steps, uint64_t budget)
{
    const graph *g = s->g;
    uint64_t base = s->r->n_found; /* the cycle cap holds per pass: per band of lengths */
    for (node_ix st = 0; st < g->n_nodes; st++) {
        uint32_t c = s->comp[st];
        if (c == UINT32_MAX || !s->scope[st])
            continue;
        uint32_t depth = 1;
        pn[0] = st;
        cur[0] = g->first_edge[st];
        while (depth) {
            node_ix v = pn[depth - 1];
            if (cur[depth - 1] >= g->first_edge[v + 1]) {
                depth--;
                continue;
            }
            edge_ix e = cur[depth - 1]++;
            if (++*steps > budget) {
                s->r->truncated = 2;
                return LR_OK;
            }
            if (s->r->n_found - base >= s->o->max_cycles) {
                s->r->truncated = 1;
                return LR_OK;
            }
            if (!cycles_edge_ok(g, v, e))
                continue;
            node_ix w = g->edge_to[e];
            if (w == st) {
                pe[depth - 1] = e;
                lr_status rc = depth > min ? record(s, pn, pe, depth) : LR_OK;
                if (rc != LR_OK)
                    return rc;
                continue;
            }
            if (w < st || s->comp[w] != c || depth == L)
                continue;
            int onpath = 0;
            for (uint32_t i = 1; i < depth; i++)
                if (pn[i] == w) {
                    onpath = 1;
                    break;
                }
            if (onpath)
                continue;
            pe[depth - 1] = e;
            pn[depth] = w;
            cur[depth] = g->first_edge[w];
            depth++;
        }
    }
    return LR_OK;
}

/* The short cycles first, over every start node: passes up to 2 and 4 members, then up to
 * the longest asked for, each recording only what is longer than the pass before found. In
 * one pass, the step cap went on the long paths from the first start nodes of a wide scope:
 * a Node server's 150,000 connections, one component of 1.46 M objects once
 * closures and promises count, showed a 3 kB cycle and not the 119 MB Server <-> Map one
 * (length 4), and a page's layout tree hid a planted 2-cycle. The cycle cap holds per pass
 * (150,000 bound methods' 2-cycles took it all); the short passes get a quarter of the step
 * cap each and the last pass all of it, so walking the short paths again never starves the
 * long ones (a million-node linked list walked six times lost its 10-member cycles). */
static lr_status enumerate(cst *s)
{
    uint32_t L = s->o->max_length;
    if (L == 0)
        return LR_OK;
    if (L > CYCLES_MAX_LENGTH)
        return LR_FAIL(s->err, LR_ERR_USAGE, "cycles: a longest cycle of %u members is past "
                       "the limit of %u", (unsigned)L, (unsigned)CYCLES_MAX_LENGTH);
    s->sig_cap = (size_t)L * (STEP_MAX + 4);
    s->steps = err_mallocarray(L, STEP_MAX);
    s->sig = malloc(s->sig_cap);
    s->rn = err_mallocarray(L, sizeof *s->rn);
    s->re = err_mallocarray(L, sizeof *s->re);
    node_ix *pn = err_mallocarray(L, sizeof *pn);
    edge_ix *pe = err_mallocarray(L, sizeof *pe), *cur = err_mallocarray(L, sizeof *cur);
    lr_status rc = LR_OK;
    if (!s->steps || !s->sig || !s->rn || !s->re || !pn || !pe || !cur) {
        rc = nomem(s);
        goto out;
    }
    static const uint32_t passes[] = {2, 4};
    uint32_t done = 0;
    for (size_t i = 0; rc == LR_OK && done < L; i++) {
        uint32_t upto = i < sizeof passes / sizeof *passes && passes[i] < L ? passes[i] : L;
        uint64_t steps = 0, budget = upto < L ? s->o->max_steps / 4 : s->o->max_steps;
        /* a short pass out of steps leaves its lengths unfinished, which the later passes do
         * not record again: the result says it stopped at its cap (80,000 pairs read as
         * 58,686 found, and complete) */
        rc = dfs_pass(s, upto, done, pn, pe, cur, &steps, budget);
        done = upto;
    }
out:
    free(pn);
    free(pe);
    free(cur);
    return rc;
}

/* ---- singleton reachability and retained sizes ---- */

/* Marks what object edges reach from the targets of static fields. */
static lr_status static_reach(cst *s, uint8_t *mark)
{
    const graph *g = s->g;
    uint32_t *q = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *q);
    if (!q)
        return nomem(s);
    uint32_t head = 0, tail = 0;
    for (edge_ix e = 0; e < g->n_edges; e++) {
        if (GRAPH_EDGE_KIND(g->edge_kind[e]) != GRAPH_EDGE_STATIC ||
            GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG)
            continue;
        node_ix w = g->edge_to[e];
        if (!mark[w] && g->node_kind[w] != GRAPH_KIND_CLASS) {
            mark[w] = 1;
            q[tail++] = w;
        }
    }
    while (head < tail) {
        node_ix v = q[head++];
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            if (!cycles_edge_ok(g, v, e))
                continue;
            node_ix w = g->edge_to[e];
            if (!mark[w]) {
                mark[w] = 1;
                q[tail++] = w;
            }
        }
    }
    free(q);
    return LR_OK;
}

static int pair_cmp(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int grp_cmp(const void *a, const void *b)
{
    const cycles_cycle *x = a, *y = b;
    if (x->unreachable != y->unreachable)
        return x->unreachable - y->unreachable;
    if (x->has_start != y->has_start)
        return y->has_start - x->has_start;
    if (x->retained != y->retained)
        return x->retained > y->retained ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->signature, y->signature);
}

/* What a group's unreachable members keep: a retain cycle no root reaches is the leak
 * itself where references are counted (an ARC or CPython cycle a scanner exports), and
 * everything only it reaches stays with it. Counted over strong edges into other unreachable
 * objects (the dominator tree gives them nothing: its retained sizes stop at the roots'
 * reach); pairs[i..j) are the group's (group, member) pairs. */
static lr_status unreachable_kept(cst *s, const dom_tree *dom, uint64_t i, uint64_t j,
                                  cycles_cycle *c, uint8_t **seenp)
{
    const graph *g = s->g;
    uint32_t n_un = 0;
    for (uint64_t k = i; k < j; k++)
        n_un += dom->idom[s->pairs.v[2 * k + 1]] == GRAPH_NONE;
    if (!n_un)
        return LR_OK;
    if (!*seenp && !(*seenp = err_calloc(g->n_nodes ? g->n_nodes : 1, 1)))
        return nomem(s);
    uint8_t *seen = *seenp; /* all clear between groups: what was set is cleared below */
    u32vec q = {0};
    lr_status rc = LR_OK;
    for (uint64_t k = i; rc == LR_OK && k < j; k++) {
        node_ix m = s->pairs.v[2 * k + 1];
        if (dom->idom[m] == GRAPH_NONE && !seen[m]) {
            seen[m] = 1;
            if (push32(&q, m))
                rc = nomem(s);
        }
    }
    for (uint64_t h = 0; rc == LR_OK && h < q.n; h++) {
        node_ix v = q.v[h];
        c->retained += graph_node_size(g, v) + (g->node_native ? g->node_native[v] : 0);
        for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
            node_ix w = g->edge_to[e];
            if (w >= g->n_nodes || seen[w] || dom->idom[w] != GRAPH_NONE ||
                GRAPH_EDGE_STRENGTH(g->edge_kind[e]) != GRAPH_STRONG)
                continue;
            seen[w] = 1;
            if (push32(&q, w))
                rc = nomem(s);
        }
    }
    for (uint64_t h = 0; h < q.n; h++)
        seen[q.v[h]] = 0;
    free(q.v);
    return rc;
}

static lr_status finish_groups(cst *s, const dom_tree *dom)
{
    const graph *g = s->g;
    uint8_t *stat = err_calloc(g->n_nodes ? g->n_nodes : 1, 1);
    uint8_t *mark = err_calloc(g->n_nodes ? g->n_nodes : 1, 1);
    if (!stat || !mark) {
        free(stat);
        free(mark);
        return nomem(s);
    }
    lr_status rc = static_reach(s, stat);
    /* the start objects (bit 2): a cycle one of them is part of ranks before the cycles
     * only their scope holds (a page's 1,163 cycles put a widget's two at 972 and 973) */
    for (uint32_t k = 0; rc == LR_OK && s->o->from && k < s->o->n_from; k++)
        if (s->o->from[k] < g->n_nodes)
            stat[s->o->from[k]] |= 2;
    uint8_t *seen = NULL; /* unreachable_kept's marks, made when first needed */
    uint64_t np = s->pairs.n / 2;
    if (rc == LR_OK && np)
        qsort(s->pairs.v, np, 2 * sizeof(uint32_t), pair_cmp);
    for (uint64_t i = 0; rc == LR_OK && i < np;) {
        uint32_t gi = s->pairs.v[2 * i];
        uint64_t j = i;
        while (j < np && s->pairs.v[2 * j] == gi)
            j++;
        cycles_cycle *c = &s->grp[gi];
        /* unique members of this group */
        for (uint64_t k = i; k < j; k++) {
            node_ix m = s->pairs.v[2 * k + 1];
            if (!mark[m]) {
                mark[m] = 1;
                c->n_members++;
                if (stat[m] & 1)
                    c->singleton = 1;
                if (stat[m] & 2)
                    c->has_start = 1;
            }
        }
        /* a traced heap's unreachable cycle is garbage: it keeps nothing; one a soft
         * reference holds is outside the dominator tree and keeps what it alone reaches */
        if (dom && dom->idom && rc == LR_OK && !(c->unreachable && cycles_gc_frees(g)))
            rc = unreachable_kept(s, dom, i, j, c, &seen);
        if (dom && dom->idom) {
            for (uint64_t k = i; k < j; k++) {
                node_ix m = s->pairs.v[2 * k + 1];
                if (k > i && m == s->pairs.v[2 * k - 1])
                    continue; /* duplicate pair */
                node_ix up = dom->idom[m];
                uint32_t walk = 0;
                int dominated = 0;
                while (up < g->n_nodes && walk++ < CYCLES_IDOM_WALK) {
                    if (mark[up]) {
                        dominated = 1;
                        break;
                    }
                    if (dom->idom[up] == up) /* a model's top may be its own dominator */
                        break;
                    up = dom->idom[up];
                }
                if (!dominated)
                    c->retained += dom->retained[m];
            }
        }
        for (uint64_t k = i; k < j; k++)
            mark[s->pairs.v[2 * k + 1]] = 0;
        i = j;
    }
    free(stat);
    free(mark);
    free(seen);
    if (rc == LR_OK && s->n_grp)
        qsort(s->grp, s->n_grp, sizeof *s->grp, grp_cmp);
    return rc;
}

/* ---- entry point ---- */

lr_status cycles_find(const graph *g, const dom_tree *dom, const cycles_opts *o,
                      cycles_result *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    cst s = {0};
    s.g = g;
    s.o = o;
    s.dom = dom;
    s.r = r;
    s.err = err;
    uint32_t n = g->n_nodes ? g->n_nodes : 1;
    s.scope = err_calloc(n, 1);
    s.comp = err_mallocarray(n, sizeof *s.comp);
    lr_status rc = LR_OK;
    if (!s.scope || !s.comp) {
        rc = nomem(&s);
        goto out;
    }
    memset(s.comp, 0xff, (size_t)n * sizeof *s.comp);
    if ((rc = build_scope(&s)) != LR_OK || (rc = tarjan(&s)) != LR_OK)
        goto out;
    if (o->from && o->n_from && dom && dom->idom && cycles_gc_frees(g)) {
        s.kept = err_calloc(n / 8 + 1, 1);
        node_ix *queue = err_mallocarray(n, sizeof *queue);
        if (s.kept && queue)
            trace_reach(g, s.kept, queue, 1);
        free(queue);
        if (!s.kept || !queue) {
            rc = nomem(&s);
            goto out;
        }
    }
    if (o->from && o->n_from) {
        if ((rc = enumerate(&s)) != LR_OK || (rc = finish_groups(&s, dom)) != LR_OK)
            goto out;
    }
    r->cycles = s.grp;
    r->n_cycles = s.n_grp;
    s.grp = NULL;
    s.n_grp = 0;
    r->nodes = s.ex_nodes.v;
    r->edges = s.ex_edges.v;
    s.ex_nodes.v = s.ex_edges.v = NULL;
out:
    for (uint32_t i = 0; i < s.n_grp; i++)
        free(s.grp[i].signature);
    free(s.grp);
    free(s.steps);
    free(s.dict);
    free(s.kept);
    free(s.sig);
    free(s.rn);
    free(s.re);
    hmap_free(&s.index);
    free(s.pairs.v);
    free(s.ex_nodes.v);
    free(s.ex_edges.v);
    free(s.scope);
    free(s.comp);
    free(s.comp_size);
    if (rc != LR_OK)
        cycles_free(r);
    return rc;
}

void cycles_free(cycles_result *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n_cycles; i++)
        free(r->cycles[i].signature);
    free(r->cycles);
    free(r->sccs);
    free(r->nodes);
    free(r->edges);
    memset(r, 0, sizeof *r);
}
