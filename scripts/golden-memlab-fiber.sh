#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-memlab-fiber.sh: retakes the committed snapshot of tests/programs/browser/fiber.html
# (a page rendered through React-shaped fibers; tests/programs/browser/snap.mjs, headless
# Debian chromium driven by playwright-core) and memlab 2.0.5's answer on it: `memlab
# find-leaks` over the baseline, target and final snapshots, its leak clusters as it prints
# them (colours and progress lines removed). Writes tests/data/browser/fiber-final.heapsnapshot.gz
# and tests/e2e/expected/browser/fiber-memlab.txt, always together (ids change run to run).
# npm packages go to a scratch folder outside the repository.
# usage: scripts/golden-memlab-fiber.sh        (CHROMIUM=path overrides /usr/bin/chromium)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memlab-fiber.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || "$src/scripts/deps.sh" test
(cd "$tmp" && echo '{"name": "memlab-fiber", "private": true}' >package.json &&
    PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit \
        --no-fund playwright-core@1.65.1 memlab@2.0.5 >/dev/null)
PAGE=fiber.html node "$src/tests/programs/browser/snap.mjs" \
    "$tmp/node_modules/playwright-core" "$tmp/snaps"
s=$tmp/snaps
node --expose-gc --max-old-space-size=4096 "$tmp/node_modules/@memlab/cli/bin/memlab.js" \
    find-leaks --baseline "$s/baseline.heapsnapshot" --target "$s/target.heapsnapshot" \
    --final "$s/final.heapsnapshot" --work-dir "$tmp/work" >"$tmp/out.txt" 2>"$tmp/err.txt"
mkdir -p "$src/tests/data/browser" "$src/tests/e2e/expected/browser"
gzip -9c "$s/final.heapsnapshot" >"$src/tests/data/browser/fiber-final.heapsnapshot.gz"
# memlab writes its clusters on stderr, between progress lines ending in carriage returns
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$tmp/err.txt" | tr '\r' '\n' |
    sed -n '/^MemLab found/,$p' | grep -v '^\s*$\|clustering trace' \
    >"$src/tests/e2e/expected/browser/fiber-memlab.txt"
ls -l "$src/tests/data/browser/fiber-final.heapsnapshot.gz" \
    "$src/tests/e2e/expected/browser/fiber-memlab.txt"
