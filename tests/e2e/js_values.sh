#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_values.sh: rule expressions read JavaScript values as JavaScript has them. In a Node
# snapshot (tests/programs/js/values.js) a boolean property is an oddball node, a number a
# "smi number" or "heap number" node with its value: `--where destroyed` holds for the four
# destroyed Widgets, not for all ten (a bare object reference is true), comparisons with
# true, false, null and numbers match, and `analyze --leaking-if destroyed` finds four
# leaking objects.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools node python3
work="$LEAKRAY_BUILD/tmp/js_values"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
snap="$work/values.heapsnapshot"
node "$LEAKRAY_SRC/tests/programs/js/values.js" "$snap"

count() { # count WHERE: Widgets matching it
    "$LEAKRAY" instances "$snap" Widget --where "$1" --json |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["count"])'
}
while IFS='|' read -r where want; do
    got=$(count "$where")
    [ "$got" = "$want" ] || fail "--where '$where': $got Widgets, want $want"
done <<'CASES'
destroyed|4
!destroyed|6
destroyed == true|4
destroyed == false|6
count > 5|4
count == 3|1
ratio > 5|5
ratio < 1|1
label is null|10
CASES
"$LEAKRAY" analyze "$snap" --json --no-timing --no-suspects --no-detached --watch Widget \
    --leaking-if destroyed >"$work/an.json" || [ $? = 1 ]
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["leaking_objects"] == 4, d["leaking_objects"]' "$work/an.json" ||
    fail "analyze --leaking-if destroyed"
echo "js_values: ok"
