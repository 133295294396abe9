#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_rebuilt.sh: a saved scan read after the program was rebuilt. `native report` read the
# symbols of whatever file is at the scanned path, so after a rebuild (two functions added,
# tests/programs/native/rebuilt.c with -DMORE) the lost block's frame named another function.
# The scan records each file's GNU build id; the report compares, says which file was
# rebuilt and shows its frames as offsets, in text and JSON (rebuilt_files); an unchanged
# program reads as before.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/native_lib.bash"
nat_init native_rebuilt
build() { gcc -O0 -g -fno-omit-frame-pointer "$@" -o "$NAT_TMP/app" "$NAT_PROGS/rebuilt.c" ||
    nat_fail "gcc could not build rebuilt.c"; }
build
"$LEAKRAY" native run --no-timing -o "$NAT_TMP/scan.lrn" -- "$NAT_TMP/app" >"$NAT_TMP/run.txt" ||
    nat_fail "native run failed"
grep -q ' in lose+0x[0-9a-f]* .*rebuilt\.c:' "$NAT_TMP/run.txt" ||
    nat_fail "the run does not name lose(): $(grep '#0' "$NAT_TMP/run.txt")"
"$LEAKRAY" native report --no-timing "$NAT_TMP/scan.lrn" >"$NAT_TMP/same.txt"
grep -q ' in lose+0x' "$NAT_TMP/same.txt" && ! grep -q 'rebuilt since the scan' "$NAT_TMP/same.txt" ||
    nat_fail "an unchanged program reads otherwise: $(head -5 "$NAT_TMP/same.txt")"
build -DMORE
"$LEAKRAY" native report --no-timing "$NAT_TMP/scan.lrn" >"$NAT_TMP/after.txt"
grep -q "^rebuilt since the scan (another build id): $NAT_TMP/app: its frames show offsets" \
    "$NAT_TMP/after.txt" || nat_fail "no word of the rebuilt program: $(head -6 "$NAT_TMP/after.txt")"
! grep -q ' in \(lose\|padding_one\|padding_two\)+' "$NAT_TMP/after.txt" ||
    nat_fail "a frame of the rebuilt program is named: $(grep '#' "$NAT_TMP/after.txt" | head -3)"
"$LEAKRAY" native report --json --no-timing "$NAT_TMP/scan.lrn" | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert d["rebuilt_files"] == [sys.argv[1]], d.get("rebuilt_files")' "$NAT_TMP/app" ||
    nat_fail "native report --json: rebuilt_files"
echo "native_rebuilt: ok"
