// SPDX-License-Identifier: Apache-2.0
// AgentHookShapes: what the stamp hook the agent inserts into a watched close() costs the
// program, without the agent: the same connection loop as AgentBench's close workload, with
// close() written as the agent's rewrite leaves it and as the alternatives to it.
// usage: java -cp . AgentHookShapes SHAPE N   (one shape per JVM: the warm-up is measured)
//   plain     close() { open = false; }                       (the program without the agent)
//   stamp     + stamp = stamp(SLOT)   volatile epoch read, activity flag (the agent's hook)
//   field     + stamp = epoch         the volatile read alone, no call, no flag
//   nonvol    + stamp = stampPlain(SLOT)   as stamp, a plain (hoistable) epoch read
// Prints "elapsed_us N": the timed loop (interpreter, C1 and C2 on the way), as AgentBench.
import java.io.Closeable;

public class AgentHookShapes {
    static long sink;
    static volatile int epoch = 1;
    static int plainEpoch = 1;
    static final byte[] ACTIVE = new byte[4096];

    static int stamp(int slot) {
        int e = epoch;
        if (ACTIVE[slot] == 0) {
            ACTIVE[slot] = 1;
        }
        return e;
    }

    static int stampPlain(int slot) {
        int e = plainEpoch;
        if (ACTIVE[slot] == 0) {
            ACTIVE[slot] = 1;
        }
        return e;
    }

    abstract static class Conn implements Closeable {
        final byte[] buffer = new byte[256];
        boolean open = true;
        int stamp;

        final long send(int i) {
            buffer[i & 255] = (byte) i;
            return buffer[(i * 7) & 255];
        }
    }

    static final class Plain extends Conn {
        @Override public void close() { open = false; }
    }

    static final class Stamp extends Conn {
        @Override public void close() { open = false; stamp = stamp(7); }
    }

    static final class Field extends Conn {
        @Override public void close() { open = false; stamp = epoch; }
    }

    static final class NonVolatile extends Conn {
        @Override public void close() { open = false; stamp = stampPlain(7); }
    }

    public static void main(String[] args) {
        String shape = args[0];
        int n = Integer.parseInt(args[1]);
        long t0 = System.nanoTime();
        // one loop per shape, each with its exact class: the JIT sees one receiver type
        switch (shape) {
            case "plain":
                for (int i = 0; i < n; i++) { Plain c = new Plain(); sink += c.send(i); c.close(); }
                break;
            case "stamp":
                for (int i = 0; i < n; i++) { Stamp c = new Stamp(); sink += c.send(i); c.close(); }
                break;
            case "field":
                for (int i = 0; i < n; i++) { Field c = new Field(); sink += c.send(i); c.close(); }
                break;
            case "nonvol":
                for (int i = 0; i < n; i++) {
                    NonVolatile c = new NonVolatile();
                    sink += c.send(i);
                    c.close();
                }
                break;
            default:
                throw new IllegalArgumentException(shape);
        }
        System.out.println("elapsed_us " + (System.nanoTime() - t0) / 1_000);
        System.out.println("sink " + (sink & 1));
    }
}
