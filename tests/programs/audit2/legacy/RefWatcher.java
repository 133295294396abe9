// SPDX-License-Identifier: Apache-2.0
// RefWatcher.java: the LeakCanary 1.x entry point, reduced to watch(), so the package-private
// legacy KeyedWeakReference is created the way 1.x created it.
package com.squareup.leakcanary;

import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;

public final class RefWatcher {
    private final List<KeyedWeakReference> retainedKeys = new ArrayList<>();
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();

    public Object watch(Object watched, String key, String referenceName) {
        KeyedWeakReference r = new KeyedWeakReference(watched, key, referenceName, queue);
        retainedKeys.add(r);
        return r;
    }
}
