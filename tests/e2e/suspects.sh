#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# suspects.sh: MAT-style leak suspects on a real HotSpot dump with no watched objects.
# tests/programs/audit2/SuspectDump.java plants a static cache (about 55 % of the heap, under
# the class loader), a thread-local Session (about 28 %) and a small array held by another
# thread (a few percent). `leakray analyze --json` must report exactly the two big ones,
# largest first, each with its dominator-tree top, its accumulation point (the ArrayList's
# Object[] and the HashMap$Node[] table), the path to it, retained sizes equal to
# `leakray top --model strong`, and never the small one.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
if ! command -v javac >/dev/null || ! command -v java >/dev/null || ! command -v python3 >/dev/null; then
    echo "SKIP: javac/java/python3 not installed"
    exit 77
fi
work="$LEAKRAY_BUILD/tmp/suspects"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/audit2/SuspectDump.java
java -cp "$work/classes" com.example.audit2.SuspectDump "$work/s.hprof"
dump="$work/s.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" analyze "$dump" --json --no-timing > "$work/a.json"
"$LEAKRAY" top "$dump" --json --no-timing --model strong --top 300 > "$work/top.json"
"$LEAKRAY" analyze "$dump" --no-timing > "$work/a.txt"
rc=0; "$LEAKRAY" analyze "$dump" --no-timing --fail-on-leak > /dev/null || rc=$?
[ "$rc" = 0 ] || fail "--fail-on-leak exits $rc on suspects (only real leaks should fail)"
grep -q '^Leaking objects: leak suspects (no watched objects or leaking rules matched)$' \
    "$work/a.txt" || fail "text report does not say it lists suspects"
grep -q 'Leaking: YES (Accumulation point of a dominator holding 55\.[0-9]% of the heap)' \
    "$work/a.txt" || fail "text report: no accumulation point of the cache"

python3 - "$work/a.json" "$work/top.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
top = json.load(open(sys.argv[2]))
total = top["reachable_bytes"]
ret = {o["id"]: o for o in top["objects"]}
assert d["mode"] == "suspects", d["mode"]
assert d["keyed_weak_references"] == 0 and d["unreachable_objects"] == []
tr = d["traces"]
assert [t["source"] for t in tr] == ["suspect", "suspect"], [(t["class"], t["source"]) for t in tr]
assert d["leaking_objects"] == 2 and len(d["application_leaks"]) == 2

def chain(t):
    out = []
    for e in t["elements"]:
        s = e["class"] + (" class" if e["type"] == "class" else "")
        if "reference" in e:
            r = e["reference"]
            s += " -%s-> " % (r["name"] or r["display"])
        out.append(s)
    return "".join(out)

def check(t, top_class, pct_lo, pct_hi, tail, acc_objects):
    els = t["elements"]
    acc = els[-1]
    assert t["leaking_object"] == acc["id"] and acc["leaking"] == "YES", acc
    m = re.fullmatch(r"Accumulation point of a dominator holding (\d+\.\d)% of the heap",
                     acc["reason"])
    assert m, acc["reason"]
    pct = float(m.group(1))
    assert pct_lo < pct < pct_hi, (pct, top_class)
    # the suspect itself: the path element holding that share (it dominates the accumulation
    # point, so the shortest path passes through it)
    tops = [e for e in els if "retained_bytes" in e and
            "%.1f" % (100.0 * e["retained_bytes"] / total) == m.group(1)]
    assert tops and tops[0]["class"] == top_class, ([(e["class"], e.get("retained_bytes")) for e in els], total)
    suspect = tops[0]
    assert suspect["retained_bytes"] > total / 10
    # retained sizes from the suspect down are the dominator tree's: equal to `leakray top`
    i = els.index(suspect)
    for e in els[i:]:
        assert e["id"] in ret, ("not in top 300", e["id"], e["class"])
        assert ret[e["id"]]["retained"] == e["retained_bytes"], (e["class"], ret[e["id"]], e["retained_bytes"])
    assert ret[suspect["id"]]["class"] == top_class
    # below the suspect every step holds most (> 70 %) of its parent
    for p, c in zip(els[i:], els[i + 1:]):
        assert c["retained_bytes"] > 0.7 * p["retained_bytes"], (p["class"], c["class"])
    assert acc["retained_objects"] == acc_objects, (acc["class"], acc["retained_objects"])
    assert re.search(tail + "$", chain(t)), (tail, chain(t))
    return suspect

# 1. the static cache: top is the application class loader, the accumulation point is the
#    Object[] of Blob.chunks (the array + 4000 byte[1000] chunks)
# (the map may be crossed entry by entry, -table-> Node[] -i-> Node -value->, or as one
# collection reference naming the key)
s0 = check(tr[0], "jdk.internal.loader.ClassLoaders$AppClassLoader", 50, 62,
           r"com\.example\.audit2\.PageStore class -CACHE-> java\.util\.HashMap "
           r"(-table-> java\.util\.HashMap\$Node\[\] -\d+-> java\.util\.HashMap\$Node -value->"
           r"|-[^ ]*big[^ ]*->) com\.example\.audit2\.Blob -chunks-> java\.util\.ArrayList "
           r"-elementData-> java\.lang\.Object\[\]", 4001)
assert tr[0]["elements"][-1]["retained_bytes"] >= 4000 * 1016
g0 = [g for g in d["application_leaks"] if g["traces"] == [0]][0]
assert g0["short_description"] == "PageStore.CACHE", g0
# 2. the Session held by a thread's local: it is its own top; accumulation point is the
#    HashMap$Node[] table (the array, 500 nodes, 500 byte[4000] values, Integer keys 128..499)
s1 = check(tr[1], "com.example.audit2.Session", 20, 34,
           r"com\.example\.audit2\.Holder -<Java Local>-> com\.example\.audit2\.Session "
           r"-values-> java\.util\.HashMap -table-> java\.util\.HashMap\$Node\[\]",
           1 + 500 + 500 + 372)
assert tr[1]["gc_root"]["kind"] == "thread object", tr[1]["gc_root"]
assert tr[1]["elements"][-1]["retained_bytes"] >= 500 * 4016
assert s0["retained_bytes"] > s1["retained_bytes"]   # largest first
# 3. the small holder (a byte[][] of 60 byte[4000]) is a dominator top too, but holds < 10 %
small = [o for o in top["objects"] if o["class"] == "byte[][]" and
         o["retained"] >= 60 * 4016 and o["retained"] < 70 * 4016]
assert len(small) == 1, small
assert small[0]["retained"] < total / 10
ids = {e["id"] for t in tr for e in t["elements"]}
assert small[0]["id"] not in ids
print("suspects ok: %.1f%% and %.1f%% reported, byte[][] at %.1f%% not" % (
    100.0 * s0["retained_bytes"] / total, 100.0 * s1["retained_bytes"] / total,
    100.0 * small[0]["retained"] / total))
PY
echo "suspects: ok"
