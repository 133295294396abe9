#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# foundation_histo_cmp.py: compares `leakray histo --json` with a VisualVM histogram
# (lines `class<TAB>instances<TAB>bytes`, as peers/visualvm/run.sh FILE histo and
# tests/e2e/expected/visualvm/*.histo.tsv hold them). Classes are matched by name; several
# classes of one name (different class loaders) are compared as sorted lists of
# (instances, bytes). leakray's pseudo rows, named in angle brackets (class objects, which
# VisualVM does not count as instances; objects without a class), are left out and reported
# on their own line: no Java class name starts with "<". Prints MATCH or MISMATCH
# with the first differences; exit 0 on match.
# usage: foundation_histo_cmp.py LEAKRAY.json VISUALVM.tsv [LABEL]
import json
import re
import sys


def load_vvm(path):
    rows = {}
    line_re = re.compile(r"^([^\t]+)\t(\d+)\t(\d+)$")
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = line_re.match(line.rstrip("\n"))
            if m:
                rows.setdefault(m.group(1), []).append((int(m.group(2)), int(m.group(3))))
    return rows


def load_leakray(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    rows = {}
    for c in doc["classes"]:
        if c["name"].startswith("<"):
            print(f"  note: {c['name']} row: {c['count']} objects, {c['shallow']} bytes (not compared)")
        elif c["count"] > 0:
            rows.setdefault(c["name"], []).append((c["count"], c["shallow"]))
    return rows, doc


def main():
    lr, doc = load_leakray(sys.argv[1])
    vv = load_vvm(sys.argv[2])
    label = sys.argv[3] if len(sys.argv) > 3 else sys.argv[1]
    diffs = []
    for name in sorted(set(lr) | set(vv)):
        a = sorted(lr.get(name, []))
        b = sorted(vv.get(name, []))
        if a != b:
            diffs.append(f"  {name}: leakray {a} visualvm {b}")
    n_vv = sum(n for rs in vv.values() for n, _ in rs)
    b_vv = sum(b for rs in vv.values() for _, b in rs)
    n_lr = sum(n for rs in lr.values() for n, _ in rs)
    b_lr = sum(b for rs in lr.values() for _, b in rs)
    if diffs:
        print(f"MISMATCH {label}: {len(diffs)} of {len(set(lr) | set(vv))} classes differ; "
              f"totals leakray {n_lr}/{b_lr} visualvm {n_vv}/{b_vv}")
        for d in diffs[:15]:
            print(d)
        return 1
    print(f"MATCH {label}: {len(vv)} class names, {n_vv} instances, {b_vv} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
