/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_analyze.c: `leakray analyze FILE` (cli), prefix analyze_. LeakCanary-style leak
 * analysis: load the dump, optionally deobfuscate it with a ProGuard/R8 mapping, load the
 * shipped rules (jdk.rules, plus android.rules for Android dumps), user rules and --watch /
 * --leaking-if pairs, find leaking objects (watched by KeyedWeakReference, or declared by
 * rules), find MAT-style leak suspects in `top`'s retained-size tree (the LARGEST RETAINERS
 * section; on a big heap built on a second thread meanwhile), build the traces' tree with
 * the path search's edges and roots, build and group traces in Shark's order, and hand the
 * results to the report layer: the LeakCanary 2.14 text (report/text.c) or, under --json,
 * every trace and suspect (report/analyze_json.c, docs/json.md "analyze"). */
#include "cli.h"
#include "cmd_report.h"

#include "analysis/dominators.h"
#include "analysis/leakfind.h"
#include "analysis/collapse.h"
#include "analysis/devtools.h"
#include "analysis/paths.h"
#include "analysis/retained.h"
#include "analysis/suspects.h"
#include "analysis/trace.h"
#include "base/phase.h"
#include "format/leaktracker.h"
#include "format/v8.h"
#include "report/analyze_json.h"
#include "report/text.h"
#include "rules/mapping.h"
#include "rules/rules.h"

#include <limits.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* LEAKRAY_TIMINGS=1 prints each phase's wall and CPU time and the heap memory held at its
 * end (RssAnon) to stderr, for bench/analyze.sh. */
static void analyze_phase(const char *name, double *t)
{
    static int on = -1;
    static double last_cpu;
    if (on < 0) {
        const char *e = getenv("LEAKRAY_TIMINGS");
        on = e && *e && strcmp(e, "0") != 0;
    }
    double now = cli_now_ms();
    if (on && name) {
        /* RssAnon at the end of the phase: the heap memory still held. */
        long anon = -1;
        char line[128];
        FILE *f = fopen("/proc/self/status", "r");
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "RssAnon:", 8))
                anon = strtol(line + 8, NULL, 10);
        if (f)
            fclose(f);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
        fprintf(stderr, "leakray: %-10s %8.1f ms wall %8.1f ms cpu  anon %7.1f MB\n", name,
                now - *t, cpu - last_cpu, anon < 0 ? -1.0 : anon / 1024.0);
        last_cpu = cpu;
    }
    *t = now;
}

static void analyze_warn(void *co, const char *msg)
{
    cli_warn(co, "%s", msg);
}

/* A rules file's watch rules, checked as --watch's are: the messages name the file. */
typedef struct file_warn_ctx {
    cli_common *co;
    const char *file;
} file_warn_ctx;

static void file_warn(void *ctx, const char *msg)
{
    const file_warn_ctx *f = ctx;
    if (strncmp(msg, "--watch ", 8) == 0)
        cli_warn(f->co, "%s: watch %s", f->file, msg + 8);
    else if (strncmp(msg, "--leaking-if: ", 14) == 0)
        cli_warn(f->co, "%s: watch condition: %s", f->file, msg + 14);
    else
        cli_warn(f->co, "%s: %s", f->file, msg);
}

/* The objects a leak_tracker report names (Dart snapshots: by identity hash) join the
 * leaking objects, each with the report's verdict as its reason. */
static lr_status analyze_leak_tracker(cli_common *co, const graph *g, const char *path,
                                      leak_set *ls, lr_error *err)
{
    lt_report r;
    LR_TRY(lt_load(g, path, &r, err));
    lr_status st = LR_OK;
    for (uint32_t i = 0; st == LR_OK && i < r.n; i++) {
        char why[96];
        snprintf(why, sizeof why, "leak_tracker: %s, identityHashCode %u",
                 lt_type_title(r.v[i].type), r.v[i].code);
        st = leak_add(ls, r.v[i].node, LEAK_SRC_RULE, why, err);
    }
    if (st == LR_OK && r.n_missing)
        cli_warn(co, "%s: %u of %u reported objects are not in the snapshot (collected "
                     "before it was written)", path, r.n_missing, r.n_reports);
    if (st == LR_OK && r.n_ambiguous)
        cli_warn(co, "%s: %u reports match several objects (same identity hash and class): "
                     "all are traced", path, r.n_ambiguous);
    lt_report_free(&r);
    return st;
}

/* "12.5" (percent) into a 0..1 share; -1 when s is no number in [0, 100]. */
static double analyze_pct(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != 0 || !(v >= 0.0 && v <= 100.0))
        return -1.0;
    return v / 100.0;
}

int cmd_analyze(int argc, char **argv)
{
    cli_strlist rules_files = {{0}, 0, {0}}, watches = {{0}, 0, {0}}, ifs = {{0}, 0, {0}};
    int fail_on_leak = 0, no_shipped = 0, collapse = 0, full = 0, allow_truncated = 0;
    int no_suspects = 0, verbose = 0, strict = 0, detached = 0, no_detached = 0;
    uint64_t max_traces = TRACE_DEFAULT_TRACES;
    const char *categories = NULL, *share_s = NULL, *accum_s = NULL, *fail_susp_s = NULL;
    const char *size_model = NULL, *html = NULL, *leak_tracker = NULL, *text_out = NULL;
    const cli_optdef opts[] = {
        {"--rules", CLI_OPT_LIST, &rules_files, "FILE", "extra rules file (repeatable)", NULL},
        {"--watch", CLI_OPT_LIST, &watches, "CLASS",
         "treat instances of CLASS as leaking (when a --leaking-if follows it: those it holds for)",
         NULL},
        {"--leaking-if", CLI_OPT_LIST, &ifs, "EXPR",
         "condition for the --watch before it, e.g. 'destroyed == true'", NULL},
        {"--leak-tracker", CLI_OPT_STR, &leak_tracker, "JSON",
         "Dart snapshots: trace the objects a Flutter leak_tracker report names (not disposed, "
         "not GCed, GCed late; by identity hash)", NULL},
        {"--detached", CLI_OPT_FLAG, &detached, NULL,
         "browser snapshots: detached DOM nodes still retained are leaking objects (the "
         "default without --watch and --leak-tracker)", NULL},
        {"--no-detached", CLI_OPT_FLAG, &no_detached, NULL,
         "do not trace detached DOM nodes", NULL},
        {"--fail-on-leak", CLI_OPT_FLAG, &fail_on_leak, NULL,
         "exit 1 when a leak trace (application or library) or an unreachable leaking object "
         "something still holds (not garbage) is reported (3 on a truncated dump); suspects "
         "never count", NULL},
        {"--allow-truncated", CLI_OPT_FLAG, &allow_truncated, NULL,
         "with --fail-on-leak or --fail-on-suspect, judge a dump that was cut short like a "
         "complete one", NULL},
        {"--fail-on-suspect", CLI_OPT_STR, &fail_susp_s, "PCT",
         "exit 1 when a largest-retainer suspect holds PCT % of the heap or more (below "
         "the default share, the share becomes PCT)", NULL},
        {"--suspect-share", CLI_OPT_STR, &share_s, "PCT",
         "heap share (1-100) over which a retainer is a suspect (default 10, as MAT)", NULL},
        {"--suspect-accumulation", CLI_OPT_STR, &accum_s, "PCT",
         "descend to the biggest child while it keeps over PCT % (default 70, as MAT)", NULL},
        {"--no-suspects", CLI_OPT_FLAG, &no_suspects, NULL,
         "skip the LARGEST RETAINERS section (saves one dominator tree)", NULL},
        {"--size-model", CLI_OPT_STR, &size_model, "M",
         "trace sizes: dump (default: the dump's object sizes) or shark (Shark 2.14's: field "
         "bytes, Strings with their arrays, no direct buffer's off-heap memory; and Shark's "
         "references: no instance-to-class nor class-to-loader hop, so an object reached only "
         "through one is unreachable, as in Shark)", NULL},
        {"--verbose", CLI_OPT_FLAG, &verbose, NULL,
         "also print labels LeakCanary never prints (\"Also retains leaking object ...\")",
         NULL},
        {"--strict", CLI_OPT_FLAG, &strict, NULL,
         "exit 2 when a --watch class or --leaking-if field is not in the dump (always so "
         "under --fail-on-leak)",
         NULL},
        {"--no-shipped-rules", CLI_OPT_FLAG, &no_shipped, NULL,
         "do not load jdk.rules / android.rules / browser.rules", NULL},
        {"--collapse", CLI_OPT_FLAG, &collapse, NULL,
         "merge runs of one category (element, widget, view...) in traces into one line", NULL},
        {"--categories", CLI_OPT_STR, &categories, "NAME|FILE",
         "category rules for --collapse: flutter (default), android-views, or a file", NULL},
        {"--max-traces", CLI_OPT_UINT, &max_traces, "N",
         "leak traces printed with their path (default 100, 0 = all)", NULL},
        {"--full", CLI_OPT_FLAG, &full, NULL,
         "print every trace and whole paths (default: 50 objects per trace, both ends)", NULL},
        {"--html", CLI_OPT_STR, &html, "OUT",
         "also write the HTML report to OUT (`report`'s page, with this analysis's traces: "
         "the first 100 with their paths, all with --full)", NULL},
        {"--text", CLI_OPT_STR, &text_out, "OUT",
         "also write the text report to OUT (with --json: both from one analysis)", NULL},
        {0}};
    const cli_spec spec = {
        "analyze", "FILE", "LeakCanary-style leak traces of watched and rule-matched objects.",
        opts, 1, 1,
        "Leaking objects: instances watched by leakcanary.KeyedWeakReference, objects a rule\n"
        "declares leaking, and --watch CLASS [--leaking-if EXPR] pairs; on a browser snapshot\n"
        "without --watch, the detached DOM nodes the page still holds and unmounted React\n"
        "fibers (--detached, --no-detached); not a <template> nor its content, which\n"
        "frameworks keep to parse and clone markup. One snapshot cannot tell other one-off\n"
        "caches of nodes never attached (React's style probe) from a leak: to gate a page,\n"
        "run `leakray leaks` on baseline, target and final snapshots, after a warm-up cycle.\n"
        "CLASS is any class name the dump has (`--watch 'Detached <tr>'`). After their\n"
        "traces, the LARGEST RETAINERS section lists leak suspects as Eclipse MAT finds them:\n"
        "objects, classes, groups of instances and threads' locals holding over 10% of the\n"
        "heap, followed down to their accumulation point, with retained sizes as `leakray\n"
        "top` shows them. Suspects are not leak traces: --fail-on-leak ignores them,\n"
        "--fail-on-suspect PCT gates on them. Rules language: docs/rules.md.\n"
        "Example: leakray analyze app.hprof --watch com.example.Page --leaking-if 'destroyed'\n"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *conds[CLI_MAX_LIST];
    if ((rc = cli_pair_watches(&co, &watches, &ifs, conds)) != CLI_CONTINUE)
        return rc;
    if (detached && no_detached)
        return cli_usage_error(&co, "--detached and --no-detached exclude each other");
    if (html && co.n_pos > 0 && cli_out_is(html, co.pos[0]))
        return cli_usage_error(&co, "--html %s is the input file; write to another path", html);
    if (html && cli_out_stdout(html)) /* the page would be mixed into the report */
        return cli_usage_error(&co, "--html - would mix the page with the report on stdout: "
                                    "use `leakray report FILE -o -`");
    if (text_out && co.n_pos > 0 && cli_out_is(text_out, co.pos[0]))
        return cli_usage_error(&co, "--text %s is the input file; write to another path",
                               text_out);
    if (text_out && cli_out_stdout(text_out))
        return cli_usage_error(&co, "--text - would mix two reports on stdout: leave --json out");
    /* Shark leaves array classes obfuscated ("l[]"): so do traces and signatures */
    co.mapping_flags = MAPPING_KEEP_ARRAYS;
    int shark_sizes = 0;
    if (size_model && !(shark_sizes = strcmp(size_model, "shark") == 0) &&
        strcmp(size_model, "dump") != 0)
        return cli_usage_error(&co, "--size-model '%s': expected dump or shark", size_model);
    co.registry_native_only = shark_sizes; /* Shark counts no direct buffer's memory */
    double share = SUSP_SHARE_DEFAULT, accum = SUSP_ACCUMULATION_DEFAULT, fail_susp = -1.0;
    /* at least 1 %: then at most 100 objects, 100 classes and 100 threads can pass, so the
     * section (and its paths) stays small whatever the heap */
    if (share_s && (share = analyze_pct(share_s)) < 0.01)
        return cli_usage_error(&co, "--suspect-share '%s': expected a percentage 1-100", share_s);
    if (accum_s && (accum = analyze_pct(accum_s)) < 0)
        return cli_usage_error(&co, "--suspect-accumulation '%s': expected a percentage 0-100",
                               accum_s);
    if (fail_susp_s && (fail_susp = analyze_pct(fail_susp_s)) < 0)
        return cli_usage_error(&co, "--fail-on-suspect '%s': expected a percentage 0-100",
                               fail_susp_s);
    /* a gate that cannot fire is a mistake: no suspects at all, or none as small as it */
    if (fail_susp_s && no_suspects)
        return cli_usage_error(&co, "--fail-on-suspect needs the suspects, which --no-suspects "
                               "leaves out");
    if (fail_susp_s && fail_susp < share) {
        if (share_s)
            cli_warn(&co, "--fail-on-suspect %s is below --suspect-share %s: retainers under "
                     "%s %% are no suspects and do not trip it", fail_susp_s, share_s,
                     share_s);
        else
            share = fail_susp < 0.01 ? 0.01 : fail_susp; /* the gate's retainers are suspects */
    }
    cat_set cs;
    if ((rc = cli_categories(&co, collapse, categories, &cs)) != 0)
        return rc;
#ifdef __GLIBC__
    /* The phases allocate and free arrays of N entries one after another; a fixed mmap
     * threshold hands each back to the system when freed (glibc's adaptive threshold would
     * move them to the heap after the first free, and the heap keeps them), so the peak is
     * one phase's scratch, not the sum. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    double t0 = cli_now_ms(), tp = t0;
    lr_heap *h;
    if ((rc = cli_open(&co, co.pos[0], 0, &h)) != 0) {
        cat_fini(&cs);
        return rc;
    }
    analyze_phase("load", &tp);
    graph *g = lr_heap_graph(h);
    if (detached && (rc = cli_need_dom(&co, g, co.pos[0])) != 0) { /* asked, it cannot hold */
        lr_close(h);
        cat_fini(&cs);
        return rc;
    }
    lr_error err;
    memset(&err, 0, sizeof err);
    rules_set rs;
    rules_init(&rs);
    leak_set ls;
    memset(&ls, 0, sizeof ls);
    trace_result tr;
    memset(&tr, 0, sizeof tr);
    dom_tree dt;
    memset(&dt, 0, sizeof dt);
    susp_result sr;
    memset(&sr, 0, sizeof sr);
    ret_model kept; /* the suspects' tree, for --html's page */
    memset(&kept, 0, sizeof kept);
    lr_status st = LR_OK;
    int suspects = 0;

    if (!no_shipped)
        st = rules_load_defaults(&rs, g, &err);
    /* a watch rule of a user's file that names no class of the dump, or no field, finds
     * nothing and reads as "no leak" too (the shipped files' are for other programs) */
    uint32_t typos = 0;
    for (int i = 0; st == LR_OK && i < rules_files.n; i++) {
        uint32_t before = rs.n_insp, refs_before = rs.n_refs;
        st = rules_load_file(&rs, rules_files.v[i], &err);
        file_warn_ctx fw = {&co, rules_files.v[i]};
        if (st == LR_OK) {
            typos += rules_watch_check(&rs, before, g, file_warn, &fw);
            rules_file_check(&rs, before, refs_before, g, file_warn, &fw);
        }
    }
    uint32_t first_watch = rs.n_insp;
    for (int i = 0; st == LR_OK && i < watches.n; i++) {
        char cb[512];
        st = rules_add_watch(&rs, cli_dump_class(g, watches.v[i], cb, sizeof cb), conds[i],
                             &err);
        if (st == LR_ERR_RULES) { /* the command line's, not a rules file's: a usage error */
            rc = cli_usage_error(&co, "%s", err.msg);
            goto done;
        }
    }
    /* A typo in a watched class or field finds nothing and looks like "no leak": say so, and
     * refuse to go on where an exit code depends on the answer. */
    if (st == LR_OK &&
        rules_watch_check(&rs, first_watch, g, analyze_warn, &co) + typos &&
        (strict || fail_on_leak)) {
        rc = cli_fail(&co, LR_ERR_USAGE, "%s (--strict%s)", co.warn[0],
                      fail_on_leak ? " is implied by --fail-on-leak" : "");
        goto done;
    }
    if (st == LR_OK)
        st = rules_bind(&rs, g, &err);
    if (st == LR_OK && collapse)
        st = cat_bind(&cs, g, &err);
    analyze_phase("rules", &tp);
    /* Paths first when something is watched: trace_paths frees its per-node forest before the
     * traces' dominator scratch is allocated. The suspects (their tree in top's model, then
     * their paths) need none of it: on a big heap they run beside all of it on the other
     * core. --timing names each step (the suspects' CPU adds to the steps it runs beside). */
    const char *verb_phase = phase_current();
    ret_job sj;
    int sj_on = st == LR_OK && !no_suspects;
    if (sj_on)
        ret_suspects_start_keep(&sj, g, v8_class_keys(g), share, accum, RET_SPLIT_MIN, &sr,
                                html ? &kept : NULL);
    phase_enter("leak finding");
    if (st == LR_OK)
        st = leak_find(g, &rs, &ls, &err);
    if (st == LR_OK && leak_tracker)
        st = analyze_leak_tracker(&co, g, leak_tracker, &ls, &err);
    /* memlab's question on a browser snapshot: which detached DOM nodes are still held */
    uint32_t n_detached = 0;
    if (st == LR_OK && !no_detached && (detached || (!watches.n && !leak_tracker)))
        st = leak_find_detached(g, &ls, &n_detached, &err);
    analyze_phase("leakfind", &tp);
    lr_status found_st = st;
    /* --collapse folds long runs itself: it gets paths up to TRACE_COLLAPSE_STEPS whole */
    trace_opts topts = {full ? 0 : collapse ? TRACE_COLLAPSE_STEPS : TRACE_DEFAULT_STEPS,
                        full || max_traces > UINT32_MAX ? 0 : (uint32_t)max_traces,
                        shark_sizes};
    suspects = ls.n == 0;
    if (st == LR_OK && ls.n > 0)
        st = trace_paths_opts(g, &rs, &ls, &topts, &tr, &err);
    analyze_phase("paths", &tp);
    /* the traces' own reachability: rules' edges, Java locals as their thread's; kept for
     * the group totals */
    dom_opts dopts = {0};
    dom_reach_table dtab = {{0}, NULL, 0};
    node_ix *lfrom = NULL, *lto = NULL;
    trace_shark_ctx sctx = {&rs, graph_find_class(g, "java.lang.String")};
    if (st == LR_OK && ls.n > 0) {
        st = trace_dom_view(g, &rs, shark_sizes ? &sctx : NULL, &dopts, &dtab, &lfrom, &lto,
                            &err);
        if (st == LR_OK)
            st = dom_build_ex(g, &dopts, &dt, &err);
    }
    analyze_phase("dominators", &tp);
    phase_enter("traces");
    if (st == LR_OK && ls.n > 0)
        st = trace_finish_ex(g, &rs, &ls, &dt, &dopts, &tr, &err);
    trace_dom_view_free(&dtab, lfrom, lto);
    /* the text and the JSON read no idom from here on (the JSON reads retained sizes), and
     * the suspects' job may still be running on the other core: its memory goes first */
    if (!html) {
        free(dt.idom);
        dt.idom = NULL;
    }
    analyze_phase("traces", &tp);
    /* errors in the order the steps ran on one core: leak finding, suspects, the traces */
    lr_error serr;
    memset(&serr, 0, sizeof serr);
    phase_enter("suspects");
    lr_status sst = sj_on ? ret_suspects_join(&sj, &serr) : LR_OK;
    if (sst != LR_OK && found_st == LR_OK) {
        err = serr;
        st = sst;
    }
    phase_enter(verb_phase);
    analyze_phase("suspects", &tp);
    double ms = cli_now_ms() - t0;
    if (st != LR_OK) {
        rc = cli_error(&co, &err);
    } else {
        char abs[PATH_MAX];
        const char *shown = realpath(co.pos[0], abs) ? abs : co.pos[0];
        /* the page first: under --json a failure to write it is the one document on stdout
         * (the result, then an error object, was two) */
        int html_rc = CLI_EXIT_OK;
        if (html) {
            lr_analysis *an = lr_analysis_wrap(h, &rs, &ls, &tr, &dt, suspects,
                                               no_suspects ? NULL : &sr, ms);
            uint64_t bytes = 0;
            if (an)
                lr_analysis_keep_tree(an, &kept);
            html_rc = an ? report_write_file(&co, an, LR_RENDER_HTML, html, shown, &bytes)
                         : cli_fail(&co, LR_ERR_NOMEM, "out of memory");
            lr_analysis_free(an);
            analyze_phase("html", &tp);
        }
        /* --text's file opened before the report too, for the same reason */
        int text_rc = CLI_EXIT_OK;
        FILE *tf = NULL;
        if (text_out && html_rc == CLI_EXIT_OK && !(tf = fopen(text_out, "w")))
            text_rc = cli_fail(&co, LR_ERR_IO, "%s: %s", text_out, strerror(errno));
        if (co.json && (html_rc != CLI_EXIT_OK || text_rc != CLI_EXIT_OK)) {
            /* its error object is the document (html_rc or text_rc is the exit below) */
        } else if (co.json) {
            rep_analyze v = {shown, g, &rs, &ls, &tr, &dt, collapse ? &cs : NULL,
                             no_suspects ? NULL : &sr, suspects, verbose};
            jsonw w;
            cli_json_begin(&w);
            rep_analyze_json(&w, &v);
            cli_json_end_phase(&co, &w, "analysis_ms", ms);
        } else {
            rep_text_opts o = {shown, co.no_timing, ms, suspects, collapse ? &cs : NULL,
                               topts.max_traces, no_suspects ? NULL : &sr, verbose,
                               isatty(STDOUT_FILENO)};
            rep_text_analysis(stdout, g, &rs, &ls, &tr, &o);
        }
        if (tf) {
            /* the agent's report pair from one analysis: two processes loaded the dump and
             * built its trees twice, side by side, on the watched program's host */
            rep_text_opts o = {shown, co.no_timing, ms, suspects, collapse ? &cs : NULL,
                               topts.max_traces, no_suspects ? NULL : &sr, verbose, 0};
            rep_text_analysis(tf, g, &rs, &ls, &tr, &o);
            if (ferror(tf) | fclose(tf))
                text_rc = cli_fail(&co, LR_ERR_IO, "%s: %s", text_out, strerror(errno));
        }
        analyze_phase("report", &tp);
        rc = CLI_EXIT_OK;
        if (fail_on_leak && (tr.n_traces || tr.n_unreachable > tr.n_garbage))
            rc = CLI_EXIT_FINDINGS;
        /* a verdict on part of a heap proves nothing: a CI gate must not rely on it */
        if (fail_on_leak && g->diag.n[DIAG_TRUNCATED] && !allow_truncated) {
            fprintf(stderr, "leakray: %s: dump is truncated, --fail-on-leak cannot pass on it "
                            "(--allow-truncated to judge it anyway)\n", co.pos[0]);
            rc = CLI_EXIT_INPUT;
        }
        for (uint32_t i = 0; fail_susp >= 0 && i < sr.n; i++)
            if ((double)sr.v[i].retained >= fail_susp * (double)sr.total)
                rc = CLI_EXIT_FINDINGS;
        /* nor the suspects' gate: a dump cut before its heap had no suspect and passed */
        if (fail_susp >= 0 && !fail_on_leak && g->diag.n[DIAG_TRUNCATED] && !allow_truncated) {
            fprintf(stderr, "leakray: %s: dump is truncated, --fail-on-suspect cannot pass on "
                            "it (--allow-truncated to judge it anyway)\n", co.pos[0]);
            rc = CLI_EXIT_INPUT;
        }
        /* the page was asked for: failing to write it outranks any verdict */
        if (html_rc != CLI_EXIT_OK)
            rc = html_rc;
        if (text_rc != CLI_EXIT_OK)
            rc = text_rc;
    }
    /* the process exits with rc next and takes all this back at once: freeing it first cost
     * ~70 ms of one core on 22 M objects (docs/benchmarks.md) */
    if (cli_exit_keeps_heap()) {
        analyze_phase("free", &tp);
        return rc;
    }
done:
    trace_result_free(&tr);
    susp_free(&sr);
    ret_free(&kept);
    leak_set_free(&ls);
    dom_free(&dt);
    rules_fini(&rs);
    cat_fini(&cs);
    lr_close(h);
    analyze_phase("free", &tp);
    return rc;
}
