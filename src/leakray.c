/* SPDX-License-Identifier: Apache-2.0 */
/* leakray.c: the public open calls (top of the library, above the format layer), prefix lr_.
 * lr_open maps or inflates the input (base/mfile), sniffs the format through the reader
 * registry (format/fmt) and lets the reader fill a graph; struct lr_heap (lr_internal.h)
 * owns both, because the graph's node offsets point into the mapped bytes and must not
 * outlive them. lr_open_memory does the same over caller-owned bytes. */
#include "lr_internal.h"
#include "analysis/native.h"
#include "base/phase.h"

#include <stdlib.h>
#include <string.h>

const char *lr_version(void) { return LR_VERSION_STRING; }

/* Loads h->input (already opened) into h->g. */
static lr_status load(lr_heap *h, const char *name, const lr_open_opts *opts,
                      unsigned native_kinds, lr_error *err)
{
    h->g.path = strdup(name);
    if (!h->g.path)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
    phase_enter("load");
    h->reader = fmt_find(h->input.data, h->input.len);
    if (!h->reader) {
        const char *what = fmt_unsupported(h->input.data, h->input.len);
        return LR_CORRUPT(err, name, 0, "unknown heap dump format%s%s%s",
                          h->input.len == 0 ? " (empty file)" : "", what ? ": " : "",
                          what ? what : "");
    }
    if (opts && opts->dump_index < -1) /* read as "the last" before */
        return LR_FAIL(err, LR_ERR_USAGE, "%s: dump_index %d: a heap dump's index (0 the first) "
                       "or -1 (the last)", name, opts->dump_index);
    /* Formats other than HPROF hold one heap: its index is 0 (-1, the last, is the same) */
    if (opts && opts->dump_index > 0 && strcmp(h->reader->name, "hprof") != 0)
        return LR_FAIL(err, LR_ERR_NOT_FOUND,
                       "%s: heap dump #%d requested, a %s file holds one heap (#0)", name,
                       opts->dump_index, h->reader->name);
    fmt_opts fo = {.dump_index = opts ? opts->dump_index : -1,
                   .no_edges = opts ? opts->no_edges : 0,
                   .progress = opts ? opts->progress : 0,
                   .count_edges = opts ? opts->count_edges : 0};
    lr_status st = h->reader->load(&h->g, &h->input, &fo, err);
    if (st == LR_OK)
        graph_settle(&h->g);
    /* Native bytes a Cleaner frees (Android's registry, the JDK's direct buffers) join the
     * shallow sizes every analysis reads: a no-op for dumps without those classes. */
    if (st == LR_OK)
        st = native_assign_ex(&h->g, native_kinds, NULL, err);
    return st;
}

lr_status lr_open(const char *path, const lr_open_opts *opts, lr_heap **out, lr_error *err)
{
    return lr_open_ex(path, opts, NATIVE_ALL, out, err);
}

lr_status lr_open_ex(const char *path, const lr_open_opts *opts, unsigned native_kinds,
                     lr_heap **out, lr_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_open: path and out are required");
    if (!*path)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_open: the path is empty");
    lr_heap *h = calloc(1, sizeof *h);
    if (!h)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", path);
    graph_init(&h->g);
    phase_enter("open");
    lr_status st = mfile_open_dump(&h->input, path, opts ? opts->max_inflate : 0,
                                   fmt_head_known, err);
    if (st == LR_OK)
        st = mfile_check_shrunk(&h->input, path, load(h, path, opts, native_kinds, err), err);
    if (st != LR_OK) {
        lr_close(h);
        return st;
    }
    *out = h;
    return LR_OK;
}

lr_status lr_open_memory(const void *data, size_t len, const char *name,
                         const lr_open_opts *opts, lr_heap **out, lr_error *err)
{
    if (out)
        *out = NULL;
    if (!name)
        name = "<memory>";
    if ((!data && len) || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_open_memory: data and out are required");
    lr_heap *h = calloc(1, sizeof *h);
    if (!h)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
    graph_init(&h->g);
    static const uint8_t empty[1];
    lr_status st = mfile_from_memory_dump(&h->input, data ? data : empty, len,
                                          opts ? opts->max_inflate : 0, fmt_head_known, name,
                                          err);
    if (st == LR_OK)
        st = load(h, name, opts, NATIVE_ALL, err);
    if (st != LR_OK) {
        lr_close(h);
        return st;
    }
    *out = h;
    return LR_OK;
}

void lr_close(lr_heap *h)
{
    if (!h)
        return;
    dom_free(&h->dom);
    devtools_free(&h->dt);
    if (h->has_path_rs)
        rules_fini(&h->path_rs);
    graph_fini(&h->g);
    mfile_close(&h->input);
    free(h);
}

const char *lr_heap_format(const lr_heap *h)
{
    return h && h->reader ? h->reader->name : "unknown";
}

int lr_heap_truncated(const lr_heap *h)
{
    return h && h->g.diag.n[DIAG_TRUNCATED] > 0;
}

uint32_t lr_heap_diagnostic_count(const lr_heap *h)
{
    uint32_t n = 0;
    for (int d = 0; h && d < DIAG_COUNT; d++)
        n += h->g.diag.n[d] > 0;
    return n;
}

lr_status lr_heap_diagnostic(const lr_heap *h, uint32_t i, lr_diagnostic *out, lr_error *err)
{
    if (!h || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_heap_diagnostic: heap and out are required");
    uint32_t k = i;
    for (int d = 0; d < DIAG_COUNT; d++) {
        if (!h->g.diag.n[d] || k-- > 0)
            continue;
        *out = (lr_diagnostic){diag_name(d), diag_severity_name(diag_severity_of(d)),
                               diag_description(d), h->g.diag.n[d]};
        return LR_OK;
    }
    return LR_FAIL(err, LR_ERR_USAGE, "%s: diagnostic %u out of range (%u)", h->g.path,
                   (unsigned)i, (unsigned)lr_heap_diagnostic_count(h));
}

graph *lr_heap_graph(lr_heap *h) { return h ? &h->g : NULL; }
