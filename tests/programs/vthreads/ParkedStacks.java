// SPDX-License-Identifier: Apache-2.0
// ParkedStacks.java: 300 virtual threads parked at recursion depths of 5 to 65 frames (the
// shape of a server whose requests never finish): each parked thread's frames live in a
// jdk.internal.vm.StackChunk, a stack of its own size in the heap. Usage: java ParkedStacks
// OUT.hprof HISTO: prints "ready PID", waits (up to 30 s) until the file HISTO exists (the
// JVM's class histogram, taken from outside meanwhile), then writes the heap dump.
package com.example.vthreads;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

public class ParkedStacks {
    static final CountDownLatch FOREVER = new CountDownLatch(1);

    static long down(int depth, long acc) throws InterruptedException {
        if (depth == 0) {
            FOREVER.await();
            return acc;
        }
        return down(depth - 1, acc + depth) + 1;
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch parked = new CountDownLatch(300);
        for (int i = 0; i < 300; i++) {
            int depth = 5 + (i % 7) * 10;
            Thread.ofVirtual().name("vt-" + i).start(() -> {
                parked.countDown();
                try {
                    down(depth, 0);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        parked.await();
        Thread.sleep(500); // every thread reaches its await and unmounts
        System.gc();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        for (int i = 0; i < 3000 && !Files.exists(Path.of(args[1])); i++)
            Thread.sleep(10);
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        System.exit(0);
    }
}
