// SPDX-License-Identifier: Apache-2.0
// HostileThread.java: text a program writes that reaches leakray's terminal output: a thread
// whose name holds a line break, a tab and a CSI screen clear, alive (sleeping) while the
// program dumps its heap; and a watched object kept by a static, whose watch description holds
// a BEL, a line break and a NUL (a leakcanary.KeyedWeakReference, tests/programs/leaks,
// compiled with it). Usage: java HostileThread OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import leakcanary.KeyedWeakReference;

public class HostileThread {
    static final List<Object> KEPT = new ArrayList<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // the dump is written: end
            }
        }, "w\n\tx\u001b[2Jy");
        t.setDaemon(true);
        t.start();
        Object leaked = new Object();
        KEPT.add(leaked);
        KeyedWeakReference r = new KeyedWeakReference(leaked, "k-1",
                "bell\u0007 nl\n nul\u0000 end", 1000L, new ReferenceQueue<>());
        r.retainedUptimeMillis = 2000L;
        WATCHED.add(r);
        KeyedWeakReference.heapDumpUptimeMillis = 5000L;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        t.interrupt();
    }
}
