#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# analyze_suspects.sh: what the LARGEST RETAINERS section costs `leakray analyze`. On the
# benchmark dump of scripts/gen-big-dump.sh (~120 MB, 2.3 M objects, watched leaks), runs
# `analyze --json --no-timing` with and without --no-suspects, 3 times each (page cache warm),
# and prints the medians of CPU time (user + system), wall time, peak RSS and own memory
# (RssAnon + RssShmem), the ratios with/without (target: at most 5 % more; on a 2.3 M-object
# heap the suspects' tree is built on the second core, so wall time is the figure that can
# meet it, while CPU and own memory show what the second tree costs), and own memory with
# and without side by side. With a second leakray (BASE, e.g. a build of an older commit) it
# measures that one too and checks that both print the same bytes (JSON and text). Shark
# 2.14 (scripts/shark-peer.sh, fetched from Maven Central on first use; skipped when it
# cannot be) analyses the same dump once, side by side. `top` (the same tree as the suspects)
# is measured too. With BENCH_BIG=1 the ~1 GB dump (SCALE 10, 22 M objects) is used instead,
# one run per command (each takes seconds and ~1 GB), and Shark is skipped.
# usage: [BENCH_BIG=1] bench/analyze_suspects.sh [LEAKRAY [BASE]]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=${1:-$src/build/leakray}
base=${2:-}
[ -x "$lr" ] || { echo "analyze_suspects: no leakray at $lr" >&2; exit 2; }
dir=$(bench_cache_dir)
out=$dir/analyze_suspects
mkdir -p "$out"
big=${BENCH_BIG:-0}
if [ "$big" = 1 ]; then
    dump=$("$src/scripts/gen-big-dump.sh" "$dir/big-x10.hprof" 10)
    runs=1
else
    dump=$("$src/scripts/gen-big-dump.sh" "$dir/big.hprof")
    runs=3
fi
cat "$dump" > /dev/null

# the median of 3 runs, or the one run
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
# run NAME BINARY [verb options...]: $runs runs of analyze (top when the first option is
# "top"); NAME_cpu/_wall/_rss/_own medians
run() {
    local name=$1 bin=$2 cpus=() walls=() rsss=() owns=() i verb=analyze
    shift 2
    if [ "${1:-}" = top ]; then verb=top; shift; fi
    for i in $(seq "$runs"); do
        bench_measure m "$out/$name.json" "$bin" "$verb" --json --no-timing --no-progress \
            "$@" "$dump"
        [ "$m_rc" = 0 ] || { echo "$name: exit $m_rc: $(head -3 "$out/$name.json.err")"; exit 1; }
        cpus+=("$m_cpu") walls+=("$m_wall") rsss+=("$m_rss") owns+=("$m_own")
    done
    printf -v "${name}_cpu" '%s' "$(med "${cpus[@]}")"
    printf -v "${name}_wall" '%s' "$(med "${walls[@]}")"
    printf -v "${name}_rss" '%s' "$(med "${rsss[@]}")"
    printf -v "${name}_own" '%s' "$(med "${owns[@]}")"
    printf '%-16s cpu %s s (runs %s)  wall %s s (runs %s)  peak RSS %s MB  own %s MB\n' \
        "$name" "$(med "${cpus[@]}")" "${cpus[*]}" "$(med "${walls[@]}")" "${walls[*]}" \
        "$(bench_mb "$(med "${rsss[@]}")")" "$(bench_mb "$(med "${owns[@]}")")"
}

echo "dump: $dump ($(($(stat -c %s "$dump") / 1048576)) MB); machine load: $(cut -d' ' -f1-3 /proc/loadavg)"
run suspects "$lr"
run nosuspects "$lr" --no-suspects
run top "$lr" top
ratio=$(bench_ratio "$suspects_cpu" "$nosuspects_cpu")
verdict=$(python3 -c "import sys; print('met' if float(sys.argv[1]) <= 1.05 else 'MISSED')" "$ratio")
wratio=$(bench_ratio "$suspects_wall" "$nosuspects_wall")
wverdict=$(python3 -c "import sys; print('met' if float(sys.argv[1]) <= 1.05 else 'MISSED')" "$wratio")
echo "suspects / no-suspects CPU: ${ratio}x (target <= 1.05: $verdict)"
echo "suspects / no-suspects wall: ${wratio}x (target <= 1.05: $wverdict)"
echo "suspects / no-suspects own memory: $(bench_ratio "$suspects_own" "$nosuspects_own")x," \
    "peak RSS: $(bench_ratio "$suspects_rss" "$nosuspects_rss")x"
# the second tree's cost in memory: both trees' scratch may coexist (two cores), so the
# figure to watch is own memory with suspects against without (goal: at most 88 MB on the
# 2.3 M-object dump, what analyze took before it had the suspects)
echo "own memory: with suspects $(bench_mb "$suspects_own") MB," \
    "without $(bench_mb "$nosuspects_own") MB (+$(bench_mb $((suspects_own - nosuspects_own))) MB)"
if [ -n "$base" ]; then
    run base_suspects "$base"
    run base_nosuspects "$base" --no-suspects
    run base_top "$base" top
    echo "base suspects / no-suspects CPU: $(bench_ratio "$base_suspects_cpu" "$base_nosuspects_cpu")x;" \
        "this build / base with suspects: CPU $(bench_ratio "$suspects_cpu" "$base_suspects_cpu")x," \
        "wall $(bench_ratio "$suspects_wall" "$base_suspects_wall")x"
    same=yes
    cmp -s "$out/suspects.json" "$out/base_suspects.json" || same=NO
    "$lr" analyze --no-timing --no-progress "$dump" > "$out/text.txt"
    "$base" analyze --no-timing --no-progress "$dump" > "$out/base_text.txt"
    cmp -s "$out/text.txt" "$out/base_text.txt" || same=NO
    echo "output byte-identical to base (JSON and text): $same"
fi

peer=$src/scripts/shark-peer.sh
if [ "$big" = 1 ]; then
    echo "Shark not run on the 1 GB dump (it needs several GB)"
elif "$peer" --fetch > /dev/null 2>&1; then
    bench_measure shark "$out/shark.txt" "$peer" --hprof "$dump" analyze
    if [ "$shark_rc" = 0 ]; then
        printf '%-16s cpu %s s  wall %s s  peak RSS %s MB\n' "shark 2.14" "$shark_cpu" \
            "$shark_wall" "$(bench_mb "$shark_rss")"
        echo "Shark / leakray (with suspects) CPU: $(bench_ratio "$shark_cpu" "$suspects_cpu")x"
    else
        echo "Shark failed (exit $shark_rc): $(tail -2 "$out/shark.txt.err")"
    fi
else
    echo "Shark peer not available (needs mvn, javac and Maven Central): no peer figures"
fi
