// SPDX-License-Identifier: Apache-2.0
// FullHeap.java: the first dump comes due while the heap is full. The program fills its heap
// with 1 kB arrays until OutOfMemoryError, frees a few, closes and keeps 6 connections (leaks
// the agent watches through its close rule), waits WAIT_MS with the heap still full, then
// frees the filler and waits again. Under the agent the first dump attempts meet a full
// heap: they must be put off (the management classes started then fail for the JVM's life),
// not end the watching; once there is room the dump and its report follow.
// Usage: java FullHeap WAIT_MS
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;

public class FullHeap {
    static final List<Object> KEPT = new ArrayList<>();
    static byte[][] filler = new byte[100_000][];

    static final class Connection implements Closeable {
        @Override public void close() { }
    }

    public static void main(String[] args) throws Exception {
        long wait = Long.parseLong(args[0]);
        String ready = "full", freed = "freed"; // made before the heap is
        int n = 0;
        try {
            while (n < filler.length)
                filler[n++] = new byte[1000];
        } catch (OutOfMemoryError e) {
            n--;
        }
        for (int i = 0; i < 64 && n > 0; i++)
            filler[--n] = null;
        for (int i = 0; i < 6; i++) {
            Connection c = new Connection();
            c.close();
            KEPT.add(c);
        }
        System.out.println(ready);
        Thread.sleep(wait);
        filler = null;
        System.out.println(freed);
        Thread.sleep(wait);
    }
}
