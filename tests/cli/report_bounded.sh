#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# report_bounded.sh: the report's page is bounded in bytes, not only in rows. A 380 kB graph
# whose one class is named with 100,000 characters (3,000 objects of it: every row of the
# tree, the biggest objects and the histogram repeats the name) made a 318 MB page; a name
# in the model is cut at 2,048 bytes, on a character's start, and ends with "…". The model
# stays valid JSON and names the class by its cut name.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init report-bounded
command -v python3 >/dev/null || skip "no python3"
python3 - "$T/amp.jsonl" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
def w(o): out.write(json.dumps(o) + "\n")
w({"leakray_graph": 1})
w({"class": 1, "name": "é" + "C" * 100000})
w({"node": "1", "class": 1, "size": 8})
w({"root": "1", "kind": "global"})
nid = 2
for a in range(24):
    A = nid; nid += 1
    w({"node": str(A), "class": 1, "size": 100 + a}); w({"edge": ["1", str(A)], "name": "a%d" % a})
    for b in range(24):
        B = nid; nid += 1
        w({"node": str(B), "class": 1, "size": 50 + b}); w({"edge": [str(A), str(B)], "name": "b%d" % b})
        for c in range(5):
            C = nid; nid += 1
            w({"node": str(C), "class": 1, "size": 10 + c}); w({"edge": [str(B), str(C)], "name": "c%d" % c})
PY
run report --no-timing "$T/amp.jsonl" -o "$T/amp.html"
expect_rc 0
size=$(stat -c %s "$T/amp.html")
[ "$size" -lt 20000000 ] || fail "a page of $size bytes"
run report --no-timing --format json "$T/amp.jsonl" -o "$T/amp.json"
expect_rc 0
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
n = d["classes"][0]["name"]
assert len(n.encode()) <= 2048 + 3 and n.endswith("\u2026") and n.startswith("\u00e9CCC"), n[:40]' \
    "$T/amp.json" || fail "the model's class name"
echo "report_bounded: ok ($size bytes)"
