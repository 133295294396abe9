/* SPDX-License-Identifier: Apache-2.0 */
/* jsdupes.c: memlab's duplicate-string analysis of V8-style snapshots (analysis layer),
 * prefix jsdup_. Four passes: which string nodes a code node dominates (one walk up
 * memlab's dominator tree per node, memoised), the (length, hash) of every string value
 * (bottom-up over concatenations with an explicit stack), a sort of the candidates by
 * (hash, length, node) whose runs are split by comparing bytes, and the ranking in memlab's
 * key order. The bytes of a value are only ever streamed (a walker over the string tree),
 * never assembled, so a deep or shared concatenation costs what its comparison reads. */
#include "analysis/jsdupes.h"

#include <stdlib.h>
#include <string.h>

#define MOD61 ((1ull << 61) - 1)
#define BASE61 0x1d5a6c3b9e27ull /* any base below the modulus; fixed for stable output */
#define JSDUP_MAX_REPS 64        /* distinct values told apart within one (hash, length) run */
#define NO_SLOT UINT32_MAX
#define HEAD 16 /* first bytes kept per value: memlab's prefixes and index keys need 12 */

/* Per-node flags. */
#define F_CODE_DOM 0x01u /* some dominator (or the node) is of type code */
#define F_NOT_DOM 0x02u  /* none is (known) */
#define F_SOURCE 0x04u   /* a code node's `source` edge references it */

typedef struct val {
    uint64_t len;   /* UTF-8 bytes, saturating */
    uint64_t h;     /* sum of (byte + 1) * BASE^(len - 1 - i) mod 2^61-1 */
    uint64_t p;     /* BASE^len mod 2^61-1 */
    uint64_t dig;   /* leading ASCII digits, saturating */
    uint32_t spaces;/* ' ' characters, saturating */
    uint8_t head[HEAD];  /* first bytes */
    uint8_t nhead;
    uint8_t after[2];    /* the bytes after the leading digits */
    uint8_t nafter;
    /* memlab's class-name pattern: words split on ' ' */
    uint8_t first_w; /* UTF-16 units before the first space (all of them if none), max 255 */
    uint8_t last_w;  /* units after the last space */
    uint8_t inner_ok;/* every word between two spaces has 8 units */
} val;

typedef struct ctx {
    const graph *g;
    int t_str, t_cons, t_sliced, t_code; /* node type indices, -1 when the snapshot has none */
    uint8_t *flags;                      /* per node */
    uint32_t *slot;                      /* per node: memo slot of a concatenated/sliced one */
    val *memo;                           /* per slot */
    uint8_t *state;                      /* per slot: 0 new, 1 on the stack, 2 done */
    val *leaf;                           /* per interned string */
    uint8_t *leaf_done;
    node_ix *stack;
    uint32_t n_stack, cap_stack;
    uint64_t budget; /* bytes the comparisons may still read */
} ctx;

static uint64_t mulmod(uint64_t a, uint64_t b)
{
    unsigned __int128 x = (unsigned __int128)a * b;
    uint64_t lo = (uint64_t)(x & MOD61), hi = (uint64_t)(x >> 61);
    uint64_t r = lo + hi; /* below 2 * MOD61 + 1 */
    r = r >= MOD61 ? r - MOD61 : r;
    return r >= MOD61 ? r - MOD61 : r;
}

static uint64_t addmod(uint64_t a, uint64_t b)
{
    uint64_t r = a + b;
    return r >= MOD61 ? r - MOD61 : r;
}

static int type_of(const graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_types && i < 32; i++)
        if (g->type_names[i] && strcmp(g->type_names[i], name) == 0)
            return (int)i;
    return -1;
}

static int is_type(const ctx *x, node_ix v, int t)
{
    return t >= 0 && x->g->node_type[v] == (uint8_t)t;
}

int jsdup_applies(const graph *g)
{
    return g->synthetic_root != GRAPH_NONE && g->node_type && g->node_name &&
           type_of(g, "string") >= 0;
}

/* The target of v's first edge whose name is `name` (memlab's getEdgeByNameAndType: any edge
 * type, numbered edges never match), or GRAPH_NONE. */
static node_ix child(const graph *g, node_ix v, const char *name)
{
    for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
        unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
        if (GRAPH_EDGE_NAME_IS_INDEX(k))
            continue;
        if (strcmp(graph_str(g, graph_edge_name_from(g, v, e)), name) == 0)
            return g->edge_to[e] < g->n_nodes ? g->edge_to[e] : GRAPH_NONE;
    }
    return GRAPH_NONE;
}

static const val EMPTY = {.p = 1, .inner_ok = 1};

static uint8_t add8(unsigned a, unsigned b) { return (uint8_t)(a + b > 255 ? 255 : a + b); }
static uint64_t add64(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

/* The summary of the bytes s[0..n): what concat needs to answer for a concatenation. */
static val text_val(const uint8_t *s, size_t n)
{
    val r = EMPTY;
    int in_digits = 1, seen_space = 0;
    unsigned units = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        r.h = addmod(mulmod(r.h, BASE61), (uint64_t)c + 1);
        r.p = mulmod(r.p, BASE61);
        r.len++;
        if (r.nhead < HEAD)
            r.head[r.nhead++] = c;
        if (in_digits && c >= '0' && c <= '9')
            r.dig++;
        else {
            in_digits = 0;
            if (r.nafter < 2)
                r.after[r.nafter++] = c;
        }
        if (c == ' ') {
            if (!seen_space)
                r.first_w = (uint8_t)(units > 255 ? 255 : units);
            else if (units != 8)
                r.inner_ok = 0;
            seen_space = 1;
            r.spaces = r.spaces == UINT32_MAX ? r.spaces : r.spaces + 1;
            units = 0;
        } else if ((c & 0xc0) != 0x80) {
            /* a lead byte starts one UTF-16 unit, two for 4-byte sequences */
            units += c >= 0xf0 ? 2 : 1;
        }
    }
    if (!seen_space)
        r.first_w = (uint8_t)(units > 255 ? 255 : units);
    r.last_w = (uint8_t)(units > 255 ? 255 : units);
    return r;
}

static val leaf_val(ctx *x, node_ix v)
{
    str_ix s = x->g->node_name[v];
    if (s >= x->g->strings.n)
        return EMPTY;
    if (!x->leaf_done[s]) {
        const char *t = graph_str(x->g, s);
        x->leaf[s] = text_val((const uint8_t *)t, strlen(t));
        x->leaf_done[s] = 1;
    }
    return x->leaf[s];
}

static val concat(val a, val b)
{
    if (!a.len)
        return b;
    if (!b.len)
        return a;
    val r = a;
    r.len = add64(a.len, b.len);
    r.h = addmod(mulmod(a.h, b.p), b.h);
    r.p = mulmod(a.p, b.p);
    for (uint8_t i = 0; i < b.nhead && r.nhead < HEAD; i++)
        r.head[r.nhead++] = b.head[i];
    if (a.dig == a.len) { /* all digits: b continues the run */
        r.dig = add64(a.dig, b.dig);
        memcpy(r.after, b.after, sizeof r.after);
        r.nafter = b.nafter;
    } else {
        for (uint8_t i = 0; i < b.nhead && r.nafter < 2; i++)
            r.after[r.nafter++] = b.head[i];
    }
    r.spaces = a.spaces + b.spaces < a.spaces ? UINT32_MAX : a.spaces + b.spaces;
    if (!a.spaces && !b.spaces) {
        r.first_w = r.last_w = add8(a.first_w, b.first_w);
    } else if (!b.spaces) {
        r.last_w = add8(a.last_w, b.first_w);
    } else if (!a.spaces) {
        r.first_w = add8(a.first_w, b.first_w);
        r.last_w = b.last_w;
        r.inner_ok = b.inner_ok;
    } else {
        r.last_w = b.last_w;
        r.inner_ok = a.inner_ok && b.inner_ok && add8(a.last_w, b.first_w) == 8;
    }
    return r;
}

static int push(ctx *x, node_ix v)
{
    if (x->n_stack == x->cap_stack) {
        uint32_t nc = x->cap_stack ? x->cap_stack * 2 : 1024;
        node_ix *p = err_reallocarray(x->stack, nc, sizeof *p);
        if (!p)
            return -1;
        x->stack = p;
        x->cap_stack = nc;
    }
    x->stack[x->n_stack++] = v;
    return 0;
}

/* The value of a child c as its parent sees it: memoised for concatenated and sliced strings
 * (state 1 = an ancestor: the cycle's back edge reads as empty), the name for the rest. */
static val child_val(ctx *x, node_ix c)
{
    if (c == GRAPH_NONE)
        return EMPTY;
    uint32_t s = x->slot[c];
    if (s == NO_SLOT)
        return leaf_val(x, c);
    return x->state[s] == 2 ? x->memo[s] : EMPTY;
}

/* Computes the memo of concatenated/sliced node v and of everything below it. */
static int memo_of(ctx *x, node_ix v, val *out)
{
    uint32_t sv = x->slot[v];
    if (sv == NO_SLOT) {
        *out = leaf_val(x, v);
        return 0;
    }
    if (x->state[sv] != 2) {
        x->n_stack = 0;
        if (push(x, v))
            return -1;
        x->state[sv] = 1;
        while (x->n_stack) {
            node_ix u = x->stack[x->n_stack - 1];
            int cons = is_type(x, u, x->t_cons);
            node_ix a = child(x->g, u, cons ? "first" : "parent");
            node_ix b = cons ? child(x->g, u, "second") : GRAPH_NONE;
            int descended = 0;
            node_ix kids[2] = {a, b};
            for (int i = 0; i < 2 && !descended; i++) {
                node_ix c = kids[i];
                if (c == GRAPH_NONE || x->slot[c] == NO_SLOT || x->state[x->slot[c]])
                    continue;
                if (push(x, c))
                    return -1;
                x->state[x->slot[c]] = 1;
                descended = 1;
            }
            if (descended)
                continue;
            val r = cons ? concat(child_val(x, a), child_val(x, b)) : child_val(x, a);
            x->memo[x->slot[u]] = r;
            x->state[x->slot[u]] = 2;
            x->n_stack--;
        }
    }
    *out = x->memo[sv];
    return 0;
}

/* ---- streaming a value ---- */

typedef struct walker {
    const graph *g;
    const ctx *x; /* memo for skipping empty subtrees, or NULL */
    int t_cons, t_sliced;
    node_ix *stack;
    uint32_t n, cap;
    uint32_t steps;
    const uint8_t *chunk;
    size_t left;
    int failed; /* out of memory or steps: the walk ended early */
} walker;

static void walk_init(walker *w, const graph *g, const ctx *x, int tc, int ts, node_ix v)
{
    memset(w, 0, sizeof *w);
    w->g = g;
    w->x = x;
    w->t_cons = tc;
    w->t_sliced = ts;
    w->stack = malloc(64 * sizeof *w->stack);
    w->cap = w->stack ? 64 : 0;
    if (w->stack)
        w->stack[w->n++] = v;
    else
        w->failed = 1;
}

static void walk_push(walker *w, node_ix v)
{
    if (v == GRAPH_NONE)
        return;
    if (w->x && w->x->slot[v] != NO_SLOT && w->x->state[w->x->slot[v]] == 2 &&
        w->x->memo[w->x->slot[v]].len == 0)
        return;
    if (w->n == w->cap) {
        node_ix *p = err_reallocarray(w->stack, (size_t)w->cap * 2, sizeof *p);
        if (!p) {
            w->failed = 1;
            return;
        }
        w->stack = p;
        w->cap *= 2;
    }
    w->stack[w->n++] = v;
}

/* Fills w->chunk/w->left with the next non-empty piece; 0 at the end. */
static int walk_next(walker *w)
{
    while (!w->left) {
        if (!w->n || w->failed)
            return 0;
        if (++w->steps > JSDUP_WALK_STEPS) {
            w->failed = 1;
            return 0;
        }
        node_ix u = w->stack[--w->n];
        uint8_t t = w->g->node_type[u];
        if (w->t_cons >= 0 && t == (uint8_t)w->t_cons) {
            walk_push(w, child(w->g, u, "second"));
            walk_push(w, child(w->g, u, "first"));
        } else if (w->t_sliced >= 0 && t == (uint8_t)w->t_sliced) {
            walk_push(w, child(w->g, u, "parent"));
        } else {
            w->chunk = (const uint8_t *)graph_str(w->g, w->g->node_name[u]);
            w->left = strlen((const char *)w->chunk);
        }
    }
    return 1;
}

static void walk_free(walker *w)
{
    free(w->stack);
    w->stack = NULL;
}

size_t jsdup_value(const graph *g, node_ix v, char *buf, size_t cap)
{
    if (!cap)
        return 0;
    size_t n = 0;
    if (v < g->n_nodes && g->node_type && g->node_name) {
        walker w;
        walk_init(&w, g, NULL, type_of(g, "concatenated string"), type_of(g, "sliced string"),
                  v);
        while (n + 1 < cap && walk_next(&w)) {
            size_t k = w.left < cap - 1 - n ? w.left : cap - 1 - n;
            memcpy(buf + n, w.chunk, k);
            n += k;
            w.chunk += k;
            w.left -= k;
        }
        /* the buffer ended inside a character: leave the whole character out */
        if (w.left && (*w.chunk & 0xc0) == 0x80) {
            while (n && ((uint8_t)buf[n - 1] & 0xc0) == 0x80)
                n--;
            if (n)
                n--; /* its lead byte */
        }
        walk_free(&w);
    }
    buf[n] = 0;
    return n;
}

/* Whether the values of a and b (equal length and hash) have the same bytes, within the
 * caps; *unverified set when a cap decided instead of the bytes. -1: out of memory. */
static int same_value(ctx *x, node_ix a, node_ix b, uint64_t len, int *unverified)
{
    const graph *g = x->g;
    *unverified = 0;
    if (x->slot[a] == NO_SLOT && x->slot[b] == NO_SLOT && g->node_name[a] == g->node_name[b])
        return 1;
    if (is_type(x, a, x->t_cons) && is_type(x, b, x->t_cons) &&
        child(g, a, "first") == child(g, b, "first") &&
        child(g, a, "second") == child(g, b, "second"))
        return 1;
    uint64_t want = len < JSDUP_CMP_MAX ? len : JSDUP_CMP_MAX;
    if (want > x->budget) {
        *unverified = 1;
        return 1;
    }
    walker wa, wb;
    walk_init(&wa, g, x, x->t_cons, x->t_sliced, a);
    walk_init(&wb, g, x, x->t_cons, x->t_sliced, b);
    uint64_t done = 0;
    int eq = 1;
    while (done < want) {
        int ha = walk_next(&wa), hb = walk_next(&wb);
        if (!ha || !hb) {
            if (wa.failed || wb.failed)
                *unverified = 1;
            else
                eq = ha == hb;
            break;
        }
        size_t k = wa.left < wb.left ? wa.left : wb.left;
        if (k > want - done)
            k = (size_t)(want - done);
        if (memcmp(wa.chunk, wb.chunk, k) != 0) {
            eq = 0;
            break;
        }
        wa.chunk += k, wa.left -= k;
        wb.chunk += k, wb.left -= k;
        done += k;
    }
    uint64_t cost = done + wa.steps + wb.steps; /* tree nodes visited count as bytes read */
    x->budget -= cost < x->budget ? cost : x->budget;
    if (eq && want < len)
        *unverified = 1;
    int oom = (wa.failed && !wa.stack) || (wb.failed && !wb.stack);
    walk_free(&wa);
    walk_free(&wb);
    return oom ? -1 : eq;
}

/* ---- what memlab's key order and patterns need of a value ---- */

typedef struct inspect {
    uint8_t patterns;
    int is_index;     /* an array index ("0" .. "4294967294", no leading zero) */
    uint64_t index;
} inspect;

static inspect inspect_value(const val *v)
{
    inspect r = {1u << JSDUP_PAT_ALL, 0, 0};
    const uint8_t *h = v->head;
    if (v->spaces >= 5 && v->first_w == 8 && v->last_w == 8 && v->inner_ok)
        r.patterns |= 1u << JSDUP_PAT_CLASS_NAME;
    if (v->dig && v->nafter == 2 && v->after[0] == '{' && v->after[1] == '"')
        r.patterns |= 1u << JSDUP_PAT_RELAY_COMPOSITE;
    if (v->nhead >= 4 && memcmp(h, "Uzpf", 4) == 0)
        r.patterns |= 1u << JSDUP_PAT_RELAY_ID;
    if (v->nhead >= 12 && memcmp(h, "{\"query_id\":", 12) == 0)
        r.patterns |= 1u << JSDUP_PAT_RELAY_QUERY;
    if (v->nhead >= 7 && memcmp(h, "client:", 7) == 0)
        r.patterns |= 1u << JSDUP_PAT_RELAY_CLIENT;
    if (v->len >= 1 && v->len <= 10 && v->dig == v->len && (h[0] != '0' || v->len == 1)) {
        uint64_t n = 0;
        for (uint64_t i = 0; i < v->len; i++)
            n = n * 10 + (uint64_t)(h[i] - '0');
        if (n <= 4294967294ull) {
            r.is_index = 1;
            r.index = n;
        }
    }
    return r;
}

/* ---- grouping ---- */

typedef struct cand {
    uint64_t h, len;
    node_ix node;
    uint32_t cluster;
} cand;

static int cand_cmp(const void *a, const void *b)
{
    const cand *p = a, *q = b;
    if (p->h != q->h)
        return p->h < q->h ? -1 : 1;
    if (p->len != q->len)
        return p->len < q->len ? -1 : 1;
    return p->node < q->node ? -1 : p->node > q->node;
}

/* A group in memlab's key order: array indices ascending, then first occurrence. */
typedef struct gkey {
    uint64_t order; /* index, or 2^32 + first member node */
    uint32_t group;
} gkey;

static int gkey_cmp(const void *a, const void *b)
{
    const gkey *p = a, *q = b;
    if (p->order != q->order)
        return p->order < q->order ? -1 : 1;
    return p->group < q->group ? -1 : p->group > q->group;
}

/* memlab's rankRecords is a stable insertion by descending count (size): ties keep key
 * order, which the group index already is. */
static int rank_cmp(const void *a, const void *b)
{
    const gkey *p = a, *q = b;
    if (p->order != q->order)
        return p->order > q->order ? -1 : 1;
    return p->group < q->group ? -1 : p->group > q->group;
}

static void add_stat(jsdup_result *r, int *pos, unsigned id, uint64_t n, uint64_t size)
{
    if (pos[id] < 0) {
        pos[id] = (int)r->n_patterns;
        memset(&r->patterns[r->n_patterns], 0, sizeof r->patterns[0]);
        r->patterns[r->n_patterns++].id = (uint8_t)id;
    }
    jsdup_pattern *s = &r->patterns[pos[id]];
    s->n += n;
    s->size += size;
    if (n > 1) {
        s->dup_n += n - 1;
        s->dup_size += (double)size * (double)(n - 1) / (double)n;
    }
}

const char *jsdup_pattern_name(unsigned id)
{
    static const char *const N[JSDUP_N_PAT] = {
        "All strings",         "Relay DataID",       "Relay DataID composite", "Relay query",
        "Relay client string", "Element class name", "JS code string"};
    return id < JSDUP_N_PAT ? N[id] : "?";
}

static void ctx_free(ctx *x)
{
    free(x->flags);
    free(x->slot);
    free(x->memo);
    free(x->state);
    free(x->leaf);
    free(x->leaf_done);
    free(x->stack);
}

void jsdup_free(jsdup_result *r)
{
    free(r->groups);
    free(r->members);
    memset(r, 0, sizeof *r);
}

#define NOMEM(what) LR_FAIL(err, LR_ERR_NOMEM, "out of memory (%s)", what)

/* Marks F_CODE_DOM / F_NOT_DOM on v and the dominators walked to decide it. */
static void code_dominated(ctx *x, const mldom_tree *dt, node_ix v, node_ix *path)
{
    const graph *g = x->g;
    uint32_t n = 0;
    node_ix cur = v;
    uint8_t res;
    for (;;) {
        uint8_t f = x->flags[cur] & (F_CODE_DOM | F_NOT_DOM);
        if (f) {
            res = f;
            break;
        }
        if (is_type(x, cur, x->t_code)) {
            res = F_CODE_DOM;
            break;
        }
        node_ix up = dt->idom[cur];
        if (cur == dt->root || up == cur || up >= g->n_nodes || n >= g->n_nodes) {
            res = F_NOT_DOM;
            break;
        }
        path[n++] = cur;
        cur = up;
    }
    x->flags[cur] |= res;
    while (n)
        x->flags[path[--n]] |= res;
}

lr_status jsdup_find(const graph *g, const mldom_tree *dt, jsdup_result *r,
                     lr_error *err)
{
    memset(r, 0, sizeof *r);
    if (!jsdup_applies(g) || !dt || dt->n != g->n_nodes || !dt->idom || !dt->retained)
        return LR_FAIL(err, LR_ERR_USAGE, "duplicate JS strings need a V8-style snapshot");
    ctx x = {0};
    x.g = g;
    x.t_str = type_of(g, "string");
    x.t_cons = type_of(g, "concatenated string");
    x.t_sliced = type_of(g, "sliced string");
    x.t_code = type_of(g, "code");
    x.budget = JSDUP_CMP_BUDGET;
    uint32_t N = g->n_nodes;
    lr_status st = LR_OK;
    cand *c = NULL;
    gkey *keys = NULL;
    node_ix *path = NULL;
    x.flags = calloc(N ? N : 1, 1);
    x.slot = malloc((N ? N : 1) * sizeof *x.slot);
    x.leaf = malloc((g->strings.n ? g->strings.n : 1) * sizeof *x.leaf);
    x.leaf_done = calloc(g->strings.n ? g->strings.n : 1, 1);
    path = malloc((N ? N : 1) * sizeof *path);
    if (!x.flags || !x.slot || !x.leaf || !x.leaf_done || !path) {
        st = NOMEM("string flags");
        goto out;
    }
    uint32_t n_slots = 0, n_cand = 0;
    for (node_ix v = 0; v < N; v++) {
        x.slot[v] = NO_SLOT;
        if (is_type(&x, v, x.t_cons) || is_type(&x, v, x.t_sliced))
            x.slot[v] = n_slots++;
        if (is_type(&x, v, x.t_cons) || is_type(&x, v, x.t_str))
            n_cand++;
    }
    x.memo = malloc((n_slots ? n_slots : 1) * sizeof *x.memo);
    x.state = calloc(n_slots ? n_slots : 1, 1);
    c = malloc((n_cand ? n_cand : 1) * sizeof *c);
    if (!x.memo || !x.state || !c) {
        st = NOMEM("string values");
        goto out;
    }
    /* strings a compiled-code node's `source` edge references */
    if (x.t_code >= 0)
        for (node_ix v = 0; v < N; v++) {
            if (!is_type(&x, v, x.t_code))
                continue;
            for (edge_ix e = g->first_edge[v]; e < g->first_edge[v + 1]; e++) {
                unsigned k = GRAPH_EDGE_KIND(g->edge_kind[e]);
                if (!GRAPH_EDGE_NAME_IS_INDEX(k) && g->edge_to[e] < N &&
                    strcmp(graph_str(g, graph_edge_name_from(g, v, e)), "source") == 0)
                    x.flags[g->edge_to[e]] |= F_SOURCE;
            }
        }
    uint32_t m = 0;
    for (node_ix v = 0; v < N; v++) {
        if (!is_type(&x, v, x.t_cons) && !is_type(&x, v, x.t_str))
            continue;
        code_dominated(&x, dt, v, path);
        if (x.flags[v] & F_CODE_DOM) {
            r->n_code_dominated++;
            continue;
        }
        val vv;
        if (memo_of(&x, v, &vv)) {
            st = NOMEM("concatenated strings");
            goto out;
        }
        c[m].h = vv.h;
        c[m].len = vv.len;
        c[m].node = v;
        c[m].cluster = 0;
        m++;
    }
    qsort(c, m, sizeof *c, cand_cmp);

    /* split each (hash, length) run into clusters of equal bytes */
    r->members = malloc((m ? m : 1) * sizeof *r->members);
    r->groups = malloc((m ? m : 1) * sizeof *r->groups);
    if (!r->members || !r->groups) {
        st = NOMEM("string groups");
        goto out;
    }
    uint32_t ng = 0, nm = 0;
    for (uint32_t i = 0; i < m;) {
        uint32_t j = i + 1;
        while (j < m && c[j].h == c[i].h && c[j].len == c[i].len)
            j++;
        node_ix reps[JSDUP_MAX_REPS];
        uint32_t n_reps = 0, loose = 0;
        for (uint32_t k = i; k < j; k++) {
            uint32_t q = 0;
            for (; q < n_reps; q++) {
                int unv;
                int s = same_value(&x, reps[q], c[k].node, c[k].len, &unv);
                if (s < 0) {
                    st = NOMEM("string compare");
                    goto out;
                }
                if (s) {
                    r->n_unverified += (uint32_t)unv;
                    break;
                }
            }
            if (q == n_reps && n_reps < JSDUP_MAX_REPS)
                reps[n_reps++] = c[k].node;
            else if (q == n_reps)
                q = JSDUP_MAX_REPS + loose++; /* too many distinct values: on its own */
            c[k].cluster = q;
        }
        /* clusters in order of their first (smallest) node; members in node order */
        uint32_t n_cl = n_reps + loose;
        for (uint32_t q = 0; q < n_cl; q++) {
            uint32_t want = q < n_reps ? q : JSDUP_MAX_REPS + (q - n_reps);
            jsdup_group *gr = &r->groups[ng];
            memset(gr, 0, sizeof *gr);
            gr->first_member = nm;
            gr->bytes = c[i].len;
            for (uint32_t k = i; k < j; k++) {
                if (c[k].cluster != want)
                    continue;
                node_ix v = c[k].node;
                r->members[nm++] = v;
                gr->n++;
                gr->size += dt->retained[v];
                if (x.flags[v] & F_SOURCE) {
                    gr->n_source++;
                    gr->size_source += dt->retained[v];
                }
            }
            ng++;
        }
        i = j;
    }
    r->n_members = nm;

    /* memlab's key order */
    keys = malloc((ng ? ng : 1) * sizeof *keys);
    if (!keys) {
        st = NOMEM("string order");
        goto out;
    }
    for (uint32_t i = 0; i < ng; i++) {
        jsdup_group *gr = &r->groups[i];
        val vv;
        if (memo_of(&x, r->members[gr->first_member], &vv)) {
            st = NOMEM("concatenated strings");
            goto out;
        }
        inspect in = inspect_value(&vv);
        gr->patterns = in.patterns;
        keys[i].order = in.is_index ? in.index : (1ull << 32) + r->members[gr->first_member];
        keys[i].group = i;
    }
    qsort(keys, ng, sizeof *keys, gkey_cmp);
    jsdup_group *sorted = malloc((ng ? ng : 1) * sizeof *sorted);
    if (!sorted) {
        st = NOMEM("string order");
        goto out;
    }
    for (uint32_t i = 0; i < ng; i++) {
        sorted[i] = r->groups[keys[i].group];
    }
    free(r->groups);
    r->groups = sorted;
    r->n_groups = ng;

    /* pattern statistics: memlab's map order for the patterns, then its source-string map */
    int pos[JSDUP_N_PAT];
    for (unsigned p = 0; p < JSDUP_N_PAT; p++)
        pos[p] = -1;
    for (uint32_t i = 0; i < ng; i++)
        for (unsigned p = 0; p < JSDUP_PAT_CODE; p++)
            if (r->groups[i].patterns >> p & 1)
                add_stat(r, pos, p, r->groups[i].n, r->groups[i].size);
    /* the source map's key order: indices first, then the first source member's position */
    uint32_t ns = 0;
    for (uint32_t i = 0; i < ng; i++) {
        const jsdup_group *gr = &r->groups[i];
        if (!gr->n_source)
            continue;
        node_ix first = GRAPH_NONE;
        for (uint32_t k = 0; k < gr->n && first == GRAPH_NONE; k++)
            if (x.flags[r->members[gr->first_member + k]] & F_SOURCE)
                first = r->members[gr->first_member + k];
        keys[ns].order = keys[i].order < (1ull << 32) ? keys[i].order : (1ull << 32) + first;
        keys[ns].group = i;
        ns++;
    }
    qsort(keys, ns, sizeof *keys, gkey_cmp);
    for (uint32_t i = 0; i < ns; i++) {
        const jsdup_group *gr = &r->groups[keys[i].group];
        add_stat(r, pos, JSDUP_PAT_CODE, gr->n_source, gr->size_source);
    }

    /* rankings (keys reused: order = count or size, group = index in key order) */
    for (int by = 0; by < 2; by++) {
        uint32_t nd = 0;
        for (uint32_t i = 0; i < ng; i++)
            if (r->groups[i].n > 1) {
                keys[nd].order = by ? r->groups[i].size : r->groups[i].n;
                keys[nd++].group = i;
            }
        qsort(keys, nd, sizeof *keys, rank_cmp);
        uint32_t *dst = by ? r->top_size : r->top_count;
        uint32_t k = nd < JSDUP_TOP ? nd : JSDUP_TOP;
        for (uint32_t i = 0; i < k; i++)
            dst[i] = keys[i].group;
        if (by)
            r->n_top_size = k;
        else
            r->n_top_count = k;
    }
out:
    free(c);
    free(keys);
    free(path);
    ctx_free(&x);
    if (st != LR_OK)
        jsdup_free(r);
    return st;
}
