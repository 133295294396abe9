#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8.sh: leakray on a ~260 MB Node.js heap snapshot (3.1 M nodes, 10.5 M edges) beside the
# peers of ../shared/peers/v8/run-peers.sh: heap-snapshot-toolkit 1.1.3 (Chrome DevTools' own
# worker code: parse + full init with dominators + Summary aggregates) and memlab 2.0.5's
# loader (@memlab/heap-analysis getFullHeapFromFile: parse + paths + dominators). leakray runs
# `histo --retained` (DevTools class aggregates with retained sizes) when histo has that
# option, else `top --by class`, then `clusters`. The snapshot is made once by the peers'
# generator (leak.js, scale 4: 200 k objects leaked from 4 sites) and cached with the npm
# packages in ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}/v8. Prints wall time, peak RSS, own
# memory (RssAnon + RssShmem sampled every 10 ms, bench/lib.sh) and the ratios.
# usage: bench/v8.sh [path/to/leakray]     (SCALE=1 makes the 64 MB snapshot instead)
#
# BENCH_BIG=1: the large-snapshot run instead. The same generator at scale 16 (BIG_SCALE)
# writes only the final snapshot (~1 GB, ~12 M nodes, ~40 M edges; node needs a big
# --max-old-space-size for it), cached in .../v8/snaps-big; then `leakray histo --retained` is
# measured once: wall and CPU time, total peak RSS (the mapped file's pages included) and own
# memory, against the 3 GB total-RSS target. The peers are not run there (they need 4-5x the
# file, and a JSON string over V8's ~512 MB limit); BIG_PEERS=1 tries them anyway.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
[ -x "$lr" ] || { echo "v8: no leakray at $lr" >&2; exit 2; }
command -v node >/dev/null || { echo "v8: node is required" >&2; exit 2; }
scale=${SCALE:-4}
dir=$(bench_cache_dir)/v8
out=$dir/out-$scale
mkdir -p "$dir" "$out"
peers=$src/../shared/peers/v8/run-peers.sh

# ---- BENCH_BIG=1: one ~1 GB snapshot, leakray alone ----
if [ "${BENCH_BIG:-0}" = 1 ]; then
    bscale=${BIG_SCALE:-16}
    bdir=$dir/snaps-big-$bscale
    big=$bdir/s3-final.heapsnapshot
    if [ ! -f "$big" ]; then
        [ -f "$peers" ] || { echo "v8: $peers not found (needed for the generator)" >&2; exit 2; }
        # The peers' generator without its baseline and target snapshots: only the final one.
        sed -n "/^cat > leak.js <<'EOF'$/,/^EOF$/p" "$peers" | sed '1d;$d' |
            sed "/^snap('s1-baseline/d; /^snap('s2-target/d" >"$dir/leak-big.js"
        grep -q "snap('s3-final" "$dir/leak-big.js" || { echo "v8: generator changed" >&2; exit 2; }
        echo "generating the big snapshot (scale $bscale; a few minutes) ..."
        mkdir -p "$bdir"
        node --expose-gc --max-old-space-size=${BIG_NODE_HEAP_MB:-12288} "$dir/leak-big.js" \
            "$bdir" "$bscale"
    fi
    bsize=$(stat -c %s "$big")
    bsize_kb=$((bsize / 1024))
    cat "$big" >/dev/null
    bench_measure big "$out/leakray-big.txt" "$lr" histo --retained --no-progress "$big"
    [ "$big_rc" = 0 ] || {
        echo "leakray histo --retained failed: $(head -3 "$out/leakray-big.txt.err")"
        exit 1
    }
    objects=$("$lr" info --no-progress "$big" | sed -n 's/^objects: *//p')
    edges=$("$lr" info --no-progress "$big" | sed -n 's/^edges: *//p')
    printf '\nsnapshot: %s (%s MB, %s nodes, %s edges)\n' "$big" "$(bench_mb "$bsize_kb")" \
        "$objects" "$edges"
    printf '%-28s %8s %7s %12s %9s %9s\n' tool wall_s cpu_s peak_rss_MB own_MB own/file
    printf '%-28s %8s %7s %12s %9s %9s\n' "leakray histo --retained" "$big_wall" "$big_cpu" \
        "$(bench_mb "$big_rss")" "$(bench_mb "$big_own")" "$(bench_ratio "$big_own" "$bsize_kb")"
    verdict=$(python3 -c 'import sys; print("yes" if int(sys.argv[1]) < 3 << 20 else "NO")' \
        "$big_rss")
    echo "total peak RSS under 3 GB: $verdict"
    grep -E '^(load time|devtools):' "$out/leakray-big.txt" || true
    if [ "${BIG_PEERS:-0}" = 1 ] && [ -f "$dir/b_hst.mjs" ]; then # written by a normal run
        bench_measure bhst "$out/hst-big.txt" node --max-old-space-size=16384 \
            "$dir/b_hst.mjs" "$big"
        echo "heap-snapshot-toolkit: exit $bhst_rc, ${bhst_wall} s, peak RSS" \
            "$(bench_mb "$bhst_rss") MB: $(tail -1 "$out/hst-big.txt.err" 2>/dev/null)"
        bench_measure bml "$out/memlab-big.txt" node --max-old-space-size=16384 \
            "$dir/b_memlab.js" "$big"
        echo "memlab: exit $bml_rc, ${bml_wall} s, peak RSS $(bench_mb "$bml_rss") MB:" \
            "$(tail -1 "$out/memlab-big.txt.err" 2>/dev/null)"
    fi
    exit 0
fi

# ---- snapshot (leak.js is taken verbatim from the peers' script) ----
snap=$dir/snaps-$scale/s3-final.heapsnapshot
if [ ! -f "$snap" ]; then
    [ -f "$peers" ] || { echo "v8: $peers not found (needed for the generator)" >&2; exit 2; }
    sed -n "/^cat > leak.js <<'EOF'$/,/^EOF$/p" "$peers" | sed '1d;$d' >"$dir/leak.js"
    echo "generating the snapshots (scale $scale) ..."
    node --expose-gc "$dir/leak.js" "$dir/snaps-$scale" "$scale"
fi
size=$(stat -c %s "$snap")
size_kb=$((size / 1024))

# ---- peers (npm, pinned versions, into the cache folder) ----
if [ ! -f "$dir/node_modules/heap-snapshot-toolkit/package.json" ] ||
    [ ! -f "$dir/node_modules/@memlab/heap-analysis/package.json" ]; then
    echo "installing heap-snapshot-toolkit@1.1.3 and memlab@2.0.5 into $dir ..."
    (cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } &&
        PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund \
            heap-snapshot-toolkit@1.1.3 memlab@2.0.5 >/dev/null)
fi
cat >"$dir/b_hst.mjs" <<'JS'
import {createReadStream} from 'node:fs'; import {parse} from 'heap-snapshot-toolkit';
console.warn = () => {}; console.time = () => {}; console.timeEnd = () => {};
const t0 = Date.now(); const snap = await parse(createReadStream(process.argv[2], 'utf-8'));
const t1 = Date.now(); const agg = snap.aggregatesWithFilter({}); const t2 = Date.now();
console.log(`parse+init=${t1 - t0}ms aggregates=${t2 - t1}ms nodes=${snap.nodeCount} classes=${Object.keys(agg).length}`);
JS
cat >"$dir/b_memlab.js" <<'JS'
const {getFullHeapFromFile} = require('@memlab/heap-analysis');
(async () => { const t0 = Date.now(); const heap = await getFullHeapFromFile(process.argv[2]);
  let n = 0; heap.nodes.forEach(() => { n++; });
  console.log(`memlab getFullHeapFromFile=${Date.now() - t0}ms nodes=${n}`); })();
JS

cat "$snap" >/dev/null # every tool starts with the file in the page cache
if grep -q -- '--retained' <<<"$("$lr" histo --help 2>/dev/null)"; then
    lr_args=(histo --retained)
else
    lr_args=(top --by class --top 50)
fi
walls=() cpus=()
for i in 1 2 3; do
    bench_measure lr "$out/leakray.txt" "$lr" "${lr_args[@]}" --no-progress "$snap"
    [ "$lr_rc" = 0 ] || { echo "leakray ${lr_args[*]} failed: $(head -3 "$out/leakray.txt.err")"; exit 1; }
    walls+=("$lr_wall")
    cpus+=("$lr_cpu")
    eval "lr_rss_$i=$lr_rss lr_own_$i=$lr_own"
done
lr_med=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n 2p)
lr_cpu_med=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n 2p)
bench_measure cl "$out/clusters.txt" "$lr" clusters --no-progress "$snap"
[ "$cl_rc" = 0 ] || { echo "leakray clusters failed: $(head -3 "$out/clusters.txt.err")"; exit 1; }
base=$dir/snaps-$scale/s1-baseline.heapsnapshot tgt=$dir/snaps-$scale/s2-target.heapsnapshot
bench_measure lk "$out/leaks.txt" "$lr" leaks --no-progress --baseline "$base" --target "$tgt" \
    --final "$snap"
[ "$lk_rc" = 0 ] || { echo "leakray leaks failed: $(head -3 "$out/leaks.txt.err")"; exit 1; }

bench_measure hst "$out/hst.txt" node --max-old-space-size=8192 "$dir/b_hst.mjs" "$snap"
bench_measure ml "$out/memlab.txt" node --max-old-space-size=8192 "$dir/b_memlab.js" "$snap"

printf '\nsnapshot: %s (%s MB)\n' "$snap" "$(bench_mb "$size_kb")"
printf '%-28s %8s %7s %12s %9s %9s\n' tool wall_s cpu_s peak_rss_MB own_MB own/file
row() { printf '%-28s %8s %7s %12s %9s %9s\n' "$1" "$2" "$3" "$(bench_mb "$4")" \
    "$(bench_mb "$5")" "$(bench_ratio "$5" "$size_kb")"; }
row "leakray ${lr_args[*]}" "$lr_med" "$lr_cpu_med" "$lr_rss" "$lr_own"
row "leakray clusters" "$cl_wall" "$cl_cpu" "$cl_rss" "$cl_own"
row "leakray leaks (3 snapshots)" "$lk_wall" "$lk_cpu" "$lk_rss" "$lk_own"
row "heap-snapshot-toolkit" "$hst_wall" "$hst_cpu" "$hst_rss" "$hst_own"
row "memlab getFullHeapFromFile" "$ml_wall" "$ml_cpu" "$ml_rss" "$ml_own"
echo "leakray runs: ${walls[*]} s wall, ${cpus[*]} s CPU"
echo "heap-snapshot-toolkit: $(grep -m1 'parse+init' "$out/hst.txt" || echo "failed (exit $hst_rc)")"
echo "memlab: $(grep -m1 'getFullHeapFromFile' "$out/memlab.txt" || echo "failed (exit $ml_rc)")"
echo "leaks: $(grep -m1 '^leaked:' "$out/leaks.txt")"
echo
# CPU seconds (user + system) are steadier than wall time when the machine is shared.
echo "speedup vs heap-snapshot-toolkit: $(bench_ratio "$hst_wall" "$lr_med")x wall," \
    "$(bench_ratio "$hst_cpu" "$lr_cpu_med")x CPU, peak RSS $(bench_ratio "$hst_rss" "$lr_rss")x less"
echo "speedup vs memlab loader:         $(bench_ratio "$ml_wall" "$lr_med")x wall," \
    "$(bench_ratio "$ml_cpu" "$lr_cpu_med")x CPU, peak RSS $(bench_ratio "$ml_rss" "$lr_rss")x less"
echo "leaks (3 files) vs memlab loader (1 file): $(bench_ratio "$ml_wall" "$lk_wall")x"
