#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_descriptions.sh: the agent holds no description longer than the objects watched with
# it. tests/programs/agent/LongDescriptions.java watches 2,000 objects that die at once, each
# with its own 8 KB description: once they are collected and swept (an object is held, with
# its description, until the agent finds it gone, at the latest its delay-ms after its watch),
# the heap in use is what the program itself holds, not the 16 MB of descriptions AppWatcher
# numbered and kept for good. Without the agent as the reference.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_descriptions"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" -cp "$agent_jar" "$LEAKRAY_SRC/tests/programs/agent/LongDescriptions.java"
java -Xmx128m -XX:+UseSerialGC -cp "$agent_jar:$work/classes" agent.LongDescriptions \
    >"$work/without" || fail "the JVM without the agent failed"
java -Xmx128m -XX:+UseSerialGC "-agentpath:$agent_so=dump-dir=$work/d,delay-ms=500,quiet,rules=none" \
    -cp "$agent_jar:$work/classes" agent.LongDescriptions >"$work/with" 2>"$work/err" ||
    fail "the JVM failed: $(cat "$work/err")"
base=$(sed -n 's/^used //p' "$work/without")
used=$(sed -n 's/^used //p' "$work/with")
[ -n "$base" ] && [ -n "$used" ] || fail "no figure: $(cat "$work/without" "$work/with")"
# 16 MB of descriptions were held; allow the agent 4 MB over the program alone
[ "$used" -lt $((base + (4 << 20))) ] ||
    fail "the heap holds $used bytes with the agent, $base without: descriptions kept"
echo "agent_descriptions: ok ($used bytes in use, $base without the agent)"
