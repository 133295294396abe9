#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_v8.sh: `leakray sql` on a Node.js snapshot written at test time with allocation
# tracking (tests/programs/node/v8_alloc_trace.js: 200 TracedThing objects made by
# makeTracedThing). The stacks table must give every TracedThing's allocation stack frame by
# frame as `show` prints it, objects' retained / distance / dominator must be show's DevTools
# values, and classes.location must be the constructor's script location. Strings whose text
# the snapshot does not hold whole (tests/programs/node/v8_partial_strings.js: 30 strings of
# 1,100 characters V8 cut at 1,024, a sliced string, concatenations of them) say so in
# strings.complete (and `show`): the cut ones
# read as 30 copies of one string, and the slice's value was "(sliced string)".
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v node >/dev/null || { echo "SKIP: node is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
work=$LEAKRAY_BUILD/tmp/sql-v8
rm -rf "$work"
mkdir -p "$work"
snap=$work/trace.heapsnapshot
node "$LEAKRAY_SRC/tests/programs/node/v8_alloc_trace.js" "$snap" >/dev/null

"$LEAKRAY" sql "$snap" --json --no-timing --max-rows 0 "
  SELECT count(DISTINCT o.id) FROM objects o JOIN stacks s ON s.id = o.id
  WHERE o.class = 'TracedThing' AND s.depth = 0 AND s.function = 'makeTracedThing';
  SELECT id, retained, distance, dominator FROM objects WHERE class = 'TracedThing'
  ORDER BY id LIMIT 5;
  SELECT s.id, s.depth, s.function, s.script, s.line, s.column FROM stacks s
  WHERE s.id IN (SELECT id FROM objects WHERE class = 'TracedThing' ORDER BY id LIMIT 5)
  ORDER BY s.id, s.depth;
  SELECT location FROM classes WHERE name = 'TracedThing'" >"$work/sql.json"
python3 - "$LEAKRAY" "$snap" "$work/sql.json" <<'PY'
import collections, json, subprocess, sys
lr, snap, path = sys.argv[1:]
res = json.load(open(path))['results']
assert res[0]['rows'] == [[200]], res[0]['rows']
frames = collections.defaultdict(list)
for i, d, f, s, l, c in res[2]['rows']:
    frames[i].append([f, s or '', l or 0, c or 0])
for i, ret, dist, dom in res[1]['rows']:
    p = subprocess.run([lr, 'show', snap, f'@{i}', '--json', '--no-timing'],
                       capture_output=True, text=True, check=True)
    o = json.loads(p.stdout)['object']
    assert ret == o['retained'] and dist == o['distance'], (i, ret, dist, o['retained'])
    assert o['dominator']['id'] == f'@{dom}', (i, dom, o['dominator'])
    want = [[f['function'], f['script'], f['line'], f['column']] for f in o['allocation_stack']]
    assert frames[i] == want, (i, frames[i], want)
loc = res[3]['rows'][0][0]
script_id, line, col = map(int, loc.split(','))
assert line == 16, loc  # the constructor: line 17 of the program, 16 as V8 counts from 0
print('ok: 200 stacks, 5 objects compared with show')
PY

node "$LEAKRAY_SRC/tests/programs/node/v8_partial_strings.js" "$work/partial.heapsnapshot"
"$LEAKRAY" sql "$work/partial.heapsnapshot" --json --no-timing --max-rows 0 "
  SELECT e.name, s.value, s.complete FROM edges e JOIN strings s ON s.id = e.dst
  WHERE e.name IN ('SLICE', 'FLAT', 'CONS') ORDER BY e.name;
  SELECT e.name, s.complete, s.value LIKE '%THE-TAIL%' FROM edges e JOIN strings s ON s.id = e.dst
  WHERE e.name IN ('LONGCONS', 'SLICECONS') ORDER BY e.name;
  SELECT count(*), count(DISTINCT value), sum(complete) FROM strings
  WHERE value LIKE 'PPPP%';
  SELECT count(*) FROM strings WHERE length(value) > 1000 AND complete AND value LIKE 'PPPP%'
  " >"$work/partial.json"
python3 - "$work/partial.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))['results']
assert res[0]['rows'] == [['CONS', 'flat-text-RIGHTPART-0123456789', 1], ['FLAT', 'flat-text', 1],
                          ['SLICE', None, 0]], res[0]['rows']
# a concatenation of a cut or sliced part is no whole text either (it read complete, the
# cut part joined to the tail)
assert res[1]['rows'] == [['LONGCONS', 0, 1], ['SLICECONS', 0, 1]], res[1]['rows']
assert res[2]['rows'] == [[31, 2, 0]], res[2]['rows']  # the 30 and LONGCONS
assert res[3]['rows'] == [[0]], res[3]['rows']
print('ok: cut and sliced strings are not complete')
PY
# show says so too
id=$("$LEAKRAY" sql "$work/partial.heapsnapshot" --csv "SELECT e.dst FROM edges e
  WHERE e.name = 'LONGCONS'" | tail -n 1 | tr -d '\r')
"$LEAKRAY" show "$work/partial.heapsnapshot" "$id" --json >"$work/show.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["object"]; assert d["string_partial"], d' \
    "$work/show.json" || { echo "FAIL: show of LONGCONS: no string_partial" >&2; exit 1; }
"$LEAKRAY" show "$work/partial.heapsnapshot" "$id" | grep -q "the text is longer" ||
    { echo "FAIL: show of LONGCONS says nothing of the cut" >&2; exit 1; }
