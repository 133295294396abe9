#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_finalizer.sh: a check's finalization step is bounded. tests/programs/agent/
# FinalizerBacklog.java keeps its finalizer queue from ever emptying and leaks ten watched
# sessions: with threshold 5 and delay-ms=300 the agent must still count them and dump
# within the run (it waited in Runtime.runFinalization for good: no dump, a frozen status),
# and the report names the sessions.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_finalizer"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" -cp "$agent_jar" "$LEAKRAY_SRC/tests/programs/agent/FinalizerBacklog.java"
java -Xmx128m "-agentpath:$agent_so=dump-dir=$work/d,delay-ms=300,rules=none" \
    -cp "$agent_jar:$work/classes" agent.FinalizerBacklog 9000 >"$work/out" 2>"$work/err" ||
    fail "the JVM failed: $(cat "$work/err")"
grep -q '^kept 10$' "$work/out" || fail "the program did not run: $(cat "$work/out")"
# the dump's analysis runs beside the JVM: its report may come just after the JVM ends
for _ in $(seq 50); do
    ls "$work"/d/leakray-*.json >/dev/null 2>&1 && break
    sleep 0.2
done
json=$(ls "$work"/d/leakray-*.json 2>/dev/null | head -1 || true)
[ -n "$json" ] || fail "no dump in 9 s with 10 retained objects: $(cat "$work/err")"
python3 - "$json" <<'PY' || fail "the report does not name the sessions"
import json, sys
d = json.load(open(sys.argv[1]))
cls = [d["traces"][t]["class"] for g in d["application_leaks"] for t in g["traces"]]
assert any(c.endswith("FinalizerBacklog$Session") for c in cls), cls
PY
echo "agent_finalizer: ok"
