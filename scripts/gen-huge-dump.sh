#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gen-huge-dump.sh: writes (once) a HotSpot heap dump of a requested size, 20 GiB by default,
# from a real JVM (tests/programs/bench/HugeDump.java: shards of small three-reference nodes,
# index arrays and long[]s, plus watched and listener leaks), and prints its path. The JVM
# exits before anything reads the dump. Like gen-big-dump.sh the file is cached and rebuilt
# only when the Java sources or GIB differ from those it was written from (OUT.stamp holds
# their hash: scripts/dump-stamp.bash).
# usage: scripts/gen-huge-dump.sh [OUT.hprof [GIB]]
#   default OUT: ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}/huge.hprof, GIB 20 (any decimal).
# The heap is about 0.52x the dump (10.5 GiB for 20 GiB: 21.6 GB, 421.9 M objects), and the
# JVM takes about 3 min of CPU, start to dump written (9.5 min of wall time on a 2-core
# machine at load average 10-14). Guards, because the machine may be shared:
#   - free disk in OUT's folder must exceed 1.1x GIB (checked before the JVM starts);
#   - MemAvailable must be at least the JVM's heap cap + HUGE_MEM_MARGIN_GIB (default 2):
#     the script waits (rechecking every 30 s, up to HUGE_WAIT_S, default 1800 s) and exits 5
#     if memory never frees up; the JVM is capped at HUGE_XMX_GIB (default: 1.25x the heap it
#     needs, at most 14) so a miscalculation ends in an OutOfMemoryError, not in the kernel's
#     OOM killer.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}
out=${1:-$dir/huge.hprof}
gib=${2:-20}
case $gib in '' | *[!0-9.]* | *.*.*) echo "gen-huge-dump: GIB must be a number" >&2; exit 2 ;; esac
mkdir -p "$(dirname "$out")"
progs=("$src/tests/programs/bench/HugeDump.java" "$src/tests/programs/bench/PlantedLeaks.java"
       "$src/tests/programs/demo/KeyedWeakReference.java")
. "$src/scripts/dump-stamp.bash"
# "20" and "20.0" ask for the same dump
stamp=$(dump_stamp "HugeDump GiB $(python3 -c 'import sys; print(float(sys.argv[1]))' "$gib")" \
    "${progs[@]}")
if dump_cached gen-huge-dump "$out" "$stamp"; then
    printf '%s\n' "$out"
    exit 0
fi
command -v javac >/dev/null || {
    echo "gen-huge-dump: javac not found (scripts/deps.sh bench)" >&2; exit 2; }

# Heap the program needs: 0.52x the dump, plus 1 GiB for the young generation and slack.
need_gib=$(python3 -c 'import sys; print(int(float(sys.argv[1]) * 0.52 + 1.99))' "$gib")
xmx=${HUGE_XMX_GIB:-$(python3 -c 'import sys; print(min(14, int(int(sys.argv[1]) * 1.25) + 1))' \
    "$need_gib")}
margin=${HUGE_MEM_MARGIN_GIB:-2}
free_disk_gib=$(( $(df -Pk "$(dirname "$out")" | awk 'NR == 2 {print $4}') / 1048576 ))
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) * 1.1 < float(sys.argv[2]) else 1)' \
    "$gib" "$free_disk_gib" || {
    echo "gen-huge-dump: $free_disk_gib GiB free in $(dirname "$out"), need 1.1x $gib" >&2
    exit 5
}
avail_gib() { awk '/^MemAvailable:/ {print int($2 / 1048576)}' /proc/meminfo; }
waited=0
until [ "$(avail_gib)" -ge $((xmx + margin)) ]; do
    if [ "$waited" -ge "${HUGE_WAIT_S:-1800}" ]; then
        echo "gen-huge-dump: only $(avail_gib) GiB available, need $((xmx + margin))" >&2
        exit 5
    fi
    echo "gen-huge-dump: $(avail_gib) GiB available, waiting for $((xmx + margin))" >&2
    sleep 30
    waited=$((waited + 30))
done

cls=$(mktemp -d "${TMPDIR:-/tmp}/lr-hugedump.XXXXXX")
trap 'rm -rf "$cls"; rm -f "$out.tmp.hprof"' EXIT
javac -d "$cls" "${progs[@]}"
rm -f "$out" "$out.stamp" "$out.tmp.hprof"
echo "gen-huge-dump: writing $out ($gib GiB, JVM -Xmx${xmx}g)" >&2
# A small young generation leaves the old one room for the whole live heap. -Xms = -Xmx: a
# growing old generation costs one full GC (marking the whole live heap) per step; a fixed
# one is still only touched, so resident, as it fills. dumpHeap refuses to overwrite, and a
# half-written dump must never look cached.
java -Xmx"${xmx}"g -Xms"${xmx}"g -Xmn1g -XX:+UseParallelGC -cp "$cls" \
    HugeDump "$out.tmp.hprof" "$gib" >&2
mv "$out.tmp.hprof" "$out"
dump_stamp_write "$out" "$stamp"
printf '%s\n' "$out"
