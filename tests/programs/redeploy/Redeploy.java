// SPDX-License-Identifier: Apache-2.0
// Redeploy.java: a container that deploys webapp/App.java four times, each in its own
// URLClassLoader named "webapp-MODE" (modes threadlocal, jdbc, listener, clean), closes the
// loader and drops it, then writes a live heap dump. Three loaders stay, each kept by one
// classic redeploy leak: a ThreadLocal value in a worker of a pool that outlives the webapp,
// a driver in DriverManager, a listener in the static list Redeploy.LISTENERS. Each keeps its
// App class and the class's 1 MB static array (about 20 % of the heap each).
// Usage: java com.example.redeploy.Redeploy WEBAPP_CLASSES_DIR OUT.hprof [MODE...]
// (other modes than those four: see App.java).
package com.example.redeploy;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Consumer;

public class Redeploy {
    public static final List<Consumer<String>> LISTENERS = new CopyOnWriteArrayList<>();

    public static void main(String[] args) throws Exception {
        URL webapp = new File(args[0]).toURI().toURL();
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(1,
                r -> new Thread(r, "pool-worker"));
        /* started by the container: a worker the webapp's code started would inherit its
         * access control context, a second hold on the loader besides the ThreadLocal */
        pool.prestartAllCoreThreads();
        String[] modes = args.length > 2 ? java.util.Arrays.copyOfRange(args, 2, args.length)
                : new String[] {"threadlocal", "jdbc", "listener", "clean"};
        for (String mode : modes) {
            URLClassLoader loader = new URLClassLoader("webapp-" + mode, new URL[] {webapp},
                    Redeploy.class.getClassLoader());
            Class<?> app = loader.loadClass("webapp.App");
            app.getMethod("deploy", String.class, Executor.class, List.class)
                    .invoke(null, mode, pool, LISTENERS);
            loader.close();
        }
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[1], true);
        pool.shutdown();
    }
}
