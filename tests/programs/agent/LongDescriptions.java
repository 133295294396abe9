// SPDX-License-Identifier: Apache-2.0
// LongDescriptions: watches 2,000 short-lived objects, each with a description of its own of
// 8 KB (the request it served, where it was released), keeps none of them, then lets the
// agent sweep and prints the least heap in use after a GC over 5 s: "used BYTES". A numbered description
// used to be kept for good: 16 MB held by the agent's watcher for objects long gone.
package agent;

import java.util.Arrays;
import leakray.AppWatcher;

public class LongDescriptions {
    public static void main(String[] args) throws Exception {
        char[] pad = new char[8 * 1024];
        Arrays.fill(pad, 'x');
        String tail = new String(pad);
        for (int i = 0; i < 2000; i++) {
            Object req = new byte[64];
            AppWatcher.expectWeaklyReachable(req, "request " + i + " released at " + tail);
            if (i % 100 == 99)
                Thread.sleep(5);
        }
        /* the agent's ticks sweep what was collected, each 100 ms when the machine lets
         * them: the least the heap holds after a GC over a few seconds */
        Runtime r = Runtime.getRuntime();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 25; i++) {
            System.gc();
            least = Math.min(least, r.totalMemory() - r.freeMemory());
            Thread.sleep(200);
        }
        System.out.println("used " + least);
    }
}
