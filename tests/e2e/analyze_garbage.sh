#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# analyze_garbage.sh: a watched object no strong or soft reference reaches is garbage, which
# a dump written without a GC first (tests/programs/garbage/GarbageDump.java, live = false)
# still holds. It is listed among the unreachable objects, marked garbage (JSON: garbage,
# text: "Garbage: ..."), and --fail-on-leak does not fail on it: a server whose stopped
# applications' class loaders were all collectable failed its gate on a `jcmd GC.heap_dump
# -all` dump. One only a WeakReference holds is garbage too; one a SoftReference holds is
# not (kept while memory lasts), nor one a static holds (a leak trace).
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/special_lib.bash"
fdn_init analyze_garbage
fdn_need_java
cls=$FDN_TMP/classes
javac -d "$cls" "$LEAKRAY_SRC/tests/programs/garbage/GarbageDump.java" || fdn_fail "javac failed"
D=$FDN_TMP/garbage.hprof
java -XX:+UseSerialGC -Xmn256m -Xmx512m -cp "$cls" GarbageDump "$D" || fdn_fail "GarbageDump failed"

SP_JSON=$FDN_TMP/all.json
rc=0
"$LEAKRAY" analyze "$D" --no-suspects --json --no-timing --watch 'GarbageDump$Gone' \
    --watch 'GarbageDump$Weak' --watch 'GarbageDump$Soft' --watch 'GarbageDump$Held' \
    >"$SP_JSON" || rc=$?
[ "$rc" = 0 ] || fdn_fail "analyze exit $rc"
sp_check "one trace, for the static's object" \
    "[t['elements'][-1]['class'] for t in j['traces']] == ['GarbageDump\$Held']"
sp_check "5 unreachable: the 3 gone and the weak one garbage, the soft one not" \
    "sorted((u['class'], u['garbage']) for u in j['unreachable_objects']) == [('GarbageDump\$Gone', True)] * 3 + [('GarbageDump\$Soft', False), ('GarbageDump\$Weak', True)]"
for cls_rc in 'GarbageDump$Gone:0' 'GarbageDump$Weak:0' 'GarbageDump$Soft:1' 'GarbageDump$Held:1'; do
    rc=0
    "$LEAKRAY" analyze "$D" --no-suspects --no-timing --watch "${cls_rc%:*}" --fail-on-leak \
        >"$FDN_TMP/gate.txt" 2>&1 || rc=$?
    [ "$rc" = "${cls_rc#*:}" ] || fdn_fail "--fail-on-leak --watch ${cls_rc%:*}: exit $rc"
done
echo "ok: --fail-on-leak passes garbage, fails the soft-held and the static-held objects" >&2
"$LEAKRAY" analyze "$D" --no-suspects --no-timing --watch 'GarbageDump$Gone' >"$FDN_TMP/gone.txt"
[ "$(grep -c 'Garbage: no strong or soft reference reaches it from a GC root; the next GC frees it' \
    "$FDN_TMP/gone.txt")" = 3 ] || fdn_fail "text: $(cat "$FDN_TMP/gone.txt")"
echo "ok: the text marks each garbage object" >&2
echo "PASS"
