#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent.sh: the JVM agent's costs, each workload run side by side with the same program
# without the agent (tests/programs/bench/AgentBench.java), in one run:
#  1. overhead of watching 100,000 short-lived objects (AppWatcher.expectWeaklyReachable);
#  2. overhead of 1,000,000 calls of a close() watched by the Closeable#close rule
#     (AGENT_BENCH_CLOSES to change), on connections the JIT keeps out of the heap without
#     the agent (close) and on connections handed through a queue first (queue); target for
#     both: <= 5 % wall time. Wall and CPU (user + sys of the whole JVM) are both printed:
#     on a loaded machine the wall time multiplies the CPU time by the load. The same three
#     workloads then run 2-3 s of CPU each (3,000,000 watches, 100,000,000 closes; the same
#     work per object, AGENT_BENCH_LONG=0 skips them): a fixed cost of the agent (its set-up,
#     the JDK classes it hooks at start) weighs less there than on a 0.2 s program;
#  3. time from the 5th retained object to the report on disk on a 100 MB heap (target <= 3 s),
#     with the dump's pause, size and the analysis time, and Shark's analysis of the same dump
#     beside leakray's when its jars are fetched (scripts/shark-peer.sh);
#  4. memory the agent adds: RSS of 100,000 watched live objects minus the same without the
#     agent (heap pre-touched, so the Java heap is the same size), per object (target <= 64 B),
#     and the agent's fixed RSS (target <= 4 MB).
# Times are medians of AGENT_BENCH_RUNS (5) interleaved runs (without, with, without, ...) for
# workloads 1 and 2, of 3 for 4, on a machine shared with others.
# usage: bench/agent.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
build=$(dirname "$lr")
so=$build/libleakray_agent.so
jar=$build/leakray-watcher.jar
[ -f "$so" ] && [ -f "$jar" ] || { echo "agent: $so / $jar not built (needs a JDK)" >&2; exit 2; }
out=$(bench_cache_dir)/agent
rm -rf "$out"
mkdir -p "$out/classes"
javac -d "$out/classes" -cp "$jar" "$src/tests/programs/bench/AgentBench.java"
cp="$jar:$out/classes"
closes=${AGENT_BENCH_CLOSES:-1000000}
runs=${AGENT_BENCH_RUNS:-5}
verdict() { python3 -c 'import sys; print("met" if eval(sys.argv[1]) else "MISSED")' "$1"; }
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

run_ms() { # ARGS...: one JVM run, prints "WALL LOOP CPU" in ms (LOOP: the program's timed
    # loop; CPU: user + sys of the JVM)
    local loop cpu
    /usr/bin/time -f '%e %U %S' -o "$out/time" java "$@" > "$out/run.out" 2>/dev/null
    loop=$(sed -n 's/^elapsed_ms //p' "$out/run.out")
    read -r w u s < "$out/time"
    cpu=$(python3 -c "print(int(round(($u + $s) * 1000)))")
    echo "$(python3 -c "print(int(round($w * 1000)))") ${loop:-0} $cpu"
}

overhead() { # NAME N RUNS
    local name=$1 n=$2 runs=$3 i a=() b=() al=() bl=() ac=() bc=() r w l c
    for ((i = 0; i < runs; i++)); do
        read -r w l c <<<"$(run_ms -Xmx512m -cp "$cp" AgentBench "$name" "$n")"
        b+=("$w"); bl+=("$l"); bc+=("$c")
        read -r w l c <<<"$(run_ms -Xmx512m "-agentpath:$so=quiet,dump-dir=$out/d-$name" \
            -cp "$cp" AgentBench "$name" "$n")"
        a+=("$w"); al+=("$l"); ac+=("$c")
    done
    local mb ma lb la cb ca pct lpct cpct
    mb=$(median "${b[@]}"); ma=$(median "${a[@]}")
    lb=$(median "${bl[@]}"); la=$(median "${al[@]}")
    cb=$(median "${bc[@]}"); ca=$(median "${ac[@]}")
    pct=$(python3 -c "print('%+.1f' % (100.0 * ($ma - $mb) / $mb))")
    lpct=$(python3 -c "print('%+.1f' % (100.0 * ($la - $lb) / max($lb, 1)))")
    cpct=$(python3 -c "print('%+.1f' % (100.0 * ($ca - $cb) / max($cb, 1)))")
    printf '%-18s JVM wall: without %5d ms, with agent %5d ms, %s %% (<= 5 %%: %s)\n' \
        "$name x $n" "$mb" "$ma" "$pct" "$(verdict "$pct <= 5")"
    printf '%-18s JVM CPU:  without %5d ms, with agent %5d ms, %s %%; %s us of CPU per object\n' \
        "" "$cb" "$ca" "$cpct" "$(python3 -c "print('%.2f' % (($ca - $cb) * 1000.0 / $n))")"
    printf '%-18s timed loop: without %5d ms, with agent %5d ms, %s %%\n' "" "$lb" "$la" "$lpct"
}

echo "machine: load average $(cut -d" " -f1-3 /proc/loadavg) on $(nproc) cores, shared"
echo "== 1-2. overhead (the whole JVM, median of runs)"
echo "  per watched object the program does: watch: a request (a map of 8 headers, a 2 KB body)"
echo "  built, read and watched; close: a connection (a 256-byte buffer) allocated, one send,"
echo "  close(); queue: the same, the connection passed through a 64-slot queue first"
overhead watch 100000 "$runs"
overhead close "$closes" "$runs"
overhead queue "$closes" "$runs"
if [ "${AGENT_BENCH_LONG:-1}" != 0 ]; then
    echo "  the same, 2-3 s of CPU per run:"
    overhead watch 3000000 "$runs"
    overhead close 100000000 "$runs"
    overhead queue 100000000 "$runs"
fi

echo "== 3. 5th retained object -> report on disk, 100 MB heap"
rm -rf "$out/heap"
java -Xmx1g "-agentpath:$so=dump-dir=$out/heap,delay-ms=1000" -cp "$cp" AgentBench heap 0 100 \
    15000 > "$out/heap.out" 2> "$out/heap.err" &
jvm=$!
for ((i = 0; i < 600; i++)); do
    compgen -G "$out/heap/leakray-*.txt" >/dev/null && compgen -G "$out/heap/leakray-*.json" \
        >/dev/null && grep -q 'report at' "$out/heap.err" && break
    sleep 0.05
done
kill "$jvm" 2>/dev/null || true
wait "$jvm" 2>/dev/null || true
json=$(ls "$out"/heap/leakray-*.json)
txt=$(ls "$out"/heap/leakray-*.txt)
dump=$(ls "$out"/heap/leakray-*.hprof)
read -r latency retained_after <<<"$(python3 - "$json" "$out/heap.out" "$txt" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
watched_at = int([l.split()[1] for l in open(sys.argv[2]) if l.startswith("watched_at")][0])
lab = dict(l.split(" = ") for l in d["traces"][-1]["elements"][-1]["labels"])
# retainedUptime - watchUptime, from the dump's KeyedWeakReference fields
after = int(lab["watchDurationMillis"]) - int(lab["retainedDurationMillis"])
done = max(os.stat(p).st_mtime_ns for p in (sys.argv[1], sys.argv[3])) / 1e6
print("%d %d" % (done - (watched_at + after), after))
PY
)"
summary=$(grep 'report at' "$out/heap.err")
echo "$summary"
size=$(stat -c %s "$dump")
pause=$(sed -E 's/.*pause ([0-9]+) ms.*/\1/' <<<"$summary")
analysis=$(sed -E 's/.*analysis ([0-9.]+) s.*/\1/' <<<"$summary")
printf 'retained %d ms after watching (delay-ms=1000); retained -> report on disk %d ms (<= 3000: %s)\n' \
    "$retained_after" "$latency" "$(verdict "$latency <= 3000")"
printf '  dump pause %s ms, dump %s MB, analysis (text + JSON side by side) %s s\n' "$pause" \
    "$(bench_mb $((size / 1024)))" "$analysis"
bench_measure lra "$out/lr.json" "$lr" analyze "$dump" --json
printf '  leakray analyze alone: %.2f s wall, %.2f s CPU\n' "$lra_wall" "$lra_cpu"
if "$src/scripts/shark-peer.sh" --check; then
    bench_measure shark "$out/shark.json" "$src/scripts/shark-peer.sh" --hprof "$dump" analyze --json
    printf '  Shark 2.14 analysis of the same dump: %.2f s wall, %.2f s CPU; Shark / leakray: %s\n' \
        "$shark_wall" "$shark_cpu" "$(bench_ratio "$shark_wall" "$lra_wall")"
else
    echo "  Shark: jars not fetched (scripts/shark-peer.sh --fetch); peer skipped"
fi

echo "== 4. memory the agent adds (RSS, heap pre-touched)"
rss_kb() { # ARGS...: peak RSS in KiB of one JVM run
    /usr/bin/time -f '%M' java -Xms256m -Xmx256m -XX:+AlwaysPreTouch "$@" 2>&1 >/dev/null | tail -1
}
n=100000
base=() fixed=() held=() heldb=()
for i in 1 2 3; do
    base+=("$(rss_kb -cp "$cp" AgentBench hold 0)")
    fixed+=("$(rss_kb "-agentpath:$so=quiet,rules=none,dump-dir=$out/m" -cp "$cp" AgentBench hold 0)")
    heldb+=("$(rss_kb -cp "$cp" AgentBench hold $n)")
    held+=("$(rss_kb "-agentpath:$so=quiet,rules=none,dump-dir=$out/m" -cp "$cp" AgentBench hold $n)")
done
b=$(median "${base[@]}"); f=$(median "${fixed[@]}"); hb=$(median "${heldb[@]}"); h=$(median "${held[@]}")
per=$(python3 -c "print('%.0f' % (($h - $hb - ($f - $b)) * 1024.0 / $n))")
printf 'fixed: %d KiB with the agent, %d KiB without: +%d KiB (<= 4096: %s)\n' "$f" "$b" \
    $((f - b)) "$(verdict "$f - $b <= 4096")"
printf 'per watched object (native, %d held): %s B (<= 64: %s); the Java heap holds nothing\n' \
    "$n" "$per" "$(verdict "$per <= 64")"
echo "  per object besides until it is retained (its description is numbered; the"
echo "  KeyedWeakReference, 40 B, and its key String, 40-48 B, are built then)"
