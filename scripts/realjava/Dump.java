// SPDX-License-Identifier: Apache-2.0
// Dump.java: writes the live heap dump, the JVM's own live class histogram beside it
// (FILE.jcmd.txt, jcmd GC.class_histogram, for the size comparison of scripts/realjava.sh),
// then, when a second path is given, the dump with unreachable objects.
package leakray.realjava;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.File;
import java.lang.management.ManagementFactory;

final class Dump {
    static void write(String[] args) throws Exception {
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        String jcmd = System.getProperty("java.home") + "/bin/jcmd";
        new ProcessBuilder(jcmd, Long.toString(ProcessHandle.current().pid()), "GC.class_histogram")
                .redirectOutput(new File(args[0] + ".jcmd.txt")).redirectErrorStream(true).start().waitFor();
        if (args.length > 1) bean.dumpHeap(args[1], false);
    }
}
