#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# analyze.sh: `leakray analyze` (shortest paths, exact dominators, leak report) against
# VisualVM's heap walker computing retained sizes (peers/visualvm `top 10`) on the same
# HotSpot dump in one run: the ~120 MB, 2.3 M object dump of scripts/gen-big-dump.sh (cached in
# ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}), whose program watches destroyed screens through
# leakcanary.KeyedWeakReference. Prints wall time, CPU time, peak RSS and own memory
# (RssAnon + RssShmem, bench/lib.sh) of each, leakray's phase times (LEAKRAY_TIMINGS=1), the
# ratios against the targets, and whether leakray found every planted watched leak (FOUND /
# MISSING). leakray runs 3 times (page cache warm) and the median is reported; VisualVM once,
# after one warm-up run that compiles its driver. Exit 1 on MISSING or when a tool fails;
# missed targets are reported, not fatal.
# Targets: < 0.8 s, >= 25x faster than VisualVM, own memory <= 1.0x the file.
# BENCH_BIG=1 adds a run on a generated ~1 GB dump (SCALE 10, written once and cached, a few
# minutes the first time), target < 8 s; VisualVM is not run on it.
# usage: bench/analyze.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
[ -x "$lr" ] || { echo "analyze: no leakray at $lr" >&2; exit 2; }
dir=$(bench_cache_dir)
out=$dir/analyze
mkdir -p "$out"
verdict() { python3 -c 'import sys; print("met" if eval(sys.argv[1]) else "MISSED")' "$1"; }

# Watched leaks of BigDump: 10 destroyed screens, each watched by a KeyedWeakReference.
check_leaks() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
watched = [t for t in r["traces"] if t["source"] == "watched"]
# PlantedLeaks$Screen; BigDump$Screen in dumps written before the leaks moved to PlantedLeaks
screens = [t for t in watched if t["class"] in ("PlantedLeaks$Screen", "BigDump$Screen")]
groups = len(r["application_leaks"]) + len(r["library_leaks"])
ok = r["keyed_weak_references"] >= 10 and len(screens) == 10
print(f"leaks: {r['keyed_weak_references']} KeyedWeakReferences, {len(watched)} watched traces "
      f"({len(screens)} watched screens), {groups} groups -> {'FOUND' if ok else 'MISSING'}")
sys.exit(0 if ok else 1)
PY
}

# run_leakray NAME DUMP: 3 runs, median wall into NAME_med; the last run's figures stay.
run_leakray() {
    local name=$1 dump=$2 walls=() i
    for i in 1 2 3; do
        bench_measure "$name" "$out/$name.json" env LEAKRAY_TIMINGS=1 "$lr" analyze --json \
            --no-progress "$dump"
        local rc_var=${name}_rc wall_var=${name}_wall
        [ "${!rc_var}" = 0 ] || {
            echo "leakray analyze failed (exit ${!rc_var}): $(head -3 "$out/$name.json.err")"
            exit 1
        }
        walls+=("${!wall_var}")
    done
    printf -v "${name}_med" '%s' "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n 2p)"
    printf -v "${name}_runs" '%s' "${walls[*]}"
}

dump=$("$src/scripts/gen-big-dump.sh" "$dir/big.hprof")
size=$(stat -c %s "$dump")
size_kb=$((size / 1024))
cat "$dump" >/dev/null # both tools start with the dump in the page cache
run_leakray lr "$dump"
objs=$("$lr" info --json --no-progress "$dump" | python3 -c \
    'import json,sys; print(json.load(sys.stdin)["objects"]["count"])' 2>/dev/null || echo "?")

printf '\ndump: %s (%s MB, %s objects)\n' "$dump" "$(bench_mb "$size_kb")" "$objs"
printf '%-10s %9s %7s %13s %10s %10s\n' tool wall_s cpu_s peak_rss_MB own_MB own/file
printf '%-10s %9s %7s %13s %10s %10s\n' leakray "$lr_med" "$lr_cpu" "$(bench_mb "$lr_rss")" \
    "$(bench_mb "$lr_own")" "$(bench_ratio "$lr_own" "$size_kb")"
echo "leakray runs: $lr_runs s; phases of the last run:"
sed 's/^leakray: /    /' "$out/lr.json.err"
status=0
check_leaks "$out/lr.json" || status=1

peer=$src/../shared/peers/visualvm/run.sh
if [ ! -f "$peer" ] || [ ! -d /usr/share/visualvm ]; then
    echo "VisualVM peer not available (needs ../shared/peers and the visualvm package): no ratios"
else
    bash "$peer" "$dump" top 10 >/dev/null 2>&1 || true # compiles the driver, warms the JVM
    bench_measure vv "$out/visualvm.txt" bash "$peer" "$dump" top 10
    [ "$vv_rc" = 0 ] || {
        echo "VisualVM failed (exit $vv_rc): $(tail -3 "$out/visualvm.txt.err")"
        exit 1
    }
    printf '%-10s %9s %7s %13s %10s %10s\n' visualvm "$vv_wall" "$vv_cpu" \
        "$(bench_mb "$vv_rss")" "$(bench_mb "$vv_own")" "$(bench_ratio "$vv_own" "$size_kb")"
    echo "visualvm: $(grep -m1 '^load_ms=' "$out/visualvm.txt" || true)"
    speed=$(bench_ratio "$vv_wall" "$lr_med")
    echo
    echo "speedup vs VisualVM: ${speed}x (target >= 25x: $(verdict "$speed >= 25"));" \
        "CPU time ratio $(bench_ratio "$vv_cpu" "$lr_cpu")x"
    echo "peak RSS ratio:      $(bench_ratio "$vv_rss" "$lr_rss")x less than VisualVM"
fi
mem=$(bench_ratio "$lr_own" "$size_kb")
echo "leakray wall:        ${lr_med} s (target < 0.8 s: $(verdict "$lr_med < 0.8"))"
echo "own memory / file:   ${mem}x (target <= 1.0x: $(verdict "$mem <= 1.0"))"

if [ "${BENCH_BIG:-0}" = 1 ]; then
    big=$("$src/scripts/gen-big-dump.sh" "$dir/big1g.hprof" 10)
    bsize_kb=$(($(stat -c %s "$big") / 1024))
    cat "$big" >/dev/null
    run_leakray lb "$big"
    printf '\nbig dump: %s (%s MB)\n' "$big" "$(bench_mb "$bsize_kb")"
    printf '%-10s %9s %7s %13s %10s %10s\n' leakray "$lb_med" "$lb_cpu" "$(bench_mb "$lb_rss")" \
        "$(bench_mb "$lb_own")" "$(bench_ratio "$lb_own" "$bsize_kb")"
    echo "leakray runs: $lb_runs s; phases of the last run:"
    sed 's/^leakray: /    /' "$out/lb.json.err"
    check_leaks "$out/lb.json" || status=1
    echo "1 GB dump wall:      ${lb_med} s (target < 8 s: $(verdict "$lb_med < 8"))"
fi
exit "$status"
