/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_diff.c: `leakray diff A B` (cli), prefix diff_cmd_. Chrome DevTools' Comparison view
 * from the command line: per class key, # New, # Deleted, # Delta, Alloc. size, Freed size and
 * Size delta of B against the base A, objects matched by node id (V8, Node, ArkTS). HPROF ids
 * are addresses the GC reuses, so HPROF pairs compare counts and shallow bytes per class
 * unless --match-ids asks for id matching. Rows are ordered by |size delta|, then |count
 * delta|, then class key (src/analysis/diff.c), so output is deterministic. Before comparing,
 * the inputs must be of one format and plausibly of one process (analysis/kinship.h; --force
 * lifts the second check); --retained adds per-class retained sizes and --fail-on-growth
 * turns a class's growth into exit code 1 for CI. */
#include "analysis/devtools.h"
#include "analysis/diff.h"
#include "analysis/dominators.h"
#include "analysis/kinship.h"
#include "cli.h"
#include "format/v8.h"
#include "report/leaks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *diff_cmd_signed(char *buf, int64_t v)
{
    char t[CLI_FMT_MAX];
    cli_fmt_count(t, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    size_t at = 0, n = strlen(t);
    if (v != 0)
        buf[at++] = v < 0 ? '-' : '+';
    if (n > CLI_FMT_MAX - 1 - at)
        n = CLI_FMT_MAX - 1 - at;
    memcpy(buf + at, t, n);
    buf[at + n] = '\0';
    return buf;
}

static void diff_cmd_json_row(jsonw *w, const diff_row *x, int by_id, int retained)
{
    jsonw_obj_begin(w);
    jsonw_kv_str(w, "name", x->name);
    jsonw_kv_str(w, "key", x->key);
    jsonw_kv_uint(w, "count_a", x->count_a);
    jsonw_kv_uint(w, "count_b", x->count_b);
    jsonw_kv_uint(w, "size_a", x->size_a);
    jsonw_kv_uint(w, "size_b", x->size_b);
    if (by_id) {
        jsonw_kv_uint(w, "new", x->n_new);
        jsonw_kv_uint(w, "deleted", x->n_deleted);
        jsonw_kv_uint(w, "alloc_size", x->alloc_size);
        jsonw_kv_uint(w, "freed_size", x->freed_size);
    }
    jsonw_kv_int(w, "count_delta", x->count_delta);
    jsonw_kv_int(w, "size_delta", x->size_delta);
    if (retained) {
        jsonw_kv_uint(w, "retained_a", x->retained_a);
        jsonw_kv_uint(w, "retained_b", x->retained_b);
        jsonw_kv_int(w, "retained_delta", x->retained_delta);
    }
    jsonw_obj_end(w);
}

/* Bytes each class's instances retain together, class_ix -> bytes (free: caller), and the
 * snapshot's reachable bytes: DevTools' per-class sums on V8/ArkTS snapshots (the numbers
 * `histo --retained` prints there), else the dominator tree with the dump's size model. */
static lr_status diff_cmd_retained(const graph *g, uint64_t **out, uint64_t *total,
                                   lr_error *err)
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

/* One --fail-on-growth CLASS=N|PCT%: fails when the class's instance count grows by more than
 * N objects, or by more than PCT percent of its count in the base. */
typedef struct diff_cmd_gate {
    const char *spec;   /* as typed */
    char cls[256];      /* class name */
    uint64_t limit;     /* N or PCT */
    int pct;            /* nonzero: limit is a percentage */
    int known;          /* the class exists in one of the snapshots */
    uint64_t count_a;   /* its instances in the base */
    uint64_t count_b;   /* ... in the second snapshot */
    int64_t growth;     /* count delta (id mode: new - deleted) */
    int failed;         /* growth over the limit */
} diff_cmd_gate;

/* Parses "CLASS=N" or "CLASS=PCT%" (the class may contain '=' only before the last one). */
static int diff_cmd_gate_parse(const char *s, diff_cmd_gate *g)
{
    memset(g, 0, sizeof *g);
    g->spec = s;
    const char *eq = strrchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof g->cls)
        return 0;
    memcpy(g->cls, s, (size_t)(eq - s));
    const char *v = eq + 1;
    char num[24];
    size_t n = strlen(v);
    if (n && v[n - 1] == '%') {
        g->pct = 1;
        n--;
    }
    if (n == 0 || n >= sizeof num)
        return 0;
    memcpy(num, v, n);
    num[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (num[i] < '0' || num[i] > '9')
            return 0;
    g->limit = strtoull(num, NULL, 10);
    return 1;
}

static void diff_cmd_gate_eval(diff_cmd_gate *gt, const diff_result *r, const graph *a,
                               const graph *b)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (strcmp(r->rows[i].name, gt->cls) == 0) {
            gt->count_a += r->rows[i].count_a;
            gt->count_b += r->rows[i].count_b;
            gt->growth += r->rows[i].count_delta;
            gt->known = 1;
        }
    if (!gt->known)
        gt->known = graph_find_class(a, gt->cls) != GRAPH_NONE ||
                    graph_find_class(b, gt->cls) != GRAPH_NONE;
    if (gt->growth <= 0)
        return;
    if (gt->pct)
        gt->failed = gt->count_a == 0 || (uint64_t)gt->growth * 100 > gt->limit * gt->count_a;
    else
        gt->failed = (uint64_t)gt->growth > gt->limit;
}


int cmd_diff(int argc, char **argv)
{
    uint64_t top = 0;
    int match_ids = 0, by_class = 0, detached = 0, want_retained = 0, force = 0, strict = 0;
    cli_strlist gates_in = {{0}, 0};
    const cli_optdef opts[] = {
        {"--top", CLI_OPT_UINT, &top, "N", "rows to show (default 0 = all)", NULL},
        {"--match-ids", CLI_OPT_FLAG, &match_ids, NULL,
         "HPROF: match objects by id (only when the dumps come from one process without GC "
         "moving objects)",
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
        "is deleted from the old class and new in the new one. HPROF dumps compare counts\n"
        "and bytes per class.\n"
        "A and B must have one format and come from one program: a different entry point,\n"
        "class sets that differ, or object ids that never keep their class stop with exit 2.\n"
        "Example: leakray diff before.heapsnapshot after.heapsnapshot\n"
        "         leakray diff a.hprof b.hprof --retained --fail-on-growth com.x.Item=10%"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (match_ids && by_class)
        return cli_usage_error(&co, "--match-ids and --by-class exclude each other");
    diff_cmd_gate gates[CLI_MAX_LIST];
    for (int i = 0; i < gates_in.n; i++)
        if (!diff_cmd_gate_parse(gates_in.v[i], &gates[i]))
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
    lr_error err = {.offset = LR_NO_OFFSET};
    kin_stats ks;
    int related = 0;
    {
        kin_print pa = {0}, pb = {0};
        if (kin_print_build(a, lr_heap_format(ha), &pa, &err) != LR_OK ||
            kin_print_build(b, lr_heap_format(hb), &pb, &err) != LR_OK)
            rc = cli_error(&co, &err);
        else
            rc = cli_check_related(&co, co.pos[0], &pa, co.pos[1], &pb, force, &ks, &related);
        kin_print_free(&pa);
        kin_print_free(&pb);
        if (rc)
            goto out;
    }
    int hprof =
        strcmp(lr_heap_format(ha), "hprof") == 0 || strcmp(lr_heap_format(hb), "hprof") == 0;
    int by_id = by_class ? 0 : hprof ? match_ids : 1;
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
        if (diff_cmd_retained(a, &cr_a, &ret.total_a, &err) != LR_OK ||
            diff_cmd_retained(b, &cr_b, &ret.total_b, &err) != LR_OK) {
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
    if (detached) {
        /* Detached DOM nodes always carry the "Detached " name (docs/formats/v8.md). */
        uint32_t k = 0;
        diff_row t = {.name = r.total.name, .key = r.total.key};
        for (uint32_t i = 0; i < r.n; i++) {
            const diff_row *x = &r.rows[i];
            if (strncmp(x->name, "Detached ", 9) != 0)
                continue;
            t.count_a += x->count_a;
            t.count_b += x->count_b;
            t.size_a += x->size_a;
            t.size_b += x->size_b;
            t.n_new += x->n_new;
            t.n_deleted += x->n_deleted;
            t.alloc_size += x->alloc_size;
            t.freed_size += x->freed_size;
            t.count_delta += x->count_delta;
            t.size_delta += x->size_delta;
            t.retained_a += x->retained_a;
            t.retained_b += x->retained_b;
            t.retained_delta += x->retained_delta;
            r.rows[k++] = *x;
        }
        r.n = k;
        r.total = t;
    }
    int failed = 0, unknown = 0;
    for (int i = 0; i < gates_in.n; i++) {
        diff_cmd_gate_eval(&gates[i], &r, a, b);
        failed += gates[i].failed;
        if (!gates[i].known) {
            unknown++;
            cli_warn(&co, "--fail-on-growth %s: no class named '%s' in either snapshot",
                     gates[i].spec, gates[i].cls);
        }
    }
    uint32_t n = top && top < r.n ? (uint32_t)top : r.n;
    if (co.json) {
        jsonw w;
        cli_json_begin(&w);
        jsonw_kv_str(&w, "a", co.pos[0]);
        jsonw_kv_str(&w, "b", co.pos[1]);
        jsonw_kv_str(&w, "match", by_id ? "id" : "class");
        jsonw_kv_uint(&w, "changed_classes", r.n);
        jsonw_kv_arr_begin(&w, "classes");
        for (uint32_t i = 0; i < n; i++)
            diff_cmd_json_row(&w, &r.rows[i], by_id, r.retained);
        jsonw_arr_end(&w);
        jsonw_key(&w, "total");
        diff_cmd_json_row(&w, &r.total, by_id, r.retained);
        rep_leaks_inputs_json(&w, &ks, related, force);
        jsonw_kv_arr_begin(&w, "gates");
        for (int i = 0; i < gates_in.n; i++) {
            const diff_cmd_gate *g = &gates[i];
            jsonw_obj_begin(&w);
            jsonw_kv_str(&w, "class", g->cls);
            jsonw_kv_uint(&w, g->pct ? "limit_pct" : "limit", g->limit);
            jsonw_kv_uint(&w, "count_a", g->count_a);
            jsonw_kv_uint(&w, "count_b", g->count_b);
            jsonw_kv_int(&w, "growth", g->growth);
            jsonw_kv_bool(&w, "known", g->known);
            jsonw_kv_bool(&w, "failed", g->failed);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        cli_json_end_phase(&co, &w, "diff_ms", ms);
    } else {
        char s1[CLI_FMT_MAX], s2[CLI_FMT_MAX], s3[CLI_FMT_MAX], s4[CLI_FMT_MAX],
            s5[CLI_FMT_MAX], s6[CLI_FMT_MAX];
        printf("base %s -> %s, matched by %s, %u classes changed\n", co.pos[0], co.pos[1],
               by_id ? "node id" : "class (counts and shallow bytes)", r.n);
        if (by_id)
            printf("%10s %10s %10s %14s %14s %14s  ", "# New", "# Deleted", "# Delta",
                   "Alloc. size", "Freed size", "Size delta");
        else
            printf("%10s %10s %10s %14s %14s %14s  ", "# A", "# B", "# Delta", "Size A",
                   "Size B", "Size delta");
        if (r.retained)
            printf("%14s %14s %14s  ", "Retained A", "Retained B", "Retained delta");
        printf("%s\n", by_id ? "Constructor" : "Class");
        for (uint32_t i = 0; i <= n; i++) {
            const diff_row *x = i < n ? &r.rows[i] : &r.total;
            if (i == n && n < r.n)
                printf("(%u more classes; --top 0 shows all)\n", r.n - n);
            if (by_id)
                printf("%10s %10s %10s %14s %14s %14s  ", cli_fmt_count(s1, x->n_new),
                       cli_fmt_count(s2, x->n_deleted),
                       diff_cmd_signed(s3, x->count_delta), cli_fmt_count(s4, x->alloc_size),
                       cli_fmt_count(s5, x->freed_size), diff_cmd_signed(s6, x->size_delta));
            else
                printf("%10s %10s %10s %14s %14s %14s  ", cli_fmt_count(s1, x->count_a),
                       cli_fmt_count(s2, x->count_b), diff_cmd_signed(s3, x->count_delta),
                       cli_fmt_count(s4, x->size_a), cli_fmt_count(s5, x->size_b),
                       diff_cmd_signed(s6, x->size_delta));
            if (r.retained)
                printf("%14s %14s %14s  ", cli_fmt_count(s1, x->retained_a),
                       cli_fmt_count(s2, x->retained_b), diff_cmd_signed(s3, x->retained_delta));
            cli_put_text(stdout, x->name, strlen(x->name), 120);
            fputc('\n', stdout);
        }
        for (int i = 0; i < gates_in.n; i++) {
            const diff_cmd_gate *g = &gates[i];
            printf("%s --fail-on-growth %s: %s -> %s instances (%s)\n",
                   g->failed ? "FAILED" : g->known ? "passed" : "unknown class", g->spec,
                   cli_fmt_count(s1, g->count_a),
                   cli_fmt_count(s2, g->count_b), diff_cmd_signed(s3, g->growth));
        }
        cli_print_timing(&co, stdout, "load", co.load_ms_total);
        cli_print_timing(&co, stdout, "diff", ms);
    }
    diff_free(&r);
    if (unknown && strict)
        rc = CLI_EXIT_USAGE;
    else if (failed)
        rc = CLI_EXIT_FINDINGS;
out:
    free(cr_a);
    free(cr_b);
    lr_close(ha);
    lr_close(hb);
    return rc;
}
