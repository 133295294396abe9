#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_early.sh: the JDK Closeables loaded before main get the agent's hook only when needed.
# A JVM whose main class constructs none of them shows no retransformation 300 ms in (status
# key retransforms 0, when the machine lets it look in time); then a class loaded only then
# closes and keeps a FileInputStream, and another a FileInputStream subclass that inherits
# close(): both are watched at once (the retransformation ran before those classes did) and
# reported. A second JVM's main class closes and keeps a FileInputStream as its first
# statement: watched and reported too. Each status ends with exactly one retransformation,
# and one constant pool read through JVMTI (main's class: the JDK classes loaded before it and
# linked after it are not read).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_early"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/EarlyLeaks.java"

for main in EarlyLeaks EarlyFirst; do
    n=2
    [ "$main" = EarlyFirst ] && n=1
    java -Xmx128m "-agentpath:$agent_so=dump-dir=$work/$main,delay-ms=300,threshold=$n,quiet" \
        -cp "$agent_jar:$work/classes" "agent.$main" 3000 > "$work/$main.out" 2> "$work/err" ||
        fail "$main: the JVM failed: $(cat "$work/err")"
    [ -s "$work/err" ] && fail "$main: the JVM printed errors: $(cat "$work/err")"
    agent_wait "$work/$main"
    json=$(ls "$work/$main"/leakray-*.json)
    python3 - "$json" "$work/$main.out" "$main" <<'PY' || fail "$main: wrong report or status"
import json, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
st = dict(l.split(": ", 1) for l in lines if ": " in l and not l.startswith("before"))
main = sys.argv[3]
want = ["java.io.FileInputStream"]
if main == "EarlyLeaks":
    # nothing constructed a JDK Closeable loaded before main: not retransformed yet (unless
    # the machine kept the program from looking in time)
    assert "before retransforms: 0" in lines or "before: too late to tell" in lines, lines
    if "before: too late to tell" in lines:
        print("note: main thread too late to check that nothing was retransformed yet")
    want.append("agent.EarlyLeaks$Sub")
got = sorted(t["class"] for t in d["traces"])
assert got == sorted(want), (got, want)
assert d["leaking_objects"] == len(want) and d["unreachable_objects"] == [], d
for t in d["traces"]:
    why = "because %s received java.io.Closeable#close() callback" % t["class"]
    assert t["source"] == "watched" and why in t["elements"][-1]["reason"], t["elements"][-1]
assert st["retransforms"] == "1", st
assert st["pool_reads"] == "1", st
print("%s: %d leaks named (%s), %s retransformation" % (main, len(got), ", ".join(got),
      st["retransforms"]))
PY
done
echo "agent_early: ok"
