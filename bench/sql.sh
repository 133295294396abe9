#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql.sh: the questions of docs/sql.md timed on the benchmark dump (scripts/gen-big-dump.sh,
# ~120 MB / 2.3 M objects), after load, beside hprof-analyzer 0.3.2's OQL (crates.io; MAT's
# query language) on the same questions (HPROF_ANALYZER=path, else one on PATH, else built
# from crates.io outside the repo on first use by scripts/rust-peers.sh; BENCH_NO_BUILD=1
# builds nothing). leakray's times are its own per-statement and
# per-phase clocks (sql --json time_ms, the timing lines of instances and path --merged),
# so the load is left out; the peer's are wall times of whole runs, load included, with its
# load alone measured separately when it can be. Targets: GROUP BY class full scan <= 1 s,
# point lookup <= 1 ms, referrers <= 10 ms, instances of a 100 k-instance class <= 0.3 s,
# path --merged over 100 k instances <= 2 s. Missed targets are reported, not fatal.
# usage: bench/sql.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
[ -x "$lr" ] || { echo "sql: no leakray at $lr" >&2; exit 2; }
dir=$(bench_cache_dir)
dump=$("$src/scripts/gen-big-dump.sh" "$dir/big.hprof")
out=$dir/sql
mkdir -p "$out"
cat "$dump" >/dev/null
echo "dump: $dump ($(($(stat -c %s "$dump") / 1048576)) MB); load: $(cut -d' ' -f1-3 /proc/loadavg)"

cls='BigDump$Session'
big=$("$lr" sql "$dump" --no-progress "SELECT id FROM classes WHERE name = 'BigDump'" --csv |
      tail -1)
one=$("$lr" sql "$dump" --no-progress "SELECT id FROM objects WHERE class = '$cls' LIMIT 1" \
      --csv | tail -1)
q_group="SELECT class, count(*), sum(shallow) FROM objects GROUP BY class ORDER BY 3 DESC LIMIT 20"
q_point="SELECT id, class, kind, shallow FROM objects WHERE id = $one"
q_ref1="SELECT src, name FROM edges WHERE dst = $big"
q_ref2="SELECT src, name FROM edges WHERE dst = $one"
q_ret="SELECT name, instances, retained FROM classes ORDER BY retained DESC LIMIT 20"
q_inst="SELECT id, shallow FROM objects WHERE class = '$cls'"
"$lr" sql "$dump" --no-progress --json --timing --max-rows 0 \
    "$q_group; $q_point; $q_point; $q_ref1; $q_ref2; $q_inst; $q_ret" >"$out/sql.json"
read -r t_group t_point1 t_point2 t_ref1 t_ref2 t_qinst t_ret < <(python3 -c '
import json, sys
print(*[r["time_ms"] for r in json.load(open(sys.argv[1]))["results"]])' "$out/sql.json")
"$lr" instances "$dump" "$cls" --no-progress --limit 20 >"$out/instances.txt"
t_inst=$(sed -nE 's/^instances: ([0-9.]+) (m?s)$/\1 \2/p' "$out/instances.txt" |
         awk '{print $2 == "s" ? $1 * 1000 : $1}')

# CPU seconds of whole runs minus a run that only loads: steadier than wall time when the
# machine is shared (the load itself runs on two threads). The two headline questions run
# $runs times each and report medians: wall on leakray's own clock after load, CPU beyond
# the median load-only run, and the whole run (load included) as the peer is measured.
runs=${SQL_RUNS:-3}
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
bases=() bases_w=()
for ((i = 0; i < runs; i++)); do
    bench_measure base "$out/base.txt" "$lr" sql "$dump" --no-progress "SELECT 1"
    bases+=("$base_cpu") bases_w+=("$base_wall")
done
base_cpu=$(med "${bases[@]}")
cpu() { # NAME CMD...: CPU ms beyond the load
    local name=$1
    shift
    bench_measure one "$out/cpu-$name.txt" "$@"
    awk -v a="$one_cpu" -v b="$base_cpu" 'BEGIN { printf "%.0f", (a - b) * 1000 }'
}
own=() ocpu=() wall=() wcpu=()
for ((i = 0; i < runs; i++)); do
    bench_measure one "$out/group.json" "$lr" sql "$dump" --no-progress --json --timing "$q_group"
    own+=("$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0]["time_ms"])' \
             "$out/group.json")")
    ocpu+=("$(awk -v a="$one_cpu" -v b="$base_cpu" 'BEGIN { printf "%.0f", (a - b) * 1000 }')")
    wall+=("$one_wall") wcpu+=("$one_cpu")
done
t_group=$(med "${own[@]}") c_group=$(med "${ocpu[@]}")
g_runs="own clock ${own[*]} ms; CPU beyond load ${ocpu[*]} ms"
lr_group_wall=$(med "${wall[@]}") lr_group_cpu=$(med "${wcpu[@]}")
own=() ocpu=() wall=() wcpu=()
for ((i = 0; i < runs; i++)); do
    bench_measure one "$out/merged.txt" "$lr" path "$dump" --class "$cls" --merged --no-progress
    own+=("$(sed -nE 's/^merged paths: ([0-9.]+) (m?s)$/\1 \2/p' "$out/merged.txt" |
             awk '{print $2 == "s" ? $1 * 1000 : $1}')")
    ocpu+=("$(awk -v a="$one_cpu" -v b="$base_cpu" 'BEGIN { printf "%.0f", (a - b) * 1000 }')")
    wall+=("$one_wall") wcpu+=("$one_cpu")
done
t_merged=$(med "${own[@]}") c_merged=$(med "${ocpu[@]}")
m_runs="own clock ${own[*]} ms; CPU beyond load ${ocpu[*]} ms"
lr_merged_wall=$(med "${wall[@]}") lr_merged_cpu=$(med "${wcpu[@]}")
c_point=$(cpu point "$lr" sql "$dump" --no-progress "$q_point")
c_ref=$(cpu ref "$lr" sql "$dump" --no-progress "$q_ref1")
c_inst=$(cpu inst "$lr" instances "$dump" "$cls" --no-progress)

target() { awk -v t="$1" -v lim="$2" 'BEGIN { print (lim == "-" ? "-" : t <= lim ? "ok" : "MISSED") }'; }
printf '\n%-42s %11s %10s %9s %7s\n' question wall_ms cpu_ms target result
row() { printf '%-42s %11s %10s %9s %7s\n' "$1" "$2" "$3" "$4" "$(target "$2" "$4")"; }
row "GROUP BY class, full scan (+class index)" "$t_group" "$c_group" 1000
row "point lookup by id (first)" "$t_point1" "$c_point" 1
row "point lookup by id (again)" "$t_point2" - 1
row "referrers (edge scan)" "$t_ref1" "$c_ref" 10
row "referrers (edge scan, another object)" "$t_ref2" - 10
row "sql WHERE class = (120 k rows as JSON)" "$t_qinst" - -
row "instances $cls (instances verb)" "$t_inst" "$c_inst" 300
row "path --merged over $cls" "$t_merged" "$c_merged" 2000
row "classes by retained (dominators)" "$t_ret" - -
echo "wall_ms: leakray's own clock for the question after load; cpu_ms: CPU (user+sys) of the"
echo "whole run minus a load-only run (small values are within noise). GROUP BY and"
echo "path --merged: medians of $runs runs:"
echo "  GROUP BY:      $g_runs"
echo "  path --merged: $m_runs"
echo "load-only run: CPU ${bases[*]} s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- peer: hprof-analyzer 0.3.2 (MAT's OQL) ----
# Its command lines (its README and `heap docs`): `query DUMP --query OQL` parses the dump
# and answers without the dominator tree; `heap load DUMP` runs the full analysis once and
# caches it beside the dump (DUMP.hprof-cache/), after which `heap query DUMP --oql OQL`
# answers from the cache, @retainedHeapSize included. It has no merged paths to GC roots
# (its leak suspects show one root path each), so that question has no peer.
peer=${HPROF_ANALYZER:-$(command -v hprof-analyzer || true)}
if [ -z "$peer" ]; then
    if [ "${BENCH_NO_BUILD:-0}" = 1 ]; then
        peer=$("$src/scripts/rust-peers.sh" --check hprof-analyzer || true)
    else
        peer=$("$src/scripts/rust-peers.sh" hprof-analyzer || true)
    fi
fi
if [ -z "$peer" ] || [ ! -x "$peer" ]; then
    echo
    echo "hprof-analyzer: not installed (HPROF_ANALYZER=path, on PATH, or built by scripts/rust-peers.sh): peer skipped"
    exit 0
fi
echo
echo "$("$peer" --version 2>/dev/null | head -1): whole runs (load included), medians of $runs"
one_hex=$(printf '0x%x' "$one")
big_hex=$(printf '0x%x' "$big")
peer_run() { # NAME CMD...: sets p_wall p_cpu (medians, s) and p_rc (last run)
    local name=$1 w=() c=()
    shift
    for ((i = 0; i < runs; i++)); do
        bench_measure peer "$out/peer-$name.txt" "$@"
        w+=("$peer_wall") c+=("$peer_cpu")
    done
    p_wall=$(med "${w[@]}") p_cpu=$(med "${c[@]}") p_rc=$peer_rc
}
printf '%-40s %9s %8s %5s %9s %8s %11s\n' question peer_wall peer_cpu exit lr_wall lr_cpu \
    cpu_peer/lr
prow() { # QUESTION LR_WALL LR_CPU
    printf '%-40s %9.2f %8.2f %5s %9s %8s %11s\n' "$1" "$p_wall" "$p_cpu" "$p_rc" "$2" "$3" \
        "$( [ "$3" = - ] && echo - || bench_ratio "$p_cpu" "$3")"
}
lr_whole() { # CMD...: sets l_wall l_cpu (medians of whole leakray runs, s)
    local w=() c=()
    for ((i = 0; i < runs; i++)); do
        bench_measure one "$out/lr-whole.txt" "$@"
        w+=("$one_wall") c+=("$one_cpu")
    done
    l_wall=$(med "${w[@]}") l_cpu=$(med "${c[@]}")
}
p_group="SELECT classof(x) AS class, COUNT(*) AS n, SUM(@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY bytes DESC LIMIT 20"
peer_run load "$peer" query "$dump" --query "SELECT COUNT(*) FROM java.lang.Thread"
prow "query: load + a one-class count" "$(med "${bases_w[@]}")" "$base_cpu"
base_peer_cpu=$p_cpu
peer_run group "$peer" query "$dump" --query "$p_group"
prow "query: GROUP BY class" "$lr_group_wall" "$lr_group_cpu"
echo "  after load, CPU: peer $(awk -v a="$p_cpu" -v b="$base_peer_cpu" 'BEGIN{printf "%.2f", a-b}') s," \
    "leakray $(awk -v a="$c_group" 'BEGIN{printf "%.2f", a/1000}') s"
peer_run point "$peer" query "$dump" --query "SELECT @objectAddress, @usedHeapSize FROM OBJECTS $one_hex"
lr_whole "$lr" sql "$dump" --no-progress "$q_point"
prow "query: point lookup by id" "$l_wall" "$l_cpu"
peer_run ref "$peer" query "$dump" --query "SELECT @inbounds FROM OBJECTS $big_hex"
lr_whole "$lr" sql "$dump" --no-progress "$q_ref1"
prow "query: referrers of an object" "$l_wall" "$l_cpu"
peer_run inst "$peer" query "$dump" --query "SELECT @objectAddress, @usedHeapSize FROM $cls"
lr_whole "$lr" instances "$dump" "$cls" --no-progress --limit 0
prow "query: instances of $cls" "$l_wall" "$l_cpu"

# Retained sizes: the full analysis, cached, then questions answered from the cache.
"$peer" heap cache-clear "$dump" >/dev/null 2>&1 || true
bench_measure peer "$out/peer-heap-load.txt" "$peer" heap load "$dump"
p_wall=$peer_wall p_cpu=$peer_cpu p_rc=$peer_rc
lr_whole "$lr" sql "$dump" --no-progress "$q_ret"
prow "heap load (full analysis) | sql retained" "$l_wall" "$l_cpu"
peer_run hgroup "$peer" heap query "$dump" --oql "$p_group"
prow "heap query (cached): GROUP BY class" "$lr_group_wall" "$lr_group_cpu"
p_ret="SELECT @objectAddress, @retainedHeapSize AS ret_bytes FROM INSTANCEOF java.lang.Object x ORDER BY ret_bytes DESC"
peer_run hret "$peer" heap query "$dump" --json --oql "$p_ret"
prow "heap query (cached): every object by retained" - -
rows=$(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    print("unparsed"); sys.exit()
rows = d.get("rows") if isinstance(d, dict) else d
print(len(rows) if isinstance(rows, list) else "unparsed",
      d.get("truncated", "-") if isinstance(d, dict) else "-")' "$out/peer-hret.txt")
total=$("$lr" sql "$dump" --no-progress --csv "SELECT count(*) FROM objects" | tail -1)
echo "  rows: peer $rows (rows, truncated flag) of $total objects; leakray's"
echo "  \"SELECT id, retained FROM objects ORDER BY retained DESC\" returns all $total rows"
echo "  (--max-rows 0) or fails with one line past --max-rows, never a silent cut"
