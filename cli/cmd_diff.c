/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_diff.c: `leakray diff A B` (cli), prefix diff_cmd_. Chrome DevTools' Comparison view
 * from the command line: per class key, # New, # Deleted, # Delta, Alloc. size, Freed size and
 * Size delta of B against the base A, objects matched by node id (V8, Node, ArkTS). HPROF ids
 * are addresses the GC reuses, so HPROF pairs compare counts and shallow bytes per class
 * unless --match-ids asks for id matching. Rows are ordered by |size delta|, then |count
 * delta|, then class key (src/analysis/diff.c), so output is deterministic. */
#include "analysis/diff.h"
#include "cli.h"
#include "format/v8.h"

#include <inttypes.h>
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

static void diff_cmd_json_row(jsonw *w, const diff_row *x, int by_id)
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
    jsonw_obj_end(w);
}

int cmd_diff(int argc, char **argv)
{
    uint64_t top = 0;
    int match_ids = 0, by_class = 0, detached = 0;
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
        "Example: leakray diff before.heapsnapshot after.heapsnapshot"};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    if (match_ids && by_class)
        return cli_usage_error(&co, "--match-ids and --by-class exclude each other");
    lr_heap *ha = NULL, *hb = NULL;
    if ((rc = cli_open(&co, co.pos[0], 0, &ha)) != 0)
        return rc;
    if ((rc = cli_open(&co, co.pos[1], 0, &hb)) != 0) {
        lr_close(ha);
        return rc;
    }
    const graph *a = lr_heap_graph(ha), *b = lr_heap_graph(hb);
    int hprof =
        strcmp(lr_heap_format(ha), "hprof") == 0 || strcmp(lr_heap_format(hb), "hprof") == 0;
    int by_id = by_class ? 0 : hprof ? match_ids : 1;
    lr_error err = {.offset = LR_NO_OFFSET};
    diff_result r;
    double t0 = cli_now_ms();
    /* DevTools names the base's plain objects with the compared snapshot's interfaces. */
    if (by_id && v8_class_keys(a) && v8_class_keys(b) &&
        v8_apply_interfaces(lr_heap_graph(ha), b, &err) != LR_OK) {
        rc = cli_error(&co, &err);
        goto out;
    }
    if (diff_build(a, b, v8_class_keys(a), v8_class_keys(b), by_id, &r, &err) != LR_OK) {
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
            r.rows[k++] = *x;
        }
        r.n = k;
        r.total = t;
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
            diff_cmd_json_row(&w, &r.rows[i], by_id);
        jsonw_arr_end(&w);
        jsonw_key(&w, "total");
        diff_cmd_json_row(&w, &r.total, by_id);
        cli_json_end(&co, &w);
    } else {
        char s1[CLI_FMT_MAX], s2[CLI_FMT_MAX], s3[CLI_FMT_MAX], s4[CLI_FMT_MAX],
            s5[CLI_FMT_MAX], s6[CLI_FMT_MAX];
        printf("base %s -> %s, matched by %s, %u classes changed\n", co.pos[0], co.pos[1],
               by_id ? "node id" : "class (counts and shallow bytes)", r.n);
        if (by_id)
            printf("%10s %10s %10s %14s %14s %14s  %s\n", "# New", "# Deleted", "# Delta",
                   "Alloc. size", "Freed size", "Size delta", "Constructor");
        else
            printf("%10s %10s %10s %14s %14s %14s  %s\n", "# A", "# B", "# Delta", "Size A",
                   "Size B", "Size delta", "Class");
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
            cli_put_text(stdout, x->name, strlen(x->name), 120);
            fputc('\n', stdout);
        }
        cli_print_timing(&co, stdout, "load", co.load_ms_total);
        cli_print_timing(&co, stdout, "diff", ms);
    }
    diff_free(&r);
out:
    lr_close(ha);
    lr_close(hb);
    return rc;
}
