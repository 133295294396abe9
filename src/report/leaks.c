/* SPDX-License-Identifier: Apache-2.0 */
/* leaks.c: `leakray leaks` as text and JSON (report layer), prefix rep_leaks_. Two summary
 * lines (what was new, alive, filtered or what memlab's rules keep; what leaked and in how
 * many clusters) then the cluster rows of report/clusters.h, with memlab's "similar leaks"
 * per cluster when its rules were applied. */
#include "report/leaks.h"

#include "report/clusters.h"
#include "report/fmt.h"

static uint32_t top_level(const cluster_result *r)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n; i++)
        n += r->items[i].nested_in == CLUSTER_NONE;
    return n;
}

void rep_leaks_inputs_json(jsonw *w, const kin_stats *ks, int related, int force)
{
    jsonw_kv_obj_begin(w, "inputs");
    jsonw_kv_bool(w, "related", related);
    jsonw_kv_bool(w, "forced", force && !related);
    jsonw_kv_uint(w, "classes_a", ks->classes_a);
    jsonw_kv_uint(w, "classes_b", ks->classes_b);
    jsonw_kv_uint(w, "classes_shared", ks->classes_shared);
    jsonw_kv_uint(w, "ids_shared", ks->ids_shared);
    jsonw_kv_uint(w, "ids_same_class", ks->ids_same_class);
    jsonw_kv_uint(w, "js_ids_shared", ks->js_shared);
    jsonw_kv_uint(w, "js_ids_same_class", ks->js_same_class);
    jsonw_kv_uint(w, "string_ids_shared", ks->str_shared);
    jsonw_kv_uint(w, "string_ids_same_text", ks->str_same_text);
    jsonw_kv_bool(w, "ids_renumbered", ks->ids_renumbered);
    jsonw_obj_end(w);
}

void rep_leaks_json(jsonw *w, const rep_leaks *v)
{
    const cluster_result *r = v->r;
    jsonw_kv_str(w, "baseline", v->baseline);
    jsonw_kv_str(w, "target", v->target);
    jsonw_kv_str(w, "final", v->final);
    jsonw_kv_uint(w, "new_in_target", v->n_new);
    jsonw_kv_uint(w, "alive_in_final", v->n_alive);
    jsonw_kv_uint(w, "filtered", r->n_skipped);
    jsonw_kv_obj_begin(w, "filtered_by");
    jsonw_kv_uint(w, "unreachable", r->n_skip_unreached);
    jsonw_kv_uint(w, "internal", r->n_skip_internal);
    jsonw_kv_uint(w, "rules", r->n_skip_ignored);
    jsonw_kv_arr_begin(w, "rule_classes");
    for (uint32_t i = 0; i < r->n_skip_dirs; i++) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", v->c->dir_names[r->skip_dir[i]]);
        jsonw_kv_uint(w, "count", r->skip_dir_count[i]);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    jsonw_kv_str(w, "leak_filter", v->memlab ? "memlab" : "all-objects");
    jsonw_kv_uint(w, "leaked_objects", v->memlab ? v->n_reported : r->n_members);
    /* memlab mode: the objects counted beside it, not only the trace heads that cluster */
    jsonw_kv_uint(w, "leaked_shallow", v->memlab ? v->reported_shallow : r->members_shallow);
    jsonw_kv_uint(w, "leaked_retained", r->members_retained);
    jsonw_kv_uint(w, "heap_retained", r->heap_total);
    jsonw_kv_uint(w, "total_clusters", r->n);
    jsonw_kv_uint(w, "top_level_clusters", top_level(r));
    rep_leaks_inputs_json(w, v->ks, v->related, v->force);
    jsonw_kv_obj_begin(w, "unretained");
    jsonw_kv_uint(w, "count", v->n_unretained);
    jsonw_kv_uint(w, "shallow", v->unretained_shallow);
    jsonw_kv_arr_begin(w, "classes");
    for (uint32_t i = 0; i < v->n_unretained_classes; i++) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", v->unretained[i].name);
        jsonw_kv_uint(w, "count", v->unretained[i].count);
        jsonw_kv_uint(w, "shallow", v->unretained[i].shallow);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    if (v->memlab)
        jsonw_kv_uint(w, "memlab_leaks", v->n_leaked);
    rep_clusters_rows_json(w, v->c, r, v->top, v->memlab ? v->similar : NULL, v->sites);
}

/* Why objects alive in the final snapshot are not counted as leaks: " (12 unreachable,
 * 800 internal, 422 by leak-ignore rules: java.lang.String 200, byte[] 200, ...)". */
static void filtered_text(FILE *out, const rep_leaks *v)
{
    const cluster_result *r = v->r;
    char a[REP_FMT_MAX];
    const char *sep = " (";
    if (r->n_skip_unreached) {
        fprintf(out, "%s%s unreachable", sep, rep_fmt_count(a, r->n_skip_unreached));
        sep = ", ";
    }
    if (r->n_skip_internal) {
        fprintf(out, "%s%s internal", sep, rep_fmt_count(a, r->n_skip_internal));
        sep = ", ";
    }
    if (r->n_skip_ignored) {
        fprintf(out, "%s%s by leak-ignore rules", sep, rep_fmt_count(a, r->n_skip_ignored));
        uint64_t named = 0;
        for (uint32_t i = 0; i < r->n_skip_dirs; i++) {
            fprintf(out, "%s%s %s", i ? ", " : ": ", v->c->dir_names[r->skip_dir[i]],
                    rep_fmt_count(a, r->skip_dir_count[i]));
            named += r->skip_dir_count[i];
        }
        if (named < r->n_skip_ignored)
            fprintf(out, ", ...");
        sep = ", ";
    }
    if (*sep == ',')
        fprintf(out, ")");
}

void rep_leaks_text(FILE *out, const rep_leaks *v)
{
    const cluster_result *r = v->r;
    char a[REP_FMT_MAX], b[REP_FMT_MAX], d[REP_FMT_MAX];
    if (v->memlab) {
        fprintf(out, "%s objects new in target, %s still alive in final, %s leaked by memlab's "
                     "rules (detached DOM the page holds, unmounted React fibers; "
                     "--trace-all-objects lists every object)\n",
                rep_fmt_count(a, v->n_new), rep_fmt_count(b, v->n_alive),
                rep_fmt_count(d, v->n_leaked));
        fprintf(out, "leaked: %s objects, retained %s, in %s cluster%s of similar traces "
                     "(memlab's)\n",
                rep_fmt_count(a, v->n_reported), rep_fmt_bytes(b, r->members_retained),
                rep_fmt_count(d, r->n), r->n == 1 ? "" : "s");
        if (r->n)
            fprintf(out, "\n");
        rep_clusters_rows_text(out, v->c, r, v->top, v->similar, v->sites);
        return;
    }
    fprintf(out, "%s objects new in target, %s still alive in final, %s filtered",
            rep_fmt_count(a, v->n_new), rep_fmt_count(b, v->n_alive),
            rep_fmt_count(d, r->n_skipped));
    filtered_text(out, v);
    fprintf(out, "\n");
    fprintf(out, "leaked: %s objects, retained %s (shallow %s), ", rep_fmt_count(a, r->n_members),
            rep_fmt_bytes(b, r->members_retained), rep_fmt_human(d, r->members_shallow));
    fprintf(out, "in %s clusters (%s not nested)\n", rep_fmt_count(a, r->n),
            rep_fmt_count(b, top_level(r)));
    if (v->n_unretained) {
        fprintf(out, "not reached from a root: %s new objects in final (shallow %s):",
                rep_fmt_count(a, v->n_unretained), rep_fmt_human(b, v->unretained_shallow));
        for (uint32_t i = 0; i < v->n_unretained_classes; i++)
            fprintf(out, "%s %s x%s", i ? "," : "", v->unretained[i].name,
                    rep_fmt_count(a, v->unretained[i].count));
        fprintf(out, " (V8 and Bun write live objects only: references the snapshot leaves out "
                     "hold them, as a Map's entries in Bun's)\n");
    }
    if (r->n)
        fprintf(out, "\n");
    rep_clusters_rows_text(out, v->c, r, v->top, NULL, v->sites);
}
