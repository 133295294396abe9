// SPDX-License-Identifier: Apache-2.0
// BoxShapes.java: what the retained sizes of leak traces weigh, each shape watched by a
// leakcanary.KeyedWeakReference (tests/programs/leaks/KeyedWeakReference.java, compiled with
// it):
//  - boxed: a screen keeps a Long[] of boxed values (none cached) and an Integer[] of small
//    cached ones (the JDK's Integer cache holds those too);
//  - strings: a screen keeps a String[] of strings of its own and an interned literal;
//  - shared: two screens in one static list share one buffer, which neither dominates;
//  - cycle: a screen in a ring of nodes that point back at it;
//  - main-local: a screen held only by a local variable of the main thread, which Shark's
//    JDK defaults ignore (the main thread's locals), so it has no trace there.
// The program dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.box.BoxShapes OUT.hprof
package com.example.box;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import leakcanary.KeyedWeakReference;

class Screen {
    final String name;
    final byte[] pixels;
    Object extra;

    Screen(String name, int size) {
        this.name = name;
        this.pixels = new byte[size];
    }
}

class Samples {
    final Long[] longs = new Long[40];
    final Integer[] small = new Integer[10];

    Samples() {
        for (int i = 0; i < longs.length; i++)
            longs[i] = Long.valueOf(1_000_000L + i);
        for (int i = 0; i < small.length; i++)
            small[i] = Integer.valueOf(i);
    }
}

class Ring {
    Ring next;
    Object owner;
}

public class BoxShapes {
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final List<Screen> OPEN = new ArrayList<>();
    static Screen boxed;
    static Screen strings;
    static Ring ring;
    static int count;

    static Screen watched(String name, int size) {
        Screen s = new Screen(name, size);
        count++;
        KeyedWeakReference ref = new KeyedWeakReference(s, "box-" + count,
                "screen " + name + " closed", 1000L * count, QUEUE);
        ref.retainedUptimeMillis = 6000L + count;
        WATCHED.add(ref);
        return s;
    }

    public static void main(String[] args) throws Exception {
        boxed = watched("boxed", 1_000);
        boxed.extra = new Samples();

        strings = watched("strings", 2_000);
        String[] names = new String[8];
        for (int i = 0; i < names.length; i++)
            names[i] = "name-" + i * 7;
        names[0] = "literal";
        strings.extra = names;

        byte[] buffer = new byte[50_000];
        Screen left = watched("shared-left", 3_000);
        Screen right = watched("shared-right", 4_000);
        left.extra = buffer;
        right.extra = buffer;
        OPEN.add(left);
        OPEN.add(right);

        Screen inRing = watched("cycle", 5_000);
        ring = new Ring();
        ring.next = new Ring();
        ring.next.next = new Ring();
        ring.next.next.next = ring;
        ring.next.next.owner = inRing;
        inRing.extra = ring.next;

        Screen local = watched("main-local", 6_000);

        KeyedWeakReference.heapDumpUptimeMillis = 30000L;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        System.out.println(local.name);
    }
}
