#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_blocked.sh: the agent's idle threads never hold up the JVM's end. HotSpot's exit (its
# last safepoint) waits in 10 ms steps, up to 300 ms, until no thread runs native code; a
# thread sleeping in pthread_cond_wait runs native code to the JVM, one in a JVMTI raw
# monitor wait is blocked. A program written here samples, 40 times over 0.8 s from 150 ms
# on (the "leakray watcher" thread runs from 100 ms), whether the agent's threads are in
# native code (ThreadInfo.isInNative). Between its ticks (microseconds every 100 ms) the
# watcher waits, so it must be found in native code in at most a fifth of the samples (all
# of them when its waits were on a pthread condition). The "leakray start-up" thread waits in
# the same way but may be at work (its start-up retransformation, at nice 10, 1 s in, later
# on a busy machine): its count is printed, not checked. The JVM must end normally.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_blocked"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/src"
cat > "$work/src/AgentBlocked.java" <<'EOF'
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;

// Samples whether the agent's threads run native code; prints "NAME native N of M" each.
public class AgentBlocked {
    public static void main(String[] args) throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Thread.sleep(150);
        Map<String, int[]> seen = new TreeMap<>();
        for (int s = 0; s < 40; s++) {
            // the agent's watcher is a JVMTI agent thread: not listed, found by its id
            for (long id = 1; id < 256; id++) {
                ThreadInfo ti = mx.getThreadInfo(id);
                if (ti == null || !ti.getThreadName().startsWith("leakray")) {
                    continue;
                }
                int[] c = seen.computeIfAbsent(ti.getThreadName(), k -> new int[2]);
                c[0] += ti.isInNative() ? 1 : 0;
                c[1]++;
            }
            Thread.sleep(20);
        }
        for (Map.Entry<String, int[]> e : seen.entrySet()) {
            int[] c = e.getValue();
            System.out.println(e.getKey() + " native " + c[0] + " of " + c[1]);
        }
    }
}
EOF
javac -d "$work/classes" "$work/src/AgentBlocked.java"
java -Xmx64m "-agentpath:$agent_so=dump-dir=$work/d,quiet" -cp "$agent_jar:$work/classes" \
    AgentBlocked > "$work/out" 2> "$work/err" || fail "the JVM failed: $(cat "$work/err")"
cat "$work/out"
grep -q '^leakray watcher native ' "$work/out" || fail "no leakray watcher thread sampled"
read -r _ _ _ n _ m < <(grep '^leakray watcher native ' "$work/out")
(( m >= 20 )) || fail "the leakray watcher thread was sampled $m times only"
(( n * 5 <= m )) || fail "the idle leakray watcher ran native code in $n of $m samples"
echo "agent_blocked: ok"
