#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-memlab-churn.sh: retakes the committed snapshots of tests/programs/browser/churn.html
# (two known leaks, 40 closed dialogs a growing array keeps and 60 toasts timer closures keep,
# among ordinary page churn; tests/programs/browser/snap.mjs, headless Debian chromium driven
# by playwright-core) and memlab 2.0.5's answer on them: `memlab find-leaks` over the
# baseline, target and final snapshots, its leak clusters as it prints them (colours and
# progress lines removed). Writes tests/data/browser/churn-{baseline,target,final}
# .heapsnapshot.gz and tests/e2e/expected/browser/churn-memlab.txt, always together (ids
# change run to run). npm packages go to a scratch folder outside the repository.
# usage: scripts/golden-memlab-churn.sh        (CHROMIUM=path overrides /usr/bin/chromium)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memlab-churn.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || "$src/scripts/deps.sh" test
(cd "$tmp" && echo '{"name": "memlab-churn", "private": true}' >package.json &&
    PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit \
        --no-fund playwright-core@1.65.1 memlab@2.0.5 >/dev/null)
PAGE=churn.html node "$src/tests/programs/browser/snap.mjs" \
    "$tmp/node_modules/playwright-core" "$tmp/snaps"
s=$tmp/snaps
node --expose-gc --max-old-space-size=4096 "$tmp/node_modules/@memlab/cli/bin/memlab.js" \
    find-leaks --baseline "$s/baseline.heapsnapshot" --target "$s/target.heapsnapshot" \
    --final "$s/final.heapsnapshot" --work-dir "$tmp/work" >"$tmp/out.txt" 2>"$tmp/err.txt"
mkdir -p "$src/tests/data/browser" "$src/tests/e2e/expected/browser"
for k in baseline target final; do
    gzip -9c "$s/$k.heapsnapshot" >"$src/tests/data/browser/churn-$k.heapsnapshot.gz"
done
# memlab writes its clusters on stderr, between progress lines ending in carriage returns
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$tmp/err.txt" | tr '\r' '\n' |
    sed -n '/^MemLab found/,$p' | grep -v '^\s*$\|clustering trace' \
    >"$src/tests/e2e/expected/browser/churn-memlab.txt"
ls -l "$src"/tests/data/browser/churn-*.heapsnapshot.gz \
    "$src/tests/e2e/expected/browser/churn-memlab.txt"
