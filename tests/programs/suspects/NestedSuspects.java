// SPDX-License-Identifier: Apache-2.0
// NestedSuspects: leak suspects whose only paths run through other suspects. Four sessions of
// 150 kB each are kept by the main class's static array, beside 2 MB of its own, and by the
// static list of a class of the application's loader (Audit), beside 800 kB of its own.
// MAT's suspects: the main class (accumulated in its array), the loader (accumulated in its
// classes' array) and the sessions, held by both, so by no single object: each of their paths
// from a GC root passes through another suspect's accumulation point. Writes a heap dump to
// args[0].
package com.example.suspects;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class NestedSuspects {
    static final class Session {
        final byte[] state;
        final String user;

        Session(String user, int bytes) {
            this.user = user;
            this.state = new byte[bytes];
        }
    }

    static final Object[] CACHE = new Object[16];

    static final class Audit {
        static final List<Object> TRAIL = new ArrayList<>();
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 10; i++)
            CACHE[i] = new byte[200_000];
        for (int i = 0; i < 4; i++) {
            Session s = new Session("user" + i, 150_000);
            CACHE[10 + i] = s;
            Audit.TRAIL.add(s);
            Audit.TRAIL.add(new long[25_000]);
        }
        System.gc();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
