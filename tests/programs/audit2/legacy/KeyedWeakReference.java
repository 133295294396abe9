// SPDX-License-Identifier: Apache-2.0
// com.squareup.leakcanary.KeyedWeakReference: the LeakCanary 1.x watcher reference, with its
// field names (key, name) and without the 2.x fields watchUptimeMillis,
// retainedUptimeMillis and heapDumpUptimeMillis: every instance with a referent counts as
// retained, and its description is read from `name`.
package com.squareup.leakcanary;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

final class KeyedWeakReference extends WeakReference<Object> {
    public final String key;
    public final String name;

    KeyedWeakReference(Object referent, String key, String name,
                       ReferenceQueue<Object> referenceQueue) {
        super(referent, referenceQueue);
        this.key = key;
        this.name = name;
    }
}
