/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_info.c: `leakray info FILE` (cli), prefix info_. What a dump is and what it holds:
 * format and version, compression, identifier size, timestamp, the shallow-size model, node
 * counts by kind, classes, strings, roots by kind, heaps, edges, threads, the heap dumps of a
 * multi-dump HPROF file, and every nonzero diagnostic with its severity. All counts come from
 * one pass over the loaded graph; nothing here interprets the format beyond naming it. */
#include "cli.h"
#include "format/hprof.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define INFO_MAX_DUMPS 64 /* dumps listed individually; the total is always reported */

typedef struct info_counts {
    uint64_t kind_count[GRAPH_KIND_COUNT];   /* nodes per kind */
    uint64_t kind_shallow[GRAPH_KIND_COUNT]; /* shallow bytes per kind */
    uint64_t root_count[GRAPH_ROOT_KIND_COUNT + 1]; /* last slot: out-of-range kinds */
    uint64_t heap_count[GRAPH_MAX_HEAPS];
    uint64_t heap_shallow[GRAPH_MAX_HEAPS];
    uint64_t shallow;  /* total shallow bytes */
    uint64_t native;   /* total native bytes (node_native) */
    uint64_t strings;  /* java.lang.String instances + string nodes */
    uint64_t dom[3];   /* nodes per DOM link state (enum graph_dom_state) */
    uint64_t detached_shallow; /* shallow bytes of the detached DOM nodes */
} info_counts;

typedef struct info_file {
    uint64_t size;        /* bytes on disk, 0 if stat failed */
    const char *compress; /* "plain", "gzip", "bzip2" from the magic bytes */
} info_file;

static const char *size_model_name(unsigned m)
{
    switch (m) {
    case GRAPH_SIZES_VISUALVM: return "VisualVM 2.1.5 (HotSpot)";
    case GRAPH_SIZES_SHARK: return "Shark (Android ART)";
    case GRAPH_SIZES_RECORD: return "as recorded";
    case GRAPH_SIZES_DEVTOOLS: return "DevTools (re-attributed)";
    default: return "unknown";
    }
}

/* The loader has already inflated the input; the magic bytes on disk still tell how. */
static void info_probe_file(const char *path, info_file *f)
{
    struct stat st;
    f->size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    f->compress = mfile_compression_name(MFILE_PLAIN);
    if (f->size == 0 || !S_ISREG(st.st_mode))
        return;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return;
    unsigned char m[3] = {0};
    size_t n = fread(m, 1, sizeof m, fp);
    fclose(fp);
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        f->compress = mfile_compression_name(MFILE_GZIP);
    else if (n == 3 && m[0] == 'B' && m[1] == 'Z' && m[2] == 'h')
        f->compress = mfile_compression_name(MFILE_BZIP2);
}

static void info_count(const graph *g, info_counts *c)
{
    memset(c, 0, sizeof *c);
    uint8_t *is_string = err_calloc(g->n_classes ? g->n_classes : 1, 1);
    if (is_string)
        for (class_ix k = 0; k < g->n_classes; k++)
            is_string[k] = strcmp(graph_str(g, g->classes[k].name), "java.lang.String") == 0;
    for (uint32_t n = 0; n < g->n_nodes; n++) {
        unsigned k = g->node_kind[n] < GRAPH_KIND_COUNT ? g->node_kind[n] : GRAPH_KIND_OTHER;
        c->kind_count[k]++;
        c->kind_shallow[k] += graph_node_size(g, n);
        c->shallow += graph_node_size(g, n);
        if (g->node_native)
            c->native += g->node_native[n];
        unsigned dom = graph_node_dom(g, n);
        c->dom[dom < 3 ? dom : 0]++;
        if (dom == GRAPH_DOM_DETACHED)
            c->detached_shallow += graph_node_size(g, n);
        if (g->node_heap && g->node_heap[n] < GRAPH_MAX_HEAPS) {
            c->heap_count[g->node_heap[n]]++;
            c->heap_shallow[g->node_heap[n]] += graph_node_size(g, n);
        }
        class_ix cl = g->node_class[n];
        if (k == GRAPH_KIND_STRING || (is_string && cl < g->n_classes && is_string[cl]))
            c->strings++;
    }
    free(is_string);
    for (uint32_t r = 0; r < g->n_roots; r++) {
        unsigned k = g->roots[r].kind;
        c->root_count[k < GRAPH_ROOT_KIND_COUNT ? k : GRAPH_ROOT_KIND_COUNT]++;
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

/* The heap dumps of an HPROF file, read from the bytes the graph already maps. */
static lr_status info_dumps(const graph *g, hprof_dump *out, uint32_t *n, lr_error *err)
{
    *n = 0;
    if (!g->format || strcmp(g->format, "hprof") != 0 || !g->data)
        return LR_OK;
    mfile m;
    memset(&m, 0, sizeof m);
    m.data = g->data;
    m.len = g->data_len;
    m.file_len = g->data_len;
    return hprof_list_dumps(&m, g->path ? g->path : "", out, INFO_MAX_DUMPS, n, err);
}

/* Index of the dump the loader picked: --dump N, or the last one. */
static int64_t loaded_dump(const cli_common *co, uint32_t n_dumps)
{
    return co->dump_index >= 0 ? co->dump_index : (int64_t)n_dumps - 1;
}

static const char *root_kind_label(unsigned k)
{
    return k < GRAPH_ROOT_KIND_COUNT ? graph_root_kind_name(k) : "other";
}

static void info_text(const cli_common *co, const char *path, const graph *g,
                      const info_file *f, const info_counts *c, const hprof_dump *dumps,
                      uint32_t n_dumps)
{
    char a[CLI_FMT_MAX], b[CLI_FMT_MAX], ts[64];
    printf("file:          %s\n", path);
    printf("format:        %s%s%s\n", g->format ? g->format : "?", g->version[0] ? ", " : "",
           g->version);
    if (strcmp(f->compress, "plain") == 0)
        printf("compression:   none, %s\n", cli_fmt_bytes(a, f->size));
    else
        printf("compression:   %s (%s on disk, %s inflated)\n", f->compress,
               cli_fmt_count(a, f->size), cli_fmt_bytes(b, g->data_len));
    if (g->id_size)
        printf("id size:       %u\n", g->id_size);
    printf("timestamp:     %s\n", g->timestamp_ms ? iso_time(ts, sizeof ts, g->timestamp_ms)
                                                  : "unknown");
    printf("size model:    %s\n", size_model_name(g->size_model));
    printf("objects:       %s\n", cli_fmt_count(a, g->n_nodes));
    for (unsigned k = 0; k < GRAPH_KIND_COUNT; k++)
        if (c->kind_count[k])
            printf("  %-18s %14s  %s\n", graph_node_kind_name(k),
                   cli_fmt_count(a, c->kind_count[k]), cli_fmt_bytes(b, c->kind_shallow[k]));
    printf("classes:       %s\n", cli_fmt_count(a, g->n_classes));
    printf("strings:       %s\n", cli_fmt_count(a, c->strings));
    printf("shallow total: %s\n", cli_fmt_bytes(a, c->shallow));
    if (g->node_native)
        printf("native total:  %s\n", cli_fmt_bytes(a, c->native));
    if (g->node_dom) {
        char d[CLI_FMT_MAX];
        printf("DOM:           %s attached, %s detached (%s)\n",
               cli_fmt_count(a, c->dom[GRAPH_DOM_ATTACHED]),
               cli_fmt_count(b, c->dom[GRAPH_DOM_DETACHED]), cli_fmt_bytes(d, c->detached_shallow));
    }
    printf("edges:         %s\n", cli_fmt_count(a, g->n_edges));
    printf("roots:         %s\n", cli_fmt_count(a, g->n_roots));
    for (unsigned k = 0; k <= GRAPH_ROOT_KIND_COUNT; k++)
        if (c->root_count[k])
            printf("  %14s  %s\n", cli_fmt_count(a, c->root_count[k]),
                   k < GRAPH_ROOT_KIND_COUNT ? graph_root_kind_title(k) : "other");
    if (g->n_threads || g->n_frames)
        printf("threads:       %s (%s stack frames)\n", cli_fmt_count(a, g->n_threads),
               cli_fmt_count(b, g->n_frames));
    if (g->node_heap && g->n_heaps) {
        printf("heaps:         %u\n", g->n_heaps);
        for (uint32_t h = 0; h < g->n_heaps && h < GRAPH_MAX_HEAPS; h++)
            printf("  %-18s %14s  %s\n", graph_str(g, g->heap_names[h]),
                   cli_fmt_count(a, c->heap_count[h]), cli_fmt_bytes(b, c->heap_shallow[h]));
    }
    if (n_dumps > 1) {
        int64_t cur = loaded_dump(co, n_dumps);
        printf("heap dumps:    %u in the file (--dump N picks one; default: the last)\n", n_dumps);
        for (uint32_t d = 0; d < n_dumps && d < INFO_MAX_DUMPS; d++)
            printf("  %c %-3u at 0x%-10" PRIx64 " %s, %u records\n", (int64_t)d == cur ? '*' : ' ',
                   d, dumps[d].offset, cli_fmt_bytes(a, dumps[d].length), dumps[d].n_records);
    }
    int any = 0;
    for (unsigned d = 0; d < DIAG_COUNT; d++) {
        if (!g->diag.n[d])
            continue;
        if (!any)
            printf("diagnostics:\n");
        any = 1;
        printf("  %-22s %-9s %10s  %s\n", diag_name(d), diag_severity_name(diag_severity_of(d)),
               cli_fmt_count(a, g->diag.n[d]), diag_description(d));
    }
    if (!any)
        printf("diagnostics:   none\n");
    cli_print_timing(co, stdout, "load time", co->load_ms);
}

static void info_json(const cli_common *co, const char *path, const graph *g,
                      const info_file *f, const info_counts *c, const hprof_dump *dumps,
                      uint32_t n_dumps)
{
    jsonw w;
    char ts[64];
    cli_json_begin(&w);
    jsonw_kv_str(&w, "file", path);
    jsonw_kv_uint(&w, "file_size", f->size);
    jsonw_kv_str(&w, "compression", f->compress);
    jsonw_kv_uint(&w, "data_size", g->data_len);
    jsonw_kv_str(&w, "format", g->format ? g->format : "");
    jsonw_kv_str(&w, "version", g->version);
    jsonw_kv_uint(&w, "id_size", g->id_size);
    if (g->timestamp_ms) {
        jsonw_kv_str(&w, "timestamp", iso_time(ts, sizeof ts, g->timestamp_ms));
        jsonw_kv_uint(&w, "timestamp_ms", g->timestamp_ms);
    } else {
        jsonw_kv_null(&w, "timestamp");
        jsonw_kv_null(&w, "timestamp_ms");
    }
    jsonw_kv_str(&w, "size_model", size_model_name(g->size_model));

    jsonw_kv_obj_begin(&w, "objects");
    jsonw_kv_uint(&w, "count", g->n_nodes);
    jsonw_kv_arr_begin(&w, "by_kind");
    for (unsigned k = 0; k < GRAPH_KIND_COUNT; k++) {
        if (!c->kind_count[k])
            continue;
        jsonw_obj_begin(&w);
        jsonw_kv_str(&w, "kind", graph_node_kind_name(k));
        jsonw_kv_uint(&w, "count", c->kind_count[k]);
        jsonw_kv_uint(&w, "shallow", c->kind_shallow[k]);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);

    jsonw_kv_uint(&w, "classes", g->n_classes);
    jsonw_kv_uint(&w, "strings", c->strings);
    jsonw_kv_uint(&w, "shallow_total", c->shallow);
    if (g->node_native)
        jsonw_kv_uint(&w, "native_total", c->native);
    else
        jsonw_kv_null(&w, "native_total");
    jsonw_kv_uint(&w, "edges", g->n_edges);
    if (g->node_dom) {
        jsonw_kv_obj_begin(&w, "dom");
        jsonw_kv_uint(&w, "attached", c->dom[GRAPH_DOM_ATTACHED]);
        jsonw_kv_uint(&w, "detached", c->dom[GRAPH_DOM_DETACHED]);
        jsonw_kv_uint(&w, "detached_shallow", c->detached_shallow);
        jsonw_obj_end(&w);
    } else {
        jsonw_kv_null(&w, "dom");
    }

    jsonw_kv_obj_begin(&w, "roots");
    jsonw_kv_uint(&w, "count", g->n_roots);
    jsonw_kv_arr_begin(&w, "by_kind");
    for (unsigned k = 0; k <= GRAPH_ROOT_KIND_COUNT; k++) {
        if (!c->root_count[k])
            continue;
        jsonw_obj_begin(&w);
        jsonw_kv_str(&w, "kind", root_kind_label(k));
        jsonw_kv_uint(&w, "count", c->root_count[k]);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);

    jsonw_kv_uint(&w, "threads", g->n_threads);
    jsonw_kv_uint(&w, "frames", g->n_frames);

    jsonw_kv_arr_begin(&w, "heaps");
    if (g->node_heap)
        for (uint32_t h = 0; h < g->n_heaps && h < GRAPH_MAX_HEAPS; h++) {
            jsonw_obj_begin(&w);
            jsonw_kv_str(&w, "name", graph_str(g, g->heap_names[h]));
            jsonw_kv_uint(&w, "count", c->heap_count[h]);
            jsonw_kv_uint(&w, "shallow", c->heap_shallow[h]);
            jsonw_obj_end(&w);
        }
    jsonw_arr_end(&w);

    jsonw_kv_arr_begin(&w, "dumps");
    int64_t cur = loaded_dump(co, n_dumps);
    for (uint32_t d = 0; d < n_dumps && d < INFO_MAX_DUMPS; d++) {
        jsonw_obj_begin(&w);
        jsonw_kv_uint(&w, "index", d);
        jsonw_kv_uint(&w, "offset", dumps[d].offset);
        jsonw_kv_uint(&w, "length", dumps[d].length);
        jsonw_kv_uint(&w, "records", dumps[d].n_records);
        jsonw_kv_bool(&w, "loaded", (int64_t)d == cur);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_kv_uint(&w, "dump_count", n_dumps);

    jsonw_kv_arr_begin(&w, "diagnostics");
    for (unsigned d = 0; d < DIAG_COUNT; d++) {
        if (!g->diag.n[d])
            continue;
        jsonw_obj_begin(&w);
        jsonw_kv_str(&w, "name", diag_name(d));
        jsonw_kv_str(&w, "severity", diag_severity_name(diag_severity_of(d)));
        jsonw_kv_uint(&w, "count", g->diag.n[d]);
        jsonw_kv_str(&w, "description", diag_description(d));
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    cli_json_end(co, &w);
}

int cmd_info(int argc, char **argv)
{
    const cli_spec spec = {
        "info", "FILE",
        "Format, counts, roots, heaps and load diagnostics of a heap dump.", NULL, 1, 1,
        "Diagnostics count anomalies the loader tolerated (dangling references, duplicate\n"
        "roots, ...), each with its severity: info, data-loss or error."};
    cli_common co;
    int rc = cli_parse(argc, argv, &spec, &co);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *path = co.pos[0];
    lr_heap *lh;
    if ((rc = cli_open(&co, path, 0, &lh)) != 0)
        return rc;
    const graph *g = lr_heap_graph(lh);

    info_file f;
    info_probe_file(path, &f);
    info_counts c;
    info_count(g, &c);
    hprof_dump dumps[INFO_MAX_DUMPS];
    uint32_t n_dumps = 0;
    lr_error err = {.offset = LR_NO_OFFSET};
    /* The loader accepted the file, so listing its dumps cannot fail short of a bug; if it
     * does, the list is left out rather than failing the whole report. */
    if (info_dumps(g, dumps, &n_dumps, &err) != LR_OK)
        n_dumps = 0;

    if (co.json)
        info_json(&co, path, g, &f, &c, dumps, n_dumps);
    else
        info_text(&co, path, g, &f, &c, dumps, n_dumps);
    lr_close(lh);
    return CLI_EXIT_OK;
}
