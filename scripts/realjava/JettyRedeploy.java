// SPDX-License-Identifier: Apache-2.0
// JettyRedeploy.java: tests/programs/redeploy/webapp/App.java deployed four times in its
// own URLClassLoader, on a real Jetty QueuedThreadPool: three loaders leak (a ThreadLocal in a
// pooled Jetty worker, a driver in DriverManager, a listener in a container static), the
// fourth is collected. Usage: JettyRedeploy WEBAPP_CLASSES LIVE.hprof ALL.hprof
package leakray.realjava;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

public class JettyRedeploy {
    public static final List<Consumer<String>> LISTENERS = new CopyOnWriteArrayList<>();

    public static void main(String[] args) throws Exception {
        URL webapp = new java.io.File(args[0]).toURI().toURL();
        QueuedThreadPool pool = new QueuedThreadPool(4, 4);
        pool.setName("jetty-worker");
        pool.start();
        for (String mode : new String[] {"threadlocal", "jdbc", "listener", "clean"}) {
            URLClassLoader loader = new URLClassLoader("webapp-" + mode, new URL[] {webapp},
                    JettyRedeploy.class.getClassLoader());
            Class<?> app = loader.loadClass("webapp.App");
            app.getMethod("deploy", String.class, java.util.concurrent.Executor.class, List.class)
                    .invoke(null, mode, pool, LISTENERS);
            loader.close();
        }
        for (int i = 0; i < 5; i++) { System.gc(); Thread.sleep(50); }
        Dump.write(new String[] {args[1], args[2]});
        pool.stop();
    }
}
