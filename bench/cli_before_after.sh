#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cli_before_after.sh: the cost of the shared CLI plumbing (number formatting, tables with a
# % column, --mapping in cli_open, the diff input check, analyze's text and JSON renderers,
# sql's result tables: 100,000 rows kept and rendered as TSV or JSON, or streamed)
# measured side by side: the same commands on the same dump with a reference build of
# leakray (BEFORE, e.g. the previous release) and this one (AFTER), in one run. Dump: the
# ~120 MB HotSpot dump of scripts/gen-big-dump.sh (cached in
# ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}). Each command runs 3 times per build, interleaved,
# page cache warm; medians of wall and CPU time, the ratio AFTER/BEFORE (1.00 = unchanged;
# CPU time is the steadier figure on a busy machine) and each build's median own memory
# (RssAnon + RssShmem, MB). BENCH_ONLY=REGEX keeps the commands it matches (BENCH_ONLY=analyze).
# usage: bench/cli_before_after.sh BEFORE [AFTER]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
before=${1:?usage: bench/cli_before_after.sh BEFORE [AFTER]}
after=${2:-$src/build/leakray}
[ -x "$before" ] && [ -x "$after" ] || { echo "cli_before_after: need two leakray binaries" >&2; exit 2; }
dir=$(bench_cache_dir)
dump=$("$src/scripts/gen-big-dump.sh" "$dir/big.hprof")
out=$dir/cli_before_after
mkdir -p "$out"
cat "$dump" >/dev/null
# sql's statement (arguments cannot hold spaces here): 100,000 rows with a retained column
echo "SELECT id, class, shallow, retained FROM objects ORDER BY id LIMIT 100000;" >"$out/q.sql"

median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
printf '%-28s %9s %9s %9s %9s %8s %8s %9s %9s\n' command before_s after_s before_cpu after_cpu \
    wall_x cpu_x before_MB after_MB
for cmd in "histo" "histo --retained" "top --top 20" "top --by class --top 20" "diff" \
           "analyze" "analyze --json" "sql" "sql --json" "sql --max-rows 0" \
           "path --merged --class java.lang.String"; do
    [[ "$cmd" =~ ${BENCH_ONLY:-.} ]] || continue
    bw=() aw=() bc=() ac=() bo=() ao=()
    args=($cmd)
    [ "$cmd" = diff ] && args+=("$dump") # a dump against itself: the input check included
    [ "${cmd%% *}" = sql ] && args+=(--sql-file "$out/q.sql")
    for i in 1 2 3; do
        bench_measure b "$out/before.txt" "$before" "${args[@]}" --no-timing --no-progress "$dump"
        bench_measure a "$out/after.txt" "$after" "${args[@]}" --no-timing --no-progress "$dump"
        [ "$b_rc" = 0 ] && [ "$a_rc" = 0 ] || { echo "$cmd failed: $b_rc / $a_rc" >&2; exit 1; }
        bw+=("$b_wall") aw+=("$a_wall") bc+=("$b_cpu") ac+=("$a_cpu")
        bo+=("$b_own") ao+=("$a_own")
    done
    B=$(median "${bw[@]}") A=$(median "${aw[@]}") BC=$(median "${bc[@]}") AC=$(median "${ac[@]}")
    printf '%-28s %9s %9s %9s %9s %8s %8s %9s %9s\n' "$cmd" "$B" "$A" "$BC" "$AC" \
        "$(bench_ratio "$A" "$B")" "$(bench_ratio "$AC" "$BC")" \
        "$(bench_mb "$(median "${bo[@]}")")" "$(bench_mb "$(median "${ao[@]}")")"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
