#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# truncated_dumps.sh: a dump cut at a record or segment boundary parses, but it is never taken
# for a complete one. The leak program of tests/programs/leaks dumps a heap with watched
# leaks (HotSpot writes HEAP_DUMP_SEGMENTs, GC roots last); copies of it are cut after each
# top-level record boundary inside the heap dump, before its HEAP_DUMP_END, and after the
# header. Each must: load (info exit 0) with the `truncated` diagnostic in `info`, in
# `info --json` and on stderr; give `"truncated": true` in `analyze --json`; and make
# `analyze --fail-on-leak` exit 3 (exit 0 or 1 with --allow-truncated). The whole dump has
# none of that and gives exit 1 (it has leaks).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
if ! command -v javac >/dev/null || ! command -v java >/dev/null || ! command -v python3 >/dev/null; then
    echo "SKIP: javac/java/python3 not installed"
    exit 77
fi
work="$LEAKRAY_BUILD/tmp/truncated_dumps"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/leaks/*.java
java -cp "$work/classes" com.example.LeakDemo "$work/whole.hprof"

# the cut points: every top-level record boundary from the first heap dump record on (the
# last one is just before HEAP_DUMP_END), and the end of the header
python3 - "$work/whole.hprof" "$work" <<'PY'
import struct, sys
path, out = sys.argv[1:3]
d = open(path, "rb").read()
p = d.index(b"\0") + 1 + 4 + 8
header, cuts, in_heap = p, [], False
while p < len(d):
    tag, ln = d[p], struct.unpack(">I", d[p + 5:p + 9])[0]
    if tag in (0x0c, 0x1c):
        in_heap = True
    if in_heap and tag != 0x2c:
        cuts.append(p + 9 + ln)
    p += 9 + ln
assert d[p - 9] == 0x2c, "no HEAP_DUMP_END at the end"
cuts = [header] + cuts  # cuts[-1] drops only HEAP_DUMP_END
step = max(1, len(cuts) // 6)
pick = sorted(set(cuts[::step] + [cuts[-1]]))
for i, c in enumerate(pick):
    open(f"{out}/cut{i}.hprof", "wb").write(d[:c])
print(len(pick), "cuts of", len(d), "bytes:", pick, file=sys.stderr)
PY

rc=0; "$LEAKRAY" analyze --no-progress --fail-on-leak --no-timing "$work/whole.hprof" \
    >"$work/whole.txt" 2>"$work/whole.err" || rc=$?
[ "$rc" = 1 ] || fail "whole dump: --fail-on-leak exit $rc, want 1"
! grep -q truncated "$work/whole.err" || fail "whole dump: truncation warning"
"$LEAKRAY" info --json "$work/whole.hprof" | python3 -c '
import json, sys; d = json.load(sys.stdin)
assert "truncated" not in json.dumps(d.get("diagnostics", d)), "whole dump flagged"' ||
    fail "whole dump: truncated diagnostic"

n=0
for f in "$work"/cut*.hprof; do
    n=$((n + 1))
    b=$(basename "$f" .hprof)
    rc=0; "$LEAKRAY" info --no-progress "$f" >"$work/$b.info" 2>"$work/$b.err" || rc=$?
    [ "$rc" = 0 ] || fail "$b: info exit $rc: $(head -1 "$work/$b.err")"
    grep -q '^leakray: .*: warning: the file was cut short' "$work/$b.err" ||
        fail "$b: no warning on stderr"
    grep -q '^  truncated  *error  *1 ' "$work/$b.info" || fail "$b: info does not list it"
    grep -q '"truncated"' <<<"$("$LEAKRAY" info --json "$f" 2>/dev/null)" || fail "$b: info --json"
    "$LEAKRAY" analyze --json --no-timing "$f" 2>/dev/null |
        python3 -c 'import json,sys; assert json.load(sys.stdin)["truncated"] is True' ||
        fail "$b: analyze --json truncated"
    rc=0; "$LEAKRAY" analyze --fail-on-leak --no-timing "$f" >/dev/null 2>"$work/$b.aerr" || rc=$?
    [ "$rc" = 3 ] || fail "$b: analyze --fail-on-leak exit $rc, want 3"
    grep -q 'dump is truncated, --fail-on-leak cannot pass' "$work/$b.aerr" ||
        fail "$b: no reason for exit 3"
    rc=0; "$LEAKRAY" analyze --fail-on-leak --allow-truncated --no-timing "$f" >/dev/null \
        2>&1 || rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$b: --allow-truncated exit $rc"
done
[ "$n" -ge 4 ] || fail "only $n cut points"
echo "PASS ($n cuts)"
