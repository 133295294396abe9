/* SPDX-License-Identifier: Apache-2.0 */
/* diff.c: the comparison of two snapshots as text and JSON (report layer), prefix rep_diff_.
 * DevTools' Comparison columns (# New, # Deleted, # Delta, Alloc. size, Freed size, Size
 * delta) when objects are matched by id, counts and bytes of both sides when matched by
 * class, optional retained columns, the total row, then each growth gate's verdict. */
#include "report/diff.h"

#include "report/fmt.h"
#include "report/leaks.h"

#include <string.h>

static const char *fmt_signed(char *buf, int64_t v)
{
    char t[REP_FMT_MAX];
    rep_fmt_count(t, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    size_t at = 0, n = strlen(t);
    if (v != 0)
        buf[at++] = v < 0 ? '-' : '+';
    if (n > REP_FMT_MAX - 1 - at)
        n = REP_FMT_MAX - 1 - at;
    memcpy(buf + at, t, n);
    buf[at + n] = '\0';
    return buf;
}

static void json_row(jsonw *w, const diff_row *x, int by_id, int retained)
{
    jsonw_obj_begin(w);
    jsonw_kv_str(w, "name", x->name);
    jsonw_kv_str(w, "key", x->key);
    jsonw_kv_uint(w, "count_a", x->count_a);
    jsonw_kv_uint(w, "count_b", x->count_b);
    jsonw_kv_uint(w, "size_a", x->size_a);
    jsonw_kv_uint(w, "size_b", x->size_b);
    if (by_id) {
        jsonw_kv_uint(w, "new", x->n_new);
        jsonw_kv_uint(w, "deleted", x->n_deleted);
        jsonw_kv_uint(w, "alloc_size", x->alloc_size);
        jsonw_kv_uint(w, "freed_size", x->freed_size);
    }
    jsonw_kv_int(w, "count_delta", x->count_delta);
    jsonw_kv_int(w, "size_delta", x->size_delta);
    if (retained) {
        jsonw_kv_uint(w, "retained_a", x->retained_a);
        jsonw_kv_uint(w, "retained_b", x->retained_b);
        jsonw_kv_int(w, "retained_delta", x->retained_delta);
    }
    jsonw_obj_end(w);
}

void rep_diff_json(jsonw *w, const rep_diff *v)
{
    const diff_result *r = v->r;
    jsonw_kv_str(w, "a", v->a);
    jsonw_kv_str(w, "b", v->b);
    jsonw_kv_str(w, "match", v->by_id ? "id" : "class");
    jsonw_kv_uint(w, "changed_classes", r->n);
    jsonw_kv_arr_begin(w, "classes");
    for (uint32_t i = 0; i < v->n; i++)
        json_row(w, &r->rows[i], v->by_id, r->retained);
    jsonw_arr_end(w);
    jsonw_key(w, "total");
    json_row(w, &r->total, v->by_id, r->retained);
    rep_leaks_inputs_json(w, v->ks, v->related, v->force);
    jsonw_kv_arr_begin(w, "gates");
    for (uint32_t i = 0; i < v->n_gates; i++) {
        const diff_gate *g = &v->gates[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "class", g->cls);
        jsonw_kv_uint(w, g->pct ? "limit_pct" : "limit", g->limit);
        jsonw_kv_uint(w, "count_a", g->count_a);
        jsonw_kv_uint(w, "count_b", g->count_b);
        jsonw_kv_int(w, "growth", g->growth);
        jsonw_kv_bool(w, "known", g->known);
        jsonw_kv_bool(w, "failed", g->failed);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void rep_diff_text(FILE *out, const rep_diff *v)
{
    const diff_result *r = v->r;
    char s1[REP_FMT_MAX], s2[REP_FMT_MAX], s3[REP_FMT_MAX], s4[REP_FMT_MAX],
        s5[REP_FMT_MAX], s6[REP_FMT_MAX];
    fprintf(out, "base %s -> %s, matched by %s, %s classes changed\n", v->a, v->b,
            v->by_id ? "node id" : "class (counts and shallow bytes)", rep_fmt_count(s1, r->n));
    if (v->by_id)
        fprintf(out, "%10s %10s %10s %14s %14s %14s  ", "# New", "# Deleted", "# Delta",
                "Alloc. size", "Freed size", "Size delta");
    else /* the column names of histo and top: count, shallow, retained, class name */
        fprintf(out, "%11s %11s %11s %14s %14s %14s  ", "count A", "count B", "count delta",
                "shallow A", "shallow B", "shallow delta");
    if (r->retained)
        fprintf(out, "%14s %14s %14s  ", "retained A", "retained B", "retained delta");
    fprintf(out, "%s\n", v->by_id ? "Constructor" : "class name");
    for (uint32_t i = 0; i <= v->n; i++) {
        const diff_row *x = i < v->n ? &r->rows[i] : &r->total;
        if (i == v->n && v->n < r->n)
            fprintf(out, "(%s more classes; --top 0 shows all)\n", rep_fmt_count(s1, r->n - v->n));
        if (v->by_id)
            fprintf(out, "%10s %10s %10s %14s %14s %14s  ", rep_fmt_count(s1, x->n_new),
                    rep_fmt_count(s2, x->n_deleted),
                    fmt_signed(s3, x->count_delta), rep_fmt_count(s4, x->alloc_size),
                    rep_fmt_count(s5, x->freed_size), fmt_signed(s6, x->size_delta));
        else
            fprintf(out, "%11s %11s %11s %14s %14s %14s  ", rep_fmt_count(s1, x->count_a),
                    rep_fmt_count(s2, x->count_b), fmt_signed(s3, x->count_delta),
                    rep_fmt_count(s4, x->size_a), rep_fmt_count(s5, x->size_b),
                    fmt_signed(s6, x->size_delta));
        if (r->retained)
            fprintf(out, "%14s %14s %14s  ", rep_fmt_count(s1, x->retained_a),
                    rep_fmt_count(s2, x->retained_b), fmt_signed(s3, x->retained_delta));
        rep_fmt_text(out, x->name, strlen(x->name), 120);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < v->n_gates; i++) {
        const diff_gate *g = &v->gates[i];
        fprintf(out, "%s --fail-on-growth %s: %s -> %s instances (%s)\n",
                g->failed ? "FAILED" : g->known ? "passed" : "unknown class", g->spec,
                rep_fmt_count(s1, g->count_a),
                rep_fmt_count(s2, g->count_b), fmt_signed(s3, g->growth));
    }
}
