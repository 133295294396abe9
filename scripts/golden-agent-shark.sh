#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-agent-shark.sh: regenerates tests/e2e/expected/agent/*.json, Shark's analysis of heap
# dumps written by the JVM agent (build/libleakray_agent.so) while it watches the leaking
# programs of tests/programs/agent, reduced by tests/e2e/shark_parity.py and
# tests/e2e/agent_golden.py to what is stable from run to run (traces, statuses, suspects,
# signatures). tests/e2e/agent_leaks.sh checks leakray's reports of fresh dumps against them.
# The goldens hold for the JDK first on PATH: on JDK 17 (the base, the JDK CI runs) it writes
# tests/e2e/expected/agent/MODE.json; on another JDK N, expected/agent/jdkN/MODE.json, and
# only where Shark's answer differs from the golden a JDK N test would use without it
# (agent_golden in tests/e2e/agent_lib.bash), since the JDK's own roots and classes can differ.
# Needs a built tree (make), network on first use (Maven Central, through shark-peer.sh).
# usage: scripts/golden-agent-shark.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
export LEAKRAY_SRC=$src LEAKRAY_BUILD=${1:-$src/build}
work=$(mktemp -d "${TMPDIR:-/tmp}/lr-golden-agent.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=../tests/e2e/agent_lib.bash
. "$src/tests/e2e/agent_lib.bash"
out=$src/tests/e2e/expected/agent
mkdir -p "$out"
"$src/scripts/shark-peer.sh" --fetch
agent_setup
while read -r mode n opts; do
    agent_run "$work/$mode" "$mode" "$n" 1500 "$opts" "$work/plugin"
    agent_wait "$work/$mode"
    dump=$(ls "$work/$mode"/leakray-*.hprof)
    "$src/scripts/shark-peer.sh" --hprof "$dump" analyze --json > "$work/$mode.shark.json"
    python3 "$src/tests/e2e/shark_parity.py" norm-shark "$work/$mode.shark.json" > "$work/$mode.canon"
    if [ "$jdk_feature" = "$agent_base_jdk" ]; then
        gold=$out/$mode.json
    else
        gold=$out/jdk$jdk_feature/$mode.json
        mkdir -p "$out/jdk$jdk_feature"
    fi
    python3 "$src/tests/e2e/agent_golden.py" reduce "$work/$mode.canon" > "$work/$mode.json"
    if [ "$gold" != "$out/$mode.json" ] &&
        cmp -s "$work/$mode.json" "$(agent_golden "$mode" "$jdk_feature")"; then
        rm -f "$gold"
        echo "golden-agent-shark: $mode: JDK $jdk_feature as $(agent_golden "$mode")"
        continue
    fi
    cp "$work/$mode.json" "$gold"
    echo "golden-agent-shark: $gold"
done < "$src/tests/e2e/expected/agent/modes.txt"
rmdir "$out/jdk$jdk_feature" 2>/dev/null || true
