// SPDX-License-Identifier: Apache-2.0
// App.java: a web application that Redeploy.java loads in a class loader of its own, four
// times, and undeploys. Its class holds a 1 MB static page cache, so whatever keeps the loader
// keeps a megabyte. deploy(mode) plants one of the classic redeploy leaks:
//  - "threadlocal": a RequestContext left in a ThreadLocal of a pooled worker thread;
//  - "jdbc": a JDBC driver registered in DriverManager and never deregistered;
//  - "listener": a listener added to a static list of the container (the parent loader);
//  - "instance": an App itself left in a ThreadLocal of a pooled worker, so the path reaches
//    the loader through App's class, which an instance holds and the loader cannot dominate;
//  - "thread": a thread of the webapp's own class, started and parked for ever: on JDK 17 the
//    path reaches the loader through the thread's inherited access control context, so no
//    class of the loader is on it, and the thread also holds its class (and the class's
//    1 MB BUFFER);
//  - "clean": nothing; this loader must be collected.
// Compiled on its own (javac -d WEBAPP_DIR), never on Redeploy's class path.
package webapp;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.logging.Logger;

public class App {
    static final byte[] PAGE_CACHE = new byte[1 << 20];
    static final ThreadLocal<RequestContext> CONTEXT = new ThreadLocal<>();
    static final ThreadLocal<App> HANDLER = new ThreadLocal<>();

    public static class RequestContext {
        final byte[] scratch = new byte[4096];
    }

    public static class AppDriver implements Driver {
        public Connection connect(String url, Properties p) { return null; }
        public boolean acceptsURL(String url) { return url.startsWith("jdbc:webapp:"); }
        public DriverPropertyInfo[] getPropertyInfo(String u, Properties p) {
            return new DriverPropertyInfo[0];
        }
        public int getMajorVersion() { return 1; }
        public int getMinorVersion() { return 0; }
        public boolean jdbcCompliant() { return false; }
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }
    }

    public static class Worker extends Thread {
        static final byte[] BUFFER = new byte[1 << 20];

        Worker() {
            super("webapp-worker");
            setDaemon(true);
        }

        public void run() {
            for (;;) {
                try {
                    Thread.sleep(1 << 30);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    public static class AppListener implements Consumer<String> {
        public void accept(String event) { }
    }

    public static void deploy(String mode, Executor pool, List<Consumer<String>> listeners)
            throws Exception {
        PAGE_CACHE[0] = 1;
        switch (mode) {
            case "threadlocal":
                CountDownLatch done = new CountDownLatch(1);
                pool.execute(() -> {
                    CONTEXT.set(new RequestContext());
                    done.countDown();
                });
                done.await();
                break;
            case "jdbc":
                DriverManager.registerDriver(new AppDriver());
                break;
            case "listener":
                listeners.add(new AppListener());
                break;
            case "instance":
                CountDownLatch set = new CountDownLatch(1);
                pool.execute(() -> {
                    HANDLER.set(new App());
                    set.countDown();
                });
                set.await();
                break;
            case "thread":
                new Worker().start();
                break;
            default:
                break;
        }
    }
}
