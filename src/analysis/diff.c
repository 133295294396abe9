/* SPDX-License-Identifier: Apache-2.0 */
/* diff.c: DevTools-style snapshot comparison (analysis layer), prefix diff_. Classes of both
 * graphs are mapped onto shared rows through a string hash of their keys; in id mode each
 * side's (id, row) pairs are sorted and merge-walked like DevTools' calculateDiffForClass: an
 * id present on one side only counts as deleted (under the first snapshot's class) or new
 * (under the second's), and so does an id whose class changed, as in DevTools, where each
 * class's id lists are merged on their own: a DOM element that became detached is deleted
 * from `<div>` and new in `Detached <div>`. Plain objects are named from property shapes
 * per snapshot; DevTools names the base's with the compared snapshot's interface
 * definitions, which the caller does first (v8_apply_interfaces), so a `{createdAt}` object
 * the second snapshot no longer defines is `Object` on both sides. Duplicate ids (ArkTS gives
 * its root groups id 0) pair up one to one within a class. */
#include "analysis/diff.h"
#include "analysis/histo.h"
#include "analysis/trace.h"
#include "graph/classname.h"
#include "base/hash.h"
#include "base/hmap.h"

#include <stdlib.h>
#include <string.h>

typedef struct rowmap {
    diff_row *rows;
    uint32_t n, cap;
    hmap index;      /* FNV-1a of a row's key -> row */
    char **strs;     /* key then name per row, owned until moved into the pool */
} rowmap;

/* Row of key (added with display name `name` when new); UINT32_MAX when out of memory. */
static uint32_t rm_get(rowmap *m, const char *key, const char *name)
{
    uint32_t h = hash_fnv32_str(key);
    hmap_it it;
    for (uint32_t r = hmap_first(&m->index, h, &it); r != HMAP_NONE;
         r = hmap_next(&m->index, &it))
        if (strcmp(m->strs[2 * r], key) == 0)
            return r;
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 256;
        diff_row *r = err_reallocarray(m->rows, nc, sizeof *r);
        if (!r)
            return UINT32_MAX;
        m->rows = r;
        char **s = err_reallocarray(m->strs, (size_t)nc * 2, sizeof *s);
        if (!s)
            return UINT32_MAX;
        m->strs = s;
        m->cap = nc;
    }
    char *k = strdup(key), *nm = strdup(name);
    if (!k || !nm || !hmap_add(&m->index, h, m->n)) {
        free(k);
        free(nm);
        return UINT32_MAX;
    }
    uint32_t id = m->n++;
    memset(&m->rows[id], 0, sizeof m->rows[id]);
    m->strs[2 * id] = k;
    m->strs[2 * id + 1] = nm;
    return id;
}

/* Row per class of g (and one for class-less nodes, looked up per name on demand). */
static lr_status map_classes(rowmap *m, const graph *g, const str_ix *keys, uint32_t *cls_row,
                             lr_error *err)
{
    char *stable = NULL;
    size_t cap = 0;
    for (class_ix c = 0; c < g->n_classes; c++) {
        const char *name = graph_str(g, g->classes[c].name);
        const char *key = keys ? graph_str(g, keys[c]) : name;
        if (!keys) {
            /* the classes the JVM names anew in each run (a lambda's Foo$$Lambda$14/0x...,
             * proxies, generated classes) as one row: two runs' dumps read "0 -> 9" and
             * "9 -> 0" for every lambda, and no gate could name one */
            size_t need = strlen(name) + 1;
            if (need > cap) {
                char *t = realloc(stable, need);
                if (!t) {
                    free(stable);
                    return LR_FAIL(err, LR_ERR_NOMEM, "diff: out of memory");
                }
                stable = t;
                cap = need;
            }
            classname_stable(name, stable, need);
            key = name = stable;
        }
        if ((cls_row[c] = rm_get(m, key, name)) == UINT32_MAX) {
            free(stable);
            return LR_FAIL(err, LR_ERR_NOMEM, "diff: out of memory");
        }
    }
    free(stable);
    return LR_OK;
}

typedef struct idrow {
    uint64_t id;
    uint32_t row;
    uint32_t size;
} idrow;

static int idrow_cmp(const void *pa, const void *pb)
{
    const idrow *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* Fills out[] with (id, row, size) of every counted node of g and adds per-row counts. */
static lr_status collect(rowmap *m, const graph *g, const uint32_t *cls_row, int side,
                         idrow *out, uint32_t *n_out, lr_error *err)
{
    uint32_t k = 0;
    for (node_ix v = 0; v < g->n_nodes; v++) {
        uint32_t sz = graph_node_size(g, v);
        if (sz == 0)
            continue;
        class_ix c = graph_node_class(g, v);
        uint32_t row;
        if (c != GRAPH_NONE && c < g->n_classes) {
            row = cls_row[c];
        } else {
            /* histo's rows: class objects as one (23 classes loaded read "+23 objects with
             * no class"), objects whose class is missing as another */
            const char *nm = g->node_name ? graph_str(g, g->node_name[v]) : "";
            if (!*nm)
                nm = g->node_kind[v] == GRAPH_KIND_CLASS ? HISTO_CLASS_OBJECTS_NAME
                                                         : HISTO_NO_CLASS_NAME;
            row = rm_get(m, nm, nm);
            if (row == UINT32_MAX)
                return LR_FAIL(err, LR_ERR_NOMEM, "diff: out of memory");
        }
        diff_row *r = &m->rows[row];
        if (side == 0) {
            r->count_a++;
            r->size_a += sz;
        } else {
            r->count_b++;
            r->size_b += sz;
        }
        if (out)
            out[k++] = (idrow){graph_node_id(g, v), row, sz};
    }
    *n_out = k;
    return LR_OK;
}

static uint64_t mag(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static void set_deltas(diff_row *x, int by_id)
{
    x->count_delta = by_id ? (int64_t)x->n_new - (int64_t)x->n_deleted
                           : (int64_t)x->count_b - (int64_t)x->count_a;
    x->size_delta = by_id ? (int64_t)x->alloc_size - (int64_t)x->freed_size
                          : (int64_t)x->size_b - (int64_t)x->size_a;
}

static int row_cmp(const void *pa, const void *pb)
{
    const diff_row *a = pa, *b = pb;
    uint64_t ra = mag(a->retained_delta), rb = mag(b->retained_delta);
    if (ra != rb) /* nonzero only with retained sizes */
        return ra > rb ? -1 : 1;
    uint64_t sa = mag(a->size_delta), sb = mag(b->size_delta);
    if (sa != sb)
        return sa > sb ? -1 : 1;
    uint64_t ca = mag(a->count_delta), cb = mag(b->count_delta);
    if (ca != cb)
        return ca > cb ? -1 : 1;
    uint64_t na = (uint64_t)a->n_new + a->n_deleted, nb = (uint64_t)b->n_new + b->n_deleted;
    if (na != nb)
        return na > nb ? -1 : 1;
    return strcmp(a->key, b->key);
}

void diff_free(diff_result *r)
{
    if (!r)
        return;
    free(r->rows);
    free(r->pool);
    memset(r, 0, sizeof *r);
}

lr_status diff_build(const graph *a, const graph *b, const str_ix *keys_a, const str_ix *keys_b,
                     int by_id, diff_result *r, lr_error *err)
{
    return diff_build_ex(a, b, keys_a, keys_b, by_id, NULL, r, err);
}

/* A row is kept when something the caller compares changed. */
static int row_changed(const diff_row *x, int by_id, int retained)
{
    if (retained && x->retained_a != x->retained_b)
        return 1;
    return by_id ? (x->n_new || x->n_deleted || x->alloc_size != x->freed_size)
                 : (x->count_a != x->count_b || x->size_a != x->size_b);
}

lr_status diff_build_ex(const graph *a, const graph *b, const str_ix *keys_a,
                        const str_ix *keys_b, int by_id, const diff_retained *ret,
                        diff_result *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    r->by_id = by_id;
    r->retained = ret != NULL;
    rowmap m = {0};
    uint32_t *row_a = err_mallocarray(a->n_classes ? a->n_classes : 1, sizeof *row_a);
    uint32_t *row_b = err_mallocarray(b->n_classes ? b->n_classes : 1, sizeof *row_b);
    idrow *ia = NULL, *ib = NULL;
    uint32_t na = 0, nb = 0;
    lr_status st = LR_OK;
    if (!row_a || !row_b)
        goto nomem;
    if ((st = map_classes(&m, a, keys_a, row_a, err)) != LR_OK ||
        (st = map_classes(&m, b, keys_b, row_b, err)) != LR_OK)
        goto out;
    for (class_ix c = 0; ret && c < a->n_classes; c++)
        m.rows[row_a[c]].retained_a += ret->class_a[c];
    for (class_ix c = 0; ret && c < b->n_classes; c++)
        m.rows[row_b[c]].retained_b += ret->class_b[c];
    if (by_id) {
        ia = err_mallocarray(a->n_nodes ? a->n_nodes : 1, sizeof *ia);
        ib = err_mallocarray(b->n_nodes ? b->n_nodes : 1, sizeof *ib);
        if (!ia || !ib)
            goto nomem;
    }
    if ((st = collect(&m, a, row_a, 0, ia, &na, err)) != LR_OK ||
        (st = collect(&m, b, row_b, 1, ib, &nb, err)) != LR_OK)
        goto out;
    if (ret && (ret->class_objects_a || ret->class_objects_b)) {
        /* the class objects' row, as histo --retained gives it (it read 0: no class holds
         * them, and a class loader leak's classes grew unseen) */
        uint32_t row = rm_get(&m, HISTO_CLASS_OBJECTS_NAME, HISTO_CLASS_OBJECTS_NAME);
        if (row == UINT32_MAX)
            goto nomem;
        m.rows[row].retained_a = ret->class_objects_a;
        m.rows[row].retained_b = ret->class_objects_b;
    }
    if (by_id) {
        /* ids that are addresses (HPROF) name other objects after a collection */
        const int addresses = a->id_size && b->id_size;
        qsort(ia, na, sizeof *ia, idrow_cmp);
        qsort(ib, nb, sizeof *ib, idrow_cmp);
        uint32_t i = 0, j = 0;
        while (i < na || j < nb) {
            if (j == nb || (i < na && ia[i].id < ib[j].id)) {
                m.rows[ia[i].row].n_deleted++;
                m.rows[ia[i].row].freed_size += ia[i].size;
                i++;
                continue;
            }
            if (i == na || ib[j].id < ia[i].id) {
                m.rows[ib[j].row].n_new++;
                m.rows[ib[j].row].alloc_size += ib[j].size;
                j++;
                continue;
            }
            /* One id on both sides: [i, ie) and [j, je), each sorted by row. */
            uint64_t id = ia[i].id;
            uint32_t ie = i, je = j;
            while (ie < na && ia[ie].id == id)
                ie++;
            while (je < nb && ib[je].id == id)
                je++;
            int reused = 0;
            for (uint32_t x = i, y = j; x < ie && y < je;) {
                if (ia[x].row < ib[y].row) {
                    x++;
                } else if (ib[y].row < ia[x].row) {
                    y++;
                } else {
                    /* same class on both sides: one object, but of another size when the
                     * address now holds another array (its bytes still change the totals) */
                    diff_row *w = &m.rows[ia[x].row];
                    if (!addresses) {
                        /* ids never reused (V8): DevTools counts no size change */
                    } else if (ib[y].size > ia[x].size) {
                        w->alloc_size += ib[y].size - ia[x].size;
                    } else {
                        w->freed_size += ia[x].size - ib[y].size;
                    }
                    reused |= addresses && ia[x].size != ib[y].size;
                    ia[x++].row = UINT32_MAX;
                    ib[y++].row = UINT32_MAX;
                }
            }
            for (uint32_t x = i; x < ie && addresses; x++)
                reused |= ia[x].row != UINT32_MAX;
            r->n_reused += reused;
            for (; i < ie; i++) {
                if (ia[i].row == UINT32_MAX)
                    continue;
                m.rows[ia[i].row].n_deleted++;
                m.rows[ia[i].row].freed_size += ia[i].size;
            }
            for (; j < je; j++) {
                if (ib[j].row == UINT32_MAX)
                    continue;
                m.rows[ib[j].row].n_new++;
                m.rows[ib[j].row].alloc_size += ib[j].size;
            }
        }
    }
    /* Keep changed rows; move their strings into one pool. */
    size_t pool_len = 0;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m.n; i++) {
        if (!row_changed(&m.rows[i], by_id, r->retained))
            continue;
        pool_len += strlen(m.strs[2 * i]) + strlen(m.strs[2 * i + 1]) + 2;
        kept++;
    }
    r->rows = err_mallocarray(kept ? kept : 1, sizeof *r->rows);
    r->pool = err_malloc(pool_len ? pool_len : 1);
    if (!r->rows || !r->pool)
        goto nomem;
    size_t at = 0;
    r->total.name = r->total.key = "(total)";
    for (uint32_t i = 0; i < m.n; i++) {
        diff_row *x = &m.rows[i];
        int changed = row_changed(x, by_id, r->retained);
        r->total.count_a += x->count_a;
        r->total.count_b += x->count_b;
        r->total.size_a += x->size_a;
        r->total.size_b += x->size_b;
        r->total.n_new += x->n_new;
        r->total.n_deleted += x->n_deleted;
        r->total.alloc_size += x->alloc_size;
        r->total.freed_size += x->freed_size;
        if (!changed)
            continue;
        diff_row *o = &r->rows[r->n++];
        *o = *x;
        set_deltas(o, by_id);
        o->retained_delta = (int64_t)o->retained_b - (int64_t)o->retained_a;
        size_t lk = strlen(m.strs[2 * i]) + 1, ln = strlen(m.strs[2 * i + 1]) + 1;
        memcpy(r->pool + at, m.strs[2 * i], lk);
        o->key = r->pool + at;
        at += lk;
        memcpy(r->pool + at, m.strs[2 * i + 1], ln);
        o->name = r->pool + at;
        at += ln;
    }
    set_deltas(&r->total, by_id);
    if (ret) {
        r->total.retained_a = ret->total_a;
        r->total.retained_b = ret->total_b;
        r->total.retained_delta = (int64_t)ret->total_b - (int64_t)ret->total_a;
    }
    qsort(r->rows, r->n, sizeof *r->rows, row_cmp);
    goto out;
nomem:
    st = LR_FAIL(err, LR_ERR_NOMEM, "diff: out of memory");
out:
    if (st != LR_OK)
        diff_free(r);
    for (uint32_t i = 0; i < 2 * m.n; i++)
        free(m.strs[i]);
    free(m.strs);
    free(m.rows);
    hmap_free(&m.index);
    free(row_a);
    free(row_b);
    free(ia);
    free(ib);
    return st;
}

void diff_keep_prefix(diff_result *r, const char *prefix)
{
    size_t len = strlen(prefix);
    uint32_t k = 0;
    diff_row t = {.name = r->total.name, .key = r->total.key};
    for (uint32_t i = 0; i < r->n; i++) {
        const diff_row *x = &r->rows[i];
        if (strncmp(x->name, prefix, len) != 0)
            continue;
        t.count_a += x->count_a;
        t.count_b += x->count_b;
        t.size_a += x->size_a;
        t.size_b += x->size_b;
        t.n_new += x->n_new;
        t.n_deleted += x->n_deleted;
        t.alloc_size += x->alloc_size;
        t.freed_size += x->freed_size;
        t.count_delta += x->count_delta;
        t.size_delta += x->size_delta;
        t.retained_a += x->retained_a;
        t.retained_b += x->retained_b;
        t.retained_delta += x->retained_delta;
        r->rows[k++] = *x;
    }
    r->n = k;
    r->total = t;
}

int diff_gate_parse(const char *s, diff_gate *g)
{
    memset(g, 0, sizeof *g);
    g->spec = s;
    const char *eq = strrchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof g->cls)
        return 0;
    memcpy(g->cls, s, (size_t)(eq - s));
    const char *v = eq + 1;
    char num[24];
    size_t n = strlen(v);
    if (n && v[n - 1] == '%') {
        g->pct = 1;
        n--;
    }
    if (n == 0 || n >= sizeof num)
        return 0;
    memcpy(num, v, n);
    num[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (num[i] < '0' || num[i] > '9')
            return 0;
    g->limit = strtoull(num, NULL, 10);
    return 1;
}

/* The instances in g of the classes whose row name is cls (its own name, or for a graph
 * without V8 class keys its stable name, as map_classes names the rows) into *n; whether any
 * class has that name. */
static int count_named(const graph *g, const char *cls, uint64_t *n)
{
    *n = 0;
    class_ix exact = graph_find_class(g, cls);
    if (exact != GRAPH_NONE) {
        for (node_ix x = 0; exact != GRAPH_NONE && x < g->n_nodes; x++)
            *n += graph_node_class(g, x) == exact;
        return exact != GRAPH_NONE;
    }
    /* a stable name ("Foo$$Lambda") stands for several classes: marked, then counted */
    uint8_t *mark = calloc(g->n_classes ? g->n_classes : 1, 1);
    size_t cap = strlen(cls) + 256;
    char *st = malloc(cap);
    int any = 0;
    for (class_ix c = 0; mark && st && c < g->n_classes; c++) {
        const char *name = graph_str(g, g->classes[c].name);
        size_t need = strlen(name) + 1;
        if (need > cap) {
            char *t = realloc(st, need);
            if (!t)
                break;
            st = t;
            cap = need;
        }
        classname_stable(name, st, need);
        if (strcmp(st, cls) == 0) {
            mark[c] = 1;
            any = 1;
        }
    }
    for (node_ix x = 0; any && x < g->n_nodes; x++) {
        class_ix c = graph_node_class(g, x);
        *n += c < g->n_classes && mark[c];
    }
    free(mark);
    free(st);
    return any;
}

/* Whether a class named cls is in a row of r or in either graph. */
static int gate_class_exists(const diff_result *r, const graph *a, const graph *b,
                             const char *cls)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (strcmp(r->rows[i].name, cls) == 0)
            return 1;
    return graph_find_class(a, cls) != GRAPH_NONE || graph_find_class(b, cls) != GRAPH_NONE;
}

/* A gate naming a nested class as Java source does (Outer.Inner) where the dumps hold its
 * binary name (Outer$Inner): the dots from the right become '$' until a class is found, and
 * the gate takes that name (a CI gate so written judged "0 -> 0" and always passed). */
static void gate_nested_name(diff_gate *gt, const diff_result *r, const graph *a,
                             const graph *b)
{
    if (gate_class_exists(r, a, b, gt->cls) || !strchr(gt->cls, '.'))
        return;
    char try[sizeof gt->cls];
    snprintf(try, sizeof try, "%s", gt->cls);
    for (char *dot = strrchr(try, '.'); dot; dot = strrchr(try, '.')) {
        *dot = '$';
        if (gate_class_exists(r, a, b, try)) {
            snprintf(gt->spelled, sizeof gt->spelled, "%s", gt->cls);
            snprintf(gt->cls, sizeof gt->cls, "%s", try);
            return;
        }
    }
}

void diff_gate_eval(diff_gate *gt, const diff_result *r, const graph *a,
                               const graph *b)
{
    gate_nested_name(gt, r, a, b);
    for (uint32_t i = 0; i < r->n; i++)
        if (strcmp(r->rows[i].name, gt->cls) == 0) {
            gt->count_a += r->rows[i].count_a;
            gt->count_b += r->rows[i].count_b;
            gt->growth += r->rows[i].count_delta;
            gt->known = 1;
        }
    if (!gt->known) {
        /* no row: the class did not change (or is in neither); its counts are its
         * instances on each side, not 0 -> 0 (by the rows' names: a lambda's as the stable
         * name map_classes gave it, the classes of all its runs' names) */
        uint64_t na, nb;
        int ka = count_named(a, gt->cls, &na), kb = count_named(b, gt->cls, &nb);
        gt->known = ka || kb;
        gt->count_a += na;
        gt->count_b += nb;
    }
    if (gt->growth <= 0)
        return;
    if (gt->pct)
        gt->failed = gt->count_a == 0 || (uint64_t)gt->growth * 100 > gt->limit * gt->count_a;
    else
        gt->failed = (uint64_t)gt->growth > gt->limit;
}
