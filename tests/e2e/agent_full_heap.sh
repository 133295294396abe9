#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_full_heap.sh: a dump that comes due while the heap is full is put off, not the end of
# the watching. tests/programs/agent/FullHeap.java fills a 16 MB heap, keeps 6 closed
# connections and waits before it frees the heap: the agent says the heap is full and tries
# again (it used to start the JDK's management classes then, whose failed initialiser left
# "HotSpotDiagnosticMXBean unavailable" and the agent disabled for the JVM's life); once the
# heap has room it dumps, and the report names the connections.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_full_heap"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/FullHeap.java"
java -Xmx16m -XX:+UseSerialGC "-agentpath:$agent_so=dump-dir=$work/d,delay-ms=300" \
    -cp "$agent_jar:$work/classes" FullHeap 8000 >"$work/out" 2>"$work/err" &
jvm=$!
# meanwhile the status says why no dump came ("heap dump failed" read as a full disk)
said=0
for _ in $(seq 1 80); do
    if "$LEAKRAY" watch status "$jvm" >"$work/status" 2>/dev/null &&
        grep -q "heap dump put off: the heap is full: retry in" "$work/status"; then
        said=1
        break
    fi
    kill -0 "$jvm" 2>/dev/null || break
    sleep 0.1
done
wait "$jvm" || fail "the JVM failed: $(cat "$work/err")"
[ "$said" = 1 ] || fail "the status never said the heap is full: $(cat "$work/status" 2>/dev/null)"
grep -q "the heap is full: no heap dump now; retrying in" "$work/err" ||
    fail "no dump was put off: $(cat "$work/err")"
! grep -q "watching disabled" "$work/err" || fail "the agent disabled itself: $(cat "$work/err")"
agent_wait "$work/d" 60 || fail "no report: $(cat "$work/err")"
grep -q 'FullHeap\$Connection' "$work"/d/leakray-*.json || fail "the report does not name the leaks"
echo "agent_full_heap: ok"
