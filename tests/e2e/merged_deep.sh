#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# merged_deep.sh: `path --merged` on paths deeper than JSON can nest. A 1,000-node linked list
# held by one static field (tests/programs/longchain) puts its last nodes 1,000 references from
# the root: the text stays indented to its limit and says the depth; --json is valid JSON whose
# tree stops at 200 levels, the last shown node counting the nodes left out ("children_cut"),
# and both exit 0 (this used to abort with an internal error).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/merged_deep"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/longchain/LongChain.java
main=com.example.longchain.LongChain
java -cp "$work/classes" $main "$work/chain.hprof" 1000
node="$main\$Node"
"$LEAKRAY" path "$work/chain.hprof" --class "$node" --merged --limit 0 >"$work/text" ||
    fail "path --merged: exit $?"
grep -q '(depth 999) ' "$work/text" || fail "text: no line at depth 999"
"$LEAKRAY" path "$work/chain.hprof" --class "$node" --merged --limit 0 --json >"$work/json" ||
    fail "path --merged --json: exit $?"
python3 - "$work/json" <<'PY' || fail "json: tree not cut at 200 levels with children_cut"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["instances"] == 1000, d["instances"]
n, depth = d["tree"][0], 0
while n["children"]:
    assert len(n["children"]) == 1
    n, depth = n["children"][0], depth + 1
assert depth == 200, depth
assert n["children_cut"] == n["count"] - 1 == 801, n  # every node below is an instance
print("cut at depth", depth, "children_cut", n["children_cut"])
PY
echo "ok: text to depth 999, JSON cut at 200"
