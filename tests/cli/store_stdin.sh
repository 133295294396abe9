#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_stdin.sh: `store ingest` takes a report or a dump from standard input (`-`) and from a
# pipe, as every verb takes its dump: its bytes go to a file of the temporary folder first,
# so sniffing (report or dump?) and analysing read the same bytes. It said "unknown heap dump
# format" for a report on stdin, and recorded a failed report each time.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init store-stdin
cli_fixtures
D=$FIX/dialer.android-hprof
DB=$T/s.db
"$LEAKRAY" analyze --json --no-timing "$D" >"$T/day.json" || [ $? = 1 ]
set +e
"$LEAKRAY" store ingest --db "$DB" --tmpdir "$T" - <"$T/day.json" >"$T/out" 2>"$T/err"
RC=$?
set -e
expect_rc 0
expect_out "^stored -: report #1, 1 leak"
set +e
"$LEAKRAY" store ingest --db "$DB" --tmpdir "$T" <(cat "$D") >"$T/out" 2>"$T/err"
RC=$?
set -e
expect_rc 0
expect_out "report #2, 1 leak \(0 new\)"
run store leaks --db "$DB" --json
json_eq 'd["leaks"][0]["occurrences"]' 2
[ -z "$(ls "$T"/leakray-ingest.* 2>/dev/null)" ] || fail "a spooled input was left behind"
echo "store_stdin: ok"
