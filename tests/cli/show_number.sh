#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# show_number.sh: `show` of a V8 number whose value the snapshot records (Node's
# exposeNumericValues) prints the value, as field() and --where read it; it printed only
# "heap number".
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
echo "show_number: ok"
