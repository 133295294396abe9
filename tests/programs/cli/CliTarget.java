// SPDX-License-Identifier: Apache-2.0
// CliTarget: writes a small heap dump whose contents tests/cli/*.sh know exactly. One
// CliTarget$Known instance with fixed field values hangs off the static field KNOWN; five
// CliTarget$Marker instances sit in the array MARKERS (slot 5 stays null). Usage:
//   java -cp CLASSES CliTarget OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class CliTarget {
    static final class Known {
        int count = 42;
        String name = "leakray-known";
        long big = 1234567890123L;
        double ratio = 0.5;
        boolean flag = true;
        char letter = 'Z';
        byte small = -7;
        int[] numbers = {7, 8, 9};
        Known next; // stays null
    }

    static final class Marker {
        final int index;

        Marker(int index) {
            this.index = index;
        }
    }

    static Known KNOWN = new Known();
    static final Object[] MARKERS = new Object[6];
    static int STATIC_INT = 1234;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 5; i++)
            MARKERS[i] = new Marker(i);
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        // Keep everything reachable until the dump is written.
        if (KNOWN.count != 42 || MARKERS[0] == null)
            throw new AssertionError();
    }
}
