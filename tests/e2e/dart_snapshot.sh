#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dart_snapshot.sh: Dart VM heap snapshots ("dartheap") end to end, in both layouts the VM has
# written (current: extra Root/Read-Only Pages/Isolate classes and identity hashes; older: root
# with class 0, no hashes). No Dart runtime is available to the build machines, so
# tests/programs/dart/dartheap.py writes the files from the byte layout: a library static
# `_cache` keeps 50 leaked CheckoutPageState objects (with widget, element, controller and a
# listener closure), a weak reference holds an object nothing else does, a Mint and a Double
# carry data payloads, and one object owns native memory. Checks counts, retained sizes, the
# named path from the root, weak references, analyze --watch, and bad input (cuts: exit 3 with
# the offset; no crash on flipped bytes), and clusters.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
W="$LEAKRAY_BUILD/tmp/dart_snapshot"
rm -rf "$W"
mkdir -p "$W"
N=50
for layout in new old; do
    D="$W/$layout.dartheap"
    python3 "$LEAKRAY_SRC/tests/programs/dart/dartheap.py" "$D" "$layout" "$N"
    grep -q '"format": "dart"' <<<"$("$LEAKRAY" info --json --no-timing "$D")" || fail "$layout: format"
    "$LEAKRAY" histo --json --no-timing "$D" >"$W/h.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=int(sys.argv[2])
c={x["name"]: (x["count"], x["shallow"]) for x in d["classes"]}
assert c["CheckoutPageState"] == (n, 48*n) and c["StatefulElement"] == (n, 64*n), c
assert c["CheckoutPage"] == (n + 1, 16*(n + 1)), c' "$W/h.json" "$N" || fail "$layout: histo"
    # Every screen's "checkout" string is a whole value: `dupes` groups the N copies (32
    # bytes each); a string the writer cut or whose characters it marked would not be
    "$LEAKRAY" dupes --json --no-timing "$D" >"$W/dupes.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=int(sys.argv[2])
g = [x for x in d["strings"]["groups"] if x["value"] == "checkout"]
assert len(g) == 1 and g[0]["count"] == n and g[0]["wasted"] == 32 * (n - 1), g' \
        "$W/dupes.json" "$N" || fail "$layout: dupes"
    # The static list retains every leaked screen plus the list's native bytes; the weakly held
    # CheckoutPage is not reachable.
    "$LEAKRAY" top --json --no-timing --top 5 "$D" >"$W/t.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=int(sys.argv[2])
per = 48 + 64 + 16 + 32 + 32 + 24 + 40
gl = [o for o in d["objects"] if o["class"] == "_GrowableList"][0]
assert gl["retained"] == 32 + (16 + 8*n) + 4096 + n*per, (gl, n*per)
assert d["reachable_objects"] == (3 if sys.argv[3] == "new" else 2) + 3 + 7*n + 3, d' \
        "$W/t.json" "$N" "$layout" || fail "$layout: top"
    id=$(python3 -c 'import sys; print("@%d" % (int(sys.argv[1]) + 6))' "$([ "$layout" = new ] && echo 3 || echo 2)")
    "$LEAKRAY" path --json --no-timing "$D" "$id" >"$W/p.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
names=[s.get("name") for s in d["path"] if "name" in s]
assert names[-4:-1] == ["_cache", "_data", "0"] or names[-3:-1] == ["_cache", "_data"], names
assert d["path"][-1]["class"] == "CheckoutPageState", d["path"][-1]' "$W/p.json" ||
        fail "$layout: path $(cat "$W/p.json")"
    "$LEAKRAY" analyze --json --no-timing --watch CheckoutPageState "$D" >"$W/a.json" || [ $? = 1 ]
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["leaking_objects"] == int(sys.argv[2]) and len(d["traces"]) == int(sys.argv[2]), d["leaking_objects"]' \
        "$W/a.json" "$N" || fail "$layout: analyze --watch"
    # clusters: Dart objects have no names of their own (GRAPH_NONE), which once read as
    # "out of memory clustering"; the 50 screens are one group.
    "$LEAKRAY" clusters --json --no-timing "$D" >"$W/c.json" 2>"$W/c.err" ||
        fail "$layout: clusters $(cat "$W/c.err")"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert any(c["count"] == int(sys.argv[2]) and c["representative"]["name"] == "CheckoutPageState"
           for c in d["clusters"]), [(c["count"], c["representative"]["name"]) for c in d["clusters"]]' \
        "$W/c.json" "$N" || fail "$layout: clusters"
done

# The benchmarks' streamed writer lays out the same snapshot (bench/runtimes.sh measures this
# model): with 8-unit titles it is byte for byte the file above.
python3 "$LEAKRAY_SRC/tests/programs/dart/dartheap.py" "$W/stream.dartheap" stream "$N" 8
cmp -s "$W/stream.dartheap" "$W/new.dartheap" || fail "streamed snapshot differs from the model"

# Bad input: every cut of the file is refused with the offset (or loads, if it falls after the
# last object, where the identity-hash section is optional), never a crash; flipped bytes
# likewise.
D="$W/new.dartheap"
size=$(stat -c %s "$D")
for cut in 4 8 9 20 60 200 $((size / 2)) $((size - 300)) $((size - 1)); do
    head -c "$cut" "$D" >"$W/cut.dartheap"
    rc=0
    "$LEAKRAY" info "$W/cut.dartheap" >/dev/null 2>"$W/err" || rc=$?
    if [ "$cut" -lt 8 ]; then
        [ "$rc" = 3 ] || fail "cut at $cut exited $rc"
        continue
    fi
    [ "$rc" = 3 ] || [ "$rc" = 0 ] || fail "cut at $cut exited $rc"
    [ "$rc" = 0 ] || grep -q "cut.dartheap: offset 0x" "$W/err" || fail "cut at $cut: $(cat "$W/err")"
done
python3 - "$D" "$W" <<'PY'
import random, sys
data = bytearray(open(sys.argv[1], "rb").read())
rnd = random.Random(7)
for i in range(20):
    m = bytearray(data)
    for _ in range(4):
        m[rnd.randrange(8, len(m))] = rnd.randrange(256)
    open("%s/flip%d.dartheap" % (sys.argv[2], i), "wb").write(m)
PY
for f in "$W"/flip*.dartheap; do
    rc=0
    "$LEAKRAY" top "$f" >/dev/null 2>&1 || rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "$(basename "$f") exited $rc"
done
echo "dart_snapshot: ok"
