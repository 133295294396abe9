/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_diff.c: `leakray diff A B` (cli), prefix diff_cmd_. Chrome DevTools' Comparison view
 * from the command line: per class key, # New, # Deleted, # Delta, Alloc. size, Freed size and
 * Size delta of B against the base A, objects matched by node id (V8, Node, ArkTS). HPROF ids
 * are addresses the GC reuses, so HPROF pairs compare counts and shallow bytes per class
 * unless --match-ids asks for id matching. Rows are ordered by |size delta|, then |count
 * delta|, then class key (src/analysis/diff.c), so output is deterministic. Before comparing,
 * the inputs must be of one format and plausibly of one process (analysis/kinship.h; --force
 * lifts the second check); --retained adds per-class retained sizes and --fail-on-growth
 * turns a class's growth into exit code 1 for CI (analysis/diff.h's gates). report/diff.h
 * renders the result. */
#include "analysis/devtools.h"
#include "analysis/diff.h"
#include "analysis/dominators.h"
#include "analysis/histo.h"
#include "analysis/kinship.h"
#include "cli.h"
#include "format/v8.h"
#include "report/diff.h"

#include <stdlib.h>
#include <string.h>

/* Bytes each class's instances retain together, class_ix -> bytes (free: caller), and the
 * snapshot's reachable bytes: DevTools' per-class sums on V8/ArkTS snapshots (the numbers
 * `histo --retained` prints there), else the dominator tree with the dump's size model. */
static lr_status diff_cmd_retained(const graph *g, uint64_t **out, uint64_t *total,
                                   uint64_t *class_objects, lr_error *err)
{
    uint64_t *cr = err_calloc(g->n_classes ? g->n_classes : 1, sizeof *cr);
    if (!cr)
        return LR_FAIL(err, LR_ERR_NOMEM, "diff: out of memory for %u classes", g->n_classes);
    lr_status st;
    if (v8_class_keys(g) && g->synthetic_root != GRAPH_NONE) {
        devtools_result r;
        if ((st = devtools_build(g, v8_class_keys(g), &r, err)) == LR_OK) {
            for (uint32_t i = 0; i < r.n_classes; i++)
                if (r.classes[i].cls < g->n_classes)
                    cr[r.classes[i].cls] += r.classes[i].retained;
            *total = r.total;
            devtools_free(&r);
        }
    } else {
        dom_opts o = {0};
        dom_tree t;
        uint32_t *cnt = err_calloc(g->n_classes ? g->n_classes : 1, sizeof *cnt);
        if (g->size_model == GRAPH_SIZES_VISUALVM)
            dom_opts_visualvm(&o);
        if (!cnt) {
            st = LR_FAIL(err, LR_ERR_NOMEM, "diff: out of memory for %u classes", g->n_classes);
        } else if ((st = dom_build_ex(g, &o, &t, err)) == LR_OK) {
            st = dom_class_retained(g, &t, cr, cnt, err);
            *total = t.total_reachable;
            if (st == LR_OK && (*class_objects = histo_class_objects_retained(g, &t, -1)) ==
                                   UINT64_MAX)
                st = LR_FAIL(err, LR_ERR_NOMEM, "diff: out of memory");
            dom_free(&t);
        }
        free(cnt);
    }
    if (st != LR_OK) {
        free(cr);
        return st;
    }
    *out = cr;
    return LR_OK;
}

int cmd_diff(int argc, char **argv)
{
    uint64_t top = 0;
    int match_ids = 0, by_class = 0, detached = 0, want_retained = 0, force = 0, strict = 0;
    int allow_truncated = 0;
    cli_strlist gates_in = {{0}, 0, {0}};
    const cli_optdef opts[] = {
        {"--top", CLI_OPT_UINT, &top, "N", "rows to show (default 0 = all)", NULL},
        {"--match-ids", CLI_OPT_FLAG, &match_ids, NULL,
         "HPROF: match objects by id (only when the dumps come from one process without GC "
         "moving objects); V8: even when the ids were renumbered (DevTools' Comparison)",
         NULL},
        {"--by-class", CLI_OPT_FLAG, &by_class, NULL,
         "compare counts and sizes per class only, without id matching", NULL},
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "only detached DOM classes (V8 browser snapshots)", NULL},
        {"--retained", CLI_OPT_FLAG, &want_retained, NULL,
         "add each class's retained bytes on both sides and their delta (rows ordered by it)",
         NULL},
        {"--fail-on-growth", CLI_OPT_LIST, &gates_in, "CLASS=N|PCT%",
         "exit 1 when CLASS gains more than N instances, or more than PCT% (repeatable)", NULL},
        {"--allow-truncated", CLI_OPT_FLAG, &allow_truncated, NULL,
         "with --fail-on-growth, judge snapshots that were cut short like complete ones", NULL},
        {"--force", CLI_OPT_FLAG, &force, NULL,
         "compare snapshots that look like two processes (formats must still match)", NULL},
        {"--strict", CLI_OPT_FLAG, &strict, NULL,
         "exit 2 when a --fail-on-growth class is in neither snapshot", NULL},
        {0},
    };
    const cli_spec spec = {
        "diff", "A B", "Compare two snapshots per class (DevTools Comparison view).", opts, 2, 2,
        "B is compared with the base A. V8/ArkTS objects are matched by node id (stable\n"
        "within one process): # New = in B only, # Deleted = in A only, sizes are shallow\n"
        "bytes. Only objects with a nonzero shallow size count, and unchanged classes are\n"
        "omitted, as in DevTools; an object that changed class (became `Detached <div>`)\n"
        "is deleted from the old class and new in the new one. HPROF and Ruby dumps\n"
        "(ids are addresses the GC reuses) compare counts and bytes per class, and so do\n"
        "V8 snapshots whose writer renumbers objects in\n"
        "every snapshot (Bun): no id survives from A to B there.\n"
        "A and B must have one format and come from one process: a different entry point,\n"
        "class sets that differ (names as signatures give them: a hidden class without its\n"
        "address), object ids that rarely keep their class, or (V8) JavaScript\n"
        "objects that rarely keep their name by id (two isolates) stop with exit 2.\n"
        "Example: leakray diff before.heapsnapshot after.heapsnapshot\n"
        "         leakray diff a.hprof b.hprof --retained --fail-on-growth com.x.Item=10%"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (match_ids && by_class)
        return cli_usage_error(&co, "--match-ids and --by-class exclude each other");
    diff_gate gates[CLI_MAX_LIST];
    for (int i = 0; i < gates_in.n; i++)
        if (!diff_gate_parse(gates_in.v[i], &gates[i]))
            return cli_usage_error(&co, "invalid --fail-on-growth '%s' (expected CLASS=N or "
                                        "CLASS=PCT%%)",
                                   gates_in.v[i]);
    lr_heap *ha = NULL, *hb = NULL;
    uint64_t *cr_a = NULL, *cr_b = NULL;
    if ((rc = cli_open(&co, co.pos[0], 0, &ha)) != 0)
        return rc;
    if ((rc = cli_open(&co, co.pos[1], 0, &hb)) != 0) {
        lr_close(ha);
        return rc;
    }
    const graph *a = lr_heap_graph(ha), *b = lr_heap_graph(hb);
    /* as histo: no DOM elsewhere */
    if (detached && ((rc = cli_need_dom(&co, a, co.pos[0])) != 0 ||
                     (rc = cli_need_dom(&co, b, co.pos[1])) != 0))
        goto out;
    lr_error err = {.offset = LR_NO_OFFSET};
    kin_stats ks;
    int related = 0;
    /* ids that are addresses the GC hands to new objects: HotSpot's and Ruby's (a freed
     * slot); matched by id, a replaced cache of 5,000 Ruby objects read 333 new */
    int addr_ids =
        strcmp(lr_heap_format(ha), "hprof") == 0 || strcmp(lr_heap_format(hb), "hprof") == 0 ||
        strcmp(lr_heap_format(ha), "ruby") == 0 || strcmp(lr_heap_format(hb), "ruby") == 0;
    int want_ids = !by_class && (!addr_ids || match_ids); /* as by_id below, renumbering aside */
    {
        kin_print pa = {0}, pb = {0};
        if (kin_print_build(a, lr_heap_format(ha), &pa, &err) != LR_OK ||
            kin_print_build(b, lr_heap_format(hb), &pb, &err) != LR_OK)
            rc = cli_error(&co, &err);
        else
            rc = cli_check_related(&co, co.pos[0], &pa, co.pos[1], &pb, want_ids, force,
                                   want_ids, &ks, &related);
        kin_print_free(&pa);
        kin_print_free(&pb);
        if (rc)
            goto out;
    }
    /* Renumbered ids (Bun) would make every object new in B and deleted from A: DevTools'
     * Comparison does exactly that, and its New/Deleted columns then say nothing. */
    int by_id = by_class ? 0 : addr_ids || ks.ids_renumbered ? match_ids : 1;
    diff_result r;
    double t0 = cli_now_ms();
    /* DevTools names the base's plain objects with the compared snapshot's interfaces. */
    if (by_id && v8_class_keys(a) && v8_class_keys(b) &&
        v8_apply_interfaces(lr_heap_graph(ha), b, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    diff_retained ret = {0};
    if (want_retained) {
        if (diff_cmd_retained(a, &cr_a, &ret.total_a, &ret.class_objects_a, &err) != LR_OK ||
            diff_cmd_retained(b, &cr_b, &ret.total_b, &ret.class_objects_b, &err) != LR_OK) {
            rc = cli_error(&co, &err);
            goto out;
        }
        ret.class_a = cr_a;
        ret.class_b = cr_b;
    }
    if (diff_build_ex(a, b, v8_class_keys(a), v8_class_keys(b), by_id,
                      want_retained ? &ret : NULL, &r, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    double ms = cli_now_ms() - t0;
    /* the gates judge the classes' real counts, before --detached narrows the table: a
     * class left out of it read "0 -> 0" and passed */
    int failed = 0, unknown = 0;
    for (int i = 0; i < gates_in.n; i++)
        diff_gate_eval(&gates[i], &r, a, b);
    if (detached) /* Detached DOM nodes always carry the "Detached " name */
        diff_keep_prefix(&r, "Detached ");
    for (int i = 0; i < gates_in.n; i++) {
        failed += gates[i].failed;
        if (gates[i].spelled[0])
            cli_warn(&co, "--fail-on-growth %s: class '%s' read as '%s', the JVM's name of the "
                          "nested class", gates[i].spec, gates[i].spelled, gates[i].cls);
        if (!gates[i].known) {
            unknown++;
            cli_warn(&co, "--fail-on-growth %s: no class named '%s' in either snapshot",
                     gates[i].spec, gates[i].cls);
        }
    }
    /* refused before any document: with --json the error document is the only one */
    if (unknown && strict) {
        int u = 0;
        while (gates[u].known)
            u++;
        rc = cli_fail(&co, LR_ERR_USAGE,
                      "--fail-on-growth %s: no class named '%s' in either snapshot (--strict)",
                      gates[u].spec, gates[u].cls);
        if (!cli_exit_keeps_heap())
            diff_free(&r);
        goto out;
    }
    rep_diff v = {co.pos[0], co.pos[1], &r, by_id, top && top < r.n ? (uint32_t)top : r.n,
                  gates, (uint32_t)gates_in.n, &ks, related, force};
    if (by_id && r.n_reused)
        cli_warn(&co, "%s and %s: %llu ids name an object of another class or size in the "
                      "second: the collector gave their addresses to other objects (a HotSpot "
                      "dump compacts the heap first), so --match-ids pairs objects that are "
                      "not the same; the counts per class (without it) are the comparison",
                 co.pos[0], co.pos[1], (unsigned long long)r.n_reused);
    if (ks.ids_renumbered)
        cli_warn(&co, "%s and %s: object ids renumbered: the writer numbers objects afresh "
                      "in every snapshot, %s",
                 co.pos[0], co.pos[1],
                 by_id ? "every object is new in B and deleted from A (--match-ids)"
                       : "so objects are compared per class (--match-ids: by id anyway)");
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        rep_diff_json(&w, &v);
        /* a gate's answer on part of a heap: the document says why the exit is 3 */
        if (co.n_truncated)
            jsonw_kv_bool(&w, "truncated", 1);
        cli_json_end_phase(&co, &w, "diff_ms", ms);
    } else {
        rep_diff_text(stdout, &v);
        cli_print_timing(&co, stdout, "load", co.load_ms_total);
        cli_print_timing(&co, stdout, "diff", ms);
    }
    if (!cli_exit_keeps_heap())
        diff_free(&r);
    if (failed)
        rc = CLI_EXIT_FINDINGS;
    /* a gate passed on part of a heap proves nothing: CI must not rely on it */
    if (gates_in.n && co.n_truncated && !allow_truncated) {
        fprintf(stderr, "leakray: a snapshot is truncated, --fail-on-growth cannot pass on it "
                        "(--allow-truncated to judge it anyway)\n");
        rc = CLI_EXIT_INPUT;
    }
out:
    /* the process exits with rc next and takes all this back sooner than freeing would */
    if (cli_exit_keeps_heap())
        return rc;
    free(cr_a);
    free(cr_b);
    lr_close(ha);
    lr_close(hb);
    return rc;
}
