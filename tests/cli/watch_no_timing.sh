#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# watch_no_timing.sh: `leakray watch analyze DUMP --no-timing` (what the JVM agent runs
# after a dump, here on a real HotSpot fixture named as the agent names its dumps) writes no
# clock reading: the summary line on stderr has no "analysis N s", NAME.txt has no timing
# line, and two runs give the same bytes. Without --no-timing the analysis time is shown.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init watch-no-timing
cli_fixtures
dir=$T/dumps
mkdir -p "$dir"
dump=$dir/leakray-20260101-000001-1-1.hprof
cp "$FIX/test-dump.hprof" "$dump"

for i in 1 2; do
    run watch analyze "$dump" --no-timing --pause-ms 12 --retained 5
    expect_rc 0
    cp "$T/err" "$T/summary.$i"
    cp "$dir/leakray-20260101-000001-1-1.txt" "$T/report.$i"
done
grep -qE '^leakray: [0-9]+ leaks?, .* retained, report at .*\.txt \(dump .*, pause 12 ms\)$' \
    "$T/summary.1" || fail "summary line not as expected: $(cat "$T/summary.1")"
if grep -q 'analysis' "$T/summary.1"; then fail "--no-timing: analysis time on stderr"; fi
if grep -qE '(duration|time): [0-9.]+ m?s' "$T/report.1"; then
    fail "--no-timing: a timing line in the text report"
fi
cmp -s "$T/summary.1" "$T/summary.2" || fail "summary lines differ between two runs"
cmp -s "$T/report.1" "$T/report.2" || fail "text reports differ between two runs"

run watch analyze "$dump" --pause-ms 12 --retained 5
expect_rc 0
expect_err ', pause 12 ms, analysis [0-9.]+ s\)$'
echo "ok: watch analyze --no-timing prints no clock reading"
