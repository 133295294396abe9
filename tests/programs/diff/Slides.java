// SPDX-License-Identifier: Apache-2.0
// Slides.java: two live heap dumps of one process between which a compacting collection moves
// objects onto the addresses of others: 2,000 byte arrays of 100 to 2,090 bytes, every other
// one dropped after the first dump, 500 new ones of 16 bytes kept. Under a sliding collector
// (Serial) the survivors slide down onto the dropped arrays' addresses, so one id names
// byte arrays of two lengths. Usage: java -XX:+UseSerialGC Slides A.hprof B.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class Slides {
    static final List<byte[]> KEPT = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        for (int i = 0; i < 2000; i++)
            KEPT.add(new byte[100 + i]);
        bean.dumpHeap(args[0], true);
        for (int i = KEPT.size() - 1; i >= 0; i -= 2)
            KEPT.remove(i);
        for (int i = 0; i < 500; i++)
            KEPT.add(new byte[16]);
        bean.dumpHeap(args[1], true);
    }
}
