// SPDX-License-Identifier: Apache-2.0
// RootHeld.java: objects held both by one field and by a GC root (a local of main), for the
// retained sizes of VisualVM's model (docs/design.md). ALONE's only field holds a 2,000,000-
// byte buffer that main's local also holds: freeing ALONE frees 16 bytes, so the buffer is
// retained by the GC roots alone. MIXED holds a 1,000,000-byte buffer main also holds and a
// 65,536-byte buffer of its own: VisualVM counts both buffers in MIXED's retained size (a
// holder with a tree child of its own takes its root-held children too). Usage: java RootHeld
// OUT.hprof
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

    static Alone ALONE;
    static Mixed MIXED;

    public static void main(String[] args) throws Exception {
        byte[] big = new byte[2_000_000];
        byte[] mid = new byte[1_000_000];
        ALONE = new Alone();
        ALONE.buf = big;
        MIXED = new Mixed();
        MIXED.shared = mid;
        MIXED.own = new byte[65_536];
        System.gc();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        // the locals stay live across the dump: GC roots of main's frame
        System.out.println(big.length + mid.length);
    }
}
