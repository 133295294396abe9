#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_array_names.sh: the name of an object array's element edge is its index, read back from
# the record by a walk over the array's slots (nulls and dangling ids make no edge). A read
# behind the walk (a join's order, a column read twice in one row) restarted at slot 0, so
# a referrer query over one large array was quadratic (100,000 elements: 39 s); it resumes
# from marks along the array now. Checked for the right names in every order on an array of
# 6,000 slots with nulls, a dangling id and repeated elements: each edge's name is its
# slot's index, forward, backward and read twice.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init sql-array-names
command -v python3 >/dev/null || skip "no python3"
PYTHONPATH="$LEAKRAY_SRC/tests/lib" python3 - "$T/arr.hprof" "$T/want.txt" <<'PY'
import sys
from hprofgen import Strings, class_dump, dump, i8, instance, jni_global, load, sticky_class, u1, u4
st = Strings()
OBJ, ITEM, ARRC = 0x100, 0x200, 0x300
loads = load(1, OBJ, st.sid("java/lang/Object")) + load(2, ITEM, st.sid("Item")) + \
    load(3, ARRC, st.sid("[LItem;"))
seg = class_dump(OBJ, 0, 0) + class_dump(ITEM, OBJ, 0) + class_dump(ARRC, OBJ, 0)
items = [0x10000 + 16 * i for i in range(500)]
seg += b"".join(instance(o, ITEM, []) for o in items)
slots, want = [], []
for k in range(6000):
    if k % 7 == 3:
        v = 0                      # null: no edge
    elif k == 4321:
        v = 0x7fff0000             # dangling: no edge
    else:
        v = items[(k * 31) % len(items)]   # repeats
    slots.append(v)
    if v and v != 0x7fff0000:
        want.append(k)
ARR = 0x900000
seg += u1(0x22) + i8(ARR) + u4(0) + u4(len(slots)) + i8(ARRC) + b"".join(map(i8, slots))
seg += jni_global(0x1, ARR) + sticky_class(OBJ)
open(sys.argv[1], "wb").write(dump(st.records(), loads, seg))
open(sys.argv[2], "w").write("".join("%d\n" % k for k in want))
PY
id=$("$LEAKRAY" sql "$T/arr.hprof" "SELECT id FROM objects WHERE class = 'Item[]'" | tail -1)
for order in "rowid" "rowid DESC" "dst, rowid DESC"; do
    run sql "$T/arr.hprof" "SELECT name, name = name FROM edges WHERE src = $id ORDER BY $order"
    expect_rc 0
    tail -n +2 "$T/out" | awk -F'\t' '$2 != 1 { bad = 1 } { print substr($1, 2, length($1) - 2) }
        END { exit bad }' | sort -n >"$T/got.txt" || fail "a name read twice differs ($order)"
    cmp -s "$T/got.txt" "$T/want.txt" ||
        fail "element names ($order): $(diff "$T/want.txt" "$T/got.txt" | head -3)"
done
echo "sql_array_names: ok"
