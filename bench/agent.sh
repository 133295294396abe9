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
#  w. (only when named) the floor of a JNI weak reference per watched object (see there).
# Workloads 0-2 run as AGENT_BENCH_RUNS (25) strictly interleaved pairs (without, with; the
# order inside a pair alternates), after one uncounted warm-up run. Each pair gives one
# difference; printed per workload: the median difference in % of the median without, its
# interquartile range, a 95 % bootstrap confidence interval of that median, and whether the
# 5 % bound holds (upper end <= 5 %), is exceeded (lower end > 5 %) or is undecided (the
# machine too noisy for the number of pairs). Wall times from a monotonic clock around each
# JVM, CPU times (user + sys) from its rusage, "loop" the program's own timed loop (after
# the JVM and the agent started). A third side, the floor, runs in the same pairs: an agent
# that asks for the same capabilities and events at the same moments and does nothing with
# them (tests/programs/bench/agent_floor.c, built here with cc): what the JVM charges any such
# agent; "over floor" is the agent's own cost (agent - floor), pair by pair.
# Memory (4): medians of 3 runs. AGENT_BENCH_SECTIONS=012
# runs only those sections (default 01234; 5, the hook's shape, and w only when named);
# AGENT_BENCH_OLD=PATH to another
# libleakray_agent.so adds it to the same pairs (before / after). AGENT_BENCH_JAVA adds JVM
# options to every side of sections 0-2, e.g. -Xmn64m: G1 sizes its young generation after
# its first collection from what that collection copied, so the agent's few kilobytes of
# objects alive then move every later collection of a 0.2 s program, and with them how much
# fresh memory it touches (page faults); a fixed young generation takes that out.
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
runs=${AGENT_BENCH_RUNS:-25}
verdict() { python3 -c 'import sys; print("met" if eval(sys.argv[1]) else "MISSED")' "$1"; }
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

# Runs one workload as RUNS strictly interleaved pairs (without the agent, with it, and
# AGENT_BENCH_OLD's agent when set), in one python3 process: the order inside a pair turns
# round from pair to pair (A B C, then C B A, ...), so a drift of the machine's load weighs on
# both sides alike. Wall time from a monotonic clock around each JVM, CPU (user + sys) from
# its rusage, the program's own timed loop ("elapsed_us"). Each pair gives one difference
# (with - without, in % of the median without); printed: the median difference, its
# interquartile range, and a 95 % confidence interval of that median (bootstrap, 4000
# resamples of the pairs, fixed seed). The 5 % bound "holds" when the interval's upper end is
# <= 5 %, is "exceeded" when its lower end is > 5 %, else "undecided" (more pairs needed, or
# a quieter machine). One line per side: wall, CPU, timed loop.
# The sides are those above unless bench_sides (JSON: [label, JVM options, class path] per side,
# the first the reference) names others; bench_over then names the side the later ones are
# also compared with, pair by pair, in place of the floor (section w).
overhead() { # NAME N RUNS
    python3 - "$@" "$so" "${AGENT_BENCH_OLD:-}" "$out" "$cp" "$floor" <<'PY'
import json, os, random, statistics, subprocess, sys, time
name, n, runs, so, old, out, cp, floor = sys.argv[1:9]
n, runs = int(n), int(runs)
agent = ["-agentpath:%s=quiet,dump-dir=%s/d-%s" % (so, out, name)]
confs = ([("without", [], cp), ("floor", ["-agentpath:" + floor], cp), ("with agent", agent, cp)]
         + ([("old agent", ["-agentpath:%s=quiet,dump-dir=%s/d-%s" % (old, out, name)], cp)]
            if old else []))
over = os.environ.get("bench_over", "")
if os.environ.get("bench_sides"):
    confs = [tuple(c) for c in json.loads(os.environ["bench_sides"])]
res = {c: {"wall": [], "cpu": [], "loop": []} for c, _, _ in confs}

def run(c, opts, cp):
    cmd = (["java", "-Xmx512m"] + os.environ.get("AGENT_BENCH_JAVA", "").split() + opts
           + ["-cp", cp, "AgentBench", name, str(n)])
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
    r = res[c]
    r["wall"].append((t1 - t0) / 1e6)
    r["cpu"].append((ru.ru_utime + ru.ru_stime) * 1000.0)
    r["loop"].append(loop)

run(*confs[0])  # warm-up (page cache, CDS archive), not counted
for c in res:
    for v in res[c].values():
        v.clear()
for i in range(runs):
    for c in (confs if i % 2 == 0 else confs[::-1]):
        run(*c)

rng = random.Random(1)

def quartiles(v):
    q = statistics.quantiles(v, n=4, method="inclusive") if len(v) > 1 else [v[0]] * 3
    return q[0], q[2]

def stats(key, c, ref="without"):
    """median of per-pair differences in % of ref's median; IQR; bootstrap 95 % CI"""
    a, b = res[c][key], res[ref][key]
    base = statistics.median(b)
    if base <= 0:
        return None
    d = [100.0 * (x - y) / base for x, y in zip(a, b)]
    meds = sorted(statistics.median(rng.choices(d, k=len(d))) for _ in range(4000))
    ci = (meds[int(0.025 * len(meds))], meds[int(0.975 * len(meds)) - 1])
    return statistics.median(d), quartiles(d), ci, base, statistics.median(a)

def verdict(lo, hi, bound=5.0):
    if hi <= bound:
        return "holds"
    if lo > bound:
        return "exceeded"
    return "undecided"

label = "%s x %d" % (name, n)
print("%s: %d interleaved pairs; per-pair differences in %% of the median without"
      % (label, runs))
for c, _, _ in confs[1:]:
    for key, what in (("wall", "wall"), ("cpu", "CPU"), ("loop", "loop")):
        s = stats(key, c, confs[0][0]) if key != "loop" or n else None
        if s is None:
            continue
        med, (q1, q3), (lo, hi), base, side = s
        tail = ""
        if key == "wall":
            tail = "  <= 5 %%: %s" % verdict(lo, hi)
        elif key == "cpu" and n:
            tail = "  %.2f us/object" % ((side - base) * 1000.0 / n)
        if over and key != "wall" and n:  # per object from the pairs' differences
            tail = "  %+.0f ns/object" % (med * base * 1e4 / n)
        print("  %-10s %-4s %7.1f -> %7.1f ms %+6.1f %%  IQR %+.1f..%+.1f  CI95 %+.1f..%+.1f%s"
              % (c, what, base, side, med, q1, q3, lo, hi, tail))
# the same pairs: the agent against the floor (its own cost), in % of the median without the
# agent, and this build against the old one directly
if over:
    # each later side against the one named, pair by pair, in % of the median of the first
    # side; per object: the median difference in ns
    at = [c for c, _, _ in confs].index(over)
    for c, _, _ in confs[at + 1:]:
        for key, what in (("wall", "wall"), ("cpu", "CPU"), ("loop", "loop")):
            med, (q1, q3), (lo, hi), base, side = stats(key, c, over)
            scale = base / statistics.median(res[confs[0][0]][key])
            print("  %-17s %-4s %7.1f -> %7.1f ms %+6.1f %%  IQR %+.1f..%+.1f  CI95 %+.1f..%+.1f"
                  "  %+.0f ns/object (CI95 %+.0f..%+.0f)"
                  % (c + " - " + over, what, base, side, med * scale, q1 * scale, q3 * scale,
                     lo * scale, hi * scale, med * base * 1e4 / n, lo * base * 1e4 / n,
                     hi * base * 1e4 / n))
    sys.exit(0)
for ref, label in (("floor", "over floor"),) + ((("old agent", "new - old"),) if old else ()):
    for key, what in (("wall", "wall"), ("cpu", "CPU")):
        med, (q1, q3), (lo, hi), base, side = stats(key, "with agent", ref)
        scale = base / statistics.median(res["without"][key]) if ref == "floor" else 1.0
        print("  %-10s %-4s %7.1f -> %7.1f ms %+6.1f %%  IQR %+.1f..%+.1f  CI95 %+.1f..%+.1f"
              % (label, what, base, side, med * scale, q1 * scale, q3 * scale, lo * scale,
                 hi * scale))
PY
}

# AGENT_BENCH_SECTIONS: the sections to run (digits, default 01234): 0 start-up alone (the
# program does nothing), 1 watches, 2 closes, 3 retained -> report, 4 memory.
sections=${AGENT_BENCH_SECTIONS:-01234}
on() { [[ $sections == *"$1"* ]]; }

echo "machine: load average $(cut -d" " -f1-3 /proc/loadavg) on $(nproc) cores, shared"
floor=
if on 0 || on 1 || on 2; then
    jdk=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    floor=$out/libagent_floor.so
    cc -O2 -shared -fPIC -I"$jdk/include" -I"$jdk/include/linux" -o "$floor" \
        "$src/tests/programs/bench/agent_floor.c"
    echo "== 0-2. overhead (the whole JVM; wall from a monotonic clock, CPU = user + sys;"
    echo "  loop = the program's own timed loop)"
    [ -n "${AGENT_BENCH_OLD:-}" ] && echo "  old agent (AGENT_BENCH_OLD): $AGENT_BENCH_OLD"
    [ -n "${AGENT_BENCH_JAVA:-}" ] && echo "  JVM options of every side (AGENT_BENCH_JAVA): $AGENT_BENCH_JAVA"
    echo "  floor: an agent with the same capabilities and events that does nothing"
    echo "  (tests/programs/bench/agent_floor.c); over floor: the agent's own cost, in % of"
    echo "  the median without"
    echo "  per watched object the program does: watch: a request (a map of 8 headers, a 2 KB body)"
    echo "  built, read and watched; close: a connection (a 256-byte buffer) allocated, one send,"
    echo "  close(); queue: the same, the connection passed through a 64-slot queue first"
fi
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

# 5 (only when asked: AGENT_BENCH_SECTIONS=5): the hook's own cost in close(), without the
# agent: tests/programs/bench/AgentHookShapes.java, close() as the program has it, as the
# agent's rewrite leaves it, and two alternatives; one JVM per run (the warm-up counts),
# interleaved, each shape's per-run difference to the plain close() as above.
if on 5; then
    echo "== 5. the stamp hook's shape, without the agent (1,000,000 closes, timed loop)"
    javac -d "$out/classes" "$src/tests/programs/bench/AgentHookShapes.java"
    python3 - "$closes" "$runs" "$out" <<'PY'
import random, statistics, subprocess, sys
n, runs, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
shapes = ["plain", "stamp", "field", "nonvol"]
res = {s: [] for s in shapes}
for i in range(runs):
    for s in (shapes if i % 2 == 0 else shapes[::-1]):
        p = subprocess.run(["java", "-Xmx512m", "-cp", out + "/classes", "AgentHookShapes", s, n],
                           capture_output=True, text=True, check=True)
        res[s].append(int(p.stdout.split()[1]) / 1000.0)
rng = random.Random(1)
base = statistics.median(res["plain"])
print("  plain close(): %.1f ms (median of %d)" % (base, runs))
for s in shapes[1:]:
    d = [a - b for a, b in zip(res[s], res["plain"])]
    meds = sorted(statistics.median(rng.choices(d, k=len(d))) for _ in range(4000))
    print("  %-7s %+6.2f ms per %s closes (CI95 %+.2f..%+.2f), %+.1f %%"
          % (s, statistics.median(d), n, meds[100], meds[3899], 100 * statistics.median(d) / base))
PY
fi

# w (only when asked: AGENT_BENCH_SECTIONS=w): the floor of holding each watched object weakly
# through JNI, on the watch workload: AgentBench unchanged, with the shim leakray.AppWatcher of
# tests/programs/bench/weak/ (one native call per watched object) and
# tests/programs/bench/agent_weak.c, whose option says what that call does: call (nothing: the
# transition alone), weak (+ NewWeakGlobalRef into a C array), sweep (+ a thread deleting the
# cleared ones every 100 ms, as the agent's tick does), tag (JVMTI SetTag + ObjectFree events
# instead). The same pairs hold no agent and the agent itself; each side against no agent,
# then each against call (what the reference costs beyond the transition), per object in ns.
# PATH=/usr/lib/jvm/<jdk>/bin:$PATH runs it on another JDK (javac, java and jvmti.h from it).
if on w; then
    echo "== w. the floor of a weak reference per watched object (java: $(java -version 2>&1 |
        head -1))"
    jdk=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    weak=$out/libagent_weak.so
    cc -O2 -shared -fPIC -I"$jdk/include" -I"$jdk/include/linux" -o "$weak" \
        "$src/tests/programs/bench/agent_weak.c"
    mkdir -p "$out/weak"
    javac -d "$out/weak" "$src/tests/programs/bench/weak/AppWatcher.java"
    bench_sides=$(python3 - "$cp" "$out/weak:$out/classes" "$weak" "$so" "$out" <<'PY'
import json, sys
cp, wcp, weak, so, out = sys.argv[1:6]
print(json.dumps([["without", [], cp]]
                 + [[m, ["-agentpath:%s=%s" % (weak, m)], wcp]
                    for m in ("call", "weak", "sweep", "tag")]
                 + [["with agent", ["-agentpath:%s=quiet,dump-dir=%s/d-weak" % (so, out)], cp]]))
PY
    )
    export bench_sides bench_over=call
    # AGENT_BENCH_WEAK_N: the numbers of watches, one run of pairs each (default 100000, and
    # 3000000 unless AGENT_BENCH_LONG=0: the per-object costs without the JVM's start-up)
    wns=${AGENT_BENCH_WEAK_N:-100000}
    [ -z "${AGENT_BENCH_WEAK_N:-}" ] && [ "${AGENT_BENCH_LONG:-1}" != 0 ] && wns="$wns 3000000"
    for wn in $wns; do overhead watch "$wn" "$runs"; done
    unset bench_sides bench_over
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
