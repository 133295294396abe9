// SPDX-License-Identifier: Apache-2.0
// FinQueue.java: the finalizer-queue leak. The Finalizer thread blocks in the first
// finalize() it runs; 20,000 more finalizable Res objects (16 bytes and a byte[1000] of 1,016
// each) become garbage behind it and the JVM keeps every one: 40,000 objects, 20,640,000
// bytes that no strong reference reaches. Writes a heap dump to args[0].
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;

public class FinQueue {
    static final CountDownLatch NEVER = new CountDownLatch(1);
    static volatile boolean first = true;

    static final class Res {
        final byte[] buf = new byte[1000];

        @Override
        @SuppressWarnings("removal")
        protected void finalize() throws Throwable {
            if (first) {
                first = false;
                NEVER.await();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        new Res();
        System.gc();
        Thread.sleep(300); // the Finalizer thread now waits in the first finalize()
        for (int i = 0; i < 20000; i++)
            new Res();
        System.gc();
        Thread.sleep(300);
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        System.exit(0);
    }
}
