#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# unreachable_watched.sh: watched objects with no strong path from a GC root are listed as
# UNREACHABLE OBJECTS, never as leaks. tests/programs/audit2/UnreachableWatched.java watches
# three pages through leakcanary.KeyedWeakReference: one held by a static field (a leak), one
# held only by a SoftReference and one held by nothing but its KeyedWeakReference, and dumps
# with dumpHeap(path, false) (no GC first) so both unreachable pages are still in the dump.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/unreachable_watched"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/audit2/UnreachableWatched.java \
    "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java
# a big young generation keeps a GC (which would clear the weakly held page) unlikely
java -Xms256m -Xmn128m -cp "$work/classes" com.example.audit2.UnreachableWatched "$work/u.hprof"
dump="$work/u.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" analyze "$dump" --no-timing > "$work/a.txt"
"$LEAKRAY" analyze "$dump" --json --no-timing > "$work/a.json"
grep -q '^1 APPLICATION LEAKS$' "$work/a.txt" || fail "text: not exactly one application leak"
grep -q '^2 UNREACHABLE OBJECTS$' "$work/a.txt" || fail "text: not two unreachable objects"
# the unreachable section lists both pages with their watcher reasons
awk '/^2 UNREACHABLE OBJECTS$/{f=1} /^METADATA$/{f=0} f' "$work/a.txt" > "$work/unreach.txt"
grep -q 'Leaking: YES (ObjectWatcher was watching this because screen soft-only)' \
    "$work/unreach.txt" || fail "text: soft-only page not in UNREACHABLE OBJECTS"
grep -q 'Leaking: YES (ObjectWatcher was watching this because screen weak-only-' \
    "$work/unreach.txt" || fail "text: weak-only page not in UNREACHABLE OBJECTS"
# Shark indents an unreachable object's lines by two spaces (five in a trace); the U+200B
# it starts them with is written on a terminal only
grep -q "^  Leaking: YES (ObjectWatcher" "$work/unreach.txt" ||
    fail "text: unreachable entries not indented as Shark's"
if grep -q "^     Leaking" "$work/unreach.txt"; then fail "text: trace indent in UNREACHABLE"; fi
# a leak found only through unreachable watched objects still counts for --fail-on-leak
rc=0; "$LEAKRAY" analyze "$dump" --fail-on-leak --no-timing > /dev/null || rc=$?
[ "$rc" = 1 ] || fail "--fail-on-leak exit $rc"

ids=$(python3 - "$work/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "leaks"
assert d["keyed_weak_references"] >= 3 and d["retained_yet_cleared"] == 0, d
assert d["leaking_objects"] == 3, d["leaking_objects"]
def key(e):
    return [l for l in e["labels"] if l.startswith("key = ")][0][6:]
tr = d["traces"]
assert [key(t["elements"][-1]) for t in tr] == ["strong"], [key(t["elements"][-1]) for t in tr]
assert tr[0]["elements"][-2]["reference"]["name"] == "strongHolder"
un = d["unreachable_objects"]
keys = sorted(key(u) for u in un)
assert len(keys) == 2 and keys[0] == "soft-only" and keys[1].startswith("weak-only-"), keys
for u in un:
    assert u["class"] == "com.example.audit2.Screen" and u["type"] == "instance", u
    assert u["leaking"] == "YES", u
    assert u["reason"] == "ObjectWatcher was watching this because screen " + key(u), u
    assert "watchDurationMillis = 19000" in u["labels"], u["labels"]
    assert "retainedDurationMillis = 14000" in u["labels"], u["labels"]
    assert "reference" not in u
path_ids = {e["id"] for t in tr for e in t["elements"]}
assert not path_ids & {u["id"] for u in un}
assert len(d["application_leaks"]) == 1 and d["library_leaks"] == []
print(" ".join(u["id"] for u in un))
PY
)
# `leakray path` agrees: no strong path to either page, and it says which references do
# hold each (the soft one's and the weak one's: "unreachable" read as garbage)
held=""
for id in $ids; do
    "$LEAKRAY" path "$dump" "$id" > "$work/path.txt"
    grep -q "^$id com.example.audit2.Screen is not strongly reachable: no strong reference path from a GC root; it is referred to through [a-z]* references\$" \
        "$work/path.txt" || fail "path $id: $(cat "$work/path.txt")"
    held="$held $(sed 's/.* through \([a-z]*\) references$/\1/' "$work/path.txt")"
done
[ "$(echo $held | tr ' ' '\n' | sort | tr '\n' ' ')" = "soft weak " ] ||
    fail "path: the pages held through '$held', not one soft and one weak"
# how Java reaches it, not its referrers' kind: a Behind whose referrers are a WeakHashMap
# entry and an array only a SoftReference holds is softly reachable (it read "weak")
bid=$("$LEAKRAY" sql "$dump" "SELECT id FROM objects WHERE class = 'com.example.audit2.Behind'" |
    tail -n 1 | tr -d '\r')
"$LEAKRAY" path "$dump" "$bid" > "$work/behind.txt"
grep -q "is not strongly reachable: .* through soft references\$" "$work/behind.txt" ||
    fail "path of the softly reachable Behind: $(cat "$work/behind.txt")"
echo "unreachable_watched: ok"
