#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# reload_compare.sh: two dumps of one process that reloaded its generated code between them
# (tests/programs/reload/Reload.java: 600 hidden classes a round, each named with its address)
# are one program: `diff` compares them, and the 600 classes of each round are one row. They
# were refused as "different programs" (600 and 600 names of 1,431 each side's own).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/reload_compare"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work" "$LEAKRAY_SRC/tests/programs/reload/Reload.java"
java -cp "$work" Reload 600 "$work/a.hprof" "$work/b.hprof"
rc=0
"$LEAKRAY" diff "$work/a.hprof" "$work/b.hprof" --json --no-timing >"$work/d.json" \
    2>"$work/err.txt" || rc=$?
[ "$rc" -eq 0 ] || fail "diff of one process exits $rc: $(cat "$work/err.txt")"
python3 - "$work/d.json" <<'PY' || fail "the hidden classes' row"
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d['classes'] if r['name'].startswith('Reload$Gen')]
assert not rows or all(r['count_a'] == r['count_b'] for r in rows), rows
PY
echo "ok: diff of one process across a reload of 600 hidden classes"
