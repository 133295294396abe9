// SPDX-License-Identifier: Apache-2.0
// z.java: two builds of one app whose R8 names swap between them, as a new build's mapping
// may: build 1 names com.x.Item `x` and com.x.Order `y`, build 2 the other way round. Build 1
// keeps 100 items and 50 orders, build 2 300 items and 50 orders. Usage: java z BUILD OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

class x {
    long a;
}

class y {
    long a;
}

public class z {
    static final List<Object> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        boolean first = args[0].equals("1");
        for (int i = 0; i < (first ? 100 : 300); i++) // items
            KEEP.add(first ? new x() : new y());
        for (int i = 0; i < 50; i++) // orders
            KEEP.add(first ? new y() : new x());
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[1], true);
    }
}
