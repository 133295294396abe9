#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent.sh: the JVM agent's costs, each workload run side by side with the same program
# without the agent (tests/programs/bench/AgentBench.java), in one run:
#  1. overhead of watching 100,000 short-lived objects (AppWatcher.expectWeaklyReachable);
#  2. overhead of 1,000,000 calls of a close() watched by the Closeable#close rule
#     (AGENT_BENCH_CLOSES to change), on connections that die at once (close: JDK 17 still
#     allocates each, with or without the agent) and on connections handed through a queue
#     first (queue); target for both: <= 5 % wall time. Wall and CPU (user + sys of the
#     whole JVM) are both printed:
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
#  0. (first) the set-up alone: the close workload with no closes (JVM start, agent start).
# Times are medians of AGENT_BENCH_RUNS (5) interleaved runs (without, with, without, ...) for
# workloads 0-2, of 3 for 4, on a machine shared with others. Wall times are taken from a
# monotonic clock around each JVM (ms with decimals), CPU times from the JVM's rusage (us).
# AGENT_BENCH_SECTIONS=012 runs only those sections (default 01234); AGENT_BENCH_OLD=PATH
# to another libleakray_agent.so adds it to the same interleaved runs (before / after).
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

# Runs one workload RUNS times interleaved (without the agent, with it, then with
# AGENT_BENCH_OLD's agent when set, again without, ...) in one python3 process: wall time from
# a monotonic clock around each JVM (ns), CPU (user + sys, us) from its rusage, and the
# program's own timed loop ("elapsed_us"); prints medians, and the lowest wall times (least
# disturbed by other load).
overhead() { # NAME N RUNS
    python3 - "$@" "$so" "${AGENT_BENCH_OLD:-}" "$out" "$cp" <<'PY'
import os, statistics, subprocess, sys, time
name, n, runs, so, old, out, cp = sys.argv[1:8]
n, runs = int(n), int(runs)
confs = [("without", None), ("with agent", so)] + ([("old agent", old)] if old else [])
res = {c: ([], [], []) for c, _ in confs}
for i in range(runs):
    for c, lib in confs:
        cmd = ["java", "-Xmx512m"]
        if lib:
            cmd.append("-agentpath:%s=quiet,dump-dir=%s/d-%s" % (lib, out, name))
        cmd += ["-cp", cp, "AgentBench", name, str(n)]
        with open(out + "/run.out", "wb") as f:
            t0 = time.monotonic_ns()
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.DEVNULL)
            _, st, ru = os.wait4(p.pid, 0)
            t1 = time.monotonic_ns()
        if st != 0:
            sys.exit("agent bench: %s exited with status %d" % (" ".join(cmd), st))
        loop = 0.0
        for l in open(out + "/run.out"):
            if l.startswith("elapsed_us "):
                loop = int(l.split()[1]) / 1000.0
        w, l, cpu = res[c]
        w.append((t1 - t0) / 1e6)
        l.append(loop)
        cpu.append((ru.ru_utime + ru.ru_stime) * 1000.0)
med = {c: [statistics.median(v) for v in res[c]] for c, _ in confs}
low = {c: min(res[c][0]) for c, _ in confs}
def pct(a, b):
    return 100.0 * (a - b) / b if b else 0.0
b = med["without"]
label = "%s x %d" % (name, n)
for c, _ in confs[1:]:
    a = med[c]
    p = pct(a[0], b[0])
    print("%-18s JVM wall: without %7.1f ms, %s %7.1f ms, %+.1f %% (<= 5 %%: %s)"
          % (label, b[0], c, a[0], p, "met" if p <= 5 else "MISSED"))
    print(("%-18s JVM CPU:  without %7.1f ms, %s %7.1f ms, %+.1f %%"
           + ("; %.2f us of CPU per object" if n else "%.0s"))
          % ("", b[2], c, a[2], pct(a[2], b[2]), (a[2] - b[2]) * 1000.0 / max(n, 1)))
    print("%-18s timed loop: without %7.2f ms, %s %7.2f ms, %+.1f %%; lowest wall: "
          "without %.1f ms, %s %.1f ms, %+.1f %%"
          % ("", b[1], c, a[1], pct(a[1], b[1]), low["without"], c, low[c],
             pct(low[c], low["without"])))
PY
}

# AGENT_BENCH_SECTIONS: the sections to run (digits, default 01234): 0 start-up alone (the
# program does nothing), 1 watches, 2 closes, 3 retained -> report, 4 memory.
sections=${AGENT_BENCH_SECTIONS:-01234}
on() { [[ $sections == *"$1"* ]]; }

echo "machine: load average $(cut -d" " -f1-3 /proc/loadavg) on $(nproc) cores, shared"
echo "== 0-2. overhead (the whole JVM, median of $runs runs; wall in ms from a monotonic clock)"
[ -n "${AGENT_BENCH_OLD:-}" ] && echo "  old agent (AGENT_BENCH_OLD): $AGENT_BENCH_OLD"
echo "  per watched object the program does: watch: a request (a map of 8 headers, a 2 KB body)"
echo "  built, read and watched; close: a connection (a 256-byte buffer) allocated, one send,"
echo "  close(); queue: the same, the connection passed through a 64-slot queue first"
if on 0; then overhead close 0 "$runs"; fi
if on 1; then overhead watch 100000 "$runs"; fi
if on 2; then
    overhead close "$closes" "$runs"
    overhead queue "$closes" "$runs"
fi
if [ "${AGENT_BENCH_LONG:-1}" != 0 ] && { on 1 || on 2; }; then
    echo "  the same, 2-3 s of CPU per run:"
    if on 1; then overhead watch 3000000 "$runs"; fi
    if on 2; then
        overhead close 100000000 "$runs"
        overhead queue 100000000 "$runs"
    fi
fi

on 3 || on 4 || exit 0
if on 3; then
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

fi

on 4 || exit 0
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
