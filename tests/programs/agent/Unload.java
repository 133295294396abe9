// SPDX-License-Identifier: Apache-2.0
// Unload.java: loads closeplug.Closing N times, each in a URLClassLoader of its own, closes
// the plugin and its loader, drops every reference, collects, and writes a live heap dump.
// Nothing keeps a loader: with or without an agent, the dump holds no Closing class.
// Usage: java agent.Unload PLUGIN_CLASSES_DIR N OUT.hprof
package agent;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.Closeable;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;

public class Unload {
    public static void main(String[] args) throws Exception {
        URL dir = new File(args[0]).toURI().toURL();
        int n = Integer.parseInt(args[1]);
        for (int i = 0; i < n; i++) {
            URLClassLoader loader = new URLClassLoader("plugin-" + i, new URL[] {dir},
                    Unload.class.getClassLoader());
            try (Closeable plugin = (Closeable) loader.loadClass("closeplug.Closing")
                    .getDeclaredConstructor().newInstance()) {
                plugin.hashCode();
            }
            loader.close();
        }
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .dumpHeap(args[2], true);
    }
}
