#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_double_close.sh: an object closed twice is one retained object. tests/programs/agent/
# DoubleClose.java keeps streams it closed twice each (the JDK's streams reach the agent's
# hook on every call): three of them are three retained objects, under a threshold of four,
# so no dump (they counted six, a dump below the threshold); four of them dump, counted four.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_double_close"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/DoubleClose.java"
run() { # N DIR
    java -Xmx64m "-agentpath:$agent_so=dump-dir=$work/$2,delay-ms=300,threshold=4" \
        -cp "$work/classes" agent.DoubleClose "$1" 3000 >"$work/$2.out" 2>"$work/$2.err" ||
        fail "the JVM failed: $(cat "$work/$2.err")"
    grep -q "^kept $1\$" "$work/$2.out" || fail "the program did not run: $(cat "$work/$2.err")"
}
run 3 three
grep -q 'retained objects, dumping' "$work/three.err" &&
    fail "three objects closed twice dumped under a threshold of 4: $(cat "$work/three.err")"
run 4 four
grep -q '^leakray: 4 retained objects, dumping' "$work/four.err" ||
    fail "four objects closed twice: $(cat "$work/four.err")"
echo "agent_double_close: ok"
