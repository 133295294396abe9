#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_closed_twice.sh: an object watched twice is reported once. tests/programs/agent/
# ClosedTwice.java closes one leaked class loader twice, 1.5 s apart (as a container's stop
# and destroy do), under threshold=1 and delay-ms=3000: the first watch is retained at 3 s
# and dumped; the second, watched before that dump but due after it, names the same object
# the dump reported, and goes with it. It stayed watched, was retained at 4.5 s and went into
# the next dump: every report after the first repeated the loaders it had named (a Jetty
# server's 7 leaked loaders in dump 1 came again among dump 2's 21).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_closed_twice"
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$work/closeplug" "$work/reports"
javac -d "$work/closeplug" "$LEAKRAY_SRC/tests/programs/agent/closeplug/Closing.java"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/ClosedTwice.java"

java -Xmx256m "-agentpath:$agent_so=dump-dir=$work/reports,threshold=1,delay-ms=3000,quiet" \
    -cp "$agent_jar:$work/classes" agent.ClosedTwice "$work/closeplug" 1500 60000 \
    >"$work/out" 2>"$work/err" &
jvm=$!
trap 'kill $jvm 2>/dev/null || true' EXIT
pid=""
for _ in $(seq 300); do
    pid=$(sed -n 's/^pid //p' "$work/out")
    [ -n "$pid" ] && break
    sleep 0.05
done
[ -n "$pid" ] || fail "the program did not start: $(cat "$work/err")"
for _ in $(seq 600); do
    ls "$work/reports"/*.txt >/dev/null 2>&1 && break
    sleep 0.05
done
report=$(ls "$work/reports"/*.txt 2>/dev/null | head -1)
[ -n "$report" ] || fail "no report for the loader: $(cat "$work/err")"
grep -q "URLClassLoader" "$report" || fail "the first report does not name the loader"
grep -q "^closed twice" "$work/out" || fail "the program did not close its loader twice"
# past the second watch's delay (closed at 1.5 s, due at 4.5 s): nothing watched, nothing
# retained (it was: retained 1, waiting for the dumps' minute)
sleep 2
"$LEAKRAY" watch status "$pid" --json >"$work/status.json" || fail "watch status failed"
python3 - "$work/status.json" <<'PY' || fail "the second watch of the reported loader stayed"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dumps"] == 1 and d["retained"] == 0 and d["watched"] == 0, d
print("ok: one dump, nothing retained or watched after it")
PY
kill "$jvm" 2>/dev/null || true
wait "$jvm" 2>/dev/null || true
trap - EXIT
echo "agent_closed_twice: ok"
