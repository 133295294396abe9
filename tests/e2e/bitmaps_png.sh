#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bitmaps_png.sh: `leakray dupes` bitmap pixels and --export-png. Decodes every written PNG
# (zlib + PNG row filters, in Python) and compares it pixel by pixel with what the dump
# holds: ARGB_8888 mBuffer bitmaps of tests/programs/special/SpecialDump; RGB_565 mBuffer
# bitmaps, dumpData PNG copies of native bitmaps and a KOOM-large native bitmap (with its
# NativeAllocationRegistry size) of tests/programs/android/bitmaps/BitmapDump; and the two
# 100x200 bitmaps of ART's test-dump.hprof whose pixels are in Bitmap.dumpData (natives
# matched by mNativePtr; names deobfuscated with test-dump.map).
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/special_lib.bash"
fdn_init bitmaps_png
fdn_need_java

# png_check PNG EXPECTED-PIXEL-EXPR W H: pixel (x, y) must equal eval(EXPR) as a tuple.
png_check() {
    python3 - "$@" <<'PY' || exit 1
import struct, sys, zlib
path, expr, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = open(path, 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
i, idat, hdr = 8, b'', None
while i < len(d):
    n, = struct.unpack('>I', d[i:i + 4])
    t, c = d[i + 4:i + 8], d[i + 8:i + 8 + n]
    assert zlib.crc32(t + c) == struct.unpack('>I', d[i + 8 + n:i + 12 + n])[0], 'bad CRC'
    if t == b'IHDR':
        hdr = struct.unpack('>IIBBBBB', c)
    elif t == b'IDAT':
        idat += c
    i += 12 + n
W, H, depth, ctype = hdr[:4]
assert (W, H, depth) == (w, h, 8), f'header {hdr}'
bpp = {2: 3, 6: 4}[ctype]
raw, rows, prev, p = zlib.decompress(idat), [], bytearray(W * bpp), 0
for y in range(H):
    f, line = raw[p], bytearray(raw[p + 1:p + 1 + W * bpp])
    p += 1 + W * bpp
    for k in range(len(line)):
        a = line[k - bpp] if k >= bpp else 0
        b, c = prev[k], (prev[k - bpp] if k >= bpp else 0)
        if f == 1: line[k] = (line[k] + a) & 255
        elif f == 2: line[k] = (line[k] + b) & 255
        elif f == 3: line[k] = (line[k] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[k] = (line[k] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
bad = 0
for y in range(H):
    for x in range(W):
        got = tuple(rows[y][x * bpp:(x + 1) * bpp])
        if got != tuple(eval(expr)):
            bad += 1
            if bad < 4:
                print(f'  pixel ({x},{y}) = {got}, want {tuple(eval(expr))}', file=sys.stderr)
print(('ok: ' if not bad else 'FAIL: ') + f'{path}: {W}x{H} color type {ctype}, '
      f'{bad} pixels differ', file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# ---- pre-8.0 ARGB_8888 (SpecialDump) ----
D=$FDN_TMP/special.hprof
sp_make_dump "$D"
OUT=$FDN_TMP/png-special
mkdir -p "$OUT"
SP_JSON=$FDN_TMP/special.json
"$LEAKRAY" dupes "$D" --json --no-timing --export-png "$OUT" >"$SP_JSON" || fdn_fail "dupes exit $?"
sp_check "two groups exported, raw ARGB_8888 from mBuffer" \
    "[(g['pixels'], g['pixel_format'], g['image'] is not None) for g in j['bitmaps']['groups']] == [('buffer', 'raw ARGB_8888', True)] * 2"
P=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bitmaps"]["groups"][0]["image"])' "$SP_JSON")
# SpecialDump.pixels(10000, 1): byte i = i*31 + 7 + (i >> 8); pixel (x, y) is bytes 4(y*100+x)..+3
png_check "$P" "[((4*(y*100+x)+k)*31 + 7 + ((4*(y*100+x)+k) >> 8)) & 255 for k in range(4)]" 100 25

# ---- RGB_565, dumpData PNGs, large native bitmap (BitmapDump) ----
X=(--add-exports java.base/jdk.internal.ref=ALL-UNNAMED)
cls=$FDN_TMP/bd-classes
P2=$LEAKRAY_SRC/tests/programs/android
javac "${X[@]}" -d "$cls" "$P2"/bitmaps/BitmapDump.java "$P2"/bitmaps/android/graphics/Bitmap.java \
    "$P2"/libcore/util/NativeAllocationRegistry.java || fdn_fail "javac failed"
D=$FDN_TMP/bitmaps.hprof
java -Xmx256m "${X[@]}" -cp "$cls" BitmapDump "$D" || fdn_fail "BitmapDump failed"
OUT=$FDN_TMP/png-android
mkdir -p "$OUT"
SP_JSON=$FDN_TMP/android.json
"$LEAKRAY" dupes "$D" --json --no-timing --export-png "$OUT" >"$SP_JSON" || fdn_fail "dupes exit $?"
G='{(g["width"], g["height"]): g for g in j["bitmaps"]["groups"]}'
sp_check "64x48 x2 from dumpData (PNG, 4 bytes a pixel each), the third 64x48 differs" \
    "(lambda g: g[(64, 48)]['count'] == 2 and g[(64, 48)]['pixels'] == 'dump_data' and g[(64, 48)]['pixel_format'] == 'png' and g[(64, 48)]['bytes'] == 64 * 48 * 4)($G)"
sp_check "80x40 x2 RGB_565 from mBuffer" \
    "(lambda g: g[(80, 40)]['count'] == 2 and g[(80, 40)]['pixel_format'] == 'raw RGB_565')($G)"
sp_check "large bitmaps: the 1200x1000 one, native 4,800,000, no pixels" \
    "[(b['width'], b['height'], b['native'], b['pixels']) for b in j['large_bitmaps']['bitmaps']] == [(1200, 1000, 4800000, 'none')] and j['large_bitmaps']['min_pixels'] == 768 * 1366 + 1"
IMG() { python3 -c 'import json,sys; print([g["image"] for g in json.load(open(sys.argv[1]))["bitmaps"]["groups"] if g["width"] == int(sys.argv[2])][0])' "$SP_JSON" "$1"; }
# BitmapDump.rgb565: v = (x&31)<<11 | (y&63)<<5 | ((x+y)&31), expanded to 8 bits per channel
png_check "$(IMG 80)" "[((x&31)*255+15)//31, ((y&63)*255+31)//63, (((x+y)&31)*255+15)//31]" 80 40
# BitmapDump.png(64, 48, 1): ARGB 0xff000000 | x*4 << 16 | y*5 << 8 | 60, as ImageIO wrote it
png_check "$(IMG 64)" "[x*4, y*5, 60, 255]" 64 48
"$LEAKRAY" dupes "$D" --no-timing --large-pixels 3000 >"$FDN_TMP/android.txt" || fdn_fail "dupes exit $?"
grep -q '^Large bitmaps (mWidth x mHeight >= 3,000 pixels): 6$' "$FDN_TMP/android.txt" ||
    fdn_fail "--large-pixels 3000 should list 1200x1000, 80x40 x2 and 64x48 x3"
grep -q '1200x1000 (1,200,000 pixels), native 4,800,000 bytes (4.8 MB), pixels: none' \
    "$FDN_TMP/android.txt" || fdn_fail "large bitmap line"
echo "ok: --large-pixels 3000 lists 6 bitmaps" >&2

# ---- ART fixture: dumpData keyed by mNativePtr ----
fdn_fixtures
F=$FDN_FIX/test-dump.hprof
OUT=$FDN_TMP/png-art/made/here # a folder that is not there yet is made, as dump-dir= is
rm -rf "$FDN_TMP/png-art"
SP_JSON=$FDN_TMP/art.json
"$LEAKRAY" dupes "$F" --json --no-timing --mapping "$FDN_FIX/test-dump.map" --export-png "$OUT" \
    >"$SP_JSON" || fdn_fail "dupes exit $?"
sp_check "bitmapOne/bitmapTwo: 100x200 x2 from dumpData (bigArray, raw ARGB_8888)" \
    "[(g['width'], g['height'], g['count'], g['pixels'], g['pixel_format'], g['bytes']) for g in j['bitmaps']['groups']] == [(100, 200, 2, 'dump_data', 'raw ARGB_8888', 80000)]"
sp_check "members are reached through DumpedStuff.bitmapOne / bitmapTwo" \
    "sorted(m['path'][-2]['class'] + '.' + m['path'][-1]['edge'] for m in j['bitmaps']['groups'][0]['members']) == ['DumpedStuff.bitmapOne', 'DumpedStuff.bitmapTwo']"
P=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bitmaps"]["groups"][0]["image"])' "$SP_JSON")
# bigArray byte i = (i*i) & 0xFF
png_check "$P" "[((4*(y*100+x)+k)**2) & 255 for k in range(4)]" 100 200
"$LEAKRAY" dupes "$F" --no-timing >/dev/null || fdn_fail "dupes without --map"
echo "PASS"
