# SPDX-License-Identifier: Apache-2.0
"""v8gen: small V8 .heapsnapshot files laid out as Chromium writes them (node fields with
DevTools' detachedness), for tests that need a heap shape no page makes on demand. Import
with PYTHONPATH=$LEAKRAY_SRC/tests/lib.

A node is (type, name, id, self size, detachedness (0 unknown, 1 attached, 2 detached),
edges); an edge is (type, name or element index, index of the target node in the list)."""
import json

TYPES = ["hidden", "array", "string", "object", "code", "closure", "regexp", "number", "native",
         "synthetic"]
EDGE_TYPES = ["context", "element", "property", "internal", "hidden", "shortcut", "weak"]
NODE_FIELDS = ["type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness"]


def write(path, nodes):
    """Writes the snapshot of `nodes` (the first one the root) to path."""
    strings = [""]
    index = {"": 0}

    def s(x):
        if x not in index:
            index[x] = len(strings)
            strings.append(x)
        return index[x]
    flat, edges = [], []
    for t, name, i, size, det, es in nodes:
        flat += [TYPES.index(t), s(name), i, size, len(es), 0, det]
        for et, ni, to in es:
            edges += [EDGE_TYPES.index(et), ni if isinstance(ni, int) else s(ni),
                      to * len(NODE_FIELDS)]
    meta = {"node_fields": NODE_FIELDS,
            "node_types": [TYPES, "string", "number", "number", "number", "number", "number"],
            "edge_fields": ["type", "name_or_index", "to_node"],
            "edge_types": [EDGE_TYPES, "string_or_number", "node"]}
    with open(path, "w") as f:
        json.dump({"snapshot": {"meta": meta, "node_count": len(nodes),
                                "edge_count": len(edges) // 3},
                   "nodes": flat, "edges": edges, "strings": strings}, f)
