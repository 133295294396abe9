// SPDX-License-Identifier: Apache-2.0
// NulString.java: a 5,000-character string with U+0000 at index 100, kept by a static.
// Usage: java NulString OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class NulString {
    static String kept;

    public static void main(String[] args) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 5000; i++)
            b.append(i == 100 ? '\0' : 'n');
        kept = b.toString();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
