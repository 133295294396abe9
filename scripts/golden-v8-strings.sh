#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-v8-strings.sh: memlab 2.0.5's string analysis (`memlab analyze string`, read through
# its API by scripts/memlab-strings.js for the exact figures) on the snapshots
# tests/e2e/jsdupes.sh checks `leakray dupes` against:
#   strings          tests/programs/node/v8_strings.js under the Node on PATH (planted
#                    duplicates); retaken, written to tests/data/v8/strings.heapsnapshot.xz
#   node22-final, node24-baseline, node24-target, node24-final   the committed snapshots
#   browser-final, churn-final, fiber-final   the committed Chromium page snapshots
#                    (tests/data/browser, gzip)
#   gen-S            scripts/gen-v8-strings.py S 3000 for S in 1 2 3 (random graphs: cliques,
#                    orphans, code dominators, concatenations of slices); not committed, the
#                    test writes them again (the script is seeded)
# Goldens go to tests/e2e/expected/jsdupes/NAME.memlab.json. memlab is installed into a
# scratch folder outside the repository, unless MEMLAB_MODULES names a node_modules folder
# that already holds @memlab/heap-analysis 2.0.5.
# usage: scripts/golden-v8-strings.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memlab-strings.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mods=${MEMLAB_MODULES:-}
if [ -z "$mods" ]; then
    (cd "$tmp" && echo '{"name": "memlab-strings", "private": true}' >package.json &&
        PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund memlab@2.0.5 >/dev/null)
    mods=$tmp/node_modules
fi
out=${GOLDEN_OUT:-$src}
gold=$out/tests/e2e/expected/jsdupes
mkdir -p "$gold" "$out/tests/data/v8"
run() {
    node --max-old-space-size=8192 "$src/scripts/memlab-strings.js" "$mods" "$1" \
        >"$gold/$2.memlab.json"
}

node --expose-gc "$src/tests/programs/node/v8_strings.js" "$tmp/strings.heapsnapshot" 1000 \
    >/dev/null
xz -9e -c "$tmp/strings.heapsnapshot" >"$out/tests/data/v8/strings.heapsnapshot.xz"
run "$tmp/strings.heapsnapshot" strings
for n in node22-final node24-baseline node24-target node24-final; do
    xz -dc "$src/tests/data/v8/$n.heapsnapshot.xz" >"$tmp/$n.heapsnapshot"
    run "$tmp/$n.heapsnapshot" "$n"
done
for n in browser-final churn-final fiber-final; do
    gzip -dc "$src/tests/data/browser/$n.heapsnapshot.gz" >"$tmp/$n.heapsnapshot"
    run "$tmp/$n.heapsnapshot" "$n"
done
for s in 1 2 3; do
    python3 "$src/scripts/gen-v8-strings.py" "$s" 3000 >"$tmp/gen-$s.heapsnapshot"
    run "$tmp/gen-$s.heapsnapshot" "gen-$s"
done
ls -l "$gold" "$out/tests/data/v8/strings.heapsnapshot.xz"
