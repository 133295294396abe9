#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dup_classes.sh: two classes with the same name (tests/programs/dupclass: the same Widget
# bytes loaded by two URLClassLoaders) stay two classes through the reader and every
# analysis: histo has two com.example.dup.Widget rows (3 and 5 instances), `top --by class`
# two rows with their own retained sizes, `histo --retained` two rows, and analyze finds one
# watched instance of each class through its own static list, with different signatures.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$LEAKRAY_BUILD/tmp/dup_classes
rm -rf "$work"
mkdir -p "$work/widget" "$work/main"
P=$LEAKRAY_SRC/tests/programs/dupclass
javac -d "$work/widget" "$P/widget/com/example/dup/Widget.java"
javac -d "$work/main" "$P/main/DupClassDump.java"
java -Xmx64m -cp "$work/main" DupClassDump "$work/widget" "$work/dup.hprof"
D=$work/dup.hprof

"$LEAKRAY" histo --json --no-timing "$D" >"$work/histo.json" || fail "histo exit $?"
"$LEAKRAY" histo --retained --json --no-timing "$D" >"$work/histor.json" || fail "histo --retained exit $?"
"$LEAKRAY" top --by class --top 0 --json --no-timing "$D" >"$work/top.json" || fail "top exit $?"
"$LEAKRAY" analyze --json --no-timing "$D" --watch com.example.dup.Widget \
    --leaking-if 'size == 200 || size == 101' >"$work/an.json" || fail "analyze exit $?"
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def load(n):
    return json.load(open(f"{w}/{n}.json"))
W = "com.example.dup.Widget"
rows = sorted((c["count"], c["shallow"]) for c in load("histo")["classes"] if c["name"] == W)
assert rows == [(3, 72), (5, 120)], rows
rr = [c for c in load("histor")["classes"] if c["name"] == W]
assert sorted(c["count"] for c in rr) == [3, 5], rr
assert all(c["retained"] >= c["shallow"] for c in rr), rr
top = load("top")
trows = sorted((c["count"], c["retained"]) for c in top["classes"] if c["class"] == W)
assert trows == [(3, 72), (5, 120)], trows
an = load("an")
assert an["leaking_objects"] == 2, an["leaking_objects"]
paths = {}
for t in an["traces"]:
    els = t["elements"]
    assert els[-1]["class"] == W and els[-1]["leaking"] == "YES", els[-1]
    statics = [e["reference"]["name"] for e in els if e.get("type") == "class" and "reference" in e]
    paths[statics[-1]] = t
assert sorted(paths) == ["FIRST", "SECOND"], sorted(paths)
# the SECOND one is the tail of a 5-long chain: four `next` hops from the head
nexts = [e for e in paths["SECOND"]["elements"] if e.get("reference", {}).get("name") == "next"]
assert len(nexts) == 4, len(nexts)
assert paths["FIRST"]["signature"] != paths["SECOND"]["signature"]
print("dup_classes: two Widget classes, 3 + 5 instances, two leak traces")
PY
