#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# special_strip.sh: `leakray strip` on SpecialDump dumps and the Android fixtures.
# sanitize: same byte size, same histogram (leakray and VisualVM), pixel bytes gone, boxed
# values zeroed, same cycles. shrink: loads, same histogram except primitive arrays, bitmap
# duplicates redirected (no byte[10000] copies left; a second shrink redirects nothing), same
# cycles, >= 90 % smaller on a dump
# dominated by primitive arrays, gzip output and gzip input. Failures (missing folder,
# truncated input) exit non-zero and leave neither OUT nor a temporary file. A dump with its
# STRING and LOAD_CLASS records after its heap dump strips the same. After shrink no
# reference dangles and every object is still there.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/special_lib.bash"
fdn_init special_strip
fdn_need_java
T=$FDN_TMP
D=$T/special.hprof
sp_make_dump "$D"

histo() { "$LEAKRAY" histo "$1" --no-timing; }
# Histogram rows "count bytes class" without primitive arrays, sorted (ranks shift when
# arrays are dropped, so they are left out).
# How many objects the dump has.
histo_count() {
    "$LEAKRAY" info --json --no-timing "$1" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["objects"]["count"])'
}
histo_np() {
    "$LEAKRAY" histo "$1" --no-timing |
        awk '$1 ~ /^[0-9]+:$/ && $4 !~ /^(boolean|char|float|double|byte|short|int|long)\[\]$/ {print $2, $3, $4}' |
        sort
}

# ---- sanitize ----
SP_JSON=$T/san.json
"$LEAKRAY" strip "$D" -o "$T/san.hprof" --json --no-timing >"$SP_JSON"
[ "$(stat -c %s "$D")" = "$(stat -c %s "$T/san.hprof")" ] || fdn_fail "sanitize changed the size"
echo "ok: sanitize keeps the byte size" >&2
sp_check "sanitize zeroed arrays and boxed values" \
    "j['arrays_zeroed'] > 8000 and j['boxed_zeroed'] > 100 and j['in_bytes'] == j['out_bytes']"
diff <(histo "$D") <(histo "$T/san.hprof") >/dev/null || fdn_fail "sanitize changed the histogram"
echo "ok: sanitize keeps the histogram" >&2
# The first 16 pixels of the shared 10000-byte bitmap buffer (SpecialDump.pixels(n, 1)).
pat=$(python3 -c "print(''.join('%02x' % ((i * 31 + 7 + (i >> 8)) & 255) for i in range(16)))")
has() { python3 -c "import sys; sys.exit(0 if bytes.fromhex(sys.argv[1]) in open(sys.argv[2],'rb').read() else 1)" "$pat" "$1"; }
has "$D" || fdn_fail "pixel pattern not found in the original (test is broken)"
! has "$T/san.hprof" || fdn_fail "pixel pattern survived sanitize"
echo "ok: pixels gone after sanitize" >&2

# ---- shrink ----
SP_JSON=$T/shr.json
"$LEAKRAY" strip "$D" -o "$T/shr.hprof" --mode shrink --json --no-timing >"$SP_JSON"
sp_check "shrink: 8 live bitmaps, 3 identical groups, 4 redirected" \
    "(j['bitmaps'], j['bitmap_groups'], j['bitmaps_redirected']) == (8, 3, 4)"
sp_check "shrink keeps every String value array" "j['string_arrays'] > 7000"
diff <(histo_np "$D") <(histo_np "$T/shr.hprof") >/dev/null ||
    fdn_fail "shrink changed the histogram of non-array classes"
echo "ok: shrink keeps all objects but primitive arrays" >&2
# shrink again: the emptied buffers are no copies of each other (a second shrink pointed
# every unrelated bitmap at one of them). Five distinct bitmaps and two equal ones.
mkdir -p "$T/bm"
cat >"$T/bm/Bm.java" <<'JAVA'
import android.graphics.Bitmap;
public class Bm {
    static final Bitmap[] KEPT = new Bitmap[7];
    public static void main(String[] a) throws Exception {
        for (int i = 0; i < 7; i++) {
            byte[] px = new byte[64 * 64 * 4];
            java.util.Arrays.fill(px, (byte) (i < 5 ? i + 1 : 9));
            KEPT[i] = new Bitmap(px, 0, 64, 64);
        }
        java.lang.management.ManagementFactory.getPlatformMXBean(
            com.sun.management.HotSpotDiagnosticMXBean.class).dumpHeap(a[0], true);
    }
}
JAVA
javac -d "$T/bm" "$T/bm/Bm.java" "$LEAKRAY_SRC/tests/programs/android/bitmaps/android/graphics/Bitmap.java"
java -cp "$T/bm" Bm "$T/bm.hprof"
"$LEAKRAY" strip "$T/bm.hprof" -o "$T/bm1.hprof" --mode shrink --json --no-timing >"$T/bm1.json"
SP_JSON=$T/bm2.json
"$LEAKRAY" strip "$T/bm1.hprof" -o "$T/bm2.hprof" --mode shrink --json --no-timing >"$SP_JSON"
sp_check "a second shrink redirects nothing" "(j['bitmap_groups'], j['bitmaps_redirected']) == (0, 0)"
SP_JSON=$T/shr-dupes.json
"$LEAKRAY" dupes "$T/shr.hprof" --json --no-timing --min-bytes 5000 >"$SP_JSON"
sp_check "after shrink no duplicate bitmap buffers remain" \
    "j['arrays']['n_groups'] == 0 and j['bitmaps']['n_groups'] == 0"
SP_JSON=$T/shr-dupes-strings.json
"$LEAKRAY" dupes "$T/shr.hprof" --json --no-timing >"$SP_JSON"
sp_check "String contents survive shrink" \
    "j['strings']['groups'][0]['value'] == 'duplicated-string-0123456789' and j['strings']['groups'][0]['count'] == 501"

# ---- same cycles and paths on all three ----
for c in 'SpecialDump$Registry' 'SpecialDump$Parent'; do
    "$LEAKRAY" cycles "$D" --class "$c" --json --no-timing >"$T/c0.json"
    for v in san shr; do
        "$LEAKRAY" cycles "$T/$v.hprof" --class "$c" --json --no-timing >"$T/c1.json"
        python3 - "$T/c0.json" "$T/c1.json" <<'PY' || fdn_fail "cycles of $c differ after $v"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda j: [(c['signature'], c['count'], [e['id'] for e in c['example']]) for c in j['cycles']]
sys.exit(0 if key(a) == key(b) else 1)
PY
    done
done
echo "ok: cycles identical after sanitize and shrink" >&2

# ---- gzip in and out ----
gzip -1 -c "$D" >"$T/in.hprof.gz"
"$LEAKRAY" strip "$T/in.hprof.gz" -o "$T/out.hprof.gz" --mode shrink >/dev/null
gzip -t "$T/out.hprof.gz" || fdn_fail "gzip output is not valid gzip"
diff <(histo "$T/shr.hprof") <(histo "$T/out.hprof.gz") >/dev/null || fdn_fail "gz round trip differs"
echo "ok: gzip input and output" >&2

# ---- >= 90 % smaller when primitive arrays dominate ----
BIG=$T/ballast.hprof
sp_make_dump "$BIG" 40
"$LEAKRAY" strip "$BIG" -o "$T/ballast-shr.hprof" --mode shrink >/dev/null
a=$(stat -c %s "$BIG") b=$(stat -c %s "$T/ballast-shr.hprof")
[ $((b * 10)) -le "$a" ] || fdn_fail "shrink only went from $a to $b bytes"
echo "ok: shrink $a -> $b bytes" >&2

# ---- failures leave nothing behind ----
rc=0
"$LEAKRAY" strip "$D" -o "$T/no/such/dir/out.hprof" 2>/dev/null || rc=$?
[ "$rc" = 4 ] || fdn_fail "missing folder: exit $rc, want 4"
mkdir "$T/fail"
# Cut in the middle of the heap dump records (a cut among the leading STRING records can land on
# a record boundary and leave a valid, heap-less file).
cut=$("$LEAKRAY" info --json "$D" |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["dumps"][-1]; print(d["offset"] + d["length"] // 2)')
head -c "$cut" "$D" >"$T/half.hprof"
rc=0
"$LEAKRAY" strip "$T/half.hprof" -o "$T/fail/out.hprof" 2>/dev/null || rc=$?
[ "$rc" = 3 ] || fdn_fail "truncated input: exit $rc, want 3"
[ -z "$(ls -A "$T/fail")" ] || fdn_fail "failed strip left files: $(ls -A "$T/fail")"
echo "ok: failures leave no output" >&2

# ---- VisualVM reads both ----
vvm=$(fdn_vvm)
if [ -n "$vvm" ]; then
    "$vvm" "$D" histo | grep -v _ms= >"$T/v0.txt"
    "$vvm" "$T/san.hprof" histo | grep -v _ms= >"$T/v1.txt"
    diff "$T/v0.txt" "$T/v1.txt" >/dev/null || fdn_fail "VisualVM histogram differs after sanitize"
    "$vvm" "$T/shr.hprof" histo | grep -v _ms= >"$T/v2.txt"
    diff <(grep -Ev '^(boolean|char|float|double|byte|short|int|long)\[\]|^load|instances=' "$T/v0.txt") \
         <(grep -Ev '^(boolean|char|float|double|byte|short|int|long)\[\]|^load|instances=' "$T/v2.txt") \
         >/dev/null || fdn_fail "VisualVM histogram of non-array classes differs after shrink"
    echo "ok: VisualVM loads both, same classes" >&2
else
    echo "SKIP (part): VisualVM peer not installed" >&2
fi

# ---- names after the heap dump ----
# The same dump with its STRING and LOAD_CLASS records moved after its heap dump (the
# reader takes such a dump): strip found no String, boxed or Bitmap class there, and shrink
# emptied every String value ("0 kept, 0 dropped") and sanitize left boxed values in clear.
python3 - "$D" "$T/late.hprof" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
h = d.index(b"\0") + 1 + 4 + 8
names, rest, o = [], [], h
while o < len(d):
    n = struct.unpack(">I", d[o + 5:o + 9])[0]
    (names if d[o] in (0x01, 0x02) else rest).append(d[o:o + 9 + n])
    o += 9 + n
open(sys.argv[2], "wb").write(d[:h] + b"".join(rest) + b"".join(names))
PY
for mode in sanitize shrink; do
    "$LEAKRAY" strip "$D" -o "$T/a.$mode" --mode "$mode" --json --no-timing >"$T/a.json"
    "$LEAKRAY" strip "$T/late.hprof" -o "$T/b.$mode" --mode "$mode" --json --no-timing \
        >"$T/b.json"
    python3 -c 'import json, sys; a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
keys = ("arrays_zeroed", "boxed_zeroed", "string_arrays", "arrays_kept", "arrays_dropped",
        "bitmaps", "bitmaps_redirected")
assert [a.get(k) for k in keys] == [b.get(k) for k in keys], (a, b)' "$T/a.json" "$T/b.json" ||
        fdn_fail "$mode of a dump with its names after the heap dump differs"
done
echo "ok: names after the heap dump: the same strip" >&2

# ---- Android fixtures ----
fdn_fixtures
for f in dialer.android-hprof test-dump.hprof; do
    "$LEAKRAY" strip "$FDN_FIX/$f" -o "$T/$f.san" >/dev/null || fdn_fail "sanitize $f"
    [ "$(stat -c %s "$FDN_FIX/$f")" = "$(stat -c %s "$T/$f.san")" ] || fdn_fail "$f size changed"
    diff <(histo "$FDN_FIX/$f") <(histo "$T/$f.san") >/dev/null || fdn_fail "$f histogram changed"
    "$LEAKRAY" strip "$FDN_FIX/$f" -o "$T/$f.shr" --mode shrink >/dev/null || fdn_fail "shrink $f"
    diff <(histo_np "$FDN_FIX/$f") <(histo_np "$T/$f.shr") >/dev/null ||
        fdn_fail "$f: shrink changed non-array classes"
    # a dropped array keeps its record, empty: no reference dangles (Shark and LeakCanary
    # fail on a dump where one does), and every array is still counted
    "$LEAKRAY" info --json --no-timing "$T/$f.shr" >"$T/info.json"
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert not [x for x in d["diagnostics"] if x["name"].startswith("dangling")], d["diagnostics"]' \
        "$T/info.json" || fdn_fail "$f: references dangle after shrink"
    [ "$(histo_count "$FDN_FIX/$f")" = "$(histo_count "$T/$f.shr")" ] ||
        fdn_fail "$f: shrink changed the number of objects"
    echo "ok: $f sanitize and shrink" >&2
done
echo "PASS"
