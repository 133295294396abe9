#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_clusters.sh: `leakray clusters` (the ArkTS clustering method) on a whole Node heap from
# tests/programs/js/leaks.js (one cluster per call site with its exact object count, anchors,
# --sort count, user rules overriding the shipped anchors; directories by DevTools' names,
# rules/v8.rules), and on hand-built ArkTS-layout
# snapshots from tests/programs/js/arkts_layout.js: each cluster rule and special case
# (business class by name, closures, plain objects by property set, Map entries through a
# TaggedArray, promises by handler, ArkUI proxies by target, framework objects, unclustered
# SourceTextModule / HiddenClass), compared with a golden text report, plus the ArkTS
# three-snapshot run.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/js_lib.bash"
js_init js_clusters
node --expose-gc "$LEAKRAY_SRC/tests/programs/js/leaks.js" "$JS_TMP" >"$JS_TMP/sites.txt"
F=$JS_TMP/final.heapsnapshot
printf '# every directory is an anchor\nanchors top=100000\n' >"$JS_TMP/all.rules"

JS_JSON=$JS_TMP/default.json
"$LEAKRAY" clusters "$F" --json --no-timing --top 0 >"$JS_JSON"
js_check "20 anchors by default (the heap has more directories)" "len(j['anchors']) == 20"
js_check "anchors sorted by retained size" \
    "all(a['retained'] >= b['retained'] for a, b in zip(j['anchors'], j['anchors'][1:]))"
js_check "no internal or singleton directory is an anchor" \
    "not {a['directory'] for a in j['anchors']} & {'(system)', '(compiled code)', 'global', '(object shape)', 'system / NativeContext', '(synthetic)'}"
js_check "clusters sorted by retained size" \
    "all(a['retained'] >= b['retained'] for a, b in zip(j['clusters'], j['clusters'][1:]))"

JS_JSON=$JS_TMP/all.json
"$LEAKRAY" clusters "$F" --rules "$JS_TMP/all.rules" --sort count --json --no-timing --top 0 \
    >"$JS_JSON"
js_check "user rules file overrides the shipped anchors" "len(j['anchors']) > 20"
js_check "--sort count orders by count" \
    "all(a['count'] >= b['count'] for a, b in zip(j['clusters'], j['clusters'][1:]))"
site() { awk -v s="$1" '$2 == s {print $3}' "$JS_TMP/sites.txt"; }
for spec in "records|LeakedRecord" "cache|CacheEntry" "listeners|Function onTick" \
            "callbacks|Function onDone" "promises|Promise -> onSettled" \
            "proxies|system / JSProxy -> ProxiedModel"; do
    IFS='|' read -r key title <<<"$spec"
    n=$(site "$key")
    js_check "whole heap, site $key: one cluster '$title' of $n objects" \
        "[c['count'] for c in cl('$title')] == [$n]"
done
js_check "the record arrays are an Array cluster nested in LeakedRecord" \
    "any(c['count'] == $(site records) and c['directory'] == 'Array' and j['clusters'][c['nested_in'] - 1]['title'] == 'LeakedRecord' for c in j['clusters'] if c['nested_in'])"
js_check "cache metadata objects: one property-set cluster (Smi fields are no edges)" \
    "[(c['count'], chain(c)) for c in cl('Object {tags}') if c['count'] > 1] == [($(site cache), '[].requestCache.table[].meta')]"
js_check "objects counted once: sum of counts = objects" \
    "sum(c['count'] for c in j['clusters']) == j['objects']"

"$LEAKRAY" clusters "$F" --no-timing --top 3 >"$JS_TMP/text.txt"
if grep -q '^anchors:' "$JS_TMP/text.txt" && grep -q '^#3 ' "$JS_TMP/text.txt" &&
    ! grep -q '^#4 ' "$JS_TMP/text.txt"; then echo "ok: text report with --top 3"; else
    echo "FAIL: text report"; JS_FAILS=$((JS_FAILS + 1)); fi

# ---- ArkTS layout ----
node "$LEAKRAY_SRC/tests/programs/js/arkts_layout.js" "$JS_TMP"
A=$JS_TMP/ark-final.heapsnapshot
"$LEAKRAY" clusters "$A" --rules "$JS_TMP/all.rules" --no-timing --top 0 \
    | sed "s|^$A:|ark-final.heapsnapshot:|" >"$JS_TMP/ark.clusters.txt"
js_golden "$JS_TMP/ark.clusters.txt" ark.clusters.txt
JS_JSON=$JS_TMP/ark.json
"$LEAKRAY" clusters "$A" --rules "$JS_TMP/all.rules" --json --no-timing --top 0 >"$JS_JSON"
REC='entry/src/main/ets/pages/Index#Record(line:12)[entry]'
js_check "ArkTS business class: name + chain" "[c['count'] for c in cl('$REC')] == [5]"
js_check "ArkTS closures: Function by name" \
    "[c['count'] for c in cl('Function entry/src/main/ets/pages/Index#onClick(line:30)[entry]')] == [4]"
js_check "ArkTS plain objects split by property set" \
    "([c['count'] for c in cl('jsobject {x}')], [c['count'] for c in cl('jsobject {x, y}')]) == ([3], [2])"
js_check "ArkTS Map entries through the TaggedArray" \
    "[(c['count'], chain(c)) for c in cl('jsobject {key, value}')] == [(6, '-subroot-.cache.linkedMap[]')]"
js_check "ArkTS promises by their reaction's handler" \
    "[c['count'] for c in cl('Promise -> entry/src/main/ets/pages/Index#onDone(line:40)[entry]')] == [3]"
js_check "ArkTS PromiseCapability ignored" "not [c for c in j['clusters'] if c['directory'] == 'PromiseCapability']"
js_check "ArkUI proxies by target" \
    "[c['count'] for c in cl('proxy -> entry/src/main/ets/model/ViewModel#ViewModel(line:5)[entry]')] == [2]"
js_check "framework objects clustered by name + chain" \
    "sorted(chain(c) for c in j['clusters'] if c['directory'] == 'framework') == ['-subroot-.storage', '-subroot-.storage2']"
js_check "SourceTextModule, HiddenClass, GlobalEnv, GlobalObject: not clustered" \
    "not {c['directory'] for c in j['clusters']} & {'SourceTextModule', 'HiddenClass', 'global_env', 'global_object'}"
js_check "Map shallow = 40 + native_size 4096 + its table's 176 (DevTools re-attribution)" \
    "[c['shallow'] for c in j['clusters'] if c['directory'] == 'js_map'] == [4312]"

JS_JSON=$JS_TMP/ark-leaks.json
"$LEAKRAY" leaks --baseline "$JS_TMP/ark-baseline.heapsnapshot" --target "$JS_TMP/ark-target.heapsnapshot" \
    --final "$A" --json --no-timing --top 0 >"$JS_JSON"
js_check "ArkTS leaks: 38 objects in 11 clusters, transients dropped" \
    "(j['leaked_objects'], j['total_clusters'], j['new_in_target'], j['alive_in_final']) == (38, 11, 57, 54)"
js_check "ArkTS leaks: records and their payloads" \
    "[(c['count'], c['retained']) for c in cl('$REC')] == [(5, 320)]"
js_check "ArkTS leaks: promise retained covers reaction, capability and handler" \
    "[c['retained'] for c in cl('Promise -> entry/src/main/ets/pages/Index#onDone(line:40)[entry]')] == [528]"
js_check "ArkTS leaks: total retained without double counting" "j['leaked_retained'] == 1672"

printf 'dir ok type=object\ncluster ok by=sideways\n' >"$JS_TMP/bad.rules"
rc=0
# The report of an ArkTS snapshot with native sizes: its treemap, biggest objects and
# reachable total are `top`'s (DevTools' tree, native bytes apart), as its suspects are.
T=$JS_TMP/ark-target.heapsnapshot
"$LEAKRAY" top "$T" --json --no-timing --top 200 >"$JS_TMP/ark.top.json"
"$LEAKRAY" report "$T" --no-timing --format json -o "$JS_TMP/ark.model.json" >/dev/null
if python3 - "$JS_TMP/ark.top.json" "$JS_TMP/ark.model.json" <<'PY'; then
import json, sys
t = json.load(open(sys.argv[1]))
m = json.load(open(sys.argv[2]))
top = [(o["id"], o["retained"]) for o in t["objects"]]
got = [(o["id"], o["retained_bytes"]) for o in m["top_objects"]][:len(top)]
assert got == top, (got[:3], top[:3])
assert m["summary"]["reachable_bytes"] == t["reachable_bytes"], \
    (m["summary"]["reachable_bytes"], t["reachable_bytes"])
assert m["tree"]["objects"][0][3] == t["reachable_bytes"]
assert m["summary"].get("native_bytes", 0) > 0, "no native sizes: the check needs them"
PY
    echo "ok: ArkTS report sizes are top's"; else
    echo "FAIL: ArkTS report sizes differ from top's"; JS_FAILS=$((JS_FAILS + 1)); fi

"$LEAKRAY" clusters --rules "$JS_TMP/bad.rules" "$A" >/dev/null 2>"$JS_TMP/bad.err" || rc=$?
if [ "$rc" -eq 3 ] && grep -q "bad.rules:2: unknown cluster kind" "$JS_TMP/bad.err"; then
    echo "ok: a bad rules file is exit 3 with file:line"; else
    echo "FAIL: bad rules file: exit $rc, $(cat "$JS_TMP/bad.err")"; JS_FAILS=$((JS_FAILS + 1)); fi
js_finish
