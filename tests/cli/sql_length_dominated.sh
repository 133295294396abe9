#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_length_dominated.sh: objects.length is an array's element count (MAT's @length) and
# NULL for what is no array; `WHERE dominator = X` is a lookup of X's children in the
# dominator tree (tests/programs/sql/Arrays.java). The lookup's rows equal a scan's
# (`+dominator` keeps SQLite from the index), and a correlated count over 200,000 objects,
# quadratic as a scan (4 * 10^10 rows), answers inside the timeout.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init sql-length-dominated
cli_need_java
mkdir -p "$T/c"
javac -d "$T/c" "$LEAKRAY_SRC/tests/programs/sql/Arrays.java"
java -cp "$T/c" Arrays "$T/a.hprof"
D=$T/a.hprof
run sql "$D" "SELECT o.kind, o.length FROM objects o JOIN fields f ON f.ref = o.id
    WHERE f.id = (SELECT field(c.id, 'holder') FROM classes c WHERE c.name = 'Arrays')
    ORDER BY f.name"
expect_rc 0
[ "$(tail -n +2 "$T/out" | tr '\t\n' ', ')" = \
    "primitive array,2 primitive array,2 primitive array,2 primitive array,12345 \
primitive array,0 object array,77 primitive array,3 " ] ||
    fail "array lengths: $(cat "$T/out")"
run sql "$D" "SELECT count(*) FROM objects WHERE length IS NOT NULL
    AND kind NOT IN ('object array', 'primitive array')"
[ "$(tail -1 "$T/out")" = 0 ] || fail "a length on what is no array: $(cat "$T/out")"
# the children of the tree's root node: its two subtrees' roots
root="(SELECT field(c.id, 'tree') FROM classes c WHERE c.name = 'Arrays')"
run sql "$D" "SELECT printf('0x%x', id) FROM objects WHERE dominator = $root ORDER BY id"
cp "$T/out" "$T/lookup"
run sql "$D" "SELECT printf('0x%x', id) FROM objects WHERE +dominator = $root ORDER BY id"
cmp -s "$T/out" "$T/lookup" || fail "lookup and scan differ: $(cat "$T/lookup") / $(cat "$T/out")"
[ "$(tail -n +2 "$T/lookup" | wc -l)" = 2 ] || fail "the root's children: $(cat "$T/lookup")"
# every object's children counted through the lookup: the dominated objects, each once
run sql --timeout 60 "$D" "SELECT (SELECT count(*) FROM objects WHERE dominator IS NOT NULL),
    (SELECT sum((SELECT count(*) FROM objects k WHERE k.dominator = o.id)) FROM objects o)"
expect_rc 0
a=$(tail -1 "$T/out" | cut -f1) b=$(tail -1 "$T/out" | cut -f2)
[ "$a" = "$b" ] && [ "$a" -gt 200000 ] || fail "children counted: $(cat "$T/out")"
# a subtree's size through a recursive CTE of lookups: the 200,000 nodes
run sql --timeout 60 "$D" "WITH RECURSIVE sub(id) AS (SELECT $root UNION ALL
    SELECT o.id FROM objects o JOIN sub ON o.dominator = sub.id) SELECT count(*) FROM sub"
expect_rc 0
[ "$(tail -1 "$T/out")" = 200000 ] || fail "the tree's dominator subtree: $(cat "$T/out")"
echo "sql_length_dominated: ok"
