#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_stdin.sh: `store ingest` takes a report or a dump from standard input (`-`) and from a
# pipe, as every verb takes its dump: its bytes go to a file of the temporary folder first,
# so sniffing (report or dump?) and analysing read the same bytes. It said "unknown heap dump
# format" for a report on stdin, and recorded a failed report each time. A command that only
# reads a store refuses one that does not exist (exit 4) instead of making it empty.
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
# the dump whose report came first: both are dated by the dump's own time (its HPROF
# header), so the store has it already (a second occurrence of one heap before)
expect_out "^already stored: .* \(report #1\)"
run store leaks --db "$DB" --json
json_eq 'd["leaks"][0]["occurrences"]' 1
[ -z "$(ls "$T"/leakray-ingest.* 2>/dev/null)" ] || fail "a spooled input was left behind"
# a command that only reads opens what exists: a mistyped --db was made on the spot, empty,
# and answered "0 distinct leaks"
for cmd in leaks trend export; do
    run store $cmd --db "$T/typo.db"
    expect_rc 4
    grep -q "no leak store at $T/typo.db" "$T/err" "$T/out" || fail "store $cmd: no message"
    [ ! -e "$T/typo.db" ] || fail "store $cmd made $T/typo.db"
done
# a URL of a scheme no store speaks was taken for a SQLite file name and made, exit 0
for url in 'pg:leaks' 'postgress://fleet@/leaks'; do
    (cd "$T" && "$LEAKRAY" store ingest --db "$url" "$D" >"$T/out" 2>"$T/err") && RC=0 || RC=$?
    expect_rc 2
    expect_err "has a scheme no store speaks"
    [ ! -e "$T/$url" ] && [ ! -e "$T/postgress:" ] || fail "--db $url made a file"
done
# the dashboard only reads too: it made the store and published an empty page, exit 0
run report --db "$T/typo.db" -o "$T/typo.html"
expect_rc 4
grep -q "no leak store at $T/typo.db" "$T/err" "$T/out" || fail "report --db: no message"
[ ! -e "$T/typo.db" ] && [ ! -e "$T/typo.html" ] || fail "report --db made a store or a page"
# a store whose schema_version is 0, or gone, is a damaged store (exit 3), not none: read as
# none, the next ingest failed on its tables with a raw SQL error
small=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/small.heapsnapshot
for edit in "UPDATE store_meta SET value = '0' WHERE key = 'schema_version'" \
            "DELETE FROM store_meta WHERE key = 'schema_version'"; do
    rm -f "$T/v0.db"
    run store ingest --db "$T/v0.db" --app a "$small"
    expect_rc 0
    python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2])
c.commit()' "$T/v0.db" "$edit"
    for cmd in "leaks" "ingest $small"; do
        read -r -a args <<<"$cmd"
        run store "${args[@]}" --db "$T/v0.db"
        expect_rc 3
        expect_err "schema_version is no version this leakray knows \(a damaged store\)"
    done
done
echo "store_stdin: ok"
