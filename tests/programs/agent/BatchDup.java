// SPDX-License-Identifier: Apache-2.0
// BatchDup: the batch AppWatcher hands to the agent watches an object given twice in a row
// once (the shape of an override's super.close() returning just before the override), and
// again when something else came between. Watches o, o, p, o (3 watches), then 1,000 distinct
// objects in pairs (a, a, b, b, ...: 500 watches, over one 512-slot batch, so the check runs
// across a hand-over too), sleeps 1.5 s and prints the agent's status file.
// usage: java -agentpath:...=rules=none -cp leakray-watcher.jar:. agent.BatchDup
package agent;

import java.nio.file.Files;
import java.nio.file.Paths;
import leakray.AppWatcher;

public class BatchDup {
    public static void main(String[] args) throws Exception {
        Object o = new Object(), p = new Object();
        AppWatcher.expectWeaklyReachable(o, "dup");
        AppWatcher.expectWeaklyReachable(o, "dup");
        AppWatcher.expectWeaklyReachable(p, "dup");
        AppWatcher.expectWeaklyReachable(o, "dup");
        for (int i = 0; i < 500; i++) {
            Object a = new Object();
            AppWatcher.expectWeaklyReachable(a, "dup");
            AppWatcher.expectWeaklyReachable(a, "dup");
        }
        Thread.sleep(1500);
        long pid = ProcessHandle.current().pid();
        for (String l : Files.readAllLines(Paths.get("/tmp/leakray-watch-" + pid + ".status"))) {
            System.out.println(l);
        }
        System.out.println("held " + (o.hashCode() ^ p.hashCode()));
    }
}
