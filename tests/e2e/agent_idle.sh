#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_idle.sh: an agent with nothing to do costs nothing. A JVM runs under the agent
# (a watch rule on, for a JDK class loaded before main that the program never closes: the
# shipped rules would watch whatever the JDK happens to close once the hooks are in, which
# depends on timing) for at least 3 s; its "leakray watcher" thread must have
# used under 0.05 s of CPU per second by then: it sleeps on a condition between its checks
# (every 100 ms while rules are on), it never spins. The "leakray start-up" thread, which
# makes the start-up retransformation at a lower priority, must have done it (status key
# retransforms >= 1) and ended, unwatched (watched Thread objects: none, the program watches
# nothing). On a busy machine a thread at nice 10 may take longer than 3 s to get its turn:
# the test waits for it up to 30 s (the JVM runs 40 s unless the test ends it).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_idle"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }

java -Xmx64m "-agentpath:$agent_so=dump-dir=$work/d,quiet,rules=none,watch=java.util.zip.ZipFile#close" -cp "$agent_jar:$work/classes" \
    agent.AgentLeaks noleak 0 40000 > "$work/out" 2> "$work/err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 3
waited=3
startup_runs() {
    for t in /proc/"$pid"/task/*; do
        [[ "$(cat "$t/comm" 2>/dev/null)" != "leakray start"* ]] || return 0
    done
    return 1
}
while (( waited < 30 )) &&
    { startup_runs || ! grep -Eq '^retransforms: [1-9]' "/tmp/leakray-watch-$pid.status"; }; do
    sleep 1
    waited=$((waited + 1))
done
tid=
for t in /proc/"$pid"/task/*; do
    [ "$(cat "$t/comm" 2>/dev/null)" = "leakray watcher" ] && tid=${t##*/}
done
[ -n "$tid" ] || fail "no leakray watcher thread in the JVM: $(cat "$work/err")"
! startup_runs || fail "the leakray start-up thread still runs after $waited s"
cp "/tmp/leakray-watch-$pid.status" "$work/status"
grep -Eq '^retransforms: [1-9]' "$work/status" ||
    fail "no start-up retransformation within $waited s: $(cat "$work/status")"
grep -q '^total_watched: 0$' "$work/status" ||
    fail "something was watched (the start-up thread's end?): $(cat "$work/status")"
# utime and stime (fields 14 and 15, in clock ticks), after the ")" that ends the name
read -r -a f <<<"$(sed 's/.*) //' "/proc/$pid/task/$tid/stat")"
ticks=$(( f[11] + f[12] ))
hz=$(getconf CLK_TCK)
kill -0 "$pid" || fail "the JVM ended early: $(cat "$work/err")"
kill "$pid"
wait "$pid" 2>/dev/null || true
trap - EXIT
echo "leakray watcher thread: $ticks ticks of CPU (at $hz per second) in $waited s"
(( ticks * 100 < 5 * hz * waited )) ||
    fail "the idle watcher thread used $ticks ticks in $waited s (spinning?)"
echo "agent_idle: ok"
