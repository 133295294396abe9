/* SPDX-License-Identifier: Apache-2.0 */
/* leaktracker.c: leak_tracker reports matched to a Dart snapshot (format layer), prefix lt_.
 * See leaktracker.h. The report is one JSON object, pretty-printed or not, read with the
 * JSON-lines scanner over the whole file (newlines are blanks to it):
 *
 *   {"notGCed": [{"type": "CheckoutPageState", "code": 941103, "tracked": "State",
 *                 "context": {...}, "phase": "..."}],
 *    "notDisposed": [...], "gcedLate": [...]}
 *
 * Objects are looked up by identity hash in a sorted (hash, node) array built once; a report
 * whose hash several objects share is narrowed by class name, and marks every object left. */
#include "format/leaktracker.h"

#include "base/mfile.h"
#include "format/dart.h"
#include "format/jscan.h"

#include <stdlib.h>
#include <string.h>

static const char *const type_names[LT_TYPE_COUNT] = {"notDisposed", "notGCed", "gcedLate"};
static const char *const type_titles[LT_TYPE_COUNT] = {"not disposed", "not GCed",
                                                         "GCed late"};

const char *lt_type_name(unsigned t) { return t < LT_TYPE_COUNT ? type_names[t] : "?"; }
const char *lt_type_title(unsigned t) { return t < LT_TYPE_COUNT ? type_titles[t] : "?"; }

typedef struct ltx {
    const graph *g;
    const char *name;
    lr_error *err;
    uint64_t *by_hash; /* hash << 32 | node, ascending, objects with a hash only */
    uint32_t n_hashed;
    uint8_t *marked;   /* per node: already matched */
    lt_report *out;
    uint32_t cap;
} ltx;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether node n's class is the runtime type t[0..tl) without its generic arguments. */
static int type_matches(const ltx *x, node_ix n, const uint8_t *t, size_t tl)
{
    const uint8_t *lt = memchr(t, '<', tl);
    if (lt)
        tl = (size_t)(lt - t);
    const char *cls = graph_class_name(x->g, n);
    return strlen(cls) == tl && memcmp(cls, t, tl) == 0;
}

static lr_status add(ltx *x, node_ix n, uint8_t type, uint32_t code)
{
    lt_report *r = x->out;
    if (r->n == x->cap) {
        uint32_t nc = x->cap ? x->cap * 2 : 16;
        lt_match *nv = err_reallocarray(r->v, nc, sizeof *nv);
        if (!nv)
            return LR_FAIL(x->err, LR_ERR_NOMEM, "%s: out of memory", x->name);
        r->v = nv;
        x->cap = nc;
    }
    r->v[r->n++] = (lt_match){n, type, code};
    x->marked[n] = 1;
    return LR_OK;
}

/* One LeakReport object. */
static lr_status report(ltx *x, const jscan *parent, const jscan_val *obj, uint8_t type)
{
    if (obj->type != JSCAN_OBJ)
        return LR_CORRUPT(x->err, x->name, jscan_off(parent, obj->s),
                          "a leak report must be an object");
    jscan c;
    LR_TRY(jscan_obj(&c, parent->base, x->name, obj->s, obj->e, x->err));
    static const char *const keys[2] = {"code", "type"};
    jscan_val v[2];
    uint32_t seen;
    LR_TRY(jscan_fields(&c, keys, 2, v, &seen, x->err));
    jscan_val code = JSCAN_HAS(seen, 0) ? v[0] : (jscan_val){.type = JSCAN_NULL};
    jscan_val rtype = JSCAN_HAS(seen, 1) ? v[1] : (jscan_val){.type = JSCAN_NULL};
    uint64_t h;
    if (code.type != JSCAN_NUM || !jscan_u64(&code, &h) || h > UINT32_MAX)
        return LR_CORRUPT(x->err, x->name, jscan_off(&c, code.type == JSCAN_NULL ? obj->s
                                                                                 : code.s),
                          "a leak report needs \"code\", the object's identityHashCode");
    if (rtype.type != JSCAN_NULL && rtype.type != JSCAN_STR)
        return LR_CORRUPT(x->err, x->name, jscan_off(&c, rtype.s),
                          "a leak report's \"type\" must be a string");
    x->out->n_reports++;
    /* every object carrying the hash: the first sorted position with it, then on */
    size_t lo = 0, hi = x->n_hashed;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x->by_hash[mid] >> 32 < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t found = 0;
    for (size_t i = lo; i < x->n_hashed && x->by_hash[i] >> 32 == h; i++) {
        node_ix n = (node_ix)x->by_hash[i];
        if (rtype.type == JSCAN_STR && !type_matches(x, n, rtype.s, (size_t)(rtype.e - rtype.s)))
            continue;
        found++;
        if (!x->marked[n])
            LR_TRY(add(x, n, type, (uint32_t)h));
    }
    if (!found)
        x->out->n_missing++;
    else if (found > 1)
        x->out->n_ambiguous++;
    return LR_OK;
}

static lr_status parse(ltx *x, const mfile *m)
{
    jscan c;
    const uint8_t *p = m->data, *end = m->data + m->len;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    if (p == end || *p != '{')
        return LR_CORRUPT(x->err, x->name, (uint64_t)(p - m->data),
                          "not a leak_tracker report (a JSON object of leak types)");
    LR_TRY(jscan_obj(&c, m->data, x->name, p, end, x->err));
    for (;;) {
        const uint8_t *k;
        size_t kl;
        jscan_val v;
        int done;
        LR_TRY(jscan_member(&c, &k, &kl, &v, &done, x->err));
        if (done)
            break;
        unsigned t = 0;
        while (t < LT_TYPE_COUNT && !jscan_key_is(k, kl, type_names[t]))
            t++;
        if (t == LT_TYPE_COUNT)
            return LR_CORRUPT(x->err, x->name, jscan_off(&c, k),
                              "unknown leak type (notDisposed, notGCed or gcedLate)");
        if (v.type == JSCAN_NULL)
            continue;
        if (v.type != JSCAN_ARR)
            return LR_CORRUPT(x->err, x->name, jscan_off(&c, v.s),
                              "a leak type must hold a list of reports");
        jscan a;
        jscan_arr(&a, &c, &v);
        for (;;) {
            jscan_val e;
            LR_TRY(jscan_elem(&a, &e, &done, x->err));
            if (done)
                break;
            LR_TRY(report(x, &a, &e, (uint8_t)t));
        }
    }
    /* only blanks may follow the object */
    for (p = c.p; p < end; p++)
        if (!(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            return LR_CORRUPT(x->err, x->name, (uint64_t)(p - m->data),
                              "bytes after the report");
    return LR_OK;
}

static lr_status lt_load_x(const graph *g, const char *path, const uint8_t *data, size_t len,
                           lt_report *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    if (!dart_has_identity_hashes(g))
        return LR_FAIL(err, LR_ERR_USAGE,
                       "%s: leak_tracker reports name objects by identity hash, which only "
                       "a Dart snapshot of a current VM records", path);
    ltx x = {.g = g, .name = path, .err = err, .out = out};
    x.by_hash = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *x.by_hash);
    x.marked = err_calloc(g->n_nodes ? g->n_nodes : 1, 1);
    mfile m;
    memset(&m, 0, sizeof m);
    lr_status st = LR_OK;
    if (!x.by_hash || !x.marked)
        st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", path);
    for (node_ix n = 0; st == LR_OK && n < g->n_nodes; n++) {
        uint32_t h = dart_identity_hash(g, n);
        if (h)
            x.by_hash[x.n_hashed++] = (uint64_t)h << 32 | n;
    }
    if (st == LR_OK && x.n_hashed)
        qsort(x.by_hash, x.n_hashed, sizeof *x.by_hash, cmp_u64);
    if (st == LR_OK)
        st = data ? mfile_from_memory(&m, data, len, 0, path, err) : mfile_open(&m, path, 0, err);
    if (st == LR_OK)
        st = parse(&x, &m);
    mfile_close(&m);
    free(x.by_hash);
    free(x.marked);
    if (st != LR_OK)
        lt_report_free(out);
    return st;
}

lr_status lt_load(const graph *g, const char *path, lt_report *out, lr_error *err)
{
    return lt_load_x(g, path, NULL, 0, out, err);
}

lr_status lt_load_memory(const graph *g, const uint8_t *data, size_t len, const char *name,
                         lt_report *out, lr_error *err)
{
    static const uint8_t empty[1];
    return lt_load_x(g, name, data ? data : empty, data ? len : 0, out, err);
}

void lt_report_free(lt_report *r)
{
    free(r->v);
    memset(r, 0, sizeof *r);
}
