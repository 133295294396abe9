#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# diff_gates.sh: a --fail-on-growth gate judges its class's real counts, whatever rows the
# table shows: with --detached (which keeps the detached DOM rows) a gate on a class that
# grew but is no detached DOM read "0 -> 0" and passed; a gate on a class that did not change
# (no row) read "0 -> 0" too, where it has instances on both sides. --detached on HPROF is a
# usage error.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init diff-gates
B=$LEAKRAY_SRC/tests/data/browser
A=$B/browser-baseline.heapsnapshot.gz
F=$B/browser-final.heapsnapshot.gz
run diff "$A" "$F" --json --no-timing --top 0
expect_rc 0
grown=$(json_get '[c["name"] for c in d["classes"] if c["count_delta"] > 0 and
    not c["name"].startswith("Detached ") and not c["name"].startswith("(")][0]')
want=$(json_get "[c for c in d['classes'] if c['name'] == '''$grown'''][0]['count_b']")
run diff "$A" "$F" --detached --fail-on-growth "$grown=0" --json --no-timing
expect_rc 1
json_eq 'd["gates"][0]["failed"]' true
json_eq 'd["gates"][0]["count_b"]' "$want"

# a class with one instance in the baseline: its gate counts it, changed or not
run histo "$A" --json --no-timing
same=$(json_get '[c["name"] for c in d["classes"] if c["count"] == 1 and
    not c["name"].startswith("(")][0]')
run diff "$A" "$F" --fail-on-growth "$same=0" --json --no-timing
expect_rc 0
json_eq 'd["gates"][0]["count_a"] >= 1 and d["gates"][0]["count_b"] >= 1' true
# --detached on a heap without a DOM is refused, as histo refuses it (it answered "0 classes
# changed", and leaks "0 still alive", exit 0)
cli_fixtures
run diff "$FIX/test-dump-base.hprof" "$FIX/test-dump.hprof" --detached
expect_rc 2
expect_err "needs a V8 snapshot of a browser page"
run leaks --baseline "$FIX/test-dump-base.hprof" --target "$FIX/test-dump.hprof" --detached --force
expect_rc 2
expect_err "needs a V8 snapshot of a browser page"
# --strict refuses an unknown gate class before any document: with --json the error document
# is the only one (it printed the whole comparison, then exited 2 with no error in it)
run diff "$A" "$F" --fail-on-growth com.example.Typo=1 --strict --json --no-timing
expect_rc 2
json_eq 'd["error"]["code"]' usage
json_eq '"classes" in d' false
# V8 snapshots hold one heap: --dump 1 is not found (it was ignored, and #0 analysed)
run histo "$A" --dump 1 --json --no-timing
expect_rc 2
json_eq 'd["error"]["code"]' not_found
run histo "$A" --dump 0 --json --no-timing
expect_rc 0
echo "diff_gates: ok"
