#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# gen-v8-cliques.py: writes a small V8 heap snapshot whose strong edges leave nodes that no
# DFS from the root reaches: orphans (no strong retainer at all) and cliques (nodes held
# strongly only by each other, weakly from the rest), the cases DevTools hangs under the root
# in its own way. Node 0 is the synthetic root, every other node an object with a name of
# its own ("N<i>"), so DevTools' Summary has one class per node and its retained size is
# the node's. Edges are properties, one in five weak; the last part of the nodes keeps its
# strong edges among itself. Seeded, so the same arguments give the same bytes; DevTools'
# numbers for the committed file come from scripts/golden-devtools.sh.
# usage: scripts/gen-v8-cliques.py SEED NODES > tests/data/v8/cliques.heapsnapshot
import json
import random
import sys


def main():
    seed, n = int(sys.argv[1]), int(sys.argv[2])
    rnd = random.Random(seed)
    deg = 1 + seed % 5
    first = n - n // (2 + seed % 4)  # nodes [first, n) form the cliques
    edges_of = [[] for _ in range(n)]
    for v in range(n):
        k = 1 + n // 8 if v == 0 else rnd.randrange(deg + 1)
        for _ in range(k):
            t = 1 + rnd.randrange(n - 1)
            weak = rnd.randrange(5) == 0
            if v < first and t >= first:
                weak = True
            if v >= first and t < first and rnd.randrange(2):
                t = first + rnd.randrange(n - first)
            edges_of[v].append((t, weak))
    strings = ["", "(root)"] + ["N%d" % i for i in range(n)] + ["p"]
    prop = len(strings) - 1
    nodes, edges = [], []
    for v in range(n):
        nodes += [9 if v == 0 else 3, 1 if v == 0 else 2 + v, 2 * v + 1,
                  0 if v == 0 else 8 + v % 50, len(edges_of[v]), 0, 0]
        for t, weak in edges_of[v]:
            edges += [6 if weak else 2, prop, t * 7]
    meta = {
        "node_fields": ["type", "name", "id", "self_size", "edge_count", "trace_node_id",
                        "detachedness"],
        "node_types": [["hidden", "array", "string", "object", "code", "closure", "regexp",
                        "number", "native", "synthetic"],
                       "string", "number", "number", "number", "number", "number"],
        "edge_fields": ["type", "name_or_index", "to_node"],
        "edge_types": [["context", "element", "property", "internal", "hidden", "shortcut",
                        "weak"], "string_or_number", "node"],
    }
    snap = {"snapshot": {"meta": meta, "node_count": n, "edge_count": len(edges) // 3},
            "nodes": nodes, "edges": edges, "strings": strings}
    sys.stdout.write(json.dumps(snap) + "\n")


if __name__ == "__main__":
    main()
