// SPDX-License-Identifier: Apache-2.0
// AgentLeaks: programs run under the leakray JVM agent by tests/e2e/agent_*.sh.
// usage: java -agentpath:libleakray_agent.so=OPTS -cp leakray-watcher.jar:. agent.AgentLeaks
//        MODE N RUN_MS [PLUGIN_DIR]
// Each mode makes N objects that should die and leaks them one way, plus a few that are
// released properly (watched too, and collected), then keeps running for RUN_MS so the agent
// can retain, dump and start the analysis:
//   listeners   screens registered with a static event bus and never unregistered
//   cache       sessions left in a static map after logout
//   statics     requests kept in static fields
//   threadlocal request contexts left in thread locals of a long-lived worker thread
//   classloader a closed URLClassLoader kept by a thread it started (watched by the built-in
//               URLClassLoader#close rule; N is ignored, one loader)
//   closeable   connections kept in a static pool after close() (jvm.rules Closeable#close)
//   dispose     windows kept after dispose() (a watch=agent.AgentLeaks$Window#dispose option)
//   threads     Thread objects kept in a static list after their threads ended (built in)
//   noleak      N watched objects, all released
//   attach      like listeners, but waits for the agent first (for `leakray attach`)
//   attach-closeable  run without the jar: closes connections and JDK streams (their classes
//               loaded and close() compiled before the agent comes), waits until an attached
//               agent has rewritten them, then keeps N of each after close()
package agent;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import leakray.AppWatcher;

public class AgentLeaks {
    // ---- listeners ----
    interface Listener { void onEvent(String e); }

    static final class EventBus {
        static final List<Listener> LISTENERS = new ArrayList<>();
    }

    static final class Screen {
        final byte[] pixels = new byte[64 * 1024];
        final String title;
        Screen(String title) { this.title = title; }

        Listener open() {
            Listener l = new Listener() {
                @Override public void onEvent(String e) { System.out.println(title + e); }
            };
            EventBus.LISTENERS.add(l);
            return l;
        }
    }

    // ---- cache ----
    static final class Session {
        final byte[] state = new byte[32 * 1024];
        final String user;
        Session(String user) { this.user = user; }
    }

    static final class SessionCache {
        static final Map<String, Session> BY_USER = new HashMap<>();
    }

    // ---- statics ----
    static final class Request {
        final byte[] body = new byte[16 * 1024];
    }

    static final class LastRequests {
        static Request first, second, third, fourth, fifth, sixth;
        static void keep(int i, Request r) {
            switch (i % 6) {
                case 0: first = r; break;
                case 1: second = r; break;
                case 2: third = r; break;
                case 3: fourth = r; break;
                case 4: fifth = r; break;
                default: sixth = r;
            }
        }
    }

    // ---- thread locals ----
    static final class RequestContext {
        final byte[] scratch = new byte[8 * 1024];
    }

    @SuppressWarnings("unchecked")
    static final ThreadLocal<RequestContext>[] CONTEXTS = new ThreadLocal[16];
    static { for (int i = 0; i < CONTEXTS.length; i++) CONTEXTS[i] = new ThreadLocal<>(); }

    // ---- closeable / dispose ----
    static final class Connection implements Closeable {
        final byte[] buffer = new byte[16 * 1024];
        boolean open = true;
        @Override public void close() { open = false; }
    }

    static final class ConnectionPool {
        static final List<Connection> CLOSED = new ArrayList<>();
    }

    static class Window {
        final byte[] frame = new byte[16 * 1024];
        void dispose() { }
    }

    static final class DialogWindow extends Window {
        @Override void dispose() { super.dispose(); } // watched once, not twice
    }

    static final class WindowManager {
        static final List<Window> DISPOSED = new ArrayList<>();
    }

    static final class Streams {
        static final List<ByteArrayOutputStream> CLOSED = new ArrayList<>();
    }

    /** Waits until the agent attached to this JVM says, in its status file, that it gave
     * the watch hook to some methods. */
    static void awaitAttachedRules() throws Exception {
        java.nio.file.Path status = java.nio.file.Paths.get(
                "/tmp/leakray-watch-" + ProcessHandle.current().pid() + ".status");
        long until = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < until) {
            try {
                for (String l : java.nio.file.Files.readAllLines(status)) {
                    if (l.startsWith("rewritten_methods: ") && !l.endsWith(" 0")) return;
                }
            } catch (java.io.IOException notYet) {
                // no agent yet
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("no agent with rewritten methods attached");
    }

    // ---- threads ----
    static final class Threads {
        static final List<Thread> FINISHED = new ArrayList<>();
    }

    /** The long-lived worker of the threadlocal mode (static: an unreachable single-thread
     * executor is finalized and shut down, which would end the leak). */
    static ExecutorService worker;

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int n = Integer.parseInt(args[1]);
        long runMs = Long.parseLong(args[2]);
        // AGENT_LISTEN=1 in the environment: a server's listening socket, open for the whole
        // run (it must not reach the analysis the agent starts)
        java.net.ServerSocket listening = System.getenv("AGENT_LISTEN") != null
            ? new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()) : null;
        if (listening != null) {
            System.out.println("listening " + listening.getLocalPort());
            System.out.flush();
        }
        if (mode.equals("attach")) {
            System.out.println("ready");
            System.out.flush();
            long until = System.currentTimeMillis() + 30_000;
            while (!AppWatcher.isInstalled() && System.currentTimeMillis() < until) {
                Thread.sleep(20);
            }
            mode = "listeners";
        }
        if (mode.equals("attach-closeable")) {
            long warm = 0;
            for (int i = 0; i < 20_000; i++) { // loaded, and close() compiled, before attach
                Connection c = new Connection();
                c.close();
                ByteArrayOutputStream b = new ByteArrayOutputStream(16);
                b.write(i);
                b.close();
                warm += b.size();
            }
            System.out.println("ready " + (warm > 0));
            System.out.flush();
            awaitAttachedRules();
            for (int i = 0; i < n + 3; i++) {
                Connection c = new Connection();
                ByteArrayOutputStream b = new ByteArrayOutputStream(16 * 1024);
                if (i < n) {
                    ConnectionPool.CLOSED.add(c);
                    Streams.CLOSED.add(b);
                }
                c.close();
                b.close();
            }
            Thread.sleep(runMs);
            System.exit(0);
        }
        switch (mode) {
            case "listeners":
                for (int i = 0; i < n + 3; i++) {
                    Screen s = new Screen("screen " + i);
                    Listener l = s.open();
                    if (i >= n) EventBus.LISTENERS.remove(l); // released properly
                    AppWatcher.expectWeaklyReachable(s, "agent.AgentLeaks$Screen closed");
                }
                break;
            case "cache":
                for (int i = 0; i < n + 3; i++) {
                    Session s = new Session("user" + i);
                    SessionCache.BY_USER.put(s.user, s);
                    if (i >= n) SessionCache.BY_USER.remove(s.user);
                    AppWatcher.expectWeaklyReachable(s, "agent.AgentLeaks$Session logged out");
                }
                break;
            case "statics":
                for (int i = 0; i < n; i++) {
                    Request r = new Request();
                    LastRequests.keep(i, r);
                    AppWatcher.expectWeaklyReachable(r, "agent.AgentLeaks$Request completed");
                }
                for (int i = 0; i < 3; i++) {
                    AppWatcher.expectWeaklyReachable(new Request(), "request completed");
                }
                break;
            case "threadlocal": {
                worker = Executors.newSingleThreadExecutor();
                for (int i = 0; i < n + 3; i++) {
                    final int k = i;
                    worker.submit(() -> {
                        RequestContext c = new RequestContext();
                        CONTEXTS[k].set(c);
                        if (k >= n) CONTEXTS[k].remove();
                        AppWatcher.expectWeaklyReachable(c,
                                "agent.AgentLeaks$RequestContext request done");
                    }).get();
                }
                break; // the worker stays alive (non-daemon), like a server's pool thread
            }
            case "classloader": {
                URLClassLoader loader = new URLClassLoader(
                        new URL[] {new File(args[3]).toURI().toURL()}, null);
                Class<?> plugin = loader.loadClass("plugin.Plugin");
                Runnable r = (Runnable) plugin.getDeclaredConstructor().newInstance();
                Thread t = new Thread(r, "plugin-timer");
                t.setDaemon(true);
                t.setContextClassLoader(loader); // as a container does for its web apps
                t.start(); // never stopped: its context class loader stays
                loader.close(); // the undeploy: watched by the built-in rule
                URLClassLoader clean = new URLClassLoader(
                        new URL[] {new File(args[3]).toURI().toURL()}, null);
                clean.loadClass("plugin.Plugin");
                clean.close(); // released properly
                break;
            }
            case "closeable":
                for (int i = 0; i < n + 3; i++) {
                    Connection c = new Connection();
                    if (i < n) ConnectionPool.CLOSED.add(c);
                    c.close();
                }
                break;
            case "dispose":
                for (int i = 0; i < n + 3; i++) {
                    Window w = (i % 2 == 0) ? new Window() : new DialogWindow();
                    if (i < n) WindowManager.DISPOSED.add(w);
                    w.dispose();
                }
                break;
            case "threads":
                for (int i = 0; i < n + 3; i++) {
                    Thread t = new Thread(() -> { }, "short-task-" + i);
                    t.start();
                    t.join();
                    if (i < n) Threads.FINISHED.add(t);
                }
                break;
            case "noleak":
                for (int i = 0; i < n; i++) {
                    AppWatcher.expectWeaklyReachable(new Screen("s" + i), "released");
                }
                break;
            default:
                throw new IllegalArgumentException(mode);
        }
        Thread.sleep(runMs);
        System.exit(0); // also ends the thread-local worker
    }
}
