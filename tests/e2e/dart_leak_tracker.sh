#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dart_leak_tracker.sh: a Flutter leak_tracker report as the leaking set of a Dart heap
# snapshot. tests/programs/dart/dartheap.py writes the snapshot from the byte layout (5 leaked
# checkout screens held by a static list, identity hashes ((id - 1) * 2654435761) & 0x7fffffff)
# and a report in leak_tracker's JSON naming objects by those hashes. `analyze --leak-tracker`
# must trace exactly the objects the report names, by the exact paths from the root, with the
# report's verdict as the reason; the object only weakly held is unreachable; reports the
# snapshot cannot match (a collected object, a hash under another type) are counted, not
# traced. Also: an old-layout snapshot has no hashes (exit 2), bad reports exit 3 with the
# offset.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
W="$LEAKRAY_BUILD/tmp/dart_leak_tracker"
rm -rf "$W"
mkdir -p "$W"
D=$W/app.dartheap
python3 "$LEAKRAY_SRC/tests/programs/dart/dartheap.py" "$D" new 5 "$W/leaks.json"

rc=0
"$LEAKRAY" analyze --json --no-timing "$D" --leak-tracker "$W/leaks.json" >"$W/a.json" \
    2>"$W/a.err" || rc=$?
[ "$rc" = 0 ] || fail "analyze exited $rc: $(cat "$W/a.err")"
python3 - "$W/a.json" <<'PY' || fail "traces differ: $(head -c 600 "$W/a.json")"
import json, sys
d = json.load(open(sys.argv[1]))
H = lambda o: ((o - 1) * 2654435761) & 0x7FFFFFFF
# object ids: 1 Root, 2 Read-Only Pages, 3 Isolate, 4 _GrowableList, 5 _List, 6 _Smi; screen
# i (0-based) from 7 + 7i: title, widget, state, element, closure, listeners, controller.
head = "@1 Root[1] > @3 Isolate._cache > @4 _GrowableList._data > @5 _List"
want = [
    ("@9", "not GCed", head + "[0] > @9 CheckoutPageState"),
    ("@16", "not GCed", head + "[1] > @16 CheckoutPageState"),
    ("@22", "not disposed", head + "[2] > @23 CheckoutPageState._widget > @22 CheckoutPage"),
    ("@27", "not disposed",
     head + "[2] > @23 CheckoutPageState._controller > @27 TextEditingController"),
]
got = []
for t in d["traces"]:
    els = t["elements"]
    path = " > ".join("%s %s%s" % (e["id"], e["class"],
                      ("." if e["reference"]["type"] != "array_entry" else "")
                      + e["reference"]["display"] if "reference" in e else "") for e in els)
    last = els[-1]
    assert last["leaking"] == "YES" and t["leaking_object"] == last["id"], t
    got.append((last["id"], last["reason"], path))
exp = [(i, "leak_tracker: %s, identityHashCode %d" % (v, H(int(i[1:]))), p) for i, v, p in want]
assert sorted(got) == sorted(exp), (got, exp)
assert d["leaking_objects"] == 5, d["leaking_objects"]
# the page only a weak reference holds (@42) was reported GCed late: in the dump, unreachable
u = d["unreachable_objects"]
assert [(x["id"], x["class"], x["reason"]) for x in u] == [
    ("@42", "CheckoutPage", "leak_tracker: GCed late, identityHashCode %d" % H(42))], u
# the two screens not GCed share one signature; each other leak is its own group
assert sorted(len(g["traces"]) for g in d["application_leaks"]) == [1, 1, 2], d
assert d["warnings"] == [sys.argv[1].replace("a.json", "leaks.json")
                         + ": 2 of 7 reported objects are not in the snapshot "
                         "(collected before it was written)"], d["warnings"]
PY
# The text report says the same to a person.
"$LEAKRAY" analyze --no-timing "$D" --leak-tracker "$W/leaks.json" >"$W/a.txt" 2>/dev/null
h9=$(python3 -c 'print(((9 - 1) * 2654435761) & 0x7FFFFFFF)')
grep -q "^3 APPLICATION LEAKS$" "$W/a.txt" || fail "text: $(head -5 "$W/a.txt")"
grep -qF "Leaking: YES (leak_tracker: not GCed, identityHashCode $h9)" "$W/a.txt" ||
    fail "text: no not-GCed verdict"
# Without the report nothing is leaking.
"$LEAKRAY" analyze --json --no-timing "$D" >"$W/none.json"
grep -q '"leaking_objects": 0' "$W/none.json" || fail "leaking objects without a report"

# An old-layout snapshot records no identity hashes: a usage error, not silence.
python3 "$LEAKRAY_SRC/tests/programs/dart/dartheap.py" "$W/old.dartheap" old 5
rc=0
"$LEAKRAY" analyze "$W/old.dartheap" --leak-tracker "$W/leaks.json" >/dev/null 2>"$W/err" || rc=$?
[ "$rc" = 2 ] && grep -q "identity hash" "$W/err" || fail "old layout: exit $rc $(cat "$W/err")"
# Bad reports: cut, unknown leak type, a report without its code.
head -c 300 "$W/leaks.json" >"$W/cut.json"
printf '{"leakedSoon": []}\n' >"$W/type.json"
printf '{"notGCed": [{"type": "CheckoutPageState"}]}\n' >"$W/code.json"
for f in cut type code; do
    rc=0
    "$LEAKRAY" analyze "$D" --leak-tracker "$W/$f.json" >/dev/null 2>"$W/err" || rc=$?
    [ "$rc" = 3 ] && grep -q "$f.json: offset 0x" "$W/err" ||
        fail "$f.json: exit $rc $(cat "$W/err")"
done
echo "dart_leak_tracker: ok"
