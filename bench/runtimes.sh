#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# runtimes.sh: throughput of the readers of other runtimes beside the HPROF reader, in one run.
# - JSON lines: the benchmark HPROF dump (scripts/gen-big-dump.sh, 2.3 M objects) converted with
#   `convert -o X.jsonl`, so both files hold the same objects; `histo` on each, MB/s and
#   objects/s, and the ratio.
# - Dart: a snapshot of the same order of objects written by tests/programs/dart/dartheap.py
#   (DART_SCREENS leaked screens, 7 objects each; default 300,000 = 2.1 M objects).
# - Ruby: a dump_all of a heap with RUBY_OBJECTS objects (default 1,000,000) written by Ruby, then
#   `top` (dominators) on it: time and own memory against the dump's size. Ruby's own dump time
#   is printed beside it.
# Not a test. usage: bench/runtimes.sh [LEAKRAY]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
lr=${1:-$src/build/leakray}
. "$src/bench/lib.sh"
dir=$(bench_cache_dir)
hprof=$("$src/scripts/gen-big-dump.sh")
jsonl="$dir/big.jsonl"
[ -s "$jsonl" ] && [ "$jsonl" -nt "$hprof" ] || "$lr" convert "$hprof" -o "$jsonl" >/dev/null
out=$(mktemp -d "${TMPDIR:-/tmp}/lr-bench-rt.XXXXXX")
trap 'rm -rf "$out"' EXIT

mbps() { python3 -c "import sys; print('%.0f' % (int(sys.argv[1]) / 1e6 / float(sys.argv[2])))" "$1" "$2"; }
objs() { python3 -c "import json,sys; print(sum(c['count'] for c in json.load(open(sys.argv[1]))['classes']))" "$1"; }

for f in "$hprof" "$jsonl"; do cat "$f" >/dev/null; done
bench_measure hp "$out/hp.json" "$lr" histo --json --no-timing "$hprof"
bench_measure js "$out/js.json" "$lr" histo --json --no-timing "$jsonl"
hs=$(stat -c %s "$hprof")
js=$(stat -c %s "$jsonl")
# MB/s from CPU seconds too: wall time on a shared 2-core machine mostly measures the queue.
echo "HPROF  $(bench_mb $((hs / 1024))) MB, $(objs "$out/hp.json") objects: histo ${hp_wall} s wall, ${hp_cpu} s CPU, $(mbps "$hs" "$hp_wall") MB/s"
echo "JSONL  $(bench_mb $((js / 1024))) MB, $(objs "$out/js.json") objects: histo ${js_wall} s wall, ${js_cpu} s CPU, $(mbps "$js" "$js_wall") MB/s ($(mbps "$js" "$js_cpu") MB/s of CPU), own $(bench_mb "$js_own") MB"
echo "JSONL / HPROF time: $(bench_ratio "$js_wall" "$hp_wall") (CPU $(bench_ratio "$js_cpu" "$hp_cpu"))"

screens=${DART_SCREENS:-300000}
dart="$dir/big-$screens.dartheap"
[ -s "$dart" ] || python3 "$src/tests/programs/dart/dartheap.py" "$dart" new "$screens"
cat "$dart" >/dev/null
bench_measure dt "$out/dt.json" "$lr" histo --json --no-timing "$dart"
ds=$(stat -c %s "$dart")
echo "Dart   $(bench_mb $((ds / 1024))) MB, $(objs "$out/dt.json") objects: histo ${dt_wall} s wall, ${dt_cpu} s CPU, $(mbps "$ds" "$dt_wall") MB/s ($(mbps "$ds" "$dt_cpu") MB/s of CPU), own $(bench_mb "$dt_own") MB"

n=${RUBY_OBJECTS:-1000000}
if command -v ruby >/dev/null; then
    rb="$dir/ruby-$n.json"
    if [ ! -s "$rb" ]; then
        t0=$(date +%s.%N)
        ruby -robjspace -e 'n = Integer(ARGV[1]); keep = Array.new(n / 2) { |i| "s#{i}" };
            h = {}; (n / 4).times { |i| h[i] = [i] }; GC.start;
            File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }' "$rb" "$n"
        t1=$(date +%s.%N)
        echo "Ruby's dump_all: $(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1") s"
    fi
    cat "$rb" >/dev/null
    bench_measure rt "$out/rt.json" "$lr" top --json --no-timing "$rb"
    rs=$(stat -c %s "$rb")
    echo "Ruby   $(bench_mb $((rs / 1024))) MB: top (load + dominators) ${rt_wall} s wall, ${rt_cpu} s CPU, $(mbps "$rs" "$rt_wall") MB/s, own $(bench_mb "$rt_own") MB = $(bench_ratio "$rt_own" $((rs / 1024)))x the dump"
else
    echo "Ruby: not installed (scripts/deps.sh test installs it)"
fi
