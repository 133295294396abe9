#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_undeploys.sh: an object watched less than the delay before a dump is not lost.
# tests/programs/agent/Undeploys.java closes two class loaders 2 s apart and leaks both
# (threshold=1, delay-ms=3000): the first is retained at 3 s and dumped; the second, watched
# before that dump began but not due yet, must stay watched and be retained at 5 s (status:
# retained, waiting for the dumps' minute), for the next dump to report. LeakCanary
# releases everything watched before a dump, and the agent did: a server undeploying
# applications seconds apart lost the leaked class loaders of all but the first few
# (4 of 10 in a Tomcat run), with no report naming them.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_undeploys"
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$work/closeplug" "$work/reports"
javac -d "$work/closeplug" "$LEAKRAY_SRC/tests/programs/agent/closeplug/Closing.java"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/Undeploys.java"

java -Xmx256m "-agentpath:$agent_so=dump-dir=$work/reports,threshold=1,delay-ms=3000,quiet" \
    -cp "$agent_jar:$work/classes" agent.Undeploys "$work/closeplug" 2000 60000 \
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
# the first loader's dump, then the second loader's delay (closed at 2 s, due at 5 s)
for _ in $(seq 600); do
    ls "$work/reports"/*.hprof >/dev/null 2>&1 && break
    sleep 0.05
done
ls "$work/reports"/*.hprof >/dev/null 2>&1 || fail "no dump for the first loader: $(cat "$work/err")"
st=""
for _ in $(seq 300); do
    "$LEAKRAY" watch status "$pid" --json >"$work/status.json" 2>/dev/null || true
    st=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("retained"),
d.get("dumps"))' "$work/status.json" 2>/dev/null || true)
    [ "${st%% *}" != None ] && [ "${st%% *}" -ge 1 ] 2>/dev/null && break
    sleep 0.1
done
[ "${st%% *}" != None ] && [ "${st%% *}" -ge 1 ] 2>/dev/null ||
    fail "the second loader, watched before the dump and due after it, is not retained" \
        "(retained, dumps: $st): $(cat "$work/status.json")"
grep -q "^closed 2" "$work/out" || fail "the program did not close its second loader"
kill "$jvm" 2>/dev/null || true
wait "$jvm" 2>/dev/null || true
trap - EXIT
echo "agent_undeploys: ok (the loader closed 1 s before the first dump is retained after it)"
