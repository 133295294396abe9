#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# truncated_gates.sh: a dump cut at a record boundary loads with a warning, but no CI gate may
# pass on it: a verdict on part of a heap proves nothing (analyze --fail-on-leak already held
# this). The later dump of `leaks --fail-on-leak` and of `diff --fail-on-growth` cut after its
# first heap dump segment: exit 3 (it was 0: "0 leaks", "374 -> 0 instances"), unless
# --allow-truncated; `histo` says the file was cut short (its fast path said nothing), and
# so does the report's page;
# `store ingest` records such a dump as a failed ingest (exit 3), never as a report whose
# missing leaks would read as fixed, nor in the trend.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init truncated-gates
cli_fixtures
command -v python3 >/dev/null || skip "no python3"
FULL=$FIX/test-dump.hprof
CUT=$T/cut.hprof
python3 - "$FULL" "$CUT" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
pos = data.index(b"\0") + 1 + 4 + 8
while pos < len(data):
    tag = data[pos]
    (n,) = struct.unpack(">I", data[pos + 5:pos + 9])
    pos += 9 + n
    if tag == 0x1C:  # the first HEAP_DUMP_SEGMENT, and nothing after it
        break
open(sys.argv[2], "wb").write(data[:pos])
PY

run histo "$CUT"
expect_rc 0
expect_err "cut.hprof: warning: the file was cut short"

# the report's page says so too (its model's `truncated`, a banner): it showed a heap of
# "0 B" and no leak as if that were the answer
run report --no-timing --format json "$CUT" -o "$T/cut.json"
expect_rc 0
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["truncated"] is True' \
    "$T/cut.json" || fail "the report's model does not say the dump was cut short"
run report --no-timing --format json "$FULL" -o "$T/full.json"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["truncated"] is False' \
    "$T/full.json" || fail "a whole dump's model says it was cut short"

run diff "$FULL" "$CUT" --fail-on-growth java.lang.String=1
expect_rc 3
expect_err "truncated, --fail-on-growth cannot pass on it"
run diff "$FULL" "$CUT" --fail-on-growth java.lang.String=1 --allow-truncated
expect_rc 0
# with --json the document says why the exit is 3 (it had no trace of the cut)
run diff "$FULL" "$CUT" --fail-on-growth java.lang.String=1 --json --no-timing
expect_rc 3
json_eq 'd["truncated"]' true
run diff "$FULL" "$FULL" --json --no-timing
expect_rc 0
json_eq '"truncated" in d' false

run leaks --baseline "$FIX/test-dump-base.hprof" --target "$FULL" --final "$CUT" --force \
    --fail-on-leak
expect_rc 3
expect_err "truncated, --fail-on-leak cannot pass on it"
run leaks --baseline "$FIX/test-dump-base.hprof" --target "$FULL" --final "$CUT" --force \
    --fail-on-leak --json --no-timing
expect_rc 3
json_eq 'd["truncated"]' true

# the suspects' gate too: a dump cut short passed it (exit 0 on one cut before its heap)
run analyze "$CUT" --fail-on-suspect 5 --no-timing
expect_rc 3
expect_err "truncated, --fail-on-suspect cannot pass on it"
rc=0
"$LEAKRAY" analyze "$CUT" --fail-on-suspect 5 --allow-truncated --no-timing >/dev/null \
    2>&1 || rc=$?
[ "$rc" != 3 ] || fail "--allow-truncated: the suspects' gate still exits 3"

# a copy of one HPROF dump given as baseline and target is refused, as for V8 (it passed
# --fail-on-leak with "0 leaks")
cp "$FULL" "$T/copy.hprof"
run leaks --baseline "$FULL" --target "$T/copy.hprof" --fail-on-leak
expect_rc 2
expect_err "hold the same objects"

run store ingest --db "$T/s.db" "$CUT"
expect_rc 3
expect_out "^failed: .*cut.hprof: the dump was cut short"
run store leaks --db "$T/s.db" --json
expect_rc 0
json_eq 'd["leaks"]' '[]'
# a newest version whose every ingest failed leaves the dashboard to compare the two newest
# versions that have a report (it refused the page: "no report of version 3")
for v in 1 2 3; do
    dump=$FULL
    [ "$v" = 3 ] && dump=$CUT
    "$LEAKRAY" store ingest --db "$T/v.db" --app shop --version $v "$dump" >/dev/null 2>&1 || true
done
run report --db "$T/v.db" -o "$T/v.html"
expect_rc 0
[ -s "$T/v.html" ] || fail "no dashboard page"
# ... nor in the trend: a day whose only ingest failed saw no leak, so none is "fixed" there
# (and "recurring" the day after): the next day compares with the last one that had data
for day in 1 2 3; do
    dump=$FULL
    [ "$day" = 2 ] && dump=$CUT
    "$LEAKRAY" store ingest --db "$T/t.db" --app shop --at "2026-12-0$day" "$dump" \
        >/dev/null 2>&1 || true
done
run store trend --db "$T/t.db" --json
expect_rc 0
json_get '[(b["reports"], b["failed"], b["fixed"], b["new"], b["recurring"] == b["leaks"])
    for b in d["buckets"]][1:]' >"$T/trend"
[ "$(cat "$T/trend")" = '[[0, 1, 0, 0, true], [1, 0, 0, 0, true]]' ] ||
    fail "trend across a failed day: $(cat "$T/trend")"
echo "truncated_gates: ok"
