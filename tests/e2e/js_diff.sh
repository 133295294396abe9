#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_diff.sh: `leakray diff A B` (DevTools Comparison) on the Node program of
# tests/programs/js/leaks.js: baseline -> target shows every leaked record, cache entry,
# listener state and the 1,000 transient objects as new, matched by node id; target -> final
# shows the transients deleted and nothing new for the leaked classes; totals add up.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/js_lib.bash"
js_init js_diff
node --expose-gc "$LEAKRAY_SRC/tests/programs/js/leaks.js" "$JS_TMP" >"$JS_TMP/sites.txt"
B=$JS_TMP/baseline.heapsnapshot T=$JS_TMP/target.heapsnapshot F=$JS_TMP/final.heapsnapshot
site() { awk -v s="$1" '$2 == s {print $3}' "$JS_TMP/sites.txt"; }

JS_JSON=$JS_TMP/bt.json
"$LEAKRAY" diff "$B" "$T" --json --no-timing >"$JS_JSON"
row() { echo "[(r['new'], r['deleted']) for r in j['classes'] if r['name'] == '$1']"; }
js_check "matched by id" "j['match'] == 'id'"
js_check "LeakedRecord: $(site records) new, 0 deleted" "$(row LeakedRecord) == [($(site records), 0)]"
js_check "CacheEntry: $(site cache) new" "$(row CacheEntry) == [($(site cache), 0)]"
js_check "ListenerState: $(site listeners) new" "$(row ListenerState) == [($(site listeners), 0)]"
js_check "ProxiedModel: $(site proxies) new" "$(row ProxiedModel) == [($(site proxies), 0)]"
js_check "TransientThing: 1000 new" "$(row TransientThing) == [(1000, 0)]"
js_check "size delta = alloc - freed, count delta = new - deleted (DevTools)" \
    "all(r['size_delta'] == r['alloc_size'] - r['freed_size'] and r['count_delta'] == r['new'] - r['deleted'] for r in j['classes'])"
js_check "count_b - count_a = new - deleted per class" \
    "all(r['count_b'] - r['count_a'] == r['new'] - r['deleted'] for r in j['classes'])"
js_check "totals are the sums of the rows" \
    "j['total']['new'] == sum(r['new'] for r in j['classes']) and j['total']['alloc_size'] == sum(r['alloc_size'] for r in j['classes'])"
js_check "rows sorted by |size delta|" \
    "all(abs(a['size_delta']) >= abs(b['size_delta']) for a, b in zip(j['classes'], j['classes'][1:]))"

JS_JSON=$JS_TMP/tf.json
"$LEAKRAY" diff "$T" "$F" --json --no-timing >"$JS_JSON"
js_check "target -> final: transients deleted (a literal boilerplate may stay)" \
    "[r['deleted'] >= 999 and r['new'] == 0 for r in j['classes'] if r['name'] == 'TransientThing'] == [True]"
js_check "target -> final: leaked classes unchanged" \
    "not [r for r in j['classes'] if r['name'] in ('LeakedRecord', 'CacheEntry', 'ListenerState', 'ProxiedModel')]"

JS_JSON=$JS_TMP/same.json
"$LEAKRAY" diff "$F" "$F" --json --no-timing >"$JS_JSON"
js_check "a snapshot against itself: no changed class" "j['changed_classes'] == 0 and j['classes'] == []"

JS_JSON=$JS_TMP/byclass.json
"$LEAKRAY" diff "$B" "$T" --by-class --json --no-timing >"$JS_JSON"
js_check "--by-class: counts per class without ids" \
    "j['match'] == 'class' and [r['count_b'] - r['count_a'] for r in j['classes'] if r['name'] == 'LeakedRecord'] == [$(site records)] and 'new' not in j['classes'][0]"

"$LEAKRAY" diff "$B" "$T" --no-timing --top 5 >"$JS_TMP/diff.txt"
if grep -q '# New' "$JS_TMP/diff.txt" && grep -q 'LeakedRecord' "$JS_TMP/diff.txt" &&
    grep -q '(total)' "$JS_TMP/diff.txt"; then echo "ok: text table"; else
    echo "FAIL: text table"; JS_FAILS=$((JS_FAILS + 1)); fi
rc=0
"$LEAKRAY" diff "$B" >/dev/null 2>&1 || rc=$?
if [ "$rc" -eq 2 ]; then echo "ok: one file is a usage error"; else
    echo "FAIL: exit $rc with one file"; JS_FAILS=$((JS_FAILS + 1)); fi
js_finish
