// SPDX-License-Identifier: Apache-2.0
// FourShapes.java: four leak shapes, each watched by a leakcanary.KeyedWeakReference
// (tests/programs/leaks/KeyedWeakReference.java, compiled with it):
//  - weak-map: a WeakHashMap whose value holds its own key, so the key is never collected;
//  - timer: an anonymous TimerTask, scheduled on a java.util.Timer, keeps its screen;
//  - pool-listeners: a listener list in a ThreadLocal of a pool thread keeps a screen's
//    anonymous listener (the ThreadLocal itself is still alive, in a static);
//  - driver: a class loaded by its own URLClassLoader registers an instance in a static
//    registry of the application (as a JDBC driver does with DriverManager); the loader is
//    closed and watched, and nothing but that instance keeps it.
// The program dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.four.FourShapes OUT.hprof DRIVER_URL
package com.example.four;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Timer;
import java.util.TimerTask;
import java.util.WeakHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import leakcanary.KeyedWeakReference;

class Screen {
    final String name;
    final byte[] pixels;

    Screen(String name, int size) {
        this.name = name;
        this.pixels = new byte[size];
    }
}

class Meta {
    final Screen owner; // the value holds the key: the WeakHashMap never drops the entry

    Meta(Screen owner) {
        this.owner = owner;
    }
}

interface Listener {
    void changed();
}

class DriverRegistry {
    static final List<Object> DRIVERS = new ArrayList<>();
}

public class FourShapes {
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final Map<Screen, Meta> META = new WeakHashMap<>();
    static final Timer TIMER = new Timer("refresh-timer", true);
    static final ExecutorService POOL = Executors.newFixedThreadPool(1);
    static final ThreadLocal<List<Listener>> LISTENERS = ThreadLocal.withInitial(ArrayList::new);
    static int count;

    static void watch(Object o, String name) {
        count++;
        KeyedWeakReference ref = new KeyedWeakReference(o, "four-" + count, name + " closed",
                1000L * count, QUEUE);
        ref.retainedUptimeMillis = 6000L + count;
        WATCHED.add(ref);
    }

    static Screen watched(String name, int size) {
        Screen s = new Screen(name, size);
        watch(s, name);
        return s;
    }

    public static void main(String[] args) throws Exception {
        Screen weak = watched("weak-map", 30_000);
        META.put(weak, new Meta(weak));
        weak = null;

        final Screen timed = watched("timer", 60_000);
        TIMER.schedule(new TimerTask() {
            public void run() {
                System.out.println(timed.name);
            }
        }, 3_600_000L);

        final Screen listening = watched("pool-listeners", 120_000);
        POOL.submit(() -> LISTENERS.get().add(new Listener() {
            public void changed() {
                System.out.println(listening.name);
            }
        })).get();

        URLClassLoader loader = new URLClassLoader(new URL[] {new URL(args[1])},
                FourShapes.class.getClassLoader());
        DriverRegistry.DRIVERS.add(loader.loadClass("FakeDriver").getDeclaredConstructor()
                .newInstance());
        loader.close();
        watch(loader, "driver loader");
        loader = null;

        KeyedWeakReference.heapDumpUptimeMillis = 20000L;
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        TIMER.cancel();
        POOL.shutdownNow();
    }
}
