#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_answers.sh: `leakray sql`, `instances` and `path --merged` give the answers other code
# computes. On a dump written at test time by tests/programs/sql/SqlTarget.java, known
# answers (8 destroyed pages, the duplicate strings, the page held only softly), then
# tests/cli/lib/sql_check.py on that dump and on HPROF and V8 fixtures: GROUP BY class
# against histo's streaming histogram, retained sizes against top, referrers against show,
# and the merged tree against `path` of every instance.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init sql-answers
cli_need_java
command -v python3 >/dev/null || skip "no python3"

dir=$LEAKRAY_BUILD/tmp/sql-target
DUMP=$dir/SqlTarget.hprof
src=$LEAKRAY_SRC/tests/programs/sql/SqlTarget.java
mkdir -p "$dir"
if [ ! -s "$DUMP" ] || [ "$src" -nt "$DUMP" ]; then
    rm -rf "$dir/classes" "$DUMP"
    javac -d "$dir/classes" "$src" >&2
    java -Xmx64m -XX:+UseSerialGC -cp "$dir/classes" SqlTarget "$dir/partial.hprof" >/dev/null
    mv "$dir/partial.hprof" "$DUMP"
fi
P='SqlTarget$Page'

# Destroyed pages: 3 in LIST, 1 SubPage, 1 in MAP, 2 in the chain, 1 held softly.
run sql "$DUMP" "SELECT count(*) FROM objects o JOIN fields f ON f.id = o.id
                 WHERE isa(o.class, '$P') AND f.name = 'mDestroyed' AND f.value = 1"
expect_rc 0
expect_out '^8$'
run sql "$DUMP" "SELECT count(*) FROM objects WHERE isa(class, '$P') AND field(id, 'mDestroyed')"
expect_out '^8$'
run instances --no-timing "$DUMP" "$P" --subclasses --where 'mDestroyed == true'
expect_rc 0
expect_out '^8 instances of SqlTarget\$Page and subclasses where mDestroyed == true'
run instances --no-timing "$DUMP" "$P" --where 'mDestroyed == true' --json
json_eq "d['count']" 7
json_eq "all(i['class'] == 'SqlTarget\$Page' for i in d['instances'])" true
run instances --no-timing "$DUMP" "$P" --subclasses --sort retained --limit 2 --json
json_eq "d['count']" 19
json_eq "d['shown']" 2
json_eq "d['truncated']" true
json_eq "d['instances'][0]['retained'] >= d['instances'][1]['retained']" true
run instances --no-timing "$DUMP" "$P" --subclasses --limit 3
expect_out '^\.\.\. 16 more not shown \(--limit 3; --limit 0 shows all\)$'

# Duplicate strings over 1 kB: three "x" * 2048 and two "y" * 1500 (the "z" string is single).
run sql "$DUMP" "SELECT length(value), count(*) FROM strings WHERE length(value) > 1024
                 GROUP BY value HAVING count(*) > 1 ORDER BY 1 DESC" --csv
expect_rc 0
[ "$(cat "$T/out")" = $'length(value),count(*)\n2048,3\n1500,2' ] || fail "duplicate strings"

# The page kept only through a SoftReference: not strongly reachable, and its id is 40.
run sql "$DUMP" "SELECT field(o.id, 'id') FROM edges e JOIN objects o ON o.id = e.dst
                 WHERE e.strength = 'soft' AND o.reachable = 0 AND o.class = '$P'"
expect_out '^40$'
run path --no-timing "$DUMP" --class "$P" --subclasses --merged --json
json_eq "[d['instances'], d['reachable'], d['unreachable']]" '[19, 18, 1]'
json_eq "sum(n['count'] for n in d['tree'])" 18

# A wide merged tree: 200,000 leaves under one array, each edge named. Names are read in
# edge order while the tree is built (0.2 s of CPU); read per child, in another order than
# the slots, each walked the array's slots from the start (half a minute of CPU or more).
# A CPU limit, not a wall clock: the machine may be busy.
L='SqlTarget$Leaf'
(ulimit -t 15 && exec "$LEAKRAY" path --no-timing --no-progress "$DUMP" --class "$L" --merged \
    --limit 0 >"$T/wide") || fail "path --merged --limit 0 over $L: not done in 15 s of CPU"
python3 - "$T/wide" <<'PY' || fail "merged tree of $L"
import re, sys
names = re.findall(r'--\[element \[(\d+)\]\]--> 0x[0-9a-f]+ SqlTarget\$Leaf  \*$',
                   open(sys.argv[1]).read(), re.M)
assert sorted(map(int, names)) == list(range(0, 400000, 2)), (len(names), names[:3])
PY

# field() reads a class's static fields, primitive ones too (they were NULL)
run sql "$DUMP" "SELECT field(id, 'MAX_VALUE'), field(id, 'SIZE') FROM classes
    WHERE name = 'java.lang.Integer'"
[ "$(tail -1 "$T/out" | tr '\t' ' ')" = "2147483647 32" ] ||
    fail "field() of a primitive static: $(cat "$T/out")"

# Lookups are plans on the graph's indexes, not scans.
run sql "$DUMP" "EXPLAIN QUERY PLAN SELECT * FROM objects WHERE id = 1;
                 EXPLAIN QUERY PLAN SELECT * FROM edges WHERE dst = 1;
                 EXPLAIN QUERY PLAN SELECT * FROM objects WHERE class = 'x';
                 EXPLAIN QUERY PLAN SELECT class, count(*) FROM objects GROUP BY class ORDER BY 2"
expect_out 'SCAN objects VIRTUAL TABLE INDEX 1:'
expect_out 'SCAN edges VIRTUAL TABLE INDEX 4:'
expect_out 'SCAN objects VIRTUAL TABLE INDEX 2:'
expect_out 'SCAN objects VIRTUAL TABLE INDEX 3:'
grep -q 'TEMP B-TREE FOR GROUP BY' "$T/out" && fail "GROUP BY class sorted again"
# ... and so are the top-N questions, whose ORDER BY asks for the groups DESC, and DESC itself;
# the answers equal those of a plan that sorts (GROUP BY +class: no index may serve it)
run sql "$DUMP" "EXPLAIN QUERY PLAN SELECT class, count(*), sum(shallow) FROM objects
                 GROUP BY class ORDER BY 3 DESC LIMIT 5"
grep -q 'TEMP B-TREE FOR GROUP BY' "$T/out" && fail "GROUP BY class ORDER BY 3 DESC sorted every object"
for q in "SELECT class, count(*), sum(shallow) FROM objects GROUP BY %s ORDER BY 3 DESC, 1 LIMIT 9" \
         "SELECT class, count(*) FROM objects GROUP BY %s ORDER BY class DESC LIMIT 9"; do
    # shellcheck disable=SC2059
    run sql "$DUMP" "$(printf "$q" class)"
    cp "$T/out" "$T/served"
    # shellcheck disable=SC2059
    run sql "$DUMP" "$(printf "$q" +class)"
    cmp -s "$T/out" "$T/served" || fail "a class-order plan answered otherwise: $q"
done

# Detached DOM nodes of a Chromium page snapshot (committed): objects.dom against histo
# --detached, class by class and in total.
B=$LEAKRAY_SRC/tests/data/browser/browser-final.heapsnapshot.gz
"$LEAKRAY" histo "$B" --detached --json --no-timing >"$T/det.json"
run sql "$B" --json --no-timing "SELECT class, count(*), sum(shallow) FROM objects
    WHERE dom = 'detached' AND shallow > 0 GROUP BY class"
python3 - "$T/det.json" "$T/out" <<'PY' || fail "detached DOM nodes against histo --detached"
import json, sys
h, q = (json.load(open(p)) for p in sys.argv[1:])
want = sorted([r['name'], r['count'], r['shallow']] for r in h['classes'])
got = sorted(q['results'][0]['rows'])
assert got == want and len(got) > 5, (got[:3], want[:3])
assert sum(r[1] for r in got) == h['total']['detached_count']
PY

# GROUP BY class streams the classes in name order; the same groups ORDER BY class DESC
# must come out descending (they came ascending: the vtab claimed the order either way)
for dir in "" DESC; do
    run sql --json "$DUMP" "SELECT class, count(*) FROM objects GROUP BY class ORDER BY class $dir"
    cp "$T/out" "$T/fast$dir.json"
    run sql --json "$DUMP" "SELECT class || '' AS c, count(*) FROM objects GROUP BY c ORDER BY c $dir"
    cp "$T/out" "$T/slow$dir.json"
    python3 - "$T/fast$dir.json" "$T/slow$dir.json" "$dir" <<'PY' || fail "GROUP BY class ORDER BY class $dir"
import json, sys
f, s = (json.load(open(p))["results"][0]["rows"] for p in sys.argv[1:3])
assert [r[1] for r in f] == [r[1] for r in s] and len(f) > 5, (f[:3], s[:3])
assert [r[0] or "" for r in f] == [r[0] or "" for r in s], (sys.argv[3], f[:3], s[:3])
PY
done

check=$LEAKRAY_SRC/tests/cli/lib/sql_check.py
python3 "$check" "$LEAKRAY" "$DUMP" histo top referrers "merged:$P" || fail "SqlTarget dump"
cli_fixtures
V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8
python3 "$check" "$LEAKRAY" "$FIX/test-dump.hprof" histo top referrers \
    merged:java.lang.ref.ReferenceQueue || fail "test-dump.hprof"
python3 "$check" "$LEAKRAY" "$FIX/dialer.android-hprof" histo top || fail "dialer"
python3 "$check" "$LEAKRAY" "$V8/heap-1.heapsnapshot" histo top referrers merged:Object ||
    fail "heap-1.heapsnapshot"
# V8: reachable is the dominator tree's reach (top's count), an object reached through weak
# edges alone (no distance) included, with the dominator `show` gives it
if [ -f "$V8/small.heapsnapshot" ]; then
    run sql --json "$V8/small.heapsnapshot" "SELECT count(*) FROM objects WHERE reachable = 1"
    n=$(json_get 'd["results"][0]["rows"][0][0]')
    run top --json --no-timing "$V8/small.heapsnapshot"
    [ "$n" = "$(json_get 'd["reachable_objects"]')" ] || fail "V8: $n reachable in SQL, top says otherwise"
    run sql --json "$V8/small.heapsnapshot" "SELECT dominator, reachable FROM objects WHERE id = 11019"
    [ "$(json_get 'd["results"][0]["rows"][0]')" = "[11017, 1]" ] ||
        fail "V8 @11019: $(json_get 'd["results"][0]["rows"][0]')"
fi
# An OR of two lookups (SQLite's multi-index OR) is their union: rows are told apart by
# rowid, a row's identity on every access path (a running number dropped rows of the
# second lookup). The same counts without the lookups ('+col' defeats them).
x=$("$LEAKRAY" sql --csv "$FIX/dialer.android-hprof" \
    "SELECT dst FROM edges GROUP BY dst ORDER BY count(*) DESC, dst LIMIT 1" | tail -n 1 | tr -d '\r')
for q in "FROM edges WHERE src = $x OR dst = $x" \
    "FROM objects WHERE class = 'java.lang.String' OR id = $x" \
    "FROM objects WHERE id = $x OR class = 'java.lang.Thread'" \
    "FROM classes WHERE name = 'java.lang.String' OR id = (SELECT id FROM classes WHERE name = 'java.lang.Thread')"; do
    plain=$(echo "$q" | sed -E 's/ (src|dst|class|id|name) = / +\1 = /g')
    a=$("$LEAKRAY" sql --csv "$FIX/dialer.android-hprof" "SELECT count(*) $q" | tail -n 1)
    b=$("$LEAKRAY" sql --csv "$FIX/dialer.android-hprof" "SELECT count(*) $plain" | tail -n 1)
    [ "$a" = "$b" ] && [ "${a%$'\r'}" -gt 1 ] || fail "SELECT count(*) $q: $a rows, $b without the lookups"
done
# field() of a JavaScript property holding a primitive node gives the primitive, as
# `instances --where` reads it (it gave the node's id: `field(id, 'i') = 42` matched nothing
# and `> 590` everything); primitives.heapsnapshot: globalThis.obj = {t: true, i: 42, d: 12.75}
a=$("$LEAKRAY" sql --csv "$V8/primitives.heapsnapshot" "SELECT field(id, 'i'), field(id, 't'),
    field(id, 'd') FROM objects WHERE class = 'Object' AND field(id, 'i') = 42" | tail -n 1)
[ "${a%$'\r'}" = "42,1,12.75" ] || fail "field() of primitives: '$a'"
n=$("$LEAKRAY" instances "$V8/primitives.heapsnapshot" Object --where 'i == 42 && t && d > 12' |
    grep -c '^ *1: @' || true)
[ "$n" = 1 ] || fail "instances --where on the same object: $n"
echo "ok"
