#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_fixtures.sh: the CLI over the real V8 fixtures (../shared/fixtures/v8, SOURCES.md says
# what each holds). Every file loads with the v8 reader, gzip ones included; heap-1's `keep`
# InitialObject @27945 is reached through the script context's `refs` and `keep`, as the
# origin repository's test states; snapshot2 holds exactly one Foo (52 bytes) and snapshot1
# none; the 2018 alinode file's sixteen 80 MB element stores make a 1.2 GB retained total
# (64-bit sizes); the 2017 files count their 13 / 42 nodes of undeclared type 12. heap-1's
# payloads (label + '-' + 'x'.repeat(n), concatenated strings over shared parts) read back
# with the script's lengths in `sql` and with their text in `show`, as DevTools rebuilds them;
# heap-1 with its top-level keys reordered ("strings" first) reads the same.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8"
if [ ! -f "$fx/SOURCES.md" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures missing in $fx" >&2; exit 1; fi
    echo "SKIP: fixtures not found in $fx"
    exit 77
fi
work="$LEAKRAY_BUILD/tmp/v8_fixtures"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

for f in "$fx"/*.heapsnapshot "$fx"/*.heapsnapshot.gz; do
    "$LEAKRAY" info "$f" --no-timing > "$work/info.txt" || fail "info $(basename "$f")"
    grep -q '^format: *v8, V8 heap snapshot' "$work/info.txt" ||
        fail "format of $(basename "$f")"
done

"$LEAKRAY" path "$fx/heap-1.heapsnapshot" @27945 --no-timing > "$work/path.txt"
grep -q 'context refs' "$work/path.txt" || fail "heap-1 path lacks refs"
grep -q 'property keep' "$work/path.txt" || fail "heap-1 path lacks keep"
tail -2 "$work/path.txt" | grep -q '@27945 InitialObject' || fail "heap-1 path target"
"$LEAKRAY" show "$fx/heap-1.heapsnapshot" @27945 --no-timing > "$work/show.txt"
head -1 "$work/show.txt" | grep -q '^@27945 InitialObject$' || fail "show @27945"

foo2=$("$LEAKRAY" histo "$fx/snapshot2.heapsnapshot.gz" --no-timing |
    awk '$NF == "Foo" { print $2, $3 }')
[ "$foo2" = "1 52" ] || fail "snapshot2 Foo: '$foo2'"
foo1=$("$LEAKRAY" histo "$fx/snapshot1.heapsnapshot.gz" --no-timing | awk '$NF == "Foo"' | wc -l)
[ "$foo1" = 0 ] || fail "snapshot1 has Foo"

"$LEAKRAY" top "$fx/test.heapsnapshot" --no-timing > "$work/top.all"; head -1 "$work/top.all" > "$work/top.txt"
grep -q '1,284,644,636 bytes' "$work/top.txt" ||
    fail "test.heapsnapshot total: $(cat "$work/top.txt")"

# a and b replaced, keep kept: 200000, 180000, 220000 x's after their labels
"$LEAKRAY" sql "$fx/heap-1.heapsnapshot" --csv --no-timing "SELECT substr(s.value, 1, 5),
    length(s.value), length(replace(substr(s.value, instr(s.value, '-') + 1), 'x', ''))
    FROM strings s JOIN objects o ON o.id = s.id WHERE o.class = '(concatenated string)'
    AND s.value GLOB '[abk]*-xxx*' ORDER BY 2" > "$work/cons.csv"
[ "$(tr -d '\r' < "$work/cons.csv" | tail -n +2 | tr '\n' ' ')" = \
  "b-xxx,180002,0 a-xxx,200002,0 keep-,220005,0 " ] || fail "heap-1 payloads: $(cat "$work/cons.csv")"
"$LEAKRAY" show "$fx/heap-1.heapsnapshot" @27947 --no-timing > "$work/cons.txt"
grep -q '^value: *"a-xxxxxxxx.*" (200002 bytes UTF-8)' "$work/cons.txt" ||
    fail "show @27947: $(grep value "$work/cons.txt")"

# The top-level keys in another order (a snapshot re-serialised by another tool): the same
# heap, whichever key comes first.
python3 - "$fx/heap-1.heapsnapshot" "$work/reordered.heapsnapshot" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump({k: d[k] for k in ["strings"] + [k for k in d if k != "strings"]}, open(sys.argv[2], "w"))
PY
"$LEAKRAY" histo "$fx/heap-1.heapsnapshot" --json --no-timing | grep -v '"file"' > "$work/h1.json"
"$LEAKRAY" histo "$work/reordered.heapsnapshot" --json --no-timing | grep -v '"file"' > "$work/h1r.json"
cmp -s "$work/h1.json" "$work/h1r.json" || fail "heap-1 with \"strings\" first reads otherwise"

grep -q 'unknown_node_type .* 13 ' <<<"$("$LEAKRAY" info "$fx/small.heapsnapshot" --no-timing)" \
    || fail "small: 13 undeclared types"
grep -q 'unknown_node_type .* 42 ' <<<"$("$LEAKRAY" info "$fx/test.heapsnapshot" --no-timing)" \
    || fail "test: 42 undeclared types"
echo "ok"
