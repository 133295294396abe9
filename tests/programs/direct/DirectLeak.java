// SPDX-License-Identifier: Apache-2.0
// DirectLeak.java: memory off the Java heap, held by Java objects. A static pool keeps 8
// direct buffers of 1 MiB (ByteBuffer.allocateDirect) and, beside them, a slice and a
// read-only view of the first (views own no memory); a registry of closed connections keeps
// 3 connections, each with a 2 MiB direct buffer (the leak: watch DirectLeak$Connection);
// 4 more buffers of 1 MiB are dropped before the dump. Each direct buffer's 64-byte object is
// all the heap shows of it: the native bytes are the size its Cleaner's Deallocator records.
// Usage: java DirectLeak OUT.hprof
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class DirectLeak {
    static final class Connection {
        final int id;
        final ByteBuffer inbound;
        boolean closed;

        Connection(int id, ByteBuffer inbound) {
            this.id = id;
            this.inbound = inbound;
        }
    }

    static final List<ByteBuffer> POOL = new ArrayList<>();
    static final Map<Integer, Connection> REGISTRY = new HashMap<>();
    static long sink;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 8; i++)
            POOL.add(ByteBuffer.allocateDirect(1 << 20));
        POOL.add(POOL.get(0).slice());
        POOL.add(POOL.get(0).asReadOnlyBuffer());
        for (int i = 0; i < 3; i++) {
            Connection c = new Connection(i, ByteBuffer.allocateDirect(2 << 20));
            c.closed = true;
            REGISTRY.put(i, c);
        }
        for (int i = 0; i < 4; i++)
            sink += ByteBuffer.allocateDirect(1 << 20).capacity();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
