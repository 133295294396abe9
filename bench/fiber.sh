#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fiber.sh: the React-shaped page tests/programs/browser/fiber.html (unmounted fibers a store
# keeps, fibers in a `deletions` array, a detached <section>, an <aside> kept by an expando),
# three fresh heap snapshots from headless Chromium (snap.mjs, PAGE=fiber.html), then side by
# side on the same files: memlab 2.0.5's `find-leaks` (baseline, target, final) and leakray's
# `analyze` (final alone) and `leaks` (all three): their leak groups, wall and CPU time, peak
# RSS, and the ratio. npm packages are cached in ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}/browser.
# usage: bench/fiber.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
[ -x "$lr" ] || { echo "fiber: no leakray at $lr" >&2; exit 2; }
command -v node >/dev/null || { echo "fiber: node is required" >&2; exit 2; }
dir=$(bench_cache_dir)/browser
out=$dir/fiber-out
mkdir -p "$dir" "$out"
if [ ! -f "$dir/node_modules/memlab/package.json" ] ||
    [ ! -f "$dir/node_modules/playwright-core/package.json" ]; then
    echo "installing memlab@2.0.5, playwright-core into $dir ..."
    (cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } &&
        PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit \
            --no-fund memlab@2.0.5 playwright-core@1.65.1 >/dev/null)
fi
snaps=$dir/fiber-snaps
rm -rf "$snaps" && mkdir -p "$snaps"
PAGE=fiber.html node "$src/tests/programs/browser/snap.mjs" "$dir/node_modules/playwright-core" \
    "$snaps" >/dev/null
B=$snaps/baseline.heapsnapshot T=$snaps/target.heapsnapshot F=$snaps/final.heapsnapshot
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
bench_measure an "$out/analyze.txt" "$lr" analyze "$F" --no-timing --no-suspects
bench_measure lk "$out/leaks.txt" "$lr" leaks --baseline "$B" --target "$T" --final "$F" \
    --no-timing
rm -rf "$dir/ml-fiber" && mkdir -p "$dir/ml-fiber"
bench_measure ml "$out/memlab.txt" node --expose-gc --max-old-space-size=4096 \
    "$dir/node_modules/@memlab/cli/bin/memlab.js" find-leaks --baseline "$B" --target "$T" \
    --final "$F" --work-dir "$dir/ml-fiber"
echo "leakray analyze: leaking objects, traces ending"
grep -E '^[0-9,]+ APPLICATION LEAKS|^╰→|trace out of|retained by leaking' "$out/analyze.txt" |
    sed 's/^/  /'
echo "memlab find-leaks: clusters (size, retained as it prints them)"
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$out/memlab.txt.err" | tr '\r' '\n' |
    grep -E '^--Similar leaks|^--Retained size' | paste - - | sed 's/^/  /'
echo "wall / CPU / peak RSS:" \
    "leakray analyze ${an_wall} s / ${an_cpu} s / $(bench_mb "$an_rss") MB," \
    "leakray leaks ${lk_wall} s / ${lk_cpu} s / $(bench_mb "$lk_rss") MB," \
    "memlab ${ml_wall} s / ${ml_cpu} s / $(bench_mb "$ml_rss") MB"
echo "ratio memlab/leakray wall: $(bench_ratio "$ml_wall" "$an_wall")x analyze," \
    "$(bench_ratio "$ml_wall" "$lk_wall")x leaks"
