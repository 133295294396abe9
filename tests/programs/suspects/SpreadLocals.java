// SPDX-License-Identifier: Apache-2.0
// SpreadLocals.java: 40 worker threads, each holding a 200 kB Payload in a local variable of
// its own frame while it waits: every thread keeps about 2 % of the heap, all of them
// together about 70 %. The threads are no suspects alone; their locals are, as one group.
// Usage: java SpreadLocals OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;

public class SpreadLocals {
    static final class Payload {
        final byte[] bytes = new byte[200_000];
    }

    public static void main(String[] args) throws Exception {
        int n = 40;
        CountDownLatch ready = new CountDownLatch(n), done = new CountDownLatch(1);
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                Payload held = new Payload();
                ready.countDown();
                try {
                    done.await();
                } catch (InterruptedException e) {
                    return;
                }
                if (held.bytes.length == 0)
                    System.out.println("never");
            }, "worker-" + i);
            t.setDaemon(true);
            t.start();
        }
        ready.await();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        done.countDown();
    }
}
