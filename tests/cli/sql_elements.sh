#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_elements.sh: an array's contents are readable: the elements table lists an HPROF
# array's elements with their values (primitive arrays too: SQL could read no byte[], int[]
# or char[] content before) and a JavaScript array's element edges, and field() steps into
# an element with [N] as MAT's OQL does (`objs[5]`, `objs[76][1]`, `arr[1].name`). An index
# past the end, or [N] on what is no array, is NULL. tests/programs/sql/Arrays.java sets
# the values; a Node program sets the JavaScript ones.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init sql-elements
cli_need_java
mkdir -p "$T/c"
javac -d "$T/c" "$LEAKRAY_SRC/tests/programs/sql/Arrays.java"
java -cp "$T/c" Arrays "$T/a.hprof"
D=$T/a.hprof
H="(SELECT field(c.id, 'holder') FROM classes c WHERE c.name = 'Arrays')"
rows() { tail -n +2 "$T/out" | tr '\t\n' ',;'; }
run sql "$D" "SELECT field($H, 'ints[0]'), field($H, 'ints[12344]'), field($H, 'ints[12345]'),
    field($H, 'objs[5]') = (SELECT id FROM strings WHERE value = 'five'),
    field($H, 'objs[76][1]'), field($H, 'three[2]'), field($H, 'ds[1]'), field($H, 'bs[0]'),
    field($H, 'bytes[0]'), field($H, 'objs[4]'), field($H, 'ints.x'), field($H, 'ds[0][0]')"
expect_rc 0
[ "$(rows)" = "-7,42,NULL,1,b,c,-0.25,1,-1,NULL,NULL,NULL;" ] || fail "field() [N]: $(cat "$T/out")"
run sql "$D" "SELECT e.idx, e.type, e.value FROM elements e WHERE e.id = field($H, 'three')"
[ "$(rows)" = "0,char,a;1,char,b;2,char,c;" ] || fail "char[]: $(cat "$T/out")"
run sql "$D" "SELECT count(*), sum(value), min(idx), max(idx) FROM elements
    WHERE id = field($H, 'ints')"
[ "$(rows)" = "12345,35,0,12344;" ] || fail "int[]: $(cat "$T/out")"
run sql "$D" "SELECT e.idx, e.type, e.ref IS NOT NULL FROM elements e
    WHERE e.id = field($H, 'objs') AND e.value IS NOT NULL"
[ "$(rows)" = "5,object,1;76,object,1;" ] || fail "Object[]: $(cat "$T/out")"
# a scan covers every array's elements: their count is the sum of the arrays' lengths
run sql "$D" "SELECT (SELECT count(*) FROM elements) = (SELECT sum(length) FROM objects)"
[ "$(rows)" = "1;" ] || fail "scan: $(cat "$T/out")"
run sql "$D" "SELECT count(*) FROM elements WHERE id = $H"
[ "$(rows)" = "0;" ] || fail "elements of an instance: $(cat "$T/out")"

command -v node >/dev/null || { echo "sql_elements: ok (no node: JavaScript part skipped)"; exit 0; }
node -e "globalThis.holder = {arr: [{name: 'zero'}, {name: 'one'}, 'two']};
    require('v8').writeHeapSnapshot('$T/a.heapsnapshot')" >/dev/null
V=$T/a.heapsnapshot
O="(SELECT id FROM objects WHERE class = 'Object' AND field(id, 'arr') IS NOT NULL)"
run sql "$V" "SELECT (SELECT value FROM strings WHERE id = field($O, 'arr[1].name')),
    (SELECT value FROM strings WHERE id = field($O, 'arr[2]')), field($O, 'arr[3]')"
expect_rc 0
[ "$(rows)" = "one,two,NULL;" ] || fail "JavaScript arr[N]: $(cat "$T/out")"
run sql "$V" "SELECT idx, type FROM elements WHERE id = field($O, 'arr')"
[ "$(rows)" = "0,element;1,element;2,element;" ] || fail "JavaScript elements: $(cat "$T/out")"
echo "sql_elements: ok"
