#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# merged_deep.sh: `path --merged` on paths deeper than JSON can nest. A 1,000-node linked list
# held by one static field (tests/programs/longchain) puts its last nodes 1,000 references from
# the root: the text stays indented to its limit and says the depth (the last node's: 1001),
# and shows the chain's
# first links, how many it leaves out and its last; --json is valid JSON whose
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
grep -q '(depth 1001) ' "$work/text" || fail "text: no line at depth 1001 (the last node)"
# the chain shows its first links and its last, and how many it left out (a 3,000,000-node
# list printed 3,000,000 lines)
[ "$(wc -l <"$work/text")" -lt 20 ] || fail "text: $(wc -l <"$work/text") lines for one chain"
grep -q '\.\.\. [0-9,]* more links of this chain' "$work/text" || fail "text: no chain line"
python3 - "$work/text" <<'PY' || fail "text: the chain's links do not add up to 1,000"
import re, sys
t = open(sys.argv[1]).read()
more = int(re.search(r"\.\.\. ([0-9,]+) more links", t).group(1).replace(",", ""))
shown = len(re.findall(r"\$Node  \*$", t, re.M))
assert more + shown == 1000, (more, shown)
PY
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
echo "ok: text to depth 1001 (the chain folded), JSON cut at 200"
