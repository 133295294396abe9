#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# android_native.sh: Android native sizes (NativeAllocationRegistry -> Cleaner referent, as
# Shark's AndroidNativeSizeMapper reads them) in info, show, top and histo --retained:
# first on a HotSpot dump of tests/programs/android/NativeDump (its own
# libcore.util.NativeAllocationRegistry over the JDK's Cleaner), then on ART's
# test-dump.hprof, whose registry (size 50,000) covers DumpedStuff.anObject.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/special_lib.bash"
fdn_init android_native
fdn_need_java
X=(--add-exports java.base/jdk.internal.ref=ALL-UNNAMED)
cls=$FDN_TMP/classes
javac "${X[@]}" -d "$cls" "$LEAKRAY_SRC"/tests/programs/android/NativeDump.java \
    "$LEAKRAY_SRC"/tests/programs/android/libcore/util/NativeAllocationRegistry.java ||
    fdn_fail "javac failed"
D=$FDN_TMP/native.hprof
java -Xmx256m "${X[@]}" -cp "$cls" NativeDump "$D" || fdn_fail "NativeDump failed"

SP_JSON=$FDN_TMP/info.json
"$LEAKRAY" info "$D" --json --no-timing >"$SP_JSON" || fdn_fail "info exit $?"
sp_check "native total = 2 x 123,456 + 7,000 (the plain-Runnable Cleaner adds nothing)" \
    "j['native_total'] == 253912"
grep -q '^native total:  253,912 bytes' <<<"$("$LEAKRAY" info "$D" --no-timing)" ||
    fdn_fail "info text lacks the native total"

SP_JSON=$FDN_TMP/top.json
"$LEAKRAY" top "$D" --json --no-timing --model strong --top 10 >"$SP_JSON" || fdn_fail "top exit $?"
O='{o["class"] + ":" + str(o.get("native", 0)): o for o in j["objects"]}'
sp_check "Owner a: 16 shallow + 246,912 native retained" \
    "($O)['NativeDump\$Owner:246912']['retained'] == 16 + 246912"
sp_check "Holder retains its owner's native bytes (strong model)" \
    "any(o['class'] == 'NativeDump\$Holder' and o['retained'] == 16 + 16 + 246912 for o in j['objects'])"
grep -q 'NativeDump\$Owner  (+246,912 native)' <<<"$("$LEAKRAY" top "$D" --no-timing --model strong --top 10)" ||
    fdn_fail "top text lacks the native note"

SP_JSON=$FDN_TMP/histo.json
"$LEAKRAY" histo "$D" --retained --json --no-timing >"$SP_JSON" || fdn_fail "histo exit $?"
sp_check "histo --retained: the two owners retain 2 x 16 + 253,912" \
    "[c['retained'] for c in j['classes'] if c['name'] == 'NativeDump\$Owner'] == [32 + 253912]"

# ---- ART fixture ----
fdn_fixtures
F=$FDN_FIX/test-dump.hprof
SP_JSON=$FDN_TMP/art-info.json
"$LEAKRAY" info "$F" --json --no-timing >"$SP_JSON" || fdn_fail "info exit $?"
sp_check "test-dump: 3 registry Cleaners, 50,000 + 50,000 + 99 native bytes" \
    "j['native_total'] == 100099"
SP_JSON=$FDN_TMP/art-show.json
"$LEAKRAY" show "$F" 0x60f0030 --json --no-timing >"$SP_JSON" || fdn_fail "show exit $?"
sp_check "anObject (0x60f0030) owns 50,000 native bytes" \
    "j['object']['native'] == 50000 and j['object']['shallow'] == 8"
"$LEAKRAY" top "$F" --no-timing --top 30000 >"$FDN_TMP/art-top.txt" || fdn_fail "top exit $?"
grep -q '^ *[0-9]*: 0x60f0030  *50,008  *8  *[0-9.]*%  java.lang.Object  (+50,000 native)$' \
    "$FDN_TMP/art-top.txt" || fdn_fail "anObject's retained size lacks its native bytes"
echo "ok: test-dump anObject retains 50,008 bytes" >&2
echo "PASS"
