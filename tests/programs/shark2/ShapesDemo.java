// SPDX-License-Identifier: Apache-2.0
// ShapesDemo.java: more leak shapes for the Shark parity test, each watched by a
// leakcanary.KeyedWeakReference (tests/programs/leaks/KeyedWeakReference.java, compiled with
// it): a ConcurrentHashMap value, a LinkedHashMap value, a HashSet element, a
// CopyOnWriteArrayList element, an anonymous Runnable capturing a page in a static list, a page
// reachable only through a two-dimensional array, and a static inner-class chain. The program
// dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.shapes.ShapesDemo OUT.hprof
package com.example.shapes;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import leakcanary.KeyedWeakReference;

class Screen {
    final String name;
    final int[] state = new int[64];

    Screen(String name) {
        this.name = name;
    }
}

class Session {
    static Session current;
    Holder holder = new Holder();

    static class Holder {
        Screen screen;
    }
}

public class ShapesDemo {
    static final Map<String, Screen> CONCURRENT = new ConcurrentHashMap<>();
    static final Map<String, Screen> ORDERED = new LinkedHashMap<>();
    static final Set<Screen> SEEN = new HashSet<>();
    static final List<Screen> LISTENERS = new CopyOnWriteArrayList<>();
    static final List<Runnable> CALLBACKS = new ArrayList<>();
    static final Object[][] GRID = new Object[3][4];
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static int watchCount;

    static Screen watched(String name) {
        Screen s = new Screen(name);
        watchCount++;
        KeyedWeakReference ref = new KeyedWeakReference(s, "shape-" + watchCount,
                "screen " + name + " closed", 1000L * watchCount, QUEUE);
        ref.retainedUptimeMillis = 6000L + watchCount;
        WATCHED.add(ref);
        return s;
    }

    public static void main(String[] args) throws Exception {
        CONCURRENT.put("concurrent-screen", watched("concurrent"));
        ORDERED.put("first", new Screen("alive"));
        ORDERED.put("ordered-screen", watched("ordered"));
        SEEN.add(watched("seen"));
        LISTENERS.add(watched("listener"));
        Screen captured = watched("captured");
        // an anonymous class, not a lambda: a lambda's hidden class name carries an address
        // that changes per run, and so would the signature
        CALLBACKS.add(new Runnable() {
            public void run() {
                System.out.println(captured.name);
            }
        });
        GRID[2][3] = watched("grid");
        Session.current = new Session();
        Session.current.holder.screen = watched("session");
        KeyedWeakReference.heapDumpUptimeMillis = 20000L;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
