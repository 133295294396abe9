#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_fixtures.sh: the CLI over the real V8 fixtures (../shared/fixtures/v8, SOURCES.md says
# what each holds). Every file loads with the v8 reader, gzip ones included; heap-1's `keep`
# InitialObject @27945 is reached through the script context's `refs` and `keep`, as the
# origin repository's test states; snapshot2 holds exactly one Foo (52 bytes) and snapshot1
# none; the 2018 alinode file's sixteen 80 MB element stores make a 1.2 GB retained total
# (64-bit sizes); the 2017 files count their 13 / 42 nodes of undeclared type 12.
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

grep -q 'unknown_node_type .* 13 ' <<<"$("$LEAKRAY" info "$fx/small.heapsnapshot" --no-timing)" \
    || fail "small: 13 undeclared types"
grep -q 'unknown_node_type .* 42 ' <<<"$("$LEAKRAY" info "$fx/test.heapsnapshot" --no-timing)" \
    || fail "test: 42 undeclared types"
echo "ok"
