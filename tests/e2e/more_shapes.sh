#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# more_shapes.sh: six more leak shapes, as a user's dump would show them
# (tests/programs/shark3/MoreShapes.java: an enum singleton's listener list, an anonymous
# Runnable on a ScheduledExecutorService, a stale ThreadLocal entry on a pool thread, an
# interned-string-keyed static cache, a root-logger handler, an Object[] queue that keeps a
# polled slot). Checked against what the program leaks and against Shark 2.14:
#  - the six traces equal Shark's (tests/e2e/expected/shark/more.json from
#    scripts/golden-shark.sh; live too when the Shark jars are fetched);
#  - "Count of retained yet cleared" counts, as Shark, only references the watcher had found
#    retained (one of the two cleared ones), and the line is absent when that count is 0;
#  - the pool thread that holds the stale ThreadLocal value retains it in the trace: the
#    dump's GC left the entry on its pending list, linked by another reference's
#    `discovered` field, which is no ownership (Shark's sizes say 408 B there);
#  - the LARGEST RETAINERS path names references as the traces do: `BaseQueue.items` (the
#    declaring class), `Object[0]` (not `Object[][0]`);
#  - `--leaking-if 'pixels.length > N'` reads the array's length, and a misspelt field later
#    in a path (`pixels.lenght`) is a warning, exit 2 under --strict.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/more_shapes"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
py="$LEAKRAY_SRC/tests/e2e/shark_parity.py"
exp="$LEAKRAY_SRC/tests/e2e/expected/shark"
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java \
    "$LEAKRAY_SRC"/tests/programs/shark3/MoreShapes.java
java -cp "$work/classes" com.example.more.MoreShapes "$work/m.hprof" > /dev/null
java -cp "$work/classes" com.example.more.MoreShapes "$work/n.hprof" no-cleared > /dev/null

"$LEAKRAY" analyze "$work/m.hprof" --no-timing > "$work/a.txt"
"$LEAKRAY" analyze "$work/m.hprof" --json --no-timing > "$work/a.json"

# the traces, against Shark's
python3 "$py" norm-leakray "$work/a.json" > "$work/a.canon"
python3 "$py" compare more "$exp/more.json" "$work/a.canon" "$exp/known-differences.txt" \
    > "$work/more.diff" || { cat "$work/more.diff" >&2; fail "traces differ from Shark's"; }
if "$LEAKRAY_SRC/scripts/shark-peer.sh" --check; then
    "$LEAKRAY_SRC/scripts/shark-peer.sh" --hprof "$work/m.hprof" analyze --json > "$work/shark.json"
    python3 "$py" norm-shark "$work/shark.json" > "$work/shark.canon"
    python3 "$py" compare more "$work/shark.canon" "$work/a.canon" \
        "$exp/known-differences.txt" > "$work/live.diff" ||
        { cat "$work/live.diff" >&2; fail "traces differ from live Shark's"; }
    tail -1 "$work/live.diff" | sed 's/^/live: /'
fi

# retained yet cleared: 1 of the 2 cleared references had been found retained
grep -qx 'Count of retained yet cleared: 1 KeyedWeakReference instances' "$work/a.txt" ||
    fail "text: $(grep 'retained yet cleared' "$work/a.txt" || echo 'no retained-yet-cleared line')"
"$LEAKRAY" analyze "$work/n.hprof" --no-timing --no-suspects > "$work/n.txt"
"$LEAKRAY" analyze "$work/n.hprof" --json --no-timing --no-suspects > "$work/n.json"
if grep -q 'retained yet cleared' "$work/n.txt"; then fail "a retained-yet-cleared line for 0"; fi

python3 - "$work/a.json" "$work/n.json" > "$work/entry.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = json.load(open(sys.argv[2]))
assert d["retained_yet_cleared"] == 1, d["retained_yet_cleared"]
assert n["retained_yet_cleared"] == 0, n["retained_yet_cleared"]
assert len(d["application_leaks"]) == 6 and not d["unreachable_objects"], d["application_leaks"]
# the stale ThreadLocal's trace: nothing on it whose size is printed retains less than the
# leaking 300 kB page (the text prints no size for NO objects)
by_key = {}
for t in d["traces"]:
    for l in t["elements"][-1]["labels"]:
        if l.startswith("key = "):
            by_key[l[6:]] = t
els = by_key["more-3"]["elements"]
leak = els[-1]["retained_bytes"]
assert leak >= 300000, leak
for e in els[:-1]:
    if "retained_bytes" in e and e["leaking"] != "NO":
        assert e["retained_bytes"] >= leak, (e["class"], e["retained_bytes"], leak)
assert els[0]["class"] == "java.lang.Thread", els[0]["class"]
# the largest retainer's path in JSON names each reference's owner as the text does
refs = [p["reference"] for p in d["suspects"][0]["path"] if "reference" in p]
assert {"kind": "field", "name": "items", "owner": "BaseQueue"} in refs, refs
assert {"kind": "element", "name": "[0]", "owner": "Object"} in refs, refs
print([e["id"] for e in els if e["class"].endswith("ThreadLocal$ThreadLocalMap$Entry")][0])
PY
# the case above is the one asked for: the entry is also linked from the pending list
"$LEAKRAY" show "$work/m.hprof" "$(cat "$work/entry.txt")" --no-timing > "$work/entry.show"
grep -q '\.discovered (field)' "$work/entry.show" ||
    fail "the stale entry is not on the pending list in this dump: $(cat "$work/entry.show")"

# the largest retainer's path reads as the traces do
awk '/LARGEST RETAINERS$/{f=1} /^METADATA$/{f=0} f' "$work/a.txt" > "$work/suspects.txt"
grep -q 'class com.example.more.MoreShapes occupies' "$work/suspects.txt" ||
    fail "the 4 MB ring page is not the largest retainer"
grep -q '↓ BaseQueue\.items$' "$work/suspects.txt" || fail "suspect path: no BaseQueue.items"
grep -q '↓ Object\[0\]$' "$work/suspects.txt" || fail "suspect path: no Object[0]"
if grep -q '\[\]\[[0-9]' "$work/suspects.txt"; then
    fail "suspect path: array element named with the array type: $(grep '\[\]\[' "$work/suspects.txt")"
fi
# --leaking-if as a user writes it: an array's length reads as in Java, and a misspelt field
# further along a path is a warning (exit 2 under --strict), not a silent "no match"
"$LEAKRAY" analyze "$work/m.hprof" --no-timing --no-suspects --watch com.example.more.Page \
    --leaking-if 'pixels.length > 100000' > "$work/len.txt"
[ "$(grep -c 'Page matches pixels.length > 100000)$' "$work/len.txt")" = 2 ] ||
    fail "pixels.length > 100000 should match the 300 kB and 4 MB pages: $(grep -c matches "$work/len.txt")"
rc=0
"$LEAKRAY" analyze "$work/m.hprof" --no-timing --no-suspects --strict \
    --watch com.example.more.Page --leaking-if 'pixels.lenght > 100000' \
    > /dev/null 2> "$work/typo.err" || rc=$?
[ "$rc" = 2 ] || fail "a misspelt path field under --strict: exit $rc"
grep -q "byte\[\] has no field 'lenght' (in 'pixels.lenght')" "$work/typo.err" ||
    fail "misspelt path field: $(cat "$work/typo.err")"
# ... and so does the length of a watched array class itself, no warning under --strict
rc=0
"$LEAKRAY" analyze "$work/m.hprof" --no-timing --no-suspects --strict --watch 'byte[]' \
    --leaking-if 'length > 100000' > "$work/arr.txt" 2> "$work/arr.err" || rc=$?
[ "$rc" = 0 ] && [ ! -s "$work/arr.err" ] ||
    fail "--watch 'byte[]' --leaking-if 'length > 100000' under --strict: exit $rc: $(cat "$work/arr.err")"
echo "more_shapes: ok"
