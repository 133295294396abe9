#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# special_dupes.sh: `leakray dupes` on a dump written by tests/programs/special/SpecialDump:
# exact array groups (type, count, wasted bytes, owners, owner paths), bitmap groups (Matrix:
# identical mBuffer, >= 5000 bytes unless --min-bitmap, recycled skipped) and duplicate
# strings; then on the Android fixtures (dialer.android-hprof, test-dump.hprof) against
# golden text in tests/e2e/expected/special/ (LEAKRAY_UPDATE_GOLDEN=1 rewrites them).
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/special_lib.bash"
fdn_init special_dupes
fdn_need_java
D=$FDN_TMP/special.hprof
sp_make_dump "$D"

SP_JSON=$FDN_TMP/dupes.json
"$LEAKRAY" dupes "$D" --json --no-timing --top 1000 >"$SP_JSON" || fdn_fail "dupes exit $?"
A='{g["type"]: g for g in j["arrays"]["groups"]}'
sp_check "byte[10000] x4 (3 bitmaps + the recycled one), 30,048 wasted" \
    "(lambda a: a['byte[10000]']['count'] == 4 and a['byte[10000]']['wasted'] == 30048)($A)"
sp_check "int[2000] x4 (the fifth table differs), 24,048 wasted" \
    "(lambda a: a['int[2000]']['count'] == 4 and a['int[2000]']['wasted'] == 24048)($A)"
sp_check "byte[6000] x2, unique byte[8000] absent, byte[100] below --min-bytes" \
    "(lambda a: a['byte[6000]']['count'] == 2 and 'byte[8000]' not in a and 'byte[100]' not in a)($A)"
sp_check "int[2000] owners are SpecialDump\$Table.data" \
    "all(m['owner_class'] == 'SpecialDump\$Table' and m['owner_edge'] == 'data' for m in ($A)['int[2000]']['members'])"
sp_check "owner paths end at the owner and pass through static TABLES" \
    "all(m['path'][-1]['id'] == m['owner_id'] and any(s.get('edge') == 'static TABLES' for s in m['path']) for m in ($A)['int[2000]']['members'])"
sp_check "distinct owners per group" \
    "len({m['owner_id'] for m in ($A)['int[2000]']['members']}) == 4"
sp_check "bitmaps: exactly 100x25 x3 and 50x30 x2" \
    "[(g['width'], g['height'], g['count'], g['buffer_length']) for g in j['bitmaps']['groups']] == [(100, 25, 3, 10000), (50, 30, 2, 6000)]"
sp_check "bitmap wasted bytes" "j['bitmaps']['wasted'] == 2 * 10016 + 6016"
sp_check "bitmap paths end at the bitmap" \
    "all(m['path'][-1]['class'] == 'android.graphics.Bitmap' and m['path'][-1]['id'] == m['id'] for g in j['bitmaps']['groups'] for m in g['members'])"
sp_check "strings: 501 x duplicated-string-0123456789 first, 21 x other-dup" \
    "j['strings']['groups'][0]['value'] == 'duplicated-string-0123456789' and j['strings']['groups'][0]['count'] == 501 and {g['value']: g['count'] for g in j['strings']['groups']}['other-dup'] == 21"
sp_check "section totals are the sums of the groups" \
    "all(j[s]['wasted'] == sum(g['wasted'] for g in j[s]['groups']) for s in ('arrays', 'bitmaps', 'strings'))"

SP_JSON=$FDN_TMP/dupes-bmp0.json
"$LEAKRAY" dupes "$D" --json --no-timing --min-bitmap 0 >"$SP_JSON"
sp_check "--min-bitmap 0 adds the 5x5 pair" \
    "sorted((g['width'], g['count']) for g in j['bitmaps']['groups']) == [(5, 2), (50, 2), (100, 3)]"

# Text: a class object on an owner path says so, as the root line does
"$LEAKRAY" dupes "$D" --no-timing >"$FDN_TMP/dupes.txt"
grep -q '^ *\.static appClass -> SpecialDump (class) 0x' "$FDN_TMP/dupes.txt" ||
    fdn_fail "dupes text: the main class on a path is not marked (class)"

# ---- Android fixtures: golden text ----
fdn_fixtures
exp=$LEAKRAY_SRC/tests/e2e/expected/special
for f in dialer.android-hprof test-dump.hprof; do
    out=$FDN_TMP/$f.dupes.txt
    "$LEAKRAY" dupes "$FDN_FIX/$f" --no-timing --top 5 >"$out" || fdn_fail "dupes $f exit $?"
    if [ "${LEAKRAY_UPDATE_GOLDEN:-}" = 1 ]; then
        mkdir -p "$exp"
        cp "$out" "$exp/$f.dupes.txt"
    fi
    diff -u "$exp/$f.dupes.txt" "$out" || fdn_fail "dupes $f differs from golden"
    echo "ok: dupes $f matches golden" >&2
done
echo "PASS"
