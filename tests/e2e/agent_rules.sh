#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_rules.sh: the JVM agent end to end on real JVMs, objects watched without code changes:
# by the shipped rules (a URLClassLoader closed but kept by a thread it started, connections
# kept after Closeable#close), by a watch= option (windows kept after dispose(); an override
# calling super.dispose() is watched once), and built in (Thread objects kept after their
# threads ended). Each report must name exactly the leaked objects and equal Shark 2.14's
# analysis of the agent's dumps (goldens: tests/e2e/expected/agent/); with Shark's jars
# fetched, Shark also analyses one fresh dump live.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_rules"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup

S=agent.AgentLeaks
check classloader 1 threshold=1 java.net.URLClassLoader
check closeable 5 "" $S\$Connection $S\$Connection $S\$Connection $S\$Connection $S\$Connection
# a DialogWindow's dispose() calls super.dispose(): watched once, by the outer call
check dispose 5 "watch=$S\$Window#dispose" $S\$Window $S\$Window $S\$Window \
    $S\$DialogWindow $S\$DialogWindow
check threads 5 "" java.lang.Thread java.lang.Thread java.lang.Thread java.lang.Thread \
    java.lang.Thread

# Shark live on one fresh dump, when its jars are already fetched (never fetched here)
if "$LEAKRAY_SRC/scripts/shark-peer.sh" --check; then
    "$LEAKRAY_SRC/scripts/shark-peer.sh" --hprof "$(ls "$work"/closeable/leakray-*.hprof)" \
        analyze --json > "$work/closeable.shark.json"
    python3 "$LEAKRAY_SRC/tests/e2e/shark_parity.py" norm-shark "$work/closeable.shark.json" \
        > "$work/closeable.shark.canon"
    python3 "$LEAKRAY_SRC/tests/e2e/agent_golden.py" compare "$(agent_golden closeable)" \
        "$work/closeable.shark.canon" || fail "live Shark differs from its golden"
else
    echo "note: Shark jars not fetched (scripts/shark-peer.sh --fetch); live check skipped"
fi

echo "agent_rules: ok"
