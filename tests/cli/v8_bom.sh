#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_bom.sh: a .heapsnapshot saved with a UTF-8 byte-order mark (as an editor or a script
# writing text may save it) reads as the same snapshot; it was "unknown heap dump format",
# where DevTools' loader opens it.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init v8-bom
snap=$LEAKRAY_SRC/tests/data/v8/cliques.heapsnapshot
printf '\357\273\277' >"$T/bom.heapsnapshot"
cat "$snap" >>"$T/bom.heapsnapshot"
run histo --retained --no-timing "$snap"
expect_rc 0
cp "$T/out" "$T/plain.txt"
run histo --retained --no-timing "$T/bom.heapsnapshot"
expect_rc 0
cmp -s "$T/out" "$T/plain.txt" || fail "the snapshot with a byte-order mark reads otherwise"
run info --json "$T/bom.heapsnapshot"
expect_rc 0
json_eq "d['format']" v8
echo "v8_bom: ok"
