#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser-snapshots.sh: retakes the committed Chromium page snapshots tests/data/browser/
# browser-{baseline,target,final}.heapsnapshot.gz (tests/programs/browser/snap.mjs: headless
# Debian chromium driven by playwright-core over the DevTools protocol), then rewrites their
# DevTools goldens: the Summary of each (scripts/golden-devtools.sh) and the Comparison of each
# pair (scripts/golden-devtools-diff.sh). npm packages go to a scratch folder outside the
# repository. Snapshots vary from run to run (ids, Blink internals): regenerate all together.
# usage: scripts/browser-snapshots.sh        (CHROMIUM=path overrides /usr/bin/chromium)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
data=$src/tests/data/browser
tmp=$(mktemp -d "${TMPDIR:-/tmp}/browser-snaps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || "$src/scripts/deps.sh" test
(cd "$tmp" && echo '{"name": "browser-snapshots", "private": true}' >package.json &&
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund \
        playwright-core@1.65.1 heap-snapshot-toolkit@1.1.3 >/dev/null)
node "$src/tests/programs/browser/snap.mjs" "$tmp/node_modules/playwright-core" "$tmp/snaps"
mkdir -p "$data"
for s in baseline target final; do
    gzip -9c "$tmp/snaps/$s.heapsnapshot" >"$data/browser-$s.heapsnapshot.gz"
done
B=$data/browser-baseline.heapsnapshot.gz T=$data/browser-target.heapsnapshot.gz
F=$data/browser-final.heapsnapshot.gz
HST_DIR=$tmp "$src/scripts/golden-devtools.sh" "$B" "$T" "$F"
HST_DIR=$tmp "$src/scripts/golden-devtools-diff.sh" "$B" "$T" "$T" "$F" "$B" "$F"
ls -l "$data"
