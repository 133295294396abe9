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

PYTHONPATH="$LEAKRAY_SRC/tests/lib" python3 - "$work/cpool.hprof" <<'PY'
import sys
from hprofgen import Strings, class_dump, dump, i8, instance, load, sticky_class, u4
st = Strings()
OBJ, HOLD, LEAK, KEPT, W = 0x100, 0x200, 0x300, 0x500, 0x400
pool = [(1, 10, u4(7)), (2, 11, i8(9))]  # an int and a long
classes = [(OBJ, "java/lang/Object", 0, [], [], []),
           (HOLD, "Holder", OBJ, [], [("leak", W)], []),
           (LEAK, "Leak", OBJ, ["cls"], [], []),
           (KEPT, "Kept", OBJ, [], [], pool)]
seg = b""
for cid, name, sup, fields, statics, cp in classes:
    seg += class_dump(cid, sup, 8 * len(fields),
                      statics=[(st.sid(n), v) for n, v in statics],
                      fields=[st.sid(f) for f in fields], cpool=cp)
seg += instance(W, LEAK, [KEPT])
seg += b"".join(sticky_class(cid) for cid in (OBJ, HOLD, LEAK))
loads = b"".join(load(serial, c[0], st.sid(c[1])) for serial, c in enumerate(classes, 1))
open(sys.argv[1], "wb").write(dump(st.records(), loads, seg))
PY

"$LEAKRAY" analyze "$work/cpool.hprof" --watch Leak --size-model shark --no-timing \
    > "$work/out.txt" || fail "analyze: $(cat "$work/out.txt")"
grep -q '^╰→ Leak instance' "$work/out.txt" || fail "no trace to Leak: $(cat "$work/out.txt")"
got=$(sed -n 's/^ *Retaining \([0-9][0-9,]*\) B in \([0-9]*\) objects.*/\1 \2/p' "$work/out.txt" |
      tail -1)
[ "$got" = "96 2" ] || fail "Leak retains '$got', want '96 2' (8 + Kept's 88-byte record)"
echo "shark_class_weight: ok"
