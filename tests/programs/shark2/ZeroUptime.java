// SPDX-License-Identifier: Apache-2.0
// ZeroUptime.java: one leaked page watched by a leakcanary.KeyedWeakReference, dumped without
// setting KeyedWeakReference.heapDumpUptimeMillis (it stays 0, as in a dump taken outside
// LeakCanary's own heap dumper). Shark then computes the watch and retained durations from 0
// and prints them negative; leakray prints none (a known difference of the parity tests).
// Usage: java com.example.zero.ZeroUptime OUT.hprof
package com.example.zero;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import leakcanary.KeyedWeakReference;

public class ZeroUptime {
    static final List<Object> KEPT = new ArrayList<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        Object page = new StringBuilder("zero-uptime page");
        KEPT.add(page);
        KeyedWeakReference ref = new KeyedWeakReference(page, "zero-1", "page kept after close",
                5000L, new ReferenceQueue<>());
        ref.retainedUptimeMillis = 7000L;
        WATCHED.add(ref);
        page = null;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
