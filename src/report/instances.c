/* SPDX-License-Identifier: Apache-2.0 */
/* instances.c: the instances of a class as `leakray instances` prints them (report layer),
 * prefix rep_inst_. Reads an inst_result only; names and ids come from its graph through the
 * graph accessors. */
#include "report/instances.h"

#include "report/fmt.h"

#include <inttypes.h>

static const char *sort_name(enum inst_sort s)
{
    return s == INST_BY_RETAINED ? "retained" : s == INST_BY_SHALLOW ? "shallow" : "id";
}

void rep_inst_text(FILE *out, const inst_result *r)
{
    const graph *g = r->g;
    const inst_opts *o = &r->o;
    int with_retained = o->sort == INST_BY_RETAINED;
    char b1[REP_FMT_MAX], b2[REP_FMT_MAX];
    fprintf(out, "%s instance%s of ", rep_fmt_count(b1, r->n), r->n == 1 ? "" : "s");
    rep_fmt_name(out, o->cls);
    fprintf(out, "%s%s%s, %s shallow\n", o->subclasses ? " and subclasses" : "",
            o->where_text ? " where " : "", o->where_text ? o->where_text : "",
            rep_fmt_bytes(b2, r->shallow));
    if (r->shown) {
        fprintf(out, "%6s  %-18s %12s", "num", "id", "shallow");
        if (with_retained)
            fprintf(out, " %14s", "retained");
        fprintf(out, "  class name\n");
    }
    for (uint32_t i = 0; i < r->shown; i++) {
        node_ix x = r->nodes[i];
        fprintf(out, "%6" PRIu32 ": %-18s %12s", i + 1, rep_fmt_id(b1, g, graph_node_id(g, x)),
                rep_fmt_count(b2, graph_node_size(g, x)));
        if (with_retained)
            fprintf(out, " %14s", rep_fmt_count(b2, r->retained[i]));
        fputs("  ", out);
        rep_fmt_name(out, graph_class_name(g, x));
        fputc('\n', out);
    }
    if (r->shown < r->n)
        fprintf(out, "... %s more not shown (--limit %" PRIu64 "; --limit 0 shows all)\n",
                rep_fmt_count(b1, r->n - r->shown), o->limit);
}

void rep_inst_json(jsonw *w, const inst_result *r)
{
    const graph *g = r->g;
    const inst_opts *o = &r->o;
    int with_retained = o->sort == INST_BY_RETAINED;
    char b1[REP_FMT_MAX];
    jsonw_kv_str(w, "class", o->cls);
    jsonw_kv_bool(w, "subclasses", o->subclasses);
    if (o->where_text)
        jsonw_kv_str(w, "where", o->where_text);
    jsonw_kv_str(w, "sort", sort_name(o->sort));
    jsonw_kv_uint(w, "count", r->n);
    jsonw_kv_uint(w, "shallow", r->shallow);
    if (with_retained)
        jsonw_kv_uint(w, "retained", r->retained_sum); /* sum; objects may share bytes */
    jsonw_kv_uint(w, "shown", r->shown);
    jsonw_kv_bool(w, "truncated", r->shown < r->n);
    jsonw_kv_arr_begin(w, "instances");
    for (uint32_t i = 0; i < r->shown; i++) {
        node_ix x = r->nodes[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "id", rep_fmt_id(b1, g, graph_node_id(g, x)));
        jsonw_kv_str(w, "class", graph_class_name(g, x));
        jsonw_kv_uint(w, "shallow", graph_node_size(g, x));
        if (with_retained)
            jsonw_kv_uint(w, "retained", r->retained[i]);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}
