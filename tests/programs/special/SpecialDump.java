// SPDX-License-Identifier: Apache-2.0
// SpecialDump: writes a HotSpot heap dump whose duplicates and retain cycles the end-to-end
// tests (tests/e2e/special_*.sh) know exactly.
// usage: java -cp CLASSES SpecialDump OUT.hprof [BALLAST_MB [norings]]
//   BALLAST_MB: that many MB of distinct random int[] arrays (static BALLAST), so primitive
//   arrays dominate the dump; "norings": leave RINGS null (a baseline without the rings).
// Bitmaps (android.graphics.Bitmap, static BITMAPS): 3 share identical 10000-byte pixels
// (100x25), 2 share identical 6000-byte pixels (50x30), 1 has unique 8000-byte pixels, 2 share
// identical 100-byte pixels (below the 5000-byte default), 1 is recycled.
// Arrays: 4 identical int[2000] tables (SpecialDump$Table.data); 1 distinct int[2000].
// Strings: "duplicated-string-0123456789" held 500 times as distinct String objects
// (static NAMES), "other-dup" 20 times.
// Cycles: 3 Screen <-> Listener pairs held by the singleton EventBus.INSTANCE; 2 rings
// RingA -> RingB -> RingC -> RingA held by static RINGS; 1 Parent with 2 Children (each
// Child.parent points back, Parent.children is an ArrayList) held only by a local variable
// of the parked thread "lr-special-holder" (no static path). The single SpecialDump$Registry
// (static REGISTRY) references EventBus.INSTANCE and RINGS, a scope for both kinds.
import android.graphics.Bitmap;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public class SpecialDump {
    static final class Table {
        int[] data;
        Table(int[] d) { data = d; }
    }

    static final class Screen {
        String title;
        Listener listener;
    }

    static final class Listener {
        Screen owner;
        int serial;
    }

    static final class EventBus {
        static final EventBus INSTANCE = new EventBus();
        final ArrayList<Listener> listeners = new ArrayList<>();
    }

    static final class Parent {
        final ArrayList<Child> children = new ArrayList<>();
    }

    static final class Child {
        Parent parent;
    }

    static final class RingA { RingB b; }
    static final class RingB { RingC c; }
    static final class RingC { RingA a; }

    static final class Registry {
        EventBus bus;
        RingA[] rings;
    }

    static Bitmap[] BITMAPS;
    static Registry REGISTRY;
    static int[][] BALLAST;
    static Table[] TABLES;
    static String[] NAMES;
    static RingA[] RINGS;

    static byte[] pixels(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 31 + seed * 7 + (i >> 8));
        return b;
    }

    static String fresh(String s) {
        return new StringBuilder(s).toString(); // a new String with its own value array
    }

    public static void main(String[] args) throws Exception {
        ArrayList<Bitmap> bmps = new ArrayList<>();
        for (int k = 0; k < 3; k++) bmps.add(new Bitmap(pixels(10000, 1), 100, 25));
        for (int k = 0; k < 2; k++) bmps.add(new Bitmap(pixels(6000, 2), 50, 30));
        bmps.add(new Bitmap(pixels(8000, 3), 80, 25));
        for (int k = 0; k < 2; k++) bmps.add(new Bitmap(pixels(100, 4), 5, 5));
        Bitmap recycled = new Bitmap(pixels(10000, 1), 100, 25);
        recycled.mRecycled = true;
        bmps.add(recycled);
        BITMAPS = bmps.toArray(new Bitmap[0]);

        TABLES = new Table[5];
        for (int k = 0; k < 5; k++) {
            int[] d = new int[2000];
            for (int i = 0; i < d.length; i++) d[i] = k == 4 ? -i : i * i;
            TABLES[k] = new Table(d);
        }

        NAMES = new String[520];
        for (int k = 0; k < 500; k++) NAMES[k] = fresh("duplicated-string-0123456789");
        for (int k = 500; k < 520; k++) NAMES[k] = fresh("other-dup");

        for (int k = 0; k < 3; k++) {
            Screen s = new Screen();
            s.title = "screen-" + k;
            Listener l = new Listener();
            l.owner = s;
            l.serial = k;
            s.listener = l;
            EventBus.INSTANCE.listeners.add(l);
        }

        boolean rings = !(args.length > 2 && args[2].equals("norings"));
        RINGS = rings ? new RingA[2] : null;
        for (int k = 0; rings && k < 2; k++) {
            RingA a = new RingA();
            a.b = new RingB();
            a.b.c = new RingC();
            a.b.c.a = a;
            RINGS[k] = a;
        }

        REGISTRY = new Registry();
        REGISTRY.bus = EventBus.INSTANCE;
        REGISTRY.rings = RINGS;

        int ballastMb = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        java.util.Random rnd = new java.util.Random(42);
        BALLAST = new int[ballastMb * 16][];
        for (int k = 0; k < BALLAST.length; k++) {
            BALLAST[k] = new int[16384]; // 64 KB each
            for (int i = 0; i < BALLAST[k].length; i++) BALLAST[k][i] = rnd.nextInt();
        }

        CountDownLatch ready = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            Parent p = new Parent(); // reachable only from this frame
            for (int k = 0; k < 2; k++) {
                Child c = new Child();
                c.parent = p;
                p.children.add(c);
            }
            ready.countDown();
            while (true) {
                LockSupport.park();
                if (p.children.isEmpty()) break; // keeps `p` live in the frame
            }
        }, "lr-special-holder");
        holder.setDaemon(true);
        holder.start();
        ready.await();
        Thread.sleep(50);

        HotSpotDiagnosticMXBean mx =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        mx.dumpHeap(args[0], true);
    }
}
