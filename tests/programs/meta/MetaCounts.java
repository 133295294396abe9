// SPDX-License-Identifier: Apache-2.0
// MetaCounts: a JVM heap with counts known in advance for the METADATA block of `analyze`
// (tests/e2e/metadata_counts.sh): five extra threads parked on a latch, 12,345 instances of
// Foo in one Foo[], an int[] and a byte[]. Prints the JVM's own live thread count, then
// writes a live heap dump to args[0] and lets the threads end.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;

public class MetaCounts {
    static class Foo {
        int a;
        long b;
        Object c;
    }

    static Object[] keep;

    public static void main(String[] args) throws Exception {
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(5);
        for (int i = 0; i < 5; i++) {
            Thread t = new Thread(() -> {
                started.countDown();
                try {
                    stop.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "worker-" + i);
            t.start();
        }
        started.await();
        Foo[] foos = new Foo[12345];
        for (int i = 0; i < foos.length; i++)
            foos[i] = new Foo();
        keep = new Object[] {foos, new int[1000], new byte[4096]};
        System.out.println("threads " + ManagementFactory.getThreadMXBean().getThreadCount());
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        stop.countDown();
    }
}
