// SPDX-License-Identifier: Apache-2.0
// Lambdas.java OUT.hprof: keeps three lambdas of its own and one method reference in a static
// list, then dumps. The JVM names each lambda's hidden class anew in every run
// (Lambdas$$Lambda$14/0x... with an address), so two runs' dumps name them differently.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

public class Lambdas {
    static final List<IntSupplier> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 3; i++) {
            final int k = i;
            KEEP.add(() -> k);
            KEEP.add(() -> k * 2);
        }
        KEEP.add("text"::length);
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
