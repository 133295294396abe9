/* SPDX-License-Identifier: Apache-2.0 */
/* leakray.c: the public open call (top of the library, above the format layer), prefix lr_.
 * lr_open maps or inflates the input (base/mfile), sniffs the format through the reader
 * registry (format/fmt) and lets the reader fill a graph; struct lr_heap owns both, because
 * the graph's node offsets point into the mapped bytes and must not outlive them. */
#include "leakray/leakray.h"

#include "base/mfile.h"
#include "format/fmt.h"
#include "graph/graph.h"

#include <stdlib.h>
#include <string.h>

struct lr_heap {
    mfile input;
    graph g;
    const fmt_reader *reader;
};

lr_status lr_open(const char *path, const lr_open_opts *opts, lr_heap **out, lr_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return LR_FAIL(err, LR_ERR_USAGE, "lr_open: path and out are required");
    lr_heap *h = calloc(1, sizeof *h);
    if (!h)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", path);
    graph_init(&h->g);
    lr_status st = mfile_open(&h->input, path, opts ? opts->max_inflate : 0, err);
    if (st != LR_OK)
        goto fail;
    h->g.path = strdup(path);
    if (!h->g.path) {
        st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    h->reader = fmt_find(h->input.data, h->input.len);
    if (!h->reader) {
        st = LR_CORRUPT(err, path, 0, "unknown heap dump format%s",
                        h->input.len == 0 ? " (empty file)" : "");
        goto fail;
    }
    fmt_opts fo = {.dump_index = opts ? opts->dump_index : -1,
                   .no_edges = opts ? opts->no_edges : 0,
                   .progress = opts ? opts->progress : 0};
    st = h->reader->load(&h->g, &h->input, &fo, err);
    if (st != LR_OK)
        goto fail;
    *out = h;
    return LR_OK;
fail:
    lr_close(h);
    return st;
}

void lr_close(lr_heap *h)
{
    if (!h)
        return;
    graph_fini(&h->g);
    mfile_close(&h->input);
    free(h);
}

const char *lr_heap_format(const lr_heap *h)
{
    return h && h->reader ? h->reader->name : "unknown";
}

void *lr_heap_graph(lr_heap *h) { return h ? &h->g : NULL; }
