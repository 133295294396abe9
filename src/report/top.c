/* SPDX-License-Identifier: Apache-2.0 */
/* top.c: the biggest objects or classes as text, CSV and JSON (report layer), prefix
 * rep_top_. Reads rows through top_row_get (analysis/top.h) and writes them in rank order;
 * counts and sizes with the report layer's formatters (fmt.h), names of classes written as a
 * CSV field when they need quoting. A class object is "class NAME" everywhere, as show and
 * path name it. The layouts are fixed-width tables; keys and columns only ever grow. */
#include "report/top.h"

#include "report/fmt.h"

#include <inttypes.h>
#include <string.h>

#define REP_TOP_NAME_MAX 1100 /* bytes of "class NAME" and of a site in the JSON */

/* "file:line in method" (" in method" left out when the dump names none) into buf. */
static const char *site_text(const graph *g, const top_site *s, char *buf, size_t cap)
{
    const char *m = graph_str(g, s->method);
    snprintf(buf, cap, "%s:%u%s%s", graph_str(g, s->file), s->line, m[0] ? " in " : "", m);
    return buf;
}

static const char *model_key(enum top_model m)
{
    return m == TOP_MODEL_DEVTOOLS ? "devtools" : m == TOP_MODEL_VISUALVM ? "visualvm" : "strong";
}

void rep_top_json(jsonw *w, const top_result *r)
{
    const graph *g = r->g;
    int dev = r->model == TOP_MODEL_DEVTOOLS;
    char id[REP_FMT_MAX], buf[REP_TOP_NAME_MAX];
    jsonw_kv_str(w, "by", r->by_class ? "class" : "object");
    jsonw_kv_str(w, "model", model_key(r->model));
    jsonw_kv_uint(w, "reachable_objects", r->reachable_objects);
    jsonw_kv_uint(w, "reachable_bytes", r->reachable_bytes);
    if (dev)
        jsonw_kv_uint(w, "heap_total", r->heap_total);
    jsonw_kv_arr_begin(w, r->by_class ? "classes" : "objects");
    for (uint32_t i = 0; i < r->n; i++) {
        top_row row;
        top_row_get(r, i, &row);
        jsonw_obj_begin(w);
        if (r->by_class) {
            jsonw_kv_str(w, "class", row.name);
            if (dev)
                jsonw_kv_str(w, "key", row.key);
            jsonw_kv_uint(w, "count", row.count);
            if (dev)
                jsonw_kv_int(w, "distance", row.distance);
            jsonw_kv_uint(w, "shallow", row.shallow);
            jsonw_kv_uint(w, "retained", row.retained);
        } else {
            jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, row.node)));
            if (row.describes) {
                snprintf(buf, sizeof buf, "class %s", row.describes);
                jsonw_kv_str(w, "class", buf);
                jsonw_kv_str(w, "describes", row.describes);
            } else {
                jsonw_kv_str(w, "class", row.name);
            }
            jsonw_kv_uint(w, "shallow", row.shallow);
            jsonw_kv_uint(w, "retained", row.retained);
            if (dev)
                jsonw_kv_int(w, "distance", row.distance);
            if (row.native) /* Android registry bytes */
                jsonw_kv_uint(w, "native", row.native);
            if (row.has_site) /* Ruby with allocation tracing */
                jsonw_kv_str(w, "allocated_at", site_text(g, &row.site, buf, sizeof buf));
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void rep_top_csv(FILE *out, const top_result *r)
{
    const graph *g = r->g;
    int dev = r->model == TOP_MODEL_DEVTOOLS;
    char id[REP_FMT_MAX];
    if (r->by_class)
        fputs(dev ? "num,count,shallow,retained,distance,class\n"
                  : "num,count,shallow,retained,class\n",
              out);
    else
        fputs(dev ? "num,id,retained,shallow,distance,class\n" : "num,id,retained,shallow,class\n",
              out);
    for (uint32_t i = 0; i < r->n; i++) {
        top_row row;
        top_row_get(r, i, &row);
        if (r->by_class) {
            fprintf(out, "%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", i + 1, row.count,
                    row.shallow, row.retained);
            if (dev)
                fprintf(out, "%" PRId32 ",", row.distance);
            rep_fmt_csv(out, row.name);
        } else {
            fprintf(out, "%" PRIu32 ",%s,%" PRIu64 ",%" PRIu64 ",", i + 1,
                    rep_fmt_id(id, g, graph_node_id(g, row.node)), row.retained, row.shallow);
            if (dev)
                fprintf(out, "%" PRId32 ",", row.distance);
            if (row.describes)
                fputs("class ", out);
            rep_fmt_csv(out, row.describes ? row.describes : row.name);
        }
        fputc('\n', out);
    }
}

/* DevTools' table: a distance column, no native bytes or sites. */
static void text_devtools(FILE *out, const top_result *r)
{
    const graph *g = r->g;
    char b1[REP_FMT_MAX], b2[REP_FMT_MAX];
    char f1[REP_FMT_MAX], f2[REP_FMT_MAX], f3[REP_FMT_MAX], f4[REP_FMT_MAX], f5[REP_FMT_MAX];
    fprintf(out, "%s reachable objects, %s retained by the root (DevTools model)\n",
            rep_fmt_count(b1, r->reachable_objects), rep_fmt_bytes(b2, r->reachable_bytes));
    if (r->by_class)
        fprintf(out, "%4s  %12s %14s %14s %7s %9s  %s\n", "num", "count", "shallow", "retained",
                "% heap", "distance", "class name");
    else
        fprintf(out, "%4s  %-18s %14s %12s %7s %9s  %s\n", "num", "id", "retained", "shallow",
                "% heap", "distance", "class name");
    for (uint32_t i = 0; i < r->n; i++) {
        top_row row;
        top_row_get(r, i, &row);
        if (r->by_class)
            fprintf(out, "%4" PRIu32 ": %12s %14s %14s %7s %9s  ", i + 1,
                    rep_fmt_count(f1, row.count), rep_fmt_count(f2, row.shallow),
                    rep_fmt_count(f3, row.retained),
                    rep_fmt_pct(f4, row.retained, r->reachable_bytes),
                    rep_fmt_distance(f5, row.distance));
        else
            fprintf(out, "%4" PRIu32 ": %-18s %14s %12s %7s %9s  ", i + 1,
                    rep_fmt_id(b1, g, graph_node_id(g, row.node)), rep_fmt_count(f1, row.retained),
                    rep_fmt_count(f2, row.shallow),
                    rep_fmt_pct(f3, row.retained, r->reachable_bytes),
                    rep_fmt_distance(f4, row.distance));
        rep_fmt_name(out, row.name);
        fputc('\n', out);
    }
}

void rep_top_text(FILE *out, const top_result *r)
{
    if (r->model == TOP_MODEL_DEVTOOLS) {
        text_devtools(out, r);
        return;
    }
    const graph *g = r->g;
    char b1[REP_FMT_MAX], b2[REP_FMT_MAX], site[REP_TOP_NAME_MAX];
    char f1[REP_FMT_MAX], f2[REP_FMT_MAX], f3[REP_FMT_MAX], f4[REP_FMT_MAX];
    fprintf(out, "%s reachable objects, %s retained by GC roots (%s model)\n",
            rep_fmt_count(b1, r->reachable_objects), rep_fmt_bytes(b2, r->reachable_bytes),
            r->model == TOP_MODEL_VISUALVM ? "VisualVM" : "strong-reference");
    if (r->by_class)
        fprintf(out, "%4s  %12s %14s %14s %7s  %s\n", "num", "count", "shallow", "retained",
                "% heap", "class name");
    else
        fprintf(out, "%4s  %-18s %14s %12s %7s  %s\n", "num", "id", "retained", "shallow",
                "% heap", "class name");
    for (uint32_t i = 0; i < r->n; i++) {
        top_row row;
        top_row_get(r, i, &row);
        if (r->by_class) {
            fprintf(out, "%4" PRIu32 ": %12s %14s %14s %7s  ", i + 1,
                    rep_fmt_count(f1, row.count), rep_fmt_count(f2, row.shallow),
                    rep_fmt_count(f3, row.retained),
                    rep_fmt_pct(f4, row.retained, r->reachable_bytes));
            rep_fmt_name(out, row.name);
            fputc('\n', out);
            continue;
        }
        fprintf(out, "%4" PRIu32 ": %-18s %14s %12s %7s  %s", i + 1,
                rep_fmt_id(b1, g, graph_node_id(g, row.node)), rep_fmt_count(f1, row.retained),
                rep_fmt_count(f2, row.shallow), rep_fmt_pct(f3, row.retained, r->reachable_bytes),
                row.describes ? "class " : "");
        rep_fmt_name(out, row.describes ? row.describes : row.name);
        if (row.native)
            fprintf(out, "  (+%s native)", rep_fmt_count(f4, row.native));
        if (row.has_site) { /* file and method names from the dump */
            fprintf(out, "  at ");
            rep_fmt_name(out, site_text(g, &row.site, site, sizeof site));
        }
        fputc('\n', out);
    }
}
