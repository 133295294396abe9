#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# report_stdout.sh: `leakray report FILE -o -` writes the page to stdout (and nothing else:
# no "FILE -> OUT" line, not even under --json), the same bytes `-o page.html` writes, and
# creates no file named "-"; so do `--format json -o -` and the store's dashboard
# (`report --db URL -o -`). A failed write to stdout is exit 4. `analyze --html -`, whose
# stdout holds the text report, is a usage error instead of a file named "-".
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init report-stdout
cli_fixtures
command -v python3 >/dev/null || skip "no python3"
dump=$(realpath "$FIX/test-dump.hprof")
cd "$T"

no_dash() { [ ! -e "$T/-" ] || fail "$1: wrote a file named '-'"; }

run report --no-timing "$dump" -o -
expect_rc 0
no_dash "report -o -"
cp "$T/out" "$T/stdout.html"
run report --no-timing "$dump" -o "$T/page.html"
expect_rc 0
expect_out 'test-dump.hprof -> .*page.html'
cmp -s "$T/stdout.html" "$T/page.html" || fail "report -o - differs from the page -o FILE writes"
head -c 15 "$T/stdout.html" | grep -q '<!DOCTYPE html>' || fail "stdout is not the page"

run report --no-timing --json "$dump" -o -
expect_rc 0
no_dash "report --json -o -"
cmp -s "$T/out" "$T/page.html" || fail "report --json -o -: stdout holds more than the page"

run report --no-timing --format json "$dump" -o -
expect_rc 0
no_dash "report --format json -o -"
json_eq "d['format']" hprof
cp "$T/out" "$T/model-stdout.json"
run report --no-timing --format json "$dump" -o "$T/model.json"
cmp -s "$T/model-stdout.json" "$T/model.json" || fail "--format json -o - differs from the file"

if [ -w /dev/full ]; then
    set +e
    "$LEAKRAY" report --no-timing "$dump" -o - >/dev/full 2>"$T/err"
    RC=$?
    set -e
    expect_rc 4
    expect_err 'No space left'
fi

run report --help
expect_out '^OUT - writes it to stdout'

run analyze --no-timing "$dump" --html -
expect_rc 2
expect_err 'report FILE -o -'
no_dash "analyze --html -"

# the store's dashboard: one ingested dump
db=$T/store.db
run store ingest --db "$db" --app demo --version 1 --at 2026-11-30 "$dump"
expect_rc 0
run report --no-timing --db "$db" -o -
expect_rc 0
no_dash "report --db -o -"
head -c 15 "$T/out" | grep -q '<!DOCTYPE html>' || fail "dashboard: stdout is not the page"
grep -q 'leakray-store' "$T/out" || fail "dashboard: stdout is not the dashboard"
run report --no-timing --db "$db" --format json -o -
expect_rc 0
json_eq "type(d).__name__" dict
echo "ok: report -o - writes to stdout"
# analyze --json --html OUT that cannot be written: one document, the error (the result and
# then an error object were two)
run analyze --no-timing --json "$dump" --html "$T/no-such-dir/page.html"
expect_rc 4
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert "error" in d and "mode" not in d, list(d)' \
    "$T/out" || fail "analyze --json --html unwritable: $(head -c 200 "$T/out")"
echo "ok: analyze --json with an unwritable --html prints the error alone"
