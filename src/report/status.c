/* SPDX-License-Identifier: Apache-2.0 */
/* status.c: result lines of convert, strip, attach and the agent's watch helpers (report
 * layer), prefix rep_status_. Pure functions of the structures in status.h: counts with
 * thousands separators and sizes as every verb prints them (fmt.h), one fact per line, and
 * the same facts as JSON members. Paths are printed as the user gave them. */
#include "report/status.h"

#include "report/fmt.h"

#include <stdlib.h>
#include <string.h>

/* ---- convert ---- */

void rep_status_convert_text(FILE *out, const rep_convert *c)
{
    char a[REP_FMT_MAX], b[REP_FMT_MAX], d[REP_FMT_MAX], e[REP_FMT_MAX];
    fprintf(out, "%s -> %s (%s)\n", c->input, c->output, rep_fmt_bytes(a, c->out_bytes));
    if (c->jsonl) {
        fprintf(out, "objects: %s, classes: %s, references: %s, roots: %s\n",
                rep_fmt_count(a, c->nodes), rep_fmt_count(b, c->classes),
                rep_fmt_count(d, c->edges), rep_fmt_count(e, c->roots));
        return;
    }
    fprintf(out, "objects: %s written of %s (%s not strongly reachable, omitted), %s synthetic\n",
            rep_fmt_count(a, c->nodes - c->synthetic), rep_fmt_count(b, c->in_nodes),
            rep_fmt_count(d, c->dropped_nodes), rep_fmt_count(e, c->synthetic));
    fprintf(out, "edges: %s written (%s weak), %s to omitted objects dropped\n",
            rep_fmt_count(a, c->edges), rep_fmt_count(b, c->weak_edges),
            rep_fmt_count(d, c->dropped_edges));
    fprintf(out, "self bytes: %s; strings: %s; ids: %s\n", rep_fmt_bytes(a, c->self_bytes),
            rep_fmt_count(b, c->strings),
            c->kept_ids ? "the dump's" : "renumbered (the dump's do not fit 32 bits)");
}

void rep_status_convert_json(jsonw *w, const rep_convert *c)
{
    jsonw_kv_str(w, "output", c->output);
    if (c->jsonl) {
        jsonw_kv_str(w, "format", "jsonl");
        jsonw_kv_uint(w, "nodes", c->nodes);
        jsonw_kv_uint(w, "classes", c->classes);
        jsonw_kv_uint(w, "edges", c->edges);
        jsonw_kv_uint(w, "roots", c->roots);
        jsonw_kv_uint(w, "out_bytes", c->out_bytes);
        return;
    }
    jsonw_kv_uint(w, "nodes", c->nodes);
    jsonw_kv_uint(w, "synthetic_nodes", c->synthetic);
    jsonw_kv_uint(w, "edges", c->edges);
    jsonw_kv_uint(w, "weak_edges", c->weak_edges);
    jsonw_kv_uint(w, "dropped_objects", c->dropped_nodes);
    jsonw_kv_uint(w, "dropped_edges", c->dropped_edges);
    jsonw_kv_uint(w, "strings", c->strings);
    jsonw_kv_uint(w, "self_bytes", c->self_bytes);
    jsonw_kv_uint(w, "out_bytes", c->out_bytes);
    jsonw_kv_str(w, "ids", c->kept_ids ? "dump" : "ordinal");
}

/* ---- strip ---- */

void rep_status_strip_text(FILE *out, const rep_strip *s)
{
    char a[REP_FMT_MAX], b[REP_FMT_MAX], c[REP_FMT_MAX];
    fprintf(out, "%s: %s -> %s\n", s->mode, s->input, s->output);
    fprintf(out, "bytes: %s -> %s", rep_fmt_bytes(a, s->in_bytes),
            rep_fmt_bytes(b, s->out_bytes));
    if (s->in_bytes)
        fprintf(out, " (%.1f%%)", 100.0 * (double)s->out_bytes / (double)s->in_bytes);
    fputc('\n', out);
    if (s->shrink) {
        fprintf(out, "primitive arrays: %s kept (%s String values), %s dropped\n",
                rep_fmt_count(a, s->arrays_kept), rep_fmt_count(b, s->string_arrays),
                rep_fmt_count(c, s->arrays_dropped));
        fprintf(out, "bitmaps: %s with buffers, %s duplicate groups, %s redirected to a kept "
                "copy\n", rep_fmt_count(a, s->bitmaps), rep_fmt_count(b, s->bitmap_groups),
                rep_fmt_count(c, s->bitmaps_redirected));
    } else {
        fprintf(out, "primitive arrays zeroed: %s of %s; boxed values zeroed: %s\n",
                rep_fmt_count(a, s->arrays_zeroed), rep_fmt_count(b, s->arrays),
                rep_fmt_count(c, s->boxed_zeroed));
    }
}

void rep_status_strip_json(jsonw *w, const rep_strip *s)
{
    jsonw_kv_str(w, "mode", s->mode);
    jsonw_kv_str(w, "output", s->output);
    jsonw_kv_uint(w, "in_bytes", s->in_bytes);
    jsonw_kv_uint(w, "out_bytes", s->out_bytes);
    jsonw_kv_uint(w, "primitive_arrays", s->arrays);
    if (s->shrink) {
        jsonw_kv_uint(w, "arrays_kept", s->arrays_kept);
        jsonw_kv_uint(w, "arrays_dropped", s->arrays_dropped);
        jsonw_kv_uint(w, "string_arrays", s->string_arrays);
        jsonw_kv_uint(w, "bitmaps", s->bitmaps);
        jsonw_kv_uint(w, "bitmap_groups", s->bitmap_groups);
        jsonw_kv_uint(w, "bitmaps_redirected", s->bitmaps_redirected);
    } else {
        jsonw_kv_uint(w, "arrays_zeroed", s->arrays_zeroed);
        jsonw_kv_uint(w, "boxed_zeroed", s->boxed_zeroed);
    }
}

/* ---- attach and the agent's helpers ---- */

void rep_status_attach_text(FILE *out, const rep_attach *a)
{
    fprintf(out, "leakray: agent loaded into %s; `leakray watch status %s` shows its state\n",
            a->pid, a->pid);
}

void rep_status_attach_json(jsonw *w, const rep_attach *a)
{
    jsonw_kv_uint(w, "pid", strtoull(a->pid, NULL, 10)); /* a number, as watch status's */
    jsonw_kv_str(w, "agent", a->agent);
    jsonw_kv_str(w, "options", a->options);
    jsonw_kv_str(w, "status_file", a->status_file);
}

void rep_status_pair_text(FILE *out, const char *key, const char *value)
{
    /* the file lies in /tmp, where another user may have put it: escaped as a dump's names */
    char k[96];
    fprintf(out, "%-20s ", rep_fmt_term(k, sizeof k, key));
    rep_fmt_name(out, value);
    fputc('\n', out);
}

void rep_status_pair_json(jsonw *w, const char *key, const char *value)
{
    /* below 19 digits a count always fits 64 bits */
    size_t n = strspn(value, "0123456789");
    if (n > 0 && !value[n] && n < 19)
        jsonw_kv_uint(w, key, strtoull(value, NULL, 10));
    else
        jsonw_kv_str(w, key, value);
}

void rep_status_watch_text(FILE *out, const rep_watch_report *r)
{
    char hb[REP_FMT_MAX], db[REP_FMT_MAX];
    uint64_t leaks = r->application_leaks + r->library_leaks;
    fprintf(out, "leakray: %s leak%s, %s retained, report at %s (dump %s, pause %s ms",
            REP_FMT_COUNT(leaks), leaks == 1 ? "" : "s", rep_fmt_human(hb, r->retained_bytes),
            r->report_text, rep_fmt_human(db, r->dump_bytes), REP_FMT_COUNT(r->pause_ms));
    if (r->held_ignored) /* "0 leaks" alone read as if the retained objects were garbage */
        fprintf(out, ", %s held only through ignored references", REP_FMT_COUNT(r->held_ignored));
    if (!r->no_timing)
        fprintf(out, ", analysis %.1f s", r->analysis_ms / 1000.0);
    fputs(")\n", out);
}

void rep_status_stored_text(FILE *out, const rep_stored *s)
{
    if (!s->scan)
        fprintf(out, "leakray: report stored in %s (report #%lld, %s new leaks)\n", s->url,
                s->report_id, REP_FMT_COUNT(s->n_new));
    else if (s->duplicate)
        fprintf(out, "leakray: %s already stored in %s (report #%lld)\n", s->path, s->url,
                s->report_id);
    else
        fprintf(out, "leakray: scan stored in %s (report #%lld, %s leak group%s, %s new)\n",
                s->url, s->report_id, REP_FMT_COUNT(s->n_leaks), s->n_leaks == 1 ? "" : "s",
                REP_FMT_COUNT(s->n_new));
}

void rep_status_watch_json(jsonw *w, const rep_watch_report *r)
{
    jsonw_kv_str(w, "dump", r->dump);
    jsonw_kv_uint(w, "dump_bytes", r->dump_bytes);
    jsonw_kv_str(w, "report_text", r->report_text);
    jsonw_kv_str(w, "report_json", r->report_json);
    jsonw_kv_uint(w, "retained_objects", r->retained_objects);
    jsonw_kv_uint(w, "leaks", r->application_leaks + r->library_leaks);
    jsonw_kv_uint(w, "application_leaks", r->application_leaks);
    jsonw_kv_uint(w, "library_leaks", r->library_leaks);
    jsonw_kv_uint(w, "retained_bytes", r->retained_bytes);
    jsonw_kv_uint(w, "held_by_ignored_references", r->held_ignored);
    jsonw_kv_uint(w, "pruned_dumps", r->pruned_dumps);
    jsonw_kv_uint(w, "pause_ms", r->pause_ms); /* as passed: input, not a clock reading */
}
