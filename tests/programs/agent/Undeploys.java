// SPDX-License-Identifier: Apache-2.0
// Undeploys.java: a server undeploying two applications GAP_MS apart, each leaking its class
// loader (closed, then kept by a static list, as a stray thread or static keeps a web
// application's loader). Prints its pid, "closed N" after each close, then stays up for STAY_MS so the
// agent can watch, dump and report.
// Usage: java agent.Undeploys PLUGIN_CLASSES_DIR GAP_MS STAY_MS
package agent;

import java.io.Closeable;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

public class Undeploys {
    static final List<ClassLoader> LEAKED = new ArrayList<>();

    static void undeploy(URL dir, int i) throws Exception {
        URLClassLoader loader = new URLClassLoader("app-" + i, new URL[] {dir},
                Undeploys.class.getClassLoader());
        try (Closeable app = (Closeable) loader.loadClass("closeplug.Closing")
                .getDeclaredConstructor().newInstance()) {
            app.hashCode();
        }
        loader.close();
        LEAKED.add(loader);
        System.out.println("closed " + i);
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        URL dir = new File(args[0]).toURI().toURL();
        long gap = Long.parseLong(args[1]), stay = Long.parseLong(args[2]);
        System.out.println("pid " + ProcessHandle.current().pid());
        undeploy(dir, 1);
        Thread.sleep(gap);
        undeploy(dir, 2);
        Thread.sleep(stay);
    }
}
