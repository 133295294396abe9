// SPDX-License-Identifier: Apache-2.0
// LeakDemo.java: a program that leaks in five known ways, watches each leaked object with a
// leakcanary.KeyedWeakReference (as LeakCanary's ObjectWatcher would), watches one more
// object that really is collected, and dumps its own heap with
// HotSpotDiagnosticMXBean.dumpHeap(path, true). Usage: java com.example.LeakDemo OUT.hprof
// The e2e tests (tests/e2e/analyze_*.sh) assert the traces leakray finds in that dump.
package com.example;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import leakcanary.KeyedWeakReference;

interface Listener {
    void onEvent();
}

/** A screen-like object with a lifecycle; `destroyed` is what --leaking-if tests. */
class Page {
    final String name;
    boolean destroyed;
    Object child;

    Page(String name) {
        this.name = name;
    }

    /** Registers an anonymous listener that captures this page. */
    void register() {
        EventBus.LISTENERS.add(new Listener() {
            @Override
            public void onEvent() {
                System.out.println(name);
            }
        });
    }

    /** A task that runs on a long-lived thread and, as an inner class, holds its page. */
    class RefreshTask implements Runnable {
        @Override
        public void run() {
            LeakDemo.ready.countDown();
            LeakDemo.parkUntilExit();
        }
    }
}

class EventBus {
    static final List<Listener> LISTENERS = new ArrayList<>();
}

class PageCache {
    static final Map<String, Object> CACHE = new HashMap<>();
}

/** Holds a page in a local variable of its run() method while it sleeps. */
class LocalHolder extends Thread {
    static volatile Object handoff;

    LocalHolder() {
        super("local-holder");
        setDaemon(true);
    }

    @Override
    public void run() {
        Object page = handoff;
        handoff = null;
        LeakDemo.ready.countDown();
        LeakDemo.parkUntilExit();
        java.lang.ref.Reference.reachabilityFence(page);
    }
}

public class LeakDemo {
    static final CountDownLatch ready = new CountDownLatch(2);
    static volatile boolean exiting;
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final ThreadLocal<Object> CURRENT_PAGE = new ThreadLocal<>();
    /** Not watched: only --watch com.example.Page --leaking-if 'destroyed' finds these. */
    static Page destroyedUnwatched;
    static Page alivePage;
    /** Holds page "outer", which alone holds the watched page "inner". */
    static Page outerHolder;

    static void parkUntilExit() {
        while (!exiting) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static int watchCount;

    static KeyedWeakReference watch(Object o, String description) {
        watchCount++;
        KeyedWeakReference ref = new KeyedWeakReference(o, "key-" + watchCount, description,
                1000L * watchCount, QUEUE);
        ref.retainedUptimeMillis = 6000L + watchCount;
        WATCHED.add(ref);
        return ref;
    }

    static Page destroyed(String name) {
        Page p = new Page(name);
        p.destroyed = true;
        return p;
    }

    public static void main(String[] args) throws Exception {
        // 1. anonymous listeners left in a static list (two pages, same signature)
        Page listenerA = destroyed("listener-a");
        listenerA.register();
        watch(listenerA, "com.example.Page received Page#onDestroy() callback");
        Page listenerB = destroyed("listener-b");
        listenerB.register();
        watch(listenerB, "com.example.Page received Page#onDestroy() callback");
        listenerA = listenerB = null;

        // 2. an object left in a static cache map
        Page cached = destroyed("cached");
        PageCache.CACHE.put("cached-page", cached);
        watch(cached, "cached page should have been evicted");
        cached = null;

        // 3. an inner class instance held by a long-lived thread
        Page worker = destroyed("worker");
        Thread t = new Thread(worker.new RefreshTask(), "refresh-worker");
        t.setDaemon(true);
        t.start();
        watch(worker, "page refreshed on a worker thread");
        worker = null;

        // 4. a ThreadLocal value of the main thread
        Page local = destroyed("thread-local");
        CURRENT_PAGE.set(local);
        watch(local, "page kept in a ThreadLocal");
        local = null;

        // 5. a local variable of a live thread
        Page held = destroyed("held-by-local");
        LocalHolder.handoff = held;
        new LocalHolder().start();
        watch(held, "page held by a thread's local variable");
        held = null;

        // 6. reachable only through another leaking object
        Page outer = destroyed("outer");
        Page inner = destroyed("inner");
        outer.child = inner;
        outerHolder = outer;
        watch(outer, "outer page");
        watch(inner, "inner page");
        outer = inner = null;

        // 7. a watched object that is really collected: must not be reported
        KeyedWeakReference collected = watch(destroyed("collected"), "collected page");

        destroyedUnwatched = destroyed("destroyed-unwatched");
        alivePage = new Page("alive");

        ready.await();
        for (int i = 0; i < 100 && collected.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        if (collected.get() != null)
            throw new IllegalStateException("watched object was not collected");
        KeyedWeakReference.heapDumpUptimeMillis = 20000L;
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        exiting = true;
    }
}
