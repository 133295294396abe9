// SPDX-License-Identifier: Apache-2.0
// ReportDemo.java: a leaking program whose heap the HTML report test opens in a browser.
// A cache held by a static field keeps a watched (leakcanary.KeyedWeakReference) object
// alive; its class is named InjXXX... (62 characters) so the test can rewrite that name in
// the dump, byte for byte, into markup that would run script if the page ever parsed it as
// HTML. Strings holding the same markup are kept too. Usage: java ReportDemo OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import leakcanary.KeyedWeakReference;

/** The leaked object; the test renames this class in the dump. */
class InjXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX {
    final byte[] payload = new byte[3 << 20];
    boolean destroyed = true;
}

/** Holds the leak through a static field: the suspect reference of the trace. */
class SessionCache {
    static final List<Object> ENTRIES = new ArrayList<>();
}

public class ReportDemo {
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<Object> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        Object leaked = new InjXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX();
        SessionCache.ENTRIES.add(leaked);
        KeyedWeakReference ref = new KeyedWeakReference(leaked, "key-1", "destroyed session",
                1000L, QUEUE);
        ref.retainedUptimeMillis = 6000L;
        KEEP.add(ref);
        // Markup in string values: duplicated, so the duplicates table lists it.
        String markup = "</script><script>alert(3)</script><img src=x onerror=alert(4)>";
        for (int i = 0; i < 40; i++)
            KEEP.add(new String(markup.toCharArray()));
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
    }
}
