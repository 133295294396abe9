#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# big.sh: how leakray scales on HotSpot dumps written by real JVMs, from 115 MB to 20 GiB:
#   small  ~120 MB, 2.3 M objects   scripts/gen-big-dump.sh (BigDump, SCALE 1)
#   800m   ~815 MB, 17.7 M objects  scripts/gen-big-dump.sh OUT 8 (the size class of a
#                                   768 MB dump of about 20 M objects)
#   1g     ~1.0 GB, 22 M objects    scripts/gen-big-dump.sh OUT 10
#   huge   21.6 GB, 422 M objects   scripts/gen-huge-dump.sh (HugeDump, 20 GiB; only when the
#                                   file exists or BENCH_HUGE=1 asks to write it: ~10.5 GiB
#                                   of JVM heap, see that script's guards)
# For each dump, `info`, `histo`, `top` and `analyze` (--json --timing, output discarded after
# the object count and the spilled bytes are read) with wall time, CPU (user+sys), own memory
# (peak of RssAnon + RssShmem sampled every 10 ms, bench/lib.sh; the mapped dump's page cache
# is not counted), the most bytes spilled at once to files past --max-memory (page cache too;
# timing.memory.spilled_peak, docs/limits.md),
# and whether the machine swapped during the run (pswpin/pswpout of /proc/vmstat; a machine
# without swap says "no swap" and cannot swap). Each verb runs with --max-memory 0.5x the
# file, the own-memory goal: past it the large arrays spill to unnamed files in --tmpdir
# (TMPDIR, default /tmp: a disk folder with room for about the dump's size), and a run that
# still needs more exits 5 with one line, reported as "over the 0.5x budget", instead of
# pushing a shared machine into the OOM killer. Such a verb then
# runs again under a cap of RETRY_X (default 2) x the file, lowered so that HEADROOM_GIB
# (default 4) of the memory available at that moment stays free, to measure what it needs
# (the cap column says which cap a row ran under). On the huge dump only with HUGE_RETRY=1:
# that cap is most of the machine.
# Per dump: CPU seconds and own memory per GB of file, CPU ns and own bytes per object.
# The small, 800 MB and 1 GB dumps run RUNS times (default 3; medians), the huge one RUNS_HUGE
# (default 1). On the huge dump `top` and `analyze` run only while MemAvailable is at least
# HUGE_MIN_AVAIL_GIB (default 14), and are skipped with a line saying so otherwise; `info`
# and `histo` always run (`histo` streams in a few MB; `info` loads the graph without its
# edges, about 20 bytes an object). The page cache is warmed only for dumps
# that fit in half of MemAvailable (the huge one is read from disk as much as from the cache).
# usage: [RUNS=3] [RUNS_HUGE=1] [BENCH_HUGE=1] [DUMPS="small 800m 1g huge"] bench/big.sh [leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
[ -x "$lr" ] || { echo "big: no leakray at $lr" >&2; exit 2; }
dir=$(bench_cache_dir)
out=$dir/big
mkdir -p "$out"
med() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
avail_kib() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }
swapped() { awk '/^pswp(in|out) / {s += $2} END {print s + 0}' /proc/vmstat; }
swap_total=$(awk '/^SwapTotal:/ {print $2}' /proc/meminfo)
status=0

dump_of() { # NAME: prints the dump's path, writing it first when needed; nothing to skip
    case $1 in
        small) "$src/scripts/gen-big-dump.sh" "$dir/big.hprof" ;;
        800m) "$src/scripts/gen-big-dump.sh" "$dir/big-x8.hprof" 8 ;;
        1g) "$src/scripts/gen-big-dump.sh" "$dir/big-x10.hprof" 10 ;;
        huge)
            # An existing file is used as it is: a fresh checkout's sources are newer than
            # any dump, and rewriting 21.6 GB takes a 14 GiB JVM and ten minutes.
            if [ -s "$dir/huge.hprof" ]; then
                echo "$dir/huge.hprof"
            elif [ "${BENCH_HUGE:-}" = 1 ]; then
                "$src/scripts/gen-huge-dump.sh" "$dir/huge.hprof" 20
            fi ;;
        *) echo "big: unknown dump $1 (small, 800m, 1g, huge)" >&2; exit 2 ;;
    esac
}

printf '%s; machine: %s CPUs, %s GiB RAM, %s; load average %s\n' \
    "$("$lr" --version 2>/dev/null | head -1 || echo '?')" "$(nproc)" \
    "$(awk '/^MemTotal:/ {print int($2 / 1048576 + 0.5)}' /proc/meminfo)" \
    "$( [ "$swap_total" = 0 ] && echo 'no swap' || echo "swap $((swap_total / 1024)) MB")" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
hdr='%-6s %8s %7s %-8s %6s %4s %8s %8s %9s %6s %9s %8s %9s %10s %9s %s\n'
printf "$hdr" dump size_GB objs_M verb cap exit wall_s cpu_s own_MB own/f spill_MB cpu_s/GB \
    own_MB/GB cpu_ns/obj own_B/obj swapped

# run_verb NAME DUMP VERB CAP_BYTES: runs the verb RUNS times under --max-memory CAP_BYTES and
# prints one row; returns 0 when it ran, 5 when it went over the cap, 1 on any other failure.
run_verb() {
    local name=$1 dump=$2 verb=$3 cap=$4 w=() c=() o=() sw=0 i s0 msg
    local capf
    capf=$(python3 -c 'import sys; print(f"{int(sys.argv[1]) / int(sys.argv[2]):.2f}x")' \
        "$cap" "$size")
    for ((i = 0; i < runs; i++)); do
        s0=$(swapped)
        bench_measure m "$out/$name-$verb.json" "$lr" "$verb" --json --timing --no-progress \
            --max-memory "$cap" "$dump"
        sw=$((sw + $(swapped) - s0))
        w+=("$m_wall") c+=("$m_cpu") o+=("$m_own")
        [ "$m_rc" = 0 ] || break
    done
    local wall cpu own swap_txt
    wall=$(med "${w[@]}") cpu=$(med "${c[@]}") own=$(med "${o[@]}")
    if [ "$verb" = info ] && [ "$m_rc" = 0 ]; then
        objs=$(python3 -c 'import json, sys
print(round(json.load(open(sys.argv[1]))["objects"]["count"] / 1e6, 1))' "$out/$name-$verb.json")
    elif [ "$verb" = histo ] && [ "$m_rc" = 0 ] && [ -z "$objs" ]; then
        objs=$(python3 -c 'import json, sys
print(round(json.load(open(sys.argv[1]))["total"]["count"] / 1e6, 1))' "$out/$name-$verb.json")
    fi
    swap_txt=$( [ "$swap_total" = 0 ] && echo "no (no swap)" || \
        { [ "$sw" = 0 ] && echo no || echo "YES ($sw pages)"; })
    if [ "$m_rc" != 0 ]; then
        # --json puts the error on stdout ({"error": {"message": ...}}).
        msg=$(python3 -c 'import json, sys
try:
    print(json.load(open(sys.argv[1]))["error"]["message"])
except Exception:
    print(open(sys.argv[1] + ".err").read().strip().replace("\n", " "))' "$out/$name-$verb.json")
        if [ "$m_rc" = 5 ] && grep -q '^memory limit' <<<"$msg"; then
            printf '%-6s %8s %7s %-8s %6s %4s %8s %8s %9s  over the %s budget: %s\n' "$name" \
                "$gb" "${objs:-?}" "$verb" "$capf" "$m_rc" "$wall" "$cpu" "$(bench_mb "$own")" \
                "$capf" "$(cut -c1-150 <<<"$msg")"
            return 5
        fi
        printf '%-6s %8s %7s %-8s %6s %4s FAILED: %s\n' "$name" "$gb" "${objs:-?}" "$verb" \
            "$capf" "$m_rc" "$(cut -c1-200 <<<"$msg")"
        return 1
    fi
    local ownf cpugb owngb nsobj bobj spill
    spill=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["timing"].get("memory", {})
print(round(m.get("spilled_peak", 0) / 1e6))' "$out/$name-$verb.json")
    read -r ownf cpugb owngb nsobj bobj < <(python3 -c '
import sys
size, own, cpu, objs = (float(v) for v in sys.argv[1:5])
objs = objs * 1e6 if objs > 0 else float("nan")
print(f"{own * 1024 / size:.2f} {cpu / (size / 1e9):.2f} {own / 1024 / (size / 1e9):.0f}"
      f" {cpu * 1e9 / objs:.0f} {own * 1024 / objs:.1f}")' "$size" "$own" "$cpu" "${objs:-0}")
    printf "$hdr" "$name" "$gb" "${objs:-?}" "$verb" "$capf" "$m_rc" "$wall" "$cpu" \
        "$(bench_mb "$own")" "$ownf" "$spill" "$cpugb" "$owngb" "$nsobj" "$bobj" "$swap_txt"
}

for name in ${DUMPS:-small 800m 1g huge}; do
    dump=$(dump_of "$name")
    if [ -z "$dump" ]; then
        echo "$name: no dump (write it with scripts/gen-huge-dump.sh or BENCH_HUGE=1): skipped"
        continue
    fi
    size=$(stat -c %s "$dump")
    gb=$(python3 -c 'import sys; print(f"{int(sys.argv[1]) / 1e9:.2f}")' "$size")
    runs=${RUNS:-3}
    [ "$name" = huge ] && runs=${RUNS_HUGE:-1}
    [ $((size / 1024)) -lt $(($(avail_kib) / 2)) ] && cat "$dump" >/dev/null
    objs=
    for verb in info histo top analyze; do
        if [ "$name" = huge ] && { [ "$verb" = top ] || [ "$verb" = analyze ]; }; then
            min=${HUGE_MIN_AVAIL_GIB:-14}
            if [ "$(avail_kib)" -lt $((min * 1048576)) ]; then
                printf '%-6s %8s %7s %-8s skipped: %s GiB available, below %s GiB\n' "$name" \
                    "$gb" "${objs:-?}" "$verb" "$(($(avail_kib) / 1048576))" "$min"
                continue
            fi
        fi
        rc=0
        run_verb "$name" "$dump" "$verb" $((size / 2)) || rc=$?
        [ "$rc" = 1 ] && status=1
        [ "$rc" = 5 ] || continue
        [ "$name" = huge ] && [ "${HUGE_RETRY:-}" != 1 ] && continue
        # Over the goal: measure what it needs under a cap that still leaves the machine
        # HEADROOM_GIB (default 4) of what is available now, at most RETRY_X (default 2) x file.
        retry=$(python3 -c 'import sys
size, avail, head, x = int(sys.argv[1]), int(sys.argv[2]) * 1024, float(sys.argv[3]), \
    float(sys.argv[4])
print(int(min(size * x, avail - head * 2**30)))' "$size" "$(avail_kib)" "${HEADROOM_GIB:-4}" \
            "${RETRY_X:-2}")
        if [ "$retry" -le $((size / 2)) ]; then
            printf '%-6s %8s %7s %-8s no retry above 0.5x: %s GiB available\n' "$name" "$gb" \
                "${objs:-?}" "$verb" "$(($(avail_kib) / 1048576))"
            continue
        fi
        rc=0
        run_verb "$name" "$dump" "$verb" "$retry" || rc=$?
        [ "$rc" = 1 ] && status=1
    done
done
echo "wall and CPU are medians of RUNS runs (the huge dump: RUNS_HUGE); CPU is the figure to"
echo "read on a loaded machine. Linear scaling = the same cpu_s/GB and own_MB/GB on every row."
exit "$status"
