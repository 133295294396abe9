#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# jsdupes_compare.py: compares the `js_strings` key of `leakray dupes --json` with memlab's
# StringAnalysis as scripts/memlab-strings.js writes it (a golden): every pattern's count,
# duplicated count, retained size and duplicated size (relative 1e-9: memlab adds doubles),
# and both top-10 lists in order with each value, count, size and ids (leakray lists at most
# 1000 ids per group; that many are compared). Prints each difference; exit 1 if any.
# usage: jsdupes_compare.py LEAKRAY.json MEMLAB.json
import json
import sys


def main():
    lr = json.load(open(sys.argv[1]))["js_strings"]
    ml = json.load(open(sys.argv[2]))
    bad = []
    lp = [(p["name"], p["count"], p["dup_count"], p["size"]) for p in lr["patterns"]]
    mp = [(p["name"], p["n"], p["dup_n"], p["size"]) for p in ml["patterns"]]
    if lp != mp:
        bad.append("patterns: leakray %s, memlab %s" % (lp, mp))
    for a, b in zip(lr["patterns"], ml["patterns"]):
        if abs(a["dup_size"] - b["dup_size"]) > 1e-9 * max(1.0, abs(b["dup_size"])):
            bad.append("%s dup_size: leakray %r, memlab %r" % (a["name"], a["dup_size"],
                                                              b["dup_size"]))
    for key in ("top_count", "top_size"):
        la, ma = lr[key], ml[key]
        if len(la) != len(ma):
            bad.append("%s: %d entries, memlab %d" % (key, len(la), len(ma)))
        for i, (a, b) in enumerate(zip(la, ma)):
            got = (a["value"], a["count"], a["size"], a["ids"])
            want = (b["str"], b["n"], b["size"], b["ids"][:1000])
            if got != want:
                bad.append("%s #%d: leakray %r, memlab %r" % (key, i + 1,
                                                             [str(x)[:200] for x in got],
                                                             [str(x)[:200] for x in want]))
    for b in bad:
        print(b)
    n = len(lr["top_count"]) + len(lr["top_size"])
    print("%s: %d patterns, %d ranked groups, %d differences" % (sys.argv[1],
                                                                len(lr["patterns"]), n,
                                                                len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
