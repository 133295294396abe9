// SPDX-License-Identifier: Apache-2.0
// ManyObjects: a heap of many small objects (a binary tree of N nodes, each holding a short
// string and a small array every fourth node) plus a leaking listener list, so the dump's
// per-object and per-reference arrays run to megabytes: large enough that a small
// --max-memory makes them spill to files, small enough to write in a second.
// usage: java ManyObjects OUT.hprof NODES
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class ManyObjects {
    static final class Node {
        Node left, right;
        String name;
        int[] data;
    }

    static Node root;
    static final List<Object> listeners = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        Node[] all = new Node[n];
        for (int i = 0; i < n; i++) {
            Node x = new Node();
            x.name = "node-" + (i % 1000);
            if (i % 4 == 0)
                x.data = new int[8];
            all[i] = x;
            if (i > 0) {
                Node p = all[(i - 1) / 2];
                if (i % 2 == 1)
                    p.left = x;
                else
                    p.right = x;
            }
        }
        root = all[0];
        for (int i = 0; i < 2000; i++)
            listeners.add(new byte[512]);
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
    }
}
