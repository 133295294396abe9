// SPDX-License-Identifier: Apache-2.0
// leakray.AppWatcher: the explicit watching API of the leakray JVM agent. Call
// expectWeaklyReachable(obj, "why it should die") when obj reaches the end of its life
// (closed, disposed, removed); if it is still reachable 5 seconds later (after a GC), the agent
// counts it as retained and dumps and analyses the heap once enough are. Without the agent
// loaded every call returns at once: the jar may ship with an application permanently.
package leakray;

import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicLong;
import leakcanary.KeyedWeakReference;

public final class AppWatcher {
    /** Set by the agent once it is ready; never set without it. */
    private static volatile boolean installed;
    private static final AtomicLong KEYS = new AtomicLong();
    /** Watch rules as "Class#method()", set by the agent; indexed by returned()'s rule. */
    private static volatile String[] rules = new String[0];
    /** The object this thread watched last through returned(), to watch an override calling
     * super.close() once. */
    private static final ThreadLocal<WeakReference<Object>> LAST = new ThreadLocal<>();
    /** Per class, the descriptions of returned() by rule, built once. */
    private static final ClassValue<String[]> DESCRIPTIONS = new ClassValue<String[]>() {
        @Override protected String[] computeValue(Class<?> type) {
            String[] r = rules;
            String[] d = new String[r.length];
            for (int i = 0; i < r.length; i++) {
                d[i] = type.getName() + " received " + r[i] + " callback";
            }
            return d;
        }
    };

    private AppWatcher() {}

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
        WeakReference<Object> last = LAST.get();
        if (last != null && last.get() == self) {
            return;
        }
        LAST.set(new WeakReference<>(self));
        String[] d = DESCRIPTIONS.get(self.getClass());
        expectWeaklyReachable(self, rule >= 0 && rule < d.length ? d[rule]
                : self.getClass().getName() + " received a watched method callback");
    }

    private static native void watch0(KeyedWeakReference ref, long watchUptimeMillis);
}
