// SPDX-License-Identifier: Apache-2.0
// KeyShapes.java: how a trace names map entries and which of two equally short paths it
// takes, each shape watched by a leakcanary.KeyedWeakReference
// (tests/programs/leaks/KeyedWeakReference.java, compiled with it):
//  - int-key: a HashMap value under a boxed Integer key;
//  - object-key: a HashMap value under a key of the program's own class;
//  - collide: the third entry of one HashMap bucket (keys with one hash code);
//  - chm-long: a ConcurrentHashMap value under a boxed Long key;
//  - tree: a TreeMap value deep in its red-black tree;
//  - twin-statics: one screen in static fields of two classes, at the same depth;
//  - static-and-local: one screen in a static and in a local of a parked thread.
// The program dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.keys.KeyShapes OUT.hprof
package com.example.keys;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import leakcanary.KeyedWeakReference;

class Screen {
    final String name;
    final byte[] pixels;

    Screen(String name, int size) {
        this.name = name;
        this.pixels = new byte[size];
    }
}

class Tag {
    final String label;

    Tag(String label) {
        this.label = label;
    }
}

class SameHash {
    final int n;

    SameHash(int n) {
        this.n = n;
    }

    @Override
    public int hashCode() {
        return 42;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SameHash && ((SameHash) o).n == n;
    }
}

class Alpha {
    static Object held;
}

class Beta {
    static Object held;
}

class Holder extends Thread {
    final Object kept;
    final CountDownLatch started = new CountDownLatch(1);

    Holder(Object kept) {
        super("key-holder");
        setDaemon(true);
        this.kept = kept;
    }

    @Override
    public void run() {
        Object local = kept;
        started.countDown();
        synchronized (this) {
            for (;;) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    System.out.println(local);
                    return;
                }
            }
        }
    }
}

public class KeyShapes {
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final Map<Integer, Screen> BY_INT = new HashMap<>();
    static final Map<Tag, Screen> BY_TAG = new HashMap<>();
    static final Map<SameHash, Screen> BUCKET = new HashMap<>();
    static final Map<Long, Screen> BY_LONG = new ConcurrentHashMap<>();
    static final Map<String, Screen> TREE = new TreeMap<>();
    static Object shared;
    static int count;

    static Screen watched(String name, int size) {
        Screen s = new Screen(name, size);
        count++;
        KeyedWeakReference ref = new KeyedWeakReference(s, "key-" + count,
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
        BY_INT.put(1, new Screen("alive", 10));
        BY_INT.put(70_000, watched("int-key", 31_000));
        BY_TAG.put(new Tag("main"), watched("object-key", 32_000));
        BUCKET.put(new SameHash(1), new Screen("alive-1", 10));
        BUCKET.put(new SameHash(2), new Screen("alive-2", 10));
        BUCKET.put(new SameHash(3), watched("collide", 33_000));
        BY_LONG.put(5_000_000_000L, watched("chm-long", 34_000));
        for (int i = 0; i < 40; i++)
            TREE.put(String.format("page-%02d", i), new Screen("tree-alive", 10));
        TREE.put("page-37x", watched("tree", 35_000));
        Screen twin = watched("twin-statics", 36_000);
        Alpha.held = twin;
        Beta.held = twin;
        Screen both = watched("static-and-local", 37_000);
        shared = both;
        Holder h = new Holder(both);
        h.start();
        h.started.await();

        settle("key-holder");
        KeyedWeakReference.heapDumpUptimeMillis = 30000L;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
