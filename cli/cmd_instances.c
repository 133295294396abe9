/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_instances.c: `leakray instances FILE CLASS` (cli), prefix inst_. Lists the instances of
 * a class (all classes of that name; with --subclasses their subclasses too), kept by a
 * --where expression of the rules language (docs/rules.md, the same as --leaking-if: it runs
 * as a watch rule through src/rules/), sorted by id, shallow or retained size. Instances come
 * from the per-class node index of src/query/ (no scan of the heap); retained sizes, and so
 * the dominator tree, only when --sort retained asks (the model is `top`'s). --limit cuts
 * the list and says so: the count line always gives the full number of matches. */
#include "cli.h"
#include "format/v8.h"
#include "query/query.h"
#include "rules/rules.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum inst_sort { INST_BY_ID, INST_BY_SHALLOW, INST_BY_RETAINED };

/* qsort has no context argument: the sort's inputs live here for its duration. */
static const graph *inst_g;
static const query_db *inst_q;
static enum inst_sort inst_key;

static int inst_cmp(const void *pa, const void *pb)
{
    node_ix a = *(const node_ix *)pa, b = *(const node_ix *)pb;
    uint64_t ka = 0, kb = 0;
    if (inst_key == INST_BY_SHALLOW) {
        ka = graph_node_size(inst_g, a);
        kb = graph_node_size(inst_g, b);
    } else if (inst_key == INST_BY_RETAINED) {
        ka = query_retained(inst_q, a);
        kb = query_retained(inst_q, b);
    }
    if (ka != kb)
        return ka > kb ? -1 : 1; /* sizes descending */
    if (inst_g->ids_sorted) /* node order is id order: no id to read back */
        return a < b ? -1 : a > b;
    uint64_t ia = graph_node_id(inst_g, a), ib = graph_node_id(inst_g, b);
    return ia < ib ? -1 : ia > ib;
}

/* Whether class c is selected: named cls, or (subclasses) extending a class named cls. */
static int inst_class_selected(const graph *g, class_ix c, const char *cls, int subclasses)
{
    if (strcmp(graph_str(g, g->classes[c].name), cls) == 0)
        return 1;
    return subclasses && graph_class_is_named(g, c, cls);
}

int cmd_instances(int argc, char **argv)
{
    const char *where = NULL, *sort = "id", *model = NULL;
    uint64_t limit = 100;
    int subclasses = 0;
    const cli_optdef opts[] = {
        {"--where", CLI_OPT_STR, &where, "EXPR",
         "keep instances for which the rules expression holds (as --leaking-if)", NULL},
        {"--sort", CLI_OPT_STR, &sort, "KEY", "order: id (default), shallow or retained",
         "id|shallow|retained"},
        {"--limit", CLI_OPT_UINT, &limit, "N", "rows to show (default 100; 0 = all)", NULL},
        {"--subclasses", CLI_OPT_FLAG, &subclasses, NULL, "include instances of subclasses",
         NULL},
        {"--model", CLI_OPT_STR, &model, "M",
         "retained sizes as `top --model`: visualvm, strong or devtools",
         "visualvm|strong|devtools"},
        {0}};
    const cli_spec spec = {
        "instances", "FILE CLASS", "The instances of a class, filtered and sorted.", opts, 2, 2,
        "--where takes the rules language's expressions (docs/rules.md), e.g.\n"
        "  leakray instances app.hprof android.app.Activity --subclasses --where 'mDestroyed'\n"
        "  leakray instances app.hprof java.util.ArrayList --where 'size > 1000'\n"
        "--sort retained computes the dominator tree (as `top`); the count line always gives\n"
        "every match, and a list cut by --limit says how many rows it leaves out."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *cls = co.pos[1];
    enum inst_sort key = strcmp(sort, "retained") == 0  ? INST_BY_RETAINED
                         : strcmp(sort, "shallow") == 0 ? INST_BY_SHALLOW
                                                        : INST_BY_ID;
    lr_heap *lh;
    if ((rc = cli_open(&co, co.pos[0], 0, &lh)) != 0)
        return rc;
    graph *g = lr_heap_graph(lh);
    lr_error err = {.offset = LR_NO_OFFSET};
    rules_set rs;
    rules_init(&rs);
    query_db *q = NULL;
    node_ix *sel = NULL;
    int is_v8 = v8_class_keys(g) && g->synthetic_root != GRAPH_NONE;
    query_opts qo = {0};
    if (model && strcmp(model, "devtools") == 0 && !is_v8) {
        rc = cli_usage_error(&co, "--model devtools needs a V8/Node/ArkTS heap snapshot");
        goto out;
    }
    if (is_v8 && (!model || strcmp(model, "devtools") == 0)) {
        qo.model = QUERY_MODEL_DEVTOOLS;
        qo.class_keys = v8_class_keys(g);
    } else {
        int vvm = model ? strcmp(model, "visualvm") == 0
                        : g->size_model == GRAPH_SIZES_VISUALVM;
        qo.model = vvm ? QUERY_MODEL_VISUALVM : QUERY_MODEL_STRONG;
    }
    if (query_open(g, &qo, &q, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    if (where) {
        lr_status st = rules_add_watch(&rs, cls, where, &err);
        if (st == LR_OK)
            st = rules_bind(&rs, g, &err);
        if (st == LR_ERR_RULES) {
            /* the expression runs as a --leaking-if watch rule; name the user's option */
            char pre[256];
            int n = snprintf(pre, sizeof pre, "--leaking-if '%.200s': ", where);
            const char *m = strncmp(err.msg, "--leaking-if:1: ", 16) == 0 ? err.msg + 16
                                                                          : err.msg;
            if (n > 0 && (size_t)n < sizeof pre && strncmp(m, pre, (size_t)n) == 0)
                m += n;
            rc = cli_usage_error(&co, "--where: %s", m);
            goto out;
        }
        if (st != LR_OK) {
            rc = cli_error(&co, &err);
            goto out;
        }
    }
    double t0 = cli_now_ms();
    uint32_t n_cls = 0, n = 0, cap = 0;
    for (class_ix c = 0; c < g->n_classes; c++) {
        if (!inst_class_selected(g, c, cls, subclasses))
            continue;
        n_cls++;
        const node_ix *nodes;
        uint32_t k;
        if (query_class_nodes(q, c, &nodes, &k, &err) != LR_OK) {
            rc = cli_error(&co, &err);
            goto out;
        }
        if (n + k > cap) {
            uint32_t ncap = cap ? cap : 1024;
            while (ncap < n + k)
                ncap *= 2;
            node_ix *v = err_reallocarray(sel, ncap, sizeof *v);
            if (!v) {
                rc = cli_fail(&co, LR_ERR_NOMEM, "instances: out of memory for %u rows", n + k);
                goto out;
            }
            sel = v;
            cap = ncap;
        }
        char why[256];
        for (uint32_t i = 0; i < k; i++)
            if (!where || rules_is_leaking_object(&rs, nodes[i], why, sizeof why))
                sel[n++] = nodes[i];
    }
    if (n_cls == 0) {
        rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no class named %s", co.pos[0], cls);
        goto out;
    }
    int with_retained = key == INST_BY_RETAINED;
    if (with_retained && query_need_retained(q, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    inst_g = g;
    inst_q = q;
    inst_key = key;
    qsort(sel, n, sizeof *sel, inst_cmp);
    uint64_t shallow = 0, retained = 0;
    for (uint32_t i = 0; i < n; i++) {
        shallow += graph_node_size(g, sel[i]);
        if (with_retained)
            retained += query_retained(q, sel[i]);
    }
    double ms = cli_now_ms() - t0;
    uint32_t shown = limit && limit < n ? (uint32_t)limit : n;
    char b1[CLI_FMT_MAX], b2[CLI_FMT_MAX];
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "class", cls);
        jsonw_kv_bool(&w, "subclasses", subclasses);
        if (where)
            jsonw_kv_str(&w, "where", where);
        jsonw_kv_str(&w, "sort", sort);
        jsonw_kv_uint(&w, "count", n);
        jsonw_kv_uint(&w, "shallow", shallow);
        if (with_retained)
            jsonw_kv_uint(&w, "retained", retained); /* sum; objects may share bytes */
        jsonw_kv_uint(&w, "shown", shown);
        jsonw_kv_bool(&w, "truncated", shown < n);
        jsonw_kv_arr_begin(&w, "instances");
        for (uint32_t i = 0; i < shown; i++) {
            node_ix x = sel[i];
            jsonw_obj_begin(&w);
            jsonw_kv_str(&w, "id", cli_fmt_id(b1, g, graph_node_id(g, x)));
            jsonw_kv_str(&w, "class", graph_class_name(g, x));
            jsonw_kv_uint(&w, "shallow", graph_node_size(g, x));
            if (with_retained)
                jsonw_kv_uint(&w, "retained", query_retained(q, x));
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        cli_json_end(&co, &w);
    } else {
        printf("%s instance%s of %s%s%s%s, %s shallow\n", cli_fmt_count(b1, n),
               n == 1 ? "" : "s", cls, subclasses ? " and subclasses" : "",
               where ? " where " : "", where ? where : "", cli_fmt_bytes(b2, shallow));
        if (shown) {
            printf("%6s  %-18s %12s", "num", "id", "shallow");
            if (with_retained)
                printf(" %14s", "retained");
            printf("  class name\n");
        }
        for (uint32_t i = 0; i < shown; i++) {
            node_ix x = sel[i];
            printf("%6" PRIu32 ": %-18s %12s", i + 1, cli_fmt_id(b1, g, graph_node_id(g, x)),
                   cli_fmt_count(b2, graph_node_size(g, x)));
            if (with_retained)
                printf(" %14s", cli_fmt_count(b2, query_retained(q, x)));
            printf("  %s\n", graph_class_name(g, x));
        }
        if (shown < n)
            printf("... %s more not shown (--limit %" PRIu64 "; --limit 0 shows all)\n",
                   cli_fmt_count(b1, n - shown), limit);
        cli_print_timing(&co, stdout, "load time", co.load_ms);
        cli_print_timing(&co, stdout, "instances", ms);
    }
    rc = CLI_EXIT_OK;
out:
    free(sel);
    rules_fini(&rs);
    query_close(q);
    lr_close(lh);
    return rc;
}
