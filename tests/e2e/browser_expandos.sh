#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_expandos.sh: `leaks` counts what memlab's find-leaks counts when the leaked elements
# carry expando properties (tests/programs/browser/expandos.html, fresh snapshots from
# headless Chromium; memlab 2.0.5 run on the same files). Each such element has a V8 property
# store Chromium types native, which DevTools' state propagation marks detached ("Detached
# system / PropertyArray"): leakray counted it as a leaked DOM object (a React page: 469
# against memlab's 371), memlab never does. Its leaked_shallow weighs those objects.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
command -v python3 >/dev/null || browser_skip "python3 is not installed"
work="$LEAKRAY_BUILD/tmp/browser_expandos"
rm -rf "$work" && mkdir -p "$work"
browser_need_chromium
pw=$(browser_npm playwright-core@1.65.1) || browser_skip "npm cannot install playwright-core"
PAGE=expandos.html node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" \
    "$pw/node_modules/playwright-core" "$work" >"$work/snap.log" 2>&1 \
    || { cat "$work/snap.log"; echo "FAIL: snapshots"; exit 1; }
"$LEAKRAY" sql "$work/final.heapsnapshot" \
    "SELECT count(*) FROM objects WHERE class = 'Detached system / PropertyArray'" \
    > "$work/pa.txt"
[ "$(tail -n 1 "$work/pa.txt")" -ge 30 ] ||
    { echo "FAIL: no detached property stores on the page: $(cat "$work/pa.txt")"; exit 1; }
"$LEAKRAY" leaks --baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" --json --no-timing --top 0 >"$work/leaks.json"
ml=$(browser_npm memlab@2.0.5) || browser_skip "npm cannot install memlab"
node --expose-gc --max-old-space-size=4096 "$ml/node_modules/@memlab/cli/bin/memlab.js" \
    find-leaks --baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" --work-dir "$work/memlab" >"$work/ml.out" 2>"$work/ml.err" \
    || { tail -5 "$work/ml.err"; echo "FAIL: memlab find-leaks"; exit 1; }
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$work/ml.err" | tr '\r' '\n' | sed -n '/^MemLab found/,$p' \
    | grep -v '^\s*$\|clustering trace' >"$work/memlab.txt" || true
python3 "$LEAKRAY_SRC/tests/e2e/memlab_leaks.py" "$work/leaks.json" "$work/memlab.txt" 1 ||
    { echo "FAIL: leaks against memlab's find-leaks: $(cat "$work/memlab.txt")"; exit 1; }
# leaked_shallow weighs the objects leaked_objects counts, not only the clusters' heads (it
# read 3,120 bytes for 181 objects, the 30 cards' own)
python3 - "$work/leaks.json" <<'PY' || { echo "FAIL: leaked_shallow"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
heads = sum(c["shallow"] for c in d["clusters"])
assert d["leaked_shallow"] > 2 * heads and d["leaked_shallow"] > 40 * d["leaked_objects"], d
PY
echo "ok: memlab's cluster and count of similar leaks, the property stores not counted"
