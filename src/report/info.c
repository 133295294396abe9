/* SPDX-License-Identifier: Apache-2.0 */
/* info.c: what a dump is and holds, as text and JSON (report layer), prefix rep_info_. Format
 * and version, compression, identifier size, timestamp, the shallow-size model, node counts by
 * kind, classes, strings, roots by kind, heaps, edges, threads, the heap dumps of a
 * multi-dump HPROF file, and every nonzero diagnostic with its severity, all read from an
 * info_result (analysis/info.h). */
#include "report/info.h"

#include "analysis/leakfind.h"
#include "report/fmt.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

/* The frames of every thread's stack: threads naming one stack trace share its frames in
 * graph.frames, and each counts them. */
static uint64_t stack_frames(const graph *g)
{
    uint64_t n = 0;
    for (uint32_t t = 0; t < g->n_threads; t++)
        n += g->threads[t].n_frames;
    return g->n_threads ? n : g->n_frames;
}

static const char *size_model_name(unsigned m)
{
    switch (m) {
    case GRAPH_SIZES_VISUALVM: return "VisualVM 2.1.5 (HotSpot)";
    case GRAPH_SIZES_SHARK: return "Shark (Android ART)";
    case GRAPH_SIZES_RECORD: return "as recorded";
    case GRAPH_SIZES_DEVTOOLS: return "DevTools (re-attributed)";
    case GRAPH_SIZES_DEVTOOLS_RAW: return "DevTools (as recorded: no user roots)";
    default: return "unknown";
    }
}

/* "2010-02-26T10:24:42.123Z", or "" when unknown. */
static const char *iso_time(char *buf, size_t cap, uint64_t ms)
{
    buf[0] = '\0';
    if (!ms)
        return buf;
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm))
        return buf;
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%03uZ", date, (unsigned)(ms % 1000));
    return buf;
}

static const char *root_kind_label(unsigned k)
{
    return k < GRAPH_ROOT_KIND_COUNT ? graph_root_kind_name(k) : "other";
}

/* A root category as DevTools names it: the synthetic node's name ("(Stack roots)"); the
 * root's own objects are a JavaScript heap's user roots, its global objects. */
static const char *root_cat_label(const graph *g, node_ix n)
{
    const char *nm = g->node_name ? graph_str(g, g->node_name[n]) : "";
    if (n == g->synthetic_root && rep_fmt_runtime(g) == REP_RT_JS)
        return "(root): user roots (global objects)";
    if (nm && *nm)
        return nm;
    nm = graph_class_name(g, n);
    return nm && *nm ? nm : "(root)";
}

/* The roots of a graph with a synthetic root: the one root entry says nothing, what its
 * categories hold does. */
static void root_cats_text(FILE *out, const info_result *c)
{
    const graph *g = c->g;
    const info_roots *r = &c->root_cats;
    char a[REP_FMT_MAX], b[REP_FMT_MAX], t[512];
    fprintf(out, "roots:         %s objects held directly by the root, in %s categor%s\n",
            rep_fmt_count(a, r->objects), rep_fmt_count(b, r->n_cats),
            r->n_cats == 1 ? "y" : "ies");
    for (uint32_t i = 0; i < r->n_cats && i < INFO_MAX_ROOT_CATS; i++)
        fprintf(out, "  %14s  %s\n", rep_fmt_count(a, r->cats[i].objects),
                rep_fmt_term(t, sizeof t, root_cat_label(g, r->cats[i].node)));
    if (r->n_cats > INFO_MAX_ROOT_CATS)
        fprintf(out, "  %14s  more categories\n", rep_fmt_count(a, r->n_cats - INFO_MAX_ROOT_CATS));
}

void rep_info_text(FILE *out, const info_result *c)
{
    const graph *g = c->g;
    char a[REP_FMT_MAX], b[REP_FMT_MAX], ts[64];
    fprintf(out, "file:          %s\n", c->path);
    fprintf(out, "format:        %s%s", g->format ? g->format : "?", g->version[0] ? ", " : "");
    rep_fmt_name(out, g->version); /* from the file: the Dart isolate's name, a graph header's */
    fprintf(out, "\n");
    if (strcmp(c->compress, "plain") == 0)
        fprintf(out, "compression:   none, %s\n", rep_fmt_bytes(a, c->file_size));
    else
        fprintf(out, "compression:   %s (%s on disk, %s inflated)\n", c->compress,
                rep_fmt_count(a, c->file_size), rep_fmt_bytes(b, g->data_len));
    if (g->id_size)
        fprintf(out, "id size:       %u\n", g->id_size);
    fprintf(out, "timestamp:     %s\n", g->timestamp_ms ? iso_time(ts, sizeof ts, g->timestamp_ms)
                                                  : "unknown");
    fprintf(out, "size model:    %s\n", size_model_name(g->size_model));
    if (g->layout_header)
        fprintf(out, "               with the JVM's layout from the dump: %u-byte object header, "
                     "%u-byte references\n", g->layout_header, g->layout_ref);
    if (g->layout_align)
        fprintf(out, "               objects aligned to %u bytes (-XX:ObjectAlignmentInBytes, "
                     "read from the objects' addresses)\n", g->layout_align);
    fprintf(out, "objects:       %s\n", rep_fmt_count(a, g->n_nodes));
    for (unsigned k = 0; k < GRAPH_KIND_COUNT; k++)
        if (c->kind_count[k])
            fprintf(out, "  %-18s %14s  %s\n", graph_node_kind_name(k),
                    rep_fmt_count(a, c->kind_count[k]), rep_fmt_bytes(b, c->kind_shallow[k]));
    fprintf(out, "classes:       %s\n", rep_fmt_count(a, g->n_classes));
    fprintf(out, "strings:       %s\n", rep_fmt_count(a, c->strings));
    fprintf(out, "shallow total: %s\n", rep_fmt_bytes(a, c->shallow));
    if (g->node_native)
        fprintf(out, "native total:  %s\n", rep_fmt_bytes(a, c->native));
    if (g->node_dom) {
        char d[REP_FMT_MAX];
        fprintf(out, "%s%s attached, %s detached (%s)%s\n",
                leak_is_browser(g) ? "DOM:           " : "detachedness:  ",
                rep_fmt_count(a, c->dom[GRAPH_DOM_ATTACHED]),
                rep_fmt_count(b, c->dom[GRAPH_DOM_DETACHED]),
                rep_fmt_bytes(d, c->detached_shallow),
                /* Node marks its own embedder objects detached: no DOM there */
                leak_is_browser(g) ? "" : ", V8's embedder flag: no page, no DOM");
    }
    fprintf(out, "edges:         %s\n", rep_fmt_count(a, g->n_edges));
    if (c->has_root_cats)
        root_cats_text(out, c);
    else
        fprintf(out, "roots:         %s\n", rep_fmt_count(a, g->n_roots));
    for (unsigned k = 0; !c->has_root_cats && k <= GRAPH_ROOT_KIND_COUNT; k++)
        if (c->root_count[k])
            fprintf(out, "  %14s  %s\n", rep_fmt_count(a, c->root_count[k]),
                    k < GRAPH_ROOT_KIND_COUNT ? graph_root_title(g, k) : "other");
    if (g->n_threads || g->n_frames)
        fprintf(out, "threads:       %s (%s stack frames)\n", rep_fmt_count(a, g->n_threads),
                rep_fmt_count(b, stack_frames(g)));
    if (g->node_heap && g->n_heaps) {
        fprintf(out, "heaps:         %s\n", rep_fmt_count(a, g->n_heaps));
        for (uint32_t h = 0; h < g->n_heaps && h < GRAPH_MAX_HEAPS; h++)
            fprintf(out, "  %-18s %14s  %s\n", graph_str(g, g->heap_names[h]),
                    rep_fmt_count(a, c->heap_count[h]), rep_fmt_bytes(b, c->heap_shallow[h]));
    }
    if (c->n_dumps > 1) {
        int64_t cur = c->loaded;
        fprintf(out, "heap dumps:    %s in the file (--dump N picks one; default: the last)\n",
                rep_fmt_count(a, c->n_dumps));
        for (uint32_t d = 0; d < c->n_dumps && d < INFO_MAX_DUMPS; d++)
            fprintf(out, "  %c %-3u at 0x%-10" PRIx64 " %s, %s records\n",
                    (int64_t)d == cur ? '*' : ' ', d, c->dumps[d].offset,
                    rep_fmt_bytes(a, c->dumps[d].length), rep_fmt_count(b, c->dumps[d].n_records));
    }
    int any = 0;
    for (unsigned d = 0; d < DIAG_COUNT; d++) {
        if (!g->diag.n[d])
            continue;
        if (!any)
            fprintf(out, "diagnostics:\n");
        any = 1;
        fprintf(out, "  %-22s %-9s %10s  %s\n", diag_name(d),
                diag_severity_name(diag_severity_of(d)),
                rep_fmt_count(a, g->diag.n[d]), diag_description(d));
    }
    if (!any)
        fprintf(out, "diagnostics:   none\n");
}

void rep_info_json(jsonw *w, const info_result *c)
{
    const graph *g = c->g;
    char ts[64];
    jsonw_kv_str(w, "file", c->path);
    jsonw_kv_uint(w, "file_size", c->file_size);
    jsonw_kv_str(w, "compression", c->compress);
    jsonw_kv_uint(w, "data_size", g->data_len);
    jsonw_kv_str(w, "format", g->format ? g->format : "");
    jsonw_kv_str(w, "version", g->version);
    jsonw_kv_uint(w, "id_size", g->id_size);
    if (g->timestamp_ms) {
        jsonw_kv_str(w, "timestamp", iso_time(ts, sizeof ts, g->timestamp_ms));
        jsonw_kv_uint(w, "timestamp_ms", g->timestamp_ms);
    } else {
        jsonw_kv_null(w, "timestamp");
        jsonw_kv_null(w, "timestamp_ms");
    }
    jsonw_kv_str(w, "size_model", size_model_name(g->size_model));
    if (g->layout_header || g->layout_align) {
        jsonw_kv_obj_begin(w, "object_layout");
        if (g->layout_header) {
            jsonw_kv_uint(w, "header", g->layout_header);
            jsonw_kv_uint(w, "reference", g->layout_ref);
        }
        if (g->layout_align)
            jsonw_kv_uint(w, "alignment", g->layout_align);
        jsonw_obj_end(w);
    }

    jsonw_kv_obj_begin(w, "objects");
    jsonw_kv_uint(w, "count", g->n_nodes);
    jsonw_kv_arr_begin(w, "by_kind");
    for (unsigned k = 0; k < GRAPH_KIND_COUNT; k++) {
        if (!c->kind_count[k])
            continue;
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "kind", graph_node_kind_name(k));
        jsonw_kv_uint(w, "count", c->kind_count[k]);
        jsonw_kv_uint(w, "shallow", c->kind_shallow[k]);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);

    jsonw_kv_uint(w, "classes", g->n_classes);
    jsonw_kv_uint(w, "strings", c->strings);
    jsonw_kv_uint(w, "shallow_total", c->shallow);
    if (g->node_native)
        jsonw_kv_uint(w, "native_total", c->native);
    else
        jsonw_kv_null(w, "native_total");
    jsonw_kv_uint(w, "edges", g->n_edges);
    if (g->node_dom) {
        jsonw_kv_obj_begin(w, "dom");
        jsonw_kv_uint(w, "attached", c->dom[GRAPH_DOM_ATTACHED]);
        jsonw_kv_uint(w, "detached", c->dom[GRAPH_DOM_DETACHED]);
        jsonw_kv_uint(w, "detached_shallow", c->detached_shallow);
        jsonw_obj_end(w);
    } else {
        jsonw_kv_null(w, "dom");
    }

    jsonw_kv_obj_begin(w, "roots");
    jsonw_kv_uint(w, "count", g->n_roots);
    jsonw_kv_arr_begin(w, "by_kind");
    for (unsigned k = 0; k <= GRAPH_ROOT_KIND_COUNT; k++) {
        if (!c->root_count[k])
            continue;
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "kind", root_kind_label(k));
        jsonw_kv_uint(w, "count", c->root_count[k]);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    if (c->has_root_cats) {
        jsonw_kv_uint(w, "objects", c->root_cats.objects);
        jsonw_kv_arr_begin(w, "categories");
        for (uint32_t i = 0; i < c->root_cats.n_cats && i < INFO_MAX_ROOT_CATS; i++) {
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "name", root_cat_label(g, c->root_cats.cats[i].node));
            jsonw_kv_uint(w, "objects", c->root_cats.cats[i].objects);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
    jsonw_obj_end(w);

    jsonw_kv_uint(w, "threads", g->n_threads);
    jsonw_kv_uint(w, "frames", stack_frames(g));

    jsonw_kv_arr_begin(w, "heaps");
    if (g->node_heap)
        for (uint32_t h = 0; h < g->n_heaps && h < GRAPH_MAX_HEAPS; h++) {
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "name", graph_str(g, g->heap_names[h]));
            jsonw_kv_uint(w, "count", c->heap_count[h]);
            jsonw_kv_uint(w, "shallow", c->heap_shallow[h]);
            jsonw_obj_end(w);
        }
    jsonw_arr_end(w);

    jsonw_kv_arr_begin(w, "dumps");
    int64_t cur = c->loaded;
    for (uint32_t d = 0; d < c->n_dumps && d < INFO_MAX_DUMPS; d++) {
        jsonw_obj_begin(w);
        jsonw_kv_uint(w, "index", d);
        jsonw_kv_uint(w, "offset", c->dumps[d].offset);
        jsonw_kv_uint(w, "length", c->dumps[d].length);
        jsonw_kv_uint(w, "records", c->dumps[d].n_records);
        jsonw_kv_bool(w, "loaded", (int64_t)d == cur);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kv_uint(w, "dump_count", c->n_dumps);

    jsonw_kv_arr_begin(w, "diagnostics");
    for (unsigned d = 0; d < DIAG_COUNT; d++) {
        if (!g->diag.n[d])
            continue;
        jsonw_obj_begin(w);
        jsonw_kv_str(w, "name", diag_name(d));
        jsonw_kv_str(w, "severity", diag_severity_name(diag_severity_of(d)));
        jsonw_kv_uint(w, "count", g->diag.n[d]);
        jsonw_kv_str(w, "description", diag_description(d));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

