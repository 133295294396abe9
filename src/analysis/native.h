/* SPDX-License-Identifier: Apache-2.0 */
/* native.h: native memory Java objects own, freed by a Cleaner (analysis layer), prefix
 * native_. Android's libcore.util.NativeAllocationRegistry frees native memory through a
 * sun.misc.Cleaner whose `thunk` is a NativeAllocationRegistry$CleanerThunk; the thunk's outer
 * registry (`this$0`) records the native bytes in its long `size` field, and the Cleaner's
 * `referent` is the Java object owning that memory (a Bitmap, a Matrix...): the rule of
 * Shark's AndroidNativeSizeMapper (docs/research/hprof-leakcanary-shark.md, 7.3). The JDK
 * frees a direct buffer's memory (ByteBuffer.allocateDirect, and library buffers made with it)
 * the same way: the Cleaner's thunk is a java.nio.DirectByteBuffer$Deallocator
 * whose long `size` is what was reserved, its referent the owning DirectByteBuffer (views and
 * slices own none and have no Cleaner). native_assign credits each such size to the referent
 * in g->node_native, so that dom_build's retained sizes (shallow + native) count memory the
 * Java heap alone does not show. The JDK 9+ name of the Cleaner class,
 * jdk.internal.ref.Cleaner, is accepted beside sun.misc.Cleaner. A DirectByteBuffer made
 * from an address (no Cleaner, no file, no buffer it views: Netty's no-cleaner buffers) is
 * credited its capacity, the JDK's mapped ones excepted (NATIVE_DIRECT too). */
#ifndef LR_ANALYSIS_NATIVE_H
#define LR_ANALYSIS_NATIVE_H

#include "graph/graph.h"

/* Totals of one native_assign run. */
typedef struct native_stats {
    uint32_t cleaners;  /* Cleaner instances whose thunk is a registry thunk or a Deallocator */
    uint32_t owners;    /* distinct objects credited with native bytes */
    uint64_t bytes;     /* native bytes credited (before the per-object 4 GiB clamp) */
    uint32_t nocleaner; /* direct buffers made from an address, without a Cleaner (Netty's) */
} native_stats;

/* Adds registry and direct-buffer sizes to g->node_native (allocated, zeroed, when NULL and
 * something is found; left NULL otherwise). Costs O(classes) when the dump has neither thunk
 * class, else one pass over the nodes. Not idempotent (a second call adds the sizes again):
 * the CLI runs it once, in cli_open, right after loading. Cleaners are taken as dumped,
 * reachable or not, as Shark does. stats may be NULL. Returns LR_OK or LR_ERR_NOMEM. */
lr_status native_assign(graph *g, native_stats *stats, lr_error *err);

/* Which Cleaner-freed sizes native_assign_ex credits. NATIVE_FOREIGN: the memory an FFM
 * arena allocated (JDK 22+): its session's resource list holds, per allocation, a cleanup
 * (jdk.internal.foreign.SegmentFactories$1 on JDK 25) whose captured long
 * `val$allocationSize` (`val$alignedSize` before) is what it will free; the cleanup itself is
 * credited, so the arena's session and whatever alone holds it retain the bytes, until the
 * arena is closed (its list is emptied then). */
enum { NATIVE_REGISTRY = 1, NATIVE_DIRECT = 2, NATIVE_FOREIGN = 4, NATIVE_ALL = 7 };

/* native_assign for the kinds given: NATIVE_REGISTRY alone is Shark's rule (its
 * AndroidNativeSizeMapper knows no direct buffers), for `analyze --size-model shark`. */
lr_status native_assign_ex(graph *g, unsigned kinds, native_stats *stats, lr_error *err);

#endif
