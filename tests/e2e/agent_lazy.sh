#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_lazy.sh: the agent loads leakcanary.KeyedWeakReference only once something is
# retained. A program written here watches 1,000 objects through the API, drops them and
# collects them before the (1 s) delay, then waits until its own status file counts them
# all collected: -Xlog:class+load must show leakray.AppWatcher and no KeyedWeakReference
# at all: not while main runs, nor when the JVM exits (the thread that ends it, main's here,
# gets its ThreadEnd just before VMDeath; an ended thread is watched by a tick of the agent's
# 100 ms after its end or later, which never comes for that one).
# The same program keeping 5 of them: those 5 are retained (status retained: 5, and
# retained_after_gc: 5 once a check ran; threshold 100, so no dump) and the class is loaded
# then, for their references; the checks that
# follow (GC, finalization, GC every 2 s) add no watched object of the agent's making: the
# thread Runtime.runFinalization starts is not watched when it ends.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_lazy"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/lazy"
cat > "$work/lazy/Lazy.java" <<'EOF'
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import leakray.AppWatcher;

// Lazy KEEP: watches 1,000 objects, keeps KEEP of them, collects the rest, then prints its
// status file once every object is accounted for (all watched, and all that is still held
// retained; 30 s at most).
public class Lazy {
    static final List<Object> KEPT = new ArrayList<>();

    // its own frame: no local of main's may keep the last object reachable
    static void watch(int keep) {
        for (int i = 0; i < 1000; i++) {
            Object o = new int[16];
            if (i < keep) KEPT.add(o);
            AppWatcher.expectWeaklyReachable(o, "dropped");
        }
    }

    public static void main(String[] args) throws Exception {
        int keep = Integer.parseInt(args[0]);
        watch(keep);
        // AppWatcher holds its current batch until the agent takes it (every 100 ms): the
        // collection that proves the objects gone comes after that, well before the delay
        Thread.sleep(300);
        System.gc();
        System.gc();
        Path p = Paths.get("/tmp/leakray-watch-" + ProcessHandle.current().pid() + ".status");
        String st = "";
        for (int t = 0; t < 300; t++) {
            Thread.sleep(100);
            try {
                st = new String(Files.readAllBytes(p));
            } catch (java.io.IOException e) {
                continue;
            }
            // with some kept: once a check ran (GC, finalization, GC; below the threshold)
            if (key(st, "total_watched") >= 1000 && key(st, "watched") == keep
                    && key(st, "retained") == keep
                    && (keep == 0 || st.contains("\nstate: waiting-threshold\n"))) break;
        }
        System.out.print(st);
        System.out.println("kept " + KEPT.size());
        new Done(); // marks the end in the class log: main's own end is watched after it
    }

    static final class Done {}

    static long key(String st, String k) {
        for (String l : st.split("\n")) {
            if (l.startsWith(k + ": ")) return Long.parseLong(l.substring(k.length() + 2));
        }
        return -1;
    }
}
EOF
javac -d "$work/lazy" -cp "$agent_jar" "$work/lazy/Lazy.java"

for keep in 0 5; do
    out="$work/keep$keep"
    java -Xmx64m -Xlog:class+load=info:file="$out.classes" \
        "-agentpath:$agent_so=dump-dir=$work/d$keep,delay-ms=1000,threshold=100,quiet,rules=none" \
        -cp "$agent_jar:$work/lazy" Lazy "$keep" > "$out.out" 2> "$out.err" ||
        fail "keep $keep: the JVM failed: $(cat "$out.err")"
    # exactly those: each check of the retained ones runs Runtime.runFinalization, whose
    # thread ("Secondary finalizer") is the agent's doing, not watched when it ends
    python3 - "$out.out" "$keep" <<'PY' || fail "keep $keep: status: $(cat "$out.out")"
import sys
st = dict(l.split(": ", 1) for l in open(sys.argv[1]).read().splitlines() if ": " in l)
keep = int(sys.argv[2])
assert int(st["retained"]) == keep and int(st["watched"]) == keep, st
assert int(st["retained_after_gc"]) == keep, st  # what the check counted after its GCs
assert int(st["total_watched"]) == 1000 and int(st["collected"]) == 1000 - keep, st
PY
    grep -q " leakray.AppWatcher " "$out.classes" || fail "keep $keep: no class log"
done
# up to the end of main, and then the JVM's exit: main's thread ends with it and is never
# watched (its reference would be the first KeyedWeakReference)
sed '/ Lazy\$Done /q' "$work/keep0.classes" > "$work/keep0.main"
grep -q ' Lazy\$Done ' "$work/keep0.main" || fail "no end of main in the class log"
! grep -q " leakcanary.KeyedWeakReference " "$work/keep0.main" ||
    fail "KeyedWeakReference loaded although nothing was retained"
! grep -q " leakcanary.KeyedWeakReference " "$work/keep0.classes" ||
    fail "KeyedWeakReference loaded at the JVM's exit (the exiting thread watched)"
grep -q " leakcanary.KeyedWeakReference " "$work/keep5.classes" ||
    fail "KeyedWeakReference not loaded for 5 retained objects"

# The watcher thread starts 100 ms after the agent (its first tick, as before): a program's
# main that begins sooner finds no "leakray watcher" thread among its own (/proc), and one
# once 100 ms have passed. Main's start is measured from the process's start, before the
# agent's (10 ms resolution, rounded up): on a machine too busy to reach main within 100 ms
# only the second is checked.
mkdir -p "$work/late"
cat > "$work/late/Late.java" <<'EOF'
import java.io.File;
import java.nio.file.Files;

// Late: prints "early MS WATCHER" at main's first statement (ms since the process started,
// whether a leakray watcher thread runs), then "late WATCHER" once one runs (5 s at most).
public class Late {
    static boolean watcher() throws Exception {
        for (File t : new File("/proc/self/task").listFiles()) {
            try {
                String c = new String(Files.readAllBytes(new File(t, "comm").toPath()));
                if (c.trim().equals("leakray watcher")) return true;
            } catch (java.io.IOException e) {
                // the thread ended meanwhile
            }
        }
        return false;
    }

    public static void main(String[] args) throws Exception {
        long now = System.currentTimeMillis();
        boolean w = watcher();
        long ms = now - ProcessHandle.current().info().startInstant().get().toEpochMilli();
        System.out.println("early " + ms + " " + w);
        for (int i = 0; i < 50 && !watcher(); i++) Thread.sleep(100);
        System.out.println("late " + watcher());
    }
}
EOF
javac -d "$work/late" "$work/late/Late.java"
java -Xmx64m "-agentpath:$agent_so=dump-dir=$work/dl,quiet" -cp "$work/late" Late \
    > "$work/late.out" 2> "$work/late.err" || fail "Late: the JVM failed: $(cat "$work/late.err")"
read -r _ ms early < <(grep '^early ' "$work/late.out")
grep -q '^late true$' "$work/late.out" || fail "no leakray watcher thread within 5 s"
if (( ms < 100 )); then
    [ "$early" = false ] || fail "a leakray watcher thread runs $ms ms after the JVM started"
else
    echo "agent_lazy: main began $ms ms in (a busy machine): its start not checked"
fi
echo "agent_lazy: ok"
