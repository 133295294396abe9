#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gen-big-dump.sh: writes (once) the benchmark heap dump, a HotSpot HPROF of about 120 MB and
# 2.3 million objects with planted leaks (tests/programs/bench/BigDump.java), and prints its
# path. The dump is cached in the scratch folder and rebuilt only when the Java sources or
# SCALE differ from those it was written from (OUT.stamp holds their hash:
# scripts/dump-stamp.bash), so repeated benchmark runs, from any checkout, measure the same
# bytes.
# usage: scripts/gen-big-dump.sh [OUT.hprof [SCALE]]
#   default OUT: ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}/big.hprof
#   SCALE (default 1) multiplies the bulk of the heap (sessions, chain): 10 gives 1.0 GB
#   and 22 million objects; the planted leaks stay the same.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}
out=${1:-$dir/big.hprof}
scale=${2:-1}
case $scale in '' | *[!0-9]*) echo "gen-big-dump: SCALE must be a number" >&2; exit 2 ;; esac
scale=$((10#$scale)) # "01" and "1" ask for the same dump
mkdir -p "$(dirname "$out")"
progs=("$src/tests/programs/bench/BigDump.java" "$src/tests/programs/bench/PlantedLeaks.java"
       "$src/tests/programs/demo/KeyedWeakReference.java")
. "$src/scripts/dump-stamp.bash"
stamp=$(dump_stamp "BigDump scale $scale" "${progs[@]}")
if ! dump_cached gen-big-dump "$out" "$stamp"; then
    command -v javac >/dev/null || { echo "gen-big-dump: javac not found (scripts/deps.sh bench)" >&2; exit 2; }
    cls=$(mktemp -d "${TMPDIR:-/tmp}/lr-bigdump.XXXXXX")
    trap 'rm -rf "$cls"' EXIT
    javac -d "$cls" "${progs[@]}"
    rm -f "$out" "$out.stamp" "$out.tmp.hprof"
    echo "gen-big-dump: writing $out" >&2
    # dumpHeap refuses to overwrite, and a half-written dump must never look cached.
    java -Xmx$((2 + scale / 2))g -XX:+UseParallelGC -cp "$cls" BigDump "$out.tmp.hprof" "$scale" >&2
    mv "$out.tmp.hprof" "$out"
    dump_stamp_write "$out" "$stamp"
fi
printf '%s\n' "$out"
