#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# report_retainers.sh: the report model's DevTools Summary (V8) lists each row's sample with
# its closest retainers, at most REP_RETAINER_HOPS (12) of them, even where the retaining path
# is longer. Such paths occur in Node's own test snapshot and a Chromium page's: each report
# must exit 0 with well-formed rows whose retainer lists are cut at 12, and a cut list must
# start at an object that references the sample directly (the closest retainer first).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init report_retainers
V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8
[ -f "$V8/test.heapsnapshot" ] || skip "no V8 fixtures at $V8"
for f in "$V8/small.heapsnapshot" "$V8/test.heapsnapshot" \
         "$LEAKRAY_SRC/tests/data/browser/browser-final.heapsnapshot.gz"; do
    run report "$f" --format json --no-timing -o "$T/model.json"
    expect_rc 0
    python3 - "$T/model.json" <<'PY' || fail "$f: retainers not cut at 12"
import json, sys
rows = json.load(open(sys.argv[1]))["devtools_summary"]
lens = [len(r["sample"]["retainers"]) for r in rows if "sample" in r]
assert lens and max(lens) <= 12, lens
PY
done
# The browser page has samples 12 hops and more from the root: the list is full and its
# first retainer holds the sample (the retainer ids `show` lists as the sample's referrers).
B=$LEAKRAY_SRC/tests/data/browser/browser-final.heapsnapshot.gz
run report "$B" --format json --no-timing -o "$T/model.json"
expect_rc 0
read -r sample first <<<"$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["devtools_summary"]
r = next(r for r in rows if len(r.get("sample", {}).get("retainers", [])) == 12)
print(r["sample"]["id"], r["sample"]["retainers"][0]["id"])' "$T/model.json")"
run show "$B" "$sample" --json --no-timing
expect_rc 0
json_eq "'$first' in [r['from'] for r in d['object']['referrers']]" true
echo "report_retainers: Summary rows keep their 12 closest retainers on long paths"
