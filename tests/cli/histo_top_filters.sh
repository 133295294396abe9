#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# histo_top_filters.sh: --class GLOB / --package P (repeatable, ! excludes) and --csv on histo
# and top. The filtered rows must be exactly the unfiltered rows whose class matches (checked
# in Python with fnmatch), the totals must sum the kept rows, and top's filtered object list
# must be what `sql` ranks for the same classes. CSV carries the same numbers as --json.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init histo-top-filters
cli_fixtures
command -v python3 >/dev/null || skip "no python3"
D=$FIX/test-dump.hprof

"$LEAKRAY" histo "$D" --json --no-timing >"$T/all.json"
run histo "$D" --json --no-timing --class 'java.lang.*' --class '!*String*' --package java.util \
    --package '!java.util.concurrent'
expect_rc 0
python3 - "$T/all.json" "$T/out" <<'PY' || fail "histo filter rows"
import fnmatch, json, sys
a, f = (json.load(open(p)) for p in sys.argv[1:])
def keep(n):
    inc = fnmatch.fnmatchcase(n, 'java.lang.*') or n.startswith('java.util.')
    exc = fnmatch.fnmatchcase(n, '*String*') or n.startswith('java.util.concurrent.')
    return inc and not exc
want = [r for r in a['classes'] if keep(r['name'])]
assert f['classes'] == want, (len(f['classes']), len(want))
assert f['total']['count'] == sum(r['count'] for r in want)
assert f['total']['shallow'] == sum(r['shallow'] for r in want)
assert len(want) > 20
PY
run histo "$D" --csv --class 'java.lang.Integer'
expect_rc 0
[ "$(head -1 "$T/out")" = "num,count,shallow,class" ] || fail "histo CSV header"
expect_out '^1,[0-9]+,[0-9]+,java\.lang\.Integer$'
[ "$(wc -l <"$T/out")" = 2 ] || fail "histo CSV rows"
# a name as histo prints it matches itself, brackets and all (read as a glob, `byte[][]`
# matched nothing)
run histo "$D" --csv --class 'byte[][]'
expect_rc 0
expect_out '^1,[0-9]+,[0-9]+,byte\[\]\[\]$'

run top "$D" --json --no-timing --top 5 --class 'java.lang.*'
expect_rc 0
cp "$T/out" "$T/top.json"
# a class object is matched by the class it is (its statics: a webapp's, in a loader leak)
run sql "$D" "SELECT printf('0x%x', id) FROM objects WHERE coalesce(class, (SELECT name FROM
              classes c WHERE c.id = objects.id)) GLOB 'java.lang.*' AND reachable
              ORDER BY retained DESC, id LIMIT 5"
python3 - "$T/top.json" "$T/out" <<'PY' || fail "top --class objects"
import json, sys
t = json.load(open(sys.argv[1]))
ids = [l.strip() for l in open(sys.argv[2]).read().split('\n')[1:] if l.strip()]
assert [o['id'] for o in t['objects']] == ids, ([o['id'] for o in t['objects']], ids)
assert all(o['class'].startswith(('java.lang.', 'class java.lang.')) for o in t['objects'])
assert any(o['class'].startswith('class ') for o in t['objects']), t['objects']
PY
"$LEAKRAY" top "$D" --json --no-timing --by class --top 0 >"$T/all.json"
run top "$D" --csv --by class --top 0 --package '!java' --package '!sun'
expect_rc 0
python3 - "$T/all.json" "$T/out" <<'PY' || fail "top --by class --csv"
import csv, json, sys
a = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
want = [r for r in a['classes'] if not r['class'].startswith(('java.', 'sun.'))]
assert [(r['class'], int(r['count']), int(r['shallow']), int(r['retained'])) for r in rows] == \
    [(r['class'], r['count'], r['shallow'], r['retained']) for r in want]
PY
echo "ok"
