#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_idle.sh: an agent with nothing to do costs nothing. A JVM runs 3 s under the agent
# (watch rules on, nothing watched); its "leakray watcher" thread must have used under 0.15 s
# of CPU by then: it sleeps on a condition between its checks (every 100 ms while rules are
# on), it never spins. The "leakray start-up" thread, which makes the start-up
# retransformation at a lower priority, must have done it (status key retransforms >= 1)
# and ended by then, and ended unwatched (watched Thread objects: none, the program watches
# nothing).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_idle"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }

java -Xmx64m "-agentpath:$agent_so=dump-dir=$work/d,quiet" -cp "$agent_jar:$work/classes" \
    agent.AgentLeaks noleak 0 4000 > "$work/out" 2> "$work/err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 3
tid=
for t in /proc/"$pid"/task/*; do
    [ "$(cat "$t/comm" 2>/dev/null)" = "leakray watcher" ] && tid=${t##*/}
done
[ -n "$tid" ] || fail "no leakray watcher thread in the JVM: $(cat "$work/err")"
for t in /proc/"$pid"/task/*; do
    [[ "$(cat "$t/comm" 2>/dev/null)" != "leakray start"* ]] ||
        fail "the leakray start-up thread still runs after 3 s"
done
cp "/tmp/leakray-watch-$pid.status" "$work/status"
grep -Eq '^retransforms: [1-9]' "$work/status" ||
    fail "no start-up retransformation within 3 s: $(cat "$work/status")"
grep -q '^total_watched: 0$' "$work/status" ||
    fail "something was watched (the start-up thread's end?): $(cat "$work/status")"
# utime and stime (fields 14 and 15, in clock ticks), after the ")" that ends the name
read -r -a f <<<"$(sed 's/.*) //' "/proc/$pid/task/$tid/stat")"
ticks=$(( f[11] + f[12] ))
hz=$(getconf CLK_TCK)
wait "$pid" || fail "the JVM failed: $(cat "$work/err")"
trap - EXIT
echo "leakray watcher thread: $ticks ticks of CPU (at $hz per second) in 3 s"
(( ticks * 100 < 15 * hz )) || fail "the idle watcher thread used $ticks ticks (spinning?)"
echo "agent_idle: ok"
