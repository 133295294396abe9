// SPDX-License-Identifier: Apache-2.0
// Arrays.java: arrays of known lengths (an int[12345], an Object[77], a long[0], a char[3])
// kept by a static holder, and a tree of 200,000 nodes under one owner, for `sql`'s array
// length column and its dominator-tree lookups; some elements hold known values (elements
// table, field()'s [N]).
// Usage: java Arrays OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class Arrays {
    static final class Holder {
        int[] ints = new int[12345];
        Object[] objs = new Object[77];
        long[] none = new long[0];
        char[] three = {'a', 'b', 'c'};
        double[] ds = {1.5, -0.25};
        boolean[] bs = {true, false};
        byte[] bytes = {-1, 127};

        Holder() {
            ints[0] = -7;
            ints[12344] = 42;
            objs[5] = "five";
            objs[76] = three;
        }
    }

    static final class Node {
        Node left, right;
    }

    static Holder holder = new Holder();
    static Node tree;

    static Node build(int n) {
        if (n == 0)
            return null;
        Node x = new Node();
        x.left = build((n - 1) / 2);
        x.right = build(n - 1 - (n - 1) / 2);
        return x;
    }

    public static void main(String[] args) throws Exception {
        tree = build(200000);
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
