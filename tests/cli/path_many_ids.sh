#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# path_many_ids.sh: `path --ids F` looks its ids up in one pass over a V8 snapshot's nodes
# (V8 keeps no id index, and a scan per id cost ids x nodes: 100,000 ids of a 300,000-node
# snapshot took 68 s). A generated snapshot of 200,000 objects under the global object and
# 40,000 ids: within 20 s, every path found, and an unknown id still refused.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init path-many-ids
command -v python3 >/dev/null || skip "no python3"
python3 - "$T/star.heapsnapshot" "$T/ids.txt" <<'PY'
import json, sys
n = 200000
types = ["hidden", "array", "string", "object", "code", "closure", "regexp", "number",
         "native", "synthetic", "concatenated string", "sliced string", "symbol", "bigint",
         "object shape"]
meta = {"node_fields": ["type", "name", "id", "self_size", "edge_count", "trace_node_id",
                        "detachedness"],
        "node_types": [types, "string", "number", "number", "number", "number", "number"],
        "edge_fields": ["type", "name_or_index", "to_node"],
        "edge_types": [["context", "element", "property", "internal", "hidden", "shortcut",
                        "weak"], "string_or_number", "node"],
        "trace_function_info_fields": [], "trace_node_fields": [], "sample_fields": [],
        "location_fields": []}
strings = ["", "(GC roots)", "Window", "Item", "items"]
nodes = [9, 0, 1, 0, 1, 0, 0,    # synthetic root -> window
         3, 2, 3, 64, n, 0, 0]   # the window, holding every item
edges = [5, 1, 7]                # shortcut "(GC roots)"... to the window (node 1, offset 7)
for i in range(n):
    nodes += [3, 3, 1001 + 2 * i, 32, 0, 0, 0]
    edges += [1, i, 7 * (i + 2)]
doc = {"snapshot": {"meta": meta, "node_count": n + 2, "edge_count": n + 1,
                    "trace_function_count": 0},
       "nodes": nodes, "edges": edges, "trace_function_infos": [], "trace_tree": [],
       "samples": [], "locations": [], "strings": strings}
open(sys.argv[1], "w").write(json.dumps(doc, separators=(",", ":")))
open(sys.argv[2], "w").write("".join("@%d\n" % (1001 + 2 * i) for i in range(0, n, 5)))
PY
rc=0
timeout 20 "$LEAKRAY" path --ids "$T/ids.txt" --json --no-timing "$T/star.heapsnapshot" \
    >"$T/paths.json" 2>"$T/err" || rc=$?
[ "$rc" = 0 ] || fail "exit $rc (124: over 20 s): $(head -3 "$T/err")"
python3 - "$T/paths.json" <<'PY' || fail "not every id has its path"
import json, sys
d = json.load(open(sys.argv[1]))
paths = d["paths"] if "paths" in d else d
assert len(paths) == 40000, len(paths)
PY
printf '@1001\n@1002\n' >"$T/bad.txt"
run path --ids "$T/bad.txt" "$T/star.heapsnapshot"
expect_rc 2
expect_err "no object with id @1002"
echo "path_many_ids: ok"
