// SPDX-License-Identifier: Apache-2.0
// SizesDemo.java: leak shapes where the sizes a leak trace prints could contradict the trace,
// for the Shark parity and trace-size tests. The thread `main` also keeps the first two
// leaking pages in local variables: Shark ignores main's locals when it looks for paths, so
// the sizes above the pages must ignore them too (a Thread retaining 192 B above a 33 kB page
// would contradict the path through it). Shapes: a page held by a worker thread's Runnable; a
// page as a HashMap value; three pages in one ArrayList (one signature, a group of three); two
// pages in a static Object[]; a page in a LinkedList. Each is watched by a
// leakcanary.KeyedWeakReference (tests/programs/leaks/KeyedWeakReference.java, compiled with
// it), then the program dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.sizes.SizesDemo OUT.hprof
package com.example.sizes;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import leakcanary.KeyedWeakReference;

class Page {
    final String name;
    final byte[] pixels;
    boolean destroyed = true;

    Page(String name, int bytes) {
        this.name = name;
        this.pixels = new byte[bytes];
    }
}

class Worker implements Runnable {
    static final CountDownLatch STARTED = new CountDownLatch(1);
    static volatile boolean exiting;
    Page page;

    public void run() {
        STARTED.countDown();
        while (!exiting) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}

public class SizesDemo {
    static final Map<String, Page> REGISTRY = new HashMap<>();
    static final List<Page> HISTORY = new ArrayList<>();
    static final Object[] SLOTS = new Object[4];
    static final LinkedList<Page> BACKLOG = new LinkedList<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static int watchCount;

    static void watch(Object o, String description) {
        watchCount++;
        KeyedWeakReference ref = new KeyedWeakReference(o, "size-" + watchCount, description,
                1000L * watchCount, QUEUE);
        ref.retainedUptimeMillis = 6000L + watchCount;
        WATCHED.add(ref);
    }

    public static void main(String[] args) throws Exception {
        // 1. a worker thread's Runnable, also in main's local `held`
        Page held = new Page("worker", 33000);
        Worker w = new Worker();
        w.page = held;
        Thread t = new Thread(w, "sizes-worker");
        t.setDaemon(true);
        t.start();
        watch(held, "page handed to a worker");
        // 2. a HashMap value, also in main's local `registered`
        Page registered = new Page("registry", 67000);
        REGISTRY.put("registered-page", registered);
        watch(registered, "page left in a registry");
        // 3. three pages in one list: one signature, one group
        for (int i = 0; i < 3; i++) {
            Page p = new Page("history-" + i, 5000 + 1000 * i);
            HISTORY.add(p);
            watch(p, "page kept in history");
        }
        // 4. two slots of a static array
        for (int i = 1; i < 4; i += 2) {
            Page p = new Page("slot-" + i, 4000);
            SLOTS[i] = p;
            watch(p, "page in a slot");
        }
        // 5. a linked list entry
        Page queued = new Page("backlog", 6000);
        BACKLOG.add(queued);
        watch(queued, "page in a backlog");
        queued = null;

        Worker.STARTED.await();
        KeyedWeakReference.heapDumpUptimeMillis = 20000L;
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        Worker.exiting = true;
        // keeps both locals live (and in main's frame) until after the dump
        System.out.println(held.name.length() + registered.name.length() > 0 ? "" : "-");
    }
}
