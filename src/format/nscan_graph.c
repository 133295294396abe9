/* SPDX-License-Identifier: Apache-2.0 */
/* nscan_graph.c: a native scan report with its heap graph, loaded as a graph (format layer),
 * prefix nscan_. Reports written with `leakray native run --graph` list every live malloc
 * block and the pointers it holds (docs/native.md); this reader turns them into nodes
 * (kind native, id = address, shallow size = bytes requested), edges named by the pointer's
 * offset in its block ("+0x10"), GC roots of their kind for the blocks held straight from a
 * root (module data, stacks, registers, TLS, ld.so, anonymous memory), ids shown as 0x
 * addresses, and one class per allocation site: the innermost frame of the
 * block's backtrace as "function (file:line)", so histo counts blocks per site and top,
 * path and cycles answer "who holds this block". Leaked blocks stay in the graph, unrooted.
 * Cost: O(B log B + R log B) for B blocks and R pointers. */
#include "format/nscan.h"
#include "format/fmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lr_status oom(lr_error *err, const char *name)
{
    return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
}

/* The allocation site of a trace as a class name. */
static void site_name(const nscan_report *r, uint32_t trace, char *buf, size_t n)
{
    const nscan_trace *t = nscan_trace_find(r, trace);
    if (!t || !t->n_frames) {
        snprintf(buf, n, "(no backtrace)");
        return;
    }
    /* the function the code is in (its line: where it calls what is inlined there) */
    const nscan_frame *f = &t->frames[0];
    for (uint32_t k = 1; k < t->n_frames && f->inlined; k++)
        f = &t->frames[k];
    if (f->func && f->file)
        snprintf(buf, n, "%s (%s:%d)", f->func, f->file, f->line);
    else if (f->func)
        snprintf(buf, n, "%s+0x%llx", f->func, (unsigned long long)f->func_off);
    else
        snprintf(buf, n, "%s+0x%llx", f->module ? f->module : "?",
                 (unsigned long long)f->rel);
}

/* The graph's root kind for a block STATE of NSCAN_HELD_BY_ROOT and above. */
static uint8_t root_kind(uint32_t state)
{
    switch (state) {
    case NSCAN_ROOT_GLOBAL: return GRAPH_ROOT_GLOBAL_DATA;
    case NSCAN_ROOT_STACK: return GRAPH_ROOT_NATIVE_STACK;
    case NSCAN_ROOT_REGISTERS: return GRAPH_ROOT_REGISTERS;
    case NSCAN_ROOT_TLS: return GRAPH_ROOT_TLS;
    case NSCAN_ROOT_LDSO: return GRAPH_ROOT_DYNAMIC_LINKER;
    case NSCAN_ROOT_ANON: return GRAPH_ROOT_ANON_MEMORY;
    default: return GRAPH_ROOT_UNKNOWN; /* version 1 reports */
    }
}

/* What text output calls these roots: a native program's words, not the JNI terms the
 * kinds have in a JVM dump (a stack read "Input or output parameters in native code"). */
static const char *const NATIVE_ROOT_TITLES[GRAPH_ROOT_KIND_COUNT] = {
    [GRAPH_ROOT_NATIVE_STACK] = "Thread stack",
    [GRAPH_ROOT_UNKNOWN] = "Root (a report without root kinds)",
};

static int64_t block_at(const nscan_report *r, uint64_t addr)
{
    uint64_t lo = 0, hi = r->n_blocks;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (r->blocks[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_blocks && r->blocks[lo].addr == addr ? (int64_t)lo : -1;
}

static lr_status build(graph *g, nscan_report *r, const char *name, lr_error *err)
{
    if (!r->n_blocks)
        return LR_CORRUPT(err, name, 0, "scan report has no heap graph (scan with --graph)");
    if (r->n_blocks > UINT32_MAX / 2 || r->n_refs > UINT32_MAX / 2)
        return LR_FAIL(err, LR_ERR_LIMIT, "%s: too many blocks or pointers", name);
    uint32_t n = (uint32_t)r->n_blocks;
    LR_TRY(graph_alloc_nodes(g, n, 0, err));
    /* Classes: one per distinct site name, found through the interned string index. */
    uint32_t cap = 16;
    g->classes = calloc(cap, sizeof *g->classes);
    uint32_t *class_of_str = NULL;
    size_t n_str_map = 0;
    if (!g->classes)
        return oom(err, name);
    char buf[512];
    lr_status st = LR_OK;
    for (uint32_t i = 0; i < n; i++) {
        const nscan_block *b = &r->blocks[i];
        site_name(r, b->trace, buf, sizeof buf);
        str_ix s;
        if ((st = graph_intern(g, buf, strlen(buf), &s, err)) != LR_OK)
            goto out;
        if (s >= n_str_map) {
            size_t nn = (size_t)s * 2 + 16;
            uint32_t *m = realloc(class_of_str, nn * sizeof *m);
            if (!m) {
                st = oom(err, name);
                goto out;
            }
            for (size_t k = n_str_map; k < nn; k++)
                m[k] = GRAPH_NONE;
            class_of_str = m;
            n_str_map = nn;
        }
        if (class_of_str[s] == GRAPH_NONE) {
            if (g->n_classes == cap) {
                graph_class *c2 = realloc(g->classes, (size_t)cap * 2 * sizeof *c2);
                if (!c2) {
                    st = oom(err, name);
                    goto out;
                }
                g->classes = c2;
                cap *= 2;
            }
            graph_class *c = &g->classes[g->n_classes];
            memset(c, 0, sizeof *c);
            c->name = s;
            c->super = GRAPH_NONE;
            c->node = GRAPH_NONE;
            class_of_str[s] = g->n_classes++;
        }
        g->node_id[i] = b->addr;
        g->node_class[i] = class_of_str[s];
        g->node_size[i] = b->size > UINT32_MAX ? UINT32_MAX : (uint32_t)b->size;
        g->node_kind[i] = GRAPH_KIND_NATIVE;
        g->node_type[i] = 0;
        g->node_off[i] = UINT64_MAX;
        g->node_len[i] = 0;
    }
    /* Edges: the refs of each block in address order are already grouped by block. */
    uint32_t ne = 0;
    for (uint64_t k = 0; k < r->n_refs; k++)
        ne += block_at(r, r->refs[k].target) >= 0;
    if ((st = graph_alloc_edges(g, ne, err)) != LR_OK)
        goto out;
    uint32_t e = 0;
    for (uint32_t i = 0; i < n; i++) {
        const nscan_block *b = &r->blocks[i];
        g->first_edge[i] = e;
        for (uint64_t k = b->first_ref; k < b->first_ref + b->n_refs; k++) {
            int64_t t = block_at(r, r->refs[k].target);
            if (t < 0)
                continue;
            snprintf(buf, sizeof buf, "+0x%llx", (unsigned long long)r->refs[k].offset);
            str_ix s;
            if ((st = graph_intern(g, buf, strlen(buf), &s, err)) != LR_OK)
                goto out;
            g->edge_to[e] = (node_ix)t;
            g->edge_name[e] = s;
            g->edge_kind[e] = GRAPH_EDGE_MAKE(GRAPH_EDGE_FIELD, GRAPH_STRONG);
            e++;
        }
    }
    g->first_edge[n] = e;
    uint32_t nr = 0;
    for (uint32_t i = 0; i < n; i++)
        nr += r->blocks[i].state >= NSCAN_HELD_BY_ROOT;
    g->roots = calloc(nr ? nr : 1, sizeof *g->roots);
    if (!g->roots) {
        st = oom(err, name);
        goto out;
    }
    for (uint32_t i = 0; i < n; i++)
        if (r->blocks[i].state >= NSCAN_HELD_BY_ROOT)
            g->roots[g->n_roots++] = (graph_root){.node = i, .kind = root_kind(r->blocks[i].state),
                                                  .thread = 0, .frame = -1};
    if ((st = graph_build_index(g, err)) == LR_OK) {
        graph_count_duplicate_ids(g); /* pointers to a repeated address reach one block */
        st = graph_index_class_nodes(g, err);
    }
out:
    free(class_of_str);
    return st;
}

static lr_status nscan_load(graph *g, const mfile *m, const fmt_opts *o, lr_error *err)
{
    (void)o;
    const char *name = g->path ? g->path : "<input>";
    nscan_report r;
    LR_TRY(nscan_parse(m, name, &r, err));
    nscan_symbolize(&r);
    g->format = "native";
    g->data = m->data;
    g->data_len = m->len;
    g->size_model = GRAPH_SIZES_RECORD;
    g->hex_ids = 1; /* ids are addresses: shown 0x.., as native tools print them */
    g->synthetic_root = GRAPH_NONE;
    g->root_titles = NATIVE_ROOT_TITLES;
    g->timestamp_ms = r.time_ms;
    g->type_names[0] = "native";
    g->n_types = 1;
    /* the format's version as the file's first line gives it ("leakray-native 3") */
    unsigned ver = 1;
    if (m->len > 15 && m->data[15] >= '1' && m->data[15] <= '9')
        ver = (unsigned)(m->data[15] - '0');
    snprintf(g->version, sizeof g->version, "leakray native scan %u, pid %llu", ver,
             (unsigned long long)r.pid);
    lr_status st = build(g, &r, name, err);
    nscan_free(&r);
    return st;
}

const fmt_reader fmt_nscan_reader = {"native", nscan_sniff, nscan_load};
