// SPDX-License-Identifier: Apache-2.0
// Aligned.java: a static list of 1,000 Pairs (two ints each: 20 bytes of header and fields),
// for heaps of any -XX:ObjectAlignmentInBytes. With 8 a Pair takes 24 bytes and the list
// retains 24 + 4,016 + 24,000; with 16, 32 bytes and 32 + 4,016 + 32,000. Writes a heap dump
// to args[0].
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class Aligned {
    static final class Pair {
        int a, b;

        Pair(int a, int b) {
            this.a = a;
            this.b = b;
        }
    }

    static final List<Pair> PAIRS = new ArrayList<>(1000);

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 1000; i++)
            PAIRS.add(new Pair(i, -i));
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
