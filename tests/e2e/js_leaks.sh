#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_leaks.sh: `leakray leaks` (memlab's three-snapshot method) on a Node program that leaks
# from six known call sites (tests/programs/js/leaks.js): one cluster per site with the exact
# leaked count and the site's chain, the objects dropped before the final snapshot not
# reported, nesting (payloads under their closures), totals without double counting,
# --fail-on-leak; one file given twice is refused (exit 2; leaks_order.sh: the order).
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/js_lib.bash"
js_init js_leaks
node --expose-gc "$LEAKRAY_SRC/tests/programs/js/leaks.js" "$JS_TMP" >"$JS_TMP/sites.txt"
B=$JS_TMP/baseline.heapsnapshot T=$JS_TMP/target.heapsnapshot F=$JS_TMP/final.heapsnapshot

JS_JSON=$JS_TMP/leaks.json
rc=0
"$LEAKRAY" leaks --baseline "$B" --target "$T" --final "$F" --json --no-timing --top 0 \
    --fail-on-leak >"$JS_JSON" || rc=$?
if [ "$rc" -eq 1 ]; then echo "ok: --fail-on-leak exits 1"; else
    echo "FAIL: --fail-on-leak exit $rc"; JS_FAILS=$((JS_FAILS + 1)); fi

site() { awk -v s="$1" '$2 == s {print $3}' "$JS_TMP/sites.txt"; }
for spec in "records|LeakedRecord|leakedRecords[]" \
            "cache|CacheEntry|requestCache.table[]" \
            "listeners|Function onTick|bus._events.tick[]" \
            "callbacks|Function onDone|pendingCallbacks[]" \
            "promises|Promise -> onSettled|pendingPromises[]" \
            "proxies|system / JSProxy -> ProxiedModel|observed[]"; do
    IFS='|' read -r key title ch <<<"$spec"
    n=$(site "$key")
    js_check "site $key: one cluster '$title' of $n objects" \
        "[c['count'] for c in cl('$title')] == [$n]"
    js_check "site $key: chain $ch" "[chain(c) for c in cl('$title')] == ['[].$ch']"
    js_check "site $key: retained > 0, >= shallow" \
        "all(c['retained'] >= c['shallow'] and c['retained'] > 0 for c in cl('$title'))"
done
js_check "closure payloads nested in the onDone cluster" \
    "[j['clusters'][c['nested_in'] - 1]['title'] for c in cl('ClosurePayload')] == ['Function onDone']"
js_check "listener states nested in the onTick cluster" \
    "[j['clusters'][c['nested_in'] - 1]['title'] for c in cl('ListenerState')] == ['Function onTick']"
js_check "proxy targets nested in the proxy cluster" \
    "[j['clusters'][c['nested_in'] - 1]['title'] for c in cl('ProxiedModel')] == ['system / JSProxy -> ProxiedModel']"
js_check "TransientThing (alive in target only) is not reported (at most a literal boilerplate)" \
    "sum(c['count'] for c in cl('TransientThing')) <= 1"
js_check "total retained = sum over clusters that are not nested" \
    "j['leaked_retained'] == sum(c['retained'] for c in j['clusters'] if c['nested_in'] is None)"
js_check "leaked objects = sum of cluster counts" \
    "j['leaked_objects'] == sum(c['count'] for c in j['clusters'])"
js_check "alive = leaked + filtered" "j['alive_in_final'] == j['leaked_objects'] + j['filtered']"
js_check "filtered = unreachable + internal + by rules" \
    "j['filtered'] == sum(j['filtered_by'][k] for k in ('unreachable', 'internal', 'rules'))"
js_check "the rules' classes: strings and backing stores first, most first, within the rules' count" \
    "sorted(c['name'] for c in j['filtered_by']['rule_classes'][:2]) == ['(array)', '(string)'] and sum(c['count'] for c in j['filtered_by']['rule_classes']) <= j['filtered_by']['rules'] and [c['count'] for c in j['filtered_by']['rule_classes']] == sorted([c['count'] for c in j['filtered_by']['rule_classes']], reverse=True)"
# the text says the same, reason by reason
"$LEAKRAY" leaks --baseline "$B" --target "$T" --final "$F" --no-timing --top 0 \
    >"$JS_TMP/leaks.txt" || true
want=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); f = j["filtered_by"]; n = lambda x: format(x, ",")
parts = [n(f[k]) + " " + w for k, w in (("unreachable", "unreachable"), ("internal", "internal")) if f[k]]
if f["rules"]:
    r = n(f["rules"]) + " by leak-ignore rules: " + ", ".join(c["name"] + " " + n(c["count"]) for c in f["rule_classes"])
    parts.append(r + (", ..." if sum(c["count"] for c in f["rule_classes"]) < f["rules"] else ""))
print(n(j["filtered"]) + " filtered" + (" (" + ", ".join(parts) + ")" if parts else ""))' "$JS_JSON")
if head -1 "$JS_TMP/leaks.txt" | grep -qF -- "$want"; then echo "ok: the text's filtered line: $want"
else echo "FAIL: text says '$(head -1 "$JS_TMP/leaks.txt")', want '... $want'"; JS_FAILS=$((JS_FAILS + 1)); fi
js_check "no string or backing-store clusters" \
    "not [c for c in j['clusters'] if c['directory'] in ('(string)', '(concatenated string)', '(sliced string)', '(array)', '(system)')]"

# Cross-check with DevTools' class retained sizes (histo --retained): every LeakedRecord,
# CacheEntry, ListenerState and ProxiedModel of the final heap is a leak of its site.
if grep -q -- '--retained' <<<"$("$LEAKRAY" histo --help 2>/dev/null)"; then
    "$LEAKRAY" histo --retained --json --no-timing "$F" >"$JS_TMP/histo.json"
    for cls in LeakedRecord CacheEntry; do
        want=$(python3 -c 'import json,sys; print([c["retained"] for c in json.load(open(sys.argv[1]))["classes"] if c["name"] == sys.argv[2]])' "$JS_TMP/histo.json" "$cls")
        js_check "$cls cluster retained = DevTools class retained $want" \
            "[c['retained'] for c in cl('$cls')] == $want"
    done
fi

python3 - "$JS_JSON" >"$JS_TMP/leaks.sites.tsv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
sites = {'LeakedRecord', 'CacheEntry', 'Function onTick', 'Function onDone',
         'Promise -> onSettled', 'system / JSProxy -> ProxiedModel', 'ClosurePayload', 'ListenerState',
         'ProxiedModel', 'PendingRequest'}
rows = []
for c in j['clusters']:
    if c['title'] in sites:
        ch = ' '.join('--%s(%s)--> %s' % (k['edge'], k['edge_kind'], k['node']) for k in c['chain'][1:])
        nest = j['clusters'][c['nested_in'] - 1]['title'] if c['nested_in'] else '-'
        rows.append('%s\t%d\t%s\t%s' % (c['title'], c['count'], nest, ch))
print('\n'.join(sorted(rows)))
PY
js_golden "$JS_TMP/leaks.sites.tsv" leaks.sites.tsv

# One file given twice would pass a --fail-on-leak gate with
# "0 leaks": refused (exit 2), as a usage mistake.
rc=0
"$LEAKRAY" leaks --baseline "$F" --target "$F" --no-timing --fail-on-leak >/dev/null \
    2>"$JS_TMP/same.err" || rc=$?
if [ "$rc" -eq 2 ] && grep -q "are the same file" "$JS_TMP/same.err"; then
    echo "ok: one snapshot twice is refused"; else
    echo "FAIL: one snapshot twice: exit $rc"; JS_FAILS=$((JS_FAILS + 1)); fi
"$LEAKRAY" leaks --baseline "$B" --target "$T" --final "$F" --no-timing >"$JS_TMP/leaks.txt"
if grep -q '^leaked: ' "$JS_TMP/leaks.txt" && grep -q 'nested in #' "$JS_TMP/leaks.txt"; then
    echo "ok: text report"; else echo "FAIL: text report"; JS_FAILS=$((JS_FAILS + 1)); fi

# Pooled Buffers (tests/programs/js/pools.js): the pools two kept Buffers share are dominated
# by the array holding both, but only Buffers refer to them. The pools' cluster is nested in
# the Buffers' (it was nested in none, and the clusters not nested summed to about twice the
# leak).
node --expose-gc "$LEAKRAY_SRC/tests/programs/js/pools.js" "$JS_TMP"
JS_JSON=$JS_TMP/pools.json
"$LEAKRAY" leaks --baseline "$JS_TMP/pools-baseline.heapsnapshot" --json --no-timing --top 0 \
    --target "$JS_TMP/pools-target.heapsnapshot" --final "$JS_TMP/pools-final.heapsnapshot" \
    >"$JS_JSON"
js_check "pools: 120 Buffers in one cluster" \
    "[c['count'] for c in j['clusters'] if c['title'] == 'Buffer' and c['count'] > 1] == [120]"
js_check "pools: the pools' cluster nested in the Buffers'" \
    "[j['clusters'][c['nested_in'] - 1]['title'] if c['nested_in'] else None for c in j['clusters'] if c['title'] == 'ArrayBuffer' and c['count'] > 1] == ['Buffer']"
js_check "pools: the clusters not nested count no byte twice" \
    "j['leaked_retained'] >= sum(c['retained'] for c in j['clusters'] if c['nested_in'] is None)"

rc=0
"$LEAKRAY" leaks --target "$T" >/dev/null 2>&1 || rc=$?
if [ "$rc" -eq 2 ]; then echo "ok: missing --baseline is a usage error"; else
    echo "FAIL: missing --baseline exit $rc"; JS_FAILS=$((JS_FAILS + 1)); fi
js_finish
