// SPDX-License-Identifier: Apache-2.0
// Caches.java: Guava: an unbounded Cache of 3,000 rendered pages (about 45 % of the heap),
// 300 closed Sessions never unregistered from an EventBus (watch Caches$Session), and a
// single-thread executor whose worker is blocked while 500 reports queue up.
// Usage: Caches LIVE.hprof ALL.hprof
package leakray.realjava;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.eventbus.EventBus;
import com.google.common.eventbus.Subscribe;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public class Caches {
    static final class Page {
        final String key;
        final byte[] html;
        Page(String key, int n) { this.key = key; this.html = new byte[n]; }
    }

    public static final class Session {
        final String user;
        final char[] profile = new char[2000];
        boolean closed;
        Session(String user) { this.user = user; }
        @Subscribe public void onEvent(String e) { }
    }

    static final class Report implements Runnable {
        final long[] rows = new long[1000];
        public void run() { }
    }

    static final Cache<String, Page> PAGES = CacheBuilder.newBuilder().recordStats().build();
    static final EventBus BUS = new EventBus("app-events");
    static final ExecutorService REPORTS = Executors.newSingleThreadExecutor(r -> new Thread(r, "report-writer"));

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 3000; i++) PAGES.put("/page/" + i, new Page("/page/" + i, 1024));
        for (int i = 0; i < 300; i++) {
            Session s = new Session("user" + i);
            BUS.register(s);
            s.closed = true; /* closed, never unregistered */
        }
        CountDownLatch never = new CountDownLatch(1);
        REPORTS.submit(() -> { try { never.await(); } catch (InterruptedException e) { } });
        for (int i = 0; i < 500; i++) REPORTS.submit(new Report());
        for (int i = 0; i < 5; i++) { System.gc(); Thread.sleep(50); }
        Dump.write(args);
        never.countDown();
        REPORTS.shutdown();
    }
}
