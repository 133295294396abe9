// SPDX-License-Identifier: Apache-2.0
// DirectBuffers.java: Netty buffers never released: 40 unpooled direct buffers of 256 kB
// kept by a registry of closed connections (watch DirectBuffers$Connection), 200 pooled ones
// dropped without release() (the arena keeps their chunks), 8 NIO direct buffers of 512 kB in
// a static list. Their memory is off the Java heap. Usage: DirectBuffers LIVE.hprof ALL.hprof
package leakray.realjava;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class DirectBuffers {
    static final class Connection {
        final int id;
        final ByteBuf inbound;
        boolean closed;
        Connection(int id, ByteBuf b) { this.id = id; this.inbound = b; }
    }

    static final class ConnectionRegistry {
        final Map<Integer, Connection> byId = new HashMap<>();
    }

    static final ConnectionRegistry REGISTRY = new ConnectionRegistry();
    static final List<ByteBuffer> NIO_CACHE = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 40; i++) {
            Connection c = new Connection(i, Unpooled.directBuffer(256 * 1024));
            c.inbound.writeBytes(new byte[1000]);
            c.closed = true;
            REGISTRY.byId.put(i, c);
        }
        PooledByteBufAllocator pool = PooledByteBufAllocator.DEFAULT;
        for (int i = 0; i < 200; i++) {
            ByteBuf b = pool.directBuffer(64 * 1024);
            b.writeInt(i);
        }
        for (int i = 0; i < 8; i++) NIO_CACHE.add(ByteBuffer.allocateDirect(512 * 1024));
        for (int i = 0; i < 5; i++) { System.gc(); Thread.sleep(50); }
        Dump.write(args);
        System.out.println(REGISTRY.byId.size());
    }
}
