#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_keepalive.sh: what the JDK keeps on purpose is no leak. tests/programs/agent/
# KeepAliveClient.java makes six HTTP requests with HttpURLConnection and keeps nothing; the
# JDK's keep-alive cache holds the six closed streams past the watch delay, and its
# Keep-Alive-Timer thread once it ends. With the shipped rules (their `unwatch` lines) and a
# threshold of 5 the agent must not dump (it dumped and reported the cache's streams as an
# application leak).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_keepalive"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/KeepAliveClient.java"
java -Xmx128m "-agentpath:$agent_so=dump-dir=$work/d,delay-ms=1000" \
    -cp "$work/classes" agent.KeepAliveClient 4000 >"$work/out" 2>"$work/err" ||
    fail "the JVM failed: $(cat "$work/err")"
grep -q '^requests done$' "$work/out" || fail "the requests did not run: $(cat "$work/err")"
if ls "$work"/d/leakray-*.hprof >/dev/null 2>&1; then
    fail "a dump of a program that keeps nothing: $(cat "$work/err")"
fi
grep -q 'retained objects, dumping' "$work/err" && fail "a dump began: $(cat "$work/err")"
echo "agent_keepalive: ok"
