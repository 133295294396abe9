#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_snapshot.sh: `leakray store ingest` takes a .heapsnapshot (and a JSON-lines graph,
# also a JSON file) as the dump it is: analysed on the way in as an HPROF dump is, the stored
# report being the one `analyze --json` prints for it. A report written by `analyze --json`
# is still stored as a report, and JSON that is neither is refused as before.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init store-snapshot
command -v python3 >/dev/null || skip "no python3"
db=$T/store.db
snaps=("$LEAKRAY_SRC/tests/data/v8/cliques.heapsnapshot")
fx=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/globals.heapsnapshot
if [ -f "$fx" ]; then snaps+=("$fx"); fi

for snap in "${snaps[@]}"; do
    name=$(basename "$snap")
    run store ingest --db "$db" --app web --version 1 --at 2026-11-30 --json "$snap"
    expect_rc 0
    json_eq "d['ingested'][0]['error']" null
    json_eq "d['ingested'][0]['status']" stored
    json_eq "d['ingested'][0]['kind']" analyze
    got=$(json_get "d['ingested'][0]['leaks']")
    # what was stored is analyze's report of the snapshot: the same leak groups, or its
    # suspects when it has no leaking object
    run analyze --json --no-timing "$snap"
    want=$(json_get "len(d['application_leaks']) + len(d['library_leaks']) + \
(len(d['suspects']) if d['mode'] == 'suspects' else 0)")
    [ "$got" = "$want" ] || fail "$name: $got leaks stored, analyze reports $want"
done

# the same snapshot again: stored once
run store ingest --db "$db" --app web --version 1 --at 2026-11-30 "${snaps[0]}"
expect_rc 0

# a JSON-lines graph written by convert is a dump too
run convert --no-timing "${snaps[0]}" -o "$T/g.jsonl"
expect_rc 0
run store ingest --db "$db" --app web --version 2 --at 2026-12-01 --json "$T/g.jsonl"
expect_rc 0
json_eq "d['ingested'][0]['error']" null

# analyze's report is still a report; other JSON is still refused
run analyze --json --no-timing "${snaps[0]}"
cp "$T/out" "$T/report.json"
run store ingest --db "$db" --app web --version 3 --at 2026-12-02 --json "$T/report.json"
expect_rc 0
json_eq "d['ingested'][0]['error']" null
echo '{"hello": 1}' >"$T/other.json"
run store ingest --db "$db" --app web --version 3 "$T/other.json"
expect_rc 3
expect_err 'other.json: no schema_version: not a leakray report'
# JSON that is no object is refused the same way (it was recorded as a failed dump), and a
# report saved with a byte-order mark is a report
echo '[1, 2, 3]' >"$T/array.json"
run store ingest --db "$db" --app web --version 3 "$T/array.json"
expect_rc 3
expect_err 'array.json: no schema_version: not a leakray report'
printf '\357\273\277' >"$T/bom.json"
cat "$T/report.json" >>"$T/bom.json"
run store ingest --db "$db" --app web --version 5 --json "$T/bom.json"
expect_rc 0
json_eq "d['ingested'][0]['status']" stored
# The report page's model lists traces too, its leaks under groups: refused, never stored as
# a report with no leak (every leak of that version then read as fixed)
"$LEAKRAY" report "${snaps[0]}" --format json --no-timing -o "$T/model.json" >/dev/null 2>&1 ||
    fail "report --format json failed"
run store ingest --db "$db" --app web --version 4 "$T/model.json"
expect_rc 3
expect_err "the report page's model"
# `default` names the per-user store for --db as for --store (a file named ./default was made),
# and --store is --db's other name
mkdir -p "$T/home"
(cd "$T" && HOME=$T/home LEAKRAY_DB='' "$LEAKRAY" store ingest --db default --app web \
    "$T/report.json" >"$T/def.out" 2>&1) || fail "store ingest --db default failed"
grep -q "^stored " "$T/def.out" || fail "--db default: $(cat "$T/def.out")"
[ ! -e "$T/default" ] || fail "--db default made a file named default"
[ -f "$T/home/.local/share/leakray/store.db" ] || fail "--db default: no per-user store"
(cd "$T" && HOME=$T/home LEAKRAY_DB='' "$LEAKRAY" store leaks --store default --json \
    >"$T/out" 2>"$T/err") || fail "store leaks --store default: $(cat "$T/err")"
json_eq '"leaks" in d' true
echo "ok: store ingest analyses snapshots and JSON-lines graphs, keeps reports as reports"
