#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# agent_golden.py: reduces shark_parity.py's canonical form of an analysis (Shark's or
# leakray's) of a dump written by the JVM agent to what is stable from one run of the same
# program to the next: the multiset of traces (GC root, nodes with class, reference, Leaking
# status and reason, `~~~` suspects, signature), and the counts. Watch keys and durations go:
# the agent numbers its watches and times them, so they change per run; and the slot of an
# array entry on a path ("[4]" of a ThreadLocalMap's table) becomes "*": it follows hash codes
# handed out per JVM run (the signatures, which ignore it, must still match).
# usage: agent_golden.py reduce CANON.json          -> reduced JSON on stdout
#        agent_golden.py compare GOLDEN.json CANON.json   (exit 1 and the differences)
import json
import sys


def stable(trace):
    for node in trace["nodes"]:
        ref = node.get("ref")
        if ref and ref.get("type") == "array_entry":
            ref["name"] = "*"
    return trace


def reduce(canon):
    for t in canon["traces"].values():
        stable(t)
    traces = sorted(json.dumps({k: t[k] for k in ("gc_root", "library", "nodes", "signature")},
                               sort_keys=True)
                    for t in canon["traces"].values())
    return {"counts": canon["counts"], "traces": [json.loads(t) for t in traces]}


def main(argv):
    if len(argv) == 3 and argv[1] == "reduce":
        json.dump(reduce(json.load(open(argv[2]))), sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        gold = json.load(open(argv[2]))
        got = reduce(json.load(open(argv[3])))
        if gold == got:
            print("%s: %d traces, same as the golden" % (argv[3], len(got["traces"])))
            return 0
        if gold["counts"] != got["counts"]:
            print("counts differ: golden %s, got %s" % (gold["counts"], got["counts"]))
        g = [json.dumps(t, sort_keys=True) for t in gold["traces"]]
        o = [json.dumps(t, sort_keys=True) for t in got["traces"]]
        for t in sorted(set(g) - set(o)):
            print("only in golden: " + t)
        for t in sorted(set(o) - set(g)):
            print("only in leakray: " + t)
        return 1
    sys.stderr.write("usage: agent_golden.py reduce CANON | compare GOLDEN CANON\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
