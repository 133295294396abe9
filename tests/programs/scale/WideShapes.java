// WideShapes.java: two heap dumps whose width, not size, once made analyses quadratic.
//   threads N OUT  N parked threads, each with seven frames holding a byte[] local: the leak
//                  suspects read every root once per thread, `threads` once per frame.
//   star N OUT     N Spoke objects held by one static Object[]: a watched object's trace
//                  named its array entry by counting the entries before it.
//   list N OUT     N Spoke objects in a static LinkedList: `clusters` made one cluster per
//                  list node (each node's chain one link longer).
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedList;
import java.util.concurrent.CountDownLatch;

public class WideShapes {
    static class Spoke { int i; Spoke(int i) { this.i = i; } }
    static Object[] hub;
    static LinkedList<Spoke> list = new LinkedList<>();

    static void deep(int d, CountDownLatch ready, CountDownLatch stop) throws Exception {
        byte[] local = new byte[64 + d];
        if (d > 0) {
            deep(d - 1, ready, stop);
            return;
        }
        ready.countDown();
        stop.await();
        if (local.length < 0) System.out.println();
    }

    static void dump(String out) throws Exception {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(out, true);
    }

    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[1]);
        if (a[0].equals("threads")) {
            CountDownLatch ready = new CountDownLatch(n), stop = new CountDownLatch(1);
            for (int i = 0; i < n; i++) {
                Thread t = new Thread(null, () -> {
                    try { deep(6, ready, stop); } catch (Exception e) { }
                }, "w-" + i, 256 * 1024);
                t.setDaemon(true);
                t.start();
            }
            ready.await();
            dump(a[2]);
            stop.countDown();
        } else if (a[0].equals("list")) {
            for (int i = 0; i < n; i++) list.add(new Spoke(i));
            dump(a[2]);
        } else {
            hub = new Object[n];
            for (int i = 0; i < n; i++) hub[i] = new Spoke(i);
            dump(a[2]);
        }
    }
}
