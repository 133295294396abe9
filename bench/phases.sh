#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# phases.sh: where the time of `analyze` and `top` goes on HotSpot dumps, phase by phase
# (--json --timing: timing.phases, docs/limits.md), wall and CPU, with own memory
# (RssAnon + RssShmem, bench/lib.sh) and the CPUs used (CPU / wall: 2.0 = both cores busy).
# Dumps: the ~120 MB one of scripts/gen-big-dump.sh, and with BENCH_BIG=1 the ~1 GB one
# (SCALE 10, written once and cached in ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}). Each
# command runs 3 times, page cache warm; medians. With BEFORE=path/to/old/leakray the same
# commands run with that build too (totals only when it has no phases), the ratio
# AFTER/BEFORE is printed with both builds' phases side by side, and the outputs (--no-timing)
# must be byte-identical.
# usage: [BEFORE=...] [BENCH_BIG=1] bench/phases.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=${1:-$src/build/leakray}
[ -x "$lr" ] || { echo "phases: no leakray at $lr" >&2; exit 2; }
dir=$(bench_cache_dir)
out=$dir/phases
mkdir -p "$out"
dumps=("$("$src/scripts/gen-big-dump.sh" "$dir/big.hprof")")
[ "${BENCH_BIG:-}" = 1 ] && dumps+=("$("$src/scripts/gen-big-dump.sh" "$dir/big-x10.hprof" 10)")
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# run_one TAG BINARY VERB DUMP: 3 runs; medians into TAG_wall/TAG_cpu/TAG_own, phases file.
run_one() {
    local tag=$1 bin=$2 verb=$3 dump=$4 w=() c=() o=() i
    for i in 1 2 3; do
        bench_measure m "$out/$tag.$i.json" "$bin" "$verb" --json --timing --no-progress "$dump"
        [ "$m_rc" = 0 ] || { echo "phases: $bin $verb failed: $(head -2 "$out/$tag.$i.json.err")"; exit 1; }
        w+=("$m_wall") c+=("$m_cpu") o+=("$m_own")
    done
    printf -v "${tag}_wall" '%s' "$(median "${w[@]}")"
    printf -v "${tag}_cpu" '%s' "$(median "${c[@]}")"
    printf -v "${tag}_own" '%s' "$(median "${o[@]}")"
    "$bin" "$verb" --no-timing --no-progress "$dump" >"$out/$tag.txt"
    python3 - "$out/$tag".[123].json >"$out/$tag.phases" <<'PY'
import json, statistics, sys
runs = [json.load(open(p)).get("timing", {}).get("phases", []) for p in sys.argv[1:]]
for i, ph in enumerate(runs[0]):
    walls = [r[i]["wall_ms"] for r in runs if i < len(r)]
    cpus = [r[i]["cpu_ms"] for r in runs if i < len(r)]
    print(f'{ph["name"]}\t{statistics.median(walls):.1f}\t{statistics.median(cpus):.1f}')
PY
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for dump in "${dumps[@]}"; do
    cat "$dump" >/dev/null
    size=$(stat -L -c %s "$dump") # -L: the dump may be reached through a link
    for verb in analyze top; do
        echo "== $verb $(basename "$dump") ($(bench_mb $((size / 1024))) MB)"
        run_one after "$lr" "$verb" "$dump"
        printf '  %-16s %9s %9s %6s\n' phase wall_ms cpu_ms cpus
        while IFS=$'\t' read -r name wall cpu; do
            printf '  %-16s %9s %9s %6s\n' "$name" "$wall" "$cpu" "$(bench_ratio "$cpu" "$wall")"
        done <"$out/after.phases"
        printf '  total: %.2f s wall, %.2f s CPU (%s CPUs), own %s MB (%sx the file)\n' \
            "$after_wall" "$after_cpu" "$(bench_ratio "$after_cpu" "$after_wall")" \
            "$(bench_mb "$after_own")" "$(bench_ratio "$((after_own * 1024))" "$size")"
        if [ -n "${BEFORE:-}" ]; then
            run_one before "$BEFORE" "$verb" "$dump"
            printf '  %-16s %9s %9s %9s %9s\n' phase wall_ms cpu_ms before_w before_c
            while IFS=$'\t' read -r name wall cpu; do
                IFS=$'\t' read -r _ bw bc < <(grep -P "^\Q$name\E\t" "$out/before.phases" || printf 'x\t-\t-\n')
                printf '  %-16s %9s %9s %9s %9s\n' "$name" "$wall" "$cpu" "$bw" "$bc"
            done <"$out/after.phases"
            printf '  before: %.2f s wall, %.2f s CPU, own %s MB; after/before: wall %s, CPU %s\n' \
                "$before_wall" "$before_cpu" "$(bench_mb "$before_own")" \
                "$(bench_ratio "$after_wall" "$before_wall")" "$(bench_ratio "$after_cpu" "$before_cpu")"
            cmp -s "$out/before.txt" "$out/after.txt" && echo "  output: identical" ||
                { echo "  output: DIFFERS ($out/before.txt, $out/after.txt)"; exit 1; }
        fi
    done
done
