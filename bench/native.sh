#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native.sh: the native malloc monitor (libleakray_native.so) beside heaptrack and valgrind.
#  1. Overhead on a real malloc-heavy run: the sqlite3 CLI building a database of ROWS rows
#     (default 300,000; ~80 MB, two indexes), plain, under the monitor with frame-pointer
#     backtraces, with libunwind, without backtraces, under heaptrack and valgrind memcheck
#     (--leak-check=full). The monitor runs with its at-exit scan off (the scan is item 3).
#  2. The same for 10 M malloc/free pairs on 2 threads (bench/micro/native_malloc_bench.c);
#     valgrind gets a tenth of the pairs and its time is scaled up (it would take minutes).
#  3. Pause and scan: a heap of HEAP_MB MiB (default 256) in 1 KiB blocks with a thread
#     allocating beside it (bench/micro/native_heap_bench.c), scanned SCANS times (default 3)
#     by `leakray native check`; pause (stop + fork), scan time in the child, both per GiB,
#     and extra memory (RssAnon with the monitor minus without). Three ways: 4 KiB pages left
#     alone (LEAKRAY_NATIVE_HUGE_PAGES=0), plain LD_PRELOAD (the monitor collapses glibc's
#     heap into transparent huge pages before each scan) and glibc's own transparent huge
#     pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, what `native run` sets); huge pages
#     shrink the page tables fork copies.
#  4. Accuracy against LeakSanitizer and valgrind on every test program of
#     tests/programs/native (scripts/golden-native.sh, run live).
# Ratios are of CPU time (user + system, steadier than wall time on a shared machine); wall
# times are printed too. Sections 1 and 2 print medians of RUNS (default 3) and MB_RUNS
# (default 9) rounds, each round running every configuration once.
# BASE_LIB=path/to/another/libleakray_native.so adds it to sections 1 and 2 (in section 2 in
# the same rounds): an older build, to compare two versions of the monitor under one load.
# SECTIONS (default "1 2 3 4") picks sections. usage: bench/native.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
lib=$(dirname "$lr")/libleakray_native.so
[ -x "$lr" ] && [ -f "$lib" ] || { echo "native: no leakray/monitor at $lr" >&2; exit 2; }
for t in sqlite3 heaptrack valgrind gcc; do
    command -v $t >/dev/null || { echo "native: $t is required (scripts/deps.sh bench)" >&2; exit 2; }
done
rows=${ROWS:-300000}
heap_mb=${HEAP_MB:-256}
scans=${SCANS:-3}
runs=${RUNS:-3}
mb_runs=${MB_RUNS:-9}
base_lib=${BASE_LIB:-}
sections=" ${SECTIONS:-1 2 3 4} "
median() {
    python3 -c 'import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"
}
# measure NAME OUT CMD...: bench_measure RUNS times; NAME_cpu, NAME_wall, NAME_own are the
# medians of the runs.
measure() {
    local name=$1 out=$2 i cs="" ws="" os=""
    shift 2
    for i in $(seq "$runs"); do
        bench_measure "m_$i" "$out" "$@"
        cs="$cs $(eval echo "\$m_${i}_cpu")"
        ws="$ws $(eval echo "\$m_${i}_wall")"
        os="$os $(eval echo "\$m_${i}_own")"
    done
    eval "${name}_cpu=$(median $cs)"
    eval "${name}_wall=$(median $ws)"
    eval "${name}_own=$(median $os | cut -d. -f1)"
}
# interleaved PREFIX ROUNDS NAME=CMD...: runs every CMD (a string split on spaces) once per
# round, ROUNDS rounds, stdout to $dir/ilv.out, and sets PREFIX_NAME_cpu and PREFIX_NAME_wall to
# the medians. Each round runs every configuration, so a change of load falls on all of them
# alike; CPU time is the child's rusage (user + system, microseconds: /usr/bin/time's 10 ms
# steps are a tenth of a 0.1 s run).
interleaved() {
    local out
    out=$(python3 - "$dir/ilv.out" "$@" <<'PY'
import os, statistics, sys, time
out, prefix, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
confs = [c.split("=", 1) for c in sys.argv[4:]]
res = {n: [] for n, _ in confs}
for _ in range(rounds):
    for n, cmd in confs:
        argv = cmd.split()
        t0 = time.monotonic()
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)])
        _, st, ru = os.wait4(pid, 0)
        if st:
            sys.exit(f"native: {n} run failed ({st})")
        res[n].append((ru.ru_utime + ru.ru_stime, time.monotonic() - t0))
for n, v in res.items():
    print(f"{prefix}_{n}_cpu={statistics.median(x[0] for x in v):.4f}"
          f" {prefix}_{n}_wall={statistics.median(x[1] for x in v):.4f}")
PY
    )
    eval "$out"
}
dir=$(bench_cache_dir)/native
rm -rf "$dir"
mkdir -p "$dir"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

cat >"$dir/build.sql" <<SQL
PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c BLOB, d TEXT);
WITH RECURSIVE x(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM x WHERE i < $rows)
INSERT INTO t SELECT i, hex(randomblob(12)), randomblob(40 + i % 200), printf('row %d', i)
FROM x;
CREATE INDEX tb ON t(b);
CREATE INDEX td ON t(d, b);
SELECT count(*), sum(length(c)) FROM t;
SQL
gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$dir/mallocs" "$src/bench/micro/native_malloc_bench.c"
gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$dir/heap" "$src/bench/micro/native_heap_bench.c"

export dir lib
# run_sq PREFIX...: builds the database afresh under PREFIX (a tool or an env assignment).
cat >"$dir/sq.sh" <<'SH'
rm -f "$dir/db.sqlite"
exec "$@" sqlite3 "$dir/db.sqlite" <"$dir/build.sql"
SH
MON="env LD_PRELOAD=$lib LEAKRAY_NATIVE_AT_EXIT=0 LEAKRAY_NATIVE_SOCKET=0"
BMON="env LD_PRELOAD=$base_lib LEAKRAY_NATIVE_AT_EXIT=0 LEAKRAY_NATIVE_SOCKET=0"
row() { # NAME LABEL BASE
    local n=$1 label=$2 base=$3 c w
    c=$(eval echo "\$${n}_cpu")
    w=$(eval echo "\$${n}_wall")
    printf '  %-34s cpu %7.3f s  wall %7.3f s  x%s\n' "$label" "$c" "$w" \
        "$(bench_ratio "$c" "$(eval echo "\$${base}_cpu")")"
}

if [[ $sections == *" 1 "* ]]; then
echo "== 1. sqlite3 building a $rows-row database (medians of $runs interleaved rounds;" \
    "heaptrack: median of $runs; valgrind: one run)"
SQ="bash $dir/sq.sh"
sq_confs=("plain=$SQ" "fp=$SQ $MON" "unw=$SQ $MON LEAKRAY_NATIVE_BACKTRACE=libunwind"
          "none=$SQ $MON LEAKRAY_NATIVE_BACKTRACE=none")
[ -n "$base_lib" ] && sq_confs+=("bfp=$SQ $BMON" "bnone=$SQ $BMON LEAKRAY_NATIVE_BACKTRACE=none")
interleaved sq "$runs" "${sq_confs[@]}"
grep -q '^[0-9]' "$dir/ilv.out" || { echo "native: sqlite3 run failed" >&2; exit 1; }
# Own memory (peak RssAnon + RssShmem) from one run each.
bench_measure sq_mplain "$dir/sq.out" bash "$dir/sq.sh"
bench_measure sq_mfp "$dir/sq.out" bash "$dir/sq.sh" $MON
measure sq_ht "$dir/sq.out" bash "$dir/sq.sh" heaptrack -o "$dir/sq.heaptrack"
bench_measure sq_vg "$dir/sq.out" bash "$dir/sq.sh" valgrind -q --leak-check=full
grep -q '^300000\|^[0-9]' "$dir/sq.out" || { echo "native: sqlite3 run failed" >&2; exit 1; }
row sq_plain "plain" sq_plain
row sq_fp "leakray, frame-pointer backtraces" sq_plain
row sq_unw "leakray, libunwind backtraces" sq_plain
row sq_none "leakray, no backtraces" sq_plain
if [ -n "$base_lib" ]; then
    row sq_bfp "BASE_LIB, frame-pointer backtraces" sq_plain
    row sq_bnone "BASE_LIB, no backtraces" sq_plain
fi
row sq_ht "heaptrack" sq_plain
row sq_vg "valgrind memcheck" sq_plain
echo "  extra memory (own, peak): leakray fp $(bench_mb $((sq_mfp_own - sq_mplain_own))) MB," \
    "heaptrack $(bench_mb $((sq_ht_own - sq_mplain_own))) MB," \
    "valgrind $(bench_mb $((sq_vg_own - sq_mplain_own))) MB (plain $(bench_mb "$sq_mplain_own") MB)"
fi

if [[ $sections == *" 2 "* ]]; then
echo "== 2. 10 M malloc/free pairs on 2 threads (medians of $mb_runs interleaved runs;" \
    "heaptrack: median of $runs; valgrind: one run)"
MB="$dir/mallocs 10000000 2"
mb_confs=("plain=$MB" "fp=$MON $MB" "none=$MON LEAKRAY_NATIVE_BACKTRACE=none $MB")
[ -n "$base_lib" ] &&
    mb_confs+=("basefp=$BMON $MB" "basenone=$BMON LEAKRAY_NATIVE_BACKTRACE=none $MB")
interleaved mb "$mb_runs" "${mb_confs[@]}"
measure mb_ht "$dir/mb.out" heaptrack -o "$dir/mb.heaptrack" "$dir/mallocs"
bench_measure mb_vg "$dir/mb.out" valgrind -q "$dir/mallocs" 1000000 2
mb_vg_cpu=$(python3 -c "print($mb_vg_cpu * 10)")
mb_vg_wall=$(python3 -c "print($mb_vg_wall * 10)")
row mb_plain "plain" mb_plain
row mb_fp "leakray, frame-pointer backtraces" mb_plain
row mb_none "leakray, no backtraces" mb_plain
if [ -n "$base_lib" ]; then
    row mb_basefp "BASE_LIB, frame-pointer backtraces" mb_plain
    row mb_basenone "BASE_LIB, no backtraces" mb_plain
fi
row mb_ht "heaptrack" mb_plain
row mb_vg "valgrind (1 M pairs x 10)" mb_plain
fi

if [[ $sections == *" 3 "* ]]; then
echo "== 3. pause and scan, $heap_mb MiB heap in 1 KiB blocks, $scans scans each"
scan_run() { # LABEL ENV...
    local label=$1
    shift
    rm -f "$dir/pid" "$dir/stop"
    env "$@" LD_PRELOAD="$lib" LEAKRAY_NATIVE_AT_EXIT=0 LEAKRAY_NATIVE_OUT="$dir/scan.%p.%n.lrn" \
        "$dir/heap" "$heap_mb" 1024 \
        "$dir/pid" "$dir/stop" &
    local bg=$!
    for _ in $(seq 600); do [ -s "$dir/pid" ] && break; sleep 0.1; done
    local pid
    pid=$(cat "$dir/pid")
    local rss
    rss=$(awk '/RssAnon/ {print $2}' "/proc/$pid/status")
    # The program's own CPU time (ticks) across the scans: the monitor's work before each
    # stop (collapsing the heap into huge pages) is the program's, not the child's.
    local t0 t1 rss1
    t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    for i in $(seq "$scans"); do
        "$lr" native check "$pid" --json --timing >"$dir/scan$i.json"
    done
    t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    rss1=$(awk '/RssAnon/ {print $2}' "/proc/$pid/status")
    touch "$dir/stop"
    wait $bg
    python3 - "$dir" "$scans" "$heap_mb" "$label" "$rss" "$rss1" "$(((t1 - t0) * 1000 / $(getconf CLK_TCK)))" <<'PY'
import json, statistics, sys
d, n, mb, label, rss = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
rss1, prog_ms = int(sys.argv[6]), int(sys.argv[7])
ts = [json.load(open(f"{d}/scan{i}.json"))["timing"] for i in range(1, n + 1)]
gib = mb / 1024
med = lambda k: statistics.median(t[k] for t in ts)
print(f"  {label}: pause median {med('pause_ms'):.1f} ms (min {min(t['pause_ms'] for t in ts):.1f};"
      f" stop {med('stop_ms'):.1f}, fork {med('fork_ms'):.1f}) = {med('pause_ms') / gib:.0f} ms/GiB;"
      f" child scan {med('scan_ms') / 1000:.2f} s wall, {med('scan_cpu_ms') / 1000:.2f} s CPU"
      f" = {med('scan_cpu_ms') / 1000 / gib:.2f} s CPU/GiB;"
      f" RssAnon {rss / 1024:.0f} MB, {rss1 / 1024:.0f} MB after the scans;"
      f" program CPU during the scans {prog_ms} ms")
PY
}
scan_run "4 KiB pages, left alone" LEAKRAY_NATIVE_HUGE_PAGES=0
scan_run "plain LD_PRELOAD (heap collapsed)" LEAKRAY_NATIVE_GRAPH=0
scan_run "glibc THP heap" GLIBC_TUNABLES=glibc.malloc.hugetlb=1
rm -f "$dir/pid" "$dir/stop"
"$dir/heap" "$heap_mb" 1024 "$dir/pid" "$dir/stop" &
bg=$!
for _ in $(seq 600); do [ -s "$dir/pid" ] && break; sleep 0.1; done
plain_rss=$(awk '/RssAnon/ {print $2}' "/proc/$(cat "$dir/pid")/status")
touch "$dir/stop"
wait $bg
echo "  without the monitor: RssAnon $((plain_rss / 1024)) MB"
fi

[[ $sections == *" 4 "* ]] || exit 0
echo "== 4. accuracy: leakray | LeakSanitizer | valgrind (definite, indirect, possible)"
"$src/scripts/golden-native.sh" "$(basename "$(dirname "$lr")")" | sed 's/^/  /'
(cd "$src" && git diff --quiet -- tests/e2e/expected/native/peers.txt) ||
    echo "  NOTE: the live results differ from tests/e2e/expected/native/peers.txt"
