// SPDX-License-Identifier: Apache-2.0
// ManyObjects.java: a heap of COUNT (default 2,000,000) small objects held by one array, so
// that loading its dump takes long enough for the progress bar to draw.
// Usage: java com.example.audit2.ManyObjects OUT.hprof [COUNT]
package com.example.audit2;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class ManyObjects {
    static final class Cell {
        final int serial;
        Cell next;

        Cell(int serial) {
            this.serial = serial;
        }
    }

    static Cell[] cells;

    public static void main(String[] args) throws Exception {
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
        cells = new Cell[n];
        for (int i = 0; i < n; i++) {
            cells[i] = new Cell(i);
            if (i > 0)
                cells[i - 1].next = cells[i];
        }
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
    }
}
