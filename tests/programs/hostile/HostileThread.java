// SPDX-License-Identifier: Apache-2.0
// HostileThread.java: a thread whose name holds a line break, a tab and a CSI screen clear,
// alive (sleeping) while the program dumps its heap. Usage: java HostileThread OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class HostileThread {
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
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        t.interrupt();
    }
}
