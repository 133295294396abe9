#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# collapse_analyze.sh: `leakray analyze --collapse` on the HotSpot dump of
# tests/programs/collapse/CollapseDump.java with --watch LeakedController. Text: the 300-node
# Flutter-like chain draws as four run steps (element x151 through 1 collection object,
# widget x80, state x20, renderObject x50) and the HashMap between them (its entry is one
# `HashMap["child"]` reference, as Shark reads collections) between the two class steps and
# the leaking object, which keeps its own lines; without --collapse every node is a step.
# JSON: "elements" stays complete and "collapsed" indexes into it; android-views gives its
# own shape; --categories without --collapse is a usage error.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/special_lib.bash"
fdn_init collapse_analyze
fdn_need_java
D=$FDN_TMP/collapse.hprof
javac -d "$FDN_TMP/classes" "$LEAKRAY_SRC"/tests/programs/collapse/*.java || fdn_fail "javac failed"
java -Xmx256m -cp "$FDN_TMP/classes" CollapseDump "$D" || fdn_fail "CollapseDump failed"
A=(analyze "$D" --watch LeakedController --no-timing --no-shipped-rules --no-suspects)

T=$FDN_TMP/collapsed.txt
"$LEAKRAY" "${A[@]}" --collapse >"$T" || fdn_fail "analyze --collapse exit $?"
runs=$(grep -o '├─ [0-9]* x [a-zA-Z]*' "$T" | tr '\n' ';')
[ "$runs" = "├─ 151 x element;├─ 80 x widget;├─ 20 x state;├─ 50 x renderObject;" ] ||
    fdn_fail "collapsed runs: $runs"
grep -q '^├─ 151 x element: StatelessElement instance ... StatefulElement instance (through 1 collection object)$' "$T" ||
    fdn_fail "element run line"
grep -q '^╰→ LeakedController instance$' "$T" || fdn_fail "leaking object line"
grep -q '^│    ↓ HashMap\["child"\]$' "$T" || fdn_fail "HashMap entry reference line"
steps=$(grep -c '^├─ ' "$T")
[ "$steps" = 7 ] || fdn_fail "collapsed trace has $steps steps, want 7 (2 classes + 4 runs + HashMap)"
echo "ok: collapsed text trace: 7 steps, runs $runs" >&2
full=$("$LEAKRAY" "${A[@]}" --full | grep -c '^├─ ')
[ "$full" = 304 ] || fdn_fail "full trace has $full steps, want 304"
echo "ok: with --full and without --collapse the trace has $full steps" >&2
# by default a long path keeps 25 objects at each end and counts the rest
"$LEAKRAY" "${A[@]}" >"$T"
[ "$(grep -c '^├─ ' "$T")" = 49 ] || fdn_fail "default trace: $(grep -c '^├─ ' "$T") steps, want 49"
grep -q '^│    … 255 more references … (--full shows them)$' "$T" || fdn_fail "no elision line"

SP_JSON=$FDN_TMP/collapsed.json
"$LEAKRAY" "${A[@]}" --collapse --json >"$SP_JSON" || fdn_fail "analyze --collapse --json exit $?"
sp_check "elements stay complete (305), collapsed covers all but the leaking object" \
    "(lambda t: len(t['elements']) == 305 and t['collapsed'][0]['from'] == 0 and t['collapsed'][-1]['to'] == 303 and all(a['to'] + 1 == b['from'] for a, b in zip(t['collapsed'], t['collapsed'][1:])))(j['traces'][0])"
sp_check "collapsed categories and counts" \
    "[(c['category'], c['count'], c['collections']) for c in j['traces'][0]['collapsed'] if c['count'] > 1] == [('element', 151, 1), ('widget', 80, 0), ('state', 20, 0), ('renderObject', 50, 0)]"
sp_check "run ends name their classes" \
    "(lambda c: c['first_class'] == 'StatelessElement' and c['last_class'] == 'StatefulElement')([c for c in j['traces'][0]['collapsed'] if c['category'] == 'element'][0])"
"$LEAKRAY" "${A[@]}" --json | python3 -c 'import json,sys; assert "collapsed" not in json.load(sys.stdin)["traces"][0]' ||
    fdn_fail "collapsed key without --collapse"

# android-views knows none of these classes but collections: only the collection runs merge
"$LEAKRAY" "${A[@]}" --collapse --categories android-views >"$T" || fdn_fail "android-views exit $?"
[ "$(grep -c '^├─ ' "$T")" -gt 300 ] || fdn_fail "android-views should leave the Flutter chain long"
echo "ok: android-views leaves the chain uncollapsed ($(grep -c '^├─ ' "$T") steps)" >&2

set +e
"$LEAKRAY" "${A[@]}" --categories flutter >/dev/null 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fdn_fail "--categories without --collapse exit $rc, want 2"
echo "PASS"
