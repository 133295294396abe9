#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_stamps.sh: application classes loaded after the JVM agent started are watched through
# the stamp field their watched method sets (no handle per close()). A JVM closes 100,000
# connections it drops at once, 5 it keeps (Connection; SubConnection, whose close() overrides
# and calls super.close(); Plain, which inherits close()) and 5 it releases before the delay.
# The report must name exactly the 5 kept, each once, with LeakCanary's description; the
# status file must say the stamp scan found exactly 5 objects (the collected and the
# released ones were never watched) in 3 stamped classes at least; the same closes a second
# after the start must be found by the first scan after them. Then the same with a
# second (java.lang.instrument) agent retransforming the three classes first, as profilers
# do: the redefinition must keep the field (or it fails) and the hook.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_stamps"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/StampLeaks.java" \
    "$LEAKRAY_SRC/tests/programs/agent/Retransformer.java"
printf 'Premain-Class: agent.Retransformer\nCan-Retransform-Classes: true\n' > "$work/manifest"
(cd "$work/classes" && jar cfm "$work/retransformer.jar" "$work/manifest" \
    agent/Retransformer.class)

for how in plain late retransform; do
if [ "$how" = plain ]; then
    java -Xmx128m "-agentpath:$agent_so=dump-dir=$work/$how,delay-ms=300,quiet" \
        -cp "$agent_jar:$work/classes" agent.StampLeaks 5 100000 2500 > "$work/status" \
        2> "$work/err" || fail "the JVM failed: $(cat "$work/err")"
elif [ "$how" = late ]; then
    # the closes (one burst, no churn) a second after the start: the epoch before theirs
    # came due a tick before theirs, and its scan alone found nothing and held the real
    # one back by the scans' back-off
    java -Xmx128m "-agentpath:$agent_so=dump-dir=$work/$how,delay-ms=300,quiet" -Dpre=1000 \
        -cp "$agent_jar:$work/classes" agent.StampLeaks 5 0 2500 > "$work/status" \
        2> "$work/err" || fail "the JVM failed: $(cat "$work/err")"
else
    java -Xmx128m "-agentpath:$agent_so=dump-dir=$work/$how,delay-ms=300,quiet" \
        "-javaagent:$work/retransformer.jar" -cp "$agent_jar:$work/classes" \
        agent.StampLeaks 5 100000 2500 retransform > "$work/status" 2> "$work/err" ||
        fail "$how: the JVM failed: $(cat "$work/err")"
fi
agent_wait "$work/$how"
json=$(ls "$work/$how"/leakray-*.json)
python3 - "$json" "$work/status" "$how" <<'PY' || fail "stamps ($how): wrong report or status"
import json, sys
d = json.load(open(sys.argv[1]))
st = dict(l.split(": ", 1) for l in open(sys.argv[2]).read().splitlines() if ": " in l)
S = "agent.StampLeaks$"
got = sorted(t["class"] for t in d["traces"])
want = sorted([S + "Connection"] * 2 + [S + "SubConnection"] * 2 + [S + "Plain"])
assert got == want, (got, want)
assert d["leaking_objects"] == 5 and d["unreachable_objects"] == [], d["leaking_objects"]
for t in d["traces"]:
    why = "because %s received java.io.Closeable#close() callback" % t["class"]
    assert t["source"] == "watched" and why in t["elements"][-1]["reason"], t["elements"][-1]
assert int(st["stamp_found"]) == 5, st
assert int(st["stamped_classes"]) >= 3 and int(st["stamp_scans"]) >= 1, st
if sys.argv[3] == "late": # one scan: the first after the burst finds them
    assert int(st["stamp_scans"]) == 1, st
assert int(st["dumps"]) == 1, st
print("stamps: 5 leaks named (%s), %s scans, %s stamped classes, %s watched in all" %
      (", ".join(sorted(set(c[len(S):] for c in got))), st["stamp_scans"],
       st["stamped_classes"], st["total_watched"]))
PY
done
# while the closed objects wait for their delay and the scan after it, the status says so
# (it read "nothing watched" for the 30 s a large heap's throttled scan took)
java -Xmx128m "-agentpath:$agent_so=dump-dir=$work/peek,delay-ms=3000,quiet" -Dpeek=600 \
    -cp "$agent_jar:$work/classes" agent.StampLeaks 5 0 600 > "$work/status" \
    2> "$work/err" || fail "peek: the JVM failed: $(cat "$work/err")"
grep -q "^peek next: objects a watch rule marked wait for the" "$work/err" ||
    fail "the status while stamped objects wait: $(grep peek "$work/err")"
echo "agent_stamps: ok"
