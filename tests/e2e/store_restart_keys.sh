#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_restart_keys.sh: a suspect is kept in the store by what stays from one run of the
# program to the next. tests/programs/store/PoolLocals.java: the 3 MB a pool worker's local
# holds lands under pool-1-thread-2 in one run and pool-1-thread-3 in another (the
# scheduler's choice); `store diff` read that as one suspect fixed and another new. The
# key now takes the thread's name without its counters, and class names as the traces'
# stable signatures take them; and the suspect's own path, not the way below it.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/store_restart_keys"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/store/PoolLocals.java"
for k in 1 2; do
    java -Xmx128m -cp "$work/classes" PoolLocals "$work/p$k.hprof" $k >/dev/null
    "$LEAKRAY" analyze --json --no-timing "$work/p$k.hprof" >"$work/a$k.json"
    "$LEAKRAY" store ingest --db "$work/s.db" --app svc --version $k --at 2026-12-0$k \
        "$work/a$k.json" >/dev/null || fail "ingest $k"
done
# the premise: the two runs name the heavy thread differently
python3 - "$work/a1.json" "$work/a2.json" <<'PY' || fail "premise"
import json, sys
names = []
for p in sys.argv[1:]:
    s = [x for x in json.load(open(p))['suspects'] if x['kind'] == 'thread_locals']
    assert s, 'no thread_locals suspect in ' + p
    names.append(s[0]['thread']['name'])
print('threads:', names)
PY
rc=0
"$LEAKRAY" store diff --db "$work/s.db" --from 1 --to 2 --json --no-timing >"$work/d.json" \
    2>"$work/d.err" || rc=$?
[ $rc = 0 ] || fail "store diff: exit $rc: $(cat "$work/d.err")"
python3 - "$work/d.json" <<'PY' || fail "store diff: $(head -c 800 "$work/d.json")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d['leaks']
status = [r['change'] for r in rows if r['kind'] == 'suspect']
assert status and 'new' not in status and 'fixed' not in status, rows
PY

# The way below a suspect to where its memory accumulates changes from run to run: a HashMap
# value chained in its bucket or not, a LinkedList position, a class's statics passing the
# accumulation share once one grows (tests/programs/store/SuspectKeys.java); a V8 Map's
# table slot, an object-as-map's property named after a session (suspect_keys.js). Each is
# one leak across the runs: the store keys a suspect by its own path from the root.
# same_leaks DB: store diff 1 -> 2 says nothing new and nothing fixed; prints its rows
same_leaks() {
    rc=0
    "$LEAKRAY" store diff --db "$1" --from 1 --to 2 --json --no-timing --fail-on-new \
        >"$work/d2.json" \
        2>"$work/d2.err" || rc=$?
    [ $rc = 0 ] || fail "store diff $1: exit $rc: $(cat "$work/d2.err")"
    python3 - "$work/d2.json" <<'PY' || fail "store diff $1: $(head -c 1500 "$work/d2.json")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d['leaks'] if r['kind'] == 'suspect']
bad = [(r['change'], r['short_description']) for r in rows if r['change'] in ('new', 'fixed')]
assert rows and not bad, bad
PY
}
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/store/SuspectKeys.java"
for run in "map plain chain" "list 0 15" "nest 10 20"; do
    read -r kind v1 v2 <<<"$run"
    java -Xmx256m -cp "$work/classes" SuspectKeys "$work/$kind-1.hprof" "$kind" "$v1" >/dev/null
    java -Xmx256m -cp "$work/classes" SuspectKeys "$work/$kind-2.hprof" "$kind" "$v2" >/dev/null
    for k in 1 2; do
        "$LEAKRAY" analyze --json --no-timing "$work/$kind-$k.hprof" >"$work/$kind-$k.json"
        "$LEAKRAY" store ingest --db "$work/$kind.db" --app svc --version $k \
            --at 2026-12-0$k "$work/$kind-$k.json" >/dev/null || fail "ingest $kind-$k"
    done
    # the premise: the suspect is the class, the way below it differs between the runs
    python3 - "$work/$kind-1.json" "$work/$kind-2.json" <<'PY' || fail "premise ($kind)"
import json, sys
def way(p):
    s = [x for x in json.load(open(p))['suspects'] if x['class'] == 'SuspectKeys']
    assert s and s[0]['kind'] == 'class', [(x['kind'], x['class']) for x in s]
    return [e['class'] for e in s[0]['path']], s[0]['accumulation_point']['class']
a, b = way(sys.argv[1]), way(sys.argv[2])
assert a != b, (a, b)
PY
    same_leaks "$work/$kind.db"
done
# Suspects are stored for dumps without leaking objects only: against a version whose dumps
# all had some (tests/programs/leaks' LeakDemo), a suspect of the next version is not "new"
# (a release that fixed its leaks failed --fail-on-new on what was there all along); the
# fixed leaks still read fixed
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/leaks/*.java
java -cp "$work/classes" com.example.LeakDemo "$work/demo.hprof" >/dev/null
"$LEAKRAY" analyze --json --no-timing "$work/demo.hprof" >"$work/demo.json" || [ $? = 1 ]
"$LEAKRAY" store ingest --db "$work/gate.db" --app svc --version 1 --at 2026-12-01 \
    "$work/demo.json" >/dev/null || fail "ingest demo"
"$LEAKRAY" store ingest --db "$work/gate.db" --app svc --version 2 --at 2026-12-02 \
    "$work/map-1.json" >/dev/null || fail "ingest map-1"
rc=0
"$LEAKRAY" store diff --db "$work/gate.db" --from 1 --to 2 --fail-on-new --json --no-timing \
    >"$work/gate.json" 2>"$work/gate.err" || rc=$?
[ $rc = 0 ] || fail "store diff across a version with leaks: exit $rc: $(cat "$work/gate.json")"
python3 - "$work/gate.json" <<'PY' || fail "store diff across a version with leaks: $(cat "$work/gate.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["counts"]["new"] == 0 and d["counts"]["fixed"] > 0, d["counts"]
assert d["untracked_suspects"] >= 1, d
PY
if command -v node >/dev/null; then
    node "$LEAKRAY_SRC/tests/programs/store/suspect_keys.js" "$work/j1.heapsnapshot" 0 3
    node "$LEAKRAY_SRC/tests/programs/store/suspect_keys.js" "$work/j2.heapsnapshot" 42 5
    for k in 1 2; do
        "$LEAKRAY" store ingest --db "$work/j.db" --app web --version $k --at 2026-12-0$k \
            "$work/j$k.heapsnapshot" >/dev/null || fail "ingest j$k"
    done
    same_leaks "$work/j.db"
    # two different suspects of one class (JavaScript's Object: app.moduleA, app.moduleB)
    # stay two leaks: only a JDK collection's chain links leave the key
    cat >"$work/two.js" <<'JS'
const moduleA = { cache: new Map() }, moduleB = { list: [] };
for (let i = 0; i < 40000; i++) moduleA.cache.set('k' + i, { v: 'a'.repeat(100) + i });
for (let i = 0; i < 30000; i++) moduleB.list.push({ w: 'b'.repeat(100) + i });
globalThis.app = { name: 'app', moduleA, moduleB };
globalThis.admin = { name: 'admin', moduleA, moduleB };
require('v8').writeHeapSnapshot(process.argv[2]);
JS
    node "$work/two.js" "$work/two.heapsnapshot"
    "$LEAKRAY" analyze --json --no-timing "$work/two.heapsnapshot" >"$work/two.json"
    "$LEAKRAY" store ingest --db "$work/two.db" --app web "$work/two.json" >/dev/null ||
        fail "ingest two"
    "$LEAKRAY" store leaks --db "$work/two.db" --json --no-timing >"$work/twol.json"
    python3 - "$work/two.json" "$work/twol.json" <<'PY' || fail "two suspects of one class merged"
import json, sys
a = [x for x in json.load(open(sys.argv[1]))['suspects'] if x['class'] == 'Object']
b = [x for x in json.load(open(sys.argv[2]))['leaks'] if x['kind'] == 'suspect'
     and x['short_description'].startswith('one Object')]
assert len(a) == 2 and len(b) == 2, (len(a), len(b))
PY
elif [ "${CI:-}" = true ]; then
    fail "node required under CI=true"
fi
echo "store_restart_keys: ok"
