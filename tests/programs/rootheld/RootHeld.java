// SPDX-License-Identifier: Apache-2.0
// RootHeld.java: objects held both by one field and by a GC root (a local of main), for the
// retained sizes of VisualVM's model (docs/design.md). ALONE's only field holds a 2,000,000-
// byte buffer that main's local also holds: freeing ALONE frees 16 bytes, so the buffer is
// retained by the GC roots alone. MIXED holds a 1,000,000-byte buffer main also holds and a
// 65,536-byte buffer of its own: VisualVM counts both buffers in MIXED's retained size (a
// holder with a tree child of its own takes its root-held children too). CHAIN holds
// Link(10,000) -> Link(20,000) -> Link(30,000) (payload bytes), each link also a local of
// main: VisualVM gives each link its own payload only, 10,040 20,040 30,040 (the second link's
// root-held child becomes a tree object a level after its payload, too late to take it along).
// Usage: java RootHeld OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class RootHeld {
    static final class Alone {
        byte[] buf;
    }

    static final class Mixed {
        byte[] shared;
        byte[] own;
    }

    static final class Link {
        final byte[] payload;
        Link next;

        Link(int n) {
            payload = new byte[n];
        }
    }

    static Alone ALONE;
    static Mixed MIXED;
    static Link CHAIN;

    public static void main(String[] args) throws Exception {
        byte[] big = new byte[2_000_000];
        byte[] mid = new byte[1_000_000];
        ALONE = new Alone();
        ALONE.buf = big;
        MIXED = new Mixed();
        MIXED.shared = mid;
        MIXED.own = new byte[65_536];
        Link l1 = new Link(10_000), l2 = new Link(20_000), l3 = new Link(30_000);
        l1.next = l2;
        l2.next = l3;
        CHAIN = l1;
        System.gc();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        // the locals stay live across the dump: GC roots of main's frame
        System.out.println(big.length + mid.length + l1.payload.length + l2.payload.length
                           + l3.payload.length);
    }
}
