#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_child_first.sh: a web application that ships leakray-watcher.jar (WEB-INF/lib, loaded
# child-first by its container) gets a copy of leakray.AppWatcher that is not the agent's:
# its watches go nowhere. That is said once on stderr (it was silent: every watched,
# kept object went unreported); without the agent nothing is printed.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_child_first"
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$work/web" "$work/d"
javac -d "$work/web" -cp "$agent_jar" "$LEAKRAY_SRC/tests/programs/agent/childfirst/web/Web.java"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/ChildFirst.java"
java -cp "$work/classes" ChildFirst "$work/web" "$agent_jar" > "$work/none.out" 2> "$work/none.err"
grep -q '^installed=false$' "$work/none.out" || fail "without the agent: $(cat "$work/none.out")"
[ ! -s "$work/none.err" ] || fail "without the agent, stderr: $(cat "$work/none.err")"
java "-agentpath:$agent_so=dump-dir=$work/d,quiet" -cp "$work/classes" ChildFirst \
    "$work/web" "$agent_jar" > "$work/agent.out" 2> "$work/agent.err"
grep -q '^installed=false$' "$work/agent.out" || fail "under the agent: $(cat "$work/agent.out")"
want="^leakray: the copy of leakray.AppWatcher loaded by ChildFirst@.* is not the agent's: its"
grep -q "$want watches are ignored" "$work/agent.err" ||
    fail "no word of the stray copy: $(cat "$work/agent.err")"
[ "$(grep -c 'is not the agent' "$work/agent.err")" = 1 ] || fail "told more than once"
echo "agent_child_first: ok"
