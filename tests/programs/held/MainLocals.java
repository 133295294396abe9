// SPDX-License-Identifier: Apache-2.0
// MainLocals.java: main keeps 3 processed Orders in a local list (jdk.rules ignores the main
// thread's locals, as Shark does, so no path reaches them) and drops a fourth, then writes a
// heap dump that keeps garbage (live=false): the dropped Order is really unreachable.
// Usage: java MainLocals OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class MainLocals {
    static class Order {
        final long id;
        boolean processed = true;

        Order(long id) { this.id = id; }
    }

    static Order dropped;

    public static void main(String[] args) throws Exception {
        List<Order> kept = new ArrayList<>();
        for (int i = 0; i < 3; i++)
            kept.add(new Order(i));
        dropped = new Order(99);
        dropped = null;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .dumpHeap(args[0], false);
        System.out.println(kept.size());
    }
}
