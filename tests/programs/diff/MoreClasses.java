// SPDX-License-Identifier: Apache-2.0
// MoreClasses.java: two dumps of one JVM, the second after 24 more classes were loaded (one
// instance each, kept), so `diff` has class objects to count.
// Usage: java MoreClasses A.hprof B.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;

public class MoreClasses {
    static final class K0 {
        int v = 0;
    }

    static final class K1 {
        int v = 1;
    }

    static final class K2 {
        int v = 2;
    }

    static final class K3 {
        int v = 3;
    }

    static final class K4 {
        int v = 4;
    }

    static final class K5 {
        int v = 5;
    }

    static final class K6 {
        int v = 6;
    }

    static final class K7 {
        int v = 7;
    }

    static final class K8 {
        int v = 8;
    }

    static final class K9 {
        int v = 9;
    }

    static final class K10 {
        int v = 10;
    }

    static final class K11 {
        int v = 11;
    }

    static final class K12 {
        int v = 12;
    }

    static final class K13 {
        int v = 13;
    }

    static final class K14 {
        int v = 14;
    }

    static final class K15 {
        int v = 15;
    }

    static final class K16 {
        int v = 16;
    }

    static final class K17 {
        int v = 17;
    }

    static final class K18 {
        int v = 18;
    }

    static final class K19 {
        int v = 19;
    }

    static final class K20 {
        int v = 20;
    }

    static final class K21 {
        int v = 21;
    }

    static final class K22 {
        int v = 22;
    }

    static final class K23 {
        int v = 23;
    }

    static final ArrayList<Object> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        HotSpotDiagnosticMXBean mx =
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        mx.dumpHeap(args[0], true);
        KEEP.add(new K0());
        KEEP.add(new K1());
        KEEP.add(new K2());
        KEEP.add(new K3());
        KEEP.add(new K4());
        KEEP.add(new K5());
        KEEP.add(new K6());
        KEEP.add(new K7());
        KEEP.add(new K8());
        KEEP.add(new K9());
        KEEP.add(new K10());
        KEEP.add(new K11());
        KEEP.add(new K12());
        KEEP.add(new K13());
        KEEP.add(new K14());
        KEEP.add(new K15());
        KEEP.add(new K16());
        KEEP.add(new K17());
        KEEP.add(new K18());
        KEEP.add(new K19());
        KEEP.add(new K20());
        KEEP.add(new K21());
        KEEP.add(new K22());
        KEEP.add(new K23());
        mx.dumpHeap(args[1], true);
    }
}
