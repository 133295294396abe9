// SPDX-License-Identifier: Apache-2.0
// Pending.java: 500 WeakReferences, kept in a static list, whose referents are garbage. The
// live dump's collection finds them and links them through Reference.discovered, the GC's
// pending list, which the dump then shows: `sql`'s distance must not run along it.
// Usage: java -XX:+UseSerialGC Pending OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

public class Pending {
    static final List<WeakReference<Object>> REFS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 500; i++)
            REFS.add(new WeakReference<>(new Object()));
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
