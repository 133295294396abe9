#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# report_traces.sh: the report's page carries a trace for every leak group. Its traces are
# bounded (200); tests/programs/report/CrowdedLeaks.java leaks one shape 260 times and
# another once. Both groups must keep traces in the page's model, the second its own (it had
# none: the first group took the whole budget), each group's indices naming traces of that
# group, the page's traces in analyze's order.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/report_traces"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/report/CrowdedLeaks.java" \
    "$LEAKRAY_SRC/tests/programs/leaks/KeyedWeakReference.java"
java -Xmx64m -cp "$work/classes" CrowdedLeaks "$work/c.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" analyze "$work/c.hprof" --json --no-timing >"$work/a.json" || [ $? = 1 ]
"$LEAKRAY" report "$work/c.hprof" --no-timing --format json -o "$work/m.json" >/dev/null
python3 - "$work/a.json" "$work/m.json" <<'PY' || fail "a group of the report has no trace"
import json, sys
a = json.load(open(sys.argv[1]))
m = json.load(open(sys.argv[2]))
groups = m["groups"]
assert sorted(g["count"] for g in groups) == [1, 260], [g["count"] for g in groups]
assert len(m["traces"]) == 200, len(m["traces"])
for gi, g in enumerate(groups):
    assert g["traces"], "group %d (%s): no trace" % (gi, g["short_description"])
    for t in g["traces"]:
        assert m["traces"][t]["group"] == gi, (gi, t, m["traces"][t]["group"])
one = [g for g in groups if g["count"] == 1][0]
assert groups.index(one) == 1, "the single leak's group comes first: the check needs it second"
assert m["traces"][one["traces"][0]]["class"].endswith("CrowdedLeaks$Listener")
# the page's traces are analyze's, in its order
sig = [t["signature"] for t in a["traces"]]
got = [t["signature"] for t in m["traces"]]
pos = [sig.index(s) for s in got]
assert pos == sorted(pos), "out of analyze's order"
PY
echo "report_traces: ok (every group keeps its traces in the page)"
