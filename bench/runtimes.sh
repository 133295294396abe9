#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# runtimes.sh: the readers of other runtimes beside the HPROF reader, in one run; wall, CPU
# (user + sys) and peak RSS of every run, MB/s and objects/s of CPU (the machine is shared:
# wall time mostly measures the queue).
# - JSON lines: the benchmark HPROF dump at JSONL_SCALE (scripts/gen-big-dump.sh; default 2,
#   4.5 M objects) converted with `convert -o X.jsonl` (690 MB), so both files hold the same
#   objects: `histo` and `top` (full load + dominators) on each, and the ratio. HPROF's `histo`
#   is a counting pass that builds no graph, so the readers compare on `top`.
# - Dart: a snapshot of DART_MB (default 500) MB streamed by tests/programs/dart/dartheap.py
#   (leaked checkout screens, 7 objects each, 128-unit titles; 15 M objects): `histo` and
#   `top`, against the HPROF dump's `top` above per object (the counts differ).
# - Ruby: a dump_all of a heap of RUBY_OBJECTS objects (default 1,000,000) written by Ruby;
#   `histo` and `top` (load + dominators) on it, time and memory against the dump's size,
#   beside Ruby's own cost of the dump and of counting the heap with ObjectSpace in process.
# Not a test. usage: bench/runtimes.sh [LEAKRAY]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
lr=${1:-$src/build/leakray}
. "$src/bench/lib.sh"
dir=$(bench_cache_dir)
scale=${JSONL_SCALE:-2}
hprof=$dir/big-x$scale.hprof
[ "$scale" = 1 ] && hprof=$dir/big.hprof
"$src/scripts/gen-big-dump.sh" "$hprof" "$scale" >/dev/null
jsonl="$dir/big-x$scale.jsonl"
[ -s "$jsonl" ] && [ "$jsonl" -nt "$hprof" ] || "$lr" convert "$hprof" -o "$jsonl" >/dev/null
out=$(mktemp -d "${TMPDIR:-/tmp}/lr-bench-rt.XXXXXX")
trap 'rm -rf "$out"' EXIT

py() { python3 -c "$@"; }
mbps() { py "import sys; print('%.0f' % (int(sys.argv[1]) / 1e6 / float(sys.argv[2])))" "$1" "$2"; }
mops() { py "import sys; print('%.2f' % (int(sys.argv[1]) / 1e6 / float(sys.argv[2])))" "$1" "$2"; }
objs() { py "import json,sys; print(sum(c['count'] for c in json.load(open(sys.argv[1]))['classes']))" "$1"; }
line() { # NAME LABEL BYTES OBJECTS VERB
    local w c r o
    w=$(eval echo "\$${1}_wall") c=$(eval echo "\$${1}_cpu") r=$(eval echo "\$${1}_rss")
    o=$(eval echo "\$${1}_own")
    printf '%-6s %-5s %8s MB %10s objects: %6s s wall, %6s s CPU, %5s MB/s of CPU, %5s M objects/s of CPU, peak RSS %s MB (own %s MB)\n' \
        "$2" "$5" "$(bench_mb $(($3 / 1024)))" "$4" "$w" "$c" "$(mbps "$3" "$c")" "$(mops "$4" "$c")" \
        "$(bench_mb "$r")" "$(bench_mb "$o")"
}
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

for f in "$hprof" "$jsonl"; do cat "$f" >/dev/null; done
bench_measure hp "$out/hp.json" nice "$lr" histo --json --no-timing "$hprof"
bench_measure js "$out/js.json" nice "$lr" histo --json --no-timing "$jsonl"
bench_measure hpt "$out/hpt.json" nice "$lr" top --json --no-timing "$hprof"
bench_measure jst "$out/jst.json" nice "$lr" top --json --no-timing "$jsonl"
hs=$(stat -c %s "$hprof") js=$(stat -c %s "$jsonl")
hn=$(objs "$out/hp.json") jn=$(objs "$out/js.json")
line hp HPROF "$hs" "$hn" histo
line js JSONL "$js" "$jn" histo
line hpt HPROF "$hs" "$hn" top
line jst JSONL "$js" "$jn" top
echo "JSONL / HPROF top, same objects: time $(bench_ratio "$jst_cpu" "$hpt_cpu") (CPU), $(bench_ratio "$jst_wall" "$hpt_wall") (wall); peak RSS $(bench_ratio "$jst_rss" "$hpt_rss")"

dmb=${DART_MB:-500}
screens=$((dmb * 1000000 / 229)) # 229 bytes per screen with 128-unit titles
dart="$dir/big-$dmb.dartheap"
[ -s "$dart" ] || nice python3 "$src/tests/programs/dart/dartheap.py" "$dart" stream "$screens" 128
cat "$dart" >/dev/null
bench_measure dt "$out/dt.json" nice "$lr" histo --json --no-timing "$dart"
bench_measure dtt "$out/dtt.json" nice "$lr" top --json --no-timing "$dart"
ds=$(stat -c %s "$dart") dn=$(objs "$out/dt.json")
line dt Dart "$ds" "$dn" histo
line dtt Dart "$ds" "$dn" top
echo "Dart / HPROF top, CPU per object: $(py "import sys; a=float(sys.argv[1])/int(sys.argv[2]); b=float(sys.argv[3])/int(sys.argv[4]); print('%.2f' % (a / b))" "$dtt_cpu" "$dn" "$hpt_cpu" "$hn")"

n=${RUBY_OBJECTS:-1000000}
if command -v ruby >/dev/null; then
    rb="$dir/ruby-$n.json"
    # Ruby's own numbers: dump_all's CPU time, and counting the heap in process
    # (ObjectSpace.count_objects, and each_object(String) as a per-class count)
    # (counted first: dumping allocates a few strings of its own)
    nice ruby -robjspace -rjson -e 'n = Integer(ARGV[1]); keep = Array.new(n / 2) { |i| "s#{i}" }
        h = {}; (n / 2).times { |i| h[i] = [i] }; GC.start
        cpu = -> { Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) }
        t0 = cpu.(); c = ObjectSpace.count_objects; t1 = cpu.()
        s = ObjectSpace.each_object(String).count; t2 = cpu.()
        File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }; t3 = cpu.()
        File.write(ARGV[2], JSON.generate({dump: t3 - t2, count_objects: t1 - t0, total: c[:TOTAL] - c[:FREE],
                                           each_string: t2 - t1, strings: s}))' "$rb" "$n" "$out/ruby.json"
    cat "$rb" >/dev/null
    bench_measure rh "$out/rh.json" nice "$lr" histo --json --no-timing "$rb"
    bench_measure rt "$out/rt.json" nice "$lr" top --json --no-timing "$rb"
    rs=$(stat -c %s "$rb") rn=$(objs "$out/rh.json")
    line rh Ruby "$rs" "$rn" histo
    line rt Ruby "$rs" "$rn" top
    echo "Ruby top: own memory $(bench_ratio "$rt_own" $((rs / 1024)))x the dump, peak RSS $(bench_ratio "$rt_rss" $((rs / 1024)))x"
    py 'import json,sys; r=json.load(open(sys.argv[1])); h=json.load(open(sys.argv[2]))
s=[c["count"] for c in h["classes"] if c["name"] == "String"][0]
print("Ruby in process: dump_all %.2f s CPU; count_objects %.3f s CPU (%d live slots); each_object(String) %.2f s CPU: %d strings, leakray histo: %d"
      % (r["dump"], r["count_objects"], r["total"], r["each_string"], r["strings"], s))' "$out/ruby.json" "$out/rh.json"
else
    echo "Ruby: not installed (scripts/deps.sh test installs it)"
fi
