#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cycles_garbage.sh: `leakray cycles` on a HotSpot dump written without a GC first
# (tests/programs/cycles/CycleDump.java): the 2 rings a static holds and the one a
# SoftReference holds are retain cycles with their retained bytes (the soft one read garbage);
# the 50 rings of the same shape no root reaches are garbage, grouped apart, listed last,
# marked unreachable and retaining nothing (a tracing GC frees them).
# A lambda's cycle keeps one signature across two runs of the program (its hidden class's
# address left out), so --baseline of another run finds nothing new; `analyze --watch` names
# the lambda's class so too.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/special_lib.bash"
fdn_init cycles_garbage
fdn_need_java
cls=$FDN_TMP/classes
javac -d "$cls" "$LEAKRAY_SRC/tests/programs/cycles/CycleDump.java" || fdn_fail "javac failed"
for run in 1 2; do
    java -XX:+UseSerialGC -Xmn256m -Xmx512m -cp "$cls" CycleDump "$FDN_TMP/run$run.hprof" ||
        fdn_fail "CycleDump run $run failed"
done
D=$FDN_TMP/run2.hprof

SP_JSON=$FDN_TMP/rings.json
"$LEAKRAY" cycles "$D" --class 'CycleDump$Ring' --json --no-timing >"$SP_JSON"
sp_check "held rings first: x3 (a static's 2, a SoftReference's 1), retaining their 9 payloads" \
    "(c := j['cycles'][0]) and (c['count'], c['unreachable'], c['held_by_singleton']) == (3, False, True) and c['retained'] >= 9 * 1000"
sp_check "garbage rings apart and last: x50, unreachable, retained 0" \
    "len(j['cycles']) == 2 and (c := j['cycles'][1]) and (c['count'], c['unreachable'], c['retained']) == (50, True, 0) and c['signature'] == j['cycles'][0]['signature']"
"$LEAKRAY" cycles "$D" --class 'CycleDump$Ring' --no-timing >"$FDN_TMP/rings.txt"
grep -q "^  (50 of them no strong or soft reference holds: garbage the next collection frees" "$FDN_TMP/rings.txt" &&
    grep -q "^  #2 x50, length 3, unreachable: garbage, no leak$" "$FDN_TMP/rings.txt" ||
    fdn_fail "text output: $(cat "$FDN_TMP/rings.txt")"
echo "ok: the text marks the 50 garbage rings" >&2

SP_JSON=$FDN_TMP/screens.json
"$LEAKRAY" cycles "$D" --class 'CycleDump$Screen' --json --no-timing >"$SP_JSON"
sp_check "the lambda cycle's signature names the lambda's class without its address" \
    "[(c['signature'], c['count']) for c in j['cycles']] == [('CycleDump\$Screen\$\$Lambda.arg\$1 -> CycleDump\$Screen.listener', 3)]"
SP_JSON=$FDN_TMP/base.json
"$LEAKRAY" cycles "$D" --class 'CycleDump$Screen' --baseline "$FDN_TMP/run1.hprof" --json \
    --no-timing >"$SP_JSON"
sp_check "--baseline of another run of the program: nothing new" "j['n_cycles'] == 0"
SP_JSON=$FDN_TMP/base2.json
"$LEAKRAY" cycles "$D" --class 'CycleDump$Ring' --baseline "$FDN_TMP/run1.hprof" --json \
    --no-timing >"$SP_JSON"
sp_check "--baseline: the held and the garbage rings are both in the other run" "j['n_cycles'] == 0"
# the same lambda class watched by that name: `--watch` matched the name with its address
# only (a name no rule can know before the run), and warned of no class
SP_JSON=$FDN_TMP/watch.json
rc=0
"$LEAKRAY" analyze "$D" --watch 'CycleDump$Screen$$Lambda' --no-suspects --json --no-timing \
    >"$SP_JSON" 2>"$FDN_TMP/watch.err" || rc=$?
[ "$rc" = 0 ] && [ ! -s "$FDN_TMP/watch.err" ] || fdn_fail "--watch a lambda: exit $rc: $(cat "$FDN_TMP/watch.err")"
sp_check "--watch 'CycleDump\$Screen\$\$Lambda' finds the 3 lambdas" "j['leaking_objects'] == 3"
echo "PASS"
