#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_live.sh: headless Chromium (Debian's chromium, driven by playwright-core from npm over
# the DevTools protocol) loads tests/programs/browser/page.html from a file:// URL and takes
# three heap snapshots (HeapProfiler.collectGarbage, then HeapProfiler.takeHeapSnapshot):
# baseline, target after the leaks are planted, final after the panels left the document.
# Then, on these fresh snapshots:
# - `leaks --trace-all-objects` gives one top-level group per planted cause (250 detached panel
#   roots, 300 resize listeners, 5,000 Map entries) and nothing from Chrome's `system / ...`
#   internals;
# - `diff target final` shows the planted DOM nodes turned detached, `histo --detached` lists
#   only detached classes;
# - DevTools' own code (heap-snapshot-toolkit from npm) computes the Summary of the final
#   snapshot and the Comparison target -> final, and leakray equals both class by class;
# - the report of the final snapshot lists memlab's duplicate strings as `dupes` does.
# Skips (77) only when chromium, node or the npm packages cannot be installed; fails under CI.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
command -v python3 >/dev/null || browser_skip "python3 is not installed"
browser_need_chromium
pw=$(browser_npm playwright-core@1.65.1) || browser_skip "npm cannot install playwright-core"
hst=$(browser_npm heap-snapshot-toolkit@1.1.3) || browser_skip "npm cannot install heap-snapshot-toolkit"
work="$LEAKRAY_BUILD/tmp/browser_live"
rm -rf "$work" && mkdir -p "$work"
node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" "$pw/node_modules/playwright-core" "$work" \
    >"$work/snap.log" 2>&1 || { cat "$work/snap.log"; echo "FAIL: snapshots"; exit 1; }
B=$work/baseline.heapsnapshot T=$work/target.heapsnapshot F=$work/final.heapsnapshot
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
chk() { python3 "$LEAKRAY_SRC/tests/e2e/browser_check.py" "$@"; }

"$LEAKRAY" leaks --baseline "$B" --target "$T" --final "$F" --json --no-timing --top 0 \
    --trace-all-objects >"$work/leaks.json"
chk causes "$work/leaks.json" && ok "leaks: one top-level group per planted cause" \
    || bad "leaks groups"
"$LEAKRAY" diff "$T" "$F" --json --no-timing >"$work/tf.json"
"$LEAKRAY" histo --detached --json --no-timing "$F" >"$work/det.json"
chk detached "$work/tf.json" "$work/det.json" \
    && ok "target -> final: the planted DOM became detached; histo --detached" \
    || bad "detached rows"

gold="$work/golden"
HST_DIR=$hst GOLDEN_OUT=$gold "$LEAKRAY_SRC/scripts/golden-devtools.sh" "$F" 2>/dev/null
HST_DIR=$hst GOLDEN_OUT=$gold "$LEAKRAY_SRC/scripts/golden-devtools-diff.sh" "$T" "$F" 2>/dev/null
"$LEAKRAY" histo --json --no-timing "$F" >"$work/histo.json"
chk summary "$work/histo.json" "$gold/final.heapsnapshot.classes.tsv" \
    && ok "histo final equals DevTools' Summary" || bad "histo final"
chk compare "$work/tf.json" "$gold/target--final.diff.tsv" \
    && ok "diff target -> final equals DevTools' Comparison" || bad "diff target -> final"

browser_analyze_detached "$F" "$work"

# The report of the fresh page snapshot lists memlab's duplicate strings as dupes counts them.
"$LEAKRAY" report "$F" --no-timing --format json -o "$work/model.json" >/dev/null
"$LEAKRAY" dupes --json "$F" >"$work/dupes.json"
python3 "$LEAKRAY_SRC/tests/e2e/report_jsdupes_compare.py" "$work/model.json" "$work/dupes.json" \
    && ok "report: duplicate JS strings equal dupes" || bad "report: duplicate JS strings"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
