// SPDX-License-Identifier: Apache-2.0
// LegacyLeak.java: a leak watched by LeakCanary 1.x's com.squareup.leakcanary.RefWatcher
// (legacy KeyedWeakReference without retainedUptimeMillis), plus one watched object that is
// collected. Usage: java com.example.audit2.LegacyLeak OUT.hprof
package com.example.audit2;

import com.squareup.leakcanary.RefWatcher;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

class Registry {
    static final List<Object> LISTENERS = new ArrayList<>();
}

class OldActivity {
    final String title;

    OldActivity(String title) {
        this.title = title;
    }
}

public class LegacyLeak {
    static final RefWatcher WATCHER = new RefWatcher();

    public static void main(String[] args) throws Exception {
        OldActivity leaked = new OldActivity("leaked");
        Registry.LISTENERS.add(leaked);
        WATCHER.watch(leaked, "legacy-key-1", "OldActivity leaked");
        leaked = null;
        WeakReference<?> gone = (WeakReference<?>) WATCHER.watch(new OldActivity("gone"),
                "legacy-key-2", "OldActivity gone");
        for (int i = 0; i < 100 && gone.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        if (gone.get() != null)
            throw new IllegalStateException("watched object was not collected");
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
    }
}
