#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof_histo.sh: `leakray histo` against VisualVM's heap walker (peers/visualvm) on the same
# HotSpot dump in one run: the ~120 MB, 2.3 M object dump of scripts/gen-big-dump.sh (cached
# in ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}). Prints wall time, peak RSS and own memory
# (RssAnon + RssShmem, bench/lib.sh) of each, the ratios against the targets, and whether the
# per-class instances and bytes are equal (MATCH / MISMATCH). leakray runs 3 times (page
# cache warm) and the median is reported; VisualVM once, after one warm-up run that compiles
# its driver. Exit 1 on MISMATCH or when a tool fails; missed targets are reported, not fatal.
# Targets: >= 25x faster than VisualVM, < 0.15 s, own memory <= 0.3x the file.
# usage: bench/hprof_histo.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
[ -x "$lr" ] || { echo "hprof_histo: no leakray at $lr" >&2; exit 2; }
dir=$(bench_cache_dir)
dump=$("$src/scripts/gen-big-dump.sh" "$dir/big.hprof")
size=$(stat -c %s "$dump")
size_kb=$((size / 1024))
out=$dir/hprof_histo
mkdir -p "$out"
cat "$dump" >/dev/null # both tools start with the dump in the page cache

walls=()
for i in 1 2 3; do
    bench_measure lr "$out/leakray.json" "$lr" histo --json --no-timing --no-progress "$dump"
    [ "$lr_rc" = 0 ] || { echo "leakray histo failed (exit $lr_rc): $(head -3 "$out/leakray.json.err")"; exit 1; }
    walls+=("$lr_wall")
done
lr_med=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n 2p)
objs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["count"])' "$out/leakray.json")

printf '\ndump: %s (%s MB, %s objects)\n' "$dump" "$(bench_mb "$size_kb")" "$objs"
printf '%-10s %9s %7s %13s %10s %10s\n' tool wall_s cpu_s peak_rss_MB own_MB own/file
printf '%-10s %9s %7s %13s %10s %10s\n' leakray "$lr_med" "$lr_cpu" "$(bench_mb "$lr_rss")" \
    "$(bench_mb "$lr_own")" "$(bench_ratio "$lr_own" "$size_kb")"
echo "leakray runs: ${walls[*]} s"

peer=$src/../shared/peers/visualvm/run.sh
if [ ! -f "$peer" ] || [ ! -d /usr/share/visualvm ]; then
    echo "VisualVM peer not available (needs ../shared/peers and the visualvm package): no ratios"
    exit 0
fi
bash "$peer" "$dump" histo >/dev/null 2>&1 || true # compiles the driver, warms the JVM's files
bench_measure vv "$out/visualvm.txt" bash "$peer" "$dump" histo
[ "$vv_rc" = 0 ] || { echo "VisualVM failed (exit $vv_rc): $(tail -3 "$out/visualvm.txt.err")"; exit 1; }
printf '%-10s %9s %7s %13s %10s %10s\n' visualvm "$vv_wall" "$vv_cpu" "$(bench_mb "$vv_rss")" \
    "$(bench_mb "$vv_own")" "$(bench_ratio "$vv_own" "$size_kb")"
echo "visualvm: $(grep -m1 '^load_ms=' "$out/visualvm.txt")"

speed=$(bench_ratio "$vv_wall" "$lr_med")
mem=$(bench_ratio "$lr_own" "$size_kb")
verdict() { python3 -c 'import sys; print("met" if eval(sys.argv[1]) else "MISSED")' "$1"; }
echo
echo "speedup vs VisualVM: ${speed}x (target >= 25x: $(verdict "$speed >= 25")); CPU time ratio $(bench_ratio "$vv_cpu" "$lr_cpu")x"
echo "leakray wall:        ${lr_med} s (target < 0.15 s: $(verdict "$lr_med < 0.15"))"
echo "own memory / file:   ${mem}x (target <= 0.3x: $(verdict "$mem <= 0.3"))"
echo "peak RSS ratio:      $(bench_ratio "$vv_rss" "$lr_rss")x less than VisualVM"
python3 "$src/tests/e2e/foundation_histo_cmp.py" "$out/leakray.json" "$out/visualvm.txt" \
    "histogram (per-class instances and bytes)" | grep -v '^  note:'
exit "${PIPESTATUS[0]}"
