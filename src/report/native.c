/* SPDX-License-Identifier: Apache-2.0 */
/* native.c: a native leak scan as text and JSON (report layer), prefix rep_native_. Pure
 * formatting of a parsed, symbolised nscan_report: frames as "#k 0x<ip> in func+0x<off>
 * file:line (module+0x<rel>)", a group's first bytes in hex and as printable ASCII, totals
 * per kind from nscan_totals. The text follows LeakSanitizer's layout so both read alike;
 * the JSON (docs/json.md "native") is also what the leak store ingests, so its keys are
 * append-only. Timings come from the scan file (the child measured them), not from a clock
 * here, and are left out under no_timing. */
#include "report/native.h"

#include "report/fmt.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- text ---- */

/* A string from the scan file (the executable, a mapped file's name, a capture error) or
 * from the debug information of a file it names: control characters print escaped, so a
 * hostile scan cannot drive the terminal. */
static void put_str(FILE *out, const char *s)
{
    rep_fmt_text(out, s, strlen(s), SIZE_MAX);
}

static void put_frame_text(FILE *out, uint32_t k, const nscan_frame *f)
{
    fprintf(out, "    #%u 0x%llx in ", k, (unsigned long long)f->ip);
    put_str(out, f->func ? f->func : "??");
    if (f->func && !f->inlined) /* an inlined function has no code of its own there */
        fprintf(out, "+0x%llx", (unsigned long long)f->func_off);
    if (f->file) {
        fputc(' ', out);
        put_str(out, f->file);
        fprintf(out, ":%d", f->line);
    }
    if (f->module) {
        fputs(" (", out);
        put_str(out, f->module);
        fprintf(out, "+0x%llx)", (unsigned long long)f->rel);
    }
    fputc('\n', out);
}

static void put_trace_text(FILE *out, const nscan_report *r, uint32_t id)
{
    const nscan_trace *t = nscan_trace_find(r, id);
    if (!t) {
        fputs("    (no backtrace recorded for this block)\n", out);
        return;
    }
    for (uint32_t k = 0; k < t->n_frames; k++)
        put_frame_text(out, k, &t->frames[k]);
}

void rep_native_text(FILE *out, const nscan_report *r, int exit_code, int no_timing)
{
    char a[REP_FMT_MAX], b[REP_FMT_MAX];
    fprintf(out, "leakray native: pid %llu (", (unsigned long long)r->pid);
    put_str(out, r->exe ? r->exe : "?");
    fputs("), scan on ", out);
    put_str(out, r->reason ? r->reason : "?");
    fputc('\n', out);
    if (r->capture_ok) {
        fprintf(out, "threads: %s, all stopped and captured\n", REP_FMT_COUNT(r->threads));
    } else {
        fprintf(out, "threads: %s captured, %s NOT captured (", REP_FMT_COUNT(r->threads),
                REP_FMT_COUNT(r->threads_failed));
        put_str(out, r->capture_error ? r->capture_error : "");
        fputs("): their stacks are read whole; a block only their registers held may be "
              "reported as a leak, one only a dead stack word names is missed\n", out);
    }
    if (r->allocator) {
        fputs("allocator: ", out);
        put_str(out, r->allocator);
        if (!r->allocator_tracked)
            fputs(", NOT TRACKED", out);
        if (r->allocator_note && r->allocator_note[0]) {
            fputs(" (", out);
            put_str(out, r->allocator_note);
            fputc(')', out);
        }
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < r->n_maps; i++) {
        /* each rebuilt file once (its first executable mapping) */
        const nscan_map *m = &r->maps[i];
        int first = m->stale && m->exec;
        for (uint32_t k = 0; k < i && first; k++)
            first = !(r->maps[k].exec && !strcmp(r->maps[k].path, m->path));
        if (!first)
            continue;
        fputs("rebuilt since the scan (another build id): ", out);
        put_str(out, m->path);
        fputs(": its frames show offsets, not names\n", out);
    }
    fprintf(out, "heap: %s live blocks, %s\n", rep_fmt_count(a, r->heap_blocks),
            rep_fmt_bytes(b, r->heap_bytes));
    if (exit_code >= 0)
        fprintf(out, "program exit status: %d\n", exit_code);
    for (uint32_t i = 0; i < r->n_groups; i++) {
        const nscan_group *g = &r->groups[i];
        const nscan_trace *t = nscan_trace_find(r, g->trace);
        fprintf(out, "\n%s leak of %s byte(s) in %s block(s), signature %016llx\n",
                g->kind == NSCAN_DIRECT ? "Direct" : "Indirect", rep_fmt_count(a, g->bytes),
                rep_fmt_count(b, g->count), (unsigned long long)(t ? t->signature : 0));
        fprintf(out, "  one block at 0x%llx:", (unsigned long long)g->addr);
        for (uint32_t k = 0; k < g->n_content; k++)
            fprintf(out, " %02x", g->content[k]);
        fputs(g->n_content ? "  |" : "\n", out);
        for (uint32_t k = 0; k < g->n_content; k++)
            fputc(g->content[k] >= 32 && g->content[k] < 127 ? g->content[k] : '.', out);
        if (g->n_content)
            fputs("|\n", out);
        fputs("  allocated from:\n", out);
        put_trace_text(out, r, g->trace);
    }
    for (uint32_t i = 0; i < r->n_threads_leaked; i++) {
        const nscan_thread *t = &r->threads_leaked[i];
        fprintf(out, "\nThread leak: thread %llu %s (age %s ms), created at:\n",
                (unsigned long long)t->tid,
                t->kind == NSCAN_UNJOINED ? "ended but was never joined nor detached"
                                          : "still running past the age limit",
                REP_FMT_COUNT(t->age_ms));
        put_trace_text(out, r, t->trace);
    }
    uint64_t db, dn, ib, in;
    nscan_totals(r, NSCAN_DIRECT, &dn, &db);
    nscan_totals(r, NSCAN_INDIRECT, &in, &ib);
    fprintf(out, "\nSUMMARY: %s byte(s) leaked in %s block(s): direct %s in %s, "
            "indirect %s in %s; %s thread leak(s)\n", REP_FMT_COUNT(db + ib),
            REP_FMT_COUNT(dn + in), REP_FMT_COUNT(db), REP_FMT_COUNT(dn), REP_FMT_COUNT(ib),
            REP_FMT_COUNT(in), REP_FMT_COUNT(r->n_threads_leaked));
    if (r->allocator && !r->allocator_tracked) {
        fputs("NOT TRACKED: the program's malloc (", out);
        put_str(out, r->allocator);
        fputs(") never reached the monitor: these numbers say nothing about its leaks\n", out);
    }
    rep_fmt_timing(out, no_timing, "pause", (double)r->pause_us / 1000);
    rep_fmt_timing(out, no_timing, "scan (child)", (double)r->scan_us / 1000);
}

/* ---- JSON ---- */

static void hex_str(char *buf, uint64_t v)
{
    snprintf(buf, REP_FMT_MAX, "0x%llx", (unsigned long long)v);
}

static void json_frames(jsonw *w, const nscan_report *r, uint32_t id)
{
    const nscan_trace *t = nscan_trace_find(r, id);
    char buf[REP_FMT_MAX];
    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)(t ? t->signature : 0));
    jsonw_kv_str(w, "signature", t ? buf : NULL);
    jsonw_kv_arr_begin(w, "frames");
    for (uint32_t k = 0; t && k < t->n_frames; k++) {
        const nscan_frame *f = &t->frames[k];
        jsonw_obj_begin(w);
        hex_str(buf, f->ip);
        jsonw_kv_str(w, "ip", buf);
        jsonw_kv_str(w, "module", f->module);
        hex_str(buf, f->rel);
        jsonw_kv_str(w, "offset", buf);
        jsonw_kv_str(w, "function", f->func);
        jsonw_kv_bool(w, "inlined", f->inlined);
        jsonw_kv_str(w, "file", f->file);
        if (f->file)
            jsonw_kv_int(w, "line", f->line);
        else
            jsonw_kv_null(w, "line");
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static void json_totals(jsonw *w, const char *key, const nscan_report *r, int kind)
{
    uint64_t n, bytes;
    nscan_totals(r, kind, &n, &bytes);
    jsonw_kv_obj_begin(w, key);
    jsonw_kv_uint(w, "blocks", n);
    jsonw_kv_uint(w, "bytes", bytes);
    jsonw_obj_end(w);
}

void rep_native_json(jsonw *w, const nscan_report *r, int exit_code, int no_timing)
{
    char buf[REP_FMT_MAX];
    /* files rebuilt since the scan: their frames have no names (text: one line each) */
    if (r->n_stale)
        jsonw_kv_arr_begin(w, "rebuilt_files");
    for (uint32_t i = 0; r->n_stale && i < r->n_maps; i++) {
        const nscan_map *m = &r->maps[i];
        int first = m->stale && m->exec;
        for (uint32_t k = 0; k < i && first; k++)
            first = !(r->maps[k].exec && !strcmp(r->maps[k].path, m->path));
        if (first)
            jsonw_str(w, m->path);
    }
    if (r->n_stale)
        jsonw_arr_end(w);
    json_totals(w, "direct", r, NSCAN_DIRECT);
    json_totals(w, "indirect", r, NSCAN_INDIRECT);
    jsonw_kv_arr_begin(w, "groups");
    for (uint32_t i = 0; i < r->n_groups; i++) {
        const nscan_group *g = &r->groups[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "kind", g->kind == NSCAN_DIRECT ? "direct" : "indirect");
        jsonw_kv_uint(w, "blocks", g->count);
        jsonw_kv_uint(w, "bytes", g->bytes);
        hex_str(buf, g->addr);
        jsonw_kv_str(w, "address", buf);
        char hex[2 * NSCAN_CONTENT_MAX + 1];
        for (uint32_t k = 0; k < g->n_content; k++)
            snprintf(hex + 2 * k, 3, "%02x", g->content[k]);
        hex[2 * g->n_content] = 0;
        jsonw_kv_str(w, "first_bytes", hex);
        json_frames(w, r, g->trace);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_arr_begin(w, "threads");
    for (uint32_t i = 0; i < r->n_threads_leaked; i++) {
        const nscan_thread *t = &r->threads_leaked[i];
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "kind", t->kind == NSCAN_UNJOINED ? "unjoined" : "running");
        jsonw_kv_uint(w, "tid", t->tid);
        jsonw_kv_uint(w, "age_ms", t->age_ms);
        json_frames(w, r, t->trace);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_uint(w, "pid", r->pid);
    jsonw_kv_str(w, "exe", r->exe);
    jsonw_kv_str(w, "reason", r->reason);
    jsonw_kv_obj_begin(w, "capture");
    jsonw_kv_bool(w, "ok", r->capture_ok);
    jsonw_kv_uint(w, "threads", r->threads);
    jsonw_kv_uint(w, "failed", r->threads_failed);
    jsonw_kv_str(w, "error", r->capture_ok ? NULL : r->capture_error);
    jsonw_obj_end(w);
    jsonw_kv_obj_begin(w, "heap");
    jsonw_kv_uint(w, "blocks", r->heap_blocks);
    jsonw_kv_uint(w, "bytes", r->heap_bytes);
    jsonw_obj_end(w);
    if (r->allocator) {
        jsonw_kv_obj_begin(w, "allocator");
        jsonw_kv_str(w, "name", r->allocator);
        jsonw_kv_bool(w, "tracked", r->allocator_tracked);
        jsonw_kv_str(w, "note", r->allocator_note && r->allocator_note[0] ? r->allocator_note
                                                                         : NULL);
        jsonw_obj_end(w);
    }
    jsonw_kv_obj_begin(w, "backtrace");
    jsonw_kv_str(w, "mode", r->backtrace);
    jsonw_kv_uint(w, "depth", r->depth);
    jsonw_kv_uint(w, "sample_bytes", r->sample_bytes);
    jsonw_obj_end(w);
    if (exit_code >= 0)
        jsonw_kv_int(w, "exit_code", exit_code);
    if (!no_timing) {
        jsonw_kv_obj_begin(w, "timing");
        jsonw_key(w, "pause_ms");
        jsonw_double(w, (double)(r->pause_us / 100) / 10);
        jsonw_key(w, "stop_ms");
        jsonw_double(w, (double)(r->stop_us / 100) / 10);
        jsonw_key(w, "fork_ms");
        jsonw_double(w, (double)(r->fork_call_us / 100) / 10);
        jsonw_key(w, "scan_ms");
        jsonw_double(w, (double)(r->scan_us / 100) / 10);
        jsonw_key(w, "scan_cpu_ms");
        jsonw_double(w, (double)(r->scan_cpu_us / 100) / 10);
        jsonw_obj_end(w);
    }
}

/* ---- `native check --signal` ---- */

void rep_native_signal_text(FILE *out, long pid, int signo)
{
    fprintf(out, "sent signal %d to %ld\n", signo, pid);
}

void rep_native_signal_json(jsonw *w, long pid, int signo)
{
    jsonw_kv_uint(w, "pid", (uint64_t)pid);
    jsonw_kv_int(w, "signal", (int64_t)signo);
}
