// SPDX-License-Identifier: Apache-2.0
// JdkShapes.java: screens kept by JDK machinery a program reaches without meaning to, each
// watched by a leakcanary.KeyedWeakReference (tests/programs/leaks/KeyedWeakReference.java,
// compiled with it):
//  - cleaner: a java.lang.ref.Cleaner action that holds the object it cleans (so it never
//    becomes phantom reachable), kept by the Cleaner's thread;
//  - inherited: an InheritableThreadLocal value copied into a child thread, removed in the
//    parent only;
//  - hashtable: a java.util.Hashtable value;
//  - synchronized: an element of Collections.synchronizedList;
//  - list-of: an element of an immutable List.of(...);
//  - properties: a value put into the system properties.
// The program dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.jdk.JdkShapes OUT.hprof
package com.example.jdk;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.Cleaner;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
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

class Release implements Runnable {
    final Screen screen; // the action keeps what it cleans: the classic Cleaner mistake

    Release(Screen screen) {
        this.screen = screen;
    }

    public void run() {
    }
}

class Sleeper extends Thread {
    final CountDownLatch up = new CountDownLatch(1);

    Sleeper() {
        super("jdk-child");
        setDaemon(true);
    }

    @Override
    public void run() {
        up.countDown();
        try {
            Thread.sleep(600_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

public class JdkShapes {
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final Cleaner CLEANER = Cleaner.create();
    static final InheritableThreadLocal<Screen> INHERITED = new InheritableThreadLocal<>();
    static final Map<String, Object> TABLE = new Hashtable<>();
    static final List<Object> SYNC = Collections.synchronizedList(new ArrayList<>());
    static List<Object> frozen;
    static int count;

    static Screen watched(String name, int size) {
        Screen s = new Screen(name, size);
        count++;
        KeyedWeakReference ref = new KeyedWeakReference(s, "jdk-" + count,
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
        Screen cleaned = watched("cleaner", 41_000);
        CLEANER.register(cleaned, new Release(cleaned));
        cleaned = null;

        INHERITED.set(watched("inherited", 42_000));
        Sleeper child = new Sleeper();
        child.start();
        child.up.await();
        INHERITED.remove();

        TABLE.put("t", watched("hashtable", 43_000));
        SYNC.add(watched("synchronized", 44_000));
        frozen = List.of("a", "b", watched("list-of", 45_000));
        System.getProperties().put("jdk.shapes.screen", watched("properties", 46_000));

        settle("jdk-child", "Cleaner-");
        KeyedWeakReference.heapDumpUptimeMillis = 30000L;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
