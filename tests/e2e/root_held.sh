#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# root_held.sh: objects held both by one field and by a GC root (tests/programs/rootheld,
# dumped now by the JDK). In VisualVM's model (docs/design.md, "Sums") a holder whose only
# child is also a GC root (a local of main) retains its own 16 bytes, not the 2 MB buffer:
# the buffer is the GC roots' (VisualVM 2.1.5 gives the same, checked by hand and by
# top_visualvm_live.sh where VisualVM is installed); a holder with a tree child of its own
# takes its root-held child too, as VisualVM does (1,065,592 bytes), but not one that VisualVM
# finds a tree object only a level after its other children: three links of a chain that
# main's locals hold too retain 10,040, 20,040 and 30,040 bytes, not 60,120 for the first
# (VisualVM 2.1.5's figures). The strong model gives
# both holders their exact dominator subtrees. `instances`, `show` and `analyze`'s suspects
# read the same sizes: the buffer is the first suspect, and none names the 16-byte holder.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/root_held"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/rootheld/RootHeld.java"
java -Xmx64m -XX:+UseSerialGC -cp "$work/classes" RootHeld "$work/rh.hprof" >/dev/null
retained() { # MODEL CLASS: the retained size of the one instance of CLASS
    "$LEAKRAY" instances "$work/rh.hprof" "$2" --model "$1" --sort retained --json --no-timing |
        python3 -c 'import json, sys; o = json.load(sys.stdin)["instances"]; assert len(o) == 1, o; print(o[0]["retained"])'
}
[ "$(retained visualvm 'RootHeld$Alone')" = 16 ] || fail "visualvm: Alone retains $(retained visualvm 'RootHeld$Alone')"
[ "$(retained visualvm 'RootHeld$Mixed')" = 1065592 ] || fail "visualvm: Mixed retains $(retained visualvm 'RootHeld$Mixed')"
links=$("$LEAKRAY" instances "$work/rh.hprof" 'RootHeld$Link' --model visualvm --sort retained --json --no-timing |
    python3 -c 'import json, sys; print(" ".join(str(o["retained"]) for o in sorted(json.load(sys.stdin)["instances"], key=lambda o: o["retained"])))')
[ "$links" = "10040 20040 30040" ] || fail "visualvm: the links retain $links"
# the merged paths add up what each link retains: no line below holds more than the one above
"$LEAKRAY" path "$work/rh.hprof" --class 'RootHeld$Link' --merged --json --no-timing \
    >"$work/merged.json"
python3 - "$work/merged.json" <<'PY' || fail "merged paths of the links: $(cat "$work/merged.json")"
import json, sys
d = json.load(open(sys.argv[1]))
def walk(n, up):
    assert n["retained"] <= up, (n["retained"], up)
    for c in n.get("children", []):
        walk(c, n["retained"])
tops = d["tree"] if "tree" in d else d["tops"]
assert sum(t["retained"] for t in tops) == 60120, [t["retained"] for t in tops]
for t in tops:
    walk(t, t["retained"])
PY
[ "$(retained strong 'RootHeld$Alone')" = 16 ] || fail "strong: Alone"
[ "$(retained strong 'RootHeld$Mixed')" = 65576 ] || fail "strong: Mixed retains $(retained strong 'RootHeld$Mixed')"
"$LEAKRAY" top "$work/rh.hprof" --top 3 --json --no-timing >"$work/top.json"
python3 - "$work/top.json" <<'PY' || fail "top: $(cat "$work/top.json")"
import json, sys
o = json.load(open(sys.argv[1]))["objects"]
assert (o[0]["class"], o[0]["retained"]) == ("byte[]", 2000016), o[0]
assert not any(x["class"] == "RootHeld$Alone" for x in o), o
PY
"$LEAKRAY" analyze "$work/rh.hprof" --no-timing >"$work/an.txt" || true
grep -q '^Suspect 1: One instance of byte\[\] occupies 2,000,016 bytes' "$work/an.txt" ||
    fail "analyze: $(grep '^Suspect' "$work/an.txt")"
if grep -q '^Suspect.*RootHeld\$Alone' "$work/an.txt"; then fail "a suspect names the 16-byte holder"; fi
echo "PASS"
