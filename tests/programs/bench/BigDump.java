// SPDX-License-Identifier: Apache-2.0
// BigDump: builds a realistic, deterministic heap of about 2.3 million objects and writes a
// HotSpot heap dump of it (about 110 MB) for the benchmarks (scripts/gen-big-dump.sh).
// usage: java -Xmx2g BigDump OUT.hprof [SCALE]
// The mix: a session cache (HashMap of String -> Session with byte[] payloads, ArrayLists of
// tags and per-session attribute maps), a long linked chain, boxed numbers, char/int/long
// arrays, and planted leaks of the usual shapes:
//   - a static listener list that only grows (BigDump$Listener -> BigDump$Screen, 2000 each),
//   - Screens watched by leakcanary.KeyedWeakReference after being "destroyed" (10 retained),
//   - a ThreadLocal-like map on a parked worker thread holding buffers,
//   - a self-referencing cycle of caches that is reachable only from a static.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public class BigDump {
    static final class Session {
        String id;
        byte[] payload;
        ArrayList<String> tags;
        Map<String, Object> attributes;
        long created;
        Session previous;
    }

    static final class ChainNode {
        ChainNode next;
        Object value;
        int serial;
    }

    static final class Screen {
        String title;
        byte[] bitmap;
        boolean destroyed;
        List<Object> views = new ArrayList<>();
    }

    static final class Listener {
        final Screen owner;
        final int id;
        Listener(Screen owner, int id) { this.owner = owner; this.id = id; }
    }

    static final class Cache {
        Cache peer;
        HashMap<Integer, String> entries = new HashMap<>();
    }

    static final Map<String, Session> SESSIONS = new HashMap<>();
    static final List<Listener> LISTENERS = new ArrayList<>();
    static final List<Object> WATCHED = new ArrayList<>();
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static ChainNode CHAIN;
    static Cache CYCLE;
    static long[][] SERIES;

    public static void main(String[] args) throws Exception {
        int scale = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        Random rnd = new Random(20240601L);
        String[] common = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"};

        // Session cache: about 9 objects per session.
        Session prev = null;
        for (int i = 0; i < 120_000 * scale; i++) {
            Session s = new Session();
            s.id = "session-" + i + "-" + Long.toHexString(rnd.nextLong());
            s.payload = new byte[16 + rnd.nextInt(64)];
            rnd.nextBytes(s.payload);
            s.tags = new ArrayList<>(4);
            s.tags.add(common[i & 7]);
            s.tags.add("user-" + (i % 5000));
            if (i % 4 == 0) {
                s.attributes = new HashMap<>(4);
                s.attributes.put("n", Integer.valueOf(1000 + i)); // boxed above the cache
            }
            s.created = 1_700_000_000_000L + i;
            s.previous = (i % 10 == 0) ? null : prev;
            prev = s;
            SESSIONS.put(s.id, s);
        }

        // A long linked chain with boxed values and small arrays.
        ChainNode head = null;
        for (int i = 0; i < 500_000 * scale; i++) {
            ChainNode n = new ChainNode();
            n.serial = i;
            switch (i % 4) {
                case 0: n.value = Long.valueOf(rnd.nextLong()); break;
                case 1: n.value = new int[1 + (i % 7)]; break;
                case 2: n.value = Double.valueOf(i * 0.5); break;
                default: n.value = new char[] {(char) ('a' + (i % 26))}; break;
            }
            n.next = head;
            head = n;
        }
        CHAIN = head;

        // Leak 1: listeners registered by screens and never removed.
        for (int i = 0; i < 2000; i++) {
            Screen sc = new Screen();
            sc.title = "Screen #" + i;
            sc.bitmap = new byte[4096];
            for (int v = 0; v < 8; v++) sc.views.add("view-" + i + "-" + v);
            sc.destroyed = true;
            LISTENERS.add(new Listener(sc, i));
        }

        // Leak 2: destroyed screens watched after destruction, still strongly held.
        List<Screen> retained = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Screen sc = new Screen();
            sc.title = "Watched screen " + i;
            sc.bitmap = new byte[65536];
            sc.destroyed = true;
            retained.add(sc);
            leakcanary.KeyedWeakReference ref = new leakcanary.KeyedWeakReference(
                sc, "key-" + i, "BigDump$Screen received onDestroy()", 1000L + i, QUEUE);
            ref.retainedUptimeMillis = 6000L + i;
            WATCHED.add(ref);
        }
        leakcanary.KeyedWeakReference.heapDumpUptimeMillis = 20_000L;
        LISTENERS.add(new Listener(retained.get(0), -1));
        holdRetained(retained);

        // Leak 3: a cycle of caches reachable from one static.
        Cache a = new Cache();
        Cache b = new Cache();
        a.peer = b;
        b.peer = a;
        for (int i = 0; i < 20_000; i++) a.entries.put(i, "cached value " + i);
        CYCLE = a;

        // Numeric series: a few large primitive arrays.
        SERIES = new long[16][];
        for (int i = 0; i < SERIES.length; i++) {
            SERIES[i] = new long[20_000];
            for (int k = 0; k < SERIES[i].length; k += 97) SERIES[i][k] = rnd.nextLong();
        }

        // Leak 4: a worker thread parked while its frame holds buffers.
        CountDownLatch ready = new CountDownLatch(1);
        Thread worker = new Thread(() -> {
            List<byte[]> buffers = new ArrayList<>();
            for (int i = 0; i < 256; i++) buffers.add(new byte[8192]);
            ready.countDown();
            while (true) {
                LockSupport.park();
                if (buffers.isEmpty()) break;
            }
        }, "bench-worker");
        worker.setDaemon(true);
        worker.start();
        ready.await();
        Thread.sleep(50);

        HotSpotDiagnosticMXBean bean =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        System.out.println("sessions=" + SESSIONS.size() + " listeners=" + LISTENERS.size());
    }

    static final List<Object> HOLD = new ArrayList<>();

    static void holdRetained(List<Screen> screens) {
        HOLD.add(screens);
    }
}
