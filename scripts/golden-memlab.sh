#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-memlab.sh: retakes the committed snapshots of a test page and memlab 2.0.5's answer on
# them: `memlab find-leaks` over the baseline, target and final snapshots, its leak clusters as
# it prints them (colours and progress lines removed). The pages (tests/programs/browser,
# taken by snap.mjs with headless Debian chromium driven by playwright-core):
#   fiber  fiber.html, a page rendered through React-shaped fibers; keeps the final snapshot
#   churn  churn.html, two known leaks (40 closed dialogs a growing array keeps, 60 toasts
#          timer closures keep) among ordinary page churn; keeps all three snapshots
# Writes tests/data/browser/PAGE-{final|baseline,target,final}.heapsnapshot.gz and
# tests/e2e/expected/browser/PAGE-memlab.txt, always together (ids change run to run). npm
# packages go to a scratch folder outside the repository.
# usage: scripts/golden-memlab.sh fiber|churn     (CHROMIUM=path overrides /usr/bin/chromium)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
page=${1:-}
case $page in
    fiber) keep=final ;;
    churn) keep="baseline target final" ;;
    *) echo "usage: scripts/golden-memlab.sh fiber|churn" >&2; exit 2 ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memlab-$page.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || "$src/scripts/deps.sh" test
(cd "$tmp" && echo "{\"name\": \"memlab-$page\", \"private\": true}" >package.json &&
    PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit \
        --no-fund playwright-core@1.65.1 memlab@2.0.5 >/dev/null)
PAGE=$page.html node "$src/tests/programs/browser/snap.mjs" \
    "$tmp/node_modules/playwright-core" "$tmp/snaps"
s=$tmp/snaps
node --expose-gc --max-old-space-size=4096 "$tmp/node_modules/@memlab/cli/bin/memlab.js" \
    find-leaks --baseline "$s/baseline.heapsnapshot" --target "$s/target.heapsnapshot" \
    --final "$s/final.heapsnapshot" --work-dir "$tmp/work" >"$tmp/out.txt" 2>"$tmp/err.txt"
out=${GOLDEN_OUT:-$src}
mkdir -p "$out/tests/data/browser" "$out/tests/e2e/expected/browser"
for k in $keep; do
    gzip -9c "$s/$k.heapsnapshot" >"$out/tests/data/browser/$page-$k.heapsnapshot.gz"
done
# memlab writes its clusters on stderr, between progress lines ending in carriage returns
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$tmp/err.txt" | tr '\r' '\n' |
    sed -n '/^MemLab found/,$p' | grep -v '^\s*$\|clustering trace' \
    >"$out/tests/e2e/expected/browser/$page-memlab.txt"
ls -l "$out"/tests/data/browser/"$page"-*.heapsnapshot.gz \
    "$out/tests/e2e/expected/browser/$page-memlab.txt"
