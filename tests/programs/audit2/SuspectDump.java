// SPDX-License-Identifier: Apache-2.0
// SuspectDump.java: a heap with no watched objects, for MAT-style leak suspects. Three
// holders of known size:
//  - PageStore.CACHE, a static HashMap with one entry whose value, a Blob, keeps 4000
//    byte[1000] chunks in an ArrayList (about 4 MB): every step HashMap -> table -> Node ->
//    Blob -> ArrayList -> Object[] retains nearly all of its parent, so the accumulation point
//    is the ArrayList's Object[] elementData (the dominator-tree top above it is the class
//    loader, as in Eclipse MAT);
//  - a Session held by a local variable of thread "session-worker", whose HashMap keeps 500
//    byte[4000] values (about 2 MB): the accumulation point is the HashMap$Node[] table;
//  - a byte[][] held by a local variable of thread "small-worker" (about 240 KB, a few
//    percent of the heap): below the 10 % threshold, never reported.
// Usage: java com.example.audit2.SuspectDump OUT.hprof
package com.example.audit2;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

class Blob {
    final String name;
    final List<byte[]> chunks = new ArrayList<>();

    Blob(String name) {
        this.name = name;
    }
}

class PageStore {
    static final Map<String, Blob> CACHE = new HashMap<>();
}

class Session {
    final Map<Integer, byte[]> values = new HashMap<>();
}

/** Keeps what `make` builds in a local variable of its run() until the program exits. */
class Holder extends Thread {
    interface Maker {
        Object make();
    }

    static final CountDownLatch READY = new CountDownLatch(2);
    static volatile boolean exiting;
    private Maker maker;

    Holder(String name, Maker maker) {
        super(name);
        this.maker = maker;
        setDaemon(true);
    }

    @Override
    public void run() {
        Object held = maker.make();
        maker = null;
        READY.countDown();
        while (!exiting) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                break;
            }
        }
        java.lang.ref.Reference.reachabilityFence(held);
    }
}

public class SuspectDump {
    public static void main(String[] args) throws Exception {
        Blob b = new Blob("big-blob");
        for (int i = 0; i < 4000; i++)
            b.chunks.add(new byte[1000]);
        PageStore.CACHE.put("big", b);
        b = null;
        new Holder("session-worker", () -> {
            Session s = new Session();
            for (int i = 0; i < 500; i++)
                s.values.put(i, new byte[4000]);
            return s;
        }).start();
        new Holder("small-worker", () -> {
            byte[][] small = new byte[60][];
            for (int i = 0; i < small.length; i++)
                small[i] = new byte[4000];
            return small;
        }).start();
        Holder.READY.await();
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        Holder.exiting = true;
    }
}
