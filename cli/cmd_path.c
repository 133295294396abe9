/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_path.c: `leakray path FILE 0xID` (cli), prefix path_. The shortest strong reference
 * path from a GC root to one object, found by src/analysis/paths.c with Shark's priorities
 * (Java locals and unusual root kinds only when nothing else reaches the object; weak, soft,
 * phantom and finalizer referents never followed). Prints the root kind, then each hop:
 * the reference taken (kind and field name or index), the object id and its class. An
 * object no strong path reaches is reported as unreachable (exit 0: an answer, not an
 * error); an id that names no object is LR_ERR_NOT_FOUND (exit 2). With --collapse, runs of
 * one category (src/rules/categories.h, default set rules/flutter.rules) print as one line
 * (src/analysis/collapse.c); --json then adds a "collapsed" array beside the full path.
 * Several ids (after FILE, or one a line in --ids FILE) take one load and one search: the
 * paths come out in the order given, under "paths" in JSON. report/path.h renders both
 * kinds of path. */
#include "analysis/collapse.h"
#include "analysis/devtools.h"
#include "analysis/paths.h"
#include "analysis/trace.h"
#include "cli.h"
#include "format/v8.h"
#include "report/path.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most ids one run takes (--ids): 8 bytes each, so a runaway list stops at 128 MB. */
#define PATH_IDS_MAX (1u << 24)
/* Longest line of an --ids file: an id and a comment or a second column. */
#define PATH_IDS_LINE 256

/* The object ids asked for, in order. */
typedef struct path_ids {
    uint64_t *v;
    uint32_t n;
    uint32_t cap;
    int batch; /* more than one id or --ids: the "paths" form of the output */
} path_ids;

static int path_ids_add(path_ids *ids, uint64_t id)
{
    if (ids->n == ids->cap) {
        uint32_t nc = ids->cap ? ids->cap * 2 : 64;
        uint64_t *v = err_reallocarray(ids->v, nc, sizeof *v);
        if (!v)
            return -1;
        ids->v = v;
        ids->cap = nc;
    }
    ids->v[ids->n++] = id;
    return 0;
}

/* Reads --ids FILE ("-": stdin): the first word of each line is an id (0x1f, @123 or 123);
 * blank lines and lines starting with '#' are skipped, so `sql`'s text output (a header
 * line to drop, then "id other columns") serves once its header is cut. Returns 0 or a CLI
 * exit code after saying what is wrong (file and line). */
static int path_ids_read(const cli_common *co, const char *file, path_ids *ids)
{
    FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
    if (!f)
        return cli_fail(co, LR_ERR_IO, "%s: %s", file, strerror(errno));
    char line[PATH_IDS_LINE];
    int rc = 0;
    for (uint32_t no = 1; rc == 0 && fgets(line, sizeof line, f); no++) {
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            rc = cli_usage_error(co, "%s:%u: line longer than %d bytes", file, no,
                                 PATH_IDS_LINE - 2);
            break;
        }
        char *w = line + strspn(line, " \t\r\n");
        w[strcspn(w, " \t\r\n")] = 0;
        uint64_t id;
        if (!*w || *w == '#')
            continue;
        if (!cli_parse_id(w, &id))
            rc = cli_usage_error(co, "%s:%u: '%s' is not an object id (0x1f, @123 or 123)",
                                 file, no, w);
        else if (ids->n >= PATH_IDS_MAX)
            rc = cli_fail(co, LR_ERR_LIMIT, "%s:%u: more than %u ids", file, no, PATH_IDS_MAX);
        else if (path_ids_add(ids, id))
            rc = cli_fail(co, LR_ERR_NOMEM, "%s: out of memory for %u ids", file, ids->n);
    }
    if (rc == 0 && ferror(f))
        rc = cli_fail(co, LR_ERR_IO, "%s: read error", file);
    if (f != stdin)
        fclose(f);
    return rc;
}

/* The JSON of one path: an object of its own inside "paths" in the batch form, the document's
 * own keys otherwise. */
static void path_json_open(jsonw *w, int batch)
{
    if (batch)
        jsonw_obj_begin(w);
}

static void path_json_close(jsonw *w, int batch)
{
    if (batch)
        jsonw_obj_end(w);
}

/* V8/Node/ArkTS: the retaining path DevTools' Retainers view leads to when sorted by
 * distance: from the root, one hop per unit of DevTools distance, never through a weak edge
 * (src/analysis/devtools.h, parent_edge). Printed like the strong path, with each object's
 * distance and DevTools retained size; one DevTools pass serves every target. */
static int path_devtools(const cli_common *co, const graph *g, const node_ix *targets,
                         uint32_t n_targets, int batch, uint32_t keep)
{
    lr_error err = {.offset = LR_NO_OFFSET};
    devtools_result r;
    double t0 = cli_now_ms();
    if (devtools_build_paths(g, v8_class_keys(g), &r, &err) != LR_OK)
        return cli_error(co, &err);
    double path_ms = cli_now_ms() - t0;
    jsonw w;
    int any_reachable = 0, rc = CLI_EXIT_OK;
    if (co->json) {
        cli_json_begin(&w);
        if (batch)
            jsonw_kv_arr_begin(&w, "paths");
    }
    for (uint32_t t = 0; t < n_targets; t++) {
        node_ix target = targets[t];
        uint32_t len = devtools_path(g, &r, target, NULL, 0);
        edge_ix *edges = err_mallocarray(len ? len : 1, sizeof *edges);
        node_ix *nodes = err_mallocarray((size_t)len + 1, sizeof *nodes);
        if (!edges || !nodes) {
            free(edges);
            free(nodes);
            rc = cli_fail(co, LR_ERR_NOMEM, "path: out of memory for %u hops", len);
            break;
        }
        devtools_path(g, &r, target, edges, len);
        for (uint32_t i = 0; i < len; i++)
            nodes[i] = graph_edge_from(g, edges[i]);
        nodes[len] = target;
        int reachable =
            r.distance[target] != DEVTOOLS_NO_DISTANCE && (len > 0 || target == r.root);
        any_reachable |= reachable;
        rep_path_dt v = {g,          target,     nodes,     edges, len,
                         r.distance, r.retained, reachable, keep};
        if (co->json) {
            path_json_open(&w, batch);
            rep_path_dt_json(&w, &v);
            path_json_close(&w, batch);
        } else {
            if (t)
                fputc('\n', stdout);
            rep_path_dt_text(stdout, &v);
        }
        free(edges);
        free(nodes);
    }
    if (rc == CLI_EXIT_OK && co->json) {
        if (batch)
            jsonw_arr_end(&w);
        cli_json_end_phase(co, &w, "paths_ms", path_ms);
    } else if (rc == CLI_EXIT_OK && any_reachable) {
        cli_print_timing(co, stdout, "load time", co->load_ms);
        cli_print_timing(co, stdout, "path", path_ms);
    }
    if (cli_exit_keeps_heap())
        return rc;
    devtools_free(&r);
    return rc;
}

int path_merged(cli_common *co, const char *cls, int subclasses, uint64_t limit);

/* The rules `analyze` loads by default (rules_load_defaults), bound to g: the path is then
 * the one analyze's traces take (trace_path_policy). */
static lr_status path_rules(const graph *g, rules_set *rs, lr_error *err)
{
    lr_status st = rules_load_defaults(rs, g, err);
    return st == LR_OK ? rules_bind(rs, g, err) : st;
}

/* How Java would reach each node, for the targets no strong path reaches: the weakest kind
 * of reference the best path from a root needs (GRAPH_STRONG, then soft, weak, finalizer,
 * phantom: the order in which the JVM gives them up), 0xff for none. A class loader whose
 * direct referrers are weak (a WeakHashMap's entry) may be kept by a SoftReference two hops
 * up (a ResourceBundle's cache): the JVM keeps it until memory runs short, and "weak" (its
 * referrers' kind) read as "gone at the next GC". One pass from the roots per kind, the edges
 * of the kinds before still allowed, and each instance's hop to its class. NULL when out of
 * memory; computed once per graph. */
static const uint8_t *reach_levels(const graph *g)
{
    static const graph *done;
    static uint8_t *lv;
    if (done == g)
        return lv;
    static const unsigned order[] = {GRAPH_STRONG, GRAPH_SOFT, GRAPH_WEAK, GRAPH_FINALIZER,
                                     GRAPH_PHANTOM};
    uint32_t n = g->n_nodes;
    free(lv);
    lv = malloc(n ? n : 1);
    node_ix *q = err_mallocarray(n ? n : 1, sizeof *q);
    if (!lv || !q || !g->first_edge) {
        free(lv);
        free(q);
        lv = NULL;
        done = NULL;
        return NULL;
    }
    memset(lv, 0xff, n);
    unsigned allowed = 0;
    for (size_t p = 0; p < sizeof order / sizeof *order; p++) {
        allowed |= 1u << order[p];
        uint32_t qn = 0;
        for (uint32_t r = 0; r < g->n_roots; r++) {
            node_ix x = g->roots[r].node;
            if (x < n && lv[x] == 0xff)
                lv[x] = (uint8_t)order[p];
        }
        for (node_ix x = 0; x < n; x++) /* what the kinds before reached goes on from here */
            if (lv[x] != 0xff)
                q[qn++] = x;
        for (uint32_t i = 0; i < qn; i++) {
            node_ix x = q[i];
            /* an instance keeps its class, and so the class's loader: no edge names that */
            class_ix c = graph_node_class(g, x);
            node_ix k = c < g->n_classes ? g->classes[c].node : GRAPH_NONE;
            if (k < n && lv[k] == 0xff && g->node_kind[k] == GRAPH_KIND_CLASS) {
                lv[k] = (uint8_t)order[p];
                q[qn++] = k;
            }
            for (edge_ix e = g->first_edge[x]; e < g->first_edge[x + 1]; e++) {
                node_ix y = g->edge_to[e];
                if (y < n && lv[y] == 0xff &&
                    (allowed >> GRAPH_EDGE_STRENGTH(g->edge_kind[e]) & 1u)) {
                    lv[y] = (uint8_t)order[p];
                    q[qn++] = y;
                }
            }
        }
    }
    free(q);
    done = g;
    return lv;
}

/* Renders target's path from r (id: the id asked for). Returns CLI_EXIT_OK or, out of
 * memory, a CLI exit code after saying so. */
static int path_render(const cli_common *co, const graph *g, const paths_result *r,
                       node_ix target, uint64_t id, int collapse, const cat_set *cs,
                       jsonw *w, int batch, uint32_t keep, uint32_t *len_out)
{
    uint32_t len = paths_get(r, target, NULL, NULL, 0);
    node_ix *nodes = err_mallocarray(len ? len : 1, sizeof *nodes);
    edge_ix *edges = err_mallocarray(len ? len : 1, sizeof *edges);
    collapse_line *ln = collapse ? err_mallocarray(len ? len : 1, sizeof *ln) : NULL;
    if (!nodes || !edges || (collapse && !ln)) {
        free(nodes);
        free(edges);
        free(ln);
        return cli_fail(co, LR_ERR_NOMEM, "path: out of memory for %u hops", len);
    }
    paths_get(r, target, nodes, edges, len);
    uint32_t n_ln = collapse ? collapse_path(cs, nodes, len, ln) : 0;
    uint32_t root_entry = len ? paths_root_of(r, nodes[0]) : GRAPH_NONE;
    const graph_root *root = root_entry < g->n_roots ? &g->roots[root_entry] : NULL;
    const char *root_kind = root ? graph_root_kind_name(root->kind) : "synthetic root";

    /* no strong path: how Java reaches it (reach_levels); failing that (the rules left out
     * the strong path the graph has, or memory ran short), the strongest of its referrers'
     * references, when none is strong */
    const char *held = NULL;
    const uint8_t *lv = !len ? reach_levels(g) : NULL;
    if (lv && lv[target] != 0xff && lv[target] != GRAPH_STRONG)
        held = graph_strength_name(lv[target]);
    if (!len && !held && g->first_edge) {
        unsigned best = 0; /* GRAPH_SOFT (2) before GRAPH_WEAK (1), then the others */
        static const unsigned rank[] = {0, 3, 4, 1, 2};
        for (edge_ix e = 0; e < g->n_edges; e++) {
            unsigned k = GRAPH_EDGE_STRENGTH(g->edge_kind[e]);
            if (g->edge_to[e] == target && k > GRAPH_STRONG && k <= GRAPH_FINALIZER &&
                rank[k] > (best ? rank[best] : 0))
                best = k;
        }
        held = best ? graph_strength_name(best) : NULL;
    }
    rep_path v = {g, target, id, nodes, edges, len, root, root_kind,
                  paths_via_last(r, target), collapse, cs, ln, n_ln, held, keep};
    if (co->json) {
        path_json_open(w, batch);
        rep_path_json(w, &v);
        path_json_close(w, batch);
    } else {
        rep_path_text(stdout, &v);
    }
    free(nodes);
    free(edges);
    free(ln);
    *len_out = len;
    return CLI_EXIT_OK;
}

int cmd_path(int argc, char **argv)
{
    int collapse = 0, merged = 0, subclasses = 0, full = 0;
    const char *categories = NULL, *cls = NULL, *ids_file = NULL;
    uint64_t limit = 10;
    const cli_optdef opts[] = {
        {"--ids", CLI_OPT_STR, &ids_file, "FILE",
         "more objects: one id a line (first word; '#' lines skipped), - for stdin", NULL},
        {"--class", CLI_OPT_STR, &cls, "CLASS", "with --merged: every instance of CLASS", NULL},
        {"--merged", CLI_OPT_FLAG, &merged, NULL,
         "merge the shortest paths of all instances of --class into one tree (MAT)", NULL},
        {"--subclasses", CLI_OPT_FLAG, &subclasses, NULL,
         "with --merged: instances of subclasses too", NULL},
        {"--limit", CLI_OPT_UINT, &limit, "N",
         "with --merged: branches shown under each node (default 10; 0 = all)", NULL},
        {"--collapse", CLI_OPT_FLAG, &collapse, NULL,
         "merge runs of one category (element, widget, view...) into one line", NULL},
        {"--categories", CLI_OPT_STR, &categories, "NAME|FILE",
         "category rules for --collapse: flutter (default), android-views, or a file", NULL},
        {"--full", CLI_OPT_FLAG, &full, NULL,
         "print every object of a long path (default: 100 at each end past 200)", NULL},
        {0}};
    const cli_spec spec = {
        "path", "FILE 0xID [0xID...] | FILE --ids FILE | FILE --class CLASS --merged",
        "Shortest strong reference path from a GC root to an object.", opts, 1, 64,
        "Breadth-first from all GC roots in Shark's root order, as analyze's leak traces: Java\n"
        "locals, unusual root kinds, known library leaks, a class's link to its loader and\n"
        "the references the rules ignore are used only when no other path exists. Weak,\n"
        "soft, phantom and finalizer references are never followed.\n"
        "Example: leakray path app.hprof 0x7f00ab10\n"
        "Several ids (up to 63 after FILE, any number with --ids) load the dump and search\n"
        "once; each path is the one `path FILE ID` prints alone, in the order given, a blank\n"
        "line between them (--json: an array \"paths\" of the objects one id gives).\n"
        "--collapse: consecutive objects of one category (a class or any superclass matches a\n"
        "`category` rule, docs/rules.md) print as one line with their count; a collection\n"
        "between two runs of one category merges into them. Objects of no category keep their\n"
        "own line. --json keeps the full path and adds \"collapsed\".\n"
        "A path of more than 200 objects prints its first and last 100, and one of more\n"
        "than 200 lines under --collapse its first and last 100 lines (--full: all of\n"
        "them; --json always lists them all).\n"
        "V8/Node/ArkTS snapshots (without --collapse): DevTools' retaining path by distance,\n"
        "one hop per unit of distance, weak edges hidden (docs/formats/v8.md).\n"
        "--class CLASS --merged: the paths of every instance merged into one tree from the GC\n"
        "roots down, each line with the instances whose path runs through it and their\n"
        "summed retained bytes (MAT's \"merge shortest paths to GC roots\")."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (merged || cls) {
        if (!merged || !cls)
            return cli_usage_error(&co, "--class and --merged go together");
        if (co.n_pos != 1 || collapse || ids_file)
            return cli_usage_error(&co, "--merged takes FILE only (no object id, no --collapse)");
        return path_merged(&co, cls, subclasses, limit);
    }
    if (co.n_pos < 2 && !ids_file)
        return cli_usage_error(&co, "missing the object id (or --class CLASS --merged)");
    path_ids ids = {NULL, 0, 0, co.n_pos > 2 || ids_file};
    for (int i = 1; i < co.n_pos; i++) {
        uint64_t id;
        if (!cli_parse_id(co.pos[i], &id)) {
            free(ids.v);
            return cli_usage_error(&co, "'%s' is not an object id (0x1f, @123 or 123)",
                                   co.pos[i]);
        }
        if (path_ids_add(&ids, id)) {
            free(ids.v);
            return cli_fail(&co, LR_ERR_NOMEM, "path: out of memory for %d ids", co.n_pos);
        }
    }
    if (ids_file && (rc = path_ids_read(&co, ids_file, &ids)) != 0) {
        free(ids.v);
        return rc;
    }
    cat_set cs;
    if ((rc = cli_categories(&co, collapse, categories, &cs)) != 0) {
        free(ids.v);
        return rc;
    }

    lr_heap *lh;
    if ((rc = cli_open(&co, co.pos[0], 0, &lh)) != 0) {
        free(ids.v);
        cat_fini(&cs);
        return rc;
    }
    const graph *g = lr_heap_graph(lh);
    node_ix *targets = err_mallocarray(ids.n ? ids.n : 1, sizeof *targets);
    paths_result r;
    memset(&r, 0, sizeof r);
    rules_set rs;
    rules_init(&rs);
    if (!targets) {
        rc = cli_fail(&co, LR_ERR_NOMEM, "path: out of memory for %u ids", ids.n);
        goto done;
    }
    /* every id is checked before any search: a typo anywhere costs no traversal */
    lr_error ferr = {.offset = LR_NO_OFFSET};
    if (graph_find_ids(g, ids.v, ids.n, targets, &ferr) != LR_OK) {
        rc = cli_error(&co, &ferr);
        goto done;
    }
    for (uint32_t i = 0; i < ids.n; i++) {
        char b1[CLI_FMT_MAX];
        if (targets[i] == GRAPH_NONE) {
            rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no object with id %s", co.pos[0],
                          cli_fmt_id(b1, g, ids.v[i]));
            goto done;
        }
    }
    if (!collapse && v8_class_keys(g) && g->synthetic_root != GRAPH_NONE) {
        rc = path_devtools(&co, g, targets, ids.n, ids.batch, full ? 0 : REP_PATH_KEEP);
        goto done;
    }
    lr_error err = {.offset = LR_NO_OFFSET};
    double t0 = cli_now_ms();
    paths_policy pol = trace_path_policy(&rs);
    pol.class_hops = 1; /* a class and its loader kept through an instance have a path */
    /* One target is a leaf of its search. Several are searched as the whole forest instead:
     * as leaves they would cut each other's paths, while a target's own path is fixed before
     * the search takes it out of its queue, the first moment its out-edges could matter. So
     * each path is the one the target gets searched alone. */
    if ((collapse && cat_bind(&cs, g, &err) != LR_OK) || path_rules(g, &rs, &err) != LR_OK ||
        paths_find(g, &pol, ids.batch ? NULL : targets, ids.batch ? 0 : 1, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto done;
    }
    double path_ms = cli_now_ms() - t0;
    jsonw w;
    if (co.json) {
        cli_json_begin(&w);
        if (ids.batch)
            jsonw_kv_arr_begin(&w, "paths");
    }
    uint32_t any_len = 0;
    for (uint32_t i = 0; rc == CLI_EXIT_OK && i < ids.n; i++) {
        uint32_t len = 0;
        if (i && !co.json)
            fputc('\n', stdout);
        rc = path_render(&co, g, &r, targets[i], ids.v[i], collapse, &cs, &w, ids.batch,
                         full ? 0 : REP_PATH_KEEP, &len);
        any_len |= len;
    }
    if (rc == CLI_EXIT_OK && co.json) {
        if (ids.batch)
            jsonw_arr_end(&w);
        cli_json_end_phase(&co, &w, "paths_ms", path_ms);
    } else if (rc == CLI_EXIT_OK && any_len) {
        cli_print_timing(&co, stdout, "load time", co.load_ms);
        cli_print_timing(&co, stdout, "path", path_ms);
    }
done:
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    free(targets);
    free(ids.v);
    rules_fini(&rs);
    cat_fini(&cs);
    paths_free(&r);
    lr_close(lh);
    return rc;
}
