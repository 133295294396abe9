// SPDX-License-Identifier: Apache-2.0
// KeyedWeakReference.java: a stand-in for LeakCanary's watcher reference, with LeakCanary's
// class name and field names, so leakray finds watched objects in dumps of plain JVM test
// programs exactly as it would in an Android app's dump.
package leakcanary;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

public class KeyedWeakReference extends WeakReference<Object> {
    /** Uptime at which the heap dump was taken (LeakCanary sets it just before dumping). */
    public static volatile long heapDumpUptimeMillis;

    public final String key;
    public final String description;
    public final long watchUptimeMillis;
    public volatile long retainedUptimeMillis;

    public KeyedWeakReference(Object referent, String key, String description,
                              long watchUptimeMillis, ReferenceQueue<Object> queue) {
        super(referent, queue);
        this.key = key;
        this.description = description;
        this.watchUptimeMillis = watchUptimeMillis;
        this.retainedUptimeMillis = -1L;
    }
}
