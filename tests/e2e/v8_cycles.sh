#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_cycles.sh: `leakray cycles` on a Node snapshot written now (tests/programs/node/
# v8_cycles.js), whose three cycles run through V8's internal edges: a closure on the object
# it captures (SelfRef.cb -> closure.context -> Context.this, 5), an array holding its owner
# (Bag.items -> Array.[], 4), a Map holding its owner (Registry.byName -> Map.table -> the
# table's slot, 3). Each class's scope lists exactly its own cycle: prototype links
# (__proto__, a function's prototype), which every class closes with its constructor, are
# not followed, nor the VM's maps and code.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools node python3
work="$LEAKRAY_BUILD/tmp/v8_cycles"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
snap=$work/cycles.heapsnapshot
node "$LEAKRAY_SRC/tests/programs/node/v8_cycles.js" "$snap"
check() { # CLASS EXPECTED: the (signature, count, length) rows of CLASS's scope
    "$LEAKRAY" cycles "$snap" --class "$1" --top 100 --json --no-timing >"$work/$1.json"
    got=$(python3 -c 'import json, sys
print([(c["signature"], c["count"], c["length"]) for c in json.load(open(sys.argv[1]))["cycles"]])' \
        "$work/$1.json")
    [ "$got" = "$2" ] || fail "$1: $got"
    echo "ok: $1"
}
check SelfRef "[('Function.context -> system / Context.this -> SelfRef.cb', 5, 3)]"
check Bag "[('Array.[] -> Bag.items', 4, 2)]"
check Registry "[('(array).[] -> Registry.byName -> Map.table', 3, 3)]"
echo "PASS"
