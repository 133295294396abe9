// SPDX-License-Identifier: Apache-2.0
// SqlTarget: a heap with known answers for `leakray sql`, `instances` and `path --merged`
// (tests/cli/sql_*.sh). Pages (and SubPages) are kept by several chains: a static list, a
// static map, a static array, a chain of pages, and one only through a SoftReference; some
// are destroyed. Three copies of one 2 kB string and two of a 1.5 kB one are duplicates.
// A static array holds 200,000 Leaf objects in every other slot, allocated out of slot order
// (a wide merged tree whose children are not in edge order).
// usage: java SqlTarget OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.SoftReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class SqlTarget {
    static class Page {
        boolean mDestroyed;
        int id;
        Page next;
        byte[] payload;

        Page(int id, boolean destroyed, int bytes) {
            this.id = id;
            this.mDestroyed = destroyed;
            this.payload = new byte[bytes];
        }
    }

    static class SubPage extends Page {
        SubPage(int id, boolean destroyed) {
            super(id, destroyed, 64);
        }
    }

    static class Leaf {}

    static final List<Page> LIST = new ArrayList<>();
    static final Map<String, Page> MAP = new HashMap<>();
    static final Page[] ARRAY = new Page[3];
    static Page CHAIN;
    static SoftReference<Page> SOFT;
    static String[] DUPES;
    static final Object[] WIDE = new Object[400000];

    static String repeat(char c, int n) {
        char[] a = new char[n];
        java.util.Arrays.fill(a, c);
        return new String(a);
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 6; i++)
            LIST.add(new Page(i, i % 2 == 0, 100 * (i + 1)));
        LIST.add(new SubPage(100, true));
        LIST.add(new SubPage(101, false));
        for (int i = 0; i < 4; i++)
            MAP.put("k" + i, new Page(10 + i, i == 3, 1000));
        for (int i = 0; i < 3; i++)
            ARRAY[i] = new Page(20 + i, false, 10);
        Page head = new Page(30, true, 5000);
        head.next = new Page(31, true, 50);
        head.next.next = new Page(32, false, 60);
        CHAIN = head;
        SOFT = new SoftReference<>(new Page(40, true, 7000));
        DUPES = new String[] {repeat('x', 2048), repeat('x', 2048), repeat('x', 2048),
                              repeat('y', 1500), repeat('y', 1500), repeat('z', 3000)};
        // Allocated out of slot order (7919 is prime to 200,000): the dump lists the leaves
        // in another order than the array's slots.
        for (int i = 0; i < WIDE.length / 2; i++)
            WIDE[2 * (int) ((i * 7919L) % (WIDE.length / 2))] = new Leaf();
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        System.out.println(LIST.size() + MAP.size() + ARRAY.length + CHAIN.id + DUPES.length);
    }
}
