// SPDX-License-Identifier: Apache-2.0
// FinalizerBacklog: a program whose finalizable garbage outruns its finalizer (each
// finalize() sleeps 1 ms, 100 such objects every 20 ms: the queue never empties), and which
// leaks ten watched objects in a static list once the backlog has grown for 2 s. Runs
// args[0] ms. A check that waits for finalization to finish waited for good: no count, no
// dump.
package agent;

import java.util.ArrayList;
import java.util.List;
import leakray.AppWatcher;

public class FinalizerBacklog {
    static final List<Object> KEPT = new ArrayList<>();

    static final class Slow {
        final byte[] b = new byte[256];

        @Override
        @SuppressWarnings("deprecation")
        protected void finalize() throws Throwable {
            Thread.sleep(1);
        }
    }

    static final class Session {
        final byte[] state = new byte[1024];
    }

    public static void main(String[] args) throws Exception {
        long start = System.currentTimeMillis(), end = start + Long.parseLong(args[0]);
        while (System.currentTimeMillis() < end) {
            for (int i = 0; i < 100; i++)
                new Slow();
            if (KEPT.isEmpty() && System.currentTimeMillis() - start >= 2000) {
                for (int i = 0; i < 10; i++) {
                    Session s = new Session();
                    KEPT.add(s);
                    AppWatcher.expectWeaklyReachable(s, "session closed");
                }
            }
            Thread.sleep(20);
        }
        System.out.println("kept " + KEPT.size());
    }
}
