// SPDX-License-Identifier: Apache-2.0
// EarlyLeaks: java.io.FileInputStream, a JDK Closeable loaded before main, closed and kept by
// code that starts right away or comes later, under the leakray agent (java.io.Closeable#close
// of jvm.rules). The agent hooks such classes only when a class loaded after main's first
// one constructs or extends one, before that class runs, or a while after main started.
// usage: java -agentpath:...=delay-ms=D -cp leakray-watcher.jar:. agent.EarlyLeaks RUN_MS
//   main constructs no JDK Closeable: after 300 ms it prints the agent's status key
//   "retransforms" (still 0: nothing needed the hook yet), and "before: too late to tell"
//   when that took over 900 ms (a starved thread); then class Late (loaded only now)
//   opens, closes and keeps 1 FileInputStream, and class Sub (a FileInputStream of its own,
//   close() inherited) is closed and kept: 2 leaks
// usage: ... agent.EarlyFirst RUN_MS
//   the main class opens, closes and keeps 1 FileInputStream as its first statement (its
//   bytes never pass the agent's load hook: the agent reads its constant pool): 1 leak
// Then each sleeps RUN_MS and prints the agent's status file.
package agent;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public class EarlyLeaks {
    static final List<Object> KEPT = new ArrayList<>();

    static final class Late {
        static void open() throws IOException {
            FileInputStream f = new FileInputStream("/dev/null");
            KEPT.add(f);
            f.close();
        }
    }

    static final class Sub extends FileInputStream {
        Sub() throws IOException {
            super("/dev/null");
        }
    }

    static final class Subs {
        static void open() throws IOException {
            Sub s = new Sub();
            KEPT.add(s);
            s.close();
        }
    }

    static String status() {
        return "/tmp/leakray-watch-" + ProcessHandle.current().pid() + ".status";
    }

    public static void main(String[] args) throws Exception {
        long runMs = Long.parseLong(args[0]);
        long t0 = System.nanoTime();
        Thread.sleep(300);
        List<String> st = Files.readAllLines(Paths.get(status()));
        // the agent retransforms anyway a second after main's class loaded: on a machine so
        // busy that this thread got here that late, the key says nothing
        if (System.nanoTime() - t0 > 900_000_000L) {
            System.out.println("before: too late to tell");
        }
        for (String l : st) {
            if (l.startsWith("retransforms:")) System.out.println("before " + l);
        }
        Late.open();
        Subs.open();
        end(runMs);
    }

    static void end(long runMs) throws Exception {
        Thread.sleep(runMs);
        for (String l : Files.readAllLines(Paths.get(status()))) {
            System.out.println(l);
        }
        System.exit(0);
    }
}

/** A main class that opens a JDK Closeable as its first statement. */
class EarlyFirst {
    public static void main(String[] args) throws Exception {
        FileInputStream f = new FileInputStream("/dev/null");
        EarlyLeaks.KEPT.add(f);
        f.close();
        EarlyLeaks.end(Long.parseLong(args[0]));
    }
}
