// SPDX-License-Identifier: Apache-2.0
// ArrayHeap: a heap whose dump is mostly primitive array bytes (few objects, many bytes), so
// the dump's size dwarfs the graph leakray builds from it. The arrays hold a repeating
// pattern, so the dump compresses well.
// usage: java ArrayHeap OUT.hprof MEGABYTES
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class ArrayHeap {
    static byte[][] held;

    public static void main(String[] args) throws Exception {
        int mb = Integer.parseInt(args[1]);
        held = new byte[mb * 4][];
        for (int i = 0; i < held.length; i++) {
            byte[] a = new byte[256 * 1024];
            for (int j = 0; j < a.length; j++)
                a[j] = (byte) ((j * 31 + i) % 61);
            held[i] = a;
        }
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
    }
}
