#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_fiber.sh: `analyze` on a page rendered through React-shaped fibers
# (tests/programs/browser/fiber.html: 20 unmounted rows whose fibers a store listener keeps, 10
# rows in their parent fiber's `deletions`, a detached <section> kept by window.shadowHost, a
# detached <aside> an attached <nav> keeps in an expando property).
# 1. The committed final snapshot (tests/data/browser/fiber-final.heapsnapshot.gz) against
#    memlab 2.0.5's find-leaks on the same page run (golden tests/e2e/expected/browser/
#    fiber-memlab.txt, both from scripts/golden-memlab.sh fiber): the leaks are the unmounted
#    fibers (their detached host elements come with them, as memlab's stateNode rule says) and
#    the <section>, each group retaining what memlab prints for its cluster; memlab's two
#    misreadings (the DOM of fibers in `deletions`, mounted host fibers) are not ours, and the
#    <aside> is ours only (memlab hides a detached node an attached one holds, even through
#    the page's own expando).
# 2. Fresh snapshots of the same page from headless Chromium: the same groups.
# Part 2 skips (77) only when chromium, node or playwright-core cannot be had; fails under CI.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
command -v python3 >/dev/null || browser_skip "python3 is not installed"
work="$LEAKRAY_BUILD/tmp/browser_fiber"
rm -rf "$work" && mkdir -p "$work"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
chk() { python3 "$LEAKRAY_SRC/tests/e2e/browser_check.py" "$@"; }

"$LEAKRAY" analyze "$LEAKRAY_SRC/tests/data/browser/fiber-final.heapsnapshot.gz" --json \
    --no-timing --no-suspects >"$work/committed.json"
chk fiber "$work/committed.json" "$LEAKRAY_SRC/tests/e2e/expected/browser/fiber-memlab.txt" \
    && ok "committed snapshot: unmounted fibers, <section>, <aside>; memlab's sizes" \
    || bad "committed snapshot against memlab"
"$LEAKRAY" analyze "$LEAKRAY_SRC/tests/data/browser/fiber-final.heapsnapshot.gz" \
    --no-timing --no-suspects >"$work/committed.txt"
grep -q 'Leaking: YES (unmounted React fiber: no HostRoot above it)' "$work/committed.txt" \
    && ok "text names the unmounted fiber" || bad "text reason"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }

browser_need_chromium
pw=$(browser_npm playwright-core@1.65.1) || browser_skip "npm cannot install playwright-core"
PAGE=fiber.html node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" \
    "$pw/node_modules/playwright-core" "$work" >"$work/snap.log" 2>&1 \
    || { cat "$work/snap.log"; echo "FAIL: snapshots"; exit 1; }
"$LEAKRAY" analyze "$work/final.heapsnapshot" --json --no-timing --no-suspects >"$work/live.json"
chk fiber "$work/live.json" && ok "fresh snapshot: the same groups" || bad "fresh snapshot"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
