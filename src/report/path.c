/* SPDX-License-Identifier: Apache-2.0 */
/* path.c: a retaining path as text and JSON (report layer), prefix rep_path_. The shortest
 * strong path (root kind, then each hop: the reference taken, the object id and its class;
 * with categories, runs of one category as one line) or DevTools' retaining path by distance
 * (each object with its distance and retained size). An unreachable object is an answer:
 * one line saying so, or "reachable": false. */
#include "report/path.h"

#include "analysis/paths.h"
#include "report/fmt.h"
#include "report/text.h"

#include <inttypes.h>

/* Class name of node x; a class object shows the class it describes ("class Foo"). */
static const char *label_raw(const graph *g, node_ix x, char *buf, size_t cap)
{
    if (g->node_kind[x] == GRAPH_KIND_CLASS) {
        class_ix c = graph_class_of_node(g, x);
        if (c < g->n_classes) {
            snprintf(buf, cap, "class %s", graph_str(g, g->classes[c].name));
            return buf;
        }
    }
    /* V8 synthetic nodes are all class "(synthetic)"; name them as the other verbs do:
     * "(root)", "(GC roots)", "(Global handles)", ... */
    const char *syn = rep_fmt_synthetic_name(g, x);
    if (syn)
        return syn;
    const char *s = graph_class_name(g, x);
    return s && s[0] ? s : "<no class>";
}

/* label_raw escaped for a terminal (rep_fmt_term): names come from the dump. */
static const char *label(const graph *g, node_ix x, char *buf, size_t cap)
{
    char raw[512];
    const char *s = label_raw(g, x, raw, sizeof raw);
    const char *t = rep_fmt_term(buf, cap, s);
    if (t == raw) /* "class NAME", nothing to escape */
        snprintf(buf, cap, "%s", raw);
    return t == raw ? buf : t;
}

/* The reference kind and name of path edge code e: a graph edge, or the implicit reference
 * from an object to its class object (PATHS_CLASS_HOP: "implicit", "<class>"). */
static const char *ref_kind(const graph *g, edge_ix e)
{
    return e == PATHS_CLASS_HOP ? "implicit"
                                : graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[e]));
}

/* The edge's name escaped for a terminal, as label. */
static const char *edge_text(const graph *g, edge_ix e, char *buf, size_t cap)
{
    char raw[256];
    const char *s = graph_edge_name_text(g, e, raw, sizeof raw);
    const char *t = rep_fmt_term(buf, cap, s);
    if (t == raw) /* built in raw, nothing to escape */
        snprintf(buf, cap, "%s", raw);
    return t == raw ? buf : t;
}

static const char *ref_name(const graph *g, edge_ix e, char *buf, size_t cap)
{
    return e == PATHS_CLASS_HOP ? "<class>" : edge_text(g, e, buf, cap);
}

/* ref_name unescaped, for JSON (which escapes it itself). */
static const char *ref_name_raw(const graph *g, edge_ix e, char *buf, size_t cap)
{
    return e == PATHS_CLASS_HOP ? "<class>" : graph_edge_name_text(g, e, buf, cap);
}

/* The root category a path from V8's synthetic root (nodes[0]; n nodes) starts from, as
 * analyze's traces name it: the synthetic nodes it passes below the root ("(GC roots) /
 * (Stack roots)"), or the global object the root holds itself (a user root). Written into
 * buf (cap bytes). */
static const char *root_category(const graph *g, const node_ix *nodes, uint32_t n, char *buf,
                                 size_t cap)
{
    size_t l = 0;
    buf[0] = 0;
    for (uint32_t i = 1; i < n && g->node_kind[nodes[i]] == GRAPH_KIND_SYNTHETIC; i++) {
        const char *nm = rep_fmt_synthetic_name(g, nodes[i]);
        int k = snprintf(buf + l, cap - l, "%s%s", l ? " / " : "", nm ? nm : "(synthetic)");
        if (k > 0 && (size_t)k < cap - l)
            l += (size_t)k;
    }
    if (!l)
        snprintf(buf, cap, "%s", n > 1 ? "user root (global object)" : "(root)");
    return buf;
}

/* Whether the shortest path starts at V8's synthetic root, which names no root kind: its
 * category does (root_category). */
static int from_synthetic(const rep_path *v)
{
    return v->len && v->g->synthetic_root != GRAPH_NONE && v->nodes[0] == v->g->synthetic_root;
}

/* --collapse: the reference into a line and its ends ("N x category: first ... last"). */
static void print_collapsed(FILE *out, const graph *g, const cat_set *cs, const node_ix *nodes,
                                 const edge_ix *edges, const collapse_line *ln, uint32_t n_ln,
                                 uint32_t keep)
{
    char b1[REP_FMT_MAX], lab[512], ename[256];
    for (uint32_t i = 0; i < n_ln; i++) {
        const collapse_line *l = &ln[i];
        /* as a path's objects: past `keep` lines, the first and last halves (a chain of
         * objects of changing classes collapses little) */
        if (keep && n_ln > keep && i >= keep / 2 && i < n_ln - (keep - keep / 2)) {
            if (i == keep / 2) {
                uint32_t hidden = ln[n_ln - (keep - keep / 2)].first - l->first;
                char c[REP_FMT_MAX], c2[REP_FMT_MAX];
                fprintf(out, "      \xe2\x80\xa6 %s more line%s (%s object%s) \xe2\x80\xa6 "
                        "(--full shows them)\n", rep_fmt_count(c, n_ln - keep),
                        n_ln - keep == 1 ? "" : "s", rep_fmt_count(c2, hidden),
                        hidden == 1 ? "" : "s");
            }
            continue;
        }
        if (l->first > 0) {
            edge_ix e = edges[l->first - 1];
            fprintf(out, "      --[%s %s]-->\n", ref_kind(g, e),
                    ref_name(g, e, ename, sizeof ename));
        }
        node_ix a = nodes[l->first], z = nodes[l->last];
        if (l->first == l->last) {
            fprintf(out, "  %s %s", rep_fmt_id(b1, g, graph_node_id(g, a)),
                    label(g, a, lab, sizeof lab));
            if (l->cat != CAT_NONE)
                fprintf(out, "  [%s]", cat_name(cs, l->cat));
            fprintf(out, "\n");
            continue;
        }
        fprintf(out, "  %s x %s: %s %s", REP_FMT_COUNT(collapse_count(l)), cat_name(cs, l->cat),
                rep_fmt_id(b1, g, graph_node_id(g, a)), label(g, a, lab, sizeof lab));
        fprintf(out, " ... %s %s", rep_fmt_id(b1, g, graph_node_id(g, z)),
                label(g, z, lab, sizeof lab));
        if (l->collections)
            fprintf(out, " (through %s collection node%s)", REP_FMT_COUNT(l->collections),
                    l->collections == 1 ? "" : "s");
        fprintf(out, "\n");
    }
}

void rep_path_json(jsonw *w, const rep_path *v)
{
    const graph *g = v->g;
    char b1[REP_FMT_MAX], lab[512], ename[256];
    jsonw_kv_obj_begin(w, "object");
    jsonw_kv_str(w, "id", rep_fmt_id(b1, g, v->id));
    jsonw_kv_str(w, "class", label_raw(g, v->target, lab, sizeof lab));
    jsonw_obj_end(w);
    jsonw_kv_bool(w, "reachable", v->len > 0);
    if (!v->len && v->held_through)
        jsonw_kv_str(w, "held_through", v->held_through);
    if (v->len) {
        jsonw_kv_obj_begin(w, "root");
        jsonw_kv_str(w, "kind", v->root_kind);
        if (from_synthetic(v)) {
            char rb[512];
            jsonw_kv_str(w, "description", root_category(g, v->nodes, v->len, rb, sizeof rb));
        }
        if (v->root)
            rep_root_thread_json(w, g, v->root);
        jsonw_obj_end(w);
        jsonw_kv_bool(w, "low_priority", v->low_priority);
        jsonw_kv_arr_begin(w, "path");
        for (uint32_t i = 0; i < v->len; i++) {
            jsonw_obj_begin(w);
            if (i > 0) {
                jsonw_kv_str(w, "reference", ref_kind(g, v->edges[i - 1]));
                jsonw_kv_str(w, "name", ref_name_raw(g, v->edges[i - 1], ename, sizeof ename));
            }
            jsonw_kv_str(w, "id", rep_fmt_id(b1, g, graph_node_id(g, v->nodes[i])));
            jsonw_kv_str(w, "class", label_raw(g, v->nodes[i], lab, sizeof lab));
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
    if (v->collapse && v->len) {
        jsonw_kv_arr_begin(w, "collapsed");
        for (uint32_t i = 0; i < v->n_ln; i++) {
            const collapse_line *l = &v->ln[i];
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "category", cat_name(v->cs, l->cat));
            jsonw_kv_uint(w, "count", collapse_count(l));
            jsonw_kv_uint(w, "collections", l->collections);
            jsonw_kv_uint(w, "from", l->first); /* indexes into "path" */
            jsonw_kv_uint(w, "to", l->last);
            if (l->first > 0) {
                edge_ix e = v->edges[l->first - 1];
                jsonw_kv_str(w, "reference", ref_kind(g, e));
                jsonw_kv_str(w, "name", ref_name_raw(g, e, ename, sizeof ename));
            }
            jsonw_kv_str(w, "first_class", label_raw(g, v->nodes[l->first], lab, sizeof lab));
            jsonw_kv_str(w, "last_class", label_raw(g, v->nodes[l->last], lab, sizeof lab));
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
}

/* Whether object i of a path of n objects is left out of a text path keeping `keep` (half
 * at each end); the line standing for those left out is printed at the first. The reference
 * into the first object kept after them still prints: it names the link that leads on. */
static int path_cut(FILE *out, uint32_t i, uint32_t n, uint32_t keep)
{
    if (!keep || n <= keep)
        return 0;
    uint32_t head = keep / 2, tail = keep - head;
    if (i < head || i >= n - tail)
        return 0;
    if (i == head) {
        char c[REP_FMT_MAX];
        fprintf(out, "      \xe2\x80\xa6 %s more object%s \xe2\x80\xa6 (--full shows them)\n",
                rep_fmt_count(c, n - keep), n - keep == 1 ? "" : "s");
    }
    return 1;
}

void rep_path_text(FILE *out, const rep_path *v)
{
    const graph *g = v->g;
    char b1[REP_FMT_MAX], lab[512], ename[256];
    if (!v->len && v->held_through) {
        /* a soft cache's entry is no garbage: the JVM keeps it until memory runs short */
        fprintf(out, "%s %s is not strongly reachable: no strong reference path from a GC "
                "root; it is referred to through %s references\n",
                rep_fmt_id(b1, g, v->id), label(g, v->target, lab, sizeof lab), v->held_through);
    } else if (!v->len) {
        fprintf(out, "%s %s is unreachable: no strong reference path from a GC root\n",
                rep_fmt_id(b1, g, v->id), label(g, v->target, lab, sizeof lab));
    } else {
        char rb[512], rt[4 * 512 + 4];
        fprintf(out, "GC root: %s",
                from_synthetic(v)
                    ? rep_fmt_term(rt, sizeof rt, root_category(g, v->nodes, v->len, rb, sizeof rb))
                : v->root ? graph_root_title(g, v->root->kind)
                          : v->root_kind);
        if (v->root && v->root->thread) {
            char where[1024];
            fprintf(out, " %s %s", v->root->kind == GRAPH_ROOT_THREAD_OBJECT ? "of" : "in",
                    rep_root_thread(g, v->root, where, sizeof where));
        }
        fprintf(out, "\n");
        if (v->collapse)
            print_collapsed(out, g, v->cs, v->nodes, v->edges, v->ln, v->n_ln,
                            v->keep);
        for (uint32_t i = 0; !v->collapse && i < v->len; i++) {
            if (path_cut(out, i, v->len, v->keep))
                continue;
            if (i > 0)
                fprintf(out, "      --[%s %s]-->\n", ref_kind(g, v->edges[i - 1]),
                        ref_name(g, v->edges[i - 1], ename, sizeof ename));
            fprintf(out, "  %s %s\n", rep_fmt_id(b1, g, graph_node_id(g, v->nodes[i])),
                    label(g, v->nodes[i], lab, sizeof lab));
        }
        int low = v->low_priority;
        char c1[REP_FMT_MAX], c2[REP_FMT_MAX];
        fprintf(out, "%s reference%s%s\n", rep_fmt_count(c1, v->len - 1),
                v->len == 2 ? "" : "s", low ? " (through a low-priority reference or root)" : "");
        if (v->collapse)
            fprintf(out, "collapsed: %s objects on %s line%s\n", rep_fmt_count(c1, v->len),
                    rep_fmt_count(c2, v->n_ln), v->n_ln == 1 ? "" : "s");
    }
}

static const char *dt_root_text(const rep_path_dt *v, char *buf, size_t cap)
{
    return root_category(v->g, v->nodes, v->len + 1, buf, cap);
}

void rep_path_dt_json(jsonw *w, const rep_path_dt *v)
{
    const graph *g = v->g;
    char b1[REP_FMT_MAX], lab[512], ename[256];
    jsonw_kv_str(w, "model", "devtools");
    jsonw_kv_obj_begin(w, "object");
    jsonw_kv_str(w, "id", rep_fmt_id(b1, g, graph_node_id(g, v->target)));
    jsonw_kv_str(w, "class", label_raw(g, v->target, lab, sizeof lab));
    jsonw_kv_int(w, "distance", v->distance[v->target]);
    jsonw_kv_uint(w, "retained", v->retained[v->target]);
    jsonw_obj_end(w);
    jsonw_kv_bool(w, "reachable", v->reachable);
    if (v->reachable) {
        char rb[512];
        jsonw_kv_obj_begin(w, "root");
        jsonw_kv_str(w, "kind", "synthetic root");
        jsonw_kv_str(w, "description", dt_root_text(v, rb, sizeof rb));
        jsonw_obj_end(w);
        jsonw_kv_bool(w, "low_priority", 0);
        jsonw_kv_arr_begin(w, "path");
        for (uint32_t i = 0; i <= v->len; i++) {
            jsonw_obj_begin(w);
            if (i > 0) {
                unsigned k = GRAPH_EDGE_KIND(g->edge_kind[v->edges[i - 1]]);
                jsonw_kv_str(w, "reference", graph_edge_kind_name(k));
                jsonw_kv_str(w, "name",
                             graph_edge_name_text(g, v->edges[i - 1], ename, sizeof ename));
            }
            jsonw_kv_str(w, "id", rep_fmt_id(b1, g, graph_node_id(g, v->nodes[i])));
            jsonw_kv_str(w, "class", label_raw(g, v->nodes[i], lab, sizeof lab));
            const graph_loc *at = graph_node_loc(g, v->nodes[i]);
            if (at) {
                char lb[GRAPH_LOC_MAX];
                jsonw_kv_str(w, "location", graph_loc_text(g, at, lb));
            }
            jsonw_kv_int(w, "distance", v->distance[v->nodes[i]]);
            jsonw_kv_uint(w, "retained", v->retained[v->nodes[i]]);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
}

void rep_path_dt_text(FILE *out, const rep_path_dt *v)
{
    const graph *g = v->g;
    char b1[REP_FMT_MAX], lab[512], ename[256];
    if (!v->reachable) {
        fprintf(out, "%s %s is unreachable: DevTools gives it no distance (no path from the root "
                "without weak edges)\n",
                rep_fmt_id(b1, g, graph_node_id(g, v->target)),
                label(g, v->target, lab, sizeof lab));
    } else {
        char rb[512], rt[4 * 512 + 4];
        fprintf(out, "GC root: %s (DevTools retaining path by distance, weak edges hidden)\n",
                rep_fmt_term(rt, sizeof rt, dt_root_text(v, rb, sizeof rb)));
        for (uint32_t i = 0; i <= v->len; i++) {
            if (path_cut(out, i, v->len + 1, v->keep))
                continue;
            if (i > 0) {
                unsigned k = GRAPH_EDGE_KIND(g->edge_kind[v->edges[i - 1]]);
                fprintf(out, "      --[%s %s]-->\n", graph_edge_kind_name(k),
                        edge_text(g, v->edges[i - 1], ename, sizeof ename));
            }
            char dd[REP_FMT_MAX], rr[REP_FMT_MAX], lb[GRAPH_LOC_MAX], at[4 * GRAPH_LOC_MAX + 8];
            const graph_loc *l = graph_node_loc(g, v->nodes[i]);
            at[0] = 0;
            if (l) /* a closure: where its function is written */
                snprintf(at, sizeof at, " at %s",
                         rep_fmt_term(lab, sizeof lab, graph_loc_text(g, l, lb)));
            fprintf(out, "  %s %s%s  (distance %s, retained %s)\n",
                    rep_fmt_id(b1, g, graph_node_id(g, v->nodes[i])),
                    label(g, v->nodes[i], lab, sizeof lab), at,
                    rep_fmt_distance(dd, v->distance[v->nodes[i]]),
                    rep_fmt_bytes(rr, v->retained[v->nodes[i]]));
        }
        char c1[REP_FMT_MAX];
        fprintf(out, "%s reference%s\n", rep_fmt_count(c1, v->len), v->len == 1 ? "" : "s");
    }
}
