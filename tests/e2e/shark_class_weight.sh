#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shark_class_weight.sh: `--size-model shark` weighs a class object by its CLASS_DUMP record
# (Shark's HeapClass.recordSize), constant pool entries included. HotSpot and ART write no
# constant pool, but the old hprof agent (JDK 5-8's -agentlib:hprof) does. Written here, in
# Python: a watched Leak instance whose field holds the class Kept, which no root keeps and
# whose record carries two constant pool entries (an int and a long: 7 + 11 bytes). The leak
# retains its own 8 field bytes and Kept's 88-byte record (70 without the pool entries).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools python3
work="$LEAKRAY_BUILD/tmp/shark_class_weight"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 - "$work/cpool.hprof" <<'PY'
import struct, sys
def u1(v): return struct.pack(">B", v)
def u2(v): return struct.pack(">H", v)
def u4(v): return struct.pack(">I", v)
def i8(v): return struct.pack(">Q", v)
def rec(tag, body): return u1(tag) + u4(0) + u4(len(body)) + body
sids = {}
def sid(s):
    return sids.setdefault(s, len(sids) + 1)
def class_dump(cid, sup, fields=(), statics=(), cpool=b""):
    b = u1(0x20) + i8(cid) + u4(0) + i8(sup) + i8(0) * 5 + u4(8 * len(fields))
    b += u2(cpool.count(b"\xca") and 2 or 0) + cpool.replace(b"\xca", b"")
    b += u2(len(statics)) + b"".join(i8(sid(n)) + u1(2) + i8(v) for n, v in statics)
    return b + u2(len(fields)) + b"".join(i8(sid(n)) + u1(2) for n in fields)
OBJ, HOLD, LEAK, KEPT, W = 0x100, 0x200, 0x300, 0x500, 0x400
# two pool entries, each marked with 0xca (removed) so class_dump counts them
pool = b"\xca" + u2(1) + u1(10) + u4(7) + b"\xca" + u2(2) + u1(11) + i8(9)
classes = [(OBJ, "java/lang/Object", 0, [], [], b""),
           (HOLD, "Holder", OBJ, [], [("leak", W)], b""),
           (LEAK, "Leak", OBJ, ["cls"], [], b""),
           (KEPT, "Kept", OBJ, [], [], pool)]
seg = b""
for cid, name, sup, fields, statics, cp in classes:
    seg += class_dump(cid, sup, fields, statics, cp)
seg += u1(0x21) + i8(W) + u4(0) + i8(LEAK) + u4(8) + i8(KEPT)
for cid in (OBJ, HOLD, LEAK):
    seg += u1(0x05) + i8(cid)
loads = b"".join(rec(0x02, u4(serial) + i8(c[0]) + u4(0) + i8(sid(c[1])))
                 for serial, c in enumerate(classes, 1))
out = b"JAVA PROFILE 1.0.2\0" + u4(8) + i8(1700000000000)
for s, i in sids.items():
    out += rec(0x01, i8(i) + s.encode())
out += loads + rec(0x0C, seg) + rec(0x2C, b"")
open(sys.argv[1], "wb").write(out)
PY

"$LEAKRAY" analyze "$work/cpool.hprof" --watch Leak --size-model shark --no-timing \
    > "$work/out.txt" || fail "analyze: $(cat "$work/out.txt")"
grep -q '^╰→ Leak instance' "$work/out.txt" || fail "no trace to Leak: $(cat "$work/out.txt")"
got=$(sed -n 's/^ *Retaining \([0-9][0-9,]*\) B in \([0-9]*\) objects.*/\1 \2/p' "$work/out.txt" |
      tail -1)
[ "$got" = "96 2" ] || fail "Leak retains '$got', want '96 2' (8 + Kept's 88-byte record)"
echo "shark_class_weight: ok"
