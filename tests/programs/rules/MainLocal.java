// SPDX-License-Identifier: Apache-2.0
// MainLocal.java: a Screen held only by a local variable of the main thread, which the
// shipped jdk.rules ignore (`ignore java-local "main"`).
// Usage: java MainLocal OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class MainLocal {
    static final class Screen {
        boolean destroyed = true;
    }

    public static void main(String[] args) throws Exception {
        Screen held = new Screen();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        System.out.println(held.destroyed);
    }
}
