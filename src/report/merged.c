/* SPDX-License-Identifier: Apache-2.0 */
/* merged.c: merged shortest paths as `leakray path --merged` prints them (report layer),
 * prefix rep_merged_. Walks the tree with merged_walk (no recursion: a path may be millions
 * of objects long); text indents two columns per level up to REP_MERGED_MAX_INDENT levels,
 * deeper lines say their depth instead. Reads a merged_result only. */
#include "report/merged.h"

#include "analysis/paths.h"

#include "report/fmt.h"

#include <inttypes.h>

#define REP_MERGED_MAX_INDENT 40 /* levels indented; deeper lines say their depth instead */
#define REP_MERGED_JSON_DEPTH 200 /* levels nested in JSON; deeper nodes are counted, not shown */
/* A chain (each link the only child of the one before, of its class, through the same
 * reference: a linked list) shows its first REP_MERGED_CHAIN_SHOWN links and its last; a
 * 3,000,000-node list printed 3,000,000 lines. */
#define REP_MERGED_CHAIN_SHOWN 3

/* Class name of x; a class object shows the class it describes ("class Foo"), a V8
 * synthetic node its own name ("(root)", "(GC roots)"), as path and show name them. */
static const char *node_label(const graph *g, node_ix x, char *buf, size_t cap)
{
    const char *syn = rep_fmt_synthetic_name(g, x);
    if (syn)
        return syn;
    if (g->node_kind[x] == GRAPH_KIND_CLASS) {
        class_ix c = graph_class_of_node(g, x);
        if (c != GRAPH_NONE) {
            snprintf(buf, cap, "class %s", graph_str(g, g->classes[c].name));
            return buf;
        }
    }
    const char *s = graph_class_name(g, x);
    return s && s[0] ? s : "<no class>";
}

/* The root kind of the top at place pos: its identifier for JSON, LeakCanary's name for
 * text (title). */
static const char *root_label(const merged_result *r, uint32_t pos, int title)
{
    const graph *g = r->g;
    uint32_t k = r->top_root[pos];
    if (k >= g->n_roots)
        return "synthetic root";
    return title ? graph_root_title(g, g->roots[k].kind)
                 : graph_root_kind_name(g->roots[k].kind);
}

/* The reference kind leading to m (NULL at a top) and its name in ename. */
static const char *edge_label(const graph *g, const mpath_node *m, char *ename, size_t cap)
{
    if (m->edge == GRAPH_NONE)
        return NULL;
    if (m->edge == PATHS_CLASS_HOP) { /* an instance's class object, as `path` writes it */
        snprintf(ename, cap, "<class>");
        return "implicit";
    }
    unsigned kind = GRAPH_EDGE_KIND(g->edge_kind[m->edge]);
    if (GRAPH_EDGE_NAME_IS_INDEX(kind))
        snprintf(ename, cap, "[%u]", m->edge_name);
    else
        snprintf(ename, cap, "%s", graph_str(g, m->edge_name));
    return graph_edge_kind_name(kind);
}

/* Nodes, counts and retained bytes from the first node the limit left out to its last
 * sibling. */
static uint64_t cut_sum(const mpath_tree *t, uint32_t from, uint64_t *cnt, uint64_t *ret)
{
    uint64_t k = 0;
    *cnt = *ret = 0;
    for (uint32_t c = from; c != MPATH_NONE; c = t->nodes[c].next_sibling) {
        k++;
        *cnt += t->nodes[c].count;
        *ret += t->nodes[c].retained;
    }
    return k;
}

/* Whether tree node c continues the chain of its parent p: c is p's only child, of p's class,
 * reached through the reference that reached p. */
static int chain_link(const graph *g, const mpath_tree *t, uint32_t p, uint32_t c)
{
    const mpath_node *a = &t->nodes[p], *b = &t->nodes[c];
    return a->parent != MPATH_NONE && a->first_child == c && b->next_sibling == MPATH_NONE &&
           graph_node_class(g, a->node) == graph_node_class(g, b->node) &&
           a->edge != GRAPH_NONE && b->edge != GRAPH_NONE &&
           g->edge_kind[a->edge] == g->edge_kind[b->edge] && a->edge_name == b->edge_name;
}

static const char *model_name(enum top_model m)
{
    return m == TOP_MODEL_DEVTOOLS ? "devtools" : m == TOP_MODEL_VISUALVM ? "visualvm" : "strong";
}

void rep_merged_text(FILE *out, const merged_result *r)
{
    const graph *g = r->g;
    const mpath_tree *t = &r->tree;
    char b1[REP_FMT_MAX], b2[REP_FMT_MAX], b3[REP_FMT_MAX], lab[512], ename[256];
    fprintf(out, "Merged shortest paths from GC roots to %s instance%s of ",
            rep_fmt_count(b1, r->n_instances), r->n_instances == 1 ? "" : "s");
    rep_fmt_name(out, r->cls);
    fprintf(out, "%s: %s reached, %s unreachable\n", r->subclasses ? " and subclasses" : "",
            rep_fmt_count(b2, t->n_reached), rep_fmt_count(b3, t->n_unreached));
    fprintf(out, "%9s %14s  %s\n", "count", "retained", "reference chain (* = instance)");
    merged_walk w;
    merged_walk_start(r, &w);
    int ev;
    /* the open chain: its link count so far, and where it ends (MPATH_NONE: not measured) */
    uint32_t run = 0, run_end = MPATH_NONE, prev = MPATH_NONE;
    while ((ev = merged_walk_next(r, &w)) != MERGED_END) {
        if (ev == MERGED_OPEN) {
            uint32_t c = w.node;
            run = prev != MPATH_NONE && t->nodes[c].parent == prev &&
                          chain_link(g, t, prev, c)
                      ? run + 1
                      : 0;
            prev = c;
            if (run == REP_MERGED_CHAIN_SHOWN) {
                /* measure the rest once: the links after this one, to the last */
                uint64_t k = 0;
                run_end = c;
                while (t->nodes[run_end].first_child != MPATH_NONE &&
                       chain_link(g, t, run_end, t->nodes[run_end].first_child)) {
                    run_end = t->nodes[run_end].first_child;
                    k++;
                }
                if (k > 1) {
                    const mpath_node *m = &t->nodes[c];
                    uint32_t d = w.depth > REP_MERGED_MAX_INDENT ? REP_MERGED_MAX_INDENT
                                                                 : w.depth;
                    fprintf(out, "%9s %14s  %*s... %s more links of this chain (",
                            rep_fmt_count(b1, m->count), rep_fmt_count(b2, m->retained),
                            2 * (int)d, "", REP_FMT_COUNT(k));
                    rep_fmt_name(out, node_label(g, m->node, lab, sizeof lab));
                    fputs(")\n", out);
                } else {
                    run_end = MPATH_NONE; /* two links left: shown */
                }
            }
            if (run >= REP_MERGED_CHAIN_SHOWN && run_end != MPATH_NONE && c != run_end)
                continue;
        } else {
            prev = MPATH_NONE;
        }
        if (ev == MERGED_CLOSE) {
            uint64_t cnt, ret, k = cut_sum(t, w.node, &cnt, &ret);
            uint32_t d = w.depth > REP_MERGED_MAX_INDENT ? REP_MERGED_MAX_INDENT : w.depth;
            if (k)
                fprintf(out, "%9s %14s  %*s... %s more branch%s (--limit)\n",
                        rep_fmt_count(b1, cnt), rep_fmt_count(b2, ret), 2 * (int)d, "",
                        REP_FMT_COUNT(k), k == 1 ? "" : "es");
            continue;
        }
        const mpath_node *m = &t->nodes[w.node];
        const char *kind = edge_label(g, m, ename, sizeof ename);
        fprintf(out, "%9s %14s  ", rep_fmt_count(b1, m->count), rep_fmt_count(b2, m->retained));
        if (w.depth > REP_MERGED_MAX_INDENT)
            fprintf(out, "%*s(depth %" PRIu32 ") ", 2 * REP_MERGED_MAX_INDENT, "", w.depth);
        else
            fprintf(out, "%*s", 2 * (int)w.depth, "");
        if (kind) {
            fprintf(out, "--[%s ", kind);
            rep_fmt_name(out, ename);
            fprintf(out, "]--> ");
        }
        fprintf(out, "%s ", rep_fmt_id(b1, g, graph_node_id(g, m->node)));
        rep_fmt_name(out, node_label(g, m->node, lab, sizeof lab));
        if (!kind)
            fprintf(out, "  (GC root: %s)", root_label(r, w.top_pos, 1));
        if (m->is_target)
            fprintf(out, "  *");
        fputc('\n', out);
    }
}

void rep_merged_json(jsonw *w, const merged_result *r)
{
    const graph *g = r->g;
    const mpath_tree *t = &r->tree;
    char b1[REP_FMT_MAX], lab[512], ename[256];
    jsonw_kv_str(w, "class", r->cls);
    jsonw_kv_bool(w, "subclasses", r->subclasses);
    jsonw_kv_str(w, "model", model_name(r->model));
    jsonw_kv_uint(w, "instances", r->n_instances);
    jsonw_kv_uint(w, "reachable", t->n_reached);
    jsonw_kv_uint(w, "unreachable", t->n_unreached);
    jsonw_kv_uint(w, "unreachable_retained", t->unreached_retained);
    jsonw_kv_uint(w, "tree_nodes", t->n);
    jsonw_kv_arr_begin(w, "tree");
    merged_walk mw;
    merged_walk_start(r, &mw);
    int ev;
    /* Nodes deeper than REP_MERGED_JSON_DEPTH are left out (a chain of a million references
     * cannot nest in JSON); the node at that depth says so with "children_cut". */
    uint64_t cut_below = 0;
    while ((ev = merged_walk_next(r, &mw)) != MERGED_END) {
        if (!mw.top && mw.depth > REP_MERGED_JSON_DEPTH + (ev == MERGED_CLOSE)) {
            cut_below += ev == MERGED_OPEN;
            continue;
        }
        if (ev == MERGED_CLOSE && !mw.top && mw.depth == REP_MERGED_JSON_DEPTH + 1) {
            jsonw_arr_end(w);
            if (cut_below)
                jsonw_kv_uint(w, "children_cut", cut_below);
            cut_below = 0;
            jsonw_obj_end(w);
            continue;
        }
        if (ev == MERGED_CLOSE) {
            uint64_t cnt, ret, k = cut_sum(t, mw.node, &cnt, &ret);
            jsonw_arr_end(w);
            if (k) {
                jsonw_kv_uint(w, "more_branches", k);
                jsonw_kv_uint(w, "more_count", cnt);
                jsonw_kv_uint(w, "more_retained", ret);
            }
            if (!mw.top)
                jsonw_obj_end(w);
            continue;
        }
        const mpath_node *m = &t->nodes[mw.node];
        const char *kind = edge_label(g, m, ename, sizeof ename);
        jsonw_obj_begin(w);
        if (kind) {
            jsonw_kv_str(w, "reference", kind);
            jsonw_kv_str(w, "name", ename);
        } else {
            jsonw_kv_str(w, "root", root_label(r, mw.top_pos, 0));
        }
        jsonw_kv_str(w, "id", rep_fmt_id(b1, g, graph_node_id(g, m->node)));
        jsonw_kv_str(w, "class", node_label(g, m->node, lab, sizeof lab));
        jsonw_kv_uint(w, "count", m->count);
        jsonw_kv_uint(w, "retained", m->retained);
        jsonw_kv_bool(w, "instance", m->is_target);
        jsonw_kv_arr_begin(w, "children");
    }
}
