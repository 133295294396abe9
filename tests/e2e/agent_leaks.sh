#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_leaks.sh: the JVM agent end to end on real JVMs. tests/programs/agent/AgentLeaks.java
# leaks objects through listeners, a cache, static fields, thread locals, a class loader kept
# by a thread, closed connections, disposed windows and ended threads, and releases a few more
# of each. For every program the agent must retain, dump and have the dump analysed in a
# separate process; the report must name exactly the leaked objects (count, classes, source
# "watched", nothing unreachable), the same traces and signatures Shark 2.14 gives on the
# agent's dumps (goldens: tests/e2e/expected/agent/, scripts/golden-agent-shark.sh), and the
# real-time schedule must hold (retained no earlier than delay-ms after watching). Below the threshold, and for a program that leaks nothing, no dump.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_leaks"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
exp="$LEAKRAY_SRC/tests/e2e/expected/agent"
fail() { echo "FAIL: $*" >&2; exit 1; }

check() { # MODE N OPTS CLASSES...: run, wait, check the report and the Shark golden
    local mode=$1 n=$2 opts=$3
    shift 3
    agent_run "$work/$mode" "$mode" "$n" 1500 "$opts" "$work/plugin"
    agent_wait "$work/$mode"
    local json
    json=$(ls "$work/$mode"/leakray-*.json)
    python3 - "$json" "$mode" "$@" <<'PY' || fail "$mode: report does not name exactly the leaks"
import json, sys
d = json.load(open(sys.argv[1]))
mode, want = sys.argv[2], sorted(sys.argv[3:])
got = sorted(t["class"] for t in d["traces"])
assert got == want, (mode, got, want)
assert all(t["source"] == "watched" for t in d["traces"]), mode
# objects a watched close() closes on its way (a class loader's jar loaders) are watched too;
# reachable only through the leak, they are reported on it as "Also retains", not as traces
assert d["leaking_objects"] == len(want) + d["also_retained"], mode
assert d["unreachable_objects"] == [], mode
assert len(d["application_leaks"]) >= 1 and d["library_leaks"] == [], mode
print("%s: %d leaks named: %s" % (mode, len(got), ", ".join(sorted(set(got)))))
PY
    python3 "$LEAKRAY_SRC/tests/e2e/shark_parity.py" norm-leakray "$json" > "$work/$mode.canon"
    python3 "$LEAKRAY_SRC/tests/e2e/agent_golden.py" compare "$exp/$mode.json" \
        "$work/$mode.canon" || fail "$mode: leakray differs from Shark's golden"
}

S=agent.AgentLeaks
check listeners 5 "" $S\$Screen $S\$Screen $S\$Screen $S\$Screen $S\$Screen
check cache 5 "" $S\$Session $S\$Session $S\$Session $S\$Session $S\$Session
check statics 5 "" $S\$Request $S\$Request $S\$Request $S\$Request $S\$Request
check threadlocal 5 "" $S\$RequestContext $S\$RequestContext $S\$RequestContext \
    $S\$RequestContext $S\$RequestContext
check classloader 1 threshold=1 java.net.URLClassLoader
check closeable 5 "" $S\$Connection $S\$Connection $S\$Connection $S\$Connection $S\$Connection
# a DialogWindow's dispose() calls super.dispose(): watched once, by the outer call
check dispose 5 "watch=$S\$Window#dispose" $S\$Window $S\$Window $S\$Window \
    $S\$DialogWindow $S\$DialogWindow
check threads 5 "" java.lang.Thread java.lang.Thread java.lang.Thread java.lang.Thread \
    java.lang.Thread

# the real-time schedule, read back from the dump's KeyedWeakReference fields
python3 - "$(ls "$work"/listeners/leakray-*.json)" <<'PY' || fail "real-time schedule"
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["traces"]:
    lab = dict(l.split(" = ") for l in t["elements"][-1]["labels"])
    watched, retained = int(lab["watchDurationMillis"]), int(lab["retainedDurationMillis"])
    # retained no earlier than delay-ms (300) after the watch, and dumped after that (the
    # 100 ms GC wait is per check: an object can become retained while one is under way)
    assert watched - retained >= 300 and retained >= 0, lab
print("schedule: retained >= 300 ms after watching, dumped after")
PY

# Shark live on one fresh dump, when its jars are already fetched (never fetched here)
if "$LEAKRAY_SRC/scripts/shark-peer.sh" --check; then
    "$LEAKRAY_SRC/scripts/shark-peer.sh" --hprof "$(ls "$work"/listeners/leakray-*.hprof)" \
        analyze --json > "$work/listeners.shark.json"
    python3 "$LEAKRAY_SRC/tests/e2e/shark_parity.py" norm-shark "$work/listeners.shark.json" \
        > "$work/listeners.shark.canon"
    python3 "$LEAKRAY_SRC/tests/e2e/agent_golden.py" compare "$exp/listeners.json" \
        "$work/listeners.shark.canon" || fail "live Shark differs from its golden"
else
    echo "note: Shark jars not fetched (scripts/shark-peer.sh --fetch); live check skipped"
fi

# below the threshold, and nothing leaking: no dump at all
agent_run "$work/below" listeners 4 1500
agent_run "$work/noleak" noleak 50 1500
sleep 0.5
for d in below noleak; do
    if compgen -G "$work/$d/*.hprof" >/dev/null || compgen -G "$work/$d/.*.hprof" >/dev/null
    then
        fail "$d: a dump was written"
    fi
done
echo "below threshold (4 of 5) and no leak: no dump"
echo "agent_leaks: ok"
