// SPDX-License-Identifier: Apache-2.0
// QueuedLeaks.java: 3,000 listeners left in a ConcurrentLinkedQueue a static holds: the
// path to the k-th runs through k queue nodes, so every path whole is 4.5 M steps in all.
// Usage: java QueuedLeaks OUT.hprof (analyse with --watch 'QueuedLeaks$Listener')
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ConcurrentLinkedQueue;

public class QueuedLeaks {
    static final class Listener {
        long id;
    }

    static final ConcurrentLinkedQueue<Listener> QUEUE = new ConcurrentLinkedQueue<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 3000; i++) {
            Listener l = new Listener();
            l.id = i;
            QUEUE.add(l);
        }
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
