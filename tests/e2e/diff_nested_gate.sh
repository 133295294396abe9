#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# diff_nested_gate.sh: a --fail-on-growth gate may name a nested class as Java source does
# (Grows.Session, where the dumps hold Grows$Session): it is read as that class, with a
# warning, and the gate fails on its growth (it judged "0 -> 0" and passed, a CI gate that
# could never fail). A name that is no class stays unknown.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/diff_nested_gate"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/diff/Grows.java"
java -Xmx64m -cp "$work/classes" Grows "$work/a.hprof" "$work/b.hprof"
gate() { # EXPECTED_RC GATE
    local rc=0
    "$LEAKRAY" diff "$work/a.hprof" "$work/b.hprof" --json --no-timing \
        --fail-on-growth "$2" >"$work/d.json" 2>"$work/d.err" || rc=$?
    [ "$rc" = "$1" ] || fail "$2: exit $rc, want $1: $(cat "$work/d.err")"
}
gate 1 'Grows$Session=150'
gate 1 'Grows.Session=150'
grep -q "class 'Grows.Session' read as 'Grows\$Session', the JVM's name of the nested class" \
    "$work/d.err" || fail "no word of the name read: $(cat "$work/d.err")"
python3 - "$work/d.json" <<'PY' || fail "the gate's counts"
import json, sys
g = json.load(open(sys.argv[1]))["gates"][0]
assert g["known"] and g["failed"] and g["count_a"] == 100 and g["count_b"] == 300, g
PY
gate 0 'Grows.Nope=1'
grep -q "no class named 'Grows.Nope' in either snapshot" "$work/d.err" ||
    fail "Grows.Nope: $(cat "$work/d.err")"
echo "diff_nested_gate: ok"
