// SPDX-License-Identifier: Apache-2.0
// Reload.java: a host that reloads its generated code between two dumps of one process, as a
// plugin host, a script engine or a build daemon does: each round defines N hidden classes
// (Lookup.defineHiddenClass of one class's bytes; the JVM names each "Reload$Gen+0x<address>")
// and keeps them, then the next round drops them and defines N new ones.
// Usage: java Reload N FIRST.hprof SECOND.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class Reload {
    public static final class Gen {
        public static final Object STATE = new Object();
    }

    static final List<Class<?>> LOADED = new ArrayList<>();

    static void round(byte[] bytes, int n) throws Exception {
        LOADED.clear();
        for (int i = 0; i < n; i++)
            LOADED.add(MethodHandles.lookup().defineHiddenClass(bytes, true).lookupClass());
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        byte[] bytes;
        try (InputStream in = Reload.class.getResourceAsStream("Reload$Gen.class")) {
            bytes = in.readAllBytes();
        }
        HotSpotDiagnosticMXBean mx =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        round(bytes, n);
        mx.dumpHeap(args[1], true);
        round(bytes, n);
        System.gc();
        mx.dumpHeap(args[2], true);
    }
}
