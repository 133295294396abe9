#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# legacy_keyed.sh: leaks watched by LeakCanary 1.x. tests/programs/audit2/LegacyLeak.java
# watches two objects through com.squareup.leakcanary.RefWatcher, whose
# com.squareup.leakcanary.KeyedWeakReference has only `key` and `name` (no
# retainedUptimeMillis, watchUptimeMillis or heapDumpUptimeMillis): one object stays in a
# static list, the other is collected. As in Shark, a legacy reference with a referent counts
# as retained, its description comes from `name`, and no duration labels are invented.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/legacy_keyed"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/audit2/LegacyLeak.java \
    "$LEAKRAY_SRC"/tests/programs/audit2/legacy/*.java
java -cp "$work/classes" com.example.audit2.LegacyLeak "$work/l.hprof"
dump="$work/l.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" analyze "$dump" --no-timing > "$work/a.txt"
"$LEAKRAY" analyze "$dump" --json --no-timing > "$work/a.json"
grep -q '^1 APPLICATION LEAKS$' "$work/a.txt" || fail "text: not exactly one application leak"
grep -q 'Leaking: YES (ObjectWatcher was watching this because OldActivity leaked)$' \
    "$work/a.txt" || fail "text: no legacy watcher reason"
grep -q '^Count of retained yet cleared: 1 KeyedWeakReference instances$' "$work/a.txt" ||
    fail "text: the collected watched object is not counted as cleared"
rc=0; "$LEAKRAY" analyze "$dump" --fail-on-leak --no-timing > /dev/null || rc=$?
[ "$rc" = 1 ] || fail "--fail-on-leak exit $rc"

python3 - "$work/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "leaks", d["mode"]
assert d["keyed_weak_references"] == 2 and d["retained_yet_cleared"] == 1, d
assert d["leaking_objects"] == 1 and d["unreachable_objects"] == []
tr = d["traces"]
assert len(tr) == 1 and tr[0]["source"] == "watched", tr
els = tr[0]["elements"]
last = els[-1]
assert last["class"] == "com.example.audit2.OldActivity" and last["leaking"] == "YES", last
assert last["reason"] == "ObjectWatcher was watching this because OldActivity leaked", last
# no heapDumpUptimeMillis / watchUptimeMillis / retainedUptimeMillis: only the key label
assert last["labels"] == ["key = legacy-key-1"], last["labels"]
chain = [(e["class"], e["reference"]["name"]) for e in els[:-1]]
i = chain.index(("com.example.audit2.Registry", "LISTENERS"))
# the list is crossed through its array, or as one collection reference
assert chain[i:] in ([("com.example.audit2.Registry", "LISTENERS"),
                      ("java.util.ArrayList", "elementData"), ("java.lang.Object[]", "0")],
                     [("com.example.audit2.Registry", "LISTENERS"),
                      ("java.util.ArrayList", "0")]), chain
assert els[i]["type"] == "class" and els[i]["leaking"] == "NO"
assert [e["leaking"] for e in els[i + 1:]] == ["UNKNOWN"] * (len(els) - i - 2) + ["YES"]
assert len(d["application_leaks"]) == 1
assert d["application_leaks"][0]["short_description"] == "Registry.LISTENERS"
print("legacy ok")
PY
echo "legacy_keyed: ok"
