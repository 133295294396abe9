#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_numbers.sh: a report's figures are whole numbers a heap can have, or the report is
# refused (exit 3, naming the file and the figure). One report of 5e18 retained bytes,
# ingested twice, made every later `store trend` and dashboard of the store fail with an
# integer overflow; 2^63 was stored as 9 bytes (SQLite reads it as a real, "9.2e+18", then
# its first digit), -1 as 18.4 EB, a fraction or a string as its leading digits or 0; a
# schema_version of 2^63 read as 9. And a trace cited by many groups is stored once.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init store-numbers
command -v python3 >/dev/null || skip "no python3"
db=$T/store.db
run analyze --json --no-timing "$LEAKRAY_SRC/tests/data/browser/browser-final.heapsnapshot.gz"
expect_rc 0
cp "$T/out" "$T/report.json"
edit() { # OUT EXPR: report.json with EXPR applied to d
    python3 - "$T/report.json" "$T/$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d))
PY
}
i=0
for v in 5000000000000000000 -1 9223372036854775808 1e308 1500.5 '"abc"'; do
    i=$((i + 1))
    edit "bad$i.json" "d['application_leaks'][0]['retained_bytes'] = json.loads('$v')"
    run store ingest --db "$db" --version 1 "$T/bad$i.json"
    expect_rc 3
    expect_err "bad$i.json: a leak's retained bytes is "
    expect_err "not a whole number from 0 to 2.48"
done
edit objs.json "d['application_leaks'][0]['retained_objects'] = -5"
run store ingest --db "$db" --version 1 "$T/objs.json"
expect_rc 3
expect_err "objs.json: a leak's retained objects is \"-5\""
for v in 9223372036854775808 -1 2.5; do
    edit schema.json "d['schema_version'] = json.loads('$v')"
    run store ingest --db "$db" --version 1 "$T/schema.json"
    expect_rc 3
    expect_err "schema.json: schema_version is not a version number"
done
# nothing was stored; the report itself is, twice, and the store's sums work
for n in 1 2; do
    run store ingest --db "$db" --version "$n" --at "2026-12-0$n" "$T/report.json"
    expect_rc 0
done
run store trend --db "$db" --json
expect_rc 0
run store leaks --db "$db" --json
expect_rc 0
json_eq "d['leaks'][0]['retained_max']" 416944

# a trace is one group's: a report whose 300 groups all cite one trace stored it 300 times
edit shared.json "
g = d['application_leaks'][0]
t = d['traces'][0]
t['elements'] = t['elements'] * 40
d['traces'] = [t]
g.pop('stable_signature', None)
d['application_leaks'] = [dict(g, signature='%040x' % i, traces=[0]) for i in range(300)]"
run store ingest --db "$T/shared.db" --version 1 "$T/shared.json"
expect_rc 0
rsize=$(stat -c %s "$T/shared.json")
dsize=$(stat -c %s "$T/shared.db")
[ "$dsize" -lt $((4 * rsize + 1048576)) ] ||
    fail "a $rsize-byte report made a $dsize-byte store (the trace once per group)"
echo "store_numbers: ok"
