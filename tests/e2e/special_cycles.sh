#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# special_cycles.sh: `leakray cycles` on SpecialDump: the Screen <-> Listener pairs (3,
# held by the EventBus singleton), the RingA -> RingB -> RingC rings (2, static), the
# Parent/Child cycles (2, held only by a thread's local variable, so not by a singleton),
# --from, --max-length, --baseline against a dump without the rings (and refused against a
# V8 snapshot), and the unscoped SCC list.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/special_lib.bash"
fdn_init special_cycles
fdn_need_java
D=$FDN_TMP/special.hprof
B=$FDN_TMP/norings.hprof
sp_make_dump "$D"
sp_make_dump "$B" 0 norings

SP_JSON=$FDN_TMP/screen.json
"$LEAKRAY" cycles "$D" --class 'SpecialDump$Screen' --json --no-timing >"$SP_JSON"
sp_check "Screen scope: one shape, 3 instances, length 2, held by singleton" \
    "[(c['signature'], c['count'], c['length'], c['held_by_singleton'], c['members']) for c in j['cycles']] == [('SpecialDump\$Listener.owner -> SpecialDump\$Screen.listener', 3, 2, True, 6)]"
sp_check "retained covers both members and the title strings" \
    "j['cycles'][0]['retained'] >= 6 * 24"
sp_check "3 start objects" "j['scope']['start_objects'] == 3 and j['n_sccs'] == 3"

SP_JSON=$FDN_TMP/parent.json
"$LEAKRAY" cycles "$D" --class 'SpecialDump$Parent' --json --no-timing >"$SP_JSON"
sp_check "Parent scope: one 4-step shape found twice, not held by a singleton" \
    "[(c['signature'], c['count'], c['held_by_singleton']) for c in j['cycles']] == [('SpecialDump\$Child.parent -> SpecialDump\$Parent.children -> java.util.ArrayList.elementData -> java.lang.Object[].[]', 2, False)]"

SP_JSON=$FDN_TMP/registry.json
"$LEAKRAY" cycles "$D" --class 'SpecialDump$Registry' --json --no-timing >"$SP_JSON"
sp_check "Registry scope: the ring (x2, length 3) and the listener pairs (x3)" \
    "sorted((c['signature'], c['count'], c['length'], c['held_by_singleton']) for c in j['cycles']) == [('SpecialDump\$Listener.owner -> SpecialDump\$Screen.listener', 3, 2, True), ('SpecialDump\$RingA.b -> SpecialDump\$RingB.c -> SpecialDump\$RingC.a', 2, 3, True)]"

SP_JSON=$FDN_TMP/short.json
"$LEAKRAY" cycles "$D" --class 'SpecialDump$Registry' --max-length 2 --json --no-timing >"$SP_JSON"
sp_check "--max-length 2 drops the 3-rings" \
    "[c['length'] for c in j['cycles']] == [2]"

SP_JSON=$FDN_TMP/base.json
"$LEAKRAY" cycles "$D" --class 'SpecialDump$Registry' --baseline "$B" --json --no-timing >"$SP_JSON"
sp_check "--baseline without rings reports only the rings" \
    "[c['signature'] for c in j['cycles']] == ['SpecialDump\$RingA.b -> SpecialDump\$RingB.c -> SpecialDump\$RingC.a']"

# a baseline of another format or program made every cycle "new" (exit 0): refused as diff
# refuses it, --force lifts the program check
rc=0
"$LEAKRAY" cycles "$D" --class 'SpecialDump$Registry' --no-timing \
    --baseline "$LEAKRAY_SRC/tests/data/v8/cliques.heapsnapshot" >/dev/null 2>"$FDN_TMP/fmt.err" ||
    rc=$?
[ "$rc" = 2 ] && grep -q "only snapshots of one format" "$FDN_TMP/fmt.err" ||
    fdn_fail "--baseline of another format: exit $rc: $(cat "$FDN_TMP/fmt.err")"
echo "ok: --baseline of another format refused" >&2

SP_JSON=$FDN_TMP/screen.json
id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cycles'][0]['example'][1]['id'])" "$SP_JSON")
SP_JSON=$FDN_TMP/from.json
"$LEAKRAY" cycles "$D" --from "$id" --json --no-timing >"$SP_JSON"
sp_check "--from one Screen: its own pair only" \
    "len(j['cycles']) == 1 and j['cycles'][0]['count'] == 1 and j['scope']['start_objects'] == 1"

SP_JSON=$FDN_TMP/all.json
"$LEAKRAY" cycles "$D" --json --no-timing >"$SP_JSON"
sp_check "unscoped: components listed largest first, no enumeration" \
    "j['n_sccs'] >= 7 and 'cycles' not in j and all(a['size'] >= b['size'] for a, b in zip(j['sccs'], j['sccs'][1:]))"

rc=0
"$LEAKRAY" cycles "$D" --class No.Such.Class >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fdn_fail "unknown class should exit 2, got $rc"
echo "PASS"
