// SPDX-License-Identifier: Apache-2.0
// a: a small shop program written as R8 leaves an app, with one-letter class, field and
// method names (tests/e2e/answers_*.sh hand the matching mapping, written at test time from
// the LINE markers below, to --mapping). It writes two heap dumps from one process: the first
// while a cart holds 200 items, the second after 1,000 more items joined it, each taken in a
// method whose locals hold the cart. Usage: java -cp CLASSES a FIRST.hprof SECOND.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;

public class a {
    static b a = new b();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 200; i++)
            a.a.add(new c(i));
        a(args[0], a); // LINE main-first
        for (int i = 0; i < 1000; i++)
            a.a.add(new c(i));
        a(args[1], a); // LINE main-second
    }

    static void a(String out, b cart) throws Exception {
        b held = cart;
        HotSpotDiagnosticMXBean bean =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(out, true); // LINE snapshot
        if (held.a.isEmpty())
            throw new AssertionError();
    }
}

class b {
    final ArrayList<c> a = new ArrayList<>();
}

class c {
    final int a;
    final long[] b = new long[4];

    c(int a) {
        this.a = a;
    }
}
