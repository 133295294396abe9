// SPDX-License-Identifier: Apache-2.0
// LeakDemo: a small program with a classic listener leak, watched the way LeakCanary does it.
// usage: java demo.LeakDemo OUT.hprof
// Five CheckoutScreen objects are opened and "destroyed". Each registers a listener with the
// process-wide EventBus on open but never unregisters, so the bus keeps every destroyed screen
// (and its 256 KB preview image) alive. After destroying a screen the program watches it with
// a leakcanary.KeyedWeakReference, runs the GC, and marks the references whose referent
// survived as retained, then writes a heap dump for `leakray analyze`.
package demo;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import leakcanary.KeyedWeakReference;

public class LeakDemo {
    /** A screen-like object with a lifecycle: it must be unreachable after onDestroy(). */
    static final class CheckoutScreen {
        final String title;
        final byte[] preview = new byte[256 * 1024];
        boolean destroyed;

        CheckoutScreen(String title) { this.title = title; }

        void onCreate() {
            // The leak: an anonymous listener captures `this` and is never removed.
            EventBus.register(new EventBus.Listener() {
                @Override public void onEvent(String event) {
                    if (!destroyed) System.out.println(title + " got " + event);
                }
            });
        }

        void onDestroy() { destroyed = true; }
    }

    /** A process-wide event bus: a static list of listeners. */
    static final class EventBus {
        interface Listener { void onEvent(String event); }

        static final List<Listener> LISTENERS = new ArrayList<>();

        static void register(Listener l) { LISTENERS.add(l); }
    }

    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final long START = System.nanoTime();

    static long uptimeMillis() { return (System.nanoTime() - START) / 1_000_000L; }

    static void watch(Object o, String description) {
        WATCHED.add(new KeyedWeakReference(o, UUID.randomUUID().toString(), description,
                                           uptimeMillis(), QUEUE));
    }

    public static void main(String[] args) throws Exception {
        for (int i = 1; i <= 5; i++) {
            CheckoutScreen s = new CheckoutScreen("Checkout step " + i);
            s.onCreate();
            s.onDestroy();
            watch(s, "demo.LeakDemo$CheckoutScreen received onDestroy()");
        }
        // A screen that is released properly: watched too, but collected.
        watch(new CheckoutScreen("Receipt"), "demo.LeakDemo$CheckoutScreen received onDestroy()");

        System.gc();
        Thread.sleep(100);
        System.gc();
        int retained = 0;
        for (KeyedWeakReference r : WATCHED) {
            if (r.get() != null) {
                r.retainedUptimeMillis = uptimeMillis();
                retained++;
            }
        }
        KeyedWeakReference.heapDumpUptimeMillis = uptimeMillis();
        System.out.println("LeakDemo: " + retained + " of " + WATCHED.size()
                           + " watched screens are still reachable after GC; dumping the heap");
        HotSpotDiagnosticMXBean bean =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
    }
}
