/* SPDX-License-Identifier: Apache-2.0 */
/* native.c: native sizes freed by a Cleaner into g->node_native (analysis layer), prefix
 * native_. Classes are marked first (Cleaner or a subclass of it), so a dump without either
 * thunk class costs nothing beyond a class scan. Every step of the chains Cleaner.thunk ->
 * CleanerThunk.this$0 -> registry.size (Android) and Cleaner.thunk -> Deallocator.size (the
 * JDK's direct buffers), and an FFM arena's allocation cleanups (native.h), is checked for
 * type and class: a dump is untrusted, and a field of
 * another type under the same name is skipped rather than misread. Sums saturate at
 * UINT32_MAX per object (node_native is 32-bit) and count DIAG_SIZE_SATURATED. */
#include "analysis/native.h"
#include "analysis/trace.h"

#include <stdlib.h>
#include <string.h>

#define THUNK_CLASS "libcore.util.NativeAllocationRegistry$CleanerThunk"
#define REGISTRY_CLASS "libcore.util.NativeAllocationRegistry"
#define DEALLOC_CLASS "java.nio.DirectByteBuffer$Deallocator"
#define FOREIGN_PREFIX "jdk.internal.foreign."
#define CLEANUP_CLASS "jdk.internal.foreign.MemorySessionImpl$ResourceList$ResourceCleanup"
#define SESSION_CLASS "jdk.internal.foreign.MemorySessionImpl"

static int is_cleaner_class(const graph *g, class_ix c)
{
    return graph_class_is_named(g, c, "sun.misc.Cleaner") ||
           graph_class_is_named(g, c, "jdk.internal.ref.Cleaner");
}

/* Reference field `name` of n, or GRAPH_NONE when absent, null, dangling or not a reference. */
static node_ix ref_field(const graph *g, node_ix n, const char *name)
{
    graph_value v;
    if (n == GRAPH_NONE || !graph_field_find(g, n, name, &v) || v.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    return v.ref < g->n_nodes ? v.ref : GRAPH_NONE;
}

/* Whether c is an FFM allocation's cleanup: an anonymous class of jdk.internal.foreign
 * (SegmentFactories$1, NativeMemorySegmentImpl$1 before) that is a ResourceCleanup. */
static int foreign_cleanup(const graph *g, class_ix c)
{
    const char *nm = graph_str(g, g->classes[c].name), *d = strrchr(nm, '$');
    return !strncmp(nm, FOREIGN_PREFIX, sizeof FOREIGN_PREFIX - 1) && d && d[1] >= '0' &&
           d[1] <= '9' && graph_class_is_named(g, c, CLEANUP_CLASS);
}

/* Credits owner with add native bytes, saturating; LR_OK or LR_ERR_NOMEM. */
static lr_status credit(graph *g, node_ix owner, uint64_t add, native_stats *st, lr_error *err)
{
    if (!g->node_native) {
        g->node_native = calloc(g->n_nodes, sizeof *g->node_native);
        if (!g->node_native)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory for native sizes");
    }
    if (g->node_native[owner] == 0 && add)
        st->owners++;
    st->bytes += add;
    uint64_t sum = (uint64_t)g->node_native[owner] + add;
    if (sum > UINT32_MAX) {
        sum = UINT32_MAX;
        diag_count(&g->diag, DIAG_SIZE_SATURATED);
    }
    g->node_native[owner] = (uint32_t)sum;
    return LR_OK;
}

/* The cleanup c of an open session's list, credited once (done marks it) with its
 * allocation's size: `val$allocationSize` (JDK 25), `val$alignedSize` (JDK 22). */
static lr_status foreign_credit(graph *g, node_ix c, const uint8_t *is, uint8_t *done,
                                native_stats *st, lr_error *err)
{
    graph_value size;
    if (c >= g->n_nodes || done[c])
        return LR_OK;
    class_ix k = graph_node_class(g, c);
    if (k >= g->n_classes || !is[k])
        return LR_OK;
    done[c] = 1;
    if ((!graph_field_find(g, c, "val$allocationSize", &size) &&
         !graph_field_find(g, c, "val$alignedSize", &size)) ||
        size.type != GRAPH_FT_LONG || (int64_t)size.raw <= 0)
        return LR_OK;
    st->cleaners++;
    return credit(g, c, size.raw, st, err);
}

/* NATIVE_FOREIGN: every session not closed (MemorySessionImpl.state != -1; a closed one's
 * list keeps a cleanup in its `cache`, its memory freed) credits the cleanups of its
 * resource list, from `fst` along `next`, and its `cache`. */
static lr_status foreign_assign(graph *g, native_stats *st, lr_error *err)
{
    uint8_t *is = calloc(g->n_classes, 2), *session = is ? is + g->n_classes : NULL;
    uint8_t *done = calloc(g->n_nodes ? g->n_nodes : 1, 1);
    if (!is || !done) {
        free(is);
        free(done);
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory marking FFM classes");
    }
    int any = 0;
    for (class_ix c = 0; c < g->n_classes; c++) {
        any |= is[c] = (uint8_t)foreign_cleanup(g, c);
        session[c] = (uint8_t)graph_class_is_named(g, c, SESSION_CLASS);
    }
    lr_status rs = LR_OK;
    for (node_ix n = 0; any && rs == LR_OK && n < g->n_nodes; n++) {
        class_ix c = graph_node_class(g, n);
        graph_value state;
        if (g->node_kind[n] != GRAPH_KIND_INSTANCE || c >= g->n_classes || !session[c] ||
            !graph_field_find(g, n, "state", &state) || state.type != GRAPH_FT_INT ||
            (int32_t)state.raw == -1)
            continue;
        node_ix list = ref_field(g, n, "resourceList");
        if (list == GRAPH_NONE)
            continue;
        rs = foreign_credit(g, ref_field(g, list, "cache"), is, done, st, err);
        node_ix x = ref_field(g, list, "fst");
        for (uint32_t k = 0; rs == LR_OK && x != GRAPH_NONE && k < g->n_nodes; k++) {
            class_ix xc = graph_node_class(g, x);
            if (xc >= g->n_classes || !graph_class_is_named(g, xc, CLEANUP_CLASS))
                break;
            rs = foreign_credit(g, x, is, done, st, err);
            x = ref_field(g, x, "next");
        }
    }
    free(is);
    free(done);
    return rs;
}

/* Memory a JDK buffer maps rather than allocates, held without a Cleaner: the class image
 * (`lib/modules`, 100+ MB) and the performance counters (hsperfdata). A holder's field names
 * the buffer or a view of it (whose `att` is the buffer). */
static const struct {
    const char *holder, *field;
} mapped_buffers[] = {
    {"jdk.internal.jimage.BasicImageReader", "memoryMap"},
    {"jdk.internal.perf.PerfCounter", "lb"},
    {"sun.misc.PerfCounter", "lb"}, /* JDK 8 and before */
};

/* Whether field `name` of n is present and null. */
static int null_field(const graph *g, node_ix n, const char *name)
{
    graph_value v;
    return graph_field_find(g, n, name, &v) && v.type == GRAPH_FT_OBJECT && v.raw == 0;
}

/* NATIVE_NOCLEANER: a java.nio.DirectByteBuffer with memory (address != 0, capacity > 0)
 * but no Cleaner, no mapped file and no buffer it views (att) was made from an address
 * (Unsafe.allocateMemory, then the JNI constructor): Netty's no-cleaner buffers and pool
 * chunks, which its owner frees by hand. Its capacity is credited to it, as a Deallocator's
 * size is; the JDK's own mapped buffers (mapped_buffers) are not. One pass over the nodes. */
static lr_status nocleaner_assign(graph *g, native_stats *st, lr_error *err)
{
    class_ix dbb = graph_find_class(g, "java.nio.DirectByteBuffer");
    if (dbb == GRAPH_NONE)
        return LR_OK;
    size_t n_map = sizeof mapped_buffers / sizeof *mapped_buffers;
    uint8_t *holder = calloc(g->n_classes ? g->n_classes : 1, 1);
    node_ix mapped[64];
    uint32_t n_mapped = 0;
    if (!holder)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory marking buffer holders");
    int any = 0;
    for (class_ix c = 0; c < g->n_classes; c++)
        for (size_t i = 0; i < n_map && !holder[c]; i++)
            if (graph_class_is_named(g, c, mapped_buffers[i].holder))
                any |= holder[c] = (uint8_t)(i + 1);
    for (node_ix n = 0; any && n < g->n_nodes && n_mapped < 64; n++) {
        class_ix c = graph_node_class(g, n);
        if (c >= g->n_classes || !holder[c] || g->node_kind[n] != GRAPH_KIND_INSTANCE)
            continue;
        node_ix b = ref_field(g, n, mapped_buffers[holder[c] - 1].field);
        if (b != GRAPH_NONE && graph_node_class(g, b) != dbb)
            b = ref_field(g, b, "att");
        if (b != GRAPH_NONE)
            mapped[n_mapped++] = b;
    }
    free(holder);
    node_ix *cand = NULL;
    uint32_t n_cand = 0, cap_cand = 0;
    for (node_ix n = 0; n < g->n_nodes; n++) {
        graph_value v;
        if (graph_node_class(g, n) != dbb || g->node_kind[n] != GRAPH_KIND_INSTANCE ||
            !null_field(g, n, "cleaner") || !null_field(g, n, "att") ||
            (graph_field_find(g, n, "fd", &v) && !null_field(g, n, "fd")) ||
            /* a view of an FFM segment (asByteBuffer): the segment's arena owns the bytes */
            (graph_field_find(g, n, "segment", &v) && !null_field(g, n, "segment")) ||
            !graph_field_find(g, n, "address", &v) || v.type != GRAPH_FT_LONG || v.raw == 0 ||
            !graph_field_find(g, n, "capacity", &v) || v.type != GRAPH_FT_INT ||
            (int32_t)v.raw <= 0)
            continue;
        int is_mapped = 0;
        for (uint32_t i = 0; i < n_mapped && !is_mapped; i++)
            is_mapped = mapped[i] == n;
        if (is_mapped)
            continue;
        if (n_cand == cap_cand) {
            uint32_t nc = cap_cand ? 2 * cap_cand : 64;
            node_ix *q = nc > cap_cand ? realloc(cand, (size_t)nc * sizeof *q) : NULL;
            if (!q) {
                free(cand);
                return LR_FAIL(err, LR_ERR_NOMEM, "out of memory listing direct buffers");
            }
            cand = q;
            cap_cand = nc;
        }
        cand[n_cand++] = n;
    }
    if (!n_cand)
        return LR_OK;
    /* Only a buffer the program can still reach: one its owner freed by hand, still in a dump
     * that keeps garbage (an out-of-memory dump, `-all`), holds nothing (82 MB of freed pool
     * chunks read as live); one that no GC frees while memory lasts (trace_reach's kept). */
    /* A graph loaded without its references (`info`) cannot tell which: none counts there
     * (an out-of-memory dump's 40 freed buffers read 82 MB where 4 MB was allocated). */
    if (!g->first_edge || !g->edge_to) {
        free(cand);
        return LR_OK;
    }
    uint8_t *seen = calloc((size_t)g->n_nodes / 8 + 1, 1);
    node_ix *queue = err_mallocarray(g->n_nodes ? g->n_nodes : 1, sizeof *queue);
    lr_status rs = LR_OK;
    if (!seen || !queue)
        rs = LR_FAIL(err, LR_ERR_NOMEM, "out of memory finding reachable direct buffers");
    else
        trace_reach(g, seen, queue, 1);
    for (uint32_t i = 0; rs == LR_OK && i < n_cand; i++) {
        node_ix n = cand[i];
        graph_value cap;
        if (!(seen[n / 8] >> (n % 8) & 1) || !graph_field_find(g, n, "capacity", &cap))
            continue;
        st->nocleaner++;
        rs = credit(g, n, (uint32_t)cap.raw, st, err);
    }
    free(seen);
    free(queue);
    free(cand);
    return rs;
}

lr_status native_assign(graph *g, native_stats *stats, lr_error *err)
{
    return native_assign_ex(g, NATIVE_ALL, stats, err);
}

lr_status native_assign_ex(graph *g, unsigned kinds, native_stats *stats, lr_error *err)
{
    native_stats st = {0};
    if (stats)
        *stats = st;
    if (!g->node_kind || !graph_has_node_classes(g) || g->n_classes == 0)
        return LR_OK;
    int has_thunk = 0, has_foreign = 0;
    for (class_ix c = 0; c < g->n_classes && !(has_thunk && has_foreign); c++) {
        const char *nm = graph_str(g, g->classes[c].name);
        has_thunk |= ((kinds & NATIVE_REGISTRY) && strcmp(nm, THUNK_CLASS) == 0) ||
                     ((kinds & NATIVE_DIRECT) && strcmp(nm, DEALLOC_CLASS) == 0);
        has_foreign |= (kinds & NATIVE_FOREIGN) && strcmp(nm, CLEANUP_CLASS) == 0;
    }
    if (has_foreign) {
        lr_status fs = foreign_assign(g, &st, err);
        if (fs != LR_OK)
            return fs;
    }
    if (kinds & NATIVE_DIRECT) {
        lr_status ns = nocleaner_assign(g, &st, err);
        if (ns != LR_OK)
            return ns;
    }
    if (!has_thunk) {
        if (stats)
            *stats = st;
        return LR_OK;
    }
    uint8_t *cleaner = calloc(g->n_classes, 1);
    if (!cleaner)
        return LR_FAIL(err, LR_ERR_NOMEM, "out of memory marking Cleaner classes");
    int any = 0;
    for (class_ix c = 0; c < g->n_classes; c++)
        any |= cleaner[c] = (uint8_t)is_cleaner_class(g, c);
    lr_status rs = LR_OK;
    for (node_ix n = 0; any && n < g->n_nodes; n++) {
        class_ix c = graph_node_class(g, n);
        if (g->node_kind[n] != GRAPH_KIND_INSTANCE || c >= g->n_classes || !cleaner[c])
            continue;
        node_ix thunk = ref_field(g, n, "thunk"), sized = GRAPH_NONE;
        class_ix tc = thunk == GRAPH_NONE ? GRAPH_NONE : graph_node_class(g, thunk);
        if (tc >= g->n_classes)
            continue;
        if ((kinds & NATIVE_REGISTRY) && graph_class_is_named(g, tc, THUNK_CLASS)) {
            sized = ref_field(g, thunk, "this$0");
            if (sized == GRAPH_NONE || graph_node_class(g, sized) >= g->n_classes ||
                !graph_class_is_named(g, graph_node_class(g, sized), REGISTRY_CLASS))
                continue;
        } else if ((kinds & NATIVE_DIRECT) && graph_class_is_named(g, tc, DEALLOC_CLASS)) {
            sized = thunk; /* the bytes allocateDirect reserved, page rounding included */
        } else {
            continue;
        }
        graph_value size;
        if (!graph_field_find(g, sized, "size", &size) || size.type != GRAPH_FT_LONG)
            continue;
        st.cleaners++;
        node_ix owner = ref_field(g, n, "referent");
        if (owner == GRAPH_NONE)
            continue; /* already cleared: the memory is being freed */
        /* The size is a signed Java long; a negative one is garbage, not a size. */
        if ((rs = credit(g, owner, (int64_t)size.raw < 0 ? 0 : size.raw, &st, err)) != LR_OK)
            break;
    }
    free(cleaner);
    if (stats)
        *stats = st;
    return rs;
}
