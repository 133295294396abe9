// SPDX-License-Identifier: Apache-2.0
// leakcanary.KeyedWeakReference: the shape of LeakCanary's watcher reference (same package,
// class and field names), so leak finders that look for watched objects find them in dumps
// written by plain JVM programs. A watched object is retained when retainedUptimeMillis != -1
// and the referent is still set.
package leakcanary;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

public final class KeyedWeakReference extends WeakReference<Object> {
    /** Uptime of the last heap dump; read to say how long an object was retained. */
    public static volatile long heapDumpUptimeMillis = 0L;

    public final String key;
    public final String description;
    public final long watchUptimeMillis;
    public volatile long retainedUptimeMillis = -1L;

    public KeyedWeakReference(Object referent, String key, String description,
                              long watchUptimeMillis, ReferenceQueue<Object> queue) {
        super(referent, queue);
        this.key = key;
        this.description = description;
        this.watchUptimeMillis = watchUptimeMillis;
    }
}
