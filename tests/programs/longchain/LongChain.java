// SPDX-License-Identifier: Apache-2.0
// LongChain.java: a heap whose leak paths are very long. One static field holds the head of a
// singly linked list of N nodes (val = 0 .. N-1), so node k is k + 1 references below the
// class. With "items", every node also holds an Item (val = k) and every node whose val ends
// in 50 (mod 100) is a checkpoint, so N watched items have N paths sharing one chain.
// Dumps with HotSpotDiagnosticMXBean (live objects only).
// usage: java LongChain OUT.hprof N [items]
package com.example.longchain;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class LongChain {
    static final class Item {
        final int val;

        Item(int val) { this.val = val; }
    }

    static final class Node {
        final int val;
        final boolean checkpoint;
        final Node next;
        final Item item;

        Node(int val, Node next, Item item) {
            this.val = val;
            this.checkpoint = item != null && val % 100 == 50;
            this.next = next;
            this.item = item;
        }
    }

    static Node head;

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        boolean items = args.length > 2 && args[2].equals("items");
        Node h = null;
        for (int i = n - 1; i >= 0; i--)
            h = new Node(i, h, items ? new Item(i) : null);
        head = h;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .dumpHeap(args[0], true);
    }
}
