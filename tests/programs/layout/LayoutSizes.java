// LayoutSizes.java: arrays of every element type at lengths 0 to 9 (every end alignment)
// and instances whose fields pack differently, all held by the static array ARRAYS; then the
// heap dump (args[0]), and what the running JVM says each of them takes (args[1]): for an
// array, Unsafe's base offset plus length x index scale, rounded up to 8; for an instance,
// the JVM's class histogram (the DiagnosticCommand GC.class_histogram) of its class, whose
// instances only this program makes. One line per ARRAYS index: "index class bytes".
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import javax.management.ObjectName;

public class LayoutSizes {
    static class OneByte { byte b; }
    static class ByteLong extends OneByte { long l; }
    static class RefInt { Object o; int i; }
    static class Mixed extends RefInt { char c; double d; boolean z; short s; }
    static class Empty { }

    static final Object[] ARRAYS = new Object[105];

    public static void main(String[] args) throws Exception {
        Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        f.setAccessible(true);
        sun.misc.Unsafe u = (sun.misc.Unsafe) f.get(null);
        Object[] one = {new OneByte(), new ByteLong(), new RefInt(), new Mixed(), new Empty()};
        int k = 0;
        for (Object o : one)
            ARRAYS[k++] = o;
        for (int n = 0; n < 10; n++) {
            Object[] a = {new boolean[n], new byte[n], new char[n], new short[n], new int[n],
                          new long[n], new float[n], new double[n], new Empty[n],
                          new Empty[n][]};
            for (Object x : a)
                ARRAYS[k++] = x;
        }
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        try (PrintWriter w = new PrintWriter(args[1])) {
            for (int i = 0; i < k; i++) {
                Object x = ARRAYS[i];
                Class<?> c = x.getClass();
                long bytes;
                if (c.isArray()) {
                    int len = java.lang.reflect.Array.getLength(x);
                    bytes = (u.arrayBaseOffset(c) + (long) u.arrayIndexScale(c) * len + 7) & ~7L;
                } else {
                    bytes = -1;
                    for (String line : histogram.split("\n")) {
                        String[] p = line.trim().split("\\s+");
                        if (p.length >= 4 && p[3].equals(c.getName()))
                            bytes = Long.parseLong(p[2]) / Long.parseLong(p[1]);
                    }
                }
                w.println(i + " " + c.getName() + " " + bytes);
            }
        }
    }
}
