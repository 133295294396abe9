// SPDX-License-Identifier: Apache-2.0
// NoCleaner.java: direct buffers made from an address, as Netty's no-cleaner buffers and pool
// chunks are: Unsafe.allocateMemory, then DirectByteBuffer's constructor from an address (no
// Cleaner; the owner frees the memory by hand). A static list keeps 3 of 1 MiB and a duplicate
// of the first (a view, which owns none); a 4th is dropped before the dump. The JDK's own
// buffers without a Cleaner (the class image it maps, its performance counters) are in every
// dump beside them. Needs --add-opens java.base/java.nio=ALL-UNNAMED.
// Usage: java --add-opens java.base/java.nio=ALL-UNNAMED NoCleaner OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

public class NoCleaner {
    static final List<ByteBuffer> HELD = new ArrayList<>();

    static ByteBuffer make(Object unsafe, int cap) throws Exception {
        long addr = (long) unsafe.getClass().getMethod("allocateMemory", long.class)
                                .invoke(unsafe, (long) cap);
        Class<?> dbb = Class.forName("java.nio.DirectByteBuffer");
        Constructor<?> c;
        Object[] args;
        try {
            c = dbb.getDeclaredConstructor(long.class, int.class);
            args = new Object[] {addr, cap};
        } catch (NoSuchMethodException e) { // JDK 21+: a long capacity
            c = dbb.getDeclaredConstructor(long.class, long.class);
            args = new Object[] {addr, (long) cap};
        }
        c.setAccessible(true);
        return (ByteBuffer) c.newInstance(args);
    }

    public static void main(String[] args) throws Exception {
        Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        f.setAccessible(true);
        Object unsafe = f.get(null);
        for (int i = 0; i < 3; i++)
            HELD.add(make(unsafe, 1 << 20));
        HELD.add(HELD.get(0).duplicate());
        make(unsafe, 1 << 20); // dropped
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
