#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# show_number.sh: `show` of a V8 number whose value the snapshot records (Node's
# exposeNumericValues) prints the value, as field() and --where read it; it printed only
# "heap number". A condition on a number property of a snapshot written without numeric
# values (no such property is in it) says which option writes them.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init show-number
command -v node >/dev/null || skip "no node"
node -e "globalThis.h = {score: 3141.5, tenth: 0.1};
    require('v8').writeHeapSnapshot('$T/n.heapsnapshot', {exposeNumericValues: true})"
H="(SELECT id FROM objects WHERE field(id, 'score') IS NOT NULL)"
run sql --csv "$T/n.heapsnapshot" "SELECT f.ref FROM fields f WHERE f.id = $H AND f.name = 'score'"
expect_rc 0
score=$(tail -1 "$T/out")
run sql --csv "$T/n.heapsnapshot" "SELECT f.ref FROM fields f WHERE f.id = $H AND f.name = 'tenth'"
tenth=$(tail -1 "$T/out")
run show "$T/n.heapsnapshot" "@$score" --no-timing
expect_rc 0
expect_out '^value: +3141\.5$'
run show "$T/n.heapsnapshot" "@$tenth" --no-timing
expect_out '^value: +0\.1$'
run show "$T/n.heapsnapshot" "@$score" --json --no-timing
json_eq 'd["object"]["number"]' 3141.5
node -e "class Player { constructor(i) { this.score = i * 10; } }
    globalThis.ps = []; for (let i = 0; i < 500; i++) ps.push(new Player(i));
    require('v8').writeHeapSnapshot('$T/p.heapsnapshot')"
run instances "$T/p.heapsnapshot" Player --where 'score > 3000' --no-timing
expect_err "no field 'score'; a V8 snapshot lists a property that holds a small integer only"
expect_err 'exposeNumericValues'
run instances "$T/n.heapsnapshot" Object --where 'score > 3000' --no-timing
grep -q 'exposeNumericValues' "$T/err" && fail "hint on a snapshot with numeric values"
echo "show_number: ok"
