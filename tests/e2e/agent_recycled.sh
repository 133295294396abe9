#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_recycled.sh: what servers and libraries close and keep on purpose is never watched by
# the shipped rules (rules/jvm.rules' unwatch lines). tests/programs/agent/recycle holds
# stand-ins under the real names: Tomcat's OutputBuffer and Jetty's HttpOutput, closed and
# kept in pools, and Logback's ConsoleTarget streams, closed; each made a clean server dump
# its heap and report application leaks. The program also keeps 6 closed streams of its
# own: the dump must come, and its report must name exactly those 6.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_recycled"
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
src="$LEAKRAY_SRC/tests/programs/agent/recycle"
mkdir -p "$work/recycle" "$work/d"
javac -d "$work/recycle" $(cd "$src" && find . -name '*.java' | sed "s|^\.|$src|")
java -Xmx128m "-agentpath:$agent_so=dump-dir=$work/d,delay-ms=300,threshold=5,quiet" \
    -cp "$agent_jar:$work/recycle" Recycle 30000 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
agent_wait "$work/d" 60
kill $pid 2>/dev/null || true
python3 - "$work"/d/leakray-*.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(t["class"] for t in d["traces"])
assert got == ["Recycle$Leaked"] * 6, got
print("agent_recycled: ok, the report names the 6 kept streams and nothing recycled")
PY
