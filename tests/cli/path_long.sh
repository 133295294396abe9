#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# path_long.sh: a path thousands of objects long (a linked list held by one global) prints
# its first and last 100 objects and one line counting those between, as analyze's traces
# keep both ends; --full prints every object, --json always lists them all, and a path of
# 200 objects or fewer prints whole. Under --collapse, a path of more than 200 lines keeps the
# first and last 100 lines the same way (a chain of classes no category joins printed whole).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init path_long
PYTHONPATH=$LEAKRAY_SRC/tests/lib python3 - "$T/chain.hprof" <<'PY'
import sys
from hprofgen import Strings, class_dump, dump, instance, jni_global, load, sticky_class
st = Strings()
OBJ, NODE, N = 0x100, 0x200, 5000
loads = load(1, OBJ, st.sid("java/lang/Object")) + load(2, NODE, st.sid("Node"))
seg = class_dump(OBJ, 0, 0) + class_dump(NODE, OBJ, 8, fields=(st.sid("next"),))
for i in range(N):  # node i at 0x10000 + 16 i; the last one's next is null
    seg += instance(0x10000 + 16 * i, NODE, [0x10000 + 16 * (i + 1) if i + 1 < N else 0])
seg += jni_global(0x10000, 1) + sticky_class(OBJ) + sticky_class(NODE)
open(sys.argv[1], "wb").write(dump(st.records(), loads, seg))
PY
last=$(printf '0x%x' $((0x10000 + 16 * 4999)))
run path "$T/chain.hprof" "$last" --no-timing
expect_rc 0
expect_out '4,800 more objects .* \(--full shows them\)'
expect_out '^4,999 references$'
objs=$(grep -c '^  0x' "$T/out")
[ "$objs" = 200 ] || fail "cut path: $objs object lines, want 200"
# the first 100 and the last 100, in order, and the reference into the first of the last
grep '^  0x' "$T/out" | sed -n '100p;101p' > "$T/ends"
[ "$(awk '{print $1}' "$T/ends" | tr '\n' ' ')" = "0x10630 0x23240 " ] ||
    fail "ends around the cut: $(cat "$T/ends")"
grep -A2 'more objects' "$T/out" | grep -q -- '--\[field next\]-->' ||
    fail "no reference line after the cut: $(grep -A2 'more objects' "$T/out")"
run path "$T/chain.hprof" "$last" --no-timing --full
expect_rc 0
[ "$(grep -c '^  0x' "$T/out")" = 5000 ] || fail "--full: $(grep -c '^  0x' "$T/out") objects"
grep -q 'more objects' "$T/out" && fail "--full still cuts"
run path "$T/chain.hprof" "$last" --no-timing --json
expect_rc 0
[ "$(json_get 'len(d["path"])')" = 5000 ] || fail "JSON path: $(json_get 'len(d["path"])')"
run path "$T/chain.hprof" "$last" --no-timing --collapse
expect_rc 0
expect_out '4,800 more lines \(4,800 objects\) .* \(--full shows them\)'
[ "$(grep -c '^  0x' "$T/out")" = 200 ] || fail "--collapse: $(grep -c '^  0x' "$T/out") lines"
run path "$T/chain.hprof" "$last" --no-timing --collapse --full
[ "$(grep -c '^  0x' "$T/out")" = 5000 ] || fail "--collapse --full: $(grep -c '^  0x' "$T/out")"
# 200 objects print whole
run path "$T/chain.hprof" "$(printf '0x%x' $((0x10000 + 16 * 199)))" --no-timing
expect_rc 0
[ "$(grep -c '^  0x' "$T/out")" = 200 ] || fail "200-object path cut"
grep -q 'more objects' "$T/out" && fail "200-object path cut"
echo "path_long: ok"
