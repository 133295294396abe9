// SPDX-License-Identifier: Apache-2.0
// leakcanary.KeyedWeakReference: the reference the leakray agent wraps every watched object in.
// Same package, class and field names as LeakCanary's, so `leakray analyze` and Shark find the
// watched objects in the agent's heap dumps with no option: retained when retainedUptimeMillis
// is not -1 and the referent is still set; heapDumpUptimeMillis (set just before a dump) says
// for how long. The agent builds one when a watched object is found retained (or, for an
// object watched without a numbered description, when it is watched), and holds it through
// a JNI global reference until it is collected, dropped or cleared after a dump.
package leakcanary;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

public final class KeyedWeakReference extends WeakReference<Object> {
    /** Clock (System.nanoTime in ms) of the last heap dump, set by the agent before dumping. */
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
