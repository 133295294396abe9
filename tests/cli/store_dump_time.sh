#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_dump_time.sh: one heap is one ingest, however many files carry it. Without --at the
# store dates an HPROF dump by the time its header records, not by the file's modification
# time: two copies of a dump made a second apart, the same dump streamed on standard input,
# and `analyze --json`'s report of it (which carries that time as `timestamp_ms`) are
# "already stored", where each counted once more (occurrences and instances doubled in
# `leaks`, bytes in `trend`). The agent's text report beside them is skipped with a note, not
# recorded as a failed dump (exit 3 for the batch). --at still names the time it is given. A
# dump a store already holds under its file's time (as older versions dated it) is that one.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init store-dump-time
cli_fixtures
D=$FIX/dialer.android-hprof
DB=$T/s.db
cp "$D" "$T/a.hprof"
cp "$D" "$T/b.hprof"
touch -d "2026-01-02 03:04:05" "$T/b.hprof"
run store ingest --db "$DB" --app dialer "$T/a.hprof" "$T/b.hprof"
expect_rc 0
expect_out "^stored $T/a.hprof: report #1"
expect_out "^already stored: $T/b.hprof \(report #1\)"
set +e
"$LEAKRAY" store ingest --db "$DB" --app dialer --tmpdir "$T" - <"$D" >"$T/out" 2>"$T/err"
RC=$?
set -e
expect_rc 0
expect_out "^already stored: - \(report #1\)"
"$LEAKRAY" analyze --json --no-timing "$D" >"$T/r.json" || [ $? = 1 ]
"$LEAKRAY" analyze --no-timing "$D" >"$T/r.txt" || [ $? = 1 ]
touch -d "2026-02-03 04:05:06" "$T/r.json" "$T/r.txt"
run store ingest --db "$DB" --app dialer "$T/r.json" "$T/r.txt"
expect_rc 0
expect_out "^already stored: $T/r.json \(report #1\)"
expect_err "$T/r.txt: skipped, a text report"
run store leaks --db "$DB" --json
json_eq 'd["leaks"][0]["occurrences"]' 1
# the dialer's HPROF header: 2014-07-10 (the copies are of today, b.hprof of January)
json_eq 'd["leaks"][0]["first_seen"][:10]' 2014-07-10
run store trend --db "$DB" --json
json_eq 'sum(b["failed"] for b in d["buckets"])' 0
# a time given wins: the same dump at another time is another occurrence
run store ingest --db "$DB" --app dialer --at 2026-03-04 "$T/a.hprof"
expect_rc 0
expect_out "^stored $T/a.hprof: report #2"
# a store filled by a version that dated dumps by their file's time: the same dump, ingested
# again now, is the ingest it stored then (every old dump was stored twice after an upgrade)
cp "$D" "$T/old.hprof"
touch -d @1700000000 "$T/old.hprof"
run store ingest --db "$T/up.db" --app dialer --at @1700000000 "$T/old.hprof"
expect_rc 0
run store ingest --db "$T/up.db" --app dialer "$T/old.hprof"
expect_rc 0
expect_out "^already stored: $T/old.hprof \(report #1\)"
echo "store_dump_time: ok"
