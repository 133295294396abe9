#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_install.sh: the JVM agent as installed (`make install`: cmake --install, staged with
# DESTDIR). The library, the watcher jar and jvm.rules land, and a JVM started with the
# installed library finds the jar, the rules and the installed CLI on its own (relative to the
# library), retains, dumps and gets its report.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_install"
# shellcheck source=../e2e/agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
DESTDIR=$work/root cmake --install "$LEAKRAY_BUILD" > "$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "cmake --install failed"; }
so=$(find "$work/root" -name libleakray_agent.so | head -1)
jar=$(find "$work/root" -path '*/share/leakray/leakray-watcher.jar' | head -1)
rules=$(find "$work/root" -path '*/share/leakray/rules/jvm.rules' | head -1)
[ -n "$so" ] && [ -n "$jar" ] && [ -n "$rules" ] || fail "agent, jar or jvm.rules not installed"
java -Xmx128m "-agentpath:$so=dump-dir=$work/d,delay-ms=300,watch=agent.AgentLeaks\$Window#dispose" \
    -cp "$jar:$work/classes" agent.AgentLeaks dispose 5 1500 2> "$work/err" ||
    { cat "$work/err" >&2; fail "the JVM failed"; }
grep -Eq "leakray: watching \(threshold 5, delay 300 ms, 7 watch rules, (methods hooked as|[0-9]+ methods hooked)" \
    "$work/err" ||
    fail "installed rules not read: $(cat "$work/err")"
agent_wait "$work/d" 30
grep -q '^1 APPLICATION LEAKS$' "$work"/d/leakray-*.txt || fail "report"
echo "agent_install: ok"
