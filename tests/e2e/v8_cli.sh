#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_cli.sh: the generic verbs show Chrome DevTools' numbers on V8 snapshots.
# - `histo --retained --json` of every fixture in ../shared/fixtures/v8 and of
#   tests/data/v8/cliques.heapsnapshot (orphans and cliques no root reaches, written by
#   scripts/gen-v8-cliques.py 23 164) equals, class key by class key, the Summary DevTools
#   computes (count, distance, shallow, retained; golden files
#   tests/e2e/expected/devtools/*.classes.tsv from heap-snapshot-toolkit 1.1.3 written by
#   scripts/golden-devtools.sh), and its heap_total equals DevTools' total;
# - `top` ranks by DevTools' retained sizes: the per-class view repeats histo's numbers;
# - `path` is DevTools' distance-based retaining path: one hop per unit of distance, no weak
#   edge, ending at heap-1's `keep` InitialObject through `refs`;
# - `show` prints DevTools' retained size and distance, and on a Node snapshot written with
#   allocation tracking (tests/programs/node/v8_alloc_trace.js, needs node) the allocation
#   stack of an object created in a known function.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8"
if [ ! -f "$fx/SOURCES.md" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures missing in $fx" >&2; exit 1; fi
    echo "SKIP: fixtures not found in $fx"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/v8_cli"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
gold="$LEAKRAY_SRC/tests/e2e/expected/devtools"

# 1. histo --retained --json against DevTools, every fixture, every class.
n=0
for f in "$fx"/*.heapsnapshot "$fx"/*.heapsnapshot.gz \
    "$LEAKRAY_SRC"/tests/data/v8/*.heapsnapshot; do
    b=$(basename "$f")
    [ -f "$gold/$b.classes.tsv" ] || fail "no golden for $b"
    "$LEAKRAY" histo --retained --json --no-timing "$f" > "$work/$b.json" || fail "histo $b"
    python3 - "$work/$b.json" "$gold/$b.classes.tsv" <<'PY' || fail "histo $b differs from DevTools"
import json, sys
doc = json.load(open(sys.argv[1]))
esc = lambda s: s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
got = {}
for c in doc["classes"]:
    k = esc(c["key"])
    if k in got:
        sys.exit("duplicate key %r" % k)
    got[k] = (esc(c["name"]), c["count"], c["distance"], c["shallow"], c["retained"])
want, total = {}, None
for line in open(sys.argv[2], encoding="utf-8"):
    p = line.rstrip("\n").split("\t")
    if p[0] == "#total":
        total = int(p[1]); continue
    want[p[0]] = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]))
bad = [k for k in set(got) | set(want) if got.get(k) != want.get(k)]
for k in sorted(bad)[:5]:
    print("  %r: devtools %s, leakray %s" % (k, want.get(k), got.get(k)), file=sys.stderr)
if bad:
    sys.exit("%d of %d classes differ" % (len(bad), len(want)))
if doc["total"]["heap_total"] != total:
    sys.exit("heap_total %d, devtools %d" % (doc["total"]["heap_total"], total))
if doc.get("model") != "devtools":
    sys.exit("model is not devtools")
PY
    n=$((n + 1))
done
[ "$n" -ge 11 ] || fail "only $n fixtures compared"
echo "histo: $n fixtures equal DevTools' Summary"

# 2. top: the per-class view repeats histo's DevTools rows; objects are ranked by retained.
h1="$fx/heap-1.heapsnapshot"
"$LEAKRAY" top --by class --top 0 --json --no-timing "$h1" > "$work/top-class.json"
"$LEAKRAY" top --top 50 --json --no-timing "$h1" > "$work/top-obj.json"
python3 - "$work/top-class.json" "$work/heap-1.heapsnapshot.json" "$work/top-obj.json" <<'PY' ||
import json, sys
top, histo, obj = (json.load(open(p)) for p in sys.argv[1:4])
assert top["model"] == "devtools", top["model"]
h = {c["key"]: (c["count"], c["shallow"], c["retained"], c["distance"]) for c in histo["classes"]}
t = {c["key"]: (c["count"], c["shallow"], c["retained"], c["distance"]) for c in top["classes"]}
assert h == t, "top --by class differs from histo"
r = [c["retained"] for c in top["classes"]]
assert r == sorted(r, reverse=True), "classes not ranked by retained"
o = obj["objects"]
assert len(o) == 50 and all(a["retained"] >= b["retained"] for a, b in zip(o, o[1:]))
assert obj["reachable_bytes"] == 128252 and o[0]["retained"] <= 128252
assert o[0]["id"] == "@7271" and o[0]["class"] == "system / NativeContext", o[0]
PY
    fail "top on heap-1"

# 3. path: DevTools' distance-based retaining path to heap-1's `keep` InitialObject.
"$LEAKRAY" path --json --no-timing "$h1" @27945 > "$work/path.json"
"$LEAKRAY" show --json --no-timing "$h1" @27945 > "$work/show.json"
python3 - "$work/path.json" "$work/show.json" <<'PY' || fail "path on heap-1"
import json, sys
p, s = (json.load(open(a)) for a in sys.argv[1:3])
assert p["model"] == "devtools" and p["reachable"]
hops = p["path"]
d = [h["distance"] for h in hops]
assert d == list(range(d[0], d[0] + len(d))), "distance must grow by one per hop: %s" % d
assert all(h["reference"] != "weak" for h in hops[1:])
names = [(h.get("reference"), h.get("name")) for h in hops[1:]]
assert names[-2:] == [("context", "refs"), ("property", "keep")], names
assert hops[-1]["id"] == "@27945" and hops[-1]["class"] == "InitialObject"
o = s["object"]
assert o["distance"] == d[-1] and o["retained"] == hops[-1]["retained"]
assert o["dominator"]["id"] == "@27897", o["dominator"]
assert o["allocation_stack"] is None, "heap-1 records no allocations"
PY
grep -q '^  @27945 InitialObject  (distance 5, ' <<<"$("$LEAKRAY" path --no-timing "$h1" @27945)" ||
    fail "path text"
echo "top, path: ok"

# 4. show: the allocation stack of an object made while allocations were tracked.
if ! command -v node >/dev/null; then
    echo "SKIP (part): node not installed, allocation stacks not checked"
    echo "ok"
    exit 0
fi
prog="$LEAKRAY_SRC/tests/programs/node/v8_alloc_trace.js"
snap="$work/alloc.heapsnapshot"
node "$prog" "$snap"
id=$(node -e '
const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const f = j.snapshot.meta.node_fields.length, s = j.strings.indexOf("TracedThing");
for (let i = 0; i < j.nodes.length; i += f)
  if (j.nodes[i + 1] === s && j.snapshot.meta.node_types[0][j.nodes[i]] === "object") {
    console.log(j.nodes[i + 2]); break; }' "$snap")
[ -n "$id" ] || fail "no TracedThing in the tracked snapshot"
l_make=$(grep -n '^function makeTracedThing' "$prog" | cut -d: -f1)
l_alloc=$(grep -n '^function allocateTracedThings' "$prog" | cut -d: -f1)
"$LEAKRAY" show --no-timing "$snap" "@$id" > "$work/alloc-show.txt"
grep -A2 '^allocation stack (innermost first):$' "$work/alloc-show.txt" > "$work/frames.txt" ||
    fail "no allocation stack: $(cat "$work/alloc-show.txt")"
sed -n 2p "$work/frames.txt" | grep -q "^  makeTracedThing  .*v8_alloc_trace.js:$l_make:" ||
    fail "frame 1: $(sed -n 2p "$work/frames.txt")"
sed -n 3p "$work/frames.txt" | grep -q "^  allocateTracedThings  .*v8_alloc_trace.js:$l_alloc:" ||
    fail "frame 2: $(sed -n 3p "$work/frames.txt")"
"$LEAKRAY" show --json --no-timing "$snap" "@$id" |
    python3 -c 'import json, sys
o = json.load(sys.stdin)["object"]
fr = o["allocation_stack"]
assert [f["function"] for f in fr[:2]] == ["makeTracedThing", "allocateTracedThings"], fr
assert fr[0]["line"] == int(sys.argv[1]) and fr[0]["column"] > 0
assert o["allocation_stack_depth"] >= 2 and o["distance"] > 0' "$l_make" ||
    fail "show --json allocation_stack"
[ "$("$LEAKRAY" histo --no-timing "$snap" | awk '$NF == "TracedThing" { print $2 }')" = 200 ] ||
    fail "TracedThing count"
echo "show: allocation stack ok"
echo "ok"
