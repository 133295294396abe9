/* SPDX-License-Identifier: Apache-2.0 */
/* histo.c: the class histogram as text, CSV and JSON (report layer), prefix rep_histo_.
 * Columns: count, shallow, then with retained sizes the retained bytes and their share of the
 * reachable heap (and DevTools' distance on V8). Numbers carry thousands separators. The Total
 * row sums count and shallow only: classes' retained sizes overlap (a class's instances may
 * hold another class's), so their sum means nothing and is not printed. */
#include "report/histo.h"

#include "analysis/leakfind.h"
#include "report/fmt.h"

#include <inttypes.h>

static uint32_t shown(uint64_t top, uint32_t n)
{
    return top && top < n ? (uint32_t)top : n;
}

static void head(FILE *out, int ret, int dist)
{
    char h[160];
    int n = snprintf(h, sizeof h, " num        count        shallow%s%s  class name",
                     ret ? "       retained  % heap" : "", ret && dist ? "  distance" : "");
    fprintf(out, "%s\n", h);
    for (int i = 0; i < n; i++)
        fputc('-', out);
    fputc('\n', out);
}

static void line(FILE *out, uint32_t num, uint64_t count, uint64_t shallow, int ret,
                 uint64_t retained, uint64_t heap, int dist, int32_t distance, const char *name)
{
    char c[REP_FMT_MAX], s[REP_FMT_MAX], r[REP_FMT_MAX], p[REP_FMT_MAX], d[REP_FMT_MAX];
    fprintf(out, "%4" PRIu32 ": %12s %14s", num, rep_fmt_count(c, count),
            rep_fmt_count(s, shallow));
    if (ret)
        fprintf(out, " %14s %7s", rep_fmt_count(r, retained), rep_fmt_pct(p, retained, heap));
    if (ret && dist)
        fprintf(out, " %9s", rep_fmt_distance(d, distance));
    fputs("  ", out);
    rep_fmt_name(out, name);
    fputc('\n', out);
}

static void total(FILE *out, uint64_t count, uint64_t shallow, int ret, uint64_t heap,
                  uint32_t n, uint32_t n_rows)
{
    char c[REP_FMT_MAX], s[REP_FMT_MAX], k[REP_FMT_MAX], t[REP_FMT_MAX];
    fprintf(out, "Total %12s %14s  (%s classes)\n", rep_fmt_count(c, count),
            rep_fmt_count(s, shallow), rep_fmt_count(k, n_rows));
    if (n < n_rows)
        fprintf(out, "(%s of %s classes shown; the total covers all)\n", rep_fmt_count(t, n),
                rep_fmt_count(k, n_rows));
    if (ret)
        fprintf(out, "retained: what a class's instances keep alive together, no byte counted "
                     "twice within a class;\nclasses overlap, so the column does not add up. "
                     "%% heap: of %s reachable.\n",
                rep_fmt_bytes(c, heap));
}

void rep_histo_text(FILE *out, const histo_result *h, uint64_t top)
{
    int ret = h->has_retained;
    head(out, ret, 0);
    uint32_t n = shown(top, h->n_rows);
    for (uint32_t i = 0; i < n; i++) {
        const histo_row *r = &h->rows[i];
        line(out, i + 1, r->count, r->shallow, ret, r->retained, h->heap_bytes, 0, 0, r->name);
    }
    total(out, h->total.count, h->total.shallow, ret, h->heap_bytes, n, h->n_rows);
}

/* One header line, then num,count,shallow[,retained],class per row. */
void rep_histo_csv(FILE *out, const histo_result *h, uint64_t top)
{
    int ret = h->has_retained;
    fprintf(out, "num,count,shallow%s,class\n", ret ? ",retained" : "");
    uint32_t n = shown(top, h->n_rows);
    for (uint32_t i = 0; i < n; i++) {
        const histo_row *r = &h->rows[i];
        fprintf(out, "%" PRIu32 ",%" PRIu64 ",%" PRIu64, i + 1, r->count, r->shallow);
        if (ret)
            fprintf(out, ",%" PRIu64, r->retained);
        fputc(',', out);
        rep_fmt_csv(out, r->name);
        fputc('\n', out);
    }
}

void rep_histo_json(jsonw *w, const histo_result *h, uint64_t top, const char *heap,
                    const char *sort)
{
    int ret = h->has_retained;
    jsonw_kv_str(w, "sort", sort);
    jsonw_kv_str(w, "heap", heap);
    jsonw_kv_arr_begin(w, "classes");
    uint32_t n = shown(top, h->n_rows);
    for (uint32_t i = 0; i < n; i++) {
        const histo_row *r = &h->rows[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", r->name);
        jsonw_kv_uint(w, "count", r->count);
        jsonw_kv_uint(w, "shallow", r->shallow);
        if (ret)
            jsonw_kv_uint(w, "retained", r->retained);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_obj_begin(w, "total");
    jsonw_kv_uint(w, "classes", h->n_rows);
    jsonw_kv_uint(w, "count", h->total.count);
    jsonw_kv_uint(w, "shallow", h->total.shallow);
    if (ret) {
        /* the rows overlap (one class's instances hold another's), so their sum can pass the
         * heap: the reachable bytes, the base of the text's % column, say how much there is */
        jsonw_kv_uint(w, "retained", h->total.retained);
        jsonw_kv_uint(w, "reachable", h->heap_bytes);
    }
    jsonw_obj_end(w);
}

/* ---- V8/Node/ArkTS: DevTools' Summary view ----
 * One row per DevTools class key: instances with a nonzero shallow size, their smallest
 * distance, shallow bytes and the retained bytes of instances no same-class dominator already
 * counts. */

static const char *dt_name(const graph *g, const devtools_class *c)
{
    return graph_str(g, g->classes[c->cls].name);
}

void rep_histo_dt_text(FILE *out, const graph *g, const histo_dt_result *h, uint64_t top,
                       int retained)
{
    const devtools_result *r = h->dt;
    head(out, retained, 1);
    uint32_t n = shown(top, h->n);
    for (uint32_t i = 0; i < n; i++) {
        const devtools_class *c = &r->classes[h->ix[i]];
        line(out, i + 1, c->count, c->self, retained, c->retained, r->total, 1, c->distance,
             dt_name(g, c));
    }
    total(out, h->count, h->self, retained, r->total, n, h->n);
    char b1[REP_FMT_MAX], b2[REP_FMT_MAX];
    fprintf(out, "DevTools Summary: objects of nonzero size per class key; heap total %s\n",
            rep_fmt_bytes(b1, h->heap_total));
    /* Node marks its own embedder objects (zlib streams, binding data) detached: no DOM */
    if (h->has_dom && !leak_is_browser(g))
        fprintf(out, "detached (V8's embedder flag; no DOM outside a page): %s objects, %s\n",
                rep_fmt_count(b2, h->detached_count), rep_fmt_bytes(b1, h->detached_self));
    else if (h->has_dom)
        fprintf(out, "detached DOM: %s objects, %s%s\n", rep_fmt_count(b2, h->detached_count),
                rep_fmt_bytes(b1, h->detached_self),
                h->detached_only ? "" : " (--detached lists them)");
}

void rep_histo_dt_csv(FILE *out, const graph *g, const histo_dt_result *h, uint64_t top,
                      int retained)
{
    fprintf(out, "num,count,shallow%s,class\n", retained ? ",retained,distance" : "");
    uint32_t n = shown(top, h->n);
    for (uint32_t i = 0; i < n; i++) {
        const devtools_class *c = &h->dt->classes[h->ix[i]];
        fprintf(out, "%" PRIu32 ",%" PRIu32 ",%" PRIu64, i + 1, c->count, c->self);
        if (retained)
            fprintf(out, ",%" PRIu64 ",%" PRId32, c->retained, c->distance);
        fputc(',', out);
        rep_fmt_csv(out, dt_name(g, c));
        fputc('\n', out);
    }
}

void rep_histo_dt_json(jsonw *w, const graph *g, const histo_dt_result *h, uint64_t top,
                       int retained, const char *sort)
{
    jsonw_kv_str(w, "sort", sort);
    jsonw_kv_null(w, "heap");
    jsonw_kv_str(w, "model", "devtools");
    jsonw_kv_arr_begin(w, "classes");
    uint32_t n = shown(top, h->n);
    for (uint32_t i = 0; i < n; i++) {
        const devtools_class *c = &h->dt->classes[h->ix[i]];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", dt_name(g, c));
        jsonw_kv_str(w, "key", graph_str(g, c->key));
        jsonw_kv_uint(w, "count", c->count);
        jsonw_kv_int(w, "distance", c->distance);
        jsonw_kv_uint(w, "shallow", c->self);
        if (retained)
            jsonw_kv_uint(w, "retained", c->retained);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_obj_begin(w, "total");
    jsonw_kv_uint(w, "classes", h->n);
    jsonw_kv_uint(w, "count", h->count);
    jsonw_kv_uint(w, "shallow", h->self);
    if (retained)
        jsonw_kv_uint(w, "retained", h->retained);
    jsonw_kv_uint(w, "heap_total", h->heap_total);
    jsonw_kv_uint(w, "unreachable", h->dt->n_unreachable);
    jsonw_kv_uint(w, "detached_count", h->detached_count);
    jsonw_kv_uint(w, "detached_shallow", h->detached_self);
    jsonw_obj_end(w);
}
