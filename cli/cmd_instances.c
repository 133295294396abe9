/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_instances.c: `leakray instances FILE CLASS` (cli), prefix inst_. Lists the instances of
 * a class (all classes of that name; with --subclasses their subclasses too), kept by a
 * --where expression of the rules language (docs/rules.md, the same as --leaking-if: it runs
 * as a watch rule through src/rules/), sorted by id, shallow or retained size. Instances come
 * from the per-class node index of src/query/ (no scan of the heap); retained sizes, and so
 * the dominator tree, only when --sort retained asks (the model is `top`'s). --limit cuts
 * the list and says so: the count line always gives the full number of matches. Selection
 * and order are analysis/instances.h's, the listing report/instances.h's; this file parses
 * the options, binds the rule and passes the query's index and sizes to them. */
#include "analysis/instances.h"
#include "cli.h"
#include "format/v8.h"
#include "query/query.h"
#include "report/instances.h"
#include "rules/rules.h"

#include <stdlib.h>
#include <string.h>

/* The query's per-class index and retained sizes, as the analysis asks for them. */
static lr_status inst_nodes(void *ctx, class_ix c, const node_ix **nodes, uint32_t *n,
                            lr_error *err)
{
    return query_class_nodes(ctx, c, nodes, n, err);
}

static uint64_t inst_retained(void *ctx, node_ix x)
{
    return query_retained(ctx, x);
}

/* rules_watch_check's findings in this command's words; the class itself is looked up
 * below (no class, or no instance, is its own answer) */
static void where_warn(void *co, const char *msg)
{
    if (strncmp(msg, "--leaking-if: ", 14) == 0)
        cli_warn(co, "--where: %s", msg + 14);
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
        "every match, and a list cut by --limit says how many rows it leaves out.\n"
        "CLASS may be named as signatures name it: `app.Foo$$Lambda` takes every lambda class\n"
        "of app.Foo, a hidden class's name without its address every copy of it."};
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
    char cbuf[512];
    cls = cli_dump_class(g, cls, cbuf, sizeof cbuf);
    lr_error err = {.offset = LR_NO_OFFSET};
    rules_set rs;
    rules_init(&rs);
    query_db *q = NULL;
    inst_result r = {0};
    int is_v8 = v8_class_keys(g) && g->synthetic_root != GRAPH_NONE;
    query_opts qo = {0};
    if (model && strcmp(model, "devtools") == 0 && !is_v8) {
        rc = cli_usage_error(&co, "--model devtools needs a V8/Node/ArkTS heap snapshot");
        goto out;
    }
    /* VisualVM's model is a Java heap's (fields, array elements, statics): on a snapshot it
     * followed almost nothing (33 of 39,219 objects reachable) */
    if (model && strcmp(model, "visualvm") == 0 && !(g->format && !strcmp(g->format, "hprof"))) {
        rc = cli_usage_error(&co, "--model visualvm needs an HPROF dump");
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
        uint32_t first = rs.n_insp;
        lr_status st = rules_add_watch(&rs, cls, where, &err);
        /* a field no instance of the class has (a typo) matches nothing: said, as
         * analyze --leaking-if says it, not left to read as "0 instances" */
        if (st == LR_OK)
            rules_watch_check(&rs, first, g, where_warn, &co);
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
    inst_opts io = {cls, subclasses, where ? &rs : NULL, where, key, limit};
    if (inst_select(g, &io, inst_nodes, q, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    if (r.n_classes == 0) {
        char hint[600];
        rc = cli_fail(&co, LR_ERR_NOT_FOUND, "%s: no class named %s%s", co.pos[0], cls,
                      cli_hidden_hint(g, hint, sizeof hint, cls));
        goto out;
    }
    if ((key == INST_BY_RETAINED && query_need_retained(q, &err) != LR_OK) ||
        inst_order(&r, inst_retained, q, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    double ms = cli_now_ms() - t0;
    if (subclasses && cli_warn_subclasses(&co, g, cls))
        r.o.subclasses = 0; /* the title says the class alone */
    /* An interface (a sealed one's records, a listener type) has no instances, and its
     * implementations are not its subclasses in a heap dump: "0 instances" said nothing */
    class_ix ic = r.n == 0 && !where ? graph_find_class(g, cls) : GRAPH_NONE;
    if (ic != GRAPH_NONE && !g->classes[ic].n_fields && !g->classes[ic].instance_size &&
        !(g->classes[ic].flags & GRAPH_CLASS_ARRAY) && g->classes[ic].id) {
        int sub = 0;
        for (class_ix d = 0; d < g->n_classes && !sub; d++)
            sub = d != ic && graph_class_is(g, d, ic);
        if (!sub)
            cli_warn(&co, "%s has no instance and no subclass in this dump (an interface, or a "
                     "class nothing loaded extends): --subclasses follows superclasses, not "
                     "interfaces (a heap dump lists no class's interfaces); name the classes "
                     "that implement it", cls);
    }
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_inst_json(&w, &r);
        cli_json_end(&co, &w);
    } else {
        rep_inst_text(stdout, &r);
        cli_print_timing(&co, stdout, "load time", co.load_ms);
        cli_print_timing(&co, stdout, "instances", ms);
    }
    rc = CLI_EXIT_OK;
out:
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    inst_free(&r);
    rules_fini(&rs);
    query_close(q);
    lr_close(lh);
    return rc;
}
