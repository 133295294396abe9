// SPDX-License-Identifier: Apache-2.0
// BigDump: builds a realistic, deterministic heap of about 2.3 million objects and writes a
// HotSpot heap dump of it (about 110 MB) for the benchmarks (scripts/gen-big-dump.sh).
// usage: java -Xmx2g BigDump OUT.hprof [SCALE]
// The mix: a session cache (HashMap of String -> Session with byte[] payloads, ArrayLists of
// tags and per-session attribute maps), a long linked chain, boxed numbers, char/int/long
// arrays, and planted leaks of the usual shapes (the first three are PlantedLeaks', shared
// with HugeDump):
//   - a static listener list that only grows (PlantedLeaks$Listener -> PlantedLeaks$Screen,
//     2000 each, plus one more listener on a watched screen),
//   - Screens watched by leakcanary.KeyedWeakReference after being "destroyed" (10 retained),
//   - a parked worker thread whose frame holds buffers,
//   - a self-referencing cycle of caches that is reachable only from a static.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

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

    static final class Cache {
        Cache peer;
        HashMap<Integer, String> entries = new HashMap<>();
    }

    static final Map<String, Session> SESSIONS = new HashMap<>();
    static final List<PlantedLeaks.Listener> LISTENERS = new ArrayList<>();
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
        PlantedLeaks.listeners(LISTENERS, 2000);

        // Leak 2: destroyed screens watched after destruction, still strongly held; one of
        // them is also registered as a listener.
        List<PlantedLeaks.Screen> retained = PlantedLeaks.watched(WATCHED, HOLD, QUEUE, 10);
        LISTENERS.add(new PlantedLeaks.Listener(retained.get(0), -1));

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
        PlantedLeaks.parkedWorker();
        Thread.sleep(50);

        HotSpotDiagnosticMXBean bean =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        // retained is used after the dump, so the frame holds it in any JIT state
        System.out.println("sessions=" + SESSIONS.size() + " listeners=" + LISTENERS.size()
            + " watched=" + retained.size());
    }

    static final List<Object> HOLD = new ArrayList<>();
}
