#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_batch.sh: objects watched through AppWatcher's batch are each watched once per run of
# equal objects: tests/programs/agent/BatchDup.java watches o, o, p, o and then 500 objects
# twice in a row each (1,000 calls, past one 512-slot batch and its hand-over): the status
# counts 503 watched (total_watched), none dropped; up to 3 more when the agent's 100 ms
# tick handed a batch over between the two calls of a pair (1,003 without the check).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_batch"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" -cp "$agent_jar" "$LEAKRAY_SRC/tests/programs/agent/BatchDup.java"
java -Xmx64m "-agentpath:$agent_so=dump-dir=$work/d,quiet,rules=none" \
    -cp "$agent_jar:$work/classes" agent.BatchDup > "$work/out" 2> "$work/err" ||
    fail "the JVM failed: $(cat "$work/err")"
[ -s "$work/err" ] && fail "the JVM printed errors: $(cat "$work/err")"
grep -Eq '^total_watched: 50[3-6]$' "$work/out" || fail "not 503 watched: $(cat "$work/out")"
grep -q '^dropped: 0$' "$work/out" || fail "objects dropped: $(cat "$work/out")"
echo "agent_batch: ok"
