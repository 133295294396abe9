#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_global_suspects.sh: under Node 22 and 24 `global` dominates 88-96 % of the heap, and the
# LARGEST RETAINERS section said "One instance of global occupies ..." and nothing else
# whatever grew. The suspects see through the global objects V8's root names, as through its
# synthetic roots: on the committed snapshots of tests/programs/node/v8_newer.js (Node 22
# and 24) the program's module scope is a suspect, accumulated in the registry's Array. A
# global object is a suspect itself only while what it holds beyond the suspects below it
# passes the share: tests/programs/node/global_spread.js leaks onto globalThis in values of
# ten shapes, and `global` must stay a suspect there (seen through, it was in none). Then
# it counts only what it holds outside the suspects below it, and descends into none of them.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools python3 xz
work="$LEAKRAY_BUILD/tmp/js_global_suspects"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
for n in node22-final node24-final; do
    xz -dc "$LEAKRAY_SRC/tests/data/v8/$n.heapsnapshot.xz" >"$work/$n.heapsnapshot"
    rc=0
    "$LEAKRAY" analyze "$work/$n.heapsnapshot" --json --no-timing >"$work/$n.json" \
        2>"$work/$n.err" || rc=$?
    [ $rc = 0 ] || fail "$n: exit $rc: $(cat "$work/$n.err")"
    python3 - "$work/$n.json" <<'PY' || fail "$n: suspects"
import json, sys
d = json.load(open(sys.argv[1]))
s = d['suspects']
got = [(x['kind'], x['class'], x['heap_percent'], x['accumulation_point']['class']) for x in s]
assert s, 'no suspect'
scope = [x for x in s if (x['kind'], x['class'], x['accumulation_point']['class']) ==
         ('object', 'system / Context', 'Array')]
assert scope and scope[0]['heap_percent'] >= 10, got
# its path passes through the global object, which stays on it
assert scope[0]['path'][0]['class'] == 'global', scope[0]['path'][0]
PY
done
# the section's text names the scope
"$LEAKRAY" analyze "$work/node24-final.heapsnapshot" --no-timing >"$work/text.txt" 2>/dev/null
grep -q "^Suspect [0-9]: One instance of system / Context occupies" "$work/text.txt" ||
    fail "text: $(grep '^Suspect' "$work/text.txt" | head -3)"
# growth spread over global's own properties: global is a suspect
if command -v node >/dev/null; then
    node --expose-gc "$LEAKRAY_SRC/tests/programs/node/global_spread.js" \
        "$work/spread.heapsnapshot" >/dev/null
    "$LEAKRAY" analyze "$work/spread.heapsnapshot" --json --no-timing >"$work/spread.json"
    python3 - "$work/spread.json" <<'PY' || fail "global_spread: global is no suspect"
import json, sys
s = json.load(open(sys.argv[1]))['suspects']
assert any(x['kind'] == 'object' and x['class'] == 'global' and x['heap_percent'] > 50
           for x in s), [(x['kind'], x['class'], x['heap_percent']) for x in s]
PY
    # an Array on globalThis holding 80 % of the heap is the suspect; global, a suspect too
    # for what it holds beside it, counts only that and is its own accumulation point (it
    # was listed at 96 % accumulated in the same Array: the bytes twice, sums past the heap)
    cat >"$work/arr.js" <<'JS'
class Item { constructor(i) { this.i = i; this.payload = new Array(64).fill(i); } }
globalThis.cacheA = [];
for (let i = 0; i < 20000; i++) globalThis.cacheA.push(new Item(i));
require('v8').writeHeapSnapshot(process.argv[2]);
JS
    node "$work/arr.js" "$work/arr.heapsnapshot"
    "$LEAKRAY" analyze "$work/arr.heapsnapshot" --json --no-timing >"$work/arr.json"
    python3 - "$work/arr.json" <<'PY' || fail "an Array on globalThis: suspects"
import json, sys
s = json.load(open(sys.argv[1]))['suspects']
got = [(x['class'], x['heap_percent'], x['accumulation_point']['class']) for x in s]
assert s[0]['class'] == 'Array' and s[0]['heap_percent'] > 60, got
assert sum(x['heap_percent'] for x in s) <= 100.5, got
for x in s:
    if x['class'] == 'global':
        assert x['accumulation_point']['id'] == x['id'], got
        assert 'outside the suspects it holds' in x['description'], x['description']
PY
fi
echo "js_global_suspects: ok"
