// SPDX-License-Identifier: Apache-2.0
// StampLeaks: rule-watched application classes the leakray agent finds through the stamp
// field it adds when they are loaded (java.io.Closeable#close of jvm.rules).
// usage: java -agentpath:...=delay-ms=D -cp leakray-watcher.jar:. agent.StampLeaks N M RUN_MS
//        [retransform]
//   M connections closed and dropped at once (collected: never reported), N closed and kept
//   in a static list (the leaks: Connection, SubConnection whose close() overrides and calls
//   super.close(), Plain which inherits close()), N closed and released 100 ms later (before
//   the delay: never reported); then sleeps RUN_MS and prints the agent's status file.
//   With "retransform" (and -javaagent:retransformer.jar), the three classes are retransformed
//   by that second agent first: their stamp field must survive it.
package agent;

import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public class StampLeaks {
    static class Connection implements Closeable {
        boolean open = true;
        @Override public void close() { open = false; }
    }

    static class SubConnection extends Connection {
        int closes;
        @Override public void close() { closes++; super.close(); } // one leak, not two
    }

    static final class Plain extends Connection { }

    static final List<Connection> KEPT = new ArrayList<>();
    static List<Connection> brief = new ArrayList<>();
    static long sink;

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]), m = Integer.parseInt(args[1]);
        long runMs = Long.parseLong(args[2]);
        // -Dpre=MS: the closes come after the agent's epochs have run that long (a server
        // that closes connections well after its start)
        Thread.sleep(Long.getLong("pre", 0L));
        if (args.length > 3 && args[3].equals("retransform")) {
            new Plain().close(); // loaded and prepared, as the other two are
            Retransformer.inst.retransformClasses(Connection.class, SubConnection.class,
                    Plain.class);
        }
        for (int i = 0; i < m; i++) {
            Connection c = (i & 1) == 0 ? new Connection() : new SubConnection();
            c.close();
            sink += c.open ? 1 : 0;
        }
        for (int i = 0; i < n; i++) {
            Connection c = i % 3 == 0 ? new Connection() : i % 3 == 1 ? new SubConnection()
                    : new Plain();
            KEPT.add(c);
            c.close();
        }
        for (int i = 0; i < n; i++) {
            Connection c = new SubConnection();
            brief.add(c);
            c.close();
        }
        Thread.sleep(100);
        brief = null;
        String status = "/tmp/leakray-watch-" + ProcessHandle.current().pid() + ".status";
        // -Dpeek=MS: the status's "next" line that long after the closes, on stderr (the
        // closed objects wait for a scan of the heap then)
        long peek = Long.getLong("peek", -1L);
        if (peek >= 0) {
            Thread.sleep(peek);
            runMs = Math.max(0, runMs - peek);
            for (String l : Files.readAllLines(Paths.get(status)))
                if (l.startsWith("next"))
                    System.err.println("peek " + l);
        }
        Thread.sleep(runMs);
        for (String l : Files.readAllLines(Paths.get(status))) {
            System.out.println(l);
        }
        System.exit(0);
    }
}
