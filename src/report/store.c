/* SPDX-License-Identifier: Apache-2.0 */
/* store.c: the leak store's verbs as text and JSON (report layer), prefix rep_store_; see
 * store.h. Tables cut signatures at SIG_SHORT digits (`store show` takes any unique prefix)
 * and descriptions at DESC_MAX bytes; sizes are LeakCanary's SI units, times UTC to the
 * minute in tables and to the second (ISO 8601) in JSON. */
#include "report/store.h"

#include "report/fmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIG_SHORT 12  /* signature digits shown in tables */
#define DESC_MAX 200  /* bytes of a description shown in a table row */

/* ---- times ---- */

static const char *utc(char *buf, int64_t ms, const char *fmt)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, REP_FMT_MAX, fmt, &tm);
    return buf;
}

const char *rep_store_time(char *buf, int64_t ms)
{
    return utc(buf, ms, "%Y-%m-%d %H:%M");
}

const char *rep_store_time_iso(char *buf, int64_t ms)
{
    return utc(buf, ms, "%Y-%m-%dT%H:%M:%SZ");
}

/* ---- ingest ---- */

void rep_store_ingest_text(FILE *out, const char *path, const store_ingest_result *r,
                           const char *error)
{
    char h[REP_FMT_MAX];
    if (r->failed)
        fprintf(out, "failed: %s (recorded as report #%" PRId64 ")\n", error, r->report_id);
    else if (error)
        return;
    else if (r->duplicate)
        fprintf(out, "already stored: %s (report #%" PRId64 ")\n", path, r->report_id);
    else
        fprintf(out, "stored %s: report #%" PRId64 ", %s leak%s (%s new), %s retained\n", path,
                r->report_id, REP_FMT_COUNT(r->n_leaks), r->n_leaks == 1 ? "" : "s",
                REP_FMT_COUNT(r->n_new), rep_fmt_human(h, (uint64_t)r->retained));
}

void rep_store_ingested_begin(jsonw *w)
{
    jsonw_kv_arr_begin(w, "ingested");
}

void rep_store_ingested_end(jsonw *w)
{
    jsonw_arr_end(w);
}

void rep_store_ingest_json(jsonw *w, const char *path, const store_ingest_result *r,
                           const char *error)
{
    jsonw_obj_begin(w);
    jsonw_kv_str(w, "input", path);
    jsonw_kv_str(w, "status", error && !r->failed ? "refused"
                              : r->failed         ? "failed"
                              : r->duplicate      ? "duplicate"
                                                  : "stored");
    if (r->report_id)
        jsonw_kv_int(w, "report", r->report_id);
    else
        jsonw_kv_null(w, "report");
    jsonw_kv_str(w, "kind", r->kind[0] ? r->kind : NULL);
    jsonw_kv_int(w, "leaks", r->n_leaks);
    jsonw_kv_int(w, "new_leaks", r->n_new);
    jsonw_kv_int(w, "retained_bytes", r->retained);
    jsonw_kv_str(w, "error", error);
    jsonw_obj_end(w);
}

/* ---- leaks ---- */

void rep_store_leak_json(jsonw *w, const store_leak *l)
{
    char t[REP_FMT_MAX];
    jsonw_kv_str(w, "signature", l->signature);
    jsonw_kv_str(w, "kind", l->kind);
    jsonw_kv_str(w, "short_description", l->description);
    jsonw_kv_str(w, "first_seen", rep_store_time_iso(t, l->first_ms));
    jsonw_kv_str(w, "last_seen", rep_store_time_iso(t, l->last_ms));
    jsonw_kv_int(w, "occurrences", l->occurrences);
    jsonw_kv_int(w, "dumps", l->dumps);
    jsonw_kv_int(w, "instances", l->instances);
    jsonw_kv_int(w, "apps", l->apps);
    jsonw_kv_int(w, "versions", l->versions);
    jsonw_kv_int(w, "retained_median", l->retained_median);
    jsonw_kv_int(w, "retained_max", l->retained_max);
}

void rep_store_leaks_text(FILE *out, const store_leak *v, size_t n)
{
    fprintf(out, "%s distinct leak%s\n", REP_FMT_COUNT(n), n == 1 ? "" : "s");
    if (n)
        fprintf(out, "%-12s  %-11s  %11s  %5s  %9s  %-16s  %-16s  %8s  %10s  %10s  %s\n",
                "signature", "kind", "occurrences", "dumps", "instances", "first seen",
                "last seen", "versions", "median", "max", "description");
    for (size_t i = 0; i < n; i++) {
        char a[REP_FMT_MAX], b[REP_FMT_MAX], c[REP_FMT_MAX], d[REP_FMT_MAX];
        char e[REP_FMT_MAX], g[REP_FMT_MAX], h[REP_FMT_MAX];
        fprintf(out, "%-12.*s  %-11s  %11s  %5s  %9s  %-16s  %-16s  %8s  %10s  %10s  ",
                SIG_SHORT, v[i].signature, v[i].kind,
                rep_fmt_count(a, (uint64_t)v[i].occurrences),
                rep_fmt_count(b, (uint64_t)v[i].dumps),
                rep_fmt_count(c, (uint64_t)v[i].instances), rep_store_time(d, v[i].first_ms),
                rep_store_time(e, v[i].last_ms), REP_FMT_COUNT(v[i].versions),
                rep_fmt_human(g, (uint64_t)v[i].retained_median),
                rep_fmt_human(h, (uint64_t)v[i].retained_max));
        rep_fmt_text(out, v[i].description, strlen(v[i].description), DESC_MAX);
        fputc('\n', out);
    }
}

void rep_store_leaks_json(jsonw *w, const store_leak *v, size_t n)
{
    jsonw_kv_arr_begin(w, "leaks");
    for (size_t i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        rep_store_leak_json(w, &v[i]);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

/* ---- show ---- */

/* Writes s escaped for a terminal (rep_fmt_text: a stored name came from a dump), then spaces
 * up to pad columns; returns the columns written before the padding. Columns are code
 * points: the underline below a reference must line up under names that are not ASCII. */
static size_t put_text(FILE *out, const char *s, size_t pad)
{
    size_t ascii = 0; /* printable ASCII, the common case, goes out as it is */
    while (s[ascii] >= 0x20 && s[ascii] < 0x7f)
        ascii++;
    if (!s[ascii]) {
        fputs(s, out);
        for (size_t k = ascii; k < pad; k++)
            fputc(' ', out);
        return ascii;
    }
    char *b = NULL;
    size_t n = 0, cols = 0;
    FILE *m = open_memstream(&b, &n);
    if (m) {
        rep_fmt_text(m, s, strlen(s), strlen(s));
        if (fclose(m) != 0) {
            free(b);
            b = NULL;
        }
    }
    if (!b) { /* no memory for the copy: the same bytes, counted as bytes */
        rep_fmt_text(out, s, strlen(s), strlen(s));
        cols = strlen(s);
    } else {
        fwrite(b, 1, n, out);
        for (size_t i = 0; i < n; i++)
            cols += ((unsigned char)b[i] & 0xc0) != 0x80;
        free(b);
    }
    for (size_t k = cols; k < pad; k++)
        fputc(' ', out);
    return cols;
}

void rep_store_trace_text(FILE *out, const store_trace *t)
{
    fputs("┬───\n│ GC Root: ", out);
    put_text(out, t->root, 0);
    fputs("\n│\n", out);
    for (size_t i = 0; i < t->n; i++) {
        const store_trace_elem *e = &t->v[i];
        int last = i + 1 == t->n;
        const char *bar = last ? " " : "│";
        char h[REP_FMT_MAX];
        if (t->elided && i == t->elided_at && i > 0)
            fprintf(out, "│\n│    … %s more reference%s …\n│\n", REP_FMT_COUNT(t->elided),
                    t->elided == 1 ? "" : "s");
        fprintf(out, "%s ", last ? "╰→" : "├─");
        put_text(out, e->cls, 0);
        fputc(' ', out);
        put_text(out, strcmp(e->type, "class") == 0 ? "class" : e->type, 0);
        fputc('\n', out);
        /* a suspect's path has no Leaking status: its objects' sizes, as analyze prints it */
        if (!e->leaking[0]) {
            if (e->retained >= 0)
                fprintf(out, "%s    Retaining %s\n", bar, rep_fmt_human(h, (uint64_t)e->retained));
        } else {
            fprintf(out, "%s    Leaking: ", bar);
            put_text(out, e->leaking, 0);
        }
        /* as analyze prints a trace (report/text.c): no reason for UNKNOWN, no size for NO,
         * a '.' only before a field */
        if (e->leaking[0] && e->reason[0] && strcmp(e->leaking, "UNKNOWN") != 0) {
            fputs(" (", out);
            put_text(out, e->reason, 0);
            fputc(')', out);
        }
        if (e->leaking[0])
            fputc('\n', out);
        if (e->leaking[0] && e->retained >= 0 && e->objects >= 0 &&
            strcmp(e->leaking, "NO") != 0)
            fprintf(out, "%s    Retaining %s in %s objects\n", bar,
                    rep_fmt_human(h, (uint64_t)e->retained), REP_FMT_COUNT(e->objects));
        if (last)
            break;
        int is_static = strcmp(e->ref_type, "static_field") == 0;
        int is_field = is_static || strcmp(e->ref_type, "instance_field") == 0;
        /* the display starts after "│    ↓ " (7 columns), "static ", the owner and "." */
        size_t col = 7 + (is_static ? 7 : 0);
        fprintf(out, "%s    ↓ %s", bar, is_static ? "static " : "");
        col += put_text(out, e->ref_owner, 0);
        if (is_field) {
            fputc('.', out);
            col++;
        }
        size_t width = put_text(out, e->ref_display, 0);
        fputc('\n', out);
        if (e->suspect) {
            fputs(bar, out);
            for (size_t k = 1; k < col; k++)
                fputc(' ', out);
            for (size_t k = 0; k < width; k++)
                fputc('~', out);
            fputc('\n', out);
        }
    }
}

void rep_store_show_text(FILE *out, const store_detail *d, const store_trace *t)
{
    char a[REP_FMT_MAX], b[REP_FMT_MAX];
    const store_leak *l = &d->leak;
    fputs("Leak ", out);
    put_text(out, l->signature, 0);
    fprintf(out, " (%s)\n  ", l->kind);
    put_text(out, l->description, 0);
    fputc('\n', out);
    if (d->pattern && strcmp(l->kind, "native") == 0) {
        /* a native group keeps LeakSanitizer's kind of its blocks there */
        fputs("  blocks: ", out);
        put_text(out, d->pattern, 0);
        fputc('\n', out);
    } else if (d->pattern) {
        fputs("  library leak pattern: ", out);
        put_text(out, d->pattern, 0);
        fputc('\n', out);
        if (d->explanation && d->explanation[0]) {
            fputs("  ", out);
            put_text(out, d->explanation, 0);
            fputc('\n', out);
        }
    }
    fprintf(out,
            "  seen in %s report%s (%s distinct dump%s), %s leaking object%s, from %s to %s\n",
            REP_FMT_COUNT(l->occurrences), l->occurrences == 1 ? "" : "s",
            REP_FMT_COUNT(l->dumps), l->dumps == 1 ? "" : "s", REP_FMT_COUNT(l->instances),
            l->instances == 1 ? "" : "s", rep_store_time(a, l->first_ms),
            rep_store_time(b, l->last_ms));
    if (t->n && t->backtrace) {
        fputs("\nNewest backtrace (allocated from):\n", out);
        for (size_t i = 0; i < t->n; i++) {
            fprintf(out, "    #%zu ", i);
            put_text(out, t->v[i].cls, 0);
            fputc('\n', out);
        }
    } else if (t->n) {
        fputs(strcmp(l->kind, "suspect") == 0 ? "\nNewest path from a GC root:\n"
                                               : "\nNewest trace:\n", out);
        rep_store_trace_text(out, t);
    }
    fprintf(out, "\n%-8s  %-16s  %-12s  %-10s  %-12s  %9s  %12s  %s\n", "report", "taken", "app",
            "version", "device", "instances", "retained", "source");
    for (size_t i = 0; i < d->n_seen; i++) {
        const store_seen *x = &d->seen[i];
        char c[REP_FMT_MAX];
        fprintf(out, "#%-7" PRId64 "  %-16s  ", x->report_id, rep_store_time(a, x->at_ms));
        put_text(out, x->app, 12);
        fputs("  ", out);
        put_text(out, x->version, 10);
        fputs("  ", out);
        put_text(out, x->device, 12);
        fprintf(out, "  %9s  %12s  ", REP_FMT_COUNT(x->instances),
                rep_fmt_human(c, (uint64_t)x->retained));
        put_text(out, x->source, 0);
        fputc('\n', out);
    }
}

void rep_store_seen_json(jsonw *w, const char *key, const store_detail *d)
{
    char a[REP_FMT_MAX];
    jsonw_kv_arr_begin(w, key);
    for (size_t i = 0; i < d->n_seen; i++) {
        const store_seen *x = &d->seen[i];
        jsonw_obj_begin(w);
        jsonw_kv_int(w, "report", x->report_id);
        jsonw_kv_str(w, "at", rep_store_time_iso(a, x->at_ms));
        jsonw_kv_str(w, "app", x->app);
        jsonw_kv_str(w, "version", x->version);
        jsonw_kv_str(w, "device", x->device);
        jsonw_kv_str(w, "source", x->source);
        jsonw_kv_int(w, "instances", x->instances);
        jsonw_kv_int(w, "retained_bytes", x->retained);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void rep_store_show_json(jsonw *w, const store_detail *d)
{
    jsonw_kv_obj_begin(w, "leak");
    rep_store_leak_json(w, &d->leak);
    jsonw_kv_str(w, "pattern", d->pattern);
    jsonw_kv_str(w, "description", d->explanation);
    jsonw_obj_end(w);
    rep_store_seen_json(w, "occurrences", d);
    /* The trace exactly as the newest report stored it. */
    jsonw_kv_str(w, "trace_json", d->trace_json);
}

/* ---- trend ---- */

void rep_store_trend_text(FILE *out, const store_bucket *v, size_t n, store_trend_by by)
{
    fprintf(out, "%-12s  %7s  %6s  %5s  %5s  %9s  %5s  %12s\n",
            by == STORE_BY_DAY ? "day" : "version", "reports", "failed", "leaks", "new",
            "recurring", "fixed", "retained");
    for (size_t i = 0; i < n; i++) {
        char h[REP_FMT_MAX];
        put_text(out, v[i].label, 12);
        fprintf(out,
                "  %7s  %6s  %5s  %5s  %9s  %5s  %12s\n", REP_FMT_COUNT(v[i].reports),
                REP_FMT_COUNT(v[i].failed), REP_FMT_COUNT(v[i].leaks),
                REP_FMT_COUNT(v[i].new_leaks), REP_FMT_COUNT(v[i].recurring),
                REP_FMT_COUNT(v[i].fixed), rep_fmt_human(h, (uint64_t)v[i].retained));
    }
}

void rep_store_buckets_json(jsonw *w, const char *key, const char *label_key,
                            const store_bucket *v, size_t n)
{
    jsonw_kv_arr_begin(w, key);
    for (size_t i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, label_key, v[i].label);
        jsonw_kv_int(w, "reports", v[i].reports);
        jsonw_kv_int(w, "failed", v[i].failed);
        jsonw_kv_int(w, "leaks", v[i].leaks);
        jsonw_kv_int(w, "new", v[i].new_leaks);
        jsonw_kv_int(w, "recurring", v[i].recurring);
        jsonw_kv_int(w, "fixed", v[i].fixed);
        jsonw_kv_int(w, "retained_bytes", v[i].retained);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void rep_store_trend_json(jsonw *w, const store_bucket *v, size_t n, store_trend_by by,
                          const char *by_name)
{
    jsonw_kv_str(w, "by", by_name);
    rep_store_buckets_json(w, "buckets", by == STORE_BY_DAY ? "day" : "version", v, n);
}

/* ---- diff ---- */

static const char *const CHANGE[] = {[STORE_NEW] = "new", [STORE_FIXED] = "fixed",
                                     [STORE_GROWN] = "grown", [STORE_SHRUNK] = "shrunk",
                                     [STORE_SAME] = "same"};

const char *rep_store_change(store_change c)
{
    return CHANGE[c];
}

static void count_changes(const store_delta *v, size_t n, int64_t count[STORE_SAME + 1])
{
    memset(count, 0, (STORE_SAME + 1) * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[v[i].change]++;
}

void rep_store_diff_json(jsonw *w, const char *from, const char *to, const store_delta *v,
                         size_t n)
{
    int64_t count[STORE_SAME + 1];
    count_changes(v, n, count);
    jsonw_kv_str(w, "from", from);
    jsonw_kv_str(w, "to", to);
    jsonw_kv_obj_begin(w, "counts");
    for (int c = 0; c <= STORE_SAME; c++)
        jsonw_kv_int(w, CHANGE[c], count[c]);
    jsonw_obj_end(w);
    jsonw_kv_arr_begin(w, "leaks");
    for (size_t i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "signature", v[i].signature);
        jsonw_kv_str(w, "kind", v[i].kind);
        jsonw_kv_str(w, "short_description", v[i].description);
        jsonw_kv_str(w, "change", CHANGE[v[i].change]);
        jsonw_kv_int(w, "from_reports", v[i].from_reports);
        jsonw_kv_int(w, "to_reports", v[i].to_reports);
        jsonw_kv_int(w, "from_retained_median", v[i].from_median);
        jsonw_kv_int(w, "to_retained_median", v[i].to_median);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void rep_store_diff_text(FILE *out, const char *from, const char *to, const store_delta *v,
                         size_t n)
{
    int64_t count[STORE_SAME + 1];
    count_changes(v, n, count);
    fprintf(out,
            "Leaks from version %s to %s: %s new, %s fixed, %s grown, %s shrunk, %s unchanged\n",
            from, to, REP_FMT_COUNT(count[STORE_NEW]), REP_FMT_COUNT(count[STORE_FIXED]),
            REP_FMT_COUNT(count[STORE_GROWN]), REP_FMT_COUNT(count[STORE_SHRUNK]),
            REP_FMT_COUNT(count[STORE_SAME]));
    for (size_t i = 0; i < n; i++) {
        char a[REP_FMT_MAX], b[REP_FMT_MAX];
        fprintf(out, "  %-7s %-12.*s  %-11s  %10s -> %-10s  ", CHANGE[v[i].change], SIG_SHORT,
                v[i].signature, v[i].kind,
                v[i].from_reports ? rep_fmt_human(a, (uint64_t)v[i].from_median) : "-",
                v[i].to_reports ? rep_fmt_human(b, (uint64_t)v[i].to_median) : "-");
        rep_fmt_text(out, v[i].description, strlen(v[i].description), DESC_MAX);
        fputc('\n', out);
    }
}

/* ---- prune ---- */

void rep_store_prune_text(FILE *out, int64_t reports, int64_t leaks)
{
    fprintf(out, "removed %s report%s and %s leak%s\n", REP_FMT_COUNT(reports),
            reports == 1 ? "" : "s", REP_FMT_COUNT(leaks), leaks == 1 ? "" : "s");
}

void rep_store_prune_json(jsonw *w, int64_t reports, int64_t leaks)
{
    jsonw_kv_int(w, "removed_reports", reports);
    jsonw_kv_int(w, "removed_leaks", leaks);
}

/* ---- export ---- */

/* Columns written as JSON numbers; the rest are strings (or null). */
static int numeric_col(const char *c)
{
    static const char *const nums[] = {"id", "at", "ingested_at", "leak_count",
                                       "retained_bytes", "report_id", "instances",
                                       "retained_objects", "occurrences", "dumps", "apps",
                                       "versions", "first_at", "last_at", "retained_max",
                                       NULL};
    for (int i = 0; nums[i]; i++)
        if (strcmp(c, nums[i]) == 0)
            return 1;
    return 0;
}

void rep_store_export_begin(jsonw *w, int schema_version, int store_schema_version)
{
    jsonw_obj_begin(w);
    jsonw_kv_int(w, "schema_version", schema_version);
    jsonw_kv_int(w, "store_schema_version", store_schema_version);
}

void rep_store_export_table(rep_store_export *x, jsonw *w, const char *table,
                            const char *const *cols)
{
    x->w = w;
    x->cols = cols;
    jsonw_kv_arr_begin(w, strcmp(table, "report") == 0  ? "reports"
                          : strcmp(table, "leak") == 0 ? "leaks"
                                                       : "occurrences");
}

int rep_store_export_row(void *ctx, int n, const char *const *vals)
{
    rep_store_export *x = ctx;
    jsonw_obj_begin(x->w);
    for (int i = 0; i < n && x->cols[i]; i++) {
        if (!vals[i])
            jsonw_kv_null(x->w, x->cols[i]);
        else if (numeric_col(x->cols[i]))
            jsonw_kv_int(x->w, x->cols[i], strtoll(vals[i], NULL, 10));
        else
            jsonw_kv_str(x->w, x->cols[i], vals[i]);
    }
    jsonw_obj_end(x->w);
    return 0;
}

void rep_store_export_table_end(rep_store_export *x)
{
    jsonw_arr_end(x->w);
}

void rep_store_export_end(jsonw *w)
{
    jsonw_obj_end(w);
}
