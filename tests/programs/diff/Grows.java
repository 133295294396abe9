// SPDX-License-Identifier: Apache-2.0
// Grows.java: keeps Grows.Session objects in a static list and writes a live heap dump after
// 100 and after 300 of them. Usage: java Grows A.hprof B.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class Grows {
    static class Session {
        final byte[] state = new byte[64];
    }

    static final List<Session> SESSIONS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        for (int i = 0; i < 300; i++) {
            SESSIONS.add(new Session());
            if (i == 99)
                bean.dumpHeap(args[0], true);
        }
        bean.dumpHeap(args[1], true);
    }
}
