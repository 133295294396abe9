/* SPDX-License-Identifier: Apache-2.0 */
/* native.c: native sizes freed by a Cleaner into g->node_native (analysis layer), prefix
 * native_. Classes are marked first (Cleaner or a subclass of it), so a dump without either
 * thunk class costs nothing beyond a class scan. Every step of the chains Cleaner.thunk ->
 * CleanerThunk.this$0 -> registry.size (Android) and Cleaner.thunk -> Deallocator.size (the
 * JDK's direct buffers) is checked for type and class: a dump is untrusted, and a field of
 * another type under the same name is skipped rather than misread. Sums saturate at
 * UINT32_MAX per object (node_native is 32-bit) and count DIAG_SIZE_SATURATED. */
#include "analysis/native.h"

#include <stdlib.h>
#include <string.h>

#define THUNK_CLASS "libcore.util.NativeAllocationRegistry$CleanerThunk"
#define REGISTRY_CLASS "libcore.util.NativeAllocationRegistry"
#define DEALLOC_CLASS "java.nio.DirectByteBuffer$Deallocator"

static int is_cleaner_class(const graph *g, class_ix c)
{
    return graph_class_is_named(g, c, "sun.misc.Cleaner") ||
           graph_class_is_named(g, c, "jdk.internal.ref.Cleaner");
}

/* Reference field `name` of n, or GRAPH_NONE when absent, null, dangling or not a reference. */
static node_ix ref_field(const graph *g, node_ix n, const char *name)
{
    graph_value v;
    if (!graph_field_find(g, n, name, &v) || v.type != GRAPH_FT_OBJECT)
        return GRAPH_NONE;
    return v.ref < g->n_nodes ? v.ref : GRAPH_NONE;
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
    int has_thunk = 0;
    for (class_ix c = 0; c < g->n_classes && !has_thunk; c++) {
        const char *nm = graph_str(g, g->classes[c].name);
        has_thunk = ((kinds & NATIVE_REGISTRY) && strcmp(nm, THUNK_CLASS) == 0) ||
                    ((kinds & NATIVE_DIRECT) && strcmp(nm, DEALLOC_CLASS) == 0);
    }
    if (!has_thunk)
        return LR_OK;
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
        if (!g->node_native) {
            g->node_native = calloc(g->n_nodes, sizeof *g->node_native);
            if (!g->node_native) {
                rs = LR_FAIL(err, LR_ERR_NOMEM, "out of memory for native sizes");
                break;
            }
        }
        /* The size is a signed Java long; a negative one is garbage, not a size. */
        uint64_t add = (int64_t)size.raw < 0 ? 0 : size.raw;
        if (g->node_native[owner] == 0 && add)
            st.owners++;
        st.bytes += add;
        uint64_t sum = (uint64_t)g->node_native[owner] + add;
        if (sum > UINT32_MAX) {
            sum = UINT32_MAX;
            diag_count(&g->diag, DIAG_SIZE_SATURATED);
        }
        g->node_native[owner] = (uint32_t)sum;
    }
    free(cleaner);
    if (stats)
        *stats = st;
    return rs;
}
