// SPDX-License-Identifier: Apache-2.0
// VirtualLeaks.java: leaks held by virtual threads (JDK 21 and later), each watched by a
// leakcanary.KeyedWeakReference (tests/programs/leaks/KeyedWeakReference.java, compiled with
// it), for dumps of current JDKs:
//  - parked-local: a screen held only by a local of a virtual thread parked on a latch (its
//    stack is unmounted, in the heap, when the dump is written);
//  - running-local: a screen held only by a local of a virtual thread that spins, mounted on a
//    carrier thread, while the dump is written;
//  - vthread-local: a screen in a ThreadLocal of the parked virtual thread;
//  - static: a screen in a static list, the control every JDK agrees on.
// The program waits until the parked thread is WAITING and the spinning one has started,
// then dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true); given HISTO, it
// first prints "ready PID" and waits until the file HISTO exists (scripts/golden-jdk25.sh
// writes there the JVM's own class histogram, jcmd GC.class_histogram, meanwhile).
// Usage: java com.example.vthreads.VirtualLeaks OUT.hprof [HISTO]
package com.example.vthreads;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import leakcanary.KeyedWeakReference;

public class VirtualLeaks {
    static final class Screen {
        final String name;
        final byte[] pixels;

        Screen(String name, int size) {
            this.name = name;
            this.pixels = new byte[size];
        }
    }

    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final List<Screen> SCREENS = new ArrayList<>();
    static final ThreadLocal<Screen> CURRENT = new ThreadLocal<>();
    static final CountDownLatch RELEASE = new CountDownLatch(1);
    static final CountDownLatch STARTED = new CountDownLatch(2);
    static volatile boolean stop;
    static volatile long sink;
    static int count;

    static <T> T watch(T o, String name) {
        count++;
        KeyedWeakReference ref = new KeyedWeakReference(o, "vt-" + count, name + " closed",
                1000L * count, QUEUE);
        ref.retainedUptimeMillis = 6000L + count;
        WATCHED.add(ref);
        return o;
    }

    static void parked() {
        Screen kept = watch(new Screen("parked-local", 31_000), "parked-local");
        CURRENT.set(watch(new Screen("vthread-local", 32_000), "vthread-local"));
        STARTED.countDown();
        try {
            RELEASE.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sink += kept.pixels.length;
    }

    static void running() {
        Screen kept = watch(new Screen("running-local", 33_000), "running-local");
        STARTED.countDown();
        long n = 0;
        while (!stop)
            n += kept.name.length();
        sink += n;
    }

    // waits (up to 30 s) until the file exists: written by whoever took the histogram
    static void awaitHistogram(String path) throws InterruptedException {
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        for (int i = 0; i < 3000 && !Files.exists(Path.of(path)); i++)
            Thread.sleep(10);
    }

    public static void main(String[] args) throws Exception {
        SCREENS.add(watch(new Screen("static", 30_000), "static"));
        Thread p = Thread.ofVirtual().name("vt-parked").start(VirtualLeaks::parked);
        Thread r = Thread.ofVirtual().name("vt-running").start(VirtualLeaks::running);
        STARTED.await();
        for (int i = 0; i < 500 && p.getState() != Thread.State.WAITING; i++)
            Thread.sleep(10);
        KeyedWeakReference.heapDumpUptimeMillis = 30000L;
        if (args.length > 1)
            awaitHistogram(args[1]);
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        stop = true;
        RELEASE.countDown();
        p.join();
        r.join();
    }
}
