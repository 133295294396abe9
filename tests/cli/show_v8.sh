#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# show_v8.sh: `leakray show` on a V8 .heapsnapshot fixture (no field bytes: contents are the
# node's outgoing edges). Node @35605 of small.heapsnapshot is the page's Window object: its
# edges include the property `onkeydown` and it is the `prototype` of a Function; @45033 is
# the string "test". Ids use the @N form show prints for V8 graphs.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init show-v8
V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8
f=$V8/small.heapsnapshot
[ -f "$f" ] || skip "no V8 fixture at $f"

run show --no-timing --limit 0 "$f" @35605
expect_rc 0
expect_out '^@35605 Window$'
expect_out '^kind: +instance \(object\)$'
expect_out '^  @[0-9]+ .*  \.onkeydown \(property\)$'
expect_out '^  @[0-9]+ Function  \.prototype \(property\)$'

run show --json --no-timing --limit 0 "$f" @35605
expect_rc 0
json_eq 'd["object"]["id"]' @35605
json_eq 'd["object"]["edges_total"] == len(d["object"]["edges"]) > 0' true
json_eq '"onkeydown" in [e["name"] for e in d["object"]["edges"] if e["edge"] == "property"]' true
json_eq 'd["object"]["referrers_total"] == len(d["object"]["referrers"]) > 0' true
json_eq 'all(r["from"].startswith("@") for r in d["object"]["referrers"])' true

run show --json --no-timing "$f" @45033
expect_rc 0
json_eq 'd["object"]["kind"]' string
json_eq 'd["object"]["string"]' test
json_eq 'd["object"]["string_bytes"]' 4

run show "$f" @999999999
expect_rc 2
echo "show_v8: ok"
