// SPDX-License-Identifier: Apache-2.0
// LoadHookLeaks: rule-watched classes the leakray agent hooks as they are loaded without a
// stamp field: the JDK's own (the boot loader's) and an application interface whose default
// method is the watched one (java.io.Closeable#close of jvm.rules).
// usage: java -agentpath:...=delay-ms=D -cp leakray-watcher.jar:. agent.LoadHookLeaks M RUN_MS
//        [retransform]
//   M java.io.StringReader closed and dropped at once (collected: never reported); then kept
//   in a static list after close(): 2 StringReader, 1 PipedInputStream (JDK classes loaded
//   after the agent started), 2 Resource objects (close() is the interface's default
//   method) and, once the agent's status file shows its retransformation of the JDK classes
//   loaded before it, 1 FileInputStream (one of those) and 1 java.util.zip.ZipFile of the
//   class path's jar (loaded by the launcher before the application's first class, while the
//   load hook is off: hooked by that same retransformation): the 7 leaks; and 3
//   java.util.logging.StreamHandler closed and kept (it declares a close() but is no
//   Closeable: never watched, although its close() gets the hook at load, in a module other
//   than java.base). Then sleeps RUN_MS and prints the agent's status file.
//   With "retransform" (and -javaagent:retransformer.jar), StringReader and Resource are
//   retransformed by that second agent once used: their hooks must survive it.
package agent;

import java.io.Closeable;
import java.io.FileInputStream;
import java.io.PipedInputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipFile;
import java.util.logging.StreamHandler;

public class LoadHookLeaks {
    interface Resource extends Closeable {
        @Override default void close() { }
    }

    static final class Res implements Resource { }

    static final List<Object> KEPT = new ArrayList<>();
    static long sink;

    static boolean retransformed(String status) {
        try {
            for (String l : Files.readAllLines(Paths.get(status))) {
                if (l.startsWith("retransforms:") && !l.endsWith(" 0")) return true;
            }
        } catch (Exception e) {
            // not written yet
        }
        return false;
    }

    public static void main(String[] args) throws Exception {
        int m = Integer.parseInt(args[0]);
        long runMs = Long.parseLong(args[1]);
        if (args.length > 2 && args[2].equals("retransform")) {
            new StringReader("x").close();
            new Res().close();
            Retransformer.inst.retransformClasses(StringReader.class, Resource.class);
        }
        for (int i = 0; i < m; i++) {
            StringReader r = new StringReader("line " + i);
            sink += r.read();
            r.close();
        }
        for (int i = 0; i < 2; i++) {
            StringReader r = new StringReader("kept");
            KEPT.add(r);
            r.close();
            Res s = new Res();
            KEPT.add(s);
            s.close();
        }
        // the JDK classes loaded before the agent get their hook on the agent's thread, a
        // few milliseconds after main starts: the status file says when
        String status = "/tmp/leakray-watch-" + ProcessHandle.current().pid() + ".status";
        for (int i = 0; i < 1000 && !retransformed(status); i++) Thread.sleep(10);
        FileInputStream f = new FileInputStream("/dev/null");
        KEPT.add(f);
        f.close();
        String jar = System.getProperty("java.class.path").split(":")[0];
        ZipFile z = new ZipFile(jar);
        KEPT.add(z);
        z.close();
        PipedInputStream p = new PipedInputStream();
        KEPT.add(p);
        p.close();
        for (int i = 0; i < 3; i++) {
            StreamHandler h = new StreamHandler();
            KEPT.add(h);
            h.close();
        }
        Thread.sleep(runMs);
        for (String l : Files.readAllLines(Paths.get(status))) {
            System.out.println(l);
        }
        System.out.println("sink " + (sink & 1));
        System.exit(0);
    }
}
