#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clusters_v8.sh: `leakray clusters` and `leakray leaks` name a V8 snapshot's directories as
# DevTools' Summary names its classes (rules/v8.rules): Object, Array, Function, (array),
# (string), (concatenated string), ... -- never DevEco's jsobject, jsarray, string, which
# mean nothing to a Node or Chrome user. The directories hold what they held under the ArkTS
# names, with the same counts and sizes; only the string types are DevTools' separate rows.
# The same heap rewritten in the ArkTS layout (scripts/v8-to-arkts.js, when Node is there)
# keeps DevEco's names and the figures it had. A program's WindowManager is not Chrome's
# window.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init clusters-v8
V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8
[ -d "$V8" ] || skip "no V8 fixtures at $V8"
f=$V8/heap-1.heapsnapshot
ARK_NAMES='jsobject|jsarray|js_map|js_set|string|proxy|HiddenClass|global_object|global_env'
no_ark_names() {
    if grep -qE "^(  |#[0-9]+  )($ARK_NAMES)( |$)" "$T/out"; then
        fail "$1: an ArkTS directory name in a V8 report"
    fi
}

# d8: the anchors by DevTools' names, figures as under the ArkTS names (jsobject 118 objects
# 18.7 kB, jsarray 2 objects 2.1 kB, string 4,241 objects = (string) + (concatenated string)).
run clusters --no-timing "$f"
expect_rc 0
expect_out '^  Function  846 objects, retained 60\.5 kB \[name\]$'
expect_out '^  Object  118 objects, retained 18\.7 kB \[property\]$'
expect_out '^  \(array\)  24 objects, retained 18\.4 kB \[name\]$'
expect_out '^  \(string\)  4,175 objects, retained 4\.5 kB \[chain\]$'
expect_out '^  Array  2 objects, retained 2\.1 kB \[chain\]$'
expect_out '^  \(concatenated string\)  66 objects, retained 1\.4 kB \[chain\]$'
expect_out '^#2  Object \{\}  \[property\]$'
no_ark_names heap-1

printf 'anchors top=100000\n' >"$T/all.rules"
run clusters --json --no-timing --top 0 --rules "$T/all.rules" "$f"
expect_rc 0
json_eq 'sorted({a["directory"] for a in d["anchors"]} & {"jsobject", "jsarray", "string", "js_map", "js_set", "proxy", "HiddenClass"})' '[]'
json_eq 'sum(a["count"] for a in d["anchors"] if a["directory"] in ("(string)", "(concatenated string)", "(sliced string)"))' 4241
json_eq 'all(c["title"].startswith(c["directory"]) for c in d["clusters"] if c["rule"] != "dom")' true
anchors=$(json_get '[a["directory"] for a in d["anchors"]]')
# Each of those names is a class DevTools' Summary (leakray histo) shows for this heap.
run histo --json --no-timing --top 0 "$f"
expect_rc 0
for dir in Object Array Function '(array)' '(string)' '(concatenated string)'; do
    python3 -c 'import json, sys; sys.exit(sys.argv[2] not in json.loads(sys.argv[1]))' \
        "$anchors" "$dir" || fail "$dir is no anchor"
    json_eq "\"$dir\" in [c[\"name\"] for c in d[\"classes\"]]" true
done

# Node (alinode) and a Chrome page and worker: no ArkTS name, the global object unclustered.
for s in test.heapsnapshot small.heapsnapshot snapshot1.heapsnapshot.gz; do
    run clusters --no-timing --top 0 --rules "$T/all.rules" "$V8/$s"
    expect_rc 0
    no_ark_names "$s"
    expect_out '^  Object  [0-9,]+ objects, retained .* \[property\]$'
    expect_out '^  Function  [0-9,]+ objects, retained .* \[name\]$'
    grep -qE '^  (global|Window)  ' "$T/out" && fail "$s: the global object is an anchor"
done

# leaks prints the same names in its cluster titles.
run leaks --no-timing --baseline "$f" --target "$V8/heap-2.heapsnapshot" \
    --final "$V8/heap-3.heapsnapshot"
expect_rc 0
expect_out '^#3  Object \{\}  \[property\]$'
expect_out '^#4  Array  \[chain\]$'
no_ark_names leaks

# ArkTS: the same heap in the ArkTS layout keeps DevEco's names and its figures.
if command -v node >/dev/null; then
    node "$LEAKRAY_SRC/scripts/v8-to-arkts.js" "$f" "$T/ark.heapsnapshot"
    run clusters --no-timing "$T/ark.heapsnapshot"
    expect_rc 0
    expect_out '^  jsobject  118 objects, retained 18\.7 kB \[property\]$'
    expect_out '^  string  4,241 objects, retained 5\.8 kB \[chain\]$'
    expect_out '^  jsarray  2 objects, retained 2\.1 kB \[chain\]$'
    grep -qE '^  (Object|Array|\(string\))  ' "$T/out" && fail "a DevTools name in an ArkTS report"
else
    echo "clusters_v8: no node, ArkTS layout part skipped" >&2
fi
# Chrome's window objects are "Window", "Window / URL" and "WindowProperties", never
# clustered; a class of the program whose name starts so (WindowManager) is a business class
# like any other: its instances held by the window form a cluster of their own.
python3 - "$T/win.heapsnapshot" <<'PY'
import json, sys
nf = ["type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness"]
meta = {"node_fields": nf,
        "node_types": [["hidden", "array", "string", "object", "code", "closure", "regexp",
                        "number", "native", "synthetic"]] + ["string"] + ["number"] * 5,
        "edge_fields": ["type", "name_or_index", "to_node"],
        "edge_types": [["context", "element", "property", "internal", "hidden", "shortcut",
                        "weak"], "string_or_number", "node"]}
strings = ["", "(GC roots)", "Window", "Window / https://app.example", "WindowProperties",
           "WindowManager", "global", "wm", "props"]
nodes, edges = [], []
def node(t, name, size, n_edges):
    nodes.extend([t, strings.index(name), 2 * len(nodes) // len(nf) + 1, size, n_edges, 0, 0])
def edge(name, to):
    edges.extend([2, strings.index(name), to * len(nf)])
node(9, "(GC roots)", 0, 1); edge("global", 1)
node(3, "Window", 16, 1); edge("global", 2)
node(3, "Window / https://app.example", 64, 4)
for i in range(3):
    edge("wm", 3 + i)
edge("props", 6)
for i in range(3):
    node(3, "WindowManager", 100, 0)
node(3, "WindowProperties", 32, 0)
json.dump({"snapshot": {"meta": meta, "node_count": len(nodes) // len(nf),
                        "edge_count": len(edges) // 3},
           "nodes": nodes, "edges": edges, "strings": strings}, open(sys.argv[1], "w"))
PY
run clusters --json --no-timing --top 0 --rules "$T/all.rules" "$T/win.heapsnapshot"
expect_rc 0
json_eq '[[a["directory"], a["count"]] for a in d["anchors"]]' '[["WindowManager", 3]]'
echo "clusters_v8: ok"
