// SPDX-License-Identifier: Apache-2.0
// leakray.AppWatcher: the explicit watching API of the leakray JVM agent. Call
// expectWeaklyReachable(obj, "why it should die") when obj reaches the end of its life
// (closed, disposed, removed); if it is still reachable 5 seconds later (after a GC), the agent
// counts it as retained and dumps and analyses the heap once enough are. Without the agent
// loaded every call returns at once: the jar may ship with an application permanently.
package leakray;

import java.util.concurrent.atomic.AtomicLong;
import leakcanary.KeyedWeakReference;

public final class AppWatcher {
    /** Set by the agent once it is ready; never set without it. */
    private static volatile boolean installed;
    private static final AtomicLong KEYS = new AtomicLong();
    /** Watch rules as "Class#method()", set by the agent; indexed by returned()'s rule. */
    private static volatile String[] rules = new String[0];
    /** Identity hashes of the object this thread watched last through returned() and of its
     * class, to watch an override calling super.close() once. Hashes, not references: a
     * WeakReference per close would cost the GC more than the watch, and a strong one to the
     * class would keep its class loader alive. */
    private static final ThreadLocal<int[]> LAST = new ThreadLocal<int[]>() {
        @Override protected int[] initialValue() {
            return new int[2];
        }
    };

    /** Descriptions of rule-watched objects ("Foo received java.io.Closeable#close()
     * callback"), indexed by the id the agent keeps with each object until it is retained. */
    private static volatile String[] descriptions = new String[0];
    /** Per class, the description id by rule (-1 until first used). */
    private static final ClassValue<int[]> DESCRIPTION_IDS = new ClassValue<int[]>() {
        @Override protected int[] computeValue(Class<?> type) {
            int[] ids = new int[rules.length];
            java.util.Arrays.fill(ids, -1);
            return ids;
        }
    };

    /** Whether the leakray agent is loaded and watching. */
    public static boolean isInstalled() {
        return installed;
    }

    /** Watches obj: it is expected to become weakly reachable within the agent's delay. */
    public static void expectWeaklyReachable(Object obj, String description) {
        if (!installed || obj == null) {
            return;
        }
        long now = System.nanoTime() / 1_000_000L;
        String key = "lr-" + Long.toHexString(KEYS.incrementAndGet());
        KeyedWeakReference ref = new KeyedWeakReference(obj, key,
                description == null ? "" : description, now, null);
        watch0(ref, now);
    }

    /**
     * Called by the agent's rewritten methods just before they return (watch rules such as
     * java.io.Closeable#close): watches self unless this thread just watched it.
     */
    public static void returned(Object self, int rule) {
        if (!installed || self == null) {
            return;
        }
        int[] last = LAST.get();
        int h = System.identityHashCode(self);
        int c = System.identityHashCode(self.getClass());
        if (last[0] == h && last[1] == c) {
            return;
        }
        last[0] = h;
        last[1] = c;
        int[] ids = DESCRIPTION_IDS.get(self.getClass());
        if (rule < 0 || rule >= ids.length) {
            return;
        }
        int id = ids[rule];
        if (id < 0) {
            id = describe(self.getClass().getName() + " received " + rules[rule] + " callback");
            ids[rule] = id;
        }
        watchRule0(self, id, System.nanoTime() / 1_000_000L);
    }

    private static synchronized int describe(String description) {
        String[] d = descriptions;
        for (int i = 0; i < d.length; i++) {
            if (d[i].equals(description)) {
                return i;
            }
        }
        String[] n = java.util.Arrays.copyOf(d, d.length + 1);
        n[d.length] = description;
        descriptions = n;
        return d.length;
    }

    /** Called by the agent when a rule-watched object is found retained: its reference. */
    static KeyedWeakReference retainedByRule(Object self, int id, long watchUptimeMillis,
                                             long retainedUptimeMillis) {
        String[] d = descriptions;
        String key = "lr-" + Long.toHexString(KEYS.incrementAndGet());
        KeyedWeakReference ref = new KeyedWeakReference(self, key,
                id >= 0 && id < d.length ? d[id] : "", watchUptimeMillis, null);
        ref.retainedUptimeMillis = retainedUptimeMillis;
        return ref;
    }

    private static native void watch0(KeyedWeakReference ref, long watchUptimeMillis);

    private static native void watchRule0(Object self, int description, long watchUptimeMillis);
}
