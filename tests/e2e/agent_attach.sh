#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_attach.sh: `leakray attach PID OPTIONS` loads the agent into a JVM that started
# without it (through jcmd JVMTI.agent_load), with a relative dump-dir meaning this shell's
# directory; `leakray watch status PID` then shows the agent's state (text and JSON), and the
# attached agent retains, dumps and reports the program's five leaks. Also: attach with a
# malformed option, a rules= folder, a process that is no JVM and a second attach are
# refused before the JVM is contacted, and status of a process without the agent says so. Then watch rules when attached: a JVM started without the jar, whose
# Connection class and the JDK's ByteArrayOutputStream were loaded (and their close()
# compiled) before the attach, gets both retransformed, and the objects it keeps after
# close() are reported, the JDK's and its own.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_attach"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
command -v jcmd >/dev/null || { echo "SKIP: jcmd not installed"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"

# a JVM without the agent: it waits until the agent is installed, then leaks five screens
fifo="$work/out"
mkfifo "$fifo"
java -Xmx128m -cp "$agent_jar:$work/classes" agent.AgentLeaks attach 5 2500 > "$fifo" 2> "$work/jvm.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
exec 3< "$fifo"
read -r -t 30 line <&3 || fail "the program did not start"
[ "$line" = ready ] || fail "unexpected program output '$line'"

rc=0; "$LEAKRAY" watch status "$pid" > "$work/nostatus.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "status without the agent: exit $rc"
grep -q "is not running the leakray agent" "$work/nostatus.out" || fail "status without agent"

rc=0; "$LEAKRAY" attach "$pid" delay-ms=300,bogus > "$work/bad.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "attach with a bad option: exit $rc"
# one line, as every usage error
{ [ "$(wc -l < "$work/bad.out")" = 1 ] &&
    grep -qx "leakray attach: unknown agent option 'bogus' (see leakray attach --help)" \
        "$work/bad.out"; } ||
    fail "attach bad option message: $(head -1 "$work/bad.out")"

# what the JVM would refuse with a bare "return code: -1" is said here, before jcmd runs
rc=0; "$LEAKRAY" attach "$pid" rules=/tmp > "$work/dirrules.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "rules=/tmp: not a rules file" "$work/dirrules.out" ||
    fail "attach with rules= a folder: exit $rc: $(cat "$work/dirrules.out")"
sleep 30 &
notjvm=$!
rc=0; timeout 5 "$LEAKRAY" attach "$notjvm" > "$work/notjvm.out" 2>&1 || rc=$?
kill "$notjvm" 2>/dev/null || true
[ "$rc" = 2 ] && grep -q "is not a HotSpot JVM" "$work/notjvm.out" ||
    fail "attach to a process that is no JVM: exit $rc: $(cat "$work/notjvm.out")"
# a process whose maps this user may not read (another user's): said at once, not after
# jcmd's 10 s and its Java stack trace
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    sleep 30 &
    other=$!
    mkdir -p "$work/nobody"
    cp "$LEAKRAY" "$work/nobody/leakray"
    cp "$(dirname "$LEAKRAY")"/libleakray_agent.so "$(dirname "$LEAKRAY")"/leakray-watcher.jar \
        "$work/nobody/" 2>/dev/null || true
    chmod -R a+rX "$work/nobody" && chmod a+x "$work"
    t0=$(date +%s)
    rc=0
    (cd / && timeout 8 setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$work/nobody/leakray" attach "$other") >"$work/other.out" 2>&1 || rc=$?
    kill "$other" 2>/dev/null || true
    [ "$rc" = 4 ] && grep -q "cannot read /proc/$other/maps" "$work/other.out" &&
        [ $(($(date +%s) - t0)) -lt 5 ] ||
        fail "attach to another user's process: exit $rc: $(cat "$work/other.out")"
fi

# the status file's name is known in advance: a link planted at its temporary name must not
# make the JVM write over what it points to
echo untouched > "$work/victim"
ln -sf "$work/victim" "/tmp/leakray-watch-$pid.status.tmp"
trap 'kill $pid 2>/dev/null || true; rm -f "/tmp/leakray-watch-$pid.status.tmp"' EXIT
"$LEAKRAY" attach "$pid" dump-dir=dumps,delay-ms=300 > "$work/attach.out" ||
    fail "attach: $(cat "$work/attach.out")"
[ "$(cat "$work/victim")" = untouched ] ||
    fail "the agent wrote its status through a planted link: $(head -2 "$work/victim")"
grep -q "agent loaded into $pid" "$work/attach.out" || fail "attach output"
rc=0; "$LEAKRAY" attach "$pid" dump-dir=dumps > "$work/twice.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "the agent is already loaded in $pid" "$work/twice.out" ||
    fail "a second attach: exit $rc: $(cat "$work/twice.out")"
"$LEAKRAY" watch status "$pid" > "$work/status.txt" || fail "status after attach"
grep -Eq '^state +[a-z-]+$' "$work/status.txt" || fail "status has no state"
grep -Eq "^dump_dir +$work/dumps\$" "$work/status.txt" || fail "dump-dir not made absolute"
"$LEAKRAY" watch status "$pid" --json > "$work/status.json"
python3 -c "
import json,sys; d=json.load(open('$work/status.json'))
assert d['schema_version']==2 and d['pid']==$pid and d['threshold']==5 and d['delay_ms']==300, d
assert 'next' in d and 'retained' in d, d" || fail "status JSON"
wait "$pid" || fail "the program failed"
trap - EXIT
agent_wait "$work/dumps"
python3 - "$(ls "$work"/dumps/leakray-*.json)" <<'PY' || fail "attached agent's report"
import json, sys
d = json.load(open(sys.argv[1]))
got = [t["class"] for t in d["traces"]]
assert got == ["agent.AgentLeaks$Screen"] * 5, got
print("attach: 5 leaks named")
PY
[ ! -e "/tmp/leakray-watch-$pid.status" ] || fail "status file left after the JVM exited"

# ---- watch rules when attached: classes loaded before the agent are retransformed ----
fifo2="$work/out2"
mkfifo "$fifo2"
java -Xmx128m -cp "$work/classes" agent.AgentLeaks attach-closeable 5 2500 > "$fifo2" \
    2> "$work/jvm2.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
exec 4< "$fifo2"
read -r -t 60 line <&4 || fail "the attach-closeable program did not start"
[ "$line" = "ready true" ] || fail "unexpected program output '$line'"
"$LEAKRAY" attach "$pid" dump-dir=dumps2,delay-ms=300 > "$work/attach2.out" ||
    fail "attach (rules): $(cat "$work/attach2.out")"
wait "$pid" || fail "the attach-closeable program failed: $(cat "$work/jvm2.err")"
trap - EXIT
agent_wait "$work/dumps2"
python3 - "$(ls "$work"/dumps2/leakray-*.json)" <<'PY' || fail "attached rules' report"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(t["class"] for t in d["traces"])
want = sorted(["agent.AgentLeaks$Connection"] * 5 + ["java.io.ByteArrayOutputStream"] * 5)
assert got == want, got
assert all(t["source"] == "watched" for t in d["traces"]), d["traces"]
assert d["unreachable_objects"] == [], d["unreachable_objects"]
print("attach rules: 5 connections and 5 JDK streams named")
PY
echo "agent_attach: ok"
