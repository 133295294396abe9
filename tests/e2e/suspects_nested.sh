#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# suspects_nested.sh: a leak suspect whose every path from a GC root passes through other
# suspects' accumulation points still gets its shortest path. tests/programs/suspects/
# NestedSuspects.java keeps four sessions in the main class's static array and in a static
# list of another class of the application's loader; both of those are suspects too. The
# sessions' suspect must have a path (it read "no path from a GC root", with a 0-byte
# accumulation point), the one `leakray path` gives its accumulation point, hop for hop, and
# that point's retained size.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/suspects_nested"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/suspects/NestedSuspects.java
java -Xmx64m -XX:+UseSerialGC -cp "$work/classes" com.example.suspects.NestedSuspects \
    "$work/n.hprof"
dump="$work/n.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" analyze "$dump" --no-timing >"$work/a.txt" || [ $? = 1 ]
"$LEAKRAY" analyze "$dump" --json --no-timing >"$work/a.json" || [ $? = 1 ]
grep -q 'no path from a GC root' "$work/a.txt" && fail "a suspect has no path from a GC root"
sid=$(python3 - "$work/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["suspects"] if x.get("instances_of", "").endswith("NestedSuspects$Session")]
assert len(s) == 1, "no suspect for the sessions: %r" % [x["description"] for x in d["suspects"]]
s = s[0]
assert s["count"] == 4, s["count"]
assert len(d["suspects"]) >= 3, "the sessions' holders are not suspects: the check needs them"
assert s["path"] and s["gc_root"]["kind"], "no path, root %r" % s["gc_root"]
assert s["accumulation_point"]["retained_bytes"] > 150000, s["accumulation_point"]
print(s["accumulation_point"]["id"], len(s["path"]), s["accumulation_point"]["retained_bytes"])
PY
) || fail "the sessions' suspect has no path"
read -r acc plen aret <<<"$sid"
"$LEAKRAY" path "$dump" "$acc" --json --no-timing >"$work/p.json"
"$LEAKRAY" show "$dump" "$acc" --json --no-timing >"$work/s.json"
python3 - "$work/a.json" "$work/p.json" "$work/s.json" "$acc" <<'PY' || fail "the suspect's path is not leakray path's"
import json, sys
a = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
s = json.load(open(sys.argv[3]))
sus = [x for x in a["suspects"] if x["accumulation_point"]["id"] == sys.argv[4]][0]
want = [e["id"] for e in p["path"]]
got = [e["id"] for e in sus["path"]]
assert got == want, (got, want)
assert sus["accumulation_point"]["retained_bytes"] == s["object"]["retained"], \
    (sus["accumulation_point"]["retained_bytes"], s["object"]["retained"])
PY
echo "suspects_nested: ok (path of $plen objects, accumulation point $aret bytes)"
