#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# root_held_signatures.sh: a leak held straight by a synthetic root has no suspect reference
# to hash, and every such trace had one signature, the SHA-1 of nothing: on a browser page,
# 8 console.log'd <form>s and 15 <aside>s were one leak titled by the first. A snapshot whose
# "(Global handles)" holds 2 Foo and 3 Bar objects, each at its own handle index ("17 /
# DevTools console", "18 / ..."), must give two groups, one per class, whatever the index.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init root-held
command -v python3 >/dev/null || skip "no python3"
python3 - "$T/held.heapsnapshot" <<'PY'
import json, sys
strings = ["", "(GC roots)", "(Global handles)", "Foo", "Bar", "DevTools console"]
def s(x):
    if x not in strings: strings.append(x)
    return strings.index(x)
node_types = ["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"]
edge_types = ["context","element","property","internal","hidden","shortcut","weak"]
nodes = []; edges = []
def node(t, name, nid, size, kids):
    nodes.append([node_types.index(t), s(name), nid, size, len(kids), 0]); edges.extend(kids)
objs = [("Foo", 101), ("Foo", 103), ("Bar", 105), ("Bar", 107), ("Bar", 109)]
F = 6
# index of node i in nodes array = i * F
node("synthetic", "", 1, 0, [[edge_types.index("element"), 1, 1 * F]])
node("synthetic", "(GC roots)", 3, 0, [[edge_types.index("element"), 1, 2 * F]])
node("synthetic", "(Global handles)", 5, 0, [[edge_types.index("internal"), s("%d / DevTools console" % (17 + k)), (3 + k) * F] for k in range(len(objs))])
for name, nid in objs:
    node("object", name, nid, 64, [])
snap = {"snapshot": {"meta": {"node_fields": ["type","name","id","self_size","edge_count","detachedness"],
    "node_types": [node_types, "string","number","number","number","number"],
    "edge_fields": ["type","name_or_index","to_node"],
    "edge_types": [edge_types, "string_or_number", "node"],
    "trace_function_info_fields": [], "trace_node_fields": [], "sample_fields": [], "location_fields": []},
    "node_count": len(nodes), "edge_count": len(edges), "trace_function_count": 0},
  "nodes": [v for n in nodes for v in n], "edges": [v for e in edges for v in e],
  "trace_function_infos": [], "trace_tree": [], "samples": [], "locations": [], "strings": strings}
json.dump(snap, open(sys.argv[1], "w"))
PY
run analyze "$T/held.heapsnapshot" --watch Foo --watch Bar --json --no-timing --no-suspects
expect_rc 0
got=$(json_get 'sorted((g["short_description"], len(g["traces"])) for g in d["application_leaks"])')
[ "$got" = '[["Bar", 3], ["Foo", 2]]' ] || fail "groups: $got"
# traces of many shapes, some held straight by a handle scope, among them (the count of what
# a trace hashed once came from the trace walked before it: an internal error)
fx=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/closures.heapsnapshot
if [ -f "$fx" ]; then
    run analyze "$fx" --watch Function --max-traces 0 --json --no-timing
    expect_rc 0
elif [ "${CI:-}" = true ]; then
    fail "no fixture at $fx"
fi
echo "root_held_signatures: ok"
