// SPDX-License-Identifier: Apache-2.0
// HeldShapes.java: objects held in two ways at once, where a retained-size answer must say
// who really keeps them. One mode per run:
//   queue   a ScheduledThreadPoolExecutor kept in a static runs 40 tasks, each capturing a
//           100 kB page: its DelayedWorkQueue (4 MB) is held by the static executor and by
//           the idle worker's frame (DelayedWorkQueue.take's `this`) at once;
//   stale   a pool thread keeps 20 ThreadLocal values of 20 kB after the ThreadLocals
//           themselves are gone: the dump's GC finds the stale entries and links them on its
//           pending list (Reference.discovered) while the thread's map still holds them;
//   loader  a closed URLClassLoader whose class Plugin (from the folder given) is a key of a
//           static HashMap, watched by a leakcanary.KeyedWeakReference
//           (tests/programs/leaks/KeyedWeakReference.java, compiled with it): the JVM keeps
//           the loader through the class;
//   instance  a closed URLClassLoader whose class Plugin only an instance in a static list
//           holds: the JVM keeps the class through its instance, the loader through the class;
//   tlocal  a thread keeps 8 MB in a ThreadLocal and a 64-byte array in a local of its frame:
//           the thread object (its ThreadLocal map) holds the memory, not its frames;
//   watched 300 closed sessions of 10 kB kept in a static list, each watched by a
//           KeyedWeakReference as the JVM agent watches them: the list holds the 3 MB.
// The program dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.held.HeldShapes OUT.hprof queue|stale|loader|instance|tlocal|watched
//        [PLUGIN_DIR_URL]
package com.example.held;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import leakcanary.KeyedWeakReference;

class Page {
    final String name;
    final byte[] pixels;

    Page(String name, int size) {
        this.name = name;
        this.pixels = new byte[size];
    }
}

public class HeldShapes {
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static final Map<Class<?>, Object> BY_CLASS = new HashMap<>();
    static final List<Object> INSTANCES = new ArrayList<>();
    static ScheduledExecutorService scheduler;
    static ExecutorService pool;

    static void queue() {
        scheduler = Executors.newScheduledThreadPool(1);
        for (int i = 0; i < 40; i++) {
            Page p = new Page("q" + i, 100_000);
            scheduler.scheduleAtFixedRate(() -> p.name.length(), 1, 1, TimeUnit.HOURS);
        }
    }

    /* The ThreadLocals live only in this frame: once it returns, the entries are stale. */
    static void stale() throws Exception {
        pool = Executors.newFixedThreadPool(1);
        for (int i = 0; i < 20; i++) {
            ThreadLocal<Page> tl = new ThreadLocal<>();
            final int k = i;
            pool.submit(() -> tl.set(new Page("t" + k, 20_000))).get();
        }
    }

    static void loader(String dir) throws Exception {
        URLClassLoader loader = new URLClassLoader(new URL[] { new URL(dir) },
                HeldShapes.class.getClassLoader().getParent());
        BY_CLASS.put(Class.forName("Plugin", true, loader), "meta");
        loader.close();
        KeyedWeakReference r = new KeyedWeakReference(loader, "loader-1", "plugin loader closed",
                1000L, QUEUE);
        r.retainedUptimeMillis = 2000L;
        WATCHED.add(r);
        KeyedWeakReference.heapDumpUptimeMillis = 5000L;
    }

    static void instance(String dir) throws Exception {
        URLClassLoader loader = new URLClassLoader(new URL[] { new URL(dir) },
                HeldShapes.class.getClassLoader().getParent());
        INSTANCES.add(Class.forName("Plugin", true, loader).getDeclaredConstructor().newInstance());
        loader.close();
    }

    static final ThreadLocal<byte[]> BIG = new ThreadLocal<>();

    static void tlocal() throws Exception {
        java.util.concurrent.CountDownLatch set = new java.util.concurrent.CountDownLatch(1);
        Thread t = new Thread(() -> {
            BIG.set(new byte[8_000_000]);
            long[] mine = new long[8];
            set.countDown();
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                // the dump is written: the thread may end
            }
            if (mine.length == 0)
                System.out.println();
        }, "tl-keeper");
        t.setDaemon(true);
        t.start();
        set.await();
    }

    static final List<Object> SESSIONS = new ArrayList<>();

    /* the watcher's own list, as the agent keeps its references apart from the program */
    static final class Watcher {
        static final List<KeyedWeakReference> REFS = new ArrayList<>();
    }

    static void watched() {
        for (int i = 0; i < 300; i++) {
            byte[] state = new byte[10_000];
            SESSIONS.add(state);
            KeyedWeakReference r = new KeyedWeakReference(state, "s-" + i, "session closed",
                    1000L, QUEUE);
            r.retainedUptimeMillis = 2000L;
            Watcher.REFS.add(r);
        }
        KeyedWeakReference.heapDumpUptimeMillis = 5000L;
    }

    public static void main(String[] args) throws Exception {
        switch (args[1]) {
        case "watched": watched(); break;
        case "tlocal": tlocal(); break;
        case "queue": queue(); break;
        case "stale": stale(); break;
        case "loader": loader(args[2]); break;
        case "instance": instance(args[2]); break;
        default: throw new IllegalArgumentException(args[1]);
        }
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        if (scheduler != null)
            scheduler.shutdownNow();
        if (pool != null)
            pool.shutdownNow();
    }
}
