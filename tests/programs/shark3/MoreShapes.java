// SPDX-License-Identifier: Apache-2.0
// MoreShapes.java: leak shapes not covered by the other programs, each watched by a
// leakcanary.KeyedWeakReference (tests/programs/leaks/KeyedWeakReference.java, compiled with
// it): a listener list in an enum singleton, an anonymous Runnable scheduled on a
// ScheduledExecutorService, a ThreadLocal value left on a pool thread after the ThreadLocal
// itself is gone (a stale entry, still on the GC's pending list when the dump is written), a
// static cache keyed by interned strings, a java.util.logging handler on the root logger,
// and a queue over an Object[] (a field of its superclass) whose poll() leaves the slot set:
// the page left there weighs 4 MB, so it is also the heap's largest retainer. Two watched
// references are cleared before the dump: one the watcher had found retained (it counts as
// "retained yet cleared"), one it had not (an object collected as expected).
// The program dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.more.MoreShapes OUT.hprof [no-cleared]
package com.example.more;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import leakcanary.KeyedWeakReference;

class Page {
    final String name;
    final byte[] pixels;

    Page(String name, int size) {
        this.name = name;
        this.pixels = new byte[size];
    }
}

enum Registry {
    INSTANCE;
    final List<Object> listeners = new ArrayList<>();
}

class PageListener {
    final Page page;

    PageListener(Page page) {
        this.page = page;
    }
}

class PageHandler extends Handler {
    final Page page;

    PageHandler(Page page) {
        this.page = page;
    }

    public void publish(LogRecord r) {
    }

    public void flush() {
    }

    public void close() {
    }
}

class BaseQueue {
    final Object[] items = new Object[16];
}

class RingQueue extends BaseQueue {
    int head;
    int tail;

    void offer(Object o) {
        items[tail++ & 15] = o;
    }

    Object poll() {
        return items[head++ & 15]; // the slot keeps its object
    }
}

public class MoreShapes {
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final Map<String, Page> SESSIONS = new HashMap<>();
    static final RingQueue RING = new RingQueue();
    static final ScheduledExecutorService SCHEDULER = Executors.newScheduledThreadPool(1);
    static final ExecutorService POOL = Executors.newFixedThreadPool(1);
    static ThreadLocal<Page> current = new ThreadLocal<>();
    static int count;

    static KeyedWeakReference watch(Object o, String name, boolean retained) {
        count++;
        KeyedWeakReference ref = new KeyedWeakReference(o, "more-" + count,
                name + " closed", 1000L * count, QUEUE);
        if (retained)
            ref.retainedUptimeMillis = 6000L + count;
        WATCHED.add(ref);
        return ref;
    }

    static Page watched(String name, int size) {
        Page p = new Page(name, size);
        watch(p, name, true);
        return p;
    }

    public static void main(String[] args) throws Exception {
        Registry.INSTANCE.listeners.add(new PageListener(watched("enum-listener", 10_000)));
        final Page scheduled = watched("scheduled", 20_000);
        SCHEDULER.scheduleAtFixedRate(new Runnable() {
            public void run() {
                System.out.println(scheduled.name);
            }
        }, 1, 1, TimeUnit.HOURS);
        POOL.submit(() -> current.set(watched("thread-local", 300_000))).get();
        SESSIONS.put(new String("session-42").intern(), watched("interned", 40_000));
        Logger.getLogger("").addHandler(new PageHandler(watched("logging", 50_000)));
        RING.offer(watched("ring", 4_000_000));
        RING.offer(new Page("live", 100));
        RING.poll();
        if (!(args.length > 1 && args[1].equals("no-cleared"))) {
            watch(new Object(), "cleared-retained", true).clear();
            watch(new Object(), "cleared-early", false).clear();
        }
        KeyedWeakReference.heapDumpUptimeMillis = 20000L;
        // the ThreadLocal goes now, so the dump's own GC clears its entry's key
        current = null;
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        SCHEDULER.shutdownNow();
        POOL.shutdownNow();
    }
}
