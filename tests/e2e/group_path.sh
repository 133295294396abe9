#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# group_path.sh: a group of instances ("2,001 instances of Session occupy ...") is shown by
# the member where most of the group's bytes are held, not by its biggest member. Objects
# held by two things at once are dominated by no object and make such a group; its path led
# to an outlier bigger than any member (a cache's session, Node's console or Buffer context)
# and named nothing of the leak.
#  - a generic graph (a scanner's export): 2,000 sessions in a bus's list and a timer list,
#    one session of 300 kB held by two caches; the path must pass the bus's list;
#  - Node (tests/programs/node/group_typical.js): a server's requests each leave a closure
#    context held by a listener and a timer; the path must pass global.appBus, _events and
#    config, in the JSON and in the text.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools python3 node
work="$LEAKRAY_BUILD/tmp/group_path"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# names along the path of the group suspect of CLASS in analyze's JSON (FILE), one per line
group_path() {
    python3 - "$1" "$2" <<'PY'
import json, sys
s = [x for x in json.load(open(sys.argv[1]))['suspects']
     if x['kind'] == 'instances' and x['class'] == sys.argv[2]]
assert len(s) == 1, [(x['kind'], x['class']) for x in s]
print(s[0]['count'])
for p in s[0]['path']:
    print(p['class'], p.get('reference', {}).get('name', ''))
PY
}

python3 - >"$work/scan.jsonl" <<'PY'
import json
def p(o):
    print(json.dumps(o))
p({"leakray_graph": 1, "format": "py-scan"})
for i, n in enumerate(["module", "list", "Session", "bytes", "Cache"], 1):
    p({"class": i, "name": n})
p({"node": 1, "class": 1, "size": 64}); p({"node": 2, "class": 1, "size": 64})
p({"node": 3, "class": 2, "size": 16000}); p({"node": 4, "class": 2, "size": 16000})
p({"edge": [1, 3], "name": "listeners"}); p({"edge": [2, 4], "name": "tasks"})
p({"root": 1, "kind": "global", "name": "app.bus"})
p({"root": 2, "kind": "global", "name": "app.timers"})
for k in range(2000):
    s = 100 + 2 * k
    p({"node": s, "class": 3, "size": 48}); p({"node": s + 1, "class": 4, "size": 2048})
    p({"edge": [s, s + 1], "name": "state"})
    p({"edge": [3, s], "name": k}); p({"edge": [4, s], "name": k})
# the outlier, first in node order: held by two caches of its own
p({"node": 10, "class": 5, "size": 32}); p({"node": 11, "class": 5, "size": 32})
p({"node": 12, "class": 3, "size": 48}); p({"node": 13, "class": 4, "size": 300000})
p({"edge": [12, 13], "name": "state"})
p({"edge": [10, 12], "name": "warm"}); p({"edge": [11, 12], "name": "cold"})
p({"root": 10, "kind": "global", "name": "cache.warm"})
p({"root": 11, "kind": "global", "name": "cache.cold"})
PY
"$LEAKRAY" analyze "$work/scan.jsonl" --json --no-timing >"$work/scan.json"
group_path "$work/scan.json" Session >"$work/scan.path"
want=$'2001\nmodule listeners\nlist [0]\nSession '
[ "$(cat "$work/scan.path")" = "$want" ] || fail "graph: $(cat "$work/scan.path")"

node --expose-gc "$LEAKRAY_SRC/tests/programs/node/group_typical.js" \
    "$work/g.heapsnapshot" >/dev/null
"$LEAKRAY" analyze "$work/g.heapsnapshot" --json --no-timing >"$work/g.json"
group_path "$work/g.json" "system / Context" >"$work/g.path"
[ "$(head -1 "$work/g.path")" -ge 1500 ] || fail "node: group of $(head -1 "$work/g.path")"
# global appBus / EventEmitter _events / Object config / Array N / Function context / Context
[ "$(sed -n '2,4p' "$work/g.path" | cut -d' ' -f2 | tr '\n' ' ')" = "appBus _events config " ] ||
    fail "node: $(cat "$work/g.path")"
[ "$(tail -1 "$work/g.path")" = "system / Context " ] || fail "node: ends $(tail -1 "$work/g.path")"
"$LEAKRAY" analyze "$work/g.heapsnapshot" --no-timing >"$work/g.txt"
sed -n '/instances of system \/ Context/,/^$/p' "$work/g.txt" | grep -q "global.appBus" ||
    fail "node: the text trace names no global.appBus"
echo "group_path: ok"
