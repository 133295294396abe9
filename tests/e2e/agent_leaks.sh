#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_leaks.sh: the JVM agent end to end on real JVMs, objects watched through the API.
# tests/programs/agent/AgentLeaks.java leaks objects through listeners, a cache, static fields
# and thread locals, and releases a few more of each. For every program the agent must retain,
# dump and have the dump analysed in a separate process; the report must name exactly the
# leaked objects (count, classes, source "watched", nothing unreachable) with the same traces
# and signatures Shark 2.14 gives on the agent's dumps (goldens: tests/e2e/expected/agent/,
# scripts/golden-agent-shark.sh), and the real-time schedule must hold (retained no earlier
# than delay-ms after watching). Watch rules and built-ins: agent_rules.sh. Below the threshold, and for a program that leaks nothing, no dump. With store=, app=, version= and
# device=, the report is in the leak store under those.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_leaks"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup

S=agent.AgentLeaks
check listeners 5 "" $S\$Screen $S\$Screen $S\$Screen $S\$Screen $S\$Screen
check cache 5 "" $S\$Session $S\$Session $S\$Session $S\$Session $S\$Session
check statics 5 "" $S\$Request $S\$Request $S\$Request $S\$Request $S\$Request
check threadlocal 5 "" $S\$RequestContext $S\$RequestContext $S\$RequestContext \
    $S\$RequestContext $S\$RequestContext
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
# report=db through store=: the report goes into the leak store under the app, version and
# device the options name (a fleet tells its JVMs apart by them; they were always empty)
agent_run "$work/stored" listeners 5 1500 \
    "store=$work/fleet.db,app=checkout,version=4.2,device=host-7"
agent_wait "$work/stored"
for i in $(seq 1 100); do [ -s "$work/fleet.db" ] && break; sleep 0.1; done
"$LEAKRAY" store leaks --db "$work/fleet.db" --app checkout --version 4.2 --json --no-timing \
    >"$work/fleet.json" || fail "store leaks of the agent's store"
python3 - "$work/fleet.json" <<'PY' || fail "the agent's report in the store: $(cat "$work/fleet.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["leaks"] and all(l["dumps"] == 1 for l in d["leaks"]), d
PY
"$LEAKRAY" store export --db "$work/fleet.db" | grep -q '"device": *"host-7"' ||
    fail "no device host-7 in the store"
# a collector ingesting the agent's folder afterwards finds its dump stored: the agent dated
# its report as `store ingest` dates the dump (its header's time), not by the file's
"$LEAKRAY" store ingest --db "$work/fleet.db" --app checkout --version 4.2 --device host-7 \
    "$work"/stored/leakray-*.hprof >"$work/again.txt" 2>&1 || fail "ingest: $(cat "$work/again.txt")"
grep -q "^already stored: " "$work/again.txt" || fail "stored twice: $(cat "$work/again.txt")"
echo "agent_leaks: ok"
