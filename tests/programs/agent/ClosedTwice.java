// SPDX-License-Identifier: Apache-2.0
// ClosedTwice.java: a server stopping an application whose class loader it closes twice,
// GAP_MS apart (a container's stop, then its destroy), and leaking it (kept by a static
// list). Prints its pid, "closed twice" after the second close, then stays up for STAY_MS.
// Usage: java agent.ClosedTwice PLUGIN_CLASSES_DIR GAP_MS STAY_MS
package agent;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

public class ClosedTwice {
    static final List<ClassLoader> LEAKED = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        URL dir = new File(args[0]).toURI().toURL();
        long gap = Long.parseLong(args[1]), stay = Long.parseLong(args[2]);
        System.out.println("pid " + ProcessHandle.current().pid());
        URLClassLoader loader = new URLClassLoader("app", new URL[] {dir},
                ClosedTwice.class.getClassLoader());
        loader.loadClass("closeplug.Closing");
        LEAKED.add(loader);
        loader.close();
        Thread.sleep(gap);
        loader.close();
        System.out.println("closed twice");
        System.out.flush();
        Thread.sleep(stay);
    }
}
