// SPDX-License-Identifier: Apache-2.0
// HugeDump: builds a deterministic heap sized to give a HotSpot heap dump of a requested size
// (tens of GB) and writes it with HotSpotDiagnosticMXBean.dumpHeap (scripts/gen-huge-dump.sh).
// usage: java -Xmx14g -Xmn1g -XX:+UseParallelGC HugeDump OUT.hprof GIB
// The heap is made of shards, each a complete binary tree of 65,535 small nodes (three
// references each), a Leaf on every other node, 4,096 Object[16] index arrays pointing back
// into the tree (so tree nodes have two referrers and dominators are not the spanning tree),
// and one long[32768]. With 8-byte ids a reference-only object is about twice as large in the
// dump as in a compressed-oops heap, so a shard is about 5.2 MB of dump for 2.7 MB of heap:
// 20 GiB of dump needs about 10.5 GiB of heap, 4,200 shards and 430 million objects, close
// to the density of BigDump (20 M objects per GB). Planted leaks, the first three as in
// BigDump (PlantedLeaks):
//   - a static listener list that only grows (PlantedLeaks$Listener -> PlantedLeaks$Screen,
//     2000),
//   - 10 Screens watched by leakcanary.KeyedWeakReference after "destroy", still held,
//   - a worker thread parked while its frame holds buffers,
//   - a few large primitive arrays (bitmaps) held by a static cache.
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class HugeDump {
    static final int TREE_DEPTH = 16;              // 2^16 - 1 nodes per shard
    static final int INDEX_WIDTH = 16;             // references per index array
    static final int SERIES_LONGS = 32 * 1024;     // one long[] per shard (256 KiB)
    // Dump bytes per shard with 8-byte ids (record headers included): tree nodes 49 B,
    // leaves 33 B, index arrays 25 + 8 * 16 B and their holder 25 + 8 * 4096 B, the long[]
    // 18 + 8 * n B, the shard 49 B.
    static final long SHARD_DUMP_BYTES = ((1L << TREE_DEPTH) - 1) * 49
        + (1L << (TREE_DEPTH - 1)) * 33
        + (1L << (TREE_DEPTH - 4)) * (25 + 8 * INDEX_WIDTH + 8) + 25
        + 18 + 8L * SERIES_LONGS + 49;

    static final class Node {
        Node left;
        Node right;
        Object value;
    }

    static final class Leaf {
        Object ref;
    }

    static final class Shard {
        Node root;
        Object[][] index;
        long[] series;
    }

    static final List<Shard> SHARDS = new ArrayList<>();
    static final List<PlantedLeaks.Listener> LISTENERS = new ArrayList<>();
    static final List<Object> WATCHED = new ArrayList<>();
    static final List<Object> HOLD = new ArrayList<>();
    static final List<byte[]> BITMAP_CACHE = new ArrayList<>();
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();

    static Node[] scratch;
    static int filled;

    // Depth is at most TREE_DEPTH, so the recursion is shallow.
    static Node build(int depth, String label) {
        Node n = new Node();
        int ix = filled++;
        scratch[ix] = n;
        if ((ix & 1) == 0) {
            Leaf leaf = new Leaf();
            leaf.ref = label;
            n.value = leaf;
        }
        if (depth > 1) {
            n.left = build(depth - 1, label);
            n.right = build(depth - 1, label);
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        double gib = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
        long shards = Math.max(1, (long) Math.ceil(gib * (1L << 30) / SHARD_DUMP_BYTES));
        Random rnd = new Random(20261201L);
        scratch = new Node[1 << TREE_DEPTH];
        for (long s = 0; s < shards; s++) {
            Shard sh = new Shard();
            filled = 0;
            sh.root = build(TREE_DEPTH, "shard-" + s);
            sh.index = new Object[1 << (TREE_DEPTH - 4)][];
            for (int i = 0; i < sh.index.length; i++) {
                Object[] row = new Object[INDEX_WIDTH];
                for (int k = 0; k < INDEX_WIDTH; k++) row[k] = scratch[rnd.nextInt(filled)];
                sh.index[i] = row;
            }
            sh.series = new long[SERIES_LONGS];
            for (int k = 0; k < SERIES_LONGS; k += 61) sh.series[k] = rnd.nextLong();
            SHARDS.add(sh);
            if ((s + 1) % 500 == 0) System.err.println("HugeDump: " + (s + 1) + "/" + shards);
        }
        scratch = null;

        // Leak 1: listeners registered by screens and never removed.
        PlantedLeaks.listeners(LISTENERS, 2000);

        // Leak 2: destroyed screens watched after destruction, still strongly held (by HOLD
        // and by this frame's local).
        List<PlantedLeaks.Screen> retained = PlantedLeaks.watched(WATCHED, HOLD, QUEUE, 10);

        // Leak 3: decoded bitmaps kept by a static cache (large primitive arrays).
        for (int i = 0; i < 16; i++) BITMAP_CACHE.add(new byte[8 << 20]);

        // Leak 4: a worker thread parked while its frame holds buffers.
        PlantedLeaks.parkedWorker();

        long objects = shards * ((1L << TREE_DEPTH) - 1 + (1L << (TREE_DEPTH - 1))
            + (1L << (TREE_DEPTH - 4)) + 3);
        System.err.println("HugeDump: " + shards + " shards, about " + objects
            + " objects in shards, dump estimate " + (shards * SHARD_DUMP_BYTES >> 20) + " MiB");
        HotSpotDiagnosticMXBean bean =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        // retained is used after the dump, so the frame holds it in any JIT state
        System.out.println("shards=" + SHARDS.size() + " listeners=" + LISTENERS.size()
            + " watched=" + retained.size());
    }
}
