// SPDX-License-Identifier: Apache-2.0
// UnreachableWatched.java: watched objects that are no longer strongly reachable but not yet
// collected. "soft-only" is held by a SoftReference alone, "weak-only" by nothing but its
// KeyedWeakReference, "strong" by a static field. The heap is dumped with
// dumpHeap(path, false), which skips the GC, so the two unreachable pages are still in the
// dump; if a GC cleared "weak-only" before the dump, the dump is taken again.
// Usage: java UnreachableWatched OUT.hprof
package com.example.audit2;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.SoftReference;
import java.util.ArrayList;
import java.util.List;
import leakcanary.KeyedWeakReference;

class Screen {
    final String name;

    Screen(String name) {
        this.name = name;
    }
}

class Behind {
}

public class UnreachableWatched {
    /* Not watched: a Behind whose direct referrers are a WeakHashMap's entry (weak) and an
     * array a SoftReference holds (strong, but the array is only softly reachable): `path`
     * must call it softly reachable, as the JVM keeps it until memory runs short. */
    static SoftReference<Object[]> deep;
    static final java.util.WeakHashMap<Object, String> INDEX = new java.util.WeakHashMap<>();

    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static SoftReference<Screen> softHolder;
    static Screen strongHolder;

    static KeyedWeakReference watch(Object o, String key) {
        KeyedWeakReference r = new KeyedWeakReference(o, key, "screen " + key, 1000L, QUEUE);
        r.retainedUptimeMillis = 6000L;
        WATCHED.add(r);
        return r;
    }

    public static void main(String[] args) throws Exception {
        KeyedWeakReference.heapDumpUptimeMillis = 20000L;
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class);
        Behind behind = new Behind();
        deep = new SoftReference<>(new Object[] {behind});
        INDEX.put(behind, "behind");
        behind = null;
        strongHolder = new Screen("strong");
        watch(strongHolder, "strong");
        Screen soft = new Screen("soft-only");
        softHolder = new SoftReference<>(soft);
        watch(soft, "soft-only");
        soft = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            KeyedWeakReference weak = watch(new Screen("weak-only"), "weak-only-" + attempt);
            bean.dumpHeap(args[0], false);
            if (weak.get() != null && softHolder.get() != null)
                return;
            new java.io.File(args[0]).delete();
        }
        throw new IllegalStateException("the weakly held page was collected before every dump");
    }
}
