/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_path_merged.c: `leakray path FILE --class CLASS --merged` (cli), prefix pmerge_. MAT's
 * "merge shortest paths to GC roots" for every instance of a class: the union of the paths
 * `path` would print for each instance (src/query/ computes the path forest once, Shark's
 * BFS for HPROF, DevTools' retaining paths for V8), as a tree from the GC roots down with,
 * on each line, the number of instances whose path runs through it and their summed
 * retained bytes (src/analysis/mergepaths.c). --limit caps the branches shown under each
 * node; the rest is summed on a "... more" line, so nothing is left out silently. */
#include "analysis/mergepaths.h"
#include "cli.h"
#include "format/v8.h"
#include "query/query.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PMERGE_MAX_INDENT 40 /* levels indented; deeper lines say their depth instead */

int path_merged(cli_common *co, const char *cls, int subclasses, uint64_t limit);

static int pmerge_step(void *ctx, node_ix x, node_ix *parent, edge_ix *edge)
{
    return query_path_step(ctx, x, parent, edge);
}

/* Class name of x; a class object shows the class it describes ("class Foo"). */
static const char *pmerge_label(const graph *g, node_ix x, char *buf, size_t cap)
{
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

/* The root kind of x's path: its identifier for JSON, LeakCanary's name for text (title). */
static const char *pmerge_root(const graph *g, const query_db *q, node_ix x, int title)
{
    uint32_t r = query_path_root(q, x);
    if (r >= g->n_roots)
        return "synthetic root";
    return title ? graph_root_kind_title(g->roots[r].kind) : graph_root_kind_name(g->roots[r].kind);
}

/* One level of the depth-first walk: the tree node (MPATH_NONE for the list of tops), the
 * next child to show, and how many were shown. */
typedef struct pmerge_frame {
    uint32_t ix;
    uint32_t next;
    uint64_t shown;
} pmerge_frame;

static void pmerge_open(const cli_common *co, jsonw *w, const graph *g, const query_db *q,
                        const mpath_node *m, uint32_t depth)
{
    char b1[CLI_FMT_MAX], lab[512], ename[256];
    const char *kind = m->edge != GRAPH_NONE
                           ? graph_edge_kind_name(GRAPH_EDGE_KIND(g->edge_kind[m->edge])) : NULL;
    /* named when the parent was opened, in edge order: asked here, in child order,
     * HPROF's derived names would walk a wide array's slots once per child */
    if (m->edge != GRAPH_NONE && GRAPH_EDGE_NAME_IS_INDEX(GRAPH_EDGE_KIND(g->edge_kind[m->edge])))
        snprintf(ename, sizeof ename, "[%u]", m->edge_name);
    else if (m->edge != GRAPH_NONE)
        snprintf(ename, sizeof ename, "%s", graph_str(g, m->edge_name));
    if (co->json) {
        jsonw_obj_begin(w);
        if (kind) {
            jsonw_kv_str(w, "reference", kind);
            jsonw_kv_str(w, "name", ename);
        } else {
            jsonw_kv_str(w, "root", pmerge_root(g, q, m->node, 0));
        }
        jsonw_kv_str(w, "id", cli_fmt_id(b1, g, graph_node_id(g, m->node)));
        jsonw_kv_str(w, "class", pmerge_label(g, m->node, lab, sizeof lab));
        jsonw_kv_uint(w, "count", m->count);
        jsonw_kv_uint(w, "retained", m->retained);
        jsonw_kv_bool(w, "instance", m->is_target);
        jsonw_kv_arr_begin(w, "children");
        return;
    }
    char c[CLI_FMT_MAX], r[CLI_FMT_MAX];
    printf("%9s %14s  ", cli_fmt_count(c, m->count), cli_fmt_count(r, m->retained));
    if (depth > PMERGE_MAX_INDENT)
        printf("%*s(depth %" PRIu32 ") ", 2 * PMERGE_MAX_INDENT, "", depth);
    else
        printf("%*s", 2 * (int)depth, "");
    if (kind)
        printf("--[%s %s]--> ", kind, ename);
    printf("%s %s", cli_fmt_id(b1, g, graph_node_id(g, m->node)),
           pmerge_label(g, m->node, lab, sizeof lab));
    if (!kind)
        printf("  (GC root: %s)", pmerge_root(g, q, m->node, 1));
    if (m->is_target)
        printf("  *");
    putchar('\n');
}

/* Closes a node (or the list of tops) after its shown children; `more` siblings were cut. */
static void pmerge_close(const cli_common *co, jsonw *w, const mpath_tree *t, uint32_t from,
                         uint32_t depth, int top)
{
    uint64_t k = 0, cnt = 0, ret = 0;
    for (uint32_t c = from; c != MPATH_NONE; c = t->nodes[c].next_sibling) {
        k++;
        cnt += t->nodes[c].count;
        ret += t->nodes[c].retained;
    }
    if (co->json) {
        jsonw_arr_end(w);
        if (k) {
            jsonw_kv_uint(w, "more_branches", k);
            jsonw_kv_uint(w, "more_count", cnt);
            jsonw_kv_uint(w, "more_retained", ret);
        }
        if (!top)
            jsonw_obj_end(w);
        return;
    }
    if (!k)
        return;
    char c[CLI_FMT_MAX], r[CLI_FMT_MAX];
    printf("%9s %14s  %*s... %" PRIu64 " more branch%s (--limit)\n", cli_fmt_count(c, cnt),
           cli_fmt_count(r, ret), 2 * (int)(depth > PMERGE_MAX_INDENT ? PMERGE_MAX_INDENT : depth),
           "", k, k == 1 ? "" : "es");
}

int path_merged(cli_common *co, const char *cls, int subclasses, uint64_t limit)
{
    lr_heap *lh;
    int rc;
    if ((rc = cli_open(co, co->pos[0], 0, &lh)) != 0)
        return rc;
    graph *g = lr_heap_graph(lh);
    lr_error err = {.offset = LR_NO_OFFSET};
    query_opts qo = {0};
    if (v8_class_keys(g) && g->synthetic_root != GRAPH_NONE) {
        qo.model = QUERY_MODEL_DEVTOOLS; /* `path` shows DevTools' retaining paths there */
        qo.class_keys = v8_class_keys(g);
    } else {
        qo.model = g->size_model == GRAPH_SIZES_VISUALVM ? QUERY_MODEL_VISUALVM
                                                         : QUERY_MODEL_STRONG;
    }
    query_db *q = NULL;
    node_ix *inst = NULL;
    uint64_t *ret = NULL;
    pmerge_frame *fr = NULL;
    mpath_tree t = {0};
    uint32_t n = 0, cap = 0, n_cls = 0;
    double t0 = cli_now_ms();
    if (query_open(g, &qo, &q, &err) != LR_OK)
        goto fail;
    for (class_ix c = 0; c < g->n_classes; c++) {
        if (strcmp(graph_str(g, g->classes[c].name), cls) != 0 &&
            !(subclasses && graph_class_is_named(g, c, cls)))
            continue;
        n_cls++;
        const node_ix *nodes;
        uint32_t k;
        if (query_class_nodes(q, c, &nodes, &k, &err) != LR_OK)
            goto fail;
        if (n + k > cap) {
            uint32_t ncap = cap ? cap : 1024;
            while (ncap < n + k)
                ncap *= 2;
            node_ix *v = err_reallocarray(inst, ncap, sizeof *v);
            if (!v) {
                LR_FAIL(&err, LR_ERR_NOMEM, "path: out of memory for %u instances", n + k);
                goto fail;
            }
            inst = v;
            cap = ncap;
        }
        memcpy(inst + n, nodes, (size_t)k * sizeof *nodes);
        n += k;
    }
    if (!n_cls) {
        rc = cli_fail(co, LR_ERR_NOT_FOUND, "%s: no class named %s", co->pos[0], cls);
        goto out;
    }
    ret = err_mallocarray(n ? n : 1, sizeof *ret);
    if (!ret) {
        LR_FAIL(&err, LR_ERR_NOMEM, "path: out of memory for %u instances", n);
        goto fail;
    }
    if (query_need_paths_retained(q, &err) != LR_OK)
        goto fail;
    for (uint32_t i = 0; i < n; i++)
        ret[i] = query_retained(q, inst[i]);
    if (mpath_build(g, inst, ret, n, pmerge_step, q, &t, &err) != LR_OK)
        goto fail;
    double ms = cli_now_ms() - t0;
    fr = err_mallocarray((size_t)t.n + 1, sizeof *fr);
    if (!fr) {
        LR_FAIL(&err, LR_ERR_NOMEM, "path: out of memory for %u tree nodes", t.n);
        goto fail;
    }
    jsonw w;
    char b1[CLI_FMT_MAX], b2[CLI_FMT_MAX], b3[CLI_FMT_MAX];
    if (co->json) {
        cli_json_begin(&w);
        jsonw_kv_str(&w, "class", cls);
        jsonw_kv_bool(&w, "subclasses", subclasses);
        jsonw_kv_str(&w, "model", qo.model == QUERY_MODEL_DEVTOOLS   ? "devtools"
                                  : qo.model == QUERY_MODEL_VISUALVM ? "visualvm"
                                                                     : "strong");
        jsonw_kv_uint(&w, "instances", n);
        jsonw_kv_uint(&w, "reachable", t.n_reached);
        jsonw_kv_uint(&w, "unreachable", t.n_unreached);
        jsonw_kv_uint(&w, "unreachable_retained", t.unreached_retained);
        jsonw_kv_uint(&w, "tree_nodes", t.n);
        jsonw_kv_arr_begin(&w, "tree");
    } else {
        printf("Merged shortest paths from GC roots to %s instance%s of %s%s: %s reached, %s "
               "unreachable\n", cli_fmt_count(b1, n), n == 1 ? "" : "s", cls,
               subclasses ? " and subclasses" : "", cli_fmt_count(b2, t.n_reached),
               cli_fmt_count(b3, t.n_unreached));
        printf("%9s %14s  %s\n", "count", "retained", "reference chain (* = instance)");
    }
    uint32_t sp = 0;
    fr[sp++] = (pmerge_frame){MPATH_NONE, t.first_top, 0};
    while (sp > 0) {
        pmerge_frame *f = &fr[sp - 1];
        if (f->next != MPATH_NONE && (limit == 0 || f->shown < limit)) {
            uint32_t c = f->next;
            f->next = t.nodes[c].next_sibling;
            f->shown++;
            pmerge_open(co, &w, g, q, &t.nodes[c], sp - 1);
            fr[sp++] = (pmerge_frame){c, t.nodes[c].first_child, 0};
            if (mpath_name_children(g, &t, c, limit, &err) != LR_OK)
                goto fail;
        } else {
            pmerge_close(co, &w, &t, f->next, sp - 1, f->ix == MPATH_NONE);
            sp--;
        }
    }
    if (co->json) {
        cli_json_end_phase(co, &w, "paths_ms", ms);
    } else {
        cli_print_timing(co, stdout, "load time", co->load_ms);
        cli_print_timing(co, stdout, "merged paths", ms);
    }
    rc = CLI_EXIT_OK;
    goto out;
fail:
    rc = cli_error(co, &err);
out:
    free(fr);
    mpath_free(&t);
    free(ret);
    free(inst);
    query_close(q);
    lr_close(lh);
    return rc;
}
