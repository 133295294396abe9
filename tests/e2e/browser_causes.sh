#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_causes.sh: `leaks` on a page groups detached elements by what holds them, as
# memlab's similar traces do (tests/programs/browser/causes.html, fresh snapshots from
# headless Chromium): 20 <div class="widget"> a window listener keeps and 20 a registry
# array keeps are two leaks, each chain named (they were one, the registry never shown);
# 300 rows kept by one cache, each with a class of its own (CSS-in-JS), are one leak of 300
# (they were 300 of one each).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
command -v python3 >/dev/null || browser_skip "python3 is not installed"
work="$LEAKRAY_BUILD/tmp/browser_causes"
rm -rf "$work" && mkdir -p "$work"
browser_need_chromium
pw=$(browser_npm playwright-core@1.65.1) || browser_skip "npm cannot install playwright-core"
PAGE=causes.html node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" \
    "$pw/node_modules/playwright-core" "$work" >"$work/snap.log" 2>&1 \
    || { cat "$work/snap.log"; echo "FAIL: snapshots"; exit 1; }
"$LEAKRAY" leaks --baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" --json --no-timing --top 0 >"$work/leaks.json"
python3 - "$work/leaks.json" <<'PY' || { echo "FAIL: leaks does not give one cluster per cause"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
cl = d["clusters"]
widgets = [c for c in cl if 'class="widget"' in c["title"]]
rows = [c for c in cl if 'class="row' in c["title"]]
print([(c["title"], c["count"]) for c in cl])
assert len(widgets) == 2 and sorted(c["count"] for c in widgets) == [20, 20], widgets
chains = [" ".join(json.dumps(s) for s in c["chain"]) for c in widgets]
assert sum("widgetRegistry" in t for t in chains) == 1, chains
assert len(rows) == 1 and rows[0]["count"] == 300, rows
PY
echo "ok: two widget leaks, one per cause; 300 rows of their own classes, one leak"
