#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_restart_keys.sh: a suspect is kept in the store by what stays from one run of the
# program to the next. tests/programs/store/PoolLocals.java: the 3 MB a pool worker's local
# holds lands under pool-1-thread-2 in one run and pool-1-thread-3 in another (the
# scheduler's choice); `store diff` read that as one suspect fixed and another new. The
# key now takes the thread's name without its counters, and class names as the traces'
# stable signatures take them.
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
rows = d.get('leaks', d.get('rows', []))
status = [r.get('status') for r in rows if r.get('kind') == 'suspect']
assert 'new' not in status and 'fixed' not in status, rows
PY
echo "store_restart_keys: ok"
