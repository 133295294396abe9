// SPDX-License-Identifier: Apache-2.0
// PoolLocals.java OUT.hprof K: four workers of one pool each wait inside a request; the K-th
// task's request holds 300 rows of 10 kB in a local list, the others one row. Which pool
// thread (pool-1-thread-N) runs task K is the scheduler's choice, so two runs of one program
// put the same 3 MB under another thread's name.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public class PoolLocals {
    static void serve(int task, int heavy, CountDownLatch started, CountDownLatch end)
            throws InterruptedException {
        List<byte[]> rows = new ArrayList<>();
        for (int i = 0; i < (task == heavy ? 300 : 1); i++)
            rows.add(new byte[10_000]);
        started.countDown();
        end.await();
        System.out.println(rows.size());
    }

    public static void main(String[] args) throws Exception {
        int heavy = Integer.parseInt(args[1]);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch started = new CountDownLatch(4), end = new CountDownLatch(1);
        for (int i = 0; i < 4; i++) {
            final int task = i;
            pool.submit(() -> {
                serve(task, heavy, started, end);
                return null;
            });
        }
        started.await();
        System.gc();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        System.exit(0);
    }
}
