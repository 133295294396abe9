#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_many_globals.sh: analyze's LARGEST RETAINERS see through every global object of a
# page (tests/programs/browser/manyframes.html: 80 iframes and the page, 81 windows). Past
# the first 64 the rest stayed opaque, and "18 instances of Window [JSGlobalObject] occupy
# 12.8 %" came back, the shape seeing through them removes: no window is a suspect.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
command -v python3 >/dev/null || browser_skip "python3 is not installed"
work="$LEAKRAY_BUILD/tmp/browser_many_globals"
rm -rf "$work" && mkdir -p "$work"
browser_need_chromium
pw=$(browser_npm playwright-core@1.65.1) || browser_skip "npm cannot install playwright-core"
PAGE=manyframes.html node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" \
    "$pw/node_modules/playwright-core" "$work" >"$work/snap.log" 2>&1 \
    || { cat "$work/snap.log"; echo "FAIL: snapshots"; exit 1; }
"$LEAKRAY" analyze "$work/final.heapsnapshot" --json --no-timing >"$work/an.json"
"$LEAKRAY" sql "$work/final.heapsnapshot" \
    "SELECT count(*) FROM objects WHERE class LIKE 'Window [JSGlobalObject]%'" >"$work/w.txt"
python3 - "$work" <<'PY' || { echo "FAIL: a window is a suspect"; exit 1; }
import json, sys
w = sys.argv[1]
windows = int(open(w + "/w.txt").read().split()[-1])
assert windows > 64, "the page has %d windows" % windows
s = json.load(open(w + "/an.json"))["suspects"]
got = [(x["kind"], x["class"]) for x in s]
assert not any("JSGlobalObject" in c for _, c in got), got
print("ok: %d windows seen through; suspects %s" % (windows, got))
PY
echo "PASS"
