// SPDX-License-Identifier: Apache-2.0
// SmallCopies: duplicated arrays below dupes' 1,024-byte floor. 6,000 rows each keep a zeroed
// byte[200] (one content: 6,000 copies waste 5999 x 216 bytes, 1.3 MB), and 100 rows an
// int[10] of the same values (99 x 56 bytes wasted: too little to list). A long[300] of
// 7s is held by a local variable of main alone, two copies of it by KEEP; three copies of a
// UTF-16 string. Writes a heap dump
// to args[0].
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class SmallCopies {
    static final class Row {
        final byte[] data = new byte[200];
    }

    static final List<Object> KEEP = new ArrayList<>();

    /* the loops out of main: an OSR-compiled main's locals are no roots in the dump */
    static void fill() {
        for (int i = 0; i < 6000; i++)
            KEEP.add(new Row());
        for (int i = 0; i < 100; i++)
            KEEP.add(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    }

    public static void main(String[] args) throws Exception {
        fill();
        long[] local = new long[300];
        java.util.Arrays.fill(local, 7L);
        KEEP.add(local.clone());
        KEEP.add(local.clone());
        for (int i = 0; i < 3; i++) // a UTF-16 value: 8 characters in 16 bytes
            KEEP.add(new String(new char[] {'e', 'm', 'o', 'j', 'i', '\uD83D', '\uDE00', 'x'}));
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        if (local[299] != 7L) // the local lives past the dump
            throw new AssertionError();
    }
}
