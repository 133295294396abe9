#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# voice_columns.sh: one name per quantity in every table. `diff` by class names its columns
# as histo and top do (count, shallow, retained, class name; A, B and delta of each), not
# "# A", "Size A" and "Class"; by node id it keeps DevTools' Comparison names (# New, Alloc.
# size, Constructor), which tests/e2e/js_diff.sh checks.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
FX=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}
[ -f "$FX/hprof/test-dump.hprof" ] || { echo "SKIP: fixtures not found in $FX"; exit 77; }
work="$LEAKRAY_BUILD/tmp/voice_columns"
rm -rf "$work" && mkdir -p "$work"
A=$FX/hprof/test-dump-base.hprof B=$FX/hprof/test-dump.hprof
"$LEAKRAY" histo "$B" --retained --no-timing >"$work/histo.txt"
"$LEAKRAY" diff "$A" "$B" --retained --no-timing >"$work/diff.txt"
fails=0
head -1 "$work/histo.txt" | grep -Eq '^ num +count +shallow +retained +% heap  class name$' \
    || { echo "FAIL: histo header: $(head -1 "$work/histo.txt")"; fails=1; }
cols='count A +count B +count delta +shallow A +shallow B +shallow delta'
cols="$cols +retained A +retained B +retained delta  class name"
sed -n 2p "$work/diff.txt" | grep -Eq "^ +$cols\$" \
    || { echo "FAIL: diff header: $(sed -n 2p "$work/diff.txt")"; fails=1; }
# the columns still line up: each row's "byte[]" line has nine numbers under nine names
row='^ +1,270 +1,268 +-2 +601,702 +1,201,675 +\+599,973 +[0-9,]+ +[0-9,]+ +\+[0-9,]+  byte\[\]$'
grep -Eq "$row" "$work/diff.txt" || { echo "FAIL: diff row for byte[]"; fails=1; }
[ "$fails" -eq 0 ] && echo "ok: diff's columns are named as histo's" || exit 1
