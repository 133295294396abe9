// SPDX-License-Identifier: Apache-2.0
// AgentBench: the workloads of bench/agent.sh, run with and without the leakray JVM agent.
// usage: java [-agentpath:...] -cp leakray-watcher.jar:. AgentBench MODE N [MB]
//   watch N   N short-lived requests (a parsed header map and a 2 KB body each), each watched
//             with AppWatcher.expectWeaklyReachable once handled
//   close N   N short-lived connections whose close() is watched by the Closeable#close rule
//             (nothing escapes the loop; JDK 17's JIT still allocates each connection, with
//             or without the agent: 13 young collections per 10,000,000 either way)
//   queue N   the same N connections, each handed through a 64-slot queue before it is
//             closed (as connections pass between threads or a pool): they live in the heap
//             with or without the agent
//   hold N    N objects watched and kept alive (the agent's memory per watched object)
//   heap N MB an MB-megabyte live heap, then 5 watched objects leaked; prints the clock
//             (epoch ms) of the watch so the script can time retained -> report on disk
// Prints "elapsed_us N" (microseconds) for the timed loop and then sleeps as asked by the mode.
import java.io.Closeable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import leakray.AppWatcher;

public class AgentBench {
    static final List<Object> KEEP = new ArrayList<>();
    static long sink;

    static final class Request {
        final Map<String, String> headers = new HashMap<>();
        final byte[] body = new byte[2048];

        Request(int i) {
            for (int h = 0; h < 8; h++) headers.put("X-Header-" + h, "value-" + (i ^ h));
            body[i & 2047] = (byte) i;
        }

        long handle() {
            long s = 0;
            for (Map.Entry<String, String> e : headers.entrySet()) s += e.getValue().hashCode();
            for (int k = 0; k < body.length; k += 64) s += body[k];
            return s;
        }
    }

    static final class Connection implements Closeable {
        final byte[] buffer = new byte[256];
        boolean open = true;

        long send(int i) {
            buffer[i & 255] = (byte) i;
            return buffer[(i * 7) & 255];
        }

        @Override public void close() { open = false; }
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int n = Integer.parseInt(args[1]);
        long t0 = System.nanoTime();
        switch (mode) {
            case "watch":
                for (int i = 0; i < n; i++) {
                    Request r = new Request(i);
                    sink += r.handle();
                    AppWatcher.expectWeaklyReachable(r, "request handled");
                }
                break;
            case "close":
                for (int i = 0; i < n; i++) {
                    Connection c = new Connection();
                    sink += c.send(i);
                    c.close();
                }
                break;
            case "queue": {
                Connection[] q = new Connection[64];
                for (int i = 0; i < n; i++) {
                    Connection c = new Connection();
                    sink += c.send(i);
                    Connection old = q[i & 63];
                    q[i & 63] = c;
                    if (old != null) old.close();
                }
                break;
            }
            case "hold":
                for (int i = 0; i < n; i++) {
                    Object o = new Object();
                    KEEP.add(o);
                    AppWatcher.expectWeaklyReachable(o, "held");
                }
                break;
            case "heap": {
                int mb = Integer.parseInt(args[2]);
                for (int i = 0; i < mb * 16; i++) {
                    // 64 KB chunks in small object graphs: many objects, like a real heap
                    Map<Integer, byte[]> m = new HashMap<>();
                    for (int k = 0; k < 16; k++) m.put(k, new byte[4096 - 16]);
                    KEEP.add(m);
                }
                System.gc();
                List<Object> leaked = new ArrayList<>();
                KEEP.add(leaked);
                long wall = System.currentTimeMillis();
                for (int i = 0; i < 5; i++) {
                    Object o = new byte[1024];
                    leaked.add(o);
                    AppWatcher.expectWeaklyReachable(o, "leaked on purpose");
                }
                System.out.println("watched_at_epoch_ms " + wall);
                break;
            }
            default:
                throw new IllegalArgumentException(mode);
        }
        System.out.println("elapsed_us " + (System.nanoTime() - t0) / 1_000);
        System.out.println("sink " + (sink & 1));
        System.out.flush();
        long stay = args.length > 3 ? Long.parseLong(args[3]) : 0;
        if (mode.equals("hold")) stay = 1500;
        Thread.sleep(stay);
        System.exit(0);
    }
}
