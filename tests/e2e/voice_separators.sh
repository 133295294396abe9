#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# voice_separators.sh: one voice for counts. Every verb's text output over the fixtures prints
# counts of 1,000 and more with thousands separators (tests/e2e/voice_separators.py says what
# is not a count): the suspect sentence ("7,988 instances of java.lang.String occupy ..."),
# `path --merged`'s "... 1,649 more branches", the native report's SUMMARY, and the rest of
# analyze, dupes, info, histo, top, threads, show, cycles, diff, clusters and leaks. JSON keeps
# numbers as numbers.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
FX=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
[ -f "$FX/hprof/dialer.android-hprof" ] || { echo "SKIP: fixtures not found in $FX"; exit 77; }
work="$LEAKRAY_BUILD/tmp/voice_separators"
rm -rf "$work" && mkdir -p "$work"
D=$FX/hprof/dialer.android-hprof J=$FX/hprof/java_pid1884.0001.hprof.gz V=$FX/v8
run() { local out=$1; shift; "$LEAKRAY" "$@" --no-timing >"$work/$out.txt" 2>&1 || true; }
run analyze analyze "$D"
run dupes dupes "$D"
run path path "$D" --class java.lang.String --merged
run info info "$J"
run histo histo "$J" --retained
run top top "$J"
run threads threads "$J"
run cycles cycles "$D" --class java.util.HashMap
run show show "$J" "$(grep -o '0x[0-9a-f]*' "$work/top.txt" | head -1)"
run diff diff "$V/heap-1.heapsnapshot" "$V/heap-3.heapsnapshot"
run clusters clusters "$V/heap-3.heapsnapshot"
run leaks leaks --baseline "$V/heap-1.heapsnapshot" --target "$V/heap-2.heapsnapshot" \
    --final "$V/heap-3.heapsnapshot"
run native native report "$LEAKRAY_SRC/tests/data/native/leaks.lrn"
fails=0
python3 "$LEAKRAY_SRC/tests/e2e/voice_separators.py" "$work"/*.txt || fails=1
grep -q '^Suspect 1: 7,988 instances of java.lang.String occupy 400,512 bytes' \
    "$work/analyze.txt" || { echo "FAIL: suspect sentence"; fails=1; }
grep -q '\.\.\. 1,649 more branches' "$work/path.txt" || { echo "FAIL: merged branches"; fails=1; }
grep -q '^SUMMARY: 4,712 byte(s) leaked in 19 block(s): direct 3,160 in 6' "$work/native.txt" \
    || { echo "FAIL: native SUMMARY"; fails=1; }
"$LEAKRAY" analyze "$D" --json --no-timing >"$work/analyze.json"
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['suspects'][0]
sys.exit(0 if s['count'] == 7988 and isinstance(s['retained_bytes'], int) else 1)" \
    "$work/analyze.json" || { echo "FAIL: JSON numbers"; fails=1; }
[ "$fails" -eq 0 ] && echo "ok: counts with thousands separators in every verb's text" || exit 1
