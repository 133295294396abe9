#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# gen-v8-strings.py: writes a small random V8 heap snapshot full of the cases memlab's string
# analysis treats on its own, for `leakray dupes` against memlab on a graph no Node heap has:
# strings, concatenated strings (first/second edges to earlier strings, some missing one
# edge, some reaching a sliced string), sliced strings (parent edges), code nodes that
# dominate strings or reference them by a `source` edge, objects with property, element,
# internal, shortcut and weak edges, nodes no DFS from the root reaches (orphans held only
# weakly, cliques held by each other), edges from those into reachable nodes (memlab's
# page-owned rule) and values drawn from a small pool (index-like ones among them) so groups
# repeat and tie. Seeded: the same arguments give the same bytes.
# With `hostile` it adds what memlab itself cannot read (its recursion overflows or never
# ends) and leakray must survive: a cycle of concatenations, a chain of concatenations 200,000
# deep, a DAG whose value doubles 60 times, and two DAGs of their own whose equal value
# (3 MiB of a 2-byte character and a letter) is longer than what a compare or JSON reads.
# usage: scripts/gen-v8-strings.py SEED NODES [hostile] > FILE.heapsnapshot
import json
import random
import sys

TYPES = ["hidden", "array", "string", "object", "code", "closure", "regexp", "number",
         "native", "synthetic", "concatenated string", "sliced string"]
T = {t: i for i, t in enumerate(TYPES)}
ETYPES = ["context", "element", "property", "internal", "hidden", "shortcut", "weak"]
E = {t: i for i, t in enumerate(ETYPES)}
POOL = ["a", "b", "ab", "7", "42", "007", "0", "4294967294", "4294967295", "client:x",
        "Uzpf1", "1{\"q", "{\"query_id\":1", "abcdefgh abcdefgh abcdefgh abcdefgh abcdefgh x",
        "abcdefgh abcdefgh abcdefgh abcdefgh abcdefgh abcdefgh", "caf\u00e9", "\u6771\u4eac",
        "\U0001f600", "", "function f() { return 1; }", "source text"]


def main():
    seed, n = int(sys.argv[1]), int(sys.argv[2])
    hostile = len(sys.argv) > 3 and sys.argv[3] == "hostile"
    rnd = random.Random(seed)
    strings = ["", "(root)", "p", "first", "second", "parent", "source", "name", "map",
               "(GC roots)", "Obj", "code", "(concatenated string)", "(sliced string)"]
    sx = {s: i for i, s in enumerate(strings)}

    def sid(s):
        if s not in sx:
            sx[s] = len(strings)
            strings.append(s)
        return sx[s]

    kinds = [None] * n
    names = [0] * n
    edges_of = [[] for _ in range(n)]
    kinds[0] = "synthetic"
    names[0] = sid("(root)")
    clique = n - n // 6  # nodes [clique, n) hold each other only
    for v in range(1, n):
        r = rnd.random()
        if v < 4:
            k = "object"
        elif r < 0.35:
            k = "string"
        elif r < 0.50:
            k = "concatenated string"
        elif r < 0.57:
            k = "sliced string"
        elif r < 0.67:
            k = "code"
        else:
            k = "object"
        kinds[v] = k
        if k == "string":
            names[v] = sid(rnd.choice(POOL))
        elif k == "concatenated string":
            names[v] = sid("(concatenated string)")
        elif k == "sliced string":
            names[v] = sid("(sliced string)")
        else:
            names[v] = sid(k == "code" and "code" or "Obj")
    strs = [v for v in range(n) if kinds[v] in ("string", "concatenated string",
                                                "sliced string")]
    # root: shortcuts and elements to early objects
    for t in range(1, min(n, 6)):
        edges_of[0].append((E["shortcut"] if t % 2 else E["element"], sid("p"), t))
    for v in range(1, n):
        k = kinds[v]
        earlier = [s for s in strs if s < v]
        if k == "concatenated string" and earlier:
            if rnd.random() > 0.1:
                edges_of[v].append((E["internal"], sid("first"), rnd.choice(earlier)))
            if rnd.random() > 0.1:
                edges_of[v].append((E["internal"], sid("second"), rnd.choice(earlier)))
        elif k == "sliced string" and earlier:
            edges_of[v].append((E["internal"], sid("parent"), rnd.choice(earlier)))
        deg = rnd.randrange(4)
        for _ in range(deg):
            t = 1 + rnd.randrange(n - 1)
            if v < clique and t >= clique:
                et = E["weak"]
            elif v >= clique and t < clique and rnd.random() < 0.5:
                t = clique + rnd.randrange(n - clique)
                et = E["property"]
            else:
                et = rnd.choice([E["property"], E["property"], E["internal"], E["element"],
                                 E["weak"], E["shortcut"], E["context"]])
            if k == "code" and kinds[t] == "string" and rnd.random() < 0.5:
                edges_of[v].append((E["internal"], sid("source"), t))
                continue
            nm = rnd.randrange(10) if et == E["element"] else sid("e%d" % rnd.randrange(8))
            edges_of[v].append((et, nm, t))
    extra = []
    big = {}
    if hostile:
        # a cycle of concatenations, a deep chain and a doubling DAG, hung under node 1
        base = len(kinds)
        leaf = base
        kinds.append("string"), names.append(sid("x")), edges_of.append([])
        c1, c2 = base + 1, base + 2
        for c in (c1, c2):
            kinds.append("concatenated string"), names.append(sid("(concatenated string)"))
            edges_of.append([])
        edges_of[c1] += [(E["internal"], sid("first"), leaf), (E["internal"], sid("second"), c2)]
        edges_of[c2] += [(E["internal"], sid("first"), c1), (E["internal"], sid("second"), leaf)]
        prev = leaf
        for i in range(200000):
            v = len(kinds)
            kinds.append("concatenated string"), names.append(sid("(concatenated string)"))
            edges_of.append([(E["internal"], sid("first"), prev),
                             (E["internal"], sid("second"), leaf)])
            prev = v
        deep = prev
        prev = leaf
        for i in range(60):
            v = len(kinds)
            kinds.append("concatenated string"), names.append(sid("(concatenated string)"))
            edges_of.append([(E["internal"], sid("first"), prev),
                             (E["internal"], sid("second"), prev)])
            prev = v
        # two DAGs of their own nodes with one value past 1 MiB, of 3-byte units ("\u00e9x")
        tops = []
        for twin in range(2):
            prev = len(kinds)
            kinds.append("string"), names.append(sid("\u00e9x")), edges_of.append([])
            for i in range(20):
                v = len(kinds)
                kinds.append("concatenated string"), names.append(sid("(concatenated string)"))
                edges_of.append([(E["internal"], sid("first"), prev),
                                 (E["internal"], sid("second"), prev)])
                prev = v
            tops.append(prev)
            big[prev] = 64 << 20  # ranks them first by retained size
        extra = [c1, c2, deep, prev, deep, prev] + tops
        for t in extra:
            edges_of[1].append((E["property"], sid("p"), t))
    nodes, edges = [], []
    for v in range(len(kinds)):
        size = big.get(v, 0 if v == 0 else 16 + 8 * (v % 5))
        nodes += [T[kinds[v]], names[v], 2 * v + 1, size,
                  len(edges_of[v]), 0, 0]
        for et, nm, t in edges_of[v]:
            edges += [et, nm, t * 7]
    meta = {
        "node_fields": ["type", "name", "id", "self_size", "edge_count", "trace_node_id",
                        "detachedness"],
        "node_types": [TYPES, "string", "number", "number", "number", "number", "number"],
        "edge_fields": ["type", "name_or_index", "to_node"],
        "edge_types": [ETYPES, "string_or_number", "node"],
    }
    snap = {"snapshot": {"meta": meta, "node_count": len(kinds),
                         "edge_count": len(edges) // 3},
            "nodes": nodes, "edges": edges, "strings": strings}
    sys.stdout.write(json.dumps(snap) + "\n")


if __name__ == "__main__":
    main()
