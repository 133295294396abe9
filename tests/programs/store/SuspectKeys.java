// SPDX-License-Identifier: Apache-2.0
// SuspectKeys: one leak of a kind, laid out differently from run to run the way a real
// server's is, then a heap dump. map: an 8 MB value in a static HashMap, in a bucket of its
// own (plain: "user-11", alone in bucket 88 of 128) or chained after another key of the
// same hash ("Aa" and "BB": chain); list: an 8 MB element at position POS of a static
// LinkedList; nest: a cache of CACHE_MB beside a 7 MB index, so that past some size the
// cache alone holds most of the class. The statics are the main class's, which main's frame
// keeps: the class is the suspect.
// usage: java SuspectKeys OUT.hprof map plain|chain | list POS | nest CACHE_MB
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;

public class SuspectKeys {
    static final Map<String, Object> MAP = new HashMap<>();
    static final LinkedList<Object> LIST = new LinkedList<>();
    static final List<byte[]> CACHE = new ArrayList<>();
    static final Map<Integer, byte[]> INDEX = new HashMap<>();

    public static void main(String[] a) throws Exception {
        switch (a[1]) {
        case "map":
            for (int i = 0; i < 50; i++)
                MAP.put("small-" + i, new byte[100]);
            MAP.put("Aa", new byte[100]);
            MAP.put(a[2].equals("chain") ? "BB" : "user-11", new byte[8 << 20]);
            break;
        case "list":
            for (int i = 0, pos = Integer.parseInt(a[2]); i < 20; i++)
                LIST.add(i == pos ? new byte[8 << 20] : new byte[100]);
            break;
        default:
            for (int i = 0, n = Integer.parseInt(a[2]); i < n; i++)
                CACHE.add(new byte[1 << 20]);
            for (int i = 0; i < 7; i++)
                INDEX.put(i, new byte[1 << 20]);
        }
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(a[0], true);
    }
}
