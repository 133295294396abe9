#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_cycles.sh: `leakray cycles` on a Node snapshot written now (tests/programs/node/
# v8_cycles.js), whose three cycles run through V8's internal edges: a closure on the object
# it captures (SelfRef.cb -> closure.context -> Context.this, 5), an array holding its owner
# (Bag.items -> Array.[], 4), a Map holding its owner (Registry.byName -> Map.table -> the
# table's slot, 3); and through V8's other data edges: a bound method's bound_this, a nested
# scope's previous contexts, a promise's reaction, a generator's context, a suspended async
# function's context extension and receiver (all five were missed). Each class's scope lists
# exactly its own cycle: prototype links (__proto__, a function's prototype), which every
# class closes with its constructor, are not followed, nor a class's or function's binding in
# the scope it closes over, nor a generator's saved registers, nor the VM's maps and code. A
# WeakMap entry pointing back at its key is no cycle (an ephemeron: it was one); 40 handlers
# in an object used as a dictionary are one shape (they were 40, one per key), while the 35
# declared fields of one class instance are 35.
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
check Bound "[('Bound.onClick -> Function.bound_this', 4, 2)]"
check Nested "[('Function.context -> system / Context.previous -> system / Context.previous -> system / Context.self -> Nested.cb', 4, 5)]"
check Pending "[('(system).[] -> Function.context -> system / Context.this -> Pending.p -> Promise.reactions_or_result', 4, 5)]"
check Gen "[('Gen.it -> Generator.context -> system / Context.self', 3, 3)]"
check Poller "[('(system).[] -> Function.context -> system / Context.extension -> Generator.receiver -> Poller.gate -> Promise.reactions_or_result', 6, 6)]"
check Keyed "[]"
check Handler "[('Handler.registry -> Object.[]', 40, 2)]"
check Hooks "[('(array).[] -> Hook.owner -> Hooks.onClose -> Map.table', 2, 4), ('(array).[] -> Hook.owner -> Hooks.onReady -> Map.table', 2, 4)]"
# a class's 35 declared fields stay fields: one shape each (they were one `[]`, and a new one
# hid from --baseline)
"$LEAKRAY" cycles "$snap" --class Container --top 100 --json --no-timing >"$work/Container.json"
python3 - "$work/Container.json" <<'PY' || fail "Container: its fields read as dictionary keys"
import json, sys
c = json.load(open(sys.argv[1]))["cycles"]
sigs = sorted(x["signature"] for x in c)
assert len(c) == 35 and all(x["count"] == 1 and x["length"] == 2 for x in c), sigs
assert "Container.service7 -> Service.container" in sigs, sigs
PY
echo "ok: Container"
# retained sizes are the dump's model, DevTools' as in `top` (the strong model's before):
# each instance dominates its cycle's other members
for c in SelfRef Bound Nested Pending Gen Poller; do
    "$LEAKRAY" top "$snap" --class "$c" --json --no-timing >"$work/top-$c.json"
    python3 - "$work/$c.json" "$work/top-$c.json" <<'PY' || fail "$c: cycles' retained is not top's"
import json, sys
c, t = (json.load(open(f)) for f in sys.argv[1:])
want = sum(o["retained"] for o in t["objects"])
assert [x["retained"] for x in c["cycles"]] == [want], ([x["retained"] for x in c["cycles"]], want)
PY
done
echo "ok: cycles' retained sizes are top's"
echo "PASS"
