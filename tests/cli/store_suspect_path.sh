#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_suspect_path.sh: `leakray store show` of a leak suspect (a dump analysed with nothing
# watched) prints the suspect's path from its GC root, the objects analyze's text lists for
# it, in order, under the root's title; a path longer than analyze keeps says how many
# objects it left out where it left them out, as analyze does. Trace leaks keep their
# Leaking lines.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init store-suspect-path
cli_fixtures
command -v python3 >/dev/null || skip "no python3"
db=$T/store.db
dump=$FIX/test-dump.hprof

run analyze --json --no-timing "$dump"
cp "$T/out" "$T/report.json"
json_eq "d['mode']" suspects
run analyze --no-timing "$dump"
cp "$T/out" "$T/analyze.txt"
run store ingest --db "$db" --at 2026-11-30 "$T/report.json"
expect_rc 0

# every suspect: the stored path's lines are analyze's (objects and references; analyze
# adds the share of the heap after each size)
"$LEAKRAY" store leaks --db "$db" --json --no-timing |
    python3 -c 'import json, sys
for l in json.load(sys.stdin)["leaks"]:
    print(l["signature"][:12])' >"$T/stored"
[ "$(wc -l <"$T/stored")" -ge 2 ] || fail "fewer than 2 suspects stored"
n=0
while read -r sig; do
    run store show --db "$db" "$sig"
    expect_rc 0
    expect_out 'Newest path from a GC root:'
    grep -q 'Leaking:' "$T/out" && fail "$sig: a suspect's path printed a Leaking line"
    # the path's object and reference lines must appear, in order, in analyze's text
    python3 - "$T/out" "$T/analyze.txt" <<'PY' || fail "$sig: path differs from analyze's"
import re, sys
show = open(sys.argv[1]).read().split("Newest path from a GC root:\n")[1].split("\n\n")[0]
text = open(sys.argv[2]).read()
def lines(block):
    return [re.sub(r" \([0-9.]+ %\)$", "", l) for l in block.splitlines()
            if l.startswith(("├─", "╰→", "│    ↓", "│ GC Root", "│    Retaining", "     Retaining"))]
want = lines(show)
blocks = text.split("\nSuspect ")[1:]
if not any(lines(b.split("\n\n")[0]) == want for b in blocks):
    print("\n".join(want)); sys.exit(1)
PY
    n=$((n + 1))
done <"$T/stored"
[ "$n" -ge 2 ] || fail "checked $n suspects"

# a path past analyze's ends (25 objects at each): the gap is named where it is
python3 - "$T/report.json" "$T/long.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
s = d["suspects"][0]
step = copy.deepcopy(s["path"][0])
step["reference"] = {"kind": "field", "name": "next", "owner": "Node"}
path = []
for i in range(50):
    e = copy.deepcopy(step)
    e["class"] = "Node%d" % i
    path.append(e)
last = copy.deepcopy(s["path"][-1])
path[-1] = last
s["path"], s["path_length"], s["elided_objects"] = path, 150, 100
d["suspects"] = [s]
d["file"] = "long.hprof"
json.dump(d, open(sys.argv[2], "w"))
PY
run store ingest --db "$db" --at 2026-12-01 "$T/long.json"
expect_rc 0
sig=$("$LEAKRAY" store leaks --db "$db" --since 2026-12-01 --json --no-timing |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["leaks"][0]["signature"][:12])')
run store show --db "$db" "$sig"
expect_rc 0
python3 - "$T/out" <<'PY' || fail "the elided objects are not named between the path's ends"
import sys
out = open(sys.argv[1]).read().splitlines()
objs = [i for i, l in enumerate(out) if l.startswith(("├─", "╰→"))]
gap = [i for i, l in enumerate(out) if "… 100 more references …" in l]
assert len(objs) == 50 and len(gap) == 1, (len(objs), gap)
assert objs[24] < gap[0] < objs[25], (objs[24], gap, objs[25])
PY

# a trace leak still prints its Leaking lines
run store ingest --db "$db" --at 2026-12-02 "$FIX/dialer.android-hprof"
expect_rc 0
sig=$("$LEAKRAY" store leaks --db "$db" --kind application --json --no-timing |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["leaks"][0]["signature"][:12])')
run store show --db "$db" "$sig"
expect_rc 0
expect_out 'Newest trace:'
expect_out 'Leaking: YES'
echo "ok: store show prints a suspect's path as analyze does, with its gap"
