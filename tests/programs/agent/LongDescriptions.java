// SPDX-License-Identifier: Apache-2.0
// LongDescriptions: watches 2,000 short-lived objects, each with a description of its own of
// 8 KB (the request it served, where it was released), keeps none of them, then lets the
// agent sweep and prints the heap in use after a GC: "used BYTES". A numbered description
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
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(200); /* the agent's ticks sweep what was collected */
        }
        System.gc();
        Runtime r = Runtime.getRuntime();
        System.out.println("used " + (r.totalMemory() - r.freeMemory()));
    }
}
