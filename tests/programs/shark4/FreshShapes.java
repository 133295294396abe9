// SPDX-License-Identifier: Apache-2.0
// FreshShapes.java: leak shapes none of the other Shark parity programs has, each watched by a
// leakcanary.KeyedWeakReference (tests/programs/leaks/KeyedWeakReference.java, compiled with
// it), so Shark and leakray both find them with no option:
//  - queued: an anonymous Runnable made in a screen's own method (so it holds the screen
//    through this$0) waits in the work queue of a static single-thread executor whose only
//    thread is still busy with an earlier task;
//  - deque: a screen held only by the slot array of a static ArrayDeque;
//  - lru-key: a static access-ordered LinkedHashMap (an anonymous subclass that evicts its
//    eldest entry) whose key, not its value, holds the screen in a field;
//  - enum-body: an enum constant with a body of its own (a class of its own) keeps the last
//    screen it was shown;
//  - shutdown-hook: an unstarted Thread registered as a shutdown hook keeps a screen;
//  - crash-handler: the JVM-wide default uncaught exception handler keeps a screen;
//  - interface-constant: a list in a static field of an interface keeps a screen;
//  - atomic: a static AtomicReference keeps a screen;
//  - soft-only: a screen reachable only through a SoftReference (no strong path: Shark and
//    leakray both count it unreachable);
//  - dies: a control, a watched screen nothing keeps, collected by the dump's own GC.
// Anonymous classes, not lambdas: a lambda's hidden class name carries an address that may
// change per run, and the leak signature with it. The program dumps its heap with
// HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.fresh.FreshShapes OUT.hprof
package com.example.fresh;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import leakcanary.KeyedWeakReference;

class Screen {
    final String name;
    final byte[] pixels;

    Screen(String name, int size) {
        this.name = name;
        this.pixels = new byte[size];
    }

    // the Runnable is made here, so it is an inner class of Screen and keeps it in this$0
    void refreshLater(ExecutorService on) {
        on.execute(new Runnable() {
            public void run() {
                System.out.println(name);
            }
        });
    }
}

class CacheKey {
    final String id;
    final Screen owner;

    CacheKey(String id, Screen owner) {
        this.id = id;
        this.owner = owner;
    }
}

enum Theme {
    LIGHT,
    DARK {
        Screen last;

        @Override
        void show(Screen s) {
            last = s;
        }
    };

    void show(Screen s) {
    }
}

class HookThread extends Thread {
    final Screen screen;

    HookThread(Screen screen) {
        super("fresh-hook");
        this.screen = screen;
    }

    @Override
    public void run() {
    }
}

class CrashReporter implements Thread.UncaughtExceptionHandler {
    final Screen screen;

    CrashReporter(Screen screen) {
        this.screen = screen;
    }

    public void uncaughtException(Thread t, Throwable e) {
    }
}

interface Recents {
    List<Object> SCREENS = new ArrayList<>();
}

public class FreshShapes {
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final ExecutorService WORKER = Executors.newSingleThreadExecutor();
    static final CountDownLatch RELEASE = new CountDownLatch(1);
    static final ArrayDeque<Object> HISTORY = new ArrayDeque<>();
    static final Map<CacheKey, String> LRU = new LinkedHashMap<CacheKey, String>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<CacheKey, String> eldest) {
            return size() > 8;
        }
    };
    static final AtomicReference<Screen> CURRENT = new AtomicReference<>();
    static SoftReference<Screen> softScreen;
    static int count;

    static Screen watched(String name, int size) {
        Screen s = new Screen(name, size);
        count++;
        KeyedWeakReference ref = new KeyedWeakReference(s, "fresh-" + count,
                "screen " + name + " closed", 1000L * count, QUEUE);
        ref.retainedUptimeMillis = 6000L + count;
        WATCHED.add(ref);
        return s;
    }

    // waits (up to 5 s) until the named threads are parked, so their frames, and what their
    // locals and parkBlocker hold, are the same in every dump
    static void settle(String... names) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            boolean parked = true;
            for (Thread t : Thread.getAllStackTraces().keySet())
                for (String n : names)
                    if (t.getName().startsWith(n) && t.getState() != Thread.State.WAITING
                            && t.getState() != Thread.State.TIMED_WAITING)
                        parked = false;
            if (parked)
                return;
            Thread.sleep(10);
        }
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        WORKER.execute(new Runnable() {
            public void run() {
                busy.countDown();
                try {
                    RELEASE.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        busy.await();
        watched("queued", 11_000).refreshLater(WORKER);

        HISTORY.add("first");
        HISTORY.add(watched("deque", 12_000));

        LRU.put(new CacheKey("a", new Screen("alive", 100)), "alive");
        LRU.put(new CacheKey("b", watched("lru-key", 13_000)), "b");

        Theme.DARK.show(watched("enum-body", 14_000));
        Runtime.getRuntime().addShutdownHook(new HookThread(watched("shutdown-hook", 15_000)));
        Thread.setDefaultUncaughtExceptionHandler(
                new CrashReporter(watched("crash-handler", 16_000)));
        Recents.SCREENS.add(watched("interface-constant", 17_000));
        CURRENT.set(watched("atomic", 18_000));
        softScreen = new SoftReference<>(watched("soft-only", 19_000));
        watched("dies", 20_000);

        settle("pool-1-thread-1");
        KeyedWeakReference.heapDumpUptimeMillis = 30000L;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        RELEASE.countDown();
        WORKER.shutdownNow();
    }
}
