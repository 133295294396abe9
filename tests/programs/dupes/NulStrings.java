// SPDX-License-Identifier: Apache-2.0
// NulStrings: duplicated strings a C string would cut short: two values that differ only
// after a U+0000 (NUL-separated records), five copies of each (six strings with the literal), and three copies of a value
// of 1,500 characters (an é every 100) past what the outputs carry whole. Writes a heap dump
// to args[0].
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class NulStrings {
    static final List<String> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 5; i++) {
            KEEP.add(new String("rec\u0000first".toCharArray()));
            KEEP.add(new String("rec\u0000second-one".toCharArray()));
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 1500; i++)
            b.append(i % 100 == 99 ? '\u00e9' : (char) ('a' + i % 26));
        for (int i = 0; i < 3; i++)
            KEEP.add(new String(b.toString().toCharArray()));
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
