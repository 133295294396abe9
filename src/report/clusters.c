/* SPDX-License-Identifier: Apache-2.0 */
/* clusters.c: clusters as text and JSON (report layer), prefix rep_clusters_. Each cluster's
 * rank, title, directory rule, count, shallow and retained size, whether another cluster's
 * objects dominate it, and its representative shortest reference chain, from a cluster_result
 * (analysis/cluster.h); `leakray clusters` adds the anchor directories above them, `leakray
 * leaks` prints the rows alone. Names from the dump pass through rep_fmt_text (control
 * characters escaped, long labels cut). */
#include "report/clusters.h"

#include "report/fmt.h"

#include <stdlib.h>
#include <string.h>

#define REP_CLUSTERS_CHAIN_MAX 256 /* hops shown per chain: a deeper one keeps both ends */

/* Whether chains name each edge of the representative's own path ("[12]" for an element, a
 * dictionary's key) beside the label clustering compares ("[]"): outside JVM dumps, whose
 * chains keep the labels alone, as DevTools and memlab print a path with its indices. */
static int own_names(const graph *g)
{
    return rep_fmt_runtime(g) != REP_RT_JAVA;
}

/* The representative's chain whole: *nodes (len) and *edges (len - 1), malloc'd; returns
 * len, 0 when it has none or memory ran out. */
static uint32_t chain_whole(const cluster_ctx *c, node_ix rep, node_ix **nodes, edge_ix **edges)
{
    *nodes = NULL;
    *edges = NULL;
    uint32_t len = cluster_chain_get(c, rep, NULL, NULL, 0);
    if (!len)
        return 0;
    *nodes = malloc((size_t)len * sizeof **nodes);
    *edges = malloc((size_t)len * sizeof **edges);
    if (!*nodes || !*edges) {
        free(*nodes);
        free(*edges);
        *nodes = NULL;
        *edges = NULL;
        return 0;
    }
    return cluster_chain_get(c, rep, *nodes, *edges, len);
}

/* Which hops of a chain of len are shown: all up to REP_CLUSTERS_CHAIN_MAX, else its two
 * ends, half each (the root's, and the reference that holds the object, which is what a
 * developer must change), and hops [*cut_at, *cut_at + *cut) left out. */
static void chain_cut(uint32_t len, uint32_t *cut_at, uint32_t *cut)
{
    *cut_at = len;
    *cut = 0;
    if (len > REP_CLUSTERS_CHAIN_MAX) {
        *cut_at = REP_CLUSTERS_CHAIN_MAX / 2;
        *cut = len - REP_CLUSTERS_CHAIN_MAX;
    }
}

static void print_chain_text(FILE *out, const cluster_ctx *c, node_ix rep)
{
    const graph *g = c->g;
    node_ix *nodes;
    edge_ix *edges;
    uint32_t len = chain_whole(c, rep, &nodes, &edges);
    char nb[128];
    if (len == 0)
        return;
    uint32_t cut_at, cut;
    chain_cut(len, &cut_at, &cut);
    fputs("      ", out);
    char lb[512];
    const char *l0 = cluster_node_label(g, nodes[0], lb, sizeof lb);
    rep_fmt_text(out, l0, strlen(l0), 80);
    fputc('\n', out);
    for (uint32_t i = 1; i < len; i++) {
        if (i == cut_at) {
            fprintf(out, "        ... %s more\n", rep_fmt_count(nb, cut));
            i += cut - 1;
            continue;
        }
        edge_ix e = edges[i - 1];
        const char *lab = own_names(g) ? graph_edge_name_text(g, e, nb, sizeof nb)
                                       : cluster_edge_label(c, nodes[i - 1], e, nb, sizeof nb);
        fputs("        --", out);
        rep_fmt_text(out, lab, strlen(lab), 60);
        fprintf(out, " (%s)--> ", graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[e])));
        const char *l = cluster_node_label(g, nodes[i], lb, sizeof lb);
        rep_fmt_text(out, l, strlen(l), 80);
        fputc('\n', out);
    }
    free(nodes);
    free(edges);
}

/* "file:line in method" (" in method" left out when the dump names none) into buf. */
static const char *site_text(const graph *g, const rep_cluster_site *s, char *buf, size_t cap)
{
    const char *m = graph_str(g, s->method);
    snprintf(buf, cap, "%s:%u%s%s", graph_str(g, s->file), s->line, m[0] ? " in " : "", m);
    return buf;
}

void rep_clusters_rows_text(FILE *out, const cluster_ctx *c, const cluster_result *r, uint64_t top,
                            const uint64_t *similar, const rep_cluster_site *sites)
{
    const graph *g = c->g;
    char a[REP_FMT_MAX], b[REP_FMT_MAX], d[REP_FMT_MAX], title[512];
    uint32_t n = top && top < r->n ? (uint32_t)top : r->n;
    for (uint32_t i = 0; i < n; i++) {
        const cluster_item *it = &r->items[i];
        fprintf(out, "#%u  ", i + 1);
        cluster_title(c, it, title, sizeof title);
        rep_fmt_text(out, title, strlen(title), 200);
        fprintf(out, "  [%s]\n", crules_by_name(it->by));
        fprintf(out, "    count %s, shallow %s, retained %s", rep_fmt_count(a, it->count),
                rep_fmt_human(b, it->shallow), rep_fmt_human(d, it->retained));
        if (it->nested_in != CLUSTER_NONE)
            fprintf(out, ", nested in #%u", it->nested_in + 1);
        if (similar)
            fprintf(out, ", %s leaked objects on its traces", rep_fmt_count(a, similar[i]));
        for (uint32_t k = 0; sites && k < REP_CLUSTER_SITES; k++) {
            const rep_cluster_site *s = &sites[(size_t)i * REP_CLUSTER_SITES + k];
            if (!s->count)
                break;
            char st[600];
            site_text(g, s, st, sizeof st);
            fprintf(out, "%s", k ? ", " : "\n    allocated at ");
            rep_fmt_text(out, st, strlen(st), 200);
            fprintf(out, " (%s)", rep_fmt_count(a, s->count));
        }
        fprintf(out, "\n    representative %s, chain:\n",
                rep_fmt_id(a, g, graph_node_id(g, it->rep)));
        print_chain_text(out, c, it->rep);
    }
    if (n < r->n)
        fprintf(out, "(%s more clusters; --top 0 shows all)\n",
                REP_FMT_COUNT(r->n - n));
}

void rep_clusters_rows_json(jsonw *w, const cluster_ctx *c, const cluster_result *r, uint64_t top,
                            const uint64_t *similar, const rep_cluster_site *sites)
{
    const graph *g = c->g;
    char title[CLUSTER_TITLE_MAX], nb[128], lb[512];
    uint32_t n = top && top < r->n ? (uint32_t)top : r->n;
    jsonw_kv_arr_begin(w, "clusters");
    for (uint32_t i = 0; i < n; i++) {
        const cluster_item *it = &r->items[i];
        jsonw_obj_begin(w);
        jsonw_kv_uint(w, "rank", i + 1);
        jsonw_kv_str(w, "title", cluster_title(c, it, title, sizeof title));
        jsonw_kv_str(w, "directory", c->dir_names[it->dir]);
        jsonw_kv_str(w, "rule", crules_by_name(it->by));
        jsonw_kv_uint(w, "count", it->count);
        jsonw_kv_uint(w, "shallow", it->shallow);
        jsonw_kv_uint(w, "retained", it->retained);
        jsonw_kv_uint(w, "top_level", it->n_top);
        if (similar)
            jsonw_kv_uint(w, "similar_leaks", similar[i]);
        if (it->nested_in != CLUSTER_NONE)
            jsonw_kv_uint(w, "nested_in", it->nested_in + 1);
        else
            jsonw_kv_null(w, "nested_in");
        if (sites) {
            jsonw_kv_arr_begin(w, "allocated_at");
            for (uint32_t k = 0; k < REP_CLUSTER_SITES; k++) {
                const rep_cluster_site *s = &sites[(size_t)i * REP_CLUSTER_SITES + k];
                if (!s->count)
                    break;
                char st[1100];
                jsonw_obj_begin(w);
                jsonw_kv_str(w, "site", site_text(g, s, st, sizeof st));
                jsonw_kv_uint(w, "count", s->count);
                jsonw_obj_end(w);
            }
            jsonw_arr_end(w);
        }
        jsonw_kv_obj_begin(w, "representative");
        jsonw_kv_uint(w, "id", graph_node_id(g, it->rep));
        jsonw_kv_str(w, "name", cluster_node_label(g, it->rep, lb, sizeof lb));
        jsonw_kv_uint(w, "retained", c->dom->retained[it->rep]);
        jsonw_obj_end(w);
        node_ix *nodes;
        edge_ix *edges;
        uint32_t len = chain_whole(c, it->rep, &nodes, &edges), cut_at, cut;
        chain_cut(len, &cut_at, &cut);
        /* a chain past the bound keeps both ends: chain_length hops in all, chain_elided
         * of them left out after the first chain_elided_after */
        jsonw_kv_uint(w, "chain_length", len);
        jsonw_kv_uint(w, "chain_elided", cut);
        jsonw_kv_uint(w, "chain_elided_after", cut_at);
        jsonw_kv_arr_begin(w, "chain");
        for (uint32_t k = 0; k < len; k++) {
            if (k == cut_at)
                k += cut;
            jsonw_obj_begin(w);
            if (k > 0) {
                edge_ix e = edges[k - 1];
                jsonw_kv_str(w, "edge_kind",
                             graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[e])));
                jsonw_kv_str(w, "edge", cluster_edge_label(c, nodes[k - 1], e, nb, sizeof nb));
                if (own_names(g))
                    jsonw_kv_str(w, "name", graph_edge_name_text(g, e, nb, sizeof nb));
            }
            jsonw_kv_str(w, "node", cluster_node_label(g, nodes[k], lb, sizeof lb));
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        free(nodes);
        free(edges);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void rep_clusters_text(FILE *out, const char *path, const cluster_ctx *c,
                       const cluster_result *r, uint64_t top, int detached)
{
    char a[REP_FMT_MAX], b[REP_FMT_MAX], d[REP_FMT_MAX];
    if (detached)
        fprintf(out, "%s: %s clusters over %s detached DOM objects (heap %s)\n", path,
                rep_fmt_count(a, r->n), rep_fmt_count(b, r->n_members),
                rep_fmt_human(d, r->heap_total));
    else
        fprintf(out, "%s: %s clusters over %s objects in %s anchor directories (heap %s)\n",
                path, rep_fmt_count(a, r->n), rep_fmt_count(b, r->n_members),
                REP_FMT_COUNT(r->n_anchors),
                rep_fmt_human(d, r->heap_total));
    if (!detached)
        fprintf(out, "anchors:\n");
    for (uint32_t i = 0; i < r->n_anchors; i++) {
        const char *dn = c->dir_names[r->anchors[i].dir];
        fputs("  ", out);
        rep_fmt_text(out, dn, strlen(dn), 60);
        fprintf(out, "  %s objects, retained %s [%s]\n", rep_fmt_count(a, r->anchors[i].count),
                rep_fmt_human(b, r->anchors[i].retained),
                crules_by_name(c->dir_by[r->anchors[i].dir]));
    }
    fprintf(out, "\n");
    rep_clusters_rows_text(out, c, r, top, NULL, NULL);
}

void rep_clusters_json(jsonw *w, const char *path, const char *sort, const cluster_ctx *c,
                       const cluster_result *r, uint64_t top)
{
    jsonw_kv_str(w, "file", path);
    jsonw_kv_str(w, "sort", sort);
    jsonw_kv_uint(w, "heap_retained", r->heap_total);
    jsonw_kv_uint(w, "objects", r->n_members);
    jsonw_kv_uint(w, "shallow", r->members_shallow);
    jsonw_kv_uint(w, "retained", r->members_retained);
    jsonw_kv_uint(w, "total_clusters", r->n);
    jsonw_kv_arr_begin(w, "anchors");
    for (uint32_t i = 0; i < r->n_anchors; i++) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "directory", c->dir_names[r->anchors[i].dir]);
        jsonw_kv_str(w, "rule", crules_by_name(c->dir_by[r->anchors[i].dir]));
        jsonw_kv_uint(w, "count", r->anchors[i].count);
        jsonw_kv_uint(w, "retained", r->anchors[i].retained);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    rep_clusters_rows_json(w, c, r, top, NULL, NULL);
}
